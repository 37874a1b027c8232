/* Private to the kgantt trace reader (read_kgt.c: the small tables and the order of
 * things; read_kgt_bulk.c: kernels and API calls, on two threads). */
#ifndef KGANTT_KGT_READER_H
#define KGANTT_KGT_READER_H

#include <sqlite3.h>
#include <stdint.h>

#include "model/load.h"
#include "trace/columns.h"
#include "trace/packed.h"
#include "util/idmap.h"

#define MAX_ORDINALS 64 /* CUDA device ordinals per process we index directly */

struct kgt_reader {
	struct kg_model *m;
	sqlite3 *db;
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
};

/* Kernels, memcpys and memsets share their first columns; the kernels' and the API
 * calls' columns are their packed blocks' first (trace/columns.h), read from blocks or
 * selected by name from rows (packed_model_columns), so both ways give the same row. */
enum {
	COL_PROCESS, COL_DEVICE, COL_CONTEXT, COL_STREAM, COL_CORRELATION, COL_INCOMPLETE,
	COL_START, COL_END, COL_CHANNEL,
	/* kernels */
	K_NAME = KG_KB_demangled, K_QUEUED = KG_KB_queued, K_SUBMITTED = KG_KB_submitted,
	K_GRID = KG_KB_grid_x, K_BLOCK = KG_KB_block_x, K_REGS = KG_KB_registers_per_thread,
	K_SMEM_STATIC = KG_KB_static_smem, K_SMEM_DYNAMIC = KG_KB_dynamic_smem,
	K_SMEM_CONFIG = KG_KB_shared_mem_executed, K_GRAPH = KG_KB_graph,
	K_DEVICE_LAUNCHED = KG_KB_device_launched, K_COLUMNS = KG_KERNEL_MODEL_COLUMNS,
	/* memcpys */
	C_COPY_KIND = 9, C_SRC_KIND, C_DST_KIND, C_BYTES, C_ASYNC, C_GRAPH, C_COLUMNS,
	/* memsets */
	S_MEMORY_KIND = 9, S_BYTES, S_ASYNC, S_GRAPH, S_COLUMNS,
	/* api_calls */
	A_PROCESS = KG_AB_process, A_THREAD = KG_AB_thread, A_DOMAIN = KG_AB_domain,
	A_NAME = KG_AB_name, A_START = KG_AB_start, A_END = KG_AB_end,
	A_CORRELATION = KG_AB_correlation, A_COLUMNS = KG_API_MODEL_COLUMNS,
};
/* the columns kernels share with copies and memsets: at the same places in a block */
_Static_assert((int)KG_KB_process == (int)COL_PROCESS && (int)KG_KB_device == (int)COL_DEVICE &&
		       (int)KG_KB_context == (int)COL_CONTEXT && (int)KG_KB_stream == (int)COL_STREAM &&
		       (int)KG_KB_correlation == (int)COL_CORRELATION && (int)KG_KB_incomplete == (int)COL_INCOMPLETE &&
		       (int)KG_KB_start == (int)COL_START && (int)KG_KB_end == (int)COL_END &&
		       (int)KG_KB_channel == (int)COL_CHANNEL,
	       "trace/columns.h: kernels' first columns");
_Static_assert((int)K_GRID + 2 == (int)KG_KB_grid_z && (int)K_BLOCK + 2 == (int)KG_KB_block_z,
	       "trace/columns.h: grid and block dimensions side by side");

#define OP_COLUMNS "process, device, context, stream, correlation, incomplete, start, end, channel"

int kgt_read_error(struct kgt_reader *r, const char *what);
int kgt_oom(struct kgt_reader *r);
void kgt_progress(struct kgt_reader *r, double fraction);
uint32_t kgt_str_of(const struct kgt_reader *r, sqlite3_int64 id);
uint32_t kgt_proc_of(const struct kgt_reader *r, sqlite3_int64 num);
/* The smallest and largest id of a table (0 when empty), and how many rows fit between. */
int kgt_id_range(struct kgt_reader *r, const char *table, int64_t *lo, int64_t *hi);
uint64_t kgt_id_span(int64_t lo, int64_t hi);

/* Runs sql and calls row() with every row of its first ncolumns columns. */
int kgt_each_op_row(struct kgt_reader *r, const char *sql, const char *what, int ncolumns,
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
/* SM placement: blocks and how they were aligned (read_kgt_sm.c; after the ops). */
int kgt_read_sm(struct kgt_reader *r);
/* The model device of (process index, CUDA ordinal), added bare when the trace never
 * described it; KG_NONE for an unknown process or an ordinal out of range. */
uint32_t kgt_device_of(struct kgt_reader *r, uint32_t process, int64_t ordinal);
/* Runs sql, whose first two columns are a process and a device ordinal; row() gets each
 * row with its model device. A row of an unknown process or device is skipped (and
 * counted in *skipped unless it is NULL). 0, or the reader's error. */
int kgt_each_device_row(struct kgt_reader *r, const char *sql, const char *what,
			uint64_t *skipped,
			int (*row)(struct kgt_reader *, sqlite3_stmt *, uint32_t device));

#endif
