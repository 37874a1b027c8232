/* The two big tables of a kgantt trace, kernels and api_calls, read on two threads.
 *
 * Each table is cut into units: its packed blocks (trace/packed.h) when the trace has
 * usable ones, else chunks of ids read as SQL rows. Two threads, each with its own SQLite
 * connection, take units in turn from one queue (kernel units, then API units), so they
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
#include "trace/trace_db.h"
#include "util/idmap.h"

#define ROW_CHUNK 16384 /* ids per unit when reading rows */
#define MEMO 64         /* per-thread cache entries, direct-mapped */
#define LAUNCH_MEMO 1024 /* ... for launches: a training step has hundreds */

enum { T_KERNELS, T_APIS, T_COUNT };
static const char *const table_name[T_COUNT] = {"kernels", "api_calls"};

struct block_ref {
	int64_t first_id;
	uint32_t rows;
	uint32_t slice;        /* its slice's index, from the table's base */
};

/* How one table is read. */
struct table_plan {
	int packed;
	uint32_t nunits;
	int64_t lo;            /* rows: unit u is ids lo + u * ROW_CHUNK ... */
	struct block_ref *blocks; /* packed: unit u is blocks[u] */
	uint32_t base;         /* the model's n_ops / n_apis before */
	uint32_t *filled;      /* rows written in each unit's slice */
};

struct scan {
	struct kgt_reader *r;  /* the main reader: its model's shared parts, under lock */
	pthread_mutex_t lock;
	atomic_uint next;      /* next unit to take, over both tables */
	atomic_int failed;     /* a thread met an error: the other stops too */
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
	struct kgt_reader r;   /* own connection and error text */
	sqlite3_stmt *st[T_COUNT];
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

static int damaged(struct kgt_reader *r, const char *table, int64_t first_id)
{
	snprintf(r->err, r->errlen, "'%s': the packed %s block at id %lld is damaged%s", r->path,
		 table, (long long)first_id,
		 packed_only(r->db) ? "" /* the blocks are the rows: nothing else to read */
				    : " (the rows themselves are read instead; 'kgantt pack' "
				      "rebuilds the blocks)");
	return -EBADMSG;
}

static int scan_block(struct slice *s, const struct block_ref *b)
{
	struct worker *w = s->w;
	sqlite3_stmt *st = w->st[s->table];
	const char *table = table_name[s->table];
	sqlite3_bind_int64(st, 1, b->first_id);
	int rc = sqlite3_step(st), err = 0;
	if (rc == SQLITE_ROW) {
		struct kg_packed_block pb;
		struct kg_row row;
		int got = -1;
		if (packed_block_open(&pb, sqlite3_column_blob(st, 0),
				      (size_t)sqlite3_column_bytes(st, 0),
				      packed_table(table)->ncolumns, b->rows) == 0)
			while (!err && (got = packed_block_row(&pb, &row)) == 1)
				err = slice_row(s, &row);
		packed_block_close(&pb);
		if (got < 0 || err == -EBADMSG)
			err = damaged(&w->r, table, b->first_id);
	} else {
		err = rc == SQLITE_DONE ? damaged(&w->r, table, b->first_id)
					: kgt_read_error(&w->r, table);
	}
	sqlite3_reset(st);
	return err;
}

static int scan_chunk(struct slice *s, int64_t first)
{
	sqlite3_stmt *st = s->w->st[s->table];
	sqlite3_bind_int64(st, 1, first);
	sqlite3_bind_int64(st, 2, first + ROW_CHUNK - 1);
	struct kg_row row;
	int rc, err = 0, ncolumns = packed_table(table_name[s->table])->ncolumns;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		row_from_stmt(&row, st, ncolumns);
		err = slice_row(s, &row);
	}
	sqlite3_reset(st);
	if (err)
		return err;
	return rc == SQLITE_DONE ? 0 : kgt_read_error(&s->w->r, table_name[s->table]);
}

static size_t slice_start(const struct table_plan *t, uint32_t u)
{
	return t->base + (t->blocks ? t->blocks[u].slice : (size_t)u * ROW_CHUNK);
}

