/* libFuzzer target: the kgantt trace reader (read_kgt*.c, packed column blocks), through
 * model_load as every command loads a trace. An input that is an SQLite file is the trace
 * itself; any other input is SQL run on an empty trace (fuzz_util.h: SQL mode), which
 * reaches what byte mutations rarely do: extreme values, sparse ids, damaged packed
 * blocks. Some bits of the input also choose how the trace is read (packed blocks or
 * rows, one thread or two) and whether an SQL-made trace is compacted first (format 5:
 * blocks of rows SQL put anything in), so every way gets fuzzed. A model that loads is
 * analysed and written out (fuzz_pipeline.h): SQL makes extreme times easy. Every trace is
 * also made rows again as info, dump and the SM reader do (packed_expand), which must work
 * on every trace that loads (the same checks of the blocks: trace/packed.h), and one input
 * in two merged alone, as 'kgantt merge' copies every row of every table. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_pipeline.h"
#include "fuzz_traces.h"
#include "model/load.h"
#include "trace/merge.h"
#include "trace/packed.h"
#include "trace/schema.h"

/* The SQL-made trace compacted, as 'kgantt import' ends one; a trace pack refuses (a REAL
 * where an integer belongs) stays rows. */
static void compact(const char *path)
{
	sqlite3 *db;
	char err[512];
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK &&
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK)
		sqlite3_exec(db, trace_pack(db, err, sizeof(err)) ? "ROLLBACK" : "COMMIT", NULL, NULL,
			     NULL);
	sqlite3_close(db);
}

/* The blocks made rows, as info, dump, the SM reader and merge do: decoded or refused,
 * never a crash; a refusal says which table. */
static int expand(const char *path)
{
	sqlite3 *db;
	char err[512];
	int rc = -EIO;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    (rc = packed_expand(db, "main", "temp", NULL, err, sizeof(err))) == -EBADMSG &&
	    !strstr(err, "packed")) {
		fprintf(stderr, "fuzz_kgt: a damaged block said '%s'\n", err);
		abort();
	}
	sqlite3_close(db);
	return rc;
}

