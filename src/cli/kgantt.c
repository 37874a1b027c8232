/* kgantt: the command line. Each subcommand lives in its own cmd_<name>.c; this file only
 * dispatches. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

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
		if (!strcmp(argv[1], commands[i].name)) {
			cli_set_command(commands[i].name);
			return commands[i].fn(argc - 1, argv + 1);
		}
	kg_err("'%s' is not a kgantt command", argv[1]);
	usage(stderr);
	return KG_EXIT_USAGE;
}
