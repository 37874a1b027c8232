/* Packed columns (packed.h): encoding, decoding, and when a trace's blocks can be trusted. */
#include "trace/packed.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_db.h"

/* The reader's columns, in the order it reads them (src/model/read_kgt.c indexes them). */
const struct kg_packed_table kg_packed_tables[] = {
	{"kernels",
	 "process, device, context, stream, correlation, incomplete, start, end, channel, "
	 "demangled, queued, submitted, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
	 "registers_per_thread, static_smem, dynamic_smem, shared_mem_executed, graph, "
	 "device_launched",
	 24},
	{"api_calls", "process, thread, domain, name, start, end, correlation", 7},
	{NULL, NULL, 0},
};

const struct kg_packed_table *packed_table(const char *name)
{
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

void row_from_stmt(struct kg_row *row, sqlite3_stmt *st, int ncolumns)
{
	row->nulls = 0;
	for (int c = 0; c < ncolumns; c++) {
		/* NULL reads as 0: only a 0 needs the second call that tells them apart */
		int64_t v = sqlite3_column_int64(st, c);
		row->v[c] = v;
		if (v == 0 && sqlite3_column_type(st, c) == SQLITE_NULL)
			row->nulls |= 1u << c;
	}
}

/* ------------------------------------------------------------------ varints */

static uint64_t zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* 0 when the varint runs past end or over 10 bytes. */
static int get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	for (int shift = 0; shift < 70 && p < end; shift += 7) {
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

/* ------------------------------------------------------------------ writing a block */

struct column_buf {
	uint8_t *bytes;
	size_t len, cap;
	uint8_t nullmap[KG_PACKED_BLOCK / 8];
	uint32_t nulls;
	int64_t prev;
};

struct kg_packed_writer {
	int ncolumns;
	uint32_t rows;
	struct column_buf col[KG_PACKED_MAX_COLUMNS];
	uint8_t *block;
	size_t block_cap;
};

struct kg_packed_writer *packed_writer_new(int ncolumns)
{
	if (ncolumns <= 0 || ncolumns > KG_PACKED_MAX_COLUMNS)
		return NULL;
	struct kg_packed_writer *w = calloc(1, sizeof(*w));
	if (w)
		w->ncolumns = ncolumns;
	return w;
}

void packed_writer_reset(struct kg_packed_writer *w)
{
	w->rows = 0;
	for (int c = 0; c < w->ncolumns; c++) {
		struct column_buf *b = &w->col[c];
		b->len = 0;
		b->nulls = 0;
		b->prev = 0;
		memset(b->nullmap, 0, sizeof(b->nullmap));
	}
}

void packed_writer_free(struct kg_packed_writer *w)
{
	if (!w)
		return;
	for (int c = 0; c < w->ncolumns; c++)
		free(w->col[c].bytes);
	free(w->block);
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
		b->len += put_varint(b->bytes + b->len, zigzag((uint64_t)row->v[c] - (uint64_t)b->prev));
		b->prev = row->v[c];
	}
	w->rows++;
	return 0;
}

enum { MODE_NO_NULLS = 0, MODE_BITMAP = 1, MODE_ALL_NULL = 2 };

static size_t section_len(const struct kg_packed_writer *w, const struct column_buf *b)
{
	if (b->nulls == 0)
		return 1 + b->len;
	if (b->nulls == w->rows)
		return 1;
	return 1 + (w->rows + 7) / 8 + b->len;
}

/* Layout: version byte, varint column count, varint row count, a varint section length
 * per column, then the sections: a mode byte (0 no NULLs, 1 NULL bitmap follows, 2 all
 * NULL), the bitmap (bit r of byte r/8 set: row r is NULL), the non-NULL values. */
int packed_writer_finish(struct kg_packed_writer *w, const void **data, size_t *len)
{
	size_t need = 1 + 10 + 10 + (size_t)w->ncolumns * 10;
	for (int c = 0; c < w->ncolumns; c++)
		need += section_len(w, &w->col[c]);
	if (reserve_bytes(&w->block, &w->block_cap, need) < 0)
		return -ENOMEM;
	uint8_t *p = w->block;
	*p++ = KG_PACKED_VERSION;
	p += put_varint(p, (uint64_t)w->ncolumns);
	p += put_varint(p, w->rows);
	for (int c = 0; c < w->ncolumns; c++)
		p += put_varint(p, section_len(w, &w->col[c]));
	for (int c = 0; c < w->ncolumns; c++) {
		const struct column_buf *b = &w->col[c];
		if (b->nulls == w->rows && w->rows) {
			*p++ = MODE_ALL_NULL;
			continue;
		}
		*p++ = b->nulls ? MODE_BITMAP : MODE_NO_NULLS;
		if (b->nulls) {
			memcpy(p, b->nullmap, (w->rows + 7) / 8);
			p += (w->rows + 7) / 8;
		}
		if (b->len)
			memcpy(p, b->bytes, b->len);
		p += b->len;
	}
	*data = w->block;
	*len = (size_t)(p - w->block);
	return 0;
}

/* ------------------------------------------------------------------ reading a block */

int packed_block_open(struct kg_packed_block *b, const void *data, size_t len, int ncolumns,
		      uint32_t rows)
{
	const uint8_t *p = data, *end = p + len;
	uint64_t ncol, nrows;
	memset(b, 0, sizeof(*b));
	if (!data || len < 3 || *p++ != KG_PACKED_VERSION || !get_varint(&p, end, &ncol) ||
	    ncol != (uint64_t)ncolumns || ncolumns > KG_PACKED_MAX_COLUMNS ||
	    !get_varint(&p, end, &nrows) || nrows != rows || rows > KG_PACKED_BLOCK)
		return -1;
	uint64_t sec[KG_PACKED_MAX_COLUMNS];
	for (int c = 0; c < ncolumns; c++)
		if (!get_varint(&p, end, &sec[c]) || sec[c] < 1 || sec[c] > (uint64_t)(end - p))
			return -1;
	size_t bitmap = (rows + 7) / 8;
	for (int c = 0; c < ncolumns; c++) {
		if (sec[c] > (uint64_t)(end - p))
			return -1;
		const uint8_t *s = p, *e = p + sec[c];
		p = e;
		uint8_t mode = *s++;
		if (mode == MODE_ALL_NULL) {
			b->all_null[c] = 1;
		} else if (mode == MODE_BITMAP) {
			if ((size_t)(e - s) < bitmap)
				return -1;
			b->nullmap[c] = s;
			s += bitmap;
		} else if (mode != MODE_NO_NULLS) {
			return -1;
		}
		b->at[c] = s;
		b->end[c] = e;
	}
	if (p != end)
		return -1;
	b->rows = rows;
	b->ncolumns = ncolumns;
	return 0;
}

int packed_block_row(struct kg_packed_block *b, struct kg_row *row)
{
	if (b->row >= b->rows) {
		for (int c = 0; c < b->ncolumns; c++)
			if (b->at[c] != b->end[c])
				return -1; /* values left over: the block does not hold what it says */
		return 0;
	}
	uint32_t r = b->row++;
	row->nulls = 0;
	for (int c = 0; c < b->ncolumns; c++) {
		if (b->all_null[c] || (b->nullmap[c] && (b->nullmap[c][r / 8] >> (r % 8)) & 1)) {
			row->nulls |= 1u << c;
			row->v[c] = 0;
			continue;
		}
		uint64_t z;
		const uint8_t *p = b->at[c];
		if (p < b->end[c] && *p < 0x80) { /* most values: one byte */
			z = *p;
			b->at[c] = p + 1;
		} else if (!get_varint(&b->at[c], b->end[c], &z)) {
			return -1;
		}
		b->prev[c] = (int64_t)((uint64_t)b->prev[c] + unzigzag(z));
		row->v[c] = b->prev[c];
	}
	return 1;
}

/* ------------------------------------------------------------------ the table */

static int pack_fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

static int insert_block(sqlite3_stmt *ins, const char *table, int64_t first, int64_t last,
			struct kg_packed_writer *w)
{
	const void *data;
	size_t len;
	if (packed_writer_finish(w, &data, &len) < 0)
		return -ENOMEM;
	sqlite3_bind_text(ins, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, 2, first);
	sqlite3_bind_int64(ins, 3, last);
	sqlite3_bind_int64(ins, 4, packed_writer_rows(w));
	sqlite3_bind_blob(ins, 5, data, (int)len, SQLITE_STATIC);
	int rc = sqlite3_step(ins);
	sqlite3_reset(ins);
	packed_writer_reset(w);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen, const char *what)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
		       ? 0
		       : pack_fail(db, err, errlen, what);
}

