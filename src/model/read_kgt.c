/* kgantt's own trace (SQLite, docs/trace-format.md) → the model. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kgt_reader.h"
#include "model/load.h"
#include "trace/packed.h"
#include "trace/trace_db.h"
#include "util/idmap.h"

int kgt_read_error(struct kgt_reader *r, const char *what)
{
	snprintf(r->err, r->errlen, "cannot read '%s' (%s): %s", r->path, what,
		 sqlite3_errmsg(r->db));
	return -EIO;
}

int kgt_oom(struct kgt_reader *r)
{
	snprintf(r->err, r->errlen, "out of memory reading '%s'", r->path);
	return -ENOMEM;
}

uint32_t kgt_str_of(const struct kgt_reader *r, sqlite3_int64 id)
{
	if (r->str)
		return id > 0 && (size_t)id < r->nstr ? r->str[id] : 0;
	uint32_t v = id > 0 ? idmap_get(&r->strmap, (uint64_t)id) : KG_IDMAP_NONE;
	return v == KG_IDMAP_NONE ? 0 : v;
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
		return kgt_read_error(r, what);
	int rc, err = 0;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW)
		err = row(r, st);
	if (!err && rc != SQLITE_DONE)
		err = kgt_read_error(r, what);
	sqlite3_finalize(st);
	return err;
}

int kgt_each_device_row(struct kgt_reader *r, const char *sql, const char *what,
			uint64_t *skipped,
			int (*row)(struct kgt_reader *, sqlite3_stmt *, uint32_t device))
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return kgt_read_error(r, what);
	int rc, err = 0;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint32_t p = kgt_proc_of(r, sqlite3_column_int64(st, 0));
		uint32_t dev = kgt_device_of(r, p, sqlite3_column_int64(st, 1));
		if (dev == KG_NONE) {
			if (skipped)
				(*skipped)++;
			continue;
		}
		err = row(r, st, dev);
	}
	if (!err && rc != SQLITE_DONE)
		err = kgt_read_error(r, what);
	sqlite3_finalize(st);
	return err;
}

/* Trace string id → model string id. Writers number strings 1, 2, 3...: an array by id,
 * unless the ids are sparse (an edited or damaged file), where an array would be sized by
 * the largest id, not by the strings there are (4 bytes per id: a 1 KB file could ask
 * for gigabytes); then a hash map of the ids present. */
static int load_strings(struct kgt_reader *r)
{
	int64_t max = 0, count = 0;
	if (trace_db_int(r->db, "SELECT MAX(id) FROM strings", NULL, &max) != SQLITE_OK ||
	    trace_db_int(r->db, "SELECT COUNT(*) FROM strings", NULL, &count) != SQLITE_OK)
		return kgt_read_error(r, "strings");
	if (max >= 0 && max <= 2 * count + 1024) {
		r->nstr = (size_t)max + 1;
		if (!(r->str = calloc(r->nstr, sizeof(*r->str))))
			return kgt_oom(r);
	} else if (idmap_reserve(&r->strmap, (size_t)count) < 0) {
		return kgt_oom(r);
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, "SELECT id, text FROM strings", -1, &st, NULL) != SQLITE_OK)
		return kgt_read_error(r, "strings");
	int rc, err = 0;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		sqlite3_int64 id = sqlite3_column_int64(st, 0);
		if (id <= 0)
			continue;
		if (r->str) {
			if (id <= max)
				r->str[id] = text_col(r->m, st, 1);
		} else {
			uint32_t *slot = idmap_slot(&r->strmap, (uint64_t)id);
			if (!slot)
				err = kgt_oom(r);
			else
				*slot = text_col(r->m, st, 1);
		}
	}
	sqlite3_finalize(st);
	if (err)
		return err;
	return rc == SQLITE_DONE ? 0 : kgt_read_error(r, "strings");
}

static int on_process(struct kgt_reader *r, sqlite3_stmt *st)
{
	sqlite3_int64 num = sqlite3_column_int64(st, 0);
	if (num <= 0 || num > 1000000)
		return kgt_read_error(r, "processes: bad process number");
	if ((size_t)num >= r->nproc) {
		size_t n = (size_t)num + 16;
		uint32_t *p = realloc(r->proc, n * sizeof(*p));
		if (!p)
			return kgt_oom(r);
		for (size_t i = r->nproc; i < n; i++)
			p[i] = KG_NONE;
		r->proc = p;
		r->nproc = n;
	}
	struct kg_process *p = model_add_process(r->m);
	if (!p)
		return kgt_oom(r);
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
	p->realtime_offset = time_col(st, 12);
	return 0;
}

uint32_t kgt_proc_of(const struct kgt_reader *r, sqlite3_int64 num)
{
	return num > 0 && (size_t)num < r->nproc ? r->proc[num] : KG_NONE;
}

