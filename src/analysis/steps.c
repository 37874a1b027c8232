/* The program's steps (steps.h), best evidence first:
 *
 *  1. the user's annotations: ranges of one name that repeat on one thread (--steps NAME,
 *     else ProfilerStep#N, step, train_step, ...); a step is the GPU work launched inside
 *     one of them;
 *  2. the rhythm of the launches: the GPU's operations in the order the host issued them
 *     (issue_order), each a token (kind, name, launch configuration); the period is the
 *     shortest shift at which the sequence matches itself (see rhythm_period), the
 *     boundary the place in the period where the host waits longest before its next
 *     launch; a period that makes no regular steps gives way to a longer one, and a
 *     rhythm whose steps are one step's parts (a graph's or a forward's layers:
 *     rhythm_within_one_step) to one that holds the graph, else to none.
 *
 * Then the first steps that differ from the median one (more or fewer operations, or
 * 1.5 times as long) are warm-up; the rest are steady. When what they leave out (the
 * start-up before them, the warm-up, the wind-down after them) is at least long_gap_ns,
 * the scale at which metrics.c's one-gap heuristic calls a gap start-up, or a fair part
 * of their own time (left_out_pct: a short loop after a long first step), they apply:
 * `report` cuts the trace to the steady steps and analyses them alone (cli/session.c),
 * its GPUs' gaps all steady; otherwise, and in the commands that do not cut (part 2 of
 * issue 24: the charts, diff, the job), the heuristic stays. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/host.h"
#include "analysis/pipeline.h"
#include "util/array.h"
#include "util/idmap.h"
#include "util/timemath.h"

const char *steps_source_name(enum kg_steps_source s)
{
	static const char *const names[] = {
#define KG_STEPS_SOURCE_NAME_(id, name) name,
		KG_STEPS_SOURCE_LIST(KG_STEPS_SOURCE_NAME_)
#undef KG_STEPS_SOURCE_NAME_
	};
	return (unsigned)s < KG_STEPS_SOURCES ? names[s] : names[KG_STEPS_NONE];
}

/* Steps are claimed only with at least this many of them. */
#define MIN_STEPS 3
/* A warm-up step: this much longer than the median step (or not its operations). */
#define WARMUP_RATIO 1.5
/* The rhythm is looked for in at most this many operations from the middle of the run:
 * enough for 20 steps of 50,000 kernels, and a bounded cost on a 10M-kernel trace. */
#define RHYTHM_WINDOW (1u << 20)
/* A shorter period is an inner loop of tiny operations (x = x + 1 a thousand times
 * between two syncs), in which nothing tells one step from the next. */
#define MIN_PERIOD 3
/* Shifts tried: the most frequent distances between two occurrences of a token. */
#define CANDIDATES 16
/* A shift is the period when the sequence, less its rare tokens, matches itself
 * shifted by it this well, and the rare tokens are at most this share of it. */
#define MIN_MATCH 0.75
#define MAX_RARE 0.02

/* The annotations that name a step unless the user names one; a name ending in '#' is
 * a prefix (PyTorch's profiler numbers its steps: ProfilerStep#12). */
static const char *const step_names[] = {
	"ProfilerStep#", "step", "train_step", "training_step", "train_batch",
	"run_training_batch", "decode_step", NULL,
};

static int name_matches(const char *text, const char *name, int prefix)
{
	size_t n = strlen(name);
	return prefix || (n && name[n - 1] == '#') ? !strncmp(text, name, n) : !strcmp(text, name);
}


/* How many of the times v[0], v[stride], ... v[(n - 1) * stride] (in order) are at or
 * before t: one more than the index of the last step starting by t. */
static uint32_t starting_by(const int64_t *v, uint32_t stride, uint32_t n, int64_t t)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[(size_t)mid * stride] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ------------------------------------------------------------------ annotations */

static int by_thread_start(const void *pa, const void *pb, void *arg)
{
	const struct kg_range *r = arg, *a = &r[*(const uint32_t *)pa], *b = &r[*(const uint32_t *)pb];
	if (a->thread != b->thread)
		return (a->thread > b->thread) - (a->thread < b->thread);
	return (a->start > b->start) - (a->start < b->start);
}

/* The process that launched most of ops[0..n) (their streams'), KG_NONE none. */
static uint32_t launching_process(const struct kg_model *m, const uint32_t *ops, uint32_t n)
{
	uint32_t *count = calloc((size_t)m->n_processes + 1, sizeof(*count)), best = KG_NONE;
	for (uint32_t i = 0; count && i < n; i++) {
		uint32_t p = m->streams[m->ops[ops[i]].stream].process;
		if (p >= m->n_processes)
			continue;
		count[p]++;
		if (best == KG_NONE || count[p] > count[best])
			best = p;
	}
	free(count);
	return best;
}

/* The ranges named `name` (of that process, unless KG_NONE) on the thread that has most
 * of them, in time order, none inside another: into idx, their count returned. */
static uint32_t step_ranges(const struct kg_model *m, const char *name, int prefix,
			    uint32_t process, uint32_t *idx)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_ranges; i++)
		if (m->ranges[i].end != KG_NO_TIME && m->ranges[i].end > m->ranges[i].start &&
		    (process == KG_NONE || m->ranges[i].process == process) &&
		    name_matches(model_text(m, m->ranges[i].name), name, prefix))
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), by_thread_start, m->ranges);
	uint32_t best = 0, best_n = 0;
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && m->ranges[idx[j]].thread == m->ranges[idx[i]].thread; j++)
			;
		if (j - i > best_n)
			best = i, best_n = j - i;
	}
	uint32_t k = 0;
	for (uint32_t i = best; i < best + best_n; i++)
		if (!k || m->ranges[idx[best + k - 1]].end <= m->ranges[idx[i]].start)
			idx[best + k++] = idx[i];
	memmove(idx, idx + best, k * sizeof(*idx));
	return k;
}

/* Each of the GPU's ops (ops[i], in start order; launched by `process`, launching_process)
 * into the step whose range it was launched in (sid[i]), KG_NONE outside them; the
 * ranges' starts and ends, in pairs, into *host. The number of steps, 0 when the trace has no annotation of a step. */
static uint32_t annotated_steps(const struct kg_analysis *a, struct kg_steps *st,
				const uint32_t *ops, uint32_t n, uint32_t process, uint32_t *sid,
				int64_t **host)
{
	const struct kg_model *m = a->m;
	uint32_t *idx = malloc(((size_t)m->n_ranges + 1) * sizeof(*idx)), k = 0;
	if (!idx)
		return 0;
	/* the ranges of the process that launched the GPU's work (another process's steps
	 * are another GPU's), else any (a source that puts ranges in a process of their own) */
	const char *user = a->cfg.steps_name; /* the user's name, else the usual ones */
	for (int any = 0; any < 2 && k < 2; any++) {
		uint32_t p = any ? KG_NONE : process;
		if (user)
			k = step_ranges(m, user, 1, p, idx);
		for (int i = 0; !user && step_names[i] && k < 2; i++)
			k = step_ranges(m, step_names[i], 0, p, idx);
	}
	if (k >= 2)
		st->name = m->ranges[idx[0]].name;
	int64_t *hs = k >= 2 ? malloc(2 * (size_t)k * sizeof(*hs)) : NULL;
	if (!hs) {
		free(idx);
		return 0;
	}
	for (uint32_t s = 0; s < k; s++) {
		hs[2 * s] = m->ranges[idx[s]].start;
		hs[2 * s + 1] = m->ranges[idx[s]].end;
	}
	/* An op nothing says the issue of, among ops most of which it is said of, was issued
	 * before the trace began (work queued before the profiler started: TraceLens's MI300
	 * ResNet trace ran 30 ms of it first) or its call was lost: its GPU time says nothing
	 * of the step that issued it, and taken for an issue time it would stretch the first
	 * step over work of none. Where none is said (a GPU-only trace), the GPU time is all
	 * there is. */
	uint32_t issued = 0;
	for (uint32_t i = 0; i < n; i++)
		issued += op_issued(m, &m->ops[ops[i]]) != KG_NO_TIME;
	int undated_in_none = issued > n / 2;
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_op *o = &m->ops[ops[i]];
		int64_t t = op_issued(m, o);
		if (t == KG_NO_TIME && undated_in_none) {
			sid[i] = KG_NONE;
			continue;
		}
		t = t != KG_NO_TIME ? t : o->start;
		uint32_t lo = starting_by(hs, 2, k, t);
		sid[i] = lo && t < hs[2 * (lo - 1) + 1] ? lo - 1 : KG_NONE;
	}
	free(idx);
	*host = hs;
	return k;
}

/* ------------------------------------------------------------------ rhythm */

