/* The host samples of a kgantt trace (tables host_settings, host_threads, host_samples:
 * `record --host-samples`; traces before format 6 have none) → model host_samplings, the
 * sampled threads' names, and host spans: a sample taken at t stands for the period
 * before it, of 1 + its overrun timer periods, [t - period × (1 + overrun), t], cut where
 * the thread's previous sample ends so that a thread's spans never overlap. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kgt_reader.h"

/* The trace's host_samples.flags (enum_host_flags) */
enum { FLAG_HOLDS_GIL = 2, FLAG_CPU_TIME = 4, FLAG_NATIVE_CUT = 8, FLAG_PYTHON_CUT = 16 };
#define MAX_OVERRUN 255 /* what a sample's byte holds */

struct host_load {
	struct kgt_reader *r;
	uint32_t *sampling;   /* by model process: its host_samplings index, KG_NONE */
	uint64_t unplaced;    /* samples of no sampled process, or with no time */
};

/* ------------------------------------------------------------------ settings, threads */

static int on_setting(struct host_load *l, const struct kg_store_rows *st)
{
	struct kgt_reader *r = l->r;
	uint32_t p = kgt_proc_of(r, store_int(st, 0));
	if (p == KG_NONE)
		return 0;
	struct kg_host_sampling *h = model_add_host_sampling(r->m);
	if (!h)
		return kgt_oom(r);
	int64_t hz = store_int(st, 1);
	h->process = p;
	h->hz = hz > 0 && hz <= 1000000000 ? (uint32_t)hz : 0;
	h->note = kgt_text(r, st, 2);
	h->threads = (uint32_t)store_int(st, 3);
	h->taken = (uint64_t)store_int(st, 4);
	h->lost = (uint64_t)store_int(st, 5);
	h->no_stack = (uint64_t)store_int(st, 6);
	h->lost_threads = (uint64_t)store_int(st, 7);
	h->faulted = (uint64_t)store_int(st, 8);
	l->sampling[p] = r->m->n_host_samplings - 1;
	return 0;
}

static int read_settings(struct host_load *l)
{
	struct kg_store_rows *st;
	int rc = store_read(l->r->s, KG_READ_HOST_SETTINGS, &st), got = 0;
	if (rc)
		rc = kgt_store_failed(l->r, rc);
	while (!rc && (got = store_next(st, NULL)) == 1)
		rc = on_setting(l, st);
	if (!rc && got < 0)
		rc = kgt_store_failed(l->r, got);
	store_done(st);
	return rc;
}

/* Sampled threads get their names (/proc's comm when first seen): what lanes and exports
 * call them, whatever else the trace says of them. */
static int on_thread(struct kgt_reader *r, const struct kg_store_rows *st)
{
	uint32_t p = kgt_proc_of(r, store_int(st, 0));
	const char *name = store_text(st, 2);
	if (p == KG_NONE || store_null(st, 1) || !name || !*name)
		return 0;
	uint32_t t = model_thread_index(r->m, p, store_int(st, 1));
	if (t == KG_NONE)
		return kgt_oom(r);
	r->m->threads[t].name = model_string(r->m, name);
	return 0;
}

/* ------------------------------------------------------------------ samples */

/* The period a sample of h stands for, 1 + overrun of them. */
static int64_t sample_length(const struct kg_host_sampling *h, int64_t overrun)
{
	overrun = overrun < 0 ? 0 : overrun > MAX_OVERRUN ? MAX_OVERRUN : overrun;
	return host_period_ns(h) * (1 + overrun);
}

static int known_state(int64_t state)
{
#define KNOWN_STATE_(id, code, name) if (state == code) return 1;
	KG_HOST_STATES(KNOWN_STATE_)
#undef KNOWN_STATE_
	return 0;
}

static uint8_t span_flags(const struct kg_model *m, uint32_t stack, int64_t flags)
{
	uint8_t f = 0;
	if ((flags & (FLAG_NATIVE_CUT | FLAG_PYTHON_CUT)) ||
	    (stack != KG_NONE && (m->stacks[stack].flags & KG_STACK_PARTIAL)))
		f |= KG_HOST_PARTIAL;
	if (flags & FLAG_HOLDS_GIL)
		f |= KG_HOST_HOLDS_GIL;
	if (flags & FLAG_CPU_TIME)
		f |= KG_HOST_CPU_TIME;
	return f;
}

