/* Which collectives of the ranks are one, and the ranks' clocks put on one (job.h).
 *
 * NCCL has every rank of a process group issue the group's collectives in the same
 * order: the k-th all-reduce of 26,258,430 elements of group "0" is one collective on
 * every rank of the group. The traces say what each communication kernel is
 * (model/comm.h), and the kernels are first paired by that identity and their order, or
 * by the group's sequence number where the trace has it. Those pairs put the clocks of
 * different hosts on one.
 *
 * Then the check: the kernels of one collective end together (none can finish before the
 * last rank's data arrived), within coll_end_spread_ns. A pairing whose ends lie further
 * apart is wrong: a sampled or cut trace lacks some collectives, and the order is off.
 * Its kernels are paired again by their ends alone, among the same identity; what finds
 * no partner is left out, counted and said. Point-to-point transfers (send, recv) are not
 * collectives: a send waits for one peer, not for the group; job_p2p.c pairs them. */
#include "job/job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/format.h"
#include "util/idmap.h"
#include "util/timemath.h"

#define SAME_CLOCK_NS 1000000000LL /* realtime offsets this close: one host clock (merge) */
/* Clocks related by realtime offsets (NTP) are off by milliseconds: collectives that say
 * seconds more were paired wrong. */
#define MAX_CLOCK_ERROR_NS 5000000000LL
#define NONE               UINT32_MAX
#define NS_PER_HOUR        3600000000000LL

/* A communication kernel of a rank, with what it is matched by. */
struct cand {
	uint64_t key;       /* its identity (kind, group, size) */
	uint64_t pair;      /* its identity and its order among them on its rank */
	int64_t end;        /* on its rank's clock, then (shift_times) on the job's */
	uint32_t rank, coll;
};

struct matching {
	struct cand *c;
	uint32_t n;
	uint32_t *run; /* starts of runs of equal pair (c sorted by pair, rank) */
	uint32_t n_runs;
};

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

/* ------------------------------------------------------------------ identity */

/* What a collective is matched by: its kind, its process group, its size where every
 * rank sends the same (not an all-to-all's splits), and for a kind the trace does not
 * name, its kernel's name. 0 for a point-to-point transfer. */
static uint64_t identity(const struct kg_rank_collective *c)
{
	enum kg_comm_class cls = comm_kind_class((enum kg_comm_kind)c->kind);
	if (cls == KG_COMM_CLASS_P2P)
		return 0;
	uint64_t k = idmap_mix(c->kind + 1);
	k = idmap_mix(k ^ c->group);
	if (cls == KG_COMM_CLASS_COLL)
		k = idmap_mix(k ^ c->elems);
	if (c->kind == KG_COMM_OTHER)
		k = idmap_mix(k ^ c->hash);
	return k | 1; /* never 0 */
}

static int by_pair_rank(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	if (a->pair != b->pair)
		return a->pair < b->pair ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->coll > b->coll) - (a->coll < b->coll);
}

/* Every rank's collectives with their identity and order; point-to-point ones counted
 * and left out. */
static int candidates(struct kg_job *j, struct matching *mt)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		total += j->ranks[i].n_coll;
	if (total >= UINT32_MAX)
		return -ENOMEM;
	mt->c = malloc((size_t)(total + 1) * sizeof(*mt->c));
	if (!mt->c)
		return -ENOMEM;
	struct kg_idmap order = {0}, groups = {0};
	int rc = 0;
	for (uint32_t i = 0; !rc && i < j->n_ranks; i++) {
		const struct kg_rank *r = &j->ranks[i];
		idmap_free(&order);
		for (uint32_t k = 0; !rc && k < r->n_coll; k++) {
			const struct kg_rank_collective *c = &r->coll[k];
			uint64_t key = identity(c);
			j->match.kernels++;
			if (c->group && !idmap_find(&groups, c->group)) {
				uint32_t *g = idmap_slot(&groups, c->group);
				rc = g ? 0 : -ENOMEM;
				j->match.groups++;
			}
			if (!key) {
				j->match.p2p++;
				continue;
			}
			j->match.by_call += c->from_call; /* of the collectives' kernels */
			uint32_t *nth = idmap_slot(&order, key);
			if (!nth) {
				rc = -ENOMEM;
				break;
			}
			*nth = *nth == KG_IDMAP_NONE ? 0 : *nth + 1;
			uint64_t at = c->seq ? c->seq | (1ull << 63) : *nth;
			mt->c[mt->n++] = (struct cand){.key = key,
						       .pair = idmap_mix(key ^ idmap_mix(at)),
						       .end = c->end,
						       .rank = i,
						       .coll = k};
		}
	}
	idmap_free(&order);
	idmap_free(&groups);
	if (rc)
		return rc;
	qsort(mt->c, mt->n, sizeof(*mt->c), by_pair_rank);
	mt->run = malloc(((size_t)mt->n + 1) * sizeof(*mt->run));
	if (!mt->run)
		return -ENOMEM;
	for (uint32_t a = 0; a < mt->n; a++)
		if (a == 0 || mt->c[a].pair != mt->c[a - 1].pair)
			mt->run[mt->n_runs++] = a;
	mt->run[mt->n_runs] = mt->n;
	return 0;
}

