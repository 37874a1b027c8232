/* A GPU's communication and its overlap with compute (docs/report.md, "communication"):
 * the union of its communication kernels' execution (KG_OPF_COMM: NCCL, RCCL...), the part
 * of it during which a compute kernel (any other kernel) ran on the same GPU, and the rest,
 * exposed: time the GPU only communicated. The same for each kind of collective the
 * kernels' names say, and each communication kernel's own exposed time, which
 * exposed-communication (rules_comm.c) sums by name and places at its call sites. The
 * union of its compute kernels stays in gm->compute for the collectives' waits. */
#include <errno.h>
#include <stdlib.h>

#include "analysis/pipeline.h"
#include "util/timemath.h"

/* Appends [s, e) to the disjoint spans v[0..n), given by start: merged with the last when
 * they touch. The new count. */
static uint32_t span_add(struct kg_span *v, uint32_t n, int64_t s, int64_t e)
{
	if (n && s <= v[n - 1].e) {
		if (e > v[n - 1].e)
			v[n - 1].e = e;
		return n;
	}
	v[n] = (struct kg_span){s, e};
	return n + 1;
}

static int64_t spans_total(const struct kg_span *v, uint32_t n)
{
	int64_t t = 0;
	for (uint32_t i = 0; i < n; i++)
		t = kg_time_add(t, kg_time_span(v[i].e, v[i].s));
	return t;
}

/* The time two lists of disjoint spans by start have in common. */
static int64_t spans_common(const struct kg_span *a, uint32_t na, const struct kg_span *b,
			    uint32_t nb)
{
	int64_t t = 0;
	for (uint32_t i = 0, j = 0; i < na && j < nb;) {
		int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
		int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
		if (e > s)
			t = kg_time_add(t, kg_time_span(e, s));
		if (a[i].e < b[j].e)
			i++;
		else
			j++;
	}
	return t;
}

/* The first of the disjoint spans v[0..n) by start that ends after s. */
static uint32_t first_ending_after(const struct kg_span *v, uint32_t n, int64_t s)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid].e <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t spans_within(const struct kg_span *v, uint32_t n, int64_t s, int64_t e)
{
	uint32_t lo = first_ending_after(v, n, s);
	int64_t t = 0;
	for (uint32_t i = lo; i < n && v[i].s < e; i++) {
		int64_t a = v[i].s > s ? v[i].s : s, b = v[i].e < e ? v[i].e : e;
		if (b > a)
			t = kg_time_add(t, kg_time_span(b, a));
	}
	return t;
}

/* Kernel o's time with no compute beside it (returned), and where it lies: its lead, the
 * stretch from its start before any compute runs beside it, and each eighth's exposed
 * share, in 255ths. A job's summary keeps these to place a rank's wait for the last rank
 * (the kernel's first stretch) without the compute intervals themselves. One walk over
 * the compute spans the kernel meets. */
static int64_t exposure(const struct kg_span *v, uint32_t n, const struct kg_op *o,
			int64_t *lead, uint8_t eighths[8])
{
	int64_t s = o->start, e = o->end, dur = kg_time_span(e, s), at[9];
	int64_t covered = 0, in_eighth[8] = {0};
	for (int k = 0; k <= 8; k++)
		at[k] = s + dur * k / 8;
	*lead = dur;
	for (uint32_t i = first_ending_after(v, n, s); i < n && v[i].s < e; i++) {
		int64_t a = v[i].s > s ? v[i].s : s, b = v[i].e < e ? v[i].e : e;
		if (b <= a)
			continue;
		if (covered == 0)
			*lead = a - s;
		covered = kg_time_add(covered, kg_time_span(b, a));
		for (int k = 0; k < 8; k++) {
			int64_t x = a > at[k] ? a : at[k], y = b < at[k + 1] ? b : at[k + 1];
			if (y > x)
				in_eighth[k] += y - x;
		}
	}
	for (int k = 0; k < 8; k++) {
		int64_t len = at[k + 1] - at[k], open = len - in_eighth[k];
		eighths[k] = (uint8_t)(len > 0 ? (open * 255 + len / 2) / len : 255);
	}
	return kg_time_span(dur, covered);
}

static int timed_kernel(const struct kg_op *o)
{
	return o->kind == KG_OP_KERNEL && o->start != KG_NO_TIME && o->end != KG_NO_TIME &&
	       o->end >= o->start;
}

