/* A packed block (docs/trace-format.md, "Packed columns"): up to KG_PACKED_BLOCK rows of
 * a table's columns, each column its values through the column codec (trace/codec.h) with
 * a NULL bitmap where it has NULLs; the whole one zstd frame (version 2), or, in formats
 * 2-4, uncompressed (version 1). Its writer and its reader; which tables are stored so, and
 * where, is trace/packed.h's. */
#ifndef KGANTT_BLOCK_H
#define KGANTT_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "trace/row.h"

#define KG_PACKED_VERSION 2 /* what kgantt writes: zstd, every column, the only copy */
#define KG_PACKED_V1      1 /* formats 2-4: uncompressed, beside the rows; still read */
#define KG_PACKED_BLOCK   65536
/* zstd's level for the blocks: docs/results/trace-size.md has the sizes and times of
 * the levels tried */
#define KG_PACKED_ZSTD_LEVEL 9

/* A stored column and what is subtracted from its values before they are written. */
struct kg_packed_column {
	const char *name;
	int8_t base;  /* block index of an earlier column: its value in the same row; -1 none */
	int8_t prev;  /* block index of this column or a later one: its last non-NULL value before
		       * this row; -1 none */
	uint8_t real; /* a REAL column: each value is its double's bits (base and prev -1) */
};

/* A block being decoded, row after row. After open, column c's values are the varints
 * at[c]..end[c] (zigzag, then plus the same row's value of column base[c] when base[c] >=
 * 0 and that is not NULL, plus last[prev[c]] when prev[c] >= 0), NULL where bit r of
 * nullmap[c] is set or every row when all_null[c]; last[c] is column c's last non-NULL
 * value (prev names a column at or after its own: read before this row's value is). */
struct kg_packed_block {
	const uint8_t *at[KG_PACKED_MAX_COLUMNS], *end[KG_PACKED_MAX_COLUMNS];
	const uint8_t *nullmap[KG_PACKED_MAX_COLUMNS]; /* bitmap, or NULL */
	uint8_t all_null[KG_PACKED_MAX_COLUMNS];
	int8_t base[KG_PACKED_MAX_COLUMNS], prev[KG_PACKED_MAX_COLUMNS];
	int64_t last[KG_PACKED_MAX_COLUMNS + 1];  /* [KG_PACKED_MAX_COLUMNS] stays 0 */
	uint8_t prev_slot[KG_PACKED_MAX_COLUMNS]; /* prev[c], or that 0 when none */
	uint64_t nullable;                        /* bit c: column c has a bitmap or is all NULL */
	uint32_t rows, row;
	int ncolumns;
	uint8_t *owned; /* the decompressed block (version 2); packed_block_close frees it */
};

/* Opens a block for its first ncolumns columns (a reader of fewer columns than the block
 * holds reads the prefix it knows; a version 1 block must hold exactly ncolumns) and checks
 * its header against rows, the count the packed table gives. The columns past ncolumns are
 * checked as decoding them would, so that a reader of a prefix reads a block whole exactly
 * when a reader of every column does; sizes are checked against what the columns × rows
 * can take before anything is allocated. 0, or -1 when the block is damaged (nothing to
 * close then). */
int packed_block_open(struct kg_packed_block *b, const void *data, size_t len, int ncolumns,
		      uint32_t rows);
/* The next row: 1, 0 after the last, -1 when the block is damaged. */
int packed_block_row(struct kg_packed_block *b, struct kg_row *row);
/* Frees what open allocated; the block may be opened again. */
void packed_block_close(struct kg_packed_block *b);

/* Encoding one block, for the packed stream (trace/packed.h), the tests and
 * bench/pack_transforms.c. The columns give each column's base and prev (block indexes, as
 * in struct kg_packed_column); NULL subtracts from each value the column's own previous
 * one. */
struct kg_packed_writer;
struct kg_packed_writer *packed_writer_new(int ncolumns, const struct kg_packed_column *columns);
/* Adds a row; 0 or -ENOMEM (-ENOSPC past KG_PACKED_BLOCK rows). */
int packed_writer_add(struct kg_packed_writer *w, const struct kg_row *row);
uint32_t packed_writer_rows(const struct kg_packed_writer *w);
/* The block of the rows added since the last reset: *data valid until the next call. */
int packed_writer_finish(struct kg_packed_writer *w, const void **data, size_t *len);
void packed_writer_reset(struct kg_packed_writer *w);
void packed_writer_free(struct kg_packed_writer *w);
/* zstd's level for the next blocks (default KG_PACKED_ZSTD_LEVEL; the bench tries others). */
void packed_writer_level(struct kg_packed_writer *w, int level);

#endif