uint64_t step_op_key(const struct kg_op *o)
{
	uint64_t key = (uint64_t)o->name << 32 ^ (uint64_t)o->launch << 8 ^
		       (uint64_t)o->kind << 4 ^ o->copy_kind;
	return idmap_mix(key) >> 1;
}

/* Each op's token: the same kind, name and launch configuration make the same token. */
static uint32_t tokenize(const struct kg_model *m, const uint32_t *ops, uint32_t n,
			 uint32_t *tok)
{
	struct kg_idmap h = {0};
	uint32_t n_tok = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t *v = idmap_slot(&h, step_op_key(&m->ops[ops[i]]));
		if (!v) {
			idmap_free(&h);
			return 0;
		}
		if (*v == KG_IDMAP_NONE)
			*v = n_tok++;
		tok[i] = *v;
	}
	idmap_free(&h);
	return n_tok;
}

struct distance {
	uint32_t d, n;
};

static int by_n_desc(const void *pa, const void *pb)
{
	const struct distance *a = pa, *b = pb;
	return a->n != b->n ? (a->n < b->n) - (a->n > b->n) : (a->d > b->d) - (a->d < b->d);
}

/* One more occurrence of distance d in the histogram h (d → index into *d). 0 or -ENOMEM. */
static int count_distance(struct kg_idmap *h, struct distance **d, uint32_t *nd, uint32_t *cap,
			  uint32_t dist)
{
	uint32_t *v = idmap_slot(h, dist);
	if (!v)
		return -ENOMEM;
	if (*v == KG_IDMAP_NONE) {
		if (*nd == *cap) {
			uint32_t nc = *cap ? 2 * *cap : 256;
			struct distance *g = realloc(*d, nc * sizeof(**d));
			if (!g)
				return -ENOMEM;
			*d = g;
			*cap = nc;
		}
		(*d)[*nd] = (struct distance){dist, 0};
		*v = (*nd)++;
	}
	(*d)[*v].n++;
	return 0;
}

/* The most frequent distances, of `shortest` or more, between an occurrence of a token in
 * tok[0..w) and its previous one, or the one before (a token twice in every step,
 * forward's kernel in a step of forward and backward twice, is a period from the one
 * before): into c (at most CANDIDATES), their number returned. */
static uint32_t candidate_shifts(const uint32_t *tok, uint32_t w, uint32_t n_tok,
				 uint32_t shortest, uint32_t *c)
{
	struct kg_idmap h[2] = {{0}, {0}};
	struct distance *d[2] = {NULL, NULL};
	uint32_t nd[2] = {0, 0}, cap[2] = {0, 0}, out = 0;
	uint32_t *last = malloc(2 * (size_t)n_tok * sizeof(*last)); /* the last two, by token */
	if (!last)
		return 0;
	for (uint32_t t = 0; t < 2 * n_tok; t++)
		last[t] = UINT32_MAX;
	for (uint32_t i = 0; i < w; i++) {
		uint32_t *l = &last[2 * (size_t)tok[i]];
		for (int k = 0; k < 2; k++)
			if (l[k] != UINT32_MAX && i - l[k] >= shortest &&
			    count_distance(&h[k], &d[k], &nd[k], &cap[k], i - l[k]) < 0)
				goto out;
		l[1] = l[0];
		l[0] = i;
	}
	/* the most frequent distances to the previous occurrence, then the few most frequent
	 * to the one before that are not among them */
	for (int k = 0; k < 2; k++) {
		if (nd[k]) /* d[k] is NULL without distances */
			qsort(d[k], nd[k], sizeof(*d[k]), by_n_desc);
		for (uint32_t j = 0, added = 0; j < nd[k] && out < CANDIDATES &&
						 added < (k ? CANDIDATES / 4 : CANDIDATES - CANDIDATES / 4);
		     j++) {
			uint32_t seen = 0;
			for (uint32_t x = 0; x < out; x++)
				seen |= c[x] == d[k][j].d;
			if (!seen)
				c[out++] = d[k][j].d, added++;
		}
	}
out:
	for (int k = 0; k < 2; k++) {
		idmap_free(&h[k]);
		free(d[k]);
	}
	free(last);
	return out;
}

/* Where tok[0..w) repeats itself shifted by p: the longest stretch of runs of p positions
 * of which half match the position p later, with breaks of at most 2p between them, into
 * [*from, *to). The
 * longest, not the first to the last: a start-up that repeats at p for a while (XLA's
 * autotuning, a warm-up's copies) is no part of the loop, and spanning the two would
 * count the start-up's operations as the loop's rare ones. */
static void loop_region(const uint32_t *tok, uint32_t w, uint32_t p, uint32_t *from, uint32_t *to)
{
	uint32_t in = 0; /* matches among positions [i - p, i) */
	uint32_t run_from = 0, run_to = 0, last_ok = UINT32_MAX;
	*from = *to = 0;
	for (uint32_t i = 0; i + p < w; i++) {
		in += tok[i] == tok[i + p];
		if (i >= p)
			in -= tok[i - p] == tok[i];
		if (i + 1 >= p && 2 * in >= p) {
			/* a run resumes after a short break (one extra operation puts p
			 * positions out of step: a sync's copy every few steps) */
			if (last_ok == UINT32_MAX || i - last_ok > 2 * p)
				run_from = i + 1 - p;
			last_ok = i;
			run_to = i + 1 + p;
			if (run_to - run_from > *to - *from)
				*from = run_from, *to = run_to;
		}
	}
	/* from the first position that matches to the last one's match */
	while (*from + p < *to && tok[*from] != tok[*from + p])
		(*from)++;
	while (*to > *from + p && tok[*to - 1] != tok[*to - 1 - p])
		(*to)--;
}

/* How well the loop of tok[0..w) at shift p (loop_region), less the tokens rarer there
 * than once in two periods, matches itself shifted by p: the share of positions that do;
 * 0 when the rare tokens are too many there for p to be a period, or it holds under
 * MIN_STEPS periods. count: room for a count a token, f: for w tokens. */
static double shift_match(const uint32_t *tok, uint32_t w, uint32_t n_tok, uint32_t p,
			  uint32_t *count, uint32_t *f, uint32_t *length)
{
	uint32_t from, to;
	loop_region(tok, w, p, &from, &to);
	*length = 0;
	if (to - from < MIN_STEPS * (uint64_t)p)
		return 0;
	memset(count, 0, n_tok * sizeof(*count));
	for (uint32_t i = from; i < to; i++)
		count[tok[i]]++;
	double rare_below = 0.5 * (double)(to - from) / p;
	/* rare tokens at its ends are not the loop's: a run of one operation after it (five
	 * all-reduces) matches itself at a short shift and would join it */
	while (from < to && count[tok[from]] < rare_below)
		count[tok[from++]]--;
	while (to > from && count[tok[to - 1]] < rare_below)
		count[tok[--to]]--;
	*length = to - from;
	if (to - from < MIN_STEPS * (uint64_t)p)
		return 0;
	uint32_t nf = 0;
	for (uint32_t i = from; i < to; i++)
		if (count[tok[i]] >= rare_below)
			f[nf++] = tok[i];
	if ((double)(to - from - nf) > MAX_RARE * (to - from) || nf < MIN_STEPS * (uint64_t)p)
		return 0;
	/* matched two ways, the better kept: with the rare tokens taken out (a logging copy
	 * every few steps puts only its own step out of step), and in place (a step whose
	 * few rare operations come every period, as a decoded token's attention with a
	 * longer cache each time, would put every later period out of step taken out) */
	uint32_t same = 0, in_place = 0, frequent = 0;
	for (uint32_t j = 0; j + p < nf; j++)
		same += f[j] == f[j + p];
	for (uint32_t i = from; i + p < to; i++)
		if (count[tok[i]] >= rare_below) {
			frequent++;
			in_place += tok[i] == tok[i + p];
		}
	double compacted = (double)same / (nf - p);
	double placed = frequent ? (double)in_place / frequent : 0;
	return placed > compacted ? placed : compacted;
}

/* The period of tok[0..n) in operations, at least `shortest` (a CUDA graph's operations
 * are one step's at least: rhythm_within_one_step), 0 when it has none, or one shorter
 * than MIN_PERIOD.
 *
 * Why a shift test and not a suffix array or a rolling hash of the sequence: the steps of
 * a real program are not exact repeats (a logging copy every 10 steps, a step with an
 * extra kernel), and the test below tolerates that: the candidates are the most frequent
 * distances between two occurrences of the same token (one pass, a hash table of
 * distances; see candidate_shifts); each is tried by how well the sequence, less the tokens rarer than once in
 * two periods (the logging copy, a sync's copy every N steps), matches itself shifted by
 * it, over the longest stretch where it repeats at that shift (start-up before the loop
 * is no evidence against it); the shortest that matches over at least half the longest
 * such stretch is the period. Micro-batches match at their own length
 * only as far as the rest of the step (the optimizer) is rare, which it is not: more than
 * MAX_RARE of the operations. Linear in the window (RHYTHM_WINDOW ops at most). */
