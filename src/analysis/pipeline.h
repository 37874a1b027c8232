/* Inside the analysis: the steps analysis_run (pipeline.c) calls in order, and what the
 * rules share. Not for the commands, which read struct kg_analysis (analysis.h). */
#ifndef KGANTT_ANALYSIS_PIPELINE_H
#define KGANTT_ANALYSIS_PIPELINE_H

#include "analysis/analysis.h"

/* 1. Per-GPU, per-stream and per-kernel-name metrics (metrics.c). 0 or -ENOMEM. */
int metrics_run(struct kg_analysis *a);
/* Runs of ops, each in its stream's order (first in, first out), merged into one order by
 * their heads' start or issue time, ties by end (metrics.c): a GPU's ops by start, the
 * steps' by the host's order. */
enum kg_merge_key { KG_MERGE_BY_START, KG_MERGE_BY_ISSUE };
struct kg_op_run {
	uint32_t at, end;      /* the run: positions at .. end */
	int64_t key, stop;     /* its head's key and end, kept so the merge compares in place */
};
/* ids[position] is the op at a position (NULL: the positions are ops' indices); out gets
 * every position of the runs in order; heap: room for nruns. */
void merge_op_runs(const struct kg_model *m, const uint32_t *ids, enum kg_merge_key by,
		   struct kg_op_run *runs, uint32_t nruns, uint32_t *heap, uint32_t *out);
/* ... of them, GPU gm's communication and its overlap with compute (comm.c), from its ops
 * by start. 0 or -ENOMEM. */
int comm_metrics(const struct kg_analysis *a, struct kg_gpu_metrics *gm);
/* The time [s, e) has in common with the disjoint spans v[0..n) by start (comm_overlap.c). */
int64_t spans_within(const struct kg_span *v, uint32_t n, int64_t s, int64_t e);
/* 1b. The collectives of the trace's GPUs matched, and each GPU's wait at them for the
 * last to arrive (comm_wait.c): kg_analysis.coll_waits, kg_gpu_metrics.comm_wait*. After
 * the metrics of every GPU. 0 or -ENOMEM. */
int comm_waits_run(struct kg_analysis *a);
/* 2. The hardware samples per kernel name and per GPU (hw.c). 0 or -ENOMEM. */
int hw_run(struct kg_analysis *a);
/* 3. The program's steps, the steady ones' window and the gaps placed by it (steps.c).
 * 0 or -ENOMEM. */
int steps_run(struct kg_analysis *a);
/* An op's token for the steps (kind, name, launch configuration), as a hash key. */
uint64_t step_op_key(const struct kg_op *o);
/* The groups of the steps found (step_groups.c), before their warm-up is judged: each
 * op ops[i] of the steps' GPU is in step sid[i] (KG_NONE none). 0 or -ENOMEM. */
int step_groups_run(const struct kg_analysis *a, struct kg_steps *st, const uint32_t *ops,
		    uint32_t n, const uint32_t *sid);
/* After the warm-up: the steady lead steps' median (kg_steps.lead_p50). */
void step_groups_leads(struct kg_steps *st);
/* After the rules: the findings whose gain lies in a few of the steady steps, and which. */
int steps_of_findings(struct kg_analysis *a);
void steps_free(struct kg_steps *st);
/* 4. Every rule of KG_RULES whose scope is TRACE, in the list's order (declared below). */
/* 5. What the host did while the GPU waited, for each idle finding and the whole trace
 * (host.c). 0 or -ENOMEM. */
int host_run(struct kg_analysis *a);
void host_free(struct kg_analysis *a);
/* 6. Places every finding's events at their call sites (sites.c). 0 or -ENOMEM. */
int sites_run(struct kg_analysis *a);
void analysis_free_sites(struct kg_analysis *a);

/* The trace rules, one function each (analysis/rules_*.c). */
#define KG_RULE_DECL_TRACE(runner) void runner(struct kg_analysis *a);
#define KG_RULE_DECL_JOB(runner)
#define KG_RULE_DECL_(id, name, scope, runner, what) KG_RULE_DECL_##scope(runner)
KG_RULES(KG_RULE_DECL_)
#undef KG_RULE_DECL_
#undef KG_RULE_DECL_TRACE
#undef KG_RULE_DECL_JOB

/* A GPU's idle time by cause and place from its gaps' (metrics.c; steps.c places them
 * again by the steady steps). */
void gaps_tally(struct kg_gpu_metrics *gm);

/* ------------------------------------------------------------------ for the rules (rules.c) */

/* A new finding of a trace rule; NULL when out of memory. */
struct kg_finding *analysis_add_finding(struct kg_analysis *a, enum kg_rule_id rule);
/* Is gain worth a finding of this trace (finding_worth over its steady span)? */
int analysis_worth(const struct kg_analysis *a, double gain);
/* A rule's events: remember mark = a->n_blame before gathering, call analysis_blame for
 * each event, then finding_take_blame(a, f, mark) when it makes a finding, or
 * analysis_drop_blame(a, mark) when it does not. */
void analysis_blame(struct kg_analysis *a, uint32_t api, uint32_t op, double ns);
/* ... an event that stands for part of an idle gap [start, end] ended by next_op: also
 * remembered as such (struct kg_idle) when the trace has host spans. */
void analysis_blame_idle(struct kg_analysis *a, uint32_t api, uint32_t op, double ns,
			 int64_t start, int64_t end, uint32_t next_op, enum kg_idle_part part);
void finding_take_blame(struct kg_analysis *a, struct kg_finding *f, uint32_t mark);
void analysis_drop_blame(struct kg_analysis *a, uint32_t mark);
/* A call that blocks the host until the GPU has done something (a synchronisation, a
 * synchronous copy or memset): what a gap's sync part is made of (metrics.c). */
int api_blocks_host(const struct kg_model *m, const struct kg_api *a);
/* Fraction of the GPU's SMs one op gives work to: blocks / SMs capped at 1; 1 when unknown. */
double op_fill(const struct kg_analysis *a, const struct kg_op *o);

#endif
