/* launch-overhead and launch-latency: the GPU waiting on launches (docs/rules.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"
#include "util/api_names.h"
#include "util/array.h"
#include "util/timemath.h"

/* Gaps between kernels replayed from a CUDA graph (the launches_graph example: the mean
 * gap, the replays' own launches included): what a graph leaves of launch overhead. 146 ns
 * (p50 96 ns) on the H200 since full mode samples launches (2026-12-04) and on an H100
 * (2026-12-06); 0.6 µs under the recorder of 2026-11-29, whose cost on every launch
 * widened the gaps between replays. */
#define GRAPH_GAP_NS 150.0

/* Whether o's launch call took at least slow_launch_call_ns (analysis_slow_launch:
 * TraceLens's cold-start normalization trace: six launch calls of 111–332 ms made 1.04 s
 * of a launch-overhead gain of 1.02 s, "149 tiny kernels with 6.9 ms of idle GPU between
 * them"). */
static int slow_launch_call(const struct kg_analysis *a, const struct kg_op *o)
{
	return o->api < a->m->n_apis && analysis_slow_launch(a, &a->m->apis[o->api]);
}

/* An idle gap of a GPU between two tiny kernels of its steady work that no slow launch
 * call explains: the candidates of launch overhead. A gap no step pays (kg_gap_place:
 * start-up, wind-down, graph capture) is none: launch overhead is the steady work's, as
 * host-bound's time is (TraceLens's Flux capture counted the 231 ms its host spent
 * capturing the graph, 162 % of the steady span). */
struct tiny_gap {
	uint32_t op;     /* index into gm->ops of the kernel that ended it (op - 1 began it) */
	uint32_t gap;    /* its index in gm->gaps (one of at least sync_gap_ns), KG_NONE */
	int64_t from;    /* when the GPU went idle */
	int64_t len;
};

/* GPU gm's tiny gaps in time order; NULL (and *n 0) when there are none or no memory. */
static struct tiny_gap *tiny_gaps(const struct kg_analysis *a, const struct kg_gpu_metrics *gm,
				  uint32_t *n)
{
	*n = 0;
	struct tiny_gap *v = gm->n_ops ? malloc(gm->n_ops * sizeof(*v)) : NULL;
	if (!v)
		return NULL;
	int64_t busy_end = KG_NO_TIME;
	uint32_t next_gap = 0; /* gm->gaps by start, as busy_end only grows: walked beside */
	for (uint32_t i = 0; i < gm->n_ops; i++) {
		const struct kg_op *o = op(a, gm->ops[i]), *prev = i ? op(a, gm->ops[i - 1]) : NULL;
		if (prev && op_is_compute(prev) && op_is_compute(o) &&
		    dur(prev) < a->cfg.tiny_kernel_ns && dur(o) < a->cfg.tiny_kernel_ns &&
		    busy_end != KG_NO_TIME && o->start > busy_end && !slow_launch_call(a, o)) {
			while (next_gap < gm->n_gaps && gm->gaps[next_gap].start < busy_end)
				next_gap++;
			uint32_t g = next_gap < gm->n_gaps && gm->gaps[next_gap].start == busy_end
					     ? next_gap
					     : KG_NONE;
			if (g == KG_NONE || gm->gaps[g].place == KG_GAP_STEADY)
				v[(*n)++] = (struct tiny_gap){i, g, busy_end,
							      kg_time_diff(o->start, busy_end)};
		}
		if (busy_end == KG_NO_TIME || o->end > busy_end)
			busy_end = o->end;
	}
	return v;
}

/* The longest tiny gap that launch overhead explains: launch_gap_spread times their
 * median. A longer one is the host doing something else (XLA compiling between a JAX
 * loop's first kernels: 976 ms of "launch overhead" for 2.7 ms of kernels), which a graph
 * of the launches would not remove: host-bound's. Never below sync_gap_ns, the shortest
 * gap host-bound counts: a shorter one would be nobody's (graph replays' kernels are
 * 0.15 µs apart). */
