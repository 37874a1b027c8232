/* The in-memory model of a trace: what every reader fills and every analysis, rule and
 * renderer reads. One model whatever the source: a kgantt trace, a PyTorch profiler
 * (Kineto) JSON trace or an Nsight Systems SQLite export.
 *
 * Arrays of plain structs, indexed by uint32_t, kept small: `kgantt report` holds a whole
 * trace, and must stay under 100 bytes per event (80 per op, 48 per API call; 10M
 * kernels with their launches in 2 GB). Strings are interned (model_string), so names
 * compare as integers; so are kernel launch configurations (model_launch). Times are int64 nanoseconds on the source's clock
 * (CLOCK_MONOTONIC_RAW for kgantt traces); KG_NO_TIME marks an unknown time.
 *
 * A reader calls model_init, the model_add_* functions in any order, then model_finish,
 * which leaves out the records whose times cannot be true, sorts the operations by stream
 * and start, links every operation to the API call that launched it (same process, same
 * correlation id) and computes the time span. */
#ifndef KGANTT_MODEL_H
#define KGANTT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "model/comm.h"
#include "util/kinds.h"

#include "util/api_names.h"
#include "util/hw_figures.h"
#include "util/stack_flags.h"
#include "util/strtab.h"

#define KG_NO_TIME INT64_MIN
#define KG_NONE UINT32_MAX
/* Work on fewer records than this stays on the calling thread (the loader's two big
 * tables, the analysis's per-GPU sweeps): a thread, and the loader's second connection
 * to the file (its schema parsed again), cost about as much as reading 5,000 rows, so
 * they pay for themselves only on large traces; a job report reads a thousand small
 * ones. */
#define KG_RECORDS_FOR_A_THREAD 65536

/* ------------------------------------------------------------------ processes, devices */

struct kg_process {
	uint32_t pid, ppid;
	uint32_t host;        /* string id (0 = unknown) */
	uint32_t cmdline;     /* string id */
	uint32_t rank;        /* string id of the rank, 0 = none */
	uint32_t exit_status; /* string id, 0 = unknown */
	int complete;         /* 0: the process died before the recorder finished */
	uint32_t refused;     /* string id: why it ran untraced (CUPTI refused the recorder:
			       * another profiler attached...), 0 = it was traced */
	uint64_t dropped;     /* records the profiler dropped */
	uint64_t incomplete;  /* records with missing timestamps */
	int64_t start, end;
	int64_t realtime_offset; /* CLOCK_REALTIME - the trace's clock at start, ns: places
				  * the process on wall-clock time (another host's traces);
				  * KG_NO_TIME unknown */
	int launches_sampled; /* full mode's kernel launches have calls only in windows
			       * (recorder/launches.h) */
	int64_t launch_lead;  /* launches sampled: median of queued - call start over the
			       * sampled calls, what op_issued takes from an unsampled
			       * kernel's queued time (0 when none) */
};

/* Who made a GPU: the report's compute capability and occupancy tables are CUDA's. */
enum kg_vendor { KG_VENDOR_UNKNOWN = 0, KG_VENDOR_NVIDIA = 1, KG_VENDOR_AMD = 2 };

struct kg_device {
	uint32_t process;     /* index of the process that saw it */
	int32_t ordinal;      /* CUDA device number in that process */
	uint32_t name;        /* string id */
	uint32_t uuid;        /* string id: same physical GPU across processes; 0 = unknown */
	int sm_count, max_warps_per_sm, max_blocks_per_sm, max_threads_per_block;
	int regs_per_sm, max_regs_per_block, smem_per_sm, smem_per_block, smem_per_block_optin;
	int cc_major, cc_minor; /* as the trace says: an AMD GPU's are its gfx version */
	int64_t memory_bytes;
	uint32_t gpu;         /* index of the physical GPU (model.gpus), set by model_finish */
	uint8_t vendor;       /* enum kg_vendor: set by the reader, else by model_finish from
			       * the name ("NVIDIA H200") */
	uint8_t pcie_gen;     /* host link: PCIe generation (1..6) and lanes, 0 = unknown */
	uint8_t pcie_lanes;
};

/* The rate of a device's host link in one direction, bytes/s, from its PCIe generation and
 * lanes (the line rate less the encoding: 8b/10b to gen 2, 128b/130b from gen 3, FLIT
 * from gen 6); 0 when the trace does not say. */
