/* The packed tables over SQLite (packed.h): their blocks written as rows come, their rows
 * read back from blocks or SQL with every reader's checks, and made SQL rows again. */
#include "trace/packed.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/columns.h"
#include "trace/schema.h"
#include "trace/trace_db.h"
#include "util/hw_figures.h"

/* ------------------------------------------------------------------ the tables */

/* kernels and api_calls: as trace/columns.h declares them, each at its block index. A
 * REAL column (hw_samples): its values' bits as they are. */
#define INT(name, base, prev) {name, base, prev, 0}
#define REAL(name) {name, -1, -1, 1}
#define SELF(i) (i)
#define KERNEL_COLUMN_(name, block, base, prev) [block] = INT(#name, KG_KB_##base, KG_KB_##prev),
#define API_COLUMN_(name, block, base, prev) [block] = INT(#name, KG_AB_##base, KG_AB_##prev),
#define HOST_COLUMN_(name, block, base, prev) [block] = INT(#name, KG_HB_##base, KG_HB_##prev),
static const struct kg_packed_column kernel_columns[] = {
	[KG_KERNEL_ID_BLOCK] = INT("id", -1, SELF(KG_KERNEL_ID_BLOCK)),
	KG_KERNEL_COLUMNS(KERNEL_COLUMN_)
};
static const struct kg_packed_column api_columns[] = {
	[KG_API_ID_BLOCK] = INT("id", -1, SELF(KG_API_ID_BLOCK)),
	KG_API_COLUMNS(API_COLUMN_)
};
static const struct kg_packed_column host_columns[] = {
	[KG_HOST_SAMPLE_ID_BLOCK] = INT("id", -1, SELF(KG_HOST_SAMPLE_ID_BLOCK)),
	KG_HOST_SAMPLE_COLUMNS(HOST_COLUMN_)
};

/* The GPU's counters: REAL figures as their bits, which repeat (0, a clock) */
#define HW_FIGURE_COLUMN_(id, column, unit, label) REAL(#column),
static const struct kg_packed_column hw_columns[] = {
	INT("process", -1, SELF(0)), INT("device", -1, SELF(1)), INT("start", -1, 3),
	INT("end", 2, -1),           KG_HW_FIGURES(HW_FIGURE_COLUMN_)
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* a block index given twice leaves another without a column: the sizes then differ */
_Static_assert(COUNT(kernel_columns) == KG_KERNEL_NCOLUMNS, "trace/columns.h: kernels' blocks");
_Static_assert(COUNT(api_columns) == KG_API_NCOLUMNS, "trace/columns.h: api_calls' blocks");
_Static_assert(COUNT(host_columns) == KG_HOST_SAMPLE_NCOLUMNS,
	       "trace/columns.h: host_samples' blocks");

const struct kg_packed_table kg_packed_tables[] = {
	{"kernels", KG_KERNEL_MODEL_COLUMNS, kernel_columns, COUNT(kernel_columns), 0},
	{"api_calls", KG_API_MODEL_COLUMNS, api_columns, COUNT(api_columns), 0},
	{"hw_samples", 0, hw_columns, COUNT(hw_columns), 0},
	{"host_samples", 0, host_columns, COUNT(host_columns), 1},
	{NULL, 0, NULL, 0, 0},
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
			row->nulls |= 1ull << c;
	}
}

/* ------------------------------------------------------------------ helpers */

/* The meta value of key in schema, as an integer (0 when missing); -1 when unreadable. */
static int meta_int(sqlite3 *db, const char *schema, const char *key)
{
	char sql[128];
	int64_t v = 0;
	snprintf(sql, sizeof(sql), "SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM "
				   "\"%s\".meta WHERE key = ?1), 0)",
		 schema);
	return trace_db_int(db, sql, key, &v) == SQLITE_OK ? (int)v : -1;
}

int packed_only(sqlite3 *db)
{
	int v = meta_int(db, "main", "packed_version");
	return v < 0 ? -1 : v == KG_PACKED_VERSION;
}

/* ------------------------------------------------------------------ rows → blocks */

struct kg_packed_stream {
	const struct kg_packed_table *t;
	sqlite3 *db;
	sqlite3_stmt *ins;
	struct kg_packed_writer *w;
	int ncolumns;                      /* the SQL table's */
	int8_t at[KG_PACKED_MAX_COLUMNS];  /* its column c: block index */
	struct kg_row block;               /* the row in block order; the table's absent
					    * columns stay NULL (0) */
	uint64_t absent;                   /* bits of block columns the SQL table lacks */
	int64_t first, last;               /* rowids of the block being filled */
};

