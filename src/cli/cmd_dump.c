/* kgantt dump: the raw rows of one trace table, as stored (uftrace dump's role). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/trace_db.h"

static void dump_usage(FILE *f)
{
	fprintf(f, "usage: kgantt dump [--table NAME] [--limit N] TRACE\n"
		   "\n"
		   "Prints the rows of one table (default: kernels) as tab-separated values\n"
		   "with a header line. 'kgantt dump --table list TRACE' lists the tables and\n"
		   "views; docs/trace-format.md describes every column.\n");
}

static int list_tables(sqlite3 *db)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT name, type FROM sqlite_master WHERE type IN ('table','view') "
			       "ORDER BY type, name",
			       -1, &st, NULL) != SQLITE_OK)
		return KG_EXIT_FAILURE;
	while (sqlite3_step(st) == SQLITE_ROW)
		printf("%s\t%s\n", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	return KG_EXIT_OK;
}

static int table_exists(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND "
			       "name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"table", required_argument, NULL, 't'},
		{"limit", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *table = "kernels";
	long limit = -1;
	int c;
	optind = 1;
	while ((c = cli_getopt("dump", argc, argv, "t:n:h", longopts)) != -1) {
		switch (c) {
		case 't': table = optarg; break;
		case 'n': {
			char *end;
			limit = strtol(optarg, &end, 10);
			if (*end || limit < 0) {
				kg_err("--limit: '%s' is not a count", optarg);
				return KG_EXIT_USAGE;
			}
			break;
		}
		case 'h': dump_usage(stdout); return finish_stdout(KG_EXIT_OK);
		default: return KG_EXIT_USAGE; /* cli_getopt said why */
		}
	}
	if (optind + 1 != argc) {
		dump_usage(stderr);
		return KG_EXIT_USAGE;
	}
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