int64_t device_link_bytes_per_s(const struct kg_device *d);

/* Legacy default stream semantics matter to the rules: work on it serialises with every
 * blocking stream of its context. */
enum kg_stream_kind {
#define KG_STREAM_KIND_ENUM_(id, code, name) KG_STREAM_##id = code,
	KG_STREAM_KINDS(KG_STREAM_KIND_ENUM_)
#undef KG_STREAM_KIND_ENUM_
};

struct kg_stream {
	uint32_t process, device;  /* indices */
	uint32_t context;          /* the source's context id */
	int64_t id;                /* the source's stream id */
	int32_t priority;          /* 0 default; lower is higher priority */
	int32_t channel;           /* hardware channel, -1 unknown */
	enum kg_stream_kind kind;
	uint32_t first_op, nops;   /* this stream's operations: ops[first_op .. +nops], by start */
	uint32_t launch_thread;    /* the one thread whose calls launched its kernels (threads
				    * index), KG_NONE when none or several: the launching thread
				    * of a kernel whose launch call was not sampled */
};

/* Where sampled launches say which thread launches a kernel on a stream fed by several
 * (model_op_launch_thread): a kernel's name after the operation before it on the stream
 * (prev: its name; KG_NONE for the entry of the name after anything). */
struct kg_launch_place {
	uint32_t stream, name, prev;
	uint32_t thread;           /* threads index; KG_NONE - 1 when several */
};

struct kg_thread {
	uint32_t process;
	int64_t tid;               /* as the source writes it: Kineto's may be negative */
	uint32_t name;             /* string id, 0 = none */
};

/* ------------------------------------------------------------------ GPU operations */

enum kg_op_kind {
#define KG_OP_KIND_ENUM_(id, code, name) KG_OP_##id = code,
	KG_OP_KINDS(KG_OP_KIND_ENUM_)
#undef KG_OP_KIND_ENUM_
};

/* Copy direction and memory kinds use CUPTI's codes (trace format enum tables). */
enum kg_copy_kind {
#define KG_COPY_KIND_ENUM_(id, code, name) KG_COPY_##id = code,
	KG_COPY_KINDS(KG_COPY_KIND_ENUM_)
#undef KG_COPY_KIND_ENUM_
};
enum kg_mem_kind {
#define KG_MEM_KIND_ENUM_(id, code, name) KG_MEM_##id = code,
	KG_MEM_KINDS(KG_MEM_KIND_ENUM_)
#undef KG_MEM_KIND_ENUM_
};

enum kg_op_flags {
	KG_OPF_INCOMPLETE = 1 << 0, /* a timestamp was missing */
	KG_OPF_GRAPH = 1 << 1,      /* launched from a CUDA graph */
	KG_OPF_ASYNC = 1 << 2,      /* copy/memset issued by an asynchronous API */
	KG_OPF_COMM = 1 << 3,       /* a communication kernel (NCCL and the like) */
	KG_OPF_DEVICE_LAUNCHED = 1 << 4,
	KG_OPF_LEFT_OUT = 1 << 5,   /* inside model_finish only: its times cannot be true, and
				     * model_order_ops drops it */
	KG_OPF_ISSUED_QUEUED = 1 << 6, /* its launch call was not sampled: issued is estimated
					* from its queued time (op_issued) */
};

/* How a kernel was launched. A million launches use a few hundred distinct ones, so the
 * model keeps each once (model.launches) and an op names it by index: 40 bytes an op
 * saved. No padding the compiler could fill with garbage: two equal launches are equal
 * bytes (the table is keyed by them). */
struct kg_launch {
	uint32_t grid[3], block[3];
	uint32_t smem_static, smem_dynamic, smem_config;
	uint16_t regs;
	uint16_t zero;                /* always 0 */
};

/* 80 bytes: a trace of 10M kernels holds this many. What every pass over the ops reads
 * (times, stream, name, kind) comes first, in the same cache line as often as can be. */
