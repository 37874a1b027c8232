/* Point-to-point transfers of the job: a send on one rank and the recv on its peer that
 * are one transfer (job.h, job_pair_transfers).
 *
 * NCCL delivers the sends from rank a to rank b in the order a issued them, to the recvs
 * b posted for a in the same order. So the k-th send of a to b in a process group, of a
 * size, is the k-th recv of b from a in that group, of that size: a pipeline's
 * activations from stage r to stage r + 1. The peer is what the trace says ("Dst Rank",
 * "Src Rank"), or the other rank of a group of two; a transfer whose peer is not known,
 * or whose peer's trace is not in the job, stays unpaired (counted).
 *
 * A recv that starts before its send waits for it, by design: the bubble the sender
 * causes, never a straggler (only collectives make stragglers). The check: a recv cannot
 * end before its send began; a pairing that says otherwise is wrong and left unpaired. */
#include "job/job.h"

#include <errno.h>
#include <stdlib.h>

#include "util/idmap.h"
#include "util/timemath.h"

/* A send or recv with its peer known, and the transfer it is part of. */
struct xfer {
	uint64_t key;  /* group, sender, receiver, size, and its order among them */
	uint32_t rank; /* index into j->ranks */
	uint32_t coll; /* index into that rank's coll */
	uint8_t send;  /* 1 send, 0 recv */
};

/* The rank's job rank as a number, -1 when it has none (a trace without a rank). */
static int64_t own_number(const struct kg_rank *r)
{
	char *end;
	if (!r->rank[0])
		return -1;
	long long v = strtoll(r->rank, &end, 10);
	return *end || v < 0 || v >= UINT32_MAX ? -1 : v;
}

static int by_key_send(const void *pa, const void *pb)
{
	const struct xfer *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->send > b->send) - (a->send < b->send);
}

/* Rank i's sends and recvs whose peer is known, each keyed by its transfer; *n grown. */
static int rank_xfers(const struct kg_job *j, uint32_t i, struct xfer *v, uint32_t *n)
{
	const struct kg_rank *r = &j->ranks[i];
	int64_t me = own_number(r);
	struct kg_idmap order = {0};
	int rc = 0;
	for (uint32_t k = 0; me >= 0 && k < r->n_coll; k++) {
		const struct kg_rank_collective *c = &r->coll[k];
		int send = c->kind == KG_COMM_SEND;
		if ((!send && c->kind != KG_COMM_RECV) || !c->peer)
			continue;
		uint64_t src = send ? (uint64_t)me : c->peer - 1, dst = send ? c->peer - 1 : (uint64_t)me;
		uint64_t base = idmap_mix(idmap_mix(idmap_mix(c->group ^ idmap_mix(src)) ^ dst) ^ c->elems);
		uint32_t *nth = idmap_slot(&order, base);
		if (!nth) {
			rc = -ENOMEM;
			break;
		}
		*nth = *nth == KG_IDMAP_NONE ? 0 : *nth + 1;
		v[(*n)++] = (struct xfer){.key = idmap_mix(base ^ idmap_mix(*nth)), .rank = i,
					  .coll = k, .send = (uint8_t)send};
	}
	idmap_free(&order);
	return rc;
}

/* The send s and recv r of one transfer, on the job's clock: how long the recv waited for
 * the send (0 when the send came first), or -1 when the recv ended before the send began,
 * beyond what the clocks leave (the pairing is wrong). */
static int64_t recv_wait(const struct kg_job *j, const struct xfer *s, const struct xfer *r)
{
	const struct kg_rank *rs = &j->ranks[s->rank], *rr = &j->ranks[r->rank];
	const struct kg_rank_collective *cs = &rs->coll[s->coll], *cr = &rr->coll[r->coll];
	int64_t send_start = kg_time_add(cs->start, rs->shift);
	int64_t recv_start = kg_time_add(cr->start, rr->shift), recv_end = kg_time_add(cr->end, rr->shift);
	if (kg_time_diff(send_start, recv_end) > j->cfg.coll_end_spread_ns)
		return -1;
	int64_t w = kg_time_diff(send_start < recv_end ? send_start : recv_end, recv_start);
	return w > 0 ? w : 0;
}

/* Runs of one key that are one send and one recv (by_key_send puts the recv first) on two
 * ranks are transfers. */
static void settle_transfers(struct kg_job *j, const struct xfer *v, uint32_t n)
{
	for (uint32_t a = 0; a < n;) {
		uint32_t b = a;
		while (b < n && v[b].key == v[a].key)
			b++;
		int64_t w = b - a == 2 && !v[a].send && v[a + 1].send && v[a].rank != v[a + 1].rank
				    ? recv_wait(j, &v[a + 1], &v[a])
				    : -1;
		if (w >= 0) {
			j->match.p2p_paired += 2;
			j->p2p_transfers++;
			j->ranks[v[a].rank].p2p_wait = kg_time_add(j->ranks[v[a].rank].p2p_wait, w);
			j->ranks[v[a + 1].rank].p2p_caused =
			    kg_time_add(j->ranks[v[a + 1].rank].p2p_caused, w);
			j->p2p_wait_ns = kg_time_add(j->p2p_wait_ns, w);
		}
		a = b;
	}
}

int job_pair_transfers(struct kg_job *j)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		total += j->ranks[i].n_coll;
	j->p2p_transfers = 0;
	j->p2p_wait_ns = 0;
	j->match.p2p_paired = 0;
	if (total >= UINT32_MAX)
		return -ENOMEM;
	struct xfer *v = malloc((size_t)(total + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	uint32_t n = 0;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < j->n_ranks; i++) {
		j->ranks[i].p2p_wait = j->ranks[i].p2p_caused = 0;
		rc = rank_xfers(j, i, v, &n);
	}
	if (!rc) {
		qsort(v, n, sizeof(*v), by_key_send);
		settle_transfers(j, v, n);
	}
	free(v);
	return rc;
}
