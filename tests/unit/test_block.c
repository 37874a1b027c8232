/* A packed block (trace/block.h): blocks round-trip every value whatever is subtracted;
 * a reader of a prefix of the columns takes exactly the blocks a reader of every column
 * takes; damage never crashes the reader; sizes read from a block are bounded before
 * anything is allocated; version 1 blocks (formats 2-4) still read. */
#include "harness.h"

#include <stdint.h>
#include <stdlib.h>

#include "trace/block.h"
#include "trace/codec.h"
#include <zstd.h>

#include "alloc_watch.h"
#include "blocks_v1.h"

/* ------------------------------------------------------------------ blocks */

#define rnd() ((uint64_t)test_random())

/* Values of every size and sign, NULLs in some columns, none or all in others. */
static void random_row(struct kg_row *row, int ncols, uint32_t r)
{
	static const int64_t edge[] = {0, 1, -1, INT64_MAX, INT64_MIN, 127, 128, -64, -65,
				       1LL << 40, -(1LL << 40)};
	row->nulls = 0;
	for (int c = 0; c < ncols; c++) {
		uint64_t x = rnd();
		switch (c % 5) {
		case 0: row->v[c] = (int64_t)r * 1000 + (int64_t)(x % 50); break; /* time-like */
		case 1: row->v[c] = edge[x % (sizeof(edge) / sizeof(edge[0]))]; break;
		case 2: row->v[c] = (int64_t)x; break;
		case 3: row->v[c] = 7; break;
		default: row->v[c] = 0; row->nulls |= 1ull << c; break; /* always NULL */
		}
		if (c % 5 == 2 && x % 3 == 0) {
			row->v[c] = 0;
			row->nulls |= 1ull << c;
		}
	}
}

static void *encode(struct kg_packed_writer *w, const struct kg_row *rows, uint32_t n,
		    size_t *len)
{
	packed_writer_reset(w);
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ_INT(packed_writer_add(w, &rows[i]), 0);
	const void *data;
	CHECK_EQ_INT(packed_writer_finish(w, &data, len), 0);
	void *copy = malloc(*len);
	memcpy(copy, data, *len);
	return copy;
}

/* The block's first ncols columns read back as they were written. */
static void check_decodes(const void *data, size_t len, const struct kg_row *rows, uint32_t n,
			  int ncols)
{
	struct kg_packed_block b;
	struct kg_row got;
	CHECK_EQ_INT(packed_block_open(&b, data, len, ncols, n), 0);
	for (uint32_t i = 0; i < n; i++) {
		CHECK_EQ_INT(packed_block_row(&b, &got), 1);
		CHECK(got.nulls == (rows[i].nulls & ((2ull << (ncols - 1)) - 1)));
		for (int c = 0; c < ncols; c++)
			CHECK(got.v[c] == rows[i].v[c]);
	}
	CHECK_EQ_INT(packed_block_row(&b, &got), 0);
	packed_block_close(&b);
}

/* Each column predicted from nothing, its previous value, an earlier column of the same
 * row (NULL in some rows), a later column's last value, or both. */
static const struct kg_packed_column mixed[] = {
	{"a", -1, -1, 0}, {"b", -1, 1, 0},  {"c", 0, -1, 0}, {"d", 2, 5, 0},  {"e", -1, 4, 0},
	{"f", 1, -1, 0},  {"g", 3, 6, 0},   {"h", -1, 9, 0}, {"i", 7, 8, 0},  {"j", 4, 9, 0},
	{"k", -1, -1, 0}, {"l", 10, 11, 0},
};

TEST(blocks_round_trip_every_value)
{
	enum { NCOLS = 12, N = 5000 };
	struct kg_row *rows = calloc(N, sizeof(*rows));
	for (uint32_t i = 0; i < N; i++)
		random_row(&rows[i], NCOLS, i);
	for (int how = 0; how < 2; how++) {
		struct kg_packed_writer *w = packed_writer_new(NCOLS, how ? mixed : NULL);
		size_t len;
		void *data = encode(w, rows, N, &len);
		check_decodes(data, len, rows, N, NCOLS);
		check_decodes(data, len, rows, N, 10); /* a prefix: what a reader asks for */
		struct kg_packed_block b;
		/* the header must match what the table says */
		CHECK_EQ_INT(packed_block_open(&b, data, len, NCOLS + 1, N), -1);
		CHECK_EQ_INT(packed_block_open(&b, data, len, NCOLS, N + 1), -1);
		if (how) /* h (7) is predicted from the last j (9): a column not asked for */
			CHECK_EQ_INT(packed_block_open(&b, data, len, 8, N), -1);
		free(data);
		/* an empty block */
		data = encode(w, rows, 0, &len);
		check_decodes(data, len, rows, 0, NCOLS);
		free(data);
		packed_writer_free(w);
	}
	free(rows);
}

