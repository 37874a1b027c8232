#include "trace/trace_db.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/schema.h"
#include "trace/uncompress.h"

void trace_db_meta(sqlite3 *db, const char *key, char *out, size_t outlen)
{
	sqlite3_stmt *st;
	out[0] = '\0';
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) !=
	    SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, outlen, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

/* A copy cut short (interrupted transfer, full disk) is the usual damage. SQLite's header
 * says how many pages the file should have (when its "version-valid-for" field matches
 * the change counter), so truncation is caught here in O(1) instead of as a confusing
 * error in the middle of a report. */
int trace_db_sqlite_size(int fd, uint64_t *promised, uint64_t *has)
{
	unsigned char h[100];
	struct stat sb;
	if (pread(fd, h, sizeof(h), 0) < (ssize_t)sizeof(h) || fstat(fd, &sb) < 0 ||
	    memcmp(h, "SQLite format 3", 16) != 0)
		return -1;
	uint32_t page = (uint32_t)h[16] << 8 | h[17];
	uint64_t pages = (uint64_t)h[28] << 24 | (uint64_t)h[29] << 16 | (uint64_t)h[30] << 8 |
			 h[31];
	/* the page count is kept up to date only while the change counter beside it matches */
	int valid = memcmp(h + 24, h + 92, 4) == 0;
	*promised = valid ? (page == 1 ? 65536 : page) * pages : 0;
	*has = (uint64_t)sb.st_size;
	return 0;
}

static int check_truncation(const char *path, char *err, size_t errlen)
{
	int fd = uncompress_open(path); /* a compressed file's decompressed copy */
	if (fd < 0)
		return 0;
	uint64_t promised, has;
	int sqlite = trace_db_sqlite_size(fd, &promised, &has) == 0;
	close(fd);
	if (sqlite && promised > has) {
		snprintf(err, errlen,
			 "'%s' is truncated: %llu bytes, expected %llu (an interrupted copy or a full "
			 "disk?)",
			 path, (unsigned long long)has, (unsigned long long)promised);
		return -1;
	}
	return 0;
}

int trace_db_check_truncation(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))
		return 0; /* the caller's own open says what is wrong */
	return check_truncation(path, err, errlen);
}

int trace_db_open_file(const char *path, sqlite3 **dbp, char *err, size_t errlen)
{
	struct stat sb;
	*dbp = NULL;
	if (stat(path, &sb) < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "'%s' is a directory, expected a trace file%s", path,
			 " (a spool directory is read with 'kgantt import')");
		return -EISDIR;
	}
	int rc = uncompress_input(path, err, errlen);
	if (rc < 0)
		return rc;
	if (check_truncation(path, err, errlen) < 0)
		return -EINVAL;
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -EIO;
	}
	*dbp = db;
	return 0;
}

int trace_db_check(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	char format[64], version[32], min_reader[32];
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'format'", -1, &st,
				    NULL);
	sqlite3_finalize(st);
	if (rc != SQLITE_OK) {
		if (rc == SQLITE_CORRUPT)
			snprintf(err, errlen, "'%s' is damaged: %s", path, sqlite3_errmsg(db));
		else
			snprintf(err, errlen, "'%s' is not a kgantt trace: %s", path,
				 rc == SQLITE_NOTADB ? "not an SQLite database"
						     : "no meta table (expected a file written by "
						       "'kgantt record' or 'kgantt import')");
		sqlite3_close(db);
		return -EINVAL;
	}
	trace_db_meta(db, "format", format, sizeof(format));
	trace_db_meta(db, "version", version, sizeof(version));
	trace_db_meta(db, "min_reader_version", min_reader, sizeof(min_reader));
	if (strcmp(format, KG_TRACE_FORMAT) != 0) {
		snprintf(err, errlen, "'%s' is not a kgantt trace: meta format is '%s', expected '%s'",
			 path, format, KG_TRACE_FORMAT);
		sqlite3_close(db);
		return -EINVAL;
	}
	if (atoi(min_reader) > KG_TRACE_VERSION) {
		snprintf(err, errlen,
			 "'%s' is trace format version %s and needs a reader of version %s; this "
			 "kgantt reads up to version %d: upgrade kgantt",
			 path, version, min_reader, KG_TRACE_VERSION);
		sqlite3_close(db);
		return -EPROTO;
	}
	return 0;
}

int trace_db_open(const char *path, sqlite3 **dbp, char *err, size_t errlen)
{
	int rc = trace_db_open_file(path, dbp, err, errlen);
	if (!rc && (rc = trace_db_check(*dbp, path, err, errlen)) < 0)
		*dbp = NULL;
	return rc;
}

int trace_db_int(sqlite3 *db, const char *sql, const char *text, int64_t *out)
{
	sqlite3_stmt *st;
	*out = 0;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? SQLITE_OK : rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

int trace_db_id_range(sqlite3 *db, const char *table, int64_t *lo, int64_t *hi)
{
	char sql[128];
	*hi = 0;
	snprintf(sql, sizeof(sql), "SELECT MIN(rowid) FROM \"%s\"", table);
	int rc = trace_db_int(db, sql, NULL, lo);
	snprintf(sql, sizeof(sql), "SELECT MAX(rowid) FROM \"%s\"", table);
	return rc != SQLITE_OK ? rc : trace_db_int(db, sql, NULL, hi);
}

int trace_db_fail(sqlite3 *db, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
	return -EIO;
}

int trace_db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen, const char *what)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
		       ? 0
		       : trace_db_fail(db, err, errlen, what);
}
