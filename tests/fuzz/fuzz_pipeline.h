/* What the commands do with a loaded model, for the fuzz targets: the analysis (metrics,
 * rules, call sites), the report as text and JSON, the Chrome/Perfetto and CSV exports,
 * the HTML view, the plot's layout and axis; with `full`, also (chosen by bytes of the
 * input, so that a run can be repeated) the SVG chart and its manifest for an eighth of
 * the inputs, a window cut (model_restrict) analysed again and diffed with the whole, and
 * for a quarter the SQLite export read back. JSON documents must parse; output goes to
 * memory, /dev/null or the scratch directory. fuzz_target names the target in messages. */
#ifndef KGANTT_FUZZ_PIPELINE_H
#define KGANTT_FUZZ_PIPELINE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <yajl/yajl_parse.h>

#include "analysis/analysis.h"
#include "export/export.h"
#include "fuzz_figures.h"
#include "fuzz_util.h"
#include "model/load.h"
#include "render/layout.h"
#include "render/plot.h"
#include "render/view.h"
#include "report/diff.h"
#include "report/report.h"
#include "util/timemath.h"

static const char *fuzz_target = "fuzz";

static FILE *devnull;

/* Leaks of the libraries, not of kgantt: fontconfig (under cairo) keeps caches it never
 * frees, which LeakSanitizer reports at the first chart drawn. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n";
}

static inline void fuzz_fail(const char *what)
{
	fprintf(stderr, "%s: %s\n", fuzz_target, what);
	abort();
}

/* text must be one valid JSON value. */
static inline void check_text(const char *what, const char *text, size_t len)
{
	yajl_handle h = yajl_alloc(NULL, NULL, NULL);
	if (h && (yajl_parse(h, (const unsigned char *)text, len) != yajl_status_ok ||
		  yajl_complete_parse(h) != yajl_status_ok)) {
		fprintf(stderr, "%s: %s wrote invalid JSON:\n%.2000s\n", fuzz_target, what, text);
		abort();
	}
	if (h)
		yajl_free(h);
}

/* What a writer produces, in memory (*buf, *len; the caller frees *buf): its return
 * code, or -ENOMEM when no memory stream could be made. */
static inline int capture(int (*write)(FILE *, const void *), const void *arg, char **buf,
			  size_t *len)
{
	*buf = NULL;
	*len = 0;
	FILE *f = open_memstream(buf, len);
	if (!f)
		return -ENOMEM;
	int rc = write(f, arg);
	fclose(f);
	return rc;
}

/* The document a JSON writer produces must be one valid JSON value; with figures, one
 * whose every figure can be true (fuzz_figures.h). */
static inline void check_json(const char *what, int (*write)(FILE *, const void *),
			      const void *arg, int figures)
{
	char *buf;
	size_t len;
	int rc = capture(write, arg, &buf, &len);
	if (rc == 0) {
		check_text(what, buf, len);
		if (figures)
			fig_check_json(fuzz_target, what, buf, len);
	} else if (rc != -ENOMEM) {
		fuzz_fail(what);
	}
	free(buf);
}

/* A text page: written, or out of memory; its figures checked (fuzz_figures.h). */
static inline void check_page(const char *what, int (*write)(FILE *, const void *),
			      const void *arg, int signed_ok)
{
	char *buf;
	size_t len;
	int rc = capture(write, arg, &buf, &len);
	if (rc == 0)
		fig_check_text(fuzz_target, what, buf, len, signed_ok);
	else if (rc != -ENOMEM)
		fuzz_fail(what);
	free(buf);
}

static inline int write_report_json(FILE *f, const void *a)
{
	struct kg_report_opts o = {.top = 0, .finding_sites = 3};
	return report_json(f, a, &o);
}

static inline int write_report_text(FILE *f, const void *a)
{
	struct kg_report_opts o = {.top = 10, .finding_sites = 3, .sites = 20};
	return report_text(f, a, &o);
}

static inline int write_chrome(FILE *f, const void *m)
{
	struct kg_export_opts o = {.format = KG_EXPORT_PERFETTO};
	return export_chrome(f, m, &o);
}

static inline int write_diff_json(FILE *f, const void *d)
{
	return diff_json(f, d);
}

static inline int write_diff_text(FILE *f, const void *d)
{
	struct kg_diff_opts o = {.top = 10};
	return diff_text(f, d, &o);
}

/* A diff of two analyses, written as text and JSON, every figure checked. */
static inline void fuzz_diff(const struct kg_analysis *before, const struct kg_analysis *after)
{
	struct kg_diff d;
	if (diff_compute(before, after, "before", "after", &d) != 0)
		return;
	check_page("diff", write_diff_text, &d, 1);
	check_json("diff --json", write_diff_json, &d, 1);
	diff_free(&d);
}

/* The plot's geometry: lanes, the time → x mapping of every op, the axis. */
static inline void fuzz_layout(const struct kg_model *m)
{
	if (m->begin == KG_NO_TIME)
		return;
	struct kg_layout_opts lo = {
		.t0 = m->begin, .t1 = m->end > m->begin ? m->end : kg_time_add(m->begin, 1),
		.width = 1600, .label_width = 250, .right_margin = 20, .top_space = 60, .device = -1,
		.host_lanes = 1,
	};
	struct kg_layout l;
	if (layout_build(m, &lo, &l) < 0)
		return;
	double sum = 0;
	for (uint32_t i = 0; i < m->n_ops; i++)
		sum += layout_x(&l, m->ops[i].start) + layout_x(&l, m->ops[i].end);
	struct kg_tick ticks[64];
	layout_ticks(&l, m->begin, 12, ticks, 64);
	fprintf(devnull, "%g %g\n", sum, layout_ns_per_px(&l));
	layout_free(&l);
}