static uint32_t rhythm_period(const uint32_t *tok, uint32_t n, uint32_t n_tok, uint32_t shortest)
{
	uint32_t w = n < RHYTHM_WINDOW ? n : RHYTHM_WINDOW;
	const uint32_t *wt = tok + (n - w) / 2;
	uint32_t *count = malloc(n_tok * sizeof(*count)), *f = malloc((size_t)w * sizeof(*f));
	uint32_t c[CANDIDATES], len[CANDIDATES], best = 0, longest = 0;
	if (!count || !f)
		goto out;
	uint32_t nc = candidate_shifts(wt, w, n_tok, shortest, c);
	for (uint32_t i = 0; i < nc; i++) {
		len[i] = 0;
		if (shift_match(wt, w, n_tok, c[i], count, f, &len[i]) < MIN_MATCH)
			len[i] = 0;
		longest = len[i] > longest ? len[i] : longest;
	}
	/* the shortest shift whose loop holds at least half as long as the longest one's: a
	 * few operations of the start-up that repeat at a short shift are not the loop */
	for (uint32_t i = 0; i < nc; i++)
		if (len[i] && 2 * (uint64_t)len[i] >= longest && (!best || c[i] < best))
			best = c[i];
out:
	free(count);
	free(f);
	return best >= MIN_PERIOD ? best : 0;
}

/* The token that marks each step: the one most often one period after its previous
 * occurrence (once a step), else after the one before (twice a step). UINT32_MAX when
 * out of memory. */
static uint32_t anchor_token(const uint32_t *tok, uint32_t n, uint32_t n_tok, uint32_t p)
{
	uint32_t *last = malloc(2 * (size_t)n_tok * sizeof(*last)), best = UINT32_MAX;
	uint64_t *score = calloc(n_tok, sizeof(*score));
	if (!last || !score)
		goto out;
	for (uint32_t t = 0; t < 2 * n_tok; t++)
		last[t] = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t *l = &last[2 * (size_t)tok[i]];
		score[tok[i]] += 3 * (l[0] != UINT32_MAX && i - l[0] == p) +
				 (l[1] != UINT32_MAX && i - l[1] == p);
		l[1] = l[0];
		l[0] = i;
	}
	for (uint32_t t = 0; t < n_tok; t++)
		if (score[t] && (best == UINT32_MAX || score[t] > score[best]))
			best = t;
out:
	free(last);
	free(score);
	return best;
}

/* Where a step begins near want: at the operation that begins the regular steps (bt),
 * within slack of want (a step with an extra operation or one fewer between its anchor and
 * its beginning moves it), else at want. */
static uint32_t boundary_at(const uint32_t *tok, uint32_t n, uint32_t want, uint32_t bt,
			    uint32_t slack)
{
	if (want >= n || bt == UINT32_MAX || tok[want] == bt)
		return want;
	for (uint32_t d = 1; d <= slack; d++) {
		if (want >= d && tok[want - d] == bt)
			return want - d;
		if (want + d < n && tok[want + d] == bt)
			return want + d;
	}
	return want;
}

/* Each of the GPU's ops into its step by the rhythm (sid), and where each step's
 * boundary is: after the anchor by the offset at which the host most often waited
 * longest before launching. ops in the order the host issued them, tok their tokens
 * (tokenize). The number of steps; the period tried in *period. */
static uint32_t rhythm_steps_at(const struct kg_analysis *a, struct kg_steps *st,
				const uint32_t *ops, const uint32_t *tok, uint32_t n,
				uint32_t n_tok, uint32_t shortest, uint32_t *sid, uint32_t *period)
{
	const struct kg_model *m = a->m;
	uint32_t steps = 0;
	uint32_t *at = NULL;
	uint32_t *votes = NULL;
	uint32_t p = n_tok ? rhythm_period(tok, n, n_tok, shortest) : 0;
	*period = p;
	if (!p || n / p < MIN_STEPS)
		goto out;
	at = malloc((size_t)n * sizeof(*at));
	votes = calloc(p, sizeof(*votes));
	if (!at || !votes)
		goto out;
	/* its occurrences a period apart, give or take an eighth (a step with an extra
	 * kernel or one fewer): the second of a token twice in a step is not a step */
	uint32_t anchor = anchor_token(tok, n, n_tok, p), na = 0;
	for (uint32_t i = 0; i < n && anchor != UINT32_MAX; i++)
		if (tok[i] == anchor && (!na || i - at[na - 1] >= p - p / 8))
			at[na++] = i;
	/* each regular step votes for the place where its host waited longest: one step's
	 * seconds of compilation do not outvote the rest */
	for (uint32_t k = 0; k + 1 < na; k++) {
		if (at[k + 1] - at[k] != p)
			continue;
		int64_t longest = -1;
		uint32_t where = 0;
		for (uint32_t r = 0; r < p; r++) {
			uint32_t i = at[k] + r;
			int64_t g = i ? kg_time_diff(op_issued_or_start(m, &m->ops[ops[i]]),
						     op_issued_or_start(m, &m->ops[ops[i - 1]])) : 0;
			if (g > longest)
				longest = g, where = r;
		}
		votes[where]++;
	}
	uint32_t off = 0, regular = votes[0];
	for (uint32_t r = 1; r < p; r++) {
		regular += votes[r];
		if (votes[r] > votes[off])
			off = r;
	}
	/* a rhythm is claimed when it repeats exactly, anchor to anchor, MIN_STEPS times: two
	 * iterations of a step whose layers repeat (no kernel of the step's own) show their
	 * layers' period a few times between anchors a step apart, never that often */
	if (regular < MIN_STEPS)
		goto out;
	/* the operation that begins a step: the one at that offset in the regular steps */
	uint32_t bt = UINT32_MAX, slack = p / 8 ? p / 8 : 1;
	for (uint32_t k = 0; k + 1 < na && bt == UINT32_MAX; k++)
		if (at[k + 1] - at[k] == p)
			bt = tok[at[k] + off];
	/* the steps: boundary k to boundary k + 1; the last one only when a whole period
	 * follows it; the period before the first boundary too when it is the same */
	for (uint32_t i = 0; i < n; i++)
		sid[i] = KG_NONE;
	uint32_t prev = UINT32_MAX;
	if (na && at[0] + off >= p && at[0] + off + p <= n) {
		uint32_t b = boundary_at(tok, n, at[0] + off, bt, slack), same = 0;
		b = b >= p && b + p <= n ? b - p : at[0] + off - p;
		for (uint32_t r = 0; r < p; r++)
			same += tok[b + r] == tok[b + p + r];
		if (same >= MIN_MATCH * p) {
			for (uint32_t i = b; i < b + p; i++)
				sid[i] = steps;
			steps++;
			prev = b + p;
		}
	}
	for (uint32_t k = 0; k < na && at[k] + off < n; k++) {
		uint32_t b = boundary_at(tok, n, at[k] + off, bt, slack);
		uint32_t end = k + 1 < na && at[k + 1] + off < n
				       ? boundary_at(tok, n, at[k + 1] + off, bt, slack)
				       : b + p <= n ? b + p : b;
		if (prev != UINT32_MAX && b < prev)
			continue;
		for (uint32_t i = b; i < end; i++)
			sid[i] = steps;
		steps += end > b;
		prev = end;
	}
	st->period = p;
out:
	free(at);
	free(votes);
	return steps >= MIN_STEPS ? steps : 0;
}

/* The steps of the shortest period of `shortest` or more that makes them
 * (rhythm_steps_at): a period that repeats without making MIN_STEPS regular steps is not
 * the loop's, and a longer one may be (a Llama compiled with mode="reduce-overhead",
 * replayed 20 times on an H100: Inductor's 12 kernels a layer repeat, the replays of 64
 * are the steps). */
static uint32_t rhythm_steps_in(const struct kg_analysis *a, struct kg_steps *st,
				const uint32_t *ops, uint32_t n, uint32_t shortest, uint32_t *sid)
{
	uint32_t *tok = malloc(((size_t)n + 1) * sizeof(*tok)), k = 0; /* once, for every try */
	uint32_t n_tok = tok ? tokenize(a->m, ops, n, tok) : 0;
	for (int tries = 0; n_tok && tries < CANDIDATES; tries++) {
		uint32_t p = 0;
		k = rhythm_steps_at(a, st, ops, tok, n, n_tok, shortest, sid, &p);
		if (k || !p)
			break;
		shortest = p + 1;
	}
	free(tok);
	return k;
}

