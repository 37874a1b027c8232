/* A finding: a scheduling problem a rule found, with its evidence, its fix and the time
 * the fix would save. One type for the findings of one trace (analysis/rules*.c) and of a
 * job of many ranks (job/job_rules.c), one list of rules, one way to rate them.
 *
 *   struct kg_finding *f = findings_add(&list, KG_RULE_HOST_BOUND);
 *   finding_set(&f->title, "GPU %d waits ...", ...);   texts of any length
 *   finding_evidence(f, start, end, stream, op, "longest gap: ...");
 *   f->gain_ns = ...;
 *   findings_rank(&list, &cfg, steady_span);    shares, severities, order by gain
 *   findings_free(&list);
 *
 * report/finding_out.h writes a finding, as text and as JSON, for every command. */
#ifndef KGANTT_FINDING_H
#define KGANTT_FINDING_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/host.h"
#include "analysis/thresholds.h"

/* The rules, in the order they run: X(ID, "id", SCOPE, RUNNER, WHAT)
 *   "id"    the findings' `rule` as users see it, documented in docs/rules.md under
 *           "### id" (tests/unit/test_docs.c checks it)
 *   SCOPE   TRACE: RUNNER(struct kg_analysis *) in analysis/rules_*.c;
 *           JOB: RUNNER(struct kg_job *) in job/job_rules.c, returning 0 or -ENOMEM */
#define KG_RULES(X)                                                                          \
	X(STREAM_SERIALIZATION, "stream-serialization", TRACE, rule_stream_serialization,    \
	  "independent work serialised on one stream while others idle")                     \
	X(COPY_COMPUTE_OVERLAP, "copy-compute-overlap", TRACE, rule_copy_compute_overlap,    \
	  "copies that do not overlap kernels (pageable or synchronous)")                    \
	X(LAUNCH_OVERHEAD, "launch-overhead", TRACE, rule_launch_overhead,                   \
	  "the GPU starving on launches of tiny kernels")                                    \
	X(LAUNCH_LATENCY, "launch-latency", TRACE, rule_launch_latency,                      \
	  "long launch latency (queued - API call)")                                         \
	X(GPU_IMBALANCE, "gpu-imbalance", TRACE, rule_gpu_imbalance, "unequal work across GPUs") \
	X(STRAGGLER, "straggler", TRACE, rule_straggler, "a GPU arriving last at collectives") \
	X(EXPOSED_COMMUNICATION, "exposed-communication", TRACE, rule_exposed_communication, \
	  "communication kernels with no compute beside them")                               \
	X(UNDER_FILLED_GRID, "under-filled-grid", TRACE, rule_under_filled_grid,             \
	  "fewer blocks than SMs")                                                           \
	X(LOW_OCCUPANCY, "low-occupancy", TRACE, rule_low_occupancy, "few resident warps per SM") \
	X(MEMORY_BOUND, "memory-bound", TRACE, rule_memory_bound,                            \
	  "kernels at DRAM's peak bandwidth (record --hw)")                                  \
	X(TIME_SLICING, "time-slicing", TRACE, rule_time_slicing,                            \
	  "kernels of several processes time-sliced on one GPU")                             \
	X(HOST_SYNC_STALL, "host-sync-stall", TRACE, rule_host_sync_stall,                   \
	  "GPU idle while the host is blocked in a synchronisation")                         \
	X(HOST_BOUND, "host-bound", TRACE, rule_host_bound, "GPU idle while the host prepares work") \
	X(GPU_UTILIZATION, "gpu-utilization", TRACE, rule_gpu_utilization,                   \
	  "low utilisation over time and long idle gaps")                                    \
	X(JOB_SLOW_RANK, "job-slow-rank", JOB, job_rule_slow_ranks,                          \
	  "a rank whose kernels run slower than the same kernels on the other ranks")        \
	X(JOB_STRAGGLER, "job-straggler", JOB, job_rule_stragglers,                          \
	  "a rank that starts the job's collectives last, and the others' wait for it")      \
	X(JOB_KERNEL_COUNT, "job-kernel-count", JOB, job_rule_kernel_count,                  \
	  "ranks that launch a different number of kernels per step than the others")       \
	X(JOB_IMBALANCE, "job-imbalance", JOB, job_rule_imbalance,                           \
	  "ranks that get more work than the others (kernel time at the same speed)")

enum kg_rule_id {
#define KG_RULE_ENUM_(id, name, scope, runner, what) KG_RULE_##id,
	KG_RULES(KG_RULE_ENUM_)
#undef KG_RULE_ENUM_
	KG_RULE_COUNT
};

enum kg_rule_scope { KG_SCOPE_TRACE, KG_SCOPE_JOB };

struct kg_rule {
	const char *id;
	enum kg_rule_scope scope;
	const char *finds;
};
extern const struct kg_rule kg_rules[KG_RULE_COUNT];
/* The rule of an id ("host-bound"), KG_RULE_COUNT when there is none. */
enum kg_rule_id rule_by_id(const char *id);

