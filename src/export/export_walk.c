/* The one walk over the model that every export format is driven by (export.h), and the
 * small helpers the writers share. */
#include "export/export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

/* ------------------------------------------------------------------ the walk */

/* One host-side event (API call or range) or sync, with its sort key. */
struct host_ev {
	uint32_t process, thread;
	int64_t start, end;
	uint32_t index;
	uint8_t is_range;
};

static int64_t end_or_start(int64_t start, int64_t end)
{
	return end == KG_NO_TIME ? start : end;
}

/* By process, thread, start, then the longer first so that a slice comes before the
 * slices it encloses (which is what the JSON viewers need to nest them); at a full tie
 * the range first, as it is the one likely to enclose. */
static int host_cmp(const void *pa, const void *pb)
{
	const struct host_ev *a = pa, *b = pb;
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	if (a->is_range != b->is_range)
		return a->is_range ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* ev[0, n) sorted by host_cmp: the model's calls and ranges usually are already, and a
 * look costs far less than a sort of a million. */
static void sort_host(struct host_ev *ev, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (host_cmp(&ev[i - 1], &ev[i]) > 0) {
			qsort(ev, n, sizeof(*ev), host_cmp);
			return;
		}
}

static int walk_host(const struct kg_model *m, struct kg_export_ops *x)
{
	if (!x->api && !x->range)
		return 0;
	size_t na = x->api ? m->n_apis : 0, nr = x->range ? m->n_ranges : 0;
	size_t bytes = (na + nr ? 2 * (na + nr) : 1) * sizeof(struct host_ev);
	struct host_ev *ev = malloc(bytes);
	if (!ev)
		return -ENOMEM;
	array_advise_huge(ev, bytes);
	struct host_ev *a = ev + na + nr, *r = a + na; /* sorted apart, then merged into ev */
	for (uint32_t i = 0; i < na; i++) {
		const struct kg_api *p = &m->apis[i];
		a[i] = (struct host_ev){p->process, p->thread, p->start, end_or_start(p->start, p->end),
					i, 0};
	}
	for (uint32_t i = 0; i < nr; i++) {
		const struct kg_range *p = &m->ranges[i];
		r[i] = (struct host_ev){p->process, p->thread, p->start, end_or_start(p->start, p->end),
					i, 1};
	}
	sort_host(a, na);
	sort_host(r, nr);
	for (size_t i = 0, j = 0, k = 0; k < na + nr; k++)
		ev[k] = j == nr || (i < na && host_cmp(&a[i], &r[j]) < 0) ? a[i++] : r[j++];
	int rc = 0;
	for (size_t i = 0; !rc && i < na + nr; i++)
		rc = ev[i].is_range ? x->range(x, m, ev[i].index) : x->api(x, m, ev[i].index);
	free(ev);
	return rc;
}

static int walk_syncs(const struct kg_model *m, struct kg_export_ops *x)
{
	if (!x->sync)
		return 0;
	struct host_ev *ev = malloc((m->n_syncs ? m->n_syncs : 1) * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_syncs; i++) {
		const struct kg_sync *y = &m->syncs[i];
		ev[i] = (struct host_ev){y->process, 0, y->start, end_or_start(y->start, y->end), i, 0};
	}
	sort_host(ev, m->n_syncs);
	int rc = 0;
	for (uint32_t i = 0; !rc && i < m->n_syncs; i++)
		rc = x->sync(x, m, ev[i].index);
	free(ev);
	return rc;
}

/* model_finish sorts a stream's ops by start and, at equal starts, the shorter first;
 * each run of equal starts is visited backwards here to give the longer first. */
static int walk_ops(const struct kg_model *m, struct kg_export_ops *x)
{
	if (!x->op)
		return 0;
	int rc = 0;
	for (uint32_t s = 0; !rc && s < m->n_streams; s++) {
		uint32_t i = m->streams[s].first_op, end = i + m->streams[s].nops;
		while (!rc && i < end) {
			uint32_t j = i + 1;
			while (j < end && m->ops[j].start == m->ops[i].start)
				j++;
			for (uint32_t k = j; !rc && k > i; k--)
				rc = x->op(x, m, k - 1);
			i = j;
		}
	}
	return rc;
}

#define EACH(cb, count)                                               \
	for (uint32_t i_ = 0; !rc && x->cb && i_ < m->count; i_++) \
		rc = x->cb(x, m, i_)

int export_walk(const struct kg_model *m, struct kg_export_ops *x)
{
	int rc = x->begin ? x->begin(x, m) : 0;
	EACH(process, n_processes);
	EACH(device, n_devices);
	EACH(thread, n_threads);
	EACH(stream, n_streams);
	if (!rc)
		rc = walk_host(m, x);
	EACH(host_span, n_host_spans);
	if (!rc)
		rc = walk_ops(m, x);
	if (!rc)
		rc = walk_syncs(m, x);
	if (!rc && x->end)
		rc = x->end(x, m);
	return rc;
}
