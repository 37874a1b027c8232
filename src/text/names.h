/* What kgantt calls the things of a trace, one way everywhere: kernels, streams, GPUs. */
#ifndef KGANTT_TEXT_NAMES_H
#define KGANTT_TEXT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* A kernel name that fits in width columns: drops the parameter list, then the return
 * type, then the namespaces inside template arguments, then collapses nested template
 * arguments to <…>, then drops the kernel's own namespace, and cuts the end ("…") only
 * when nothing else helps. Control characters become '?'. Returns out. */
const char *kernel_short_name(const char *name, size_t width, char *out, size_t outlen);

/* A time relative to the trace begin, always in ms: "123.456 ms"; "-" when unknown. */
const char *fmt_rel_ms(const struct kg_model *m, int64_t t, char buf[32]);

/* A GPU by the device number the program saw: "GPU 3". When several GPUs of the trace
 * share that number (processes with their own CUDA_VISIBLE_DEVICES, ranks of several
 * hosts), the process that saw it too: "GPU 0 of pid 1234". gpu: index into model.gpus. */
const char *gpu_label(const struct kg_model *m, uint32_t gpu, char *buf, size_t len);

/* A device's name, "unknown GPU" when the trace gives none (or gives ""). */
const char *device_name(const struct kg_model *m, const struct kg_device *d);

/* A device as the trace describes it: "NVIDIA H200, 132 SMs, cc 9.0, 140 GiB", the parts
 * the trace does not give left out (a 0 is none: no GPU has 0 SMs), "unknown GPU" for a
 * device it gives no name (a Kineto trace whose deviceProperties miss it, or name it ""). */
const char *device_description(const struct kg_model *m, const struct kg_device *d, char *buf,
			       size_t len);

/* What a stream label says besides "stream 7", where it is not clear from the context. */
enum stream_label_parts {
	STREAM_LABEL_PLAIN = 0,
	STREAM_LABEL_WHERE = 1,  /* its GPU and process when the trace has several */
	STREAM_LABEL_KIND = 2,   /* legacy default, blocking, non-blocking */
	STREAM_LABEL_QUEUE = 4,  /* its priority (when not 0) and hardware channel */
};
/* "stream 7", "stream 7 (GPU 1, pid 1234, legacy default, prio -1, channel 3)": the parts
 * asked for that are known; "-" for no stream. */
const char *stream_label(const struct kg_model *m, uint32_t stream, unsigned parts, char *buf,
			 size_t len);

#endif
