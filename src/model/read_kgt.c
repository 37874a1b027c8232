/* kgantt's own trace (SQLite, docs/trace-format.md) → the model. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/load.h"
#include "trace/packed.h"
#include "trace/trace_db.h"
#include "util/idmap.h"

#define MAX_ORDINALS 64 /* CUDA device ordinals per process we index directly */

struct kgt_reader {
	struct kg_model *m;
	sqlite3 *db;
	const char *path;
	char *err;
	size_t errlen;
	uint32_t *str;          /* trace string id → model string id */
	size_t nstr;
	uint32_t *proc;         /* trace process number → model index */
	size_t nproc;
	uint32_t *dev;          /* [process index * MAX_ORDINALS + ordinal] → device index */
	const struct kg_load_opts *opts;
	uint64_t skipped;       /* rows naming no known process or device */
};

static int read_error(struct kgt_reader *r, const char *what)
{
	snprintf(r->err, r->errlen, "cannot read '%s' (%s): %s", r->path, what,
		 sqlite3_errmsg(r->db));
	return -EIO;
}

static int oom(struct kgt_reader *r)
{
	snprintf(r->err, r->errlen, "out of memory reading '%s'", r->path);
	return -ENOMEM;
}

static uint32_t str_of(const struct kgt_reader *r, sqlite3_int64 id)
{
	return id > 0 && (size_t)id < r->nstr ? r->str[id] : 0;
}

static uint32_t text_col(struct kg_model *m, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? model_string(m, (const char *)t) : 0;
}

/* NULL reads as 0: only a 0 needs the second call that tells the two apart (a million rows
 * times several time columns make the saved calls count). */
static int64_t time_col(sqlite3_stmt *st, int col)
{
	int64_t v = sqlite3_column_int64(st, col);
	return v == 0 && sqlite3_column_type(st, col) == SQLITE_NULL ? KG_NO_TIME : v;
}

static int is_null(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL;
}

/* Runs sql and calls row() for every row; stops at the first error. */
static int each_row(struct kgt_reader *r, const char *sql, const char *what,
		    int (*row)(struct kgt_reader *, sqlite3_stmt *))
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return read_error(r, what);
	int rc, err = 0;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = row(r, st);
	if (!err && rc != SQLITE_DONE)
		err = read_error(r, what);
	sqlite3_finalize(st);
	return err;
}

static int load_strings(struct kgt_reader *r)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, "SELECT MAX(id) FROM strings", -1, &st, NULL) != SQLITE_OK)
		return read_error(r, "strings");
	sqlite3_int64 max = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (max < 0 || max > (1 << 30))
		return read_error(r, "strings");
	r->nstr = (size_t)max + 1;
	r->str = calloc(r->nstr, sizeof(*r->str));
	if (!r->str)
		return oom(r);
	if (sqlite3_prepare_v2(r->db, "SELECT id, text FROM strings", -1, &st, NULL) != SQLITE_OK)
		return read_error(r, "strings");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(st, 0);
		if (id > 0 && id <= max)
			r->str[id] = text_col(r->m, st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : read_error(r, "strings");
}

static int on_process(struct kgt_reader *r, sqlite3_stmt *st)
{
	sqlite3_int64 num = sqlite3_column_int64(st, 0);
	if (num <= 0 || num > 1000000)
		return read_error(r, "processes: bad process number");
	if ((size_t)num >= r->nproc) {
		size_t n = (size_t)num + 16;
		uint32_t *p = realloc(r->proc, n * sizeof(*p));
		if (!p)
			return oom(r);
		for (size_t i = r->nproc; i < n; i++)
			p[i] = KG_NONE;
		r->proc = p;
		r->nproc = n;
	}
	struct kg_process *p = model_add_process(r->m);
	if (!p)
		return oom(r);
	r->proc[num] = r->m->n_processes - 1;
	p->pid = (uint32_t)sqlite3_column_int64(st, 1);
	p->ppid = (uint32_t)sqlite3_column_int64(st, 2);
	p->host = text_col(r->m, st, 3);
	p->cmdline = text_col(r->m, st, 4);
	p->rank = text_col(r->m, st, 5);
	p->complete = sqlite3_column_int(st, 6);
	p->exit_status = text_col(r->m, st, 7);
	p->dropped = (uint64_t)sqlite3_column_int64(st, 8);
	p->incomplete = (uint64_t)sqlite3_column_int64(st, 9);
	p->start = time_col(st, 10);
	p->end = time_col(st, 11);
	return 0;
}

static uint32_t proc_of(const struct kgt_reader *r, sqlite3_int64 num)
{
	return num > 0 && (size_t)num < r->nproc ? r->proc[num] : KG_NONE;
}

