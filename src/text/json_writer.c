/* The JSON writer (json_writer.h). Its beautified layout is yajl's generator's, token for
 * token, which the reports were written with before: the separators, the indentation,
 * the newline after the last value, the escapes (\" \\ \b \f \n \r \t, other control
 * characters as \u00XX in upper-case hex, '/' only in a page); tests/unit/test_json_writer.c
 * holds it to yajl's bytes. It is its own code because yajl calls back for every token
 * and every run of a string, which made `export` of a million kernels take seconds in the
 * generator alone. The compact layout has a fast way for the usual "key": value pair: one
 * call, one look at the state, the key copied as it is. */
#include "text/json_writer.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

#define JW_BUF (64 * 1024)

/* What the next token at a level may be (yajl's generator states). */
enum { ST_START, ST_MAP_START, ST_MAP_KEY, ST_MAP_VAL, ST_ARRAY_START, ST_IN_ARRAY, ST_COMPLETE };

/* Per state: which tokens may come (1 a value, 2 a string: a key or a value), the
 * separator before one, and the state after it. */
static const unsigned char allowed[] = {
	[ST_START] = 3, [ST_MAP_START] = 2, [ST_MAP_KEY] = 2, [ST_MAP_VAL] = 3,
	[ST_ARRAY_START] = 3, [ST_IN_ARRAY] = 3, [ST_COMPLETE] = 0};
static const char separator[] = {[ST_MAP_KEY] = ',', [ST_IN_ARRAY] = ',', [ST_MAP_VAL] = ':'};
static const unsigned char after[] = {
	[ST_START] = ST_COMPLETE, [ST_MAP_START] = ST_MAP_VAL, [ST_MAP_KEY] = ST_MAP_VAL,
	[ST_MAP_VAL] = ST_MAP_KEY, [ST_ARRAY_START] = ST_IN_ARRAY, [ST_IN_ARRAY] = ST_IN_ARRAY,
	[ST_COMPLETE] = ST_COMPLETE};

/* ---------------------------------------------------------------- output */

static void flush_out(struct jw *w)
{
	if (w->n && !w->write_errno && fwrite(w->buf, 1, w->n, w->f) != w->n) {
		w->write_errno = errno ? errno : EIO;
		w->failed = 1;
	}
	w->n = 0;
}

/* Room for len more bytes in the buffer (len <= w->cap). */
static inline void room(struct jw *w, size_t len)
{
	if (len > w->cap - w->n)
		flush_out(w);
}

static void out(struct jw *w, const char *s, size_t len)
{
	if (len > w->cap) { /* a huge string: straight through */
		flush_out(w);
		if (!w->write_errno && fwrite(s, 1, len, w->f) != len) {
			w->write_errno = errno ? errno : EIO;
			w->failed = 1;
		}
		return;
	}
	room(w, len);
	memcpy(w->buf + w->n, s, len);
	w->n += len;
}

static inline void out1(struct jw *w, char c)
{
	room(w, 1);
	w->buf[w->n++] = c;
}

/* ---------------------------------------------------------------- structure */

static void indent(struct jw *w, unsigned depth)
{
	for (unsigned i = 0; i < depth; i++)
		out(w, "  ", 2);
}

/* The beautified layout's separator and indentation before a token in state st. */
static void pretty_before(struct jw *w, unsigned st)
{
	if (separator[st])
		out(w, separator[st] == ',' ? ",\n" : ": ", 2);
	if (st != ST_MAP_VAL)
		indent(w, w->depth);
}

/* Before a token (a string: a key or a value, when is_string): fails when none may come
 * here (the document is complete, or a value where a key must be), else writes the
 * separator and makes room for len more bytes. Where they go, or NULL. */
static inline char *before(struct jw *w, int is_string, size_t len)
{
	unsigned st = w->state[w->depth];
	if (!(allowed[st] & (is_string ? 2 : 1))) {
		w->failed = 1;
		return NULL;
	}
	if (w->pretty)
		pretty_before(w, st);
	room(w, len + 1);
	w->buf[w->n] = separator[st];
	w->n += separator[st] && !w->pretty;
	return w->buf + w->n;
}