struct kg_op {
	int64_t start, end;
	uint32_t stream;              /* index into streams */
	uint32_t name;                /* string id: kernel name (demangled) or copy label */
	uint8_t kind;                 /* enum kg_op_kind */
	uint8_t copy_kind, src_kind, dst_kind;
	uint16_t flags;               /* enum kg_op_flags */
	int64_t queued, submitted;    /* KG_NO_TIME when unknown */
	int64_t api_start;            /* start of the launching API call (apis[api]); set by
				       * model_finish */
	uint64_t bytes;               /* copies and memsets */
	uint32_t correlation;         /* source's correlation id, 0 = none */
	uint32_t api;                 /* index into apis of the launch call, KG_NONE */
	uint32_t launch;              /* index into launches (kernels), 0: nothing known */
	uint32_t graph;
};

/* ------------------------------------------------------------------ host side */

struct kg_api {
	int64_t start, end;
	uint32_t name;        /* string id */
	uint32_t thread;      /* index into threads */
	uint32_t correlation;
	uint32_t op;          /* first operation it launched, KG_NONE; set by model_finish */
	uint8_t category;     /* enum kg_api_category, from the name */
	uint8_t driver;       /* 1: driver API, 0: runtime (or unknown) */
	uint16_t pad;
	uint32_t process;
	uint32_t stack;       /* index into stacks: where the program made the call, KG_NONE */
};

enum kg_sync_kind {
#define KG_SYNC_KIND_ENUM_(id, code, name) KG_SYNC_##id = code,
	KG_SYNC_KINDS(KG_SYNC_KIND_ENUM_)
#undef KG_SYNC_KIND_ENUM_
};

/* A host wait the source attributes to a stream, event or the whole context. */
struct kg_sync {
	int64_t start, end;
	uint32_t process;
	uint32_t stream;      /* index, KG_NONE when not a stream sync */
	uint32_t api;         /* the API call that waited, KG_NONE */
	uint32_t correlation;
	uint8_t kind;         /* enum kg_sync_kind */
};

/* An annotation range: NVTX, or a PyTorch record_function / user annotation. */
struct kg_range {
	int64_t start, end;   /* end KG_NO_TIME when never closed */
	uint32_t name;
	uint32_t thread;      /* index, KG_NONE */
	uint32_t process;
	uint32_t domain;      /* string id, 0 = default */
};

/* One physical GPU: devices of different processes with the same UUID (or, without UUIDs,
 * the same host and ordinal) are one GPU. Time-slicing between processes happens here. */
struct kg_gpu {
	uint32_t device;      /* first device (for its properties) */
	uint32_t host;
	uint32_t uuid;
	int32_t ordinal;
};

/* ------------------------------------------------------------------ call stacks */

/* Where in the program an API call was made. A stack is a list of frames, innermost
 * first, in call order whatever their kind: native frames below the interpreter, then the
 * Python frames that called them, then the rest. Readers that know operators (PyTorch's
 * aten::item...) or annotation ranges put them in the order they enclose the call. */
enum kg_frame_kind {
	KG_FRAME_NATIVE = 0,     /* machine code: function, source line when debug info has it */
	KG_FRAME_PYTHON = 1,     /* a Python function: file, line, qualified name */
	KG_FRAME_OP = 2,         /* a framework operator (PyTorch aten::item) */
	KG_FRAME_ANNOTATION = 3, /* a user annotation (record_function, NVTX) */
};

struct kg_frame {
	uint64_t address;   /* native: module-relative address of the instruction, 0 unknown */
	uint32_t function;  /* string id: demangled symbol, Python function, operator; 0 unknown */
	uint32_t file;      /* string id: source file, 0 unknown */
	uint32_t module;    /* string id: executable or shared library path, 0 unknown */
	int32_t line;       /* 1-based source line, 0 unknown */
	uint8_t kind;       /* enum kg_frame_kind */
	uint8_t flags;      /* KG_FRAME_DEF_LINE */
	uint8_t pad[6];
};
/* `line` is where the function is defined, not the line that ran: a PyTorch profiler's
 * python_function names the def ("train.py(12): epoch"), not the calling line. */
#define KG_FRAME_DEF_LINE 1u

struct kg_stack {
	uint32_t first_frame, n_frames; /* frames[first_frame .. + n_frames], innermost first */
	uint32_t process;
	uint32_t flags;                 /* enum kg_stack_flags */
};

/* A stack recorded for the call with this correlation id in this process (kgantt and
 * Nsight traces): model_finish sets that call's `stack` from it. */
struct kg_stack_ref {
	uint32_t process, correlation, stack;
};