static int on_sample(struct host_load *l, const struct kg_row *row)
{
	struct kgt_reader *r = l->r;
	struct kg_model *m = r->m;
	uint32_t p = row_is_null(row, KG_HB_process) ? KG_NONE : kgt_proc_of(r, row->v[KG_HB_process]);
	struct kg_host_sampling *h = p == KG_NONE || l->sampling[p] == KG_NONE
					     ? NULL
					     : &m->host_samplings[l->sampling[p]];
	int64_t ts = row_is_null(row, KG_HB_ts) ? 0 : row->v[KG_HB_ts];
	if (!h || !h->hz || ts <= 0 || row_is_null(row, KG_HB_thread)) {
		l->unplaced++;
		return 0;
	}
	h->samples++;
	uint32_t t = model_thread_index(m, p, row->v[KG_HB_thread]);
	struct kg_host_span *x = t == KG_NONE ? NULL : model_add_host_span(m);
	if (!x)
		return kgt_oom(r);
	int64_t len = sample_length(h, row->v[KG_HB_overrun]);
	x->end = ts;
	x->start = ts > len ? ts - len : 0;
	x->thread = t;
	if (!row_is_null(row, KG_HB_stack)) {
		uint32_t s = idmap_get(&r->stacks, (uint64_t)row->v[KG_HB_stack]);
		x->stack = s == KG_IDMAP_NONE ? KG_NONE : s;
	}
	int64_t state = row->v[KG_HB_state];
	x->state = known_state(state) ? (uint8_t)state : KG_HOST_STATE_UNKNOWN;
	x->source = KG_HOST_FROM_SAMPLES;
	x->flags = span_flags(m, x->stack, row->v[KG_HB_flags]);
	return 0;
}

static int read_samples(struct host_load *l)
{
	struct kg_store_rows *st;
	struct kg_row row;
	int rc = store_read_table(l->r->s, "host_samples", &st), got = 0;
	if (rc)
		rc = kgt_store_failed(l->r, rc);
	while (!rc && (got = store_next(st, &row)) == 1)
		rc = on_sample(l, &row);
	if (!rc && got < 0)
		rc = kgt_store_failed(l->r, got);
	store_done(st);
	return rc;
}

/* ------------------------------------------------------------------ what was lost */

static void note_losses(struct kg_model *m, uint64_t unplaced)
{
	for (uint32_t i = 0; i < m->n_host_samplings; i++) {
		const struct kg_host_sampling *h = &m->host_samplings[i];
		uint32_t pid = m->processes[h->process].pid;
		if (!h->hz) {
			model_note(m, "pid %" PRIu32 ": host samples were not taken: %s", pid,
				   h->note ? model_text(m, h->note) : "the recorder did not say why");
			continue;
		}
		if (h->faulted)
			model_note(m, "pid %" PRIu32 ": %" PRIu64 " host samples dropped: reading the "
				      "thread's memory faulted (a page unmapped after it was checked) "
				      "and the sampler caught it", pid, h->faulted);
		if (!h->lost && !h->no_stack && !h->lost_threads)
			continue;
		char more[160] = "";
		if (h->no_stack)
			snprintf(more, sizeof(more), "; %" PRIu64 " without their stack (its tables "
				 "were full)", h->no_stack);
		if (h->lost_threads)
			snprintf(more + strlen(more), sizeof(more) - strlen(more),
				 "; threads went unsampled %" PRIu64 " times (no room for them)",
				 h->lost_threads);
		model_note(m, "pid %" PRIu32 ": %" PRIu64 " of %" PRIu64 " host samples lost (the "
			      "recorder's buffers were full)%s", pid, h->lost, h->lost + h->samples,
			   more);
	}
	if (unplaced)
		model_note(m, "%" PRIu64 " host samples name no sampled process or have no time, "
			      "and were left out", unplaced);
}

int kgt_read_host(struct kgt_reader *r)
{
	if (!store_has_table(r->s, "host_settings"))
		return 0;
	struct host_load l = {.r = r};
	l.sampling = malloc(((size_t)r->m->n_processes + 1) * sizeof(*l.sampling));
	if (!l.sampling)
		return kgt_oom(r);
	memset(l.sampling, 0xff, ((size_t)r->m->n_processes + 1) * sizeof(*l.sampling));
	int rc = read_settings(&l);
	if (!rc)
		rc = kgt_each_row(r, KG_READ_HOST_THREADS, on_thread);
	if (!rc && r->m->n_host_samplings)
		rc = read_samples(&l);
	if (!rc)
		model_cut_host_spans(r->m, 0);
	if (!rc)
		note_losses(r->m, l.unplaced);
	free(l.sampling);
	return rc;
}
