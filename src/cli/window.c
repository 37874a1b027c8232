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

/* An empty window is an error in every command: a report with a finding about nothing,
 * or a blank page, looks like a result. Says where the window was and where the trace
 * is, so that the user can pick again: its span, begin to end, as every command gives
 * it (m->begin, m->end). */
static int say_empty(const struct kg_window *w, const char *path, int64_t begin, int64_t end,
		     int64_t t0, int64_t t1)
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
	kg_err("the window %s holds no GPU operation or API call (%s)", where, span);
	return KG_EXIT_FAILURE;
}

/* By name id, for range_names. */
struct name_count {
	uint32_t name, n;
};

static int by_name(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int by_count(const void *pa, const void *pb)
{
	const struct name_count *a = pa, *b = pb;
	return a->n != b->n ? (a->n < b->n) - (a->n > b->n) : (a->name > b->name) - (a->name < b->name);
}

uint32_t window_range_names(const struct kg_model *m, char *buf, size_t len)
{
	enum { SHOWN = 5 };
	uint32_t *ids = malloc(((size_t)m->n_ranges + 1) * sizeof(*ids));
	struct name_count *c = malloc(((size_t)m->n_ranges + 1) * sizeof(*c));
	uint32_t n = 0;
	snprintf(buf, len, "%s", m->n_ranges ? "(out of memory listing them)" : "");
	if (!ids || !c || !m->n_ranges)
		goto out;
	for (uint32_t i = 0; i < m->n_ranges; i++)
		ids[i] = m->ranges[i].name;
	qsort(ids, m->n_ranges, sizeof(*ids), by_name);
	for (uint32_t i = 0; i < m->n_ranges; i++)
		if (n && c[n - 1].name == ids[i])
			c[n - 1].n++;
		else
			c[n++] = (struct name_count){ids[i], 1};
	qsort(c, n, sizeof(*c), by_count);
	size_t o = 0;
	for (uint32_t i = 0; i < n && i < SHOWN && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s'%s' (%u)", i ? ", " : "",
				      model_text(m, c[i].name), c[i].n);
	if (n > SHOWN && o < len)
		snprintf(buf + o, len - o, " and %u more name%s", n - SHOWN, n - SHOWN == 1 ? "" : "s");
out:
	free(ids);
	free(c);
	return m->n_ranges ? n : 0;
}

/* The window's bounds on the trace's clock: [t0, t1), half-open. */
static int window_bounds(const struct kg_window *w, const char *path, const struct kg_model *m,
			 int64_t *t0, int64_t *t1)
{
	*t0 = m->begin;
	*t1 = m->end;
	if (w->nvtx && model_range_window(m, w->nvtx, t0, t1) < 0) {
		char names[600];
		if (window_range_names(m, names, sizeof(names)))
			kg_err("'%s' has no NVTX or annotation range named '%s' (or starting with it); "
			       "the names it has, most frequent first: %s", path, w->nvtx, names);
		else
			kg_err("'%s' has no NVTX or annotation range named '%s': it has no range at "
			       "all", path, w->nvtx);
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

int window_apply(const struct kg_window *w, const char *path, struct kg_model *m,
		 struct kg_window_cut *cut)
{
	memset(cut, 0, sizeof(*cut));
	if (!window_given(w))
		return KG_EXIT_OK;
	int64_t t0, t1, begin = m->begin, end = m->end;
	if (window_bounds(w, path, m, &t0, &t1))
		return KG_EXIT_FAILURE;
	if (begin == KG_NO_TIME) /* nothing in the trace, so nothing in the window */
		return say_empty(w, path, begin, end, t0, t1);
	*cut = (struct kg_window_cut){1, w->nvtx, t0, t1, begin, m->end};
	if (model_restrict(m, t0, t1) < 0) {
		kg_err("out of memory restricting '%s' to the window", path);
		return KG_EXIT_FAILURE;
	}
	if (!m->n_ops && !m->n_apis)
		return say_empty(w, path, begin, end, t0, t1);
	if (!m->n_ops)
		kg_warn("no GPU operation was launched in the window, only API calls");
	return KG_EXIT_OK;
}

/* --from T, --to T (options.h): the time after the trace begin. */
static int take_time(const struct cli_option *opt, const char *arg, int64_t *value, int *given)
{
	char name[64];
	if (window_parse_time(arg, value) < 0) {
		kg_err("%s: '%s' is not a time (e.g. 120, 120ms, 1.5s, 250us)",
		       cli_option_name(opt, name), arg);
		return KG_EXIT_USAGE;
	}
	*given = 1;
	return -1;
}

int window_opt_from(const struct cli_option *opt, const char *arg)
{
	struct kg_window *w = opt->value;
	return take_time(opt, arg, &w->from, &w->has_from);
}

int window_opt_to(const struct cli_option *opt, const char *arg)
{
	struct kg_window *w = opt->value;
	return take_time(opt, arg, &w->to, &w->has_to);
}