/* Hardware sampling on one device (record --hw): how, or why not. */
struct kg_hw_device {
	uint32_t device;              /* index into devices */
	int64_t interval_ns;
	uint32_t chip, state, note;   /* string ids; state: "sampled", "refused", "stopped" */
	uint64_t lost;                /* samples the GPU or the recorder could not keep */
	uint32_t metric[KG_HW_N];     /* string id of the CUPTI metric behind each figure, 0 none */
};

/* One sample of the GPU's counters over [start, end): figures of util/hw_figures.h,
 * NaN where the GPU did not count one. Sorted by device, then start (model_finish). */
struct kg_hw_sample {
	int64_t start, end;
	uint32_t device;              /* index into devices */
	float v[KG_HW_N];
};

/* Where one block of a kernel ran (kgantt record --sm, include/kgantt/sm.h): its SM and
 * times on the model's clock. Sorted by (device, SM, start) by model_finish, which also
 * keeps `op` pointing at the kernel as it reorders the ops. */
struct kg_sm_block {
	int64_t start, end;
	uint32_t op;                  /* index into ops: its kernel */
	uint32_t sm;                  /* the SM's id (%smid) */
	uint32_t block;               /* linear block index */
};

/* How SM placement went on one device of a process. */
struct kg_sm_info {
	uint32_t device;              /* index into devices */
	uint64_t blocks, kernels;     /* in the trace, before any window */
	uint64_t dropped, unmatched;  /* logged but not in the trace */
	int64_t offset_mad, offset_spread; /* clock alignment error, ns; KG_NO_TIME unknown */
};

/* What a host thread was doing, from time to time: the one shape of the host's activity,
 * whatever the source. A host sample of `kgantt record` (record --host-samples) stands
 * for the period before it; a profiler trace's own host events (Kineto's cpu_op,
 * python_function and user_annotation on a thread) become the stretches in which the
 * same innermost event ran; an Nsight export's CPU samples likewise. Sorted by thread,
 * then start; the stretches of one thread do not overlap. docs/host-samples.md. */
enum kg_host_source { KG_HOST_FROM_SAMPLES = 0, KG_HOST_FROM_EVENTS = 1 };

struct kg_host_span {
	int64_t start, end;   /* on the trace's clock */
	uint32_t thread;      /* index into threads */
	uint32_t stack;       /* index into stacks, innermost first; KG_NONE: not known */
	uint8_t state;        /* enum kg_host_state (util/kinds.h) */
	uint8_t source;       /* enum kg_host_source */
	uint8_t flags;        /* KG_HOST_PARTIAL: the stack stops short (no frame pointers) */
	uint8_t pad;
	uint32_t carried;     /* a sample's span carried past the sample's own time by this
			       * many ns (model_fit_host_samples): the sample was taken at end -
			       * carried. At most a period, which is at most 1 s */
};
#define KG_HOST_PARTIAL 1u
#define KG_HOST_HOLDS_GIL 2u /* the thread held Python's GIL (samples say so) */
#define KG_HOST_CPU_TIME 4u  /* sampled on the thread's own CPU time, not on wall-clock time:
			      * it ran for the span's length, within it (a thread that neither
			      * runs Python nor calls CUDA) */
/* "on CPU", "waiting for the GIL", ... */
const char *host_state_name(unsigned state);

/* 1 for a state of a thread off CPU (blocked, waiting for the GIL, idle): one wait,
 * which lasts until the thread runs again (host_fit.c); a leaf of its own in report
 * --host's tree, drawn lighter on the charts' host strips. */
static inline int host_state_off_cpu(unsigned state)
{
	return state == KG_HOST_BLOCKED || state == KG_HOST_GIL_WAIT || state == KG_HOST_IDLE;
}

/* How a process's threads were sampled (kgantt record --host-samples), or why not: what
 * a report says of the spans' source, and of the samples the recorder lost. */
struct kg_host_sampling {
	uint32_t process;             /* index into processes */
	uint32_t hz;                  /* samples a second per thread; 0: not sampled */
	uint32_t note;                /* string id: why not, or what limited it; 0 none */
	uint32_t threads;             /* threads sampled */
	uint64_t samples;             /* in the trace (before any window) */
	uint64_t taken;               /* by the signal handler (the rest the sampler wrote
				       * for threads asleep, without waking them) */
	uint64_t lost;                /* taken but not written: the recorder's buffers were
				       * full */
	uint64_t no_stack;            /* written without a stack: its tables were full */
	uint64_t lost_threads;        /* listings of a thread that found no room to sample it */
	uint64_t faulted;             /* samples dropped: a read faulted (caught) */
};