static int on_device(struct kgt_reader *r, sqlite3_stmt *st)
{
	uint32_t p = proc_of(r, sqlite3_column_int64(st, 0));
	sqlite3_int64 ord = sqlite3_column_int64(st, 1);
	if (p == KG_NONE || ord < 0 || ord >= MAX_ORDINALS)
		return 0; /* a device of no known process: nothing can refer to it */
	struct kg_device *d = model_add_device(r->m);
	if (!d)
		return oom(r);
	d->process = p;
	d->ordinal = (int32_t)ord;
	d->name = text_col(r->m, st, 2);
	d->uuid = text_col(r->m, st, 3);
	d->sm_count = sqlite3_column_int(st, 4);
	d->max_warps_per_sm = sqlite3_column_int(st, 5);
	d->max_blocks_per_sm = sqlite3_column_int(st, 6);
	d->max_threads_per_block = sqlite3_column_int(st, 7);
	d->regs_per_sm = sqlite3_column_int(st, 8);
	d->max_regs_per_block = sqlite3_column_int(st, 9);
	d->smem_per_sm = sqlite3_column_int(st, 10);
	d->smem_per_block = sqlite3_column_int(st, 11);
	d->cc_major = sqlite3_column_int(st, 12);
	d->cc_minor = sqlite3_column_int(st, 13);
	d->memory_bytes = sqlite3_column_int64(st, 14);
	r->dev[(size_t)p * MAX_ORDINALS + (size_t)ord] = r->m->n_devices - 1;
	return 0;
}

/* The device index of (process, ordinal); a device the trace never described gets a bare
 * entry, so that an op is never dropped for want of its device's properties. */
static uint32_t device_of(struct kgt_reader *r, uint32_t p, sqlite3_int64 ord)
{
	if (p == KG_NONE || ord < 0 || ord >= MAX_ORDINALS)
		return KG_NONE;
	uint32_t *slot = &r->dev[(size_t)p * MAX_ORDINALS + (size_t)ord];
	if (*slot == KG_NONE) {
		struct kg_device *d = model_add_device(r->m);
		if (!d)
			return KG_NONE;
		d->process = p;
		d->ordinal = (int32_t)ord;
		*slot = r->m->n_devices - 1;
	}
	return *slot;
}

static int on_stream(struct kgt_reader *r, sqlite3_stmt *st)
{
	/* process, context, stream, priority, flags, device, null_stream */
	uint32_t p = proc_of(r, sqlite3_column_int64(st, 0));
	uint32_t d = device_of(r, p, sqlite3_column_int64(st, 5));
	if (d == KG_NONE)
		return 0;
	uint32_t ctx = (uint32_t)sqlite3_column_int64(st, 1);
	int64_t id = sqlite3_column_int64(st, 2);
	uint32_t s = model_stream_index(r->m, p, d, ctx, id);
	if (s == KG_NONE)
		return oom(r);
	struct kg_stream *k = &r->m->streams[s];
	k->priority = sqlite3_column_int(st, 3);
	int flags = sqlite3_column_int(st, 4);
	int is_null = sqlite3_column_type(st, 6) != SQLITE_NULL && sqlite3_column_int64(st, 6) == id;
	k->kind = is_null || flags == 3 ? KG_STREAM_LEGACY_DEFAULT
		  : flags == 2	        ? KG_STREAM_NON_BLOCKING
		  : flags == 1	        ? KG_STREAM_BLOCKING
					: KG_STREAM_UNKNOWN;
	return 0;
}

/* ------------------------------------------------------------------ GPU operations */

/* Kernels, memcpys and memsets share their first columns; the kernels' column list is
 * the packed one (trace/packed.c), so both ways of reading give the same row. */
enum {
	COL_PROCESS, COL_DEVICE, COL_CONTEXT, COL_STREAM, COL_CORRELATION, COL_INCOMPLETE,
	COL_START, COL_END, COL_CHANNEL,
	/* kernels */
	K_NAME = 9, K_QUEUED, K_SUBMITTED, K_GRID, K_BLOCK = K_GRID + 3, K_REGS = K_BLOCK + 3,
	K_SMEM_STATIC, K_SMEM_DYNAMIC, K_SMEM_CONFIG, K_GRAPH, K_DEVICE_LAUNCHED, K_COLUMNS,
	/* memcpys */
	C_COPY_KIND = 9, C_SRC_KIND, C_DST_KIND, C_BYTES, C_ASYNC, C_GRAPH, C_COLUMNS,
	/* memsets */
	S_MEMORY_KIND = 9, S_BYTES, S_ASYNC, S_GRAPH, S_COLUMNS,
};

#define OP_COLUMNS "process, device, context, stream, correlation, incomplete, start, end, channel"

static int64_t row_time(const struct kg_row *row, int col)
{
	return row_is_null(row, col) ? KG_NO_TIME : row->v[col];
}

/* Runs sql and calls row() with every row of its first ncolumns columns. */
static int each_op_row(struct kgt_reader *r, const char *sql, const char *what, int ncolumns,
		       int (*row)(struct kgt_reader *, const struct kg_row *))
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return read_error(r, what);
	struct kg_row values;
	int rc, err = 0;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		row_from_stmt(&values, st, ncolumns);
		err = row(r, &values);
	}
	if (!err && rc != SQLITE_DONE)
		err = read_error(r, what);
	sqlite3_finalize(st);
	return err;
}

/* The stream of the row's (process, device, context, stream); KG_NONE for a device of no
 * known process (counted as skipped), or when out of memory (*no_memory set). */
