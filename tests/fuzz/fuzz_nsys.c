/* libFuzzer target: the Nsight Systems SQLite export reader (read_nsys.c), through
 * model_load as every command loads a trace. An input that is an SQLite file is the
 * export itself; any other input is SQL run on an empty database (fuzz_util.h: SQL
 * mode): the seeds create nsys's tables and fill them, so mutations reach both the
 * layout (missing tables and columns, other types) and the values. A model that loads is
 * analysed and written out (fuzz_pipeline.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_pipeline.h"
#include "model/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[PATH_MAX + 64];
	if (fuzz_is_sqlite(data, size))
		fuzz_write("in.sqlite", data, size, path, sizeof(path));
	else if (fuzz_sql_db(fuzz_path("in.sqlite", path, sizeof(path)), NULL, data, size) < 0)
		return 0;
	struct kg_model m;
	if (fuzz_load("fuzz_nsys", path, NULL, &m) == 0) {
		fuzz_target = "fuzz_nsys";
		fuzz_pipeline(&m, data, size, 0);
		fuzz_round_trip(&m); /* every trace that loads exports (issue 22) */
		model_free(&m);
	}
	return 0;
}
