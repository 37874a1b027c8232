/* Hooked launch calls matched to their kernels (hooked_import.h). */
#include "trace/hooked_import.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

/* launch order pairs a stream's calls and kernels unless over one kernel in this many
 * started before its call (then the order is not the launches') */
#define HOOKED_EARLY_PER 100

struct kernel_at {
	uint64_t queued; /* 0: unknown (no latency timestamps) */
	uint64_t start;  /* 0: unknown */
	uint32_t device, stream, correlation;
	uint32_t taken; /* matched to a call already */
};

struct hooked_call {
	struct kg_raw_api api;
	uint32_t own;   /* the id the recorder gave it */
	uint32_t device, stream;
	int captured;   /* made inside its thread's stream capture (known once matching) */
};

/* a thread's stream capture: its launches in [from, to] queue no kernel */
struct capture {
	uint32_t tid;
	uint64_t from, to; /* to: UINT64_MAX while open */
};

struct kg_hooked_import {
	struct kernel_at *kernels;
	uint32_t nkernels, capkernels;
	uint32_t *by_time;   /* indices of the kernels with a queued time, by it alone */
	uint32_t ntimed;
	uint32_t *by_order;  /* kernels' indices by place, then correlation id (launch order) */
	struct hooked_call *calls;
	uint32_t ncalls, capcalls;
	uint32_t *by_own;    /* calls' indices ordered by their own ids */
	uint32_t *by_start;  /* calls' indices by place, then start (unplaced calls last) */
	int in_order_only;   /* KGANTT_DEV_MATCH=order: by launch order even where queued is known */
	struct capture *captures; /* by thread, then start, once matching begins */
	uint32_t ncaptures, capcaptures;
	struct kg_hooked_unmatched unmatched;
};

struct kg_hooked_import *hooked_import_new(void)
{
	return calloc(1, sizeof(struct kg_hooked_import));
}

void hooked_import_free(struct kg_hooked_import *h)
{
	if (!h)
		return;
	free(h->kernels);
	free(h->by_time);
	free(h->by_order);
	free(h->calls);
	free(h->by_own);
	free(h->by_start);
	free(h->captures);
	free(h);
}

int hooked_import_kernel(struct kg_hooked_import *h, uint32_t device, uint32_t stream,
			 uint64_t queued, uint64_t start, uint32_t correlation)
{
	if (array_room((void **)&h->kernels, &h->capkernels, h->nkernels, sizeof(*h->kernels),
		       1024) < 0)
		return -ENOMEM;
	h->kernels[h->nkernels++] =
		(struct kernel_at){queued, start, device, stream, correlation, 0};
	return 0;
}

void hooked_import_in_order_only(struct kg_hooked_import *h, int on)
{
	h->in_order_only = on;
}

int hooked_import_capture(struct kg_hooked_import *h, uint32_t tid, uint64_t t, int begin)
{
	if (!begin) { /* the thread's open capture ends */
		for (uint32_t i = h->ncaptures; i-- > 0;)
			if (h->captures[i].tid == tid && h->captures[i].to == UINT64_MAX) {
				h->captures[i].to = t;
				break;
			}
		return 0;
	}
	if (array_room((void **)&h->captures, &h->capcaptures, h->ncaptures,
		       sizeof(*h->captures), 16) < 0)
		return -ENOMEM;
	h->captures[h->ncaptures++] = (struct capture){tid, t, UINT64_MAX};
	return 0;
}

