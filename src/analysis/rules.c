/* The diagnosis rules. Each looks at the metrics (metrics.c) and the model, and adds a
 * finding when the problem it knows costs at least the configured share of the span:
 * what is wrong, the evidence, why it costs time, the fix, and the time the fix would
 * save with how that was estimated. docs/rules.md documents every rule.
 *
 * Estimates are deliberately simple models with their assumptions stated, not
 * simulations: they rank the findings and size the prize. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/api_names.h"
#include "util/timemath.h"

/* Gaps between kernels replayed from a CUDA graph, measured on an H200 (launches_graph
 * example: 0.6 µs on average): what a graph leaves of launch overhead. */
#define GRAPH_GAP_NS 600.0
/* Throughput lost when two contexts time-slice one GPU, measured on an H200 (timeslice
 * example: 468 ms with two processes vs 401 ms for the same work in one): 14 %. */
#define SLICE_OVERHEAD 0.14
/* How much earlier than one run's steady work the --delay named starts: on the H200 one
 * GPT program began its steps 11.7, 11.0 and 8.8 s after it started in three runs, and
 * two more had ended by 9.9 s (a quarter less than the slowest). */
#define STARTUP_MARGIN 0.25

static double ms(double ns)
{
	return ns / 1e6;
}

static int worth(const struct kg_analysis *a, double gain)
{
	return gain >= (double)a->cfg.min_gain_ns && a->steady_span > 0 &&
	       100.0 * gain / (double)a->steady_span >= a->cfg.min_gain_pct;
}

static const struct kg_op *op(const struct kg_analysis *a, uint32_t i)
{
	return &a->m->ops[i];
}

/* 0 for an op whose end is unknown or before its start; saturated (util/timemath.h) */
static int64_t dur(const struct kg_op *o)
{
	return kg_time_span(o->end, o->start);
}

static int64_t gap_len(const struct kg_gap *g)
{
	return kg_time_span(g->end, g->start);
}

static void gpu_label(const struct kg_analysis *a, uint32_t gpu, char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu *g = &m->gpus[gpu];
	const struct kg_device *d = &m->devices[g->device];
	snprintf(buf, len, "GPU %d (%s)", g->ordinal, d->name ? model_text(m, d->name) : "?");
}

static void stream_label(const struct kg_analysis *a, uint32_t s, char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	const struct kg_stream *st = &m->streams[s];
	const char *kind = st->kind == KG_STREAM_LEGACY_DEFAULT ? " (legacy default stream)"
			   : st->kind == KG_STREAM_BLOCKING    ? " (blocking)"
							       : "";
	if (m->n_processes > 1)
		snprintf(buf, len, "stream %lld of pid %u%s", (long long)st->id,
			 m->processes[st->process].pid, kind);
	else
		snprintf(buf, len, "stream %lld%s", (long long)st->id, kind);
}

static const char *short_name(const struct kg_analysis *a, uint32_t name, char *buf, size_t len)
{
	const char *s = model_text(a->m, name);
	const char *paren = strchr(s, '(');
	size_t n = paren ? (size_t)(paren - s) : strlen(s);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/* ------------------------------------------------------------------ stream serialization */

/* Was the next kernel of this stream already waiting when o ended? */
static int has_backlog(const struct kg_analysis *a, const struct kg_op *o, uint32_t opi)
{
	const struct kg_stream *st = &a->m->streams[o->stream];
	uint32_t next = opi + 1;
	while (next < st->first_op + st->nops && op(a, next)->kind != KG_OP_KERNEL)
		next++;
	if (next >= st->first_op + st->nops)
		return 0;
	const struct kg_op *n = op(a, next);
	int64_t issued = n->queued != KG_NO_TIME ? n->queued : n->api_start;
	if (issued != KG_NO_TIME)
		return issued < o->end;
	/* no launch times: back to back means queued */
	return o->end != KG_NO_TIME && kg_time_diff(n->start, o->end) < 5000;
}

static void rule_stream_serialization(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	const int64_t *solo = a->solo;
	double *per_stream = calloc((size_t)m->n_streams + 1, sizeof(*per_stream));
	if (!solo || !per_stream)
		goto out;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &a->gpus[g];
		uint32_t mark = a->n_blame;
		memset(per_stream, 0, ((size_t)m->n_streams + 1) * sizeof(*per_stream));
		double gain = 0, solo_total = 0;
		uint32_t nser = 0;
		int64_t first = KG_NO_TIME, last = KG_NO_TIME;
		for (uint32_t i = 0; i < gm->n_ops; i++) {
			uint32_t oi = gm->ops[i];
			const struct kg_op *o = op(a, oi);
			/* tiny kernels gain nothing from sharing the GPU: their cost is the launch
			 * (launch-overhead rule) */
			if (o->kind != KG_OP_KERNEL || !solo[oi] || dur(o) < a->cfg.tiny_kernel_ns)
				continue;
			double fill = op_fill(a, o);
			if (fill >= a->cfg.underfill_waves || fill >= 1.0 || !has_backlog(a, o, oi))
				continue;
			double g1 = (double)solo[oi] * (1.0 - fill);
			analysis_blame(a, KG_NONE, oi, g1);
			gain += g1;
			solo_total += (double)solo[oi];
			per_stream[o->stream] += g1;
			nser++;
			if (first == KG_NO_TIME)
				first = o->start;
			last = o->end;
		}
		if (!worth(a, gain)) {
			analysis_drop_blame(a, mark);
			continue;
		}
		struct kg_finding *f = analysis_add_finding(a, "stream-serialization");
		if (!f)
			break;
		finding_take_blame(a, f, mark);
		char gl[128], sl[128];
		gpu_label(a, g, gl, sizeof(gl));
		uint32_t worst = 0;
		for (uint32_t s = 1; s < m->n_streams; s++)
			if (per_stream[s] > per_stream[worst])
				worst = s;
		stream_label(a, worst, sl, sizeof(sl));
		int legacy = m->streams[worst].kind == KG_STREAM_LEGACY_DEFAULT;
		snprintf(f->title, sizeof(f->title),
			 "%u small kernels run one after another on %s%s while most of %s stays idle",
			 nser, sl, legacy ? "" : "", gl);
		snprintf(f->explanation, sizeof(f->explanation),
			 "Each of these kernels gives work to only some of the SMs (fewer blocks "
			 "than SMs), and the next one was already waiting in the same stream, so "
			 "the GPU ran them one at a time: %.1f ms in which one under-filled kernel "
			 "had the GPU to itself. Where the kernels do not depend on each other, "
			 "other streams could have used the idle SMs.%s",
			 ms(solo_total),
			 legacy ? " The legacy default stream also serialises with every other "
				  "blocking stream of the context."
				: "");
		snprintf(f->fix, sizeof(f->fix),
			 "Issue independent work on separate streams so the kernels can share the "
			 "SMs: cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) per independent "
			 "chain (PyTorch: with torch.cuda.stream(s)), order dependent work with "
			 "events, and avoid the legacy default stream (explicit streams, or nvcc "
			 "--default-stream per-thread). Or give each kernel a larger grid.");
		f->gain_ns = gain;
		snprintf(f->gain_how, sizeof(f->gain_how),
			 "sum over serialised kernels of (time alone on the GPU) x (1 - fraction "
			 "of the GPU its grid fills): the idle share other streams could have used");
		f->gpu = g;
		f->start = first;
		f->end = last;
		finding_evidence(f, first, last, worst, KG_NONE,
				 "%.1f ms of the estimate, %u kernels waiting behind each other",
				 ms(per_stream[worst]), nser);
		snprintf(f->figures, sizeof(f->figures),
			 "serialised_kernels=%u, solo_ms=%.3f, streams_used=%u", nser, ms(solo_total),
			 m->n_streams);
	}
out:
	free(per_stream);
}

/* ------------------------------------------------------------------ copies */

static int is_pageable_copy(const struct kg_op *o)
{
	return o->kind == KG_OP_MEMCPY &&
	       (o->src_kind == KG_MEM_PAGEABLE || o->dst_kind == KG_MEM_PAGEABLE);
}

