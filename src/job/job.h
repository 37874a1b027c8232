/* A job: the traces of many ranks analysed together (kgantt report run_*.kgt, a folder,
 * or the same spread over MPI processes).
 *
 * Each rank — one GPU of one process of one trace — is reduced to a struct kg_rank as
 * soon as its trace is analysed, and the trace's model is freed: what the job keeps per
 * rank is bounded (a few dozen kernel names, its collectives, its steps, a coarse
 * timeline), whatever the trace's size. The cross-rank rules then run on the summaries:
 *
 *   job_rank_summaries(&analysis, file, &ranks, &n)    one per GPU that ran something
 *   ... gather every file's ranks into struct kg_job (threads, or MPI: job_wire_*) ...
 *   job_analyse(&job)       order, clocks aligned, rules; job.findings by gain
 *   job_free(&job)
 *
 * The rules are documented in docs/rules.md ("Job rules") and docs/job.md. */
#ifndef KGANTT_JOB_H
#define KGANTT_JOB_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "model/comm.h"

#define KG_JOB_KERNELS 48          /* compute kernel names kept per rank, by total time */
#define KG_JOB_COMM_NAMES 16       /* communication kernel names kept per rank */
#define KG_JOB_FINDINGS 3          /* a rank's own findings kept */
#define KG_JOB_MAX_COLLECTIVES (1u << 20) /* per rank; beyond, the rest is not compared */
#define KG_JOB_MAX_STEPS 65536
#define KG_JOB_BINS 1024           /* the rank's timeline, over its own span */
/* The longest a rank's work, or a job from its first rank's work to its last's, can be:
 * 1e17 ns, 3.2 years (no recording is longer). Ranks further apart on the job's clock are
 * not one job (traces of runs years apart). */
#define KG_JOB_MAX_NS KG_LONGEST_NS

/* What a bin of a rank's timeline was mostly doing (the job's lanes). */
enum kg_bin_state {
	KG_BIN_NONE = 0,     /* outside the rank's span */
	KG_BIN_COMPUTE,      /* kernels other than communication */
	KG_BIN_COMM,         /* communication kernels only (waiting in a collective included) */
	KG_BIN_COPY,         /* copies or memsets only */
	KG_BIN_IDLE_HOST,    /* idle, by cause (enum kg_gap_cause + KG_BIN_IDLE_HOST) */
	KG_BIN_IDLE_SYNC,
	KG_BIN_IDLE_LAUNCH,
	KG_BIN_IDLE_DEPENDENCY,
	KG_BIN_IDLE_UNKNOWN,
	KG_BIN_IDLE_EDGE,    /* idle before its steady work began or after it ended
			      * (kg_gap_place: start-up, wind-down), whatever the cause */
	KG_BIN_IDLE_SHORT,   /* idle in gaps too short to be examined */
	KG_BIN_STATES
};
const char *bin_state_name(enum kg_bin_state s);

struct kg_rank_kernel {
	uint32_t name;       /* offset of its name in kg_rank.names */
	uint32_t count;
	int64_t total, p50;
	uint64_t hash;       /* of the name: the same kernel on every rank */
};

/* A communication kernel of the rank, and what it is (model/comm.h): the job matches it
 * with its peers' by kind, process group, size and order, never by its position. */
struct kg_rank_collective {
	int64_t start, end;  /* on the rank's own clock (add kg_rank.shift) */
	uint64_t hash;       /* of the kernel's name */
	uint64_t group;      /* hash of its process group ("NAME [ranks]"), 0 unknown */
	uint64_t elems;      /* message elements, 0 unknown */
	uint64_t seq;        /* the group's sequence number + 1, 0 unknown */
	int64_t exposed;     /* its time with no compute kernel beside it on its GPU */
	uint32_t step;       /* index into kg_rank.steps, UINT32_MAX outside every step */
	uint32_t peer;       /* a send's or recv's peer, its job rank + 1; 0 unknown */
	uint8_t kind;        /* enum kg_comm_kind */
	uint8_t from_call;   /* the kind came from a host call or args, not the kernel name */
	uint8_t exposed_eighths[8]; /* where its exposed time lies: each eighth of end - start,
				     * its share with no compute beside it, in 255ths */
	uint16_t exposed_lead; /* its first stretch with no compute beside it, in 65535ths of
				* end - start, rounded down */
	uint8_t pad[4];
};

struct kg_rank_step {
	int64_t start, end;  /* the step's range on the host */
	uint32_t kernels;    /* kernels launched in it */
	uint32_t pad;
	int64_t compute;     /* their kernel time, communication excluded */
};

