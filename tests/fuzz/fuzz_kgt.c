/* libFuzzer target: the kgantt trace reader (read_kgt*.c, packed column blocks), through
 * model_load as every command loads a trace. An input that is an SQLite file is the trace
 * itself; any other input is SQL run on an empty trace (fuzz_util.h: SQL mode), which
 * reaches what byte mutations rarely do: extreme values, sparse ids, damaged packed
 * blocks. Some bits of the input also choose how the trace is read (packed blocks or
 * rows, one thread or two), so every way gets fuzzed. A model that loads is analysed and
 * written out (fuzz_pipeline.h): SQL makes extreme times easy. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_pipeline.h"
#include "model/load.h"
#include "trace/schema.h"

/* An empty trace, as 'kgantt import' starts one. */
static int kgt_base(sqlite3 *db)
{
	int rc = sqlite3_exec(db, kg_schema_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = trace_write_meta(db, "CLOCK_MONOTONIC_RAW", "kgantt-record", "./app");
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[PATH_MAX + 64];
	if (fuzz_is_sqlite(data, size))
		fuzz_write("in.kgt", data, size, path, sizeof(path));
	else if (fuzz_sql_db(fuzz_path("in.kgt", path, sizeof(path)), kgt_base, data, size) < 0)
		return 0;
	uint8_t pick = size ? data[size - 1] : 0;
	struct kg_load_opts opts = {.one_thread = pick & 1, .rows_only = (pick >> 1) & 1};
	struct kg_model m;
	if (fuzz_load("fuzz_kgt", path, &opts, &m) == 0) {
		fuzz_target = "fuzz_kgt";
		fuzz_pipeline(&m, data, size, 0);
		model_free(&m);
	}
	return 0;
}
