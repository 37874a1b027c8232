/* Lanes and the time axis of the Gantt chart (layout.h). */
#include "render/layout.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/timemath.h"

/* Natural heights, px. A stream lane is the tallest: it carries blocks with names, the
 * launch and queue phases and the annotation marks. */
#define STREAM_H 30.0
#define API_H 18.0
#define NVTX_LEVEL_H 13.0
#define NVTX_PAD 4.0
#define MAX_LEVELS 6
#define PROCESS_HEADER_H 22.0
#define DEVICE_HEADER_H 18.0
#define GROUP_GAP 6.0
#define HW_NOTE_H 20.0     /* the strip of a device without samples: one line of note */

/* ---------------------------------------------------------------- time mapping */

double layout_x(const struct kg_layout *l, int64_t t)
{
	/* clamp by comparison, never by subtracting t: t may be anything, KG_NO_TIME too;
	 * the window's own ends are the file's times, so even they saturate */
	int64_t span = kg_time_diff(l->t1, l->t0);
	int64_t lo = kg_time_add(l->t0, -span), hi = kg_time_add(l->t1, span);
	t = t < lo ? lo : t > hi ? hi : t;
	return l->x0 + (double)kg_time_diff(t, l->t0) * l->px_per_ns;
}

double layout_ns_per_px(const struct kg_layout *l)
{
	return l->px_per_ns > 0 ? 1.0 / l->px_per_ns : 1.0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The unit times up to `span` from the origin read best in: s, ms, µs or ns (divisor in
 * ns). Deep into a long trace that stays ms even for a 50 µs window: "40.02 ms" reads
 * better than "40020 µs". */
static int64_t unit_of(int64_t span, const char **name)
{
	if (span >= 2000000000) {
		*name = "s";
		return 1000000000;
	}
	if (span >= 2000000) {
		*name = "ms";
		return 1000000;
	}
	if (span >= 2000) {
		*name = "µs";
		return 1000;
	}
	*name = "ns";
	return 1;
}

static void format_rel(int64_t rel, int64_t unit, const char *uname, int decimals,
		       char buf[32])
{
	snprintf(buf, 32, "%.*f %s", decimals, (double)rel / (double)unit, uname);
}

int64_t layout_time_scale(const struct kg_layout *l, int64_t origin)
{
	int64_t a = kg_time_diff(l->t0, origin), b = kg_time_diff(l->t1, origin);
	a = a < 0 ? -a : a;
	b = b < 0 ? -b : b;
	return a > b ? a : b;
}

const char *layout_time_label(int64_t t, int64_t origin, int64_t scale, char buf[32])
{
	const char *uname;
	int64_t unit = unit_of(scale, &uname);
	format_rel(kg_time_diff(t, origin), unit, uname, unit > 1 ? 3 : 0, buf);
	return buf;
}

/* The smallest 1, 2 or 5 × 10^k not below raw. */
static int64_t nice_step(int64_t raw)
{
	int64_t p = 1;
	while (p <= INT64_MAX / 10 && p * 10 <= raw)
		p *= 10;
	if (p >= raw)
		return p;
	if (2 * p >= raw)
		return 2 * p;
	if (5 * p >= raw)
		return 5 * p;
	return p <= INT64_MAX / 10 ? 10 * p : INT64_MAX; /* p is at most 10^18 */
}

int layout_ticks(const struct kg_layout *l, int64_t origin, int target, struct kg_tick *ticks,
		 int max)
{
	int64_t span = kg_time_diff(l->t1, l->t0);
	if (span <= 0 || target < 1)
		return 0;
	int64_t step = nice_step(span / target > 0 ? span / target : 1);
	const char *uname;
	int64_t unit = unit_of(layout_time_scale(l, origin), &uname);
	/* as many decimals as the step needs in that unit: 0.2 ms -> 1, 50 µs in ms -> 2 */
	int decimals = unit > step ? (int)ceil(log10((double)unit / (double)step) - 1e-9) : 0;
	int n = 0;
	/* the first multiple of step from the origin in the window; an origin too far from
	 * the window for that to fit (a trace of absurd times) gets no ticks */
	int64_t first;
	if (__builtin_mul_overflow(floor_div(kg_time_diff(l->t0, origin), step), step, &first))
		return 0;
	int64_t t = kg_time_add(origin, first);
	if (t < l->t0)
		t = kg_time_add(t, step);
	for (; t <= l->t1 && n < max; t = kg_time_add(t, step)) {
		ticks[n].t = t;
		format_rel(kg_time_diff(t, origin), unit, uname, decimals, ticks[n].label);
		n++;
	}
	return n;
}

/* ---------------------------------------------------------------- what is in the window */

int layout_op_in_window(const struct kg_op *o, int64_t t0, int64_t t1)
{
	if (o->start == KG_NO_TIME || o->end == KG_NO_TIME)
		return 0;
	int64_t end = o->end > o->start ? o->end : o->start;
	return o->start < t1 && (end > t0 || (end == o->start && o->start >= t0));
}

int layout_stream_selected(const struct kg_model *m, const struct kg_layout_opts *o, uint32_t s)
{
	const struct kg_stream *st = &m->streams[s];
	if (o->device >= 0 && m->devices[st->device].ordinal != o->device)
		return 0;
	if (o->streams) {
		int found = 0;
		for (int i = 0; i < o->n_streams && !found; i++)
			found = o->streams[i] == st->id;
		if (!found)
			return 0;
	}
	return 1;
}

static int stream_wanted(const struct kg_model *m, const struct kg_layout_opts *o, uint32_t s)
{
	if (!layout_stream_selected(m, o, s))
		return 0;
	const struct kg_stream *st = &m->streams[s];
	for (uint32_t i = 0; i < st->nops; i++)
		if (layout_op_in_window(&m->ops[st->first_op + i], o->t0, o->t1))
			return 1;
	return 0;
}

/* ---------------------------------------------------------------- host records by owner */

static int by_start_api(const void *a, const void *b, void *arg)
{
	const struct kg_api *apis = arg;
	int64_t x = apis[*(const uint32_t *)a].start, y = apis[*(const uint32_t *)b].start;
	return (x > y) - (x < y);
}

static int by_start_range(const void *a, const void *b, void *arg)
{
	const struct kg_range *r = arg;
	int64_t x = r[*(const uint32_t *)a].start, y = r[*(const uint32_t *)b].start;
	return (x > y) - (x < y);
}

/* Counting sort of n records into nb buckets (key(m, i) in [0, nb), or KG_NONE to leave
 * it out), then each bucket by start. first gets nb + 1 entries. */
static int bucket_sort(const struct kg_model *m, uint32_t n, uint32_t nb,
		       uint32_t (*key)(const struct kg_model *, uint32_t), const void *recs,
		       int (*cmp)(const void *, const void *, void *), uint32_t **order,
		       uint32_t **first)
{
	*first = calloc((size_t)nb + 2, sizeof(uint32_t));
	*order = malloc(((size_t)n + 1) * sizeof(uint32_t));
	uint32_t *fill = malloc(((size_t)nb + 1) * sizeof(uint32_t));
	if (!*first || !*order || !fill) {
		free(fill);
		return -ENOMEM;
	}
	uint32_t *f = *first;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = key(m, i);
		if (k < nb)
			f[k + 1]++;
	}
	for (uint32_t b = 0; b < nb; b++)
		f[b + 1] += f[b];
	memcpy(fill, f, ((size_t)nb + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = key(m, i);
		if (k < nb)
			(*order)[fill[k]++] = i;
	}
	free(fill);
	/* readers mostly deliver records in time order already: sort only when needed */
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t *p = *order + f[b], len = f[b + 1] - f[b];
		for (uint32_t i = 1; i < len; i++)
			if (cmp(&p[i - 1], &p[i], (void *)recs) > 0) {
				qsort_r(p, len, sizeof(*p), cmp, (void *)recs);
				break;
			}
	}
	return 0;
}

