/* The model written as a kgantt trace (src/trace/schema.c, docs/trace-format.md): a
 * Kineto or Nsight trace becomes one that the sqlite3 shell and kgantt itself read. The
 * schema, the index SQL and the meta keys are those of `kgantt record` (spool_import.c);
 * meta.source says "kgantt-export" and exported_from/exported_from_format name the input.
 *
 * What the model does not hold is NULL (cluster sizes, local memory, return values, the
 * executable's path); 0-valued device properties are NULL too ("unknown is NULL"). A
 * copy's or memset's label is not stored: kgantt derives it from the copy and memory
 * kinds when it reads the trace. */
#include "export/export.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace/packed.h"
#include "trace/packed_feed.h"
#include "trace/schema.h"
#include "trace/trace_db.h"
#include "util/outfile.h"
#include "util/timemath.h"

#ifndef KGANTT_VERSION
#define KGANTT_VERSION "0"
#endif

enum { ST_PROCESS, ST_DEVICE, ST_CONTEXT, ST_STREAM, ST_KERNEL, ST_MEMCPY, ST_MEMSET, ST_SYNC,
       ST_API, ST_NVTX, ST_STRING, ST_META, ST_STACK, ST_FRAME, ST_API_STACK, ST_HW_DEVICE,
       ST_HW_METRIC, ST_HW_SAMPLE, ST_COUNT };

/* hw_samples' figure columns and their placeholders, from util/hw_figures.h */
#define HW_COL_(id, column, unit, label) ", " #column
#define HW_ARG_(id, column, unit, label) ",?"

static const char *const stmt_sql[ST_COUNT] = {
	[ST_PROCESS] = "INSERT INTO processes(process, pid, ppid, host, cmdline, rank, start_ns, "
		       "end_ns, mode, latency_timestamps, complete, exit_status, dropped_records, "
		       "incomplete_records) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	/* OR IGNORE: a source may describe a device twice; the first description stands */
	[ST_DEVICE] = "INSERT OR IGNORE INTO devices(process, device, name, uuid, sm_count, "
		      "max_warps_per_sm, max_blocks_per_sm, max_threads_per_block, max_regs_per_sm, "
		      "max_regs_per_block, max_smem_per_sm, max_smem_per_block, threads_per_warp, "
		      "cc_major, cc_minor, memory_bytes) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,32,?,?,?)",
	[ST_CONTEXT] = "INSERT INTO contexts(process, context, device, null_stream) VALUES(?,?,?,?)",
	[ST_STREAM] = "INSERT INTO streams(process, context, stream, priority, flags) "
		      "VALUES(?,?,?,?,?)",
	[ST_KERNEL] = "INSERT INTO kernels(process, device, context, stream, correlation, "
		      "incomplete, start, end, channel, graph, name, demangled, queued, submitted, "
		      "grid_x, grid_y, grid_z, block_x, block_y, block_z, registers_per_thread, "
		      "static_smem, dynamic_smem, shared_mem_executed, device_launched) "
		      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_MEMCPY] = "INSERT INTO memcpys(process, device, context, stream, correlation, "
		      "incomplete, start, end, channel, graph, copy_kind, src_kind, dst_kind, bytes, "
		      "async) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_MEMSET] = "INSERT INTO memsets(process, device, context, stream, correlation, "
		      "incomplete, start, end, channel, graph, memory_kind, bytes, async) "
		      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_SYNC] = "INSERT INTO syncs(process, type, context, stream, start, end, correlation, "
		    "incomplete) VALUES(?,?,?,?,?,?,?,0)",
	[ST_API] = "INSERT INTO api_calls(process, thread, domain, name, start, end, correlation, "
		   "incomplete) VALUES(?,?,?,?,?,?,?,0)",
	[ST_NVTX] = "INSERT INTO nvtx(process, thread, domain, name, start, end) "
		    "VALUES(?,?,?,?,?,?)",
	[ST_STRING] = "INSERT INTO strings(id, text) VALUES(?,?)",
	[ST_META] = "INSERT OR REPLACE INTO meta(key, value) VALUES(?,?)",
	[ST_STACK] = "INSERT INTO stacks(id, process, flags, depth) VALUES(?,?,?,?)",
	[ST_FRAME] = "INSERT INTO stack_frames(stack, depth, kind, function, file, line, module, "
		     "address) VALUES(?,?,?,?,?,?,?,?)",
	/* OR REPLACE: a source may give one call two stacks; the last stands */
	[ST_API_STACK] = "INSERT OR REPLACE INTO api_stacks(process, correlation, stack) "
			 "VALUES(?,?,?)",
	[ST_HW_DEVICE] = "INSERT OR IGNORE INTO hw_devices(process, device, interval_ns, chip, "
			 "state, note, lost_samples) VALUES(?,?,?,?,?,?,?)",
	[ST_HW_METRIC] = "INSERT INTO hw_metrics(process, device, figure, metric) VALUES(?,?,?,?)",
	[ST_HW_SAMPLE] = "INSERT INTO hw_samples(process, device, start, end" KG_HW_FIGURES(HW_COL_)
			 ") VALUES(?,?,?,?" KG_HW_FIGURES(HW_ARG_) ")",
};

struct sq {
	struct kg_export_ops ops; /* first: the walker's callbacks */
	const struct kg_export_opts *o;
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	const char *path;
	struct kg_outfile out;    /* the trace is built in out.tmp (util/outfile.h) */
	char *err;
	size_t errlen;
	uint32_t *ctx;            /* by stream: its context id in the written trace */
	int64_t *kernel_id;       /* by op: its kernels.id, for sm_blocks (0: not written) */
};

static struct sq *self(struct kg_export_ops *x)
{
	return (struct sq *)x;
}

static int sql_fail(struct sq *q, const char *what)
{
	snprintf(q->err, q->errlen, "cannot write '%s' (%s): %s", q->path, what,
		 q->db ? sqlite3_errmsg(q->db) : "out of memory");
	return -EIO;
}

/* The database closed and the file put in place: the end of both ways of exporting. */
static int close_and_commit(struct sq *q, int rc)
{
	if (!rc && sqlite3_close(q->db) != SQLITE_OK)
		rc = sql_fail(q, "close");
	if (!rc)
		q->db = NULL;
	if (!rc && (rc = outfile_commit(&q->out)) < 0)
		snprintf(q->err, q->errlen, "%s", q->out.err);
	return rc;
}

static int exec_sql(struct sq *q, const char *sql, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	snprintf(q->err, q->errlen, "cannot write '%s' (%s): %s", q->path, what, msg ? msg : "?");
	sqlite3_free(msg);
	return -EIO;
}