/* The trace merged alone: written, or refused with a message, never a crash. */
static void merge_alone(const char *path)
{
	char out[PATH_MAX + 64], err[1024] = "";
	struct kg_merge_stats st;
	const char *inputs[] = {path};
	if (trace_merge(fuzz_path("merged.kgt", out, sizeof(out)), inputs, 1, &st, err,
			sizeof(err)) < 0 && !err[0]) {
		fprintf(stderr, "fuzz_kgt: merge failed without a message\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[PATH_MAX + 64];
	if (fuzz_is_sqlite(data, size))
		fuzz_write("in.kgt", data, size, path, sizeof(path));
	else if (fuzz_sql_db(fuzz_path("in.kgt", path, sizeof(path)), kgt_base, data, size) < 0)
		return 0;
	uint8_t pick = size ? data[size - 1] : 0;
	if (!fuzz_is_sqlite(data, size) && (pick >> 2) & 1)
		compact(path);
	int expanded = expand(path);
	if ((pick >> 3) & 1)
		merge_alone(path);
	struct kg_load_opts opts = {.one_thread = pick & 1, .rows_only = (pick >> 1) & 1};
	struct kg_model m;
	if (fuzz_load("fuzz_kgt", path, &opts, &m) == 0) {
		/* every reader of the blocks checks them the same way: a trace that loads can be
		 * written out as rows (export -f sqlite, pack --drop, dump) */
		if (expanded == -EBADMSG) {
			fprintf(stderr, "fuzz_kgt: loaded, yet its blocks do not expand\n");
			abort();
		}
		fuzz_target = "fuzz_kgt";
		fuzz_pipeline(&m, data, size, 0);
		fuzz_round_trip(&m); /* every trace that loads exports (issue 22) */
		model_free(&m);
	}
	return 0;
}

/* ------------------------------------------------------------------ the blocks' mutator
 * Byte mutations of a trace's packed blocks break their zstd frames, which the reader
 * refuses before any value is decoded. So for an input that is a trace file with blocks,
 * one mutation in two decodes one block (trace/block.h) and edits it as a damaged or
 * hostile writer would: values to the edges of int64 (or of a double, in a REAL column),
 * near what they were, another row's (duplicate ids), NULLs set or cleared, rows
 * duplicated, dropped or swapped; then encodes it again under a valid frame, its first
 * and last ids mostly following its rows, so that what is checked is the readers'
 * bounds on the values. */

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define MUT_MAX_ROWS 4096

static uint64_t mut_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int64_t mut_int(uint64_t *s, int64_t was, const struct kg_row *rows, uint32_t n, int c)
{
	static const int64_t edges[] = {0, 1, -1, INT64_MAX, INT64_MIN, -INT64_MAX, INT64_MAX / 2,
					INT64_MIN / 2, 100000000000000000LL, 4294967296LL,
					4294967295LL, 2147483647LL, 65535, 1000000000LL};
	switch (mut_next(s) % 6) {
	case 0: return (int64_t)((uint64_t)was + mut_next(s) % 2001 - 1000);
	case 1: return rows[mut_next(s) % n].v[c];
	case 2: return (int64_t)mut_next(s);
	default: return edges[mut_next(s) % (sizeof(edges) / sizeof(*edges))];
	}
}

static int64_t mut_real(uint64_t *s, int64_t was)
{
	static const double edges[] = {0, -0.0, 1, -1, 1e17, 1e300, -1e300, INFINITY, -INFINITY,
				       NAN, 9.2233720368547758e18, 1e-300, 100, 101, 1e14, 1e15};
	double d;
	memcpy(&d, &was, sizeof(d));
	d = mut_next(s) % 4 ? edges[mut_next(s) % (sizeof(edges) / sizeof(*edges))] : d * 1000;
	memcpy(&was, &d, sizeof(d));
	return was;
}

/* One edit of rows[0..*n) (room for one more row). */
static void mut_rows(uint64_t *s, const struct kg_packed_table *t, struct kg_row *rows,
		     uint32_t *n)
{
	uint32_t i = (uint32_t)(mut_next(s) % *n);
	int c = (int)(mut_next(s) % (uint64_t)t->nstored);
	switch (mut_next(s) % 10) {
	case 0: /* a row twice */
		if (*n < MUT_MAX_ROWS) {
			memmove(&rows[i + 1], &rows[i], (*n - i) * sizeof(*rows));
			(*n)++;
		}
		break;
	case 1: /* a row less */
		if (*n > 1) {
			memmove(&rows[i], &rows[i + 1], (*n - i - 1) * sizeof(*rows));
			(*n)--;
		}
		break;
	case 2: { /* two rows swapped */
		uint32_t k = (uint32_t)(mut_next(s) % *n);
		struct kg_row tmp = rows[i];
		rows[i] = rows[k];
		rows[k] = tmp;
		break;
	}
	case 3: /* a NULL set or cleared */
		rows[i].nulls ^= 1ull << c;
		break;
	default:
		rows[i].nulls &= ~(1ull << c);
		rows[i].v[c] = t->stored[c].real ? mut_real(s, rows[i].v[c])
						 : mut_int(s, rows[i].v[c], rows, *n, c);
	}
}

/* The block at rowid of db's packed table decoded, edited and written again. 0, or -1
 * when it cannot be (a version 1 block, too many rows, out of memory). */
static int mut_block(sqlite3 *db, int64_t rowid, uint64_t *s)
{
	sqlite3_stmt *st;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT tbl, rows, data, first_id, last_id FROM packed "
				   "WHERE rowid = ?", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, rowid);
	const struct kg_packed_table *t = NULL;
	struct kg_packed_block b;
	struct kg_row *rows = NULL;
	uint32_t n = 0;
	int64_t first = 0, last = 0;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (t = packed_table((const char *)sqlite3_column_text(st, 0))) &&
	    sqlite3_column_int64(st, 1) > 0 && sqlite3_column_int64(st, 1) < MUT_MAX_ROWS &&
	    packed_block_open(&b, sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2),
			      t->nstored, (uint32_t)sqlite3_column_int64(st, 1)) == 0) {
		first = sqlite3_column_int64(st, 3);
		last = sqlite3_column_int64(st, 4);
		rows = calloc(MUT_MAX_ROWS, sizeof(*rows));
		while (rows && n < b.rows && packed_block_row(&b, &rows[n]) == 1)
			n++;
		packed_block_close(&b);
	}
	sqlite3_finalize(st);
	if (!rows || !n) {
		free(rows);
		return -1;
	}
	for (uint64_t edits = mut_next(s) % 4 + 1; edits--;)
		mut_rows(s, t, rows, &n);
	int id = packed_id_column(t);
	if (id >= 0 && mut_next(s) % 4) { /* the ids the block says it holds: its rows' */
		first = rows[0].v[id];
		last = rows[n - 1].v[id];
	}
	struct kg_packed_writer *w = packed_writer_new(t->nstored, t->stored);
	const void *blob;
	size_t len;
	int ok = w != NULL;
	for (uint32_t i = 0; ok && i < n; i++)
		ok = packed_writer_add(w, &rows[i]) == 0;
	if (ok && packed_writer_finish(w, &blob, &len) == 0 &&
	    sqlite3_prepare_v2(db, "UPDATE packed SET data = ?, rows = ?, first_id = ?, "
				   "last_id = ? WHERE rowid = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_blob(st, 1, blob, (int)len, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, n);
		sqlite3_bind_int64(st, 3, first);
		sqlite3_bind_int64(st, 4, last);
		sqlite3_bind_int64(st, 5, rowid);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	packed_writer_free(w);
	free(rows);
	return rc;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint64_t s = (uint64_t)seed * 0x9e3779b97f4a7c15ULL + 1;
	if (!fuzz_is_sqlite(data, size) || mut_next(&s) % 2)
		return LLVMFuzzerMutate(data, size, max_size);
	char path[PATH_MAX + 64];
	fuzz_write("mutate.kgt", data, size, path, sizeof(path));
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t rowid = -1, seen = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	/* one block, chosen evenly (reservoir) */
	if (sqlite3_prepare_v2(db, "SELECT rowid FROM packed", -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW)
			if (mut_next(&s) % (uint64_t)++seen == 0)
				rowid = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	int rc = seen ? mut_block(db, rowid, &s) : -1;
	sqlite3_close(db);
	FILE *f = rc == 0 ? fopen(path, "rb") : NULL;
	size_t got = 0;
	if (f) {
		uint8_t *buf = malloc(max_size + 1);
		got = buf ? fread(buf, 1, max_size + 1, f) : 0;
		if (got && got <= max_size)
			memcpy(data, buf, got);
		else
			got = 0;
		free(buf);
		fclose(f);
	}
	return got ? got : LLVMFuzzerMutate(data, size, max_size);
}
