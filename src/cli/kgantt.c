/* kgantt: the command line. Each subcommand lives in its own cmd_<name>.c; this file only
 * dispatches. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/outfile.h"

struct kg_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct kg_command commands[] = {
	{"record", cmd_record, "run a CUDA program and record what its GPUs did into a trace"},
	{"info", cmd_info, "say what a trace holds: processes, devices, counts, losses"},
	{"report", cmd_report,
	 "summarise a trace and diagnose its scheduling problems, ranked by what fixing them saves"},
	{"diff", cmd_diff,
	 "compare two traces: span, GPU time, findings resolved or new, kernels that changed"},
	{"plot", cmd_plot, "draw the schedule as a Gantt chart (PNG, SVG or PDF)"},
	{"dump", cmd_dump, "print the raw rows of a trace table"},
	{"view", cmd_view, "write an interactive HTML timeline (one self-contained file)"},
	{"import", cmd_import, "build a trace from recorder spools (after a crash, or by hand)"},
	{"export", cmd_export, "write a trace as Perfetto/Chrome JSON, CSV or SQLite"},
	{"merge", cmd_merge, "several traces (one per rank or host) into one"},
	{"pack", cmd_pack, "(re)build a trace's packed columns, which load several times faster"},
};

enum { OPT_FORCE = 600 };

int output_and_inputs(int argc, char **argv, const char *what, const char *inputs,
		      const char *input_what, void (*usage)(FILE *), const char **output,
		      int *quiet)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, OPT_FORCE},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	*output = NULL;
	optind = 1;
	*quiet = 0;
	while ((c = cli_getopt(what, argc, argv, "o:qh", longopts)) != -1) {
		switch (c) {
		case 'o': *output = optarg; break;
		case 'q': *quiet = 1; break;
		case OPT_FORCE: break; /* outputs are always replaced (README, "Outputs") */
		case 'h': usage(stdout); return finish_stdout(KG_EXIT_OK);
		default: return KG_EXIT_USAGE;
		}
	}
	if (!*output || optind >= argc) {
		kg_err("%s: %s", what, !*output ? "no output file (-o FILE)" : inputs);
		usage(stderr);
		return KG_EXIT_USAGE;
	}
	/* the output may replace a file, never one of the inputs; said before any work */
	for (int i = optind; i < argc; i++)
		outfile_protect(what, argv[i], input_what);
	char err[PATH_MAX + 512];
	struct kg_outfile_opts oo = {.what = "the trace", .flags = KG_OUT_REGULAR};
	if (outfile_check(*output, &oo, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return -1;
}

void kg_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("kgantt: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void kg_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("kgantt: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	/* ':' after a leading '+': a missing value comes back as ':', told apart */
	char opts[64];
	int plus = shortopts[0] == '+';
	snprintf(opts, sizeof(opts), "%s:%s", plus ? "+" : "", shortopts + plus);
	opterr = 0;
	int c = getopt_long(argc, argv, opts, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	if (c == ':')
		kg_err("%s: option '%s' needs a value (see kgantt %s --help)", cmd, arg, cmd);
	else if (optopt == 'f')
		kg_err("%s: unknown option '-f': -f is --format, in the commands that write a "
		       "format (export, plot); outputs are always replaced, so no force is needed "
		       "(see kgantt %s --help)", cmd, cmd);
	else if (optopt && !(arg[0] == '-' && arg[1] == '-'))
		kg_err("%s: unknown option '-%c' (see kgantt %s --help)", cmd, optopt, cmd);
	else
		kg_err("%s: unknown option '%s' (see kgantt %s --help)", cmd, arg, cmd);
	return '?';
}

int finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		kg_err("cannot write to standard output");
		return KG_EXIT_FAILURE;
	}
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: kgantt <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'kgantt <command> --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return KG_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish_stdout(KG_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kgantt %s\n", KGANTT_VERSION);
		return finish_stdout(KG_EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	kg_err("'%s' is not a kgantt command", argv[1]);
	usage(stderr);
	return KG_EXIT_USAGE;
}