static uint32_t api_key(const struct kg_model *m, uint32_t i)
{
	return m->apis[i].thread;
}

/* Ranges of a thread go to the thread's bucket, thread-less ones to n_threads + process. */
static uint32_t range_key(const struct kg_model *m, uint32_t i)
{
	const struct kg_range *r = &m->ranges[i];
	if (r->thread != KG_NONE && r->thread < m->n_threads)
		return r->thread;
	return r->process < m->n_processes ? m->n_threads + r->process : KG_NONE;
}

/* Nesting level of every range of one owner, in start order; returns the deepest + 1
 * among those in the window. */
static int range_levels(const struct kg_model *m, const uint32_t *idx, uint32_t n,
			uint8_t *level, int64_t t0, int64_t t1)
{
	int64_t stack[64];
	int depth = 0, deepest = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_range *r = &m->ranges[idx[i]];
		int64_t end = r->end == KG_NO_TIME ? INT64_MAX : r->end;
		while (depth > 0 && stack[depth - 1] <= r->start)
			depth--;
		level[idx[i]] = (uint8_t)(depth < 255 ? depth : 255);
		if ((end > t0 || end == r->start) && r->start < t1 && depth + 1 > deepest)
			deepest = depth + 1;
		if (depth < 64)
			stack[depth++] = end;
	}
	return deepest;
}