static int api_is_sync_copy(const struct kg_model *m, const struct kg_op *o)
{
	if (o->api == KG_NONE)
		return !(o->flags & KG_OPF_ASYNC) && o->kind != KG_OP_KERNEL &&
		       m->has_api; /* no call recorded: trust the async flag */
	return !strstr(model_text(m, m->apis[o->api].name), "Async");
}

static double pinned_bandwidth(const struct kg_analysis *a)
{
	/* the trace's own pinned copies, when it has large enough ones */
	double bytes = 0, ns = 0;
	for (uint32_t i = 0; i < a->m->n_ops; i++) {
		const struct kg_op *o = op(a, i);
		if (o->kind == KG_OP_MEMCPY && o->bytes >= (1u << 20) &&
		    (o->src_kind == KG_MEM_PINNED || o->dst_kind == KG_MEM_PINNED)) {
			bytes += (double)o->bytes;
			ns += (double)dur(o);
		}
	}
	return ns > 0 ? bytes / ns : a->cfg.pinned_bandwidth;
}

/* A host-to-device copy on a stream that also runs kernels cannot overlap them. */
static int copy_on_compute_stream(const struct kg_analysis *a, const struct kg_op *o)
{
	return o->kind == KG_OP_MEMCPY && a->streams[o->stream].kernels > 0 &&
	       o->copy_kind == KG_COPY_HTOD;
}

/* What a copy would save at pinned bandwidth: nothing unless it is pageable. */
static double pinned_saving(const struct kg_op *o, double bw)
{
	if (!is_pageable_copy(o))
		return 0;
	double d = (double)o->bytes / bw;
	return d < (double)dur(o) ? (double)dur(o) - d : 0;
}

/* Each copy's part: what pinned memory saves on it, and its share (by duration) of the
 * overlap that issuing the blocking copies asynchronously would gain. */
static void blame_copies(struct kg_analysis *a, struct kg_finding *f,
			 const struct kg_gpu_metrics *gm, double bw, double blocking_ns, double extra)
{
	const struct kg_model *m = a->m;
	uint32_t mark = a->n_blame;
	for (uint32_t i = 0; i < gm->n_ops; i++) {
		uint32_t oi = gm->ops[i];
		const struct kg_op *o = op(a, oi);
		if (o->kind != KG_OP_MEMCPY)
			continue;
		if (!api_is_sync_copy(m, o) && !copy_on_compute_stream(a, o) && !is_pageable_copy(o))
			continue;
		double part = blocking_ns > 0 ? extra * (double)dur(o) / blocking_ns : 0;
		analysis_blame(a, o->api, oi, part + pinned_saving(o, bw));
	}
	finding_take_blame(a, f, mark);
}

static void rule_copies(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	double bw = pinned_bandwidth(a);
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &a->gpus[g];
		if (!gm->copies)
			continue;
		double pageable_ns = 0, pageable_bytes = 0, faster = 0, host_blocked = 0;
		double blocking_ns = 0; /* copies that cannot overlap by construction */
		uint32_t npageable = 0, nsync = 0, nsync_set = 0, on_compute = 0;
		uint32_t example = KG_NONE;
		for (uint32_t i = 0; i < gm->n_ops; i++) {
			uint32_t oi = gm->ops[i];
			const struct kg_op *o = op(a, oi);
			if (o->kind == KG_OP_KERNEL)
				continue;
			int sync = api_is_sync_copy(m, o);
			if (sync && o->api != KG_NONE)
				host_blocked += (double)kg_time_span(m->apis[o->api].end,
								     m->apis[o->api].start);
			nsync += sync && o->kind == KG_OP_MEMCPY;
			nsync_set += sync && o->kind == KG_OP_MEMSET;
			int same_stream = copy_on_compute_stream(a, o);
			on_compute += same_stream;
			int pageable = is_pageable_copy(o);
			if (o->kind == KG_OP_MEMCPY && (sync || same_stream || pageable))
				blocking_ns += (double)dur(o);
			if (!pageable)
				continue;
			npageable++;
			pageable_ns += (double)dur(o);
			pageable_bytes += (double)o->bytes;
			faster += pinned_saving(o, bw);
			if (example == KG_NONE || dur(o) > dur(op(a, example)))
				example = oi;
		}
		/* Only copies that are pageable, synchronous or on a compute stream are this
		 * rule's business: copies already issued right may still fail to overlap
		 * at a pipeline's start and end, and no change of API helps there. */
		double blocking_after = blocking_ns - faster;
		double share = gm->copy_total ? blocking_ns / (double)gm->copy_total : 0;
		double overlapped = (double)gm->copy_kernel_overlap * share;
		double can_overlap = blocking_after < (double)gm->kernel_busy ? blocking_after
									      : (double)gm->kernel_busy;
		double extra = can_overlap - overlapped;
		double gain = faster + (extra > 0 ? extra : 0);
		if (gain > (double)gm->copy_total)
			gain = (double)gm->copy_total;
		if (!worth(a, gain))
			continue;
		struct kg_finding *f = analysis_add_finding(a, "copy-compute-overlap");
		if (!f)
			return;
		blame_copies(a, f, gm, bw, blocking_ns, extra > 0 ? extra : 0);
		char gl[128];
		gpu_label(a, g, gl, sizeof(gl));
		double overlap_pct = gm->copy_total ? 100.0 * gm->copy_kernel_overlap / gm->copy_total : 0;
		snprintf(f->title, sizeof(f->title),
			 "copies on %s do not overlap compute: %.0f%% of %.1f ms of copies ran "
			 "beside a kernel%s",
			 gl, overlap_pct, ms(gm->copy_total),
			 npageable ? "; pageable host memory makes them slow and synchronous" : "");
		snprintf(f->explanation, sizeof(f->explanation),
			 "%u copies used pageable host memory (%.1f GB/s; pinned copies move "
			 "%.0f GB/s): the driver stages them through a pinned buffer and an "
			 "'async' copy from pageable memory blocks the host. %u synchronous "
			 "cudaMemcpy and %u synchronous cudaMemset calls blocked the host for "
			 "%.1f ms in all. %u host-to-device copies ran on a stream that also runs "
			 "kernels, so they cannot overlap those kernels.",
			 npageable, pageable_ns > 0 ? pageable_bytes / pageable_ns : 0, bw, nsync,
			 nsync_set, ms(host_blocked), on_compute);
		snprintf(f->fix, sizeof(f->fix),
			 "Allocate host buffers pinned (cudaMallocHost / cudaHostAlloc; PyTorch: "
			 "DataLoader(pin_memory=True), tensor.pin_memory()), copy with "
			 "cudaMemcpyAsync on a dedicated copy stream (PyTorch: .to(device, "
			 "non_blocking=True)) while the compute stream works on the previous batch, "
			 "order the two with cudaEventRecord/cudaStreamWaitEvent, and use "
			 "cudaMemsetAsync instead of cudaMemset.");
		f->gain_ns = gain;
		snprintf(f->gain_how, sizeof(f->gain_how),
			 "pageable copies at pinned bandwidth (%.0f GB/s) save %.1f ms; the "
			 "remaining copy time overlapped with kernel time up to the smaller of the "
			 "two saves %.1f ms more",
			 bw, ms(faster), ms(extra > 0 ? extra : 0));
		f->gpu = g;
		f->start = gm->begin;
		f->end = gm->end;
		if (example != KG_NONE) {
			const struct kg_op *o = op(a, example);
			finding_evidence(f, o->start, o->end, o->stream, example,
					 "longest pageable copy: %s, %.1f MiB in %.2f ms (%.1f GB/s)",
					 model_text(m, o->name), o->bytes / 1048576.0, ms(dur(o)),
					 (double)o->bytes / (double)dur(o));
		}
		snprintf(f->figures, sizeof(f->figures),
			 "copies=%u, copy_ms=%.3f, overlapped_ms=%.3f, pageable=%u, sync_memcpy=%u, "
			 "sync_memset=%u, htod_on_compute_stream=%u",
			 gm->copies, ms(gm->copy_total), ms(gm->copy_kernel_overlap), npageable, nsync,
			 nsync_set, on_compute);
	}
}