struct kg_rank {
	/* who */
	char file[512];
	char host[128];
	char gpu[64];        /* the GPU's name */
	char rank[32];       /* the job rank the process had ("3"), "" none */
	char label[64];      /* how the report names it: "rank 3", "rank 3 GPU 1", "run.kgt GPU 0" */
	uint32_t pid;
	int32_t ordinal;     /* CUDA device number in the process */
	uint32_t gpus_in_process; /* > 1: a process driving several GPUs (labels say which) */
	int64_t realtime_offset; /* CLOCK_REALTIME - its clock, KG_NO_TIME unknown */
	int64_t shift;       /* added to its times to put them on the job's clock (job_analyse) */
	/* what */
	int64_t begin, end;  /* its GPU work */
	int64_t busy, kernel_busy, compute_time, comm_time;
	int64_t idle_by_cause[KG_GAP_CAUSES];        /* as kg_gpu_metrics: every examined gap */
	int64_t idle_startup, idle_winddown;         /* of it before / after its steady work */
	int64_t steady_begin, steady_end;            /* that work's bounds (its clock, as begin) */
	int64_t steady_idle_by_cause[KG_GAP_CAUSES]; /* of it in its steady work: what the job
						      * rules compare across ranks */
	uint32_t kernels, comm_kernels;
	int64_t compute_busy;     /* the union of its compute kernels */
	int64_t comm_busy;        /* the union of its communication kernels (kg_gpu_metrics.comm) */
	int64_t comm_overlapped;  /* ... of it while a compute kernel ran: the rest is exposed */
	uint32_t n_findings;
	double findings_gain;
	struct kg_finding *top;  /* its largest KG_JOB_FINDINGS findings: rule, severity,
				  * gain and title only */
	uint32_t n_top;
	struct kg_rank_kernel *kernel;  /* compute names by total, then communication names */
	uint32_t n_kernel, n_comm_names;
	struct kg_rank_collective *coll;
	uint32_t n_coll;
	int coll_cut;        /* more than KG_JOB_MAX_COLLECTIVES */
	struct kg_rank_step *steps;
	uint32_t n_steps;
	char step_name[64];  /* the ranges taken as steps, "(detected by rhythm)" for steps
			      * found without them, "" none */
	uint8_t steps_source; /* enum kg_steps_source: how they were found (NONE: no steps) */
	uint8_t bins[KG_JOB_BINS]; /* enum kg_bin_state over its steady work (rank_steady_bounds):
				    * the start-up and wind-down around it are KG_BIN_IDLE_EDGE */
	char *names;         /* the kernel names, NUL-separated */
	uint32_t names_len;
	/* set by the job's matching and rules */
	uint32_t *coll_job;  /* of each of its collectives, the job's collective it is part of
			      * (index into kg_job.colls), UINT32_MAX none: not on the wire */
	uint32_t joined;     /* the job's collectives it is part of */
	uint32_t late;       /* collectives it arrived last at (skew above comm_skew_ns) */
	int64_t late_ns;     /* how much later than the second-last, summed: the job's delay */
	double wait_caused_ns; /* the other ranks' wait for it, summed */
	double comm_wait_exposed; /* of its exposed communication, the part spent waiting for
				   * a late rank at the collectives job-straggler counts */
	int64_t p2p_wait;    /* its receives' wait for their senders (paired transfers) */
	int64_t p2p_caused;  /* its peers' receives' wait for its sends */
	double slowdown;     /* its compute kernels' time / the same kernels at the median
			      * rank's speed; 0 unknown */
	double work_ns;      /* its compute time at the median speed */
};

/* Its communication that no compute kernel ran beside (as comm_exposed for one trace). */
static inline int64_t rank_comm_exposed(const struct kg_rank *r)
{
	return kg_time_span(r->comm_busy, r->comm_overlapped);
}

/* Adds to the gain of its findings, kept from 0 (a summary's total can be less than
 * its parts: rounding, a damaged or hand-made summary) to the longest recording (what a
 * hostile rank's total may already be, and what findings that overlap can add up past). */
static inline void rank_add_findings_gain(struct kg_rank *r, double delta)
{
	r->findings_gain = fmin(KG_JOB_MAX_NS, fmax(0, r->findings_gain + delta));
}

/* Its steady work, steady_begin to steady_end (what its lane's bins cover, and what the
 * job's steady span is made of); its whole span when those are not set within it (a
 * summary made without them). */
