/* JSON output helpers shared by `kgantt report --json` and `kgantt diff --json`. */
#ifndef KGANTT_JSON_WRITER_H
#define KGANTT_JSON_WRITER_H

#include <stdint.h>
#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "model/model.h"

struct jw {
	yajl_gen g;
	FILE *f;
	int failed;
	int nomem; /* what failed was an allocation */
	int html;  /* inside an HTML <script> element: see jw_begin_html */
	int held;  /* bytes of a possible U+2028/U+2029 (E2, E2 80) not yet written */
};

/* A beautified generator writing to f; 0, or -1 when out of memory. */
int jw_begin(struct jw *w, FILE *f);
/* Frees it and ends the document with a newline: 0, or -1 when a write failed. */
int jw_end(struct jw *w);
/* A compact generator for a document inside an HTML <script> element: '<', '>', '&',
 * '/', U+2028 and U+2029 escaped, so that no string can close the element or run as
 * markup. 0, or -1 when out of memory. jw_end_html ends it (no newline). */
int jw_begin_html(struct jw *w, FILE *f);
int jw_end_html(struct jw *w);

void jw_print(void *ctx, const char *s, size_t len);
void jw_check(struct jw *w, yajl_gen_status st);
void j_str(struct jw *w, const char *s);
void j_key(struct jw *w, const char *k);
void j_int(struct jw *w, long long v);
void j_time(struct jw *w, int64_t v);   /* KG_NO_TIME is null */
void j_num(struct jw *w, double v);
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

#endif
