/* Packed columns: the two tables that make up most of a big trace (kernels, api_calls)
 * are also stored as compressed column blocks in the table `packed`, which kgantt's reader
 * decodes about ten times faster than SQLite can step through the rows (a million rows of
 * 24 columns cost SQLite ~0.8 s on one core). The SQL tables stay the trace's truth, for
 * users and for every other table; the blocks are derived data, like an index:
 *
 * - written last by every kgantt writer (trace_pack), from the rows themselves;
 * - dropped by triggers as soon as anyone inserts, updates or deletes a row of their
 *   table, so an edited trace is read from its rows again;
 * - used by the reader only when their version, their triggers and their row count and
 *   id range agree with the table (packed_usable).
 *
 * A block holds up to KG_PACKED_BLOCK consecutive rows (by id) of the columns
 * kg_packed_tables lists, each column a run of zigzag LEB128 varints of the difference
 * from the column's previous non-NULL value, with a NULL bitmap where it has NULLs.
 * docs/trace-format.md ("Packed columns") gives the byte layout. */
#ifndef KGANTT_PACKED_H
#define KGANTT_PACKED_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define KG_PACKED_VERSION 1
#define KG_PACKED_BLOCK 65536
#define KG_PACKED_MAX_COLUMNS 32

struct kg_packed_table {
	const char *name;    /* the SQL table */
	const char *columns; /* the packed columns, comma-separated, in block order */
	int ncolumns;
};

/* The packed tables; NULL-terminated. */
extern const struct kg_packed_table kg_packed_tables[];
const struct kg_packed_table *packed_table(const char *name);

/* One row as the reader sees it, from SQL or from a block: each value as
 * sqlite3_column_int64 gives it, and which columns are NULL. */
struct kg_row {
	int64_t v[KG_PACKED_MAX_COLUMNS];
	uint32_t nulls; /* bit i: column i is NULL */
};

static inline int row_is_null(const struct kg_row *r, int col)
{
	return (r->nulls >> col) & 1;
}

/* Fills row from the current row of st (ncolumns columns). */
void row_from_stmt(struct kg_row *row, sqlite3_stmt *st, int ncolumns);

/* (Re)builds the packed blocks of every packed table from its rows, and the triggers that
 * drop them when a row changes. Runs inside the caller's transaction. 0, or -EIO/-ENOMEM
 * with a message in err. */
int trace_pack(sqlite3 *db, char *err, size_t errlen);

/* Removes the blocks and their triggers. 0, or -EIO with a message in err. */
int trace_unpack(sqlite3 *db, char *err, size_t errlen);

/* 1 when the packed blocks of table can stand for its rows: version, triggers, row count
 * and id range agree; 0 when not (the reader reads the rows); *rows is the table's row
 * count. */
int packed_usable(sqlite3 *db, const char *table, int64_t *rows);

/* A block being decoded, row after row. */
struct kg_packed_block {
	const uint8_t *at[KG_PACKED_MAX_COLUMNS], *end[KG_PACKED_MAX_COLUMNS];
	const uint8_t *nullmap[KG_PACKED_MAX_COLUMNS]; /* bitmap, or NULL */
	uint8_t all_null[KG_PACKED_MAX_COLUMNS];
	int64_t prev[KG_PACKED_MAX_COLUMNS];
	uint32_t rows, row;
	int ncolumns;
};

/* Checks the block's header against what the table expects (ncolumns, rows). 0, or -1
 * when the block is damaged. */
int packed_block_open(struct kg_packed_block *b, const void *data, size_t len, int ncolumns,
		      uint32_t rows);
/* The next row: 1, 0 after the last, -1 when the block is damaged. */
int packed_block_row(struct kg_packed_block *b, struct kg_row *row);

/* Encoding one block, for trace_pack and the tests. */
struct kg_packed_writer;
struct kg_packed_writer *packed_writer_new(int ncolumns);
/* Adds a row; 0 or -ENOMEM. */
int packed_writer_add(struct kg_packed_writer *w, const struct kg_row *row);
uint32_t packed_writer_rows(const struct kg_packed_writer *w);
/* The block of the rows added since the last reset: *data valid until the next call. */
int packed_writer_finish(struct kg_packed_writer *w, const void **data, size_t *len);
void packed_writer_reset(struct kg_packed_writer *w);
void packed_writer_free(struct kg_packed_writer *w);

#endif
