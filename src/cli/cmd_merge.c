/* kgantt merge: several kgantt traces (one per rank, per host, per run) into one, so that
 * report, plot and view see every process and GPU of the job together. */

#include <getopt.h> /* optind */

#include "cli/cli.h"
#include "trace/merge.h"

static const char *const usage_lines[] = {"merge -o OUTPUT [options] TRACE...", NULL};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Writes one kgantt trace with every process of the TRACEs (e.g. the files of\n"
		 "'kgantt record -o run_%h_%q{RANK}.kgt', one per rank). Process numbers and\n"
		 "strings are renumbered; processes of other hosts are moved onto the first\n"
		 "host's clock through their realtime offsets (as precise as NTP). Other formats:\n"
		 "'kgantt export --format sqlite' them first.\n",
};

int cmd_merge(int argc, char **argv)
{
	const char *output = NULL;
	int quiet = 0;
	const struct cli_option opts[] = {
		CLI_OUTPUT_OPTIONS(&output, &quiet, "TRACEs"),
		OPT_END(),
	};
	int rc = cli_parse(&usage, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if ((rc = output_and_inputs(output, argc, argv, "no trace to merge", "an input trace")))
		return rc;
	char err[1024];
	struct kg_merge_stats st;
	if (trace_merge(output, (const char *const *)argv + optind, argc - optind, &st, err,
			sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	if (quiet)
		return KG_EXIT_OK;
	fprintf(stderr, "kgantt: %s: %d traces, %d processes on %d host(s)", output, argc - optind,
		st.processes, st.hosts);
	if (st.shifted_hosts)
		fprintf(stderr, "; %d host(s) moved onto the first host's clock", st.shifted_hosts);
	if (st.unaligned)
		fprintf(stderr, "; %d process(es) without a realtime offset left on their own clock",
			st.unaligned);
	fputc('\n', stderr);
	return KG_EXIT_OK;
}
