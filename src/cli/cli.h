/* Shared by the subcommands: one function per command (cmd_<name>.c), the dispatch table
 * in kgantt.c. Only this layer prints to the user and picks exit codes. */
#ifndef KGANTT_CLI_H
#define KGANTT_CLI_H

#include <stdio.h>

#include "text/format.h"

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

void kg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "-o FILE [-f] [-q] INPUT..." for commands that write one file from several inputs (import,
 * merge): -1 with *output set and optind at the first input, or an exit code after a
 * message (what names the command, inputs what it says when there is no input). Each
 * input is protected (util/outfile.h: input_what names one, "an input trace"), and
 * the output checked, before any work. -f is accepted and changes nothing: an output is
 * always replaced (README, "Outputs"). */
int output_and_inputs(int argc, char **argv, const char *what, const char *inputs,
		      const char *input_what, void (*usage)(FILE *), const char **output,
		      int *quiet);
/* getopt_long for command cmd, one way for all: the options as getopt_long returns them,
 * -1 at the end, and '?' for a wrong option after one line about it ("kgantt: report:
 * unknown option '--jsn' (see kgantt report --help)", or that an option needs a value),
 * never the whole help; the caller then exits KG_EXIT_USAGE. */
struct option;
int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);
/* Flushes stdout and reports a failed write (full disk, closed pipe) as an error. */
int finish_stdout(int rc);

#endif
