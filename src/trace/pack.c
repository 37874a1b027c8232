/* What 'kgantt pack' does (pack.h): a trace's packed tables made blocks, or rows again. */
#include "trace/pack.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trace/packed.h"
#include "trace/schema.h"
#include "trace/trace_db.h"
#include "trace/uncompress.h"
#include "util/outfile.h"

/* Every row of the SQL table st reads ("SELECT *, rowid ... ORDER BY rowid") into s. */
static int pack_rows(sqlite3 *db, const char *table, struct kg_packed_stream *s,
		     sqlite3_stmt *st, char *err, size_t errlen)
{
	int rc = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
		if ((rc = packed_stream_add_values(s, st, err, errlen)) == -EINVAL)
			return rc;
	if (!rc && step != SQLITE_DONE)
		return trace_db_fail(db, err, errlen, table);
	if (!rc)
		rc = packed_stream_finish(s);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", table);
	else if (rc == -EIO)
		trace_db_fail(db, err, errlen, table);
	return rc;
}

/* A table's rows as blocks, replacing the blocks it had (formats 2-4's). A table that is
 * not there (an older trace's; the importer's kernels and API calls, written as blocks as
 * they came) leaves the blocks as they are. */
static int pack_table(sqlite3 *db, const struct kg_packed_table *t, char *err, size_t errlen)
{
	struct kg_packed_stream *s;
	int rc = packed_stream_open(db, t->name, &s, err, errlen);
	if (rc)
		return rc < 0 ? rc : 0;
	char sql[256];
	snprintf(sql, sizeof(sql), "DELETE FROM main.packed WHERE tbl = '%s'", t->name);
	rc = trace_db_exec(db, sql, err, errlen, t->name);
	sqlite3_stmt *st = NULL;
	snprintf(sql, sizeof(sql), "SELECT *, rowid FROM %s ORDER BY rowid", t->name);
	if (!rc && sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		rc = trace_db_fail(db, err, errlen, t->name);
	if (!rc)
		rc = pack_rows(db, t->name, s, st, err, errlen);
	sqlite3_finalize(st);
	packed_stream_free(s);
	return rc;
}

/* The rows in main, their indexes, the views on them and format 2-4's triggers. */
static int drop_rows(sqlite3 *db, char *err, size_t errlen)
{
	char sql[256];
	for (int i = 0; kg_rows_views[i]; i++) {
		snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS main.%s", kg_rows_views[i]);
		if (trace_db_exec(db, sql, err, errlen, kg_rows_views[i]) < 0)
			return -EIO;
	}
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++) {
		snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS main.%s", t->name);
		if (trace_db_exec(db, sql, err, errlen, t->name) < 0)
			return -EIO;
	}
	return 0;
}

static int put_versions(sqlite3 *db, int packed, int min_reader, char *err, size_t errlen)
{
	char sql[512];
	snprintf(sql, sizeof(sql),
		 "INSERT OR REPLACE INTO main.meta VALUES('packed_version', '%d');"
		 "UPDATE main.meta SET value = '%d' WHERE key = 'version' AND "
		 "CAST(value AS INTEGER) < %d;"
		 "INSERT OR REPLACE INTO main.meta VALUES('min_reader_version', '%d');",
		 packed, KG_TRACE_VERSION, KG_TRACE_VERSION, min_reader);
	if (!packed) /* no blocks: no packed version */
		snprintf(sql, sizeof(sql),
			 "DELETE FROM main.meta WHERE key = 'packed_version';"
			 "UPDATE main.meta SET value = '%d' WHERE key = 'min_reader_version' AND "
			 "CAST(value AS INTEGER) > %d;",
			 min_reader, min_reader);
	return trace_db_exec(db, sql, err, errlen, "meta");
}

int trace_pack(sqlite3 *db, char *err, size_t errlen)
{
	err[0] = 0;
	int only = packed_only(db);
	if (only)
		return only < 0 ? trace_db_fail(db, err, errlen, "meta") : 0; /* compacted already */
	int rc = packed_create(db, err, errlen);
	for (const struct kg_packed_table *t = kg_packed_tables; !rc && t->name; t++)
		rc = pack_table(db, t, err, errlen);
	if (!rc)
		rc = drop_rows(db, err, errlen);
	if (!rc)
		rc = put_versions(db, KG_PACKED_VERSION, KG_TRACE_PACKED_MIN_READER, err, errlen);
	return rc;
}


int trace_unpack(sqlite3 *db, char *err, size_t errlen)
{
	char sql[512];
	err[0] = 0;
	int only = packed_only(db);
	if (only < 0)
		return trace_db_fail(db, err, errlen, "meta");
	int rc = only ? packed_expand(db, "main", "main", NULL, err, errlen) : 0;
	if (!rc && only && trace_index_rows(db, "main") != SQLITE_OK)
		rc = trace_db_fail(db, err, errlen, "indexes");
	for (const struct kg_packed_table *t = kg_packed_tables; !rc && t->name; t++) {
		snprintf(sql, sizeof(sql), /* format 2-4's */
			 "DROP TRIGGER IF EXISTS packed_%1$s_insert;"
			 "DROP TRIGGER IF EXISTS packed_%1$s_update;"
			 "DROP TRIGGER IF EXISTS packed_%1$s_delete;",
			 t->name);
		rc = trace_db_exec(db, sql, err, errlen, t->name);
	}
	if (!rc)
		rc = trace_db_exec(db, "DROP TABLE IF EXISTS main.packed", err, errlen, "packed table");
	if (!rc)
		rc = put_versions(db, 0, KG_TRACE_MIN_READER, err, errlen);
	return rc;
}

/* ------------------------------------------------------------------ a trace's file */

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
int trace_pack_file(const char *path, int drop, char *msg, size_t msglen)
{
	char err[512];
	sqlite3 *src, *dst = NULL;
	if (trace_db_open(path, &src, msg, msglen) < 0) /* is it a kgantt trace? */
		return -EINVAL;
	uint64_t packed, plain;
	const char *compression = uncompress_kind(path, &packed, &plain);
	if (compression) { /* packed in place, it would be a plain trace under its name */
		snprintf(msg, msglen,
			 "'%s' is compressed (%s): pack rewrites a trace in place; decompress it "
			 "first",
			 path, compression);
		sqlite3_close(src);
		return -EINVAL;
	}
	struct kg_outfile of;
	struct kg_outfile_opts oo = {.what = "the packed trace", .flags = KG_OUT_DURABLE};
	const char *tmp = outfile_open_path(&of, path, &oo);
	if (!tmp) {
		snprintf(msg, msglen, "%s", of.err);
		sqlite3_close(src);
		return -EIO;
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
		snprintf(msg, msglen, "cannot pack '%s': %s", path, err);
		return -EIO;
	}
	if (outfile_commit(&of) < 0) {
		snprintf(msg, msglen, "%s", of.err);
		return -EIO;
	}
	return 0;
}
