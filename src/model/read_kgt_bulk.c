/* The two big tables of a kgantt trace, kernels and api_calls, read on two threads (one
 * for fewer rows than KG_RECORDS_FOR_A_THREAD).
 *
 * Each table is cut into units by the store (trace/store.h: store_plan): its packed blocks
 * when the trace has usable ones, else chunks of ids of its SQL rows. Two threads, each
 * with its own cursor of the store, take units in turn from one queue (kernel units, then API units), so they
 * stay busy until the last unit whatever the mix. A unit's rows land in their own slice of
 * an array reserved ahead (m->ops or m->apis), so the model keeps each table's order with
 * no lock; rows that are skipped leave holes at the ends of slices, closed afterwards.
 * What the threads share in the model (streams, devices, host threads) is only touched
 * under a lock, behind a per-thread cache that answers all but the first row of each.
 * A packed block that does not decode ends the packed read: the rows are read instead. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kgt_reader.h"
#include "util/idmap.h"

#define MEMO 64         /* per-thread cache entries, direct-mapped */
#define LAUNCH_MEMO 1024 /* ... for launches: a training step has hundreds */

enum { T_KERNELS, T_APIS, T_COUNT };
static const char *const table_name[T_COUNT] = {"kernels", "api_calls"};

/* How one table is read: the store's units, each with its slice of the model's array. */
struct table_plan {
	struct kg_store_plan p;
	uint32_t nunits;       /* p.nunits, or 0: read on one thread */
	uint32_t base;         /* the model's n_ops / n_apis before */
	uint32_t *filled;      /* rows written in each unit's slice */
};

struct scan {
	struct kgt_reader *r;  /* the main reader: its model's shared parts, under lock */
	pthread_mutex_t lock;
	atomic_uint next;      /* next unit to take, over both tables */
	atomic_int failed;     /* a thread met an error: the other stops too */
	struct worker *main;   /* the calling thread's, which tells the progress */
	struct table_plan t[T_COUNT];
};

struct stream_memo {
	int64_t process, device, stream;
	uint32_t context;
	uint32_t index;        /* model stream index; KG_NONE = unused */
	int has_channel;
};

struct thread_memo {
	uint32_t process;
	uint64_t tid;
	uint32_t index;        /* model thread index; KG_NONE = unused */
};

struct launch_memo {
	struct kg_launch launch;
	uint32_t index;        /* model launch index; KG_NONE = unused */
};

struct worker {
	struct scan *scan;
	struct kgt_reader r;   /* own error text */
	struct kg_store_cursor *cursor; /* own connection (the second thread's) */
	struct stream_memo streams[MEMO];
	struct thread_memo threads[MEMO];
	struct launch_memo launches[LAUNCH_MEMO];
	/* the entries the last row used: rows mostly repeat the last one's stream and thread,
	 * answered without hashing */
	struct stream_memo *last_stream;
	struct thread_memo *last_thread;
	char err[512];
	int rc;
};

/* ------------------------------------------------------------------ rows → model */

/* A kernel row's fields but its launch (kernel_launch: the model keeps each once). */
static void kernel_fields(const struct kgt_reader *r, const struct kg_row *row, struct kg_op *o)
{
	o->name = kgt_str_of(r, row->v[K_NAME]);
	o->queued = row_time(row, K_QUEUED);
	o->submitted = row_time(row, K_SUBMITTED);
	graph_of(o, row, K_GRAPH);
	if (row->v[K_DEVICE_LAUNCHED])
		o->flags |= KG_OPF_DEVICE_LAUNCHED;
}

static struct kg_launch kernel_launch(const struct kg_row *row)
{
	struct kg_launch l = {0};
	for (int i = 0; i < 3; i++) {
		l.grid[i] = (uint32_t)row->v[K_GRID + i];
		l.block[i] = (uint32_t)row->v[K_BLOCK + i];
	}
	l.regs = (uint16_t)row->v[K_REGS];
	l.smem_static = (uint32_t)row->v[K_SMEM_STATIC];
	l.smem_dynamic = (uint32_t)row->v[K_SMEM_DYNAMIC];
	l.smem_config = (uint32_t)row->v[K_SMEM_CONFIG];
	return l;
}

