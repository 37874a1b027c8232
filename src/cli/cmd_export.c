/* kgantt export: a trace of any supported format written out for other tools — Chrome
 * trace-event JSON for ui.perfetto.dev and chrome://tracing, CSV for pandas, or a kgantt
 * trace (SQLite). docs/export.md describes each format. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/write_output.h"
#include "cli/session.h"
#include "cli/trace_load.h"
#include "cli/window.h"
#include "export/export.h"
#include "model/load.h"
#include "util/outfile.h"

struct export_args {
	int has_format, has_table;
	struct kg_export_opts o;
	const char *output;    /* NULL or "-": standard output */
	struct cli_session s;  /* the trace, --from/--to/--nvtx, --no-progress */
};

static void export_usage(FILE *f)
{
	fprintf(f,
		"usage: kgantt export --format FORMAT [options] TRACE\n"
		"\n"
		"Writes a trace (kgantt, PyTorch profiler JSON, or Nsight Systems SQLite export)\n"
		"in a format other tools read:\n"
		"\n"
		"  -f, --format FORMAT     perfetto  trace-event JSON for ui.perfetto.dev, with each\n"
		"                                    kernel's time in its queue as a slice\n"
		"                          chrome    the same JSON without the queue slices, for\n"
		"                                    chrome://tracing\n"
		"                          csv       one row per GPU operation, for pandas\n"
		"                          sqlite    a kgantt trace (needs -o)\n"
		"  -o, --output FILE       write FILE (default, or '-': standard output); replaced if\n"
		"                          it exists, never the TRACE (written beside it, renamed\n"
		"                          when complete); a FIFO or a device is written directly\n"
		"  --table TABLE           csv: ops (default), apis, ranges or syncs\n"
		"  --from T, --to T        only what was launched in this window, T after the\n"
		"                          trace begin (ms, or with a unit: 250us, 1.5s)\n"
		"  --nvtx NAME             only what was launched in the NVTX or annotation ranges\n"
		"                          named NAME (or starting with it: ProfilerStep)\n"
		"  --no-progress           no progress line while loading\n"
		"  -q, --quiet             print nothing but errors (the default on success)\n"
		"  -h, --help              this help\n"
		"\n"
		"Exit status: 0 ok, 1 bad input or a failed write, 2 wrong command line.\n");
}

/* A time after the trace begin: "120" (ms), "120ms", "1.5s", "250us", "800ns" — as in
 * kgantt report. */

static int pick(const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	return -1;
}

enum { OPT_TABLE = 256 };

/* One option: -1 to go on, or the exit code when it ends the command. */
static int take_option(int c, const char *arg, struct export_args *r)
{
	static const char *const formats[] = {"chrome", "perfetto", "csv", "sqlite"};
	static const char *const tables[] = {"ops", "apis", "ranges", "syncs"};
	int v, shared = cli_session_option(&r->s, c, arg);
	if (shared != CLI_NOT_MINE)
		return shared;
	switch (c) {
	case 'f':
		if ((v = pick(arg, formats, 4)) < 0) {
			kg_err("--format: '%s' is not a format (perfetto, chrome, csv, sqlite)", arg);
			return KG_EXIT_USAGE;
		}
		r->o.format = (enum kg_export_format)v;
		r->has_format = 1;
		return -1;
	case OPT_TABLE:
		if ((v = pick(arg, tables, 4)) < 0) {
			kg_err("--table: '%s' is not a table (ops, apis, ranges, syncs)", arg);
			return KG_EXIT_USAGE;
		}
		r->o.table = (enum kg_export_table)v;
		r->has_table = 1;
		return -1;
	case 'o': r->output = arg; return -1;
	case 'q': return -1; /* export says nothing on success: accepted, as by every command */
	case 'h': export_usage(stdout); return finish_stdout(KG_EXIT_OK);
	default: return KG_EXIT_USAGE; /* cli_getopt said why */
	}
}

/* The combinations that make no sense. -1 when the command line is fine. */
static int check_args(struct export_args *r)
{
	if (!r->has_format) {
		kg_err("export: --format is required (perfetto, chrome, csv or sqlite)");
		return KG_EXIT_USAGE;
	}
	if (r->has_table && r->o.format != KG_EXPORT_CSV) {
		kg_err("--table is for --format csv");
		return KG_EXIT_USAGE;
	}
	if (r->o.format == KG_EXPORT_SQLITE && (!r->output || !strcmp(r->output, "-"))) {
		kg_err("--format sqlite writes a database file: give it with -o FILE");
		return KG_EXIT_USAGE;
	}
	return cli_session_check(&r->s);
}

static int parse_args(int argc, char **argv, struct export_args *r)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"table", required_argument, NULL, OPT_TABLE},
		CLI_SESSION_LOAD_OPTIONS,
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;
	optind = 1;
	while ((c = cli_getopt("export", argc, argv, "f:o:hq", longopts)) != -1)
		if ((rc = take_option(c, optarg, r)) >= 0)
			return rc;
	if ((rc = check_args(r)) >= 0)
		return rc;
	if (optind + 1 != argc) {
		kg_err(optind == argc ? "export: no trace given" : "export: one trace at a time");
		export_usage(stderr);
		return KG_EXIT_USAGE;
	}
	r->s.path = argv[optind];
	return -1;
}

/* ---------------------------------------------------------------- loading */

/* ---------------------------------------------------------------- writing */

static int write_text(FILE *f, const struct export_args *r, const struct kg_model *m)
{
	return r->o.format == KG_EXPORT_CSV ? export_csv(f, m, &r->o) : export_chrome(f, m, &r->o);
}

/* -o FILE, '-' or nothing (standard output), through util/outfile.h: a file is written
 * beside FILE and renamed over it when complete; a FIFO or a device directly. */
struct text_export {
	const struct export_args *r;
	const struct kg_model *m;
};

static int write_export(FILE *f, const void *arg)
{
	const struct text_export *t = arg;
	return write_text(f, t->r, t->m);
}

static int to_output(const struct export_args *r, const struct kg_model *m)
{
	struct text_export t = {r, m};
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
	outfile_protect("export", r->s.path, "the input trace");
	if (outfile_check(r->output ? r->output : "-", &oo, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
	struct export_args r = {.s = {.cmd = "export"}};
	int rc = parse_args(argc, argv, &r);
	if (rc >= 0)
		return rc;
	if ((rc = check_output(&r)) != KG_EXIT_OK || (rc = cli_session_open(&r.s)) != KG_EXIT_OK)
		return rc;
	r.o.windowed = r.s.cut.windowed;
	r.o.window_begin = r.s.cut.begin;
	r.o.window_end = r.s.cut.end;
	r.o.window_nvtx = r.s.cut.nvtx;
	rc = r.o.format == KG_EXPORT_SQLITE ? to_sqlite(&r, &r.s.m) : to_output(&r, &r.s.m);
	cli_session_close(&r.s);
	return rc;
}