int packed_create(sqlite3 *db, char *err, size_t errlen)
{
	return trace_db_exec(db,
		    "CREATE TABLE IF NOT EXISTS main.packed(tbl TEXT NOT NULL, first_id INTEGER "
		    "NOT NULL, last_id INTEGER NOT NULL, rows INTEGER NOT NULL, data BLOB NOT "
		    "NULL, PRIMARY KEY(tbl, first_id));",
		    err, errlen, "packed table");
}

/* Where each column of t's SQL table in schema (NULL: looked up as SQL does, temp first,
 * then main) goes in a block: at[c] for its column c, *n of them. 1 when there is no such
 * table (an older trace), -EINVAL when it has a column kgantt does not know (its values
 * would be lost), -EIO. */
static int sql_columns(sqlite3 *db, const char *schema, const struct kg_packed_table *t,
		       int8_t *at, int *n, char *err, size_t errlen)
{
	int rc = 0;
	char q[256];
	sqlite3_stmt *st;
	if (schema)
		snprintf(q, sizeof(q), "SELECT name FROM pragma_table_info('%s', '%s')", t->name,
			 schema);
	else
		snprintf(q, sizeof(q), "SELECT name FROM pragma_table_info('%s')", t->name);
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		return trace_db_fail(db, err, errlen, t->name);
	*n = 0;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int c = 0;
		while (c < t->nstored && strcmp(t->stored[c].name, name ? name : ""))
			c++;
		if (c == t->nstored) { /* (SQL has no two columns of one name: at most nstored) */
			snprintf(err, errlen,
				 "table %s has a column '%s' that kgantt does not know: packing "
				 "would lose it",
				 t->name, name ? name : "");
			rc = -EINVAL;
			break;
		}
		at[(*n)++] = (int8_t)c;
	}
	sqlite3_finalize(st);
	return rc ? rc : !*n;
}

/* The stream's SQL table's columns (trace_create_rows made it), and the block columns it
 * lacks. */
static int stream_order(struct kg_packed_stream *s, char *err, size_t errlen)
{
	const struct kg_packed_table *t = s->t;
	int rc = sql_columns(s->db, NULL, t, s->at, &s->ncolumns, err, errlen);
	s->absent = t->nstored < 64 ? (1ull << t->nstored) - 1 : ~0ull;
	for (int c = 0; c < s->ncolumns; c++)
		s->absent &= ~(1ull << s->at[c]);
	return rc;
}

int packed_stream_open(sqlite3 *db, const char *table, struct kg_packed_stream **out, char *err,
		       size_t errlen)
{
	*out = NULL;
	const struct kg_packed_table *t = packed_table(table);
	struct kg_packed_stream *s = t ? calloc(1, sizeof(*s)) : NULL;
	if (!s) {
		snprintf(err, errlen, "%s: %s", table, t ? "out of memory" : "not a packed table");
		return t ? -ENOMEM : -EINVAL;
	}
	s->t = t;
	s->db = db;
	int rc = stream_order(s, err, errlen);
	if (!rc)
		rc = packed_create(db, err, errlen);
	if (!rc && sqlite3_prepare_v2(db, "INSERT INTO main.packed VALUES(?,?,?,?,?)", -1, &s->ins,
				      NULL) != SQLITE_OK)
		rc = trace_db_fail(db, err, errlen, "packed table");
	if (!rc && !(s->w = packed_writer_new(t->nstored, t->stored))) {
		snprintf(err, errlen, "%s: out of memory", t->name);
		rc = -ENOMEM;
	}
	s->block.nulls = s->absent;
	if (rc)
		packed_stream_free(s);
	else
		*out = s;
	return rc;
}

int packed_stream_columns(const struct kg_packed_stream *s)
{
	return s->ncolumns;
}

