/* Loading the trace a command shows (report, plot, view, export, diff, and record's
 * summary) in one place, so that every command says the same about a trace it cannot
 * show, in the words `kgantt info` uses. */
#ifndef KGANTT_CLI_TRACE_LOAD_H
#define KGANTT_CLI_TRACE_LOAD_H

#include "model/load.h"

/* What a loaded trace says about itself: KG_EXIT_OK, or KG_EXIT_FAILURE after a message
 * naming the file when there is nothing to show (an empty trace, or one recorded while
 * CUPTI refused the recorder in every process that left anything). Where CUPTI refused
 * only some processes, each gets a warning. */
int cli_check_recorded(const char *path, const struct kg_model *m);

#endif
