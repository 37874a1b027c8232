/* kgantt's one JSON writer: `report --json`, `diff --json`, the job report, the pages of
 * `view` (inside an HTML <script>) and `export`'s trace-event JSON.
 *
 * A streaming generator, buffered: the document is written to f in 64 KiB pieces as it is
 * made, so memory does not grow with it. Strings are escaped as JSON needs (quotes,
 * backslashes, control characters); j_str also makes them valid UTF-8 (U+FFFD for each
 * bad byte), as JSON.parse and Python's json need. Three layouts:
 *
 *   jw_begin          beautified, two spaces a level (yajl's layout, which the reports
 *                     have always had: `"key": value`, an empty array as "[\n\n  ]")
 *   jw_begin_compact  no white space at all (export: a million events)
 *   jw_begin_html     compact, and '<', '>', '&', '/', U+2028 and U+2029 escaped in
 *                     strings, so that no string can close the <script> element or run
 *                     as markup
 *
 * A malformed document (a value where a key must be, a close without an open, nesting
 * deeper than 128) sets failed, as a failed write does. */
#ifndef KGANTT_JSON_WRITER_H
#define KGANTT_JSON_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

#define JW_MAX_DEPTH 128

struct jw {
	FILE *f;
	char *buf;      /* what is not yet written to f */
	size_t n, cap;
	int failed;     /* a write failed, memory ran out, or the document is malformed */
	int nomem;      /* what failed was an allocation */
	int write_errno; /* errno of the first failed write; 0 when none failed */
	int pretty, html;
	unsigned depth;
	unsigned char state[JW_MAX_DEPTH];
	char *clean;    /* utf8_clean's scratch */
	size_t clean_cap;
};

/* A beautified writer to f; 0, or -1 when out of memory. */
int jw_begin(struct jw *w, FILE *f);
/* The same without white space. */
int jw_begin_compact(struct jw *w, FILE *f);
/* Writes what is left, frees the writer and ends the document with a newline: 0, or -1
 * when a write failed or the document was malformed. */
int jw_end(struct jw *w);
/* A compact writer for a document inside an HTML <script> element (see above); 0, or -1
 * when out of memory. jw_end_html ends it (no newline). */
int jw_begin_html(struct jw *w, FILE *f);
int jw_end_html(struct jw *w);

void j_str(struct jw *w, const char *s);            /* NULL is null */
void j_strn(struct jw *w, const char *s, size_t n); /* n bytes of valid UTF-8, as they are */
void j_key(struct jw *w, const char *k);
/* With a key that is a string literal of plain ASCII (no quote, backslash or control
 * character): written without a look at its bytes, and in the compact layout a key and
 * its value in one call (the export's millions of "ts" and "dur"). */
#define j_key_lit(w, k) j_plain(w, "" k, sizeof(k) - 1)
#define kv_str_lit(w, k, v) jw_kv_str(w, "" k, sizeof(k) - 1, v)
#define kv_int_lit(w, k, v) jw_kv_int(w, "" k, sizeof(k) - 1, v)
#define kv_milli_lit(w, k, v) jw_kv_milli(w, "" k, sizeof(k) - 1, v)
#define kv_bool_lit(w, k, v) jw_kv_bool(w, "" k, sizeof(k) - 1, v)
void j_plain(struct jw *w, const char *k, size_t n);
void jw_kv_str(struct jw *w, const char *k, size_t kn, const char *v);
void jw_kv_int(struct jw *w, const char *k, size_t kn, long long v);
void jw_kv_milli(struct jw *w, const char *k, size_t kn, int64_t v);
void jw_kv_bool(struct jw *w, const char *k, size_t kn, int v);
void j_int(struct jw *w, long long v);
void j_time(struct jw *w, int64_t v);   /* KG_NO_TIME is null */
void j_num(struct jw *w, double v);     /* six significant digits; non-finite is null */
void j_milli(struct jw *w, int64_t v);  /* v / 1000 exactly, three decimals: "-0.005" */
void j_pct(struct jw *w, double part, double whole); /* null when whole is 0 */
void j_bool(struct jw *w, int v);
void j_null(struct jw *w);
void j_open(struct jw *w);
void j_close(struct jw *w);
void j_aopen(struct jw *w);
void j_aclose(struct jw *w);
void j_text(struct jw *w, const struct kg_model *m, uint32_t id); /* null for 0 */
void kv_str(struct jw *w, const char *k, const char *v);
void kv_int(struct jw *w, const char *k, long long v);
void kv_time(struct jw *w, const char *k, int64_t v);
void kv_num(struct jw *w, const char *k, double v);
void kv_bool(struct jw *w, const char *k, int v);
void kv_pct(struct jw *w, const char *k, double part, double whole);
void kv_opt_int(struct jw *w, const char *k, int known, long long v);

/* A JSON string literal of s (NULL: "") written straight to f, made valid UTF-8 and
 * escaped as the writer's strings are: for a file laid out by hand (the chart's manifest,
 * one record a line). Errors show in ferror(f). */
void jw_put_string(FILE *f, const char *s);

/* The decimal text of v into out (at least 21 bytes), no terminator; its length. What
 * j_int writes; the CSV export's numbers too (millions of them: a hand-written loop). */
size_t jw_i64_text(char *out, int64_t v);
/* v / 1000 with exactly three decimals ("123456.789", "-0.005"), never through a double;
 * out: at least 25 bytes; the length. What j_milli writes. */
size_t jw_milli_text(char *out, int64_t v);

#endif
