/* Shared by the subcommands: one function per command (cmd_<name>.c), the dispatch table
 * in kgantt.c. Only this layer prints to the user and picks exit codes. */
#ifndef KGANTT_CLI_H
#define KGANTT_CLI_H

#include <stdio.h>

#include "cli/options.h"
#include "util/format.h"

/* Exit codes, documented in README.md. */
enum {
	KG_EXIT_OK = 0,
	KG_EXIT_FAILURE = 1,  /* bad input, I/O error, nothing recorded */
	KG_EXIT_USAGE = 2,    /* wrong command line */
	KG_EXIT_FINDINGS = 3, /* report --fail-on: a finding at or above the severity;
			       diff --fail-slower: the second trace is slower */
};

int cmd_record(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_merge(int argc, char **argv);

/* The command being run ("report"), named once by the dispatch (kgantt.c): every message
 * says it, "kgantt: report: cannot open 'x.kgt': No such file or directory". */
void cli_set_command(const char *name);
const char *cli_command(void); /* "kgantt" before one is known */
void kg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The first error this thread says from now on is also kept in buf (without "kgantt:
 * CMD: "), as the job report lists why a trace was left out; NULL stops keeping. */
void kg_err_keep(char *buf, size_t len);
/* Flushes stdout and reports a failed write (full disk, closed pipe) as an error. */
int finish_stdout(int rc);

/* --color=auto|never|always (the index in cli_color_names), and whether text written to
 * stdout gets ANSI colour: always or never as told; auto: only when stdout is the user's
 * terminal, so neither with NO_COLOR set, TERM=dumb, nor under an MPI launcher or srun
 * (their ranks' stdout is a pseudo terminal while the user's output goes to a file). */
enum { CLI_COLOR_AUTO, CLI_COLOR_NEVER, CLI_COLOR_ALWAYS };
extern const char *const cli_color_names[];
int cli_color(int mode);
#define OPT_COLOR(v)                                                                       \
	OPT_CHOICE(0, "color", v, "WHEN", cli_color_names, "a colour choice",               \
		   "colour the text: auto (default: only on a terminal, not under mpirun or "  \
		   "srun, not with NO_COLOR set), never, always")

/* "-o FILE [-q] INPUT..." for commands that write one file from several inputs (import,
 * merge), after their options: KG_EXIT_OK when the output and inputs are there (inputs
 * names what is missing when there is none: "no trace to merge"), each input protected
 * (util/outfile.h: input_what names one, "an input trace") and the output checked before
 * any work; or an exit code after the message. */
int output_and_inputs(const char *output, int argc, char **argv, const char *inputs,
		      const char *input_what);
/* Their options: -o FILE (inputs names the inputs in its help: "TRACEs"), --force, -q. */
#define CLI_OUTPUT_OPTIONS(output, quiet, inputs)                                          \
	OPT_STRING('o', "output", output, "FILE",                                          \
		   "trace to write; replaced if it exists, never one of the " inputs          \
		   " (written beside it and renamed when complete)"),                        \
	OPT_BOOL(0, "force", NULL, "accepted for older scripts; changes nothing"),         \
	OPT_BOOL('q', "quiet", quiet, "print nothing but errors")

#endif
