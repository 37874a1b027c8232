/* What 'kgantt pack' does (pack.h): a trace's packed tables made blocks, or rows again. */
#include "trace/pack.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trace/packed.h"
#include "trace/schema.h"
#include "trace/trace_db.h"

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

