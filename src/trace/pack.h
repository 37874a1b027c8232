/* What 'kgantt pack' does to a trace (and 'merge', 'import' at their end, 'export -f
 * sqlite' the other way): its packed tables (trace/packed.h) made blocks, their only copy,
 * or SQL rows again. */
#ifndef KGANTT_PACK_H
#define KGANTT_PACK_H

#include <sqlite3.h>
#include <stddef.h>

/* The trace compacted: every packed table's rows (from whichever attached schema holds
 * them first) written as blocks into main.packed, the rows, their indexes and the views on
 * them dropped from main, meta saying so (format 5, packed_version 2). A table with no SQL
 * table keeps the blocks it has (the importer writes kernels and API calls as blocks as
 * they come, merge every packed table: packed_stream). A cell that is not an integer or
 * NULL, or a column kgantt does not know, is refused. Runs inside the caller's
 * transaction; VACUUM gives the rows' pages back. 0, or -EIO/-ENOMEM/-EINVAL with a
 * message in err. */
int trace_pack(sqlite3 *db, char *err, size_t errlen);

/* The other way: the rows of a compacted trace written back into main as SQL tables,
 * with their indexes and views, and the blocks removed: a plain trace every version of
 * kgantt and the sqlite3 shell read, with every column as recorded. On a trace of format
 * 2-4 it removes the blocks and their triggers. 0, or an error with a message in err. */
int trace_unpack(sqlite3 *db, char *err, size_t errlen);

/* 'kgantt pack' of the trace at path (drop: --drop, trace_unpack): packed in a copy beside
 * it that replaces it when complete (util/outfile.h), so that an interrupted pack leaves
 * the trace as it was. 0, or a negative errno with the message, naming the file, in msg. */
int trace_pack_file(const char *path, int drop, char *msg, size_t msglen);

#endif
