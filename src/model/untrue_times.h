/* Private to the model (model.c's model_finish): records whose times cannot be true.
 *
 * model_finish judges every record in the passes it makes over them anyway (the ops in
 * the two threads that link them, the calls where it indexes them): a pass of its own
 * over ten million ops would cost a twentieth of a report in memory traffic alone. */
#ifndef KGANTT_UNTRUE_TIMES_H
#define KGANTT_UNTRUE_TIMES_H

#include "model/model.h"
#include "util/timemath.h"

/* What tells a true time: the trace's body and what it reaches (untrue_times.c). */
struct untrue_body {
	int have;                 /* 0: no time to judge by (rules 3 and 4 off) */
	int64_t lo, hi;           /* times outside [lo, hi] are far (rule 4) */
	int zero_far;             /* rule 3 applies */
	int64_t ok_lo, ok_hi;     /* a record inside these, start not after end, is true: the
				   * one test most records need */
};

/* What was left out: counts by kind and reason, and the first one met. */
struct untrue_tally {
	uint64_t n[KG_UNTRUE_KINDS][KG_UNTRUE_WHYS];
	uint64_t total;
	int first_kind, first_why;
	uint32_t first_name;      /* string id, 0 none */
};

/* The body of m's times (a sample of them): 0, or -ENOMEM. */
int untrue_find_body(const struct kg_model *m, struct untrue_body *b);

/* Why [start, end] cannot be true (enum kg_untrue_why), or -1 when it can. */
int untrue_why(const struct untrue_body *b, int64_t start, int64_t end);
static inline int untrue_judge(const struct untrue_body *b, int64_t start, int64_t end)
{
	/* KG_NO_TIME is below ok_lo; start <= end: the unsigned difference is exact */
	if (start >= b->ok_lo && end <= b->ok_hi && start <= end &&
	    (uint64_t)end - (uint64_t)start <= KG_LONGEST_NS)
		return -1;
	return untrue_why(b, start, end);
}

/* Counts a record left out (kind: enum kg_untrue_kind). */
void untrue_count(struct untrue_tally *t, int kind, int why, uint32_t name);
/* Adds from's counts to into's; into's first stays first (the parts of a pass, in order). */
void untrue_merge(struct untrue_tally *into, const struct untrue_tally *from);
/* The kind an op is counted as. */
int untrue_op_kind(const struct kg_op *o);

/* The SM blocks of no op go: those of a kernel left out, which model_order_ops points past
 * the ops, and a reader's mistake. */
void drop_sm_blocks_of_no_op(struct kg_model *m);

/* The rest, once the ops and calls are judged and t holds what they left out: the waits
 * (those of a call left out go with it, uncounted; api_map: old call index → new, NULL
 * when no call was left out), ranges, hardware samples, SM blocks (those of a kernel left
 * out go with it, uncounted), host samples and tracer spans, the processes' start and
 * end, the counts into
 * m->untrue and the note. */
void untrue_finish(struct kg_model *m, const struct untrue_body *b, struct untrue_tally *t,
		   const uint32_t *api_map, uint32_t n_apis_before);

#endif
