/* Packed blocks (block.h): the writer and the reader of one block. */
#include "trace/block.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "trace/codec.h"

static void remember(int64_t *last, const int64_t *v, uint64_t nulls, int ncolumns)
{
	for (int c = 0; c < ncolumns; c++)
		if (!((nulls >> c) & 1))
			last[c] = v[c];
}

/* ------------------------------------------------------------------ writing a block */

struct column_buf {
	uint8_t *bytes;
	size_t len, cap;
	uint8_t nullmap[KG_PACKED_BLOCK / 8];
	uint32_t nulls;
};

struct kg_packed_writer {
	int ncolumns, level;
	uint32_t rows;
	struct kg_packed_column how[KG_PACKED_MAX_COLUMNS];
	int64_t last[KG_PACKED_MAX_COLUMNS];
	struct column_buf col[KG_PACKED_MAX_COLUMNS];
	uint8_t *payload, *block;
	size_t payload_cap, block_cap;
	ZSTD_CCtx *zstd;
};

struct kg_packed_writer *packed_writer_new(int ncolumns, const struct kg_packed_column *columns)
{
	if (ncolumns <= 0 || ncolumns > KG_PACKED_MAX_COLUMNS)
		return NULL;
	for (int c = 0; columns && c < ncolumns; c++) /* the reader checks the same */
		if (columns[c].base >= c || columns[c].prev >= ncolumns ||
		    (columns[c].prev >= 0 && columns[c].prev < c))
			return NULL;
	struct kg_packed_writer *w = calloc(1, sizeof(*w));
	if (!w || !(w->zstd = ZSTD_createCCtx())) {
		free(w);
		return NULL;
	}
	w->ncolumns = ncolumns;
	w->level = KG_PACKED_ZSTD_LEVEL;
	for (int c = 0; c < ncolumns; c++)
		w->how[c] = columns ? columns[c]
				    : (struct kg_packed_column){NULL, -1, (int8_t)c, 0};
	return w;
}

void packed_writer_level(struct kg_packed_writer *w, int level)
{
	w->level = level;
}

void packed_writer_reset(struct kg_packed_writer *w)
{
	w->rows = 0;
	memset(w->last, 0, sizeof(w->last));
	for (int c = 0; c < w->ncolumns; c++) {
		struct column_buf *b = &w->col[c];
		b->len = 0;
		b->nulls = 0;
		memset(b->nullmap, 0, sizeof(b->nullmap));
	}
}

void packed_writer_free(struct kg_packed_writer *w)
{
	if (!w)
		return;
	for (int c = 0; c < w->ncolumns; c++)
		free(w->col[c].bytes);
	free(w->payload);
	free(w->block);
	ZSTD_freeCCtx(w->zstd);
	free(w);
}

uint32_t packed_writer_rows(const struct kg_packed_writer *w)
{
	return w->rows;
}

