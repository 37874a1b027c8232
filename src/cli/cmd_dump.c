/* kgantt dump: the raw rows of one trace table, as stored (uftrace dump's role). */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/packed.h"
#include "trace/schema.h"
#include "trace/trace_db.h"

static const char *const usage_lines[] = {"dump [--table NAME] [--limit N] TRACE", NULL};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Prints the rows of one table (default: kernels) as tab-separated values\n"
		 "with a header line. 'kgantt dump --table list TRACE' lists the tables and\n"
		 "views; docs/trace-format.md describes every column.\n",
};

/* A compacted trace (format 5) keeps the rows of kernels and api_calls as blocks, and has
 * no views on them: they are listed, and dumped, as the rows they stand for. */
static int is_rows_view(const char *name)
{
	for (int i = 0; kg_rows_views[i]; i++)
		if (!strcmp(kg_rows_views[i], name))
			return 1;
	return 0;
}

/* " UNION SELECT 'kernels', 'table' ..." for a compacted trace, else "". */
static void packed_names(sqlite3 *db, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = '\0';
	if (packed_only(db) != 1)
		return;
	for (const struct kg_packed_table *t = kg_packed_tables; t->name && n < cap; t++)
		n += (size_t)snprintf(out + n, cap - n, " UNION SELECT '%s', 'table'", t->name);
	for (int i = 0; kg_rows_views[i] && n < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, " UNION SELECT '%s', 'view'", kg_rows_views[i]);
}

static int list_tables(sqlite3 *db)
{
	sqlite3_stmt *st;
	char sql[1024], more[512];
	packed_names(db, more, sizeof(more));
	snprintf(sql, sizeof(sql),
		 "SELECT name, type FROM sqlite_master WHERE type IN ('table','view')%s "
		 "ORDER BY 2, 1",
		 more);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		kg_err("cannot list the tables: %s", sqlite3_errmsg(db));
		return KG_EXIT_FAILURE;
	}
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("%s\t%s\n", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return KG_EXIT_OK;
}

/* The rows a compacted trace keeps as blocks made a temp table, for the table or view
 * asked for: 0, or 1 when it failed (said). */
static int rows_of_blocks(sqlite3 *db, const char *path, const char *table)
{
	char why[512];
	int view = is_rows_view(table);
	if (packed_only(db) != 1 || (!view && !packed_table(table)))
		return 0;
	int rc = packed_expand(db, "main", "temp", view ? NULL : table, why, sizeof(why));
	if (!rc && view && trace_index_rows(db, "temp") != SQLITE_OK) { /* the views join */
		snprintf(why, sizeof(why), "%s", sqlite3_errmsg(db));
		rc = -1;
	}
	if (rc)
		kg_err("cannot read '%s': %s", path, why);
	return rc != 0;
}

static int table_exists(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND "
			       "name = ?1 UNION SELECT 1 FROM sqlite_temp_master WHERE name = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int cmd_dump(int argc, char **argv)
{
	const char *table = "kernels";
	int max_rows = -1;
	const struct cli_option opts[] = {
		OPT_STRING('t', "table", &table, "NAME",
			   "the table or view (default: kernels); list: their names"),
		OPT_COUNT('n', "limit", &max_rows, "N", 2000000000, "at most N rows"),
		OPT_END(),
	};
	int c = cli_parse(&usage, opts, argc, argv);
	if (c >= 0)
		return c;
	if (optind + 1 != argc)
		return cli_usage_error(optind == argc ? "no trace given" : "one trace at a time");
	long limit = max_rows;
	sqlite3 *db;
	char err[1024];
	if (trace_db_open(argv[optind], &db, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	int rc = KG_EXIT_OK;
	if (!strcmp(table, "list")) {
		rc = list_tables(db);
		sqlite3_close(db);
		return finish_stdout(rc);
	}
	if (rows_of_blocks(db, argv[optind], table)) {
		sqlite3_close(db);
		return KG_EXIT_FAILURE;
	}
	if (!table_exists(db, table)) {
		kg_err("'%s' has no table '%s' (see 'kgantt dump --table list %s')", argv[optind],
		       table, argv[optind]);
		sqlite3_close(db);
		return KG_EXIT_FAILURE;
	}
	char sql[512];
	/* the name was checked against sqlite_master above, so quoting it is safe */
	snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\" LIMIT %ld", table, limit);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		kg_err("cannot read table '%s': %s", table, sqlite3_errmsg(db));
		sqlite3_close(db);
		return KG_EXIT_FAILURE;
	}
	int ncol = sqlite3_column_count(st);
	for (int i = 0; i < ncol; i++)
		printf("%s%c", sqlite3_column_name(st, i), i + 1 < ncol ? '\t' : '\n');
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		for (int i = 0; i < ncol; i++) {
			const unsigned char *t = sqlite3_column_text(st, i);
			printf("%s%c", t ? (const char *)t : "", i + 1 < ncol ? '\t' : '\n');
		}
	if (step != SQLITE_DONE) {
		kg_err("cannot read table '%s': %s", table, sqlite3_errmsg(db));
		rc = KG_EXIT_FAILURE;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return finish_stdout(rc);
}
