/* The rows of one packed table of a trace file, decoded ahead by a second thread.
 *
 * packed_rows decodes a block's rows as its reader asks for them; SQLite's INSERT of an
 * export (export_sqlite.c) then waits for the decoding between rows, a tenth of its time.
 * A feed decodes on its own thread, with its own connection to the file, into two
 * batches of rows: one is read while the other is filled. The rows, their order, and the
 * errors are packed_rows_next's. */
#ifndef KGANTT_PACKED_FEED_H
#define KGANTT_PACKED_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "trace/packed.h"
#include "trace/row.h"

struct kg_packed_feed;

/* Starts decoding table t of the trace at path. 0 and *out, or -ENOMEM / -EAGAIN (no
 * thread) with a message in err; the file's own errors come from packed_feed_next. */
int packed_feed_open(const char *path, const struct kg_packed_table *t,
		     struct kg_packed_feed **out, char *err, size_t errlen);
/* 1 with the next row and its rowid (the row lives until the next call); 0 after the last;
 * < 0 as packed_rows_next (or -EIO: the file cannot be opened), message in err. */
int packed_feed_next(struct kg_packed_feed *f, const struct kg_row **row, int64_t *rowid,
		     char *err, size_t errlen);
/* Stops the thread (whether or not every row was read) and frees f; NULL is a no-op. */
void packed_feed_close(struct kg_packed_feed *f);

#endif
