/* A version 1 packed block (formats 2-4) as kgantt wrote them: no compression, each value
 * the difference from the column's previous one. For the tests of blocks and of traces
 * of those formats. */
#ifndef KGANTT_TEST_BLOCKS_V1_H
#define KGANTT_TEST_BLOCKS_V1_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/row.h"

static size_t put_v(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	for (; v >= 0x80; v >>= 7)
		p[n++] = (uint8_t)(v | 0x80);
	p[n++] = (uint8_t)v;
	return n;
}

static uint8_t *encode_v1(const struct kg_row *rows, uint32_t n, int ncols, size_t *len)
{
	size_t cap = 64 + (size_t)ncols * (16 + n / 8 + (size_t)n * 10);
	uint8_t *sec = malloc(cap), *out = malloc(cap);
	size_t seclen[KG_PACKED_MAX_COLUMNS], at = 0;
	for (int c = 0; c < ncols; c++) {
		size_t start = at;
		uint32_t nulls = 0;
		for (uint32_t r = 0; r < n; r++)
			nulls += row_is_null(&rows[r], c);
		sec[at++] = nulls == n && n ? 2 : nulls ? 1 : 0;
		if (nulls && nulls < n) {
			memset(sec + at, 0, (n + 7) / 8);
			for (uint32_t r = 0; r < n; r++)
				if (row_is_null(&rows[r], c))
					sec[at + r / 8] |= (uint8_t)(1u << (r % 8));
			at += (n + 7) / 8;
		}
		int64_t prev = 0;
		for (uint32_t r = 0; r < n && nulls < n; r++)
			if (!row_is_null(&rows[r], c)) {
				uint64_t d = (uint64_t)rows[r].v[c] - (uint64_t)prev;
				at += put_v(sec + at, (d << 1) ^ (uint64_t)((int64_t)d >> 63));
				prev = rows[r].v[c];
			}
		seclen[c] = at - start;
	}
	size_t o = 0;
	out[o++] = 1;
	o += put_v(out + o, (uint64_t)ncols);
	o += put_v(out + o, n);
	for (int c = 0; c < ncols; c++)
		o += put_v(out + o, seclen[c]);
	memcpy(out + o, sec, at);
	free(sec);
	*len = o + at;
	return out;
}

#endif
