/* Packed columns: the tables that make up most of a trace (kernels, api_calls and, with
 * --hw, hw_samples) stored as compressed column blocks in the table `packed`.
 * docs/trace-format.md ("Packed columns") gives the byte layout and what reads what.
 *
 * Since format 5 (packed version 2) the blocks are the tables' only copy: a trace kgantt
 * writes has no rows of them, and every column of every row comes back from the blocks
 * exactly as it was inserted (a REAL as its double's bits). A block holds up to
 * KG_PACKED_BLOCK consecutive rows (by rowid) of every column of its table
 * (kg_packed_tables), each column its values minus what predicts them (the same row's
 * value of an earlier column, the last value of a column in the rows before), as zigzag
 * LEB128 varints, with a NULL bitmap where it has NULLs; the block is one zstd frame.
 *
 * Formats 2-4 (packed version 1) kept the rows and, beside them, uncompressed blocks of the
 * reader's columns, each value the difference from the column's previous one: derived
 * data, dropped by triggers when a row changed, used only when packed_usable says they
 * agree with the rows. They still read.
 *
 * The readers: the model loader decodes blocks itself (packed_block_*); merge reads every
 * row of every format the same way (packed_rows) and writes them as blocks again
 * (packed_stream); every other reader of the rows (info, dump, the SM reader, export) asks
 * for them as SQL rows in a schema of its choice (packed_expand), so its SQL is the same
 * for every format. */
#ifndef KGANTT_PACKED_H
#define KGANTT_PACKED_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define KG_PACKED_VERSION     2 /* what kgantt writes: zstd, every column, the only copy */
#define KG_PACKED_V1          1 /* formats 2-4: uncompressed, beside the rows; still read */
#define KG_PACKED_BLOCK       65536
#define KG_PACKED_MAX_COLUMNS 40
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

struct kg_packed_table {
	const char *name; /* the SQL table */
	int ncolumns;     /* the model loader's columns: a block's first ncolumns; 0 for a
			   * table it reads as SQL rows (packed_expand) */
	const struct kg_packed_column *stored; /* every column of the table, in block order */
	int nstored;
};

/* The packed tables; NULL-terminated. */
extern const struct kg_packed_table kg_packed_tables[];
const struct kg_packed_table *packed_table(const char *name);
/* The model loader's columns of t, comma-separated, for a SELECT of its rows; NULL when it
 * has none. */
const char *packed_model_columns(const struct kg_packed_table *t);

/* One row as the reader sees it, from SQL or from a block: each value as
 * sqlite3_column_int64 gives it, and which columns are NULL. */
struct kg_row {
	int64_t v[KG_PACKED_MAX_COLUMNS];
	uint64_t nulls; /* bit i: column i is NULL */
};

static inline int row_is_null(const struct kg_row *r, int col)
{
	return (int)((r->nulls >> col) & 1);
}

/* Fills row from the current row of st (ncolumns columns). */
void row_from_stmt(struct kg_row *row, sqlite3_stmt *st, int ncolumns);

/* The trace compacted: every packed table's rows (from whichever attached schema holds
 * them first) written as blocks into main.packed, the rows,
 * their indexes and the views on them dropped from main, meta saying so (format 5,
 * packed_version 2). A table with no SQL table keeps the blocks it has (the importer
 * writes kernels and API calls as blocks as they come, merge every packed table:
 * packed_stream). A cell that is not
 * an integer or NULL, or a column kgantt does not know, is refused. Runs inside the
 * caller's transaction; VACUUM gives the rows' pages back. 0, or -EIO/-ENOMEM/-EINVAL with
 * a message in err. */
int trace_pack(sqlite3 *db, char *err, size_t errlen);

/* Rows of one packed table written into main.packed as blocks as they come, a block every
 * KG_PACKED_BLOCK rows: how trace_pack writes a table's rows, and how the importer writes
 * kernels and API calls without ever holding them as SQL rows, so that neither its memory
 * nor a scratch table grows with them. A row is given in the order in which the SQL table
 * declares its columns (trace/schema.c; the table is looked up as SQL does, temp first,
 * and must be there when the stream is opened), each value as sqlite3_column_int64 gives
 * it (a REAL's as its double's bits), with its rowid; rowids ascend. */
