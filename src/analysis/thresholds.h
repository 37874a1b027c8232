/* The thresholds of the rules: one list, from which the settings struct, its defaults,
 * `--set NAME=VALUE`, `--list-thresholds` and the table in docs/rules.md (checked by
 * tests/unit/test_docs.c) all come.
 *
 * X(NAME, TYPE, DEFAULT, MIN, MAX, WHAT)
 *   TYPE   PCT (a percentage), RATIO (a plain number), BW (GB/s = bytes/ns), NS (a
 *          duration: "250us", "2ms", "1.5s" or ns), COUNT (a whole number)
 *   MIN, MAX the values that make sense, bounds included: anything else is refused */
#ifndef KGANTT_THRESHOLDS_H
#define KGANTT_THRESHOLDS_H

#include <stddef.h>
#include <stdint.h>

struct kg_steps;
struct kg_launch_stacks;

#define KG_THRESHOLDS(X)                                                                         \
	X(min_gain_pct, PCT, 1.0, 0, 100,                                                        \
	  "report a finding only when it would save at least this % of the steady span")        \
	X(min_gain_ns, NS, 50000, 0, 3.6e12, "... and at least this much time")                 \
	X(critical_pct, PCT, 10.0, 0, 100,                                                       \
	  "a finding that would save at least this % of the steady span is critical")           \
	X(warning_pct, PCT, 3.0, 0, 100, "... at least this %, a warning; below, info")         \
	X(underfill_waves, RATIO, 1.0, 0.01, 1,                                                  \
	  "a grid that gives work to fewer than this fraction of the SMs (fewer blocks than SMs " \
	  "at 1) under-fills the GPU")                                                           \
	X(low_occupancy, RATIO, 0.5, 0, 1, "theoretical occupancy below this is low")     \
	X(long_kernel_ns, NS, 100000, 0, 3.6e12,                                                 \
	  "occupancy is examined for kernels at least this long (median)")                      \
	X(tiny_kernel_ns, NS, 20000, 1, 3.6e12,                                                  \
	  "kernels shorter than this are tiny (launch overhead)")                               \
	X(launch_bound_ratio, RATIO, 1.0, 0, 1e6,                                                \
	  "idle / execution time among tiny kernels above which the GPU starves on launches")   \
	X(launch_gap_spread, RATIO, 10.0, 1, 1e6,                                                \
	  "a gap between tiny kernels longer than this times their median gap is the host's "  \
	  "(host-bound), not launch overhead")                                                   \
	X(slow_launch_call_ns, NS, 1000000, 1, 3.6e12,                                           \
	  "a launch call this long loaded or compiled its kernel's code (lazy module loading, "  \
	  "a JIT of PTX): the gap before its kernel is no launch overhead, and the host's time " \
	  "in it is JIT compilation's")                                                          \
	X(high_launch_latency_ns, NS, 100000, 0, 3.6e12,                                         \
	  "median launch latency (queued - API start) above this is high")                      \
	X(queue_wait_mark_ns, NS, 100000, 0, 3.6e12, "queue wait above this is marked on the chart") \
	X(pinned_bandwidth, BW, 50.0, 0.1, 10000,                                                \
	  "GB/s assumed for pinned copies when neither the trace's copies nor its GPU's link "   \
	  "tell")                                                                                \
	X(imbalance_ratio, RATIO, 1.25, 1, 1e6, "busiest / least busy GPU above this is an imbalance") \
	X(comm_skew_ns, NS, 500000, 0, 3.6e12,                                                   \
	  "start skew of a collective across GPUs above this makes a straggler")                \
	X(coll_end_spread_ns, NS, 1000000, 0, 3.6e12,                                            \
	  "the kernels of one collective end within this of each other on the job's clock; "    \
	  "kernels paired further apart are not one collective (job report)")                   \
	X(exposed_comm_pct, PCT, 5.0, 0, 100,                                                    \
	  "communication with no compute kernel beside it on its GPU for at least this % of the " \
	  "steady span is exposed (exposed-communication)")                                    \
	X(sync_gap_ns, NS, 10000, 0, 3.6e12,                                                     \
	  "GPU idle gaps at least this long are explained by a cause")                          \
	X(long_gap_ns, NS, 500000000, 1, 3.6e12,                                                 \
	  "idle gaps at least this long are listed on their own (Nsight's gpu_gaps)")           \
	X(left_out_pct, PCT, 20.0, 0, 1e6,                                                       \
	  "the findings are of the steady steps when what they leave out (start-up, warm-up, "  \
	  "wind-down) is at least this % of their time after a warm-up of a few steps, or "     \
	  "long_gap_ns")                        \
	X(util_chunks, COUNT, 30, 1, 10000,                                                      \
	  "chunks of the span for utilisation over time (Nsight's gpu_time_util)")              \
	X(low_util, RATIO, 0.5, 0, 1, "a chunk less busy than this is under-used")       \
	X(memory_bound, RATIO, 0.6, 0, 1,                                                        \
	  "a kernel whose achieved DRAM bandwidth is at least this share of the peak is "       \
	  "memory-bound (record --hw)")                                                    \
	X(min_hw_samples, COUNT, 2, 1, 1000000,                                                  \
	  "hardware samples a kernel must have to itself before its achieved figures are used "  \
	  "(record --hw)")                                                                       \
	X(slow_rank_ratio, RATIO, 1.10, 1, 1e6,                                                  \
	  "a rank whose kernels take this much longer than the same kernels on the median rank " \
	  "runs slow (job report)")

#define KG_THRESHOLD_CTYPE_PCT double
#define KG_THRESHOLD_CTYPE_RATIO double
#define KG_THRESHOLD_CTYPE_BW double
#define KG_THRESHOLD_CTYPE_NS int64_t
#define KG_THRESHOLD_CTYPE_COUNT int

/* Every threshold the rules use, times in ns, bandwidths in bytes/ns (= GB/s). */
struct kg_config {
#define KG_THRESHOLD_FIELD_(name, type, def, lo, hi, what) KG_THRESHOLD_CTYPE_##type name;
	KG_THRESHOLDS(KG_THRESHOLD_FIELD_)
#undef KG_THRESHOLD_FIELD_
	/* not thresholds: what the user said of the steps (report --steps NAME, --whole, --rhythm) */
	const char *steps_name; /* the annotation of a step; NULL: the usual names */
	int whole;              /* the findings of the whole run, start-up and warm-up in */
	int steps_rhythm;       /* the steps by the rhythm of the launches alone */
	const struct kg_steps *steps_given; /* found before (report: in the whole run, before
					     * the analysis of its steady steps), not again */
	const struct kg_steps *gpu_steps_given; /* ... and every other GPU's (kg_analysis.
						 * gpu_steps: n_gpu_steps_given), NULL none */
	uint32_t n_gpu_steps_given;
	const struct kg_launch_stacks *launch_stacks_given; /* the whole run's launches with a
							     * stack (report: before its steady
							     * steps' analysis), NULL: the model's */
};

void analysis_config_default(struct kg_config *c);
/* NAME=VALUE; 0, or -1 with a message in err (unknown name, a value that is not a
 * number or duration, or outside the threshold's range). */
int analysis_config_set(struct kg_config *c, const char *assignment, char *err, size_t errlen);
/* The names, defaults, ranges and meanings, in the list's order, for --list-thresholds
 * and the docs. value and range are formatted as --set takes them. */
void analysis_config_describe(void (*line)(const char *name, const char *value,
					   const char *range, const char *what, void *arg),
			      void *arg);

#endif