static int reserve_bytes(uint8_t **buf, size_t *cap, size_t want)
{
	if (want <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 4096;
	while (ncap < want)
		ncap *= 2;
	uint8_t *p = realloc(*buf, ncap);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = ncap;
	return 0;
}

int packed_writer_add(struct kg_packed_writer *w, const struct kg_row *row)
{
	if (w->rows >= KG_PACKED_BLOCK)
		return -ENOSPC;
	for (int c = 0; c < w->ncolumns; c++) {
		struct column_buf *b = &w->col[c];
		if (row_is_null(row, c)) {
			b->nullmap[w->rows / 8] |= (uint8_t)(1u << (w->rows % 8));
			b->nulls++;
			continue;
		}
		if (reserve_bytes(&b->bytes, &b->cap, b->len + 10) < 0)
			return -ENOMEM;
		uint64_t p = predicted(w->how[c].base, w->how[c].prev, row->v, row->nulls, w->last);
		b->len += put_varint(b->bytes + b->len, zigzag((uint64_t)row->v[c] - p));
	}
	remember(w->last, row->v, row->nulls, w->ncolumns);
	w->rows++;
	return 0;
}

enum { MODE_NO_NULLS = 0, MODE_BITMAP = 1, MODE_ALL_NULL = 2 };

static size_t section_len(const struct kg_packed_writer *w, int c)
{
	const struct column_buf *b = &w->col[c];
	if (b->nulls == w->rows && w->rows)
		return 1;
	return 1 + varint_len((uint64_t)(w->how[c].base + 1)) +
	       varint_len((uint64_t)(w->how[c].prev + 1)) + (b->nulls ? (w->rows + 7) / 8 : 0) +
	       b->len;
}

/* The uncompressed block: a varint section length per column, then the sections: a mode
 * byte (0 no NULLs, 1 NULL bitmap follows, 2 all NULL: nothing follows), 1 + base and
 * 1 + prev as varints (0: none), the bitmap (bit r of byte r/8 set: row r is NULL), the
 * non-NULL values. */
static size_t write_payload(struct kg_packed_writer *w)
{
	uint8_t *p = w->payload;
	for (int c = 0; c < w->ncolumns; c++)
		p += put_varint(p, section_len(w, c));
	for (int c = 0; c < w->ncolumns; c++) {
		const struct column_buf *b = &w->col[c];
		if (b->nulls == w->rows && w->rows) {
			*p++ = MODE_ALL_NULL;
			continue;
		}
		*p++ = b->nulls ? MODE_BITMAP : MODE_NO_NULLS;
		p += put_varint(p, (uint64_t)(w->how[c].base + 1));
		p += put_varint(p, (uint64_t)(w->how[c].prev + 1));
		if (b->nulls) {
			memcpy(p, b->nullmap, (w->rows + 7) / 8);
			p += (w->rows + 7) / 8;
		}
		if (b->len)
			memcpy(p, b->bytes, b->len);
		p += b->len;
	}
	return (size_t)(p - w->payload);
}

/* The block: version byte, varint column count, varint row count, varint size of the
 * payload, and the payload as one zstd frame. */
int packed_writer_finish(struct kg_packed_writer *w, const void **data, size_t *len)
{
	size_t need = (size_t)w->ncolumns * 10;
	for (int c = 0; c < w->ncolumns; c++)
		need += section_len(w, c);
	if (reserve_bytes(&w->payload, &w->payload_cap, need) < 0)
		return -ENOMEM;
	size_t size = write_payload(w);
	size_t bound = ZSTD_compressBound(size);
	if (reserve_bytes(&w->block, &w->block_cap, 1 + 3 * 10 + bound) < 0)
		return -ENOMEM;
	uint8_t *p = w->block;
	*p++ = KG_PACKED_VERSION;
	p += put_varint(p, (uint64_t)w->ncolumns);
	p += put_varint(p, w->rows);
	p += put_varint(p, size);
	size_t z = ZSTD_compressCCtx(w->zstd, p, bound, w->payload, size, w->level);
	if (ZSTD_isError(z))
		return -ENOMEM; /* with a bound-sized output, only an allocation can fail */
	*data = w->block;
	*len = (size_t)(p - w->block) + z;
	return 0;
}

/* ------------------------------------------------------------------ reading a block */

/* The most a payload of ncolumns × rows can take: every value 10 bytes, every section its
 * bitmap and header. Nothing larger is allocated, whatever a damaged frame claims. */
static uint64_t payload_bound(uint64_t ncolumns, uint64_t rows)
{
	return ncolumns * (10 + 1 + 10 + 10 + (rows + 7) / 8 + rows * 10);
}

/* The NULLs bitmap's rows (its bits past rows ignored). */
static uint64_t bitmap_nulls(const uint8_t *map, uint32_t rows)
{
	static const uint8_t ones[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
	uint64_t n = 0;
	for (uint32_t i = 0; i < (rows + 7) / 8; i++) {
		uint8_t b = i < rows / 8 ? map[i] : (uint8_t)(map[i] & ((1u << (rows % 8)) - 1));
		n += (uint64_t)(ones[b & 15] + ones[b >> 4]);
	}
	return n;
}

/* The section s..e of column c (of nstored), not decoded: 0 when decoding it would work
 * (its header, bitmap and one varint per non-NULL row), -1 when not. */
static int check_section(const uint8_t *s, const uint8_t *e, int version, uint64_t c,
			 uint64_t nstored, uint32_t rows)
{
	uint8_t mode = *s++;
	uint64_t base = 0, prev = c + 1, nulls = 0;
	if (mode == MODE_ALL_NULL)
		return 0;
	if (mode > MODE_ALL_NULL ||
	    (version > KG_PACKED_V1 && (!get_varint(&s, e, &base) || !get_varint(&s, e, &prev))) ||
	    base > c || (prev && (prev <= c || prev > nstored)))
		return -1;
	if (mode == MODE_BITMAP) {
		if ((size_t)(e - s) < (rows + 7) / 8)
			return -1;
		nulls = bitmap_nulls(s, rows);
		s += (rows + 7) / 8;
	}
	return varints_fit(s, e, rows - nulls) ? 0 : -1;
}

/* Sets up the sections of a payload (p..end) of columns first..first+count-1 that are
 * among the first ncolumns. version 1 sections have no base and prev: each value follows
 * the column's previous one. */
static int open_sections(struct kg_packed_block *b, const uint8_t *p, const uint8_t *end,
			 int version, uint64_t first, uint64_t count, int ncolumns, uint32_t rows)
{
	uint64_t sec[KG_PACKED_MAX_COLUMNS];
	for (uint64_t i = 0; i < count; i++)
		if (!get_varint(&p, end, &sec[i]) || sec[i] < 1 || sec[i] > (uint64_t)(end - p))
			return -1;
	size_t bitmap = (rows + 7) / 8;
	for (uint64_t i = 0, c = first; i < count; i++, c++) {
		if (sec[i] > (uint64_t)(end - p))
			return -1;
		const uint8_t *s = p, *e = p + sec[i];
		p = e;
		if (c >= (uint64_t)ncolumns) {
			/* a column this reader does not ask for: checked as a reader of every
			 * column would decode it, so that both take the same blocks */
			if (check_section(s, e, version, c, first + count, rows) < 0)
				return -1;
			continue;
		}
		uint8_t mode = *s++;
		uint64_t base = 0, prev = c + 1;
		if (mode == MODE_ALL_NULL) {
			b->all_null[c] = 1;
		} else if (mode > MODE_ALL_NULL ||
			   (version > KG_PACKED_V1 &&
			    (!get_varint(&s, e, &base) || !get_varint(&s, e, &prev)))) {
			return -1;
		} else if (base > c || (prev && (prev <= c || prev > (uint64_t)ncolumns))) {
			return -1; /* from a column not decoded yet, an earlier one's prev, or
				    * one not asked for */
		} else if (mode == MODE_BITMAP) {
			if ((size_t)(e - s) < bitmap)
				return -1;
			b->nullmap[c] = s;
			s += bitmap;
		}
		b->base[c] = (int8_t)((int)base - 1);
		b->prev[c] = (int8_t)((int)prev - 1);
		b->at[c] = s;
		b->end[c] = e;
	}
	return p == end ? 0 : -1;
}

/* A version 2 block's frame (p..end), decompressed into a buffer the block owns; its size,
 * from the header and the frame, is checked against what the rows and columns can take
 * before anything is allocated. */
static int inflate(struct kg_packed_block *b, const uint8_t *p, const uint8_t *end,
		   uint64_t nstored, int ncolumns, uint32_t rows)
{
	uint64_t size;
	if (!get_varint(&p, end, &size) || size == 0 || size > payload_bound(nstored, rows))
		return -1;
	size_t zlen = (size_t)(end - p);
	if (ZSTD_findFrameCompressedSize(p, zlen) != zlen ||
	    ZSTD_getFrameContentSize(p, zlen) != size || !(b->owned = malloc((size_t)size)))
		return -1;
	size_t got = ZSTD_decompress(b->owned, (size_t)size, p, zlen);
	if (ZSTD_isError(got) || got != size)
		return -1;
	return open_sections(b, b->owned, b->owned + size, KG_PACKED_VERSION, 0, nstored, ncolumns,
			     rows);
}

/* What packed_block_row needs beyond the sections: which columns may be NULL, and where
 * each column's prev value is (a slot that stays 0 when it has none). */
static void plan_rows(struct kg_packed_block *b)
{
	for (int c = 0; c < b->ncolumns; c++) {
		if (b->all_null[c] || b->nullmap[c])
			b->nullable |= 1ull << c;
		b->prev_slot[c] = b->prev[c] >= 0 ? (uint8_t)b->prev[c] : KG_PACKED_MAX_COLUMNS;
	}
}

int packed_block_open(struct kg_packed_block *b, const void *data, size_t len, int ncolumns,
		      uint32_t rows)
{
	const uint8_t *p = data, *end = p + len;
	uint64_t nstored, nrows;
	memset(b, 0, sizeof(*b));
	if (!data || len < 3 || ncolumns <= 0 || ncolumns > KG_PACKED_MAX_COLUMNS ||
	    rows > KG_PACKED_BLOCK)
		return -1;
	int version = *p++;
	if ((version != KG_PACKED_V1 && version != KG_PACKED_VERSION) ||
	    !get_varint(&p, end, &nstored) || nstored < (uint64_t)ncolumns ||
	    nstored > KG_PACKED_MAX_COLUMNS ||
	    (version == KG_PACKED_V1 && nstored != (uint64_t)ncolumns) ||
	    !get_varint(&p, end, &nrows) || nrows != rows)
		return -1;
	int rc = version == KG_PACKED_V1
			 ? open_sections(b, p, end, version, 0, nstored, ncolumns, rows)
			 : inflate(b, p, end, nstored, ncolumns, rows);
	if (rc) {
		packed_block_close(b);
		return -1;
	}
	b->rows = rows;
	b->ncolumns = ncolumns;
	plan_rows(b);
	return 0;
}

void packed_block_close(struct kg_packed_block *b)
{
	free(b->owned);
	b->owned = NULL;
}

int packed_block_row(struct kg_packed_block *b, struct kg_row *row)
{
	const int n = b->ncolumns;
	if (b->row >= b->rows) {
		for (int c = 0; c < n; c++)
			if (b->at[c] != b->end[c])
				return -1; /* values left over: the block does not hold what it says */
		return 0;
	}
	uint32_t r = b->row++, byte = r / 8;
	uint8_t bit = (uint8_t)(1u << (r % 8));
	/* in registers: the stores to v (int64_t) may alias any int64_t of *b */
	const uint64_t nullable = b->nullable;
	uint64_t nulls = 0;
	int64_t *v = row->v;
	for (int c = 0; c < n; c++) {
		if (((nullable >> c) & 1) && (b->all_null[c] || (b->nullmap[c][byte] & bit))) {
			nulls |= 1ull << c;
			v[c] = 0;
			continue;
		}
		uint64_t z;
		const uint8_t *p = b->at[c], *e = b->end[c];
		if (p < e && *p < 0x80) { /* most values: one byte */
			z = *p;
			b->at[c] = p + 1;
		} else if (e - p >= 10) { /* room for the longest: no bounds to check */
			if (!(b->at[c] = varint10(p, &z)))
				return -1;
		} else if (!get_varint(&b->at[c], e, &z)) {
			return -1;
		}
		/* plus what predicted() gives, inline; no prev reads the slot that stays 0 */
		uint64_t x = unzigzag(z) + (uint64_t)b->last[b->prev_slot[c]];
		int base = b->base[c];
		if (base >= 0 && !((nulls >> base) & 1))
			x += (uint64_t)v[base];
		v[c] = (int64_t)x;
		b->last[c] = (int64_t)x; /* prev names this column or a later one: read before */
	}
	row->nulls = nulls;
	return 1;
}
