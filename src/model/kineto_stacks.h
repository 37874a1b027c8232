/* Call stacks of a PyTorch profiler (Kineto) trace: which operators (cpu_op), Python
 * functions (python_function) and annotations (user_annotation) enclosed each CUDA
 * runtime/driver call. read_kineto.c hands every usable host event to kstacks_add while
 * it streams the file; kstacks_link then gives each API call of the model the chain of
 * events on its thread that enclose it in time, innermost first, as a model stack
 * (kg_api.stack). docs/readers.md, "Call stacks", says what is linked and how. */
#ifndef KGANTT_KINETO_STACKS_H
#define KGANTT_KINETO_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Frames kept per stack: the innermost ones; deeper stacks get KG_STACK_TRUNCATED. */
#define KSTACK_MAX_FRAMES 64
/* Kineto rounds times to the microsecond in some releases: an event whose end falls up
 * to this much before the call's end still encloses it. */
#define KSTACK_TOLERANCE_NS 1000

struct kstacks;

/* What kstacks_link did, for the model notes. */
struct kstacks_result {
	uint64_t calls;         /* API calls looked at */
	uint64_t linked;        /* ... given a stack */
	uint64_t truncated;     /* ... whose stack was cut at KSTACK_MAX_FRAMES */
	uint64_t not_nested;    /* host events that overran the event enclosing them */
};

/* NULL when out of memory. */
struct kstacks *kstacks_new(void);
void kstacks_free(struct kstacks *k);

/* One host event on thread tid (the JSON's tid, 0 when absent: as for API calls) from
 * start to end (ns); name is the event's string id in the model, kind KG_FRAME_OP,
 * KG_FRAME_PYTHON or KG_FRAME_ANNOTATION. Events the linking cannot use (a time unknown,
 * end before start, name 0 (none) or 2^30 and beyond) are counted in kstacks_unusable
 * and dropped.
 * 0, or -ENOMEM. 24 bytes per event kept. */
int kstacks_add(struct kstacks *k, uint64_t tid, int64_t start, int64_t end, uint32_t name,
		unsigned kind);
/* The Python call stack of a host operator on thread tid (args "Call stack" of PyTorch
 * 1.8-1.10, the operator's times): stack is the string id of its text, frames
 * "FILE(LINE): FUNCTION" innermost first and ';' between, LINE the line that ran. Its
 * frames go between the events that enclose the operator and the operator, unless an
 * enclosing event already gave Python frames (an operator called by an operator carries
 * its caller's stack). Add it before the operator's own event. The text must hold a frame
 * (not only ';'). 0, or -ENOMEM. */
int kstacks_add_call_stack(struct kstacks *k, uint64_t tid, int64_t start, int64_t end,
			   uint32_t stack);
uint64_t kstacks_kept(const struct kstacks *k);
uint64_t kstacks_unusable(const struct kstacks *k);

/* Sets apis[].stack of every call of `process` that some kept event encloses, through
 * model_add_stack (equal chains give one stack), and gives each thread of the model the
 * host spans of its events (model.h, struct kg_host_span: each stretch in which the same
 * innermost event ran, with that event's chain as its stack, source KG_HOST_FROM_EVENTS,
 * state unknown). Frees the events as it goes: call it once, before model_finish (it
 * needs the threads' indices as the reader made them).
 * Linear in events and calls (plus a sort of the events and calls of a thread that are
 * not in time order in the file). 0, or -ENOMEM. */
int kstacks_link(struct kstacks *k, struct kg_model *m, uint32_t process,
		 struct kstacks_result *r);

/* The frame a Kineto event name stands for (exposed for the tests):
 *   op          "aten::item"                        → function
 *   annotation  "ProfilerStep#3"                    → function "ProfilerStep" (a trailing
 *                                                      "#<digits>" is dropped)
 *   python      "/a/train.py(27): epoch"            → file "/a/train.py", line 27 (where
 *                                                      epoch is defined: KG_FRAME_DEF_LINE),
 *                                                      function "epoch"
 *               "<built-in method item of Tensor object at 0x7f..>", "nn.Module: Linear_0"
 *                                                    → function only, " at 0x<hex>" removed
 * 0, or -ENOMEM. */
int kstacks_frame(struct kg_model *m, const char *name, unsigned kind, struct kg_frame *f);

/* Removes every " at 0x<hex>" (a Python object's address) from the len bytes at s, in
 * place, and NUL-terminates the result; its length. The reader calls it on
 * python_function names before interning them, so that a million tensors' bound methods
 * make one string, not a million. */
size_t kstacks_drop_addresses(char *s, size_t len);

#endif
