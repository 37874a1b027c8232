/* Rules about whole GPUs: gpu-imbalance, straggler, time-slicing (docs/rules.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"
#include "util/api_names.h"
#include "util/timemath.h"

/* Throughput lost when two contexts time-slice one GPU, measured on an H200 (timeslice
 * example: 468 ms with two processes vs 401 ms for the same work in one): 14 %. */
#define SLICE_OVERHEAD 0.14

/* ------------------------------------------------------------------ imbalance */

void rule_gpu_imbalance(struct kg_analysis *a)
{
	if (a->n_gpus < 2)
		return;
	double max = -1, min = -1, sum = 0;
	uint32_t gmax = 0, gmin = 0, used = 0;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		/* its compute kernels' union: a communication kernel's time is mostly its wait
		 * for the peers (the early GPUs wait longest), never work one GPU could shed:
		 * counted in, the GPUs a late one keeps waiting look the busiest */
		double b = (double)a->gpus[g].compute_busy;
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
		if (analysis_worth(a, gain)) {
			struct kg_finding *f = analysis_add_finding(a, KG_RULE_GPU_IMBALANCE);
			if (!f)
				return;
			/* the busiest GPU's kernels, where the extra work is launched */
			uint32_t mark = a->n_blame;
			for (uint32_t i = 0; i < a->gpus[gmax].n_ops; i++) {
				const struct kg_op *o = op(a, a->gpus[gmax].ops[i]);
				if (o->kind == KG_OP_KERNEL && !(o->flags & KG_OPF_COMM))
					analysis_blame(a, KG_NONE, a->gpus[gmax].ops[i], (double)dur(o));
			}
			finding_take_blame(a, f, mark);
			char g1[128], g2[128];
			rule_gpu_label(a, gmax, g1, sizeof(g1));
			rule_gpu_label(a, gmin, g2, sizeof(g2));
			finding_set(&f->title, "work is unbalanced across GPUs: %s computes %.1f ms, %s only %.1f ms "
				 "(%.1fx)",
				 g1, ms(max), g2, ms(min), max / min);
			finding_set(&f->explanation, "The GPUs do not get the same amount of work, so the busiest one "
				 "decides when a step ends and the others wait for it (at the next "
				 "collective or synchronisation).");
			finding_set(&f->fix, "Split the work evenly: the same batch per rank (DistributedSampler, "
				 "drop_last), each rank on its own device (torch.cuda.set_device(rank) "
				 "before init_process_group, DDP(device_ids=[rank])), balanced pipeline "
				 "stages or expert placement.");
			f->gain_ns = gain;
			finding_set(&f->gain_how, "busiest GPU's kernel time minus the mean over %u GPUs: what the "
				 "busiest would shed if the work were even%s",
				 used, a->gpus[gmax].n_comm || a->gpus[gmin].n_comm
					       ? " (communication kernels, which wait for their peers, "
						 "left out)"
					       : "");
			f->start = a->gpus[gmax].begin;
			f->end = a->gpus[gmax].end;
			for (uint32_t g = 0; g < a->n_gpus && f->n_evidence < KG_MAX_EVIDENCE; g++) {
				char gl[128];
				rule_gpu_label(a, g, gl, sizeof(gl));
				const struct kg_gpu_metrics *gm = &a->gpus[g];
				char left_out[64] = "";
				if (gm->n_comm)
					snprintf(left_out, sizeof(left_out),
						 " (its %u communication kernels left out)",
						 gm->n_comm);
				finding_evidence(f, gm->begin, gm->end, KG_NONE, KG_NONE,
						 "%s: %u kernels, %.1f ms of %skernel time%s", gl,
						 gm->kernels - gm->n_comm, ms(gm->compute_busy),
						 gm->n_comm ? "compute " : "", left_out);
			}
			finding_set(&f->figures, "max_ms=%.3f, min_ms=%.3f, ratio=%.2f",
				 ms(max), ms(min), max / min);
		}
	}
}

/* ------------------------------------------------------------------ straggler */

/* The collectives matched by comm_wait.c: at each whose start skew is at least
 * comm_skew_ns, every early GPU waited for the last from its own start to the last's
 * (as job-straggler counts a job's ranks); the late GPU's kernel is where it came late. */