/* ------------------------------------------------------------------ clocks */

/* A trace that names no host (Kineto's) may come from any host: a clock of its own. Its
 * times are wall-clock microseconds where they read as Unix time (realtime offset 0:
 * job_summary.c), as precise as the hosts' NTP. */
static int hostless(const struct kg_rank *r)
{
	return !r->host[0];
}

/* The clock group of each rank: ranks of one host whose realtime offsets agree share
 * that host's CLOCK_MONOTONIC_RAW (as merge decides); a trace without a host, its own.
 * Returns the number of groups. */
static uint32_t clock_groups(const struct kg_job *j, uint32_t *group, uint32_t *first)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < j->n_ranks; i++) {
		const struct kg_rank *r = &j->ranks[i];
		group[i] = NONE;
		for (uint32_t g = 0; g < n; g++) {
			const struct kg_rank *f = &j->ranks[first[g]];
			int same_offset = (f->realtime_offset == KG_NO_TIME) ==
					      (r->realtime_offset == KG_NO_TIME) &&
					  (r->realtime_offset == KG_NO_TIME ||
					   llabs(kg_time_diff(r->realtime_offset,
							      f->realtime_offset)) < SAME_CLOCK_NS);
			if (!strcmp(f->host, r->host) && same_offset &&
			    (!hostless(r) || !strcmp(f->file, r->file))) {
				group[i] = g;
				break;
			}
		}
		if (group[i] == NONE) {
			first[n] = i;
			group[i] = n++;
		}
	}
	return n;
}

/* Median over the identity's pairs of (end on a rank of group g - end on the reference
 * rank), on the shifts so far. 0 when nothing compares. */
static int64_t group_residual(const struct kg_job *j, const struct matching *mt,
			      const uint32_t *group, uint32_t g, uint32_t ref)
{
	size_t n = 0, cap = 0;
	int64_t *d = NULL;
	for (uint32_t r = 0; r < mt->n_runs; r++) {
		const struct cand *ref_c = NULL;
		for (uint32_t a = mt->run[r]; a < mt->run[r + 1] && !ref_c; a++)
			if (mt->c[a].rank == ref)
				ref_c = &mt->c[a];
		for (uint32_t a = mt->run[r]; ref_c && a < mt->run[r + 1]; a++) {
			const struct cand *c = &mt->c[a];
			if (group[c->rank] != g)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				int64_t *t = realloc(d, cap * sizeof(*d));
				if (!t) {
					free(d);
					return 0;
				}
				d = t;
			}
			d[n++] = kg_time_diff(kg_time_add(c->end, j->ranks[c->rank].shift),
					      kg_time_add(ref_c->end, j->ranks[ref].shift));
		}
	}
	int64_t med = 0;
	if (n) {
		qsort(d, n, sizeof(*d), cmp_i64);
		med = d[n / 2];
	}
	free(d);
	return med;
}

/* ------------------------------------------------------------------ one job? */

static int by_shifted_begin(const void *pa, const void *pb, void *arg)
{
	const struct kg_job *j = arg;
	const struct kg_rank *a = &j->ranks[*(const uint32_t *)pa],
			     *b = &j->ranks[*(const uint32_t *)pb];
	int64_t x = kg_time_add(a->begin, a->shift), y = kg_time_add(b->begin, b->shift);
	return (x > y) - (x < y);
}

/* Ranks of one job work at the same time. On clocks that compare, ranks whose work does
 * not overlap the others' (runs days apart, a trace of another run) are not one job:
 * -ERANGE with apart_note. */
