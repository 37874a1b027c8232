/* Metrics over the model: per physical GPU (busy time, overlap, concurrency, idle gaps and
 * their causes, utilisation over time), per stream and per kernel name (statistics and
 * theoretical occupancy). Then the rules (rules.c) turn them into findings. */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/array.h"
#include "util/timemath.h"

/* ------------------------------------------------------------------ configuration */

enum cfg_type { CFG_PCT, CFG_NS, CFG_RATIO, CFG_INT, CFG_BW };

struct cfg_entry {
	const char *name;
	enum cfg_type type;
	size_t offset;
	const char *what;
};

#define CFG(name, type, what) {#name, type, offsetof(struct kg_config, name), what}

static const struct cfg_entry cfg_table[] = {
	CFG(min_gain_pct, CFG_PCT, "report a finding only when it would save at least this % of the span"),
	CFG(min_gain_ns, CFG_NS, "... and at least this much time"),
	CFG(underfill_waves, CFG_RATIO, "a kernel whose grid fills fewer waves than this under-fills the GPU"),
	CFG(low_occupancy, CFG_RATIO, "theoretical occupancy below this is low (0..1)"),
	CFG(long_kernel_ns, CFG_NS, "occupancy is examined for kernels at least this long"),
	CFG(tiny_kernel_ns, CFG_NS, "kernels shorter than this are tiny (launch-overhead rule)"),
	CFG(launch_bound_ratio, CFG_RATIO, "idle time over execution time among tiny kernels above which the GPU starves on launches"),
	CFG(high_launch_latency_ns, CFG_NS, "launch latency (queued - API start) above this is high"),
	CFG(queue_wait_mark_ns, CFG_NS, "queue wait above this is marked on the chart"),
	CFG(pinned_bandwidth, CFG_BW, "copy bandwidth assumed for pinned memory when the trace has no pinned copy, GB/s"),
	CFG(imbalance_ratio, CFG_RATIO, "busiest over least busy GPU above this is an imbalance"),
	CFG(comm_skew_ns, CFG_NS, "start skew of a collective across GPUs above this makes a straggler"),
	CFG(sync_gap_ns, CFG_NS, "GPU idle gaps at least this long are explained (host, sync, launch, dependency)"),
	CFG(long_gap_ns, CFG_NS, "idle gaps at least this long are reported on their own (Nsight's gpu_gaps)"),
	CFG(util_chunks, CFG_INT, "chunks of the span for utilisation over time (Nsight's gpu_time_util)"),
	CFG(low_util, CFG_RATIO, "a chunk less busy than this is under-used (0..1)"),
	CFG(memory_bound, CFG_RATIO, "a kernel whose achieved DRAM bandwidth is at least this share of the peak is memory-bound (0..1; record --hw)"),
	CFG(min_hw_samples, CFG_INT, "hardware samples a kernel must have to itself before its achieved figures are used (record --hw)"),
	CFG(slow_rank_ratio, CFG_RATIO, "a rank whose kernels take this much longer than the same kernels on the median rank runs slow (job report)"),
};

void analysis_config_default(struct kg_config *c)
{
	memset(c, 0, sizeof(*c));
	c->min_gain_pct = 1.0;
	c->min_gain_ns = 50000;
	c->underfill_waves = 1.0;
	c->low_occupancy = 0.5;
	c->long_kernel_ns = 100000;
	c->tiny_kernel_ns = 20000;
	c->launch_bound_ratio = 1.0;
	c->high_launch_latency_ns = 100000;
	c->queue_wait_mark_ns = 100000;
	c->pinned_bandwidth = 50.0; /* bytes/ns = GB/s; an H200 moved 64 MiB pinned in 1.2 ms */
	c->imbalance_ratio = 1.25;
	c->comm_skew_ns = 500000;
	c->sync_gap_ns = 10000;
	c->long_gap_ns = 500000000;
	c->util_chunks = 30;
	c->low_util = 0.5;
	c->memory_bound = 0.6;
	c->min_hw_samples = 2;
	c->slow_rank_ratio = 1.10;
}