/* ------------------------------------------------------------------ launch overhead */

static void rule_launch_overhead(struct kg_analysis *a)
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
			if (prev && prev->kind == KG_OP_KERNEL && o->kind == KG_OP_KERNEL &&
			    dur(prev) < a->cfg.tiny_kernel_ns && dur(o) < a->cfg.tiny_kernel_ns &&
			    busy_end != KG_NO_TIME && o->start > busy_end) {
				double gap = (double)kg_time_diff(o->start, busy_end);
				analysis_blame(a, KG_NONE, gm->ops[i], gap);
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
		    !worth(a, gain)) {
			analysis_drop_blame(a, mark);
			continue;
		}
		struct kg_finding *f = analysis_add_finding(a, "launch-overhead");
		if (!f)
			return;
		finding_take_blame(a, f, mark);
		char gl[128];
		gpu_label(a, g, gl, sizeof(gl));
		snprintf(f->title, sizeof(f->title),
			 "%s starves on launches: %u tiny kernels (%.1f µs each on average) with "
			 "%.1f µs of idle GPU between them",
			 gl, n, exec / n / 1e3, idle / n / 1e3);
		snprintf(f->explanation, sizeof(f->explanation),
			 "The kernels finish faster than the host can launch the next one, so the "
			 "GPU sits idle %.0f%% of that time (%.1f ms idle for %.1f ms of work). "
			 "Each launch costs microseconds of CPU and driver time whatever the "
			 "kernel does.",
			 100 * idle / (idle + exec), ms(idle), ms(exec));
		if (ngraph > n / 2)
			snprintf(f->fix, sizeof(f->fix),
				 "These kernels already come from a CUDA graph; the remaining gaps are "
				 "the per-node cost. Fuse them into fewer kernels (one grid-stride "
				 "kernel, torch.compile, a custom fused kernel).");
		else
			snprintf(f->fix, sizeof(f->fix),
				 "Fuse the tiny kernels into one (a grid-stride loop over all the "
				 "work; in PyTorch, torch.compile or fused optimizers such as "
				 "foreach/fused=True), or capture the sequence once in a CUDA graph "
				 "(cudaStreamBeginCapture / cudaGraphLaunch; torch.cuda.graphs or "
				 "torch.compile(mode='reduce-overhead')) and replay it.");
		f->gain_ns = gain;
		if (gap_after > 0)
			snprintf(f->gain_how, sizeof(f->gain_how),
				 "idle time between the tiny kernels minus %.1f µs per kernel, the "
				 "gap left between graph-launched kernels (measured on an H200)",
				 gap_after / 1e3);
		else
			snprintf(f->gain_how, sizeof(f->gain_how),
				 "idle time between the tiny kernels, which fusion removes");
		f->gpu = g;
		f->start = first;
		f->end = last;
		finding_evidence(f, first, last, worst_stream, KG_NONE,
				 "%u tiny kernels from %.3f to %.3f ms (on this and other streams)", n,
				 ms((double)kg_time_diff(first, m->begin)),
				 ms((double)kg_time_diff(last, m->begin)));
		snprintf(f->figures, sizeof(f->figures),
			 "tiny_kernels=%u, idle_ms=%.3f, exec_ms=%.3f, from_graph=%u", n, ms(idle),
			 ms(exec), ngraph);
	}
	/* high launch latency: the API call returned long before the kernel was queued */
	for (uint32_t k = 0; k < a->n_kernels; k++) {
		const struct kg_kernel_stats *ks = &a->kernels[k];
		if (ks->launch_p50 == KG_NO_TIME || ks->launch_p50 < a->cfg.high_launch_latency_ns ||
		    ks->count < 10 || ks->launch_incl_queue)
			continue;
		double gain = (double)kg_time_diff(ks->launch_p50, a->cfg.high_launch_latency_ns) *
			      ks->count;
		if (!worth(a, gain))
			continue;
		struct kg_finding *f = analysis_add_finding(a, "launch-latency");
		if (!f)
			return;
		uint32_t mark = a->n_blame;
		for (uint32_t i = 0; i < a->m->n_ops; i++) {
			const struct kg_op *o = op(a, i);
			if (o->kind == KG_OP_KERNEL && o->name == ks->name && o->queued != KG_NO_TIME &&
			    o->api_start != KG_NO_TIME)
				analysis_blame(a, KG_NONE, i,
					       (double)kg_time_diff(kg_time_diff(o->queued, o->api_start),
								    a->cfg.high_launch_latency_ns));
		}
		finding_take_blame(a, f, mark);
		char nm[160];
		snprintf(f->title, sizeof(f->title),
			 "%s: median launch latency %.0f µs from the API call to the hardware queue",
			 short_name(a, ks->name, nm, sizeof(nm)), ks->launch_p50 / 1e3);
		snprintf(f->explanation, sizeof(f->explanation),
			 "Its launches take %.0f µs (p99 %.0f µs) before the GPU even queues them: "
			 "the driver is busy (a full command queue, module loading, JIT "
			 "compilation, or contention between host threads).",
			 ks->launch_p50 / 1e3, ks->launch_p99 / 1e3);
		snprintf(f->fix, sizeof(f->fix),
			 "Launch from one thread per device, warm up (load modules, JIT) before the "
			 "timed work, keep fewer launches in flight, or replay a CUDA graph.");
		f->gain_ns = gain;
		snprintf(f->gain_how, sizeof(f->gain_how),
			 "(median launch latency - %lld µs) x launches: an upper bound when the GPU "
			 "waited for these launches",
			 (long long)(a->cfg.high_launch_latency_ns / 1000));
		snprintf(f->figures, sizeof(f->figures), "launches=%u, launch_p50_us=%.1f, p99_us=%.1f",
			 ks->count, ks->launch_p50 / 1e3, ks->launch_p99 / 1e3);
	}
}

/* ------------------------------------------------------------------ imbalance */

