/* Packed tables: the tables that make up most of a trace (kernels, api_calls and, with
 * --hw, hw_samples, with --host-samples, host_samples) stored as blocks of columns (trace/block.h) in the table `packed`, one
 * row per block: (tbl, first_id, last_id, rows, data). docs/trace-format.md ("Packed
 * columns") gives the byte layout and what reads what.
 *
 * Since format 5 (packed version 2) the blocks are the tables' only copy: a trace kgantt
 * writes has no rows of them, and every column of every row comes back from the blocks
 * exactly as it was inserted (a REAL as its double's bits). A block holds up to
 * KG_PACKED_BLOCK consecutive rows (by rowid) of every column of its table.
 *
 * Formats 2-4 (packed version 1) kept the rows and, beside them, uncompressed blocks of the
 * reader's columns, each value the difference from the column's previous one: derived
 * data, dropped by triggers when a row changed, used only when packed_usable says they
 * agree with the rows. They still read.
 *
 * Every reader of the blocks reads them with the same checks (packed_block_follows,
 * packed_read_*): the trace store (trace/store.h) for the model loader, info and dump;
 * merge and export through packed_rows and packed_expand. A trace therefore loads
 * exactly when its rows can be written out. */
#ifndef KGANTT_PACKED_H
#define KGANTT_PACKED_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/block.h"
#include "trace/pack.h" /* trace_pack / trace_unpack, for the readers of this header */
#include "trace/row.h"

struct kg_packed_table {
	const char *name; /* the SQL table */
	int ncolumns;     /* the model loader's columns: a block's first ncolumns; 0 for a
			   * table it reads whole (packed_expand, store_read_table) */
	const struct kg_packed_column *stored; /* every column of the table, in block order */
	int nstored;
	int only_when_held; /* info lists it only for a trace that holds rows of it: newer
			     * than most traces (host_samples, format 6) */
};

/* The packed tables; NULL-terminated. */
extern const struct kg_packed_table kg_packed_tables[];
const struct kg_packed_table *packed_table(const char *name);
/* The block index of t's id column; -1 when it has none (hw_samples). */
int packed_id_column(const struct kg_packed_table *t);

/* Fills row from the current row of st (ncolumns columns). */
void row_from_stmt(struct kg_row *row, sqlite3_stmt *st, int ncolumns);

/* ------------------------------------------------------------------ the checks */

/* 1 when a block of (first, last, rows) can follow blocks whose last id was before
 * (INT64_MIN for the first): blocks are listed by first_id and their ids ascend without
 * overlapping, so that no id is given twice. */
int packed_block_follows(int64_t before, int64_t first, int64_t last, int64_t rows);

/* One block read as every reader reads one: its header checked against rows, its columns
 * past ncolumns checked as decoding them would (packed_block_open), and, when the id is
 * among the columns read, its rows' ids ascending from first to last. */
struct kg_block_read {
	struct kg_packed_block b;
	int64_t first, last, prev;
	uint32_t rows;
	int id; /* the id's column, when read; -1 not */
};
/* 0, or -1 when the block is damaged (nothing to close). */
int packed_read_open(struct kg_block_read *r, const struct kg_packed_table *t, int ncolumns,
		     int64_t first, int64_t last, int64_t rows, const void *data, size_t len);
/* The next row: 1, 0 after the last, -1 when the block is damaged. Inline: the model
 * loader reads millions of rows so. */
static inline int packed_read_row(struct kg_block_read *r, struct kg_row *row)
{
	int got = packed_block_row(&r->b, row);
	if (got <= 0 || r->id < 0)
		return got;
	int64_t id = row->v[r->id];
	uint32_t i = r->b.row - 1;
	if (row_is_null(row, r->id) || (i == 0 ? id != r->first : id <= r->prev) ||
	    (i + 1 == r->rows && id != r->last))
		return -1;
	r->prev = id;
	return 1;
}
void packed_read_close(struct kg_block_read *r);
/* "the packed TABLE block at id FIRST is damaged" into err; -EBADMSG. Every reader's words. */
int packed_damaged(char *err, size_t errlen, const char *table, int64_t first_id);

/* ------------------------------------------------------------------ writing */

/* main.packed, when it is not there. 0 or -EIO with a message in err. */
int packed_create(sqlite3 *db, char *err, size_t errlen);

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
/* The current row of st, a "SELECT *, rowid" of the SQL table, checked: a cell that is
 * neither an integer (a real in a REAL column) nor NULL would not come back as it was, and
 * is refused (-EINVAL, message in err); else as packed_stream_add. */
int packed_stream_add_values(struct kg_packed_stream *s, sqlite3_stmt *st, char *err,
			     size_t errlen);
/* The same with the row in block order (the table's stored columns, as packed_rows_next
 * gives them): how merge copies rows from one trace's blocks into another's. */
int packed_stream_add_stored(struct kg_packed_stream *s, const struct kg_row *row, int64_t rowid);
/* Writes the rows not yet in a block. 0, -ENOMEM or -EIO. */
int packed_stream_finish(struct kg_packed_stream *s);
void packed_stream_free(struct kg_packed_stream *s);

/* ------------------------------------------------------------------ reading */

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

#endif
