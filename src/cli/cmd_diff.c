/* kgantt diff: two traces of the same program (before and after a change, two runs, two
 * ranks) compared: span, GPU time, idle time by cause, findings resolved or new, kernels
 * by change in total time. Any format kgantt reads, on either side. */
#include <errno.h>
#include <getopt.h> /* optind */
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "report/diff.h"

struct diff_args {
	int json, top;
	double fail_slower;    /* percent; < 0: never */
	struct cli_session s[2]; /* BEFORE, AFTER: the same window and --set on both */
};

static const char *const usage_lines[] = {"diff [options] BEFORE AFTER", NULL};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Compares two traces (kgantt, PyTorch profiler JSON or Nsight Systems SQLite):\n"
		 "the span, GPU busy and idle time by cause, the findings resolved, new or\n"
		 "changed, and the kernels whose total time changed most. The window and the\n"
		 "thresholds apply to both traces.\n",
	.footer = "Exit status: 0; 1 bad input; 2 bad command line; 3 --fail-slower triggered.\n",
};

/* --fail-slower PCT (an options.h callback: opt->value is the double). */
static int take_percent(const struct cli_option *opt, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || *end || end == arg || !(v >= 0)) {
		kg_err("--fail-slower: '%s' is not a percentage", arg);
		return KG_EXIT_USAGE;
	}
	*(double *)opt->value = v;
	return -1;
}

static int diff_show(struct cli_session s[2], void *arg)
{
	const struct diff_args *d = arg;
	const char *before = s[0].path, *after = s[1].path;
	const struct kg_analysis *a0 = &s[0].a, *a1 = &s[1].a;
	struct kg_diff diff = {0};
	if (diff_compute(a0, a1, before, after, &diff) < 0) {
		kg_err("out of memory comparing '%s' and '%s'", before, after);
		diff_free(&diff);
		return KG_EXIT_FAILURE;
	}
	struct kg_diff_opts o = {.top = d->top, .color = 0};
	int rc = (d->json ? diff_json(stdout, &diff) : diff_text(stdout, &diff, &o)) < 0
			 ? KG_EXIT_FAILURE : KG_EXIT_OK;
	rc = finish_stdout(rc);
	if (rc == KG_EXIT_OK && d->fail_slower >= 0 && a0->span > 0 &&
	    (double)a1->span > (double)a0->span * (1.0 + d->fail_slower / 100.0)) {
		kg_err("'%s' is %.1f%% slower than '%s' (more than --fail-slower %g%%)", after,
		       100.0 * (double)(a1->span - a0->span) / (double)a0->span, before,
		       d->fail_slower);
		rc = KG_EXIT_FINDINGS;
	}
	diff_free(&diff);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args d = {.top = 10, .fail_slower = -1};
	const struct cli_option opts[] = {
		OPT_BOOL(0, "json", &d.json, "the comparison as JSON (docs/diff.md)"),
		OPT_COUNT(0, "top", &d.top, "N", 1000000,
			  "kernel names shown (default 10; 0 = all; JSON: all)"),
		CLI_WINDOW_OPTIONS(&d.s[0]),
		CLI_SET_OPTION(&d.s[0]),
		OPT_CALLBACK(0, "fail-slower", &d.fail_slower, "PCT", take_percent,
			     "exit 3 when AFTER's span is more than PCT % longer than BEFORE's (for "
			     "CI)"),
		OPT_END(),
	};
	int rc = cli_parse(&usage, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (argc - optind != 2)
		return cli_usage_error("%s", argc - optind < 2 ? "two traces needed: BEFORE AFTER"
							: "only two traces: BEFORE AFTER");
	if ((rc = cli_session_paths(&d.s[0], 1, argv + optind)) >= 0)
		return rc;
	d.s[1] = d.s[0];
	d.s[1].path = argv[optind + 1];
	return cli_session_pair(d.s, diff_show, &d);
}