/* A call whose start is NULL (or INT64_MIN: KG_NO_TIME), or of no known process, is not
 * kept. */
static int api_kept(const struct kgt_reader *r, const struct kg_row *row, uint32_t *process)
{
	*process = kgt_proc_of(r, row->v[A_PROCESS]);
	return *process != KG_NONE && row_time(row, A_START) != KG_NO_TIME;
}

static void api_fields(const struct kgt_reader *r, const struct kg_row *row, struct kg_api *a)
{
	a->driver = row->v[A_DOMAIN] == 2;
	a->name = kgt_str_of(r, row->v[A_NAME]);
	a->start = row->v[A_START];
	a->end = row_is_null(row, A_END) ? a->start : row->v[A_END];
	a->correlation = (uint32_t)row->v[A_CORRELATION];
}

/* The one-thread way, for tables whose ids are too sparse for slices. */
static int on_kernel(struct kgt_reader *r, const struct kg_row *row)
{
	int err = 0;
	struct kg_op *o = kgt_new_op(r, row, KG_OP_KERNEL, &err);
	if (!o)
		return err;
	kernel_fields(r, row, o);
	struct kg_launch l = kernel_launch(row);
	if ((o->launch = model_launch(r->m, &l)) == KG_NONE)
		return kgt_oom(r);
	return 0;
}

static int on_api(struct kgt_reader *r, const struct kg_row *row)
{
	uint32_t p;
	if (!api_kept(r, row, &p))
		return 0;
	struct kg_api *a = model_add_api(r->m);
	if (!a)
		return kgt_oom(r);
	a->process = p;
	a->thread = model_thread_index(r->m, p, (uint64_t)row->v[A_THREAD]);
	api_fields(r, row, a);
	return 0;
}

/* ------------------------------------------------------------------ shared parts, cached */

/* The stream of a kernel row: from the cache, else resolved under the lock. */
/* The cache entry c answers the row: the same stream, whose channel is known unless the
 * row does not tell it either. */
static int stream_hit(const struct stream_memo *c, const struct kg_row *row)
{
	return c->index != KG_NONE && c->process == row->v[COL_PROCESS] &&
	       c->device == row->v[COL_DEVICE] && c->context == (uint32_t)row->v[COL_CONTEXT] &&
	       c->stream == row->v[COL_STREAM] && (c->has_channel || row_is_null(row, COL_CHANNEL));
}

static uint32_t worker_stream(struct worker *w, const struct kg_row *row, int *no_memory)
{
	if (w->last_stream && stream_hit(w->last_stream, row))
		return w->last_stream->index;
	int64_t process = row->v[COL_PROCESS], device = row->v[COL_DEVICE];
	uint32_t context = (uint32_t)row->v[COL_CONTEXT];
	int64_t stream = row->v[COL_STREAM];
	uint64_t h = idmap_mix((uint64_t)stream * 31 + (uint64_t)context * 7 + (uint64_t)device +
			       ((uint64_t)process << 40));
	struct stream_memo *c = &w->streams[h % MEMO];
	w->last_stream = c;
	if (stream_hit(c, row))
		return c->index;
	/* new here, or the first row that tells the stream's channel */
	struct scan *k = w->scan;
	pthread_mutex_lock(&k->lock);
	uint32_t s = kgt_row_stream(k->r, row, &w->r.skipped, no_memory);
	int has_channel = s != KG_NONE && k->r->m->streams[s].channel >= 0;
	pthread_mutex_unlock(&k->lock);
	*c = (struct stream_memo){process, device, stream, context, s, has_channel};
	return s;
}

static uint32_t worker_thread(struct worker *w, uint32_t process, uint64_t tid)
{
	struct thread_memo *c = w->last_thread;
	if (c && c->index != KG_NONE && c->process == process && c->tid == tid)
		return c->index;
	c = &w->threads[idmap_mix(tid ^ ((uint64_t)process << 48)) % MEMO];
	w->last_thread = c;
	if (c->index != KG_NONE && c->process == process && c->tid == tid)
		return c->index;
	pthread_mutex_lock(&w->scan->lock);
	uint32_t t = model_thread_index(w->scan->r->m, process, tid);
	pthread_mutex_unlock(&w->scan->lock);
	*c = (struct thread_memo){process, tid, t};
	return t;
}

