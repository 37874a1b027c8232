/* A finding written out, one way for every command: the report, the job report, the
 * chart's page, diff and record's summary all call these (docs/report.md describes the
 * text and every JSON field). */
#ifndef KGANTT_FINDING_OUT_H
#define KGANTT_FINDING_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "job/job.h"
#include "text/json_writer.h"

/* Where the findings were found, and how they are to be written. */
struct kg_finding_place {
	const struct kg_analysis *a;  /* in one trace: its times, streams, GPUs, call sites */
	const struct kg_job *j;       /* ... or in a job: its ranks */
	int color;                    /* text: ANSI tones */
	int sites;                    /* text: call sites shown under each finding */
	int64_t zero;                 /* JSON: times as ns after this (0: as in the trace) */
	int site_refs;                /* JSON: a finding's sites by number only (the page holds
				       * their stacks once) */
};

/* "#1 [critical] rule: title", then its gain, when (or which rank), where, evidence, why,
 * the fix and its figures, each a labelled field wrapped to the page. number: its place
 * in the list, from 1. */
void finding_text(FILE *f, const struct kg_finding_place *p, const struct kg_finding *fd,
		  uint32_t number);
/* One line, indent spaces in: "#1 [critical] rule: title  48.8 ms (79.3%)"; with width,
 * the title is cut ("…") so that the line fits; without (0), it wraps under itself. */
void finding_text_brief(FILE *f, const struct kg_finding *fd, uint32_t number, size_t indent,
			size_t width);
/* The finding as an object: every field (number: "rank"). */
void finding_json(struct jw *w, const struct kg_finding_place *p, const struct kg_finding *fd,
		  uint32_t number);
/* ... in brief: rule, severity, title, gain_ns, gain_pct. */
void finding_json_brief(struct jw *w, const struct kg_finding *fd);
/* A call site's parts and the whole stack of one of its calls, innermost first, as keys
 * of the object being written (the report's site table and its findings' sites). */
void site_json_body(struct jw *w, const struct kg_analysis *a, const struct kg_site *s);
/* "data loading 62% (46.1 ms), op dispatch 20% (15 ms)": the causes (analysis/host.h)
 * that take 1 % of total or more, largest first; malloc'ed, NULL when none (or out of
 * memory). */
char *host_causes_text(const double *cause_ns, double total);
/* "causes": [{cause, ns, share}], the causes with time, share of total (0–1). */
void host_causes_json(struct jw *w, const double *cause_ns, double total);
/* A node of the tree of host activity (analysis/host.h): a frame as the sites write one,
 * or {"kind": "cuda_call" | "state" | "not_seen", "function": its name}. */
void host_node_json(struct jw *w, const struct kg_analysis *a, uint32_t node);

#endif