static void rule_imbalance(struct kg_analysis *a)
{
	if (a->n_gpus < 2)
		return;
	const struct kg_model *m = a->m;
	double max = -1, min = -1, sum = 0;
	uint32_t gmax = 0, gmin = 0, used = 0;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		double b = (double)a->gpus[g].kernel_busy;
		if (!a->gpus[g].kernels)
			continue;
		used++;
		sum += b;
		if (max < 0 || b > max)
			max = b, gmax = g;
		if (min < 0 || b < min)
			min = b, gmin = g;
	}
	if (used >= 2 && min > 0 && max / min >= a->cfg.imbalance_ratio) {
		double gain = max - sum / used;
		if (worth(a, gain)) {
			struct kg_finding *f = analysis_add_finding(a, "gpu-imbalance");
			if (!f)
				return;
			/* the busiest GPU's kernels, where the extra work is launched */
			uint32_t mark = a->n_blame;
			for (uint32_t i = 0; i < a->gpus[gmax].n_ops; i++) {
				const struct kg_op *o = op(a, a->gpus[gmax].ops[i]);
				if (o->kind == KG_OP_KERNEL)
					analysis_blame(a, KG_NONE, a->gpus[gmax].ops[i], (double)dur(o));
			}
			finding_take_blame(a, f, mark);
			char g1[128], g2[128];
			gpu_label(a, gmax, g1, sizeof(g1));
			gpu_label(a, gmin, g2, sizeof(g2));
			snprintf(f->title, sizeof(f->title),
				 "work is unbalanced across GPUs: %s computes %.1f ms, %s only %.1f ms "
				 "(%.1fx)",
				 g1, ms(max), g2, ms(min), max / min);
			snprintf(f->explanation, sizeof(f->explanation),
				 "The GPUs do not get the same amount of work, so the busiest one "
				 "decides when a step ends and the others wait for it (at the next "
				 "collective or synchronisation).");
			snprintf(f->fix, sizeof(f->fix),
				 "Split the work evenly: the same batch per rank (DistributedSampler, "
				 "drop_last), each rank on its own device (torch.cuda.set_device(rank) "
				 "before init_process_group, DDP(device_ids=[rank])), balanced pipeline "
				 "stages or expert placement.");
			f->gain_ns = gain;
			snprintf(f->gain_how, sizeof(f->gain_how),
				 "busiest GPU's kernel time minus the mean over %u GPUs: what the "
				 "busiest would shed if the work were even",
				 used);
			f->start = a->gpus[gmax].begin;
			f->end = a->gpus[gmax].end;
			for (uint32_t g = 0; g < a->n_gpus && f->n_evidence < KG_MAX_EVIDENCE; g++) {
				char gl[128];
				gpu_label(a, g, gl, sizeof(gl));
				finding_evidence(f, a->gpus[g].begin, a->gpus[g].end, KG_NONE, KG_NONE,
						 "%s: %u kernels, %.1f ms of kernel time", gl,
						 a->gpus[g].kernels, ms(a->gpus[g].kernel_busy));
			}
			snprintf(f->figures, sizeof(f->figures), "max_ms=%.3f, min_ms=%.3f, ratio=%.2f",
				 ms(max), ms(min), max / min);
		}
	}
	/* stragglers: the k-th collective kernel of each GPU is the same collective; its
	 * start skew is how long the early GPUs waited for the last one */
	uint32_t *cursor = calloc(a->n_gpus, sizeof(*cursor));
	if (!cursor)
		return;
	double wait = 0, worst = 0;
	uint32_t ncoll = 0, *late = calloc(a->n_gpus, sizeof(*late));
	int64_t wstart = KG_NO_TIME;
	uint32_t mark = a->n_blame;
	int made = 0;
	for (;;) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		uint32_t last_gpu = 0, present = 0, last_op = KG_NONE;
		for (uint32_t g = 0; g < a->n_gpus; g++) {
			const struct kg_gpu_metrics *gm = &a->gpus[g];
			while (cursor[g] < gm->n_ops && !(op(a, gm->ops[cursor[g]])->flags & KG_OPF_COMM))
				cursor[g]++;
			if (cursor[g] >= gm->n_ops)
				continue;
			uint32_t oi = gm->ops[cursor[g]++];
			const struct kg_op *o = op(a, oi);
			present++;
			if (o->start < lo)
				lo = o->start;
			if (o->start > hi)
				hi = o->start, last_gpu = g, last_op = oi;
		}
		if (present < 2)
			break;
		ncoll++;
		int64_t skew = kg_time_diff(hi, lo);
		if (skew >= a->cfg.comm_skew_ns) {
			wait += (double)skew * (present - 1);
			/* the late rank's collective: its launch is where that rank came late */
			analysis_blame(a, KG_NONE, last_op, (double)skew * (present - 1));
			if (late)
				late[last_gpu]++;
			if (skew > worst)
				worst = (double)skew, wstart = lo;
		}
	}
	free(cursor);
	if (late && worth(a, wait)) {
		uint32_t lg = 0;
		for (uint32_t g = 1; g < a->n_gpus; g++)
			if (late[g] > late[lg])
				lg = g;
		struct kg_finding *f = analysis_add_finding(a, "straggler");
		if (f) {
			made = 1;
			finding_take_blame(a, f, mark);
			char gl[128];
			gpu_label(a, lg, gl, sizeof(gl));
			snprintf(f->title, sizeof(f->title),
				 "%s arrives last at collectives: start skew up to %.2f ms over %u "
				 "collectives",
				 gl, ms(worst), ncoll);
			snprintf(f->explanation, sizeof(f->explanation),
				 "A collective (NCCL) cannot finish before every rank has joined it: "
				 "the ranks that start it early wait inside the kernel for the late "
				 "one, and that wait looks like communication time.");
			snprintf(f->fix, sizeof(f->fix),
				 "Find what delays the late rank before the collective: more work "
				 "(imbalance), host stalls (data loading, syncs), a slower or shared "
				 "GPU. Balance the work or overlap it with communication.");
			f->gain_ns = wait;
			snprintf(f->gain_how, sizeof(f->gain_how),
				 "sum over collectives of start skew x waiting ranks, for skews above "
				 "%lld µs",
				 (long long)(a->cfg.comm_skew_ns / 1000));
			f->start = wstart;
			f->end = kg_time_add(wstart, kg_i64_of(worst));
			snprintf(f->figures, sizeof(f->figures), "collectives=%u, worst_skew_ms=%.3f",
				 ncoll, ms(worst));
		}
	}
	if (!made)
		analysis_drop_blame(a, mark);
	free(late);
	(void)m;
}

/* ------------------------------------------------------------------ occupancy */

/* Time the kernels of each name had the GPU to themselves, by name id: an under-filled
 * grid only wastes SMs when nothing else runs beside it. One pass over the ops. */
static int64_t *solo_by_name(const struct kg_analysis *a)
{
	int64_t *t = calloc((size_t)a->m->strings.count + 2, sizeof(*t));
	for (uint32_t i = 0; t && a->solo && i < a->m->n_ops; i++) {
		const struct kg_op *o = &a->m->ops[i];
		if (o->kind == KG_OP_KERNEL && o->name <= a->m->strings.count)
			t[o->name] = kg_time_add(t[o->name], a->solo[i]);
	}
	return t;
}

/* A kernel of a library (cuBLAS, cuDNN, CUTLASS, PyTorch's own, Triton, NCCL): its block
 * size and registers are not the user's to change. Told by the kernel's name, else by
 * the library its launches came from (their stacks). NULL for the user's own kernels. */
static const char *kernel_library(const struct kg_analysis *a, const struct kg_kernel_stats *ks)
{
	static const struct {
		const char *part, *library;
	} names[] = {
		{"cutlass", "CUTLASS (through cuBLAS, cuDNN or a library)"},
		{"cublas", "cuBLAS"}, {"xmma", "cuBLAS/cuDNN"}, {"gemm", "cuBLAS"},
		{"gemv", "cuBLAS"}, {"sm90_", "cuBLAS/cuDNN"}, {"sm80_", "cuBLAS/cuDNN"},
		{"ampere_", "cuBLAS/cuDNN"}, {"cudnn", "cuDNN"}, {"nchwToNhwc", "cuDNN"},
		{"nhwcToNchw", "cuDNN"}, {"implicit_convolve", "cuDNN"}, {"conv2d", "cuDNN"},
		{"at::native::", "PyTorch (ATen)"}, {"at::cuda::", "PyTorch (ATen)"},
		{"triton_", "Triton (torch.compile)"}, {"nccl", "NCCL"}, {"flash", "FlashAttention"},
		{"cub::", "CUB"}, {"thrust::", "Thrust"},
	};
	static const struct {
		const char *module, *library;
	} modules[] = {
		{"libcublas", "cuBLAS"}, {"libcudnn", "cuDNN"}, {"libtorch", "PyTorch (ATen)"},
		{"libnccl", "NCCL"}, {"libcufft", "cuFFT"}, {"libcusparse", "cuSPARSE"},
	};
	const char *name = model_text(a->m, ks->name);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(name, names[i].part))
			return names[i].library;
	/* the innermost frame outside the CUDA runtime of a launch of this kernel */
	const struct kg_model *m = a->m;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind != KG_OP_KERNEL || o->name != ks->name || o->api == KG_NONE ||
		    m->apis[o->api].stack == KG_NONE)
			continue;
		const struct kg_stack *st = &m->stacks[m->apis[o->api].stack];
		for (uint32_t k = 0; k < st->n_frames; k++) {
			const char *mod = model_text(m, m->frames[st->first_frame + k].module);
			const char *base = strrchr(mod, '/');
			base = base ? base + 1 : mod;
			if (!*base || !strncmp(base, "libcuda", 7))
				continue;
			for (size_t j = 0; j < sizeof(modules) / sizeof(modules[0]); j++)
				if (!strncmp(base, modules[j].module, strlen(modules[j].module)))
					return modules[j].library;
			return NULL;
		}
	}
	return NULL;
}