/* The time between two samples of a thread under h, ns; 0 when not sampled. */
static inline int64_t host_period_ns(const struct kg_host_sampling *h)
{
	return h->hz ? 1000000000 / h->hz : 0;
}

/* Every array of the model, once: freeing and copying a model go through this list. */
#define KG_MODEL_ARRAYS(X) \
	X(processes) X(devices) X(gpus) X(streams) X(threads) X(ops) X(launches) X(apis) \
	X(syncs) X(ranges) X(frames) X(stacks) X(stack_refs) X(hw_devices) X(hw_samples) \
	X(sm_blocks) X(sm_infos) X(host_spans) X(tracer_spans) X(host_samplings) X(comm_calls) \
	X(launch_places)

/* Records left out because their times cannot be true (model_finish, once a model):
 * what they were, and why (docs/readers.md, "Times that cannot be true"). */
enum kg_untrue_kind { KG_UNTRUE_KERNEL, KG_UNTRUE_COPY, KG_UNTRUE_MEMSET, KG_UNTRUE_API,
		      KG_UNTRUE_RANGE, KG_UNTRUE_WAIT, KG_UNTRUE_HW_SAMPLE, KG_UNTRUE_SM_BLOCK,
		      KG_UNTRUE_HOST_SPAN, KG_UNTRUE_TRACER_SPAN, KG_UNTRUE_KINDS };
enum kg_untrue_why {
	KG_UNTRUE_INT64_LIMIT,      /* at INT64_MAX or -INT64_MAX */
	KG_UNTRUE_END_BEFORE_START,
	KG_UNTRUE_AT_ZERO,          /* at time 0 where the trace's clock is far from 0 */
	KG_UNTRUE_NEGATIVE,         /* before time 0, likewise */
	KG_UNTRUE_FAR,              /* far outside the other records' span */
	KG_UNTRUE_TOO_LONG,         /* lasting longer than KG_LONGEST_NS */
	KG_UNTRUE_WHYS
};

#define KG_ARRAY(T, name) \
	T *name;          \
	uint32_t n_##name, cap_##name

struct kg_model {
	char source[16];        /* "kgantt", "kineto", "nsys" */
	char path[1024];
	const char *compression; /* "xz", "zstd", "gzip" (a copy read: trace/uncompress.h), or NULL */
	struct kg_strtab strings;
	KG_ARRAY(struct kg_process, processes);
	KG_ARRAY(struct kg_device, devices);
	KG_ARRAY(struct kg_gpu, gpus);
	KG_ARRAY(struct kg_stream, streams);
	KG_ARRAY(struct kg_thread, threads);
	KG_ARRAY(struct kg_op, ops);
	KG_ARRAY(struct kg_launch, launches); /* distinct launches (model_launch); [0] is all
					       * zeros, nothing known */
	KG_ARRAY(struct kg_api, apis);
	KG_ARRAY(struct kg_sync, syncs);
	KG_ARRAY(struct kg_range, ranges);
	KG_ARRAY(struct kg_frame, frames);
	KG_ARRAY(struct kg_stack, stacks);
	KG_ARRAY(struct kg_stack_ref, stack_refs);
	KG_ARRAY(struct kg_hw_device, hw_devices);
	KG_ARRAY(struct kg_hw_sample, hw_samples);
	KG_ARRAY(struct kg_sm_block, sm_blocks);
	KG_ARRAY(struct kg_sm_info, sm_infos);
	KG_ARRAY(struct kg_host_span, host_spans);
	/* The tracer's own time on a thread, from CUPTI's overhead records (buffer flushes
	 * and requests, instrumentation, its resources): by (thread, start), each named
	 * tracer_name. Whatever the thread was in then, a call or a span, that time is the
	 * recording's, not the program's (analysis/host.c). */
	KG_ARRAY(struct kg_host_span, tracer_spans);
	KG_ARRAY(struct kg_host_sampling, host_samplings);
	KG_ARRAY(struct kg_comm_call, comm_calls); /* what readers found about communication
						    * calls (model/comm.h) */
	KG_ARRAY(struct kg_launch_place, launch_places); /* by (stream, name, prev), from the
							  * sampled launches (model_finish) */
	char stack_note[200];   /* how the source took its stacks (sampling), "" when none */
	int64_t begin, end;     /* first start and last end of the GPU operations */
	int64_t program_start;  /* when `kgantt record` started the program (the origin of
				 * its --delay), on the trace's clock; KG_NO_TIME unknown */
	uint64_t dropped;       /* over all processes */
	uint32_t command;       /* string id: the recorded command line */
	uint32_t tracer_name;   /* string id: what tracer_spans are called, 0 when none */
	int has_queued;         /* some kernel has a queued timestamp */
	int has_api;            /* API calls were recorded */
	uint64_t untrue[KG_UNTRUE_KINDS][KG_UNTRUE_WHYS]; /* records left out, by kind, why */
	int times_checked;      /* model_finish has left them out (it does so once) */
	int host_fitted;        /* model_fit_host_samples has run (it does so once) */
	uint32_t gpu_work_calls; /* API calls that launch kernels, copies or memsets
				  * (model_finish) */
	int gpu_untraced;       /* such calls, but no GPU operation: the GPU side was not
				 * recorded (model_finish) */
	uint64_t unread_rows;   /* kernels and API calls the reader counted but did not read
				 * (kg_load_opts.copy_only) */
	char notes[12][256];    /* what the reader could not take in, for the report header */
	int n_notes;
	void *index;            /* lookups used while loading (model.c) */
};