TEST(blocks_hold_at_most_their_size)
{
	struct kg_packed_writer *w = packed_writer_new(1, NULL);
	struct kg_row row = {.v = {5}};
	for (uint32_t i = 0; i < KG_PACKED_BLOCK; i++)
		CHECK_EQ_INT(packed_writer_add(w, &row), 0);
	CHECK(packed_writer_add(w, &row) < 0);
	CHECK(packed_writer_new(0, NULL) == NULL);
	CHECK(packed_writer_new(KG_PACKED_MAX_COLUMNS + 1, NULL) == NULL);
	/* predicted from a later column of the same row, or from no column */
	struct kg_packed_column bad[2] = {{"x", 1, -1, 0}, {"y", -1, -1, 0}};
	CHECK(packed_writer_new(2, bad) == NULL);
	bad[0] = (struct kg_packed_column){"x", -1, 2, 0};
	CHECK(packed_writer_new(2, bad) == NULL);
	/* from an earlier column's last value: its value of this row is decoded already */
	bad[0] = (struct kg_packed_column){"x", -1, -1, 0};
	bad[1] = (struct kg_packed_column){"y", -1, 0, 0};
	CHECK(packed_writer_new(2, bad) == NULL);
	packed_writer_free(w);
}

TEST(version_1_blocks_still_read)
{
	enum { NCOLS = 24, N = 3000 };
	struct kg_row *rows = calloc(N, sizeof(*rows));
	for (uint32_t i = 0; i < N; i++)
		random_row(&rows[i], NCOLS, i);
	size_t len;
	uint8_t *data = encode_v1(rows, N, NCOLS, &len);
	check_decodes(data, len, rows, N, NCOLS);
	struct kg_packed_block b;
	CHECK_EQ_INT(packed_block_open(&b, data, len, NCOLS - 1, N), -1); /* exactly its columns */
	free(data);
	free(rows);
}

/* Decoding ends with -1 or a row count, never a crash (ASan watches every read). */
static void decode_damaged(const uint8_t *data, size_t len, int ncols, uint32_t n)
{
	struct kg_packed_block b;
	struct kg_row got;
	if (packed_block_open(&b, data, len, ncols, n) == 0) {
		uint32_t rows = 0;
		int r;
		while ((r = packed_block_row(&b, &got)) == 1)
			rows++;
		CHECK(r == -1 || rows == n);
		packed_block_close(&b);
	}
}

/* Every cut and many flipped bytes, of blocks of both versions. */
TEST(damaged_blocks_never_crash)
{
	enum { NCOLS = 12, N = 300 };
	struct kg_row rows[N];
	for (uint32_t i = 0; i < N; i++)
		random_row(&rows[i], NCOLS, i);
	struct kg_packed_writer *w = packed_writer_new(NCOLS, mixed);
	size_t len[2];
	uint8_t *data[2] = {encode(w, rows, N, &len[0]), encode_v1(rows, N, NCOLS, &len[1])};
	for (int v = 0; v < 2; v++) {
		for (size_t cut = 0; cut < len[v]; cut++) {
			uint8_t *part = malloc(cut ? cut : 1);
			memcpy(part, data[v], cut);
			decode_damaged(part, cut, NCOLS, N);
			free(part);
		}
		for (int i = 0; i < 3000; i++) {
			uint8_t *bad = malloc(len[v]);
			memcpy(bad, data[v], len[v]);
			for (int k = 0; k < 1 + (int)(rnd() % 4); k++)
				bad[rnd() % len[v]] ^= (uint8_t)(1 + rnd() % 255);
			decode_damaged(bad, len[v], NCOLS, N);
			free(bad);
		}
		free(data[v]);
	}
	struct kg_packed_block b;
	CHECK_EQ_INT(packed_block_open(&b, NULL, 0, NCOLS, N), -1);
	packed_writer_free(w);
}

/* A block's header says how large it is once decompressed; a size larger than its rows
 * and columns can take, or one its zstd frame does not agree with, is refused before
 * anything that large is allocated. */
