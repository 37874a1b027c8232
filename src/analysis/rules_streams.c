/* stream-serialization: small kernels one after another on one stream while the GPU
 * has room for more (docs/rules.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"
#include "util/api_names.h"
#include "util/timemath.h"

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

void rule_stream_serialization(struct kg_analysis *a)
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
			 * (launch-overhead rule); a communication kernel's grid is its channels */
			if (!op_is_compute(o) || !solo[oi] || dur(o) < a->cfg.tiny_kernel_ns)
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
		if (!analysis_worth(a, gain)) {
			analysis_drop_blame(a, mark);
			continue;
		}
		struct kg_finding *f = analysis_add_finding(a, KG_RULE_STREAM_SERIALIZATION);
		if (!f)
			break;
		finding_take_blame(a, f, mark);
		char gl[128], sl[128];
		rule_gpu_label(a, g, gl, sizeof(gl));
		uint32_t worst = 0;
		for (uint32_t s = 1; s < m->n_streams; s++)
			if (per_stream[s] > per_stream[worst])
				worst = s;
		rule_stream_label(a, worst, sl, sizeof(sl));
		int legacy = m->streams[worst].kind == KG_STREAM_LEGACY_DEFAULT;
		finding_set(&f->title, "%u small kernels run one after another on %s%s while most of %s stays idle",
			 nser, sl, legacy ? "" : "", gl);
		finding_set(&f->explanation, "Each of these kernels gives work to only some of the SMs (fewer blocks "
			 "than SMs), and the next one was already waiting in the same stream, so "
			 "the GPU ran them one at a time: %.1f ms in which one under-filled kernel "
			 "had the GPU to itself. Where the kernels do not depend on each other, "
			 "other streams could have used the idle SMs.%s",
			 ms(solo_total),
			 legacy ? " The legacy default stream also serialises with every other "
				  "blocking stream of the context."
				: "");
		finding_set(&f->fix, "Issue independent work on separate streams so the kernels can share the "
			 "SMs: cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) per independent "
			 "chain (PyTorch: with torch.cuda.stream(s)), order dependent work with "
			 "events, and avoid the legacy default stream (explicit streams, or nvcc "
			 "--default-stream per-thread). Or give each kernel a larger grid.");
		f->gain_ns = gain;
		finding_set(&f->gain_how, "sum over serialised kernels of (time alone on the GPU) x (1 - fraction "
			 "of the GPU its grid fills): the idle share other streams could have used");
		f->gpu = g;
		f->start = first;
		f->end = last;
		finding_evidence(f, first, last, worst, KG_NONE,
				 "%.1f ms of the estimate, %u kernels waiting behind each other",
				 ms(per_stream[worst]), nser);
		finding_set(&f->figures, "serialised_kernels=%u, solo_ms=%.3f, streams_used=%u", nser, ms(solo_total),
			 m->n_streams);
	}
out:
	free(per_stream);
}