/* The launch of a kernel row: from the cache (a name's kernels mostly share one), else
 * interned under the lock. KG_NONE when out of memory. */
static uint32_t worker_launch(struct worker *w, const struct kg_launch *l)
{
	uint32_t word[sizeof(*l) / sizeof(uint32_t)];
	memcpy(word, l, sizeof(word));
	uint64_t h = 0;
	for (size_t i = 0; i < sizeof(word) / sizeof(word[0]); i++)
		h = (h + word[i]) * 0x9e3779b97f4a7c15ull;
	struct launch_memo *c = &w->launches[(h >> 40) % LAUNCH_MEMO];
	if (c->index != KG_NONE && !memcmp(&c->launch, l, sizeof(*l)))
		return c->index;
	pthread_mutex_lock(&w->scan->lock);
	uint32_t x = model_launch(w->scan->r->m, l);
	pthread_mutex_unlock(&w->scan->lock);
	if (x != KG_NONE)
		*c = (struct launch_memo){*l, x};
	return x;
}

/* ------------------------------------------------------------------ one unit */

/* Where a unit's rows go, and how many it has put there. */
struct slice {
	struct worker *w;
	int table;
	void *at;              /* struct kg_op * or struct kg_api * */
	uint32_t n, cap;
};

static int slice_row(struct slice *s, const struct kg_row *row)
{
	struct worker *w = s->w;
	if (s->n >= s->cap) /* more rows than the unit can hold: its block lies */
		return -EBADMSG;
	if (s->table == T_KERNELS) {
		if (!kgt_ran(row))
			return 0;
		int no_memory = 0;
		uint32_t stream = worker_stream(w, row, &no_memory);
		if (no_memory)
			return kgt_oom(&w->r);
		if (stream == KG_NONE)
			return 0;
		struct kg_launch l = kernel_launch(row);
		uint32_t launch = worker_launch(w, &l);
		if (launch == KG_NONE)
			return kgt_oom(&w->r);
		struct kg_op *o = (struct kg_op *)s->at + s->n++;
		model_op_init(o);
		kgt_op_common(o, row, KG_OP_KERNEL, stream);
		kernel_fields(&w->r, row, o);
		o->launch = launch;
		return 0;
	}
	uint32_t p;
	if (!api_kept(&w->r, row, &p))
		return 0;
	uint32_t thread = worker_thread(w, p, (uint64_t)row->v[A_THREAD]);
	if (thread == KG_NONE)
		return kgt_oom(&w->r);
	struct kg_api *a = (struct kg_api *)s->at + s->n++;
	model_api_init(a);
	a->process = p;
	a->thread = thread;
	api_fields(&w->r, row, a);
	return 0;
}

/* The rows of a unit into its slice; a unit of more rows than it said is a damaged block. */
static int scan_rows(struct slice *s, const struct kg_store_unit *u)
{
	struct worker *w = s->w;
	struct kg_row row;
	int got, err = 0;
	while (!err && (got = store_unit_next(w->cursor, &row)) == 1)
		err = slice_row(s, &row);
	if (!err && got < 0) {
		snprintf(w->r.err, w->r.errlen, "%s", store_cursor_error(w->cursor));
		return got;
	}
	if (err == -EBADMSG)
		return store_damaged(w->scan->r->s, w->r.err, w->r.errlen, table_name[s->table],
				     u->first_id);
	return err;
}

static size_t slice_start(const struct table_plan *t, uint32_t u)
{
	return t->base + (size_t)t->p.units[u].slice;
}

static int scan_unit(struct worker *w, int table, uint32_t u)
{
	struct table_plan *t = &w->scan->t[table];
	struct kg_model *m = w->scan->r->m;
	size_t at = slice_start(t, u);
	struct slice s = {w, table, NULL, 0, t->p.units[u].rows};
	s.at = table == T_KERNELS ? (void *)(m->ops + at) : (void *)(m->apis + at);
	int rc = store_unit_open(w->cursor, &t->p, u);
	if (rc)
		snprintf(w->r.err, w->r.errlen, "%s", store_cursor_error(w->cursor));
	else
		rc = scan_rows(&s, &t->p.units[u]);
	t->filled[u] = s.n;
	return rc;
}

