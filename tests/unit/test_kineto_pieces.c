/* The Kineto reader on two threads (read_kineto.c, kineto_pieces.c): the text cut into
 * pieces at event boundaries, pieces parsed ahead on their own, must give the very model
 * that one thread reading the file from start to end gives (compared through the
 * perfetto export, the notes and the JSON report), and the same message for bad input.
 * Small pieces (64 KiB) make many of them out of the fixtures. */
#include "harness.h"

#include <errno.h>
#include <zlib.h>

#include "analysis/analysis.h"
#include "export/export.h"
#include "model/kineto_pieces.h"
#include "model/load.h"
#include "report/report.h"

#define SMALL_PIECE (64u << 10)

static char dir[] = "/tmp/kgantt-kpieces-XXXXXX";

static void make_dir(void)
{
	static int made;
	if (!made)
		CHECK(mkdtemp(dir) != NULL);
	made = 1;
}

static const char *write_file(const char *name, const char *data, size_t len)
{
	static char path[512];
	make_dir();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	CHECK(fwrite(data, 1, len, f) == len);
	CHECK(fclose(f) == 0);
	return path;
}

/* A fixture's JSON text, decompressed; malloc'ed. */
static char *fixture_text(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/fixtures/torch/%s.json.gz", name);
	gzFile g = gzopen(path, "rb");
	CHECK(g != NULL);
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	CHECK(buf != NULL);
	int got;
	while ((got = gzread(g, buf + n, (unsigned)(cap - n))) > 0)
		if ((n += (size_t)got) == cap)
			CHECK((buf = realloc(buf, cap *= 2)) != NULL);
	CHECK(got == 0);
	gzclose(g);
	*len = n;
	return buf;
}

/* Everything the model says, as text: the notes, the perfetto export (every op, call,
 * range, stack, device and stream) and the JSON report. The return code of the load
 * and its message instead when it failed. malloc'ed. */
static char *render(const char *path, size_t piece, int one_thread)
{
	struct kg_model m;
	struct kg_load_opts o = {.one_thread = one_thread};
	char err[512] = "";
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(f != NULL);
	model_init(&m, "kineto", path);
	int rc = read_kineto_pieces(&m, path, &o, piece, err, sizeof(err));
	if (rc == 0)
		rc = model_finish(&m);
	if (rc < 0) {
		fprintf(f, "rc %d: %s\n", rc, err);
	} else {
		for (int i = 0; i < m.n_notes; i++)
			fprintf(f, "note: %s\n", m.notes[i]);
		struct kg_export_opts eo = {.format = KG_EXPORT_PERFETTO};
		CHECK_EQ_INT(export_chrome(f, &m, &eo), 0);
		struct kg_analysis a;
		CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
		struct kg_report_opts ro = {.top = 0, .finding_sites = 3};
		CHECK_EQ_INT(report_json(f, &a, &ro), 0);
		analysis_free(&a);
	}
	model_free(&m);
	CHECK(fclose(f) == 0);
	return text;
}

/* The two ways agree on path; returns the one-thread rendering (malloc'ed). */
static char *same_both_ways(const char *path)
{
	char *one = render(path, SMALL_PIECE, 1);
	char *two = render(path, SMALL_PIECE, 0);
	if (strcmp(one, two) != 0) {
		size_t i = 0;
		while (one[i] && one[i] == two[i])
			i++;
		fprintf(stderr, "    %s: the two ways differ at byte %zu:\n    one: %.120s\n"
			"    two: %.120s\n", path, i, one + i, two + i);
		CHECK(0);
	}
	free(two);
	return one;
}

static void gzip_to(const char *path, const char *text, size_t len)
{
	gzFile g = gzopen(path, "wb");
	CHECK(g != NULL);
	CHECK(gzwrite(g, text, (unsigned)len) == (int)len);
	CHECK(gzclose(g) == Z_OK);
}

/* ------------------------------------------------------------------ where to cut */

TEST(find_cut)
{
	size_t brace;
	const char *torch = "  {\n    \"ph\": \"X\"\n  },\n  {\n    \"ph\": \"X\"\n  },\n  {\n";
	size_t tl = strlen(torch);
	long c = kin_find_cut((const unsigned char *)torch, tl, 0, tl, &brace);
	CHECK(c > 0);
	CHECK_EQ_INT(torch[c], ',');
	CHECK_EQ_INT(torch[brace], '}');
	CHECK(c > 25); /* the last one */
	/* from: none at or after it */
	CHECK(kin_find_cut((const unsigned char *)torch, tl, (size_t)c + 1, tl, &brace) < 0);
	/* to: the one before it */
	long before = kin_find_cut((const unsigned char *)torch, tl, 0, (size_t)c, &brace);
	CHECK(before > 0 && before < c);
	/* the ',' may be just before `to`, its newline after */
	const char *edge = "{\"a\": 1},\n{\"b\": 2}";
	c = kin_find_cut((const unsigned char *)edge, strlen(edge), 0, 9, &brace);
	CHECK_EQ_INT(c, 8);
	CHECK(kin_find_cut((const unsigned char *)edge, strlen(edge), 0, 8, &brace) < 0);
	/* CRLF and tabs */
	const char *crlf = "{\"a\": 1}\t,\r\n\t{\"b\": 2}";
	c = kin_find_cut((const unsigned char *)crlf, strlen(crlf), 0, strlen(crlf), &brace);
	CHECK_EQ_INT(c, 9);
	CHECK_EQ_INT(brace, 7);
	/* not without a newline after the ',', nor without '}' before and '{' after it, nor
	 * when the '{' is not in the text yet */
	const char *none[] = {"{\"a\": 1}, {\"b\": 2}", "[1,\n2]", "\"x\",\n{", "{},\n 5",
			      "{},\n   "};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		CHECK(kin_find_cut((const unsigned char *)none[i], strlen(none[i]), 0,
				   strlen(none[i]), &brace) < 0);
}

