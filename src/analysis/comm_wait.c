/* Several GPUs in one trace (one process driving several, or a merge of ranks): their
 * collectives matched, and each GPU's wait at them for the last to arrive.
 *
 * A collective cannot end before its last GPU has joined it, so the GPUs that start it
 * early wait inside the kernel: each from its own start to the last GPU's start (the same
 * definition as the job's, coll_arrivals). straggler sums those waits; the part of a wait
 * with no compute kernel beside it on its GPU is exposed communication too, and
 * exposed-communication leaves it to straggler, so that one wait is counted once. The
 * exposed part is exact: the wait [start, min(last, end)] less the GPU's compute union. */
#include <errno.h>
#include <stdlib.h>

#include "analysis/pipeline.h"
#include "util/timemath.h"

void coll_arrivals(const int64_t *starts, uint32_t n, struct kg_arrivals *out)
{
	*out = (struct kg_arrivals){INT64_MAX, INT64_MIN, INT64_MIN, 0, 0};
	for (uint32_t i = 0; i < n; i++) {
		if (starts[i] < out->first)
			out->first = starts[i];
		if (starts[i] > out->last) {
			out->second = out->last;
			out->last = starts[i], out->last_part = i;
		} else if (starts[i] > out->second) {
			out->second = starts[i];
		}
	}
	for (uint32_t i = 0; i < n; i++)
		out->wait += (double)kg_time_diff(out->last, starts[i]);
}

/* A GPU's next communication kernel that is a collective (not a point-to-point transfer,
 * which waits for its peer by design), from cursor on; one without its times cannot be
 * compared (its skew would be absurd). */
static uint32_t next_collective(const struct kg_analysis *a, const struct kg_gpu_metrics *gm,
				uint32_t *cursor)
{
	for (; *cursor < gm->n_ops; ++*cursor) {
		uint32_t oi = gm->ops[*cursor];
		const struct kg_op *o = &a->m->ops[oi];
		if (!(o->flags & KG_OPF_COMM) || o->start == KG_NO_TIME || o->end == KG_NO_TIME)
			continue;
		const struct kg_comm_id *id = comm_id_of(a->comm_ids, a->n_comm_ids, oi);
		if (!id || comm_kind_class((enum kg_comm_kind)id->kind) != KG_COMM_CLASS_P2P)
			return oi;
	}
	return KG_NONE;
}

/* GPU gm's wait in its kernel o of a collective the last GPU joined at last. */
static void gpu_wait(struct kg_gpu_metrics *gm, const struct kg_op *o, int64_t last)
{
	int64_t until = o->end < last ? o->end : last;
	gm->comm_wait += (double)kg_time_diff(last, o->start);
	gm->comm_wait_exposed = kg_time_add(gm->comm_wait_exposed,
		kg_time_span(kg_time_span(until, o->start),
			     spans_within(gm->compute, gm->n_compute, o->start, until)));
}

static int add_wait(struct kg_analysis *a, struct kg_coll_wait w, uint32_t *cap)
{
	if (a->n_coll_waits == *cap) {
		uint32_t c = *cap ? *cap * 2 : 64;
		struct kg_coll_wait *v = realloc(a->coll_waits, c * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->coll_waits = v, *cap = c;
	}
	a->coll_waits[a->n_coll_waits++] = w;
	return 0;
}

/* The k-th collective kernel of each GPU is the same collective when their ends lie
 * together (none leaves before the last has joined: a pairing whose ends lie further
 * apart than coll_end_spread_ns is not one collective, and its skew is no wait). */
static int match(struct kg_analysis *a, uint32_t *cursor, uint32_t *ops, uint32_t *gpus,
		 int64_t *starts)
{
	uint32_t cap = 0;
	for (;;) {
		int64_t end_lo = INT64_MAX, end_hi = INT64_MIN;
		uint32_t n = 0;
		for (uint32_t g = 0; g < a->n_gpus; g++) {
			uint32_t oi = next_collective(a, &a->gpus[g], &cursor[g]);
			if (oi == KG_NONE)
				continue;
			cursor[g]++;
			const struct kg_op *o = &a->m->ops[oi];
			ops[n] = oi, gpus[n] = g, starts[n++] = o->start;
			end_lo = o->end < end_lo ? o->end : end_lo;
			end_hi = o->end > end_hi ? o->end : end_hi;
		}
		if (n < 2)
			return 0;
		if (kg_time_diff(end_hi, end_lo) > a->cfg.coll_end_spread_ns)
			continue;
		a->n_colls++;
		struct kg_arrivals ar;
		coll_arrivals(starts, n, &ar);
		int64_t skew = kg_time_diff(ar.last, ar.first);
		if (skew < a->cfg.comm_skew_ns)
			continue;
		for (uint32_t i = 0; i < n; i++)
			if (i != ar.last_part)
				gpu_wait(&a->gpus[gpus[i]], &a->m->ops[ops[i]], ar.last);
		struct kg_coll_wait w = {ar.first, skew, kg_time_diff(ar.last, ar.second), ar.wait,
					 gpus[ar.last_part], ops[ar.last_part]};
		if (add_wait(a, w, &cap))
			return -ENOMEM;
	}
}

int comm_waits_run(struct kg_analysis *a)
{
	int rc = 0;
	if (a->n_gpus >= 2) {
		uint32_t *cursor = calloc(a->n_gpus, sizeof(*cursor));
		uint32_t *ops = malloc(a->n_gpus * sizeof(*ops));
		uint32_t *gpus = malloc(a->n_gpus * sizeof(*gpus));
		int64_t *starts = malloc(a->n_gpus * sizeof(*starts));
		rc = cursor && ops && gpus && starts ? match(a, cursor, ops, gpus, starts) : -ENOMEM;
		free(cursor);
		free(ops);
		free(gpus);
		free(starts);
	}
	/* the compute unions served only here: a trace of millions of kernels keeps no copy */
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		free(a->gpus[g].compute);
		a->gpus[g].compute = NULL;
		a->gpus[g].n_compute = 0;
	}
	return rc;
}