/* Takes units until none is left (or the other thread failed). */
static void work(struct worker *w)
{
	struct scan *k = w->scan;
	uint32_t nk = k->t[T_KERNELS].nunits, total = nk + k->t[T_APIS].nunits;
	for (int i = 0; i < MEMO; i++)
		w->streams[i].index = w->threads[i].index = KG_NONE;
	for (int i = 0; i < LAUNCH_MEMO; i++)
		w->launches[i].index = KG_NONE;
	for (uint32_t u; !atomic_load(&k->failed) && (u = atomic_fetch_add(&k->next, 1)) < total;) {
		if ((w->rc = u < nk ? scan_unit(w, T_KERNELS, u) : scan_unit(w, T_APIS, u - nk)) != 0)
			atomic_store(&k->failed, 1);
		if (w == k->main && u % 8 == 0)
			kgt_progress(k->r, 0.05 + 0.8 * u / total);
	}
}

/* A worker's cursor: the store's own connection for the main thread (own 0), a second
 * one for the other. */
static void run_worker(struct worker *w, int own)
{
	w->r.err = w->err;
	w->r.errlen = sizeof(w->err);
	if ((w->rc = store_cursor_open(w->r.s, own, &w->cursor)) != 0) {
		snprintf(w->err, sizeof(w->err), "%s",
			 w->cursor ? store_cursor_error(w->cursor) : store_error(w->r.s));
		atomic_store(&w->scan->failed, 1);
	} else {
		work(w);
	}
	store_cursor_close(w->cursor);
	w->cursor = NULL;
}

static void *second_thread(void *arg)
{
	run_worker(arg, 1);
	return NULL;
}

/* Closes the holes skipped rows left; returns the count of rows in. */
static uint32_t close_holes(const struct table_plan *t, void *array, size_t size)
{
	char *a = array;
	uint32_t n = t->base;
	for (uint32_t u = 0; u < t->nunits; u++) {
		size_t at = slice_start(t, u);
		if (at != n)
			memmove(a + (size_t)n * size, a + at * size, (size_t)t->filled[u] * size);
		n += t->filled[u];
	}
	return n;
}

/* ------------------------------------------------------------------ planning */

/* Units of a table of `rows` rows, and the slots they need (*slots). 0 units: read it as
 * rows on one thread (ids too sparse). */
static int plan_table(struct kgt_reader *r, struct table_plan *t, const char *table,
		      int rows_only, int64_t rows, uint64_t *slots)
{
	int rc = store_plan(r->s, table, rows_only, rows, &t->p);
	if (rc)
		return kgt_store_failed(r, rc);
	t->nunits = t->p.nunits;
	*slots = t->p.slots;
	return 0;
}

/* Plans both tables (rows[] of each) and reserves room for their slices and for the
 * copies and memsets that follow. Without room (ids too sparse), a table is read as rows,
 * one by one. */
static int plan(struct kgt_reader *r, struct scan *k, int rows_only, const int64_t rows[T_COUNT])
{
	uint64_t ops = 0, apis = 0;
	int64_t copies = 0, memsets = 0;
	int rc = plan_table(r, &k->t[T_KERNELS], "kernels", rows_only, rows[T_KERNELS], &ops);
	if (!rc)
		rc = plan_table(r, &k->t[T_APIS], "api_calls", rows_only, rows[T_APIS], &apis);
	/* counted, not taken from the largest id: the room must follow the rows */
	if (!rc)
		rc = store_count(r->s, "memcpys", &copies);
	if (!rc)
		rc = store_count(r->s, "memsets", &memsets);
	if (rc)
		return kgt_store_failed(r, rc);
	uint64_t other = (uint64_t)copies + (uint64_t)memsets;
	struct kg_model *m = r->m;
	k->t[T_KERNELS].base = m->n_ops;
	k->t[T_APIS].base = m->n_apis;
	if (other >= INT32_MAX)
		other = 0;
	if (ops + other + m->n_ops + 1 >= INT32_MAX ||
	    model_reserve(m, (uint32_t)(m->n_ops + ops + other + 1), m->cap_apis) < 0) {
		k->t[T_KERNELS].nunits = 0;
		other = 0;
	}
	if (apis + m->n_apis + 1 >= INT32_MAX ||
	    model_reserve(m, m->cap_ops, (uint32_t)(m->n_apis + apis + 1)) < 0)
		k->t[T_APIS].nunits = 0;
	for (int i = 0; i < T_COUNT; i++) {
		struct table_plan *t = &k->t[i];
		if (t->nunits && !(t->filled = calloc(t->nunits, sizeof(*t->filled))))
			return kgt_oom(r);
	}
	return 0;
}