/* The rows added since the last block, as a block. */
static int insert_block(struct kg_packed_stream *s)
{
	const void *data;
	size_t len;
	if (packed_writer_finish(s->w, &data, &len) < 0)
		return -ENOMEM;
	sqlite3_stmt *ins = s->ins;
	sqlite3_bind_text(ins, 1, s->t->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, 2, s->first);
	sqlite3_bind_int64(ins, 3, s->last);
	sqlite3_bind_int64(ins, 4, packed_writer_rows(s->w));
	sqlite3_bind_blob(ins, 5, data, (int)len, SQLITE_STATIC);
	int rc = sqlite3_step(ins);
	sqlite3_reset(ins);
	packed_writer_reset(s->w);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* s->block, in block order, into the block being filled. */
static int add_block_row(struct kg_packed_stream *s, int64_t rowid)
{
	struct kg_row *b = &s->block;
	if (packed_writer_rows(s->w) == 0)
		s->first = rowid;
	s->last = rowid;
	int rc = packed_writer_add(s->w, b);
	if (!rc && packed_writer_rows(s->w) == KG_PACKED_BLOCK)
		rc = insert_block(s);
	return rc;
}

int packed_stream_add(struct kg_packed_stream *s, const struct kg_row *row, int64_t rowid)
{
	struct kg_row *b = &s->block;
	uint64_t nulls = s->absent;
	for (int c = 0; c < s->ncolumns; c++) {
		b->v[s->at[c]] = row->v[c];
		nulls |= ((row->nulls >> c) & 1) << s->at[c];
	}
	b->nulls = nulls;
	return add_block_row(s, rowid);
}

int packed_stream_add_stored(struct kg_packed_stream *s, const struct kg_row *row, int64_t rowid)
{
	s->block = *row;
	s->block.nulls |= s->absent;
	return add_block_row(s, rowid);
}

static const char *type_name(int type)
{
	return type == SQLITE_INTEGER ? "an integer"
	       : type == SQLITE_FLOAT ? "a real number"
	       : type == SQLITE_TEXT  ? "text"
				      : "a blob";
}

/* A row's n values from st (then its rowid), column c being the table's stored column
 * at[c] (c itself when at is NULL): integers, a REAL column's reals as their bits, NULLs.
 * Anything else (a TEXT, or a REAL where an integer belongs, put there with SQL) would not
 * come back as it was, so it is refused. */
static int row_of_values(sqlite3_stmt *st, const struct kg_packed_table *t, const int8_t *at,
			 int n, struct kg_row *row, char *err, size_t errlen)
{
	row_from_stmt(row, st, n);
	for (int c = 0; c < n; c++) {
		const struct kg_packed_column *how = &t->stored[at ? at[c] : c];
		int type = sqlite3_column_type(st, c), want = how->real ? SQLITE_FLOAT
								      : SQLITE_INTEGER;
		if (type == want && want == SQLITE_FLOAT) {
			double d = sqlite3_column_double(st, c);
			memcpy(&row->v[c], &d, sizeof(d));
		} else if (type != want && type != SQLITE_NULL) {
			snprintf(err, errlen,
				 "%s row %lld: column %s holds %s; only %s and NULL can be packed "
				 "there",
				 t->name, (long long)sqlite3_column_int64(st, n), how->name,
				 type_name(type), want == SQLITE_FLOAT ? "real numbers" : "integers");
			return -EINVAL;
		}
	}
	return 0;
}

int packed_stream_add_values(struct kg_packed_stream *s, sqlite3_stmt *st, char *err,
			     size_t errlen)
{
	struct kg_row row;
	int rc = row_of_values(st, s->t, s->at, s->ncolumns, &row, err, errlen);
	return rc ? rc : packed_stream_add(s, &row, sqlite3_column_int64(st, s->ncolumns));
}

int packed_stream_finish(struct kg_packed_stream *s)
{
	return s && packed_writer_rows(s->w) ? insert_block(s) : 0;
}

void packed_stream_free(struct kg_packed_stream *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->ins);
	packed_writer_free(s->w);
	free(s);
}

/* ------------------------------------------------------------------ reading a table's rows */

struct kg_packed_rows {
	sqlite3 *db;
	const struct kg_packed_table *t;
	char *err;
	size_t errlen;
	sqlite3_stmt *sel;      /* the blocks (first_id, last_id, rows, data), or the SQL rows
				 * (stored columns, then rowid); NULL: no such table */
	int blocks;             /* 1: sel reads blocks */
	struct kg_block_read b;
	int in_block;           /* b is open */
	int64_t before;         /* the last id of the blocks read so far */
	int64_t counted;        /* rowids of a table without ids: 1, 2, 3... */
};

/* The SQL rows' SELECT: each stored column the table has, NULL for those it lacks, then the
 * rowid. 0, 1 (no such table: no rows), -EINVAL (a column kgantt does not know), -EIO. */