/* A token of len bytes was written at the current level: what may follow it, and in the
 * beautified layout the newline that ends a complete document. */
static inline void appended(struct jw *w, size_t len)
{
	unsigned char *st = &w->state[w->depth];
	w->n += len;
	*st = after[*st];
	if (w->pretty && *st == ST_COMPLETE)
		out1(w, '\n');
}

/* A number, true, false or null: text as it is (at most 400 bytes). */
static void atom(struct jw *w, const char *s, size_t len)
{
	char *p = before(w, 0, len);
	if (p) {
		memcpy(p, s, len);
		appended(w, len);
	}
}

static void open_level(struct jw *w, char c, unsigned char state)
{
	if (w->depth + 1 >= JW_MAX_DEPTH) {
		w->failed = 1;
		return;
	}
	char *p = before(w, 0, 2);
	if (!p)
		return;
	w->state[++w->depth] = state;
	p[0] = c;
	p[1] = '\n';
	w->n += 1 + (w->pretty != 0);
}

static void close_level(struct jw *w, char c)
{
	if (w->depth == 0) {
		w->failed = 1;
		return;
	}
	w->depth--;
	if (w->pretty) {
		out1(w, '\n');
		w->state[w->depth] = after[w->state[w->depth]];
		indent(w, w->depth); /* the level above cannot be waiting for a value */
		out1(w, c);
		if (w->state[w->depth] == ST_COMPLETE)
			out1(w, '\n');
		return;
	}
	out1(w, c);
	w->state[w->depth] = after[w->state[w->depth]];
}

void j_open(struct jw *w) { open_level(w, '{', ST_MAP_START); }
void j_close(struct jw *w) { close_level(w, '}'); }
void j_aopen(struct jw *w) { open_level(w, '[', ST_ARRAY_START); }
void j_aclose(struct jw *w) { close_level(w, ']'); }

/* ---------------------------------------------------------------- strings */

/* What byte c needs: 1 an escape in every document, 2 one in a page, 4 a look in a page
 * (0xE2 starts U+2028 and U+2029), 8 a look when it may be invalid UTF-8 (0x80 and up). */
static inline unsigned need(unsigned char c)
{
	if (c < 0x20 || c == '"' || c == '\\')
		return 1;
	if (c == '<' || c == '>' || c == '&' || c == '/')
		return 2;
	return c < 0x80 ? 0 : c == 0xE2 ? 4 | 8 : 8;
}

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull
/* a byte of x is 0 / below n (n <= 128) / equal to b: a bit in its high bit */
#define ZERO_IN(x) (((x) - ONES) & ~(x) & HIGHS)
#define BELOW_IN(x, n) (((x) - ONES * (n)) & ~(x) & HIGHS)
#define BYTE_IN(x, b) ZERO_IN((x) ^ (ONES * (b)))

/* Whether the 8 bytes of x may hold one that needs work: escaped, looked at in a page,
 * or (with high) any byte of 0x80 and above, which may be invalid UTF-8. False alarms are
 * allowed: only the bytes above a real one can give them. */
static inline int word_needs(uint64_t x, int html, int high)
{
	uint64_t hit = BELOW_IN(x, 0x20) | BYTE_IN(x, '"') | BYTE_IN(x, '\\');
	if (html)
		hit |= BYTE_IN(x, '<') | BYTE_IN(x, '>') | BYTE_IN(x, '&') | BYTE_IN(x, '/') |
		       BYTE_IN(x, 0xE2);
	if (high)
		hit |= x & HIGHS;
	return hit != 0;
}

static inline uint64_t load8(const unsigned char *s)
{
	uint64_t x;
	memcpy(&x, s, 8);
	return x;
}

/* Whether any byte of s[0, len) needs work (word_needs): the usual kernel name needs
 * none and is copied as it is. */
static inline int needs_work(const char *str, size_t len, int html, int high)
{
	const unsigned char *s = (const unsigned char *)str;
	if (len < 8) {
		unsigned char mask = (html ? 7 : 1) | (high ? 8 : 0);
		for (size_t i = 0; i < len; i++)
			if (need(s[i]) & mask)
				return 1;
		return 0;
	}
	for (size_t i = 0; i + 8 <= len; i += 8)
		if (word_needs(load8(s + i), html, high))
			return 1;
	return word_needs(load8(s + len - 8), html, high); /* the tail: the last 8 bytes */
}

