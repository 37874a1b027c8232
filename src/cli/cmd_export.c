/* kgantt export: a trace of any supported format written out for other tools — Chrome
 * trace-event JSON for ui.perfetto.dev and chrome://tracing, CSV for pandas, or a kgantt
 * trace (SQLite). docs/export.md describes each format. */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "cli/write_output.h"
#include "export/export.h"
#include "model/load.h"
#include "util/outfile.h"

struct export_args {
	int format, table;     /* --format, --table: indices into formats, tables; -1 none */
	struct kg_export_opts o;
	const char *output;    /* NULL or "-": standard output */
	struct cli_session s;  /* the trace, --from/--to/--nvtx, --no-progress */
};

/* In the order of enum kg_export_format and enum kg_export_table. */
static const char *const formats[] = {"chrome", "perfetto", "csv", "sqlite", "folded",
				      "speedscope", NULL};
static const char *const tables[] = {"ops", "apis", "ranges", "syncs", "host", NULL};

static const char *const usage_lines[] = {"export --format FORMAT [options] TRACE", NULL};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Writes a trace (kgantt, PyTorch profiler JSON, or Nsight Systems SQLite export)\n"
		 "in a format other tools read.\n",
	.footer = "Exit status: 0 ok, 1 bad input or a failed write, 2 wrong command line.\n",
};

/* The combinations that make no sense. -1 when the command line is fine. */
static int check_args(struct export_args *r)
{
	if (r->format < 0)
		return cli_usage_error("--format is required (perfetto, chrome, csv, sqlite, folded "
				       "or speedscope)");
	r->o.format = (enum kg_export_format)r->format;
	if (r->table >= 0 && r->o.format != KG_EXPORT_CSV) {
		kg_err("--table is for --format csv");
		return KG_EXIT_USAGE;
	}
	r->o.table = r->table >= 0 ? (enum kg_export_table)r->table : KG_TABLE_OPS;
	if (r->o.format == KG_EXPORT_FOLDED || r->o.format == KG_EXPORT_SPEEDSCOPE) {
		/* the tree of report --host: the analysis of the steady steps, as report's */
		r->s.no_analysis = 0;
		r->s.steady_cut = 1;
		r->s.load.any_span = 0; /* analysed: times on one clock or none */
	} else if (r->s.whole_run) {
		kg_err("--whole is for --format folded and speedscope");
		return KG_EXIT_USAGE;
	}
	if (r->o.format == KG_EXPORT_SQLITE && (!r->output || !strcmp(r->output, "-"))) {
		kg_err("--format sqlite writes a database file: give it with -o FILE");
		return KG_EXIT_USAGE;
	}
	/* a kgantt trace exported whole is copied from its file (export_sqlite), not from the
	 * model: its kernels and API calls are counted, not loaded (a third of the time) */
	r->s.load.copy_only = r->o.format == KG_EXPORT_SQLITE && !window_given(&r->s.window);
	return -1;
}

/* ---------------------------------------------------------------- loading */

/* ---------------------------------------------------------------- writing */

static int write_text(FILE *f, const struct export_args *r, const struct kg_model *m,
		      const struct kg_analysis *a)
{
	switch (r->o.format) {
	case KG_EXPORT_CSV:
		return export_csv(f, m, &r->o);
	case KG_EXPORT_FOLDED:
		return export_folded(f, a);
	case KG_EXPORT_SPEEDSCOPE:
		return export_speedscope(f, a, r->s.path);
	default:
		return export_chrome(f, m, &r->o);
	}
}

/* -o FILE, '-' or nothing (standard output), through util/outfile.h: a file is written
 * beside FILE and renamed over it when complete; a FIFO or a device directly. */
struct text_export {
	const struct export_args *r;
	const struct kg_model *m;
	const struct kg_analysis *a;
};

static int write_export(FILE *f, const void *arg)
{
	const struct text_export *t = arg;
	return write_text(f, t->r, t->m, t->a);
}

