/* kgantt plot: draw a trace as a Gantt chart (PNG, SVG or PDF): lanes per process, device
 * and stream, each kernel in its phases (launch, queue, run), the host threads' CUDA calls
 * and NVTX ranges, and the report's findings and rule marks on top. The drawing is in
 * src/render/; this file reads the command line, loads and analyses, and picks the window. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "cli/job_session.h"
#include "cli/report_job.h"
#include "cli/session.h"
#include "cli/settings.h"
#include "cli/shows.h"
#include "cli/trace_load.h"
#include "cli/window.h"
#include "model/load.h"
#include "render/plot.h"
#include "render/plot_job.h"
#include "report/report.h"
#include "util/outfile.h"
#include "util/timemath.h"

#define MAX_STREAMS 64

struct plot_args {
	const char *out, *format, *title;
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

/* What a plot is without options: cmd_plot and plot_show (record --plot) start here. */
#define PLOT_DEFAULTS {.device = -1, .width = 1600, .dpi = 96, .s = {.cmd = "plot"}}

static void plot_usage(FILE *f)
{
	fprintf(f,
		"usage: kgantt plot TRACE -o OUTPUT [options]\n"
		"       kgantt plot TRACE TRACE... | FOLDER -o OUTPUT [options]   (a job)\n"
		"\n"
		"Draws the trace as a Gantt chart: a lane per stream (kernels in their phases:\n"
		"launch latency, waiting in the queue, running), per host thread (its CUDA calls)\n"
		"and per thread with NVTX ranges, with the findings of 'kgantt report' marked.\n"
		"\n"
		"  -o, --output FILE       the picture: .png, .svg or .pdf; replaced if it exists,\n"
		"                          never the TRACE (written beside it, renamed when\n"
		"                          complete); '-', a FIFO or a device is written directly\n"
		"  -f, --format FMT        png, svg or pdf: for '-', a FIFO, a device or a name\n"
		"                          that says none (chart.out); a .png, .svg or .pdf name\n"
		"                          must agree with it\n"
		"  --from T, --to T        only this window, T after the trace begin (ms, or with a\n"
		"                          unit: 12.5ms, 300us, 1s)\n"
		"  --nvtx NAME             the window of the NVTX ranges named NAME (or starting\n"
		"                          with it), until the work launched in them ends\n"
		"  --no-progress           (accepted, as by every command that reads a trace)\n"
		"  --device N              only CUDA device N\n"
		"  --streams LIST          only these stream ids, e.g. 7,13\n"
		"  --width PX              width (default 1600)\n"
		"  --height PX             height (default: as the lanes need)\n"
		"  --dpi N                 PNG pixels per inch (default 96: PX pixels; 192 doubles)\n"
		"  --title TEXT            the title (default: the recorded command)\n"
		"  --set NAME=VALUE        a threshold of the rules whose findings and marks are\n"
		"                          drawn, as in kgantt report (--list-thresholds there)\n"
		"  --no-annotations        no findings, queue-wait, occupancy or overlap marks\n"
		"  --no-host               no CUDA API and NVTX lanes\n"
		"  --no-hw                 no strip of hardware samples (record --hw) under a GPU\n"
		"  --sm                    under the lanes, one lane per SM: which SM ran each\n"
		"                          block of the kernels that logged them (record --sm)\n"
		"  --manifest              also write OUTPUT.json: what was drawn, lane by lane\n"
		"  -q, --quiet             print nothing but errors (the default on success)\n"
		"A job (several traces, a folder, or --job): one lane per rank (docs/job.md)\n"
		"  --job                   the lanes of the ranks of a single trace\n"
		"  --ranks EXPR            only these ranks: 3, 0-7,12, 100-\n"
		"  --sort KEY              lanes by late (default), idle, busy, slow or rank\n"
		"  --steps NAME            the step ranges (as kgantt report)\n"
		"  --full RANKS            also each of these ranks' own chart (OUT.rankN.png),\n"
		"                          e.g. --full 3,17\n"
		"  -j, --jobs N            threads reading traces (default: every core)\n"
		"  -h, --help              this help\n"
		"\n"
		"Exit status: 0 ok, 1 bad input or a failed write, 2 wrong command line.\n"
		"docs/plot.md explains the picture.\n");
}

