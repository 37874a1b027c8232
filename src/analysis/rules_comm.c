/* exposed-communication: a GPU that communicates with no compute beside it (docs/rules.md).
 * Its figures come from analysis/comm_overlap.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"
#include "util/timemath.h"

/* The communication kernels named in the evidence, by exposed time. */
#define EXPOSED_NAMES 3

struct exposed_name {
	uint32_t name;    /* string id */
	uint32_t count;
	int64_t exposed;
};

static int by_exposed_desc(const void *pa, const void *pb)
{
	const struct exposed_name *a = pa, *b = pb;
	if (a->exposed != b->exposed)
		return a->exposed < b->exposed ? 1 : -1;
	return (a->name > b->name) - (a->name < b->name);
}

/* The GPU's communication kernel names with their launches and exposed time, the most
 * exposed first; *n of them, malloc'ed (NULL: out of memory). */
static struct exposed_name *exposed_names(const struct kg_analysis *a,
					  const struct kg_gpu_metrics *gm, uint32_t *n)
{
	struct exposed_name *v = calloc((size_t)gm->n_comm + 1, sizeof(*v));
	*n = 0;
	for (uint32_t i = 0; v && i < gm->n_comm; i++) {
		uint32_t name = op(a, gm->comm_ops[i])->name, k = 0;
		while (k < *n && v[k].name != name)
			k++;
		if (k == *n)
			v[(*n)++] = (struct exposed_name){name, 0, 0};
		v[k].count++;
		v[k].exposed = kg_time_add(v[k].exposed, gm->comm_exposed[i]);
	}
	if (v)
		qsort(v, *n, sizeof(*v), by_exposed_desc);
	return v;
}

/* The kind of collective with the most exposed time. */
static enum kg_comm_kind main_kind(const struct kg_gpu_metrics *gm)
{
	unsigned best = KG_COMM_OTHER;
	for (unsigned k = 0; k < KG_COMM_KIND_COUNT; k++)
		if (comm_exposed(&gm->comm_kind[k]) > comm_exposed(&gm->comm_kind[best]))
			best = k;
	return (enum kg_comm_kind)best;
}

/* What to change, the framework's knob for the kind that is most exposed first. */
static void comm_fix(struct kg_finding *f, enum kg_comm_kind kind)
{
	if (kind == KG_COMM_ALL_REDUCE)
		finding_set(&f->fix, "All-reduces (DDP's gradient buckets) wait with nothing to run beside them: "
			    "let DDP start each bucket while the backward pass still computes "
			    "(DistributedDataParallel(bucket_cap_mb=...): smaller buckets start "
			    "earlier, larger ones cost fewer launches; gradient_as_bucket_view=True "
			    "saves the copy into the bucket), and keep the optimizer step after the "
			    "last bucket only. ");
	else if (kind == KG_COMM_ALL_GATHER || kind == KG_COMM_REDUCE_SCATTER)
		finding_set(&f->fix, "All-gathers and reduce-scatters (FSDP's parameter and gradient shards) "
			    "wait with nothing to run beside them: prefetch the next layer's "
			    "parameters while this one computes (FSDP(forward_prefetch=True, "
			    "backward_prefetch=BackwardPrefetch.BACKWARD_PRE); FSDP2: "
			    "set_modules_to_forward_prefetch / set_modules_to_backward_prefetch), and "
			    "keep limit_all_gathers=True so prefetching does not run out of memory. ");
	else
		finding_set(&f->fix, "Collectives and point-to-point transfers wait with nothing to run beside "
			    "them: issue them before the work that does not need their result "
			    "(pipeline stages: send the activations, then compute the next "
			    "micro-batch; more micro-batches shrink the bubble). ");
	finding_append(&f->fix, "Issued by hand: dist.all_reduce(..., async_op=True) (any collective, "
		       "dist.isend/irecv) returns a work handle; run independent compute, then "
		       "work.wait() where the result is needed. Last resort, when the kernels are "
		       "slow rather than waiting: NCCL's channels (NCCL_MIN_NCHANNELS, "
		       "NCCL_MAX_NCHANNELS) trade SMs for bandwidth.");
}

static void comm_evidence(struct kg_analysis *a, struct kg_finding *f,
			  const struct kg_gpu_metrics *gm)
{
	uint32_t n;
	struct exposed_name *v = exposed_names(a, gm, &n);
	for (uint32_t i = 0; v && i < n && i < EXPOSED_NAMES; i++) {
		char nm[160];
		finding_evidence(f, KG_NO_TIME, KG_NO_TIME, KG_NONE, KG_NONE,
				 "%s: %u launch%s, %.3f ms exposed",
				 rule_kernel_name(a, v[i].name, nm, sizeof(nm)), v[i].count,
				 v[i].count == 1 ? "" : "es", ms((double)v[i].exposed));
	}
	free(v);
	for (unsigned k = 0; k < KG_COMM_KIND_COUNT; k++) {
		const struct kg_comm_figures *c = &gm->comm_kind[k];
		if (c->kernels)
			finding_evidence(f, KG_NO_TIME, KG_NO_TIME, KG_NONE, KG_NONE,
					 "%s: %.3f ms in %u kernels, %.0f%% overlapped by compute",
					 comm_kind_name(k), ms((double)c->time), c->kernels,
					 c->time ? 100.0 * (double)c->overlapped / (double)c->time : 0);
	}
}