static int to_output(const struct export_args *r, const struct kg_model *m,
		     const struct kg_analysis *a)
{
	struct text_export t = {r, m, a};
	return cli_write_output(r->output ? r->output : "-", "the export", write_export, &t);
}

static int to_sqlite(const struct export_args *r, const struct kg_model *m)
{
	char err[1024];
	if (export_sqlite(r->output, m, &r->o, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

/* The output may replace a file, never the trace it comes from; said before the load. */
static int check_output(const struct export_args *r)
{
	char err[PATH_MAX + 512];
	struct kg_outfile_opts oo = {
		.what = r->o.format == KG_EXPORT_SQLITE ? "the trace" : "the export",
		.flags = r->o.format == KG_EXPORT_SQLITE ? KG_OUT_REGULAR : 0,
	};
	outfile_protect(r->s.path, "the input trace");
	if (outfile_check(r->output ? r->output : "-", &oo, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

static int export_one(struct cli_session *s, void *arg)
{
	struct export_args *r = arg;
	r->o.windowed = s->cut.windowed;
	r->o.window_begin = s->cut.begin;
	r->o.window_end = s->cut.end;
	r->o.window_nvtx = s->cut.nvtx;
	int flame = r->o.format == KG_EXPORT_FOLDED || r->o.format == KG_EXPORT_SPEEDSCOPE;
	if (flame && (!s->a.host.on || !s->a.host.n_nodes)) {
		kg_err("'%s' has no host activity while the GPU waited to export: it needs host "
		       "samples (%s) or a profiler trace's host events", s->path,
		       source_host_samples(s->m.source));
		return KG_EXIT_FAILURE;
	}
	return r->o.format == KG_EXPORT_SQLITE ? to_sqlite(r, &s->m) : to_output(r, &s->m, &s->a);
}

int cmd_export(int argc, char **argv)
{
	struct export_args r = {.format = -1, .table = -1, .s = {.no_analysis = 1, .load.any_span = 1}};
	const struct cli_option opts[] = {
		OPT_CHOICE('f', "format", &r.format, "FORMAT", formats, "a format",
			   "perfetto  trace-event JSON for ui.perfetto.dev, with each kernel's time "
			   "in its queue as a slice\n"
			   "chrome    the same JSON without the queue slices, for chrome://tracing\n"
			   "csv       one row per GPU operation, for pandas\n"
			   "sqlite    a kgantt trace (needs -o)\n"
			   "folded    what the host did while the GPU waited (report --host), as "
			   "folded stacks for flame graphs: a line a path, its time in ns\n"
			   "speedscope  the same as speedscope's JSON (speedscope.app)"),
		OPT_STRING('o', "output", &r.output, "FILE",
			   "write FILE (default, or '-': standard output); replaced if it exists, "
			   "never the TRACE (written beside it, renamed when complete); a FIFO or a "
			   "device is written directly"),
		OPT_CHOICE(0, "table", &r.table, "TABLE", tables, "a table",
			   "csv: ops (default), apis, ranges, syncs or host (what the host "
			   "threads were doing: a row per sample's period or profiler host event)"),
		OPT_BOOL(0, "whole", &r.s.whole_run,
			 "folded, speedscope: of the whole run, start-up and warm-up counted in "
			 "(the default: its steady steps, as report's)"),
		CLI_WINDOW_OPTIONS(&r.s),
		OPT_BOOL('q', "quiet", NULL, "print nothing but errors (the default on success)"),
		OPT_END(),
	};
	static const struct cli_show show = {.one = export_one};
	int rc = cli_parse(&usage, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if ((rc = check_args(&r)) >= 0)
		return rc;
	if (optind + 1 != argc)
		return cli_usage_error(optind == argc ? "no trace given" : "one trace at a time");
	if ((rc = cli_session_paths(&r.s, 1, argv + optind)) >= 0)
		return rc;
	if ((rc = check_output(&r)) != KG_EXIT_OK)
		return rc;
	return cli_session_run(&r.s, &show, &r);
}
