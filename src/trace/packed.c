/* Packed columns (packed.h): encoding, decoding, compacting a trace and expanding it back
 * into rows, and when a trace's blocks can be trusted. */
#include "trace/packed.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

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
static const struct kg_packed_column kernel_columns[] = {
	[KG_KERNEL_ID_BLOCK] = INT("id", -1, SELF(KG_KERNEL_ID_BLOCK)),
	KG_KERNEL_COLUMNS(KERNEL_COLUMN_)
};
static const struct kg_packed_column api_columns[] = {
	[KG_API_ID_BLOCK] = INT("id", -1, SELF(KG_API_ID_BLOCK)),
	KG_API_COLUMNS(API_COLUMN_)
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

const struct kg_packed_table kg_packed_tables[] = {
	{"kernels", KG_KERNEL_MODEL_COLUMNS, kernel_columns, COUNT(kernel_columns)},
	{"api_calls", KG_API_MODEL_COLUMNS, api_columns, COUNT(api_columns)},
	{"hw_samples", 0, hw_columns, COUNT(hw_columns)},
	{NULL, 0, NULL, 0},
};

/* The model loader's columns of each table, "process, device, ...": made once, from the
 * columns above, for whichever thread asks first. */
static char model_select[COUNT(kg_packed_tables)][1024];
static pthread_once_t model_select_once = PTHREAD_ONCE_INIT;

static void make_model_selects(void)
{
	for (int t = 0; kg_packed_tables[t].name; t++) {
		size_t len = 0;
		for (int c = 0; c < kg_packed_tables[t].ncolumns; c++)
			len += (size_t)snprintf(model_select[t] + len, sizeof(model_select[t]) - len,
						"%s%s", c ? ", " : "",
						kg_packed_tables[t].stored[c].name);
	}
}

const char *packed_model_columns(const struct kg_packed_table *t)
{
	pthread_once(&model_select_once, make_model_selects);
	return t->ncolumns ? model_select[t - kg_packed_tables] : NULL;
}

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

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
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

/* A varint of p, which has at least 10 bytes; the byte after it, or NULL when it runs
 * over 10 bytes. Times and sizes take 2-4 bytes: those are unrolled. */
static const uint8_t *varint10(const uint8_t *p, uint64_t *out)
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
	for (int i = 4; i < 10; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (p[i] < 0x80) {
			*out = v;
			return p + i + 1;
		}
	}
	return NULL;
}

/* What the writer subtracts from column c's value in a row (v, nulls: the row; last: each
 * column's last non-NULL value before it); packed_block_row adds the same back, inline. */
static uint64_t predicted(int8_t base, int8_t prev, const int64_t *v, uint64_t nulls,
			  const int64_t *last)
{
	uint64_t p = 0;
	if (base >= 0 && !((nulls >> base) & 1))
		p = (uint64_t)v[base];
	if (prev >= 0)
		p += (uint64_t)last[prev];
	return p;
}

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
		if (c >= (uint64_t)ncolumns)
			continue; /* a column this reader does not ask for */
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

/* ------------------------------------------------------------------ helpers */

static int sql_fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen, const char *what)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
		       ? 0
		       : sql_fail(db, err, errlen, what);
}

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

