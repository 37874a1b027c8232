/* The report of one analysed trace (analysis/analysis.h): a terminal page and a JSON
 * document with the same content. `kgantt report` prints them; the pieces (sections,
 * time and name formatting) are here so that other views can reuse them.
 *
 *   struct kg_report_opts o = { .top = 10, .color = isatty(1) };
 *   report_text(stdout, &a, &o);       or      report_json(stdout, &a, &o);
 *
 * docs/report.md describes the page and every JSON field. */
#ifndef KGANTT_REPORT_H
#define KGANTT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "util/format.h"
#include "text/names.h"
#include "text/page.h"

#define KG_REPORT_VERSION 1   /* "kgantt_report_version" of the JSON document */

struct kg_report_opts {
	int top;                  /* kernel names shown; 0 = all */
	int finding_sites;        /* call sites shown under each finding (default 3) */
	int sites;                /* the call-site table: how many rows, 0 = no table (text);
				   * JSON always lists every site */
	int host;                 /* the tree of host activity while the GPU waited (text;
				   * JSON has it whenever the trace has host spans) */
	int color;                /* ANSI bold/red/yellow (text only) */
	int steps;                /* the Steps section lists every step (text only) */
	const char *const *overrides; /* the --set assignments, for the JSON's record */
	int n_overrides;
	/* The model was restricted to a window (model_restrict): where it lay in the whole
	 * trace, so that the page can say what it covers. */
	int windowed;
	const char *window_nvtx;      /* the range name that chose it, NULL for --from/--to */
	int64_t window_begin, window_end;
	int64_t trace_begin, trace_end; /* of the whole trace */
};

/* Both return 0, or -EIO when writing failed (the caller reports it). */
int report_text(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);
int report_json(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);

/* The sections of the text page, in page order. */
void report_text_header(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);
void report_text_gpus(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);
void report_text_steps(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);
/* The header's line of what the steady steps leave out, and why (report_steps.c). */
void report_text_steps_header(FILE *f, const struct kg_analysis *a);
struct jw;
/* The "steps" object of the JSON (report_steps.c). */
void report_json_steps(struct jw *w, const struct kg_analysis *a);
void report_text_streams(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);
void report_text_kernels(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);
void report_text_findings(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);
void report_text_sites(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);
void report_text_host(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o);
/* The first max findings, one line each and width columns at most (the title is cut):
 * "  #1 [critical] rule: title…  48.8 ms (79.3%)". What `kgantt record` prints when the
 * program ends; nothing when there are none. */
void report_text_brief(FILE *f, const struct kg_analysis *a, uint32_t max, size_t width);

#endif
