/* Metrics and diagnosis over the model (model/model.h).
 *
 *   struct kg_analysis a;
 *   analysis_run(&m, &config, &a);   metrics for every GPU, stream and kernel name, then
 *                                    every rule; findings sorted by estimated gain
 *   ... read a.gpus, a.streams, a.kernels, a.findings ...
 *   analysis_free(&a);
 *
 * The rules are documented, with their thresholds, in docs/rules.md. */
#ifndef KGANTT_ANALYSIS_H
#define KGANTT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/occupancy.h"
#include "model/model.h"

/* ------------------------------------------------------------------ thresholds */

/* Every threshold the rules use; defaults in analysis_config_default(), overridable with
 * `kgantt report --set NAME=VALUE`. Times in ns. */
struct kg_config {
	double min_gain_pct;        /* report a finding only above this % of the span */
	int64_t min_gain_ns;        /* ... and above this absolute gain */
	double underfill_waves;     /* a kernel with fewer waves than this under-fills the GPU */
	double low_occupancy;       /* theoretical occupancy below this is low (0..1) */
	int64_t long_kernel_ns;     /* occupancy matters for kernels at least this long */
	int64_t tiny_kernel_ns;     /* a kernel this short is "tiny" for launch overhead */
	double launch_bound_ratio;  /* idle/exec ratio in a burst of tiny kernels to call it launch-bound */
	int64_t high_launch_latency_ns; /* queued - api start above this is high */
	int64_t queue_wait_mark_ns; /* queue wait above this gets the chart's red mark */
	double pinned_bandwidth;    /* bytes/ns assumed for pinned copies when the trace has none */
	double imbalance_ratio;     /* busiest / least busy GPU above this is imbalanced */
	int64_t comm_skew_ns;       /* NCCL kernel start skew across GPUs above this is a straggler */
	int64_t sync_gap_ns;        /* GPU idle gaps at least this long are examined for causes */
	int64_t long_gap_ns;        /* Nsight's gpu_gaps: idle at least this long (500 ms) */
	int util_chunks;            /* Nsight's gpu_time_util: chunks of the span (30) */
	double low_util;            /* ... a chunk below this busy fraction is low (0.5) */
};

void analysis_config_default(struct kg_config *c);
/* NAME=VALUE; 0, or -1 with a message in err (unknown name, bad value). */
int analysis_config_set(struct kg_config *c, const char *assignment, char *err, size_t errlen);
/* The names, defaults and meanings, for --help and docs. */
void analysis_config_describe(void (*line)(const char *name, const char *value, const char *what, void *arg), void *arg);

/* ------------------------------------------------------------------ metrics */

enum kg_gap_cause {
	KG_GAP_HOST = 0,     /* the host issued the next work late: busy with other things */
	KG_GAP_SYNC,         /* the host was blocked in a synchronisation */
	KG_GAP_LAUNCH,       /* launched in time, started late: launch latency */
	KG_GAP_DEPENDENCY,   /* waiting for another stream (event wait) */
	KG_GAP_UNKNOWN,      /* no API calls in the trace to tell */
	KG_GAP_CAUSES
};
const char *gap_cause_name(enum kg_gap_cause c);

struct kg_gap {
	int64_t start, end;
	uint32_t next_op;    /* the op that ended the gap, KG_NONE at the end */
	uint8_t cause;       /* enum kg_gap_cause */
	uint32_t api;        /* the sync or launch call that explains it, KG_NONE */
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
	struct kg_gap *gaps;          /* idle gaps >= sync_gap_ns, by start */
	uint32_t n_gaps;
	double *util;                 /* busy fraction of each of config.util_chunks chunks */
	int n_util;
	uint32_t *ops;                /* its operations (indices into model.ops), by start */
	uint32_t n_ops;
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

/* ------------------------------------------------------------------ findings */

enum kg_severity { KG_SEV_INFO = 0, KG_SEV_WARNING = 1, KG_SEV_CRITICAL = 2 };
const char *severity_name(enum kg_severity s);

#define KG_MAX_EVIDENCE 8

struct kg_evidence {
	int64_t start, end;           /* time range */
	uint32_t stream;              /* KG_NONE when not about one stream */
	uint32_t op;                  /* an operation, KG_NONE */
	char text[200];
};

struct kg_finding {
	const char *rule;             /* e.g. "stream-serialization" (docs/rules.md) */
	enum kg_severity severity;
	char title[200];              /* one line: what is wrong */
	char explanation[600];        /* why it costs time */
	char fix[600];                /* what to change, concretely */
	double gain_ns;               /* estimated time saved by the fix */
	double gain_pct;              /* of the span */
	char gain_how[300];           /* how the estimate was made */
	int64_t start, end;           /* the time range it is about */
	uint32_t gpu;                 /* KG_NONE when about several */
	struct kg_evidence evidence[KG_MAX_EVIDENCE];
	int n_evidence;
	char figures[400];            /* the numbers behind it, "name=value, ..." */
};

struct kg_analysis {
	const struct kg_model *m;
	struct kg_config cfg;
	int64_t span;                 /* model end - begin */
	struct kg_gpu_metrics *gpus;
	uint32_t n_gpus;
	struct kg_stream_metrics *streams;   /* same order as model.streams */
	struct kg_kernel_stats *kernels;     /* by total time, descending */
	uint32_t n_kernels;
	int64_t *solo;                       /* by op: time it was the only kernel on its GPU */
	struct kg_finding *findings;         /* by gain, descending */
	uint32_t n_findings, cap_findings;
};

int analysis_run(const struct kg_model *m, const struct kg_config *cfg, struct kg_analysis *a);
void analysis_free(struct kg_analysis *a);

/* For the rules (analysis/rules.c) and renderers: */
struct kg_finding *analysis_add_finding(struct kg_analysis *a, const char *rule);
void finding_evidence(struct kg_finding *f, int64_t start, int64_t end, uint32_t stream,
		      uint32_t op, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Occupancy inputs of a device (zeroed fields when the trace lacks them). */
void occ_device_of(const struct kg_device *d, struct kg_occ_device *out);
/* Fraction of the GPU's SMs one op gives work to: blocks / SMs capped at 1; 1 when unknown. */
double op_fill(const struct kg_analysis *a, const struct kg_op *o);
/* Runs every rule; called by analysis_run. */
void rules_run(struct kg_analysis *a);

#endif

