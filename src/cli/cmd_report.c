/* kgantt report: load a trace of any supported format, measure it, run the rules, and
 * print a page (or JSON) that ends with the scheduling problems ranked by what fixing
 * them would save. --fail-on turns findings into an exit status for CI gates. */
#include <errno.h>
#include <getopt.h> /* optind */
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "cli/job_session.h"
#include "cli/report_job.h"
#include "cli/session.h"
#include "cli/shows.h"
#include "report/report.h"

#define TEXT_TOP 10      /* kernel names on the text page unless --top */
#define FINDING_SITES 3  /* call sites under each finding unless --finding-sites */
#define SITES_ROWS 20    /* rows of the --sites table */

struct report_args {
	int json, list, sites, host, steps;
	int top;               /* -1: not given (10 in text, all in JSON) */
	int finding_sites;     /* call sites under each finding */
	int fail_on;           /* a severity, -1: never fail on findings */
	int color;             /* --color: CLI_COLOR_AUTO, _NEVER, _ALWAYS */
	struct job_args job;   /* several traces, a folder, or --job: the job report */
	struct cli_session s;  /* the trace, --from/--to/--nvtx, --set, --no-progress */
};

/* What a report is without options: cmd_report and report_show (record --report). */
#define REPORT_DEFAULTS {.top = -1, .fail_on = -1, .finding_sites = FINDING_SITES}

static const char *const usage_lines[] = {
	"report [options] TRACE",
	"report [options] TRACE... | FOLDER   (a job: one trace per rank)",
	NULL,
};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Summarises a trace (kgantt, PyTorch profiler JSON, or Nsight Systems SQLite\n"
		 "export): GPU busy time and overlap, streams, the kernels that take the most\n"
		 "time, and the scheduling problems found, ranked by the time fixing them saves.\n",
	.footer = "Exit status: 0 ok, 1 bad input, 2 wrong command line, 3 --fail-on triggered.\n",
};

static const char *const severities[] = {
#define SEVERITY_NAME_(id, name) name,
	KG_SEVERITIES(SEVERITY_NAME_)
#undef SEVERITY_NAME_
	NULL,
};

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

/* ---------------------------------------------------------------- what it shows */

static int worst_severity(const struct kg_analysis *a)
{
	int worst = -1;
	for (uint32_t i = 0; i < a->findings.n; i++)
		if ((int)a->findings.v[i].severity > worst)
			worst = (int)a->findings.v[i].severity;
	return worst;
}

/* The page (or JSON) of one trace, then --fail-on. */
static int report_one(struct cli_session *s, void *arg)
{
	const struct report_args *r = arg;
	const struct kg_analysis *a = &s->a;
	struct kg_report_opts o = {
		.top = r->top >= 0 ? r->top : r->json ? 0 : TEXT_TOP,
		.sites = r->sites ? SITES_ROWS : 0,
		.host = r->host,
		.finding_sites = r->finding_sites,
		.color = !r->json && cli_color(r->color),
		.steps = r->steps,
		.overrides = s->sets.v,
		.n_overrides = s->sets.n,
	};
	CLI_SESSION_WINDOW_INTO(&o, s);
	int wrc = r->json ? report_json(stdout, a, &o) : report_text(stdout, a, &o);
	int rc = KG_EXIT_OK;
	if (r->fail_on >= 0 && worst_severity(a) >= r->fail_on) {
		kg_err("'%s' has findings of severity '%s' or worse (--fail-on)", s->path,
		       severity_name((enum kg_severity)r->fail_on));
		rc = KG_EXIT_FINDINGS;
	}
	if (wrc == -ENOMEM) {
		kg_err("out of memory writing the report");
		return KG_EXIT_FAILURE;
	}
	/* a failed write (full disk, closed pipe) wins over --fail-on: the report is lost */
	return finish_stdout(rc);
}

static int report_of_job(const struct job_session *js, void *arg)
{
	const struct report_args *r = arg;
	struct report_job_opts o = {.json = r->json, .top = r->top, .fail_on = r->fail_on,
				    .color = !r->json && cli_color(r->color)};
	return report_job(js, &o);
}

int report_show(struct cli_session *s, int color)
{
	struct report_args r = REPORT_DEFAULTS;
	r.color = color;
	return report_one(s, &r);
}

int cmd_report(int argc, char **argv)
{
	struct report_args r = REPORT_DEFAULTS;
	r.s.job = &r.job;
	r.s.steady_cut = 1;
	const struct cli_option opts[] = {
		OPT_BOOL(0, "json", &r.json, "the same content as JSON on stdout (docs/report.md)"),
		OPT_COUNT(0, "top", &r.top, "N", 1000000,
			  "kernel names shown (default 10 in text, all in JSON; 0 = all); of a "
			  "job, the ranks in the table (default 16 in text)"),
		CLI_SET_OPTION(&r.s),
		OPT_BOOL(0, "list-thresholds", &r.list,
			 "list the thresholds, their defaults and meanings"),
		OPT_BOOL(0, "sites", &r.sites,
			 "a table of the call sites (file:line, operator, API call) ranked by the "
			 "gain of the findings they cause"),
		OPT_BOOL(0, "list-steps", &r.steps,
			 "list every step of the program's loop (docs/report.md); --steps NAME "
			 "names the ranges that are steps"),
		OPT_BOOL(0, "rhythm", &r.s.steps_rhythm,
			 "find the steps by the rhythm of the launches alone, whatever annotations "
			 "the trace has"),
		OPT_BOOL(0, "whole", &r.s.whole_run,
			 "findings of the whole run: start-up, warm-up and wind-down counted in"),
		OPT_COUNT(0, "finding-sites", &r.finding_sites, "N", 1000000,
			  "call sites shown under each finding (default 3)"),
		OPT_BOOL(0, "host", &r.host,
			 "a tree of what the thread that launched the next work did while the GPU "
			 "waited, by call path (from host samples or a profiler trace's host "
			 "events)"),
		OPT_CHOICE(0, "fail-on", &r.fail_on, "SEVERITY", severities, "a severity",
			   "exit 3 when a finding of SEVERITY or worse exists (info, warning, "
			   "critical)"),
		CLI_WINDOW_OPTIONS(&r.s),
		OPT_COLOR(&r.color),
		OPT_GROUP("A job (several traces, a folder of them, or --job for one trace of "
			  "several ranks): a table of the ranks, stragglers at collectives by rank "
			  "and step, slow and overloaded ranks, kernel-count mismatches "
			  "(docs/job.md). Under mpirun or srun the traces are shared out among the "
			  "MPI processes."),
		JOB_OPTIONS(&r.job),
		JOB_RANKS_OPTION(&r.job),
		JOB_SORT_OPTION(&r.job),
		OPT_END(),
	};
	static const struct cli_show show = {.one = report_one, .job = report_of_job};
	int rc = cli_parse(&usage, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (r.list)
		return list_thresholds();
	if (optind == argc)
		return cli_usage_error("no trace given");
	if ((rc = cli_session_paths(&r.s, argc - optind, argv + optind)) >= 0)
		return rc;
	return cli_session_run(&r.s, &show, &r);
}
