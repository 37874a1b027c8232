/* Opening an existing kgantt trace (SQLite) for reading, with format and version checks. */
#ifndef KGANTT_TRACE_DB_H
#define KGANTT_TRACE_DB_H

#include <sqlite3.h>
#include <stddef.h>

/* 0 on success; otherwise a negative errno-style code and a message in err that names
 * the file and says what was expected. */
int trace_db_open(const char *path, sqlite3 **db, char *err, size_t errlen);
/* Value of a meta key, copied into out (empty when missing). */
void trace_db_meta(sqlite3 *db, const char *key, char *out, size_t outlen);

#endif