static double launch_gap_limit(const struct kg_analysis *a, const struct tiny_gap *v, uint32_t n)
{
	int64_t *len = n ? malloc(n * sizeof(*len)) : NULL;
	if (!len)
		return n ? INFINITY : 0;
	for (uint32_t i = 0; i < n; i++)
		len[i] = v[i].len;
	double limit = a->cfg.launch_gap_spread * (double)select_kth(len, n, n / 2);
	free(len);
	return limit > (double)a->cfg.sync_gap_ns ? limit : (double)a->cfg.sync_gap_ns;
}

/* Gives GPU g's gaps (of at least sync_gap_ns) that launch-overhead's finding counted to
 * it (kg_gap.launches): host-bound leaves them. */
static void claim_gaps(struct kg_analysis *a, uint32_t g, const struct tiny_gap *v, uint32_t n,
		       double limit)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i].gap != KG_NONE && (double)v[i].len <= limit)
			a->gpus[g].gaps[v[i].gap].launches = 1;
}

void rule_launch_overhead(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &a->gpus[g];
		uint32_t mark = a->n_blame, n_tiny;
		struct tiny_gap *tiny = tiny_gaps(a, gm, &n_tiny);
		double limit = launch_gap_limit(a, tiny, n_tiny);
		/* idle gaps of the GPU between two tiny kernels: the GPU waited for launches */
		double idle = 0, exec = 0;
		uint32_t n = 0, ngraph = 0, worst_stream = KG_NONE;
		int64_t first = KG_NO_TIME, last = KG_NO_TIME;
		for (uint32_t i = 0; i < n_tiny; i++) {
			const struct tiny_gap *t = &tiny[i];
			if ((double)t->len > limit)
				continue;
			const struct kg_op *o = op(a, gm->ops[t->op]);
			analysis_blame_idle(a, KG_NONE, gm->ops[t->op], (double)t->len, t->from,
					    o->start, gm->ops[t->op], KG_IDLE_WHOLE);
			if (o->flags & KG_OPF_GRAPH)
				ngraph++;
			idle += (double)t->len;
			exec += (double)dur(o);
			n++;
			worst_stream = o->stream;
			if (first == KG_NO_TIME)
				first = op(a, gm->ops[t->op - 1])->start;
			last = o->end;
		}
		double gap_after = ngraph > n / 2 ? 0 : GRAPH_GAP_NS;
		double gain = idle - n * gap_after;
		struct kg_finding *f = NULL;
		if (n >= 100 && exec > 0 && idle / exec >= a->cfg.launch_bound_ratio &&
		    analysis_worth(a, gain))
			f = analysis_add_finding(a, KG_RULE_LAUNCH_OVERHEAD);
		if (f)
			claim_gaps(a, g, tiny, n_tiny, limit);
		free(tiny);
		if (!f) {
			analysis_drop_blame(a, mark);
			continue;
		}
		finding_take_blame(a, f, mark);
		char gl[128];
		rule_gpu_label(a, g, gl, sizeof(gl));
		finding_set(&f->title, "%s starves on launches: %u tiny kernels (%.1f µs each on average) with "
			 "%.1f µs of idle GPU between them",
			 gl, n, exec / n / 1e3, idle / n / 1e3);
		finding_set(&f->explanation, "The kernels finish faster than the host can launch the next one, so the "
			 "GPU sits idle %.0f%% of that time (%.1f ms idle for %.1f ms of work). "
			 "Each launch costs microseconds of CPU and driver time whatever the "
			 "kernel does.",
			 100 * idle / (idle + exec), ms(idle), ms(exec));
		if (ngraph > n / 2)
			finding_set(&f->fix, "These kernels already come from a CUDA graph; the remaining gaps are "
				 "the per-node cost. Fuse them into fewer kernels (one grid-stride "
				 "kernel, torch.compile, a custom fused kernel).");
		else
			finding_set(&f->fix, "Fuse the tiny kernels into one (a grid-stride loop over all the "
				 "work; in PyTorch, torch.compile or fused optimizers such as "
				 "foreach/fused=True), or capture the sequence once in a CUDA graph "
				 "(cudaStreamBeginCapture / cudaGraphLaunch; torch.cuda.graphs or "
				 "torch.compile(mode='reduce-overhead')) and replay it.");
		f->gain_ns = gain;
		if (gap_after > 0)
			finding_set(&f->gain_how, "idle time between the tiny kernels minus %.2f µs per kernel, the "
				 "gap left between graph-launched kernels (measured on an H200 and an H100)",
				 gap_after / 1e3);
		else
			finding_set(&f->gain_how, "idle time between the tiny kernels, which fusion removes");
		f->gpu = g;
		f->start = first;
		f->end = last;
		finding_evidence(f, first, last, worst_stream, KG_NONE,
				 "%u tiny kernels from %.3f to %.3f ms (on this and other streams)", n,
				 ms((double)kg_time_diff(first, m->begin)),
				 ms((double)kg_time_diff(last, m->begin)));
		finding_set(&f->figures, "tiny_kernels=%u, idle_ms=%.3f, exec_ms=%.3f, from_graph=%u", n, ms(idle),
			 ms(exec), ngraph);
	}
}

