/* kgantt pack: (re)build the packed columns of kgantt traces (trace/packed.h): for a trace
 * written by an older kgantt, made by another tool, or whose rows were edited with SQL
 * (which drops the blocks); --drop removes them. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "trace/packed.h"
#include "trace/trace_db.h"

static void pack_usage(FILE *f)
{
	fprintf(f, "usage: kgantt pack [--drop] TRACE...\n"
		   "\n"
		   "Stores the kernels and API calls of each kgantt trace a second time, as\n"
		   "compressed column blocks that kgantt loads several times faster than the\n"
		   "SQL rows. The rows stay as they are; any later change to them drops the\n"
		   "blocks (kgantt then reads the rows). 'kgantt record' packs on its own.\n"
		   "\n"
		   "  --drop   remove the blocks instead (a smaller file, slower to load)\n");
}

static int pack_one(const char *path, int drop)
{
	char err[512];
	sqlite3 *db;
	if (trace_db_open(path, &db, err, sizeof(err)) < 0) { /* is it a kgantt trace? */
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	sqlite3_close(db);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		kg_err("cannot open '%s' for writing: %s", path, db ? sqlite3_errmsg(db) : "no memory");
		sqlite3_close(db);
		return KG_EXIT_FAILURE;
	}
	int rc = sqlite3_exec(db, "BEGIN IMMEDIATE;", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	if (rc) {
		snprintf(err, sizeof(err), "%s", sqlite3_errmsg(db));
	} else {
		rc = drop ? trace_unpack(db, err, sizeof(err)) : trace_pack(db, err, sizeof(err));
		if (!rc && sqlite3_exec(db, "COMMIT;", NULL, NULL, NULL) != SQLITE_OK) {
			snprintf(err, sizeof(err), "%s", sqlite3_errmsg(db));
			rc = -1;
		}
	}
	if (rc)
		sqlite3_exec(db, "ROLLBACK;", NULL, NULL, NULL);
	if (!rc && drop && sqlite3_exec(db, "VACUUM;", NULL, NULL, NULL) != SQLITE_OK)
		kg_warn("'%s': blocks dropped, but the file could not be compacted: %s", path,
			sqlite3_errmsg(db));
	sqlite3_close(db);
	if (rc) {
		kg_err("cannot pack '%s': %s", path, err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

int cmd_pack(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"drop", no_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int drop = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': drop = 1; break;
		case 'h': pack_usage(stdout); return finish_stdout(KG_EXIT_OK);
		default: pack_usage(stderr); return KG_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		kg_err("pack: no trace given");
		pack_usage(stderr);
		return KG_EXIT_USAGE;
	}
	int rc = KG_EXIT_OK;
	for (int i = optind; i < argc; i++)
		if (pack_one(argv[i], drop) != KG_EXIT_OK)
			rc = KG_EXIT_FAILURE;
	return rc;
}