/* ------------------------------------------------------------------ both tables */

static int read_tables(struct kgt_reader *r, int rows_only, const int64_t rows[T_COUNT])
{
	struct scan k = {.r = r};
	int rc = plan(r, &k, rows_only, rows);
	int threaded = 0;
	pthread_t second;
	struct worker *w[2] = {calloc(1, sizeof(struct worker)), calloc(1, sizeof(struct worker))};
	if (!rc && (!w[0] || !w[1]))
		rc = kgt_oom(r);
	if (!rc) {
		pthread_mutex_init(&k.lock, NULL);
		for (int i = 0; i < 2; i++) {
			w[i]->scan = &k;
			w[i]->r = *r;
			w[i]->r.skipped = 0;
		}
		k.main = w[0];
		threaded = !(r->opts && r->opts->one_thread) &&
			   k.t[T_KERNELS].p.slots + k.t[T_APIS].p.slots >= KG_RECORDS_FOR_A_THREAD &&
			   pthread_create(&second, NULL, second_thread, w[1]) == 0;
		run_worker(w[0], 0);
		if (threaded)
			pthread_join(second, NULL);
		pthread_mutex_destroy(&k.lock);
		rc = w[0]->rc ? w[0]->rc : w[1]->rc;
		if (rc)
			snprintf(r->err, r->errlen, "%s", w[0]->rc ? w[0]->err : w[1]->err);
		r->skipped += w[0]->r.skipped + w[1]->r.skipped;
	}
	if (!rc) {
		if (k.t[T_KERNELS].nunits)
			r->m->n_ops = close_holes(&k.t[T_KERNELS], r->m->ops, sizeof(struct kg_op));
		if (k.t[T_APIS].nunits)
			r->m->n_apis = close_holes(&k.t[T_APIS], r->m->apis, sizeof(struct kg_api));
	}
	/* tables left to rows one by one (ids too sparse for slices), when they have rows (a
	 * compacted trace has no table of them) */
	if (!rc && !k.t[T_KERNELS].nunits && rows[T_KERNELS])
		rc = kgt_each_op_row(r, KG_READ_KERNELS, on_kernel);
	if (!rc && !k.t[T_APIS].nunits && rows[T_APIS])
		rc = kgt_each_op_row(r, KG_READ_API_CALLS, on_api);
	for (int i = 0; i < T_COUNT; i++) {
		store_plan_free(&k.t[i].p);
		free(k.t[i].filled);
	}
	free(w[0]);
	free(w[1]);
	return rc;
}

int kgt_read_bulk(struct kgt_reader *r)
{
	int64_t rows[T_COUNT];
	int only = store_packed_only(r->s); /* format 5: the blocks are the rows */
	int rc = store_count(r->s, "kernels", &rows[T_KERNELS]);
	if (!rc)
		rc = store_count(r->s, "api_calls", &rows[T_APIS]);
	if (rc) { /* what packed_usable answered before: no rows then */
		rows[T_KERNELS] = rows[T_APIS] = 0;
	}
	uint32_t n_ops = r->m->n_ops, n_apis = r->m->n_apis;
	uint64_t skipped = r->skipped;
	rc = read_tables(r, r->opts && r->opts->rows_only, rows);
	if (rc != -EBADMSG || only)
		return rc;
	/* a damaged block: say so, and read the rows */
	model_note(r->m, "%s", r->err);
	r->m->n_ops = n_ops;
	r->m->n_apis = n_apis;
	r->skipped = skipped;
	return read_tables(r, 1, rows);
}
