/* kgantt's one JSON writer: `report --json`, `diff --json`, the job report, the pages of
 * `view` (inside an HTML <script>) and `export`'s trace-event JSON.
 *
 * A streaming generator, buffered: the document is written to f in 256 KiB pieces as it is
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
#include <string.h>

#include "model/model.h"

#define JW_MAX_DEPTH 128

/* What the next token at a level may be (yajl's generator states). */
enum jw_state {
	JW_ST_START, JW_ST_MAP_START, JW_ST_MAP_KEY, JW_ST_MAP_VAL, JW_ST_ARRAY_START,
	JW_ST_IN_ARRAY, JW_ST_COMPLETE
};

struct jw {
	FILE *f;
	char *buf;      /* what is not yet written to f */
	size_t n, cap;
	int failed;     /* a write failed, memory ran out, or the document is malformed */
	int nomem;      /* what failed was an allocation */
	int write_errno; /* errno of the first failed write; 0 when none failed */
	int pretty, html;
	int fast_kv;    /* compact: a "key": value pair may be written in one go */
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
#define kv_plain_lit(w, k, v, vn) jw_kv_plain(w, "" k, sizeof(k) - 1, v, vn)
void j_plain(struct jw *w, const char *k, size_t n);
void jw_kv_str(struct jw *w, const char *k, size_t kn, const char *v);

/* The compact layout's "key": in one go, when a key may come here and it and vlen more
 * bytes fit in the buffer: where the value goes, the level already waiting for the key
 * after it. NULL: the writer's other ways (jw_kv_*_any) take it. Inline, as the export's
 * millions of pairs are: the key's copy is then a move or two. */
static inline char *jw_fast_key(struct jw *w, const char *k, size_t kn, size_t vlen)
{
	unsigned st = w->state[w->depth];
	if (!w->fast_kv || (st != JW_ST_MAP_KEY && st != JW_ST_MAP_START) ||
	    kn + vlen + 4 > w->cap - w->n)
		return NULL;
	char *p = w->buf + w->n;
	*p = ',';
	p += st == JW_ST_MAP_KEY;
	*p++ = '"';
	memcpy(p, k, kn);
	p += kn;
	*p++ = '"';
	*p++ = ':';
	w->n = (size_t)(p - w->buf);
	w->state[w->depth] = JW_ST_MAP_KEY;
	return p;
}

/* The decimal text of v into out (at least 21 bytes), no terminator; its length. What
 * j_int writes; the CSV export's numbers too (millions of them: a hand-written loop). */
size_t jw_i64_text(char *out, int64_t v);
/* v / 1000 with exactly three decimals ("123456.789", "-0.005"), never through a double;
 * out: at least 25 bytes; the length. What j_milli writes. */
size_t jw_milli_text(char *out, int64_t v);
void jw_kv_int_any(struct jw *w, const char *k, size_t kn, long long v);
void jw_kv_milli_any(struct jw *w, const char *k, size_t kn, int64_t v);
void jw_kv_plain_any(struct jw *w, const char *k, size_t kn, const char *v, size_t vn);

static inline void jw_kv_int(struct jw *w, const char *k, size_t kn, long long v)
{
	char *p = jw_fast_key(w, k, kn, 21);
	if (p)
		w->n += jw_i64_text(p, v);
	else
		jw_kv_int_any(w, k, kn, v);
}

static inline void jw_kv_milli(struct jw *w, const char *k, size_t kn, int64_t v)
{
	char *p = jw_fast_key(w, k, kn, 25);
	if (p)
		w->n += jw_milli_text(p, v);
	else
		jw_kv_milli_any(w, k, kn, v);
}

/* A string value v of vn bytes known to need no escape (kgantt's own names: "kernel"). */
static inline void jw_kv_plain(struct jw *w, const char *k, size_t kn, const char *v, size_t vn)
{
	char *p = jw_fast_key(w, k, kn, vn + 2);
	if (!p) {
		jw_kv_plain_any(w, k, kn, v, vn);
		return;
	}
	*p = '"';
	memcpy(p + 1, v, vn);
	p[vn + 1] = '"';
	w->n += vn + 2;
}
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

/* A string written many times (a kernel's name, once per launch): its JSON text, quoted,
 * escaped and made valid UTF-8 as j_str writes it, made once and then copied as it is. */
struct jw_prepared {
	char *text; /* malloc'ed; free() it */
	size_t n;
};
/* s's JSON text as w writes strings; 0, or -1 when out of memory. */
int jw_prepare(struct jw *w, const char *s, struct jw_prepared *p);
/* "k": v, where v (vn bytes) is JSON text, valid as it is: a prepared string, "[1,2,3]". */
void jw_kv_raw_any(struct jw *w, const char *k, size_t kn, const char *v, size_t vn);
static inline void jw_kv_raw(struct jw *w, const char *k, size_t kn, const char *v, size_t vn)
{
	char *p = jw_fast_key(w, k, kn, vn);
	if (!p) {
		jw_kv_raw_any(w, k, kn, v, vn);
		return;
	}
	memcpy(p, v, vn);
	w->n += vn;
}
#define kv_raw_lit(w, k, v, vn) jw_kv_raw(w, "" k, sizeof(k) - 1, v, vn)

/* A JSON string literal of s (NULL: "") written straight to f, made valid UTF-8 and
 * escaped as the writer's strings are: for a file laid out by hand (the chart's manifest,
 * one record a line). Errors show in ferror(f). */
void jw_put_string(FILE *f, const char *s);

#endif
