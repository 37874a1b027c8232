/* --from, --to and --nvtx, shared by report, plot, view and export: which part of a
 * trace to look at. */
#ifndef KGANTT_WINDOW_H
#define KGANTT_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

struct kg_window {
	int64_t from, to;       /* ns after the trace begin */
	int has_from, has_to;
	const char *nvtx;       /* range name (or its prefix), NULL = none */
};

/* What window_apply cut. */
struct kg_window_cut {
	int windowed;
	const char *nvtx;
	int64_t begin, end;             /* the window, on the trace's clock */
	int64_t trace_begin, trace_end; /* the whole trace's span before the cut */
};

/* "120" (ms), "120ms", "1.5s", "250us", "300ns" → ns. 0, or -1 when it is not a time. */
int window_parse_time(const char *s, int64_t *ns);
/* --from and --to (options.h callbacks; opt->value is the struct kg_window). */
struct cli_option;
int window_opt_from(const struct cli_option *opt, const char *arg);
int window_opt_to(const struct cli_option *opt, const char *arg);
/* The options' consistency: -1 when fine, else KG_EXIT_USAGE after saying why. */
int window_check(const struct kg_window *w);
/* Whether any of --from, --to, --nvtx was given. */
static inline int window_given(const struct kg_window *w)
{
	return w->nvtx || w->has_from || w->has_to;
}
/* Restricts m to the window (model_restrict) and says what was cut: KG_EXIT_OK, or
 * KG_EXIT_FAILURE after a message naming the trace (an unknown range, with the names
 * there are; a window that holds no GPU operation or API call; no memory). */
int window_apply(const struct kg_window *w, const char *path, struct kg_model *m,
		 struct kg_window_cut *cut);
/* The range names of m, the most frequent first with their counts, for a message:
 * "'step' (20), 'Optimizer.step#SGD.step' (20)". How many names there are: 0 when m
 * has no range. */
uint32_t window_range_names(const struct kg_model *m, char *buf, size_t len);

#endif