/* Each communication kernel's part of the gain: its exposed time, scaled to the gain. */
static void comm_blame(struct kg_analysis *a, const struct kg_gpu_metrics *gm, double scale)
{
	for (uint32_t i = 0; i < gm->n_comm; i++)
		if (gm->comm_exposed[i] > 0)
			analysis_blame(a, KG_NONE, gm->comm_ops[i],
				       (double)gm->comm_exposed[i] * scale);
}

static void comm_finding(struct kg_analysis *a, uint32_t g, double gain)
{
	const struct kg_gpu_metrics *gm = &a->gpus[g];
	int64_t exposed = comm_exposed(&gm->comm);
	int64_t free_compute = kg_time_span(gm->compute_busy, gm->comm.overlapped);
	struct kg_finding *f = analysis_add_finding(a, KG_RULE_EXPOSED_COMMUNICATION);
	if (!f)
		return;
	uint32_t mark = a->n_blame;
	comm_blame(a, gm, gain / (double)exposed);
	finding_take_blame(a, f, mark);
	char gl[128];
	rule_gpu_label(a, g, gl, sizeof(gl));
	finding_set(&f->title,
		    "%s communicates with no compute beside it for %.1f ms: %.1f%% of its %.1f ms "
		    "of communication overlaps compute",
		    gl, ms((double)exposed),
		    100.0 * (double)gm->comm.overlapped / (double)gm->comm.time,
		    ms((double)gm->comm.time));
	finding_set(&f->explanation,
		    "While its communication kernels (NCCL and the like) ran alone, the GPU "
		    "computed nothing: the step waits for the transfer, and for the peers that "
		    "arrive last. %.1f ms of compute ran on this GPU at other times; issued "
		    "earlier, beside the communication, it would have hidden it.",
		    ms((double)free_compute));
	comm_fix(f, main_kind(gm));
	f->gain_ns = gain;
	if (gm->comm_wait_exposed > 0)
		finding_set(&f->gain_how,
			    "the smaller of the exposed communication less its %.1f ms of waiting "
			    "for the last GPU at collectives (the straggler's cost, counted there): "
			    "%.1f ms, and the compute not already beside communication (%.1f ms): "
			    "overlap hides at most the one, behind at most the other; an upper bound "
			    "(the compute that depends on a collective's result cannot be hidden)",
			    ms((double)gm->comm_wait_exposed),
			    ms((double)kg_time_span(exposed, gm->comm_wait_exposed)),
			    ms((double)free_compute));
	else
		finding_set(&f->gain_how,
			    "the smaller of the exposed communication (%.1f ms) and the compute not "
			    "already beside communication (%.1f ms): overlap hides at most the one, "
			    "behind at most the other; an upper bound (the compute that depends on a "
			    "collective's result, and waiting for late peers, cannot be hidden)",
			    ms((double)exposed), ms((double)free_compute));
	f->gpu = g;
	f->start = op(a, gm->comm_ops[0])->start;
	f->end = op(a, gm->comm_ops[gm->n_comm - 1])->end;
	comm_evidence(a, f, gm);
	finding_set(&f->figures,
		    "comm_kernels=%u, comm_ms=%.3f, overlapped_ms=%.3f, exposed_ms=%.3f, "
		    "compute_busy_ms=%.3f, compute_free_ms=%.3f",
		    gm->comm.kernels, ms((double)gm->comm.time), ms((double)gm->comm.overlapped),
		    ms((double)exposed), ms((double)gm->compute_busy), ms((double)free_compute));
	if (gm->comm_wait_exposed > 0)
		finding_append(&f->figures, ", exposed_wait_ms=%.3f",
			       ms((double)gm->comm_wait_exposed));
}

void rule_exposed_communication(struct kg_analysis *a)
{
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &a->gpus[g];
		if (!gm->n_comm)
			continue;
		/* the wait for late GPUs is the straggler's: the rest must make the finding */
		int64_t rest = kg_time_span(comm_exposed(&gm->comm), gm->comm_wait_exposed);
		int64_t free_compute = kg_time_span(gm->compute_busy, gm->comm.overlapped);
		double gain = comm_hideable((double)comm_exposed(&gm->comm),
					    (double)gm->comm_wait_exposed, (double)free_compute);
		if ((double)rest < a->cfg.exposed_comm_pct / 100 * (double)a->steady_span ||
		    !analysis_worth(a, gain))
			continue;
		comm_finding(a, g, gain);
	}
}
