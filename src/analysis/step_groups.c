/* Groups of steps (steps.h: kg_steps.n_groups, kg_step.group and lead): a step is what
 * users call one (an optimizer step, a decoded token); the epochs of a training run and
 * the requests of a generation are groups of them. Evidence first from annotations, then
 * from the rhythm:
 *
 *  1. ranges of one name (not the steps') that each enclose two steps or more, at least
 *     two of them: `epoch`, `generate`, `validation`...; the groups are theirs;
 *  2. without them, breaks in the steps' rhythm: work between two steps that belongs to
 *     none (GPU work outside the step ranges beyond the usual, a step holding half again
 *     the usual operations or ending in operations the usual step has not, a host gap of
 *     long_gap_ns and ten times the usual step), or a step that begins unlike the rest
 *     (a prefill before decoded tokens: other kernels, larger launch configurations).
 *
 * Groups of fewer than MIN_GROUP steps join the next (warm-up steps are no group). Their
 * kind: requests when each begins with a step unlike the rest and larger (busier on the
 * GPU); epochs when a range's name says so, or when work of no step separates them and
 * they hold as many steps each; else groups. One group is none: a trace whose steps run
 * evenly from start to end says nothing of groups. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pipeline.h"
#include "util/array.h"
#include "util/idmap.h"
#include "util/timemath.h"

static const struct {
	const char *name, *plural, *unit;
} kinds[] = {
#define KG_GROUP_KIND_ROW_(id, name, plural, unit) {name, plural, unit},
	KG_GROUP_KIND_LIST(KG_GROUP_KIND_ROW_)
#undef KG_GROUP_KIND_ROW_
};

#define KIND(k) kinds[(unsigned)(k) < KG_GROUP_KINDS ? (unsigned)(k) : KG_GROUP_GROUP]
const char *group_kind_name(enum kg_group_kind k) { return KIND(k).name; }
const char *group_kind_plural(enum kg_group_kind k) { return KIND(k).plural; }
const char *group_kind_unit(enum kg_group_kind k) { return KIND(k).unit; }

/* A group holds at least this many steps: fewer, at the start, are warm-up. */
#define MIN_GROUP 3
/* A step's head and tail: this share of the usual step's operations (1 to ENDS_MAX). */
#define ENDS_SHARE 0.125
#define ENDS_MAX 64
/* A step with this many times the usual step's operations holds work of no step. */
#define EXTRA_OPS 1.5
/* Operations of no step between two steps beyond the usual, as a share of a step's. */
#define OUTSIDE_SHARE 0.25
/* Breaks are looked for only when at most this share of the steps have another number of
 * operations than the usual step: in a looser rhythm nothing stands out. */
#define REGULAR_SHARE 0.25
/* A host gap this many times the usual step's host period (and long_gap_ns) is a break. */
#define FAR_GAP 10

/* The usual step (index), the ops of no step that follow it, its ends' length (ops), the
 * usual host period. */
struct usual {
	uint32_t step, outside, q;
	int64_t period;
};

/* What each step's ends and what follows it say. */
struct ends {
	uint32_t head_foreign, tail_foreign; /* of its first and last q ops, those the
					      * usual step has not */
	uint32_t seen;
	uint32_t outside; /* ops of no step after it, before the next step's */
};

static int64_t median_i64(int64_t *v, uint32_t n)
{
	return n ? select_kth(v, n, n / 2) : 0;
}

/* The usual step: of the median number of operations, the middle one of those. */
static uint32_t usual_step(const struct kg_steps *st)
{
	int64_t *v = malloc(((size_t)st->n + 1) * sizeof(*v));
	if (!v)
		return KG_NONE;
	for (uint32_t s = 0; s < st->n; s++)
		v[s] = st->v[s].ops;
	int64_t med = median_i64(v, st->n);
	free(v);
	uint32_t k = 0, like = 0;
	for (uint32_t s = 0; s < st->n; s++)
		like += st->v[s].ops == med;
	for (uint32_t s = 0; s < st->n; s++)
		if (st->v[s].ops == med && k++ == like / 2)
			return s;
	return KG_NONE;
}

/* The tokens of step u's ops: into set. 0 or -ENOMEM. */
static int usual_tokens(const struct kg_model *m, const uint32_t *ops, uint32_t n,
			const uint32_t *sid, uint32_t u, struct kg_idmap *set)
{
	for (uint32_t i = 0; i < n; i++) {
		if (sid[i] != u)
			continue;
		uint32_t *v = idmap_slot(set, step_op_key(&m->ops[ops[i]]));
		if (!v)
			return -ENOMEM;
		*v = 1;
	}
	return 0;
}

