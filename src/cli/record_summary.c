/* kgantt record, after the trace is written: one command records and diagnoses
 * (`kgantt record --view run.html -- ./app`). The trace is loaded and analysed once, and
 * the summary, --report, --plot and --view all use that one analysis, through the code
 * and defaults of `kgantt report`, `plot` and `view` (cli/shows.h): nothing here draws
 * or formats a finding itself. The same runs on an existing trace through the hidden
 * `kgantt record --summarize-only TRACE`, which is how tests reach it without a GPU. */
#include "cli/record_summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "cli/session.h"
#include "cli/shows.h"
#include "report/report.h"

#define BRIEF_FINDINGS 5 /* a summary, not the report: the rest is one command away */

/* Whether record_after has anything to do: with -q and no output asked for, the trace is
 * not even loaded (a big one costs a second). */
static int record_after_wanted(const struct record_after *o)
{
	return !o->quiet || o->report || o->plot || o->view;
}

/* Columns of the terminal the summary goes to (stderr); the report's width when it is
 * not a terminal and COLUMNS does not say. */
static size_t terminal_width(void)
{
	struct winsize ws;
	if (isatty(STDERR_FILENO) && ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	long n = c ? strtol(c, NULL, 10) : 0;
	return n >= 40 && n <= 1000 ? (size_t)n : KG_PAGE_WIDTH;
}

/* s as one shell word, so that a hint can be pasted as it is: quoted when it holds
 * anything but the characters file names usually have. */
static const char *shell_word(const char *s, char *out, size_t len)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-./+,:@%=";
	if (*s && !s[strspn(s, plain)]) {
		snprintf(out, len, "%s", s);
		return out;
	}
	size_t o = 0;
	out[o++] = '\'';
	for (; *s && o + 6 < len; s++) {
		if (*s == '\'') { /* ' ends the quote, \' is the quote, ' opens it again */
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *s;
		}
	}
	out[o++] = '\'';
	out[o] = '\0';
	return out;
}

/* run.kgt → run.html: the trace's name with its extension replaced by ext. */
static void beside(const char *trace, const char *ext, char *out, size_t len)
{
	const char *slash = strrchr(trace, '/'), *dot = strrchr(trace, '.');
	const char *base = slash ? slash + 1 : trace;
	size_t n = dot && dot > base ? (size_t)(dot - trace) : strlen(trace);
	snprintf(out, len, "%.*s%s", (int)n, trace, ext);
}

static void print_findings(const struct record_after *o, const struct kg_analysis *a)
{
	uint32_t by[3] = {0, 0, 0};
	for (uint32_t i = 0; i < a->findings.n; i++)
		by[a->findings.v[i].severity <= KG_SEV_CRITICAL ? a->findings.v[i].severity : 0]++;
	if (!a->findings.n) {
		fprintf(stderr, "kgantt: no scheduling problem found in '%s'\n", o->trace);
		return;
	}
	fprintf(stderr, "kgantt: %u finding%s in '%s' (%u critical, %u warning, %u info)%s\n",
		a->findings.n, a->findings.n == 1 ? "" : "s", o->trace, by[KG_SEV_CRITICAL],
		by[KG_SEV_WARNING], by[KG_SEV_INFO], o->report ? "" : ", by estimated gain:");
	if (o->report) /* the page on stdout has them all */
		return;
	report_text_brief(stderr, a, BRIEF_FINDINGS, terminal_width());
	if (a->findings.n > BRIEF_FINDINGS)
		fprintf(stderr, "  ... and %u more\n", a->findings.n - BRIEF_FINDINGS);
}

/* The commands that show the rest; none for what was already written. */
static void print_hints(const struct record_after *o)
{
	char t[4200], out[4200], w[4200];
	shell_word(o->trace, t, sizeof(t));
	if (!o->report)
		fprintf(stderr, "kgantt: %-35s kgantt report %s\n", "every finding, its causes and fix:",
			t);
	if (!o->view) {
		beside(o->trace, ".html", out, sizeof(out));
		fprintf(stderr, "kgantt: %-35s kgantt view %s -o %s\n", "the interactive timeline:", t,
			shell_word(out, w, sizeof(w)));
	}
	if (!o->plot) {
		beside(o->trace, ".png", out, sizeof(out));
		fprintf(stderr, "kgantt: %-35s kgantt plot %s -o %s\n", "the Gantt chart:", t,
			shell_word(out, w, sizeof(w)));
	}
}

/* --report, --plot, --view: each tried, whatever became of the others. */
static int write_outputs(const struct record_after *o, struct cli_session *s)
{
	int rc = KG_EXIT_OK;
	if (o->report && report_show(s, o->color) != KG_EXIT_OK)
		rc = KG_EXIT_FAILURE;
	if (o->plot) {
		if (plot_show(s, o->plot) != KG_EXIT_OK)
			rc = KG_EXIT_FAILURE;
		else if (!o->quiet)
			fprintf(stderr, "kgantt: wrote '%s'\n", o->plot);
	}
	if (o->view && view_show(s, o->view, o->quiet) != KG_EXIT_OK)
		rc = KG_EXIT_FAILURE;
	return rc;
}

/* What record shows of the trace it wrote (cli_session_run's show). */
static int show_after(struct cli_session *s, void *arg)
{
	const struct record_after *o = arg;
	int rc = write_outputs(o, s);
	if (!o->quiet) {
		print_findings(o, &s->a);
		print_hints(o);
	}
	return rc;
}

int record_after(const struct record_after *o)
{
	static const struct cli_show show = {.one = show_after};
	if (!record_after_wanted(o))
		return KG_EXIT_OK;
	/* the steady steps, as report, plot and view judge them: one answer whichever asks */
	struct cli_session s = {.path = o->trace, .no_progress = 1, .keep_whole = 1,
				.steady_cut = 1};
	return cli_session_run(&s, &show, (void *)o);
}
