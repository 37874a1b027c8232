/* kgantt record once its options are read (cmd_record.c): run the program with the
 * recorder injected, gather every process's spool into one trace, and say what it holds
 * (record_summary.h). The recorder's side: record_env.h. */
#ifndef KGANTT_CLI_RECORD_SESSION_H
#define KGANTT_CLI_RECORD_SESSION_H

#include "util/record_settings.h"

/* The values of --mode, --latency, --capture-range, --stacks: indices into these. */
extern const char *const record_modes[];    /* full, kernels */
extern const char *const record_on_off[];   /* on, off */
extern const char *const record_ranges[];   /* cudaProfilerApi, none */
extern const char *const record_stacks[];   /* off, waits, all */
enum { RECORD_FULL = 0, RECORD_KERNELS = 1 };
enum { RECORD_ON = 0, RECORD_OFF = 1 };

struct record_opts {
	const char *output;   /* a pattern: %p, %h, %q{VAR} (util/pathfmt.h) */
	int mode, latency;    /* latency -1: as the mode says */
	int capture_range, stacks;
	const char *rank_env;
	double delay, duration;
	int setting[KG_RS_COUNT]; /* the numbers of util/record_settings.h */
	int force, keep_spool, quiet, all_api;
	int all_launches;     /* --all-launches: an API record for every kernel launch */
	int launch_hook;      /* --launch-hook: RECORD_ON (default) or RECORD_OFF */
	int sm;               /* --sm: read the SM block logs of include/kgantt/sm.h */
	int report;           /* --report: the text report once the trace exists */
	int color;            /* --color, for --report */
	const char *plot;     /* --plot FILE: the chart, likewise */
	const char *view;     /* --view FILE: the HTML page, likewise */
	/* --summarize-only TRACE (not in --help): run no program, only what record does
	 * after writing a trace, on TRACE; the tests reach that part without a GPU */
	const char *summarize_only;
};

/* The whole run of argv (the program and its arguments): the exit code, the program's
 * own unless nothing could be recorded (README, "Recording"). */
int record_run(const struct record_opts *o, char **argv);

#endif