/* ------------------------------------------------------------------ the same model */

TEST(fixtures_same_both_ways)
{
	const char *names[] = {"torch_two_streams", "torch_tiny_ops", "torch_pageable_item",
			       "torch_transformer_bf16", "torch_cnn_bad_profiler",
			       "torch_cnn_bad_profiler_stack"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len;
		char *text = fixture_text(names[i], &len);
		CHECK(len > 3 * SMALL_PIECE); /* several pieces */
		char name[128];
		snprintf(name, sizeof(name), "%s.json", names[i]);
		const char *path = write_file(name, text, len);
		char *plain = same_both_ways(path);
		CHECK(strstr(plain, "rc ") != plain); /* it loaded */
		snprintf(name, sizeof(name), "%s/%s.json.gz", dir, names[i]);
		gzip_to(name, text, len);
		char *gz = same_both_ways(name);
		free(plain);
		free(gz);
		free(text);
	}
}

/* Objects nested in lists inside events, laid out like events, so that cuts fall inside
 * events; strings holding the same characters; the deviceProperties list cut too; bad
 * events late in the file (their line in the note); every piece boundary case at once. */
TEST(adversarial_layout_same_both_ways)
{
	size_t cap = 16u << 20, n = 0;
	char *t = malloc(cap);
	CHECK(t != NULL);
	n += (size_t)sprintf(t + n, "{\n  \"deviceProperties\": [\n");
	for (int i = 0; i < 20000; i++)
		n += (size_t)sprintf(t + n, "    {\n      \"id\": %d, \"numSms\": 132\n    }%s\n", i,
				     i < 19999 ? "," : "");
	n += (size_t)sprintf(t + n, "  ],\n  \"traceEvents\": [\n");
	for (int i = 0; i < 30000; i++) {
		n += (size_t)sprintf(t + n,
			"  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d },\\n  {\","
			" \"pid\": 0, \"tid\": 7,\n    \"ts\": %d.5, \"dur\": 2,\n    \"args\": {\n"
			"      \"device\": 0, \"stream\": %d, \"correlation\": %d,\n"
			"      \"list\": [\n        {\"a\": 1},\n        {\"b\": [\n{}\n,\n{}]}\n      ]\n"
			"    }\n  },\n", i % 7, 1000 + i * 10, 7 + i % 3, i + 1);
		if (i % 997 == 0)
			n += (size_t)sprintf(t + n, "  5,\n  [\n{}\n,\n{}],\n  {\"ph\": \"X\", \"cat\":"
					     " \"kernel\", \"ts\": \"late\"},\n");
		if (i % 1500 == 0)
			n += (size_t)sprintf(t + n, "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", "
					     "\"name\": \"cudaLaunchKernel\", \"pid\": 0, \"tid\": 1,"
					     " \"ts\": %d, \"dur\": 1, \"args\": {\"correlation\": %d}}"
					     ",\n", 999 + i * 10, i + 1);
		CHECK(n < cap - 4096);
	}
	n += (size_t)sprintf(t + n, "  {\"ph\": \"i\"}\n  ],\n  \"traceName\": \"adv\",\n"
			     "  \"more\": [\n");
	for (int i = 0; i < 20000; i++)
		n += (size_t)sprintf(t + n, "    {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1}%s\n",
				     i < 19999 ? "," : "");
	n += (size_t)sprintf(t + n, "  ]\n}\n");
	const char *path = write_file("adversarial.json", t, n);
	char *one = same_both_ways(path);
	CHECK(strstr(one, "skipped ") != NULL); /* the bad elements were counted */
	CHECK(strstr(one, "rc ") != one);
	free(one);
	free(t);
}

/* Cut short or damaged anywhere, the file fails (or loads) the same way, with the same
 * message: byte, line and column included. */
TEST(bad_input_same_both_ways)
{
	size_t len;
	char *text = fixture_text("torch_transformer_bf16", &len);
	char *copy = malloc(len);
	CHECK(copy != NULL);
	for (int i = 0; i < 24; i++) {
		size_t at = (size_t)(test_random() % len);
		memcpy(copy, text, len);
		size_t n = len;
		switch (i % 4) {
		case 0: n = at; break;                          /* cut short */
		case 1: copy[at] = '\n'; break;                 /* a raw newline, maybe in a string */
		case 2: copy[at] = ']'; break;                  /* a bracket out of place */
		default: memset(copy + at, ' ', len - at > 40 ? 40 : len - at); break;
		}
		char name[64];
		snprintf(name, sizeof(name), "bad%02d.json", i);
		free(same_both_ways(write_file(name, copy, n)));
		if (i % 4 == 0) {
			snprintf(name, sizeof(name), "%s/bad%02d.json.gz", dir, i);
			gzip_to(name, copy, n);
			free(same_both_ways(name));
		}
	}
	free(copy);
	free(text);
}