/* A new file written by this process alone, in one transaction, renamed into place when
 * complete: no journal, no syncs, no locks taken and given back, 8 MiB of cache (every
 * row and index entry goes in at the right end of its tree, so a page once left is not
 * needed again: 64 MiB took a third more time, in page faults and cache misses), pages
 * of KG_ROWS_PAGE_SIZE, or KG_MANY_ROWS_PAGE_SIZE for many rows (trace/schema.h). */
static int set_up(struct sq *q, uint64_t rows)
{
	char sql[256];
	snprintf(sql, sizeof(sql),
		 "PRAGMA page_size=%d; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
		 "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-8192; "
		 "PRAGMA temp_store=MEMORY;",
		 rows >= KG_MANY_ROWS ? KG_MANY_ROWS_PAGE_SIZE : KG_ROWS_PAGE_SIZE);
	return exec_sql(q, sql, "set-up");
}

static int step(struct sq *q, int which, const char *what)
{
	sqlite3_stmt *st = q->st[which];
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(q, what);
}

/* Binding helpers: unknown values become NULL. */
static void b_i64(struct sq *q, int which, int col, int64_t v)
{
	sqlite3_bind_int64(q->st[which], col, v);
}

static void b_opt(struct sq *q, int which, int col, int known, int64_t v)
{
	if (known)
		sqlite3_bind_int64(q->st[which], col, v);
	else
		sqlite3_bind_null(q->st[which], col);
}

static void b_time(struct sq *q, int which, int col, int64_t t)
{
	b_opt(q, which, col, t != KG_NO_TIME, t);
}