static uint32_t row_stream(struct kgt_reader *r, const struct kg_row *row, int *no_memory)
{
	uint32_t p = proc_of(r, row->v[COL_PROCESS]);
	uint32_t d = device_of(r, p, row->v[COL_DEVICE]);
	if (d == KG_NONE) {
		r->skipped++;
		return KG_NONE;
	}
	uint32_t s = model_stream_index(r->m, p, d, (uint32_t)row->v[COL_CONTEXT],
					 row->v[COL_STREAM]);
	if (s == KG_NONE) {
		*no_memory = 1;
		return KG_NONE;
	}
	if (r->m->streams[s].channel < 0 && !row_is_null(row, COL_CHANNEL))
		r->m->streams[s].channel = (int32_t)row->v[COL_CHANNEL];
	return s;
}

static void op_common(struct kg_op *o, const struct kg_row *row, enum kg_op_kind kind,
		      uint32_t stream)
{
	o->kind = (uint8_t)kind;
	o->stream = stream;
	o->correlation = (uint32_t)row->v[COL_CORRELATION];
	if (row->v[COL_INCOMPLETE])
		o->flags |= KG_OPF_INCOMPLETE;
	o->start = row->v[COL_START];
	o->end = row->v[COL_END];
}

/* A row whose start or end is NULL never ran within the recording: nothing to draw or
 * measure. */
static int ran(const struct kg_row *row)
{
	return !row_is_null(row, COL_START) && !row_is_null(row, COL_END);
}

static void graph_of(struct kg_op *o, const struct kg_row *row, int col)
{
	if (!row_is_null(row, col)) {
		o->graph = (uint32_t)row->v[col];
		o->flags |= KG_OPF_GRAPH;
	}
}

/* A new op for the row in the model's next slot; NULL when the row is skipped, or when
 * out of memory (*err set). */
static struct kg_op *new_op(struct kgt_reader *r, const struct kg_row *row, enum kg_op_kind kind,
			    int *err)
{
	int no_memory = 0;
	uint32_t s = ran(row) ? row_stream(r, row, &no_memory) : KG_NONE;
	struct kg_op *o = s == KG_NONE ? NULL : model_add_op(r->m);
	if (o)
		op_common(o, row, kind, s);
	else if (s != KG_NONE || no_memory)
		*err = oom(r);
	return o;
}

static void kernel_fields(const struct kgt_reader *r, const struct kg_row *row, struct kg_op *o)
{
	o->name = str_of(r, row->v[K_NAME]);
	o->queued = row_time(row, K_QUEUED);
	o->submitted = row_time(row, K_SUBMITTED);
	for (int i = 0; i < 3; i++) {
		o->grid[i] = (uint32_t)row->v[K_GRID + i];
		o->block[i] = (uint32_t)row->v[K_BLOCK + i];
	}
	o->regs = (uint16_t)row->v[K_REGS];
	o->smem_static = (uint32_t)row->v[K_SMEM_STATIC];
	o->smem_dynamic = (uint32_t)row->v[K_SMEM_DYNAMIC];
	o->smem_config = (uint32_t)row->v[K_SMEM_CONFIG];
	graph_of(o, row, K_GRAPH);
	if (row->v[K_DEVICE_LAUNCHED])
		o->flags |= KG_OPF_DEVICE_LAUNCHED;
}

static int on_kernel(struct kgt_reader *r, const struct kg_row *row)
{
	int err = 0;
	struct kg_op *o = new_op(r, row, KG_OP_KERNEL, &err);
	if (o)
		kernel_fields(r, row, o);
	return err;
}

static int on_memcpy(struct kgt_reader *r, const struct kg_row *row)
{
	int err = 0;
	struct kg_op *o = new_op(r, row, KG_OP_MEMCPY, &err);
	if (!o)
		return err;
	o->copy_kind = (uint8_t)row->v[C_COPY_KIND];
	o->src_kind = (uint8_t)row->v[C_SRC_KIND];
	o->dst_kind = (uint8_t)row->v[C_DST_KIND];
	o->bytes = (uint64_t)row->v[C_BYTES];
	if (row->v[C_ASYNC])
		o->flags |= KG_OPF_ASYNC;
	graph_of(o, row, C_GRAPH);
	o->name = model_copy_label(r->m, o);
	return 0;
}

static int on_memset(struct kgt_reader *r, const struct kg_row *row)
{
	int err = 0;
	struct kg_op *o = new_op(r, row, KG_OP_MEMSET, &err);
	if (!o)
		return err;
	o->dst_kind = (uint8_t)row->v[S_MEMORY_KIND];
	o->bytes = (uint64_t)row->v[S_BYTES];
	if (row->v[S_ASYNC])
		o->flags |= KG_OPF_ASYNC;
	graph_of(o, row, S_GRAPH);
	o->name = model_copy_label(r->m, o);
	return 0;
}

/* ------------------------------------------------------------------ host side */