static int scan_unit(struct worker *w, int table, uint32_t u)
{
	struct table_plan *t = &w->scan->t[table];
	struct kg_model *m = w->scan->r->m;
	size_t at = slice_start(t, u);
	struct slice s = {w, table, NULL, 0, t->blocks ? t->blocks[u].rows : ROW_CHUNK};
	s.at = table == T_KERNELS ? (void *)(m->ops + at) : (void *)(m->apis + at);
	int rc = t->blocks ? scan_block(&s, &t->blocks[u]) : scan_chunk(&s, t->lo + (int64_t)u * ROW_CHUNK);
	t->filled[u] = s.n;
	return rc;
}

static int prepare(struct worker *w)
{
	for (int i = 0; i < T_COUNT; i++) {
		const struct table_plan *t = &w->scan->t[i];
		char sql[512];
		if (!t->nunits)
			continue;
		if (t->blocks)
			snprintf(sql, sizeof(sql),
				 "SELECT data FROM packed WHERE tbl = '%s' AND first_id = ?1",
				 table_name[i]);
		else
			snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE rowid BETWEEN ?1 AND ?2",
				 packed_model_columns(packed_table(table_name[i])), table_name[i]);
		if (sqlite3_prepare_v2(w->r.db, sql, -1, &w->st[i], NULL) != SQLITE_OK)
			return kgt_read_error(&w->r, table_name[i]);
	}
	return 0;
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
	if ((w->rc = prepare(w)) != 0)
		atomic_store(&k->failed, 1);
	for (uint32_t u; !atomic_load(&k->failed) && (u = atomic_fetch_add(&k->next, 1)) < total;) {
		if ((w->rc = u < nk ? scan_unit(w, T_KERNELS, u) : scan_unit(w, T_APIS, u - nk)) != 0)
			atomic_store(&k->failed, 1);
		if (w->r.db == k->r->db && u % 8 == 0) /* the main thread */
			kgt_progress(k->r, 0.05 + 0.8 * u / total);
	}
	for (int i = 0; i < T_COUNT; i++) {
		sqlite3_finalize(w->st[i]);
		w->st[i] = NULL;
	}
}

static void *second_thread(void *arg)
{
	struct worker *w = arg;
	w->r.err = w->err;
	w->r.errlen = sizeof(w->err);
	if (sqlite3_open_v2(w->r.path, &w->r.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		w->rc = kgt_read_error(&w->r, "second connection");
		atomic_store(&w->scan->failed, 1);
	} else {
		work(w);
	}
	sqlite3_close(w->r.db);
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

/* The packed blocks of a table, in id order, with the slice each gets; 0, or 1 when they
 * do not cover the table as packed_usable promised (then the rows are read). */
static int list_blocks(struct kgt_reader *r, struct table_plan *t, const char *table)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT first_id, last_id, rows FROM packed WHERE tbl = ?1 "
			       "ORDER BY first_id",
			       -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	uint32_t cap = 0;
	uint64_t total = 0;
	int64_t last = INT64_MIN;
	int rc = 0;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		int64_t first = sqlite3_column_int64(st, 0), rows = sqlite3_column_int64(st, 2);
		if (first <= last || rows <= 0 || rows > KG_PACKED_BLOCK || total >= INT32_MAX) {
			rc = 1;
			break;
		}
		last = sqlite3_column_int64(st, 1);
		if (t->nunits == cap) {
			cap = cap ? cap * 2 : 64;
			struct block_ref *b = realloc(t->blocks, cap * sizeof(*b));
			if (!b) {
				rc = -ENOMEM;
				break;
			}
			t->blocks = b;
		}
		t->blocks[t->nunits++] = (struct block_ref){first, (uint32_t)rows, (uint32_t)total};
		total += (uint64_t)rows;
	}
	sqlite3_finalize(st);
	if (rc) {
		free(t->blocks);
		t->blocks = NULL;
		t->nunits = 0;
	}
	return rc < 0 ? kgt_oom(r) : rc;
}

/* Units of a table of `rows` rows, and the slots they need (*slots). 0 units: read it as
 * rows on one thread (ids too sparse). */