void rule_straggler(struct kg_analysis *a)
{
	if (a->n_gpus < 2 || !a->n_coll_waits)
		return;
	uint32_t *late = calloc(a->n_gpus, sizeof(*late));
	if (!late)
		return;
	double wait = 0, delay = 0;
	const struct kg_coll_wait *worst = &a->coll_waits[0];
	uint32_t mark = a->n_blame;
	for (uint32_t i = 0; i < a->n_coll_waits; i++) {
		const struct kg_coll_wait *w = &a->coll_waits[i];
		wait += w->wait;
		delay += (double)w->delay;
		analysis_blame(a, KG_NONE, w->last_op, (double)w->delay);
		late[w->last_gpu]++;
		if (w->skew > worst->skew)
			worst = w;
	}
	struct kg_finding *f = analysis_worth(a, delay) ? analysis_add_finding(a, KG_RULE_STRAGGLER)
						       : NULL;
	if (!f) {
		analysis_drop_blame(a, mark);
		free(late);
		return;
	}
	uint32_t lg = 0;
	for (uint32_t g = 1; g < a->n_gpus; g++)
		if (late[g] > late[lg])
			lg = g;
	free(late);
	finding_take_blame(a, f, mark);
	char gl[128];
	rule_gpu_label(a, lg, gl, sizeof(gl));
	finding_set(&f->title, "%s arrives last at collectives: start skew up to %.2f ms over %u "
		    "collectives",
		    gl, ms((double)worst->skew), a->n_colls);
	finding_set(&f->explanation, "A collective (NCCL) cannot finish before every rank has joined it: "
		    "the ranks that start it early wait inside the kernel for the late "
		    "one, and that wait looks like communication time.");
	finding_set(&f->fix, "Find what delays the late rank before the collective: more work "
		    "(imbalance), host stalls (data loading, syncs), a slower or shared "
		    "GPU. Balance the work or overlap it with communication.");
	/* the wall clock the late GPU costs, as job-straggler's: the waits are GPU time, summed
	 * over the GPUs that wait (with eight GPUs, seven times the delay: past the span) */
	f->gain_ns = delay;
	finding_set(&f->gain_how, "sum over collectives with a start skew above %lld µs of how much "
		    "later the last GPU started than the next-to-last: the wall-clock delay. "
		    "The early GPUs waited %.1f ms in all, each from its own start to the "
		    "last's; the part of it with no compute beside it is left out of "
		    "exposed-communication",
		    (long long)(a->cfg.comm_skew_ns / 1000), ms(wait));
	f->start = worst->first;
	f->end = kg_time_add(worst->first, worst->skew);
	finding_set(&f->figures, "collectives=%u, worst_skew_ms=%.3f, peer_wait_ms=%.3f", a->n_colls,
		    ms((double)worst->skew), ms(wait));
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
	finding_append(&f->figures,
		 ", hw_context_switches=%u, hw_switch_period_ms=%.2f, hw_ctxsw_pct=%.1f", episodes,
		 episodes > 1 ? ms((double)kg_time_diff(last, first)) / (episodes - 1) : 0.0,
		 samples > 0 ? share / samples : 0.0);
}

void rule_time_slicing(struct kg_analysis *a)
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
		if (contexts < 2 || !analysis_worth(a, gain)) {
			analysis_drop_blame(a, mark);
			continue;
		}
		struct kg_finding *f = analysis_add_finding(a, KG_RULE_TIME_SLICING);
		if (!f)
			return;
		finding_take_blame(a, f, mark);
		char gl[128];
		rule_gpu_label(a, g, gl, sizeof(gl));
		uint32_t procs = 0;
		for (uint32_t p = 0; p < m->n_processes; p++)
			for (uint32_t s = 0; s < m->n_streams; s++)
				if (m->streams[s].process == p && m->devices[m->streams[s].device].gpu == g &&
				    m->streams[s].nops) {
					procs++;
					break;
				}
		finding_set(&f->title, "%u contexts (%u processes) share %s and their kernels time-slice for "
			 "%.1f ms",
			 contexts, procs, gl, ms(overlap));
		finding_set(&f->explanation, "Without MPS, kernels of different contexts never run at the same time: the "
			 "GPU switches between contexts every few milliseconds, so each kernel's span "
			 "stretches (%u kernels overlapped another context) and every switch costs "
			 "time.",
			 nover);
		finding_set(&f->fix, "Run the work in one process on several streams, or enable MPS "
			 "(nvidia-cuda-mps-control -d) so that the processes' kernels run "
			 "concurrently, or give each process its own GPU (CUDA_VISIBLE_DEVICES).");
		f->gain_ns = gain;
		finding_set(&f->gain_how, "%.0f%% of the time-sliced span: the throughput two time-sliced processes "
			 "lost against the same work in one process on an H200",
			 100 * SLICE_OVERHEAD);
		f->gpu = g;
		f->start = first;
		f->end = last;
		finding_evidence(f, first, last, KG_NONE, KG_NONE,
				 "kernels of different contexts overlap from %.1f to %.1f ms", 
				 ms((double)kg_time_diff(first, m->begin)),
				 ms((double)kg_time_diff(last, m->begin)));
		finding_set(&f->figures, "contexts=%u, processes=%u, sliced_ms=%.3f",
			 contexts, procs, ms(overlap));
		ctxsw_evidence(a, g, f);
	}
}

