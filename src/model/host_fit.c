/* Host samples fitted to what the thread is known to have done (model.h,
 * model_fit_host_samples).
 *
 * A sample taken at t stands for the period before it: a statistical stand-in for what the
 * thread did then, fair while the thread does the same kinds of things across a period.
 * But the trace also knows some of a thread's moments for certain: its CUDA calls, and the
 * moments the driver queued the kernels it launched while its launch calls were not
 * sampled. Between them the thread is silent. A silence at least as long as the sampling
 * period holds a sample wherever it lies, so the samples taken inside it can stand for all
 * of it, and for nothing outside it: the first one reaches back only to the silence's
 * start, the last one forward to its end (at most its own period), and the sample before
 * the silence, taken among the calls, forward to its start. Without this the sample
 * a program's exit handler took 3 ms after its last launch stood for the 7 ms of launching
 * before it (an H100 fixture: 18 % of launch-overhead's host time "in at_exit").
 * Silences shorter than a period (the host work between launches) stay sampled
 * statistically, as before, but for a sample of the thread off CPU (blocked, waiting for
 * the GIL): that is one wait, which began after the thread's last known activity and
 * lasted until its next at most, so it too stands for its silence alone. Without that the
 * main thread's samples blocked in Tensor.backward stood for the forward pass it had
 * launched just before, and the autograd thread's, idle between backward passes, for the
 * backward pass it launched (a timm and a Lightning loop on an H100: a quarter to a half
 * of launch-overhead's host time "blocked"). */
#include <errno.h>
#include <stdlib.h>

#include "model/model.h"
#include "util/timemath.h"

_Static_assert(sizeof(struct kg_host_span) == 32, "struct kg_host_span grew: a trace holds millions");

/* Between each two spans of a thread, by end (a sample's time is its span's end): the
 * latest end and the earliest start of the thread's known CUDA activity that started
 * there. Thread t's spans are spans[first[t], first[t + 1]); its gaps are gap[first[t] + t]
 * to gap[first[t + 1] + t], one more than its spans: gap k + t holds what started after
 * span k - 1's end and no later than span k's (the last, after its last span). Bucketing
 * each call by a binary search over its thread's few spans costs far less than sorting
 * a million calls. */
struct gaps {
	uint32_t *first;   /* by thread, n_threads + 1 */
	int64_t *latest_to, *earliest_from;
};

/* The gap of thread t in which `from` falls: the first of its spans that ends at from or
 * later (a call that starts at a sample's time started by then). */
static uint32_t gap_of(const struct kg_model *m, const struct gaps *g, uint32_t t, int64_t from)
{
	uint32_t lo = g->first[t], hi = g->first[t + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->host_spans[mid].end < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo + t;
}

static void note_known(const struct kg_model *m, struct gaps *g, uint32_t t, int64_t from,
		       int64_t to)
{
	if (t >= m->n_threads || g->first[t] == g->first[t + 1])
		return; /* a thread with no spans */
	uint32_t k = gap_of(m, g, t, from);
	if (to > g->latest_to[k])
		g->latest_to[k] = to;
	if (from < g->earliest_from[k])
		g->earliest_from[k] = from;
}

/* The threads' known CUDA activity, into the gaps between their spans (sorted by thread,
 * then end). -ENOMEM. */
static int known_activity(const struct kg_model *m, struct gaps *g)
{
	size_t n = (size_t)m->n_host_spans + m->n_threads + 1;
	g->first = calloc((size_t)m->n_threads + 2, sizeof(*g->first));
	g->latest_to = malloc(n * sizeof(*g->latest_to));
	g->earliest_from = malloc(n * sizeof(*g->earliest_from));
	if (!g->first || !g->latest_to || !g->earliest_from)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		g->latest_to[i] = INT64_MIN;
		g->earliest_from[i] = INT64_MAX;
	}
	for (uint32_t i = 0, t = 0; t <= m->n_threads; t++) {
		while (i < m->n_host_spans && m->host_spans[i].thread < t)
			i++;
		g->first[t] = i;
	}
	g->first[m->n_threads + 1] = g->first[m->n_threads];
	for (uint32_t i = 0; i < m->n_apis; i++) {
		const struct kg_api *a = &m->apis[i];
		if (a->start != KG_NO_TIME)
			note_known(m, g, a->thread, a->start, api_end(a));
	}
	/* a launch whose call was not sampled: its thread was in the call from when it was
	 * issued (op_issued) to when the driver queued the kernel */
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if ((o->flags & KG_OPF_ISSUED_QUEUED) && o->queued != KG_NO_TIME)
			note_known(m, g, model_op_launch_thread(m, i), op_issued(m, o), o->queued);
	}
	return 0;
}

