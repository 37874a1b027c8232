/* What `kgantt record` does once the trace exists: the diagnosis in a few lines, and on
 * request the whole report, the chart and the HTML page. */
#ifndef KGANTT_CLI_RECORD_SUMMARY_H
#define KGANTT_CLI_RECORD_SUMMARY_H

struct record_after {
	const char *trace;  /* the trace just written */
	int quiet;          /* -q: no summary, no hints ("wrote" lines neither) */
	int report;         /* --report: the text page of `kgantt report` on stdout */
	int color;          /* --color, for --report */
	const char *plot;   /* --plot FILE: the chart of `kgantt plot`; NULL none */
	const char *view;   /* --view FILE: the page of `kgantt view`; NULL none */
};

/* Loads and analyses the trace once, then prints and writes what o asks for. Every part
 * is tried even when another failed. KG_EXIT_OK, or KG_EXIT_FAILURE after saying what
 * failed (nothing to show because CUPTI refused, a load, analysis or write error). */
int record_after(const struct record_after *o);

#endif