static int one_job(struct kg_job *j)
{
	uint32_t *order = malloc(j->n_ranks * sizeof(*order)), n = 0;
	if (!order)
		return -ENOMEM;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		if (j->ranks[i].begin != KG_NO_TIME && j->ranks[i].end != KG_NO_TIME)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), by_shifted_begin, j);
	int rc = 0;
	int64_t reach = INT64_MIN;
	uint32_t last = NONE;
	for (uint32_t k = 0; k < n && !rc; k++) {
		const struct kg_rank *r = &j->ranks[order[k]];
		int64_t b = kg_time_add(r->begin, r->shift), e = kg_time_add(r->end, r->shift);
		if (last != NONE && b > reach) {
			char d[32], days[32] = "";
			int64_t gap = kg_time_diff(b, reach);
			if (gap > 2 * NS_PER_HOUR)
				snprintf(days, sizeof(days),
					 gap > 48 * NS_PER_HOUR ? " (%.1f days)" : " (%.1f hours)",
					 (double)gap / (gap > 48 * NS_PER_HOUR ? 24.0 * NS_PER_HOUR
									       : NS_PER_HOUR));
			snprintf(
			    j->apart_note, sizeof(j->apart_note),
			    "%s (%s) begins %s%s after every rank before it has ended (%s, %s): "
			    "traces of different runs are not one job; report each on its own",
			    r->label, r->file, fmt_duration(gap, d), days, j->ranks[last].label,
			    j->ranks[last].file);
			rc = -ERANGE;
		}
		if (e > reach)
			reach = e, last = order[k];
	}
	free(order);
	return rc;
}

/* Clocks nothing relates: each group's first GPU work at the reference group's. */
static void start_align(struct kg_job *j, const uint32_t *group, uint32_t ng)
{
	for (uint32_t g = 1; g < ng; g++) {
		int64_t first = INT64_MAX;
		for (uint32_t i = 0; i < j->n_ranks; i++)
			if (group[i] == g && j->ranks[i].begin != KG_NO_TIME &&
			    j->ranks[i].begin < first)
				first = j->ranks[i].begin;
		if (first == INT64_MAX || j->ranks[0].begin == KG_NO_TIME)
			continue;
		for (uint32_t i = 0; i < j->n_ranks; i++)
			if (group[i] == g)
				j->ranks[i].shift = kg_time_diff(j->ranks[0].begin, first);
	}
}

/* r's realtime offset puts it on ref's clock: both known, and its times moved stay within
 * int64 (an offset near INT64_MAX or INT64_MIN is none a clock has: its times would read
 * at the saturation, -9223372036854775807). */
static int offset_known(const struct kg_rank *r, const struct kg_rank *ref)
{
	if (r->realtime_offset == KG_NO_TIME || ref->realtime_offset == KG_NO_TIME)
		return 0;
	int64_t shift = kg_time_diff(r->realtime_offset, ref->realtime_offset);
	int64_t b = kg_time_add(r->begin, shift), e = kg_time_add(r->end, shift);
	return shift != INT64_MAX && shift != -INT64_MAX && b != INT64_MAX && b != -INT64_MAX &&
	       e != INT64_MAX && e != -INT64_MAX;
}

/* The first rank of a run of paired kernels that has any: every group is put on its clock. */
static uint32_t reference_rank(const struct matching *mt)
{
	uint32_t ref = NONE;
	for (uint32_t r = 0; r < mt->n_runs; r++)
		if (mt->run[r + 1] - mt->run[r] >= 2 && mt->c[mt->run[r]].rank < ref)
			ref = mt->c[mt->run[r]].rank;
	return ref;
}

static void clock_note(struct kg_job *j, const struct kg_rank *ref, uint32_t ng, int offsets_known)
{
	size_t len = sizeof(j->clock_note);
	const char *host = ref->host[0] ? ref->host : "the first";
	if (ng == 1 && ref->host[0])
		snprintf(j->clock_note, len, "one clock (CLOCK_MONOTONIC_RAW of %s): exact",
			 ref->host);
	else if (ng == 1)
		snprintf(j->clock_note, len, "one trace's clock (it names no host)");
	else if (hostless(ref) && j->clocks_by_collectives)
		snprintf(j->clock_note, len,
			 "%u traces that name no host: their wall-clock "
			 "timestamps, then the ends of the collectives they share",
			 ng);
	else if (hostless(ref))
		snprintf(j->clock_note, len,
			 "%u traces that name no host: their wall-clock "
			 "timestamps (as precise as NTP); no collective to check them",
			 ng);
	else if (j->clocks_by_collectives)
		snprintf(j->clock_note, len,
			 "%u clocks (hosts), put on %s's by %sthe ends of the "
			 "collectives they share",
			 ng, host, offsets_known ? "realtime offsets (NTP), then " : "");
	else if (offsets_known)
		snprintf(j->clock_note, len,
			 "%u clocks (hosts), put on %s's by realtime offsets (as "
			 "precise as NTP); no collective to check them",
			 ng, host);
	else
		snprintf(j->clock_note, len,
			 "%u clocks (hosts) that cannot be aligned (a trace "
			 "without a realtime offset, no collective): each clock's first GPU work "
			 "put at the first rank's; times across clocks are not comparable",
			 ng);
}

