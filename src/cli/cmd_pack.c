/* kgantt pack: compacts kgantt traces (trace/packed.h): the kernels and API calls of a
 * trace written by an older kgantt, by another tool, or made rows again, into compressed
 * column blocks, their only copy; --drop makes them SQL rows again. */
#include <getopt.h> /* optind */
#include <stdio.h>

#include "cli/cli.h"
#include "trace/packed.h"
#include "trace/schema.h"
#include "trace/trace_db.h"
#include "util/outfile.h"

static const char *const usage_lines[] = {"pack [--drop] TRACE...", NULL};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Compacts each kgantt trace: its kernels and API calls become compressed\n"
		 "column blocks, their only copy (every column of every row kept), which\n"
		 "kgantt loads several times faster than SQL rows, in a file several times\n"
		 "smaller. For a trace written by an older kgantt or made rows again;\n"
		 "'kgantt record', 'import' and 'merge' write compacted traces already.\n"
		 "\n"
		 "Each TRACE is packed in a copy beside it that replaces it when complete\n"
		 "(room for a second copy is needed meanwhile): an interrupted pack leaves\n"
		 "the trace as it was. A symlink is followed; the link stays.\n",
};

/* The trace copied page by page into dst (SQLite's backup API: consistent even if
 * another process writes it meanwhile). */
static int copy_trace(sqlite3 *src, sqlite3 *dst, char *err, size_t errlen)
{
	sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
	int rc = b ? sqlite3_backup_step(b, -1) : SQLITE_ERROR;
	if (b)
		rc = sqlite3_backup_finish(b) == SQLITE_OK && rc == SQLITE_DONE ? SQLITE_OK : rc;
	if (rc != SQLITE_OK)
		snprintf(err, errlen, "copying it: %s", sqlite3_errmsg(dst));
	return rc == SQLITE_OK ? 0 : -1;
}

static int exec_or_say(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	snprintf(err, errlen, "%s", sqlite3_errmsg(db));
	return -1;
}

/* Packs (or unpacks) the copy. */
static int pack_copy(sqlite3 *dst, int drop, char *err, size_t errlen)
{
	char vacuum[64];
	if (exec_or_say(dst, "BEGIN;", err, errlen) < 0)
		return -1;
	int rc = drop ? trace_unpack(dst, err, errlen) : trace_pack(dst, err, errlen);
	if (!rc)
		rc = exec_or_say(dst, "COMMIT;", err, errlen);
	/* the pages of the rows (or blocks) given back; a compacted trace in small pages */
	snprintf(vacuum, sizeof(vacuum), "PRAGMA page_size=%d; VACUUM;",
		 drop ? KG_ROWS_PAGE_SIZE : KG_TRACE_PAGE_SIZE);
	if (!rc)
		rc = exec_or_say(dst, vacuum, err, errlen);
	return rc;
}

/* The trace is never modified in place: the packed copy is written beside it and renamed
 * over it (util/outfile.h), so an interrupted pack (Ctrl-C, a full disk) leaves the trace
 * exactly as it was. Packing in place left a hot journal beside it on Ctrl-C, which the
 * read-only readers of every other command cannot roll back: the trace was unreadable. */
static int pack_one(const char *path, int drop)
{
	char err[512];
	sqlite3 *src, *dst = NULL;
	if (trace_db_open(path, &src, err, sizeof(err)) < 0) { /* is it a kgantt trace? */
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	struct kg_outfile of;
	struct kg_outfile_opts oo = {.what = "the packed trace", .flags = KG_OUT_DURABLE};
	const char *tmp = outfile_open_path(&of, path, &oo);
	if (!tmp) {
		kg_err("%s", of.err);
		sqlite3_close(src);
		return KG_EXIT_FAILURE;
	}
	int rc = -1;
	if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK)
		snprintf(err, sizeof(err), "cannot create a copy beside it: %s",
			 dst ? sqlite3_errmsg(dst) : "out of memory");
	/* the copy is kgantt's own file until the rename: no journal, no syncs (outfile
	 * syncs it once, before the rename) */
	else if (!(rc = exec_or_say(dst, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", err,
				    sizeof(err))) &&
		 !(rc = copy_trace(src, dst, err, sizeof(err))))
		rc = pack_copy(dst, drop, err, sizeof(err));
	sqlite3_close(src);
	if (sqlite3_close(dst) != SQLITE_OK && !rc) {
		snprintf(err, sizeof(err), "closing the copy: %s", sqlite3_errmsg(dst));
		rc = -1;
	}
	if (rc) {
		outfile_abort(&of);
		kg_err("cannot pack '%s': %s", path, err);
		return KG_EXIT_FAILURE;
	}
	if (outfile_commit(&of) < 0) {
		kg_err("%s", of.err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

int cmd_pack(int argc, char **argv)
{
	int drop = 0;
	const struct cli_option opts[] = {
		OPT_BOOL(0, "drop", &drop,
			 "the other way: the kernels and API calls as SQL rows again, a plain trace "
			 "for the sqlite3 shell and older kgantt (larger)"),
		OPT_BOOL('q', "quiet", NULL, "print nothing but errors (the default on success)"),
		OPT_END(),
	};
	int c = cli_parse(&usage, opts, argc, argv);
	if (c >= 0)
		return c;
	if (optind >= argc)
		return cli_usage_error("no trace given");
	int rc = KG_EXIT_OK;
	for (int i = optind; i < argc; i++)
		if (pack_one(argv[i], drop) != KG_EXIT_OK)
			rc = KG_EXIT_FAILURE;
	return rc;
}
