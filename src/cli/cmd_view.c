/* kgantt view: load a trace of any supported format, analyse it, and write the
 * interactive timeline as one self-contained HTML file (render/view.h, docs/view.md).
 * The file appears whole or not at all (util/outfile.h). */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "cli/job_session.h"
#include "cli/session.h"
#include "cli/shows.h"
#include "cli/write_output.h"
#include "render/view.h"
#include "render/view_job.h"
#include "util/outfile.h"


struct view_args {
	const char *out;         /* -o; NULL: TRACE's base name + .html */
	int quiet;
	struct job_args job;     /* several traces, a folder, or --job: the job's page */
	struct cli_session s;    /* the trace, --from/--to/--nvtx, --set, --no-progress */
};

static const char *const usage_lines[] = {
	"view [options] TRACE [-o OUT.html]",
	"view [options] TRACE TRACE... | FOLDER [-o OUT.html]   (a job)",
	NULL,
};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Writes an interactive timeline of the trace (kgantt, PyTorch profiler JSON or\n"
		 "Nsight Systems SQLite export) as one self-contained HTML file: streams, host\n"
		 "threads and NVTX ranges as lanes, kernels in their launch, queue and execution\n"
		 "phases, the findings of 'kgantt report' beside them. Open it in any browser;\n"
		 "it loads nothing from the network.\n",
	.footer = "Exit status: 0 ok, 1 bad input or a failed write, 2 wrong command line.\n",
};

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

/* The page of one trace (cli_session_run's show). */
static int view_one(struct cli_session *s, void *arg)
{
	const struct view_args *v = arg;
	struct kg_view_opts o = {.trace_path = s->path, .tool_version = "kgantt " KGANTT_VERSION};
	CLI_SESSION_WINDOW_INTO(&o, s);
	return write_and_say(v->out, &s->a, &o, v->quiet);
}

int view_show(struct cli_session *s, const char *out, int quiet)
{
	struct view_args v = {.out = out, .quiet = quiet};
	return view_one(s, &v);
}

/* The page may replace a file, never the trace it shows; said before the load. */
static int check_output(const char *trace, const char *out)
{
	char err[PATH_MAX + 512];
	struct kg_outfile_opts oo = {.what = "the page"};
	outfile_protect(trace, "the input trace");
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
	struct view_args v = *fa->v;
	v.out = out;
	int rc = view_one(s, &v);
	const char *slash = strrchr(out, '/');
	if (rc == KG_EXIT_OK && !(fa->pages[rank] = strdup(slash ? slash + 1 : out)))
		rc = KG_EXIT_FAILURE;
	return rc;
}

/* The job's page, and its ranks' own with --full. */
static int view_job(const struct job_session *js, void *arg)
{
	const struct view_args *v = arg;
	char **pages = calloc(js->job.n_ranks + 1, sizeof(*pages));
	int rc = pages ? KG_EXIT_OK : KG_EXIT_FAILURE;
	struct full_page_arg fa = {v, pages};
	if (pages && v->job.full)
		rc = job_each_full(&v->s, &js->job, v->out, full_page, &fa);
	if (rc == KG_EXIT_OK) {
		struct kg_view_job_opts o = {.full_pages = (const char *const *)pages};
		struct job_page p = {&js->job, &o};
		rc = cli_write_output(v->out, "the page", write_job_view, &p);
		if (rc == KG_EXIT_OK && !v->quiet && strcmp(v->out, "-") != 0)
			fprintf(stderr, "kgantt: wrote '%s' (%u ranks, %u job findings)\n", v->out,
				js->job.n_ranks, js->job.findings.n);
		if (rc == KG_EXIT_OK && js->unread_len)
			rc = KG_EXIT_FAILURE;
	}
	for (uint32_t i = 0; pages && i < js->job.n_ranks; i++)
		free(pages[i]);
	free(pages);
	return rc;
}

int cmd_view(int argc, char **argv)
{
	/* the steady steps, as report judges them, unless --whole (a job: each rank whole) */
	struct view_args v = {.s = {.job = &v.job, .steady_cut = 1}};
	const struct cli_option opts[] = {
		OPT_STRING('o', "output", &v.out, "FILE",
			   "the page to write (default: TRACE's name + .html in the current "
			   "directory; '-' = standard output); replaced if it exists, never the "
			   "TRACE (written beside it, renamed when complete); a FIFO or a device is "
			   "written directly"),
		OPT_BOOL(0, "whole", &v.s.whole_run,
			 "the whole run (by default a run whose steady steps leave out 500 ms or "
			 "more of start-up, warm-up and wind-down, or a fifth of their own time, "
			 "shows those steps, as report judges them)"),
		CLI_WINDOW_OPTIONS(&v.s),
		CLI_SET_OPTION(&v.s),
		OPT_BOOL('q', "quiet", &v.quiet, "do not say where the page was written"),
		OPT_GROUP("A job (several traces, a folder, or --job): one lane per rank, "
			  "filtered and sorted in the page, the job's findings beside it "
			  "(docs/job.md)"),
		JOB_OPTIONS(&v.job),
		JOB_FULL_OPTION(&v.job),
		OPT_END(),
	};
	static const struct cli_show show = {.one = view_one, .job = view_job};
	int rc = cli_parse(&usage, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (optind == argc)
		return cli_usage_error("no trace given");
	if ((rc = cli_session_paths(&v.s, argc - optind, argv + optind)) >= 0)
		return rc;
	char out[4096];
	if (v.out)
		snprintf(out, sizeof(out), "%s", v.out);
	else if (v.job.job && v.job.n_paths > 1)
		snprintf(out, sizeof(out), "job.html");
	else
		default_output(v.s.path, out, sizeof(out));
	v.out = out;
	for (int i = 0; i < v.job.n_paths; i++)
		if ((rc = check_output(v.job.paths[i], out)) != KG_EXIT_OK)
			return rc;
	return cli_session_run(&v.s, &show, &v);
}
