#include "cli/window.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

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

int window_apply(const struct kg_window *w, const char *path, struct kg_model *m,
		 struct kg_window_cut *cut)
{
	memset(cut, 0, sizeof(*cut));
	if (!w->nvtx && !w->has_from && !w->has_to)
		return KG_EXIT_OK;
	int64_t t0 = m->begin, t1 = m->end;
	if (w->nvtx && model_range_window(m, w->nvtx, &t0, &t1) < 0) {
		kg_err("'%s' has no NVTX or annotation range named '%s'", path, w->nvtx);
		return KG_EXIT_FAILURE;
	}
	if (m->begin == KG_NO_TIME) /* nothing in the trace: nothing to cut */
		return KG_EXIT_OK;
	if (w->has_from)
		t0 = m->begin + w->from;
	if (w->has_to)
		t1 = m->begin + w->to;
	else if (!w->nvtx)
		t1 = m->end + 1; /* the window is half-open: keep what starts at the very end */
	*cut = (struct kg_window_cut){1, w->nvtx, t0, t1, m->begin, m->end};
	if (model_restrict(m, t0, t1) < 0) {
		kg_err("out of memory restricting '%s' to the window", path);
		return KG_EXIT_FAILURE;
	}
	if (!m->n_ops)
		kg_warn("no GPU operation was launched in the window");
	return KG_EXIT_OK;
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
