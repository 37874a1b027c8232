/* What every command that reads a trace shares, as git's RUN_SETUP is for its commands:
 *  - the options: --from/--to/--nvtx (the window), --set (the rules' thresholds),
 *    --no-progress; CLI_SESSION_OPTIONS goes into a command's getopt table and
 *    cli_session_option takes them;
 *  - one path: load (with a progress line on a terminal) → what the trace says about
 *    itself (refused, truncated: cli/trace_load.c) → the window (cli/window.c) → the
 *    settings (cli/settings.c) → the analysis, each failure said once, the same way.
 * report, view, export and diff open their traces through it; plot keeps the whole
 * trace beside its window and uses the pieces. */
#ifndef KGANTT_CLI_SESSION_H
#define KGANTT_CLI_SESSION_H

#include <getopt.h>

#include "analysis/analysis.h"
#include "cli/settings.h"
#include "cli/window.h"
#include "model/load.h"

enum {
	CLI_OPT_FROM = 900, CLI_OPT_TO, CLI_OPT_NVTX, CLI_OPT_SET, CLI_OPT_NO_PROGRESS,
	CLI_NOT_MINE = -2, /* cli_session_option: not a shared option */
};

/* Loading and the window: every command that reads a trace. */
#define CLI_SESSION_LOAD_OPTIONS                                                  \
	{"from", required_argument, NULL, CLI_OPT_FROM},                          \
	{"to", required_argument, NULL, CLI_OPT_TO},                              \
	{"nvtx", required_argument, NULL, CLI_OPT_NVTX},                          \
	{"no-progress", no_argument, NULL, CLI_OPT_NO_PROGRESS}
/* ... and the rules' thresholds: the commands that analyse it. */
#define CLI_SESSION_OPTIONS                                                       \
	CLI_SESSION_LOAD_OPTIONS, {"set", required_argument, NULL, CLI_OPT_SET}

/* The --help lines of the shared options, for each command's usage text. */
#define CLI_SESSION_HELP                                                                   \
	"      --from T, --to T     only this window (time after the trace begin: 120,\n"     \
	"                           120ms, 1.5s, 250us)\n"                                    \
	"      --nvtx NAME          only the window of the NVTX ranges named NAME (or\n"      \
	"                           starting with it), e.g. --nvtx step\n"                    \
	"      --set NAME=VALUE     a threshold of the rules (kgantt report\n"                \
	"                           --list-thresholds)\n"                                     \
	"      --no-progress        no progress line while loading\n"

struct cli_session {
	const char *cmd;               /* "report": names the command in every message */
	const char *path;              /* the trace */
	struct kg_window window;
	struct cli_sets sets;
	int no_progress;
	struct kg_load_opts load;      /* set by the command when it needs more (threads) */
	/* after cli_session_open / cli_session_analyse: */
	struct kg_model m;
	struct kg_window_cut cut;
	struct kg_analysis a;
	int loaded, analysed;
};

/* One option of CLI_SESSION_OPTIONS: -1 taken, KG_EXIT_USAGE after saying why, or
 * CLI_NOT_MINE for the command's own options. */
int cli_session_option(struct cli_session *s, int c, const char *arg);
/* After the options: the window's consistency. -1 fine, else KG_EXIT_USAGE. */
int cli_session_check(const struct cli_session *s);
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
