/* Metrics over the model: per physical GPU (busy time, overlap, concurrency, idle gaps and
 * their causes, utilisation over time), per stream and per kernel name (statistics and
 * theoretical occupancy): the first step of analysis_run (pipeline.h). */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pipeline.h"
#include "util/api_names.h"
#include "util/array.h"
#include "util/timemath.h"

/* ------------------------------------------------------------------ occupancy helpers */

void occ_device_of(const struct kg_device *d, struct kg_occ_device *out)
{
	memset(out, 0, sizeof(*out));
	out->cc_major = d->cc_major;
	out->cc_minor = d->cc_minor;
	out->sm_count = d->sm_count;
	out->max_warps_per_sm = d->max_warps_per_sm;
	out->max_blocks_per_sm = d->max_blocks_per_sm;
	out->max_threads_per_block = d->max_threads_per_block ? d->max_threads_per_block : 1024;
	out->regs_per_sm = d->regs_per_sm;
	out->max_regs_per_block = d->max_regs_per_block ? d->max_regs_per_block : d->regs_per_sm;
	out->smem_per_sm = d->smem_per_sm;
	out->smem_per_block_optin = d->smem_per_block_optin;
	out->warp_size = 32;
}

static int op_occupancy(const struct kg_model *m, const struct kg_op *o, struct kg_occ_result *r)
{
	struct kg_occ_device d;
	occ_device_of(op_device(m, o), &d);
	const struct kg_launch *l = op_launch(m, o);
	struct kg_occ_kernel k = {
		.block_threads = (int)(l->block[0] * l->block[1] * l->block[2]),
		.regs_per_thread = l->regs,
		.smem_static = (int)l->smem_static,
		.smem_dynamic = (int)l->smem_dynamic,
		.smem_config = (int)l->smem_config,
	};
	return occupancy_compute(&d, &k, r);
}

/* grid x * y * z; three uint32 from the file can pass LLONG_MAX: saturated */
static long long op_blocks(const struct kg_model *m, const struct kg_op *o)
{
	const uint32_t *grid = op_launch(m, o)->grid;
	unsigned long long n; /* the first product fits: (2^32 - 1)^2 < 2^64 */
	if (__builtin_mul_overflow((unsigned long long)grid[0] * grid[1], grid[2], &n) ||
	    n > LLONG_MAX)
		return LLONG_MAX;
	return (long long)n;
}

double op_fill(const struct kg_analysis *a, const struct kg_op *o)
{
	/* A grid with at least one block per SM keeps every SM busy; more resident warps
	 * per SM is the occupancy rule's business, not concurrency's. */
	const struct kg_device *d = op_device(a->m, o);
	if (o->kind != KG_OP_KERNEL || d->sm_count <= 0)
		return 1.0;
	double f = (double)op_blocks(a->m, o) / d->sm_count;
	return f >= 1 || f <= 0 ? 1.0 : f;
}

/* ------------------------------------------------------------------ per GPU */

/* Min-heap of end times: the kernels running at the sweep's current time. */
struct end_heap {
	int64_t *v;
	uint32_t n, cap;
};

static int heap_push(struct end_heap *h, int64_t x)
{
	if (h->n == h->cap && array_room((void **)&h->v, &h->cap, h->n, sizeof(*h->v), 64) < 0)
		return -ENOMEM;
	uint32_t i = h->n++;
	while (i && h->v[(i - 1) / 2] > x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
	return 0;
}

static int64_t heap_pop(struct end_heap *h)
{
	int64_t top = h->v[0], x = h->v[--h->n];
	uint32_t i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] < h->v[c])
			c++;
		if (h->v[c] >= x)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
	return top;
}

static void concurrency_add(int64_t conc[4], int active, int64_t dt)
{
	if (active > 0 && dt > 0)
		conc[active > 4 ? 3 : active - 1] = kg_time_add(conc[active > 4 ? 3 : active - 1], dt);
}

/* Time with 1, 2, 3, 4+ kernels running: a sweep over the kernels in start order. */
struct conc_sweep {
	struct end_heap h;
	int64_t now;
};

static void conc_until(struct conc_sweep *c, int64_t conc[4], int64_t t)
{
	while (c->h.n && c->h.v[0] <= t) {
		int active = (int)c->h.n;
		int64_t e = heap_pop(&c->h);
		concurrency_add(conc, active, kg_time_diff(e, c->now));
		c->now = e;
	}
}

static int conc_step(struct conc_sweep *c, int64_t conc[4], const struct kg_op *o)
{
	conc_until(c, conc, o->start);
	if (c->h.n)
		concurrency_add(conc, (int)c->h.n, kg_time_diff(o->start, c->now));
	c->now = o->start;
	/* an unknown end (KG_NO_TIME) or one before the start: a kernel of no length */
	return heap_push(&c->h, o->end > o->start ? o->end : o->start);
}

static void conc_done(struct conc_sweep *c, int64_t conc[4])
{
	conc_until(c, conc, INT64_MAX);
	free(c->h.v);
}

/* Union length of some ops, met in start order. */
struct union_sweep {
	int64_t total, cs, ce;
};

static void union_step(struct union_sweep *u, const struct kg_op *o)
{
	if (u->ce == KG_NO_TIME || o->start > u->ce) {
		if (u->ce != KG_NO_TIME)
			u->total = kg_time_add(u->total, kg_time_span(u->ce, u->cs));
		u->cs = o->start;
		u->ce = o->end;
	} else if (o->end > u->ce) {
		u->ce = o->end;
	}
}

