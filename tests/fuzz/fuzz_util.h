/* Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c): a private scratch directory for
 * the files the readers open, removed when the fuzzer exits, and the SQL mode of the
 * SQLite targets. Everything here is static: each target is one translation unit. */
#ifndef KGANTT_FUZZ_UTIL_H
#define KGANTT_FUZZ_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/load.h"

/* The readers take paths, not buffers: every input goes through a file here. One
 * directory per fuzzer process, made at the first input; files are overwritten by the
 * next input and the directory goes at exit. */
static char fuzz_dir[PATH_MAX];

static inline void fuzz_remove_dir(void)
{
	DIR *d = opendir(fuzz_dir);
	if (!d)
		return;
	struct dirent *e;
	char path[PATH_MAX + 256];
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", fuzz_dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(fuzz_dir);
}

/* The path of name in the scratch directory; aborts when no directory can be made (the
 * fuzzer cannot do anything useful then). */
static inline const char *fuzz_path(const char *name, char *buf, size_t len)
{
	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/kgantt-fuzz-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_remove_dir);
	}
	snprintf(buf, len, "%s/%s", fuzz_dir, name);
	return buf;
}

/* Writes data to name in the scratch directory; returns its path (in buf). */
static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size,
				     char *buf, size_t len)
{
	fuzz_path(name, buf, len);
	int fd = open(buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror("fuzz: open");
		abort();
	}
	for (size_t off = 0; off < size;) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0) {
			perror("fuzz: write");
			abort();
		}
		off += (size_t)n;
	}
	close(fd);
	return buf;
}

/* KG_FUZZ_VERBOSE=1 prints what each input came to (seeds that do not load, say). */
static inline void fuzz_say(const char *target, int rc, const char *err)
{
	static int verbose = -1;
	if (verbose < 0)
		verbose = getenv("KG_FUZZ_VERBOSE") != NULL;
	if (verbose)
		fprintf(stderr, "%s: %s\n", target, rc ? err : "loaded");
}

/* model_load, as the commands load a trace: a failure must say why. 0 or the load's
 * error; m is freed unless keep is given (then the caller frees it). */
static inline int fuzz_load(const char *target, const char *path, const struct kg_load_opts *o,
			    struct kg_model *keep)
{
	struct kg_model m;
	char err[1024] = "";
	int rc = model_load(path, &m, o, err, sizeof(err));
	fuzz_say(target, rc, err);
	if (rc && !err[0]) {
		fprintf(stderr, "%s: loading failed (%d) with an empty message\n", target, rc);
		abort();
	}
	if (!rc && keep)
		*keep = m;
	else if (!rc)
		model_free(&m);
	return rc;
}

/* ------------------------------------------------------------------ SQL mode
 * Mutating the bytes of an SQLite file mostly hits SQLite's own corruption checks, so the
 * SQLite targets also take SQL: an input that is not an SQLite file is run, statement by
 * statement (a failing one is skipped), on a database that starts from the target's
 * base (the empty schema of its format), and the result is what the reader opens. Values
 * that only SQL makes easy (INT64_MIN timestamps, sparse row ids, NULLs, text where
 * numbers belong, blobs) then reach the reader. */

/* No statement may leave the database: ATTACH (and VACUUM INTO, which attaches) could
 * write anywhere. */
static inline int fuzz_authorize(void *arg, int action, const char *a, const char *b,
				 const char *c, const char *d)
{
	(void)arg, (void)a, (void)b, (void)c, (void)d;
	return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
}

/* A recursive CTE can run for ever: every statement gets a budget of VM steps. */
static inline int fuzz_progress(void *arg)
{
	return ++*(int *)arg > 200; /* called every 1000 steps: 200k steps */
}

static inline int fuzz_is_sqlite(const uint8_t *data, size_t size)
{
	return size >= 16 && memcmp(data, "SQLite format 3", 16) == 0;
}

/* 1 when SQLite's own quick_check finds the database at path damaged (a b-tree whose
 * rowids are out of order reads rows twice: what a plain scan never notices). */
static inline int fuzz_sqlite_damaged(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int damaged = 1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL) == SQLITE_OK) {
		damaged = sqlite3_step(st) != SQLITE_ROW ||
			  strcmp((const char *)sqlite3_column_text(st, 0), "ok") != 0;
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return damaged;
}

/* Builds the database of an SQL-mode input at path: base() makes the starting point (may
 * be NULL: an empty database), then the input runs. 0, or -1 when SQLite itself fails
 * (out of memory): the input is then skipped. */
static inline int fuzz_sql_db(const char *path, int (*base)(sqlite3 *), const uint8_t *data,
		       size_t size)
{
	unlink(path);
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	/* small pages: a whole trace in a few KB; no journal: nothing else to clean up */
	sqlite3_exec(db, "PRAGMA page_size=512; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;",
		     NULL, NULL, NULL);
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
	if (base && base(db) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	sqlite3_set_authorizer(db, fuzz_authorize, NULL);
	char *sql = malloc(size + 1);
	if (!sql) {
		sqlite3_close(db);
		return -1;
	}
	memcpy(sql, data, size);
	sql[size] = '\0';
	int steps = 0;
	sqlite3_progress_handler(db, 1000, fuzz_progress, &steps);
	for (const char *at = sql; *at;) {
		sqlite3_stmt *st = NULL;
		const char *tail = NULL;
		int rc = sqlite3_prepare_v2(db, at, -1, &st, &tail);
		steps = 0;
		if (rc == SQLITE_OK && st)
			while (sqlite3_step(st) == SQLITE_ROW)
				;
		sqlite3_finalize(st);
		if (!tail || tail == at) { /* unparsable: skip to the next statement */
			const char *semi = strchr(at, ';');
			if (!semi)
				break;
			tail = semi + 1;
		}
		at = tail;
	}
	free(sql);
	sqlite3_close(db);
	return 0;
}

#endif
