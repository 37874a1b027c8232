/* kgantt report: load a trace of any supported format, measure it, run the rules, and
 * print a page (or JSON) that ends with the scheduling problems ranked by what fixing
 * them would save. --fail-on turns findings into an exit status for CI gates. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "cli/report_job.h"
#include "cli/session.h"
#include "cli/settings.h"
#include "cli/shows.h"
#include "cli/trace_load.h"
#include "cli/window.h"
#include "model/load.h"
#include "report/report.h"

#define TEXT_TOP 10      /* kernel names on the text page unless --top */
#define FINDING_SITES 3  /* call sites under each finding unless --finding-sites */

struct report_args {
	int json, list;
	int top;               /* -1: not given (10 in text, all in JSON) */
	int sites;             /* rows of the call-site table, 0 none */
	int finding_sites;     /* call sites under each finding */
	int fail_on;           /* a severity, -1: never fail on findings */
	struct job_args job;   /* several traces, a folder, or --job: the job report */
	struct cli_session s;  /* the trace, --from/--to/--nvtx, --set, --no-progress */
};

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: kgantt report [options] TRACE\n"
		"       kgantt report [options] TRACE TRACE... | FOLDER   (a job: one trace per rank)\n"
		"\n"
		"Summarises a trace (kgantt, PyTorch profiler JSON, or Nsight Systems SQLite\n"
		"export): GPU busy time and overlap, streams, the kernels that take the most\n"
		"time, and the scheduling problems found, ranked by the time fixing them saves.\n"
		"\n"
		"  --json                  the same content as JSON on stdout (docs/report.md)\n"
		"  --top N                 kernel names shown (default 10 in text, all in JSON;\n"
		"                          0 = all)\n"
		"  --set NAME=VALUE        change a rule threshold (repeatable), e.g.\n"
		"                          --set min_gain_pct=0.5 --set sync_gap_ns=50us\n"
		"  --list-thresholds       list the thresholds, their defaults and meanings\n"
		"  --sites                 a table of the call sites (file:line, operator, API\n"
		"                          call) ranked by the gain of the findings they cause\n"
		"  --finding-sites N       call sites shown under each finding (default 3)\n"
		"  --fail-on SEVERITY      exit 3 when a finding of SEVERITY or worse exists\n"
		"                          (info, warning, critical)\n"
		"  --from T, --to T        only what was launched in this window, T after the\n"
		"                          trace begin (ms, or with a unit: 250us, 1.5s)\n"
		"  --nvtx NAME             only what was launched in the NVTX or annotation\n"
		"                          ranges named NAME (or starting with it: ProfilerStep)\n"
		"  --no-progress           no progress line while loading\n"
		"  -h, --help              this help\n"
		"\n"
		"A job (several traces, a folder of them, or --job for one trace of several\n"
		"ranks): a table of the ranks, stragglers at collectives by rank and step, slow\n"
		"and overloaded ranks, kernel-count mismatches (docs/job.md). Under mpirun or\n"
		"srun the traces are shared out among the MPI processes.\n"
		"  --job                   the job report of a single trace\n"
		"  --ranks EXPR            ranks shown in the table: 3, 0-7,12, 100-\n"
		"  --sort KEY              late (default), idle, busy, slow, rank\n"
		"  --top N                 ranks in the table (default 16 in text; 0 = all)\n"
		"  --steps NAME            the NVTX/annotation ranges that are steps (default:\n"
		"                          ProfilerStep, train_step or step, the first found)\n"
		"  -j, --jobs N            threads reading traces (default: every core)\n"
		"\n"
		"Exit status: 0 ok, 1 bad input, 2 wrong command line, 3 --fail-on triggered.\n");
}

/* "  name  default  range  meaning", the meaning wrapped under itself within 100 columns. */
static void threshold_line(const char *name, const char *value, const char *range,
			   const char *what, void *arg)
{
	enum { HANG = 54, ROOM = 100 - HANG };
	printf("  %-24s %-10s %-15s ", name, value, range);
	while (strlen(what) > ROOM) {
		int cut = ROOM;
		while (cut > 0 && what[cut] != ' ')
			cut--;
		if (cut == 0)
			break;
		printf("%.*s\n%*s", cut, what, HANG, "");
		what += cut + 1;
	}
	printf("%s\n", what);
}

static int list_thresholds(void)
{
	printf("thresholds (change with --set NAME=VALUE; durations take ns, us, ms, s):\n");
	printf("  %-24s %-10s %-15s %s\n", "name", "default", "range", "meaning");
	analysis_config_describe(threshold_line, NULL);
	return finish_stdout(KG_EXIT_OK);
}

static int parse_severity(const char *s)
{
	enum kg_severity sev = severity_by_name(s);
	return sev < KG_SEV_COUNT ? (int)sev : -1;
}

/* A time after the trace begin: "120" (ms, as the report prints times), "120ms", "1.5s",
 * "250us", "800ns". */

enum { OPT_JSON = 256, OPT_LIST, OPT_TOP, OPT_FAIL, OPT_SITES, OPT_FINDING_SITES };

