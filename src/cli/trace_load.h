/* Loading the trace a command shows (report, plot, view, export, diff, and record's
 * summary) in one place, so that every command says the same about a trace it cannot
 * show, in the words `kgantt info` uses. */
#ifndef KGANTT_CLI_TRACE_LOAD_H
#define KGANTT_CLI_TRACE_LOAD_H

#include "model/load.h"

/* model_load, then what the trace says about itself. KG_EXIT_OK, or KG_EXIT_FAILURE after
 * a message naming the file: unreadable, truncated or damaged (as `kgantt info` says
 * it), or recorded while CUPTI refused the recorder in every process that left
 * anything, so that there is nothing to show (cmd names the command in that message).
 * Where CUPTI refused only some processes, each gets a warning and the load succeeds.
 * On failure m is freed. */
int cli_load_trace(const char *cmd, const char *path, struct kg_model *m,
		   const struct kg_load_opts *lo);
/* The refusal part of cli_load_trace alone, for a model loaded otherwise. */
int cli_check_recorded(const char *cmd, const char *path, const struct kg_model *m);

#endif