/* The GPU's ops ops[0..n) (in start order) in the order the host issued them, into
 * order[0..n) (indices into ops): each stream's ops as the stream ran them (first in,
 * first out) and the streams merged by issue time (merge_op_runs). The start order
 * interleaves the streams as their timing falls, differently in every step, where the
 * host's order is the program's own: a step's side-stream kernels that start after the
 * next step's first one are still its own. -ENOMEM, 0, or 1 when the ops are all on one
 * stream (the order is theirs: order untouched). */
static int issue_order(const struct kg_model *m, const uint32_t *ops, uint32_t n,
		       uint32_t *order)
{
	uint32_t first = n ? m->ops[ops[0]].stream : 0, one = 1;
	for (uint32_t i = 1; i < n && one; i++)
		one = m->ops[ops[i]].stream == first;
	if (one)
		return 1;
	uint32_t ns = m->n_streams, *at = calloc((size_t)ns + 1, sizeof(*at)), nruns = 0;
	uint32_t *by_stream = malloc((size_t)n * sizeof(*by_stream));
	uint32_t *ids = malloc((size_t)n * sizeof(*ids)), *heap = malloc((size_t)ns * sizeof(*heap));
	struct kg_op_run *runs = malloc((size_t)ns * sizeof(*runs));
	int rc = at && by_stream && ids && heap && runs ? 0 : -ENOMEM;
	for (uint32_t i = 0; !rc && i < n; i++) /* at[s + 1]: stream s's ops, then offsets */
		at[m->ops[ops[i]].stream + 1]++;
	for (uint32_t s = 0; !rc && s < ns; s++) {
		if (at[s + 1])
			runs[nruns++] = (struct kg_op_run){at[s], at[s] + at[s + 1], 0, 0};
		at[s + 1] += at[s];
	}
	for (uint32_t i = 0; !rc && i < n; i++) {
		uint32_t j = at[m->ops[ops[i]].stream]++;
		by_stream[j] = i, ids[j] = ops[i];
	}
	if (!rc) {
		merge_op_runs(m, ids, KG_MERGE_BY_ISSUE, runs, nruns, heap, order);
		for (uint32_t k = 0; k < n; k++)
			order[k] = by_stream[order[k]];
	}
	free(at);
	free(by_stream);
	free(ids);
	free(heap);
	free(runs);
	return rc;
}

/* The steps of the rhythm (rhythm_steps_in), found in the order the host issued the ops. */
static uint32_t rhythm_in_issue_order(const struct kg_analysis *a, struct kg_steps *st,
				      const uint32_t *ops, uint32_t n, uint32_t shortest, uint32_t *sid)
{
	uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
	int one = order ? issue_order(a->m, ops, n, order) : -ENOMEM;
	if (one) {
		free(order);
		return one < 0 ? 0 : rhythm_steps_in(a, st, ops, n, shortest, sid);
	}
	uint32_t *issued = malloc(((size_t)n + 1) * sizeof(*issued));
	uint32_t *sid_issued = malloc(((size_t)n + 1) * sizeof(*sid_issued)), steps = 0;
	if (issued && sid_issued) {
		for (uint32_t k = 0; k < n; k++)
			issued[k] = ops[order[k]];
		steps = rhythm_steps_in(a, st, issued, n, shortest, sid_issued);
		for (uint32_t k = 0; k < n; k++)
			sid[order[k]] = sid_issued[k];
	}
	free(order);
	free(issued);
	free(sid_issued);
	return steps;
}

/* A frame of a model's forward: Kineto's "nn.Module: Qwen2Model_0" (with_modules), or a
 * Python function named forward (a Module's, as kgantt's samples and with_stack name it). */
static int forward_frame(const struct kg_model *m, const struct kg_frame *f)
{
	if (f->kind != KG_FRAME_PYTHON || !f->function)
		return 0;
	const char *name = model_text(m, f->function);
	size_t n = strlen(name);
	return !strncmp(name, "nn.Module: ", 11) ||
	       (n >= 7 && !strcmp(name + n - 7, "forward") && (n == 7 || name[n - 8] == '.' ||
							      name[n - 8] == ' '));
}

static int stack_holds(const struct kg_model *m, uint32_t stack, const struct kg_frame *f)
{
	if (stack >= m->n_stacks)
		return 0;
	const struct kg_stack *k = &m->stacks[stack];
	for (uint32_t i = 0; i < k->n_frames; i++)
		if (model_same_frame(&m->frames[k->first_frame + i], f))
			return 1;
	return 0;
}

/* The outermost forward frame of stack a that stack b holds too, NULL none. */
static const struct kg_frame *common_forward(const struct kg_model *m, uint32_t a, uint32_t b)
{
	if (a >= m->n_stacks || b >= m->n_stacks)
		return NULL;
	const struct kg_stack *k = &m->stacks[a];
	for (uint32_t i = k->n_frames; i-- > 0;) {
		const struct kg_frame *f = &m->frames[k->first_frame + i];
		if (forward_frame(m, f) && stack_holds(m, b, f))
			return f;
	}
	return NULL;
}

/* Whether thread t ran inside frame f all through [from, to]: its host spans meanwhile
 * follow each other (within a microsecond) and each holds f. One call of f, not two: the
 * caller runs between two calls. A profiler's events only: samples a period apart can
 * land in two calls of f and none between them. */
static int one_call_through(const struct kg_model *m, uint32_t t, const struct kg_frame *f,
			    int64_t from, int64_t to)
{
	uint32_t lo = 0, hi = m->n_host_spans; /* the first span of t ending after from */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct kg_host_span *h = &m->host_spans[mid];
		if (h->thread < t || (h->thread == t && h->end <= from))
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t covered = from;
	for (uint32_t i = lo; i < m->n_host_spans && m->host_spans[i].thread == t &&
			      covered < to; i++) {
		const struct kg_host_span *h = &m->host_spans[i];
		if (h->source != KG_HOST_FROM_EVENTS || h->start > kg_time_add(covered, 1000) ||
		    !stack_holds(m, h->stack, f))
			return 0;
		covered = h->end > covered ? h->end : covered;
	}
	return covered >= to;
}

/* Whether the k steps the rhythm found (sid) are parts of one step of the program, not
 * its steps: a model's layers, which repeat as a loop's steps do. So when at least half
 * of the boundaries between them lie inside one launch call (a CUDA graph's launch: the
 * host issued both sides at once; SGLang's decode graph replays Qwen3's 36 layers), or
 * inside one call of a model's forward (a profiler's trace of one step, where
 * HuggingFace's Qwen2 showed its 24 layers as steps; a forward is at most a step's work).
 * Half, not one: the first step's boundary can cut a replay short (a Llama replayed
 * from a graph 20 times, recorded on an H100: its warm-up step took the first replay's
 * start). 1 also on ENOMEM (none claimed). *graph_ops: the most operations one call
 * launched when the boundaries lay inside calls, else 0: a step holds at least that many. */
static int rhythm_within_one_step(const struct kg_analysis *a, const uint32_t *ops, uint32_t n,
				  const uint32_t *sid, uint32_t k, uint32_t *graph_ops)
{
	const struct kg_model *m = a->m;
	uint32_t *by_call = malloc(((size_t)m->n_apis + 1) * sizeof(*by_call));
	uint32_t *first = malloc(((size_t)k + 1) * sizeof(*first)); /* each step's first call */
	uint32_t in_calls = 0, in_forwards = 0; /* boundaries inside one call, one forward */
	*graph_ops = 0;
	if (!by_call || !first) {
		free(by_call);
		free(first);
		return 1;
	}
	for (uint32_t c = 0; c < m->n_apis; c++)
		by_call[c] = KG_NONE;
	for (uint32_t s = 0; s < k; s++)
		first[s] = KG_NONE;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t api = m->ops[ops[i]].api;
		if (sid[i] == KG_NONE || sid[i] >= k || api >= m->n_apis)
			continue;
		in_calls += by_call[api] != KG_NONE && by_call[api] != sid[i];
		by_call[api] = sid[i];
		if (first[sid[i]] == KG_NONE || m->apis[api].start < m->apis[first[sid[i]]].start)
			first[sid[i]] = api;
	}
	if (2 * in_calls >= k - 1) { /* the most operations of one call: by_call counts now */
		for (uint32_t c = 0; c < m->n_apis; c++)
			by_call[c] = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t api = m->ops[ops[i]].api;
			if (api < m->n_apis && ++by_call[api] > *graph_ops)
				*graph_ops = by_call[api];
		}
	}
	for (uint32_t s = 0; !*graph_ops && s + 1 < k; s++) {
		if (first[s] == KG_NONE || first[s + 1] == KG_NONE)
			continue;
		const struct kg_api *x = &m->apis[first[s]], *y = &m->apis[first[s + 1]];
		const struct kg_frame *f = x->thread == y->thread && x->thread != KG_NONE
						   ? common_forward(m, x->stack, y->stack)
						   : NULL;
		in_forwards += f && one_call_through(m, x->thread, f, x->start, y->start);
	}
	free(by_call);
	free(first);
	return *graph_ops || 2 * in_forwards >= k - 1;
}