/* api_calls: process, thread, domain, name, start, end, correlation (the packed list) */
static int on_api(struct kgt_reader *r, const struct kg_row *row)
{
	uint32_t p = proc_of(r, row->v[0]);
	if (p == KG_NONE || row_is_null(row, 4))
		return 0;
	struct kg_api *a = model_add_api(r->m);
	if (!a)
		return oom(r);
	a->process = p;
	a->thread = model_thread_index(r->m, p, (uint64_t)row->v[1]);
	a->driver = row->v[2] == 2;
	a->name = str_of(r, row->v[3]);
	a->start = row->v[4];
	a->end = row_is_null(row, 5) ? a->start : row->v[5];
	a->correlation = (uint32_t)row->v[6];
	return 0;
}

static int on_sync(struct kgt_reader *r, sqlite3_stmt *st)
{
	/* process, type, context, stream, start, end, correlation, device */
	uint32_t p = proc_of(r, sqlite3_column_int64(st, 0));
	if (p == KG_NONE || is_null(st, 4) || is_null(st, 5))
		return 0;
	struct kg_sync *y = model_add_sync(r->m);
	if (!y)
		return oom(r);
	y->process = p;
	y->kind = (uint8_t)sqlite3_column_int(st, 1);
	if (!is_null(st, 3)) {
		uint32_t d = device_of(r, p, sqlite3_column_int64(st, 7));
		if (d != KG_NONE)
			y->stream = model_stream_index(r->m, p, d, (uint32_t)sqlite3_column_int64(st, 2),
						       sqlite3_column_int64(st, 3));
	}
	y->start = sqlite3_column_int64(st, 4);
	y->end = sqlite3_column_int64(st, 5);
	y->correlation = (uint32_t)sqlite3_column_int64(st, 6);
	return 0;
}

static int on_nvtx(struct kgt_reader *r, sqlite3_stmt *st)
{
	uint32_t p = proc_of(r, sqlite3_column_int64(st, 0));
	if (p == KG_NONE)
		return 0;
	struct kg_range *g = model_add_range(r->m);
	if (!g)
		return oom(r);
	g->process = p;
	g->thread = model_thread_index(r->m, p, (uint64_t)sqlite3_column_int64(st, 1));
	g->domain = str_of(r, sqlite3_column_int64(st, 2));
	g->name = str_of(r, sqlite3_column_int64(st, 3));
	g->start = time_col(st, 4);
	g->end = time_col(st, 5);
	return 0;
}

/* One integer from sql (0 when NULL or no row). */
static int one_int(struct kgt_reader *r, const char *sql, const char *what, int64_t *out)
{
	sqlite3_stmt *st;
	*out = 0;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return read_error(r, what);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : read_error(r, what);
}

/* The smallest and largest value of a table's integer key; 0 when empty. Two queries: a
 * query with both MIN and MAX scans the table, one with either reads a single page. */
static int id_range(struct kgt_reader *r, const char *table, int64_t *lo, int64_t *hi)
{
	char sql[96];
	snprintf(sql, sizeof(sql), "SELECT MIN(rowid) FROM %s", table);
	int rc = one_int(r, sql, table, lo);
	snprintf(sql, sizeof(sql), "SELECT MAX(rowid) FROM %s", table);
	return rc ? rc : one_int(r, sql, table, hi);
}

/* Rows a table can hold at most, from its ids (so a guess when ids are sparse). */
static uint64_t id_span(int64_t lo, int64_t hi)
{
	return hi >= lo && hi - lo < INT32_MAX ? (uint64_t)(hi - lo) + 1 : 0;
}

static void progress(struct kgt_reader *r, double f)
{
	if (r->opts && r->opts->progress)
		r->opts->progress(f, r->opts->progress_arg);
}

/* ------------------------------------------------------------------ kernels, in parallel */

/* The kernel table is most of a big trace, so two threads read it, each with its own
 * connection, taking units in turn: packed blocks when the trace has usable ones
 * (trace/packed.h), else chunks of ids read as rows. A unit's ops go to its own slice of
 * the reserved ops array, so the model keeps the table's order; skipped rows leave holes
 * at the ends of slices, closed afterwards. The model's streams and devices, which both
 * threads need, are only touched under a lock, behind a per-thread cache that answers
 * all but the first row of each stream. */
#define KERNEL_CHUNK 16384
#define STREAM_CACHE 64 /* per thread, direct-mapped */

struct block_ref {
	int64_t first_id;
	uint32_t rows;
	uint32_t slice;        /* ops index of its slice, from the scan's base */
};

struct kernel_scan {
	struct kgt_reader *r;  /* the main reader: its model's streams and devices, under lock */
	pthread_mutex_t lock;
	atomic_uint next;      /* next unit to take */
	atomic_int failed;     /* a thread met an error: the other stops too */
	uint32_t nunits;
	uint32_t base;         /* ops index of the first slice */
	uint32_t *filled;      /* ops written in each unit's slice */
	int64_t lo;            /* rows: first id; unit u is ids lo + u * KERNEL_CHUNK ... */
	struct block_ref *blocks; /* packed: unit u is blocks[u] */
};

struct stream_memo {
	int64_t process, device, stream;
	uint32_t context;
	uint32_t index;        /* model stream index; KG_NONE = slot unused */
	int has_channel;
};