/* The figures of the communication kernels comm[0..n) whose kind is kind (all of them at
 * KG_COMM_KIND_COUNT), against the compute spans; spans is scratch room for n. */
static struct kg_comm_figures kind_figures(const struct kg_model *m, const uint32_t *comm,
					   const uint8_t *kinds, uint32_t n, unsigned kind,
					   const struct kg_span *compute, uint32_t n_compute,
					   struct kg_span *spans)
{
	struct kg_comm_figures f = {0, 0, 0};
	uint32_t ns = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (kind < KG_COMM_KIND_COUNT && kinds[i] != kind)
			continue;
		const struct kg_op *o = &m->ops[comm[i]];
		ns = span_add(spans, ns, o->start, o->end);
		f.kernels++;
	}
	f.time = spans_total(spans, ns);
	f.overlapped = spans_common(spans, ns, compute, n_compute);
	return f;
}

int comm_metrics(const struct kg_analysis *a, struct kg_gpu_metrics *gm)
{
	const struct kg_model *m = a->m;
	uint32_t n = 0, nc = 0;
	gm->n_comm = 0;
	for (uint32_t i = 0; i < gm->n_ops; i++)
		n += timed_kernel(&m->ops[gm->ops[i]]) && (m->ops[gm->ops[i]].flags & KG_OPF_COMM);
	if (!n) { /* no span kept: its compute is all its kernels, whose union metrics has */
		gm->compute_busy = gm->kernel_busy;
		gm->comm = (struct kg_comm_figures){0, 0, 0};
		for (unsigned k = 0; k < KG_COMM_KIND_COUNT; k++)
			gm->comm_kind[k] = gm->comm;
		return 0; /* gm->compute stays NULL: no collective of this GPU waits */
	}
	struct kg_span *compute = malloc(((size_t)gm->n_ops - n + 1) * sizeof(*compute));
	struct kg_span *spans = malloc(((size_t)n + 1) * sizeof(*spans));
	uint8_t *kinds = malloc((size_t)n + 1);
	gm->comm_ops = malloc(((size_t)n + 1) * sizeof(*gm->comm_ops));
	gm->comm_exposed = malloc(((size_t)n + 1) * sizeof(*gm->comm_exposed));
	gm->comm_exposed_lead = malloc(((size_t)n + 1) * sizeof(*gm->comm_exposed_lead));
	gm->comm_exposed_eighths = malloc(((size_t)n + 1) * 8);
	int rc = compute && spans && kinds && gm->comm_ops && gm->comm_exposed &&
			 gm->comm_exposed_lead && gm->comm_exposed_eighths ? 0 : -ENOMEM;
	for (uint32_t i = 0; !rc && i < gm->n_ops; i++) {
		const struct kg_op *o = &m->ops[gm->ops[i]];
		if (!timed_kernel(o))
			continue;
		if (!(o->flags & KG_OPF_COMM))
			nc = span_add(compute, nc, o->start, o->end);
		else {
			const struct kg_comm_id *id =
				comm_id_of(a->comm_ids, a->n_comm_ids, gm->ops[i]);
			kinds[gm->n_comm] = id ? id->name_kind : (uint8_t)KG_COMM_OTHER;
			gm->comm_ops[gm->n_comm++] = gm->ops[i];
		}
	}
	if (!rc) {
		gm->compute_busy = spans_total(compute, nc);
		for (uint32_t i = 0; i < gm->n_comm; i++) {
			const struct kg_op *o = &m->ops[gm->comm_ops[i]];
			gm->comm_exposed[i] = exposure(compute, nc, o, &gm->comm_exposed_lead[i],
						       &gm->comm_exposed_eighths[8 * (size_t)i]);
		}
		gm->comm = kind_figures(m, gm->comm_ops, kinds, gm->n_comm, KG_COMM_KIND_COUNT,
					compute, nc, spans);
		for (unsigned k = 0; k < KG_COMM_KIND_COUNT; k++)
			gm->comm_kind[k] = kind_figures(m, gm->comm_ops, kinds, gm->n_comm, k,
							compute, nc, spans);
	}
	gm->compute = compute; /* the collectives' waits (comm_wait.c) look at it again */
	gm->n_compute = nc;
	free(spans);
	free(kinds);
	return rc;
}