static inline void rank_steady_bounds(const struct kg_rank *r, int64_t *begin, int64_t *end)
{
	int set = r->steady_begin >= r->begin && r->steady_begin < r->steady_end &&
		  r->steady_end <= r->end;
	*begin = set ? r->steady_begin : r->begin;
	*end = set ? r->steady_end : r->end;
}

/* The rank's span less its start-up and wind-down idle: what its steady work took (as
 * gpu_steady_span for one trace). */
static inline int64_t rank_steady_span(const struct kg_rank *r)
{
	return kg_time_diff(r->end, r->begin) - kg_time_add(r->idle_startup, r->idle_winddown);
}

/* Its GPU's idle time in its steady work, every cause: the report's and the page's
 * "idle" order. */
static inline int64_t rank_steady_idle(const struct kg_rank *r)
{
	int64_t t = 0;
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		t = kg_time_add(t, r->steady_idle_by_cause[c]);
	return t;
}

/* Its busy share of its steady span: a rank that took longer to start is not less busy in
 * its steps. The report's busy column and the page's "busy" order. */
static inline double rank_busy_share(const struct kg_rank *r)
{
	int64_t span = rank_steady_span(r);
	return span > 0 ? (double)r->busy / (double)span : 0;
}

/* What the summaries of one trace are made from: the step ranges' name (NULL: the
 * first of ProfilerStep, train_step, step that the trace has; when it has none, the
 * steps its analysis found: another annotation, or the rhythm of the launches). */
struct kg_summary_opts {
	const char *step_name;
};

/* One kg_rank per GPU of the analysed trace that ran something, appended to *ranks
 * (grown; *n updated). 0 or -ENOMEM. */
int job_rank_summaries(const struct kg_analysis *a, const char *file,
		       const struct kg_summary_opts *o, struct kg_rank **ranks, uint32_t *n);
void rank_free(struct kg_rank *r);
const char *rank_name(const struct kg_rank *r, const struct kg_rank_kernel *k);

/* ------------------------------------------------------------------ the job */

/* A step of the job: who arrived last at its collectives. */
struct kg_job_step {
	uint32_t step;       /* index among the ranks' steps */
	uint32_t last_rank;  /* the rank last at its worst collective, UINT32_MAX none */
	int64_t worst_skew;  /* that collective's start skew */
	int64_t late_ns;     /* the job's delay in this step: lateness of the last ranks */
	double wait_ns;      /* every rank's wait at its collectives */
	uint32_t collective; /* index of the worst collective */
	uint64_t name_hash;
};

/* A collective of the job: the same call on the ranks that joined it, matched by what it
 * is (kind, process group, size, order or sequence number) and checked by its ends, which
 * lie together on every rank of it (job_match.c). */
struct kg_job_part {
	uint32_t rank;       /* index into kg_job.ranks */
	uint32_t coll;       /* index into that rank's coll */
};

struct kg_job_coll {
	uint32_t first, n;   /* its parts: kg_job.parts[first .. first + n), by rank; n >= 2 */
	uint32_t step;       /* its first rank's step, UINT32_MAX none */
	uint8_t kind;        /* enum kg_comm_kind */
	uint8_t pad[3];
	uint64_t name_hash;  /* its first rank's kernel name */
};

/* How the matching went: what the report says of it, and what it trusts. */
struct kg_job_match {
	uint64_t kernels;    /* communication kernels of every rank */
	uint64_t p2p;        /* of them point-to-point (send, recv, or a SendRecv kernel no call
			      * names): never compared as collectives */
	uint64_t p2p_paired; /* of them sends and recvs paired with their peer's: transfers */
	uint64_t alone;      /* collectives' kernels no other rank's matched */
	uint64_t parted;     /* kernels that the identity paired, ends too far apart, paired
			      * again by their ends */
	uint64_t by_call;    /* collectives' kernels whose kind a host call or the kernel's
			      * args said */
	uint32_t groups;     /* process groups told apart (0: none named) */
	int64_t end_spread_p50, end_spread_max; /* of the matched collectives' ends */
};