static int rows_select(struct kg_packed_rows *it, const char *schema, char *sql, size_t len)
{
	const struct kg_packed_table *t = it->t;
	int8_t at[KG_PACKED_MAX_COLUMNS];
	int ncolumns, rc = sql_columns(it->db, schema, t, at, &ncolumns, it->err, it->errlen);
	if (rc)
		return rc;
	uint64_t have = 0;
	for (int c = 0; c < ncolumns; c++)
		have |= 1ull << at[c];
	size_t n = (size_t)snprintf(sql, len, "SELECT ");
	for (int c = 0; c < t->nstored && n < len; c++)
		n += (size_t)snprintf(sql + n, len - n, "%s\"%s\", ", (have >> c) & 1 ? "" : "NULL AS ",
				      t->stored[c].name);
	if (n < len)
		snprintf(sql + n, len - n, "rowid FROM \"%s\".%s ORDER BY rowid", schema, t->name);
	return 0;
}

/* The blocks' ids follow one another (packed_block_follows), all checked before a row is
 * read, as the model loader lists them: a damaged list is said of the same block by
 * both. 0, -EBADMSG or -EIO with a message in err. */
static int blocks_follow(sqlite3 *db, const char *schema, const char *table, char *err,
			 size_t errlen)
{
	char sql[256];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql),
		 "SELECT first_id, last_id, rows FROM \"%s\".packed WHERE tbl = ?1 ORDER BY "
		 "first_id", schema);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return trace_db_fail(db, err, errlen, "packed");
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	int64_t before = INT64_MIN;
	int rc = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t first = sqlite3_column_int64(st, 0);
		if (!packed_block_follows(before, first, sqlite3_column_int64(st, 1),
					  sqlite3_column_int64(st, 2)))
			rc = packed_damaged(err, errlen, table, first);
		before = sqlite3_column_int64(st, 1);
	}
	if (!rc && step != SQLITE_DONE)
		rc = trace_db_fail(db, err, errlen, "packed");
	sqlite3_finalize(st);
	return rc;
}

int packed_rows_open(sqlite3 *db, const char *schema, const struct kg_packed_table *t,
		     struct kg_packed_rows **out, char *err, size_t errlen)
{
	struct kg_packed_rows *it = calloc(1, sizeof(*it));
	*out = NULL;
	err[0] = 0;
	if (!it) {
		snprintf(err, errlen, "%s: out of memory", t->name);
		return -ENOMEM;
	}
	*it = (struct kg_packed_rows){.db = db, .t = t, .err = err, .errlen = errlen,
				      .before = INT64_MIN};
	int version = meta_int(db, schema, "packed_version"), rc = 0;
	char sql[2048];
	if (version < 0) {
		rc = trace_db_fail(db, err, errlen, "meta");
	} else if (version == KG_PACKED_VERSION) {
		it->blocks = 1;
		rc = blocks_follow(db, schema, t->name, err, errlen);
		snprintf(sql, sizeof(sql),
			 "SELECT first_id, last_id, rows, data FROM \"%s\".packed WHERE tbl = ?1 "
			 "ORDER BY first_id", schema);
		if (!rc && sqlite3_prepare_v2(db, sql, -1, &it->sel, NULL) != SQLITE_OK)
			rc = trace_db_fail(db, err, errlen, "packed");
		else
			sqlite3_bind_text(it->sel, 1, t->name, -1, SQLITE_STATIC);
	} else if ((rc = rows_select(it, schema, sql, sizeof(sql))) == 0 &&
		   sqlite3_prepare_v2(db, sql, -1, &it->sel, NULL) != SQLITE_OK) {
		rc = trace_db_fail(db, err, errlen, t->name);
	}
	if (rc < 0) {
		packed_rows_close(it);
		return rc;
	}
	*out = it;
	return 0;
}

int packed_damaged(char *err, size_t errlen, const char *table, int64_t first_id)
{
	snprintf(err, errlen, "the packed %s block at id %lld is damaged", table,
		 (long long)first_id);
	return -EBADMSG;
}

int packed_id_column(const struct kg_packed_table *t)
{
	for (int c = 0; c < t->nstored; c++)
		if (!strcmp(t->stored[c].name, "id"))
			return c;
	return -1;
}

int packed_block_follows(int64_t before, int64_t first, int64_t last, int64_t rows)
{
	return rows >= 1 && rows <= KG_PACKED_BLOCK && first > before && last >= first &&
	       (uint64_t)last - (uint64_t)first >= (uint64_t)rows - 1;
}