/* Whether most of the k steps (sid) run a kernel. 0 also on ENOMEM (none claimed). */
static int steps_compute(const struct kg_model *m, const uint32_t *ops, uint32_t n,
			 const uint32_t *sid, uint32_t k)
{
	uint8_t *has = calloc((size_t)k + 1, 1);
	uint32_t with = 0;
	for (uint32_t i = 0; has && i < n; i++)
		if (sid[i] != KG_NONE && sid[i] < k && m->ops[ops[i]].kind == KG_OP_KERNEL &&
		    !has[sid[i]]++)
			with++;
	free(has);
	return 2 * with > k;
}

/* The steps of the rhythm. A rhythm of copies and memsets alone is a library setting
 * itself up (NCCL's communicator initialisation: a copy and memsets per channel, more of
 * them than a short training loop has kernels), not the program's loop: the kernels' own
 * rhythm, when they have one, is (their steps hold the kernels alone); else there is none. */
static uint32_t rhythm_steps(const struct kg_analysis *a, struct kg_steps *st,
			     const uint32_t *ops, uint32_t n, uint32_t shortest, uint32_t *sid)
{
	const struct kg_model *m = a->m;
	uint32_t k = rhythm_in_issue_order(a, st, ops, n, shortest, sid);
	if (!k || steps_compute(m, ops, n, sid, k))
		return k;
	uint32_t *kernels = malloc(((size_t)n + 1) * sizeof(*kernels));
	uint32_t *at = malloc(((size_t)n + 1) * sizeof(*at));
	uint32_t *ksid = malloc(((size_t)n + 1) * sizeof(*ksid)), nk = 0, kk = 0;
	for (uint32_t i = 0; kernels && at && ksid && i < n; i++)
		if (m->ops[ops[i]].kind == KG_OP_KERNEL)
			at[nk] = i, kernels[nk++] = ops[i];
	if (nk && at && ksid)
		kk = rhythm_in_issue_order(a, st, kernels, nk, shortest, ksid);
	for (uint32_t i = 0; i < n; i++)
		sid[i] = KG_NONE;
	for (uint32_t j = 0; kk && j < nk; j++)
		sid[at[j]] = ksid[j];
	k = kk;
	free(kernels);
	free(at);
	free(ksid);
	return k;
}

/* The steps of the rhythm that are the program's (rhythm_within_one_step): when the
 * rhythm's steps shared a CUDA graph's launch, the rhythm again, of steps that hold the
 * graph at least (Flux's four denoising steps, a graph replay of 1,566 kernels each, whose
 * 228 blocks repeat inside); none when its steps are still parts of one. */
static uint32_t rhythm_steps_of_program(const struct kg_analysis *a, struct kg_steps *st,
					const uint32_t *ops, uint32_t n, uint32_t *sid)
{
	uint32_t graph_ops = 0, k = rhythm_steps(a, st, ops, n, 0, sid);
	if (k && rhythm_within_one_step(a, ops, n, sid, k, &graph_ops)) {
		k = graph_ops ? rhythm_steps(a, st, ops, n, graph_ops, sid) : 0;
		if (k && rhythm_within_one_step(a, ops, n, sid, k, &graph_ops))
			k = 0;
	}
	if (!k)
		st->period = 0;
	return k;
}

/* ------------------------------------------------------------------ the steps' figures */

/* A wait of the host of `wait` ns before launching o at lt, in step st: kept when it is the
 * step's longest (its host_gap, and what and who launched after it). */
static void note_wait(const struct kg_model *m, struct kg_step *st, const struct kg_op *o,
		      int64_t lt, int64_t wait)
{
	if (wait <= st->host_gap)
		return;
	st->host_gap = wait, st->gap_name = o->name, st->gap_end = lt;
	st->gap_thread = model_op_launch_thread(m, (uint32_t)(o - m->ops));
}

/* Each step's figures from its ops (ops[i] in step sid[i]), in one pass in start order. */
static void step_figures(const struct kg_model *m, struct kg_steps *steps, const uint32_t *ops,
			 uint32_t n, const uint32_t *sid, int64_t *max_launch)
{
	int rhythm = steps->source == KG_STEPS_RHYTHM;
	for (uint32_t s = 0; s < steps->n; s++) {
		struct kg_step *st = &steps->v[s];
		*st = (struct kg_step){.host_start = st->host_start, .host_end = st->host_end,
				       .group = st->group, .lead = st->lead,
				       .start = KG_NO_TIME, .end = KG_NO_TIME,
				       .gap_thread = KG_NONE, .gap_end = KG_NO_TIME,
				       .gap_node = KG_NONE};
		max_launch[s] = KG_NO_TIME;
	}
	int64_t *cover = max_launch + steps->n; /* where each step's busy time reaches */
	for (uint32_t i = 0; i < n; i++) {
		if (sid[i] == KG_NONE)
			continue;
		const struct kg_op *o = &m->ops[ops[i]];
		struct kg_step *st = &steps->v[sid[i]];
		int64_t lt = op_issued_or_start(m, o), *ml = &max_launch[sid[i]], *cv = &cover[sid[i]];
		if (st->start == KG_NO_TIME) {
			st->start = o->start, *cv = o->start;
			if (rhythm)
				st->host_start = lt, st->host_end = kg_time_add(lt, 1);
		}
		if (o->end > st->end)
			st->end = o->end;
		st->busy = kg_time_add(st->busy, kg_time_span(o->end, o->start > *cv ? o->start : *cv));
		if (o->end > *cv)
			*cv = o->end;
		if (*ml != KG_NO_TIME)
			note_wait(m, st, o, lt, kg_time_diff(lt, *ml));
		if (*ml == KG_NO_TIME || lt > *ml)
			*ml = lt;
		if (rhythm && lt < st->host_start)
			st->host_start = lt;
		if (rhythm && lt >= st->host_end)
			st->host_end = kg_time_add(lt, 1);
		st->ops++;
		st->kernels += o->kind == KG_OP_KERNEL;
		st->copies += o->kind == KG_OP_MEMCPY;
		st->memsets += o->kind == KG_OP_MEMSET;
	}
}

/* The GPU's busy time [from, to) into the steps whose time it falls in; *at: the first
 * step whose time may still end after from (the calls come in time order). */
static void busy_into_steps(struct kg_steps *st, uint32_t *at, int64_t from, int64_t to)
{
	while (*at < st->n && kg_time_add(st->v[*at].start, st->v[*at].time) <= from)
		(*at)++;
	for (uint32_t s = *at; s < st->n && st->v[s].start < to; s++) {
		int64_t b = st->v[s].start, e = kg_time_add(b, st->v[s].time);
		int64_t x = from > b ? from : b, y = to < e ? to : e;
		if (y > x)
			st->v[s].busy = kg_time_add(st->v[s].busy, kg_time_span(y, x));
	}
}

/* Each step's GPU busy time: the GPU's, whatever step launched the work, within the
 * step's time [start, start + time). A step's own ops are no measure of it: on several
 * streams a step's last copy may run while the next step's kernels start (and the next
 * step's first copy inside this one's time), and the union of its own would exceed its
 * time (the GPU busy 169 % of a step) while calling idle what the neighbours kept busy.
 * ops[0..n): the GPU's, in start order. */
static void busy_in_time(const struct kg_model *m, struct kg_steps *st, const uint32_t *ops,
			 uint32_t n)
{
	uint32_t at = 0;
	int64_t from = KG_NO_TIME, to = KG_NO_TIME;
	for (uint32_t s = 0; s < st->n; s++)
		st->v[s].busy = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_op *o = &m->ops[ops[i]];
		if (o->start == KG_NO_TIME || o->end == KG_NO_TIME || o->end < o->start)
			continue;
		if (from != KG_NO_TIME && o->start <= to) {
			to = o->end > to ? o->end : to;
			continue;
		}
		if (from != KG_NO_TIME)
			busy_into_steps(st, &at, from, to);
		from = o->start, to = o->end;
	}
	if (from != KG_NO_TIME)
		busy_into_steps(st, &at, from, to);
}

/* Step s and the next are of one group (or there are none): the next one's start ends s. */
static int same_group(const struct kg_steps *st, uint32_t s)
{
	return s + 1 < st->n && (!st->n_groups || st->v[s].group == st->v[s + 1].group);
}

/* The host's wait after a step's last launch until the next step's first: part of the
 * step's time (to the next step's start), and where a loop's host work between two
 * iterations goes (a decoded token's sampling, a gc.collect() between steps). When it is
 * the longest, it is the step's host_gap. max_launch: each step's last launch time. */