/* What the user can change about a library's kernel. */
static void library_fix(struct kg_finding *f, const char *lib, int underfilled, int sms)
{
	if (underfilled)
		snprintf(f->fix, sizeof(f->fix),
			 "This kernel is %s's: its grid follows from the problem you give it, not "
			 "from a block size you choose. Give it more work per call (a larger batch, "
			 "or several small matrix products as one batched/grouped call: torch.bmm, "
			 "torch.baddbmm), so that its grid covers the %d SMs; run independent work "
			 "beside it on other streams; or fuse the small operations around it "
			 "(torch.compile).",
			 lib, sms);
	else
		snprintf(f->fix, sizeof(f->fix),
			 "This kernel is %s's: its block size, registers and shared memory are the "
			 "library's choice. What you control: the shapes (batch and feature sizes "
			 "multiples of 8 for fp16/bf16 and of 64 or 128 where you can, so it picks "
			 "tiles that fill the SMs), the algorithm (torch.backends.cudnn.benchmark = "
			 "True lets cuDNN time its algorithms for your shapes; "
			 "torch.backends.cuda.matmul.allow_tf32 / bf16 autocast choose faster "
			 "kernels), and fusion (torch.compile) so that fewer, larger kernels run.",
			 lib);
}

/* The achieved figures behind a finding about kernel k, appended to its figures. */
static void hw_figures_text(const struct kg_analysis *a, uint32_t k, struct kg_finding *f)
{
	static const int shown[] = {KG_HW_OCCUPANCY, KG_HW_SM_ACTIVE, KG_HW_DRAM_PEAK, KG_HW_TENSOR};
	size_t len = strlen(f->figures);
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		double v = hw_kernel_figure(a, k, shown[i]);
		if (!isnan(v) && len < sizeof(f->figures))
			len += (size_t)snprintf(f->figures + len, sizeof(f->figures) - len,
						", achieved_%s=%.1f", kg_hw_figure_info[shown[i]].column, v);
	}
	if (a->hw_kernels && k < a->n_kernels && a->hw_kernels[k].samples && len < sizeof(f->figures))
		snprintf(f->figures + len, sizeof(f->figures) - len, ", hw_samples_alone=%u",
			 a->hw_kernels[k].samples);
}

static void rule_occupancy(struct kg_analysis *a)
{
	uint32_t reported = 0;
	int64_t *solo = solo_by_name(a);
	if (!solo)
		return;
	for (uint32_t k = 0; k < a->n_kernels && reported < 5; k++) {
		const struct kg_kernel_stats *ks = &a->kernels[k];
		if (!ks->occupancy_ok || ks->p50 < a->cfg.long_kernel_ns)
			continue;
		const struct kg_op *o = op(a, ks->example_op);
		const struct kg_launch *l = op_launch(a->m, o);
		const struct kg_device *d = op_device(a->m, o);
		int underfilled = ks->waves > 0 && ks->waves < a->cfg.underfill_waves &&
				  ks->blocks < d->sm_count;
		int low = ks->occ.occupancy < a->cfg.low_occupancy;
		/* the counters (record --hw), NaN without them */
		double achieved = hw_kernel_figure(a, k, KG_HW_OCCUPANCY) / 100;
		double sm_active = hw_kernel_figure(a, k, KG_HW_SM_ACTIVE) / 100;
		double dram = hw_kernel_figure(a, k, KG_HW_DRAM_PEAK) / 100;
		/* a kernel that already moves DRAM near its peak gains nothing from more warps:
		 * rule_memory_bound says what it needs instead */
		if (low && !underfilled && !isnan(dram) && dram >= a->cfg.memory_bound)
			continue;
		if (!underfilled && !low)
			continue;
		struct kg_occ_device od;
		struct kg_occ_result best = {0};
		occ_device_of(d, &od);
		double best_occ = ks->occ.occupancy;
		if (ks->best_block > 0) {
			struct kg_occ_kernel bk = {ks->best_block, l->regs, (int)l->smem_static,
						   (int)l->smem_dynamic, 0};
			if (occupancy_compute(&od, &bk, &best) == 0 && best.occupancy > best_occ)
				best_occ = best.occupancy;
		}
		/* the share of the GPU left unused, as an upper bound on what filling it saves */
		double unused = underfilled ? 1.0 - (double)ks->blocks / d->sm_count
					    : 1.0 - ks->occ.occupancy / (best_occ > 0 ? best_occ : 1);
		/* measured: the share of SM cycles with no block, while it ran alone */
		if (underfilled && !isnan(sm_active))
			unused = sm_active < 1 ? 1.0 - sm_active : 0;
		double gain = (double)(underfilled ? solo[ks->name] : ks->total) * unused;
		if (!worth(a, gain))
			continue;
		struct kg_finding *f = analysis_add_finding(a, underfilled ? "under-filled-grid"
									: "low-occupancy");
		if (!f)
			break;
		uint32_t mark = a->n_blame;
		for (uint32_t i = 0; i < a->m->n_ops; i++) {
			const struct kg_op *o2 = op(a, i);
			if (o2->kind == KG_OP_KERNEL && o2->name == ks->name)
				analysis_blame(a, KG_NONE, i,
					       (double)(underfilled ? (a->solo ? a->solo[i] : 0) : dur(o2)) * unused);
		}
		finding_take_blame(a, f, mark);
		reported++;
		char nm[160];
		short_name(a, ks->name, nm, sizeof(nm));
		if (underfilled)
			snprintf(f->title, sizeof(f->title),
				 "%s launches %lld blocks on %d SMs: %.0f%% of the SMs have nothing "
				 "to do for %.1f ms",
				 nm, ks->blocks, d->sm_count, 100.0 * unused, ms(ks->total));
		else if (!isnan(achieved))
			snprintf(f->title, sizeof(f->title),
				 "%s runs at %.0f%% theoretical, %.0f%% achieved occupancy (limited by "
				 "%s) for %.1f ms",
				 nm, 100 * ks->occ.occupancy, 100 * achieved,
				 occupancy_limit_name(ks->occ.limiter), ms(ks->total));
		else
			snprintf(f->title, sizeof(f->title),
				 "%s runs at %.0f%% theoretical occupancy (limited by %s) for %.1f ms",
				 nm, 100 * ks->occ.occupancy, occupancy_limit_name(ks->occ.limiter),
				 ms(ks->total));
		snprintf(f->explanation, sizeof(f->explanation),
			 "%d threads per block, %d registers per thread, %d bytes of shared memory "
			 "per block: %d blocks (%d warps of %d) fit on an SM, limited by %s; the grid "
			 "is %.2f waves. Too few resident warps cannot hide memory and instruction "
			 "latency; too few blocks leave SMs empty.",
			 ks->threads, l->regs, (int)(l->smem_static + l->smem_dynamic),
			 ks->occ.blocks_per_sm, ks->occ.warps_per_sm, d->max_warps_per_sm,
			 occupancy_limit_name(ks->occ.limiter), ks->waves);
		const char *lib = kernel_library(a, ks);
		if (lib)
			library_fix(f, lib, underfilled, d->sm_count);
		else if (underfilled)
			snprintf(f->fix, sizeof(f->fix),
				 "Give the grid at least one block per SM (%d here; %d blocks fill one "
				 "wave at %d threads per block): split the work into more, smaller "
				 "blocks or more work per launch; or run independent kernels beside it "
				 "on other streams.",
				 d->sm_count, ks->best_grid > 0 ? ks->best_grid : d->sm_count,
				 ks->best_block > 0 ? ks->best_block : ks->threads);
		else if (ks->best_block > 0)
			snprintf(f->fix, sizeof(f->fix),
				 "Launch with %d threads per block (the occupancy calculator's choice "
				 "for its registers and shared memory: %.0f%% occupancy) and at least "
				 "%d blocks (one full wave: cudaOccupancyMaxPotentialBlockSize); "
				 "otherwise cut registers (__launch_bounds__, -maxrregcount) or shared "
				 "memory per block.",
				 ks->best_block, 100 * best_occ, ks->best_grid);
		else
			snprintf(f->fix, sizeof(f->fix),
				 "Use more, larger blocks (cudaOccupancyMaxPotentialBlockSize) and "
				 "fewer registers or less shared memory per block.");
		f->gain_ns = gain;
		snprintf(f->gain_how, sizeof(f->gain_how),
			 underfilled ? "kernel time x share of SMs without a block: an upper bound "
				       "(assumes the work spreads over all SMs)"
				     : "kernel time x (1 - occupancy / occupancy at the best block "
				       "size): an upper bound (assumes time scales with resident warps)");
		f->start = o->start;
		f->end = o->end;
		finding_evidence(f, o->start, o->end, o->stream, ks->example_op,
				 "longest instance: %.3f ms, grid %u x %u x %u, block %u x %u x %u",
				 ms(dur(o)), l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
				 l->block[2]);
		snprintf(f->figures, sizeof(f->figures),
			 "launches=%u, total_ms=%.3f, occupancy=%.3f, best_block=%d, best_occupancy=%.3f, "
			 "waves=%.2f",
			 ks->count, ms(ks->total), ks->occ.occupancy, ks->best_block, best_occ, ks->waves);
		hw_figures_text(a, k, f);
		if (underfilled && !isnan(sm_active))
			snprintf(f->gain_how, sizeof(f->gain_how),
				 "time it ran alone x share of SM cycles the counters found idle "
				 "(%.0f%%): an upper bound (assumes the work spreads over all SMs)",
				 100 * (1 - sm_active));
	}
	free(solo);
}