/* The index of the first byte of s[i, len) that needs an escape or a look, or len. */
static size_t plain_run(const unsigned char *s, size_t i, size_t len, int html)
{
	unsigned char mask = html ? 7 : 1;
	for (;;) {
		while (i + 8 <= len && !word_needs(load8(s + i), html, 0))
			i += 8;
		size_t stop = i + 8 < len ? i + 8 : len;
		for (; i < stop; i++)
			if (need(s[i]) & mask)
				return i;
		if (i == len)
			return len;
	}
}

static void put_escaped(struct jw *w, const unsigned char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i = 0;
	for (;;) {
		size_t j = plain_run(s, i, len, w->html);
		out(w, (const char *)s + i, j - i);
		if (j == len)
			return;
		unsigned char c = s[j];
		i = j + 1;
		switch (c) {
		case '"': out(w, "\\\"", 2); break;
		case '\\': out(w, "\\\\", 2); break;
		case '\b': out(w, "\\b", 2); break;
		case '\f': out(w, "\\f", 2); break;
		case '\n': out(w, "\\n", 2); break;
		case '\r': out(w, "\\r", 2); break;
		case '\t': out(w, "\\t", 2); break;
		case '/': out(w, "\\/", 2); break;
		case '<': out(w, "\\u003c", 6); break;
		case '>': out(w, "\\u003e", 6); break;
		case '&': out(w, "\\u0026", 6); break;
		case 0xE2:
			if (j + 2 < len && s[j + 1] == 0x80 && (s[j + 2] == 0xA8 || s[j + 2] == 0xA9)) {
				out(w, s[j + 2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
				i = j + 3;
			} else {
				out1(w, (char)c);
			}
			break;
		default: {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			out(w, u, 6);
		}
		}
	}
}

/* The quoted string of len bytes, escaped as it needs (plain: known to need nothing),
 * where the writer stands. */
static void put_string(struct jw *w, const char *s, size_t len, int plain)
{
	if (!plain || len > w->cap / 2) {
		out1(w, '"');
		put_escaped(w, (const unsigned char *)s, len);
		out1(w, '"');
		return;
	}
	room(w, len + 2);
	char *p = w->buf + w->n;
	p[0] = '"';
	memcpy(p + 1, s, len);
	p[len + 1] = '"';
	w->n += len + 2;
}

/* s made valid UTF-8 (invalid bytes become U+FFFD: JSON.parse would see garbage), *len
 * its length, *plain whether it needs no escape; NULL, and the writer failed, when out
 * of memory. */
static const char *clean(struct jw *w, const char *s, size_t *len, int *plain)
{
	*len = strlen(s);
	*plain = !needs_work(s, *len, w->html, 1);
	if (!*plain && !(s = utf8_clean(s, len, &w->clean, &w->clean_cap)))
		w->failed = w->nomem = 1;
	return s;
}

/* A string token (a key or a value) of len bytes. */
static void string_token(struct jw *w, const char *s, size_t len, int plain)
{
	if (!before(w, 1, 0))
		return;
	put_string(w, s, len, plain);
	appended(w, 0);
}

void j_str(struct jw *w, const char *s)
{
	size_t n;
	int plain;
	if (!s)
		j_null(w);
	else if ((s = clean(w, s, &n, &plain)))
		string_token(w, s, n, plain);
}

void j_strn(struct jw *w, const char *s, size_t n)
{
	string_token(w, s, n, !needs_work(s, n, w->html, w->html));
}

void j_key(struct jw *w, const char *k)
{
	j_strn(w, k, strlen(k));
}

void j_plain(struct jw *w, const char *s, size_t n)
{
	string_token(w, s, n, !w->html);
}

/* A string id of the model: null for 0 (unknown). */
void j_text(struct jw *w, const struct kg_model *m, uint32_t id)
{
	if (id)
		j_str(w, model_text(m, id));
	else
		j_null(w);
}

/* ---------------------------------------------------------------- numbers */

/* The number of decimal digits of u. */
static inline unsigned digits(uint64_t u)
{
	static const uint64_t pow10[] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};
	u |= 1; /* 0 has a digit too */
	unsigned bits = 64 - (unsigned)__builtin_clzll(u);
	unsigned d = bits * 1233 >> 12; /* log10(2) ~ 1233/4096: d or d + 1 digits */
	return d + (u >= pow10[d]);
}

size_t jw_i64_text(char *out, int64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	/* through uint64_t so that INT64_MIN negates without overflow */
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	size_t len = (v < 0) + digits(u);
	char *p = out + len;
	out[0] = '-';
	while (u >= 1ull << 32) { /* two digits per division, straight into place */
		unsigned d = (unsigned)(u % 100) * 2;
		u /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	uint32_t u32 = (uint32_t)u; /* the usual number: 32-bit divisions are the cheaper */
	while (u32 >= 100) {
		unsigned d = u32 % 100 * 2;
		u32 /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	if (u32 >= 10) {
		*--p = pairs[u32 * 2 + 1];
		*--p = pairs[u32 * 2];
	} else {
		*--p = (char)('0' + u32);
	}
	return len;
}

size_t jw_milli_text(char *out, int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	size_t len = 0;
	if (v < 0)
		out[len++] = '-';
	len += jw_i64_text(out + len, (int64_t)(u / 1000));
	unsigned frac = (unsigned)(u % 1000);
	out[len++] = '.';
	out[len++] = (char)('0' + frac / 100);
	out[len++] = (char)('0' + frac / 10 % 10);
	out[len++] = (char)('0' + frac % 10);
	return len;
}

void j_int(struct jw *w, long long v)
{
	char *p = before(w, 0, 32);
	if (p)
		appended(w, jw_i64_text(p, v));
}

void j_milli(struct jw *w, int64_t v)
{
	char *p = before(w, 0, 32);
	if (p)
		appended(w, jw_milli_text(p, v));
}

/* A time or duration; KG_NO_TIME is null. */
void j_time(struct jw *w, int64_t v)
{
	if (v == KG_NO_TIME)
		j_null(w);
	else
		j_int(w, v);
}

/* "%.17g" would print 0.10000000000000001; six significant digits are what a fraction or
 * percentage is worth, and large values are whole numbers (never "1.07e+06"). */
void j_num(struct jw *w, double v)
{
	if (!isfinite(v)) {
		j_null(w);
		return;
	}
	char buf[400];
	int n = snprintf(buf, sizeof(buf), fabs(v) >= 1e6 ? "%.0f" : "%.6g", v);
	atom(w, buf, (size_t)n);
}

void j_pct(struct jw *w, double part, double whole)
{
	if (whole > 0)
		j_num(w, 100.0 * part / whole);
	else
		j_null(w);
}

void j_bool(struct jw *w, int v)
{
	if (v)
		atom(w, "true", 4);
	else
		atom(w, "false", 5);
}

void j_null(struct jw *w)
{
	atom(w, "null", 4);
}

/* ---------------------------------------------------------------- "key": value pairs */

/* The compact layout's "key": in one go, when a key may come here and k (kn bytes) needs
 * no escape, with room for vlen more bytes: where the value goes, the level already
 * waiting for the key after it. NULL: the caller takes the way of two tokens. */
static inline char *fast_key(struct jw *w, const char *k, size_t kn, size_t vlen)
{
	unsigned st = w->state[w->depth];
	if (w->pretty || w->html || (st != ST_MAP_KEY && st != ST_MAP_START) || kn > 256)
		return NULL;
	room(w, kn + vlen + 4);
	char *p = w->buf + w->n;
	*p = ',';
	p += st == ST_MAP_KEY;
	*p++ = '"';
	memcpy(p, k, kn);
	p += kn;
	*p++ = '"';
	*p++ = ':';
	w->n = (size_t)(p - w->buf);
	w->state[w->depth] = ST_MAP_KEY;
	return p;
}

void jw_kv_int(struct jw *w, const char *k, size_t kn, long long v)
{
	char *p = fast_key(w, k, kn, 32);
	if (p) {
		w->n += jw_i64_text(p, v);
		return;
	}
	j_plain(w, k, kn);
	j_int(w, v);
}

void jw_kv_milli(struct jw *w, const char *k, size_t kn, int64_t v)
{
	char *p = fast_key(w, k, kn, 32);
	if (p) {
		w->n += jw_milli_text(p, v);
		return;
	}
	j_plain(w, k, kn);
	j_milli(w, v);
}

void jw_kv_str(struct jw *w, const char *k, size_t kn, const char *v)
{
	size_t n = 0;
	int plain = 0;
	if (v && (v = clean(w, v, &n, &plain)) && fast_key(w, k, kn, 0)) {
		put_string(w, v, n, plain);
		return;
	}
	j_plain(w, k, kn);
	if (v)
		string_token(w, v, n, plain);
	else if (!w->nomem)
		j_null(w);
}

void jw_kv_bool(struct jw *w, const char *k, size_t kn, int v)
{
	char *p = fast_key(w, k, kn, 5);
	if (p) {
		memcpy(p, v ? "true" : "false", 5);
		w->n += v ? 4 : 5;
		return;
	}
	j_plain(w, k, kn);
	j_bool(w, v);
}

/* A key from the caller: its bytes looked at before the fast way is taken. */
static size_t plain_key(struct jw *w, const char *k)
{
	size_t kn = strlen(k);
	return needs_work(k, kn, w->html, 1) ? (size_t)-1 : kn;
}

void kv_str(struct jw *w, const char *k, const char *v)
{
	size_t kn = plain_key(w, k);
	if (kn != (size_t)-1)
		jw_kv_str(w, k, kn, v);
	else {
		j_key(w, k);
		j_str(w, v);
	}
}

void kv_int(struct jw *w, const char *k, long long v)
{
	size_t kn = plain_key(w, k);
	if (kn != (size_t)-1)
		jw_kv_int(w, k, kn, v);
	else {
		j_key(w, k);
		j_int(w, v);
	}
}

void kv_bool(struct jw *w, const char *k, int v)
{
	size_t kn = plain_key(w, k);
	if (kn != (size_t)-1)
		jw_kv_bool(w, k, kn, v);
	else {
		j_key(w, k);
		j_bool(w, v);
	}
}

void kv_time(struct jw *w, const char *k, int64_t v) { j_key(w, k); j_time(w, v); }
void kv_num(struct jw *w, const char *k, double v) { j_key(w, k); j_num(w, v); }

void kv_pct(struct jw *w, const char *k, double part, double whole)
{
	j_key(w, k);
	j_pct(w, part, whole);
}

/* v when known, else null */
void kv_opt_int(struct jw *w, const char *k, int known, long long v)
{
	if (known) {
		kv_int(w, k, v);
		return;
	}
	j_key(w, k);
	j_null(w);
}

/* ---------------------------------------------------------------- begin and end */

static int begin(struct jw *w, FILE *f, int pretty, int html)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty = pretty;
	w->html = html;
	w->state[0] = ST_START;
	w->cap = JW_BUF;
	w->buf = malloc(w->cap);
	return w->buf ? 0 : -1;
}

int jw_begin(struct jw *w, FILE *f) { return begin(w, f, 1, 0); }
int jw_begin_compact(struct jw *w, FILE *f) { return begin(w, f, 0, 0); }
int jw_begin_html(struct jw *w, FILE *f) { return begin(w, f, 0, 1); }

static int finish(struct jw *w, const char *tail)
{
	if (!w->failed && *tail)
		out(w, tail, strlen(tail));
	flush_out(w);
	free(w->buf);
	free(w->clean);
	w->buf = w->clean = NULL;
	return w->failed || ferror(w->f) ? -1 : 0;
}

int jw_end(struct jw *w) { return finish(w, "\n"); }
int jw_end_html(struct jw *w) { return finish(w, ""); }

void jw_put_string(FILE *f, const char *s)
{
	char buf[512];
	struct jw w = {.f = f, .buf = buf, .cap = sizeof(buf)};
	size_t n;
	int plain;
	if ((s = clean(&w, s ? s : "", &n, &plain)))
		put_string(&w, s, n, plain);
	flush_out(&w);
	free(w.clean);
}
