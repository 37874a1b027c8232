#include "trace/host_import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/columns.h"
#include "util/array.h"
#include "util/idmap.h"

/* A sampled thread as its records describe it. */
struct host_thread {
	uint32_t number, tid, flags;
	uint64_t pthread;
	char *name;
	uint64_t start, wall, end; /* 0: no such record */
};

struct kg_host_import {
	struct kg_import *im;
	int64_t process;
	struct kg_import_process *p;
	int have_settings, have_counts;
	struct kg_raw_host_settings settings;
	char *python, *note;
	struct kg_raw_host_counts counts;   /* the last: the final ones */
	struct host_thread *threads;
	uint32_t nthreads, capthreads;
	struct kg_idmap by_number;          /* thread number → index in threads */
};

struct kg_host_import *host_import_new(struct kg_import *im, int64_t process,
				       struct kg_import_process *p)
{
	struct kg_host_import *h = calloc(1, sizeof(*h));
	if (h) {
		h->im = im;
		h->process = process;
		h->p = p;
	}
	return h;
}

void host_import_free(struct kg_host_import *h)
{
	if (!h)
		return;
	for (uint32_t i = 0; i < h->nthreads; i++)
		free(h->threads[i].name);
	free(h->threads);
	idmap_free(&h->by_number);
	free(h->python);
	free(h->note);
	free(h);
}

/* *dst = a copy of text (NULL stays NULL). 0 or -ENOMEM. */
static int keep_text(char **dst, const char *text)
{
	free(*dst);
	*dst = text ? strdup(text) : NULL;
	return text && !*dst ? -ENOMEM : 0;
}

int host_import_settings(struct kg_host_import *h, const struct kg_raw_host_settings *x,
			 const char *python, const char *note)
{
	h->have_settings = 1;
	h->settings = *x;
	h->p->host_sampled = 1;
	h->p->host_hz = x->hz;
	if (keep_text(&h->python, python) < 0 || keep_text(&h->note, note) < 0)
		return -ENOMEM;
	return 0;
}

int host_import_thread(struct kg_host_import *h, const struct kg_raw_host_thread *x,
		       const char *name, char *why, size_t why_size)
{
	if (x->thread == 0 || x->thread > UINT16_MAX) {
		snprintf(why, why_size, "host thread record numbers its thread %u (1 to %u)",
			 x->thread, UINT16_MAX);
		return -EINVAL;
	}
	uint32_t *slot = idmap_slot(&h->by_number, x->thread);
	if (!slot)
		return -ENOMEM;
	if (*slot == KG_IDMAP_NONE) {
		if (array_room((void **)&h->threads, &h->capthreads, h->nthreads,
			       sizeof(*h->threads), 16) < 0)
			return -ENOMEM;
		*slot = h->nthreads;
		h->threads[h->nthreads++] = (struct host_thread){.number = x->thread};
	}
	struct host_thread *t = &h->threads[*slot];
	t->tid = x->tid;
	t->flags |= x->flags;
	if (x->pthread)
		t->pthread = x->pthread;
	if (name && !t->name && keep_text(&t->name, name) < 0)
		return -ENOMEM;
	uint64_t *when = x->event == KG_HOST_THREAD_START  ? &t->start
			 : x->event == KG_HOST_THREAD_WALL ? &t->wall
			 : x->event == KG_HOST_THREAD_END  ? &t->end
							   : NULL;
	if (when && !*when)
		*when = x->ts;
	return 0;
}

/* One sample as its row (columns as trace/columns.h declares them; the id is the
 * importer's). The state byte's flags, above its three bits of state, become the
 * trace's flags (enum_host_flags: their bits shifted down). */
static void sample_row(struct kg_row *row, int64_t process, uint32_t tid, int64_t ts,
		       const struct kg_raw_host_sample *s, int64_t stack_base)
{
	row->nulls = 0;
	row->v[KG_HS_process] = process;
	row->v[KG_HS_thread] = tid;
	row->v[KG_HS_ts] = ts;
	if (s->stack)
		row->v[KG_HS_stack] = stack_base + s->stack;
	else
		row->nulls |= 1ull << KG_HS_stack, row->v[KG_HS_stack] = 0;
	row->v[KG_HS_state] = s->state & KG_HOST_STATE_MASK;
	row->v[KG_HS_flags] = s->state >> 3;
	row->v[KG_HS_overrun] = s->overrun;
}

