/* Metrics and diagnosis over the model (model/model.h).
 *
 *   struct kg_analysis a;
 *   analysis_run(&m, &config, &a);   metrics (metrics.c) → hardware samples (hw.c) →
 *                                    steps (steps.c) → rules (rules*.c) → while the GPU
 *                                    waited (host.c) → call sites (sites.c); findings
 *                                    sorted by estimated gain
 *   ... read a.gpus, a.streams, a.kernels, a.findings ...
 *   analysis_free(&a);
 *
 * The rules (analysis/finding.h: KG_RULES) and their thresholds (analysis/thresholds.h)
 * are documented in docs/rules.md; the steps of analysis_run talk to each other through
 * analysis/pipeline.h. */
#ifndef KGANTT_ANALYSIS_H
#define KGANTT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/finding.h"
#include "analysis/gap_cause.h"
#include "analysis/occupancy.h"
#include "analysis/steps.h"
#include "analysis/thresholds.h"
#include "util/timemath.h"
#include "util/idmap.h"
#include "model/model.h"

/* ------------------------------------------------------------------ metrics */


/* Where a gap lies in its GPU's work. A long gap before the GPU had done 1 % of its work
 * is start-up (imports, model set-up, loading), after its last 1 % wind-down (saving,
 * teardown); a gap the host spent mostly capturing CUDA graphs (cudaStreamBeginCapture
 * ... EndCapture: what it launches then is recorded, not run) is graph capture, set-up
 * too. Real idle time, but not a cost of the program's steady work, so the idle findings
 * leave it out and say so. X(ID, "name"): the names the report, its JSON and the charts
 * use. */
#define KG_GAP_PLACE_LIST(X) \
	X(STEADY, "steady") X(STARTUP, "start-up") X(WINDDOWN, "wind-down") X(CAPTURE, "graph capture")
enum kg_gap_place {
#define KG_GAP_PLACE_ENUM_(id, name) KG_GAP_##id,
	KG_GAP_PLACE_LIST(KG_GAP_PLACE_ENUM_)
#undef KG_GAP_PLACE_ENUM_
	KG_GAP_PLACES
};
const char *gap_place_name(enum kg_gap_place p);

struct kg_gap {
	int64_t start, end;
	uint32_t next_op;    /* the op that ended the gap, KG_NONE at the end */
	uint8_t cause;       /* enum kg_gap_cause */
	uint32_t api;        /* the sync or launch call that explains it, KG_NONE */
	/* A SYNC gap's part the blocking calls explain: the time the host spent in them, at
	 * most the gap. Without them the host would have done what it did after them that
	 * much earlier, and launched the next work that much earlier; what it did after them
	 * for longer is the host's own time (the rest of the gap, counted as HOST). */
	int64_t sync_ns;
	int64_t busy_before; /* the GPU's busy time before the gap */
	uint8_t place;       /* enum kg_gap_place */
	/* 1: a gap between tiny kernels that launch-overhead's finding claims whole
	 * (rules_launch.c): host-bound leaves it, so that one gap has one finding */
	uint8_t launches;
};

/* The part of gap g due to cause c: a SYNC gap is sync_ns of SYNC and the rest HOST; any
 * other gap is whole its cause's. */
static inline int64_t gap_part(const struct kg_gap *g, enum kg_gap_cause c)
{
	int64_t len = kg_time_span(g->end, g->start);
	if (g->cause == KG_GAP_SYNC)
		return c == KG_GAP_SYNC ? g->sync_ns : c == KG_GAP_HOST ? len - g->sync_ns : 0;
	return g->cause == c ? len : 0;
}

/* A GPU's communication (kernels that kernel_is_comm calls so: NCCL, RCCL...) and how
 * much of it ran beside compute (every other kernel) on the same GPU (analysis/comm_overlap.c). */
struct kg_comm_figures {
	int64_t time;                 /* union of the communication kernels' execution */
	int64_t overlapped;           /* ... of it while a compute kernel ran: the rest is
				       * exposed (the GPU did nothing else) */
	uint32_t kernels;
};