static inline void fuzz_outputs(const struct kg_model *m, const struct kg_analysis *a)
{
	check_page("report", write_report_text, a, 0);
	check_json("report --json", write_report_json, a, 1);
	check_json("export --format perfetto", write_chrome, m, 0);
	for (int t = KG_TABLE_OPS; t <= KG_TABLE_SYNCS; t++) {
		struct kg_export_opts o = {.format = KG_EXPORT_CSV, .table = (enum kg_export_table)t};
		export_csv(devnull, m, &o);
	}
	struct kg_view_opts vo = {.trace_path = "in.json", .tool_version = "kgantt fuzz"};
	view_html(devnull, a, &vo);
	fuzz_layout(m);
}

/* The chart itself (SVG, cairo) and its JSON manifest, which must parse. Drawing costs
 * milliseconds, so an eighth of the inputs get it. */
static inline void fuzz_plot(const struct kg_model *m, const struct kg_analysis *a)
{
	if (m->begin == KG_NO_TIME)
		return;
	struct kg_plot_opts o = {
		.format = KG_PLOT_SVG, .t0 = m->begin,
		.t1 = m->end > m->begin ? m->end : kg_time_add(m->begin, 1), .origin = m->begin,
		.width = 800, .dpi = 96, .device = -1, .trace_name = "in.json", .host_lanes = 1,
	};
	if (!plot_count_ops(m, &o)) /* kgantt plot refuses an empty picture */
		return;
	char svg[PATH_MAX + 64], manifest[PATH_MAX + 64], err[PATH_MAX + 512];
	fuzz_path("plot.svg", svg, sizeof(svg));
	fuzz_path("plot.json", manifest, sizeof(manifest));
	struct kg_plot_notes notes = {a};
	int rc = plot_render(m, &notes, &o, svg, manifest, err, sizeof(err));
	if (rc == -ENOMEM || rc == -EFBIG)
		return;
	if (rc) {
		fprintf(stderr, "%s: plot failed: %s\n", fuzz_target, err);
		abort();
	}
	FILE *f = fopen(manifest, "rb");
	char *text = NULL;
	size_t len = 0;
	FILE *mem = f ? open_memstream(&text, &len) : NULL;
	for (int c; mem && (c = fgetc(f)) != EOF;)
		fputc(c, mem);
	if (mem)
		fclose(mem);
	if (f)
		fclose(f);
	if (text)
		check_text("plot manifest", text, len);
	free(text);
}

/* The middle half of the trace, as report --from/--to would cut it, analysed and compared
 * with the whole. */
static inline void fuzz_window(const struct kg_model *m, const struct kg_analysis *whole)
{
	if (m->begin == KG_NO_TIME || m->end <= m->begin)
		return;
	/* halves before subtracting: end - begin may not fit in int64 */
	int64_t quarter = m->end / 4 - m->begin / 4;
	struct kg_model cut;
	if (model_clone(m, &cut) < 0)
		return;
	struct kg_analysis a;
	if (model_restrict(&cut, m->begin + quarter, m->end - quarter) == 0 &&
	    analysis_run(&cut, NULL, &a) == 0) {
		fuzz_diff(whole, &a);
		analysis_free(&a);
		/* ... and with the whole run's steps given, every GPU's, and its launch stacks,
		 * as report's analysis of its steady steps takes them (cli/session.c) */
		struct kg_config cfg;
		analysis_config_default(&cfg);
		cfg.steps_given = &whole->steps;
		cfg.gpu_steps_given = whole->gpu_steps;
		cfg.n_gpu_steps_given = whole->gpu_steps ? whole->n_gpus : 0;
		cfg.launch_stacks_given = &whole->launch_stacks;
		if (analysis_run(&cut, &cfg, &a) == 0) {
			fuzz_outputs(&cut, &a);
			analysis_free(&a);
		}
	}
	model_free(&cut);
}

/* export --format sqlite, read back: what kgantt writes, kgantt must read. A kgantt
 * trace is copied from its file, as rows: a file SQLite itself finds damaged (quick_check)
 * may load and fail there with SQLite's message (a damaged b-tree gives a row twice: a
 * UNIQUE constraint), which a reader does not look for (docs/results/fuzz.md). */
static inline void fuzz_round_trip(const struct kg_model *m)
{
	char path[PATH_MAX + 64], err[1024] = "";
	fuzz_path("export.kgt", path, sizeof(path));
	struct kg_export_opts o = {.format = KG_EXPORT_SQLITE};
	int rc = export_sqlite(path, m, &o, err, sizeof(err));
	if (rc == -ENOMEM)
		return;
	if (rc && err[0] && !strcmp(m->source, "kgantt") && fuzz_sqlite_damaged(m->path))
		return;
	if (rc) {
		fprintf(stderr, "%s: export --format sqlite failed: %s\n", fuzz_target, err);
		abort();
	}
	struct kg_model back;
	if (model_load(path, &back, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s: the exported trace does not load: %s\n", fuzz_target, err);
		abort();
	}
	model_free(&back);
}

/* Everything above on m (a loaded model); data/size choose the optional steps. */
static inline void fuzz_pipeline(const struct kg_model *m, const uint8_t *data, size_t size,
				 int full)
{
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	struct kg_analysis a;
	if (analysis_run(m, NULL, &a) == 0) {
		fuzz_outputs(m, &a);
		if (full && size && data[size / 3] % 8 == 0)
			fuzz_plot(m, &a);
		if (full)
			fuzz_window(m, &a);
		analysis_free(&a);
	}
	if (full && size && (data[size / 2] & 3) == 0)
		fuzz_round_trip(m);
}

#endif
