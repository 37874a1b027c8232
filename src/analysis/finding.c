/* Findings: the rule list, the one rating, the texts (finding.h). */
#include "analysis/finding.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/array.h"

const struct kg_rule kg_rules[KG_RULE_COUNT] = {
#define KG_RULE_ROW_(id, name, scope, runner, what) {name, KG_SCOPE_##scope, what},
	KG_RULES(KG_RULE_ROW_)
#undef KG_RULE_ROW_
};

enum kg_rule_id rule_by_id(const char *id)
{
	for (int r = 0; r < KG_RULE_COUNT; r++)
		if (!strcmp(kg_rules[r].id, id))
			return (enum kg_rule_id)r;
	return KG_RULE_COUNT;
}

const char *severity_name(enum kg_severity s)
{
	static const char *const names[] = {
#define KG_SEVERITY_NAME_(id, name) name,
		KG_SEVERITIES(KG_SEVERITY_NAME_)
#undef KG_SEVERITY_NAME_
	};
	return (unsigned)s < KG_SEV_COUNT ? names[s] : names[KG_SEV_INFO];
}

enum kg_severity severity_by_name(const char *name)
{
	for (int s = 0; s < KG_SEV_COUNT; s++)
		if (!strcmp(name, severity_name((enum kg_severity)s)))
			return (enum kg_severity)s;
	return KG_SEV_COUNT;
}

enum kg_severity severity_of_share(const struct kg_config *cfg, double share_pct)
{
	return share_pct >= cfg->critical_pct  ? KG_SEV_CRITICAL
	       : share_pct >= cfg->warning_pct ? KG_SEV_WARNING
					       : KG_SEV_INFO;
}

int finding_worth(const struct kg_config *cfg, int64_t steady_span, double gain_ns)
{
	return gain_ns >= (double)cfg->min_gain_ns && steady_span > 0 &&
	       100.0 * gain_ns / (double)steady_span >= cfg->min_gain_pct;
}

struct kg_finding *findings_add(struct kg_findings *l, enum kg_rule_id rule)
{
	if (array_room((void **)&l->v, &l->cap, l->n, sizeof(*l->v), 16) < 0)
		return NULL;
	struct kg_finding *f = &l->v[l->n++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->gpu = f->rank = KG_NONE;
	f->start = f->end = KG_NO_TIME;
	f->host_cause = -1;
	return f;
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s;
	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

void finding_set(char **field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	if (!s)
		return;
	free(*field);
	*field = s;
}

void finding_append(char **field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *tail = vformat(fmt, ap);
	va_end(ap);
	if (!tail)
		return;
	if (!*field) {
		*field = tail;
		return;
	}
	size_t n = strlen(*field), k = strlen(tail);
	char *s = realloc(*field, n + k + 1);
	if (s) {
		memcpy(s + n, tail, k + 1);
		*field = s;
	}
	free(tail);
}

void finding_evidence(struct kg_finding *f, int64_t start, int64_t end, uint32_t stream,
		      uint32_t op, const char *fmt, ...)
{
	if (f->n_evidence >= KG_MAX_EVIDENCE)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *text = vformat(fmt, ap);
	va_end(ap);
	if (!text)
		return;
	f->evidence[f->n_evidence++] = (struct kg_evidence){start, end, stream, op, text};
}

/* A finding and where it was found: qsort is not stable, so "as found" is a key. */
struct ranked {
	struct kg_finding f;
	uint32_t found;
};

static int by_gain(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;
	if (a->f.gain_ns != b->f.gain_ns)
		return (a->f.gain_ns < b->f.gain_ns) - (a->f.gain_ns > b->f.gain_ns);
	if (a->f.severity != b->f.severity)
		return (a->f.severity < b->f.severity) - (a->f.severity > b->f.severity);
	if (a->f.rule != b->f.rule)
		return (a->f.rule > b->f.rule) - (a->f.rule < b->f.rule);
	uint32_t wa = a->f.gpu != KG_NONE ? a->f.gpu : a->f.rank;
	uint32_t wb = b->f.gpu != KG_NONE ? b->f.gpu : b->f.rank;
	if (wa != wb)
		return (wa > wb) - (wa < wb);
	return (a->found > b->found) - (a->found < b->found);
}

void findings_rank(struct kg_findings *l, const struct kg_config *cfg, int64_t steady_span)
{
	for (uint32_t i = 0; i < l->n; i++) {
		struct kg_finding *f = &l->v[i];
		f->gain_pct = steady_span > 0 ? 100.0 * f->gain_ns / (double)steady_span : 0;
		if (f->gain_ns > 0) /* one without an estimate keeps the severity its rule set */
			f->severity = severity_of_share(cfg, f->gain_pct);
	}
	if (l->n < 2)
		return;
	struct ranked *r = malloc(l->n * sizeof(*r));
	if (!r)
		return; /* left in the order found: every figure stands */
	for (uint32_t i = 0; i < l->n; i++)
		r[i] = (struct ranked){l->v[i], i};
	qsort(r, l->n, sizeof(*r), by_gain);
	for (uint32_t i = 0; i < l->n; i++)
		l->v[i] = r[i].f;
	free(r);
}

static int copy_text(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return src && !*dst ? -ENOMEM : 0;
}

int finding_copy(struct kg_finding *dst, const struct kg_finding *f)
{
	*dst = *f;
	dst->title = dst->explanation = dst->fix = dst->gain_how = dst->figures = NULL;
	dst->first_blame = dst->n_blame = 0;
	dst->n_sites = 0;
	dst->host = NULL; /* the shares name nodes of f's analysis */
	dst->n_host = 0;
	for (int k = 0; k < f->n_evidence; k++)
		dst->evidence[k].text = NULL;
	int rc = copy_text(&dst->title, f->title) | copy_text(&dst->explanation, f->explanation) |
		 copy_text(&dst->fix, f->fix) | copy_text(&dst->gain_how, f->gain_how) |
		 copy_text(&dst->figures, f->figures);
	for (int k = 0; k < f->n_evidence; k++)
		rc |= copy_text(&dst->evidence[k].text, f->evidence[k].text);
	if (rc) {
		finding_free(dst);
		return -ENOMEM;
	}
	return 0;
}

void finding_free(struct kg_finding *f)
{
	free(f->title);
	free(f->explanation);
	free(f->fix);
	free(f->gain_how);
	free(f->figures);
	free(f->host);
	for (int k = 0; k < f->n_evidence; k++)
		free(f->evidence[k].text);
	memset(f, 0, sizeof(*f));
}

void findings_free(struct kg_findings *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		finding_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
