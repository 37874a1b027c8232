/* Several traces cut from one fuzz input (fuzz_job, fuzz_diff, fuzz_merge), and the
 * empty kgantt trace the SQL mode starts from (fuzz_kgt too).
 *
 * The pieces of an input are separated by FUZZ_NEXT (a line of its own, in the targets'
 * dictionaries). Each piece is a trace of the kind its first bytes say: an SQLite file
 * (a kgantt trace), JSON or gzip (a PyTorch profiler trace), or else SQL run on an empty
 * kgantt trace (fuzz_util.h: SQL mode). */
#ifndef KGANTT_FUZZ_TRACES_H
#define KGANTT_FUZZ_TRACES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_util.h"
#include "trace/schema.h"

#define FUZZ_NEXT "\n#kgantt-fuzz-next-trace\n"
#define FUZZ_MAX_PIECES 4

/* An empty trace with its kernels and API calls as rows, as 'kgantt import' starts one. */
static inline int kgt_base(sqlite3 *db)
{
	int rc = sqlite3_exec(db, kg_schema_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = trace_create_rows(db, "main");
	if (rc == SQLITE_OK)
		rc = trace_write_meta(db, "CLOCK_MONOTONIC_RAW", "kgantt-record", "./app");
	return rc;
}

struct fuzz_piece {
	const uint8_t *data;
	size_t size;
};

/* The input cut at each FUZZ_NEXT, at most max pieces (the last takes the rest); their
 * number. */
static inline int fuzz_pieces(const uint8_t *data, size_t size, struct fuzz_piece *out, int max)
{
	const size_t sl = sizeof(FUZZ_NEXT) - 1;
	int n = 0;
	while (n < max - 1) {
		const uint8_t *at = memmem(data, size, FUZZ_NEXT, sl);
		if (!at)
			break;
		out[n++] = (struct fuzz_piece){data, (size_t)(at - data)};
		size -= (size_t)(at - data) + sl;
		data = at + sl;
	}
	out[n++] = (struct fuzz_piece){data, size};
	return n;
}

/* Writes piece number i as a trace file in the scratch directory; its path in buf (NULL
 * when SQLite could not build it: out of memory). */
static inline const char *fuzz_trace_file(const struct fuzz_piece *p, int i, char *buf,
					  size_t len)
{
	char name[32];
	size_t k = 0;
	while (k < p->size && (p->data[k] == ' ' || p->data[k] == '\n' || p->data[k] == '\t'))
		k++;
	int json = k < p->size && (p->data[k] == '{' || p->data[k] == '[');
	int gz = p->size >= 2 && p->data[0] == 0x1f && p->data[1] == 0x8b;
	if (json || gz) {
		snprintf(name, sizeof(name), "trace%d.json%s", i, gz ? ".gz" : "");
		return fuzz_write(name, p->data, p->size, buf, len);
	}
	snprintf(name, sizeof(name), "trace%d.kgt", i);
	if (fuzz_is_sqlite(p->data, p->size))
		return fuzz_write(name, p->data, p->size, buf, len);
	return fuzz_sql_db(fuzz_path(name, buf, len), kgt_base, p->data, p->size) < 0 ? NULL : buf;
}

#endif
