/* Batches of decoded Kineto items, and places in the JSON text (kineto_event.h). */
#include "model/kineto_event.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kin_batch_clear(struct kin_batch *b)
{
	b->n_items = 0;
	b->n_text = 0;
	b->n_cut = 0;
}

void kin_batch_free(struct kin_batch *b)
{
	free(b->items);
	free(b->text);
	memset(b, 0, sizeof(*b));
}

struct kin_item *kin_batch_push(struct kin_batch *b, uint8_t type, uint64_t end)
{
	if (b->n_items == b->cap_items) {
		size_t cap = b->cap_items ? b->cap_items * 2 : 256;
		struct kin_item *p = realloc(b->items, cap * sizeof(*p));
		if (!p)
			return NULL;
		b->items = p;
		b->cap_items = cap;
	}
	struct kin_item *it = &b->items[b->n_items++];
	it->type = type;
	it->end = end;
	return it;
}

int64_t kin_batch_text(struct kin_batch *b, const char *s, size_t len)
{
	if (b->n_text + len + 1 > UINT32_MAX)
		return -1; /* offsets are 32-bit: a piece's strings never come near */
	if (b->cap_text - b->n_text < len + 1) {
		size_t cap = b->cap_text ? b->cap_text : 64u << 10;
		while (cap - b->n_text < len + 1)
			cap *= 2;
		char *p = realloc(b->text, cap);
		if (!p)
			return -1;
		b->text = p;
		b->cap_text = cap;
	}
	int64_t off = (int64_t)b->n_text;
	memcpy(b->text + b->n_text, s, len);
	b->text[b->n_text + len] = 0;
	b->n_text += len + 1;
	return off;
}

void kin_place(const struct kin_pos *pos, const unsigned char *text, size_t len, uint64_t off,
	       char *buf, size_t buflen)
{
	uint64_t lines = pos->lines, line_start = pos->line_start;
	size_t upto = off > pos->base ? (size_t)(off - pos->base) : 0;
	if (upto > len)
		upto = len;
	for (size_t i = 0; text && i < upto; i++) {
		if (text[i] == '\n') {
			lines++;
			line_start = pos->base + i + 1;
		}
	}
	snprintf(buf, buflen, "byte %llu (line %llu, column %llu)", (unsigned long long)off,
		 (unsigned long long)lines + 1, (unsigned long long)(off - line_start) + 1);
}

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>

/* The '\n' bytes in len bytes at text, 16 at a time: the machine every x86-64 is. */
static uint64_t count_newlines(const unsigned char *text, size_t len)
{
	const __m128i nl = _mm_set1_epi8('\n');
	uint64_t n = 0;
	size_t i = 0;
	while (len - i >= 16) {
		/* byte counters, summed before they can wrap (255 blocks) */
		__m128i acc = _mm_setzero_si128();
		size_t blocks = (len - i) / 16 < 255 ? (len - i) / 16 : 255;
		for (size_t b = 0; b < blocks; b++, i += 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(text + i));
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, nl));
		}
		__m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
		n += (uint64_t)_mm_cvtsi128_si64(sums) +
		     (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
	}
	for (; i < len; i++)
		n += text[i] == '\n';
	return n;
}
#else
static uint64_t count_newlines(const unsigned char *text, size_t len)
{
	uint64_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	return n;
}
#endif

void kin_pos_advance(struct kin_pos *pos, const unsigned char *text, size_t len)
{
	/* a kernel takes some 30 lines: counted in bulk, not a memchr per line */
	uint64_t lines = count_newlines(text, len);
	if (lines) {
		const unsigned char *last = memrchr(text, '\n', len);
		pos->lines += lines;
		pos->line_start = pos->base + (uint64_t)(last - text) + 1;
	}
	pos->base += len;
}
