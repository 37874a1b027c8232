/* What the GPU's own counters say (record --hw): achieved figures per kernel name and
 * averages per GPU, from the model's hardware samples.
 *
 * PM sampling counts GPU-wide, so a sample speaks for one kernel only when that kernel
 * ran alone on its GPU for the whole sample: no other kernel, copy or memset started,
 * ran or ended within it. Those samples are averaged per kernel name; a kernel shorter
 * than a sample interval, or always overlapped by others, gets no achieved figures. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/timemath.h"

struct sums {
	double w[KG_HW_N], v[KG_HW_N];
};

static void add(struct sums *s, const struct kg_hw_sample *x, double weight)
{
	for (int f = 0; f < KG_HW_N; f++)
		if (!isnan(x->v[f])) {
			s->w[f] += weight;
			s->v[f] += weight * x->v[f];
		}
}

static void mean_into(const struct sums *s, float *out)
{
	for (int f = 0; f < KG_HW_N; f++)
		out[f] = s->w[f] > 0 ? (float)(s->v[f] / s->w[f]) : NAN;
}

/* The samples of one GPU (several devices of several processes may be the same GPU),
 * by start. */
static uint32_t *gpu_samples(const struct kg_model *m, uint32_t gpu, uint32_t *n)
{
	uint32_t *idx = malloc(((size_t)m->n_hw_samples + 1) * sizeof(*idx));
	*n = 0;
	for (uint32_t i = 0; idx && i < m->n_hw_samples; i++) {
		uint32_t d = m->hw_samples[i].device;
		if (d < m->n_devices && m->devices[d].gpu == gpu)
			idx[(*n)++] = i;
	}
	return idx;
}

/* qsort_r's comparator, the model as its argument: analyses of several traces run on
 * several threads at once (a job's), so nothing of one may sit in a global. */
static int by_sample_start(const void *a, const void *b, void *model)
{
	const struct kg_model *m = model;
	int64_t x = m->hw_samples[*(const uint32_t *)a].start;
	int64_t y = m->hw_samples[*(const uint32_t *)b].start;
	return (x > y) - (x < y);
}

