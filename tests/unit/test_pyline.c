/* trace/pyline.c: CPython line tables decoded as CPython does (tables taken from 3.10
 * and 3.12 with their co_lines()), hand-made entries of every 3.11+ kind, and — under
 * ASan — cut and random tables, which must never be read past their end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "trace/pyline.h"

/* def f(x):            line 1
 *     a = x + 1        2
 *                      3
 *     if a:            4
 *         return g(a,  5
 *                  x)  6
 *     return None      7 */
static const uint8_t lt310[] = { 0x08, 0x01, 0x04, 0x02, 0x04, 0x01, 0x02, 0x01, 0x04, 0xff,
				 0x04, 0x02 };
static const int lines310[][3] = { { 0, 8, 2 }, { 8, 12, 4 }, { 12, 16, 5 }, { 16, 18, 6 },
				   { 18, 22, 5 }, { 22, 26, 7 } };
static const uint8_t lt312[] = { 0x80, 0x00, 0xd8, 0x08, 0x09, 0x88, 0x41, 0x89, 0x05, 0x80, 0x41,
				 0xe1, 0x07, 0x08, 0xdc, 0x0f, 0x10, 0x90, 0x11, 0xd8, 0x11, 0x12,
				 0xf3, 0x03, 0x01, 0x10, 0x14, 0xf0, 0x00, 0x01, 0x09, 0x14, 0xe0,
				 0x0b, 0x0f };
static const int lines312[][3] = { { 0, 2, 1 }, { 2, 12, 2 }, { 12, 16, 4 }, { 16, 28, 5 },
				   { 28, 30, 6 }, { 30, 40, 5 }, { 40, 42, 7 } };

/* A copy on the heap of exactly len bytes, so that ASan sees any read past the end. */
static uint8_t *exact(const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);
	CHECK(q);
	memcpy(q, p, len);
	return q;
}

static int line_at(const int (*ranges)[3], int n, int off)
{
	for (int i = 0; i < n; i++)
		if (off >= ranges[i][0] && off < ranges[i][1])
			return ranges[i][2];
	return 0;
}

TEST(cpython_310_table)
{
	uint8_t *t = exact(lt310, sizeof(lt310));
	for (int off = 0; off < 30; off++)
		CHECK_EQ_INT(pyline_line(0x30a, t, sizeof(lt310), 1, off), line_at(lines310, 6, off));
	free(t);
}

TEST(cpython_312_table)
{
	uint8_t *t = exact(lt312, sizeof(lt312));
	for (int off = 0; off < 46; off++) {
		CHECK_EQ_INT(pyline_line(0x30c, t, sizeof(lt312), 1, off), line_at(lines312, 7, off));
		/* 3.11, 3.13 and later read the same location table format */
		CHECK_EQ_INT(pyline_line(0x30b, t, sizeof(lt312), 1, off), line_at(lines312, 7, off));
		CHECK_EQ_INT(pyline_line(0x30d, t, sizeof(lt312), 1, off), line_at(lines312, 7, off));
	}
	free(t);
}

TEST(every_310_entry_kind)
{
	/* (4,+1) (6,0) (0,+2: empty, moves the line) (2, no line) (4,-3) */
	static const uint8_t lt[] = { 4, 1, 6, 0, 0, 2, 2, 0x80, 4, (uint8_t)-3 };
	uint8_t *t = exact(lt, sizeof(lt));
	CHECK_EQ_INT(pyline_line(0x30a, t, sizeof(lt), 10, 0), 11);
	CHECK_EQ_INT(pyline_line(0x30a, t, sizeof(lt), 10, 3), 11);
	CHECK_EQ_INT(pyline_line(0x30a, t, sizeof(lt), 10, 4), 11);
	CHECK_EQ_INT(pyline_line(0x30a, t, sizeof(lt), 10, 9), 11);
	CHECK_EQ_INT(pyline_line(0x30a, t, sizeof(lt), 10, 10), 0);  /* no line */
	CHECK_EQ_INT(pyline_line(0x30a, t, sizeof(lt), 10, 12), 10); /* 11 + 2 - 3 */
	CHECK_EQ_INT(pyline_line(0x30a, t, sizeof(lt), 10, 16), 0);  /* past the end */
	free(t);
}

