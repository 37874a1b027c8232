/* kgantt view: load a trace of any supported format, analyse it, and write the
 * interactive timeline as one self-contained HTML file (render/view.h, docs/view.md).
 * The file appears whole or not at all (util/outfile.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "cli/job_session.h"
#include "cli/write_output.h"
#include "cli/session.h"
#include "cli/settings.h"
#include "cli/shows.h"
#include "cli/trace_load.h"
#include "cli/window.h"
#include "model/load.h"
#include "render/view.h"
#include "render/view_job.h"
#include "util/outfile.h"


struct view_args {
	const char *out;         /* -o; NULL: TRACE's base name + .html */
	int quiet;
	struct job_args job;     /* several traces, a folder, or --job: the job's page */
	struct cli_session s;    /* the trace, --from/--to/--nvtx, --set, --no-progress */
};

static void view_usage(FILE *f)
{
	fprintf(f,
		"usage: kgantt view [options] TRACE [-o OUT.html]\n"
		"       kgantt view [options] TRACE TRACE... | FOLDER [-o OUT.html]   (a job)\n"
		"\n"
		"Writes an interactive timeline of the trace (kgantt, PyTorch profiler JSON or\n"
		"Nsight Systems SQLite export) as one self-contained HTML file: streams, host\n"
		"threads and NVTX ranges as lanes, kernels in their launch, queue and execution\n"
		"phases, the findings of 'kgantt report' beside them. Open it in any browser;\n"
		"it loads nothing from the network.\n"
		"\n"
		"  -o, --output FILE       the page to write (default: TRACE's name + .html in\n"
		"                          the current directory; '-' = standard output); replaced\n"
		"                          if it exists, never the TRACE (written beside it, renamed\n"
		"                          when complete); a FIFO or a device is written directly\n"
		"  --from T, --to T        only what was launched in this window, T after the\n"
		"                          trace begin (ms, or with a unit: 250us, 1.5s)\n"
		"  --nvtx NAME             only what was launched in the NVTX or annotation ranges\n"
		"                          named NAME (or starting with it: ProfilerStep)\n"
		"  --set NAME=VALUE        change a threshold of the rules and marks (repeatable;\n"
		"                          'kgantt report --list-thresholds' lists them)\n"
		"  --no-progress           no progress line while loading\n"
		"  -q, --quiet             do not say where the page was written\n"
		"  -h, --help              this help\n"
		"A job (several traces, a folder, or --job): one lane per rank, filtered and\n"
		"sorted in the page, the job's findings beside it (docs/job.md)\n"
		"  --job                   the page of the ranks of a single trace\n"
		"  --full RANKS            also each of these ranks' own page (OUT.rankN.html),\n"
		"                          linked from the job's: e.g. --full 3,17\n"
		"  --steps NAME            the step ranges (as kgantt report)\n"
		"  -j, --jobs N            threads reading traces (default: every core)\n"
		"\n"
		"Exit status: 0 ok, 1 bad input or a failed write, 2 wrong command line.\n");
}

/* A time after the trace begin: "120" (ms), "120ms", "1.5s", "250us", "800ns". The same
 * syntax as kgantt report's --from/--to. */

/* One option: -1 to go on, or the exit code when it ends the command. */
static int take_option(int c, const char *arg, struct view_args *v)
{
	int shared = cli_session_option(&v->s, c, arg);
	if (shared == CLI_NOT_MINE)
		shared = job_option(&v->job, c, arg);
	if (shared != CLI_NOT_MINE)
		return shared;
	switch (c) {
	case 'o': v->out = arg; return -1;
	case 'q': v->quiet = 1; return -1;
	case 'h': view_usage(stdout); return finish_stdout(KG_EXIT_OK);
	default: return KG_EXIT_USAGE; /* cli_getopt said why */
	}
}

