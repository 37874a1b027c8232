/* What the rules (analysis/rules_*.c) share: each looks at the metrics (metrics.c) and the
 * model, and adds a finding when the problem it knows costs at least the configured share
 * of the steady span: what is wrong, the evidence, why it costs time, the fix, and the
 * time the fix would save with how that was estimated. docs/rules.md documents every rule.
 *
 * Estimates are deliberately simple models with their assumptions stated, not
 * simulations: they rank the findings and size the prize. */
#ifndef KGANTT_RULES_H
#define KGANTT_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/pipeline.h"
#include "util/timemath.h"

static inline double ms(double ns)
{
	return ns / 1e6;
}

static inline const struct kg_op *op(const struct kg_analysis *a, uint32_t i)
{
	return &a->m->ops[i];
}

/* 0 for an op whose end is unknown or before its start; saturated (util/timemath.h) */
static inline int64_t dur(const struct kg_op *o)
{
	return kg_time_span(o->end, o->start);
}

static inline int64_t gap_len(const struct kg_gap *g)
{
	return kg_time_span(g->end, g->start);
}

/* "GPU 0 (NVIDIA H200)" */
void rule_gpu_label(const struct kg_analysis *a, uint32_t gpu, char *buf, size_t len);
/* "stream 7 (legacy default stream)", "stream 7 of pid 123" when several processes */
void rule_stream_label(const struct kg_analysis *a, uint32_t s, char *buf, size_t len);
/* A kernel's name without its parameter list. */
const char *rule_kernel_name(const struct kg_analysis *a, uint32_t name, char *buf, size_t len);

#endif
