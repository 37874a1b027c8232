/* A new trace file for the tests of the trace code: a free name in /tmp, and an empty
 * trace of SQL rows as 'kgantt import' starts one (its schema, its packed tables as rows,
 * its meta). */
#ifndef KGANTT_TEST_TRACE_FILE_H
#define KGANTT_TEST_TRACE_FILE_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace/schema.h"

/* A name no file has, /tmp/kgantt-WHAT-XXXXXX, into path (at least 64 bytes). */
static inline void test_trace_path(char *path, size_t len, const char *what)
{
	snprintf(path, len, "/tmp/kgantt-%s-XXXXXX", what);
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("mkstemp");
		exit(1);
	}
	close(fd);
	unlink(path);
}

/* The empty trace, in db: SQLite's result code. */
static inline int test_trace_base(sqlite3 *db)
{
	int rc = sqlite3_exec(db, kg_schema_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = trace_create_rows(db, "main");
	if (rc == SQLITE_OK)
		rc = trace_write_meta(db, "CLOCK_MONOTONIC_RAW", "kgantt-record", "./app");
	return rc;
}

#endif