static void b_text(struct sq *q, int which, int col, const struct kg_model *m, uint32_t id)
{
	if (id)
		sqlite3_bind_text(q->st[which], col, model_text(m, id), -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(q->st[which], col);
}

/* A string id of the model is the same id in the trace: all strings are written. */
static void b_str(struct sq *q, int which, int col, uint32_t id)
{
	b_opt(q, which, col, id != 0, id);
}

static int put_meta(struct sq *q, const char *key, const char *value)
{
	sqlite3_bind_text(q->st[ST_META], 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(q->st[ST_META], 2, value, -1, SQLITE_TRANSIENT);
	return step(q, ST_META, "meta");
}

/* ------------------------------------------------------------------ contexts */

struct ctx_key {
	uint32_t process, context, device, stream;
};

static int ctx_cmp(const void *pa, const void *pb)
{
	const struct ctx_key *a = pa, *b = pb;
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	if (a->context != b->context)
		return a->context < b->context ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->stream < b->stream ? -1 : a->stream > b->stream;
}

static int write_context(struct sq *q, const struct kg_model *m, const struct ctx_key *k,
			 uint32_t id, const struct ctx_key *end)
{
	int64_t null_stream = 0;
	int has_null = 0;
	for (const struct ctx_key *j = k; j < end && j->process == k->process &&
					  j->context == k->context && j->device == k->device; j++)
		if (m->streams[j->stream].kind == KG_STREAM_LEGACY_DEFAULT && !has_null) {
			null_stream = m->streams[j->stream].id;
			has_null = 1;
		}
	b_i64(q, ST_CONTEXT, 1, (int64_t)k->process + 1);
	b_i64(q, ST_CONTEXT, 2, id);
	b_i64(q, ST_CONTEXT, 3, m->devices[k->device].ordinal);
	b_opt(q, ST_CONTEXT, 4, has_null, null_stream);
	return step(q, ST_CONTEXT, "contexts");
}

/* The trace finds a stream's device through its context (process, context → device).
 * A source without real contexts (Kineto: context 0 on every device) would map several
 * devices to one context, so each further device of a (process, context) gets a context
 * id of its own, above every id the source used. */
static int write_contexts(struct sq *q, const struct kg_model *m)
{
	uint32_t n = m->n_streams, fresh = 0;
	struct ctx_key *k = malloc((n ? n : 1) * sizeof(*k));
	q->ctx = malloc((n ? n : 1) * sizeof(*q->ctx));
	if (!k || !q->ctx) {
		free(k);
		snprintf(q->err, q->errlen, "out of memory writing '%s'", q->path);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < n; s++) {
		const struct kg_stream *st = &m->streams[s];
		k[s] = (struct ctx_key){st->process, st->context, st->device, s};
		if (st->context >= fresh)
			fresh = st->context + 1;
	}
	qsort(k, n, sizeof(*k), ctx_cmp);
	int rc = 0;
	uint32_t id = 0;
	for (uint32_t i = 0; !rc && i < n; i++) {
		int same_ctx = i && k[i].process == k[i - 1].process && k[i].context == k[i - 1].context;
		if (!same_ctx || k[i].device != k[i - 1].device) {
			id = same_ctx ? fresh++ : k[i].context;
			rc = write_context(q, m, &k[i], id, k + n);
		}
		q->ctx[k[i].stream] = id;
	}
	free(k);
	return rc;
}

/* ------------------------------------------------------------------ begin and end */

static int open_db(struct sq *q, const struct kg_model *m)
{
	/* under a temporary name, renamed at the end: never a half-written trace */
	struct kg_outfile_opts oo = {.what = "the trace"};
	const char *tmp = outfile_open_path(&q->out, q->path, &oo);
	if (!tmp) {
		snprintf(q->err, q->errlen, "%s", q->out.err);
		return -EIO;
	}
	if (sqlite3_open_v2(tmp, &q->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		snprintf(q->err, q->errlen, "cannot create '%s': %s", q->path,
			 q->db ? sqlite3_errmsg(q->db) : "out of memory");
		return -EIO;
	}
	int rc = set_up(q, (uint64_t)m->n_ops + m->n_apis);
	if (!rc)
		rc = exec_sql(q, "BEGIN", "begin");
	if (!rc)
		rc = exec_sql(q, kg_schema_sql, "schema");
	if (!rc && trace_create_rows(q->db, "main") != SQLITE_OK) /* rows, not blocks */
		rc = sql_fail(q, "schema");
	for (int i = 0; !rc && i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(q->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &q->st[i],
				       NULL) != SQLITE_OK)
			rc = sql_fail(q, stmt_sql[i]);
	return rc;
}

static int write_meta(struct sq *q, const struct kg_model *m)
{
	char buf[64];
	/* the clock is the source's: only a kgantt trace is known to be MONOTONIC_RAW */
	int kgt = !strcmp(m->source, "kgantt");
	int rc = trace_write_meta(q->db, kgt ? "CLOCK_MONOTONIC_RAW" : "source", "kgantt-export",
				  m->command ? model_text(m, m->command) : NULL) == SQLITE_OK
			 ? 0
			 : sql_fail(q, "meta");
	if (!rc && m->program_start != KG_NO_TIME) {
		snprintf(buf, sizeof(buf), "%lld", (long long)m->program_start);
		rc = put_meta(q, "program_start_ns", buf);
	}
	if (!rc)
		rc = put_meta(q, "exported_from", m->path);
	if (!rc)
		rc = put_meta(q, "exported_from_format", m->source);
	if (!rc && q->o->windowed) {
		snprintf(buf, sizeof(buf), "%lld %lld", (long long)q->o->window_begin,
			 (long long)q->o->window_end);
		rc = put_meta(q, "window_ns", buf);
	}
	return rc;
}

static int write_strings(struct sq *q, const struct kg_model *m)
{
	int rc = 0;
	for (uint32_t id = 1; !rc && id <= m->strings.count; id++) {
		b_i64(q, ST_STRING, 1, id);
		sqlite3_bind_text(q->st[ST_STRING], 2, model_text(m, id), -1, SQLITE_STATIC);
		rc = step(q, ST_STRING, "strings");
	}
	return rc;
}

static int on_begin(struct kg_export_ops *x, const struct kg_model *m)
{
	struct sq *q = self(x);
	int rc = open_db(q, m);
	if (!rc)
		rc = write_meta(q, m);
	if (!rc)
		rc = write_strings(q, m);
	if (!rc)
		rc = write_contexts(q, m);
	return rc;
}

/* The model's stacks (any source's: the recorder's, the profiler's operators and Python
 * functions, nsys backtraces) and which calls made them. */
static int write_stacks(struct sq *q, const struct kg_model *m)
{
	int rc = 0;
	for (uint32_t i = 0; !rc && i < m->n_stacks; i++) {
		const struct kg_stack *s = &m->stacks[i];
		for (uint32_t k = 0; !rc && k < s->n_frames; k++) {
			const struct kg_frame *f = &m->frames[s->first_frame + k];
			b_i64(q, ST_FRAME, 1, (int64_t)i + 1);
			b_i64(q, ST_FRAME, 2, k);
			b_i64(q, ST_FRAME, 3, f->kind);
			b_str(q, ST_FRAME, 4, f->function);
			b_str(q, ST_FRAME, 5, f->file);
			b_opt(q, ST_FRAME, 6, f->line > 0, f->line);
			b_str(q, ST_FRAME, 7, f->module);
			b_opt(q, ST_FRAME, 8, f->kind == KG_FRAME_NATIVE, (int64_t)f->address);
			rc = step(q, ST_FRAME, "stack_frames");
		}
		b_i64(q, ST_STACK, 1, (int64_t)i + 1);
		b_i64(q, ST_STACK, 2, (int64_t)s->process + 1);
		b_i64(q, ST_STACK, 3, s->flags);
		b_i64(q, ST_STACK, 4, s->n_frames);
		if (!rc)
			rc = step(q, ST_STACK, "stacks");
	}
	for (uint32_t i = 0; !rc && i < m->n_apis; i++) {
		const struct kg_api *a = &m->apis[i];
		if (a->stack == KG_NONE || !a->correlation)
			continue;
		b_i64(q, ST_API_STACK, 1, (int64_t)a->process + 1);
		b_i64(q, ST_API_STACK, 2, a->correlation);
		b_i64(q, ST_API_STACK, 3, (int64_t)a->stack + 1);
		rc = step(q, ST_API_STACK, "api_stacks");
	}
	return rc;
}

/* The hardware samples (record --hw): how each device was sampled, by which metrics, and
 * the samples. A row whose device the model does not know is skipped. */
static int write_hw_device(struct sq *q, const struct kg_model *m, const struct kg_hw_device *h)
{
	const struct kg_device *d = &m->devices[h->device];
	b_i64(q, ST_HW_DEVICE, 1, (int64_t)d->process + 1);
	b_i64(q, ST_HW_DEVICE, 2, d->ordinal);
	b_opt(q, ST_HW_DEVICE, 3, h->interval_ns > 0, h->interval_ns);
	b_text(q, ST_HW_DEVICE, 4, m, h->chip);
	b_text(q, ST_HW_DEVICE, 5, m, h->state);
	b_text(q, ST_HW_DEVICE, 6, m, h->note);
	b_i64(q, ST_HW_DEVICE, 7, (int64_t)h->lost);
	int rc = step(q, ST_HW_DEVICE, "hw_devices");
	for (int f = 0; !rc && f < KG_HW_N; f++) {
		if (!h->metric[f])
			continue;
		b_i64(q, ST_HW_METRIC, 1, (int64_t)d->process + 1);
		b_i64(q, ST_HW_METRIC, 2, d->ordinal);
		sqlite3_bind_text(q->st[ST_HW_METRIC], 3, kg_hw_figure_info[f].column, -1,
				  SQLITE_STATIC);
		b_text(q, ST_HW_METRIC, 4, m, h->metric[f]);
		rc = step(q, ST_HW_METRIC, "hw_metrics");
	}
	return rc;
}

static int write_hw(struct sq *q, const struct kg_model *m)
{
	int rc = 0;
	for (uint32_t i = 0; !rc && i < m->n_hw_devices; i++)
		if (m->hw_devices[i].device < m->n_devices)
			rc = write_hw_device(q, m, &m->hw_devices[i]);
	for (uint32_t i = 0; !rc && i < m->n_hw_samples; i++) {
		const struct kg_hw_sample *x = &m->hw_samples[i];
		if (x->device >= m->n_devices)
			continue;
		b_i64(q, ST_HW_SAMPLE, 1, (int64_t)m->devices[x->device].process + 1);
		b_i64(q, ST_HW_SAMPLE, 2, m->devices[x->device].ordinal);
		b_i64(q, ST_HW_SAMPLE, 3, x->start);
		b_i64(q, ST_HW_SAMPLE, 4, x->end);
		for (int f = 0; f < KG_HW_N; f++)
			if (isfinite(x->v[f]))
				sqlite3_bind_double(q->st[ST_HW_SAMPLE], 5 + f, x->v[f]);
			else
				sqlite3_bind_null(q->st[ST_HW_SAMPLE], 5 + f);
		rc = step(q, ST_HW_SAMPLE, "hw_samples");
	}
	return rc;
}

/* Host samples (record --host-samples): how each process sampled, the sampled threads'
 * names, and a sample for each span that was one (a profiler's host events are not): at
 * the time it was taken, its length in periods as its overrun, so that kgantt reads the same spans
 * back (the counts the model does not keep are NULL). */
static int write_host_settings(struct sq *q, const struct kg_model *m)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(q->db,
			       "INSERT OR IGNORE INTO host_settings(process, hz, note, taken, written, "
			       "lost_ring, no_stack, lost_threads, threads) VALUES(?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_fail(q, "host_settings");
	int rc = 0;
	for (uint32_t i = 0; !rc && i < m->n_host_samplings; i++) {
		const struct kg_host_sampling *h = &m->host_samplings[i];
		const int64_t v[] = {(int64_t)h->process + 1, h->hz, 0, (int64_t)h->taken,
				     (int64_t)(h->samples + h->lost), (int64_t)h->lost,
				     (int64_t)h->no_stack, (int64_t)h->lost_threads, h->threads};
		for (int c = 0; c < 9; c++)
			sqlite3_bind_int64(st, c + 1, v[c]);
		if (h->note)
			sqlite3_bind_text(st, 3, model_text(m, h->note), -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 3);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_fail(q, "host_settings");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int write_host_threads(struct sq *q, const struct kg_model *m)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(q->db,
			       "INSERT INTO host_threads(process, thread, number, name) "
			       "VALUES(?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_fail(q, "host_threads");
	int rc = 0;
	for (uint32_t i = 0; !rc && i < m->n_threads; i++) {
		const struct kg_thread *t = &m->threads[i];
		if (!t->name)
			continue;
		sqlite3_bind_int64(st, 1, (int64_t)t->process + 1);
		sqlite3_bind_int64(st, 2, t->tid);
		sqlite3_bind_int64(st, 3, (int64_t)i + 1);
		sqlite3_bind_text(st, 4, model_text(m, t->name), -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_fail(q, "host_threads");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The sample a span of period ns stood for: its columns from process on. It was taken at
 * the span's end less what the fit carried it on by; its periods before that are rounded
 * up: a span cut short by the one before it (the reader's cut), or by a silence's start
 * (the fit), is cut alike again, and carried alike again, when read back. */
static void sample_of(const struct kg_model *m, const struct kg_host_span *x, int64_t period,
		      int64_t *v)
{
	int64_t taken = kg_time_add(x->end, -(int64_t)x->carried);
	int64_t periods = !period ? 1 : taken <= x->start ? 0
				 : (kg_time_span(taken, x->start) + period - 1) / period;
	const struct kg_stack *s = x->stack < m->n_stacks ? &m->stacks[x->stack] : NULL;
	int cut = (x->flags & KG_HOST_PARTIAL) && !(s && (s->flags & KG_STACK_PARTIAL));
	v[0] = (int64_t)m->threads[x->thread].process + 1;
	v[1] = m->threads[x->thread].tid;
	v[2] = taken;
	v[3] = s ? (int64_t)x->stack + 1 : 0;
	v[4] = x->state;
	v[5] = (x->flags & KG_HOST_HOLDS_GIL ? 2 : 0) | (x->flags & KG_HOST_CPU_TIME ? 4 : 0) |
	       (cut ? 8 : 0); /* enum_host_flags */
	v[6] = periods < 1 ? 0 : periods > 256 ? 255 : periods - 1;
}

static int write_host(struct sq *q, const struct kg_model *m)
{
	if (!m->n_host_samplings)
		return 0;
	int64_t *period = calloc((size_t)m->n_processes + 1, sizeof(*period));
	sqlite3_stmt *st = NULL;
	int rc = period ? 0 : -ENOMEM;
	for (uint32_t i = 0; period && i < m->n_host_samplings; i++)
		if (host_period_ns(&m->host_samplings[i]) && m->host_samplings[i].process < m->n_processes)
			period[m->host_samplings[i].process] = host_period_ns(&m->host_samplings[i]);
	if (!rc && sqlite3_prepare_v2(q->db,
				      "INSERT INTO host_samples(process, thread, ts, stack, state, "
				      "flags, overrun) VALUES(?,?,?,?,?,?,?)",
				      -1, &st, NULL) != SQLITE_OK)
		rc = sql_fail(q, "host_samples");
	for (uint32_t i = 0; !rc && i < m->n_host_spans; i++) {
		const struct kg_host_span *x = &m->host_spans[i];
		if (x->source != KG_HOST_FROM_SAMPLES || x->thread >= m->n_threads)
			continue;
		int64_t v[7];
		sample_of(m, x, period[m->threads[x->thread].process], v);
		for (int c = 0; c < 7; c++)
			sqlite3_bind_int64(st, c + 1, v[c]);
		if (!v[3])
			sqlite3_bind_null(st, 4);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_fail(q, "host_samples");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	free(period);
	if (!rc)
		rc = write_host_settings(q, m);
	return rc ? rc : write_host_threads(q, m);
}

/* SM placement (record --sm): the blocks of the kernels written, already on the trace
 * clock (offset_ns and own_records, which only the recording knew, are NULL). */
static int write_sm_infos(struct sq *q, const struct kg_model *m)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(q->db,
			       "INSERT OR IGNORE INTO sm_settings(process, device, blocks, kernels, "
			       "dropped, unmatched, offset_spread_ns, offset_mad_ns) "
			       "VALUES(?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_fail(q, "sm_settings");
	int rc = 0;
	for (uint32_t i = 0; !rc && i < m->n_sm_infos; i++) {
		const struct kg_sm_info *x = &m->sm_infos[i];
		if (x->device >= m->n_devices)
			continue;
		const int64_t v[] = {(int64_t)m->devices[x->device].process + 1,
				     m->devices[x->device].ordinal, (int64_t)x->blocks,
				     (int64_t)x->kernels, (int64_t)x->dropped, (int64_t)x->unmatched};
		for (int c = 0; c < 6; c++)
			sqlite3_bind_int64(st, c + 1, v[c]);
		if (x->offset_spread != KG_NO_TIME)
			sqlite3_bind_int64(st, 7, x->offset_spread);
		if (x->offset_mad != KG_NO_TIME)
			sqlite3_bind_int64(st, 8, x->offset_mad);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_fail(q, "sm_settings");
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int write_sm(struct sq *q, const struct kg_model *m)
{
	if (!m->n_sm_blocks && !m->n_sm_infos)
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(q->db, "INSERT INTO sm_blocks VALUES(?,?,?,?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return sql_fail(q, "sm_blocks");
	int rc = 0;
	for (uint32_t i = 0; !rc && q->kernel_id && i < m->n_sm_blocks; i++) {
		const struct kg_sm_block *b = &m->sm_blocks[i];
		if (b->op >= m->n_ops || !q->kernel_id[b->op])
			continue;
		sqlite3_bind_int64(st, 1, q->kernel_id[b->op]);
		sqlite3_bind_int64(st, 2, b->sm);
		sqlite3_bind_int64(st, 3, b->block);
		sqlite3_bind_int64(st, 4, b->start);
		sqlite3_bind_int64(st, 5, b->end);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_fail(q, "sm_blocks");
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc ? rc : write_sm_infos(q, m);
}

/* Full mode's sampled launch calls: the analysis of the export dates that process's
 * kernels as the trace's own does (model.h, op_issued). */
static int write_launch_settings(struct sq *q, const struct kg_model *m)
{
	for (uint32_t p = 0; p < m->n_processes; p++) {
		if (!m->processes[p].launches_sampled)
			continue;
		char sql[128];
		snprintf(sql, sizeof(sql), "INSERT INTO launch_settings(process, calls) "
					   "VALUES(%u, 'sampled');", p + 1);
		int rc = exec_sql(q, sql, "launch_settings");
		if (rc)
			return rc;
	}
	return 0;
}

static int on_end(struct kg_export_ops *x, const struct kg_model *m)
{
	struct sq *q = self(x);
	int rc = write_launch_settings(q, m);
	if (!rc)
		rc = write_stacks(q, m);
	if (!rc)
		rc = write_hw(q, m);
	if (!rc)
		rc = write_sm(q, m);
	if (!rc)
		rc = write_host(q, m);
	/* after the rows: an INSERT a row would seek each index from its root (with the
	 * indexes first, 1M kernels took half as long again) */
	if (!rc)
		rc = exec_sql(q, kg_index_sql, "indexes");
	if (!rc && trace_index_rows(q->db, "main") != SQLITE_OK)
		rc = sql_fail(q, "indexes");
	if (!rc)
		rc = exec_sql(q, "COMMIT;", "commit");
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(q->st[i]);
	memset(q->st, 0, sizeof(q->st));
	return close_and_commit(q, rc);
}

/* ------------------------------------------------------------------ rows */

static int on_process(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct sq *q = self(x);
	const struct kg_process *p = &m->processes[i];
	b_i64(q, ST_PROCESS, 1, (int64_t)i + 1);
	b_i64(q, ST_PROCESS, 2, p->pid);
	b_opt(q, ST_PROCESS, 3, p->ppid != 0, p->ppid);
	b_text(q, ST_PROCESS, 4, m, p->host);
	b_text(q, ST_PROCESS, 5, m, p->cmdline);
	b_text(q, ST_PROCESS, 6, m, p->rank);
	b_time(q, ST_PROCESS, 7, p->start);
	b_time(q, ST_PROCESS, 8, p->end);
	sqlite3_bind_text(q->st[ST_PROCESS], 9, m->has_api ? "full" : "kernels", -1, SQLITE_STATIC);
	b_i64(q, ST_PROCESS, 10, m->has_queued);
	b_i64(q, ST_PROCESS, 11, p->complete);
	b_text(q, ST_PROCESS, 12, m, p->exit_status);
	b_i64(q, ST_PROCESS, 13, (int64_t)p->dropped);
	b_i64(q, ST_PROCESS, 14, (int64_t)p->incomplete);
	return step(q, ST_PROCESS, "processes");
}

static int on_device(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct sq *q = self(x);
	const struct kg_device *d = &m->devices[i];
	const int props[] = {d->sm_count,	  d->max_warps_per_sm,	    d->max_blocks_per_sm,
			     d->max_threads_per_block, d->regs_per_sm,    d->max_regs_per_block,
			     d->smem_per_sm,	  d->smem_per_block};
	b_i64(q, ST_DEVICE, 1, (int64_t)d->process + 1);
	b_i64(q, ST_DEVICE, 2, d->ordinal);
	b_text(q, ST_DEVICE, 3, m, d->name);
	b_text(q, ST_DEVICE, 4, m, d->uuid);
	for (int k = 0; k < 8; k++)
		b_opt(q, ST_DEVICE, 5 + k, props[k] != 0, props[k]);
	b_opt(q, ST_DEVICE, 13, d->cc_major != 0, d->cc_major);
	b_opt(q, ST_DEVICE, 14, d->cc_major != 0, d->cc_minor);
	b_opt(q, ST_DEVICE, 15, d->memory_bytes != 0, d->memory_bytes);
	return step(q, ST_DEVICE, "devices");
}

static int on_stream(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct sq *q = self(x);
	const struct kg_stream *s = &m->streams[i];
	/* enum_stream_flags: 1 default (blocking), 2 non-blocking, 3 the legacy NULL stream */
	static const int flags[] = {[KG_STREAM_UNKNOWN] = 0, [KG_STREAM_BLOCKING] = 1,
				    [KG_STREAM_NON_BLOCKING] = 2, [KG_STREAM_LEGACY_DEFAULT] = 3};
	b_i64(q, ST_STREAM, 1, (int64_t)s->process + 1);
	b_i64(q, ST_STREAM, 2, q->ctx[i]);
	b_i64(q, ST_STREAM, 3, s->id);
	b_i64(q, ST_STREAM, 4, s->priority);
	b_i64(q, ST_STREAM, 5, s->kind <= KG_STREAM_LEGACY_DEFAULT ? flags[s->kind] : 0);
	return step(q, ST_STREAM, "streams");
}

/* Columns 1..10, the same in kernels, memcpys and memsets. */
static void bind_op_common(struct sq *q, int w, const struct kg_model *m, const struct kg_op *o)
{
	const struct kg_stream *s = &m->streams[o->stream];
	b_i64(q, w, 1, (int64_t)s->process + 1);
	b_i64(q, w, 2, m->devices[s->device].ordinal);
	b_i64(q, w, 3, q->ctx[o->stream]);
	b_i64(q, w, 4, s->id);
	b_opt(q, w, 5, o->correlation != 0, o->correlation);
	b_i64(q, w, 6, (o->flags & KG_OPF_INCOMPLETE) != 0);
	b_time(q, w, 7, o->start);
	b_time(q, w, 8, o->end);
	b_opt(q, w, 9, s->channel >= 0, s->channel);
	b_opt(q, w, 10, (o->flags & KG_OPF_GRAPH) != 0, o->graph);
}

static int write_kernel(struct sq *q, const struct kg_model *m, const struct kg_op *o)
{
	bind_op_common(q, ST_KERNEL, m, o);
	b_str(q, ST_KERNEL, 11, o->name);
	b_str(q, ST_KERNEL, 12, o->name); /* the model's name is already demangled */
	b_time(q, ST_KERNEL, 13, o->queued);
	b_time(q, ST_KERNEL, 14, o->submitted);
	const struct kg_launch *l = op_launch(m, o);
	for (int k = 0; k < 3; k++) {
		b_i64(q, ST_KERNEL, 15 + k, l->grid[k]);
		b_i64(q, ST_KERNEL, 18 + k, l->block[k]);
	}
	b_i64(q, ST_KERNEL, 21, l->regs);
	b_i64(q, ST_KERNEL, 22, l->smem_static);
	b_i64(q, ST_KERNEL, 23, l->smem_dynamic);
	b_opt(q, ST_KERNEL, 24, l->smem_config != 0, l->smem_config);
	b_i64(q, ST_KERNEL, 25, (o->flags & KG_OPF_DEVICE_LAUNCHED) != 0);
	return step(q, ST_KERNEL, "kernels");
}

static int on_op(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct sq *q = self(x);
	const struct kg_op *o = &m->ops[i];
	int async = (o->flags & KG_OPF_ASYNC) != 0;
	switch (o->kind) {
	case KG_OP_KERNEL: {
		int rc = write_kernel(q, m, o);
		if (!rc && q->kernel_id)
			q->kernel_id[i] = sqlite3_last_insert_rowid(q->db);
		return rc;
	}
	case KG_OP_MEMCPY:
		bind_op_common(q, ST_MEMCPY, m, o);
		b_i64(q, ST_MEMCPY, 11, o->copy_kind);
		b_i64(q, ST_MEMCPY, 12, o->src_kind);
		b_i64(q, ST_MEMCPY, 13, o->dst_kind);
		b_i64(q, ST_MEMCPY, 14, (int64_t)o->bytes);
		b_i64(q, ST_MEMCPY, 15, async);
		return step(q, ST_MEMCPY, "memcpys");
	default:
		bind_op_common(q, ST_MEMSET, m, o);
		b_i64(q, ST_MEMSET, 11, o->dst_kind);
		b_i64(q, ST_MEMSET, 12, (int64_t)o->bytes);
		b_i64(q, ST_MEMSET, 13, async);
		return step(q, ST_MEMSET, "memsets");
	}
}

static int on_sync(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct sq *q = self(x);
	const struct kg_sync *y = &m->syncs[i];
	int known = y->stream < m->n_streams;
	b_i64(q, ST_SYNC, 1, (int64_t)y->process + 1);
	b_i64(q, ST_SYNC, 2, y->kind);
	b_opt(q, ST_SYNC, 3, known, known ? q->ctx[y->stream] : 0);
	b_opt(q, ST_SYNC, 4, known, known ? m->streams[y->stream].id : 0);
	b_time(q, ST_SYNC, 5, y->start);
	b_time(q, ST_SYNC, 6, y->end);
	b_opt(q, ST_SYNC, 7, y->correlation != 0, y->correlation);
	return step(q, ST_SYNC, "syncs");
}

static void bind_thread(struct sq *q, int w, int col, const struct kg_model *m, uint32_t t)
{
	b_opt(q, w, col, t < m->n_threads, t < m->n_threads ? (int64_t)m->threads[t].tid : 0);
}

static int on_api(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct sq *q = self(x);
	const struct kg_api *a = &m->apis[i];
	b_i64(q, ST_API, 1, (int64_t)a->process + 1);
	bind_thread(q, ST_API, 2, m, a->thread);
	b_i64(q, ST_API, 3, a->driver ? 2 : 1); /* enum_api_domain */
	b_str(q, ST_API, 4, a->name);
	b_time(q, ST_API, 5, a->start);
	b_time(q, ST_API, 6, a->end);
	b_opt(q, ST_API, 7, a->correlation != 0, a->correlation);
	return step(q, ST_API, "api_calls");
}

static int on_range(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct sq *q = self(x);
	const struct kg_range *r = &m->ranges[i];
	b_i64(q, ST_NVTX, 1, (int64_t)r->process + 1);
	bind_thread(q, ST_NVTX, 2, m, r->thread);
	b_str(q, ST_NVTX, 3, r->domain);
	b_str(q, ST_NVTX, 4, r->name);
	b_time(q, ST_NVTX, 5, r->start);
	b_time(q, ST_NVTX, 6, r->end);
	return step(q, ST_NVTX, "nvtx");
}

/* ------------------------------------------------------------------ blocks as a table */

/* The rows of one packed table of the input, as a virtual table (CREATE VIRTUAL TABLE
 * temp.x USING kgantt_blocks(kernels)): one INSERT ... SELECT then moves them all, and
 * SQLite keeps its cursors on the new table and its indexes open from row to row, where a
 * prepared INSERT a row opens and closes them every time (it took twice as long for 1M
 * kernels). A second thread decodes the blocks meanwhile (packed_feed.h): SQLite's
 * inserts no longer wait for it (1M kernels: a tenth of the export). */
struct blocks_vtab {
	sqlite3_vtab base;
	const struct kg_packed_table *t;
	const char *input; /* the trace's path: its feed reads it, messages name it */
};

struct blocks_cursor {
	sqlite3_vtab_cursor base;
	struct kg_packed_feed *feed;
	const struct kg_row *row;
	int64_t rowid;
	int eof;
	char err[512];
};

/* t's stored columns but `skip` (-1: none), quoted and comma-separated (sqlite3_free
 * it); NULL: no memory. */
static char *column_list(const struct kg_packed_table *t, int skip)
{
	char *sql = sqlite3_mprintf("%s", "");
	for (int c = 0; sql && c < t->nstored; c++)
		if (c != skip)
			sql = sqlite3_mprintf("%z%s\"%w\"", sql, *sql ? ", " : "", t->stored[c].name);
	return sql;
}

static int blocks_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			  sqlite3_vtab **out, char **err)
{
	const struct kg_packed_table *t = argc == 4 ? packed_table(argv[3]) : NULL;
	if (!t) {
		*err = sqlite3_mprintf("kgantt_blocks: no packed table '%s'", argc == 4 ? argv[3] : "");
		return SQLITE_ERROR;
	}
	char *cols = column_list(t, -1);
	char *full = cols ? sqlite3_mprintf("CREATE TABLE x(%z)", cols) : NULL;
	struct blocks_vtab *v = full ? sqlite3_malloc(sizeof(*v)) : NULL;
	int rc = v ? sqlite3_declare_vtab(db, full) : SQLITE_NOMEM;
	sqlite3_free(full);
	if (rc != SQLITE_OK) {
		sqlite3_free(v);
		return rc;
	}
	memset(v, 0, sizeof(*v));
	v->t = t;
	v->input = aux;
	*out = &v->base;
	return SQLITE_OK;
}

static int blocks_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	info->estimatedCost = 1e9; /* a full scan: the only way */
	return SQLITE_OK;
}

static int blocks_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static int blocks_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct blocks_cursor *c = sqlite3_malloc(sizeof(*c));
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int blocks_close(sqlite3_vtab_cursor *cur)
{
	struct blocks_cursor *c = (struct blocks_cursor *)cur;
	packed_feed_close(c->feed);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int blocks_fail(struct blocks_cursor *c)
{
	const struct blocks_vtab *v = (const struct blocks_vtab *)c->base.pVtab;
	sqlite3_free(c->base.pVtab->zErrMsg); /* naming the input, as its readers do */
	c->base.pVtab->zErrMsg = sqlite3_mprintf("'%s': %s", v->input, c->err);
	return SQLITE_ERROR;
}

static int blocks_next(sqlite3_vtab_cursor *cur)
{
	struct blocks_cursor *c = (struct blocks_cursor *)cur;
	int got = packed_feed_next(c->feed, &c->row, &c->rowid, c->err, sizeof(c->err));
	c->eof = got <= 0;
	return got < 0 ? blocks_fail(c) : SQLITE_OK;
}

static int blocks_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
			 sqlite3_value **argv)
{
	struct blocks_cursor *c = (struct blocks_cursor *)cur;
	struct blocks_vtab *v = (struct blocks_vtab *)cur->pVtab;
	packed_feed_close(c->feed);
	c->feed = NULL;
	if (packed_feed_open(v->input, v->t, &c->feed, c->err, sizeof(c->err)) < 0)
		return blocks_fail(c);
	return blocks_next(cur);
}

static int blocks_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct blocks_cursor *)cur)->eof;
}

static int blocks_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct blocks_cursor *c = (struct blocks_cursor *)cur;
	const struct kg_packed_table *t = ((struct blocks_vtab *)cur->pVtab)->t;
	double d;
	if (row_is_null(c->row, col)) {
		sqlite3_result_null(ctx);
	} else if (t->stored[col].real) {
		memcpy(&d, &c->row->v[col], sizeof(d));
		sqlite3_result_double(ctx, d);
	} else {
		sqlite3_result_int64(ctx, c->row->v[col]);
	}
	return SQLITE_OK;
}

static int blocks_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct blocks_cursor *)cur)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module blocks_module = {
	.xCreate = blocks_connect,
	.xConnect = blocks_connect,
	.xBestIndex = blocks_best_index,
	.xDisconnect = blocks_disconnect,
	.xDestroy = blocks_disconnect,
	.xOpen = blocks_open,
	.xClose = blocks_close,
	.xFilter = blocks_filter,
	.xNext = blocks_next,
	.xEof = blocks_eof,
	.xColumn = blocks_column,
	.xRowid = blocks_rowid,
};

/* The column of t that SQLite can number itself: its id when the blocks hold ids 1 to N
 * in order and main's table is empty (the rowids SQLite gives, 1 to N in insert order,
 * are those ids: an id given costs a seek each, about 0.2 s of the 1M-kernel export's
 * 1.7 s); else -1. The blocks' ids ascend without overlap (the reader's checks, made before). */
static int numbered_column(struct sq *q, const struct kg_packed_table *t)
{
	int id = packed_id_column(t);
	char *sql = id < 0 ? NULL
			   : sqlite3_mprintf("SELECT MIN(first_id) = 1 AND MAX(last_id) = SUM(rows) "
					     "AND NOT EXISTS(SELECT 1 FROM main.\"%w\") FROM src.packed "
					     "WHERE tbl = %Q", t->name, t->name);
	int64_t yes = 0;
	if (sql && trace_db_int(q->db, sql, NULL, &yes) != SQLITE_OK)
		yes = 0;
	sqlite3_free(sql);
	return yes == 1 ? id : -1;
}

/* Every packed table's rows from the input's blocks into main's SQL table of that name. */
static int expand_blocks(struct sq *q, const char *input)
{
	if (sqlite3_create_module(q->db, "kgantt_blocks", &blocks_module, (void *)input) !=
	    SQLITE_OK)
		return sql_fail(q, "blocks");
	int rc = 0;
	for (const struct kg_packed_table *t = kg_packed_tables; !rc && t->name; t++) {
		char *sql = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.kg_blocks USING "
					    "kgantt_blocks(%s)", t->name);
		rc = sql ? exec_sql(q, sql, t->name) : sql_fail(q, t->name);
		sqlite3_free(sql);
		char *cols = rc ? NULL : column_list(t, numbered_column(q, t));
		sql = cols ? sqlite3_mprintf("INSERT INTO main.\"%w\"(%s) SELECT %s FROM "
					     "temp.kg_blocks; DROP TABLE temp.kg_blocks;", t->name, cols,
					     cols)
			   : NULL;
		sqlite3_free(cols);
		if (!rc)
			rc = sql ? exec_sql(q, sql, t->name) : sql_fail(q, t->name);
		sqlite3_free(sql);
	}
	return rc;
}

/* ------------------------------------------------------------------ a whole kgantt trace */

/* Runs sql once per row of what (a SELECT of one text column: statements to run, or
 * table names for fmt) on the same connection: the input's schema, replayed. */
static int each_row(struct sq *q, const char *what, const char *fmt, const char *step_name)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(q->db, what, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(q, step_name);
	int rc = 0, got;
	while (!rc && (got = sqlite3_step(st)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		char *sql = fmt ? sqlite3_mprintf(fmt, text, text) : NULL;
		if (fmt && !sql)
			return sqlite3_finalize(st), sql_fail(q, step_name);
		rc = exec_sql(q, fmt ? sql : text, step_name);
		sqlite3_free(sql);
	}
	if (!rc && got != SQLITE_DONE)
		rc = sql_fail(q, step_name);
	sqlite3_finalize(st);
	return rc;
}

/* The input's tables (but its blocks), indexes, rows, views and triggers. A compacted
 * input's packed tables become the SQL tables, indexes and views of this version, the
 * indexes made before the rows go in: the rows come in the indexes' order (each entry an
 * append), which SQLite takes faster than an index made afterwards (1M kernels: 3.3 s
 * against 5.6 s, sqlite3 shell). Format 2-4's blocks and their triggers are left out (their rows
 * are SQL rows too). */
static int copy_schema_and_rows(struct sq *q, const char *input)
{
	static const char *const objects =
		"SELECT sql FROM src.sqlite_master WHERE type = '%s' AND sql IS NOT NULL AND "
		"substr(name, 1, 7) NOT IN ('sqlite_', 'packed_') AND name != 'packed' AND "
		"name NOT IN (SELECT name FROM main.sqlite_master) ORDER BY rowid";
	char sql[512];
	int64_t version = 0;
	if (trace_db_int(q->db, "SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM src.meta "
				"WHERE key = 'packed_version'), 0)", NULL, &version) != SQLITE_OK)
		return sql_fail(q, "meta");
	int packed = version == KG_PACKED_VERSION;
	snprintf(sql, sizeof(sql), objects, "table");
	int rc = each_row(q, sql, NULL, "tables");
	if (!rc && packed && trace_create_rows(q->db, "main") != SQLITE_OK)
		rc = sql_fail(q, "tables");
	snprintf(sql, sizeof(sql), objects, "index");
	if (!rc)
		rc = each_row(q, sql, NULL, "indexes");
	if (!rc && packed && trace_index_rows(q->db, "main") != SQLITE_OK)
		rc = sql_fail(q, "indexes");
	if (!rc)
		rc = each_row(q, "SELECT name FROM src.sqlite_master WHERE type = 'table' AND "
				 "substr(name, 1, 7) != 'sqlite_' AND name != 'packed' ORDER BY rowid",
			      "INSERT INTO main.\"%w\" SELECT * FROM src.\"%w\"", "rows");
	if (!rc && packed)
		rc = expand_blocks(q, input);
	for (const char *type = "view"; !rc && type; type = *type == 'v' ? "trigger" : NULL) {
		snprintf(sql, sizeof(sql), objects, type);
		rc = each_row(q, sql, NULL, "views");
	}
	/* as trace_unpack leaves an unpacked trace: no blocks, readable by every kgantt */
	snprintf(sql, sizeof(sql),
		 "DELETE FROM main.meta WHERE key = 'packed_version';"
		 "UPDATE main.meta SET value = '%d' WHERE key = 'min_reader_version' AND "
		 "CAST(value AS INTEGER) > %d;",
		 KG_TRACE_MIN_READER, KG_TRACE_MIN_READER);
	return rc ? rc : exec_sql(q, sql, "meta");
}

/* A kgantt trace exported whole: every table copied as it is, its packed tables written
 * out as rows (packed_expand), every column as recorded where the model holds only what
 * kgantt shows; into a new file (set_up: its pages by its rows, of which the input's
 * kernels and API calls are most), with the input attached: no copy of the blocks to
 * vacuum away afterwards. */
static int copy_as_rows(struct sq *q, const char *input, uint64_t rows)
{
	sqlite3 *src = NULL;
	char why[512];
	if (trace_db_open(input, &src, why, sizeof(why)) < 0) { /* the checks of a reader */
		snprintf(q->err, q->errlen, "%s", why);
		return -EIO;
	}
	sqlite3_close(src);
	struct kg_outfile_opts oo = {.what = "the trace"};
	const char *tmp = outfile_open_path(&q->out, q->path, &oo);
	if (!tmp) {
		snprintf(q->err, q->errlen, "%s", q->out.err);
		return -EIO;
	}
	int rc = sqlite3_open_v2(tmp, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
						       SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK
			 ? set_up(q, rows)
			 : sql_fail(q, "create");
	sqlite3_stmt *st = NULL;
	if (!rc && (sqlite3_prepare_v2(q->db, "ATTACH DATABASE ?1 AS src", -1, &st, NULL) !=
			    SQLITE_OK ||
		    sqlite3_bind_text(st, 1, input, -1, SQLITE_STATIC) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_DONE))
		rc = sql_fail(q, "attach");
	sqlite3_finalize(st);
	if (!rc)
		rc = exec_sql(q, "BEGIN", "begin");
	if (!rc)
		rc = copy_schema_and_rows(q, input);
	if (!rc && (trace_put_meta(q->db, "exported_from", input) != SQLITE_OK ||
		    trace_put_meta(q->db, "exported_from_format", "kgantt") != SQLITE_OK))
		rc = sql_fail(q, "meta");
	if (!rc)
		rc = exec_sql(q, "COMMIT; DETACH DATABASE src;", "commit");
	return close_and_commit(q, rc);
}

int export_sqlite(const char *path, const struct kg_model *m, const struct kg_export_opts *o,
		  char *err, size_t errlen)
{
	struct sq q = {
		.ops = {.begin = on_begin, .process = on_process, .device = on_device,
			.stream = on_stream, .api = on_api, .range = on_range, .op = on_op,
			.sync = on_sync, .end = on_end},
		.o = o,
		.path = path,
		.err = err,
		.errlen = errlen,
	};
	err[0] = '\0';
	if (!strcmp(m->source, "kgantt") && !o->windowed) {
		/* the model may hold no kernel nor API call (kg_load_opts.copy_only): counted */
		int rc = copy_as_rows(&q, m->path, m->unread_rows + m->n_ops + m->n_apis);
		if (q.db)
			sqlite3_close(q.db);
		outfile_abort(&q.out); /* failed: leave nothing behind; after a commit, a no-op */
		return rc;
	}
	if (m->unread_rows) { /* copy_only is for whole kgantt traces, copied above */
		snprintf(err, errlen, "cannot write '%s': the trace was loaded without its rows", path);
		return -EINVAL;
	}
	/* the kernels' new ids, for the SM blocks that name them */
	if (m->n_sm_blocks && !(q.kernel_id = calloc((size_t)m->n_ops + 1, sizeof(*q.kernel_id)))) {
		snprintf(err, errlen, "out of memory writing '%s'", path);
		return -ENOMEM;
	}
	int rc = export_walk(m, &q.ops);
	if (rc == -ENOMEM && !err[0])
		snprintf(err, errlen, "out of memory writing '%s'", path);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(q.st[i]);
	if (q.db)
		sqlite3_close(q.db);
	outfile_abort(&q.out); /* failed: leave nothing behind; after a commit, a no-op */
	free(q.ctx);
	free(q.kernel_id);
	return rc;
}