static void gaps_free(struct gaps *g)
{
	free(g->first);
	free(g->latest_to);
	free(g->earliest_from);
}

/* The sampling period of thread t's process, ns; 0 when its rate is not known. */
static int64_t period_of(const struct kg_model *m, uint32_t t)
{
	if (t >= m->n_threads)
		return 0;
	for (uint32_t i = 0; i < m->n_host_samplings; i++)
		if (m->host_samplings[i].process == m->threads[t].process &&
		    host_period_ns(&m->host_samplings[i]))
			return host_period_ns(&m->host_samplings[i]);
	return 0;
}

static int is_sample(const struct kg_host_span *x)
{
	return x->source == KG_HOST_FROM_SAMPLES && !(x->flags & KG_HOST_CPU_TIME);
}

/* x carried forward to `to`, at most a period past its sample's time (its end). */
static void carry(struct kg_host_span *x, int64_t to, int64_t period)
{
	int64_t reach = kg_time_add(x->end, period), until = reach < to ? reach : to;
	if (until > x->end) {
		x->carried = (uint32_t)(until - x->end);
		x->end = until;
	}
}

/* One thread's spans, h[0, n) by end, against the known activity in the gaps between
 * them, to[0, n] (latest end) and from[0, n] (earliest start), which it turns into what
 * was known before each span's end and after it; period: its sampling period. */
static void fit_thread(struct kg_host_span *h, uint32_t n, int64_t *to, int64_t *from,
		       int64_t period)
{
	for (uint32_t k = 1; k <= n; k++) /* to[k]: the latest end of what started by span k */
		if (to[k - 1] > to[k])
			to[k] = to[k - 1];
	for (uint32_t k = n; k-- > 0;) /* from[k + 1]: the first start after span k */
		if (from[k + 1] < from[k])
			from[k] = from[k + 1];
	int prev_among_calls = 0; /* h[i - 1] is a sample that no long silence holds */
	for (uint32_t i = 0; i < n; i++) {
		struct kg_host_span *x = &h[i];
		int sampled = is_sample(x);
		int64_t t = x->end, silence_from = to[i], silence_to = from[i + 1];
		/* taken inside a call (the call claims its own time), or running in a silence
		 * shorter than a period (sampled statistically): as it is. A thread off CPU
		 * was in one wait, which began in the silence whatever its length */
		if (!sampled || silence_from >= t ||
		    (silence_from != INT64_MIN && silence_to != INT64_MAX &&
		     kg_time_diff(silence_to, silence_from) < period && !host_state_off_cpu(x->state))) {
			prev_among_calls = sampled;
			continue;
		}
		if (silence_from > x->start) {
			x->start = silence_from;
			/* the sample before, among the calls, stands for them up to the silence */
			if (prev_among_calls)
				carry(&h[i - 1], silence_from, period);
		}
		/* the silence's last sample stands for the rest of it, up to a period */
		if ((i + 1 == n || h[i + 1].end > silence_to) && silence_to != INT64_MAX)
			carry(x, silence_to, period);
		prev_among_calls = 0;
	}
}

/* 1 when some span is a sample of a process whose rate is known: only then is there
 * anything to fit (a profiler's host events are not samples). */
static int any_samples(const struct kg_model *m)
{
	for (uint32_t i = 0; i < m->n_host_spans; i++)
		if (is_sample(&m->host_spans[i]) && period_of(m, m->host_spans[i].thread) > 0)
			return 1;
	return 0;
}

int model_fit_host_samples(struct kg_model *m)
{
	if (m->host_fitted || !any_samples(m))
		return 0;
	model_sort_host_spans(m, 0);
	struct gaps g;
	if (known_activity(m, &g) < 0) {
		gaps_free(&g);
		return -ENOMEM;
	}
	m->host_fitted = 1;
	for (uint32_t t = 0; t < m->n_threads; t++) {
		uint32_t f = g.first[t], n = g.first[t + 1] - f;
		int64_t period = period_of(m, t);
		if (n && period > 0)
			fit_thread(m->host_spans + f, n, g.latest_to + f + t, g.earliest_from + f + t,
				   period);
	}
	gaps_free(&g);
	/* a span carried forward ends where the next one begins, at the latest */
	model_cut_host_spans(m, 0);
	return 0;
}