static int pack_table(sqlite3 *db, const struct kg_packed_table *t, sqlite3_stmt *ins, char *err,
		      size_t errlen)
{
	char sql[1024];
	snprintf(sql, sizeof(sql),
		 "DROP TRIGGER IF EXISTS packed_%1$s_insert; DROP TRIGGER IF EXISTS packed_%1$s_update;"
		 "DROP TRIGGER IF EXISTS packed_%1$s_delete; DELETE FROM packed WHERE tbl = '%1$s';",
		 t->name);
	int rc = exec(db, sql, err, errlen, t->name);
	sqlite3_stmt *st = NULL;
	struct kg_packed_writer *w = packed_writer_new(t->ncolumns);
	if (!rc && !w)
		rc = -ENOMEM;
	snprintf(sql, sizeof(sql), "SELECT %s, rowid FROM %s ORDER BY rowid", t->columns, t->name);
	if (!rc && sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = pack_fail(db, err, errlen, t->name);
	struct kg_row row;
	int64_t first = 0, last = 0;
	int step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		row_from_stmt(&row, st, t->ncolumns);
		last = sqlite3_column_int64(st, t->ncolumns);
		if (packed_writer_rows(w) == 0)
			first = last;
		rc = packed_writer_add(w, &row);
		if (!rc && packed_writer_rows(w) == KG_PACKED_BLOCK)
			rc = insert_block(ins, t->name, first, last, w);
	}
	if (!rc && step != SQLITE_DONE)
		rc = pack_fail(db, err, errlen, t->name);
	if (!rc && packed_writer_rows(w))
		rc = insert_block(ins, t->name, first, last, w);
	if (rc == -EIO && !err[0])
		pack_fail(db, err, errlen, t->name);
	sqlite3_finalize(st);
	packed_writer_free(w);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", t->name);
	if (rc)
		return rc;
	/* any change to the rows drops the blocks: the reader goes back to the rows */
	snprintf(sql, sizeof(sql),
		 "CREATE TRIGGER packed_%1$s_insert AFTER INSERT ON %1$s BEGIN "
		 "DELETE FROM packed WHERE tbl = '%1$s'; END;"
		 "CREATE TRIGGER packed_%1$s_update AFTER UPDATE ON %1$s BEGIN "
		 "DELETE FROM packed WHERE tbl = '%1$s'; END;"
		 "CREATE TRIGGER packed_%1$s_delete AFTER DELETE ON %1$s BEGIN "
		 "DELETE FROM packed WHERE tbl = '%1$s'; END;",
		 t->name);
	return exec(db, sql, err, errlen, t->name);
}

