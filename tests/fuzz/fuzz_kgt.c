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