/* Each step's ends against the usual step's tokens, and the ops of no step after it. */
static void step_ends(const struct kg_model *m, const uint32_t *ops, uint32_t n,
		      const uint32_t *sid, const struct kg_idmap *set, uint32_t q, struct ends *e)
{
	uint32_t last = KG_NONE;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = sid[i];
		if (s == KG_NONE) {
			if (last != KG_NONE)
				e[last].outside++;
			continue;
		}
		last = s;
		if (e[s].seen++ < q)
			e[s].head_foreign += idmap_get(set, step_op_key(&m->ops[ops[i]])) == KG_IDMAP_NONE;
	}
	for (uint32_t s = 0; last != KG_NONE && s <= last; s++)
		e[s].seen = 0;
	for (uint32_t i = n; i-- > 0;) {
		uint32_t s = sid[i];
		if (s != KG_NONE && e[s].seen++ < q)
			e[s].tail_foreign += idmap_get(set, step_op_key(&m->ops[ops[i]])) == KG_IDMAP_NONE;
	}
}

static int unlike(uint32_t foreign, uint32_t q, uint32_t ops)
{
	return 2 * foreign >= (q < ops ? q : ops) && foreign;
}

/* The usual host period (one step's host start to the next's). */
static int64_t usual_period(const struct kg_steps *st)
{
	int64_t *v = malloc(((size_t)st->n + 1) * sizeof(*v));
	uint32_t k = 0;
	if (!v)
		return 0;
	for (uint32_t s = 0; s + 1 < st->n; s++)
		if (st->v[s].host_start != KG_NO_TIME && st->v[s + 1].host_start != KG_NO_TIME)
			v[k++] = kg_time_span(st->v[s + 1].host_start, st->v[s].host_start);
	int64_t p = median_i64(v, k);
	free(v);
	return p;
}

/* Work of no step after step s, beyond what follows the usual step: ops outside the steps,
 * or in its tail (a step of the rhythm holds what runs up to the next one). */
static int work_follows(const struct kg_steps *st, const struct ends *e, uint32_t s,
			const struct usual *u)
{
	const struct kg_step *x = &st->v[s];
	return e[s].outside > u->outside + OUTSIDE_SHARE * st->v[u->step].ops ||
	       (double)x->ops >= EXTRA_OPS * st->v[u->step].ops || unlike(e[s].tail_foreign, u->q, x->ops);
}

/* ... or a host gap of long_gap_ns and FAR_GAP usual host periods before the next step. */
static int work_after(const struct kg_analysis *a, const struct kg_steps *st,
		      const struct ends *e, uint32_t s, const struct usual *u)
{
	const struct kg_step *x = &st->v[s], *y = &st->v[s + 1];
	if (work_follows(st, e, s, u))
		return 1;
	if (x->host_end == KG_NO_TIME || y->host_start == KG_NO_TIME)
		return 0;
	int64_t gap = kg_time_diff(y->host_start, x->host_end);
	return gap >= a->cfg.long_gap_ns && (double)gap >= FAR_GAP * (double)u->period;
}

/* Few enough steps unlike the usual one in their number of operations for a break in the
 * rhythm to stand out. */
static int regular(const struct kg_steps *st, uint32_t usual)
{
	uint32_t other = 0;
	for (uint32_t s = 0; s < st->n; s++)
		other += st->v[s].ops != st->v[usual].ops;
	return other <= REGULAR_SHARE * st->n;
}

/* One break (brk[s]: 1 a step that begins unlike the usual one, 2 work of no step before
 * it) is a group's only when the run's edge shows it again: its first step begins as
 * unlike, or work of no step follows its last; else it is one odd step, not two groups. */
static int repeats(const struct kg_steps *st, const struct ends *e, const uint8_t *brk,
		   const struct usual *u)
{
	uint32_t s = 1;
	while (s < st->n && !brk[s])
		s++;
	if (s == st->n)
		return 0;
	return brk[s] == 1 ? unlike(e[0].head_foreign, u->q, st->v[0].ops)
			   : work_follows(st, e, st->n - 1, u);
}

/* Each step's group from the breaks (brk[s]: a group begins at step s), groups of fewer
 * than MIN_GROUP steps joined to the next (the last to the one before). */
static uint32_t assign_groups(struct kg_steps *st, uint8_t *brk)
{
	uint32_t start = 0;
	for (uint32_t s = 1; s < st->n; s++) {
		if (!brk[s])
			continue;
		if (s - start < MIN_GROUP)
			brk[s] = 0;
		else
			start = s;
	}
	if (start && st->n - start < MIN_GROUP)
		brk[start] = 0;
	uint32_t g = 0;
	for (uint32_t s = 0; s < st->n; s++)
		st->v[s].group = g += s && brk[s];
	return g + 1;
}

