/* Small helpers over yajl's generator for kgantt's JSON documents (report, diff): every
 * string cleaned to valid UTF-8, times as integers (null when unknown), numbers with six
 * significant digits. */
#include "report/json_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"


void jw_print(void *ctx, const char *s, size_t len)
{
	struct jw *w = ctx;
	if (fwrite(s, 1, len, w->f) != len)
		w->failed = 1;
}

void jw_check(struct jw *w, yajl_gen_status st)
{
	if (st != yajl_gen_status_ok)
		w->failed = 1;
}


void j_str(struct jw *w, const char *s)
{
	if (!s) {
		jw_check(w, yajl_gen_null(w->g));
		return;
	}
	/* invalid UTF-8 bytes become U+FFFD: yajl would pass them through and JSON.parse
	 * would see garbage */
	char *buf = NULL;
	size_t n, cap = 0;
	const char *t = utf8_clean(s, &n, &buf, &cap);
	if (!t)
		w->failed = w->nomem = 1;
	else
		jw_check(w, yajl_gen_string(w->g, (const unsigned char *)t, n));
	free(buf);
}

void j_key(struct jw *w, const char *k)
{
	jw_check(w, yajl_gen_string(w->g, (const unsigned char *)k, strlen(k)));
}

void j_int(struct jw *w, long long v)
{
	jw_check(w, yajl_gen_integer(w->g, v));
}

/* A time or duration; KG_NO_TIME is null. */
void j_time(struct jw *w, int64_t v)
{
	if (v == KG_NO_TIME)
		jw_check(w, yajl_gen_null(w->g));
	else
		j_int(w, v);
}

/* yajl_gen_double prints 17 digits ("0.10000000000000001"); six significant ones are
 * what a fraction or percentage is worth, and large values are whole numbers (never
 * "1.07e+06"). Non-finite values are null. */
void j_num(struct jw *w, double v)
{
	if (!isfinite(v)) {
		jw_check(w, yajl_gen_null(w->g));
		return;
	}
	char buf[400];
	int n = snprintf(buf, sizeof(buf), fabs(v) >= 1e6 ? "%.0f" : "%.6g", v);
	jw_check(w, yajl_gen_number(w->g, buf, (size_t)n));
}

void j_pct(struct jw *w, double part, double whole)
{
	if (whole > 0)
		j_num(w, 100.0 * part / whole);
	else
		jw_check(w, yajl_gen_null(w->g));
}

void j_bool(struct jw *w, int v)
{
	jw_check(w, yajl_gen_bool(w->g, v));
}

void j_null(struct jw *w)
{
	jw_check(w, yajl_gen_null(w->g));
}

void j_open(struct jw *w) { jw_check(w, yajl_gen_map_open(w->g)); }
void j_close(struct jw *w) { jw_check(w, yajl_gen_map_close(w->g)); }
void j_aopen(struct jw *w) { jw_check(w, yajl_gen_array_open(w->g)); }
void j_aclose(struct jw *w) { jw_check(w, yajl_gen_array_close(w->g)); }

/* A string id of the model: null for 0 (unknown). */
void j_text(struct jw *w, const struct kg_model *m, uint32_t id)
{
	if (id)
		j_str(w, model_text(m, id));
	else
		j_null(w);
}

/* "key": value pairs */
void kv_str(struct jw *w, const char *k, const char *v) { j_key(w, k); j_str(w, v); }
void kv_int(struct jw *w, const char *k, long long v) { j_key(w, k); j_int(w, v); }
void kv_time(struct jw *w, const char *k, int64_t v) { j_key(w, k); j_time(w, v); }
void kv_num(struct jw *w, const char *k, double v) { j_key(w, k); j_num(w, v); }
void kv_bool(struct jw *w, const char *k, int v) { j_key(w, k); j_bool(w, v); }

void kv_pct(struct jw *w, const char *k, double part, double whole)
{
	j_key(w, k);
	j_pct(w, part, whole);
}

/* v when known, else null */
void kv_opt_int(struct jw *w, const char *k, int known, long long v)
{
	j_key(w, k);
	if (known)
		j_int(w, v);
	else
		j_null(w);
}

int jw_begin(struct jw *w, FILE *f)
{
	w->g = yajl_gen_alloc(NULL);
	w->f = f;
	w->failed = w->held = w->html = w->nomem = 0;
	if (!w->g)
		return -1;
	yajl_gen_config(w->g, yajl_gen_beautify, 1);
	yajl_gen_config(w->g, yajl_gen_indent_string, "  ");
	yajl_gen_config(w->g, yajl_gen_print_callback, jw_print, w);
	return 0;
}

static void html_raw(struct jw *w, const char *s, size_t n)
{
	if (n && fwrite(s, 1, n, w->f) != n)
		w->failed = 1;
}

/* A held E2 / E2 80 that turned out not to start U+2028/U+2029. */
static void html_release(struct jw *w)
{
	if (w->held)
		html_raw(w, "\xE2\x80", (size_t)w->held);
	w->held = 0;
}

/* yajl's output inside a <script>: '<', '>' and '&' can only be inside JSON strings,
 * where \u003c is the same character to JSON.parse and none at all to the HTML parser; a
 * held E2 or E2 80 waits for the next byte, which may come in the next call. */
static void html_print(void *ctx, const char *str, size_t len)
{
	struct jw *w = ctx;
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < len) {
		if (w->held == 1 && s[i] == 0x80) {
			w->held = 2, i++;
			continue;
		}
		if (w->held == 2 && (s[i] == 0xA8 || s[i] == 0xA9)) {
			html_raw(w, s[i] == 0xA8 ? "\\u2028" : "\\u2029", 6);
			w->held = 0, i++;
			continue;
		}
		html_release(w);
		size_t run = i;
		while (run < len && s[run] != '<' && s[run] != '>' && s[run] != '&' && s[run] != 0xE2)
			run++;
		html_raw(w, str + i, run - i);
		if (run == len)
			break;
		switch (s[run]) {
		case 0xE2: w->held = 1; break;
		case '<': html_raw(w, "\\u003c", 6); break;
		case '>': html_raw(w, "\\u003e", 6); break;
		default: html_raw(w, "\\u0026", 6); break;
		}
		i = run + 1;
	}
}

int jw_begin_html(struct jw *w, FILE *f)
{
	w->g = yajl_gen_alloc(NULL);
	w->f = f;
	w->failed = w->held = w->nomem = 0;
	w->html = 1;
	if (!w->g)
		return -1;
	yajl_gen_config(w->g, yajl_gen_escape_solidus, 1); /* "</" can never appear */
	yajl_gen_config(w->g, yajl_gen_print_callback, html_print, w);
	return 0;
}

int jw_end_html(struct jw *w)
{
	html_release(w);
	yajl_gen_free(w->g);
	return w->failed || ferror(w->f) ? -1 : 0;
}

int jw_end(struct jw *w)
{
	yajl_gen_free(w->g);
	if (!w->failed)
		w->failed = fputc('\n', w->f) == EOF;
	return w->failed || ferror(w->f) ? -1 : 0;
}
