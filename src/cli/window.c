#include "cli/window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/timemath.h"

int window_parse_time(const char *s, int64_t *ns)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {
		{"", 1e6}, {"ms", 1e6}, {"s", 1e9}, {"us", 1e3}, {"ns", 1},
	};
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v >= 0) || v > 1e7) /* !(v >= 0) also rejects NaN */
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*ns = (int64_t)(v * units[i].scale);
			return 0;
		}
	return -1;
}

int window_check(const struct kg_window *w)
{
	if (w->nvtx && (w->has_from || w->has_to)) {
		kg_err("--nvtx chooses the window itself: give it without --from/--to");
		return KG_EXIT_USAGE;
	}
	if (w->has_from && w->has_to && w->to <= w->from) {
		kg_err("--to must be later than --from");
		return KG_EXIT_USAGE;
	}
	return -1;
}

/* "12.5 ms" with the decimals its size needs, for the messages below. */
static const char *ms_text(double ns, char buf[32])
{
	double ms = ns / 1e6;
	snprintf(buf, 32, "%.*f ms", ms == (double)(int64_t)ms ? 0 : ms < 1 ? 3 : ms < 10 ? 2 : 1,
		 ms);
	return buf;
}

/* The last end of a GPU operation or API call: the span m->end gives is the GPU's, but
 * a window may hold API calls after it. */
static int64_t last_end(const struct kg_model *m)
{
	int64_t e = m->end;
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].end > e) /* KG_NO_TIME is the smallest time */
			e = m->ops[i].end;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (m->apis[i].end > e)
			e = m->apis[i].end;
	return e;
}

/* An empty window is an error in every command: a report with a finding about nothing,
 * or a blank page, looks like a result. Says where the window was and where the trace
 * is, so that the user can pick again. begin: where windows count from (m->begin);
 * end: last_end() of the whole trace. */
static int say_empty(const char *cmd, const struct kg_window *w, const char *path,
		     int64_t begin, int64_t end, int64_t t0, int64_t t1)
{
	char a[32], b[32], where[512], span[300];
	if (w->nvtx && begin == KG_NO_TIME) /* no time to count the range's from */
		snprintf(where, sizeof(where), "of the ranges named '%s'", w->nvtx);
	else if (w->nvtx)
		snprintf(where, sizeof(where), "of the ranges named '%s' (%s – %s)", w->nvtx,
			 ms_text((double)(t0 - begin), a), ms_text((double)(t1 - begin), b));
	else
		snprintf(where, sizeof(where), "%s – %s", ms_text((double)w->from, a),
			 w->has_to ? ms_text((double)w->to, b) : "end");
	if (begin == KG_NO_TIME)
		snprintf(span, sizeof(span), "'%s' holds none at all", path);
	else
		snprintf(span, sizeof(span), "'%s' spans 0 – %s", path,
			 ms_text((double)(end - begin), a));
	kg_err("%s: the window %s holds no GPU operation or API call (%s)", cmd, where, span);
	return KG_EXIT_FAILURE;
}

/* The window's bounds on the trace's clock: [t0, t1), half-open. */
static int window_bounds(const char *cmd, const struct kg_window *w, const char *path,
			 const struct kg_model *m, int64_t *t0, int64_t *t1)
{
	*t0 = m->begin;
	*t1 = m->end;
	if (w->nvtx && model_range_window(m, w->nvtx, t0, t1) < 0) {
		kg_err("%s: '%s' has no NVTX or annotation range named '%s'", cmd, path, w->nvtx);
		return KG_EXIT_FAILURE;
	}
	/* the trace's times are the file's: sums saturate (util/timemath.h) */
	if (w->has_from)
		*t0 = kg_time_add(m->begin, w->from);
	if (w->has_to)
		*t1 = kg_time_add(m->begin, w->to);
	else if (!w->nvtx) /* the window is half-open: keep what starts at the very end */
		*t1 = kg_time_add(m->end, 1);
	return KG_EXIT_OK;
}

int window_apply(const char *cmd, const struct kg_window *w, const char *path,
		 struct kg_model *m, struct kg_window_cut *cut)
{
	memset(cut, 0, sizeof(*cut));
	if (!w->nvtx && !w->has_from && !w->has_to)
		return KG_EXIT_OK;
	int64_t t0, t1, begin = m->begin, end = last_end(m);
	if (window_bounds(cmd, w, path, m, &t0, &t1))
		return KG_EXIT_FAILURE;
	if (begin == KG_NO_TIME) /* nothing in the trace, so nothing in the window */
		return say_empty(cmd, w, path, begin, end, t0, t1);
	*cut = (struct kg_window_cut){1, w->nvtx, t0, t1, begin, m->end};
	if (model_restrict(m, t0, t1) < 0) {
		kg_err("%s: out of memory restricting '%s' to the window", cmd, path);
		return KG_EXIT_FAILURE;
	}
	if (!m->n_ops && !m->n_apis)
		return say_empty(cmd, w, path, begin, end, t0, t1);
	if (!m->n_ops)
		kg_warn("%s: no GPU operation was launched in the window, only API calls", cmd);
	return KG_EXIT_OK;
}

int window_holds_work(const char *cmd, const struct kg_window *w, const char *path,
		      const struct kg_model *m, int64_t t0, int64_t t1)
{
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (model_op_in_window(&m->ops[i], t0, t1))
			return KG_EXIT_OK;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (m->apis[i].end > t0 && m->apis[i].start < t1)
			return KG_EXIT_OK;
	return say_empty(cmd, w, path, m->begin, last_end(m), t0, t1);
}

int window_take_time(const char *opt, const char *arg, int64_t *value, int *given)
{
	if (window_parse_time(arg, value) < 0) {
		kg_err("--%s: '%s' is not a time (e.g. 120, 120ms, 1.5s, 250us)", opt, arg);
		return KG_EXIT_USAGE;
	}
	*given = 1;
	return -1;
}