static inline int64_t comm_exposed(const struct kg_comm_figures *c)
{
	return kg_time_span(c->time, c->overlapped);
}

/* What overlap could hide of a GPU's exposed communication: the exposed time less its wait
 * for late peers at collectives (the straggler's cost, counted there), at most the compute
 * not already beside communication. The one gain of exposed-communication, in one trace
 * and in a job (docs/rules.md). */
static inline double comm_hideable(double exposed, double wait_exposed, double free_compute)
{
	double rest = exposed - wait_exposed;
	double gain = rest < free_compute ? rest : free_compute;
	return gain > 0 ? gain : 0;
}

/* When the parts of one collective (one per GPU or rank) started, on one clock: the first,
 * the last (the part the others waited for), the one before it, and the early parts' wait
 * for the last, each from its own start, summed: what straggler and job-straggler count. */
struct kg_arrivals {
	int64_t first, second, last;
	uint32_t last_part;           /* the first part that started last */
	double wait;
};
/* Of the parts' starts starts[0..n), n >= 1 (second INT64_MIN when n is 1). */
void coll_arrivals(const int64_t *starts, uint32_t n, struct kg_arrivals *out);

/* [s, e): the spans of one list are disjoint and by start. */
struct kg_span {
	int64_t s, e;
};

struct kg_gpu_metrics {
	uint32_t gpu;                 /* index into model.gpus */
	int64_t begin, end;           /* first start, last end of its operations */
	int64_t busy;                 /* union of all operations */
	int64_t kernel_busy, copy_busy;
	int64_t copy_total;           /* sum of copy durations */
	int64_t copy_kernel_overlap;  /* time a copy and a kernel ran at once */
	int64_t concurrent[4];        /* time with 1, 2, 3, 4+ kernels running at once */
	int64_t kernel_time;          /* sum of kernel durations */
	uint32_t kernels, copies, memsets;
	int64_t idle_by_cause[KG_GAP_CAUSES]; /* idle gaps >= sync_gap_ns, by cause */
	int64_t idle_startup, idle_winddown;  /* ... of it in start-up and wind-down gaps */
	int64_t idle_capture;         /* ... and in gaps of graph capture */
	int64_t steady_idle_by_cause[KG_GAP_CAUSES]; /* ... and in the steady work, by cause */
	int64_t idle_before, idle_after; /* the trace's time before its first operation and
					  * after its last: 0 when it has none (unused) */
	struct kg_gap *gaps;          /* idle gaps >= sync_gap_ns, by start */
	uint32_t n_gaps;
	double *util;                 /* busy fraction of each of n_util chunks: config.util_chunks,
				       * fewer in a span of fewer ns */
	int n_util;
	uint32_t *ops;                /* its operations (indices into model.ops), by start */
	uint32_t n_ops;
	int64_t compute_busy;         /* union of its kernels that are not communication */
	struct kg_comm_figures comm;  /* all its communication kernels */
	struct kg_comm_figures comm_kind[KG_COMM_KIND_COUNT]; /* by what they do */
	uint32_t *comm_ops;           /* its communication kernels (model.ops), by start */
	int64_t *comm_exposed;        /* ... each one's time with no compute kernel beside it */
	int64_t *comm_exposed_lead;   /* ... of which the stretch from its start before any
				       * compute kernel runs beside it */
	uint8_t *comm_exposed_eighths; /* ... and where along it: each eighth of its time's
					* share with no compute beside it, in 255ths (8 each) */
	uint32_t n_comm;
	struct kg_span *compute;      /* the union of its compute kernels */
	uint32_t n_compute;
	/* at the collectives where it started before the last GPU (kg_analysis.coll_waits):
	 * its wait for the last, from its own start to the last's (straggler's), and the part
	 * of that wait with no compute kernel beside it, left out of exposed-communication */
	double comm_wait;
	int64_t comm_wait_exposed;
};

