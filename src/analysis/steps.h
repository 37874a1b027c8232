/* The program's steps (analysis/steps.c): the iterations of its loop — one optimizer step,
 * one decoded token, one batch — found from the user's annotations or, without them, from
 * the rhythm of its launches; which of them are warm-up, and the steady window they make.
 * Filled by analysis_run before the rules (struct kg_analysis.steps), so that the rules
 * judge the steady steps and the charts, the job report and diff can use them. */
#ifndef KGANTT_ANALYSIS_STEPS_H
#define KGANTT_ANALYSIS_STEPS_H

#include <stdint.h>

#include "analysis/gap_cause.h"

/* How the steps were found: X(ID, "name"), the names the report and its JSON use. */
#define KG_STEPS_SOURCE_LIST(X) X(NONE, "none") X(ANNOTATION, "annotation") X(RHYTHM, "rhythm")
enum kg_steps_source {
#define KG_STEPS_SOURCE_ENUM_(id, name) KG_STEPS_##id,
	KG_STEPS_SOURCE_LIST(KG_STEPS_SOURCE_ENUM_)
#undef KG_STEPS_SOURCE_ENUM_
	KG_STEPS_SOURCES
};
const char *steps_source_name(enum kg_steps_source s);

/* What a group of steps is (analysis/step_groups.c): X(ID, "name", "plural", "unit"), the
 * names the report and its JSON use, and what its steps are called in it. */
#define KG_GROUP_KIND_LIST(X)                                                                 \
	X(GROUP, "group", "groups", "steps") X(REQUEST, "request", "requests", "tokens")        \
	X(EPOCH, "epoch", "epochs", "steps")
enum kg_group_kind {
#define KG_GROUP_KIND_ENUM_(id, name, plural, unit) KG_GROUP_##id,
	KG_GROUP_KIND_LIST(KG_GROUP_KIND_ENUM_)
#undef KG_GROUP_KIND_ENUM_
	KG_GROUP_KINDS
};
const char *group_kind_name(enum kg_group_kind k);
const char *group_kind_plural(enum kg_group_kind k);
const char *group_kind_unit(enum kg_group_kind k);

struct kg_step {
	int64_t host_start;   /* its first launch was issued (an annotation: the range's start) */
	int64_t host_end;     /* after its last launch (an annotation: the range's end) */
	int64_t start, end;   /* on the GPU: its first operation's start, its last one's end */
	int64_t time;         /* GPU start to the next step's GPU start; the last: end - start */
	int64_t busy;         /* the union of its operations */
	int64_t host_gap;     /* the longest wait of the host between two of its launches */
	uint32_t gap_name;    /* string id of what was launched after that wait, 0 none */
	uint32_t gap_thread;  /* ... by this thread (model.threads), KG_NONE unknown */
	int64_t gap_end;      /* ... at this host time: the wait is [gap_end - host_gap, gap_end] */
	uint32_t gap_node;    /* host samples or events (analysis/host.c): the node of the host
			       * tree that took most of that wait, KG_NONE none */
	uint8_t gap_cause;    /* ... its enum kg_host_cause */
	float gap_share;      /* ... and its share of the wait */
	int64_t idle_by_cause[KG_GAP_CAUSES]; /* its GPU's idle gaps (>= sync_gap_ns) that
				  * began in it, by enum kg_gap_cause, as the GPU summary's */
	uint32_t ops, kernels, copies, memsets;
	uint32_t syncs;       /* host synchronisations begun in it */
	uint32_t slow_name;   /* string id of its op furthest over the median step's op at the
			       * same place (rhythm steps of the median's length), 0 none */
	int64_t slow_by;      /* ... and by how much */
	uint8_t warmup;       /* one of the first steps that differ: not steady */
	uint8_t lead;         /* the first step of a later group, unlike the rest (a prefill
			       * before decoded tokens): steady, judged among its kind */
	uint32_t group;       /* its group of steps (0-based; kg_steps.n_groups), KG_NONE none */
};

struct kg_steps {
	struct kg_step *v;    /* in time order */
	uint32_t n;
	uint8_t source;       /* enum kg_steps_source */
	uint32_t name;        /* the annotation's string id (source ANNOTATION) */
	uint32_t gpu;         /* index into kg_analysis.gpus of the GPU they were found on */
	uint32_t period;      /* RHYTHM: launches in a step */
	uint32_t first_steady, n_steady; /* the steady steps: v[first_steady .. + n_steady) */
	uint32_t median_step; /* a steady step of the median time (index into v) */
	int64_t steady_begin, steady_end; /* the steady steps on the GPU; KG_NO_TIME: none */
	int64_t p50, p90, p99, max;       /* the steady steps' times */
	int64_t warmup_time;  /* the warm-up steps' GPU time, start to the first steady step */
	int64_t trace_begin, trace_end; /* the span of the trace they were found in */
	uint32_t chosen_from, chosen_to; /* --steps N-M: the user's steps (1-based) are the
					  * steady ones, 0 none */
	uint32_t n_groups;    /* groups of steps (epochs, requests), 0 when the steps run evenly
			       * from start to end (one group: nothing to say) */
	uint8_t group_kind;   /* ... enum kg_group_kind */
	uint32_t group_name;  /* ... the string id of the ranges that enclose them, 0 none */
	int64_t lead_p50;     /* the steady lead steps' median time, 0 none */
	uint32_t median_lead; /* ... a steady lead step of that time (index into v) */
	int whole;            /* --whole: found, but the findings are of the whole run */
	int applied;          /* the findings are of the steady steps: not --whole, and what
			       * they leave out is at least long_gap_ns (as today's start-up
			       * heuristic, which stays when they leave out less) or
			       * left_out_pct of their time */
	/* what the launching thread did while what they leave out ran (host samples or a
	 * profiler's events), found in the whole run: the enum kg_host_cause that took most
	 * of the start-up before the first step and of the warm-up steps, and how long;
	 * cause KG_HOST_CAUSE_COUNT: nothing known */
	uint8_t startup_cause, warmup_cause;
	int64_t startup_cause_ns, warmup_cause_ns;
};

#endif