int packed_read_open(struct kg_block_read *r, const struct kg_packed_table *t, int ncolumns,
		     int64_t first, int64_t last, int64_t rows, const void *data, size_t len)
{
	int id = packed_id_column(t);
	*r = (struct kg_block_read){.first = first, .last = last, .rows = (uint32_t)rows,
				    .id = id < ncolumns ? id : -1};
	if (rows < 1 || rows > KG_PACKED_BLOCK ||
	    packed_block_open(&r->b, data, len, ncolumns, (uint32_t)rows) < 0)
		return -1;
	return 0;
}

void packed_read_close(struct kg_block_read *r)
{
	packed_block_close(&r->b);
}

/* The next row of the blocks; 0 after the last block. */
static int next_block_row(struct kg_packed_rows *it, struct kg_row *row, int64_t *rowid)
{
	const struct kg_packed_table *t = it->t;
	for (;;) {
		if (!it->in_block) {
			int step = sqlite3_step(it->sel);
			if (step == SQLITE_DONE)
				return 0;
			if (step != SQLITE_ROW)
				return trace_db_fail(it->db, it->err, it->errlen, "packed");
			int64_t first = sqlite3_column_int64(it->sel, 0);
			int64_t last = sqlite3_column_int64(it->sel, 1);
			int64_t rows = sqlite3_column_int64(it->sel, 2);
			if (!packed_block_follows(it->before, first, last, rows) ||
			    packed_read_open(&it->b, t, t->nstored, first, last, rows,
					     sqlite3_column_blob(it->sel, 3),
					     (size_t)sqlite3_column_bytes(it->sel, 3)) < 0)
				return packed_damaged(it->err, it->errlen, t->name, first);
			it->before = last;
			it->in_block = 1;
		}
		int got = packed_read_row(&it->b, row);
		if (got == 0) {
			packed_read_close(&it->b);
			it->in_block = 0;
			continue;
		}
		if (got < 0)
			return packed_damaged(it->err, it->errlen, t->name, it->b.first);
		*rowid = it->b.id >= 0 ? row->v[it->b.id] : ++it->counted;
		return 1;
	}
}