/* A collective of the trace's GPUs whose start skew is at least comm_skew_ns. */
struct kg_coll_wait {
	int64_t first, skew;          /* the first GPU's start; the last's start - it */
	int64_t delay;                /* the last's start - the next-to-last's: how much
				       * later the collective began for it (wall clock) */
	double wait;                  /* the early GPUs' wait for the last, summed */
	uint32_t last_gpu, last_op;   /* the GPU the others waited for, its kernel */
};

struct kg_stream_metrics {
	uint32_t stream;              /* index into model.streams */
	int64_t busy;                 /* union of its operations */
	int64_t kernel_time;
	uint32_t kernels, copies, memsets;
	int64_t first, last;
};

struct kg_kernel_stats {
	uint32_t name;                /* string id */
	uint32_t count;
	int64_t total, min, max, p50, p99;
	double mean;
	int64_t launch_p50, launch_p99;   /* queued - api start, KG_NO_TIME when unknown */
	int launch_incl_queue;            /* no queued times in the trace: start - api start */
	int64_t queue_p50, queue_p99;     /* start - queued */
	uint32_t example_op;          /* an op of this name (the longest) */
	/* of the example op: */
	long long blocks;
	int threads;
	int occupancy_ok;             /* the calculator had what it needs */
	struct kg_occ_result occ;
	double waves;
	int best_block, best_grid;
};

/* What the GPU's counters said (record --hw), per kernel name and per GPU. Means over
 * samples; NaN where the figure was not taken. A kernel's figures come only from samples
 * it spent alone on its GPU from start to end (nothing else ran there then), so that
 * the counters are its own. */
struct kg_hw_kernel {
	uint32_t samples;             /* samples it had to itself */
	int64_t sampled_ns;           /* their total length */
	float v[KG_HW_N];
};

struct kg_hw_gpu {
	uint32_t samples;
	int64_t sampled_ns;
	float mean[KG_HW_N];          /* over the GPU's span (idle time included) */
	float busy_mean[KG_HW_N];     /* over the samples in which some kernel ran */
	float max[KG_HW_N];
	uint32_t hw_device;           /* index into model.hw_devices, KG_NONE: not asked */
};

/* ------------------------------------------------------------------ call sites */

/* A place in the program: the innermost frame of the user's own code (a Python line, a
 * source line of the program), the framework operator it called (aten::item) and the
 * API call that operator made. Findings are attributed to sites through the stacks of
 * the API calls behind them (analysis/sites.c). */
struct kg_site {
	uint32_t stack;          /* a stack of this site (model.stacks) */
	uint32_t user_frame;     /* index into model.frames of the user's frame, KG_NONE */
	uint32_t op_frame;       /* the operator's frame, KG_NONE */
	char op[96];             /* the operator ("aten::item"), "" none */
	uint32_t api_name;       /* string id of the API function */
	double ns;               /* gain of all findings attributed here */
	uint32_t findings;       /* how many findings have a share here */
	char label[320];         /* "train.py:27 in epoch → aten::item → cudaStreamSynchronize" */
};

/* One event behind a finding and its part of the gain: an API call, or an operation
 * (whose launch call is meant). Rules add them with analysis_blame. */
struct kg_blame {
	uint32_t api;
	uint32_t op;
	double ns;
};

/* A stretch of idle GPU time an idle rule blames (analysis_blame_idle): the gap, the op
 * that ended it (its launch call's thread is the one that came late), and which part of
 * the gap the finding claims. Kept only when the trace has host spans: host.c looks at
 * what that thread did then. */
enum kg_idle_part {
	KG_IDLE_WHOLE, /* all of it (launch-overhead) */
	KG_IDLE_HOST,  /* outside the process's blocking calls (host-bound) */
	KG_IDLE_SYNC,  /* inside them (host-sync-stall) */
};

struct kg_idle {
	int64_t start, end;
	uint32_t next_op;
	uint32_t blame;       /* index into analysis.blame: the finding's part of it (ns) */
	uint8_t part;         /* enum kg_idle_part */
};