void model_init(struct kg_model *m, const char *source, const char *path);
void model_free(struct kg_model *m);
/* A deep copy of a finished model into dst (model_init'ed here): the same string ids,
 * arrays and figures. Far cheaper than reading the trace again. 0 or -ENOMEM (dst is
 * then freed). */
int model_clone(const struct kg_model *src, struct kg_model *dst);

/* Interned string id of text; 0 for NULL or on allocation failure. */
uint32_t model_string(struct kg_model *m, const char *text);
uint32_t model_string_n(struct kg_model *m, const char *text, size_t len);
const char *model_text(const struct kg_model *m, uint32_t id); /* "" for 0 */

/* Each returns a zeroed element appended to its array, or NULL when out of memory.
 * Indices are stable until model_finish (which reorders ops). */
struct kg_process *model_add_process(struct kg_model *m);
struct kg_device *model_add_device(struct kg_model *m);
struct kg_stream *model_add_stream(struct kg_model *m);
struct kg_thread *model_add_thread(struct kg_model *m);
struct kg_op *model_add_op(struct kg_model *m);
struct kg_api *model_add_api(struct kg_model *m);
struct kg_sync *model_add_sync(struct kg_model *m);
struct kg_range *model_add_range(struct kg_model *m);
/* A span of a host thread (struct kg_host_span) with nothing known: no thread, no stack,
 * state unknown. NULL when out of memory. model_finish puts the spans in (thread, start)
 * order, with the threads; model_restrict keeps their parts within the window. */
struct kg_host_span *model_add_host_span(struct kg_model *m);
/* Samples' spans from host_spans[first] on, in (thread, end) order: the order
 * model_cut_host_spans leaves them in, which model_sort_host_spans gives before. */
void model_sort_host_spans(struct kg_model *m, uint32_t first);
/* The same spans, each a sample's time before it, cut where the thread's previous one
 * ends so that a thread's spans never overlap; those left with no time go. */
void model_cut_host_spans(struct kg_model *m, uint32_t first);
/* The samples' spans fitted to the threads' known CUDA activity (their calls, and the
 * launches dated by their queued time): a sample taken in a silence of the thread at
 * least a period long stands for that silence, from its start and to its end, and for
 * nothing outside it (src/model/host_fit.c). Once per model: model_finish calls it. */
int model_fit_host_samples(struct kg_model *m);
/* Each stream's launch_thread and the launch_places of streams fed by several threads
 * (src/model/launch_threads.c). model_finish calls it. 0 or -ENOMEM. */
int model_launch_threads(struct kg_model *m);
/* The thread that launched ops[op]: its launch call's; for a kernel whose call was not
 * sampled, its stream's one launching thread, else the one that launched the same kernel
 * after the same operation (or, failing that, ever) in the sampled calls; KG_NONE when
 * nothing says. */
