/* The column codec of packed blocks (trace/block.h): each value minus what predicts it (the
 * same row's value of an earlier column, the last value of a column in the rows before),
 * zigzag-mapped, as an LEB128 varint of at most 10 bytes. The decoder's steps are inline:
 * a block's reader runs them for every value of millions of rows. */
#ifndef KGANTT_CODEC_H
#define KGANTT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define KG_VARINT_MAX 10 /* bytes of the longest varint (a 64-bit value) */

static inline uint64_t zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static inline uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* v at p (room for KG_VARINT_MAX bytes); its length. */
static inline size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static inline size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* The varint at *pp, which moves past it; 0 when it runs past end or over 10 bytes. */
static inline int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	for (int shift = 0; shift < 7 * KG_VARINT_MAX && p < end; shift += 7) {
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			*out = v;
			return 1;
		}
	}
	return 0;
}

/* A varint of p, which has at least 10 bytes; the byte after it, or NULL when it runs
 * over 10 bytes. Times and sizes take 2-4 bytes: those are unrolled. */
static inline const uint8_t *varint10(const uint8_t *p, uint64_t *out)
{
	uint64_t v = p[0] & 0x7f;
	if (p[1] < 0x80) {
		*out = v | (uint64_t)p[1] << 7;
		return p + 2;
	}
	v |= (uint64_t)(p[1] & 0x7f) << 7;
	if (p[2] < 0x80) {
		*out = v | (uint64_t)p[2] << 14;
		return p + 3;
	}
	v |= (uint64_t)(p[2] & 0x7f) << 14;
	if (p[3] < 0x80) {
		*out = v | (uint64_t)p[3] << 21;
		return p + 4;
	}
	v |= (uint64_t)(p[3] & 0x7f) << 21;
	for (int i = 4; i < KG_VARINT_MAX; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (p[i] < 0x80) {
			*out = v;
			return p + i + 1;
		}
	}
	return NULL;
}

/* What the writer subtracts from a column's value in a row (v, nulls: the row; last: each
 * column's last non-NULL value before it; base, prev: -1 for none); the block reader adds
 * the same back, inline. */
static inline uint64_t predicted(int base, int prev, const int64_t *v, uint64_t nulls,
				 const int64_t *last)
{
	uint64_t p = 0;
	if (base >= 0 && !((nulls >> base) & 1))
		p = (uint64_t)v[base];
	if (prev >= 0)
		p += (uint64_t)last[prev];
	return p;
}

/* 1 when p..end is exactly count varints, each of at most 10 bytes: what decoding them
 * would accept, told without decoding (a reader checks so the columns it does not ask
 * for, which a reader of every column would refuse). */
int varints_fit(const uint8_t *p, const uint8_t *end, uint64_t count);

#endif
