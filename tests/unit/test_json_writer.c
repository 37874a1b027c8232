/* The JSON writer (report/json_writer.h) against yajl's generator, which wrote kgantt's
 * reports and pages before it: random documents with awkward strings must come out byte
 * for byte as yajl (and, for pages, the HTML filter that sat behind it) wrote them. */
#include "harness.h"

#include <errno.h>
#include <stdint.h>
#include <yajl/yajl_gen.h>

#include "text/json_writer.h"
#include "util/utf8.h"

/* ---------------------------------------------------------------- the oracle */

struct oracle {
	yajl_gen g;
	FILE *f;
	int held; /* the page filter's E2 / E2 80, as json_writer.c's html_print held them */
};

static void raw(struct oracle *o, const char *s, size_t n)
{
	fwrite(s, 1, n, o->f);
}

static void plain_print(void *ctx, const char *s, size_t len)
{
	raw(ctx, s, len);
}

/* The filter yajl's output went through in a page, as it was. */
static void html_print(void *ctx, const char *str, size_t len)
{
	struct oracle *o = ctx;
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < len) {
		if (o->held == 1 && s[i] == 0x80) {
			o->held = 2, i++;
			continue;
		}
		if (o->held == 2 && (s[i] == 0xA8 || s[i] == 0xA9)) {
			raw(o, s[i] == 0xA8 ? "\\u2028" : "\\u2029", 6);
			o->held = 0, i++;
			continue;
		}
		if (o->held)
			raw(o, "\xE2\x80", (size_t)o->held);
		o->held = 0;
		size_t run = i;
		while (run < len && s[run] != '<' && s[run] != '>' && s[run] != '&' && s[run] != 0xE2)
			run++;
		raw(o, str + i, run - i);
		if (run == len)
			break;
		switch (s[run]) {
		case 0xE2: o->held = 1; break;
		case '<': raw(o, "\\u003c", 6); break;
		case '>': raw(o, "\\u003e", 6); break;
		default: raw(o, "\\u0026", 6); break;
		}
		i = run + 1;
	}
}

enum mode { PRETTY, COMPACT, HTML };

static void oracle_begin(struct oracle *o, FILE *f, enum mode mode)
{
	o->f = f;
	o->held = 0;
	o->g = yajl_gen_alloc(NULL);
	if (mode == PRETTY) {
		yajl_gen_config(o->g, yajl_gen_beautify, 1);
		yajl_gen_config(o->g, yajl_gen_indent_string, "  ");
	}
	if (mode == HTML)
		yajl_gen_config(o->g, yajl_gen_escape_solidus, 1);
	yajl_gen_config(o->g, yajl_gen_print_callback, mode == HTML ? html_print : plain_print, o);
}

static void oracle_end(struct oracle *o, enum mode mode)
{
	if (o->held)
		raw(o, "\xE2\x80", (size_t)o->held);
	yajl_gen_free(o->g);
	if (mode != HTML)
		fputc('\n', o->f);
}

/* ---------------------------------------------------------------- random documents */

static uint64_t rng;