TEST(block_sizes_are_bounded_before_allocating)
{
	struct kg_row row = {.v = {42}};
	struct kg_packed_writer *w = packed_writer_new(1, NULL);
	size_t len;
	uint8_t *data = encode(w, &row, 1, &len);
	packed_writer_free(w);
	CHECK(data[0] == KG_PACKED_VERSION && data[1] == 1 && data[2] == 1 && data[3] < 0x80);
	check_decodes(data, len, &row, 1, 1);
	/* the size varint (byte 3) replaced: one more, and 2^40 */
	static const uint8_t sizes[][6] = {{0}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x20}};
	for (int i = 0; i < 2; i++) {
		size_t n = i ? 6 : 1;
		uint8_t *bad = malloc(len + 6);
		memcpy(bad, data, 3);
		if (i)
			memcpy(bad + 3, sizes[1], n);
		else
			bad[3] = (uint8_t)(data[3] + 1);
		memcpy(bad + 3 + n, data + 4, len - 4);
		struct kg_packed_block b;
		largest_alloc = 0;
		__sanitizer_install_malloc_and_free_hooks(note_alloc, note_free);
		int rc = packed_block_open(&b, bad, len - 1 + n, 1, 1);
		__sanitizer_install_malloc_and_free_hooks(NULL, NULL);
		CHECK_EQ_INT(rc, -1);
		CHECK(largest_alloc < 4096);
		free(bad);
	}
	free(data);
}


/* The block of rows (NCOLS columns, each its previous value subtracted) with its last
 * column's section one varint longer than its rows: decompressed, changed, compressed
 * again, as a writer that lies would leave it. */
static uint8_t *with_extra_value(const uint8_t *data, size_t len, int ncols, size_t *out_len)
{
	const uint8_t *p = data + 1, *end = data + len;
	uint64_t nstored, rows, size;
	CHECK(get_varint(&p, end, &nstored) && get_varint(&p, end, &rows) &&
	      get_varint(&p, end, &size) && nstored == (uint64_t)ncols);
	uint8_t *payload = malloc(size + 16);
	CHECK(ZSTD_decompress(payload, size, p, (size_t)(end - p)) == size);
	/* the section lengths, the last one longer by one byte: a value of 0 appended */
	uint64_t seclen[KG_PACKED_MAX_COLUMNS];
	const uint8_t *q = payload, *pend = payload + size;
	for (int c = 0; c < ncols; c++)
		CHECK(get_varint(&q, pend, &seclen[c]));
	size_t sections = (size_t)(pend - q);
	seclen[ncols - 1]++;
	uint8_t *changed = malloc(size + 32);
	size_t n = 0;
	for (int c = 0; c < ncols; c++)
		n += put_varint(changed + n, seclen[c]);
	memcpy(changed + n, q, sections);
	n += sections;
	changed[n++] = 0;
	size_t bound = ZSTD_compressBound(n);
	uint8_t *block = malloc(32 + bound), *o = block;
	*o++ = KG_PACKED_VERSION;
	o += put_varint(o, (uint64_t)ncols);
	o += put_varint(o, rows);
	o += put_varint(o, n);
	size_t z = ZSTD_compress(o, bound, changed, n, 1);
	CHECK(!ZSTD_isError(z));
	*out_len = (size_t)(o - block) + z;
	free(payload);
	free(changed);
	return block;
}

/* 0 when the block opens for its first ncols columns and every row reads, -1 when not. */
static int read_whole(const uint8_t *data, size_t len, int ncols, uint32_t n)
{
	struct kg_packed_block b;
	struct kg_row row;
	if (packed_block_open(&b, data, len, ncols, n) < 0)
		return -1;
	int got;
	while ((got = packed_block_row(&b, &row)) == 1)
		;
	packed_block_close(&b);
	return got;
}

/* A reader of the first columns takes a block exactly when a reader of every column does:
 * a later column that would not decode (here: a value more than its rows) is refused by
 * both, so the model loader, which reads a prefix, and export, which reads every column,
 * agree on what loads. */
TEST(readers_of_a_prefix_take_the_blocks_all_readers_take)
{
	enum { NCOLS = 3, N = 100 };
	struct kg_row rows[N];
	for (uint32_t i = 0; i < N; i++) {
		rows[i] = (struct kg_row){.v = {i, 7, (int64_t)i * 3}};
	}
	struct kg_packed_writer *w = packed_writer_new(NCOLS, NULL);
	size_t len, bad_len;
	uint8_t *data = encode(w, rows, N, &len);
	packed_writer_free(w);
	for (int ncols = 1; ncols <= NCOLS; ncols++)
		CHECK_EQ_INT(read_whole(data, len, ncols, N), 0);
	uint8_t *bad = with_extra_value(data, len, NCOLS, &bad_len);
	for (int ncols = 1; ncols <= NCOLS; ncols++)
		CHECK_EQ_INT(read_whole(bad, bad_len, ncols, N), -1);
	free(bad);
	free(data);
}