/* Severities, from least to most: X(ID, "name") */
#define KG_SEVERITIES(X) X(INFO, "info") X(WARNING, "warning") X(CRITICAL, "critical")
enum kg_severity {
#define KG_SEVERITY_ENUM_(id, name) KG_SEV_##id,
	KG_SEVERITIES(KG_SEVERITY_ENUM_)
#undef KG_SEVERITY_ENUM_
	KG_SEV_COUNT
};
const char *severity_name(enum kg_severity s);
/* The severity of a name ("warning"), KG_SEV_COUNT when there is none. */
enum kg_severity severity_by_name(const char *name);
/* The severity of a finding that would save share_pct of the span: the one rating of
 * every finding (cfg.critical_pct and cfg.warning_pct). */
enum kg_severity severity_of_share(const struct kg_config *cfg, double share_pct);
/* Is a gain worth a finding: at least min_gain_ns, and min_gain_pct of steady_span. */
int finding_worth(const struct kg_config *cfg, int64_t steady_span, double gain_ns);

#define KG_MAX_EVIDENCE 8
#ifndef KG_MAX_FINDING_SITES /* tests/tools/site_shares.py builds with 200: every site */
#define KG_MAX_FINDING_SITES 5
#endif
#define KG_FINDING_STEPS 6 /* the steps a finding of a few steps names */

/* One thing seen behind a finding: a time range, a stream and an op where it is about
 * one (KG_NO_TIME, KG_NONE where not), and what was seen. */
struct kg_evidence {
	int64_t start, end;
	uint32_t stream;
	uint32_t op;
	char *text;
};

struct kg_site_share {
	uint32_t site;           /* index into analysis.sites */
	double ns;
};

struct kg_finding {
	enum kg_rule_id rule;
	enum kg_severity severity;
	char *title;                  /* one line: what is wrong */
	char *explanation;            /* why it costs time */
	char *fix;                    /* what to change, concretely */
	char *gain_how;               /* how the gain was estimated */
	char *figures;                /* the numbers behind it, "name=value, ..." */
	double gain_ns;               /* estimated time saved by the fix; 0: not estimated */
	double gain_pct;              /* of the steady span (findings_rank) */
	int64_t start, end;           /* the time range it is about, KG_NO_TIME */
	uint32_t gpu;                 /* a trace's: index into model.gpus, KG_NONE */
	uint32_t rank;                /* a job's: index into job.ranks, KG_NONE */
	struct kg_evidence evidence[KG_MAX_EVIDENCE];
	int n_evidence;
	/* a trace's: its events (analysis.blame) and the call sites they lead to */
	uint32_t first_blame, n_blame;
	struct kg_site_share sites[KG_MAX_FINDING_SITES]; /* by share, largest first */
	int n_sites;
	double sited_ns;              /* the part of the gain the stacks place (all sites) */
	double unsited_ns;            /* ... and the part behind calls without a stack */
	/* a trace's idle finding, when the trace has host spans: what the thread that issued
	 * the next work did in the gaps (analysis/host.h), parts of the gain */
	struct kg_host_share *host;   /* by part, largest first; malloc'ed, n_host of them */
	uint32_t n_host;
	double host_unseen_ns;        /* ... the part no span of that thread covers */
	double host_cause_ns[KG_HOST_CAUSE_COUNT];
	double host_tracer_records_ns; /* ... of the tracing cause, the part the overhead
					* records measure: CUPTI's, the recorder's timed stacks
					* (the rest: samples in their frames) */
	int host_cause;               /* the cause that takes most of it, -1: none (no spans,
				       * less than half of the gain, or too few samples) */
	uint32_t host_samples;        /* the host samples behind it (0: none, or a profiler's
				       * events) */
	/* a trace's, when its gain comes from a few of the steady steps (analysis/steps.h):
	 * how many of them, of how many, and the first few (0-based indices into steps.v) */
	uint32_t n_in_steps, of_steps;
	uint32_t in_steps[KG_FINDING_STEPS];
};

/* Fewer samples than this behind an idle finding's host side say too little of what the
 * thread did to name it: 10 samples put a share within about 15 points. */
#define KG_HOST_FEW_SAMPLES 10
static inline int finding_host_few_samples(const struct kg_finding *f)
{
	return f->host_samples > 0 && f->host_samples < KG_HOST_FEW_SAMPLES;
}

struct kg_findings {
	struct kg_finding *v;
	uint32_t n, cap;
};

/* A new finding of rule, zeroed, with no gpu, rank or times; NULL when out of memory. */
struct kg_finding *findings_add(struct kg_findings *l, enum kg_rule_id rule);
/* Sets a text field (*field: f->title, ...) from a format, replacing what it held; on
 * failure to allocate it is left as it was. */
void finding_set(char **field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends to a text field. */
void finding_append(char **field, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An evidence line (at most KG_MAX_EVIDENCE: the rest are not kept). */
void finding_evidence(struct kg_finding *f, int64_t start, int64_t end, uint32_t stream,
		      uint32_t op, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* A text field or "" when unset. */
static inline const char *finding_str(const char *field)
{
	return field ? field : "";
}
/* Each finding's share of steady_span and, when it has a gain, its severity
 * (severity_of_share: a finding without an estimate keeps the severity its rule set);
 * then the list by gain, largest first (ties: the more severe first, then by rule, then GPU
 * or rank, then as found). */
void findings_rank(struct kg_findings *l, const struct kg_config *cfg, int64_t steady_span);
/* A copy of f's texts and figures (not its blame, sites or host shares): 0 or -ENOMEM. */
int finding_copy(struct kg_finding *dst, const struct kg_finding *f);
void finding_free(struct kg_finding *f);
void findings_free(struct kg_findings *l);

#endif