static int on_device(struct kgt_reader *r, sqlite3_stmt *st)
{
	uint32_t p = kgt_proc_of(r, sqlite3_column_int64(st, 0));
	sqlite3_int64 ord = sqlite3_column_int64(st, 1);
	if (p == KG_NONE || ord < 0 || ord >= MAX_ORDINALS)
		return 0; /* a device of no known process: nothing can refer to it */
	struct kg_device *d = model_add_device(r->m);
	if (!d)
		return kgt_oom(r);
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

uint32_t kgt_device_of(struct kgt_reader *r, uint32_t process, int64_t ordinal)
{
	return device_of(r, process, ordinal);
}

static int on_stream(struct kgt_reader *r, sqlite3_stmt *st)
{
	/* process, context, stream, priority, flags, device, null_stream */
	uint32_t p = kgt_proc_of(r, sqlite3_column_int64(st, 0));
	uint32_t d = device_of(r, p, sqlite3_column_int64(st, 5));
	if (d == KG_NONE)
		return 0;
	uint32_t ctx = (uint32_t)sqlite3_column_int64(st, 1);
	int64_t id = sqlite3_column_int64(st, 2);
	uint32_t s = model_stream_index(r->m, p, d, ctx, id);
	if (s == KG_NONE)
		return kgt_oom(r);
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

/* Runs sql and calls row() with every row of its first ncolumns columns. */
int kgt_each_op_row(struct kgt_reader *r, const char *sql, const char *what, int ncolumns,
		       int (*row)(struct kgt_reader *, const struct kg_row *))
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return kgt_read_error(r, what);
	struct kg_row values;
	int rc, err = 0;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		row_from_stmt(&values, st, ncolumns);
		err = row(r, &values);
	}
	if (!err && rc != SQLITE_DONE)
		err = kgt_read_error(r, what);
	sqlite3_finalize(st);
	return err;
}

/* The stream of the row's (process, device, context, stream); KG_NONE for a device of no
 * known process (counted as skipped), or when out of memory (*no_memory set). */