struct kernel_worker {
	struct kernel_scan *scan;
	struct kgt_reader r;   /* own connection and error text */
	sqlite3_stmt *st;      /* this thread's statement for a unit */
	struct stream_memo memo[STREAM_CACHE];
	char err[512];
	int rc;
};

/* The stream of a kernel row: from the cache, else resolved under the lock. */
static uint32_t worker_stream(struct kernel_worker *w, const struct kg_row *row, int *no_memory)
{
	int64_t process = row->v[COL_PROCESS], device = row->v[COL_DEVICE];
	uint32_t context = (uint32_t)row->v[COL_CONTEXT];
	int64_t stream = row->v[COL_STREAM];
	uint64_t h = idmap_mix((uint64_t)stream * 31 + (uint64_t)context * 7 + (uint64_t)device +
			       ((uint64_t)process << 40));
	struct stream_memo *c = &w->memo[h % STREAM_CACHE];
	if (c->index != KG_NONE && c->process == process && c->device == device &&
	    c->context == context && c->stream == stream &&
	    (c->has_channel || row_is_null(row, COL_CHANNEL)))
		return c->index;
	/* new here, or the first row that tells the stream's channel */
	struct kernel_scan *k = w->scan;
	pthread_mutex_lock(&k->lock);
	uint64_t skipped = k->r->skipped;
	uint32_t s = row_stream(k->r, row, no_memory);
	w->r.skipped += k->r->skipped - skipped;
	k->r->skipped = skipped;
	int has_channel = s != KG_NONE && k->r->m->streams[s].channel >= 0;
	pthread_mutex_unlock(&k->lock);
	if (s != KG_NONE)
		*c = (struct stream_memo){process, device, stream, context, s, has_channel};
	return s;
}

/* Adds the kernel of row to the slice; 0, or an error. */
static int slice_kernel(struct kernel_worker *w, const struct kg_row *row, struct kg_op *slice,
			uint32_t *n)
{
	if (!ran(row))
		return 0;
	int no_memory = 0;
	uint32_t stream = worker_stream(w, row, &no_memory);
	if (no_memory)
		return oom(&w->r);
	if (stream == KG_NONE)
		return 0;
	struct kg_op *o = &slice[(*n)++];
	model_op_init(o);
	op_common(o, row, KG_OP_KERNEL, stream);
	kernel_fields(&w->r, row, o);
	return 0;
}

static int scan_chunk(struct kernel_worker *w, uint32_t unit, struct kg_op *slice, uint32_t *n)
{
	int64_t first = w->scan->lo + (int64_t)unit * KERNEL_CHUNK;
	sqlite3_bind_int64(w->st, 1, first);
	sqlite3_bind_int64(w->st, 2, first + KERNEL_CHUNK - 1);
	struct kg_row row;
	int rc, err = 0;
	while (!err && (rc = sqlite3_step(w->st)) == SQLITE_ROW && *n < KERNEL_CHUNK) {
		row_from_stmt(&row, w->st, K_COLUMNS);
		err = slice_kernel(w, &row, slice, n);
	}
	sqlite3_reset(w->st);
	return err ? err : rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : read_error(&w->r, "kernels");
}

static int damaged(struct kgt_reader *r, const char *table, int64_t first_id)
{
	snprintf(r->err, r->errlen,
		 "'%s': the packed %s block at id %lld is damaged (the rows themselves are read "
		 "instead; 'kgantt pack' rebuilds the blocks)",
		 r->path, table, (long long)first_id);
	return -EBADMSG;
}

/* Decodes one packed block of st's current row (data in column 0). */
static int decode_block(struct kgt_reader *r, sqlite3_stmt *st, const char *table, int ncolumns,
			const struct block_ref *b, int (*each)(void *, const struct kg_row *),
			void *arg)
{
	struct kg_packed_block pb;
	const void *data = sqlite3_column_blob(st, 0);
	size_t len = (size_t)sqlite3_column_bytes(st, 0);
	if (packed_block_open(&pb, data, len, ncolumns, b->rows) < 0)
		return damaged(r, table, b->first_id);
	struct kg_row row;
	int got, err = 0;
	while (!err && (got = packed_block_row(&pb, &row)) == 1)
		err = each(arg, &row);
	if (!err && got < 0)
		return damaged(r, table, b->first_id);
	return err;
}

struct slice_fill {
	struct kernel_worker *w;
	struct kg_op *slice;
	uint32_t n, cap;
};

static int fill_slice(void *arg, const struct kg_row *row)
{
	struct slice_fill *f = arg;
	if (f->n >= f->cap)
		return damaged(&f->w->r, "kernels", 0);
	return slice_kernel(f->w, row, f->slice, &f->n);
}