int host_import_samples(struct kg_host_import *h, const struct kg_raw_host_samples *x,
			size_t size, int64_t stack_base, char *why, size_t why_size)
{
	if ((size - sizeof(*x)) / sizeof(struct kg_raw_host_sample) < x->count) {
		snprintf(why, why_size, "%u host samples of %zu bytes do not fit a %zu-byte record",
			 x->count, sizeof(struct kg_raw_host_sample), size);
		return -EINVAL;
	}
	/* times are base + a 32-bit step: a base this close to INT64_MAX is damage */
	if (x->base_ts > (uint64_t)INT64_MAX - UINT32_MAX) {
		snprintf(why, why_size, "host samples at %llu ns, past any clock's time",
			 (unsigned long long)x->base_ts);
		return -EINVAL;
	}
	const struct kg_raw_host_sample *s = (const void *)(x + 1);
	struct kg_row row;
	for (uint32_t i = 0; i < x->count; i++) {
		uint32_t t = idmap_get(&h->by_number, s[i].thread);
		if (t == KG_IDMAP_NONE) {
			snprintf(why, why_size,
				 "host sample %u is of thread %u, which no host thread record named",
				 i, s[i].thread);
			return -EINVAL;
		}
		sample_row(&row, h->process, h->threads[t].tid, (int64_t)(x->base_ts + s[i].dt),
			   &s[i], stack_base);
		int rc = import_add_row(h->im, KG_IM_HOST_SAMPLES, &row, KG_HOST_SAMPLE_NCOLUMNS);
		if (rc)
			return rc;
		h->p->host_samples++;
	}
	return 0;
}

int host_import_counts(struct kg_host_import *h, const struct kg_raw_host_counts *x)
{
	h->have_counts = 1;
	h->counts = *x;
	h->p->host_taken = x->taken;
	h->p->host_lost = x->lost_ring + x->lost_pending;
	return 0;
}

/* ------------------------------------------------------------------ writing */

static int sql_error(struct kg_host_import *h, const char *what)
{
	snprintf(h->im->err, sizeof(h->im->err), "cannot write '%s' (%s): %s", h->im->path, what,
		 sqlite3_errmsg(h->im->db));
	return -EIO;
}

static void bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	sqlite3_bind_int64(st, col, v > INT64_MAX ? INT64_MAX : (int64_t)v);
}

static int write_settings(struct kg_host_import *h)
{
	const struct kg_raw_host_settings *s = &h->settings;
	const struct kg_raw_host_counts *c = &h->counts;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->im->db,
			       "INSERT OR REPLACE INTO host_settings VALUES(?,?,?,?,?,?,?,?,?,?,?,?,"
			       "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_error(h, "host_settings");
	sqlite3_bind_int64(st, 1, h->process);
	import_bind_ts(st, 2, s->ts);
	sqlite3_bind_int64(st, 3, s->hz);
	sqlite3_bind_int64(st, 4, s->signal);
	sqlite3_bind_int64(st, 5, s->max_native);
	sqlite3_bind_int64(st, 6, s->max_python);
	import_bind_text(st, 7, s->unwind == KG_HOST_UNWIND_FP ? "frame pointers" : NULL);
	import_bind_text(st, 8, h->python);
	import_bind_text(st, 9, h->note);
	const uint64_t counts[] = {c->taken,	  c->written,	  c->lost_ring,	  c->lost_pending,
				   c->lost_threads, c->no_stack,  c->stale,	  c->overruns,
				   c->python_cut,   c->codes_busy, c->native_cut, c->page_checks,
				   c->handler_ns,   c->threads,	  c->timer_errors, c->handler_p50_ns,
				   c->handler_p90_ns, c->faulted};
	for (int i = 0; h->have_counts && i < (int)(sizeof(counts) / sizeof(counts[0])); i++)
		bind_u64(st, 10 + i, counts[i]);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_error(h, "host_settings");
}

static int write_threads(struct kg_host_import *h)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->im->db,
			       "INSERT OR REPLACE INTO host_threads VALUES(?,?,?,?,?,?,?,?,?)", -1,
			       &st, NULL) != SQLITE_OK)
		return sql_error(h, "host_threads");
	int rc = 0;
	for (uint32_t i = 0; !rc && i < h->nthreads; i++) {
		const struct host_thread *t = &h->threads[i];
		sqlite3_bind_int64(st, 1, h->process);
		sqlite3_bind_int64(st, 2, t->tid);
		sqlite3_bind_int64(st, 3, t->number);
		if (t->pthread)
			bind_u64(st, 4, t->pthread);
		import_bind_text(st, 5, t->name);
		sqlite3_bind_int64(st, 6, t->flags);
		import_bind_ts(st, 7, t->start);
		import_bind_ts(st, 8, t->wall);
		import_bind_ts(st, 9, t->end);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_error(h, "host_threads");
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	sqlite3_finalize(st);
	return rc;
}

int host_import_write(struct kg_host_import *h)
{
	int rc = h && h->have_settings ? write_settings(h) : 0;
	return rc || !h ? rc : write_threads(h);
}
