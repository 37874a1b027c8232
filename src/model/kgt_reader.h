/* Private to the kgantt trace reader (read_kgt.c: the small tables and the order of
 * things; read_kgt_bulk.c: kernels and API calls, on two threads). It reads the trace
 * through the store (trace/store.h) only: what to read, and the checks on what is read,
 * are the store's; what becomes of it in the model is the reader's. */
#ifndef KGANTT_KGT_READER_H
#define KGANTT_KGT_READER_H

#include <stdint.h>

#include "model/load.h"
#include "trace/store.h"
#include "util/idmap.h"

#define MAX_ORDINALS 64 /* CUDA device ordinals per process we index directly */

struct kgt_reader {
	struct kg_model *m;
	struct kg_store *s;
	const char *path;
	char *err;
	size_t errlen;
	uint32_t *str;          /* trace string id → model string id, when the ids are dense */
	size_t nstr;
	struct kg_idmap strmap; /* ... the same when they are not (str is then NULL) */
	uint32_t *proc;         /* trace process number → model index */
	size_t nproc;
	uint32_t *dev;          /* [process index * MAX_ORDINALS + ordinal] → device index */
	const struct kg_load_opts *opts;
	uint64_t skipped;       /* rows naming no known process or device */
	struct kg_idmap stacks; /* trace stack id → model stack (kgt_read_stacks) */
};

/* The store's last error as the reader's: rc. */
int kgt_store_failed(struct kgt_reader *r, int rc);
int kgt_oom(struct kgt_reader *r);
void kgt_progress(struct kgt_reader *r, double fraction);
uint32_t kgt_str_of(const struct kgt_reader *r, int64_t id);
uint32_t kgt_proc_of(const struct kgt_reader *r, int64_t num);
/* The model string of a text column (0 when NULL). */
uint32_t kgt_text(struct kgt_reader *r, const struct kg_store_rows *it, int col);

/* Calls row() with every row of the read; stops at the first error. */
int kgt_each_row(struct kgt_reader *r, enum kg_read what,
		 int (*row)(struct kgt_reader *, const struct kg_store_rows *));
/* Calls row() with every row of the read, as a kg_row. */
int kgt_each_op_row(struct kgt_reader *r, enum kg_read what,
		    int (*row)(struct kgt_reader *, const struct kg_row *));
/* The stream of an op row's (process, device, context, stream); KG_NONE for a device of no
 * known process (counted in *skipped), or when out of memory (*no_memory set). Not
 * thread-safe: the model's streams and devices. */
uint32_t kgt_row_stream(struct kgt_reader *r, const struct kg_row *row, uint64_t *skipped,
			int *no_memory);
/* A row whose start or end is NULL never ran within the recording. */
int kgt_ran(const struct kg_row *row);
void kgt_op_common(struct kg_op *o, const struct kg_row *row, enum kg_op_kind kind,
		   uint32_t stream);
/* A new op for the row in the model's next slot (one thread at a time); NULL when the row
 * is skipped, or when out of memory (*err set). */
struct kg_op *kgt_new_op(struct kgt_reader *r, const struct kg_row *row, enum kg_op_kind kind,
			 int *err);

static inline int64_t row_time(const struct kg_row *row, int col)
{
	return row_is_null(row, col) ? KG_NO_TIME : row->v[col];
}

static inline void graph_of(struct kg_op *o, const struct kg_row *row, int col)
{
	if (!row_is_null(row, col)) {
		o->graph = (uint32_t)row->v[col];
		o->flags |= KG_OPF_GRAPH;
	}
}

/* kernels and api_calls: from packed blocks when usable, else rows; two threads. */
int kgt_read_bulk(struct kgt_reader *r);
/* Call stacks and which API calls they belong to (read_kgt_stacks.c). */
int kgt_read_stacks(struct kgt_reader *r);
/* Hardware samples and how they were taken (read_kgt_hw.c; traces before format 4 have
 * none). */
int kgt_read_hw(struct kgt_reader *r);
/* Host samples → host spans, how each process sampled, its threads' names
 * (read_kgt_host.c; after the stacks: samples name them). */
int kgt_read_host(struct kgt_reader *r);
/* SM placement: blocks and how they were aligned (read_kgt_sm.c; after the ops). */
int kgt_read_sm(struct kgt_reader *r);
/* The model device of (process index, CUDA ordinal), added bare when the trace never
 * described it; KG_NONE for an unknown process or an ordinal out of range. */
uint32_t kgt_device_of(struct kgt_reader *r, uint32_t process, int64_t ordinal);
/* Runs the read, whose first two columns are a process and a device ordinal; row() gets
 * each row with its model device. A row of an unknown process or device is skipped (and
 * counted in *skipped unless it is NULL). 0, or the reader's error. */
int kgt_each_device_row(struct kgt_reader *r, enum kg_read what, uint64_t *skipped,
			int (*row)(struct kgt_reader *, const struct kg_store_rows *,
				   uint32_t device));

#endif