static int any_api_in(const struct kg_model *m, const struct kg_layout *l, uint32_t t)
{
	for (uint32_t i = l->api_first[t]; i < l->api_first[t + 1]; i++) {
		const struct kg_api *a = &m->apis[l->api_order[i]];
		if (a->start < l->t1 && a->end >= l->t0)
			return 1;
	}
	return 0;
}

static int host_index(const struct kg_model *m, struct kg_layout *l)
{
	if (bucket_sort(m, m->n_apis, m->n_threads, api_key, m->apis, by_start_api,
			&l->api_order, &l->api_first) < 0 ||
	    bucket_sort(m, m->n_ranges, m->n_threads + m->n_processes, range_key, m->ranges,
			by_start_range, &l->range_order, &l->range_first) < 0)
		return -ENOMEM;
	l->range_level = calloc((size_t)m->n_ranges + 1, 1);
	l->span_first = malloc(((size_t)m->n_threads + 1) * sizeof(uint32_t));
	if (!l->range_level || !l->span_first)
		return -ENOMEM;
	uint32_t k = 0; /* the spans are in (thread, start) order (model_finish) */
	for (uint32_t t = 0; t <= m->n_threads; t++) {
		while (k < m->n_host_spans && m->host_spans[k].thread < t)
			k++;
		l->span_first[t] = k;
	}
	return 0;
}

