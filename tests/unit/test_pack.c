/* What 'kgantt pack' does (trace/pack.h): a trace compacted keeps every row, --drop makes
 * them SQL rows again, and a file that is no trace is left as it was. */
#include "harness.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/pack.h"
#include "trace/packed.h"
#include "trace/schema.h"

#include "trace_file.h"

static char path[64];

static int64_t query(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -1;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

TEST(pack_and_drop_keep_every_row)
{
	test_trace_path(path, sizeof(path), "pack");
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK_EQ_INT(test_trace_base(db), SQLITE_OK);
	CHECK(sqlite3_exec(db,
			   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE "
			   "i < 70000) INSERT INTO kernels(id, process, start, end, grid_id) "
			   "SELECT i, 1, i * 10, i * 10 + 5, i * 7 FROM n",
			   NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	char err[512];
	CHECK_EQ_INT(trace_pack_file(path, 0, err, sizeof(err)), 0);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM packed WHERE tbl = 'kernels'"), 2);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM sqlite_master WHERE name = 'kernels'"), 0);
	CHECK_EQ_INT(query("SELECT value FROM meta WHERE key = 'packed_version'"),
		     KG_PACKED_VERSION);
	CHECK_EQ_INT(trace_pack_file(path, 1, err, sizeof(err)), 0);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM kernels"), 70000);
	CHECK_EQ_INT(query("SELECT SUM(grid_id) FROM kernels"), 7LL * 70000 * 70001 / 2);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM sqlite_master WHERE name = 'packed'"), 0);
	unlink(path);
	/* not a trace: said, and nothing written beside it */
	FILE *f = fopen(path, "w");
	fputs("not a trace", f);
	fclose(f);
	CHECK(trace_pack_file(path, 0, err, sizeof(err)) < 0);
	CHECK(strstr(err, path) != NULL);
	struct stat sb;
	CHECK(stat(path, &sb) == 0 && sb.st_size == 11);
	unlink(path);
}