static int create_packed(sqlite3 *db, char *err, size_t errlen)
{
	return exec(db,
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
		return sql_fail(db, err, errlen, t->name);
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
		rc = create_packed(db, err, errlen);
	if (!rc && sqlite3_prepare_v2(db, "INSERT INTO main.packed VALUES(?,?,?,?,?)", -1, &s->ins,
				      NULL) != SQLITE_OK)
		rc = sql_fail(db, err, errlen, "packed table");
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

/* Every row of the SQL table st reads ("SELECT *, rowid ... ORDER BY rowid") into s. */
static int pack_rows(struct kg_packed_stream *s, sqlite3_stmt *st, char *err, size_t errlen)
{
	struct kg_row row;
	int rc = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if ((rc = row_of_values(st, s->t, s->at, s->ncolumns, &row, err, errlen)) != 0)
			return rc;
		rc = packed_stream_add(s, &row, sqlite3_column_int64(st, s->ncolumns));
	}
	if (!rc && step != SQLITE_DONE)
		return sql_fail(s->db, err, errlen, s->t->name);
	if (!rc)
		rc = packed_stream_finish(s);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", s->t->name);
	else if (rc == -EIO)
		sql_fail(s->db, err, errlen, s->t->name);
	return rc;
}

/* A table's rows as blocks, replacing the blocks it had (formats 2-4's). A table that is
 * not there (an older trace's; the importer's kernels and API calls, written as blocks as
 * they came) leaves the blocks as they are. */
static int pack_table(sqlite3 *db, const struct kg_packed_table *t, char *err, size_t errlen)
{
	struct kg_packed_stream *s;
	int rc = packed_stream_open(db, t->name, &s, err, errlen);
	if (rc)
		return rc < 0 ? rc : 0;
	char sql[256];
	snprintf(sql, sizeof(sql), "DELETE FROM main.packed WHERE tbl = '%s'", t->name);
	rc = exec(db, sql, err, errlen, t->name);
	sqlite3_stmt *st = NULL;
	snprintf(sql, sizeof(sql), "SELECT *, rowid FROM %s ORDER BY rowid", t->name);
	if (!rc && sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = sql_fail(db, err, errlen, t->name);
	if (!rc)
		rc = pack_rows(s, st, err, errlen);
	sqlite3_finalize(st);
	packed_stream_free(s);
	return rc;
}

/* The rows in main, their indexes, the views on them and format 2-4's triggers. */
static int drop_rows(sqlite3 *db, char *err, size_t errlen)
{
	char sql[256];
	for (int i = 0; kg_rows_views[i]; i++) {
		snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS main.%s", kg_rows_views[i]);
		if (exec(db, sql, err, errlen, kg_rows_views[i]) < 0)
			return -EIO;
	}
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++) {
		snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS main.%s", t->name);
		if (exec(db, sql, err, errlen, t->name) < 0)
			return -EIO;
	}
	return 0;
}

static int put_versions(sqlite3 *db, int packed, int min_reader, char *err, size_t errlen)
{
	char sql[512];
	snprintf(sql, sizeof(sql),
		 "INSERT OR REPLACE INTO main.meta VALUES('packed_version', '%d');"
		 "UPDATE main.meta SET value = '%d' WHERE key = 'version' AND "
		 "CAST(value AS INTEGER) < %d;"
		 "INSERT OR REPLACE INTO main.meta VALUES('min_reader_version', '%d');",
		 packed, KG_TRACE_VERSION, KG_TRACE_VERSION, min_reader);
	if (!packed) /* no blocks: no packed version */
		snprintf(sql, sizeof(sql),
			 "DELETE FROM main.meta WHERE key = 'packed_version';"
			 "UPDATE main.meta SET value = '%d' WHERE key = 'min_reader_version' AND "
			 "CAST(value AS INTEGER) > %d;",
			 min_reader, min_reader);
	return exec(db, sql, err, errlen, "meta");
}

int trace_pack(sqlite3 *db, char *err, size_t errlen)
{
	err[0] = 0;
	int only = packed_only(db);
	if (only)
		return only < 0 ? sql_fail(db, err, errlen, "meta") : 0; /* compacted already */
	int rc = create_packed(db, err, errlen);
	for (const struct kg_packed_table *t = kg_packed_tables; !rc && t->name; t++)
		rc = pack_table(db, t, err, errlen);
	if (!rc)
		rc = drop_rows(db, err, errlen);
	if (!rc)
		rc = put_versions(db, KG_PACKED_VERSION, KG_TRACE_PACKED_MIN_READER, err, errlen);
	return rc;
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
	struct kg_packed_block b;
	int in_block;           /* b is open */
	uint32_t r;             /* rows of b read */
	int64_t first, last, rows;
	int id;                 /* block index of the id column; nstored when the table has none */
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
	*it = (struct kg_packed_rows){.db = db, .t = t, .err = err, .errlen = errlen};
	while (it->id < t->nstored && strcmp(t->stored[it->id].name, "id"))
		it->id++;
	int version = meta_int(db, schema, "packed_version"), rc = 0;
	char sql[2048];
	if (version < 0) {
		rc = sql_fail(db, err, errlen, "meta");
	} else if (version == KG_PACKED_VERSION) {
		it->blocks = 1;
		snprintf(sql, sizeof(sql),
			 "SELECT first_id, last_id, rows, data FROM \"%s\".packed WHERE tbl = ?1 "
			 "ORDER BY first_id", schema);
		if (sqlite3_prepare_v2(db, sql, -1, &it->sel, NULL) != SQLITE_OK)
			rc = sql_fail(db, err, errlen, "packed");
		else
			sqlite3_bind_text(it->sel, 1, t->name, -1, SQLITE_STATIC);
	} else if ((rc = rows_select(it, schema, sql, sizeof(sql))) == 0 &&
		   sqlite3_prepare_v2(db, sql, -1, &it->sel, NULL) != SQLITE_OK) {
		rc = sql_fail(db, err, errlen, t->name);
	}
	if (rc < 0) {
		packed_rows_close(it);
		return rc;
	}
	*out = it;
	return 0;
}

static int damaged(char *err, size_t errlen, const char *table, int64_t first_id)
{
	snprintf(err, errlen, "the packed %s block at id %lld is damaged", table,
		 (long long)first_id);
	return -EBADMSG;
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
				return sql_fail(it->db, it->err, it->errlen, "packed");
			it->first = sqlite3_column_int64(it->sel, 0);
			it->last = sqlite3_column_int64(it->sel, 1);
			it->rows = sqlite3_column_int64(it->sel, 2);
			if (it->rows < 1 || it->rows > KG_PACKED_BLOCK ||
			    packed_block_open(&it->b, sqlite3_column_blob(it->sel, 3),
					      (size_t)sqlite3_column_bytes(it->sel, 3), t->nstored,
					      (uint32_t)it->rows) < 0)
				return damaged(it->err, it->errlen, t->name, it->first);
			it->in_block = 1;
			it->r = 0;
		}
		int got = packed_block_row(&it->b, row);
		if (got == 0 && it->r == it->rows) {
			packed_block_close(&it->b);
			it->in_block = 0;
			continue;
		}
		/* a table with ids: the block's first and last rows carry the ids it claims */
		if (got != 1 || (it->id < t->nstored &&
				 ((it->r == 0 && row->v[it->id] != it->first) ||
				  (it->r + 1 == it->rows && row->v[it->id] != it->last))))
			return damaged(it->err, it->errlen, t->name, it->first);
		it->r++;
		*rowid = it->id < t->nstored ? row->v[it->id] : ++it->counted;
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
		return sql_fail(it->db, it->err, it->errlen, t->name);
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
		packed_block_close(&it->b);
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
		rc = sql_fail(db, err, errlen, t->name);
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
		rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : sql_fail(db, err, errlen, t->name);
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
		return sql_fail(db, err, errlen, table);
	return n != 0;
}

