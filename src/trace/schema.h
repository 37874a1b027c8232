#ifndef KGANTT_SCHEMA_H
#define KGANTT_SCHEMA_H

#include <sqlite3.h>

/* Trace format identity, stored in the meta table. A reader refuses a trace whose
 * min_reader_version is above KG_TRACE_VERSION; a writer bumps KG_TRACE_VERSION for any
 * change and KG_TRACE_MIN_READER only when old readers would misread the new file. A
 * compacted trace (kernels and API calls only as blocks, trace/packed.h) says
 * KG_TRACE_PACKED_MIN_READER: older kgantt would find no kernels in it. */
#define KG_TRACE_FORMAT "kgantt-trace"
#define KG_TRACE_VERSION 6
#define KG_TRACE_MIN_READER 1
#define KG_TRACE_PACKED_MIN_READER 5
/* SQLite's page size in the compacted traces kgantt writes: a trace has some 45 tables and
 * indexes, mostly small, each at least a page (docs/results/trace-size.md); a trace of SQL
 * rows (pack --drop, export) keeps SQLite's default, but an export of KG_MANY_ROWS kernels
 * and API calls or more takes 64 KiB pages: SQLite writes its rows with a third less work
 * (docs/results/export-speed.md), where they would make a small trace 2 MB. */
#define KG_TRACE_PAGE_SIZE 1024
#define KG_ROWS_PAGE_SIZE 4096
#define KG_MANY_ROWS 100000
#define KG_MANY_ROWS_PAGE_SIZE 65536

/* Every table and view but the packed tables' rows and the views on them. */
extern const char kg_schema_sql[];
/* Indexes of those, created after the bulk insert. */
extern const char kg_index_sql[];
/* The packed tables' rows (kernels, api_calls, hw_samples, host_samples) and the views that read them
 * (kg_rows_views: kernel_phases, api, call_stacks), in schema ("main", "temp", an attached
 * name); their indexes. SQLite's result code. */
int trace_create_rows(sqlite3 *db, const char *schema);
int trace_index_rows(sqlite3 *db, const char *schema);
extern const char *const kg_rows_views[];

/* One meta row (INSERT OR REPLACE). SQLITE_OK or SQLite's error code. */
int trace_put_meta(sqlite3 *db, const char *key, const char *value);
/* The meta rows every kgantt writer writes: format, version, min_reader_version, clock,
 * time_unit ("ns"), source, created_by, created_at, and command when not NULL. */
int trace_write_meta(sqlite3 *db, const char *clock, const char *source, const char *command);

#endif
