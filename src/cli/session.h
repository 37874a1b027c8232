/* What every command that reads a trace shares, as git's RUN_SETUP is for its commands
 * and perf's session for its builtins:
 *  - the options: --from/--to/--nvtx and --no-progress (CLI_WINDOW_OPTIONS), --set (the
 *    rules' thresholds, CLI_SET_OPTION), into each command's option table;
 *  - one path: load (with a progress line on a terminal) → what the trace says about
 *    itself (refused, truncated: cli/trace_load.c) → the window (cli/window.c) → the
 *    settings (cli/settings.c) → the analysis, each failure said once, the same way;
 *  - the command's one call, cli_session_run: that path for one trace, or the job's
 *    (cli/job_session.h) for several, then what the command shows (struct cli_show).
 * report, plot, view, export, diff and record's summary read their traces through it. */
#ifndef KGANTT_CLI_SESSION_H
#define KGANTT_CLI_SESSION_H

#include "analysis/analysis.h"
#include "cli/options.h"
#include "cli/settings.h"
#include "cli/window.h"
#include "model/load.h"

/* Loading and the window: every command that reads a trace. */
#define CLI_WINDOW_OPTIONS(s)                                                              \
	{.type = CLI_OPT_CALLBACK, .long_name = "from", .value = &(s)->window, .argh = "T",  \
	 .fn = window_opt_from, .label = "    --from T, --to T",                            \
	 .help = "only what was launched in this window, T after the trace begin (a "       \
		 "number is ms; or with a unit: 250us, 1.5s)"},                              \
	OPT_CALLBACK(0, "to", &(s)->window, "T", window_opt_to, NULL),                     \
	OPT_STRING(0, "nvtx", &(s)->window.nvtx, "NAME",                                   \
		   "only what was launched in the NVTX or annotation ranges named NAME (or "  \
		   "starting with it), e.g. --nvtx step"),                                    \
	OPT_BOOL(0, "no-progress", &(s)->no_progress, "no progress line while loading")
/* ... and the rules' thresholds: the commands that analyse it. */
#define CLI_SET_OPTION(s)                                                                  \
	OPT_CALLBACK(0, "set", &(s)->sets, "NAME=VALUE", cli_opt_set,                      \
		     "change a threshold of the rules (repeatable), e.g. --set "              \
		     "min_gain_pct=0.5 --set sync_gap_ns=50us; 'kgantt report "               \
		     "--list-thresholds' lists them")

struct job_args;

struct cli_session {
	const char *path;              /* the trace */
	struct kg_window window;
	struct cli_sets sets;
	int no_progress;
	int no_analysis;               /* the trace is shown without its findings */
	const char *steps_name;        /* --steps NAME: the annotation of a step */
	uint32_t step_from, step_to;   /* --steps N-M: those steps (1-based), 0 none */
	int whole_run;                 /* report --whole: findings of the whole run */
	int steps_rhythm;              /* report --rhythm: steps by the launches alone */
	int steady_cut;                /* report, plot: the trace cut to its steady steps and
					* analysed again (unless --whole or a window) */
	int steady_applied;            /* ... and it was: cut holds their window */
	int describe_empty;            /* a trace with nothing to show is described, not
					* refused (info says what it holds, or why nothing) */
	int keep_whole;                /* the whole trace beside the one cut to the window:
					* plot draws all that overlaps the window and marks
					* the findings of what was launched in it */
	struct kg_load_opts load;      /* set by the command when it needs more (threads) */
	struct job_args *job;          /* its job options (cli/job_session.h); NULL: none */
	/* after cli_session_open / cli_session_analyse: */
	struct kg_model m;             /* cut to the window */
	struct kg_model whole;         /* keep_whole with a window: the trace before the cut */
	struct kg_window_cut cut;
	struct kg_analysis a;          /* of m */
	int loaded, analysed, has_whole;
};

/* The trace as loaded, before the window (m itself when there was none to cut). */
static inline const struct kg_model *cli_session_whole(const struct cli_session *s)
{
	return s->has_whole ? &s->whole : &s->m;
}

struct job_session;
/* What a command shows from what the session read: its callbacks, as perf_tool's. Each
 * returns an exit code after any message. */
struct cli_show {
	/* optional: what the command refuses in a loaded trace, before it is analysed */
	int (*check)(struct cli_session *s, void *arg);
	int (*one)(struct cli_session *s, void *arg);        /* a trace, opened, analysed */
	int (*job)(const struct job_session *js, void *arg); /* a job, on MPI process 0 */
};

/* After the options, the traces (n >= 1, the operands): the first is s->path; with a
 * job's options (s->job), several or a folder make a job, and --full needs one. Then the
 * window's consistency. -1 to go on, or KG_EXIT_USAGE after the message. */
int cli_session_paths(struct cli_session *s, int n, char **paths);
/* The command's one call: for one trace, cli_session_open → show->check →
 * cli_session_analyse (unless no_analysis) → show->one → close; for a job, the job read
 * and analysed (job_session_open) → show->job. The exit code. */
int cli_session_run(struct cli_session *s, const struct cli_show *show, void *arg);
/* diff's: both traces opened and analysed with the same options (s[1]'s are s[0]'s), then
 * show(s, arg). */
int cli_session_pair(struct cli_session s[2], int (*show)(struct cli_session s[2], void *arg),
		     void *arg);

/* Load, check what the trace says about itself, cut to the window. KG_EXIT_OK, or the
 * exit code after the message (nothing is left open). */
int cli_session_open(struct cli_session *s);
/* The settings, then the analysis of the (windowed) model. KG_EXIT_OK, or
 * KG_EXIT_FAILURE after the message. */
int cli_session_analyse(struct cli_session *s);
void cli_session_close(struct cli_session *s);

/* The window that was cut, into a page's options (kg_report_opts, kg_view_opts: the same
 * field names), for the page's header. */
#define CLI_SESSION_WINDOW_INTO(o, s)                                  \
	do {                                                           \
		if ((s)->cut.windowed) {                               \
			(o)->windowed = 1;                             \
			(o)->window_nvtx = (s)->cut.nvtx;              \
			(o)->window_begin = (s)->cut.begin;            \
			(o)->window_end = (s)->cut.end;                \
			(o)->trace_begin = (s)->cut.trace_begin;       \
			(o)->trace_end = (s)->cut.trace_end;           \
		}                                                      \
	} while (0)

#endif
