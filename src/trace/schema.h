#ifndef KGANTT_SCHEMA_H
#define KGANTT_SCHEMA_H

/* Trace format identity, stored in the meta table. A reader refuses a trace whose
 * min_reader_version is above KG_TRACE_VERSION; a writer bumps KG_TRACE_VERSION for any
 * change and KG_TRACE_MIN_READER only when old readers would misread the new file. */
#define KG_TRACE_FORMAT "kgantt-trace"
#define KG_TRACE_VERSION 4
#define KG_TRACE_MIN_READER 1

extern const char kg_schema_sql[];
extern const char kg_index_sql[];

#include <sqlite3.h>

/* One meta row (INSERT OR REPLACE). SQLITE_OK or SQLite's error code. */
int trace_put_meta(sqlite3 *db, const char *key, const char *value);
/* The meta rows every kgantt writer writes: format, version, min_reader_version, clock,
 * time_unit ("ns"), source, created_by, created_at, and command when not NULL. */
int trace_write_meta(sqlite3 *db, const char *clock, const char *source, const char *command);

#endif