static int64_t union_total(const struct union_sweep *u)
{
	return u->ce != KG_NO_TIME ? kg_time_add(u->total, kg_time_span(u->ce, u->cs)) : u->total;
}

/* Solo time of each kernel: how long it was the only kernel running on its GPU. A kernel
 * is alone from max(its start, earlier kernels' ends) until the next kernel starts, so
 * each is settled when the next one comes (`held`). */
struct solo_sweep {
	int64_t running_end;   /* latest end among the kernels before `held` */
	uint32_t held;         /* op index, KG_NONE */
};

static void solo_settle(const struct kg_model *m, struct solo_sweep *s, int64_t next_start,
			int64_t *solo)
{
	if (s->held == KG_NONE)
		return;
	const struct kg_op *o = &m->ops[s->held];
	int64_t from = o->start > s->running_end ? o->start : s->running_end;
	int64_t to = next_start < o->end ? next_start : o->end;
	solo[s->held] = kg_time_span(to, from);
	/* later kernels that start before this one ends are not alone meanwhile */
	if (o->end > s->running_end)
		s->running_end = o->end;
}

static void solo_step(const struct kg_model *m, struct solo_sweep *s, uint32_t op, int64_t *solo)
{
	solo_settle(m, s, m->ops[op].start, solo);
	s->held = op;
}

/* Blocking host calls, by process, sorted by start: what a host can be stuck in. */
struct host_waits {
	uint32_t *idx; /* api indices */
	uint32_t n;
};

int api_blocks_host(const struct kg_model *m, const struct kg_api *a)
{
	return api_blocks_host_call((enum kg_api_category)a->category, model_text(m, a->name));
}

static int api_by_start(const void *x, const void *y, void *model)
{
	const struct kg_model *m = model;
	const struct kg_api *a = &m->apis[*(const uint32_t *)x];
	const struct kg_api *b = &m->apis[*(const uint32_t *)y];
	return (a->start > b->start) - (a->start < b->start);
}

static int collect_waits(const struct kg_model *m, struct host_waits *w)
{
	w->idx = malloc(((size_t)m->n_apis + 1) * sizeof(*w->idx));
	if (!w->idx)
		return -ENOMEM;
	w->n = 0;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (api_blocks_host(m, &m->apis[i]))
			w->idx[w->n++] = i;
	qsort_r(w->idx, w->n, sizeof(*w->idx), api_by_start, (void *)m);
	return 0;
}

#define WAITS_LOOKED_AT 64 /* blocking calls before `to` looked at, latest first */

/* The blocking calls of `process` in progress at some point of [from, to]: the latest
 * one (KG_NONE when none) and, in *blocked, how long the host spent in any of them
 * (their union, whole: the part before `from` too). */