static int plan_table(struct kgt_reader *r, struct table_plan *t, const char *table, int packed,
		      int64_t rows, uint64_t *slots)
{
	*slots = 0;
	if (packed) {
		int rc = list_blocks(r, t, table);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			for (uint32_t u = 0; u < t->nunits; u++)
				*slots += t->blocks[u].rows;
			return 0;
		}
		if (packed_only(r->db)) { /* no rows to fall back on */
			snprintf(r->err, r->errlen, "'%s': the packed %s blocks are damaged (their "
				 "ids or row counts do not fit together)", r->path, table);
			return -EBADMSG;
		}
	}
	int64_t lo, hi;
	int rc = kgt_id_range(r, table, &lo, &hi);
	uint64_t span = kgt_id_span(lo, hi);
	/* A slot per id is sized by the ids, not by the rows: a few rows with ids far apart
	 * (an edited or damaged file) would reserve gigabytes. Ids sparser than that are read
	 * one by one instead, into an array that grows with the rows found. */
	if (span > (uint64_t)rows + (uint64_t)rows / 4 + ROW_CHUNK)
		span = 0;
	t->lo = lo;
	t->nunits = (uint32_t)((span + ROW_CHUNK - 1) / ROW_CHUNK);
	*slots = (uint64_t)t->nunits * ROW_CHUNK;
	return rc;
}

/* Rows of a table: COUNT(*) walks the b-tree's pages, not its rows. */
static int table_rows(struct kgt_reader *r, const char *table, int64_t *rows)
{
	char sql[64];
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s", table);
	return trace_db_int(r->db, sql, NULL, rows) == SQLITE_OK ? 0 : kgt_read_error(r, table);
}

/* Plans both tables (rows[] of each) and reserves room for their slices and for the
 * copies and memsets that follow. Without room (ids too sparse), a table is read as rows,
 * one by one. */
static int plan(struct kgt_reader *r, struct scan *k, int packed_kernels, int packed_apis,
		const int64_t rows[T_COUNT])
{
	uint64_t ops = 0, apis = 0;
	int64_t copies = 0, memsets = 0;
	int rc = plan_table(r, &k->t[T_KERNELS], "kernels", packed_kernels, rows[T_KERNELS], &ops);
	if (!rc)
		rc = plan_table(r, &k->t[T_APIS], "api_calls", packed_apis, rows[T_APIS], &apis);
	/* counted, not taken from the largest id: the room must follow the rows */
	if (!rc)
		rc = table_rows(r, "memcpys", &copies);
	if (!rc)
		rc = table_rows(r, "memsets", &memsets);
	if (rc)
		return rc;
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

static int read_tables(struct kgt_reader *r, int packed_kernels, int packed_apis,
		       const int64_t rows[T_COUNT])
{
	struct scan k = {.r = r};
	int rc = plan(r, &k, packed_kernels, packed_apis, rows);
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
		w[0]->r.err = w[0]->err;
		w[0]->r.errlen = sizeof(w[0]->err);
		threaded = !(r->opts && r->opts->one_thread) &&
			   pthread_create(&second, NULL, second_thread, w[1]) == 0;
		work(w[0]);
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
	char sql[512];
	if (!rc && !k.t[T_KERNELS].nunits && rows[T_KERNELS]) {
		snprintf(sql, sizeof(sql), "SELECT %s FROM kernels", packed_model_columns(packed_table("kernels")));
		rc = kgt_each_op_row(r, sql, "kernels", K_COLUMNS, on_kernel);
	}
	if (!rc && !k.t[T_APIS].nunits && rows[T_APIS]) {
		snprintf(sql, sizeof(sql), "SELECT %s FROM api_calls", packed_model_columns(packed_table("api_calls")));
		rc = kgt_each_op_row(r, sql, "api_calls", A_COLUMNS, on_api);
	}
	for (int i = 0; i < T_COUNT; i++) {
		free(k.t[i].blocks);
		free(k.t[i].filled);
	}
	free(w[0]);
	free(w[1]);
	return rc;
}

int kgt_read_bulk(struct kgt_reader *r)
{
	int64_t rows[T_COUNT]; /* packed_usable counts them whatever it answers */
	int only = packed_only(r->db) == 1; /* format 5: the blocks are the rows */
	int rows_only = r->opts && r->opts->rows_only && !only;
	int pk = packed_usable(r->db, "kernels", &rows[T_KERNELS]) && !rows_only;
	int pa = packed_usable(r->db, "api_calls", &rows[T_APIS]) && !rows_only;
	uint32_t n_ops = r->m->n_ops, n_apis = r->m->n_apis;
	uint64_t skipped = r->skipped;
	int rc = read_tables(r, pk, pa, rows);
	if (rc != -EBADMSG || only)
		return rc;
	/* a damaged block: say so, and read the rows */
	model_note(r->m, "%s", r->err);
	r->m->n_ops = n_ops;
	r->m->n_apis = n_apis;
	r->skipped = skipped;
	return read_tables(r, 0, 0, rows);
}
