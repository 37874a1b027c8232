/* kgantt view: load a trace of any supported format, analyse it, and write the
 * interactive timeline as one self-contained HTML file (render/view.h, docs/view.md).
 * The file appears whole or not at all (util/outfile.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "cli/settings.h"
#include "cli/shows.h"
#include "cli/trace_load.h"
#include "cli/window.h"
#include "model/load.h"
#include "render/view.h"
#include "util/outfile.h"


struct view_args {
	const char *out;         /* -o; NULL: TRACE's base name + .html */
	struct cli_sets sets;  /* --set */
	int has_from, has_to, quiet;
	int64_t from, to;        /* --from/--to: ns after the trace begin */
	const char *nvtx;
	const char *path;
};

static void view_usage(FILE *f)
{
	fprintf(f,
		"usage: kgantt view [options] TRACE [-o OUT.html]\n"
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
		"  -q, --quiet             do not say where the page was written\n"
		"  -h, --help              this help\n"
		"\n"
		"Exit status: 0 ok, 1 bad input or a failed write, 2 wrong command line.\n");
}

/* A time after the trace begin: "120" (ms), "120ms", "1.5s", "250us", "800ns". The same
 * syntax as kgantt report's --from/--to. */

enum { OPT_FROM = 256, OPT_TO, OPT_NVTX, OPT_SET };

/* One option: -1 to go on, or the exit code when it ends the command. */
static int take_option(int c, const char *arg, struct view_args *v)
{
	switch (c) {
	case 'o': v->out = arg; return -1;
	case 'q': v->quiet = 1; return -1;
	case OPT_NVTX: v->nvtx = arg; return -1;
	case OPT_SET: return cli_take_set("view", &v->sets, arg);
	case OPT_FROM:
	case OPT_TO:
		return c == OPT_FROM ? window_take_time("from", arg, &v->from, &v->has_from)
				     : window_take_time("to", arg, &v->to, &v->has_to);
	case 'h': view_usage(stdout); return finish_stdout(KG_EXIT_OK);
	default: return KG_EXIT_USAGE; /* cli_getopt said why */
	}
}

static int parse_args(int argc, char **argv, struct view_args *v)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"from", required_argument, NULL, OPT_FROM},
		{"to", required_argument, NULL, OPT_TO},
		{"nvtx", required_argument, NULL, OPT_NVTX},
		{"set", required_argument, NULL, OPT_SET},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;
	optind = 1;
	while ((c = cli_getopt("view", argc, argv, "o:qh", longopts)) != -1)
		if ((rc = take_option(c, optarg, v)) >= 0)
			return rc;
	struct kg_window w = {v->from, v->to, v->has_from, v->has_to, v->nvtx};
	if ((rc = window_check(&w)) >= 0)
		return rc;
	if (optind + 1 != argc) {
		kg_err(optind == argc ? "view: no trace given" : "view: one trace at a time");
		view_usage(stderr);
		return KG_EXIT_USAGE;
	}
	v->path = argv[optind];
	return -1;
}

/* Restricts the model to the --from/--to/--nvtx window and records it in o. */
static int apply_window(const struct view_args *v, struct kg_model *m, struct kg_view_opts *o)
{
	struct kg_window w = {v->from, v->to, v->has_from, v->has_to, v->nvtx};
	struct kg_window_cut cut;
	int rc = window_apply("view", &w, v->path, m, &cut);
	if (cut.windowed) {
		o->windowed = 1;
		o->window_nvtx = cut.nvtx;
		o->window_begin = cut.begin;
		o->window_end = cut.end;
		o->trace_begin = cut.trace_begin;
		o->trace_end = cut.trace_end;
	}
	return rc;
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

/* Writes the page through util/outfile.h: a temporary file beside out, renamed over it
 * (a FIFO, a device or '-' written directly). */
static int write_page(const char *out, const struct kg_analysis *a, const struct kg_view_opts *o)
{
	struct kg_outfile of;
	struct kg_outfile_opts oo = {.what = "the page"};
	FILE *f = outfile_open(&of, out, &oo);
	if (!f) {
		kg_err("%s", of.err);
		return KG_EXIT_FAILURE;
	}
	errno = 0;
	int rc = view_html(f, a, o);
	if (rc < 0) {
		int e = errno ? errno : EIO;
		kg_err("cannot write '%s': %s", out,
		       rc == -ENOMEM ? "out of memory" : rc == -EINVAL ? "the page template is damaged"
		       : strerror(e));
		outfile_abort(&of);
		return KG_EXIT_FAILURE;
	}
	if (outfile_commit(&of) < 0) {
		kg_err("%s", of.err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

/* Writes the page and says where, unless quiet or written to standard output. */
static int write_and_say(const char *out, const struct kg_analysis *a,
			 const struct kg_view_opts *o, int quiet)
{
	int rc = write_page(out, a, o);
	if (!rc && !quiet && strcmp(out, "-") != 0)
		fprintf(stderr, "kgantt: wrote '%s' (%u GPU operations, %u findings)\n", out,
			a->m->n_ops, a->n_findings);
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

int cmd_view(int argc, char **argv)
{
	struct view_args v = {0};
	int rc = parse_args(argc, argv, &v);
	if (rc >= 0)
		return rc;
	struct kg_config cfg;
	cli_config(&v.sets, &cfg);
	char out[4096];
	if (v.out)
		snprintf(out, sizeof(out), "%s", v.out);
	else
		default_output(v.path, out, sizeof(out));
	if ((rc = check_output(v.path, out)) != KG_EXIT_OK)
		return rc;

	struct kg_model m;
	if ((rc = cli_load_trace("view", v.path, &m, NULL)) != KG_EXIT_OK)
		return rc;
	struct kg_view_opts o = {.trace_path = v.path, .tool_version = "kgantt " KGANTT_VERSION};
	rc = apply_window(&v, &m, &o);
	struct kg_analysis a;
	if (!rc && (rc = analysis_run(&m, &cfg, &a)) < 0) {
		kg_err("cannot analyse '%s': %s", v.path, strerror(-rc));
		rc = KG_EXIT_FAILURE;
	}
	if (rc) {
		model_free(&m);
		return rc;
	}
	rc = write_and_say(out, &a, &o, v.quiet);
	analysis_free(&a);
	model_free(&m);
	return rc;
}