static int scan_block(struct kernel_worker *w, uint32_t unit, struct kg_op *slice, uint32_t *n)
{
	const struct block_ref *b = &w->scan->blocks[unit];
	sqlite3_bind_int64(w->st, 1, b->first_id);
	int rc = sqlite3_step(w->st);
	struct slice_fill f = {w, slice, 0, b->rows};
	int err = rc == SQLITE_ROW ? decode_block(&w->r, w->st, "kernels", K_COLUMNS, b, fill_slice, &f)
		  : rc == SQLITE_DONE ? damaged(&w->r, "kernels", b->first_id)
				      : read_error(&w->r, "packed kernels");
	sqlite3_reset(w->st);
	*n = f.n;
	return err;
}

static int scan_unit(struct kernel_worker *w, uint32_t unit)
{
	struct kernel_scan *k = w->scan;
	uint32_t n = 0;
	size_t at = k->blocks ? k->blocks[unit].slice : (size_t)unit * KERNEL_CHUNK;
	struct kg_op *slice = k->r->m->ops + k->base + at;
	int rc = k->blocks ? scan_block(w, unit, slice, &n) : scan_chunk(w, unit, slice, &n);
	k->filled[unit] = n;
	return rc;
}

static void scan_kernels(struct kernel_worker *w)
{
	struct kernel_scan *k = w->scan;
	char sql[512];
	for (int i = 0; i < STREAM_CACHE; i++)
		w->memo[i].index = KG_NONE;
	if (k->blocks)
		snprintf(sql, sizeof(sql),
			 "SELECT data FROM packed WHERE tbl = 'kernels' AND first_id = ?1");
	else
		snprintf(sql, sizeof(sql), "SELECT %s FROM kernels WHERE rowid BETWEEN ?1 AND ?2",
			 packed_table("kernels")->columns);
	if (sqlite3_prepare_v2(w->r.db, sql, -1, &w->st, NULL) != SQLITE_OK) {
		w->rc = read_error(&w->r, "kernels");
		atomic_store(&k->failed, 1);
		return;
	}
	for (uint32_t u; !atomic_load(&k->failed) && (u = atomic_fetch_add(&k->next, 1)) < k->nunits;) {
		if ((w->rc = scan_unit(w, u)) != 0)
			atomic_store(&k->failed, 1);
		if (w->r.db == k->r->db && u % 8 == 0)
			progress(k->r, 0.05 + 0.8 * u / k->nunits);
	}
	sqlite3_finalize(w->st);
	w->st = NULL;
}

/* Closes the holes skipped rows left and counts the ops in. */
static void close_holes(struct kernel_scan *k)
{
	struct kg_model *m = k->r->m;
	uint32_t n = k->base;
	for (uint32_t u = 0; u < k->nunits; u++) {
		size_t at = k->blocks ? k->blocks[u].slice : (size_t)u * KERNEL_CHUNK;
		struct kg_op *slice = m->ops + k->base + at;
		if (m->ops + n != slice)
			memmove(m->ops + n, slice, (size_t)k->filled[u] * sizeof(*slice));
		n += k->filled[u];
	}
	m->n_ops = n;
}

/* ------------------------------------------------------------------ API calls */

struct api_fill {
	struct kgt_reader *r;
};

static int fill_api(void *arg, const struct kg_row *row)
{
	return on_api(((struct api_fill *)arg)->r, row);
}

/* The packed blocks of api_calls, in id order. */
static int read_api_blocks(struct kgt_reader *r)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT data, first_id, rows FROM packed WHERE tbl = 'api_calls' "
			       "ORDER BY first_id",
			       -1, &st, NULL) != SQLITE_OK)
		return read_error(r, "packed api_calls");
	struct api_fill f = {r};
	int rc, err = 0;
	int64_t last = INT64_MIN;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct block_ref b = {sqlite3_column_int64(st, 1), (uint32_t)sqlite3_column_int64(st, 2),
				      0};
		if (b.first_id <= last || sqlite3_column_int64(st, 2) > KG_PACKED_BLOCK)
			err = damaged(r, "api_calls", b.first_id);
		else
			err = decode_block(r, st, "api_calls", 7, &b, fill_api, &f);
		last = b.first_id;
	}
	if (!err && rc != SQLITE_DONE)
		err = read_error(r, "packed api_calls");
	sqlite3_finalize(st);
	return err;
}

static int read_apis(struct kgt_reader *r, int packed)
{
	if (packed)
		return read_api_blocks(r);
	char sql[256];
	snprintf(sql, sizeof(sql), "SELECT %s FROM api_calls", packed_table("api_calls")->columns);
	return each_op_row(r, sql, "api_calls", 7, on_api);
}

/* ------------------------------------------------------------------ the two threads */

/* The second thread: the API calls first (their own part of the model), then kernel
 * units alongside the first thread until none is left. */
struct helper_job {
	struct kernel_worker w;
	int scan;              /* 1: take kernel units after the API calls */
	int packed_apis;
	int api_rc;
};

static void *helper_main(void *arg)
{
	struct helper_job *j = arg;
	struct kernel_worker *w = &j->w;
	w->r.err = w->err;
	w->r.errlen = sizeof(w->err);
	int rc = sqlite3_open_v2(w->r.path, &w->r.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
				 NULL) == SQLITE_OK
			 ? 0
			 : read_error(&w->r, "second connection");
	if (!rc)
		rc = read_apis(&w->r, j->packed_apis);
	j->api_rc = rc;
	if (rc)
		atomic_store(&w->scan->failed, 1);
	else if (j->scan)
		scan_kernels(w);
	sqlite3_close(w->r.db);
	return NULL;
}

