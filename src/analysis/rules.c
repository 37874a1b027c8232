/* What the trace rules (rules_*.c) share while they run (rules.h): their findings, their
 * events (blame), whether a gain is worth a finding, and how they name things. */
#include <stdio.h>
#include <string.h>

#include "analysis/rules.h"
#include "util/array.h"

struct kg_finding *analysis_add_finding(struct kg_analysis *a, enum kg_rule_id rule)
{
	return findings_add(&a->findings, rule);
}

int analysis_worth(const struct kg_analysis *a, double gain)
{
	return finding_worth(&a->cfg, a->steady_span, gain);
}

void analysis_blame(struct kg_analysis *a, uint32_t api, uint32_t op, double ns)
{
	if (!(ns > 0))
		return;
	if (array_room((void **)&a->blame, &a->cap_blame, a->n_blame, sizeof(*a->blame), 1024) < 0)
		return; /* the sites miss this event; the finding and its gain stand */
	a->blame[a->n_blame++] = (struct kg_blame){api, op, ns};
}

void analysis_blame_idle(struct kg_analysis *a, uint32_t api, uint32_t op, double ns,
			 int64_t start, int64_t end, uint32_t next_op, enum kg_idle_part part)
{
	uint32_t n = a->n_blame;
	analysis_blame(a, api, op, ns);
	if (a->n_blame == n || !a->m->n_host_spans ||
	    array_room((void **)&a->idle, &a->cap_idle, a->n_idle, sizeof(*a->idle), 256) < 0)
		return; /* the finding's host side misses this gap; the rest stands */
	a->idle[a->n_idle++] = (struct kg_idle){start, end, next_op, n, (uint8_t)part};
}

void finding_take_blame(struct kg_analysis *a, struct kg_finding *f, uint32_t mark)
{
	f->first_blame = mark;
	f->n_blame = a->n_blame - mark;
}

void analysis_drop_blame(struct kg_analysis *a, uint32_t mark)
{
	a->n_blame = mark;
	while (a->n_idle && a->idle[a->n_idle - 1].blame >= mark)
		a->n_idle--;
}

void rule_gpu_label(const struct kg_analysis *a, uint32_t gpu, char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu *g = &m->gpus[gpu];
	const struct kg_device *d = &m->devices[g->device];
	const char *name = d->name ? model_text(m, d->name) : "";
	if (*name)
		snprintf(buf, len, "GPU %d (%s)", g->ordinal, name);
	else /* a trace without the device's properties: no "(?)" */
		snprintf(buf, len, "GPU %d", g->ordinal);
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

