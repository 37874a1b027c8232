/* Hooked launch calls matched to their kernels (hooked_import.h). */
#include "trace/hooked_import.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

struct kernel_at {
	uint64_t queued;
	uint32_t device, stream, correlation;
	uint32_t taken; /* matched to a call already */
};

struct hooked_call {
	struct kg_raw_api api;
	uint32_t own;   /* the id the recorder gave it */
	uint32_t device, stream;
};

struct kg_hooked_import {
	struct kernel_at *kernels;
	uint32_t nkernels, capkernels;
	uint32_t *by_time;   /* kernels' indices ordered by queued alone */
	struct hooked_call *calls;
	uint32_t ncalls, capcalls;
	uint32_t *by_own;    /* calls' indices ordered by their own ids */
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
	free(h->calls);
	free(h->by_own);
	free(h);
}

int hooked_import_kernel(struct kg_hooked_import *h, uint32_t device, uint32_t stream,
			 uint64_t queued, uint32_t correlation)
{
	if (array_room((void **)&h->kernels, &h->capkernels, h->nkernels, sizeof(*h->kernels),
		       1024) < 0)
		return -ENOMEM;
	h->kernels[h->nkernels++] = (struct kernel_at){queued, device, stream, correlation, 0};
	return 0;
}

int hooked_import_call(struct kg_hooked_import *h, const struct kg_raw_api *a)
{
	if (array_room((void **)&h->calls, &h->capcalls, h->ncalls, sizeof(*h->calls), 1024) < 0)
		return -ENOMEM;
	h->calls[h->ncalls++] = (struct hooked_call){*a, a->correlation_id, KG_RAW_STREAM_UNKNOWN,
						     KG_RAW_STREAM_UNKNOWN};
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
	struct kernel_at key = {t, device, stream, 0, 0};
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
	size_t lo = 0, hi = h->nkernels;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->kernels[h->by_time[mid]].queued < c->api.start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= h->nkernels || h->kernels[h->by_time[lo]].queued > c->api.end)
		return NULL;
	if (lo + 1 < h->nkernels && h->kernels[h->by_time[lo + 1]].queued <= c->api.end)
		return NULL;
	return &h->kernels[h->by_time[lo]];
}

static int by_own(const void *a, const void *b, void *calls)
{
	const struct hooked_call *c = calls;
	uint32_t x = c[*(const uint32_t *)a].own, y = c[*(const uint32_t *)b].own;
	return (x > y) - (x < y);
}

long hooked_import_match(struct kg_hooked_import *h)
{
	if (!h->ncalls)
		return 0;
	if (h->nkernels) /* calls without a kernel: none of them can match */
		qsort(h->kernels, h->nkernels, sizeof(*h->kernels), by_place);
	h->by_time = malloc((h->nkernels ? h->nkernels : 1) * sizeof(*h->by_time));
	h->by_own = malloc(h->ncalls * sizeof(*h->by_own));
	if (!h->by_time || !h->by_own)
		return -ENOMEM;
	for (size_t i = 0; i < h->nkernels; i++)
		h->by_time[i] = (uint32_t)i;
	if (h->nkernels)
		qsort_r(h->by_time, h->nkernels, sizeof(*h->by_time), by_queued, h->kernels);
	long matched = 0;
	for (size_t i = 0; i < h->ncalls; i++) {
		struct hooked_call *c = &h->calls[i];
		h->by_own[i] = (uint32_t)i;
		int placed = c->device != KG_RAW_STREAM_UNKNOWN && c->stream != KG_RAW_STREAM_UNKNOWN;
		struct kernel_at *k = placed ? kernel_on_stream(h, c) : kernel_in_time(h, c);
		if (!k || k->taken || c->api.end < c->api.start)
			continue;
		k->taken = 1;
		c->api.correlation_id = k->correlation;
		matched++;
	}
	qsort_r(h->by_own, h->ncalls, sizeof(*h->by_own), by_own, h->calls);
	return matched;
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