/* The launches with a call stack, by place (sites.c), where a launch without one takes
 * its site from: one table per level of place, sorted by key, then time. */
#define KG_PLACE_LEVELS 5
struct kg_place_entry {
	uint64_t key;
	int64_t t;
	uint32_t stack, api_name;
};
struct kg_launch_stacks {
	struct kg_place_entry *e[KG_PLACE_LEVELS];
	uint32_t n;
};
void launch_stacks_free(struct kg_launch_stacks *ls);

struct kg_analysis {
	const struct kg_model *m;
	struct kg_config cfg;
	struct kg_comm_id *comm_ids;  /* what each communication kernel is (model/comm.h), by
				       * op: made once, for the metrics, the rules and the job */
	uint32_t n_comm_ids;
	int64_t span;                 /* model end - begin */
	/* the span less the start-up, wind-down and graph-capture idle of the GPU that had
	 * least of it (gpu_steady_span): what the findings' shares and thresholds are taken
	 * of, so that seconds of imports and loading before the steps do not make the steps'
	 * problems look small */
	int64_t steady_span;
	struct kg_gpu_metrics *gpus;
	uint32_t n_gpus;
	/* the GPUs' collectives matched (comm_wait.c): how many, and those with a wait */
	uint32_t n_colls;
	struct kg_coll_wait *coll_waits;
	uint32_t n_coll_waits;
	struct kg_stream_metrics *streams;   /* same order as model.streams */
	struct kg_kernel_stats *kernels;     /* by total time, descending */
	uint32_t n_kernels;
	struct kg_hw_kernel *hw_kernels;     /* same order as kernels; NULL: no samples */
	struct kg_hw_gpu *hw_gpus;           /* same order as gpus; NULL: no samples asked */
	int64_t *solo;                       /* by op: time it was the only kernel on its GPU
					      * (0 for other ops; the per-GPU sweep sets it) */
	struct kg_steps steps;               /* the program's steps (steps.h), on the GPU with
					      * the most operations: the steady window's */
	struct kg_steps *gpu_steps;          /* same order as gpus: every other GPU's own (its
					      * ranks' in a trace of several processes); the
					      * entry of steps.gpu none; NULL with one GPU */
	struct kg_findings findings;         /* by gain, descending */
	struct kg_blame *blame;              /* the findings' events */
	uint32_t n_blame, cap_blame;
	struct kg_idle *idle;                /* the idle findings' gaps, by blame */
	uint32_t n_idle, cap_idle;
	struct kg_host_table host;           /* while the GPU waited (host.c) */
	struct kg_site *sites;               /* by gain over all findings, descending; then
					      * the sites of no finding */
	uint32_t n_sites;
	int has_stacks;                      /* some API call has a stack */
	struct kg_idmap *call_sites;         /* (stack, API name) → site (sites.c) */
	struct kg_launch_stacks launch_stacks; /* this model's (sites.c); the whole run's
						* are cfg.launch_stacks_given */
};

/* The steps found on GPU g (index into gpus): kg_analysis.steps or gpu_steps[g]; NULL
 * when none were. */
const struct kg_steps *steps_of_gpu(const struct kg_analysis *a, uint32_t g);

/* Where GPU gm's steady work begins and ends: after its last start-up gap, before its
 * first wind-down gap (kg_gap_place); its first and last op's times without them. */
static inline void gpu_steady_bounds(const struct kg_gpu_metrics *gm, int64_t *begin,
				     int64_t *end)
{
	*begin = gm->begin;
	*end = gm->end;
	for (uint32_t i = 0; i < gm->n_gaps; i++)
		if (gm->gaps[i].place == KG_GAP_STARTUP)
			*begin = gm->gaps[i].end;
		else if (gm->gaps[i].place == KG_GAP_WINDDOWN && *end == gm->end)
			*end = gm->gaps[i].start;
}