struct kg_job {
	struct kg_rank *ranks;
	uint32_t n_ranks;
	uint32_t n_files;
	struct kg_config cfg;
	/* clocks */
	uint32_t n_hosts;
	int clocks_by_collectives;   /* shifts refined by collective ends */
	int64_t align_p50, align_p99, align_max; /* |collective end - reference| after alignment */
	uint32_t align_samples;
	char clock_note[300];
	/* the job */
	int64_t begin, end, span;
	/* from the first rank's steady work to the last's (start-up and wind-down left out):
	 * what the findings' shares and thresholds are taken of, as for one trace */
	int64_t steady_begin, steady_end, steady_span;
	struct kg_job_coll *colls;   /* the matched collectives, by their first start */
	uint32_t n_collectives;
	struct kg_job_part *parts;
	uint32_t n_parts;
	struct kg_job_match match;
	char coll_note[600];         /* what was not compared and why, "" */
	char apart_note[400];        /* why the ranks are not one job (job_analyse: -ERANGE) */
	char steps_note[300];        /* how the ranks' steps were found, when some were
				      * detected without annotations; "" */
	struct kg_job_step *steps;   /* by step */
	uint32_t n_steps;
	double total_wait_ns;
	uint64_t p2p_transfers;      /* sends paired with their recvs (job_match.c) */
	int64_t p2p_wait_ns;         /* the receives' wait for their sends, in all */
	struct kg_findings findings; /* by gain, descending; rank: the rank each is about */
};

/* The job rules (KG_RULES' JOB rows, analysis/finding.h), one function each. */
#define KG_RULE_DECL_JOB(runner) int runner(struct kg_job *j);
#define KG_RULE_DECL_TRACE(runner)
#define KG_RULE_DECL_(id, name, scope, runner, what) KG_RULE_DECL_##scope(runner)
KG_RULES(KG_RULE_DECL_)
#undef KG_RULE_DECL_
#undef KG_RULE_DECL_TRACE
#undef KG_RULE_DECL_JOB

/* Orders the ranks (by rank number, then file and GPU), aligns their clocks, runs the
 * rules. The job owns ranks afterwards. 0, -ENOMEM, or -ERANGE when its ranks' work spans
 * more than KG_JOB_MAX_NS on the job's clock (j->begin, j->end say where). */
int job_analyse(struct kg_job *j);
void job_free(struct kg_job *j);

/* " (shown: its steady work, X ms, without the ranks' start-up and wind-down)" when the
 * job's steady span is not its span, else "": the chart's and the page's subtitle. */
const char *job_shown_note(const struct kg_job *j, char *buf, size_t len);

/* When the last rank started each of the job's collectives, on the job's clock (what the
 * others waited for): n_collectives values, malloc'ed; NULL when there are none or out of
 * memory. A rank's collective c is the job's r->coll_job[c]. */
int64_t *job_last_starts(const struct kg_job *j);

/* When each step of the job began, on the job's clock: the first rank's start of it (a
 * step begins where its first rank begins it). *n steps (the most any rank has), malloc'ed;
 * NULL when no rank has steps (*n 0) or out of memory (*n not 0). */
int64_t *job_step_starts(const struct kg_job *j, uint32_t *n);

/* ------------------------------------------------------------------ matching (job_match.c) */

/* Which of the ranks' collectives are one (j->colls, parts, match, coll_note, each rank's
 * coll_job and joined), and the ranks' clocks put on one (shift, n_hosts, clock_note,
 * align_*). 0, -ENOMEM, or -ERANGE when the ranks are not one job: their work, on clocks
 * that can be compared, does not overlap in time (j->apart_note says so). */
int job_match(struct kg_job *j);
/* Which sends and recvs of the ranks are one transfer (job_p2p.c), once the clocks are
 * aligned: match.p2p_paired, p2p_transfers, p2p_wait_ns, each rank's p2p_wait and
 * p2p_caused. 0 or -ENOMEM. */
int job_pair_transfers(struct kg_job *j);
/* How the collectives were told apart, for the report: "kind, process group and size
 * from the calls that launched them". */
const char *job_identity_note(const struct kg_job *j, char *buf, size_t len);

/* A rank expression: "3", "0-7,12,100-": which ranks (by job rank number, else their
 * position) a command shows. */
struct kg_rank_set {
	uint32_t (*ranges)[2];
	uint32_t n;
};
/* 0, or -1 with the reason in err. */
int rank_set_parse(struct kg_rank_set *s, const char *expr, char *err, size_t errlen);
int rank_set_has(const struct kg_rank_set *s, uint32_t rank);
void rank_set_free(struct kg_rank_set *s);
/* The number a rank expression matches: its job rank, else its position in the job. */
uint32_t job_rank_number(const struct kg_job *j, uint32_t i);

/* ------------------------------------------------------------------ on the wire */

/* A rank as bytes (MPI gathers them), and back. The bytes hold no pointers and say their
 * own length; unpack checks every size against the buffer. 0, -ENOMEM, or -EINVAL for
 * bytes that are not a rank. */
int job_wire_pack(const struct kg_rank *r, uint8_t **buf, size_t *len);
int job_wire_unpack(const uint8_t *buf, size_t len, struct kg_rank *r, size_t *used);

#endif