/* Group g moved by the collectives' residual, unless its clock is known (realtime
 * offsets) and the residual is far beyond what NTP leaves: then the pairs are wrong, not
 * the clock (the report's end check says so). */
static void refine(struct kg_job *j, const uint32_t *group, uint32_t g, int64_t most, int64_t res)
{
	if (res > most || res < -most)
		return;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		if (group[i] == g)
			j->ranks[i].shift = kg_time_diff(j->ranks[i].shift, res);
}

/* Shifts that put every rank on the reference rank's clock; -ERANGE when clocks that
 * relate by themselves say the ranks are not one job (one_job). */
static int align_clocks(struct kg_job *j, const struct matching *mt)
{
	if (!j->n_ranks) /* no rank, no reference clock */
		return 0;
	uint32_t *group = malloc(j->n_ranks * sizeof(*group));
	uint32_t *first = malloc(j->n_ranks * sizeof(*first));
	if (!group || !first) {
		free(group);
		free(first);
		return -ENOMEM;
	}
	uint32_t ng = clock_groups(j, group, first);
	const struct kg_rank *ref = &j->ranks[first[0]];
	uint32_t ref_coll = reference_rank(mt);
	int offsets_known = 1;
	for (uint32_t i = 0; i < j->n_ranks; i++) {
		struct kg_rank *r = &j->ranks[i];
		int known = offset_known(r, ref);
		offsets_known &= known || group[i] == 0;
		r->shift =
		    known && group[i] ? kg_time_diff(r->realtime_offset, ref->realtime_offset) : 0;
	}
	j->n_hosts = ng;
	/* clocks that relate by themselves tell first whether the ranks are one job: the
	 * collectives' ends would line up any two runs */
	int rc = (ng == 1 || offsets_known) && j->n_ranks > 1 ? one_job(j) : 0;
	if (!rc && ng > 1 && ref_coll != NONE) {
		for (uint32_t g = 0; g < ng; g++)
			if (g != group[ref_coll])
				refine(j, group, g, offsets_known ? MAX_CLOCK_ERROR_NS : INT64_MAX,
				       group_residual(j, mt, group, g, ref_coll));
		j->clocks_by_collectives = 1;
	} else if (!rc && !offsets_known) {
		start_align(j, group, ng);
	}
	clock_note(j, ref, ng, offsets_known);
	free(group);
	free(first);
	return rc;
}

/* ------------------------------------------------------------------ the check */

static int by_key_end(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The job's collectives as they are found: parts appended, a collective over them. */
struct found {
	struct kg_job_part *parts;
	uint32_t n_parts;
	struct kg_job_coll *colls;
	uint32_t n_colls;
	int64_t *spread; /* of each collective's ends */
};

static void found_add(struct found *f, const struct cand *c, uint32_t n, int64_t spread)
{
	f->spread[f->n_colls] = spread;
	f->colls[f->n_colls++] = (struct kg_job_coll){.first = f->n_parts, .n = n};
	for (uint32_t a = 0; a < n; a++)
		f->parts[f->n_parts++] = (struct kg_job_part){c[a].rank, c[a].coll};
}

/* The candidates' ends on the job's clock, once the clocks are aligned. */
static void shift_times(const struct kg_job *j, struct matching *mt)
{
	for (uint32_t a = 0; a < mt->n; a++)
		mt->c[a].end = kg_time_add(mt->c[a].end, j->ranks[mt->c[a].rank].shift);
}

static int64_t end_spread(const struct cand *c, uint32_t n)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t a = 0; a < n; a++) {
		lo = c[a].end < lo ? c[a].end : lo;
		hi = c[a].end > hi ? c[a].end : hi;
	}
	return kg_time_diff(hi, lo);
}

