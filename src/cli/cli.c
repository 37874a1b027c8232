/* What every command shares to talk to the user: one voice for messages, which name the
 * command (set once by the dispatch), and one decision on colour. */
#include <getopt.h> /* optind */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/job_mpi.h"
#include "util/outfile.h"

static const char *command;

/* The first error of this thread, kept for the caller that asked (kg_err_keep). */
static _Thread_local char *kept;
static _Thread_local size_t kept_len;

void cli_set_command(const char *name)
{
	command = name;
}

const char *cli_command(void)
{
	return command ? command : "kgantt";
}

static void say(const char *kind, const char *fmt, va_list ap)
{
	/* one fprintf: lines of worker threads stay whole */
	char text[8192];
	vsnprintf(text, sizeof(text), fmt, ap);
	if (command)
		fprintf(stderr, "kgantt: %s: %s%s\n", command, kind, text);
	else
		fprintf(stderr, "kgantt: %s%s\n", kind, text);
	if (kept && !*kept && !*kind)
		snprintf(kept, kept_len, "%s", text);
}

void kg_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

void kg_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say("warning: ", fmt, ap);
	va_end(ap);
}

void kg_err_keep(char *buf, size_t len)
{
	kept = buf;
	kept_len = len;
	if (buf)
		buf[0] = '\0';
}

int finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		kg_err("cannot write to standard output");
		return KG_EXIT_FAILURE;
	}
	return rc;
}

int output_and_inputs(const char *output, int argc, char **argv, const char *inputs,
		      const char *input_what)
{
	if (!output)
		return cli_usage_error("no output file (-o FILE)");
	if (optind >= argc)
		return cli_usage_error("%s", inputs);
	/* the output may replace a file, never one of the inputs; said before any work */
	for (int i = optind; i < argc; i++)
		outfile_protect(argv[i], input_what);
	char err[PATH_MAX + 512];
	struct kg_outfile_opts oo = {.what = "the trace", .flags = KG_OUT_REGULAR};
	if (outfile_check(output, &oo, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

const char *const cli_color_names[] = {"auto", "never", "always", NULL};

/* A process started by a launcher (mpirun, srun): Open MPI gives its ranks a pseudo
 * terminal, so stdout looks like one while `mpirun ... > job.txt` writes a file. */
static int under_launcher(void)
{
	return job_mpi_launched() || getenv("SLURM_PROCID");
}

int cli_color(int mode)
{
	if (mode != CLI_COLOR_AUTO)
		return mode == CLI_COLOR_ALWAYS;
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	if (no && *no) /* no-color.org: set and not empty */
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return !under_launcher() && isatty(STDOUT_FILENO);
}