static uint32_t find_wait(const struct kg_model *m, const struct host_waits *w, uint32_t process,
			  int64_t from, int64_t to, int64_t *blocked)
{
	uint32_t lo = 0, hi = w->n;
	*blocked = 0;
	while (lo < hi) { /* first wait starting after `to` */
		uint32_t mid = (lo + hi) / 2;
		if (m->apis[w->idx[mid]].start <= to)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t first = lo > WAITS_LOOKED_AT ? lo - WAITS_LOOKED_AT : 0, latest = KG_NONE;
	int64_t covered_to = KG_NO_TIME; /* the union so far ends there (calls in start order) */
	for (uint32_t k = first; k < lo; k++) {
		const struct kg_api *a = &m->apis[w->idx[k]];
		if (a->process != process || a->end < from)
			continue;
		latest = w->idx[k];
		int64_t s = covered_to != KG_NO_TIME && covered_to > a->start ? covered_to : a->start;
		if (a->end > s)
			*blocked = kg_time_add(*blocked, kg_time_span(a->end, s));
		if (covered_to == KG_NO_TIME || a->end > covered_to)
			covered_to = a->end;
	}
	return latest;
}

static int stream_waits_on_event(const struct kg_model *m, uint32_t stream, int64_t before)
{
	for (uint32_t i = 0; i < m->n_syncs; i++) {
		const struct kg_sync *y = &m->syncs[i];
		if (y->kind == KG_SYNC_STREAM_WAIT_EVENT && y->stream == stream && y->start <= before)
			return 1;
	}
	return 0;
}

/* When the host issued the op that ended gap g: its launch call, else the moment the
 * driver queued it (a trace without launch calls: kernels mode); a launch whose call was
 * not sampled, by the lead of the sampled launches that ended gaps (gap_lead: their median
 * time from call to queue, gap_lead_of; KG_NO_TIME none): a gap is where a slow call
 * shows, and the lead of all launches, a typical call's, would read it as the host's
 * delay. KG_NO_TIME unknown. */
static int64_t gap_issued(const struct kg_model *m, const struct kg_gap *g, int64_t gap_lead)
{
	if (g->next_op == KG_NONE)
		return KG_NO_TIME;
	const struct kg_op *o = &m->ops[g->next_op];
	return (o->flags & KG_OPF_ISSUED_QUEUED) && gap_lead != KG_NO_TIME ? o->queued - gap_lead
									 : op_issued(m, o);
}

/* ------------------------------------------------------------------ graph capture */

/* The host's CUDA graph captures: from a thread's cudaStreamBeginCapture to its
 * cudaStreamEndCapture (HIP's and the driver's alike; nested captures of several streams
 * are one), and its calls that instantiate or upload a graph, by process and start,
 * disjoint within a process. What the host launches then is recorded into a graph, not
 * run: the GPU idles by design while a program sets its graphs up (vLLM and SGLang
 * capture a graph per batch size at start-up). A capture whose end the trace lacks runs to
 * the trace's end; one whose beginning it lacks, from its start. */
struct capture {
	int64_t s, e;
	uint32_t process;
};
struct captures {
	struct capture *v;
	uint32_t n;
};

static int api_by_thread_start(const void *x, const void *y, void *model)
{
	const struct kg_model *m = model;
	const struct kg_api *a = &m->apis[*(const uint32_t *)x];
	const struct kg_api *b = &m->apis[*(const uint32_t *)y];
	if (a->thread != b->thread)
		return (a->thread > b->thread) - (a->thread < b->thread);
	return (a->start > b->start) - (a->start < b->start);
}

static int capture_by_process_start(const void *x, const void *y)
{
	const struct capture *a = x, *b = y;
	if (a->process != b->process)
		return (a->process > b->process) - (a->process < b->process);
	return (a->s > b->s) - (a->s < b->s);
}

/* The captures of the thread whose capture calls are idx[0..n) (by start), into c->v;
 * edge_of: api_capture_edge by name id. */
static void thread_captures(const struct kg_model *m, const uint32_t *idx, uint32_t n,
			    const int8_t *edge_of, int64_t trace_begin, int64_t trace_end,
			    struct captures *c)
{
	uint32_t depth = 0;
	int64_t open = trace_begin;
	int first = 1; /* no beginning or end met yet */
	for (uint32_t k = 0; k < n; k++) {
		const struct kg_api *a = &m->apis[idx[k]];
		int edge = edge_of[a->name];
		if (edge == 2) {
			if (!depth)
				c->v[c->n++] = (struct capture){a->start, a->end, a->process};
			continue;
		}
		if (edge > 0) {
			if (!depth++)
				open = a->start;
		} else if (depth ? !--depth : first) { /* an end with no beginning: only the
							* first (the trace began in it) */
			c->v[c->n++] = (struct capture){open, a->end, a->process};
		}
		first = 0;
	}
	if (depth)
		c->v[c->n++] = (struct capture){open, trace_end, m->apis[idx[n - 1]].process};
}

static int collect_captures(const struct kg_model *m, struct captures *c)
{
	*c = (struct captures){0};
	uint32_t n = 0, *idx = NULL;
	int64_t begin = m->begin, end = m->end;
	/* each name's edge once: a trace holds millions of calls and a few hundred names */
	int8_t *edge_of = malloc(m->strings.count + 1);
	if (!edge_of)
		return -ENOMEM;
	for (size_t id = 0; id <= m->strings.count; id++)
		edge_of[id] = (int8_t)(id ? api_capture_edge(model_text(m, (uint32_t)id)) : 0);
	for (uint32_t i = 0; i < m->n_apis; i++) {
		if (m->apis[i].name > m->strings.count || !edge_of[m->apis[i].name])
			continue;
		if (!idx && !(idx = malloc(((size_t)m->n_apis - i) * sizeof(*idx)))) {
			free(edge_of);
			return -ENOMEM;
		}
		idx[n++] = i;
	}
	if (!n) {
		free(edge_of);
		return 0;
	}
	for (uint32_t i = 0; i < m->n_apis; i++) {
		begin = begin == KG_NO_TIME || m->apis[i].start < begin ? m->apis[i].start : begin;
		end = end == KG_NO_TIME || m->apis[i].end > end ? m->apis[i].end : end;
	}
	qsort_r(idx, n, sizeof(*idx), api_by_thread_start, (void *)m);
	c->v = malloc(((size_t)n + 1) * sizeof(*c->v));
	for (uint32_t i = 0, j; c->v && i < n; i = j) {
		for (j = i; j < n && m->apis[idx[j]].thread == m->apis[idx[i]].thread; j++)
			;
		thread_captures(m, idx + i, j - i, edge_of, begin, end, c);
	}
	free(idx);
	free(edge_of);
	if (!c->v)
		return -ENOMEM;
	qsort(c->v, c->n, sizeof(*c->v), capture_by_process_start);
	uint32_t k = 0; /* the threads' captures of a process into one union */
	for (uint32_t i = 0; i < c->n; i++)
		if (k && c->v[k - 1].process == c->v[i].process && c->v[i].s <= c->v[k - 1].e)
			c->v[k - 1].e = c->v[i].e > c->v[k - 1].e ? c->v[i].e : c->v[k - 1].e;
		else
			c->v[k++] = c->v[i];
	c->n = k;
	return 0;
}

/* How much of [from, to] process spent capturing. */
static int64_t time_capturing(const struct captures *c, uint32_t process, int64_t from, int64_t to)
{
	uint32_t lo = 0, hi = c->n; /* the first capture of the process ending after from */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct capture *x = &c->v[mid];
		if (x->process < process || (x->process == process && x->e <= from))
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t in = 0;
	for (uint32_t k = lo; k < c->n && c->v[k].process == process && c->v[k].s < to; k++) {
		int64_t s = c->v[k].s > from ? c->v[k].s : from, e = c->v[k].e < to ? c->v[k].e : to;
		in = kg_time_add(in, kg_time_span(e, s));
	}
	return in;
}

/* A gap the host spent mostly capturing graphs, from the GPU's going idle to its issuing
 * the next work, is graph capture's (kg_gap_place), a short wait for the GPU before the
 * capture too (the launches_graph example synchronises, then captures). */
static int gap_captured(const struct kg_model *m, const struct captures *c,
			const struct kg_gap *g, int64_t issued)
{
	if (!c->n || (g->cause != KG_GAP_HOST && g->cause != KG_GAP_SYNC) ||
	    issued == KG_NO_TIME || issued <= g->start)
		return 0;
	uint32_t process = m->streams[m->ops[g->next_op].stream].process;
	return 2 * time_capturing(c, process, g->start, issued) >= kg_time_span(issued, g->start);
}

/* issued: when the host issued the op that ended g (gap_issued). */
static enum kg_gap_cause gap_cause(const struct kg_model *m, const struct host_waits *w,
				   struct kg_gap *g, int64_t issued)
{
	if (g->next_op == KG_NONE)
		return KG_GAP_UNKNOWN;
	const struct kg_op *o = &m->ops[g->next_op];
	if (issued == KG_NO_TIME)
		return KG_GAP_UNKNOWN;
	uint32_t process = m->streams[o->stream].process;
	if (issued <= g->start) {
		/* the work was issued before the GPU went idle, yet started late */
		g->api = o->api;
		return stream_waits_on_event(m, o->stream, g->end) ? KG_GAP_DEPENDENCY : KG_GAP_LAUNCH;
	}
	/* issued late: the host was busy, or blocked in a wait, which only its calls say */
	if (o->api_start == KG_NO_TIME && !m->has_api)
		return KG_GAP_UNKNOWN;
	int64_t blocked;
	uint32_t wait = find_wait(m, w, process, g->start, issued, &blocked);
	if (wait != KG_NONE) {
		int64_t len = kg_time_span(g->end, g->start);
		g->api = wait;
		g->sync_ns = blocked < len ? blocked : len;
		return KG_GAP_SYNC;
	}
	g->api = o->api;
	return KG_GAP_HOST;
}

/* Sampled launches that ended a gap, at least, for their median lead to date the others'. */
#define MIN_GAP_LEADS 5

/* A long gap's place: start-up while the GPU has done less than this share of its work,
 * wind-down once it has no more than this share left (kg_gap_place). */
#define STEADY_EDGE_SHARE 0.01

static int add_gap(struct kg_gpu_metrics *gm, uint32_t *cap, int64_t s, int64_t e, uint32_t next)
{
	if (gm->n_gaps == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 64;
		struct kg_gap *g = realloc(gm->gaps, nc * sizeof(*g));
		if (!g)
			return -ENOMEM;
		gm->gaps = g;
		*cap = nc;
	}
	gm->gaps[gm->n_gaps++] = (struct kg_gap){.start = s,
						  .end = e,
						  .next_op = next,
						  .cause = KG_GAP_UNKNOWN,
						  .api = KG_NONE,
						  .busy_before = gm->busy,
						  .place = KG_GAP_STEADY};
	return 0;
}

/* Busy union of all ops, its gaps, and the busy fraction per chunk of the trace span. */
struct busy_sweep {
	int64_t cs, ce;        /* the busy interval being built */
	uint32_t cap;          /* of gm->gaps */
	int chunks;
	double chunk_ns;
};

static int busy_begin(struct kg_analysis *a, struct kg_gpu_metrics *gm, struct busy_sweep *b)
{
	*b = (struct busy_sweep){.ce = KG_NO_TIME};
	b->chunks = a->cfg.util_chunks > 0 ? a->cfg.util_chunks : 30;
	if (a->span > 0 && a->span < b->chunks)
		b->chunks = (int)a->span; /* no chunk of no length */
	b->chunk_ns = a->span > 0 ? (double)a->span / b->chunks : 1;
	gm->util = calloc((size_t)b->chunks, sizeof(double));
	gm->n_util = b->chunks;
	return gm->util ? 0 : -ENOMEM;
}

/* Where chunk c begins. Chunks are whole nanoseconds, so their lengths differ by one:
 * each chunk's busy fraction is of its own length (of 992 ns in 30 chunks, one of 34 ns
 * was "1.028 busy"). */
static int64_t chunk_begin(const struct kg_model *m, const struct busy_sweep *b, int c)
{
	return kg_time_add(m->begin, kg_i64_of(c * b->chunk_ns));
}

/* The busy interval [cs, ce] into the busy time and the chunks it covers. */
static void busy_close(const struct kg_model *m, struct kg_gpu_metrics *gm,
		       const struct busy_sweep *b)
{
	int64_t cs = b->cs, ce = b->ce;
	gm->busy = kg_time_add(gm->busy, kg_time_span(ce, cs));
	int c = kg_i32_of((double)kg_time_diff(cs, m->begin) / b->chunk_ns);
	for (int64_t t = cs; t < ce && c < b->chunks; c++) {
		/* chunk c ends at cend; the last chunk takes whatever is left */
		int64_t cend = c == b->chunks - 1 ? ce : chunk_begin(m, b, c + 1);
		int64_t seg_end = ce < cend ? ce : cend;
		if (seg_end > t)
			gm->util[c] += (double)kg_time_diff(seg_end, t);
		t = seg_end > t ? seg_end : t;
	}
}

static int busy_step(struct kg_analysis *a, struct kg_gpu_metrics *gm, struct busy_sweep *b,
		     uint32_t op)
{
	const struct kg_op *o = &a->m->ops[op];
	if (b->ce != KG_NO_TIME && o->start <= b->ce) {
		if (o->end > b->ce)
			b->ce = o->end;
		return 0;
	}
	if (b->ce != KG_NO_TIME) {
		busy_close(a->m, gm, b);
		if (kg_time_diff(o->start, b->ce) >= a->cfg.sync_gap_ns &&
		    add_gap(gm, &b->cap, b->ce, o->start, op) < 0)
			return -ENOMEM;
	}
	b->cs = o->start;
	b->ce = o->end;
	return 0;
}

/* The median, over the gaps long enough to be explained (sync_gap_ns) that a sampled launch
 * ended, of the time from its call to its queued time (gap_cause); KG_NO_TIME when no gap
 * ends with an unsampled launch, or too few with a sampled one (then the process's median
 * lead of all launches, op_issued). */
static int64_t gap_lead_of(const struct kg_analysis *a, const struct kg_gpu_metrics *gm)
{
	const struct kg_model *m = a->m;
	uint32_t n = 0;
	int unsampled = 0;
	for (uint32_t g = 0; !unsampled && g < gm->n_gaps; g++)
		unsampled = gm->gaps[g].next_op != KG_NONE &&
			    (m->ops[gm->gaps[g].next_op].flags & KG_OPF_ISSUED_QUEUED);
	int64_t *lead = unsampled ? malloc(gm->n_gaps * sizeof(*lead)) : NULL;
	for (uint32_t g = 0; lead && g < gm->n_gaps; g++) {
		const struct kg_op *o = gm->gaps[g].next_op != KG_NONE ? &m->ops[gm->gaps[g].next_op]
								      : NULL;
		if (o && kg_time_span(gm->gaps[g].end, gm->gaps[g].start) >= a->cfg.sync_gap_ns &&
		    o->kind == KG_OP_KERNEL && o->api_start != KG_NO_TIME &&
		    o->queued != KG_NO_TIME && o->queued >= o->api_start)
			lead[n++] = o->queued - o->api_start;
	}
	int64_t median = KG_NO_TIME;
	if (n >= MIN_GAP_LEADS)
		median = select_kth(lead, n, n / 2);
	free(lead);
	return median;
}

static void busy_done(struct kg_analysis *a, struct kg_gpu_metrics *gm, struct busy_sweep *b,
		      const struct host_waits *w, const struct captures *caps)
{
	if (b->ce != KG_NO_TIME)
		busy_close(a->m, gm, b);
	for (int c = 0; c < b->chunks; c++) {
		int64_t end = c == b->chunks - 1 ? kg_time_add(a->m->begin, a->span)
						 : chunk_begin(a->m, b, c + 1);
		int64_t len = kg_time_span(end, chunk_begin(a->m, b, c));
		gm->util[c] /= (double)(len > 0 ? len : 1);
	}
	int64_t gap_lead = gap_lead_of(a, gm);
	for (uint32_t g = 0; g < gm->n_gaps; g++) {
		struct kg_gap *gap = &gm->gaps[g];
		int64_t issued = gap_issued(a->m, gap, gap_lead);
		gap->cause = (uint8_t)gap_cause(a->m, w, gap, issued);
		double edge = STEADY_EDGE_SHARE * (double)gm->busy;
		if (gap_captured(a->m, caps, gap, issued))
			gap->place = KG_GAP_CAPTURE;
		else if (kg_time_span(gap->end, gap->start) >= a->cfg.long_gap_ns)
			gap->place = (double)gap->busy_before < edge ? KG_GAP_STARTUP
				     : (double)(gm->busy - gap->busy_before) <= edge ? KG_GAP_WINDDOWN
										       : KG_GAP_STEADY;
	}
	gaps_tally(gm);
}

void gaps_tally(struct kg_gpu_metrics *gm)
{
	gm->idle_startup = gm->idle_winddown = gm->idle_capture = 0;
	memset(gm->idle_by_cause, 0, sizeof(gm->idle_by_cause));
	memset(gm->steady_idle_by_cause, 0, sizeof(gm->steady_idle_by_cause));
	for (uint32_t g = 0; g < gm->n_gaps; g++) {
		const struct kg_gap *gap = &gm->gaps[g];
		if (gap->place == KG_GAP_STARTUP)
			gm->idle_startup = kg_time_add(gm->idle_startup, kg_time_span(gap->end, gap->start));
		else if (gap->place == KG_GAP_WINDDOWN)
			gm->idle_winddown = kg_time_add(gm->idle_winddown, kg_time_span(gap->end, gap->start));
		else if (gap->place == KG_GAP_CAPTURE)
			gm->idle_capture = kg_time_add(gm->idle_capture, kg_time_span(gap->end, gap->start));
		for (int c = 0; c < KG_GAP_CAUSES; c++) {
			int64_t part = gap_part(gap, (enum kg_gap_cause)c);
			gm->idle_by_cause[c] = kg_time_add(gm->idle_by_cause[c], part);
			if (gap->place == KG_GAP_STEADY)
				gm->steady_idle_by_cause[c] =
					kg_time_add(gm->steady_idle_by_cause[c], part);
		}
	}
}

static void run_key(const struct kg_model *m, const uint32_t *ids, enum kg_merge_key by,
		    struct kg_op_run *r)
{
	const struct kg_op *o = &m->ops[ids ? ids[r->at] : r->at];
	r->key = by == KG_MERGE_BY_START ? o->start : op_issued_or_start(m, o);
	r->stop = o->end;
}

static int run_less(const struct kg_op_run *x, const struct kg_op_run *y)
{
	return x->key < y->key || (x->key == y->key && x->stop < y->stop);
}

/* A heap over the run heads: O(n log runs), no general sort. */
void merge_op_runs(const struct kg_model *m, const uint32_t *ids, enum kg_merge_key by,
		   struct kg_op_run *runs, uint32_t nruns, uint32_t *heap, uint32_t *out)
{
#define KEY_LESS(r1, r2) run_less(&runs[r1], &runs[r2])
	uint32_t hn = 0;
	for (uint32_t r = 0; r < nruns; r++) {
		run_key(m, ids, by, &runs[r]);
		uint32_t i = hn++;
		while (i && KEY_LESS(r, heap[(i - 1) / 2])) {
			heap[i] = heap[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		heap[i] = r;
	}
	for (uint32_t o = 0; hn; o++) {
		uint32_t r = heap[0];
		out[o] = runs[r].at++;
		uint32_t x = r;
		if (runs[r].at == runs[r].end)
			x = heap[--hn];
		else
			run_key(m, ids, by, &runs[r]);
		uint32_t i = 0;
		for (;;) { /* sift x down from the root */
			uint32_t c = 2 * i + 1;
			if (c >= hn)
				break;
			if (c + 1 < hn && KEY_LESS(heap[c + 1], heap[c]))
				c++;
			if (!KEY_LESS(heap[c], x))
				break;
			heap[i] = heap[c];
			i = c;
		}
		if (hn)
			heap[i] = x;
	}
#undef KEY_LESS
}

/* gm->ops: the GPU's ops in start order, from its streams' runs. */
static int gpu_ops_by_start(const struct kg_model *m, struct kg_gpu_metrics *gm, uint32_t n)
{
	uint32_t nruns = 0;
	for (uint32_t s = 0; s < m->n_streams; s++)
		nruns += m->streams[s].nops && m->devices[m->streams[s].device].gpu == gm->gpu;
	struct kg_op_run *runs = malloc(((size_t)nruns + 1) * sizeof(*runs));
	uint32_t *heap = malloc(((size_t)nruns + 1) * sizeof(*heap));
	gm->ops = malloc(((size_t)n + 1) * sizeof(*gm->ops));
	int rc = runs && heap && gm->ops ? 0 : -ENOMEM;
	for (uint32_t s = 0, r = 0; !rc && s < m->n_streams; s++) {
		const struct kg_stream *st = &m->streams[s];
		if (st->nops && m->devices[st->device].gpu == gm->gpu)
			runs[r++] = (struct kg_op_run){st->first_op, st->first_op + st->nops, 0, 0};
	}
	if (!rc) {
		merge_op_runs(m, NULL, KG_MERGE_BY_START, runs, nruns, heap, gm->ops);
		gm->n_ops = n;
	}
	free(runs);
	free(heap);
	return rc;
}

static void count_op(struct kg_gpu_metrics *gm, const struct kg_op *o)
{
	if (gm->end == KG_NO_TIME || o->end > gm->end)
		gm->end = o->end;
	if (o->kind == KG_OP_KERNEL) {
		gm->kernels++;
		gm->kernel_time = kg_time_add(gm->kernel_time, kg_time_span(o->end, o->start));
	} else if (o->kind == KG_OP_MEMCPY) {
		gm->copies++;
		gm->copy_total = kg_time_add(gm->copy_total, kg_time_span(o->end, o->start));
	} else {
		gm->memsets++;
	}
}

/* Every figure of a GPU in one sweep over its ops in start order: each op is read once
 * (at 10M ops, the passes are memory-bound). */
static int gpu_metrics(struct kg_analysis *a, struct kg_gpu_metrics *gm, uint32_t n,
		       const struct host_waits *w, const struct captures *c)
{
	const struct kg_model *m = a->m;
	struct union_sweep kernels = {0, 0, KG_NO_TIME}, copies = kernels, both = kernels;
	struct conc_sweep conc = {{0}, KG_NO_TIME};
	struct solo_sweep solo = {INT64_MIN, KG_NONE};
	struct busy_sweep busy;
	int rc = gpu_ops_by_start(m, gm, n);
	if (!rc)
		rc = busy_begin(a, gm, &busy);
	gm->begin = n && !rc ? m->ops[gm->ops[0]].start : KG_NO_TIME;
	gm->end = KG_NO_TIME;
	for (uint32_t i = 0; !rc && i < n; i++) {
		const struct kg_op *o = &m->ops[gm->ops[i]];
		count_op(gm, o);
		if (o->kind == KG_OP_KERNEL) {
			union_step(&kernels, o);
			rc = conc_step(&conc, gm->concurrent, o);
			solo_step(m, &solo, gm->ops[i], a->solo);
		}
		if (o->kind == KG_OP_MEMCPY)
			union_step(&copies, o);
		if (o->kind == KG_OP_KERNEL || o->kind == KG_OP_MEMCPY)
			union_step(&both, o);
		if (!rc)
			rc = busy_step(a, gm, &busy, gm->ops[i]);
	}
	conc_done(&conc, gm->concurrent);
	if (rc)
		return rc;
	solo_settle(m, &solo, INT64_MAX, a->solo);
	gm->kernel_busy = union_total(&kernels);
	gm->copy_busy = union_total(&copies);
	gm->copy_kernel_overlap =
		kg_time_diff(kg_time_add(gm->kernel_busy, gm->copy_busy), union_total(&both));
	busy_done(a, gm, &busy, w, c);
	rc = comm_metrics(a, gm);
	if (rc)
		return rc;
	/* the trace went on before its first and after its last operation: idle too, though
	 * no gap of its own work (another GPU or the host still working) */
	if (n && gm->begin != KG_NO_TIME && gm->end != KG_NO_TIME) {
		gm->idle_before = kg_time_span(gm->begin, m->begin);
		gm->idle_after = kg_time_span(m->end, gm->end);
	}
	return 0;
}

/* Ops per GPU, from their streams (each stream's ops lie together). */
static void ops_per_gpu(const struct kg_model *m, uint32_t *count)
{
	for (uint32_t s = 0; s < m->n_streams; s++)
		count[m->devices[m->streams[s].device].gpu] += m->streams[s].nops;
}

static int all_gpu_metrics(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	a->n_gpus = m->n_gpus;
	a->gpus = calloc(m->n_gpus ? m->n_gpus : 1, sizeof(*a->gpus));
	uint32_t *count = calloc(m->n_gpus + 1, sizeof(*count));
	/* by op, for the rules: written here, in the sweep that has the kernels in order */
	a->solo = calloc((size_t)m->n_ops + 1, sizeof(*a->solo));
	struct host_waits w = {0};
	struct captures c = {0};
	int rc = !a->gpus || !count || !a->solo ? -ENOMEM : collect_waits(m, &w);
	if (!rc)
		rc = collect_captures(m, &c);
	if (!rc)
		ops_per_gpu(m, count);
	for (uint32_t g = 0; !rc && g < m->n_gpus; g++) {
		a->gpus[g].gpu = g;
		rc = gpu_metrics(a, &a->gpus[g], count[g], &w, &c);
	}
	free(w.idx);
	free(c.v);
	free(count);
	return rc;
}

struct gpu_job {
	struct kg_analysis *a;
	int rc;
};

static void *gpu_metrics_main(void *arg)
{
	struct gpu_job *j = arg;
	j->rc = all_gpu_metrics(j->a);
	return NULL;
}

/* ------------------------------------------------------------------ per stream */

static int stream_metrics(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	a->streams = calloc(m->n_streams ? m->n_streams : 1, sizeof(*a->streams));
	if (!a->streams)
		return -ENOMEM;
	for (uint32_t s = 0; s < m->n_streams; s++) {
		const struct kg_stream *st = &m->streams[s];
		struct kg_stream_metrics *sm = &a->streams[s];
		sm->stream = s;
		sm->first = sm->last = KG_NO_TIME;
		int64_t cs = 0, ce = KG_NO_TIME;
		for (uint32_t i = st->first_op; i < st->first_op + st->nops; i++) {
			const struct kg_op *o = &m->ops[i];
			sm->kernels += o->kind == KG_OP_KERNEL;
			sm->copies += o->kind == KG_OP_MEMCPY;
			sm->memsets += o->kind == KG_OP_MEMSET;
			if (o->kind == KG_OP_KERNEL)
				sm->kernel_time =
					kg_time_add(sm->kernel_time, kg_time_span(o->end, o->start));
			if (sm->first == KG_NO_TIME)
				sm->first = o->start;
			if (sm->last == KG_NO_TIME || o->end > sm->last)
				sm->last = o->end;
			if (ce == KG_NO_TIME || o->start > ce) {
				if (ce != KG_NO_TIME)
					sm->busy = kg_time_add(sm->busy, kg_time_span(ce, cs));
				cs = o->start;
				ce = o->end;
			} else if (o->end > ce) {
				ce = o->end;
			}
		}
		if (ce != KG_NO_TIME)
			sm->busy = kg_time_add(sm->busy, kg_time_span(ce, cs));
	}
	return 0;
}

/* ------------------------------------------------------------------ per kernel name */

/* One kernel name's figures, gathered in passes over the ops in their order (reading
 * each op where it lies, rather than by name: a name's kernels are spread over the whole
 * trace). Its values lie in the value arrays from `first` on. */
struct name_acc {
	uint32_t first;
	uint32_t count, nl, nq;       /* durations, launch latencies, queue waits */
	int64_t total, min, max;
	uint32_t longest;             /* the first of its longest kernels */
	uint32_t stats;               /* its entry in analysis.kernels */
};

/* The arrays the passes fill, each with a slice per name (a counting sort on the name):
 * durations and launch latencies, then the queue waits where the durations were (two
 * arrays of 8 bytes a kernel, not three: 80 MB less at 10M kernels). */
struct name_values {
	int64_t *dur, *launch;
};

/* The median and the 99th percentile of v[0..n), KG_NO_TIME when n is 0. Reorders v:
 * selecting the median leaves the larger half after it, where the 99th is selected. */
static void pct_50_99(int64_t *v, uint32_t n, int64_t *p50, int64_t *p99)
{
	if (!n) {
		*p50 = *p99 = KG_NO_TIME;
		return;
	}
	uint32_t i50 = array_pct_rank(n, 0.5), i99 = array_pct_rank(n, 0.99);
	*p50 = select_kth(v, n, i50);
	*p99 = i99 > i50 ? select_kth(v + i50 + 1, n - i50 - 1, i99 - i50 - 1) : *p50;
}

static void kernel_occupancy(const struct kg_analysis *a, struct kg_kernel_stats *k)
{
	const struct kg_op *o = &a->m->ops[k->example_op];
	const struct kg_launch *l = op_launch(a->m, o);
	k->blocks = op_blocks(a->m, o);
	k->threads = (int)(l->block[0] * l->block[1] * l->block[2]);
	/* CUDA's occupancy tables say nothing of an AMD GPU (its "compute capability" is a
	 * gfx version, its wavefronts 64 wide): no figure rather than a wrong one */
	if (op_device(a->m, o)->vendor == KG_VENDOR_AMD || op_occupancy(a->m, o, &k->occ) < 0)
		return;
	struct kg_occ_device d;
	occ_device_of(op_device(a->m, o), &d);
	k->occupancy_ok = 1;
	k->waves = occupancy_waves(&d, &k->occ, k->blocks);
	if (occupancy_best_block(&d, l->regs, (int)l->smem_static, (int)l->smem_dynamic, 0,
				 &k->best_block, &k->best_grid) < 0)
		k->best_block = k->best_grid = 0;
}

/* Adds kernel ops[i]'s duration and launch latency to its name's figures. Without
 * queued times (PyTorch profiler traces) the launch figure is start - API start: it then
 * includes the wait behind earlier work of the stream. */
static void name_add(const struct kg_op *o, uint32_t i, int launch_incl_queue,
		     struct name_acc *n, struct name_values *v)
{
	int64_t dur = kg_time_span(o->end, o->start);
	if (!n->count || dur < n->min)
		n->min = dur;
	if (!n->count || dur > n->max) {
		n->max = dur;
		n->longest = i;
	}
	n->total = kg_time_add(n->total, dur);
	v->dur[n->first + n->count++] = dur;
	if (o->queued == KG_NO_TIME) {
		if (launch_incl_queue && o->api_start != KG_NO_TIME && o->start >= o->api_start)
			v->launch[n->first + n->nl++] = kg_time_diff(o->start, o->api_start);
	} else if (o->api_start != KG_NO_TIME) {
		v->launch[n->first + n->nl++] = kg_time_diff(o->queued, o->api_start);
	}
}

/* The statistics of a name from its durations and launch latencies (reorders them). */
static void name_stats(const struct kg_analysis *a, uint32_t name, const struct name_acc *n,
		       const struct name_values *v, struct kg_kernel_stats *k)
{
	k->name = name;
	k->count = n->count;
	k->total = n->total;
	k->min = n->min;
	k->max = n->max;
	pct_50_99(v->dur + n->first, n->count, &k->p50, &k->p99);
	k->mean = (double)k->total / k->count;
	k->example_op = n->longest;
	k->launch_incl_queue = !a->m->has_queued;
	pct_50_99(v->launch + n->first, n->nl, &k->launch_p50, &k->launch_p99);
	kernel_occupancy(a, k);
}

/* The queue waits (start - queued) of every name, in the durations' place. */
static void queue_stats(struct kg_analysis *a, struct name_acc *acc, uint32_t nnames,
			int64_t *queue)
{
	const struct kg_model *m = a->m;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind == KG_OP_KERNEL && o->name < nnames && o->queued != KG_NO_TIME) {
			struct name_acc *n = &acc[o->name];
			queue[n->first + n->nq++] = kg_time_diff(o->start, o->queued);
		}
	}
	for (uint32_t k = 0; k < nnames; k++) {
		if (!acc[k].count)
			continue;
		struct kg_kernel_stats *ks = &a->kernels[acc[k].stats];
		pct_50_99(queue + acc[k].first, acc[k].nq, &ks->queue_p50, &ks->queue_p99);
	}
}

static int by_total_desc(const void *x, const void *y)
{
	const struct kg_kernel_stats *a = x, *b = y;
	return (a->total < b->total) - (a->total > b->total);
}

static int is_named_kernel(const struct kg_op *o, uint32_t nnames)
{
	return o->kind == KG_OP_KERNEL && o->name < nnames;
}

static int kernel_stats(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	uint32_t nnames = m->strings.count + 2, kernels = 0, names = 0;
	struct name_acc *acc = calloc(nnames, sizeof(*acc));
	for (uint32_t i = 0; acc && i < m->n_ops; i++)
		if (is_named_kernel(&m->ops[i], nnames)) {
			acc[m->ops[i].name].count++;
			kernels++;
		}
	struct name_values v = {0};
	if (acc) {
		v.dur = malloc(((size_t)kernels + 1) * sizeof(*v.dur));
		v.launch = malloc(((size_t)kernels + 1) * sizeof(*v.launch));
	}
	int rc = acc && v.dur && v.launch ? 0 : -ENOMEM;
	for (uint32_t k = 0, first = 0; !rc && k < nnames; k++) {
		acc[k].first = first;
		first += acc[k].count;
		names += acc[k].count > 0;
		acc[k].count = 0;
	}
	int launch_incl_queue = !m->has_queued;
	for (uint32_t i = 0; !rc && i < m->n_ops; i++)
		if (is_named_kernel(&m->ops[i], nnames))
			name_add(&m->ops[i], i, launch_incl_queue, &acc[m->ops[i].name], &v);
	a->kernels = rc ? NULL : calloc((size_t)names + 1, sizeof(*a->kernels));
	if (!a->kernels)
		rc = -ENOMEM;
	for (uint32_t k = 0; !rc && k < nnames; k++)
		if (acc[k].count) {
			acc[k].stats = a->n_kernels;
			name_stats(a, k, &acc[k], &v, &a->kernels[a->n_kernels++]);
		}
	if (!rc)
		queue_stats(a, acc, nnames, v.dur);
	if (!rc && a->n_kernels)
		qsort(a->kernels, a->n_kernels, sizeof(*a->kernels), by_total_desc);
	free(acc);
	free(v.dur);
	free(v.launch);
	return rc;
}

/* ------------------------------------------------------------------ all of them */

int metrics_run(struct kg_analysis *a)
{
	/* the per-GPU metrics (most of the work) on a second thread, beside the per-stream
	 * and per-kernel statistics: they share nothing but the model they read */
	pthread_t gpu_thread;
	struct gpu_job job = {a, 0};
	int threaded = a->m->n_ops >= KG_RECORDS_FOR_A_THREAD &&
		       pthread_create(&gpu_thread, NULL, gpu_metrics_main, &job) == 0;
	if (!threaded)
		job.rc = all_gpu_metrics(a);
	int rc = stream_metrics(a);
	if (!rc)
		rc = kernel_stats(a);
	if (threaded)
		pthread_join(gpu_thread, NULL);
	return rc ? rc : job.rc;
}