/* A time after the trace begin, as `kgantt report --from` takes it: "120" (ms), "120ms",
 * "1.5s", "250us", "800ns". */

static int parse_int(const char *opt, const char *s, long lo, long hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < lo || v > hi) {
		kg_err("--%s: '%s' is not a number from %ld to %ld", opt, s, lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_streams(const char *s, struct plot_args *r)
{
	const char *p = s;
	while (*p) {
		char *end;
		long long v = strtoll(p, &end, 10);
		if (end == p || (*end && *end != ',') || r->n_streams == MAX_STREAMS) {
			kg_err("--streams: '%s' is not a list of stream ids (e.g. 7,13; at most %d)", s,
			       MAX_STREAMS);
			return -1;
		}
		r->streams[r->n_streams++] = v;
		p = *end ? end + 1 : end;
	}
	if (!r->n_streams) {
		kg_err("--streams: no stream id given");
		return -1;
	}
	return 0;
}

enum { OPT_FORMAT = 256, OPT_DEVICE, OPT_STREAMS, OPT_WIDTH,
       OPT_HEIGHT, OPT_DPI, OPT_TITLE, OPT_NO_ANN, OPT_NO_HOST, OPT_MANIFEST };
enum { OPT_NO_HW = 400 };
enum { OPT_SM = 420 };

/* One option: -1 to go on, or the exit code when it ends the command. */
static int take_option(int c, const char *arg, struct plot_args *r)
{
	int bad = 0, shared = cli_session_option(&r->s, c, arg);
	if (shared == CLI_NOT_MINE)
		shared = job_option(&r->job, c, arg);
	if (shared != CLI_NOT_MINE)
		return shared;
	switch (c) {
	case 'o': r->out = arg; break;
	case 'f':
	case OPT_FORMAT: r->format = arg; break;
	case OPT_TITLE: r->title = arg; break;
	case OPT_NO_ANN: r->no_annotations = 1; break;
	case OPT_NO_HOST: r->no_host = 1; break;
	case OPT_MANIFEST: r->manifest = 1; break;
	case OPT_NO_HW: r->no_hw = 1; break;
	case OPT_SM: r->sm = 1; break;
	case OPT_DEVICE: bad = parse_int("device", arg, 0, 1 << 20, &r->device); break;
	case OPT_WIDTH: bad = parse_int("width", arg, 300, 20000, &r->width); break;
	case OPT_HEIGHT: bad = parse_int("height", arg, 150, 30000, &r->height); break;
	case OPT_DPI: bad = parse_int("dpi", arg, 24, 1200, &r->dpi); break;
	case OPT_STREAMS: bad = parse_streams(arg, r); break;
	case 'q': break; /* plot says nothing on success: accepted, as by every command */
	case 'h': plot_usage(stdout); return finish_stdout(KG_EXIT_OK);
	default: return KG_EXIT_USAGE; /* cli_getopt said why */
	}
	return bad ? KG_EXIT_USAGE : -1;
}

/* The extension of path's file name ("png"), NULL when it has none. */
static const char *extension(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	return dot && dot > base && dot[1] ? dot + 1 : NULL;
}

static int format_of(const struct plot_args *r, enum kg_plot_format *f)
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
	*f = (enum kg_plot_format)i;
	/* a file named .png holding SVG misleads every program that opens it; a FIFO, a
	 * device or '-' has no name to mislead with, and a name that says no picture format
	 * (chart.out) is what --format is for */
	int other = -1;
	for (int k = 0; ext && k < 3; k++)
		if (k != i && !strcasecmp(ext, names[k]))
			other = k;
	if (other >= 0 && !outfile_is_stream(r->out)) {
		kg_err("plot: '%s' does not end in .%s: say --format %s or name it %.*s.%s", r->out,
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
		outfile_protect("plot", r->job.paths[i],
				r->job.n_paths == 1 ? "the input trace" : "an input trace");
	if (outfile_check(r->out, &oo, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	if (r->manifest && outfile_is_stream(r->out)) {
		kg_err("plot: --manifest writes OUTPUT.json beside the chart: give the chart a file "
		       "name, not '%s'", r->out);
		return KG_EXIT_USAGE;
	}
	return -1;
}

/* -1 to go on, or the exit code when parsing ends the command. */
static int parse_args(int argc, char **argv, struct plot_args *r, enum kg_plot_format *fmt)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, OPT_FORMAT},
		CLI_SESSION_OPTIONS,
		{"device", required_argument, NULL, OPT_DEVICE},
		{"streams", required_argument, NULL, OPT_STREAMS},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"height", required_argument, NULL, OPT_HEIGHT},
		{"dpi", required_argument, NULL, OPT_DPI},
		{"title", required_argument, NULL, OPT_TITLE},
		{"no-annotations", no_argument, NULL, OPT_NO_ANN},
		{"no-host", no_argument, NULL, OPT_NO_HOST},
		{"manifest", no_argument, NULL, OPT_MANIFEST},
		{"no-hw", no_argument, NULL, OPT_NO_HW},
		{"sm", no_argument, NULL, OPT_SM},
		JOB_SESSION_OPTIONS,
		JOB_RANKS_OPTION,
		JOB_SORT_OPTION,
		JOB_FULL_OPTION,
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;
	optind = 1;
	while ((c = cli_getopt("plot", argc, argv, "ho:qj:f:", longopts)) != -1)
		if ((rc = take_option(c, optarg, r)) >= 0)
			return rc;
	if (optind == argc) {
		kg_err("plot: no trace given");
		plot_usage(stderr);
		return KG_EXIT_USAGE;
	}
	if ((rc = job_args_take_paths("plot", &r->job, argc, argv)) >= 0)
		return rc;
	r->s.path = argv[optind];
	if (!r->out) {
		kg_err("plot: no output given (-o chart.png, .svg or .pdf)");
		return KG_EXIT_USAGE;
	}
	if ((rc = check_output(r)) >= 0)
		return rc;
	if ((rc = cli_session_check(&r->s)) >= 0)
		return rc;
	return format_of(r, fmt) < 0 ? KG_EXIT_USAGE : -1;
}

/* ---------------------------------------------------------------- the window */

struct window {
	int64_t t0, t1;        /* what is drawn */
	int restricted;        /* the analysis sees only what was launched in [r0, r1) */
	int64_t r0, r1;
};

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

static int choose_window(const struct plot_args *r, const struct kg_model *m, struct window *w)
{
	/* the trace's times are the file's: sums saturate (util/timemath.h) */
	*w = (struct window){m->begin, m->end > m->begin ? m->end : kg_time_add(m->begin, 1), 0, 0,
			     0};
	struct kg_window kw = r->s.window;
	if (r->s.window.nvtx) {
		if (model_range_window(m, r->s.window.nvtx, &w->r0, &w->r1) < 0) {
			kg_err("plot: '%s' has no NVTX or annotation range named '%s'", r->s.path,
			       r->s.window.nvtx);
			return KG_EXIT_FAILURE;
		}
		w->restricted = 1;
		w->t0 = w->r0;
		w->t1 = launched_until(m, w->r0, w->r1);
		w->t1 = w->t1 > w->t0 ? w->t1 : kg_time_add(w->t0, 1);
		return window_holds_work("plot", &kw, r->s.path, m, w->r0, w->r1);
	}
	if (!r->s.window.has_from && !r->s.window.has_to)
		return KG_EXIT_OK;
	w->restricted = 1;
	w->t0 = w->r0 = kg_time_add(m->begin, r->s.window.has_from ? r->s.window.from : 0);
	w->t1 = r->s.window.has_to ? kg_time_add(m->begin, r->s.window.to) : m->end;
	/* the same cut as kgantt report --from/--to, so that the finding numbers agree, and
	 * the same error when nothing was launched in it */
	w->r1 = r->s.window.has_to ? w->t1 : kg_time_add(m->end, 1);
	int rc = window_holds_work("plot", &kw, r->s.path, m, w->r0, w->r1);
	if (!rc && w->t1 <= w->t0) /* work launched at the very end: draw a sliver */
		w->t1 = kg_time_add(w->t0, 1);
	return rc;
}

/* ---------------------------------------------------------------- analysis */

static int load(const char *path, struct kg_model *m)
{
	struct kg_load_opts lo = {0};
	return cli_load_trace("plot", path, m, &lo);
}

/* The findings of the window, as `kgantt report` with the same window finds them: on a
 * copy of the trace cut to the window (the picture keeps everything that overlaps it,
 * the report only what was launched in it). */
static int analyse(const struct plot_args *r, const struct window *w, const struct kg_model *m,
		   struct kg_model *cut, struct kg_analysis *a)
{
	struct kg_config cfg;
	cli_config(&r->s.sets, &cfg);
	const struct kg_model *src = m;
	if (w->restricted) {
		if (model_clone(m, cut) < 0 || model_restrict(cut, w->r0, w->r1) < 0) {
			kg_err("out of memory restricting '%s' to the window", r->s.path);
			return KG_EXIT_FAILURE;
		}
		src = cut;
	}
	int rc = analysis_run(src, &cfg, a);
	if (rc < 0) {
		kg_err("cannot analyse '%s': %s", r->s.path, strerror(-rc));
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

/* ---------------------------------------------------------------- the command */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int draw(const struct plot_args *r, enum kg_plot_format fmt, const struct window *w,
		const struct kg_model *m, const struct kg_analysis *a)
{
	struct kg_plot_opts o = {
		.format = fmt, .t0 = w->t0, .t1 = w->t1, .origin = m->begin,
		.width = r->width, .height = r->height, .dpi = r->dpi, .device = r->device,
		.streams = r->n_streams ? r->streams : NULL, .n_streams = r->n_streams,
		.title = r->title, .trace_name = base_name(r->s.path), .host_lanes = !r->no_host,
		.no_hw = r->no_hw, .sm = r->sm,
	};
	if (!plot_count_ops(m, &o)) {
		char a0[32], a1[32];
		kg_err("no GPU operation to draw in '%s' between %s and %s%s", r->s.path,
		       fmt_rel_ms(m, w->t0, a0), fmt_rel_ms(m, w->t1, a1),
		       r->device >= 0 || r->n_streams ? " on the chosen device and streams" : "");
		return KG_EXIT_FAILURE;
	}
	char manifest[4200], err[4400];
	snprintf(manifest, sizeof(manifest), "%s.json", r->out);
	struct kg_plot_notes notes = {a};
	if (plot_render(m, a ? &notes : NULL, &o, r->out, r->manifest ? manifest : NULL, err,
			sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

/* --full: a chosen rank's own chart, as kgantt plot draws it. */
static int full_chart(struct cli_session *s, uint32_t rank, const char *out, void *arg)
{
	return plot_show(s->path, out, &s->a);
}

/* kgantt plot of a job: the ranks read as kgantt report reads them, one lane each. */
static int plot_job(const struct plot_args *r, enum kg_plot_format fmt)
{
	static const char *const sort_names[] = {"the job's delay they cause", "idle time",
						 "GPU busy share", "kernel speed", "rank"};
	struct job_session_opts so = {.cmd = "plot", .args = &r->job, .session = &r->s};
	struct job_session js;
	struct kg_rank_set set = {0};
	struct kg_job_report_opts view = {0};
	int rc = job_view_options("plot", r->job.ranks, r->job.sort, &set, &view.sort);
	if (rc != KG_EXIT_OK)
		return rc;
	view.ranks = r->job.ranks ? &set : NULL;
	rc = job_session_open(&js, &so);
	if (rc == KG_EXIT_OK && js.me == 0) {
		uint32_t n, *order = job_rank_order(&js.job, &view, &n);
		struct kg_job_plot_opts po = {.format = fmt, .width = r->width, .dpi = r->dpi,
					      .title = r->title, .sort_name = sort_names[view.sort]};
		char err[4400];
		if (!order) {
			kg_err("plot: out of memory");
			rc = KG_EXIT_FAILURE;
		} else if (!n) {
			kg_err("plot: --ranks %s matches none of the job's %u ranks", r->job.ranks,
			       js.job.n_ranks);
			rc = KG_EXIT_FAILURE;
		} else if (plot_job_render(&js.job, &po, order, n, r->out, err, sizeof(err)) < 0) {
			kg_err("%s", err);
			rc = KG_EXIT_FAILURE;
		} else if (r->job.full && (rc = job_each_full("plot", &r->s, &js.job, r->job.full, r->out,
							 full_chart, NULL)) != KG_EXIT_OK) {
			/* said */
		} else if (js.unread_len) {
			rc = KG_EXIT_FAILURE; /* drawn without the traces named above */
		}
		free(order);
	}
	rank_set_free(&set);
	return job_session_close(&js, rc);
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args r = PLOT_DEFAULTS;
	enum kg_plot_format fmt = KG_PLOT_PNG;
	int rc = parse_args(argc, argv, &r, &fmt);
	if (rc >= 0)
		return rc;
	if (r.job.job)
		return plot_job(&r, fmt);
	struct kg_model m, cut;
	struct kg_analysis a;
	struct window w;
	int have_cut = 0, have_a = 0;
	rc = load(r.s.path, &m);
	if (rc)
		return rc;
	if (m.begin == KG_NO_TIME) {
		kg_err("'%s' holds no GPU operation to draw", r.s.path);
		rc = KG_EXIT_FAILURE;
		goto out;
	}
	if (r.sm && !m.n_sm_blocks) {
		kg_err("'%s' has no SM placement (no sm_blocks): record with 'kgantt record --sm' a "
		       "program whose kernels use KGANTT_SM_BLOCK_BEGIN()/END() of "
		       "include/kgantt/sm.h", r.s.path);
		rc = KG_EXIT_FAILURE;
		goto out;
	}
	rc = choose_window(&r, &m, &w);
	if (rc)
		goto out;
	if (!r.no_annotations) {
		have_cut = w.restricted;
		rc = analyse(&r, &w, &m, &cut, &a);
		if (rc)
			goto out;
		have_a = 1;
	}
	rc = draw(&r, fmt, &w, &m, have_a ? &a : NULL);
out:
	if (have_a)
		analysis_free(&a);
	if (have_cut)
		model_free(&cut);
	model_free(&m);
	return rc;
}

int plot_check_output(const char *out)
{
	struct plot_args r = PLOT_DEFAULTS;
	enum kg_plot_format fmt;
	const char *ext = extension(out);
	/* format_of's own message offers --format, which record does not take */
	if (!ext || (strcasecmp(ext, "png") && strcasecmp(ext, "svg") && strcasecmp(ext, "pdf"))) {
		kg_err("--plot: cannot tell the format of '%s' from its name: use .png, .svg or "
		       ".pdf", out);
		return -1;
	}
	r.out = out;
	return format_of(&r, &fmt);
}

int plot_show(const char *trace, const char *out, const struct kg_analysis *a)
{
	struct plot_args r = PLOT_DEFAULTS;
	enum kg_plot_format fmt;
	struct window w;
	r.s.path = trace;
	r.out = out;
	if (format_of(&r, &fmt) < 0)
		return KG_EXIT_FAILURE;
	if (a->m->begin == KG_NO_TIME) {
		kg_err("'%s' holds no GPU operation to draw", trace);
		return KG_EXIT_FAILURE;
	}
	int rc = choose_window(&r, a->m, &w);
	return rc ? rc : draw(&r, fmt, &w, a->m, a);
}