static int parse_args(int argc, char **argv, struct view_args *v)
{
	static const struct option longopts[] = {
		CLI_SESSION_OPTIONS,
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		JOB_SESSION_OPTIONS,
		JOB_FULL_OPTION,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;
	optind = 1;
	while ((c = cli_getopt("view", argc, argv, "o:qhj:", longopts)) != -1)
		if ((rc = take_option(c, optarg, v)) >= 0)
			return rc;
	if ((rc = cli_session_check(&v->s)) >= 0)
		return rc;
	if (optind == argc) {
		kg_err("view: no trace given");
		view_usage(stderr);
		return KG_EXIT_USAGE;
	}
	v->s.path = argv[optind];
	return job_args_take_paths("view", &v->job, argc, argv);
}

/* TRACE's base name without its extensions (.kgt, .json.gz, .sqlite) + ".html". */
static void default_output(const char *trace, char *buf, size_t len)
{
	const char *base = strrchr(trace, '/');
	base = base ? base + 1 : trace;
	size_t n = strcspn(base, ".");
	if (n == 0)
		n = strlen(base);
	snprintf(buf, len, "%.*s.html", (int)n, base);
}

struct page_args {
	const struct kg_analysis *a;
	const struct kg_view_opts *o;
};

static int write_view(FILE *f, const void *arg)
{
	const struct page_args *p = arg;
	return view_html(f, p->a, p->o);
}

/* Writes the page (cli/write_output.h). */
static int write_page(const char *out, const struct kg_analysis *a, const struct kg_view_opts *o)
{
	struct page_args p = {a, o};
	return cli_write_output(out, "the page", write_view, &p);
}

/* Writes the page and says where, unless quiet or written to standard output. */
static int write_and_say(const char *out, const struct kg_analysis *a,
			 const struct kg_view_opts *o, int quiet)
{
	int rc = write_page(out, a, o);
	if (!rc && !quiet && strcmp(out, "-") != 0)
		fprintf(stderr, "kgantt: wrote '%s' (%u GPU operations, %u findings)\n", out,
			a->m->n_ops, a->findings.n);
	return rc;
}

int view_show(const char *trace, const char *out, const struct kg_analysis *a, int quiet)
{
	struct kg_view_opts o = {.trace_path = trace, .tool_version = "kgantt " KGANTT_VERSION};
	return write_and_say(out, a, &o, quiet);
}

/* The page may replace a file, never the trace it shows; said before the load. */
static int check_output(const char *trace, const char *out)
{
	char err[PATH_MAX + 512];
	struct kg_outfile_opts oo = {.what = "the page"};
	outfile_protect("view", trace, "the input trace");
	if (outfile_check(out, &oo, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

/* ---------------------------------------------------------------- a job */

struct job_page {
	const struct kg_job *j;
	const struct kg_view_job_opts *o;
};

static int write_job_view(FILE *f, const void *arg)
{
	const struct job_page *p = arg;
	return view_job_html(f, p->j, p->o);
}

/* --full: a chosen rank's own page; its name goes into the job's page as a link (beside
 * it, so by base name). */
struct full_page_arg {
	const struct view_args *v;
	char **pages; /* by rank index */
};

static int full_page(struct cli_session *s, uint32_t rank, const char *out, void *arg)
{
	const struct full_page_arg *fa = arg;
	const struct view_args *v = fa->v;
	char **pages = fa->pages;
	struct kg_view_opts o = {.trace_path = s->path, .tool_version = "kgantt " KGANTT_VERSION};
	CLI_SESSION_WINDOW_INTO(&o, s);
	int rc = write_and_say(out, &s->a, &o, v->quiet);
	const char *slash = strrchr(out, '/');
	if (rc == KG_EXIT_OK && !(pages[rank] = strdup(slash ? slash + 1 : out)))
		rc = KG_EXIT_FAILURE;
	return rc;
}

static int view_job(const struct view_args *v, const char *out)
{
	struct job_session_opts so = {.cmd = "view", .args = &v->job, .session = &v->s};
	struct job_session js;
	int rc = job_session_open(&js, &so);
	if (rc == KG_EXIT_OK && js.me == 0) {
		char **pages = calloc(js.job.n_ranks + 1, sizeof(*pages));
		if (!pages)
			rc = KG_EXIT_FAILURE;
		struct full_page_arg fa = {v, pages};
		if (pages && v->job.full)
			rc = job_each_full("view", &v->s, &js.job, v->job.full, out, full_page, &fa);
		if (rc == KG_EXIT_OK) {
			struct kg_view_job_opts o = {.full_pages = (const char *const *)pages};
			struct job_page p = {&js.job, &o};
			rc = cli_write_output(out, "the page", write_job_view, &p);
			if (rc == KG_EXIT_OK && !v->quiet && strcmp(out, "-") != 0)
				fprintf(stderr, "kgantt: wrote '%s' (%u ranks, %u job findings)\n", out,
					js.job.n_ranks, js.job.findings.n);
			if (rc == KG_EXIT_OK && js.unread_len)
				rc = KG_EXIT_FAILURE;
		}
		for (uint32_t i = 0; pages && i < js.job.n_ranks; i++)
			free(pages[i]);
		free(pages);
	}
	return job_session_close(&js, rc);
}

int cmd_view(int argc, char **argv)
{
	struct view_args v = {.s = {.cmd = "view"}};
	int rc = parse_args(argc, argv, &v);
	if (rc >= 0)
		return rc;
	char out[4096];
	if (v.out)
		snprintf(out, sizeof(out), "%s", v.out);
	else if (v.job.job && v.job.n_paths > 1)
		snprintf(out, sizeof(out), "job.html");
	else
		default_output(v.s.path, out, sizeof(out));
	for (int i = 0; i < v.job.n_paths; i++)
		if ((rc = check_output(v.job.paths[i], out)) != KG_EXIT_OK)
			return rc;
	if (v.job.job)
		return view_job(&v, out);
	if ((rc = cli_session_open(&v.s)) != KG_EXIT_OK)
		return rc;
	struct kg_view_opts o = {.trace_path = v.s.path, .tool_version = "kgantt " KGANTT_VERSION};
	CLI_SESSION_WINDOW_INTO(&o, &v.s);
	if ((rc = cli_session_analyse(&v.s)) == KG_EXIT_OK)
		rc = write_and_say(out, &v.s.a, &o, v.quiet);
	cli_session_close(&v.s);
	return rc;
}