uint32_t model_op_launch_thread(const struct kg_model *m, uint32_t op);
/* A span of the tracer's own time (tracer_spans): as a host span. NULL when out of memory. */
struct kg_host_span *model_add_tracer_span(struct kg_model *m);
struct kg_hw_device *model_add_hw_device(struct kg_model *m);
struct kg_hw_sample *model_add_hw_sample(struct kg_model *m);
/* Device d's samples, in start order: hw_samples[*first .. *end), empty when it has none.
 * The samples must be sorted by device, then start, as model_finish leaves them. */
void model_hw_sample_range(const struct kg_model *m, uint32_t d, uint32_t *first, uint32_t *end);
/* A block of the kernel ops[op] (op as the reader added it), and a device's SM placement
 * summary. NULL when out of memory. */
struct kg_sm_block *model_add_sm_block(struct kg_model *m);
struct kg_sm_info *model_add_sm_info(struct kg_model *m);
/* How a process's threads were sampled. NULL when out of memory. */
struct kg_host_sampling *model_add_host_sampling(struct kg_model *m);
struct kg_comm_call *model_add_comm_call(struct kg_model *m);
/* Index of the launch l in model.launches, added when new: 0 for one of all zeros,
 * KG_NONE when out of memory. One thread at a time. */
uint32_t model_launch(struct kg_model *m, const struct kg_launch *l);
/* Room for this many ops and API calls, when a reader knows the counts ahead: saves
 * the copies and page faults of growing by doubling. Afterwards, one thread may add ops
 * (model_add_op, model_stream_index, model_string) while another adds API calls
 * (model_add_api, model_thread_index) within the reserved counts; a reader may also
 * fill reserved slots past n_ops itself (model_op_init) and then set n_ops. 0 or
 * -ENOMEM. */
int model_reserve(struct kg_model *m, uint32_t ops, uint32_t apis);
/* An op with nothing known: zero, times KG_NO_TIME, no launch call (what model_add_op
 * returns). */