/* ------------------------------------------------------------------ memory-bound */

/* Kernels whose counters show DRAM near its peak while they ran alone (record --hw): more
 * occupancy or other block sizes will not speed them up; fewer bytes will. One finding for
 * all of them, without a gain estimate: what fusing or narrower types save depends on the
 * program. */
static void rule_memory_bound(struct kg_analysis *a)
{
	int64_t total = 0;
	uint32_t n = 0, first = KG_NONE;
	double lo = 1e9, hi = 0;
	for (uint32_t k = 0; k < a->n_kernels; k++) {
		double dram = hw_kernel_figure(a, k, KG_HW_DRAM_PEAK) / 100;
		if (isnan(dram) || dram < a->cfg.memory_bound)
			continue;
		total = kg_time_add(total, a->kernels[k].total);
		lo = dram < lo ? dram : lo;
		hi = dram > hi ? dram : hi;
		if (first == KG_NONE)
			first = k;
		n++;
	}
	if (!n || !worth(a, (double)total))
		return;
	struct kg_finding *f = analysis_add_finding(a, "memory-bound");
	if (!f)
		return;
	const struct kg_kernel_stats *ks = &a->kernels[first];
	const struct kg_op *o = op(a, ks->example_op);
	char nm[160];
	short_name(a, ks->name, nm, sizeof(nm));
	f->severity = KG_SEV_INFO;
	char range[48];
	if (llround(100 * lo) == llround(100 * hi))
		snprintf(range, sizeof(range), "%.0f%%", 100 * hi);
	else
		snprintf(range, sizeof(range), "%.0f-%.0f%%", 100 * lo, 100 * hi);
	snprintf(f->title, sizeof(f->title),
		 "%u kernel%s DRAM at %s of its peak for %.1f ms (%s the longest): memory-bound",
		 n, n > 1 ? "s move" : " moves", range, ms(total), nm);
	snprintf(f->explanation, sizeof(f->explanation),
		 "The GPU's counters, in samples where each of these kernels ran alone, show DRAM "
		 "bandwidth at %.0f%% or more of what the memory can deliver: the kernels wait on "
		 "memory, not on SMs, so larger blocks, more occupancy or more streams do not speed "
		 "them up.",
		 100 * a->cfg.memory_bound);
	snprintf(f->fix, sizeof(f->fix),
		 "Move fewer bytes: fuse the elementwise and normalisation kernels that read and "
		 "write the same tensors (torch.compile, or a hand-fused kernel), keep activations "
		 "in bf16/fp8, and avoid materialising intermediates (views instead of copies, "
		 "in-place ops). Compare the kernels' bytes with the time at peak bandwidth to see "
		 "how much a fused version can save.");
	snprintf(f->gain_how, sizeof(f->gain_how),
		 "not estimated: what fusion saves depends on the bytes it removes");
	f->start = o->start;
	f->end = o->end;
	finding_evidence(f, o->start, o->end, o->stream, ks->example_op,
			 "%s: DRAM at %.0f%% of peak, SMs %.0f%% active, %.0f%% achieved occupancy",
			 nm, hw_kernel_figure(a, first, KG_HW_DRAM_PEAK),
			 hw_kernel_figure(a, first, KG_HW_SM_ACTIVE),
			 hw_kernel_figure(a, first, KG_HW_OCCUPANCY));
	snprintf(f->figures, sizeof(f->figures), "kernels=%u, total_ms=%.3f", n, ms(total));
	hw_figures_text(a, first, f);
}

/* ------------------------------------------------------------------ time-slicing */

static uint64_t context_key(const struct kg_model *m, const struct kg_op *o)
{
	const struct kg_stream *s = &m->streams[o->stream];
	return ((uint64_t)s->process << 32) | s->context;
}

/* What the counters (record --hw) saw of the switching: the samples in which the GPU
 * switched contexts, how often, and the first few as evidence. */
static void ctxsw_evidence(struct kg_analysis *a, uint32_t g, struct kg_finding *f)
{
	const struct kg_model *m = a->m;
	uint32_t episodes = 0, shown = 0;
	int64_t first = KG_NO_TIME, last = KG_NO_TIME, prev_end = KG_NO_TIME;
	double share = 0, samples = 0;
	for (uint32_t i = 0; i < m->n_hw_samples; i++) {
		const struct kg_hw_sample *x = &m->hw_samples[i];
		if (x->device >= m->n_devices || m->devices[x->device].gpu != g ||
		    isnan(x->v[KG_HW_CTXSW]) || x->end <= f->start || x->start >= f->end)
			continue; /* only while the contexts' kernels overlapped */
		samples++;
		share += x->v[KG_HW_CTXSW];
		if (x->v[KG_HW_CTXSW] < KG_HW_CTXSW_MARK_PCT)
			continue;
		if (prev_end == KG_NO_TIME || x->start > prev_end) { /* a new run of samples */
			episodes++;
			if (first == KG_NO_TIME)
				first = x->start;
			last = x->start;
			if (shown < 2 && f->n_evidence < KG_MAX_EVIDENCE) {
				finding_evidence(f, x->start, x->end, KG_NONE, KG_NONE,
						 "the counters: %.0f%% of the engine's cycles spent switching "
						 "contexts at %.1f ms",
						 x->v[KG_HW_CTXSW], ms((double)kg_time_diff(x->start, m->begin)));
				shown++;
			}
		}
		prev_end = x->end;
	}
	if (!episodes)
		return;
	size_t len = strlen(f->figures);
	snprintf(f->figures + len, sizeof(f->figures) - len,
		 ", hw_context_switches=%u, hw_switch_period_ms=%.2f, hw_ctxsw_pct=%.1f", episodes,
		 episodes > 1 ? ms((double)kg_time_diff(last, first)) / (episodes - 1) : 0.0,
		 samples > 0 ? share / samples : 0.0);
}