/* What the GPUs idled while launches of this kernel sat in the driver: in each idle gap one
 * of them ended, the part after its call's start plus the threshold and before it was
 * queued, blamed on that launch. Launches that waited while the GPU was busy cost nothing:
 * (median latency - threshold) x launches counted them all, and gave a trace whose 150,000
 * kernels named one early call (tests/e2e/t112_stuck_correlation.sh) 245,815 s of gain in
 * 3.5 s. */
static double latency_idle(struct kg_analysis *a, uint32_t name)
{
	double idle = 0;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &a->gpus[g];
		for (uint32_t i = 0; i < gm->n_gaps; i++) {
			const struct kg_gap *gap = &gm->gaps[i];
			if (gap->next_op == KG_NONE)
				continue;
			const struct kg_op *o = op(a, gap->next_op);
			if (o->kind != KG_OP_KERNEL || o->name != name || o->queued == KG_NO_TIME ||
			    o->api_start == KG_NO_TIME)
				continue;
			int64_t late = kg_time_add(o->api_start, a->cfg.high_launch_latency_ns);
			int64_t from = late > gap->start ? late : gap->start;
			int64_t to = o->queued < gap->end ? o->queued : gap->end;
			if (to <= from)
				continue;
			double d = (double)kg_time_diff(to, from);
			analysis_blame(a, KG_NONE, gap->next_op, d);
			idle += d;
		}
	}
	return idle;
}

/* High launch latency: the API call returned long before the kernel was queued. */
void rule_launch_latency(struct kg_analysis *a)
{
	for (uint32_t k = 0; k < a->n_kernels; k++) {
		const struct kg_kernel_stats *ks = &a->kernels[k];
		if (ks->launch_p50 == KG_NO_TIME || ks->launch_p50 < a->cfg.high_launch_latency_ns ||
		    ks->count < 10 || ks->launch_incl_queue)
			continue;
		uint32_t mark = a->n_blame;
		double gain = latency_idle(a, ks->name);
		if (!analysis_worth(a, gain)) {
			analysis_drop_blame(a, mark);
			continue;
		}
		struct kg_finding *f = analysis_add_finding(a, KG_RULE_LAUNCH_LATENCY);
		if (!f)
			return;
		finding_take_blame(a, f, mark);
		char nm[160];
		finding_set(&f->title, "%s: median launch latency %.0f µs from the API call to the hardware queue",
			 rule_kernel_name(a, ks->name, nm, sizeof(nm)), ks->launch_p50 / 1e3);
		finding_set(&f->explanation, "Its launches take %.0f µs (p99 %.0f µs) before the GPU even queues them: "
			 "the driver is busy (a full command queue, module loading, JIT "
			 "compilation, or contention between host threads).",
			 ks->launch_p50 / 1e3, ks->launch_p99 / 1e3);
		finding_set(&f->fix, "Launch from one thread per device, warm up (load modules, JIT) before the "
			 "timed work, keep fewer launches in flight, or replay a CUDA graph.");
		f->gain_ns = gain;
		finding_set(&f->gain_how, "GPU idle time in the gaps these launches ended, from %lld µs after "
			 "their call to their queueing: what a launch as fast as the threshold "
			 "would have saved",
			 (long long)(a->cfg.high_launch_latency_ns / 1000));
		finding_set(&f->figures, "launches=%u, launch_p50_us=%.1f, p99_us=%.1f",
			 ks->count, ks->launch_p50 / 1e3, ks->launch_p99 / 1e3);
	}
}

