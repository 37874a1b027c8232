/* kgantt's own trace (SQLite, docs/trace-format.md) → the model. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/load.h"
#include "trace/trace_db.h"

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

static int64_t time_col(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? KG_NO_TIME
							  : sqlite3_column_int64(st, col);
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

/* Common to kernels, memcpys, memsets: columns 0..5 are process, device, context, stream,
 * correlation, incomplete; 6, 7 start, end; 8 channel. */
static struct kg_op *new_op(struct kgt_reader *r, sqlite3_stmt *st, enum kg_op_kind kind)
{
	uint32_t p = proc_of(r, sqlite3_column_int64(st, 0));
	uint32_t d = device_of(r, p, sqlite3_column_int64(st, 1));
	if (d == KG_NONE) {
		r->skipped++;
		return NULL;
	}
	uint32_t s = model_stream_index(r->m, p, d, (uint32_t)sqlite3_column_int64(st, 2),
					 sqlite3_column_int64(st, 3));
	if (s == KG_NONE)
		return NULL;
	struct kg_op *o = model_add_op(r->m);
	if (!o)
		return NULL;
	o->kind = (uint8_t)kind;
	o->stream = s;
	o->correlation = (uint32_t)sqlite3_column_int64(st, 4);
	if (sqlite3_column_int(st, 5))
		o->flags |= KG_OPF_INCOMPLETE;
	o->start = time_col(st, 6);
	o->end = time_col(st, 7);
	if (r->m->streams[s].channel < 0 && sqlite3_column_type(st, 8) != SQLITE_NULL)
		r->m->streams[s].channel = sqlite3_column_int(st, 8);
	return o;
}

static int on_kernel(struct kgt_reader *r, sqlite3_stmt *st)
{
	if (sqlite3_column_type(st, 6) == SQLITE_NULL || sqlite3_column_type(st, 7) == SQLITE_NULL)
		return 0; /* never ran within the recording: nothing to draw or measure */
	struct kg_op *o = new_op(r, st, KG_OP_KERNEL);
	if (!o)
		return 0;
	o->name = str_of(r, sqlite3_column_int64(st, 9));
	o->queued = time_col(st, 10);
	o->submitted = time_col(st, 11);
	for (int i = 0; i < 3; i++) {
		o->grid[i] = (uint32_t)sqlite3_column_int(st, 12 + i);
		o->block[i] = (uint32_t)sqlite3_column_int(st, 15 + i);
	}
	o->regs = (uint16_t)sqlite3_column_int(st, 18);
	o->smem_static = (uint32_t)sqlite3_column_int(st, 19);
	o->smem_dynamic = (uint32_t)sqlite3_column_int(st, 20);
	o->smem_config = (uint32_t)sqlite3_column_int(st, 21);
	if (sqlite3_column_type(st, 22) != SQLITE_NULL) {
		o->graph = (uint32_t)sqlite3_column_int64(st, 22);
		o->flags |= KG_OPF_GRAPH;
	}
	if (sqlite3_column_int(st, 23))
		o->flags |= KG_OPF_DEVICE_LAUNCHED;
	return 0;
}

static int on_memcpy(struct kgt_reader *r, sqlite3_stmt *st)
{
	if (sqlite3_column_type(st, 6) == SQLITE_NULL || sqlite3_column_type(st, 7) == SQLITE_NULL)
		return 0;
	struct kg_op *o = new_op(r, st, KG_OP_MEMCPY);
	if (!o)
		return 0;
	o->copy_kind = (uint8_t)sqlite3_column_int(st, 9);
	o->src_kind = (uint8_t)sqlite3_column_int(st, 10);
	o->dst_kind = (uint8_t)sqlite3_column_int(st, 11);
	o->bytes = (uint64_t)sqlite3_column_int64(st, 12);
	if (sqlite3_column_int(st, 13))
		o->flags |= KG_OPF_ASYNC;
	if (sqlite3_column_type(st, 14) != SQLITE_NULL) {
		o->graph = (uint32_t)sqlite3_column_int64(st, 14);
		o->flags |= KG_OPF_GRAPH;
	}
	o->name = model_copy_label(r->m, o);
	return 0;
}

static int on_memset(struct kgt_reader *r, sqlite3_stmt *st)
{
	if (sqlite3_column_type(st, 6) == SQLITE_NULL || sqlite3_column_type(st, 7) == SQLITE_NULL)
		return 0;
	struct kg_op *o = new_op(r, st, KG_OP_MEMSET);
	if (!o)
		return 0;
	o->dst_kind = (uint8_t)sqlite3_column_int(st, 9);
	o->bytes = (uint64_t)sqlite3_column_int64(st, 10);
	if (sqlite3_column_int(st, 11))
		o->flags |= KG_OPF_ASYNC;
	if (sqlite3_column_type(st, 12) != SQLITE_NULL) {
		o->graph = (uint32_t)sqlite3_column_int64(st, 12);
		o->flags |= KG_OPF_GRAPH;
	}
	o->name = model_copy_label(r->m, o);
	return 0;
}