/* The next SQL row, checked as trace_pack checks what it packs. */
static int next_sql_row(struct kg_packed_rows *it, struct kg_row *row, int64_t *rowid)
{
	const struct kg_packed_table *t = it->t;
	int step = sqlite3_step(it->sel);
	if (step == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return trace_db_fail(it->db, it->err, it->errlen, t->name);
	*rowid = sqlite3_column_int64(it->sel, t->nstored);
	int rc = row_of_values(it->sel, t, NULL, t->nstored, row, it->err, it->errlen);
	return rc ? rc : 1;
}

int packed_rows_next(struct kg_packed_rows *it, struct kg_row *row, int64_t *rowid)
{
	if (!it->sel)
		return 0;
	return it->blocks ? next_block_row(it, row, rowid) : next_sql_row(it, row, rowid);
}

void packed_rows_close(struct kg_packed_rows *it)
{
	if (!it)
		return;
	if (it->in_block)
		packed_read_close(&it->b);
	sqlite3_finalize(it->sel);
	free(it);
}

/* ------------------------------------------------------------------ blocks → rows */

static void bind_value(sqlite3_stmt *st, int param, const struct kg_row *row, int c, int real)
{
	double d;
	if (row_is_null(row, c)) {
		sqlite3_bind_null(st, param);
	} else if (real) {
		memcpy(&d, &row->v[c], sizeof(d));
		sqlite3_bind_double(st, param, d);
	} else {
		sqlite3_bind_int64(st, param, row->v[c]);
	}
}

/* Every row of from's blocks of t inserted into to's SQL table. */
static int expand_table(sqlite3 *db, const struct kg_packed_table *t, const char *from,
			const char *to, char *err, size_t errlen)
{
	char sql[2048];
	size_t n = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO \"%s\".%s(", to, t->name);
	for (int c = 0; c < t->nstored && n < sizeof(sql); c++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s%s", c ? ", " : "",
				      t->stored[c].name);
	for (int c = 0; c < t->nstored && n < sizeof(sql); c++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s", c ? ",?" : ") VALUES(?");
	if (n < sizeof(sql))
		snprintf(sql + n, sizeof(sql) - n, ")");
	sqlite3_stmt *ins = NULL;
	struct kg_packed_rows *it = NULL;
	int rc = 0, got;
	if (sqlite3_prepare_v2(db, sql, -1, &ins, NULL) != SQLITE_OK)
		rc = trace_db_fail(db, err, errlen, t->name);
	if (!rc)
		rc = packed_rows_open(db, from, t, &it, err, errlen);
	struct kg_row row;
	int64_t rowid;
	while (!rc && (got = packed_rows_next(it, &row, &rowid)) != 0) {
		if (got < 0) {
			rc = got;
			break;
		}
		for (int c = 0; c < t->nstored; c++)
			bind_value(ins, c + 1, &row, c, t->stored[c].real);
		rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : trace_db_fail(db, err, errlen, t->name);
		sqlite3_reset(ins);
	}
	packed_rows_close(it);
	sqlite3_finalize(ins);
	return rc;
}

/* 1 when table in schema has rows already (made by an earlier packed_expand: another
 * reader of the same connection), 0 when not, -EIO. */
static int has_rows(sqlite3 *db, const char *schema, const char *table, char *err, size_t errlen)
{
	char sql[128];
	int64_t n;
	snprintf(sql, sizeof(sql), "SELECT EXISTS(SELECT 1 FROM \"%s\".%s)", schema, table);
	if (trace_db_int(db, sql, NULL, &n) != SQLITE_OK)
		return trace_db_fail(db, err, errlen, table);
	return n != 0;
}

int packed_expand(sqlite3 *db, const char *from, const char *to, const char *table, char *err,
		  size_t errlen)
{
	err[0] = 0;
	int version = meta_int(db, from, "packed_version");
	if (version < 0)
		return trace_db_fail(db, err, errlen, "meta");
	if (version != KG_PACKED_VERSION)
		return 0; /* rows are SQL rows already */
	if (trace_create_rows(db, to) != SQLITE_OK)
		return trace_db_fail(db, err, errlen, "rows");
	int rc = 0;
	for (const struct kg_packed_table *t = kg_packed_tables; !rc && t->name; t++) {
		if (table && strcmp(table, t->name))
			continue;
		int done = has_rows(db, to, t->name, err, errlen);
		rc = done < 0 ? done : done ? 0 : expand_table(db, t, from, to, err, errlen);
	}
	return rc;
}

/* ------------------------------------------------------------------ can blocks be used */

/* trace_db_int that remembers, in *ok, whether every query so far worked */
static int64_t query_int(sqlite3 *db, const char *sql, const char *text, int *ok)
{
	int64_t v;
	if (trace_db_int(db, sql, text, &v) != SQLITE_OK)
		*ok = 0;
	return v;
}

/* Format 2-4: the blocks stand for the rows when nothing changed the rows since. */
static int v1_usable(sqlite3 *db, const char *table, int64_t rows)
{
	char sql[256];
	int ok = 1;
	snprintf(sql, sizeof(sql),
		 "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 "
		 "AND name IN ('packed_%1$s_insert', 'packed_%1$s_update', 'packed_%1$s_delete')",
		 table);
	if (query_int(db, sql, table, &ok) != 3 || !ok)
		return 0;
	int64_t packed_rows = query_int(db, "SELECT COALESCE(SUM(rows), 0) FROM packed WHERE tbl = ?1",
				      table, &ok);
	if (!ok || packed_rows != rows)
		return 0;
	if (rows == 0)
		return 1;
	int64_t lo, hi;
	if (trace_db_id_range(db, table, &lo, &hi) != SQLITE_OK)
		return 0;
	int64_t plo = query_int(db, "SELECT MIN(first_id) FROM packed WHERE tbl = ?1", table, &ok);
	int64_t phi = query_int(db, "SELECT MAX(last_id) FROM packed WHERE tbl = ?1", table, &ok);
	return ok && lo == plo && hi == phi;
}

int packed_usable(sqlite3 *db, const char *table, int64_t *rows)
{
	char sql[256];
	int ok = 1;
	*rows = 0;
	if (!packed_table(table))
		return 0;
	int version = meta_int(db, "main", "packed_version");
	if (version == KG_PACKED_VERSION) { /* the blocks are the rows */
		*rows = query_int(db, "SELECT COALESCE(SUM(rows), 0) FROM packed WHERE tbl = ?1",
				  table, &ok);
		return ok;
	}
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s", table); /* walks pages, not rows */
	*rows = query_int(db, sql, NULL, &ok);
	return ok && version == KG_PACKED_V1 && v1_usable(db, table, *rows);
}