struct kg_packed_stream;
/* 0 and *out; 1 when there is no such SQL table (nothing opened); -EINVAL when it has a
 * column kgantt does not know (its values would be lost), -EIO, -ENOMEM: message in err.
 * Creates main.packed when it is not there. */
int packed_stream_open(sqlite3 *db, const char *table, struct kg_packed_stream **out, char *err,
		       size_t errlen);
/* The SQL table's number of columns: a row's first that many values are read. */
int packed_stream_columns(const struct kg_packed_stream *s);
/* 0, or -ENOMEM / -EIO (the block's insert failed: sqlite3_errmsg says why). */
int packed_stream_add(struct kg_packed_stream *s, const struct kg_row *row, int64_t rowid);
/* The same with the row in block order (the table's stored columns, as packed_rows_next
 * gives them): how merge copies rows from one trace's blocks into another's. */
int packed_stream_add_stored(struct kg_packed_stream *s, const struct kg_row *row, int64_t rowid);
/* Writes the rows not yet in a block. 0, -ENOMEM or -EIO. */
int packed_stream_finish(struct kg_packed_stream *s);
void packed_stream_free(struct kg_packed_stream *s);

/* The other way: the rows of a compacted trace written back into main as SQL tables,
 * with their indexes and views, and the blocks removed: a plain trace every version of
 * kgantt and the sqlite3 shell read, with every column as recorded. On a trace of format
 * 2-4 it removes the blocks and their triggers. 0, or an error with a message in err. */
int trace_unpack(sqlite3 *db, char *err, size_t errlen);

/* 1 when the trace keeps its packed tables only as blocks (packed version 2), 0 when not,
 * -1 when its meta cannot be read. */
int packed_only(sqlite3 *db);

/* The rows of the packed table named table (NULL: of every one), from the blocks in
 * from_schema.packed, as SQL tables in to_schema ("temp" for a read-only trace, or an
 * attached one), with the views kernel_phases, api and call_stacks but no indexes
 * (trace_index_rows adds them). Nothing when from_schema is not compacted. 0, or -EBADMSG
 * (a damaged block: err names the table and the id) / -EIO / -ENOMEM with a message in
 * err. */
int packed_expand(sqlite3 *db, const char *from_schema, const char *to_schema, const char *table,
		  char *err, size_t errlen);

/* Every row of a packed table of the trace attached as schema, in block order (t->stored),
 * wherever that trace keeps them: its blocks (format 5) or its SQL rows (older formats; a
 * stored column its rows lack reads NULL). What packed_expand writes out as rows and merge
 * copies; a trace without the table has no rows. */
struct kg_packed_rows;
/* 0 and *out, or -EIO / -ENOMEM / -EINVAL (its SQL table has a column kgantt does not
 * know) with a message in err. */
int packed_rows_open(sqlite3 *db, const char *schema, const struct kg_packed_table *t,
		     struct kg_packed_rows **out, char *err, size_t errlen);
/* 1 with the next row and its rowid (its id where the table has ids); 0 after the last;
 * -EBADMSG (a damaged block), -EINVAL (a cell that is neither an integer nor NULL, or not
 * a real in a REAL column), -EIO: message in the err given to open. */
int packed_rows_next(struct kg_packed_rows *it, struct kg_row *row, int64_t *rowid);
void packed_rows_close(struct kg_packed_rows *it);

/* 1 when the packed blocks of table can stand for its rows: in a compacted trace always
 * (they are the rows), in a format 2-4 trace when their version, triggers, row count and
 * id range agree with the table; 0 when not (the reader reads the rows). *rows is the
 * table's row count either way. */
int packed_usable(sqlite3 *db, const char *table, int64_t *rows);

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
 * its header against rows, the count the packed table gives. Sizes are checked against
 * what ncolumns × rows can take before anything is allocated. 0, or -1 when the block is
 * damaged (nothing to close then). */
int packed_block_open(struct kg_packed_block *b, const void *data, size_t len, int ncolumns,
		      uint32_t rows);
/* The next row: 1, 0 after the last, -1 when the block is damaged. */
int packed_block_row(struct kg_packed_block *b, struct kg_row *row);
/* Frees what open allocated; the block may be opened again. */
void packed_block_close(struct kg_packed_block *b);

/* Encoding one block, for trace_pack, the tests and bench/pack_transforms.c. The columns
 * give each column's base and prev (block indexes, as in struct kg_packed_column); NULL
 * subtracts from each value the column's own previous one. */
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