/* Whether API call c is a launch that took slow_launch_call_ns or more: it loaded or
 * compiled its kernel's code (lazy module loading, a JIT of PTX), which neither fusion
 * nor a graph removes. launch-overhead leaves its gap out; the host's causes call its
 * time JIT compilation (analysis/host.c). */
static inline int analysis_slow_launch(const struct kg_analysis *a, const struct kg_api *c)
{
	return c->category == KG_API_LAUNCH && c->start != KG_NO_TIME && c->end != KG_NO_TIME &&
	       kg_time_diff(c->end, c->start) >= a->cfg.slow_launch_call_ns;
}

/* GPU gm's idle time in start-up, wind-down and graph capture (kg_gap_place): not its
 * steady work's. */
static inline int64_t gpu_setup_idle(const struct kg_gpu_metrics *gm)
{
	return kg_time_add(kg_time_add(gm->idle_startup, gm->idle_winddown), gm->idle_capture);
}

/* The span less GPU gm's start-up, wind-down and graph-capture idle: what its steady work
 * took. The one derivation the report, its JSON, gpu-utilization and diff use. */
static inline int64_t gpu_steady_span(const struct kg_analysis *a,
				      const struct kg_gpu_metrics *gm)
{
	return a->span - gpu_setup_idle(gm);
}

/* Every kernel's duration, summed over the GPUs: what a kernel name's share is of. */
static inline int64_t analysis_kernel_time(const struct kg_analysis *a)
{
	int64_t t = 0;
	for (uint32_t g = 0; g < a->n_gpus; g++)
		t = kg_time_add(t, a->gpus[g].kernel_time);
	return t;
}

int analysis_run(const struct kg_model *m, const struct kg_config *cfg, struct kg_analysis *a);
void analysis_free(struct kg_analysis *a);

/* Occupancy inputs of a device (zeroed fields when the trace lacks them). */
void occ_device_of(const struct kg_device *d, struct kg_occ_device *out);
/* A kernel's achieved figure f, or NaN when its samples do not tell (too few alone). */
double hw_kernel_figure(const struct kg_analysis *a, uint32_t kernel_stats_index, int f);
/* The user's frame of a stack (index into model.frames), KG_NONE when none: its
 * innermost Python frame in the user's files, else its innermost native frame in the
 * user's own binaries, else its innermost Python frame. What a site names first. */
uint32_t stack_user_frame(const struct kg_model *m, const struct kg_stack *s);
/* The site of an API call (index into a->sites), KG_NONE when it has no stack. */
uint32_t analysis_call_site(const struct kg_analysis *a, uint32_t api);
/* "train.py:27 in epoch" for a frame, "epoch (train.py, defined at line 27)" for one
 * whose line is its definition (KG_FRAME_DEF_LINE); "" when f is NULL. */
void frame_label(const struct kg_model *m, const struct kg_frame *f, char *buf, size_t len);
/* A frame of the user's own code (what stack_user_frame looks for): a Python file outside
 * the interpreter, the packages and the frameworks, or a native frame of the program's
 * own binaries. */
int frame_is_users(const struct kg_model *m, const struct kg_frame *f);
/* A host node's path as the report says it, innermost first up to the user's frame:
 * "collate.py:212 in default_collate ← dataloader.py:736 in __next__ ← train.py:14 in
 * epoch" (middle frames of a long path as "…"). Returns buf. */
const char *host_node_label(const struct kg_analysis *a, uint32_t node, char *buf, size_t len);
/* The node alone: its frame, "cudaStreamSynchronize (CUDA)", "[waiting for the GIL]",
 * "not sampled". Returns buf. */
const char *host_node_name(const struct kg_analysis *a, uint32_t node, char *buf, size_t len);
/* The nodes of report --host's tree in the order it prints them: each followed by what it
 * called, the largest first, leaving out those below min_share of the table's idle time.
 * *n of them, malloc'ed; NULL when out of memory. */
uint32_t *host_tree(const struct kg_analysis *a, double min_share, uint32_t *n);

#endif