/* The packed kernel blocks, with the slice each gets; 0, or 1 when they do not cover the
 * table as packed_usable promised (then the rows are read), or -ENOMEM. */
static int list_blocks(struct kgt_reader *r, struct kernel_scan *k)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT first_id, last_id, rows FROM packed WHERE tbl = 'kernels' "
			       "ORDER BY first_id",
			       -1, &st, NULL) != SQLITE_OK)
		return 1;
	uint32_t cap = 0;
	uint64_t total = 0;
	int64_t last = INT64_MIN;
	int rc = 0;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		int64_t first = sqlite3_column_int64(st, 0), rows = sqlite3_column_int64(st, 2);
		if (first <= last || rows <= 0 || rows > KG_PACKED_BLOCK) {
			rc = 1;
			break;
		}
		last = sqlite3_column_int64(st, 1);
		if (k->nunits == cap) {
			cap = cap ? cap * 2 : 64;
			struct block_ref *b = realloc(k->blocks, cap * sizeof(*b));
			if (!b) {
				rc = -ENOMEM;
				break;
			}
			k->blocks = b;
		}
		k->blocks[k->nunits++] = (struct block_ref){first, (uint32_t)rows, (uint32_t)total};
		total += (uint64_t)rows;
		if (total >= INT32_MAX)
			rc = 1;
	}
	sqlite3_finalize(st);
	if (rc) {
		free(k->blocks);
		k->blocks = NULL;
		k->nunits = 0;
	}
	return rc < 0 ? oom(r) : rc;
}

/* How the kernels will be read: packed blocks or chunks of ids (units, *slots = room they
 * need), or neither (0 units: read as rows, one thread). */
static int plan_kernels(struct kgt_reader *r, struct kernel_scan *k, int packed, uint64_t *slots)
{
	*slots = 0;
	if (packed) {
		int rc = list_blocks(r, k);
		if (rc <= 0) {
			for (uint32_t u = 0; u < k->nunits; u++)
				*slots += k->blocks[u].rows;
			return rc;
		}
	}
	int64_t lo, hi;
	int rc = id_range(r, "kernels", &lo, &hi);
	uint64_t span = id_span(lo, hi);
	k->lo = lo;
	k->nunits = (uint32_t)((span + KERNEL_CHUNK - 1) / KERNEL_CHUNK);
	*slots = (uint64_t)k->nunits * KERNEL_CHUNK;
	return rc;
}

/* Room in the model for every row: the kernel slices, then copies and calls by their
 * largest id. Without room for slices (ids too sparse) the kernels are read as rows. */
static int reserve_rows(struct kgt_reader *r, struct kernel_scan *k, uint64_t slots)
{
	int64_t lo, hi;
	uint64_t apis, other = 0;
	int rc = id_range(r, "memcpys", &lo, &hi);
	other += hi > 0 ? (uint64_t)hi : 0;
	if (!rc)
		rc = id_range(r, "memsets", &lo, &hi);
	other += hi > 0 ? (uint64_t)hi : 0;
	if (!rc)
		rc = id_range(r, "api_calls", &lo, &hi);
	apis = hi > 0 && hi < INT32_MAX ? (uint64_t)hi : 0;
	if (rc)
		return rc;
	if (other > INT32_MAX)
		other = 0;
	if (slots + other + r->m->n_ops + 1 < INT32_MAX &&
	    model_reserve(r->m, (uint32_t)(r->m->n_ops + slots + other + 1), (uint32_t)apis + 1) == 0)
		return 0;
	k->nunits = 0; /* no room: rows, one by one */
	return model_reserve(r->m, 0, (uint32_t)apis + 1) < 0 ? oom(r) : 0;
}

/* The kernels and the API calls, on two threads unless opts say one. */
static int read_kernels_and_apis(struct kgt_reader *r, int packed_kernels, int packed_apis)
{
	struct kernel_scan k = {.r = r, .base = r->m->n_ops};
	uint64_t slots;
	int rc = plan_kernels(r, &k, packed_kernels, &slots);
	if (!rc)
		rc = reserve_rows(r, &k, slots);
	if (!rc && k.nunits && !(k.filled = calloc(k.nunits, sizeof(*k.filled))))
		rc = oom(r);
	if (rc) {
		free(k.blocks);
		return rc;
	}
	pthread_mutex_init(&k.lock, NULL);
	struct helper_job job = {.w = {.scan = &k, .r = *r}, .scan = k.nunits > 0,
				 .packed_apis = packed_apis};
	job.w.r.skipped = 0;
	pthread_t helper;
	int threaded = !(r->opts && r->opts->one_thread) &&
		       pthread_create(&helper, NULL, helper_main, &job) == 0;
	struct kernel_worker self = {.scan = &k, .r = *r};
	self.r.err = self.err;
	self.r.errlen = sizeof(self.err);
	self.r.skipped = 0;
	if (k.nunits) {
		scan_kernels(&self);
	} else {
		char sql[512];
		snprintf(sql, sizeof(sql), "SELECT %s FROM kernels", packed_table("kernels")->columns);
		self.rc = each_op_row(&self.r, sql, "kernels", K_COLUMNS, on_kernel);
	}
	if (threaded)
		pthread_join(helper, NULL);
	else if (!self.rc)
		job.api_rc = read_apis(&self.r, packed_apis);
	pthread_mutex_destroy(&k.lock);
	rc = self.rc ? self.rc : job.api_rc ? job.api_rc : job.w.rc;
	const char *msg = self.rc ? self.err : job.api_rc || job.w.rc ? job.w.err : NULL;
	if (!threaded && job.api_rc)
		msg = self.err;
	if (msg)
		snprintf(r->err, r->errlen, "%s", msg);
	if (!rc && k.nunits)
		close_holes(&k);
	r->skipped += self.r.skipped + job.w.r.skipped;
	free(k.filled);
	free(k.blocks);
	return rc;
}