uint32_t layout_first_span(const struct kg_model *m, const struct kg_layout *l, uint32_t t,
			   int64_t t0)
{
	uint32_t lo = l->span_first[t], hi = l->span_first[t + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->host_spans[mid].end > t0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* ---------------------------------------------------------------- building */

struct builder {
	const struct kg_model *m;
	const struct kg_layout_opts *o;
	struct kg_layout *l;
	uint32_t cap_lanes, cap_headers;
	double y;
	uint32_t cap_strips;
};

/* The strip under thread t's API lane: when it has a host span in the window. */
static double strip_of(const struct kg_model *m, const struct builder *b, uint32_t t)
{
	const struct kg_layout *l = b->l;
	uint32_t i = layout_first_span(m, l, t, l->t0);
	return b->o->host_strip_h > 0 && i < l->span_first[t + 1] &&
	       m->host_spans[i].start < l->t1 ? b->o->host_strip_h : 0;
}

static struct kg_lane *add_lane(struct builder *b, enum kg_lane_kind kind, uint32_t process,
				double h)
{
	struct kg_layout *l = b->l;
	if (l->n_lanes == b->cap_lanes) {
		uint32_t cap = b->cap_lanes ? 2 * b->cap_lanes : 16;
		struct kg_lane *p = realloc(l->lanes, cap * sizeof(*p));
		if (!p)
			return NULL;
		l->lanes = p;
		b->cap_lanes = cap;
	}
	struct kg_lane *ln = &l->lanes[l->n_lanes++];
	*ln = (struct kg_lane){kind, process, KG_NONE, KG_NONE, KG_NONE, 1, b->y, h, 0};
	b->y += h;
	return ln;
}

static int add_header(struct builder *b, enum kg_header_kind kind, uint32_t index, double h)
{
	struct kg_layout *l = b->l;
	if (l->n_headers == b->cap_headers) {
		uint32_t cap = b->cap_headers ? 2 * b->cap_headers : 8;
		struct kg_header *p = realloc(l->headers, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->headers = p;
		b->cap_headers = cap;
	}
	l->headers[l->n_headers++] = (struct kg_header){kind, index, b->y, h};
	b->y += h;
	return 0;
}

/* The NVTX lane of one owner bucket, when it has ranges in the window. */
static int add_nvtx_lane(struct builder *b, uint32_t bucket, uint32_t process, uint32_t thread,
			 uint32_t *lane_out)
{
	const struct kg_model *m = b->m;
	struct kg_layout *l = b->l;
	uint32_t first = l->range_first[bucket], n = l->range_first[bucket + 1] - first;
	int levels = range_levels(m, l->range_order + first, n, l->range_level, l->t0, l->t1);
	if (levels == 0)
		return 0;
	levels = levels > MAX_LEVELS ? MAX_LEVELS : levels;
	struct kg_lane *ln = add_lane(b, KG_LANE_NVTX, process, levels * NVTX_LEVEL_H + NVTX_PAD);
	if (!ln)
		return -ENOMEM;
	ln->thread = thread;
	ln->levels = levels;
	*lane_out = l->n_lanes - 1;
	return 0;
}

/* Threads of a process, the main thread (tid == pid) first, then by tid. */
static int threads_of(const struct kg_model *m, uint32_t p, uint32_t *out)
{
	int n = 0;
	for (uint32_t t = 0; t < m->n_threads; t++)
		if (m->threads[t].process == p)
			out[n++] = t;
	int64_t pid = m->processes[p].pid;
	for (int i = 1; i < n; i++) /* insertion sort: a handful of threads */
		for (int j = i; j > 0; j--) {
			const struct kg_thread *x = &m->threads[out[j - 1]], *y = &m->threads[out[j]];
			int swap = y->tid == pid || (x->tid != pid && y->tid < x->tid);
			if (!swap)
				break;
			uint32_t tmp = out[j];
			out[j] = out[j - 1];
			out[j - 1] = tmp;
		}
	return n;
}

static int host_lanes(struct builder *b, uint32_t p, uint32_t *scratch)
{
	const struct kg_model *m = b->m;
	struct kg_layout *l = b->l;
	int n = threads_of(m, p, scratch);
	for (int i = 0; i < n; i++) {
		uint32_t t = scratch[i];
		if (any_api_in(m, l, t)) {
			double strip = strip_of(m, b, t);
			struct kg_lane *ln = add_lane(b, KG_LANE_API, p, API_H + strip);
			if (!ln)
				return -ENOMEM;
			ln->thread = t;
			ln->strip_h = strip;
			l->api_of_thread[t] = l->n_lanes - 1;
		}
		if (add_nvtx_lane(b, t, p, t, &l->nvtx_of_thread[t]) < 0)
			return -ENOMEM;
	}
	return add_nvtx_lane(b, m->n_threads + p, p, KG_NONE, &l->nvtx_of_process[p]);
}

static int by_id(const void *a, const void *b, void *arg)
{
	const struct kg_model *m = arg;
	int64_t x = m->streams[*(const uint32_t *)a].id, y = m->streams[*(const uint32_t *)b].id;
	return (x > y) - (x < y);
}

/* The hardware strip of device d, when the trace sampled it or says why it could not:
 * full height with samples, one line for the note of a device without. */
static int add_hw_strip(struct builder *b, uint32_t d)
{
	const struct kg_model *m = b->m;
	struct kg_layout *l = b->l;
	uint32_t hw = KG_NONE;
	for (uint32_t i = 0; i < m->n_hw_devices && hw == KG_NONE; i++)
		if (m->hw_devices[i].device == d)
			hw = i;
	if (hw == KG_NONE || b->o->hw_strip_h <= 0)
		return 0;
	uint32_t first, end;
	model_hw_sample_range(m, d, &first, &end);
	int sampled = end > first;
	if (l->n_hw_strips == b->cap_strips) {
		uint32_t cap = b->cap_strips ? 2 * b->cap_strips : 4;
		struct kg_hw_strip *p = realloc(l->hw_strips, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->hw_strips = p;
		b->cap_strips = cap;
	}
	double h = sampled ? b->o->hw_strip_h : HW_NOTE_H;
	l->hw_strips[l->n_hw_strips++] = (struct kg_hw_strip){d, hw, b->y, h};
	b->y += h;
	return 0;
}

/* A device header and its stream lanes (by stream id), when any stream is shown. */
static int device_lanes(struct builder *b, uint32_t d, const uint8_t *shown, uint32_t *scratch)
{
	const struct kg_model *m = b->m;
	struct kg_layout *l = b->l;
	uint32_t n = 0;
	for (uint32_t s = 0; s < m->n_streams; s++)
		if (shown[s] && m->streams[s].device == d)
			scratch[n++] = s;
	if (!n)
		return 0;
	qsort_r(scratch, n, sizeof(*scratch), by_id, (void *)m);
	if (add_header(b, KG_HEADER_DEVICE, d, DEVICE_HEADER_H) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct kg_lane *ln = add_lane(b, KG_LANE_STREAM, m->streams[scratch[i]].process,
					      STREAM_H);
		if (!ln)
			return -ENOMEM;
		ln->device = d;
		ln->stream = scratch[i];
		l->lane_of_stream[scratch[i]] = l->n_lanes - 1;
	}
	return add_hw_strip(b, d);
}

static int by_ordinal(const void *a, const void *b, void *arg)
{
	const struct kg_model *m = arg;
	int32_t x = m->devices[*(const uint32_t *)a].ordinal;
	int32_t y = m->devices[*(const uint32_t *)b].ordinal;
	return (x > y) - (x < y);
}

/* One process: its header, host lanes, then each device with shown streams. Nothing when
 * it has no lane at all. */
static int process_group(struct builder *b, uint32_t p, const uint8_t *shown, uint32_t *scratch)
{
	const struct kg_model *m = b->m;
	struct kg_layout *l = b->l;
	uint32_t lanes0 = l->n_lanes, headers0 = l->n_headers;
	double y0 = b->y;
	int has_streams = 0;
	for (uint32_t s = 0; s < m->n_streams && !has_streams; s++)
		has_streams = shown[s] && m->streams[s].process == p;
	/* with --device or --streams, only the processes that own a shown stream */
	int filtered = b->o->device >= 0 || b->o->streams;
	if (add_header(b, KG_HEADER_PROCESS, p, PROCESS_HEADER_H) < 0)
		return -ENOMEM;
	if (b->o->host_lanes && (has_streams || !filtered) && host_lanes(b, p, scratch) < 0)
		return -ENOMEM;
	uint32_t nd = 0, *devs = scratch;
	for (uint32_t d = 0; d < m->n_devices; d++)
		if (m->devices[d].process == p)
			devs[nd++] = d;
	qsort_r(devs, nd, sizeof(*devs), by_ordinal, (void *)m);
	uint32_t *rest = scratch + nd;
	for (uint32_t i = 0; i < nd; i++)
		if (device_lanes(b, devs[i], shown, rest) < 0)
			return -ENOMEM;
	if (l->n_lanes == lanes0) { /* nothing to show: take the header back */
		l->n_headers = headers0;
		b->y = y0;
		return 0;
	}
	b->y += GROUP_GAP;
	return 0;
}

static int by_host_rank_pid(const void *a, const void *b, void *arg)
{
	const struct kg_model *m = arg;
	const struct kg_process *x = &m->processes[*(const uint32_t *)a];
	const struct kg_process *y = &m->processes[*(const uint32_t *)b];
	int c = strcmp(model_text(m, x->host), model_text(m, y->host));
	if (c)
		return c;
	long rx = x->rank ? atol(model_text(m, x->rank)) : -1;
	long ry = y->rank ? atol(model_text(m, y->rank)) : -1;
	if (rx != ry)
		return (rx > ry) - (rx < ry);
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Stretches or squeezes the lanes (not the headers) to a requested height. */
static void fit_height(struct kg_layout *l, const struct kg_layout_opts *o)
{
	double lanes = 0, avail = o->height - o->top_space - o->bottom_space;
	for (uint32_t i = 0; i < l->n_lanes; i++)
		lanes += l->lanes[i].h;
	double fixed = (l->lanes_bottom - l->lanes_top) - lanes;
	if (lanes <= 0)
		return;
	double k = (avail - fixed) / lanes;
	k = k < 0.3 ? 0.3 : k > 4 ? 4 : k;
	/* hardware strips keep their height and move by the growth of the lanes above them
	 * (from the lanes' heights before the loop below changes them) */
	for (uint32_t s = 0; s < l->n_hw_strips; s++) {
		double above = 0;
		for (uint32_t i = 0; i < l->n_lanes && l->lanes[i].y < l->hw_strips[s].y; i++)
			above += l->lanes[i].h * (k - 1);
		l->hw_strips[s].y += above;
	}
	/* shift every row by the growth of the lanes above it */
	double grown = 0;
	uint32_t li = 0, hi = 0;
	while (li < l->n_lanes || hi < l->n_headers) {
		int lane_next = hi == l->n_headers ||
				(li < l->n_lanes && l->lanes[li].y < l->headers[hi].y);
		if (lane_next) {
			struct kg_lane *ln = &l->lanes[li++];
			ln->y += grown;
			grown += ln->h * (k - 1);
			ln->h *= k;
		} else {
			l->headers[hi++].y += grown;
		}
	}
	l->lanes_bottom += grown;
}

static int alloc_maps(const struct kg_model *m, struct kg_layout *l)
{
	l->lane_of_stream = malloc(((size_t)m->n_streams + 1) * sizeof(uint32_t));
	l->api_of_thread = malloc(((size_t)m->n_threads + 1) * sizeof(uint32_t));
	l->nvtx_of_thread = malloc(((size_t)m->n_threads + 1) * sizeof(uint32_t));
	l->nvtx_of_process = malloc(((size_t)m->n_processes + 1) * sizeof(uint32_t));
	if (!l->lane_of_stream || !l->api_of_thread || !l->nvtx_of_thread || !l->nvtx_of_process)
		return -ENOMEM;
	memset(l->lane_of_stream, 0xff, ((size_t)m->n_streams + 1) * sizeof(uint32_t));
	memset(l->api_of_thread, 0xff, ((size_t)m->n_threads + 1) * sizeof(uint32_t));
	memset(l->nvtx_of_thread, 0xff, ((size_t)m->n_threads + 1) * sizeof(uint32_t));
	memset(l->nvtx_of_process, 0xff, ((size_t)m->n_processes + 1) * sizeof(uint32_t));
	return 0;
}

static int build_groups(const struct kg_model *m, const struct kg_layout_opts *o,
			struct kg_layout *l)
{
	size_t most = (size_t)m->n_streams + m->n_threads + 2 * (size_t)m->n_devices +
		      m->n_processes + 1;
	uint8_t *shown = calloc((size_t)m->n_streams + 1, 1);
	uint32_t *scratch = malloc(most * sizeof(uint32_t));
	uint32_t *procs = malloc(((size_t)m->n_processes + 1) * sizeof(uint32_t));
	int rc = -ENOMEM;
	if (!shown || !scratch || !procs)
		goto out;
	for (uint32_t s = 0; s < m->n_streams; s++)
		shown[s] = (uint8_t)stream_wanted(m, o, s);
	for (uint32_t p = 0; p < m->n_processes; p++)
		procs[p] = p;
	qsort_r(procs, m->n_processes, sizeof(*procs), by_host_rank_pid, (void *)m);
	struct builder b = {m, o, l, 0, 0, o->top_space, 0};
	l->lanes_top = b.y;
	for (uint32_t i = 0; i < m->n_processes; i++)
		if (process_group(&b, procs[i], shown, scratch) < 0)
			goto out;
	l->lanes_bottom = b.y;
	rc = 0;
out:
	free(shown);
	free(scratch);
	free(procs);
	return rc;
}

void layout_x_span(const struct kg_layout_opts *o, double *x0, double *x1)
{
	*x0 = o->label_width;
	*x1 = o->width - o->right_margin;
	if (*x1 < *x0 + 10)
		*x1 = *x0 + 10;
}

int layout_build(const struct kg_model *m, const struct kg_layout_opts *o, struct kg_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->t0 = o->t0;
	l->t1 = o->t1 > o->t0 ? o->t1 : kg_time_add(o->t0, 1);
	if (l->t1 == l->t0) /* t0 at INT64_MAX: the window is the last nanosecond there is */
		l->t0 = l->t1 - 1;
	l->width = o->width;
	layout_x_span(o, &l->x0, &l->x1);
	l->px_per_ns = (l->x1 - l->x0) / (double)kg_time_diff(l->t1, l->t0);
	if (alloc_maps(m, l) < 0 || host_index(m, l) < 0 || build_groups(m, o, l) < 0) {
		layout_free(l);
		return -ENOMEM;
	}
	if (o->height > 0)
		fit_height(l, o);
	l->height = o->height > 0 ? o->height : ceil(l->lanes_bottom + o->bottom_space);
	return 0;
}

void layout_free(struct kg_layout *l)
{
	free(l->lanes);
	free(l->headers);
	free(l->lane_of_stream);
	free(l->api_of_thread);
	free(l->nvtx_of_thread);
	free(l->nvtx_of_process);
	free(l->range_level);
	free(l->api_order);
	free(l->api_first);
	free(l->range_order);
	free(l->range_first);
	free(l->span_first);
	free(l->hw_strips);
	memset(l, 0, sizeof(*l));
}

uint32_t layout_step_every(double spacing_px, double label_px)
{
	static const uint32_t nice[] = {1, 2, 5};
	uint32_t scale = 1;
	if (!(spacing_px > 0))
		return UINT32_MAX;
	for (;;) {
		for (int i = 0; i < 3; i++)
			if ((double)nice[i] * scale * spacing_px >= label_px)
				return nice[i] * scale;
		if (scale > UINT32_MAX / 50)
			return UINT32_MAX;
		scale *= 10;
	}
}

uint32_t layout_first_lane_of_gpu(const struct kg_model *m, const struct kg_layout *l,
				  uint32_t g)
{
	for (uint32_t i = 0; i < l->n_lanes; i++)
		if (l->lanes[i].kind == KG_LANE_STREAM && m->devices[l->lanes[i].device].gpu == g)
			return i;
	return KG_NONE;
}