/* "250us", "2ms", "1.5s", "300ns" or a bare number of ns. */
static int parse_ns(const char *v, int64_t *out)
{
	char *end;
	double d = strtod(v, &end);
	if (end == v || !(d >= 0)) /* !(d >= 0): NaN too */
		return -1;
	double scale = 1;
	if (!strcmp(end, "") || !strcmp(end, "ns"))
		scale = 1;
	else if (!strcmp(end, "us"))
		scale = 1e3;
	else if (!strcmp(end, "ms"))
		scale = 1e6;
	else if (!strcmp(end, "s"))
		scale = 1e9;
	else
		return -1;
	/* 1e300s, inf: no int64 holds them, and converting one would be undefined */
	if (!(d * scale < 9.2e18))
		return -1;
	*out = (int64_t)(d * scale);
	return 0;
}

int analysis_config_set(struct kg_config *c, const char *assignment, char *err, size_t errlen)
{
	const char *eq = strchr(assignment, '=');
	if (!eq) {
		snprintf(err, errlen, "--set '%s': expected NAME=VALUE", assignment);
		return -1;
	}
	size_t n = (size_t)(eq - assignment);
	const char *v = eq + 1;
	for (size_t i = 0; i < sizeof(cfg_table) / sizeof(cfg_table[0]); i++) {
		const struct cfg_entry *e = &cfg_table[i];
		if (strlen(e->name) != n || strncmp(e->name, assignment, n))
			continue;
		char *p = (char *)c + e->offset, *end;
		int ok = 1;
		if (e->type == CFG_NS) {
			ok = parse_ns(v, (int64_t *)p) == 0;
		} else if (e->type == CFG_INT) {
			long x = strtol(v, &end, 10);
			ok = *v && !*end && x > 0 && x <= 10000;
			if (ok)
				*(int *)p = (int)x;
		} else {
			double x = strtod(v, &end);
			ok = *v && !*end && x >= 0;
			if (ok)
				*(double *)p = x;
		}
		if (!ok) {
			snprintf(err, errlen, "--set %s: '%s' is not a valid %s", e->name, v,
				 e->type == CFG_NS ? "duration (e.g. 250us, 2ms)" : "number");
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "--set: no threshold named '%.*s' (see --list-thresholds)", (int)n,
		 assignment);
	return -1;
}

void analysis_config_describe(void (*line)(const char *, const char *, const char *, void *),
			      void *arg)
{
	struct kg_config c;
	analysis_config_default(&c);
	for (size_t i = 0; i < sizeof(cfg_table) / sizeof(cfg_table[0]); i++) {
		const struct cfg_entry *e = &cfg_table[i];
		const char *p = (const char *)&c + e->offset;
		char v[64];
		if (e->type == CFG_NS)
			snprintf(v, sizeof(v), "%lldus", (long long)(*(const int64_t *)p / 1000));
		else if (e->type == CFG_INT)
			snprintf(v, sizeof(v), "%d", *(const int *)p);
		else
			snprintf(v, sizeof(v), "%g", *(const double *)p);
		line(e->name, v, e->what, arg);
	}
}

const char *gap_cause_name(enum kg_gap_cause c)
{
	static const char *const names[] = {"host", "sync", "launch", "dependency", "unknown"};
	return c < KG_GAP_CAUSES ? names[c] : "unknown";
}

const char *severity_name(enum kg_severity s)
{
	static const char *const names[] = {"info", "warning", "critical"};
	return s <= KG_SEV_CRITICAL ? names[s] : "info";
}

/* ------------------------------------------------------------------ findings */

const struct kg_rule_info kg_rules[] = {
	{"stream-serialization", "independent work serialised on one stream while others idle"},
	{"copy-compute-overlap", "copies that do not overlap kernels (pageable or synchronous)"},
	{"launch-overhead", "the GPU starving on launches of tiny kernels"},
	{"launch-latency", "long launch latency (queued - API call)"},
	{"gpu-imbalance", "unequal work across GPUs"},
	{"straggler", "a rank arriving last at collectives"},
	{"under-filled-grid", "fewer blocks than SMs"},
	{"low-occupancy", "few resident warps per SM"},
	{"memory-bound", "kernels at DRAM's peak bandwidth (record --hw)"},
	{"time-slicing", "kernels of several processes time-sliced on one GPU"},
	{"host-sync-stall", "GPU idle while the host is blocked in a synchronisation"},
	{"host-bound", "GPU idle while the host prepares work"},
	{"gpu-utilization", "low utilisation over time and long idle gaps"},
};
const size_t kg_rule_count = sizeof(kg_rules) / sizeof(kg_rules[0]);

struct kg_finding *analysis_add_finding(struct kg_analysis *a, const char *rule)
{
	size_t r = 0;
	while (r < kg_rule_count && strcmp(kg_rules[r].id, rule) != 0)
		r++;
	if (r == kg_rule_count)
		return NULL;
	rule = kg_rules[r].id;
	if (array_room((void **)&a->findings, &a->cap_findings, a->n_findings,
		       sizeof(*a->findings), 16) < 0)
		return NULL;
	struct kg_finding *f = &a->findings[a->n_findings++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->gpu = KG_NONE;
	f->start = f->end = KG_NO_TIME;
	return f;
}

void analysis_blame(struct kg_analysis *a, uint32_t api, uint32_t op, double ns)
{
	if (!(ns > 0))
		return;
	if (array_room((void **)&a->blame, &a->cap_blame, a->n_blame, sizeof(*a->blame), 1024) < 0)
		return; /* the sites miss this event; the finding and its gain stand */
	a->blame[a->n_blame++] = (struct kg_blame){api, op, ns};
}

void finding_take_blame(struct kg_analysis *a, struct kg_finding *f, uint32_t mark)
{
	f->first_blame = mark;
	f->n_blame = a->n_blame - mark;
}

void analysis_drop_blame(struct kg_analysis *a, uint32_t mark)
{
	a->n_blame = mark;
}

void finding_evidence(struct kg_finding *f, int64_t start, int64_t end, uint32_t stream,
		      uint32_t op, const char *fmt, ...)
{
	if (f->n_evidence >= KG_MAX_EVIDENCE)
		return;
	struct kg_evidence *e = &f->evidence[f->n_evidence++];
	e->start = start;
	e->end = end;
	e->stream = stream;
	e->op = op;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
}

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
	struct kg_occ_kernel k = {
		.block_threads = (int)(o->block[0] * o->block[1] * o->block[2]),
		.regs_per_thread = o->regs,
		.smem_static = (int)o->smem_static,
		.smem_dynamic = (int)o->smem_dynamic,
		.smem_config = (int)o->smem_config,
	};
	return occupancy_compute(&d, &k, r);
}

/* grid x * y * z; three uint32 from the file can pass LLONG_MAX: saturated */
static long long op_blocks(const struct kg_op *o)
{
	unsigned long long n; /* the first product fits: (2^32 - 1)^2 < 2^64 */
	if (__builtin_mul_overflow((unsigned long long)o->grid[0] * o->grid[1], o->grid[2], &n) ||
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
	double f = (double)op_blocks(o) / d->sm_count;
	return f >= 1 || f <= 0 ? 1.0 : f;
}

/* ------------------------------------------------------------------ per GPU */

/* ops[x] against ops[y] by start, then end (no global state: the GPU metrics run beside
 * other work). */
static int by_start(const struct kg_model *m, uint32_t x, uint32_t y)
{
	const struct kg_op *a = &m->ops[x], *b = &m->ops[y];
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end > b->end) - (a->end < b->end);
}

/* Min-heap of end times: the kernels running at the sweep's current time. */
struct end_heap {
	int64_t *v;
	uint32_t n;
};

static void heap_push(struct end_heap *h, int64_t x)
{
	uint32_t i = h->n++;
	while (i && h->v[(i - 1) / 2] > x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
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

/* Time with 1, 2, 3, 4+ kernels running, sweeping kernels in start order. */
static int sweep_concurrency(const struct kg_model *m, const uint32_t *idx, uint32_t n,
			     int64_t conc[4])
{
	struct end_heap h = {malloc((n + 1) * sizeof(int64_t)), 0};
	if (!h.v)
		return -ENOMEM;
	int64_t now = KG_NO_TIME;
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_op *o = &m->ops[idx[i]];
		if (o->kind != KG_OP_KERNEL)
			continue;
		while (h.n && h.v[0] <= o->start) {
			int active = (int)h.n;
			int64_t t = heap_pop(&h);
			concurrency_add(conc, active, kg_time_diff(t, now));
			now = t;
		}
		if (h.n)
			concurrency_add(conc, (int)h.n, kg_time_diff(o->start, now));
		now = o->start;
		/* an unknown end (KG_NO_TIME) or one before the start: a kernel of no length */
		heap_push(&h, o->end > o->start ? o->end : o->start);
	}
	while (h.n) {
		int active = (int)h.n;
		int64_t t = heap_pop(&h);
		concurrency_add(conc, active, kg_time_diff(t, now));
		now = t;
	}
	free(h.v);
	return 0;
}

/* Union length of the ops selected by mask (bit per kind), in start order. */
static int64_t union_of(const struct kg_model *m, const uint32_t *idx, uint32_t n, unsigned mask)
{
	int64_t total = 0, cs = 0, ce = KG_NO_TIME;
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_op *o = &m->ops[idx[i]];
		if (!(mask & (1u << o->kind)))
			continue;
		if (ce == KG_NO_TIME || o->start > ce) {
			if (ce != KG_NO_TIME)
				total = kg_time_add(total, kg_time_span(ce, cs));
			cs = o->start;
			ce = o->end;
		} else if (o->end > ce) {
			ce = o->end;
		}
	}
	if (ce != KG_NO_TIME)
		total = kg_time_add(total, kg_time_span(ce, cs));
	return total;
}

/* Blocking host calls, by process, sorted by start: what a host can be stuck in. */
struct host_waits {
	uint32_t *idx; /* api indices */
	uint32_t n;
};

static int is_blocking_api(const struct kg_model *m, const struct kg_api *a)
{
	if (a->category == KG_API_SYNC)
		return 1;
	/* a synchronous copy or memset waits for the device too */
	if (a->category == KG_API_MEMCPY || a->category == KG_API_MEMSET)
		return !strstr(model_text(m, a->name), "Async");
	return 0;
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
		if (is_blocking_api(m, &m->apis[i]))
			w->idx[w->n++] = i;
	qsort_r(w->idx, w->n, sizeof(*w->idx), api_by_start, (void *)m);
	return 0;
}

/* A blocking call of `process` that was in progress at some point of [from, to]. */
static uint32_t find_wait(const struct kg_model *m, const struct host_waits *w, uint32_t process,
			  int64_t from, int64_t to)
{
	uint32_t lo = 0, hi = w->n;
	while (lo < hi) { /* first wait starting after `to` */
		uint32_t mid = (lo + hi) / 2;
		if (m->apis[w->idx[mid]].start <= to)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t k = lo, seen = 0; k-- > 0 && seen < 64; seen++) {
		const struct kg_api *a = &m->apis[w->idx[k]];
		if (a->process == process && a->end >= from)
			return w->idx[k];
	}
	return KG_NONE;
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

static enum kg_gap_cause gap_cause(const struct kg_model *m, const struct host_waits *w,
				   struct kg_gap *g)
{
	if (g->next_op == KG_NONE)
		return KG_GAP_UNKNOWN;
	const struct kg_op *o = &m->ops[g->next_op];
	if (o->api_start == KG_NO_TIME)
		return KG_GAP_UNKNOWN;
	uint32_t process = m->streams[o->stream].process;
	if (o->api_start <= g->start) {
		/* the work was issued before the GPU went idle, yet started late */
		g->api = o->api;
		return stream_waits_on_event(m, o->stream, g->end) ? KG_GAP_DEPENDENCY : KG_GAP_LAUNCH;
	}
	uint32_t wait = find_wait(m, w, process, g->start, o->api_start);
	if (wait != KG_NONE) {
		g->api = wait;
		return KG_GAP_SYNC;
	}
	g->api = o->api;
	return KG_GAP_HOST;
}

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
	gm->gaps[gm->n_gaps++] = (struct kg_gap){s, e, next, KG_GAP_UNKNOWN, KG_NONE};
	return 0;
}

/* Busy union of all ops, its gaps, and the busy fraction per chunk of the trace span. */
static int busy_and_gaps(struct kg_analysis *a, struct kg_gpu_metrics *gm, const uint32_t *idx,
			 uint32_t n, const struct host_waits *w)
{
	const struct kg_model *m = a->m;
	int chunks = a->cfg.util_chunks > 0 ? a->cfg.util_chunks : 30;
	gm->util = calloc((size_t)chunks, sizeof(double));
	if (!gm->util)
		return -ENOMEM;
	gm->n_util = chunks;
	double chunk_ns = a->span > 0 ? (double)a->span / chunks : 1;
	uint32_t cap = 0;
	int64_t cs = 0, ce = KG_NO_TIME;
	for (uint32_t i = 0; i <= n; i++) {
		const struct kg_op *o = i < n ? &m->ops[idx[i]] : NULL;
		if (o && ce != KG_NO_TIME && o->start <= ce) {
			if (o->end > ce)
				ce = o->end;
			continue;
		}
		if (ce != KG_NO_TIME) { /* close the busy interval [cs, ce] */
			gm->busy = kg_time_add(gm->busy, kg_time_span(ce, cs));
			int c = kg_i32_of((double)kg_time_diff(cs, m->begin) / chunk_ns);
			for (int64_t t = cs; t < ce && c < chunks; c++) {
				/* chunk c ends at cend; the last chunk takes whatever is left */
				int64_t cend = c == chunks - 1 ? ce
					       : kg_time_add(m->begin, kg_i64_of((c + 1) * chunk_ns));
				int64_t seg_end = ce < cend ? ce : cend;
				if (seg_end > t)
					gm->util[c] += (double)kg_time_diff(seg_end, t);
				t = seg_end > t ? seg_end : t;
			}
		}
		if (!o)
			break;
		if (ce != KG_NO_TIME && kg_time_diff(o->start, ce) >= a->cfg.sync_gap_ns &&
		    add_gap(gm, &cap, ce, o->start, idx[i]) < 0)
			return -ENOMEM;
		cs = o->start;
		ce = o->end;
	}
	for (int c = 0; c < chunks; c++)
		gm->util[c] /= chunk_ns;
	for (uint32_t g = 0; g < gm->n_gaps; g++) {
		struct kg_gap *gap = &gm->gaps[g];
		gap->cause = (uint8_t)gap_cause(m, w, gap);
		gm->idle_by_cause[gap->cause] =
			kg_time_add(gm->idle_by_cause[gap->cause], kg_time_span(gap->end, gap->start));
	}
	return 0;
}

/* idx holds a GPU's ops grouped by stream, each group sorted by start (model_finish's
 * order): merge the groups into one start order with a heap over the group heads, O(n log
 * streams) instead of a general sort. */
static int merge_by_start(const struct kg_model *m, uint32_t *idx, uint32_t n)
{
	if (n < 2)
		return 0;
	uint32_t *out = malloc((size_t)n * sizeof(*out));
	uint32_t *head = malloc((size_t)n * sizeof(*head)); /* run cursors */
	uint32_t *end = malloc((size_t)n * sizeof(*end));
	uint32_t *heap = malloc((size_t)n * sizeof(*heap));
	if (!out || !head || !end || !heap) {
		free(out), free(head), free(end), free(heap);
		return -ENOMEM;
	}
	uint32_t runs = 0;
	for (uint32_t i = 0; i < n; i++)
		if (i == 0 || m->ops[idx[i]].stream != m->ops[idx[i - 1]].stream ||
		    by_start(m, idx[i - 1], idx[i]) > 0) {
			if (runs)
				end[runs - 1] = i;
			head[runs++] = i;
		}
	end[runs - 1] = n;
	/* binary min-heap of run numbers keyed by their head op */
#define KEY_LESS(r1, r2) (by_start(m, idx[head[r1]], idx[head[r2]]) < 0)
	uint32_t hn = 0;
	for (uint32_t r = 0; r < runs; r++) {
		uint32_t i = hn++;
		while (i && KEY_LESS(r, heap[(i - 1) / 2])) {
			heap[i] = heap[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		heap[i] = r;
	}
	for (uint32_t o = 0; o < n; o++) {
		uint32_t r = heap[0];
		out[o] = idx[head[r]++];
		uint32_t x = r;
		if (head[r] == end[r])
			x = heap[--hn];
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
	memcpy(idx, out, (size_t)n * sizeof(*idx));
	free(out), free(head), free(end), free(heap);
	return 0;
}

static int gpu_metrics(struct kg_analysis *a, uint32_t gpu, uint32_t *idx, uint32_t n,
		       const struct host_waits *w)
{
	const struct kg_model *m = a->m;
	struct kg_gpu_metrics *gm = &a->gpus[gpu];
	gm->gpu = gpu;
	if (merge_by_start(m, idx, n) < 0)
		return -ENOMEM;
	gm->ops = malloc(((size_t)n + 1) * sizeof(*gm->ops));
	if (!gm->ops)
		return -ENOMEM;
	memcpy(gm->ops, idx, (size_t)n * sizeof(*idx));
	gm->n_ops = n;
	gm->begin = n ? m->ops[idx[0]].start : KG_NO_TIME;
	gm->end = KG_NO_TIME;
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_op *o = &m->ops[idx[i]];
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
	gm->kernel_busy = union_of(m, idx, n, 1u << KG_OP_KERNEL);
	gm->copy_busy = union_of(m, idx, n, 1u << KG_OP_MEMCPY);
	int64_t both = union_of(m, idx, n, (1u << KG_OP_KERNEL) | (1u << KG_OP_MEMCPY));
	gm->copy_kernel_overlap = kg_time_diff(kg_time_add(gm->kernel_busy, gm->copy_busy), both);
	if (sweep_concurrency(m, idx, n, gm->concurrent) < 0)
		return -ENOMEM;
	return busy_and_gaps(a, gm, idx, n, w);
}

static int all_gpu_metrics(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	a->n_gpus = m->n_gpus;
	a->gpus = calloc(m->n_gpus ? m->n_gpus : 1, sizeof(*a->gpus));
	uint32_t *count = calloc(m->n_gpus + 1, sizeof(*count));
	uint32_t *idx = malloc(((size_t)m->n_ops + 1) * sizeof(*idx));
	struct host_waits w = {0};
	int rc = !a->gpus || !count || !idx ? -ENOMEM : collect_waits(m, &w);
	/* counting sort of the ops by GPU */
	for (uint32_t i = 0; !rc && i < m->n_ops; i++)
		count[op_device(m, &m->ops[i])->gpu + 1]++;
	for (uint32_t g = 0; !rc && g < m->n_gpus; g++)
		count[g + 1] += count[g];
	for (uint32_t i = 0; !rc && i < m->n_ops; i++)
		idx[count[op_device(m, &m->ops[i])->gpu]++] = i;
	/* count[g] now ends GPU g's run; its start is count[g-1] (0 for the first) */
	for (uint32_t g = 0; !rc && g < m->n_gpus; g++) {
		uint32_t begin = g ? count[g - 1] : 0;
		rc = gpu_metrics(a, g, idx + begin, count[g] - begin, &w);
	}
	free(w.idx);
	free(count);
	free(idx);
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

struct kdur {
	uint32_t name, op;
	int64_t dur;
};



/* The k-th smallest of v[0..n) (0-based), reordering v: quickselect, O(n) on average.
 * Percentiles of a million durations need two selections, not a sort. */
static int64_t select_kth(int64_t *v, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		/* median of three as the pivot keeps sorted input linear */
		int64_t a = v[lo], b = v[mid], c = v[hi];
		int64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		uint32_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* p in 0..1: nearest rank, as a sort would give. Reorders v. */
static int64_t pct(int64_t *v, uint32_t n, double p)
{
	if (!n)
		return KG_NO_TIME;
	uint32_t i = (uint32_t)(p * (n - 1) + 0.5);
	return select_kth(v, n, i < n ? i : n - 1);
}

static void kernel_occupancy(const struct kg_analysis *a, struct kg_kernel_stats *k)
{
	const struct kg_op *o = &a->m->ops[k->example_op];
	k->blocks = op_blocks(o);
	k->threads = (int)(o->block[0] * o->block[1] * o->block[2]);
	if (op_occupancy(a->m, o, &k->occ) < 0)
		return;
	struct kg_occ_device d;
	occ_device_of(op_device(a->m, o), &d);
	k->occupancy_ok = 1;
	k->waves = occupancy_waves(&d, &k->occ, k->blocks);
	if (occupancy_best_block(&d, o->regs, (int)o->smem_static, (int)o->smem_dynamic, 0,
				 &k->best_block, &k->best_grid) < 0)
		k->best_block = k->best_grid = 0;
}

/* Launch latency and queue wait of one name's kernels, from their sorted runs. */
static int phase_stats(const struct kg_analysis *a, const struct kdur *run, uint32_t n,
		       struct kg_kernel_stats *k, int64_t *tmp1, int64_t *tmp2)
{
	uint32_t nl = 0, nq = 0;
	/* Without queued times (PyTorch profiler traces) the launch figure is start - API
	 * start: it then includes the wait behind earlier work of the stream. */
	k->launch_incl_queue = !a->m->has_queued;
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_op *o = &a->m->ops[run[i].op];
		if (o->queued == KG_NO_TIME) {
			if (k->launch_incl_queue && o->api_start != KG_NO_TIME && o->start >= o->api_start)
				tmp1[nl++] = kg_time_diff(o->start, o->api_start);
			continue;
		}
		tmp2[nq++] = kg_time_diff(o->start, o->queued);
		if (o->api_start != KG_NO_TIME)
			tmp1[nl++] = kg_time_diff(o->queued, o->api_start);
	}
	k->launch_p50 = pct(tmp1, nl, 0.5);
	k->launch_p99 = pct(tmp1, nl, 0.99);
	k->queue_p50 = pct(tmp2, nq, 0.5);
	k->queue_p99 = pct(tmp2, nq, 0.99);
	return 0;
}

static int by_total_desc(const void *x, const void *y)
{
	const struct kg_kernel_stats *a = x, *b = y;
	return (a->total < b->total) - (a->total > b->total);
}

static int kernel_stats(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	uint32_t n = 0, nnames = m->strings.count + 2;
	/* bucket the kernels by name (a counting sort on the name id) */
	uint32_t *at = calloc((size_t)nnames + 1, sizeof(*at));
	struct kdur *v = malloc(((size_t)m->n_ops + 1) * sizeof(*v));
	int64_t *durs = malloc(((size_t)m->n_ops + 1) * sizeof(*durs));
	int64_t *t1 = malloc(((size_t)m->n_ops + 1) * sizeof(*t1));
	int64_t *t2 = malloc(((size_t)m->n_ops + 1) * sizeof(*t2));
	int rc = !at || !v || !durs || !t1 || !t2 ? -ENOMEM : 0;
	for (uint32_t i = 0; !rc && i < m->n_ops; i++)
		if (m->ops[i].kind == KG_OP_KERNEL && m->ops[i].name < nnames)
			at[m->ops[i].name + 1]++;
	uint32_t names = 0;
	for (uint32_t k = 0; !rc && k < nnames; k++) {
		names += at[k + 1] > 0;
		at[k + 1] += at[k];
	}
	for (uint32_t i = 0; !rc && i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind == KG_OP_KERNEL && o->name < nnames) {
			v[at[o->name]++] = (struct kdur){o->name, i, kg_time_span(o->end, o->start)};
			n++;
		}
	}
	a->kernels = rc ? NULL : calloc((size_t)names + 1, sizeof(*a->kernels));
	if (!a->kernels)
		rc = -ENOMEM;
	for (uint32_t i = 0; !rc && i < n;) {
		uint32_t j = i, longest = i;
		struct kg_kernel_stats *k = &a->kernels[a->n_kernels++];
		k->name = v[i].name;
		k->min = k->max = v[i].dur;
		while (j < n && v[j].name == v[i].name) {
			durs[j - i] = v[j].dur;
			k->total = kg_time_add(k->total, v[j].dur);
			if (v[j].dur < k->min)
				k->min = v[j].dur;
			if (v[j].dur > k->max) {
				k->max = v[j].dur;
				longest = j;
			}
			j++;
		}
		k->count = j - i;
		k->p50 = pct(durs, k->count, 0.5);
		k->p99 = pct(durs, k->count, 0.99);
		k->mean = (double)k->total / k->count;
		k->example_op = v[longest].op;
		phase_stats(a, v + i, k->count, k, t1, t2);
		kernel_occupancy(a, k);
		i = j;
	}
	if (!rc && a->n_kernels)
		qsort(a->kernels, a->n_kernels, sizeof(*a->kernels), by_total_desc);
	free(at);
	free(v);
	free(durs);
	free(t1);
	free(t2);
	return rc;
}

/* ------------------------------------------------------------------ run */

static int by_gain_desc(const void *x, const void *y)
{
	const struct kg_finding *a = x, *b = y;
	return (a->gain_ns < b->gain_ns) - (a->gain_ns > b->gain_ns);
}

int analysis_run(const struct kg_model *m, const struct kg_config *cfg, struct kg_analysis *a)
{
	memset(a, 0, sizeof(*a));
	a->m = m;
	if (cfg)
		a->cfg = *cfg;
	else
		analysis_config_default(&a->cfg);
	a->span = kg_time_span(m->end, m->begin); /* 0 when either is unknown */
	/* the per-GPU metrics (most of the work) on a second thread, beside the per-stream
	 * and per-kernel statistics: they share nothing but the model they read */
	pthread_t gpu_thread;
	struct gpu_job job = {a, 0};
	int threaded = pthread_create(&gpu_thread, NULL, gpu_metrics_main, &job) == 0;
	if (!threaded)
		job.rc = all_gpu_metrics(a);
	int rc = stream_metrics(a);
	if (!rc)
		rc = kernel_stats(a);
	if (threaded)
		pthread_join(gpu_thread, NULL);
	if (!rc)
		rc = job.rc;
	if (rc) {
		analysis_free(a);
		return rc;
	}
	if (hw_run(a) < 0) {
		analysis_free(a);
		return -ENOMEM;
	}
	rules_run(a);
	for (uint32_t i = 0; i < a->n_findings; i++) {
		struct kg_finding *f = &a->findings[i];
		f->gain_pct = a->span > 0 ? 100.0 * f->gain_ns / (double)a->span : 0;
		if (f->gain_ns <= 0)
			continue; /* a finding without an estimate keeps the severity its rule set */
		f->severity = f->gain_pct >= 10 ? KG_SEV_CRITICAL
			      : f->gain_pct >= 3 ? KG_SEV_WARNING
						 : KG_SEV_INFO;
	}
	if (a->n_findings)
		qsort(a->findings, a->n_findings, sizeof(*a->findings), by_gain_desc);
	if (sites_run(a) < 0) {
		analysis_free(a);
		return -ENOMEM;
	}
	return 0;
}

void analysis_free(struct kg_analysis *a)
{
	for (uint32_t g = 0; a->gpus && g < a->n_gpus; g++) {
		free(a->gpus[g].gaps);
		free(a->gpus[g].util);
		free(a->gpus[g].ops);
	}
	free(a->gpus);
	free(a->streams);
	free(a->kernels);
	free(a->hw_kernels);
	free(a->hw_gpus);
	free(a->findings);
	free(a->solo);
	free(a->blame);
	analysis_free_sites(a);
	memset(a, 0, sizeof(*a));
}

