/* kgantt plot: draw a trace as a Gantt chart (PNG, SVG or PDF): lanes per process, device
 * and stream, each kernel in its phases (launch, queue, run), the host threads' CUDA calls
 * and NVTX ranges, and the report's findings and rule marks on top. The drawing is in
 * src/render/; this file reads the command line and tells the session what to draw. */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/job_session.h"
#include "cli/report_job.h"
#include "cli/session.h"
#include "cli/shows.h"
#include "render/plot.h"
#include "render/plot_job.h"
#include "report/report.h"
#include "util/outfile.h"
#include "util/pathfmt.h"
#include "util/timemath.h"

#define MAX_STREAMS 64

struct plot_args {
	const char *out, *format, *title;
	enum kg_plot_format fmt;   /* what out and --format say */
	struct cli_session s;      /* the trace, --from/--to/--nvtx, --set, --no-progress */
	int device;                /* -1: all */
	int64_t streams[MAX_STREAMS];
	int n_streams;
	int width, height, dpi;
	int no_annotations, no_host, manifest;
	int no_hw;
	int sm;                    /* --sm: the SM lanes (record --sm) */
	struct job_args job;       /* several traces, a folder, or --job: the job's lanes */
};

/* What a plot is without options: cmd_plot and plot_show (record --plot) start here. It
 * draws all that overlaps the window and marks the findings of what was launched in it,
 * so the session keeps the whole trace beside the cut one. */
#define PLOT_DEFAULTS                                                                      \
	{.device = -1, .width = 1600, .dpi = 96, .s = {.keep_whole = 1, .steady_cut = 1}}

static const char *const usage_lines[] = {
	"plot TRACE -o OUTPUT [options]",
	"plot TRACE TRACE... | FOLDER -o OUTPUT [options]   (a job)",
	NULL,
};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Draws the trace as a Gantt chart: a lane per stream (kernels in their phases:\n"
		 "launch latency, waiting in the queue, running), per host thread (its CUDA calls)\n"
		 "and per thread with NVTX ranges, with the findings of 'kgantt report' marked.\n"
		 "With a window (--from/--to, --nvtx) it draws all that overlaps the window, an\n"
		 "--nvtx one until the work launched in its ranges ends, and marks the findings of\n"
		 "what was launched in it.\n",
	.footer = "Exit status: 0 ok, 1 bad input or a failed write, 2 wrong command line.\n"
		  "docs/plot.md explains the picture.\n",
};

/* --streams 7,13 (an options.h callback: opt->value is the struct plot_args). */
static int take_streams(const struct cli_option *opt, const char *s)
{
	struct plot_args *r = opt->value;
	const char *p = s;
	while (*p) {
		char *end;
		long long v = strtoll(p, &end, 10);
		if (end == p || (*end && *end != ',') || r->n_streams == MAX_STREAMS) {
			kg_err("--streams: '%s' is not a list of stream ids (e.g. 7,13; at most %d)", s,
			       MAX_STREAMS);
			return KG_EXIT_USAGE;
		}
		r->streams[r->n_streams++] = v;
		p = *end ? end + 1 : end;
	}
	if (!r->n_streams) {
		kg_err("--streams: no stream id given");
		return KG_EXIT_USAGE;
	}
	return -1;
}

/* The extension of path's file name ("png"), NULL when it has none. */
static const char *extension(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	return dot && dot > base && dot[1] ? dot + 1 : NULL;
}

static int format_of(struct plot_args *r)
{
	static const char *const names[] = {"png", "svg", "pdf"};
	const char *ext = extension(r->out), *want = r->format ? r->format : ext ? ext : "";
	int i = 0;
	while (i < 3 && strcasecmp(want, names[i]))
		i++;
	if (i == 3) {
		if (r->format)
			kg_err("--format: '%s' is not png, svg or pdf", r->format);
		else
			kg_err("cannot tell the format of '%s' from its name: use .png, .svg or .pdf, "
			       "or --format", r->out);
		return -1;
	}
	r->fmt = (enum kg_plot_format)i;
	/* a file named .png holding SVG misleads every program that opens it; a FIFO, a
	 * device or '-' has no name to mislead with, and a name that says no picture format
	 * (chart.out) is what --format is for */
	int other = -1;
	for (int k = 0; ext && k < 3; k++)
		if (k != i && !strcasecmp(ext, names[k]))
			other = k;
	if (other >= 0 && !outfile_is_stream(r->out)) {
		kg_err("'%s' does not end in .%s: say --format %s or name it %.*s.%s", r->out,
		       names[i], names[other], (int)(ext - 1 - r->out), r->out, names[i]);
		return -1;
	}
	return 0;
}

