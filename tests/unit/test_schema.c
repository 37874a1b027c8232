/* docs/trace-format.md documents every table and column of the trace schema. */
#include "harness.h"

#include <sqlite3.h>

#include "trace/packed.h"
#include "trace/schema.h"

static char *read_doc(void)
{
	FILE *f = fopen("docs/trace-format.md", "r");
	CHECK(f != NULL); /* tests run from the repository root */
	static char buf[1 << 18];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* The tables of db documented, each with its columns; how many there are. */
static int check_documented(sqlite3 *db, const char *doc)
{
	sqlite3_stmt *tables;
	CHECK(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type='table'", -1,
				 &tables, NULL) == SQLITE_OK);
	int ntables = 0;
	while (sqlite3_step(tables) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(tables, 0);
		char heading[128], needle[160];
		ntables++;
		if (!strncmp(t, "enum_", 5)) {
			snprintf(needle, sizeof(needle), "`%s`", t);
			if (!strstr(doc, needle))
				fprintf(stderr, "    enumeration %s not documented\n", t);
			CHECK(strstr(doc, needle));
			continue;
		}
		snprintf(heading, sizeof(heading), "\n### %s\n", t);
		const char *section = strstr(doc, heading);
		if (!section)
			fprintf(stderr, "    table %s has no section\n", t);
		CHECK(section);
		const char *next = strstr(section + 1, "\n### ");
		char sql[256];
		snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", t);
		sqlite3_stmt *cols;
		CHECK(sqlite3_prepare_v2(db, sql, -1, &cols, NULL) == SQLITE_OK);
		while (sqlite3_step(cols) == SQLITE_ROW) {
			const char *c = (const char *)sqlite3_column_text(cols, 1);
			snprintf(needle, sizeof(needle), "| `%s` |", c);
			const char *at = strstr(section, needle);
			if (!at || (next && at > next))
				fprintf(stderr, "    column %s.%s not documented\n", t, c);
			CHECK(at && (!next || at < next));
		}
		sqlite3_finalize(cols);
	}
	sqlite3_finalize(tables);
	return ntables;
}

TEST(every_table_and_column_is_documented)
{
	const char *doc = read_doc();
	sqlite3 *db;
	char err[256];
	/* every table as rows, as an export writes them */
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, kg_schema_sql, NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, kg_index_sql, NULL, NULL, NULL) == SQLITE_OK);
	CHECK_EQ_INT(trace_create_rows(db, "main"), SQLITE_OK);
	CHECK_EQ_INT(trace_index_rows(db, "main"), SQLITE_OK);
	CHECK(check_documented(db, doc) >= 20);
	/* compacted: the packed table too */
	CHECK_EQ_INT(trace_pack(db, err, sizeof(err)), 0);
	CHECK(check_documented(db, doc) >= 20);
	sqlite3_close(db);
}
