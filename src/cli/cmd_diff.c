/* kgantt diff: two traces of the same program (before and after a change, two runs, two
 * ranks) compared: span, GPU time, idle time by cause, findings resolved or new, kernels
 * by change in total time. Any format kgantt reads, on either side. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "cli/settings.h"
#include "cli/trace_load.h"
#include "cli/window.h"
#include "model/load.h"
#include "report/diff.h"

struct diff_args {
	int json, top;
	double fail_slower;    /* percent; < 0: never */
	struct cli_session s[2]; /* BEFORE, AFTER: the same window and --set on both */
};

static void diff_usage(FILE *f)
{
	fprintf(f,
		"usage: kgantt diff [options] BEFORE AFTER\n"
		"\n"
		"Compares two traces (kgantt, PyTorch profiler JSON or Nsight Systems SQLite):\n"
		"the span, GPU busy and idle time by cause, the findings resolved, new or\n"
		"changed, and the kernels whose total time changed most.\n"
		"\n"
		"options:\n"
		"      --json               the comparison as JSON (docs/diff.md)\n"
		"      --top N              kernel names shown (default 10; 0 = all; JSON: all)\n"
		"      --from T, --to T     compare only this window of each trace (time after\n"
		"                           its start: 120, 120ms, 1.5s, 250us)\n"
		"      --nvtx NAME          compare only the ranges named NAME (or starting with\n"
		"                           it) in each trace, e.g. --nvtx ProfilerStep\n"
		"      --set NAME=VALUE     a threshold of the rules, on both sides (kgantt report\n"
		"                           --list-thresholds)\n"
		"      --fail-slower PCT    exit 3 when AFTER's span is more than PCT %% longer\n"
		"                           than BEFORE's (for CI)\n"
		"  -h, --help               this text\n"
		"\n"
		"Exit status: 0; 1 bad input; 2 bad command line; 3 --fail-slower triggered.\n");
}

enum { OPT_JSON = 256, OPT_TOP, OPT_FAIL };

static int take_option(int c, const char *arg, struct diff_args *d)
{
	char *end;
	int shared = cli_session_option(&d->s[0], c, arg); /* copied to s[1] after parsing */
	if (shared != CLI_NOT_MINE)
		return shared;
	switch (c) {
	case OPT_JSON: d->json = 1; return -1;
	case OPT_TOP:
		errno = 0;
		d->top = (int)strtol(arg, &end, 10);
		if (errno || *end || d->top < 0) {
			kg_err("--top: '%s' is not a count", arg);
			return KG_EXIT_USAGE;
		}
		return -1;
	case OPT_FAIL:
		errno = 0;
		d->fail_slower = strtod(arg, &end);
		if (errno || *end || end == arg || d->fail_slower < 0) {
			kg_err("--fail-slower: '%s' is not a percentage", arg);
			return KG_EXIT_USAGE;
		}
		return -1;
	case 'h': diff_usage(stdout); return finish_stdout(KG_EXIT_OK);
	default: return KG_EXIT_USAGE; /* cli_getopt said why */
	}
}

static int parse_args(int argc, char **argv, struct diff_args *d)
{
	static const struct option longopts[] = {
		CLI_SESSION_OPTIONS,
		{"json", no_argument, NULL, OPT_JSON},
		{"top", required_argument, NULL, OPT_TOP},
		{"fail-slower", required_argument, NULL, OPT_FAIL},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;
	optind = 1;
	while ((c = cli_getopt("diff", argc, argv, "h", longopts)) != -1)
		if ((rc = take_option(c, optarg, d)) >= 0)
			return rc;
	if (argc - optind != 2) {
		kg_err("diff: %s", argc - optind < 2 ? "two traces needed: BEFORE AFTER"
						     : "only two traces: BEFORE AFTER");
		diff_usage(stderr);
		return KG_EXIT_USAGE;
	}
	d->s[1] = d->s[0];
	d->s[0].path = argv[optind];
	d->s[1].path = argv[optind + 1];
	return cli_session_check(&d->s[0]);
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args d = {.top = 10, .fail_slower = -1, .s = {{.cmd = "diff"}}};
	int rc = parse_args(argc, argv, &d);
	if (rc >= 0)
		return rc;
	const char *before = d.s[0].path, *after = d.s[1].path;
	rc = KG_EXIT_OK;
	for (int i = 0; rc == KG_EXIT_OK && i < 2; i++) {
		rc = cli_session_open(&d.s[i]);
		if (rc == KG_EXIT_OK)
			rc = cli_session_analyse(&d.s[i]);
	}
	const struct kg_analysis *a0 = &d.s[0].a, *a1 = &d.s[1].a;
	struct kg_diff diff = {0};
	if (rc == KG_EXIT_OK && diff_compute(a0, a1, before, after, &diff) < 0) {
		kg_err("out of memory comparing '%s' and '%s'", before, after);
		rc = KG_EXIT_FAILURE;
	}
	if (rc == KG_EXIT_OK) {
		struct kg_diff_opts o = {.top = d.top, .color = 0};
		if ((d.json ? diff_json(stdout, &diff) : diff_text(stdout, &diff, &o)) < 0)
			rc = KG_EXIT_FAILURE;
		rc = finish_stdout(rc);
		if (rc == KG_EXIT_OK && d.fail_slower >= 0 && a0->span > 0 &&
		    (double)a1->span > (double)a0->span * (1.0 + d.fail_slower / 100.0)) {
			kg_err("'%s' is %.1f%% slower than '%s' (more than --fail-slower %g%%)", after,
			       100.0 * (double)(a1->span - a0->span) / (double)a0->span, before,
			       d.fail_slower);
			rc = KG_EXIT_FINDINGS;
		}
	}
	diff_free(&diff);
	cli_session_close(&d.s[0]);
	cli_session_close(&d.s[1]);
	return rc;
}