uint32_t kgt_row_stream(struct kgt_reader *r, const struct kg_row *row, uint64_t *skipped,
			int *no_memory)
{
	uint32_t p = kgt_proc_of(r, row->v[COL_PROCESS]);
	uint32_t d = device_of(r, p, row->v[COL_DEVICE]);
	if (d == KG_NONE) {
		(*skipped)++;
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

void kgt_op_common(struct kg_op *o, const struct kg_row *row, enum kg_op_kind kind,
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
 * measure. INT64_MIN is the model's "unknown" (KG_NO_TIME), so a row holding it has no
 * time either. */
int kgt_ran(const struct kg_row *row)
{
	return !row_is_null(row, COL_START) && !row_is_null(row, COL_END) &&
	       row->v[COL_START] != KG_NO_TIME && row->v[COL_END] != KG_NO_TIME;
}

struct kg_op *kgt_new_op(struct kgt_reader *r, const struct kg_row *row, enum kg_op_kind kind,
			int *err)
{
	int no_memory = 0;
	uint32_t s = kgt_ran(row) ? kgt_row_stream(r, row, &r->skipped, &no_memory) : KG_NONE;
	struct kg_op *o = s == KG_NONE ? NULL : model_add_op(r->m);
	if (o)
		kgt_op_common(o, row, kind, s);
	else if (s != KG_NONE || no_memory)
		*err = kgt_oom(r);
	return o;
}

static int on_memcpy(struct kgt_reader *r, const struct kg_row *row)
{
	int err = 0;
	struct kg_op *o = kgt_new_op(r, row, KG_OP_MEMCPY, &err);
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
	struct kg_op *o = kgt_new_op(r, row, KG_OP_MEMSET, &err);
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

static int on_sync(struct kgt_reader *r, sqlite3_stmt *st)
{
	/* process, type, context, stream, start, end, correlation, device */
	uint32_t p = kgt_proc_of(r, sqlite3_column_int64(st, 0));
	if (p == KG_NONE || time_col(st, 4) == KG_NO_TIME || time_col(st, 5) == KG_NO_TIME)
		return 0;
	struct kg_sync *y = model_add_sync(r->m);
	if (!y)
		return kgt_oom(r);
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
	uint32_t p = kgt_proc_of(r, sqlite3_column_int64(st, 0));
	if (p == KG_NONE || time_col(st, 4) == KG_NO_TIME)
		return 0; /* no process, or no start: nothing to place it by */
	struct kg_range *g = model_add_range(r->m);
	if (!g)
		return kgt_oom(r);
	g->process = p;
	g->thread = model_thread_index(r->m, p, (uint64_t)sqlite3_column_int64(st, 1));
	g->domain = kgt_str_of(r, sqlite3_column_int64(st, 2));
	g->name = kgt_str_of(r, sqlite3_column_int64(st, 3));
	g->start = time_col(st, 4);
	g->end = time_col(st, 5);
	return 0;
}

int kgt_id_range(struct kgt_reader *r, const char *table, int64_t *lo, int64_t *hi)
{
	return trace_db_id_range(r->db, table, lo, hi) == SQLITE_OK ? 0 : kgt_read_error(r, table);
}

/* Rows a table can hold at most, from its ids (so a guess when ids are sparse). */
uint64_t kgt_id_span(int64_t lo, int64_t hi)
{
	return hi >= lo && hi - lo < INT32_MAX ? (uint64_t)(hi - lo) + 1 : 0;
}

void kgt_progress(struct kgt_reader *r, double f)
{
	if (r->opts && r->opts->progress)
		r->opts->progress(f, r->opts->progress_arg);
}

/* The first message the recorder wrote that begins with prefix, into text (size bytes);
 * 0 when there is none. */
static int first_message(struct kgt_reader *r, const char *prefix, char *text, size_t size)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, "SELECT text FROM messages WHERE text LIKE ?1 || '%' "
				      "ORDER BY rowid LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	int found = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0);
	if (found)
		snprintf(text, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return found;
}

/* What the recorder said that the report repeats: that it left trivial API queries out
 * (unless --all-api), and a recording window that never opened (--delay past the
 * program's end, no cudaProfilerStart), which an empty trace's "nothing to show" then
 * gives as its reason: noted first. */
static void note_recorder_messages(struct kgt_reader *r)
{
	char text[sizeof(r->m->notes[0])];
	if (first_message(r, "nothing recorded:", text, sizeof(text)))
		model_note(r->m, "%s", text);
	if (first_message(r, "API calls not recorded", text, sizeof(text)))
		model_note(r->m, "trivial API queries (cudaGetDevice, cudaGetLastError, "
				 "cuCtxGetCurrent...) were not recorded: kgantt record --all-api "
				 "keeps them");
}

/* A process whose recorder could not start (CUPTI refused: another profiler attached, no
 * permission) ran untraced; its first error says why. Kept on the process, so that every
 * command can tell "recording was refused" from "the program did nothing on the GPU". */
static void note_refusals(struct kgt_reader *r)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT process, text FROM messages WHERE level = 'error' ORDER BY rowid",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t p = kgt_proc_of(r, sqlite3_column_int64(st, 0));
		const char *why = (const char *)sqlite3_column_text(st, 1);
		struct kg_process *proc = p != KG_NONE ? &r->m->processes[p] : NULL;
		if (!proc || proc->refused || !why || !*why)
			continue;
		proc->refused = model_string(r->m, why);
		model_note(r->m, "pid %" PRIu32 " was not recorded: %s", proc->pid, why);
	}
	sqlite3_finalize(st);
}

static int read_all(struct kgt_reader *r)
{
	char command[4096];
	int rc = load_strings(r);
	trace_db_meta(r->db, "command", command, sizeof(command));
	r->m->command = model_string(r->m, command);
	char start[32];
	trace_db_meta(r->db, "program_start_ns", start, sizeof(start));
	char *end = NULL;
	long long t = start[0] ? strtoll(start, &end, 10) : 0;
	if (start[0] && end && !*end && t > 0)
		r->m->program_start = t;
	if (!rc)
		rc = each_row(r,
			      "SELECT process, pid, ppid, host, cmdline, rank, complete, exit_status, "
			      "dropped_records, incomplete_records, start_ns, end_ns, realtime_offset_ns "
			      "FROM processes "
			      "ORDER BY process",
			      "processes", on_process);
	if (!rc) {
		r->dev = malloc(((size_t)r->m->n_processes + 1) * MAX_ORDINALS * sizeof(*r->dev));
		if (!r->dev)
			return kgt_oom(r);
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
	kgt_progress(r, 0.05);
	if (!rc)
		note_recorder_messages(r);
	if (!rc)
		note_refusals(r);
	if (!rc)
		rc = kgt_read_bulk(r);
	kgt_progress(r, 0.85);
	if (!rc)
		rc = kgt_each_op_row(r,
				 "SELECT " OP_COLUMNS ", copy_kind, src_kind, dst_kind, bytes, async, "
				 "graph FROM memcpys",
				 "memcpys", C_COLUMNS, on_memcpy);
	if (!rc)
		rc = kgt_each_op_row(r,
				 "SELECT " OP_COLUMNS ", memory_kind, bytes, async, graph FROM memsets",
				 "memsets", S_COLUMNS, on_memset);
	kgt_progress(r, 0.9);
	if (!rc)
		rc = each_row(r,
			      "SELECT y.process, y.type, y.context, y.stream, y.start, y.end, "
			      "y.correlation, c.device FROM syncs y LEFT JOIN contexts c "
			      "USING(process, context)",
			      "syncs", on_sync);
	if (!rc)
		rc = each_row(r, "SELECT process, thread, domain, name, start, end FROM nvtx", "nvtx",
			      on_nvtx);
	if (!rc)
		rc = kgt_read_stacks(r);
	if (!rc)
		rc = kgt_read_hw(r);
	if (!rc) /* after every op: its blocks name ops by index */
		rc = kgt_read_sm(r);
	kgt_progress(r, 1.0);
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
	idmap_free(&r.strmap);
	free(r.proc);
	free(r.dev);
	return rc;
}
