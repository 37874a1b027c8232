/* What `kgantt report`, `plot` and `view` show of one trace, from a session already open
 * and analysed (cli/session.h): the commands' own code and defaults, which `kgantt record
 * --report/--plot/--view` (record_summary.c) reuses so that a big trace is loaded and
 * analysed only once. Each returns an exit code (KG_EXIT_OK, or KG_EXIT_FAILURE after a
 * message). */
#ifndef KGANTT_CLI_SHOWS_H
#define KGANTT_CLI_SHOWS_H

#include "cli/session.h"

/* The page `kgantt report TRACE` prints, on stdout; color: --color's choice. */
int report_show(struct cli_session *s, int color);
/* `kgantt plot TRACE -o out`: the chart, with the findings of s. */
int plot_show(struct cli_session *s, const char *out);
/* 0 when out's name says a format plot writes (.png, .svg, .pdf), else -1 after saying
 * so: checked before a recording starts, not after it. */
int plot_check_output(const char *out);
/* `kgantt view TRACE -o out`: the page, and a line saying where it went unless quiet. */
int view_show(struct cli_session *s, const char *out, int quiet);

#endif