static int by_thread_from(const void *a, const void *b)
{
	const struct capture *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

/* Whether the call was made inside its thread's stream capture (captures sorted). */
static int in_capture(const struct kg_hooked_import *h, const struct hooked_call *c)
{
	size_t lo = 0, hi = h->ncaptures;
	while (lo < hi) { /* the first capture after (tid, start) */
		size_t mid = lo + (hi - lo) / 2;
		const struct capture *k = &h->captures[mid];
		if (k->tid < c->api.tid || (k->tid == c->api.tid && k->from <= c->api.start))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	const struct capture *k = &h->captures[lo - 1];
	return k->tid == c->api.tid && c->api.start <= k->to;
}

int hooked_import_call(struct kg_hooked_import *h, const struct kg_raw_api *a)
{
	if (array_room((void **)&h->calls, &h->capcalls, h->ncalls, sizeof(*h->calls), 1024) < 0)
		return -ENOMEM;
	h->calls[h->ncalls++] = (struct hooked_call){*a, a->correlation_id, KG_RAW_STREAM_UNKNOWN,
						     KG_RAW_STREAM_UNKNOWN, 0};
	return 0;
}

void hooked_import_stream(struct kg_hooked_import *h, const struct kg_raw_hooked_launch *x)
{
	/* it follows its call's API record: the last one kept, unless that was lost */
	if (h->ncalls && h->calls[h->ncalls - 1].own == x->correlation_id) {
		h->calls[h->ncalls - 1].device = x->device_id;
		h->calls[h->ncalls - 1].stream = x->stream_id;
	}
}

/* ------------------------------------------------------------------ matching */

static int by_place(const void *a, const void *b)
{
	const struct kernel_at *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return (x->queued > y->queued) - (x->queued < y->queued);
}

static int by_queued(const void *a, const void *b, void *kernels)
{
	const struct kernel_at *k = kernels;
	uint64_t x = k[*(const uint32_t *)a].queued, y = k[*(const uint32_t *)b].queued;
	return (x > y) - (x < y);
}

/* The first kernel at (device, stream) queued at or after t. */
static size_t first_at(const struct kg_hooked_import *h, uint32_t device, uint32_t stream,
		       uint64_t t)
{
	struct kernel_at key = {.queued = t, .device = device, .stream = stream};
	size_t lo = 0, hi = h->nkernels;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_place(&h->kernels[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The kernel of a call whose device and stream are known: one on them queued inside it. */
static struct kernel_at *kernel_on_stream(struct kg_hooked_import *h, const struct hooked_call *c)
{
	size_t i = first_at(h, c->device, c->stream, c->api.start);
	struct kernel_at *k = i < h->nkernels ? &h->kernels[i] : NULL;
	if (!k || k->device != c->device || k->stream != c->stream || k->queued > c->api.end)
		return NULL;
	struct kernel_at *next = i + 1 < h->nkernels ? &h->kernels[i + 1] : NULL;
	if (next && next->device == c->device && next->stream == c->stream &&
	    next->queued <= c->api.end)
		return NULL; /* two: another thread launched on the same stream meanwhile */
	return k;
}

/* ... and where they are not: the only kernel of any stream queued inside it. */
static struct kernel_at *kernel_in_time(struct kg_hooked_import *h, const struct hooked_call *c)
{
	size_t lo = 0, hi = h->ntimed;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->kernels[h->by_time[mid]].queued < c->api.start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= h->ntimed || h->kernels[h->by_time[lo]].queued > c->api.end)
		return NULL;
	if (lo + 1 < h->ntimed && h->kernels[h->by_time[lo + 1]].queued <= c->api.end)
		return NULL;
	return &h->kernels[h->by_time[lo]];
}

static int by_own(const void *a, const void *b, void *calls)
{
	const struct hooked_call *c = calls;
	uint32_t x = c[*(const uint32_t *)a].own, y = c[*(const uint32_t *)b].own;
	return (x > y) - (x < y);
}

static int placed(const struct hooked_call *c)
{
	return c->device != KG_RAW_STREAM_UNKNOWN && c->stream != KG_RAW_STREAM_UNKNOWN;
}

static int cmp_u32(uint32_t x, uint32_t y)
{
	return (x > y) - (x < y);
}

static int by_launch_order(const void *a, const void *b, void *kernels)
{
	const struct kernel_at *x = (const struct kernel_at *)kernels + *(const uint32_t *)a;
	const struct kernel_at *y = (const struct kernel_at *)kernels + *(const uint32_t *)b;
	int c = cmp_u32(x->device, y->device);
	if (!c)
		c = cmp_u32(x->stream, y->stream);
	return c ? c : cmp_u32(x->correlation, y->correlation);
}

/* placed calls first, by device and stream, then by start */
static int by_place_start(const void *a, const void *b, void *calls)
{
	const struct hooked_call *x = (const struct hooked_call *)calls + *(const uint32_t *)a;
	const struct hooked_call *y = (const struct hooked_call *)calls + *(const uint32_t *)b;
	int c = cmp_u32(!placed(x), !placed(y));
	if (!c)
		c = cmp_u32(x->device, y->device);
	if (!c)
		c = cmp_u32(x->stream, y->stream);
	return c ? c : (x->api.start > y->api.start) - (x->api.start < y->api.start);
}

static int same_place(const struct hooked_call *c, const struct kernel_at *k)
{
	return k->device == c->device && k->stream == c->stream;
}

/* The kernels at c's place in launch order: [*from, return). */
static size_t kernels_at(const struct kg_hooked_import *h, const struct hooked_call *c,
			 size_t *from)
{
	size_t lo = 0, hi = h->nkernels;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct kernel_at *k = &h->kernels[h->by_order[mid]];
		if (k->device < c->device || (k->device == c->device && k->stream < c->stream))
			lo = mid + 1;
		else
			hi = mid;
	}
	*from = lo;
	while (lo < h->nkernels && same_place(c, &h->kernels[h->by_order[lo]]))
		lo++;
	return lo;
}

/* A launch that queued no kernel: it failed, it has no time, or it was captured. */
static int launched_nothing(const struct hooked_call *c)
{
	return c->api.return_value != 0 || c->api.end < c->api.start || c->captured;
}

static int take(struct hooked_call *c, struct kernel_at *k)
{
	if (!k || k->taken || launched_nothing(c))
		return 0;
	k->taken = 1;
	c->api.correlation_id = k->correlation;
	return 1;
}

/* One stream's calls (calls[0..n)) and its kernels (by_order[from..to)) paired by launch
 * order, when they are as many and no kernel started before its call; else none is. */
static long match_in_order(struct kg_hooked_import *h, uint32_t *calls, size_t n, size_t from,
			   size_t to)
{
	size_t launched = 0, early = 0;
	for (size_t i = 0; i < n; i++)
		launched += !launched_nothing(&h->calls[calls[i]]);
	for (size_t i = 0, j = from; launched == to - from && i < n; i++) {
		const struct hooked_call *c = &h->calls[calls[i]];
		if (launched_nothing(c))
			continue;
		const struct kernel_at *k = &h->kernels[h->by_order[j++]];
		early += k->start && k->start < c->api.start;
	}
	if (launched != to - from || early * HOOKED_EARLY_PER > launched) {
		h->unmatched.streams++;
		h->unmatched.calls += launched;
		h->unmatched.kernels += to - from;
		return 0;
	}
	long matched = 0;
	for (size_t i = 0, j = from; i < n; i++)
		if (!launched_nothing(&h->calls[calls[i]]))
			matched += take(&h->calls[calls[i]], &h->kernels[h->by_order[j++]]);
	return matched;
}

/* One stream's calls, calls[0..n): by queued time where its kernels have one (latency
 * timestamps), else by launch order. */
static long match_place(struct kg_hooked_import *h, uint32_t *calls, size_t n)
{
	size_t from, to = kernels_at(h, &h->calls[calls[0]], &from);
	int timed = 0; /* latency timestamps: a kernel without one is CUPTI's slip */
	for (size_t j = from; !h->in_order_only && !timed && j < to; j++)
		timed = h->kernels[h->by_order[j]].queued != 0;
	if (!timed)
		return match_in_order(h, calls, n, from, to);
	long matched = 0;
	for (size_t i = 0; i < n; i++)
		matched += take(&h->calls[calls[i]], kernel_on_stream(h, &h->calls[calls[i]]));
	return matched;
}

static int sort_indices(uint32_t **v, size_t n, int (*cmp)(const void *, const void *, void *),
			void *ctx)
{
	*v = malloc((n ? n : 1) * sizeof(**v));
	if (!*v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		(*v)[i] = (uint32_t)i;
	if (n)
		qsort_r(*v, n, sizeof(**v), cmp, ctx);
	return 0;
}

long hooked_import_match(struct kg_hooked_import *h)
{
	if (!h->ncalls)
		return 0;
	if (h->nkernels) /* calls without a kernel: none of them can match */
		qsort(h->kernels, h->nkernels, sizeof(*h->kernels), by_place);
	if (sort_indices(&h->by_order, h->nkernels, by_launch_order, h->kernels) < 0 ||
	    sort_indices(&h->by_start, h->ncalls, by_place_start, h->calls) < 0 ||
	    sort_indices(&h->by_own, h->ncalls, by_own, h->calls) < 0 ||
	    !(h->by_time = malloc((h->nkernels ? h->nkernels : 1) * sizeof(*h->by_time))))
		return -ENOMEM;
	if (h->ncaptures) {
		qsort(h->captures, h->ncaptures, sizeof(*h->captures), by_thread_from);
		for (size_t i = 0; i < h->ncalls; i++)
			h->calls[i].captured = in_capture(h, &h->calls[i]);
	}
	h->ntimed = 0;
	for (size_t i = 0; i < h->nkernels; i++)
		if (h->kernels[i].queued)
			h->by_time[h->ntimed++] = (uint32_t)i;
	if (h->ntimed)
		qsort_r(h->by_time, h->ntimed, sizeof(*h->by_time), by_queued, h->kernels);
	long matched = 0;
	size_t i = 0;
	while (i < h->ncalls && placed(&h->calls[h->by_start[i]])) {
		const struct hooked_call *first = &h->calls[h->by_start[i]];
		size_t n = 1;
		while (i + n < h->ncalls && placed(&h->calls[h->by_start[i + n]]) &&
		       h->calls[h->by_start[i + n]].device == first->device &&
		       h->calls[h->by_start[i + n]].stream == first->stream)
			n++;
		matched += match_place(h, &h->by_start[i], n);
		i += n;
	}
	for (; i < h->ncalls; i++) /* no stream: the only kernel queued inside the call */
		matched += take(&h->calls[h->by_start[i]],
				h->in_order_only ? NULL : kernel_in_time(h, &h->calls[h->by_start[i]]));
	return matched;
}

struct kg_hooked_unmatched hooked_import_unmatched(const struct kg_hooked_import *h)
{
	return h ? h->unmatched : (struct kg_hooked_unmatched){0};
}

size_t hooked_import_ncalls(const struct kg_hooked_import *h)
{
	return h ? h->ncalls : 0;
}

const struct kg_raw_api *hooked_import_call_at(const struct kg_hooked_import *h, size_t i)
{
	return &h->calls[i].api;
}

uint32_t hooked_import_correlation(const struct kg_hooked_import *h, uint32_t own)
{
	if (!h || !h->by_own || own < KG_RAW_HOOKED_CORRELATION)
		return own;
	size_t lo = 0, hi = h->ncalls;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->calls[h->by_own[mid]].own < own)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->ncalls && h->calls[h->by_own[lo]].own == own
		       ? h->calls[h->by_own[lo]].api.correlation_id
		       : own;
}
