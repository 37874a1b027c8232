/* --from, --to and --nvtx, shared by report, plot, view and export: which part of a
 * trace to look at. */
#ifndef KGANTT_WINDOW_H
#define KGANTT_WINDOW_H

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
/* One --from or --to option (opt names it): -1 to go on, or KG_EXIT_USAGE after saying
 * why arg is not a time. */
int window_take_time(const char *opt, const char *arg, int64_t *value, int *given);
/* The options' consistency: -1 when fine, else KG_EXIT_USAGE after saying why. */
int window_check(const struct kg_window *w);
/* Restricts m to the window (model_restrict) and says what was cut: KG_EXIT_OK, or
 * KG_EXIT_FAILURE after a message naming the command and the trace (unknown range, a
 * window that holds no GPU operation or API call, no memory). */
int window_apply(const char *cmd, const struct kg_window *w, const char *path,
		 struct kg_model *m, struct kg_window_cut *cut);
/* For a command that draws more than the window keeps (plot): whether [t0, t1) holds
 * what model_restrict would keep of GPU operations and API calls. KG_EXIT_OK, or
 * KG_EXIT_FAILURE after the message window_apply gives for an empty window. */
int window_holds_work(const char *cmd, const struct kg_window *w, const char *path,
		      const struct kg_model *m, int64_t t0, int64_t t1);

#endif