static unsigned next(unsigned n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* A string with what needs care: quotes, backslashes, controls, '/', markup, U+2028 and
 * U+2029 and near misses, other UTF-8, and (unless valid) bytes that are not UTF-8. */
static void random_text(char *out, size_t cap, int valid)
{
	static const char *const parts[] = {
		"a", "kernel", " ", "\"", "\\", "/", "</script>", "<", ">", "&", "\n", "\r", "\t",
		"\b", "\f", "\x01", "\x1f", "\x7f", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xA7",
		"\xE2\x82\xAC", "\xC3\xA9", "\xF0\x9F\x98\x80", "void f<int, 2>(float*)",
		"\xE2", "\xE2\x80", "\xFF", "\xC3", "\xED\xA0\x80"};
	size_t n = 0, kinds = sizeof(parts) / sizeof(parts[0]) - (valid ? 5 : 0);
	out[0] = '\0';
	for (unsigned k = next(12); k > 0; k--) {
		const char *p = parts[next((unsigned)kinds)];
		size_t l = strlen(p);
		if (n + l + 1 >= cap)
			break;
		memcpy(out + n, p, l + 1);
		n += l;
	}
}

static void both_str(struct jw *w, struct oracle *o, const char *s)
{
	j_str(w, s);
	char *buf = NULL;
	size_t n, cap = 0;
	const char *t = utf8_clean(s, &n, &buf, &cap);
	yajl_gen_string(o->g, (const unsigned char *)t, n);
	free(buf);
}

static void value(struct jw *w, struct oracle *o, int depth);

/* Now and then a "key": value pair in one call (the compact layout's fast way), with the
 * random key or a literal one; 0 when it left the pair to the caller. */
static int pair(struct jw *w, struct oracle *o, const char *key)
{
	char text[256];
	long long v = (long long)next(2000000) - 1000000;
	int lit = next(2);
	const char *k = lit ? "dur" : key;
	switch (next(8)) {
	case 0:
		yajl_gen_string(o->g, (const unsigned char *)k, strlen(k));
		if (lit)
			kv_int_lit(w, "dur", v);
		else
			kv_int(w, k, v);
		yajl_gen_integer(o->g, v);
		return 1;
	case 1:
		yajl_gen_string(o->g, (const unsigned char *)k, strlen(k));
		random_text(text, sizeof(text), 0);
		if (lit)
			kv_str_lit(w, "dur", text);
		else
			kv_str(w, k, text);
		char *buf = NULL;
		size_t n, cap = 0;
		const char *t = utf8_clean(text, &n, &buf, &cap);
		yajl_gen_string(o->g, (const unsigned char *)t, n);
		free(buf);
		return 1;
	case 2:
		yajl_gen_string(o->g, (const unsigned char *)k, strlen(k));
		if (lit)
			kv_bool_lit(w, "dur", v & 1);
		else
			kv_bool(w, k, v & 1);
		yajl_gen_bool(o->g, v & 1);
		return 1;
	case 3: {
		char b[32];
		int len = snprintf(b, sizeof(b), "%s%lld.%03lld", v < 0 ? "-" : "", llabs(v) / 1000,
				   llabs(v) % 1000);
		yajl_gen_string(o->g, (const unsigned char *)"dur", 3);
		kv_milli_lit(w, "dur", v);
		yajl_gen_number(o->g, b, (size_t)len);
		return 1;
	}
	default: return 0;
	}
}

static void container(struct jw *w, struct oracle *o, int depth, int map)
{
	char key[256];
	if (map) {
		j_open(w);
		yajl_gen_map_open(o->g);
	} else {
		j_aopen(w);
		yajl_gen_array_open(o->g);
	}
	for (unsigned k = next(5); k > 0; k--) {
		if (map) {
			random_text(key, sizeof(key), 1);
			if (pair(w, o, key))
				continue;
			j_key(w, key);
			yajl_gen_string(o->g, (const unsigned char *)key, strlen(key));
		}
		value(w, o, depth + 1);
	}
	if (map) {
		j_close(w);
		yajl_gen_map_close(o->g);
	} else {
		j_aclose(w);
		yajl_gen_array_close(o->g);
	}
}

static void value(struct jw *w, struct oracle *o, int depth)
{
	static const long long ints[] = {0, 1, -1, 9, 10, 99, 100, -100, 123456789, INT64_MAX,
					 INT64_MIN, 1700000000000000000LL};
	static const double nums[] = {0, 0.1, -2.5, 1e-7, 999999.5, 1e6, 3.2e12, 100.0 / 3};
	char text[256], b[64];
	unsigned kind = depth > 5 ? 4 + next(6) : next(10);
	switch (kind) {
	case 0:
	case 1: container(w, o, depth, 1); break;
	case 2:
	case 3: container(w, o, depth, 0); break;
	case 4: random_text(text, sizeof(text), 0); both_str(w, o, text); break;
	case 5:
		random_text(text, sizeof(text), 1);
		j_strn(w, text, strlen(text));
		yajl_gen_string(o->g, (const unsigned char *)text, strlen(text));
		break;
	case 6: {
		long long v = ints[next(sizeof(ints) / sizeof(ints[0]))];
		j_int(w, v);
		yajl_gen_integer(o->g, v);
		break;
	}
	case 7: {
		double v = nums[next(sizeof(nums) / sizeof(nums[0]))];
		j_num(w, v);
		int n = snprintf(b, sizeof(b), v >= 1e6 ? "%.0f" : "%.6g", v);
		yajl_gen_number(o->g, b, (size_t)n);
		break;
	}
	case 8: {
		int v = (int)next(2);
		j_bool(w, v);
		yajl_gen_bool(o->g, v);
		break;
	}
	default: j_null(w); yajl_gen_null(o->g); break;
	}
}

static void compare_mode(enum mode mode)
{
	for (int doc = 0; doc < 3000; doc++) {
		char *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
		CHECK(fa && fb);
		struct jw w;
		struct oracle o;
		CHECK((mode == PRETTY ? jw_begin(&w, fa) : mode == COMPACT ? jw_begin_compact(&w, fa)
								   : jw_begin_html(&w, fa)) == 0);
		oracle_begin(&o, fb, mode);
		rng = 0x9E3779B97F4A7C15ull * (uint64_t)(doc + 1) + (uint64_t)mode;
		value(&w, &o, next(4) ? 0 : 6); /* now and then a document of one scalar */
		CHECK_EQ_INT(mode == HTML ? jw_end_html(&w) : jw_end(&w), 0);
		oracle_end(&o, mode);
		fclose(fa);
		fclose(fb);
		if (na != nb || memcmp(a, b, na)) {
			fprintf(stderr, "    mode %d document %d:\n--- jw\n%s\n--- yajl\n%s\n", mode, doc, a,
				b);
			CHECK(0);
		}
		free(a);
		free(b);
	}
}

TEST(pretty_as_yajl_beautified) { compare_mode(PRETTY); }
TEST(compact_as_yajl) { compare_mode(COMPACT); }
TEST(html_as_yajl_and_the_page_filter) { compare_mode(HTML); }

/* ---------------------------------------------------------------- the rest */

TEST(numbers_exact)
{
	char b[32];
	CHECK_EQ_STR((b[jw_milli_text(b, 130627290)] = 0, b), "130627.290");
	CHECK_EQ_STR((b[jw_milli_text(b, -5)] = 0, b), "-0.005");
	CHECK_EQ_STR((b[jw_milli_text(b, 0)] = 0, b), "0.000");
	CHECK_EQ_STR((b[jw_milli_text(b, INT64_MIN)] = 0, b), "-9223372036854775.808");
	CHECK_EQ_STR((b[jw_i64_text(b, INT64_MIN)] = 0, b), "-9223372036854775808");
	CHECK_EQ_STR((b[jw_i64_text(b, 7)] = 0, b), "7");
}

/* A document longer than the buffer, and a string longer than it, come out whole. */
TEST(long_output_whole)
{
	char *a = NULL, *want = NULL;
	size_t na = 0, nwant = 0;
	FILE *f = open_memstream(&a, &na), *g = open_memstream(&want, &nwant);
	struct jw w;
	CHECK(jw_begin_compact(&w, f) == 0);
	size_t big = 300 * 1024;
	char *s = malloc(big + 1);
	memset(s, 'x', big);
	s[big] = '\0';
	s[big / 2] = '"';
	j_aopen(&w);
	fputc('[', g);
	for (int i = 0; i < 50000; i++) {
		j_milli(&w, i);
		fprintf(g, "%s%d.%03d", i ? "," : "", i / 1000, i % 1000);
	}
	j_str(&w, s);
	s[big / 2] = '\0';
	fprintf(g, ",\"%s\\\"%s\"]\n", s, s + big / 2 + 1);
	j_aclose(&w);
	CHECK_EQ_INT(jw_end(&w), 0);
	fclose(f);
	fclose(g);
	CHECK_EQ_INT(na, nwant);
	CHECK(!memcmp(a, want, na));
	free(s);
	free(a);
	free(want);
}

TEST(malformed_fails)
{
	struct jw w;
	FILE *f = fopen("/dev/null", "w");
	CHECK(jw_begin(&w, f) == 0);
	j_open(&w);
	j_int(&w, 1); /* a value where a key must be */
	CHECK(w.failed);
	CHECK(jw_end(&w) < 0);
	CHECK(jw_begin_compact(&w, f) == 0);
	j_close(&w); /* nothing open */
	CHECK(jw_end(&w) < 0);
	CHECK(jw_begin_compact(&w, f) == 0);
	j_int(&w, 1);
	j_int(&w, 2); /* after a complete document */
	CHECK(jw_end(&w) < 0);
	CHECK(jw_begin_compact(&w, f) == 0);
	for (int i = 0; i < JW_MAX_DEPTH + 1; i++)
		j_aopen(&w);
	CHECK(jw_end(&w) < 0);
	fclose(f);
}

TEST(write_error_kept)
{
	FILE *f = fopen("/dev/full", "w");
	CHECK(f);
	setvbuf(f, NULL, _IONBF, 0);
	struct jw w;
	CHECK(jw_begin_compact(&w, f) == 0);
	j_aopen(&w);
	for (int i = 0; i < 100000; i++)
		j_int(&w, i);
	j_aclose(&w);
	CHECK(w.write_errno == ENOSPC);
	CHECK(jw_end(&w) < 0);
	fclose(f);
}

/* The string of a file laid out by hand (the chart's manifest): what a compact document
 * holding only that string would be. */
TEST(put_string_as_a_document)
{
	char text[256];
	rng = 12345;
	for (int i = 0; i < 2000; i++) {
		char *a = NULL, *b = NULL;
		size_t na = 0, nb = 0;
		FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
		random_text(text, sizeof(text), 0);
		jw_put_string(fa, text);
		fputc('\n', fa);
		struct jw w;
		CHECK(jw_begin_compact(&w, fb) == 0);
		j_str(&w, text);
		CHECK(jw_end(&w) == 0);
		fclose(fa);
		fclose(fb);
		CHECK(na == nb && !memcmp(a, b, na));
		free(a);
		free(b);
	}
}