static void gaps_between(const struct kg_model *m, struct kg_steps *st, const uint32_t *ops,
			 uint32_t n, const uint32_t *sid, const int64_t *max_launch)
{
	uint32_t prev = KG_NONE; /* the step of the op before, in start order */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = sid[i];
		if (s == KG_NONE || s == prev)
			continue;
		prev = s;
		if (!s || max_launch[s - 1] == KG_NO_TIME || !same_group(st, s - 1))
			continue; /* what runs between two groups is no step's */
		const struct kg_op *o = &m->ops[ops[i]]; /* the first of step s */
		int64_t lt = op_issued_or_start(m, o);
		note_wait(m, &st->v[s - 1], o, lt, kg_time_diff(lt, max_launch[s - 1]));
	}
}

/* A step of the rhythm runs to the next one's start: the last of a group holds what runs
 * between two groups (validation, a request's end), which is no step's. Its ops past the
 * period: out of it. Whether any were. */
static int trim_group_ends(const struct kg_steps *st, uint32_t *sid, uint32_t n)
{
	uint32_t in = 0, trimmed = 0, prev = KG_NONE;
	for (uint32_t i = 0; st->n_groups && st->source == KG_STEPS_RHYTHM && i < n; i++) {
		uint32_t s = sid[i];
		if (s == KG_NONE)
			continue;
		in = s == prev ? in + 1 : 1;
		prev = s;
		if (in > st->period && s + 1 < st->n && st->v[s].group != st->v[s + 1].group) {
			sid[i] = KG_NONE;
			trimmed = 1;
		}
	}
	return trimmed;
}

/* Drops the steps that launched nothing; renumbers sid and each step's last launch time
 * (max_launch). 0 or -ENOMEM. */
static int drop_empty(struct kg_steps *st, uint32_t *sid, uint32_t n, int64_t *max_launch)
{
	uint32_t *to = malloc((size_t)st->n * sizeof(*to)), k = 0;
	if (!to)
		return -ENOMEM;
	for (uint32_t s = 0; s < st->n; s++) {
		to[s] = st->v[s].ops ? k : KG_NONE;
		if (st->v[s].ops) {
			max_launch[k] = max_launch[s];
			st->v[k++] = st->v[s];
		}
	}
	for (uint32_t i = 0; i < n; i++)
		if (sid[i] != KG_NONE)
			sid[i] = to[sid[i]];
	st->n = k;
	free(to);
	return 0;
}

static int64_t median_of(int64_t *v, uint32_t n)
{
	return select_kth(v, n, array_pct_rank(n, 0.5));
}

/* The steady steps v[first .. first + n) and their figures: percentiles of their times, the
 * median step, their span on the GPU. v: room for n times. */
static void steady_figures(struct kg_steps *st, uint32_t first, uint32_t n, int64_t *v)
{
	st->first_steady = first;
	st->n_steady = n;
	st->steady_begin = st->v[first].start;
	st->steady_end = st->v[first + n - 1].end;
	st->warmup_time = kg_time_span(st->v[first].start, st->v[0].start);
	for (uint32_t k = 0; k < n; k++)
		v[k] = st->v[first + k].time;
	st->p50 = select_kth(v, n, array_pct_rank(n, 0.5));
	st->p90 = select_kth(v, n, array_pct_rank(n, 0.9));
	st->p99 = select_kth(v, n, array_pct_rank(n, 0.99));
	st->max = select_kth(v, n, n - 1);
	st->median_step = first;
	for (uint32_t k = first; k < first + n; k++)
		if (st->v[k].time == st->p50) {
			st->median_step = k;
			break;
		}
}

/* Step times, warm-up, the steady steps and their percentiles. */
static int steady_steps(struct kg_steps *st)
{
	int64_t *v = malloc(((size_t)st->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t s = 0; s < st->n; s++) {
		struct kg_step *x = &st->v[s];
		x->time = same_group(st, s) ? kg_time_span(st->v[s + 1].start, x->start)
					    : kg_time_span(x->end, x->start);
		v[s] = x->time;
	}
	int64_t med = median_of(v, st->n);
	for (uint32_t s = 0; s < st->n; s++)
		v[s] = st->v[s].ops;
	int64_t med_ops = median_of(v, st->n);
	uint32_t s = 0, first_group = 0; /* warm-up is of the first group of steps */
	while (first_group < st->n && st->v[first_group].group == st->v[0].group)
		first_group++;
	while (s < first_group / 2 && ((int64_t)st->v[s].ops != med_ops ||
				 (double)st->v[s].time > WARMUP_RATIO * (double)med))
		st->v[s++].warmup = 1;
	steady_figures(st, s, st->n - s, v);
	step_groups_leads(st);
	free(v);
	return 0;
}

/* The host's synchronisations begun in each step (from its host start to the next's), of
 * the process that launched the steps' work (KG_NONE: any). */
static void step_syncs(const struct kg_model *m, struct kg_steps *st, uint32_t process)
{
	int64_t *hs = malloc((size_t)st->n * sizeof(*hs));
	for (uint32_t s = 0; hs && s < st->n; s++) {
		hs[s] = st->v[s].host_start;
		if (s && hs[s] < hs[s - 1])
			goto out; /* not in time order on the host: no place for them */
	}
	for (uint32_t i = 0; hs && i < m->n_syncs; i++) {
		if (process != KG_NONE && m->syncs[i].process != process)
			continue;
		int64_t t = m->syncs[i].start;
		uint32_t lo = starting_by(hs, 1, st->n, t);
		if (lo && (lo < st->n || t < st->v[lo - 1].end))
			st->v[lo - 1].syncs++;
	}
out:
	free(hs);
}

/* The slowest op of each step against the median step's op at the same place, when both
 * have as many ops (the same sequence of launches): the "slower kernel" of an outlier. */
static void step_slow_ops(const struct kg_model *m, struct kg_steps *st, const uint32_t *ops,
			  uint32_t n, const uint32_t *sid)
{
	uint32_t *first = malloc(((size_t)st->n + 1) * sizeof(*first));
	if (!first)
		return;
	for (uint32_t s = 0; s < st->n; s++)
		first[s] = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (sid[i] != KG_NONE && first[sid[i]] == UINT32_MAX)
			first[sid[i]] = i;
	const struct kg_step *med = &st->v[st->median_step];
	uint32_t mf = first[st->median_step];
	for (uint32_t s = 0; s < st->n && st->source == KG_STEPS_RHYTHM; s++) {
		struct kg_step *x = &st->v[s];
		if (x->ops != med->ops || s == st->median_step || first[s] + x->ops > n)
			continue;
		for (uint32_t r = 0; r < x->ops; r++) {
			const struct kg_op *o = &m->ops[ops[first[s] + r]], *mo = &m->ops[ops[mf + r]];
			int64_t by = kg_time_diff(kg_time_span(o->end, o->start),
						  kg_time_span(mo->end, mo->start));
			if (by > x->slow_by)
				x->slow_by = by, x->slow_name = o->name;
		}
	}
	free(first);
}

/* A trace cut to its steady steps has neither start-up nor wind-down: every GPU's gaps
 * steady, whatever the one-gap heuristic made of them (a graph capture stays one). */
static void steady_gaps(struct kg_analysis *a)
{
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		struct kg_gpu_metrics *gm = &a->gpus[g];
		for (uint32_t i = 0; i < gm->n_gaps; i++)
			if (gm->gaps[i].place != KG_GAP_CAPTURE)
				gm->gaps[i].place = KG_GAP_STEADY;
		gaps_tally(gm);
	}
}

/* --steps N-M: the user's steps are the steady ones, whatever warm-up was found before
 * them. 0, -ERANGE when they are not steps of the run, -ENOMEM. */
static int chosen_steps(struct kg_steps *st)
{
	if (!st->chosen_from)
		return 0;
	if (st->chosen_from > st->chosen_to || st->chosen_to > st->n)
		return -ERANGE;
	uint32_t n = st->chosen_to - st->chosen_from + 1;
	int64_t *v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	steady_figures(st, st->chosen_from - 1, n, v);
	step_groups_leads(st);
	free(v);
	st->whole = 0;
	st->applied = 1;
	return 0;
}

/* Each step's idle time by cause: the gaps of its GPU (kg_gpu_metrics.gaps, those the
 * GPU summary counts) that began in it, from its GPU start to the next step's. */
