/* While the GPU waited: what the host thread that issued the next work was doing in each
 * idle gap, from the model's host spans (struct kg_host_span: samples of `kgantt record`
 * or a profiler trace's own host events), by call path and by cause. host.c fills these
 * after the rules (pipeline.h); docs/rules.md, "While the GPU waited", says how. */
#ifndef KGANTT_ANALYSIS_HOST_H
#define KGANTT_ANALYSIS_HOST_H

#include <stddef.h>
#include <stdint.h>

/* The causes told apart, in the order they win when a path shows several (a GIL wait
 * inside the DataLoader is a GIL wait; an operator inside it is data loading):
 * X(ID, "id", "what") */
#define KG_HOST_CAUSES(X)                                                              \
	X(TRACER, "tracing", "the tracer's own work (CUPTI and the profiler)")         \
	X(LOCK, "lock-wait", "waiting for a lock or the GIL")                          \
	X(GC, "gc", "garbage collection")                                              \
	X(IMPORT, "import", "importing Python modules")                                \
	X(COMPILE, "jit-compile", "JIT compilation")                                   \
	X(COMPILED, "compiled-code", "running code torch.compile generated")           \
	X(DATA, "data-loading", "data loading")                                        \
	X(ALLOC, "allocation", "host allocation and cudaMalloc")                       \
	X(READ, "reads-and-logging", "reading values back, logging and printing")      \
	X(SYNC, "sync-wait", "waiting for the GPU in synchronising calls")             \
	X(IO, "blocking-io", "blocking I/O")                                           \
	X(CPU, "cpu-compute", "computing on the CPU")                                  \
	X(DISPATCH, "op-dispatch", "dispatching many small operators and launches")    \
	X(OTHER, "other", "no known cause")
enum kg_host_cause {
#define KG_HOST_CAUSE_ENUM_(id, name, what) KG_HOST_CAUSE_##id,
	KG_HOST_CAUSES(KG_HOST_CAUSE_ENUM_)
#undef KG_HOST_CAUSE_ENUM_
	KG_HOST_CAUSE_COUNT
};
/* "data-loading"; "data loading"; the fix a finding gives for it (NULL for OTHER). */
const char *host_cause_id(unsigned c);
const char *host_cause_what(unsigned c);
const char *host_cause_fix(unsigned c);
/* The cause of each of the model's host spans (m->host_spans' order), as report --host's
 * tree tells it from the span's stack and off-CPU state: one byte a span, malloc'd (the
 * caller frees it), NULL when out of memory or without spans. What the charts colour
 * their host strips by. Unlike a finding's time, a span inside a CUDA call keeps its
 * stack's cause (the call is drawn above it), and a profiler's long operators stay
 * op-dispatch. */
struct kg_model;
uint8_t *host_span_causes(const struct kg_model *m);
/* A rule whose findings are idle time the host side explains (enum kg_rule_id):
 * host-bound, host-sync-stall, launch-overhead. */
int host_idle_rule(unsigned rule);

/* A node of the tree of what the host did: a frame called from its parent's, or a leaf
 * that is not a frame (the CUDA call the thread was in, an off-CPU state), or the root
 * of the time no span covers. Frames are one node whatever line they ran at (a sample's
 * innermost line moves), except a profiler's Python functions, named by their def. */
enum kg_host_node_kind {
	KG_HOST_NODE_FRAME,  /* frame: an index into model.frames (one of the frames it is) */
	KG_HOST_NODE_CALL,   /* name: the CUDA function (string id) */
	KG_HOST_NODE_STATE,  /* state: an off-CPU state of the samples */
	KG_HOST_NODE_UNSEEN, /* a root: the launching thread had no span then */
};

struct kg_host_node {
	uint32_t parent;     /* KG_NONE: a root */
	uint32_t frame;      /* FRAME: index into model.frames */
	uint32_t name;       /* CALL: string id */
	uint32_t depth;      /* 1 for a root */
	uint8_t kind;        /* enum kg_host_node_kind */
	uint8_t state;       /* STATE: enum kg_host_state */
	uint8_t cause;       /* enum kg_host_cause of the path from the root to here */
	uint8_t lines;       /* FRAME: 1 when its frames ran at several lines */
	uint32_t flags;      /* HOST_PATH_* of the path (host.c) */
	double self, total;  /* report --host: idle time in it alone, and with what it called */
};

/* One activity behind an idle finding and its part of the gain: the time below `entry`,
 * the first frame of a library (or the framework's operator, the CUDA call) under the
 * user's innermost frame, or a frame of the user's that spent the time itself; `node` is
 * where most of it went (the path from entry down while one callee takes at least half),
 * what the report names first. */
struct kg_host_share {
	uint32_t node, entry;
	uint8_t cause;       /* enum kg_host_cause that takes most of it */
	double ns;
};

/* Host time during the GPU's steady idle gaps of causes host and sync (report --host),
 * as a tree; its nodes are also those of the findings' shares. */
struct kg_host_table {
	struct kg_host_node *nodes; /* parents before their children; [0] is the root of the
				     * time no span covers */
	uint32_t n_nodes, cap_nodes;
	double idle_ns;             /* the gaps' time, attributed below */
	uint32_t gaps;
	double unseen_ns;           /* ... where the launching thread had no span */
	double cause_ns[KG_HOST_CAUSE_COUNT];
	struct kg_host_share *acts; /* its activities, as a finding's (below), largest first */
	uint32_t n_acts;
	unsigned sources;           /* 1 << enum kg_host_source of the spans met */
	int on;                     /* the trace has host spans: the rest means something */
};

#endif