int trace_pack(sqlite3 *db, char *err, size_t errlen)
{
	char sql[160];
	err[0] = 0;
	int rc = exec(db,
		      "CREATE TABLE IF NOT EXISTS packed(tbl TEXT NOT NULL, first_id INTEGER NOT NULL,"
		      " last_id INTEGER NOT NULL, rows INTEGER NOT NULL, data BLOB NOT NULL,"
		      " PRIMARY KEY(tbl, first_id));",
		      err, errlen, "packed table");
	sqlite3_stmt *ins = NULL;
	if (!rc && sqlite3_prepare_v2(db, "INSERT INTO packed VALUES(?,?,?,?,?)", -1, &ins, NULL) !=
			   SQLITE_OK)
		rc = pack_fail(db, err, errlen, "packed table");
	for (const struct kg_packed_table *t = kg_packed_tables; !rc && t->name; t++)
		rc = pack_table(db, t, ins, err, errlen);
	sqlite3_finalize(ins);
	/* the trace now has a table version 1 did not have; version 1 readers ignore it */
	snprintf(sql, sizeof(sql),
		 "INSERT OR REPLACE INTO meta VALUES('packed_version', '%d');"
		 "UPDATE meta SET value = '2' WHERE key = 'version' AND CAST(value AS INTEGER) < 2;",
		 KG_PACKED_VERSION);
	if (!rc)
		rc = exec(db, sql, err, errlen, "meta");
	return rc;
}

int trace_unpack(sqlite3 *db, char *err, size_t errlen)
{
	char sql[512];
	err[0] = 0;
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++) {
		snprintf(sql, sizeof(sql),
			 "DROP TRIGGER IF EXISTS packed_%1$s_insert;"
			 "DROP TRIGGER IF EXISTS packed_%1$s_update;"
			 "DROP TRIGGER IF EXISTS packed_%1$s_delete;",
			 t->name);
		if (exec(db, sql, err, errlen, t->name) < 0)
			return -EIO;
	}
	return exec(db, "DROP TABLE IF EXISTS packed; DELETE FROM meta WHERE key = 'packed_version';",
		    err, errlen, "packed table");
}

/* trace_db_int that remembers, in *ok, whether every query so far worked */
static int64_t query_int(sqlite3 *db, const char *sql, const char *text, int *ok)
{
	int64_t v;
	if (trace_db_int(db, sql, text, &v) != SQLITE_OK)
		*ok = 0;
	return v;
}

int packed_usable(sqlite3 *db, const char *table, int64_t *rows)
{
	char version[16], sql[256];
	int ok = 1;
	*rows = 0;
	if (!packed_table(table))
		return 0;
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s", table); /* walks pages, not rows */
	*rows = query_int(db, sql, NULL, &ok);
	trace_db_meta(db, "packed_version", version, sizeof(version));
	if (!ok || atoi(version) != KG_PACKED_VERSION)
		return 0;
	snprintf(sql, sizeof(sql),
		 "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 "
		 "AND name IN ('packed_%1$s_insert', 'packed_%1$s_update', 'packed_%1$s_delete')",
		 table);
	if (query_int(db, sql, table, &ok) != 3 || !ok)
		return 0;
	int64_t packed_rows = query_int(db, "SELECT COALESCE(SUM(rows), 0) FROM packed WHERE tbl = ?1",
				      table, &ok);
	if (!ok || packed_rows != *rows)
		return 0;
	if (*rows == 0)
		return 1;
	int64_t lo, hi;
	if (trace_db_id_range(db, table, &lo, &hi) != SQLITE_OK)
		return 0;
	int64_t plo = query_int(db, "SELECT MIN(first_id) FROM packed WHERE tbl = ?1", table, &ok);
	int64_t phi = query_int(db, "SELECT MAX(last_id) FROM packed WHERE tbl = ?1", table, &ok);
	return ok && lo == plo && hi == phi;
}