static void step_idle(const struct kg_analysis *a, struct kg_steps *st)
{
	for (uint32_t s = 0; s < st->n; s++)
		memset(st->v[s].idle_by_cause, 0, sizeof(st->v[s].idle_by_cause));
	if (st->gpu >= a->n_gpus || !st->n)
		return;
	const struct kg_gpu_metrics *gm = &a->gpus[st->gpu];
	uint32_t s = 0;
	for (uint32_t i = 0; i < gm->n_gaps; i++) { /* gaps and steps in time order */
		const struct kg_gap *g = &gm->gaps[i];
		while (s + 1 < st->n && st->v[s + 1].start <= g->start)
			s++;
		if (g->start < st->v[s].start || (!same_group(st, s) && g->start >= st->v[s].end))
			continue; /* after the run's last step, or between two groups */
		for (int c = 0; c < KG_GAP_CAUSES; c++)
			st->v[s].idle_by_cause[c] = kg_time_add(st->v[s].idle_by_cause[c],
								gap_part(g, (enum kg_gap_cause)c));
	}
}

/* None found on GPU g (index into kg_analysis.gpus). */
static void no_steps(const struct kg_analysis *a, uint32_t g, struct kg_steps *st)
{
	*st = (struct kg_steps){.steady_begin = KG_NO_TIME, .steady_end = KG_NO_TIME, .gpu = g,
				.trace_begin = a->m->begin, .trace_end = a->m->end,
				.startup_cause = KG_HOST_CAUSE_COUNT,
				.warmup_cause = KG_HOST_CAUSE_COUNT};
}

/* The steps of GPU g into st: found (annotations, else the rhythm), measured, and their
 * warm-up and steady steps judged. None when the GPU's work has no steps. 0 or -ENOMEM. */
static int steps_on_gpu(const struct kg_analysis *a, uint32_t g, struct kg_steps *st)
{
	no_steps(a, g, st);
	const struct kg_model *m = a->m;
	const uint32_t *ops = a->gpus[g].ops;
	uint32_t n = a->gpus[g].n_ops;
	uint32_t *sid = malloc(((size_t)n + 1) * sizeof(*sid));
	int64_t *hs = NULL, *scratch = NULL;
	int rc = -ENOMEM;
	if (!sid)
		return rc;
	uint32_t process = launching_process(m, ops, n);
	uint32_t k = a->cfg.steps_rhythm ? 0 : annotated_steps(a, st, ops, n, process, sid, &hs);
	st->source = k ? KG_STEPS_ANNOTATION : KG_STEPS_NONE;
	if (!k)
		k = rhythm_steps_of_program(a, st, ops, n, sid);
	if (k && st->source == KG_STEPS_NONE)
		st->source = KG_STEPS_RHYTHM;
	if (!k) {
		st->name = 0;
		rc = 0;
		goto out;
	}
	st->v = malloc((size_t)k * sizeof(*st->v));
	scratch = malloc((size_t)k * 2 * sizeof(*scratch));
	if (!st->v || !scratch)
		goto out;
	st->n = k;
	for (uint32_t s = 0; s < k; s++) {
		st->v[s].host_start = hs ? hs[2 * s] : KG_NO_TIME;
		st->v[s].host_end = hs ? hs[2 * s + 1] : KG_NO_TIME;
	}
	step_figures(m, st, ops, n, sid, scratch);
	if (drop_empty(st, sid, n, scratch) < 0)
		goto out;
	if (st->n < (st->source == KG_STEPS_ANNOTATION ? 2u : MIN_STEPS)) {
		free(st->v);
		no_steps(a, g, st);
		rc = 0;
		goto out;
	}
	if ((rc = step_groups_run(a, st, ops, n, sid)) < 0)
		goto out;
	if (trim_group_ends(st, sid, n))
		step_figures(m, st, ops, n, sid, scratch);
	gaps_between(m, st, ops, n, sid, scratch);
	if ((rc = steady_steps(st)) < 0)
		goto out;
	busy_in_time(m, st, ops, n); /* in the times steady_steps found */
	step_syncs(m, st, process);
	step_slow_ops(m, st, ops, n, sid);
	step_idle(a, st);
	st->whole = a->cfg.whole;
	rc = 0;
out:
	free(sid);
	free(hs);
	free(scratch);
	return rc;
}

/* kg_analysis.gpu_steps with no steps on any GPU yet; none with one GPU. 0 or -ENOMEM. */
static int no_gpu_steps(struct kg_analysis *a)
{
	if (a->n_gpus < 2)
		return 0;
	a->gpu_steps = calloc(a->n_gpus, sizeof(*a->gpu_steps));
	if (!a->gpu_steps)
		return -ENOMEM;
	for (uint32_t g = 0; g < a->n_gpus; g++)
		no_steps(a, g, &a->gpu_steps[g]);
	return 0;
}

/* The steps of every GPU but the one whose steps make the steady window (kg_analysis.steps):
 * their own, found in what this analysis reads (a report's steady window: the steps in it). */
static int other_gpus_steps(struct kg_analysis *a)
{
	int rc = no_gpu_steps(a);
	for (uint32_t g = 0; !rc && a->gpu_steps && g < a->n_gpus; g++)
		if (g != a->steps.gpu && a->gpus[g].n_ops)
			rc = steps_on_gpu(a, g, &a->gpu_steps[g]);
	return rc;
}

/* Steps found before (given) into st, for the analysis of the window they were given to:
 * a copy, each step's idle time by cause from this analysis' gaps. 0 or -ENOMEM. */
static int adopt_one(const struct kg_analysis *a, const struct kg_steps *given,
		     struct kg_steps *st)
{
	*st = *given;
	st->v = malloc(((size_t)given->n + 1) * sizeof(*st->v));
	if (!st->v)
		return -ENOMEM;
	if (given->n) /* none given: v may be NULL */
		memcpy(st->v, given->v, (size_t)given->n * sizeof(*st->v));
	for (uint32_t s = 0; s < given->n; s++)
		st->v[s].gap_node = KG_NONE; /* the other analysis' host tree: host_run's */
	step_idle(a, st);
	return 0;
}

/* Another GPU's steps of the whole run, in the steady window: the steps that start in it
 * are its steady ones (the window is the busiest GPU's steady steps). 0 or -ENOMEM. */
static int adopt_other(const struct kg_analysis *a, const struct kg_steps *given,
		       struct kg_steps *st)
{
	if (!given->n)
		return 0;
	int rc = adopt_one(a, given, st);
	if (rc)
		return rc;
	uint32_t first = given->first_steady, n = 0; /* its warm-up stays warm-up */
	while (first < st->n && st->v[first].start < a->m->begin)
		first++;
	while (first + n < st->n && st->v[first + n].start < a->m->end)
		n++;
	if (!n) { /* none in the window */
		uint32_t g = st->gpu;
		steps_free(st);
		no_steps(a, g, st);
		return 0;
	}
	int64_t *v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	steady_figures(st, first, n, v);
	free(v);
	return 0;
}

/* The steps of the whole run, given to the analysis of its steady steps (report): copies,
 * the gaps placed by the busiest GPU's. 0 or -ENOMEM. */
static int adopt_steps(struct kg_analysis *a)
{
	const struct kg_config *c = &a->cfg;
	int rc = adopt_one(a, c->steps_given, &a->steps);
	if (rc)
		return rc;
	steady_gaps(a);
	if ((rc = chosen_steps(&a->steps)) || !c->gpu_steps_given || (rc = no_gpu_steps(a)))
		return rc;
	for (uint32_t g = 0; !rc && a->gpu_steps && g < a->n_gpus; g++)
		if (g < c->n_gpu_steps_given && g != a->steps.gpu)
			rc = adopt_other(a, &c->gpu_steps_given[g], &a->gpu_steps[g]);
	return rc;
}

/* The host cause that took most of [b, e) on thread t (cause: host_span_causes'), into
 * *top and *top_ns; KG_HOST_CAUSE_COUNT when no span of t lies there. */
static void host_while(const struct kg_model *m, const uint8_t *cause, uint32_t t, int64_t b,
		       int64_t e, uint8_t *top, int64_t *top_ns)
{
	int64_t ns[KG_HOST_CAUSE_COUNT] = {0};
	for (uint32_t i = 0; b != KG_NO_TIME && e != KG_NO_TIME && i < m->n_host_spans; i++) {
		const struct kg_host_span *h = &m->host_spans[i];
		int64_t x = h->start > b ? h->start : b, y = h->end < e ? h->end : e;
		if (h->thread == t && y > x && cause[i] < KG_HOST_CAUSE_COUNT)
			ns[cause[i]] = kg_time_add(ns[cause[i]], kg_time_span(y, x));
	}
	*top = KG_HOST_CAUSE_COUNT, *top_ns = 0;
	for (unsigned c = 0; c < KG_HOST_CAUSE_COUNT; c++)
		if (ns[c] > *top_ns)
			*top = (uint8_t)c, *top_ns = ns[c];
}