static void rule_time_slicing(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &a->gpus[g];
		/* overlap between kernels of different contexts: sweep keeping the running
		 * kernel that ends last, per the two most recent contexts */
		double overlap = 0;
		uint32_t contexts = 0, nover = 0, mark = a->n_blame;
		uint64_t ctx_seen[8];
		int64_t run_end = KG_NO_TIME, first = KG_NO_TIME, last = KG_NO_TIME;
		uint64_t run_ctx = 0;
		for (uint32_t i = 0; i < gm->n_ops; i++) {
			const struct kg_op *o = op(a, gm->ops[i]);
			if (o->kind != KG_OP_KERNEL)
				continue;
			uint64_t c = context_key(m, o);
			int known = 0;
			for (uint32_t k = 0; k < contexts && k < 8; k++)
				known |= ctx_seen[k] == c;
			if (!known && contexts < 8)
				ctx_seen[contexts++] = c;
			if (run_end != KG_NO_TIME && o->start < run_end && c != run_ctx) {
				int64_t e = o->end < run_end ? o->end : run_end;
				overlap += (double)kg_time_span(e, o->start);
				analysis_blame(a, KG_NONE, gm->ops[i], (double)kg_time_span(e, o->start));
				nover++;
				if (first == KG_NO_TIME)
					first = o->start;
				last = e;
			}
			if (run_end == KG_NO_TIME || o->end > run_end) {
				run_end = o->end;
				run_ctx = c;
			}
		}
		double gain = overlap * SLICE_OVERHEAD;
		if (contexts < 2 || !worth(a, gain)) {
			analysis_drop_blame(a, mark);
			continue;
		}
		struct kg_finding *f = analysis_add_finding(a, "time-slicing");
		if (!f)
			return;
		finding_take_blame(a, f, mark);
		char gl[128];
		gpu_label(a, g, gl, sizeof(gl));
		uint32_t procs = 0;
		for (uint32_t p = 0; p < m->n_processes; p++)
			for (uint32_t s = 0; s < m->n_streams; s++)
				if (m->streams[s].process == p && m->devices[m->streams[s].device].gpu == g &&
				    m->streams[s].nops) {
					procs++;
					break;
				}
		snprintf(f->title, sizeof(f->title),
			 "%u contexts (%u processes) share %s and their kernels time-slice for "
			 "%.1f ms",
			 contexts, procs, gl, ms(overlap));
		snprintf(f->explanation, sizeof(f->explanation),
			 "Without MPS, kernels of different contexts never run at the same time: the "
			 "GPU switches between contexts every few milliseconds, so each kernel's span "
			 "stretches (%u kernels overlapped another context) and every switch costs "
			 "time.",
			 nover);
		snprintf(f->fix, sizeof(f->fix),
			 "Run the work in one process on several streams, or enable MPS "
			 "(nvidia-cuda-mps-control -d) so that the processes' kernels run "
			 "concurrently, or give each process its own GPU (CUDA_VISIBLE_DEVICES).");
		f->gain_ns = gain;
		snprintf(f->gain_how, sizeof(f->gain_how),
			 "%.0f%% of the time-sliced span: the throughput two time-sliced processes "
			 "lost against the same work in one process on an H200",
			 100 * SLICE_OVERHEAD);
		f->gpu = g;
		f->start = first;
		f->end = last;
		finding_evidence(f, first, last, KG_NONE, KG_NONE,
				 "kernels of different contexts overlap from %.1f to %.1f ms", 
				 ms((double)kg_time_diff(first, m->begin)),
				 ms((double)kg_time_diff(last, m->begin)));
		snprintf(f->figures, sizeof(f->figures), "contexts=%u, processes=%u, sliced_ms=%.3f",
			 contexts, procs, ms(overlap));
		ctxsw_evidence(a, g, f);
	}
}

/* ------------------------------------------------------------------ idle GPU */

/* The call behind gap's part of cause: the synchronising call the host was in, or the
 * launch that came late (a sync gap's api is its sync: the late launch is the next op's). */
static uint32_t gap_call(const struct kg_model *m, const struct kg_gap *gap,
			 enum kg_gap_cause cause)
{
	return cause == KG_GAP_HOST && gap->cause == KG_GAP_SYNC ? m->ops[gap->next_op].api
								  : gap->api;
}

/* "X ms before the GPU's steady work began (start-up: ...) and Y ms after it ended
 * (wind-down)", either half left out when it is 0 (kg_gap_place). */
static const char *edges_text(char *buf, size_t size, double startup, double winddown)
{
	char a[120] = "", b[80] = "";
	if (startup > 0)
		snprintf(a, sizeof(a), "%.1f ms before the GPU's steady work began (start-up: "
				       "imports, set-up, loading)", ms(startup));
	if (winddown > 0)
		snprintf(b, sizeof(b), "%.1f ms after it ended (wind-down)", ms(winddown));
	snprintf(buf, size, "%s%s%s", a, *a && *b ? " and " : "", b);
	return buf;
}

static void idle_finding(struct kg_analysis *a, uint32_t g, enum kg_gap_cause cause)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu_metrics *gm = &a->gpus[g];
	/* this cause's idle time in the GPU's steady work (its start-up and wind-down part
	 * apart); the steady gaps with some of it (a gap that began in a synchronising call is
	 * the sync's for as long as the host was blocked, the host's after that: gap_part),
	 * and the one with the most */
	double idle = (double)gm->steady_idle_by_cause[cause], edges[3] = {0, 0, 0};
	uint32_t ngaps = 0, longest = KG_NONE;
	for (uint32_t i = 0; i < gm->n_gaps; i++) {
		const struct kg_gap *gap = &gm->gaps[i];
		int64_t part = gap_part(gap, cause);
		if (gap->place != KG_GAP_STEADY) {
			edges[gap->place] += (double)part;
			continue;
		}
		if (part < a->cfg.sync_gap_ns)
			continue;
		ngaps++;
		if (longest == KG_NONE || part > gap_part(&gm->gaps[longest], cause))
			longest = i;
	}
	if (!worth(a, idle))
		return;
	/* one or two gaps are a program's start or end, not a pattern worth a finding,
	 * unless one of them is long on its own */
	if (ngaps < 3 && (longest == KG_NONE || gap_part(&gm->gaps[longest], cause) <
							     a->cfg.long_gap_ns))
		return;
	struct kg_finding *f =
		analysis_add_finding(a, cause == KG_GAP_SYNC ? "host-sync-stall" : "host-bound");
	if (!f)
		return;
	/* each gap's part: the synchronising call the host was in, or the launch that came late */
	uint32_t mark = a->n_blame;
	for (uint32_t i = 0; i < gm->n_gaps; i++) {
		const struct kg_gap *gap = &gm->gaps[i];
		int64_t part = gap_part(gap, cause);
		if (!part || gap->place != KG_GAP_STEADY)
			continue;
		analysis_blame(a, gap_call(m, gap, cause), cause == KG_GAP_SYNC ? KG_NONE : gap->next_op,
			       (double)part);
	}
	finding_take_blame(a, f, mark);
	char gl[128];
	gpu_label(a, g, gl, sizeof(gl));
	if (cause == KG_GAP_SYNC) {
		snprintf(f->title, sizeof(f->title),
			 "%s idles %.1f ms in %u gaps while the host is blocked in synchronising "
			 "calls",
			 gl, ms(idle), ngaps);
		snprintf(f->explanation, sizeof(f->explanation),
			 "The host waits for the GPU to drain (cudaDeviceSynchronize, "
			 "cudaStreamSynchronize, a synchronous copy, or in PyTorch .item(), .cpu(), "
			 "printing a tensor), then needs time to queue new work: the GPU idles "
			 "from the moment it finishes until the host launches again.");
		snprintf(f->fix, sizeof(f->fix),
			 "Remove per-step synchronisation: keep values on the GPU and read them "
			 "every N steps, use non_blocking copies with events instead of "
			 "synchronous ones, and synchronise on an event of the one stream you need "
			 "rather than the device.");
		snprintf(f->gain_how, sizeof(f->gain_how),
			 "GPU idle time in gaps of at least %lld µs that began while a "
			 "synchronising call was in progress, each for at most as long as the host "
			 "spent in such calls (what it did after them is its own time)",
			 (long long)(a->cfg.sync_gap_ns / 1000));
	} else {
		snprintf(f->title, sizeof(f->title),
			 "%s waits for the host: %.1f ms idle in %u gaps where the next work was "
			 "launched late",
			 gl, ms(idle), ngaps);
		snprintf(f->explanation, sizeof(f->explanation),
			 "The GPU finished its queue and the host issued the next work only later, "
			 "without being blocked in CUDA: the host side (Python, data loading, "
			 "CPU computation, allocation) is the bottleneck.");
		snprintf(f->fix, sizeof(f->fix),
			 "Queue work ahead of the GPU: move CPU work off the critical path "
			 "(DataLoader workers, prefetching), batch more work per launch, capture "
			 "steady-state steps in a CUDA graph (torch.compile(mode='reduce-overhead')), "
			 "and profile the host side of the gaps.");
		snprintf(f->gain_how, sizeof(f->gain_how),
			 "GPU idle time in gaps of at least %lld µs whose next work was launched "
			 "after the GPU went idle, less the time the host spent blocked in "
			 "synchronising calls: an upper bound",
			 (long long)(a->cfg.sync_gap_ns / 1000));
	}
	if (edges[KG_GAP_STARTUP] > 0 || edges[KG_GAP_WINDDOWN] > 0) {
		char edge[200];
		size_t len = strlen(f->explanation);
		snprintf(f->explanation + len, sizeof(f->explanation) - len,
			 " Not counted: %s, which no step pays.",
			 edges_text(edge, sizeof(edge), edges[KG_GAP_STARTUP], edges[KG_GAP_WINDDOWN]));
	}
	f->gain_ns = idle;
	f->gpu = g;
	f->start = gm->begin;
	f->end = gm->end;
	if (longest != KG_NONE) {
		const struct kg_gap *gap = &gm->gaps[longest];
		uint32_t api = gap_call(m, gap, cause);
		char shown[128];
		const char *call = api != KG_NONE ? api_display_name(model_text(m, m->apis[api].name),
								     shown, sizeof(shown))
						  : "?";
		finding_evidence(f, gap->start, gap->end, KG_NONE, gap->next_op,
				 "longest gap: %.3f ms at %.3f ms, %s %s%s", ms(gap_len(gap)),
				 ms((double)kg_time_diff(gap->start, m->begin)),
				 cause == KG_GAP_SYNC ? "host in" : "next launch by", call,
				 gap->cause == KG_GAP_SYNC && gap_part(gap, KG_GAP_HOST)
					 ? (cause == KG_GAP_SYNC ? " (then busy with other things)"
								 : " (after a synchronising call)")
					 : "");
	}
	snprintf(f->figures, sizeof(f->figures), "gaps=%u, idle_ms=%.3f", ngaps, ms(idle));
}

