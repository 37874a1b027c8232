/* What `kgantt report`, `plot` and `view` write, from a trace already loaded and analysed:
 * `kgantt record --report/--plot/--view` (cmd_record_after.c) reuses the commands' own
 * code and defaults through these, loading and analysing a big trace only once. Each
 * returns an exit code (KG_EXIT_OK, or KG_EXIT_FAILURE after a message). */
#ifndef KGANTT_CLI_SHOWS_H
#define KGANTT_CLI_SHOWS_H

#include "analysis/analysis.h"

/* The page `kgantt report TRACE` prints, on stdout. */
int report_show(const struct kg_analysis *a);
/* `kgantt plot TRACE -o out`: the chart of the whole trace, with the findings of a. */
int plot_show(const char *trace, const char *out, const struct kg_analysis *a);
/* 0 when out's name says a format plot writes (.png, .svg, .pdf), else -1 after saying
 * so: checked before a recording starts, not after it. */
int plot_check_output(const char *out);
/* `kgantt view TRACE -o out`: the page, and a line saying where it went unless quiet. */
int view_show(const char *trace, const char *out, const struct kg_analysis *a, int quiet);

#endif