TEST(every_311_entry_kind)
{
	static const uint8_t lt[] = {
		0x80 | 13 << 3 | 0, 0x02,             /* [0,2) no columns, +1 */
		0x80 | 10 << 3 | 1, 3, 7,             /* [2,6) one line, +0 */
		0x80 | 15 << 3 | 0,                   /* [6,8) no location */
		0x80 | 14 << 3 | 0, 0x05, 0, 1, 2,    /* [8,10) long form, -2 */
		0x80 | 3 << 3 | 2, 9,                 /* [10,16) short form, same line */
		0x80 | 12 << 3 | 0, 1, 2,             /* [16,18) one line, +2 */
		0x80 | 13 << 3 | 7, 0x48, 0x03,       /* [18,34) no columns, +100 (varint 200) */
		0x80 | 11 << 3 | 0, 0, 0,             /* [34,36) one line, +1 */
	};
	uint8_t *t = exact(lt, sizeof(lt));
	static const int want[][2] = { { 0, 21 }, { 1, 21 }, { 2, 21 }, { 5, 21 }, { 6, 0 },
				       { 7, 0 }, { 8, 19 }, { 10, 19 }, { 15, 19 }, { 16, 21 },
				       { 18, 121 }, { 33, 121 }, { 34, 122 }, { 36, 0 } };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_EQ_INT(pyline_line(0x30b, t, sizeof(lt), 20, want[i][0]), want[i][1]);
	free(t);
}

TEST(unknown_cases_are_zero)
{
	uint8_t *t = exact(lt312, sizeof(lt312));
	CHECK_EQ_INT(pyline_line(0x30c, t, sizeof(lt312), 1, -1), 0);     /* lasti unknown */
	CHECK_EQ_INT(pyline_line(0x30c, NULL, 10, 1, 0), 0);
	CHECK_EQ_INT(pyline_line(0x30c, t, 0, 1, 0), 0);
	CHECK_EQ_INT(pyline_line(0x309, t, sizeof(lt312), 1, 4), 0);      /* 3.9: no format */
	CHECK_EQ_INT(pyline_line(0x20a, t, sizeof(lt312), 1, 4), 0);
	CHECK_EQ_INT(pyline_line(0, t, sizeof(lt312), 1, 4), 0);
	CHECK_EQ_INT(pyline_line(0x30c, t, sizeof(lt312), 0, 0), 0);      /* line 0 */
	CHECK_EQ_INT(pyline_line(0x30c, t, sizeof(lt312), -5, 4), 0);     /* negative line */
	CHECK_EQ_INT(pyline_line(0x30c, t, sizeof(lt312), INT32_MAX, 4), 0); /* overflow */
	/* a table that does not start an entry where one must start */
	static const uint8_t bad[] = { 0x05, 0x80 | 13 << 3, 0x02 };
	uint8_t *b = exact(bad, sizeof(bad));
	CHECK_EQ_INT(pyline_line(0x30c, b, sizeof(bad), 1, 0), 0);
	free(b);
	free(t);
}

/* Every prefix of a table: the entries that are whole still answer as before, the rest
 * answer 0; nothing is read past the cut (ASan). */
static void check_prefixes(unsigned version, const uint8_t *lt, size_t len)
{
	for (size_t k = 0; k <= len; k++) {
		uint8_t *t = exact(lt, k);
		for (int off = -2; off < 50; off++) {
			int full = pyline_line(version, lt, (uint32_t)len, 1, off);
			int cut = pyline_line(version, t, (uint32_t)k, 1, off);
			CHECK(cut == full || cut == 0);
		}
		free(t);
	}
}

TEST(cut_tables)
{
	check_prefixes(0x30a, lt310, sizeof(lt310));
	check_prefixes(0x30c, lt312, sizeof(lt312));
	check_prefixes(0x30b, lt310, sizeof(lt310)); /* the wrong format: 0s, no reads past */
	check_prefixes(0x30a, lt312, sizeof(lt312));
}

TEST(random_tables)
{
	static const unsigned versions[] = { 0x30a, 0x30b, 0x30c, 0x30d, 0x30e, 0x309, 0xffff };
	for (int round = 0; round < 20000; round++) {
		size_t len = test_random() % 64;
		uint8_t buf[64];
		for (size_t i = 0; i < len; i++) {
			buf[i] = (uint8_t)test_random();
			/* often a plausible entry start, so that decoding goes deep */
			if (test_random() % 3 == 0)
				buf[i] |= 0x80;
		}
		uint8_t *t = exact(buf, len);
		unsigned v = versions[test_random() % (sizeof(versions) / sizeof(versions[0]))];
		int first = (int)(test_random() % 2000) - 100;
		if (round % 97 == 0)
			first = INT32_MAX - (int)(test_random() % 10);
		int off = (int)(test_random() % 300) - 10;
		if (round % 89 == 0)
			off = INT32_MAX - (int)(test_random() % 10);
		int line = pyline_line(v, t, (uint32_t)len, first, off);
		CHECK(line >= 0);
		free(t);
	}
}