/* The output may replace a file, never the trace it is drawn from; said before the load. */
static int check_output(const struct plot_args *r)
{
	char err[PATH_MAX + 512];
	struct kg_outfile_opts oo = {.what = "the chart"};
	for (int i = 0; i < r->job.n_paths; i++)
		outfile_protect(r->job.paths[i],
				r->job.n_paths == 1 ? "the input trace" : "an input trace");
	if (outfile_check(r->out, &oo, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	if (r->manifest && outfile_is_stream(r->out)) {
		kg_err("--manifest writes OUTPUT.json beside the chart: give the chart a file name, "
		       "not '%s'", r->out);
		return KG_EXIT_USAGE;
	}
	return -1;
}

/* ---------------------------------------------------------------- the window drawn */

/* The last end of the work launched in [t0, t1): what an NVTX range set going on the GPU. */
static int64_t launched_until(const struct kg_model *m, int64_t t0, int64_t t1)
{
	int64_t last = t1;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		int64_t at = o->api_start != KG_NO_TIME ? o->api_start : o->start;
		if (at >= t0 && at < t1 && o->end > last)
			last = o->end;
	}
	return last;
}

/* What the chart shows of the whole trace, [*t0, *t1): the session's window (what the
 * findings are of) and all that overlaps it; an --nvtx window, or the steady steps the
 * report is of (cli/session.c), until the work launched in it ends. */
static void drawn_span(const struct cli_session *s, int64_t *t0, int64_t *t1)
{
	const struct kg_model *m = cli_session_whole(s);
	const struct kg_window_cut *c = &s->cut;
	/* the trace's times are the file's: sums saturate (util/timemath.h) */
	*t0 = c->windowed ? c->begin : m->begin;
	if (!c->windowed)
		*t1 = m->end > m->begin ? m->end : kg_time_add(m->begin, 1);
	else if (c->nvtx || s->steady_applied)
		*t1 = launched_until(m, c->begin, c->end);
	else
		*t1 = s->window.has_to ? c->end : m->end;
	if (*t1 <= *t0) /* work launched at the very end: draw a sliver */
		*t1 = kg_time_add(*t0, 1);
}

/* ---------------------------------------------------------------- what it draws */

/* What plot refuses in a trace, before analysing it. */
static int plot_check(struct cli_session *s, void *arg)
{
	const struct plot_args *r = arg;
	const struct kg_model *m = cli_session_whole(s);
	if (m->begin == KG_NO_TIME) {
		kg_err("'%s' holds no GPU operation to draw", s->path);
		return KG_EXIT_FAILURE;
	}
	if (r->sm && !m->n_sm_blocks) {
		kg_err("'%s' has no SM placement (no sm_blocks): record with 'kgantt record --sm' a "
		       "program whose kernels use KGANTT_SM_BLOCK_BEGIN()/END() of "
		       "include/kgantt/sm.h", s->path);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

/* The chart of one trace (cli_session_run's show). */
static int plot_one(struct cli_session *s, void *arg)
{
	const struct plot_args *r = arg;
	const struct kg_model *m = cli_session_whole(s);
	struct kg_plot_opts o = {
		.format = r->fmt, .origin = m->begin,
		.width = r->width, .height = r->height, .dpi = r->dpi, .device = r->device,
		.streams = r->n_streams ? r->streams : NULL, .n_streams = r->n_streams,
		.title = r->title, .trace_name = path_base(s->path), .host_lanes = !r->no_host,
		.no_hw = r->no_hw, .sm = r->sm,
	};
	drawn_span(s, &o.t0, &o.t1);
	if (!plot_count_ops(m, &o)) {
		char a0[32], a1[32];
		kg_err("no GPU operation to draw in '%s' between %s and %s%s", s->path,
		       fmt_rel_ms(m, o.t0, a0), fmt_rel_ms(m, o.t1, a1),
		       r->device >= 0 || r->n_streams ? " on the chosen device and streams" : "");
		return KG_EXIT_FAILURE;
	}
	char manifest[4200], err[4400];
	snprintf(manifest, sizeof(manifest), "%s.json", r->out);
	struct kg_plot_notes notes = {&s->a};
	if (plot_render(m, s->analysed ? &notes : NULL, &o, r->out, r->manifest ? manifest : NULL,
			err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

int plot_show(struct cli_session *s, const char *out)
{
	struct plot_args r = PLOT_DEFAULTS;
	r.out = out;
	if (format_of(&r) < 0)
		return KG_EXIT_FAILURE;
	int rc = plot_check(s, &r);
	return rc ? rc : plot_one(s, &r);
}

int plot_check_output(const char *out)
{
	struct plot_args r = PLOT_DEFAULTS;
	const char *ext = extension(out);
	/* format_of's own message offers --format, which record does not take */
	if (!ext || (strcasecmp(ext, "png") && strcasecmp(ext, "svg") && strcasecmp(ext, "pdf"))) {
		kg_err("--plot: cannot tell the format of '%s' from its name: use .png, .svg or "
		       ".pdf", out);
		return -1;
	}
	r.out = out;
	return format_of(&r);
}

/* --full: a chosen rank's own chart, as kgantt plot draws it. */
static int full_chart(struct cli_session *s, uint32_t rank, const char *out, void *arg)
{
	struct plot_args r = *(const struct plot_args *)arg;
	r.out = out;
	int rc = plot_check(s, &r);
	return rc ? rc : plot_one(s, &r);
}

/* kgantt plot of a job: the ranks read as kgantt report reads them, one lane each. */
static int plot_job(const struct job_session *js, void *arg)
{
	const struct plot_args *r = arg;
	struct kg_rank_set set = {0};
	struct kg_job_report_opts view = {0};
	char what[300], err[4400];
	int rc = job_view_options(r->job.ranks, r->job.sort, &set, &view.sort);
	if (rc != KG_EXIT_OK)
		return rc;
	view.ranks = r->job.ranks ? &set : NULL;
	snprintf(what, sizeof(what), "--ranks %s", r->job.ranks ? r->job.ranks : "");
	uint32_t n, *order = job_rank_order(&js->job, &view, &n);
	struct kg_job_plot_opts po = {.format = r->fmt, .width = r->width, .dpi = r->dpi,
				      .title = r->title, .sort_name = rank_sort_name(view.sort)};
	if (!order) {
		kg_err("out of memory");
		rc = KG_EXIT_FAILURE;
	} else if (view.ranks && (rc = job_set_check(&js->job, &set, what)) != KG_EXIT_OK) {
		/* said */
	} else if (plot_job_render(&js->job, &po, order, n, r->out, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		rc = KG_EXIT_FAILURE;
	} else if (r->job.full &&
		   (rc = job_each_full(&r->s, &js->job, r->out, full_chart, (void *)r)) != KG_EXIT_OK) {
		/* said */
	} else if (js->unread_len) {
		rc = KG_EXIT_FAILURE; /* drawn without the traces named above */
	}
	free(order);
	rank_set_free(&set);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args r = PLOT_DEFAULTS;
	r.s.job = &r.job;
	const struct cli_option opts[] = {
		OPT_STRING('o', "output", &r.out, "FILE",
			   "the picture: .png, .svg or .pdf; replaced if it exists, never the TRACE "
			   "(written beside it, renamed when complete); '-', a FIFO or a device is "
			   "written directly"),
		OPT_STRING('f', "format", &r.format, "FMT",
			   "png, svg or pdf: for '-', a FIFO, a device or a name that says none "
			   "(chart.out); a .png, .svg or .pdf name must agree with it"),
		CLI_WINDOW_OPTIONS(&r.s),
		OPT_INT(0, "device", &r.device, "N", 0, 1 << 20, "only CUDA device N"),
		OPT_CALLBACK(0, "streams", &r, "LIST", take_streams, "only these stream ids, e.g. 7,13"),
		OPT_INT(0, "width", &r.width, "PX", 300, 20000, "width (default 1600)"),
		OPT_INT(0, "height", &r.height, "PX", 150, 30000,
			"height (default: as the lanes need)"),
		OPT_INT(0, "dpi", &r.dpi, "N", 24, 1200,
			"PNG pixels per inch (default 96: PX pixels; 192 doubles)"),
		OPT_STRING(0, "title", &r.title, "TEXT", "the title (default: the recorded command)"),
		CLI_SET_OPTION(&r.s),
		OPT_BOOL(0, "no-annotations", &r.no_annotations,
			 "no findings, queue-wait, occupancy or overlap marks (and no analysis)"),
		OPT_BOOL(0, "no-host", &r.no_host, "no CUDA API and NVTX lanes"),
		OPT_BOOL(0, "whole", &r.s.whole_run,
			 "the whole run, start-up and warm-up included (by default a run whose "
			 "steady steps leave out 500 ms or more, or a fifth of their own time, is "
			 "drawn from its first steady step, as report judges it)"),
		OPT_BOOL(0, "no-hw", &r.no_hw,
			 "no strip of hardware samples (record --hw) under a GPU"),
		OPT_BOOL(0, "sm", &r.sm,
			 "under the lanes, one lane per SM: which SM ran each block of the kernels "
			 "that logged them (record --sm)"),
		OPT_BOOL(0, "manifest", &r.manifest,
			 "also write OUTPUT.json: what was drawn, lane by lane"),
		OPT_BOOL('q', "quiet", NULL, "print nothing but errors (the default on success)"),
		OPT_GROUP("A job (several traces, a folder, or --job): one lane per rank "
			  "(docs/job.md)"),
		JOB_OPTIONS(&r.job),
		JOB_RANKS_OPTION(&r.job),
		JOB_SORT_OPTION(&r.job),
		JOB_FULL_OPTION(&r.job),
		OPT_END(),
	};
	static const struct cli_show show = {.check = plot_check, .one = plot_one, .job = plot_job};
	int rc = cli_parse(&usage, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (optind == argc)
		return cli_usage_error("no trace given");
	if ((rc = cli_session_paths(&r.s, argc - optind, argv + optind)) >= 0)
		return rc;
	if (!r.out)
		return cli_usage_error("no output given (-o chart.png, .svg or .pdf)");
	if ((rc = check_output(&r)) >= 0)
		return rc;
	if (format_of(&r) < 0)
		return KG_EXIT_USAGE;
	r.s.no_analysis = r.no_annotations;
	return cli_session_run(&r.s, &show, &r);
}
