/* copy-compute-overlap: copies that cannot overlap the kernels (docs/rules.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"
#include "util/api_names.h"
#include "util/timemath.h"

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

/* What pinned host memory moves between the host and a GPU, in bytes/ns (GB/s), and
 * where the figure comes from. */
struct pinned_rate {
	double bw;
	char from[96];
};

/* What pinned copies reach of the host link's rate: an H200, PCIe gen 5 x16, moved 64 MiB
 * pinned in 1.2 ms: 56 GB/s of 63. */
#define LINK_EFFICIENCY 0.8

/* ... and over a GPU generation's link, x16, where the trace does not say the link. */
static const struct {
	int cc_major;          /* this generation and later */
	const char *name_part; /* or a GPU whose name holds this ("" any) */
	double bw;
	const char *from;
} link_rates[] = {
	{9, "GH200", 400, "NVLink-C2C between Grace and Hopper"},
	{9, "", 50, "PCIe gen 5 x16, the link of Hopper and later GPUs"},
	{8, "", 25, "PCIe gen 4 x16, the link of Ampere and Ada GPUs"},
	{6, "", 12, "PCIe gen 3 x16, the link of Pascal, Volta and Turing GPUs"},
};

/* The trace's own large pinned copies; else what the GPU's host link reaches, as the
 * trace records it or as its generation has it; else the pinned_bandwidth threshold. */
static struct pinned_rate pinned_rate(const struct kg_analysis *a, uint32_t g)
{
	const struct kg_model *m = a->m;
	double bytes = 0, ns = 0;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = op(a, i);
		if (o->kind == KG_OP_MEMCPY && o->bytes >= (1u << 20) &&
		    (o->src_kind == KG_MEM_PINNED || o->dst_kind == KG_MEM_PINNED)) {
			bytes += (double)o->bytes;
			ns += (double)dur(o);
		}
	}
	struct pinned_rate r = {a->cfg.pinned_bandwidth, "the pinned_bandwidth threshold"};
	const struct kg_device *d = &m->devices[m->gpus[a->gpus[g].gpu].device];
	const char *name = d->name ? model_text(m, d->name) : "";
	if (ns > 0) {
		r.bw = bytes / ns;
		snprintf(r.from, sizeof(r.from), "what the trace's own pinned copies moved");
	} else if (device_link_bytes_per_s(d) > 0) {
		r.bw = LINK_EFFICIENCY * (double)device_link_bytes_per_s(d) / 1e9;
		snprintf(r.from, sizeof(r.from), "%.0f %% of its PCIe gen %u x%u link", 100 * LINK_EFFICIENCY,
			 d->pcie_gen, d->pcie_lanes);
	} else if (d->vendor != KG_VENDOR_AMD) { /* the generations are NVIDIA's */
		for (size_t i = 0; i < sizeof(link_rates) / sizeof(link_rates[0]); i++)
			if (d->cc_major >= link_rates[i].cc_major &&
			    strstr(name, link_rates[i].name_part)) {
				r.bw = link_rates[i].bw;
				snprintf(r.from, sizeof(r.from), "%s", link_rates[i].from);
				break;
			}
	}
	return r;
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

void rule_copy_compute_overlap(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &a->gpus[g];
		if (!gm->copies)
			continue;
		struct pinned_rate rate = pinned_rate(a, g);
		double bw = rate.bw;
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
		if (!analysis_worth(a, gain))
			continue;
		struct kg_finding *f = analysis_add_finding(a, KG_RULE_COPY_COMPUTE_OVERLAP);
		if (!f)
			return;
		blame_copies(a, f, gm, bw, blocking_ns, extra > 0 ? extra : 0);
		char gl[128];
		rule_gpu_label(a, g, gl, sizeof(gl));
		double overlap_pct = gm->copy_total ? 100.0 * gm->copy_kernel_overlap / gm->copy_total : 0;
		finding_set(&f->title, "copies on %s do not overlap compute: %.0f%% of %.1f ms of copies ran "
			 "beside a kernel%s",
			 gl, overlap_pct, ms(gm->copy_total),
			 npageable ? "; pageable host memory makes them slow and synchronous" : "");
		/* each cause said, and fixed, only where the copies had it: Extra-P's GTX 1060
		 * example copies from pinned memory on its compute streams, and was told "0
		 * copies used pageable host memory ... Allocate host buffers pinned" */
		if (npageable)
			finding_append(&f->explanation, "%u copies used pageable host memory (%.1f "
				       "GB/s; pinned copies move %.0f GB/s): the driver stages them "
				       "through a pinned buffer and an 'async' copy from pageable memory "
				       "blocks the host.",
				       npageable, pageable_ns > 0 ? pageable_bytes / pageable_ns : 0, bw);
		if (nsync || nsync_set)
			finding_append(&f->explanation, "%s%u synchronous cudaMemcpy and %u synchronous "
				       "cudaMemset calls blocked the host for %.1f ms in all.",
				       npageable ? " " : "", nsync, nsync_set, ms(host_blocked));
		if (on_compute)
			finding_append(&f->explanation, "%s%u host-to-device copies ran on a stream that "
				       "also runs kernels, so they cannot overlap those kernels.",
				       npageable || nsync || nsync_set ? " " : "", on_compute);
		finding_set(&f->fix, "%s with cudaMemcpyAsync on a dedicated copy stream (PyTorch: "
			    ".to(device, non_blocking=True)) while the compute stream works on the "
			    "previous batch, %sorder the two with cudaEventRecord/cudaStreamWaitEvent%s.",
			    npageable ? "Allocate host buffers pinned (cudaMallocHost / cudaHostAlloc; "
					"PyTorch: DataLoader(pin_memory=True), tensor.pin_memory()), copy"
				      : "Copy",
			    nsync_set ? "" : "and ",
			    nsync_set ? ", and use cudaMemsetAsync instead of cudaMemset" : "");
		f->gain_ns = gain;
		if (npageable)
			finding_set(&f->gain_how,
				    "pageable copies at pinned bandwidth (%.0f GB/s: %s) save %.1f ms; "
				    "the remaining copy time overlapped with kernel time up to the "
				    "smaller of the two saves %.1f ms more",
				    bw, rate.from, ms(faster), ms(extra > 0 ? extra : 0));
		else
			finding_set(&f->gain_how,
				    "the time of the synchronous copies and of those on compute "
				    "streams overlapped with kernel time, up to the smaller of the two, "
				    "less what already overlapped");
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
		finding_set(&f->figures, "copies=%u, copy_ms=%.3f, overlapped_ms=%.3f, pageable=%u, sync_memcpy=%u, "
			 "sync_memset=%u, htod_on_compute_stream=%u",
			 gm->copies, ms(gm->copy_total), ms(gm->copy_kernel_overlap), npageable, nsync,
			 nsync_set, on_compute);
	}
}