/* The identity's pairs whose ends agree are collectives; the others' kernels are moved
 * to the front of mt->c for pairing by their ends. Returns how many were moved. */
static uint32_t keep_agreeing(const struct kg_job *j, struct matching *mt, struct found *f)
{
	uint32_t loose = 0;
	for (uint32_t r = 0; r < mt->n_runs; r++) {
		uint32_t a = mt->run[r], n = mt->run[r + 1] - a;
		int64_t spread = n >= 2 ? end_spread(&mt->c[a], n) : INT64_MAX;
		if (spread <= j->cfg.coll_end_spread_ns) {
			found_add(f, &mt->c[a], n, spread);
			continue;
		}
		for (uint32_t k = 0; k < n; k++)
			mt->c[loose++] =
			    mt->c[a + k]; /* loose <= a + k: nothing unread is overwritten */
	}
	return loose;
}

/* Kernels of one identity whose ends lie within the bound of the first one's, one per
 * rank, are one collective: the pairing that a sampled or cut trace put out of order. */
static void pair_by_ends(struct kg_job *j, struct cand *c, uint32_t n, struct found *f,
			 uint32_t *stamp)
{
	qsort(c, n, sizeof(*c), by_key_end);
	uint32_t a = 0, cluster = 0;
	struct cand *tmp = malloc(((size_t)j->n_ranks + 1) * sizeof(*tmp));
	while (tmp && a < n) {
		uint32_t m = 0, b = a;
		cluster++;
		for (; b < n && c[b].key == c[a].key &&
		       kg_time_diff(c[b].end, c[a].end) <= j->cfg.coll_end_spread_ns &&
		       stamp[c[b].rank] != cluster;
		     b++) {
			stamp[c[b].rank] = cluster;
			tmp[m++] = c[b];
		}
		if (m >= 2) {
			qsort(tmp, m, sizeof(*tmp), by_pair_rank); /* by rank: pair is the same */
			found_add(f, tmp, m, end_spread(tmp, m));
		} else {
			j->match.alone++;
		}
		a = b > a ? b : a + 1;
	}
	free(tmp);
}

/* ------------------------------------------------------------------ the job's collectives */

static int by_first_start(const void *pa, const void *pb, void *arg)
{
	const struct kg_job *j = arg;
	const struct kg_job_coll *a = pa, *b = pb;
	const struct kg_job_part *x = &j->parts[a->first], *y = &j->parts[b->first];
	int64_t s = kg_time_add(j->ranks[x->rank].coll[x->coll].start, j->ranks[x->rank].shift);
	int64_t t = kg_time_add(j->ranks[y->rank].coll[y->coll].start, j->ranks[y->rank].shift);
	return (s > t) - (s < t);
}

/* The collectives in time order; each rank's parts marked; the spread of their ends. */
static int settle(struct kg_job *j, struct found *f)
{
	j->colls = f->colls;
	j->n_collectives = f->n_colls;
	j->parts = f->parts;
	j->n_parts = f->n_parts;
	qsort_r(j->colls, j->n_collectives, sizeof(*j->colls), by_first_start, j);
	for (uint32_t i = 0; i < j->n_ranks; i++) {
		struct kg_rank *r = &j->ranks[i];
		free(r->coll_job);
		r->coll_job = malloc(((size_t)r->n_coll + 1) * sizeof(*r->coll_job));
		if (!r->coll_job)
			return -ENOMEM;
		for (uint32_t k = 0; k < r->n_coll; k++)
			r->coll_job[k] = NONE;
		r->joined = 0;
	}
	for (uint32_t k = 0; k < j->n_collectives; k++) {
		struct kg_job_coll *c = &j->colls[k];
		const struct kg_job_part *p = &j->parts[c->first];
		const struct kg_rank_collective *rc = &j->ranks[p->rank].coll[p->coll];
		c->step = rc->step;
		c->kind = rc->kind;
		c->name_hash = rc->hash;
		for (uint32_t a = 0; a < c->n; a++) {
			struct kg_rank *r = &j->ranks[p[a].rank];
			r->coll_job[p[a].coll] = k;
			r->joined++;
		}
	}
	if (f->n_colls) {
		qsort(f->spread, f->n_colls, sizeof(*f->spread), cmp_i64);
		j->match.end_spread_p50 = f->spread[array_pct_rank(f->n_colls, 0.5)];
		j->match.end_spread_max = f->spread[f->n_colls - 1];
		j->align_p50 = j->match.end_spread_p50;
		j->align_p99 = f->spread[array_pct_rank(f->n_colls, 0.99)];
		j->align_max = j->match.end_spread_max;
		j->align_samples = f->n_colls;
	}
	return 0;
}