/* One option: -1 to go on, or the exit code when it ends the command. */
static int take_option(int c, const char *arg, struct report_args *r)
{
	char *end;
	int shared = cli_session_option(&r->s, c, arg);
	if (shared == CLI_NOT_MINE)
		shared = job_option(&r->job, c, arg);
	if (shared != CLI_NOT_MINE)
		return shared;
	switch (c) {
	case OPT_JSON: r->json = 1; return -1;
	case OPT_LIST: r->list = 1; return -1;
	case OPT_SITES: r->sites = 20; return -1;
	case OPT_TOP:
	case OPT_FINDING_SITES: {
		long n = strtol(arg, &end, 10);
		if (!*arg || *end || n < 0 || n > 1000000) {
			kg_err("%s: '%s' is not a count", c == OPT_TOP ? "--top" : "--finding-sites",
			       arg);
			return KG_EXIT_USAGE;
		}
		*(c == OPT_TOP ? &r->top : &r->finding_sites) = (int)n;
		return -1;
	}
	case OPT_FAIL:
		r->fail_on = parse_severity(arg);
		if (r->fail_on < 0) {
			kg_err("--fail-on: '%s' is not a severity (info, warning, critical)", arg);
			return KG_EXIT_USAGE;
		}
		return -1;
	case 'h': report_usage(stdout); return finish_stdout(KG_EXIT_OK);
	default: return KG_EXIT_USAGE; /* cli_getopt said why */
	}
}

/* -1 to go on, or the exit code when parsing ends the command (help, a usage error). */
static int parse_args(int argc, char **argv, struct report_args *r)
{
	static const struct option longopts[] = {
		CLI_SESSION_OPTIONS,
		{"json", no_argument, NULL, OPT_JSON},
		{"list-thresholds", no_argument, NULL, OPT_LIST},
		{"top", required_argument, NULL, OPT_TOP},
		{"fail-on", required_argument, NULL, OPT_FAIL},
		{"sites", no_argument, NULL, OPT_SITES},
		{"finding-sites", required_argument, NULL, OPT_FINDING_SITES},
		JOB_SESSION_OPTIONS,
		JOB_RANKS_OPTION,
		JOB_SORT_OPTION,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;
	optind = 1;
	while ((c = cli_getopt("report", argc, argv, "hj:", longopts)) != -1)
		if ((rc = take_option(c, optarg, r)) >= 0)
			return rc;
	if (r->list)
		return -1;
	if ((rc = cli_session_check(&r->s)) >= 0)
		return rc;
	if (optind == argc) {
		kg_err("report: no trace given");
		report_usage(stderr);
		return KG_EXIT_USAGE;
	}
	r->s.path = argv[optind];
	return job_args_take_paths("report", &r->job, argc, argv);
}

/* ---------------------------------------------------------------- the command */

static int use_color(void)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");
	if (no && *no) /* no-color.org: set and not empty */
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return isatty(STDOUT_FILENO);
}

static int worst_severity(const struct kg_analysis *a)
{
	int worst = -1;
	for (uint32_t i = 0; i < a->findings.n; i++)
		if ((int)a->findings.v[i].severity > worst)
			worst = (int)a->findings.v[i].severity;
	return worst;
}

int cmd_report(int argc, char **argv)
{
	struct report_args r = {.top = -1, .fail_on = -1, .finding_sites = FINDING_SITES,
				.s = {.cmd = "report"}};
	int rc = parse_args(argc, argv, &r);
	if (rc >= 0)
		return rc;
	if (r.list)
		return list_thresholds();
	if (r.job.job) {
		struct report_job_opts jo = {
			.args = &r.job, .json = r.json, .top = r.top, .fail_on = r.fail_on,
			.color = !r.json && use_color(), .session = &r.s,
		};
		return report_job(&jo);
	}
	struct kg_report_opts o = {
		.top = r.top >= 0 ? r.top : r.json ? 0 : TEXT_TOP,
		.sites = r.sites,
		.finding_sites = r.finding_sites,
		.color = !r.json && use_color(),
		.overrides = r.s.sets.v,
		.n_overrides = r.s.sets.n,
	};
	if ((rc = cli_session_open(&r.s)) != KG_EXIT_OK)
		return rc;
	CLI_SESSION_WINDOW_INTO(&o, &r.s);
	if ((rc = cli_session_analyse(&r.s)) != KG_EXIT_OK) {
		cli_session_close(&r.s);
		return rc;
	}
	const struct kg_analysis *a = &r.s.a;
	int wrc = r.json ? report_json(stdout, a, &o) : report_text(stdout, a, &o);
	rc = KG_EXIT_OK;
	if (r.fail_on >= 0 && worst_severity(a) >= r.fail_on) {
		kg_err("'%s' has findings of severity '%s' or worse (--fail-on)", r.s.path,
		       severity_name((enum kg_severity)r.fail_on));
		rc = KG_EXIT_FINDINGS;
	}
	cli_session_close(&r.s);
	if (wrc == -ENOMEM) {
		kg_err("out of memory writing the report");
		return KG_EXIT_FAILURE;
	}
	/* a failed write (full disk, closed pipe) wins over --fail-on: the report is lost */
	return finish_stdout(rc);
}

int report_show(const struct kg_analysis *a)
{
	struct kg_report_opts o = {
		.top = TEXT_TOP, .finding_sites = FINDING_SITES, .color = use_color(),
	};
	if (report_text(stdout, a, &o) == -ENOMEM) {
		kg_err("out of memory writing the report");
		return KG_EXIT_FAILURE;
	}
	return finish_stdout(KG_EXIT_OK);
}