/* The last op (position in g->ops, by start) that starts at or before t; -1 none. */
static int64_t last_starting_by(const struct kg_model *m, const struct kg_gpu_metrics *g,
				int64_t t)
{
	int64_t lo = 0, hi = (int64_t)g->n_ops - 1, best = -1;
	while (lo <= hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (m->ops[g->ops[mid]].start <= t) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

struct gpu_walk {
	const struct kg_model *m;
	const struct kg_gpu_metrics *g;
	int64_t *max_end;     /* max end of g->ops[0..i] */
	uint32_t *kernel_of;  /* string id → kernel stats index */
	struct sums *per_kernel;
	struct sums span, busy;
	struct kg_hw_gpu *out;
	struct kg_hw_kernel *hk;
};

static void one_sample(struct gpu_walk *w, const struct kg_hw_sample *x)
{
	const struct kg_model *m = w->m;
	const struct kg_gpu_metrics *g = w->g;
	int64_t dur = kg_time_span(x->end, x->start);
	double len = (double)dur;
	if (len <= 0 || x->end <= g->begin || x->start >= g->end)
		return; /* outside the GPU's working span: the program's start and end */
	add(&w->span, x, len);
	w->out->samples++;
	w->out->sampled_ns = kg_time_add(w->out->sampled_ns, dur);
	for (int f = 0; f < KG_HW_N; f++)
		if (!isnan(x->v[f]) && (isnan(w->out->max[f]) || x->v[f] > w->out->max[f]))
			w->out->max[f] = x->v[f];
	int64_t k = last_starting_by(m, g, x->start);
	int64_t next_start = (uint64_t)(k + 1) < g->n_ops ? m->ops[g->ops[k + 1]].start : INT64_MAX;
	int64_t before_end = k > 0 ? w->max_end[k - 1] : INT64_MIN;
	int busy = (k >= 0 && w->max_end[k] > x->start) || next_start < x->end;
	if (busy)
		add(&w->busy, x, len);
	if (k < 0 || before_end > x->start || next_start < x->end)
		return;
	const struct kg_op *o = &m->ops[g->ops[k]];
	if (o->kind != KG_OP_KERNEL || o->end < x->end || o->name > m->strings.count)
		return;
	uint32_t ks = w->kernel_of[o->name];
	if (ks == KG_NONE)
		return;
	add(&w->per_kernel[ks], x, len);
	w->hk[ks].samples++;
	w->hk[ks].sampled_ns = kg_time_add(w->hk[ks].sampled_ns, dur);
}

static int walk_gpu(struct kg_analysis *a, uint32_t gi, struct sums *per_kernel,
		    uint32_t *kernel_of)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu_metrics *g = &a->gpus[gi];
	uint32_t n = 0;
	uint32_t *idx = gpu_samples(m, g->gpu, &n);
	int64_t *max_end = malloc(((size_t)g->n_ops + 1) * sizeof(*max_end));
	if (!idx || !max_end) {
		free(idx);
		free(max_end);
		return -ENOMEM;
	}
	qsort_r(idx, n, sizeof(*idx), by_sample_start, (void *)m);
	for (uint32_t i = 0; i < g->n_ops; i++) {
		int64_t e = m->ops[g->ops[i]].end;
		max_end[i] = i && max_end[i - 1] > e ? max_end[i - 1] : e;
	}
	struct gpu_walk w = {.m = m, .g = g, .max_end = max_end, .kernel_of = kernel_of,
			     .per_kernel = per_kernel, .out = &a->hw_gpus[gi], .hk = a->hw_kernels};
	for (int f = 0; f < KG_HW_N; f++)
		w.out->max[f] = NAN;
	for (uint32_t i = 0; i < n; i++)
		one_sample(&w, &m->hw_samples[idx[i]]);
	mean_into(&w.span, w.out->mean);
	mean_into(&w.busy, w.out->busy_mean);
	free(idx);
	free(max_end);
	return 0;
}

/* The GPU's sampling: the process that held the counters when several asked (only one
 * can), else the first refusal, which says why. */
static uint32_t hw_device_of_gpu(const struct kg_model *m, uint32_t gpu)
{
	uint32_t any = KG_NONE;
	for (uint32_t i = 0; i < m->n_hw_devices; i++) {
		uint32_t d = m->hw_devices[i].device;
		if (d >= m->n_devices || m->devices[d].gpu != gpu)
			continue;
		if (!strcmp(model_text(m, m->hw_devices[i].state), "sampled") ||
		    !strcmp(model_text(m, m->hw_devices[i].state), "stopped"))
			return i;
		if (any == KG_NONE)
			any = i;
	}
	return any;
}

int hw_run(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	if (!m->n_hw_devices)
		return 0;
	a->hw_gpus = calloc((size_t)a->n_gpus + 1, sizeof(*a->hw_gpus));
	a->hw_kernels = calloc((size_t)a->n_kernels + 1, sizeof(*a->hw_kernels));
	struct sums *per_kernel = calloc((size_t)a->n_kernels + 1, sizeof(*per_kernel));
	uint32_t *kernel_of = malloc(((size_t)m->strings.count + 2) * sizeof(*kernel_of));
	int rc = a->hw_gpus && a->hw_kernels && per_kernel && kernel_of ? 0 : -ENOMEM;
	if (!rc) {
		for (uint32_t i = 0; i <= m->strings.count + 1; i++)
			kernel_of[i] = KG_NONE;
		for (uint32_t k = 0; k < a->n_kernels; k++)
			if (a->kernels[k].name <= m->strings.count)
				kernel_of[a->kernels[k].name] = k;
	}
	for (uint32_t g = 0; !rc && g < a->n_gpus; g++) {
		a->hw_gpus[g].hw_device = hw_device_of_gpu(m, a->gpus[g].gpu);
		rc = walk_gpu(a, g, per_kernel, kernel_of);
	}
	for (uint32_t k = 0; !rc && k < a->n_kernels; k++)
		mean_into(&per_kernel[k], a->hw_kernels[k].v);
	free(per_kernel);
	free(kernel_of);
	return rc;
}

double hw_kernel_figure(const struct kg_analysis *a, uint32_t k, int f)
{
	if (!a->hw_kernels || k >= a->n_kernels || f < 0 || f >= KG_HW_N ||
	    a->hw_kernels[k].samples < (uint32_t)(a->cfg.min_hw_samples > 0 ? a->cfg.min_hw_samples : 1))
		return NAN;
	return a->hw_kernels[k].v[f];
}