/* What the launching thread (that of a steady step's longest wait) did during the start-up
 * and the warm-up the steady steps leave out: "steps 1–2: warm-up, 1.02 s (0.98 s of JIT
 * compilation on the host)". Found in the whole run: the analysis of the steady steps has
 * no host spans outside them. */
static void left_out_host(const struct kg_analysis *a, struct kg_steps *st)
{
	const struct kg_model *m = a->m;
	st->startup_cause = st->warmup_cause = KG_HOST_CAUSE_COUNT;
	uint32_t t = KG_NONE;
	for (uint32_t s = st->first_steady; t == KG_NONE && s < st->n; s++)
		t = st->v[s].gap_thread;
	if (!st->applied || t >= m->n_threads || !m->n_host_spans)
		return;
	uint8_t *cause = host_span_causes(m);
	if (!cause)
		return; /* out of memory: nothing said of it */
	const struct kg_step *first = &st->v[0], *steady = &st->v[st->first_steady];
	int64_t first_t = first->host_start != KG_NO_TIME ? first->host_start : first->start;
	int64_t steady_t = steady->host_start != KG_NO_TIME ? steady->host_start : steady->start;
	host_while(m, cause, t, st->trace_begin, first_t, &st->startup_cause, &st->startup_cause_ns);
	if (st->first_steady)
		host_while(m, cause, t, first_t, steady_t, &st->warmup_cause, &st->warmup_cause_ns);
	free(cause);
}

/* Steady steps a short loop needs before its warm-up is cut by its share of their time:
 * the median step of fewer says little of which steps are warm-up. */
#define SHORT_LOOP_STEADY 10

/* A short run whose few first steps took long (a lazy import, a compilation): what the
 * steady steps leave out is left_out_pct of their time or more, their warm-up is at most
 * a tenth of the steps found (or 2), and they are SHORT_LOOP_STEADY or more. A profiler's
 * trace of one training step, whose rhythm is its layers', has a long "warm-up" of many
 * steps instead (HTA's diff_control_step1009: 13 of 29): judged whole, as the step it is. */
static int short_loop_warmup(const struct kg_analysis *a, const struct kg_steps *st,
			     int64_t left_out)
{
	int64_t steady = kg_time_span(st->steady_end, st->steady_begin);
	uint32_t few = st->n / 10 > 2 ? st->n / 10 : 2;
	return steady > 0 && st->first_steady <= few && st->n_steady >= SHORT_LOOP_STEADY &&
	       (double)left_out >= a->cfg.left_out_pct / 100.0 * (double)steady;
}

/* The steps of the GPU with the most operations: the steady window (kg_steps.applied). */
static int busiest_gpu_steps(struct kg_analysis *a)
{
	struct kg_steps *st = &a->steps;
	uint32_t busiest = KG_NONE;
	for (uint32_t g = 0; g < a->n_gpus; g++)
		if (a->gpus[g].n_ops && (busiest == KG_NONE || a->gpus[g].n_ops > a->gpus[busiest].n_ops))
			busiest = g;
	if (busiest == KG_NONE) {
		no_steps(a, KG_NONE, st);
		return 0;
	}
	int rc = steps_on_gpu(a, busiest, st);
	if (rc || !st->n)
		return rc;
	int64_t left_out = kg_time_add(kg_time_span(st->steady_begin, st->trace_begin),
				       kg_time_span(st->trace_end, st->steady_end));
	st->applied = !st->whole &&
		      (left_out >= a->cfg.long_gap_ns || short_loop_warmup(a, st, left_out));
	left_out_host(a, st);
	return 0;
}

int steps_run(struct kg_analysis *a)
{
	if (a->cfg.steps_given)
		return adopt_steps(a);
	int rc = busiest_gpu_steps(a);
	return rc ? rc : other_gpus_steps(a);
}

const struct kg_steps *steps_of_gpu(const struct kg_analysis *a, uint32_t g)
{
	if (g == a->steps.gpu)
		return a->steps.n ? &a->steps : NULL;
	if (!a->gpu_steps || g >= a->n_gpus)
		return NULL;
	return a->gpu_steps[g].n ? &a->gpu_steps[g] : NULL;
}

/* ------------------------------------------------------------------ findings by step */

/* A finding is of a few steps when the fewest steps that hold FEW_STEPS_GAIN of its gain
 * are at most FEW_STEPS_SHARE of the steady steps: a sync every 10 steps, a slow step
 * every 100; not a problem every step has a little of. */
#define FEW_STEPS_SHARE 0.25
#define FEW_STEPS_GAIN 0.8
#define FEW_STEPS_LIKE 0.25 /* a step with this share of the largest step's part is one */

/* The steady step whose GPU time holds t (steps in time order), KG_NONE none. */
static uint32_t steady_step_at(const struct kg_steps *st, int64_t t)
{
	uint32_t lo = st->first_steady, hi = st->first_steady + st->n_steady;
	while (lo < hi) { /* the first step that starts after t */
		uint32_t mid = lo + (hi - lo) / 2;
		if (st->v[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == st->first_steady)
		return KG_NONE;
	uint32_t s = lo - 1;
	int64_t end = s + 1 < st->n ? st->v[s + 1].start : st->v[s].end;
	return t < end ? s : KG_NONE;
}

struct step_ns {
	uint32_t step;
	double ns;
};

static int by_ns_desc(const void *pa, const void *pb)
{
	const struct step_ns *x = pa, *y = pb;
	return (x->ns < y->ns) - (x->ns > y->ns);
}

static int by_step(const void *pa, const void *pb)
{
	const struct step_ns *x = pa, *y = pb;
	return (x->step > y->step) - (x->step < y->step);
}

/* Where a part of the gain lies: an idle rule's part is the gap before the op it blames
 * (the GPU went idle in the step before that op's, often), any other the op itself. */
static int64_t blame_time(const struct kg_analysis *a, const struct kg_finding *f,
			  const struct kg_blame *x)
{
	int64_t t = a->m->ops[x->op].start;
	return host_idle_rule(f->rule) ? kg_time_add(t, -(int64_t)x->ns) : t;
}

/* The steps of the GPU a finding is about (model.gpus index f_gpu; KG_NONE: the busiest
 * GPU's), NULL none. */
static const struct kg_steps *steps_of_finding(const struct kg_analysis *a, uint32_t f_gpu)
{
	if (f_gpu == KG_NONE)
		return a->steps.n ? &a->steps : NULL;
	for (uint32_t g = 0; g < a->n_gpus; g++)
		if (a->gpus[g].gpu == f_gpu)
			return steps_of_gpu(a, g);
	return NULL;
}

static void finding_steps(struct kg_analysis *a, struct kg_finding *f, struct step_ns *v)
{
	const struct kg_steps *st = steps_of_finding(a, f->gpu);
	double total = 0;
	if (!st || !st->n_steady || st->whole)
		return;
	uint32_t n = st->n_steady;
	for (uint32_t k = 0; k < n; k++)
		v[k] = (struct step_ns){st->first_steady + k, 0};
	for (uint32_t b = f->first_blame; b < f->first_blame + f->n_blame && b < a->n_blame; b++) {
		const struct kg_blame *x = &a->blame[b];
		if (x->op >= a->m->n_ops || !(x->ns > 0))
			continue;
		total += x->ns;
		uint32_t s = steady_step_at(st, blame_time(a, f, x));
		if (s != KG_NONE)
			v[s - st->first_steady].ns += x->ns;
	}
	if (!(total > 0))
		return;
	qsort(v, n, sizeof(*v), by_ns_desc);
	double held = 0;
	uint32_t few = 0;
	while (few < n && v[few].ns > 0 && held < FEW_STEPS_GAIN * total)
		held += v[few++].ns;
	if (held < FEW_STEPS_GAIN * total || few > FEW_STEPS_SHARE * n)
		return;
	/* ... and every step like them: the fewest holding 80 % leave out the least of five
	 * equal slow steps */
	while (few < n && v[few].ns >= FEW_STEPS_LIKE * v[0].ns)
		few++;
	qsort(v, few, sizeof(*v), by_step);
	f->n_in_steps = few;
	f->of_steps = n;
	for (uint32_t k = 0; k < few && k < KG_FINDING_STEPS; k++)
		f->in_steps[k] = v[k].step;
}

int steps_of_findings(struct kg_analysis *a)
{
	uint32_t most = a->steps.n_steady; /* room for the steady steps of any GPU */
	for (uint32_t g = 0; a->gpu_steps && g < a->n_gpus; g++)
		if (a->gpu_steps[g].n_steady > most)
			most = a->gpu_steps[g].n_steady;
	if (!most)
		return 0;
	struct step_ns *v = malloc(most * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->findings.n; i++)
		finding_steps(a, &a->findings.v[i], v);
	free(v);
	return 0;
}

void steps_free(struct kg_steps *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}