void model_op_init(struct kg_op *o);
/* A call with nothing known (what model_add_api returns). */
void model_api_init(struct kg_api *a);
void model_note(struct kg_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Index of the stack of these frames (innermost first) in this process, added when new:
 * the same frames and flags always give the same index. KG_NONE when out of memory. */
uint32_t model_add_stack(struct kg_model *m, uint32_t process, const struct kg_frame *frames,
			 uint32_t n, uint32_t flags);
/* Two frames say the same thing (every field equal). */
int model_same_frame(const struct kg_frame *a, const struct kg_frame *b);
/* The call (process, correlation) was made at `stack`; linked by model_finish. 0 or
 * -ENOMEM. */
int model_add_stack_ref(struct kg_model *m, uint32_t process, uint32_t correlation,
			uint32_t stack);

/* Index of the stream (process, device, context, id), created when new (device must be a
 * valid index). Readers call this for every op: it keeps a hash, so it is cheap. */
uint32_t model_stream_index(struct kg_model *m, uint32_t process, uint32_t device,
			    uint32_t context, int64_t id);
/* Index of the thread (process, tid), created when new. */
uint32_t model_thread_index(struct kg_model *m, uint32_t process, int64_t tid);
/* How a host thread's lanes are labelled: its name from the trace when the name holds the
 * tid (PyTorch's "thread 924 (python3)"), "NAME (thread TID)" otherwise, "thread TID"
 * without a name. Returns buf. */
const char *model_thread_label(const struct kg_model *m, const struct kg_thread *t, char *buf,
			       size_t len);
/* The vendor a GPU's name says ("NVIDIA H200", "AMD Instinct MI250X"), or unknown. */
enum kg_vendor model_vendor_of_name(const char *name);

/* The kinds' names, from their lists above: "HtoD", "pinned", "legacy default" (NULL for
 * an unknown stream kind), "event_synchronize", "memcpy"; "unknown" for other codes. */
const char *copy_kind_name(unsigned kind);
const char *mem_kind_name(unsigned kind);
const char *stream_kind_name(unsigned kind);
const char *sync_kind_name(unsigned kind);
const char *op_kind_name(unsigned kind);
/* The display name of a copy or memset, one for every source format:
 * "memcpy HtoD pageable→device", "memset device". */
uint32_t model_copy_label(struct kg_model *m, const struct kg_op *o);

/* When the host issued op o: its launch call's start; where launch calls are sampled and
 * its own was not, its queued time less the process's median lead from call to queue
 * (what the sampled calls measured: the estimate puts sampled and unsampled launches on
 * one footing); else the moment the driver queued it (kernels mode with latency
 * timestamps); else KG_NO_TIME. */
static inline int64_t op_issued(const struct kg_model *m, const struct kg_op *o)
{
	if (o->api_start != KG_NO_TIME)
		return o->api_start;
	if (o->flags & KG_OPF_ISSUED_QUEUED)
		return o->queued - m->processes[m->streams[o->stream].process].launch_lead;
	return o->queued;
}

/* 1 when some process's kernel launches' calls were sampled (full mode's windows): the
 * others are dated by their queued time (op_issued). */
int model_launches_sampled(const struct kg_model *m);
/* Kernels of such a process that carry neither their launch call nor a queued time (a
 * trace recorded with launches sampled and latency timestamps off, before the recorder
 * took every launch then): nothing says when the host issued them. */
uint64_t model_undated_kernels(const struct kg_model *m);

/* When API call a ended: its start when its end is not known or cannot be true. */
static inline int64_t api_end(const struct kg_api *a)
{
	return a->end == KG_NO_TIME || a->end < a->start ? a->start : a->end;
}

/* When op o was issued, else (nothing says) when it started: where it lies on the host's
 * time line (steps, collectives). */
static inline int64_t op_issued_or_start(const struct kg_model *m, const struct kg_op *o)
{
	int64_t t = op_issued(m, o);
	return t != KG_NO_TIME ? t : o->start;
}

/* 1 when a kernel name looks like communication (NCCL, RCCL, NVSHMEM all-reduce...). */
int kernel_is_comm(const char *name);
/* A kernel that computes: not a communication kernel (KG_OPF_COMM, from kernel_is_comm).
 * A communication kernel's grid is its channel count and its time is spent waiting for
 * its peers: the rules about SMs, occupancy and launches leave it out. */
static inline int op_is_compute(const struct kg_op *o)
{
	return o->kind == KG_OP_KERNEL && !(o->flags & KG_OPF_COMM);
}

/* Sort, link and index. 0, or -ENOMEM. Before anything, once a model: the ops, calls,
 * ranges and waits whose times cannot be true are left out, counted in untrue and noted
 * (untrue_times.c). After it: streams are in (process, device, context,
 * id) order and threads in (process, tid) order (whatever order the reader met them in),
 * streams[s].first_op/nops are valid, each stream's ops are sorted by start,
 * ops[].api/api_start and apis[].op are linked, and apis[].stack is set from the
 * stack references. */
int model_finish(struct kg_model *m);

/* Keeps only what overlaps [t0, t1) (GPU operations: what was launched in it) and
 * finishes the model again. 0 or -ENOMEM. */
int model_restrict(struct kg_model *m, int64_t t0, int64_t t1);
/* ... and the operations of GPU g (model.gpus index) only what was launched in
 * [gpu_window[2g], gpu_window[2g + 1]) when that is not KG_NO_TIME: each rank of a trace in
 * its own steady steps, the host's records in [t0, t1), which holds them all. */
int model_restrict_gpus(struct kg_model *m, int64_t t0, int64_t t1, const int64_t *gpu_window);
/* Whether model_restrict_gpus keeps op o. */
int model_op_in_gpu_window(const struct kg_model *m, const struct kg_op *o, int64_t t0,
			   int64_t t1, const int64_t *gpu_window);
/* Whether model_restrict(t0, t1) keeps o: launched in the window, or, without a launch
 * in the trace, running in it. */
int model_op_in_window(const struct kg_op *o, int64_t t0, int64_t t1);
/* First start and last end of the ranges whose name is `name` or starts with it
 * ("ProfilerStep" matches "ProfilerStep#3"). 0, or -1 when there is none. */
int model_range_window(const struct kg_model *m, const char *name, int64_t *t0, int64_t *t1);

/* How an op was launched: grid, block, registers, shared memory (all zero for copies and
 * memsets, and for kernels whose source does not say). */
extern const struct kg_launch kg_launch_unknown;
static inline const struct kg_launch *op_launch(const struct kg_model *m, const struct kg_op *o)
{
	return o->launch < m->n_launches ? &m->launches[o->launch] : &kg_launch_unknown;
}

/* The device an op ran on, and its physical GPU. */
static inline const struct kg_device *op_device(const struct kg_model *m, const struct kg_op *o)
{
	return &m->devices[m->streams[o->stream].device];
}

#endif
