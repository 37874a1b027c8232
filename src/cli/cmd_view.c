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
#include "cli/session.h"
#include "cli/settings.h"
#include "cli/shows.h"
#include "cli/trace_load.h"
#include "cli/window.h"
#include "model/load.h"
#include "render/view.h"
#include "util/outfile.h"


struct view_args {
	const char *out;         /* -o; NULL: TRACE's base name + .html */
	int quiet;
	struct cli_session s;    /* the trace, --from/--to/--nvtx, --set, --no-progress */
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
		"  --no-progress           no progress line while loading\n"
		"  -q, --quiet             do not say where the page was written\n"
		"  -h, --help              this help\n"
		"\n"
		"Exit status: 0 ok, 1 bad input or a failed write, 2 wrong command line.\n");
}

/* A time after the trace begin: "120" (ms), "120ms", "1.5s", "250us", "800ns". The same
 * syntax as kgantt report's --from/--to. */

/* One option: -1 to go on, or the exit code when it ends the command. */
static int take_option(int c, const char *arg, struct view_args *v)
{
	int shared = cli_session_option(&v->s, c, arg);
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
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;
	optind = 1;
	while ((c = cli_getopt("view", argc, argv, "o:qh", longopts)) != -1)
		if ((rc = take_option(c, optarg, v)) >= 0)
			return rc;
	if ((rc = cli_session_check(&v->s)) >= 0)
		return rc;
	if (optind + 1 != argc) {
		kg_err(optind == argc ? "view: no trace given" : "view: one trace at a time");
		view_usage(stderr);
		return KG_EXIT_USAGE;
	}
	v->s.path = argv[optind];
	return -1;
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
	struct view_args v = {.s = {.cmd = "view"}};
	int rc = parse_args(argc, argv, &v);
	if (rc >= 0)
		return rc;
	char out[4096];
	if (v.out)
		snprintf(out, sizeof(out), "%s", v.out);
	else
		default_output(v.s.path, out, sizeof(out));
	if ((rc = check_output(v.s.path, out)) != KG_EXIT_OK)
		return rc;
	if ((rc = cli_session_open(&v.s)) != KG_EXIT_OK)
		return rc;
	struct kg_view_opts o = {.trace_path = v.s.path, .tool_version = "kgantt " KGANTT_VERSION};
	CLI_SESSION_WINDOW_INTO(&o, &v.s);
	if ((rc = cli_session_analyse(&v.s)) == KG_EXIT_OK)
		rc = write_and_say(out, &v.s.a, &o, v.quiet);
	cli_session_close(&v.s);
	return rc;
}