int packed_expand(sqlite3 *db, const char *from, const char *to, const char *table, char *err,
		  size_t errlen)
{
	err[0] = 0;
	int version = meta_int(db, from, "packed_version");
	if (version < 0)
		return sql_fail(db, err, errlen, "meta");
	if (version != KG_PACKED_VERSION)
		return 0; /* rows are SQL rows already */
	if (trace_create_rows(db, to) != SQLITE_OK)
		return sql_fail(db, err, errlen, "rows");
	int rc = 0;
	for (const struct kg_packed_table *t = kg_packed_tables; !rc && t->name; t++) {
		if (table && strcmp(table, t->name))
			continue;
		int done = has_rows(db, to, t->name, err, errlen);
		rc = done < 0 ? done : done ? 0 : expand_table(db, t, from, to, err, errlen);
	}
	return rc;
}

int trace_unpack(sqlite3 *db, char *err, size_t errlen)
{
	char sql[512];
	err[0] = 0;
	int only = packed_only(db);
	if (only < 0)
		return sql_fail(db, err, errlen, "meta");
	int rc = only ? packed_expand(db, "main", "main", NULL, err, errlen) : 0;
	if (!rc && only && trace_index_rows(db, "main") != SQLITE_OK)
		rc = sql_fail(db, err, errlen, "indexes");
	for (const struct kg_packed_table *t = kg_packed_tables; !rc && t->name; t++) {
		snprintf(sql, sizeof(sql), /* format 2-4's */
			 "DROP TRIGGER IF EXISTS packed_%1$s_insert;"
			 "DROP TRIGGER IF EXISTS packed_%1$s_update;"
			 "DROP TRIGGER IF EXISTS packed_%1$s_delete;",
			 t->name);
		rc = exec(db, sql, err, errlen, t->name);
	}
	if (!rc)
		rc = exec(db, "DROP TABLE IF EXISTS main.packed", err, errlen, "packed table");
	if (!rc)
		rc = put_versions(db, 0, KG_TRACE_MIN_READER, err, errlen);
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
