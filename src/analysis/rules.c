/* The trace rules run in KG_RULES' order (analysis/finding.h), and what they share
 * (rules.h). */
#include <stdio.h>
#include <string.h>

#include "analysis/rules.h"

void rules_run(struct kg_analysis *a)
{
#define KG_RULE_RUN_TRACE(runner) runner(a);
#define KG_RULE_RUN_JOB(runner)
#define KG_RULE_RUN_(id, name, scope, runner, what) KG_RULE_RUN_##scope(runner)
	KG_RULES(KG_RULE_RUN_)
#undef KG_RULE_RUN_
#undef KG_RULE_RUN_TRACE
#undef KG_RULE_RUN_JOB
}

void rule_gpu_label(const struct kg_analysis *a, uint32_t gpu, char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu *g = &m->gpus[gpu];
	const struct kg_device *d = &m->devices[g->device];
	snprintf(buf, len, "GPU %d (%s)", g->ordinal, d->name ? model_text(m, d->name) : "?");
}

void rule_stream_label(const struct kg_analysis *a, uint32_t s, char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	const struct kg_stream *st = &m->streams[s];
	const char *kind = st->kind == KG_STREAM_LEGACY_DEFAULT ? " (legacy default stream)"
			   : st->kind == KG_STREAM_BLOCKING    ? " (blocking)"
							       : "";
	if (m->n_processes > 1)
		snprintf(buf, len, "stream %lld of pid %u%s", (long long)st->id,
			 m->processes[st->process].pid, kind);
	else
		snprintf(buf, len, "stream %lld%s", (long long)st->id, kind);
}

const char *rule_kernel_name(const struct kg_analysis *a, uint32_t name, char *buf, size_t len)
{
	const char *s = model_text(a->m, name);
	const char *paren = strchr(s, '(');
	size_t n = paren ? (size_t)(paren - s) : strlen(s);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

