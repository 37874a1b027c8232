/* launch-overhead and launch-latency: the GPU waiting on launches (docs/rules.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"
#include "util/api_names.h"
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

/* Whether GPU gm's idle gap from `start` is one no step pays (kg_gap_place: start-up,
 * wind-down, graph capture): launch overhead is the steady work's, as host-bound's time
 * is. TraceLens's Flux capture counted the 231 ms its host spent capturing the graph,
 * 162 % of the steady span. */
static int setup_gap_at(const struct kg_gpu_metrics *gm, int64_t start)
{
	uint32_t lo = 0, hi = gm->n_gaps;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (gm->gaps[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < gm->n_gaps && gm->gaps[lo].start == start && gm->gaps[lo].place != KG_GAP_STEADY;
}

void rule_launch_overhead(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &a->gpus[g];
		uint32_t mark = a->n_blame;
		/* idle gaps of the GPU between two tiny kernels: the GPU waited for launches */
		double idle = 0, exec = 0;
		uint32_t n = 0, ngraph = 0, worst_stream = KG_NONE;
		int64_t busy_end = KG_NO_TIME, first = KG_NO_TIME, last = KG_NO_TIME;
		const struct kg_op *prev = NULL;
		for (uint32_t i = 0; i < gm->n_ops; i++) {
			const struct kg_op *o = op(a, gm->ops[i]);
			if (prev && op_is_compute(prev) && op_is_compute(o) &&
			    dur(prev) < a->cfg.tiny_kernel_ns && dur(o) < a->cfg.tiny_kernel_ns &&
			    busy_end != KG_NO_TIME && o->start > busy_end && !slow_launch_call(a, o) &&
			    !setup_gap_at(gm, busy_end)) {
				double gap = (double)kg_time_diff(o->start, busy_end);
				analysis_blame_idle(a, KG_NONE, gm->ops[i], gap, busy_end, o->start,
						    gm->ops[i], KG_IDLE_WHOLE);
				if (o->flags & KG_OPF_GRAPH)
					ngraph++;
				idle += gap;
				exec += (double)dur(o);
				n++;
				worst_stream = o->stream;
				if (first == KG_NO_TIME)
					first = prev->start;
				last = o->end;
			}
			if (busy_end == KG_NO_TIME || o->end > busy_end)
				busy_end = o->end;
			prev = o;
		}
		double gap_after = ngraph > n / 2 ? 0 : GRAPH_GAP_NS;
		double gain = idle - n * gap_after;
		if (n < 100 || exec <= 0 || idle / exec < a->cfg.launch_bound_ratio ||
		    !analysis_worth(a, gain)) {
			analysis_drop_blame(a, mark);
			continue;
		}
		struct kg_finding *f = analysis_add_finding(a, KG_RULE_LAUNCH_OVERHEAD);
		if (!f)
			return;
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