static int on_api(struct kgt_reader *r, sqlite3_stmt *st)
{
	uint32_t p = proc_of(r, sqlite3_column_int64(st, 0));
	if (p == KG_NONE || sqlite3_column_type(st, 4) == SQLITE_NULL)
		return 0;
	struct kg_api *a = model_add_api(r->m);
	if (!a)
		return oom(r);
	a->process = p;
	a->thread = model_thread_index(r->m, p, (uint64_t)sqlite3_column_int64(st, 1));
	a->driver = sqlite3_column_int(st, 2) == 2;
	a->name = str_of(r, sqlite3_column_int64(st, 3));
	a->start = time_col(st, 4);
	a->end = time_col(st, 5);
	if (a->end == KG_NO_TIME)
		a->end = a->start;
	a->correlation = (uint32_t)sqlite3_column_int64(st, 6);
	return 0;
}

static int on_sync(struct kgt_reader *r, sqlite3_stmt *st)
{
	/* process, type, context, stream, start, end, correlation, device */
	uint32_t p = proc_of(r, sqlite3_column_int64(st, 0));
	if (p == KG_NONE || sqlite3_column_type(st, 4) == SQLITE_NULL ||
	    sqlite3_column_type(st, 5) == SQLITE_NULL)
		return 0;
	struct kg_sync *y = model_add_sync(r->m);
	if (!y)
		return oom(r);
	y->process = p;
	y->kind = (uint8_t)sqlite3_column_int(st, 1);
	if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
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

static int64_t count_rows(struct kgt_reader *r, const char *table)
{
	char sql[96];
	sqlite3_stmt *st;
	int64_t n = 0;
	snprintf(sql, sizeof(sql), "SELECT MAX(rowid) FROM %s", table); /* O(log n), unlike COUNT */
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n > 0 && n < INT32_MAX ? n : 0;
}

static int reserve_rows(struct kgt_reader *r)
{
	int64_t ops = count_rows(r, "kernels") + count_rows(r, "memcpys") + count_rows(r, "memsets");
	int64_t apis = count_rows(r, "api_calls");
	if (ops > INT32_MAX - 1)
		ops = 0;
	return model_reserve(r->m, (uint32_t)ops + 1, (uint32_t)apis + 1) < 0 ? oom(r) : 0;
}

static void progress(struct kgt_reader *r, double f)
{
	if (r->opts && r->opts->progress)
		r->opts->progress(f, r->opts->progress_arg);
}

/* The API calls are read on a second thread with its own connection while this one reads
 * the GPU operations: on a million-kernel trace the two tables are most of the load
 * time, and they touch disjoint parts of the model (model_reserve says which). */
struct api_job {
	struct kgt_reader r;
	char err[512];
	int rc;
};

static void *read_apis(void *arg)
{
	struct api_job *j = arg;
	j->r.err = j->err;
	j->r.errlen = sizeof(j->err);
	if (sqlite3_open_v2(j->r.path, &j->r.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		j->rc = read_error(&j->r, "api_calls");
	} else {
		j->rc = each_row(&j->r,
				 "SELECT process, thread, domain, name, start, end, correlation "
				 "FROM api_calls",
				 "api_calls", on_api);
	}
	sqlite3_close(j->r.db);
	return NULL;
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
		rc = reserve_rows(r);
	struct api_job job = {.r = *r};
	pthread_t api_thread;
	int threaded = !rc && pthread_create(&api_thread, NULL, read_apis, &job) == 0;
	if (!rc)
		rc = each_row(r,
			      "SELECT process, device, context, stream, correlation, incomplete, start, "
			      "end, channel, demangled, queued, submitted, grid_x, grid_y, grid_z, "
			      "block_x, block_y, block_z, registers_per_thread, static_smem, "
			      "dynamic_smem, shared_mem_executed, graph, device_launched FROM kernels",
			      "kernels", on_kernel);
	progress(r, 0.5);
	if (!rc)
		rc = each_row(r,
			      "SELECT process, device, context, stream, correlation, incomplete, start, "
			      "end, channel, copy_kind, src_kind, dst_kind, bytes, async, graph "
			      "FROM memcpys",
			      "memcpys", on_memcpy);
	if (!rc)
		rc = each_row(r,
			      "SELECT process, device, context, stream, correlation, incomplete, start, "
			      "end, channel, memory_kind, bytes, async, graph FROM memsets",
			      "memsets", on_memset);
	if (threaded) {
		pthread_join(api_thread, NULL);
		if (!rc && job.rc) {
			snprintf(r->err, r->errlen, "%s", job.err);
			rc = job.rc;
		}
	} else if (!rc) {
		rc = each_row(r,
			      "SELECT process, thread, domain, name, start, end, correlation "
			      "FROM api_calls",
			      "api_calls", on_api);
	}
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