/* Each group's first step: begins unlike the usual step, and busier on the GPU. */
static int every_group_leads(const struct kg_steps *st, const struct ends *e, uint32_t q,
			     uint32_t usual)
{
	for (uint32_t s = 0; s < st->n; s++) {
		const struct kg_step *x = &st->v[s];
		if (x->group != KG_NONE && (!s || x->group != st->v[s - 1].group) &&
		    (!unlike(e[s].head_foreign, q, x->ops) || x->busy <= st->v[usual].busy))
			return 0;
	}
	return 1;
}

static int equal_groups(const struct kg_steps *st)
{
	uint32_t first = 0;
	while (first < st->n && st->v[first].group == 0)
		first++;
	for (uint32_t s = 0, size = 0; s <= st->n; s++, size++)
		if (s == st->n || (s && st->v[s].group != st->v[s - 1].group)) {
			if (size != first)
				return 0;
			size = 0;
		}
	return 1;
}

/* The ranges of the name that encloses most steps, two or more each, at least two of
 * them: each step's group (kg_step.group), into st; 0 when none. Steps in host order. */
static uint32_t enclosing_ranges(const struct kg_model *m, struct kg_steps *st);

/* Lead steps: a group's first step that begins unlike the usual one. */
static void mark_leads(struct kg_steps *st, const struct ends *e, uint32_t q)
{
	for (uint32_t s = 0; s < st->n; s++)
		st->v[s].lead = st->v[s].group != KG_NONE &&
				(!s || st->v[s].group != st->v[s - 1].group) &&
				unlike(e[s].head_foreign, q, st->v[s].ops);
}

static void no_groups(struct kg_steps *st)
{
	for (uint32_t s = 0; s < st->n; s++)
		st->v[s].group = KG_NONE, st->v[s].lead = 0;
	st->n_groups = 0;
	st->group_name = 0;
}

/* The groups by breaks in the steps' rhythm (brk: room for a flag a step); *work: every
 * break is work of no step. Their number, 0 or 1 none. */
static uint32_t rhythm_groups(const struct kg_analysis *a, struct kg_steps *st,
			      const struct ends *e, const struct usual *u, uint8_t *brk, int *work)
{
	if (!regular(st, u->step))
		return 0;
	for (uint32_t s = 1; s < st->n; s++)
		brk[s] = work_after(a, st, e, s - 1, u) ? 2 : unlike(e[s].head_foreign, u->q, st->v[s].ops);
	uint32_t groups = assign_groups(st, brk);
	*work = 1;
	for (uint32_t s = 1; s < st->n; s++)
		*work &= brk[s] != 1;
	return groups == 2 && !repeats(st, e, brk, u) ? 0 : groups;
}

/* What the groups are: epochs, requests or groups (kg_steps.group_kind). */
static void group_kind(const struct kg_model *m, struct kg_steps *st, const struct ends *e,
		       const struct usual *u, int work)
{
	if (st->group_name && strcasestr(model_text(m, st->group_name), "epoch"))
		st->group_kind = KG_GROUP_EPOCH;
	else if (every_group_leads(st, e, u->q, u->step))
		st->group_kind = KG_GROUP_REQUEST;
	else if (!st->group_name && work && equal_groups(st))
		st->group_kind = KG_GROUP_EPOCH;
	else
		st->group_kind = KG_GROUP_GROUP;
}

int step_groups_run(const struct kg_analysis *a, struct kg_steps *st, const uint32_t *ops,
		    uint32_t n, const uint32_t *sid)
{
	no_groups(st);
	struct usual u = {.step = usual_step(st)};
	if (u.step == KG_NONE)
		return st->n ? -ENOMEM : 0;
	struct kg_idmap set = {0};
	struct ends *e = calloc((size_t)st->n + 1, sizeof(*e));
	uint8_t *brk = calloc((size_t)st->n + 1, 1);
	int64_t *v = malloc(((size_t)st->n + 1) * sizeof(*v));
	int rc = -ENOMEM, work = 0;
	if (!e || !brk || !v || usual_tokens(a->m, ops, n, sid, u.step, &set) < 0)
		goto out;
	u.q = (uint32_t)(ENDS_SHARE * st->v[u.step].ops);
	u.q = u.q < 1 ? 1 : u.q > ENDS_MAX ? ENDS_MAX : u.q;
	step_ends(a->m, ops, n, sid, &set, u.q, e);
	for (uint32_t s = 0; s + 1 < st->n; s++)
		v[s] = e[s].outside;
	u.outside = (uint32_t)median_i64(v, st->n - 1);
	u.period = usual_period(st);
	uint32_t groups = enclosing_ranges(a->m, st);
	if (!groups)
		groups = rhythm_groups(a, st, e, &u, brk, &work);
	rc = 0;
	if (groups < 2) {
		no_groups(st);
		goto out;
	}
	st->n_groups = groups;
	mark_leads(st, e, u.q);
	group_kind(a->m, st, e, &u, work);
out:
	idmap_free(&set);
	free(e);
	free(brk);
	free(v);
	return rc;
}