/* Packed blocks when the trace has usable ones; damaged blocks mean reading the rows. */
static int read_bulk(struct kgt_reader *r)
{
	int64_t rows;
	int rows_only = r->opts && r->opts->rows_only;
	int pk = !rows_only && packed_usable(r->db, "kernels", &rows);
	int pa = !rows_only && packed_usable(r->db, "api_calls", &rows);
	uint32_t n_ops = r->m->n_ops, n_apis = r->m->n_apis;
	uint64_t skipped = r->skipped;
	int rc = read_kernels_and_apis(r, pk, pa);
	if (rc != -EBADMSG)
		return rc;
	model_note(r->m, "%s", r->err);
	r->m->n_ops = n_ops;
	r->m->n_apis = n_apis;
	r->skipped = skipped;
	return read_kernels_and_apis(r, 0, 0);
}

static int read_all(struct kgt_reader *r)
{
	char command[4096];
	int rc = load_strings(r);
	trace_db_meta(r->db, "command", command, sizeof(command));
	r->m->command = model_string(r->m, command);
	if (!rc)
		rc = each_row(r,
			      "SELECT process, pid, ppid, host, cmdline, rank, complete, exit_status, "
			      "dropped_records, incomplete_records, start_ns, end_ns FROM processes "
			      "ORDER BY process",
			      "processes", on_process);
	if (!rc) {
		r->dev = malloc(((size_t)r->m->n_processes + 1) * MAX_ORDINALS * sizeof(*r->dev));
		if (!r->dev)
			return oom(r);
		memset(r->dev, 0xff, ((size_t)r->m->n_processes + 1) * MAX_ORDINALS * sizeof(*r->dev));
	}
	if (!rc)
		rc = each_row(r,
			      "SELECT process, device, name, uuid, sm_count, max_warps_per_sm, "
			      "max_blocks_per_sm, max_threads_per_block, max_regs_per_sm, "
			      "max_regs_per_block, max_smem_per_sm, max_smem_per_block, cc_major, "
			      "cc_minor, memory_bytes FROM devices ORDER BY process, device",
			      "devices", on_device);
	if (!rc)
		rc = each_row(r,
			      "SELECT s.process, s.context, s.stream, s.priority, s.flags, c.device, "
			      "c.null_stream FROM streams s JOIN contexts c USING(process, context)",
			      "streams", on_stream);
	progress(r, 0.05);
	if (!rc)
		rc = read_bulk(r);
	progress(r, 0.85);
	if (!rc)
		rc = each_op_row(r,
				 "SELECT " OP_COLUMNS ", copy_kind, src_kind, dst_kind, bytes, async, "
				 "graph FROM memcpys",
				 "memcpys", C_COLUMNS, on_memcpy);
	if (!rc)
		rc = each_op_row(r,
				 "SELECT " OP_COLUMNS ", memory_kind, bytes, async, graph FROM memsets",
				 "memsets", S_COLUMNS, on_memset);
	progress(r, 0.9);
	if (!rc)
		rc = each_row(r,
			      "SELECT y.process, y.type, y.context, y.stream, y.start, y.end, "
			      "y.correlation, c.device FROM syncs y LEFT JOIN contexts c "
			      "USING(process, context)",
			      "syncs", on_sync);
	if (!rc)
		rc = each_row(r, "SELECT process, thread, domain, name, start, end FROM nvtx", "nvtx",
			      on_nvtx);
	progress(r, 1.0);
	return rc;
}

int read_kgt(struct kg_model *m, const char *path, const struct kg_load_opts *opts, char *err,
	     size_t errlen)
{
	struct kgt_reader r = {.m = m, .path = path, .err = err, .errlen = errlen, .opts = opts};
	int rc = trace_db_open(path, &r.db, err, errlen);
	if (rc < 0)
		return rc;
	rc = read_all(&r);
	if (!rc && r.skipped)
		model_note(m, "%llu operations name no known process or device and were skipped",
			   (unsigned long long)r.skipped);
	sqlite3_close(r.db);
	free(r.str);
	free(r.proc);
	free(r.dev);
	return rc;
}