/* What was not compared, and why: the report's collectives line. */
static void match_note(struct kg_job *j)
{
	const struct kg_job_match *m = &j->match;
	char bound[32];
	size_t len = sizeof(j->coll_note), at = 0;
	j->coll_note[0] = 0;
	fmt_duration(j->cfg.coll_end_spread_ns, bound);
#define NOTE(...)                                                                                  \
	do {                                                                                       \
		int w_ = snprintf(j->coll_note + at, len - at, __VA_ARGS__);                       \
		at = w_ > 0 && (size_t)w_ < len - at ? at + (size_t)w_ : len - 1;                  \
	} while (0)
	if (m->alone)
		NOTE("%llu communication kernel%s matched no other rank's (same collective, size "
		     "and "
		     "group, ends within %s): a sampled or cut trace, or ranks of other runs",
		     (unsigned long long)m->alone, m->alone == 1 ? "" : "s", bound);
	if (m->parted)
		NOTE("%s%llu paired by their ends where their order did not pair them",
		     at ? "; " : "", (unsigned long long)m->parted);
	if (m->p2p_paired) {
		char w[32];
		NOTE("%s%llu point-to-point kernels paired by peer as %llu transfers (send, recv), "
		     "not compared as collectives: the receives waited %s in all for their sends",
		     at ? "; " : "", (unsigned long long)m->p2p_paired,
		     (unsigned long long)j->p2p_transfers, fmt_duration(j->p2p_wait_ns, w));
	}
	if (m->p2p > m->p2p_paired)
		NOTE("%s%llu point-to-point kernel%s (send, recv) %snot compared as collectives",
		     at ? "; " : "", (unsigned long long)(m->p2p - m->p2p_paired),
		     m->p2p - m->p2p_paired == 1 ? "" : "s", m->p2p_paired ? "unpaired, " : "");
#undef NOTE
}

int job_match(struct kg_job *j)
{
	struct matching mt = {0};
	struct found f = {0};
	uint32_t *stamp = NULL;
	memset(&j->match, 0, sizeof(j->match));
	int rc = candidates(j, &mt);
	if (!rc)
		rc = align_clocks(j, &mt);
	if (!rc) {
		f.parts = malloc(((size_t)mt.n + 1) * sizeof(*f.parts));
		f.colls = malloc(((size_t)mt.n / 2 + 1) * sizeof(*f.colls));
		f.spread = malloc(((size_t)mt.n / 2 + 1) * sizeof(*f.spread));
		stamp = calloc((size_t)j->n_ranks + 1, sizeof(*stamp));
		rc = f.parts && f.colls && f.spread && stamp ? 0 : -ENOMEM;
	}
	if (!rc) {
		shift_times(j, &mt);
		uint32_t loose = keep_agreeing(j, &mt, &f);
		uint32_t before = f.n_parts;
		pair_by_ends(j, mt.c, loose, &f, stamp);
		j->match.parted = f.n_parts - before;
		rc = settle(j, &f);
		f.parts = NULL, f.colls = NULL; /* the job's now */
		if (!rc)
			rc = job_pair_transfers(j);
		match_note(j);
	}
	if (f.parts || f.colls) {
		free(f.parts);
		free(f.colls);
	}
	free(f.spread);
	free(stamp);
	free(mt.c);
	free(mt.run);
	return rc;
}

const char *job_identity_note(const struct kg_job *j, char *buf, size_t len)
{
	const struct kg_job_match *m = &j->match;
	uint64_t compared = m->kernels - m->p2p;
	const char *what = m->groups ? "kind, process group and size" : "kind and size";
	if (!compared)
		snprintf(buf, len, "no collective kernel: point-to-point transfers only");
	else if (m->by_call == compared)
		snprintf(buf, len, "%s from the calls that launched them", what);
	else if (!m->by_call)
		snprintf(buf, len, "kind from their kernels' names, and their order");
	else
		snprintf(buf, len,
			 "%s from the calls that launched %llu of %llu, the others' kind "
			 "from their kernels' names",
			 what, (unsigned long long)m->by_call, (unsigned long long)compared);
	return buf;
}