/* ------------------------------------------------------------------ annotations */

/* How many steps range r encloses (their host starts and ends in it), from *first. */
static uint32_t enclosed(const struct kg_steps *st, const struct kg_range *r, uint32_t *first)
{
	uint32_t lo = 0, hi = st->n;
	while (lo < hi) { /* the first step starting at or after r */
		uint32_t mid = lo + (hi - lo) / 2;
		if (st->v[mid].host_start < r->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	uint32_t k = lo;
	while (k < st->n && st->v[k].host_end <= r->end)
		k++;
	return k - lo;
}

static int host_ordered(const struct kg_steps *st)
{
	for (uint32_t s = 0; s < st->n; s++)
		if (st->v[s].host_start == KG_NO_TIME || st->v[s].host_end == KG_NO_TIME ||
		    (s && st->v[s].host_start < st->v[s - 1].host_end))
			return 0;
	return 1;
}

/* Which range name encloses most steps (two or more a range, at least two ranges):
 * name → {ranges, steps} counted in one pass. KG_NONE none. */
static uint32_t best_enclosing_name(const struct kg_model *m, const struct kg_steps *st)
{
	struct kg_idmap h = {0};
	uint32_t *cnt = NULL, nc = 0, best = KG_NONE, best_steps = 0;
	uint32_t *names = NULL;
	for (uint32_t i = 0; i < m->n_ranges; i++) {
		const struct kg_range *r = &m->ranges[i];
		uint32_t first, k;
		if (r->end == KG_NO_TIME || r->name == st->name || (k = enclosed(st, r, &first)) < 2)
			continue;
		uint32_t *slot = idmap_slot(&h, r->name);
		if (!slot)
			goto out;
		if (*slot == KG_IDMAP_NONE) {
			uint32_t *c = realloc(cnt, 2 * ((size_t)nc + 1) * sizeof(*c));
			uint32_t *nm = realloc(names, ((size_t)nc + 1) * sizeof(*nm));
			if (c)
				cnt = c;
			if (nm)
				names = nm;
			if (!c || !nm)
				goto out;
			cnt[2 * nc] = cnt[2 * nc + 1] = 0;
			names[nc] = r->name;
			*slot = nc++;
		}
		cnt[2 * *slot]++;
		cnt[2 * *slot + 1] += k;
	}
	for (uint32_t j = 0; j < nc; j++)
		if (cnt[2 * j] >= 2 && cnt[2 * j + 1] > best_steps)
			best = names[j], best_steps = cnt[2 * j + 1];
out:
	idmap_free(&h);
	free(cnt);
	free(names);
	return best;
}

static int by_start(const void *pa, const void *pb, void *arg)
{
	const struct kg_range *r = arg, *a = &r[*(const uint32_t *)pa], *b = &r[*(const uint32_t *)pb];
	return (a->start > b->start) - (a->start < b->start);
}

static uint32_t enclosing_ranges(const struct kg_model *m, struct kg_steps *st)
{
	if (!m->n_ranges || !host_ordered(st))
		return 0;
	uint32_t name = best_enclosing_name(m, st), k = 0, g = 0;
	uint32_t *idx = name == KG_NONE ? NULL : malloc((size_t)m->n_ranges * sizeof(*idx));
	if (!idx)
		return 0;
	for (uint32_t i = 0; i < m->n_ranges; i++)
		if (m->ranges[i].name == name && m->ranges[i].end != KG_NO_TIME)
			idx[k++] = i;
	qsort_r(idx, k, sizeof(*idx), by_start, m->ranges);
	int64_t end = INT64_MIN;
	for (uint32_t j = 0; j < k; j++) {
		const struct kg_range *r = &m->ranges[idx[j]];
		uint32_t first, c;
		if (r->start < end || (c = enclosed(st, r, &first)) < 2)
			continue; /* inside another of the name (another thread's) */
		for (uint32_t s = first; s < first + c; s++)
			st->v[s].group = g;
		g++;
		end = r->end;
	}
	free(idx);
	st->group_name = g >= 2 ? name : 0;
	return g >= 2 ? g : 0;
}

void step_groups_leads(struct kg_steps *st)
{
	int64_t *v = malloc(((size_t)st->n + 1) * sizeof(*v));
	uint32_t k = 0;
	st->lead_p50 = 0;
	st->median_lead = st->median_step;
	for (uint32_t s = st->first_steady; v && s < st->first_steady + st->n_steady; s++)
		if (st->v[s].lead)
			v[k++] = st->v[s].time;
	if (k)
		st->lead_p50 = median_i64(v, k);
	for (uint32_t s = st->first_steady; k && s < st->first_steady + st->n_steady; s++)
		if (st->v[s].lead && st->v[s].time == st->lead_p50) {
			st->median_lead = s;
			break;
		}
	free(v);
}
