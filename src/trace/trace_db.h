/* Opening an existing kgantt trace (SQLite) for reading, with format and version checks,
 * and the small SQL helpers of the trace's code. Readers of a trace's rows open it as a
 * store (trace/store.h), which opens it with these. */
#ifndef KGANTT_TRACE_DB_H
#define KGANTT_TRACE_DB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* 0 on success; otherwise a negative errno-style code and a message in err that names
 * the file and says what was expected. */
int trace_db_open(const char *path, sqlite3 **db, char *err, size_t errlen);
/* Its two steps: the file (not a directory, not truncated) opened read-only, then what
 * it is checked (a kgantt trace, a version this kgantt reads), which closes db when it
 * is not. The same codes and messages. */
int trace_db_open_file(const char *path, sqlite3 **db, char *err, size_t errlen);
int trace_db_check(sqlite3 *db, const char *path, char *err, size_t errlen);
/* An SQLite file shorter than its header says (a copy cut short): -1 with the message
 * trace_db_open gives ("'t.kgt' is truncated: ..."), else 0. Every reader of SQLite
 * files (model/load.c too) calls this first, so that each command says the same. */
int trace_db_check_truncation(const char *path, char *err, size_t errlen);
/* An open SQLite file's size as its header promises it (0 when the header's count is stale)
 * and as it is, for readers that word the cut their own way (model/read_nsys.c). -1 when
 * the file is not SQLite or shorter than a header. */
int trace_db_sqlite_size(int fd, uint64_t *promised, uint64_t *has);
/* The integer that sql returns, 0 when NULL (text, when not NULL, is bound to ?1).
 * SQLITE_OK, or SQLite's error code (sqlite3_errmsg says more). */
int trace_db_int(sqlite3 *db, const char *sql, const char *text, int64_t *out);
/* The smallest and largest rowid of table (0 when empty). Two queries: one asking for both
 * MIN and MAX scans the whole table, one with either reads a single page. */
int trace_db_id_range(sqlite3 *db, const char *table, int64_t *lo, int64_t *hi);
/* Value of a meta key, copied into out (empty when missing). */
void trace_db_meta(sqlite3 *db, const char *key, char *out, size_t outlen);

/* "WHAT: SQLite's message" into err; -EIO. */
int trace_db_fail(sqlite3 *db, char *err, size_t errlen, const char *what);
/* sqlite3_exec of sql: 0, or trace_db_fail's -EIO. */
int trace_db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen, const char *what);

#endif