/* Nsight's gpu_gaps and gpu_time_util, as one informational finding about GPU g, with
 * its start-up and wind-down apart (kg_gap_place). */
static void utilization_finding(struct kg_analysis *a, uint32_t g)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu_metrics *gm = &a->gpus[g];
	uint32_t long_gaps = 0, low = 0;
	for (uint32_t i = 0; i < gm->n_gaps; i++)
		long_gaps += gap_len(&gm->gaps[i]) >= a->cfg.long_gap_ns;
	for (int c = 0; c < gm->n_util; c++)
		low += gm->util[c] < a->cfg.low_util;
	if (!long_gaps && low * 3 < (uint32_t)gm->n_util)
		return;
	struct kg_finding *f = analysis_add_finding(a, "gpu-utilization");
	if (!f)
		return;
	char gl[128];
	gpu_label(a, g, gl, sizeof(gl));
	char steady_pct[64] = "";
	int64_t steady = gpu_steady_span(a, gm);
	if ((gm->idle_startup || gm->idle_winddown) && steady > 0)
		snprintf(steady_pct, sizeof(steady_pct), " (%.0f%% of its steady work)",
			 100.0 * (double)gm->busy / (double)steady);
	snprintf(f->title, sizeof(f->title),
		 "%s is busy %.0f%% of the trace%s: %u of %d time chunks below %.0f%% busy, "
		 "%u idle gaps of %.0f ms or more",
		 gl, a->span ? 100.0 * gm->busy / a->span : 0, steady_pct, low, gm->n_util,
		 100 * a->cfg.low_util, long_gaps, ms((double)a->cfg.long_gap_ns));
	char edge[220] = "";
	if (gm->idle_startup > 0 || gm->idle_winddown > 0) {
		char e[200];
		snprintf(edge, sizeof(edge), " Of it, %s.",
			 edges_text(e, sizeof(e), (double)gm->idle_startup,
				    (double)gm->idle_winddown));
	}
	snprintf(f->explanation, sizeof(f->explanation),
		 "Idle time by cause (gaps of %lld µs or more): host %.1f ms, sync %.1f ms, "
		 "launch %.1f ms, dependency %.1f ms, unknown %.1f ms.%s The other findings "
		 "size what can be won back.",
		 (long long)(a->cfg.sync_gap_ns / 1000), ms(gm->idle_by_cause[KG_GAP_HOST]),
		 ms(gm->idle_by_cause[KG_GAP_SYNC]), ms(gm->idle_by_cause[KG_GAP_LAUNCH]),
		 ms(gm->idle_by_cause[KG_GAP_DEPENDENCY]), ms(gm->idle_by_cause[KG_GAP_UNKNOWN]),
		 edge);
	int64_t steady_begin, steady_end;
	gpu_steady_bounds(gm, &steady_begin, &steady_end);
	if (gm->idle_startup == 0)
		steady_begin = KG_NO_TIME; /* no start-up: nothing to leave out */
	if (steady_begin != KG_NO_TIME && m->program_start != KG_NO_TIME &&
	    steady_begin > m->program_start)
		/* record's --delay counts from the program's start, which the trace keeps.
		 * Start-up varies from run to run, so the delay named keeps a margin
		 * (STARTUP_MARGIN, rounded down): a delay past a run's steps records none. */
		snprintf(f->fix, sizeof(f->fix),
			 "Start with the findings above. The GPU's steady work began %.1f s "
			 "after the program started. To leave the start-up out of the recording: "
			 "--capture-range cudaProfilerApi with cudaProfilerStart/Stop (in PyTorch "
			 "torch.cuda.profiler.start/stop) around the steps cuts it exactly; "
			 "--delay %.1f cuts most of it without a change to the code, %.0f%% early "
			 "because start-up times vary from run to run.",
			 (double)kg_time_diff(steady_begin, m->program_start) / 1e9,
			 floor((double)kg_time_diff(steady_begin, m->program_start) *
			       (1 - STARTUP_MARGIN) / 1e8) / 10,
			 STARTUP_MARGIN * 100);
	else if (steady_begin != KG_NO_TIME)
		snprintf(f->fix, sizeof(f->fix),
			 "Start with the findings above. The GPU's steady work began %.1f ms "
			 "into the trace: to leave the start-up out, record with --delay (it "
			 "counts from the program's start, so at least that long) or "
			 "--capture-range cudaProfilerApi around the steps.",
			 ms((double)kg_time_diff(steady_begin, m->begin)));
	else
		snprintf(f->fix, sizeof(f->fix),
			 "Start with the findings above; if the idle time is outside the "
			 "recorded work (start-up, data loading), record a narrower window "
			 "(--delay, --duration, --capture-range cudaProfilerApi).");
	f->severity = KG_SEV_INFO;
	snprintf(f->gain_how, sizeof(f->gain_how), "not estimated: the idle time is sized by "
						   "the cause-specific findings");
	f->gpu = g;
	f->start = gm->begin;
	f->end = gm->end;
	for (uint32_t i = 0; i < gm->n_gaps && f->n_evidence < KG_MAX_EVIDENCE; i++)
		if (gap_len(&gm->gaps[i]) >= a->cfg.long_gap_ns)
			finding_evidence(f, gm->gaps[i].start, gm->gaps[i].end, KG_NONE, KG_NONE,
					 "idle %.1f ms from %.1f ms (%s%s)",
					 ms(gap_len(&gm->gaps[i])),
					 ms((double)kg_time_diff(gm->gaps[i].start, m->begin)),
					 gap_cause_name(gm->gaps[i].cause),
					 gm->gaps[i].place == KG_GAP_STARTUP    ? ", start-up"
					 : gm->gaps[i].place == KG_GAP_WINDDOWN ? ", wind-down"
										: "");
	snprintf(f->figures, sizeof(f->figures), "busy_ms=%.3f, low_chunks=%u, long_gaps=%u",
		 ms(gm->busy), low, long_gaps);
}

static void rule_idle(struct kg_analysis *a)
{
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		idle_finding(a, g, KG_GAP_SYNC);
		idle_finding(a, g, KG_GAP_HOST);
		utilization_finding(a, g);
	}
}

void rules_run(struct kg_analysis *a)
{
	rule_stream_serialization(a);
	rule_copies(a);
	rule_launch_overhead(a);
	rule_imbalance(a);
	rule_occupancy(a);
	rule_memory_bound(a);
	rule_time_slicing(a);
	rule_idle(a);
}
