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
 * statistically, as before. */
#include <errno.h>
#include <stdlib.h>

#include "model/model.h"
#include "util/timemath.h"

_Static_assert(sizeof(struct kg_host_span) == 32, "struct kg_host_span grew: a trace holds millions");

/* One moment or stretch the thread is known to have been in a CUDA call. */
struct known {
	uint32_t thread;
	int64_t from, to;
};

static int by_thread_then_from(const void *a, const void *b)
{
	const struct known *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

static int64_t call_end(const struct kg_api *a)
{
	return a->end == KG_NO_TIME || a->end < a->start ? a->start : a->end;
}

/* The threads' known CUDA activity, by (thread, from), each stretch's `to` raised to the
 * latest end so far in its thread (a driver call inside a runtime call ends first).
 * *n 0 when there is none; -ENOMEM. */
static int known_activity(const struct kg_model *m, struct known **out, uint32_t *n)
{
	uint32_t cap = m->n_apis, k = 0;
	for (uint32_t i = 0; i < m->n_ops; i++)
		cap += (m->ops[i].flags & KG_OPF_ISSUED_QUEUED) != 0;
	*out = NULL;
	*n = 0;
	if (!cap)
		return 0;
	struct known *v = malloc((size_t)cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_apis; i++) {
		const struct kg_api *a = &m->apis[i];
		if (a->thread < m->n_threads && a->start != KG_NO_TIME)
			v[k++] = (struct known){a->thread, a->start, call_end(a)};
	}
	/* a launch whose call was not sampled: its thread was in the call from when it was
	 * issued (op_issued) to when the driver queued the kernel */
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		uint32_t t = m->streams[o->stream].launch_thread;
		if ((o->flags & KG_OPF_ISSUED_QUEUED) && o->queued != KG_NO_TIME && t < m->n_threads)
			v[k++] = (struct known){t, op_issued(m, o), o->queued};
	}
	qsort(v, k, sizeof(*v), by_thread_then_from);
	for (uint32_t i = 1; i < k; i++)
		if (v[i].thread == v[i - 1].thread && v[i].to < v[i - 1].to)
			v[i].to = v[i - 1].to;
	*out = v;
	*n = k;
	return 0;
}

/* The last of v[lo, hi) (one thread's) that starts at t or before; lo - 1 when none. */
static int64_t last_from_by(const struct known *v, int64_t lo, int64_t hi, int64_t t)
{
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (v[mid].from <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* The sampling period of thread t's process, ns; 0 when its rate is not known. */
static int64_t period_of(const struct kg_model *m, uint32_t t)
{
	if (t >= m->n_threads)
		return 0;
	for (uint32_t i = 0; i < m->n_host_samplings; i++)
		if (m->host_samplings[i].process == m->threads[t].process && m->host_samplings[i].hz)
			return 1000000000 / m->host_samplings[i].hz;
	return 0;
}

static int is_sample(const struct kg_host_span *x)
{
	return x->source == KG_HOST_FROM_SAMPLES && !(x->flags & KG_HOST_CPU_TIME);
}

/* x carried forward to `to`, at most a period past its sample's time (its end). */
static void carry(struct kg_host_span *x, int64_t to, int64_t period)
{
	int64_t until = x->end + period < to ? x->end + period : to;
	if (until > x->end) {
		x->carried = (uint32_t)(until - x->end);
		x->end = until;
	}
}

/* One thread's sample spans, h[0, n) by end (a sample's time is its span's end), against
 * its known activity v[0, nv); period: its sampling period. */
static void fit_thread(struct kg_host_span *h, uint32_t n, const struct known *v, uint32_t nv,
		       int64_t period)
{
	int prev_free = 0; /* h[i - 1] is a sample that no long silence holds */
	for (uint32_t i = 0; i < n; i++) {
		struct kg_host_span *x = &h[i];
		int free = is_sample(x);
		int64_t t = x->end;
		int64_t j = free ? last_from_by(v, 0, nv, t) : -1;
		int64_t silence_from = j >= 0 ? v[j].to : INT64_MIN;
		int64_t silence_to = j + 1 < nv ? v[j + 1].from : INT64_MAX;
		/* taken inside a call (the call claims its own time), or in a silence shorter
		 * than a period (sampled statistically): as it is */
		if (!free || silence_from >= t ||
		    (silence_from != INT64_MIN && silence_to != INT64_MAX &&
		     kg_time_diff(silence_to, silence_from) < period)) {
			prev_free = free;
			continue;
		}
		if (silence_from > x->start) {
			x->start = silence_from;
			/* the sample before, among the calls, stands for them up to the silence */
			if (prev_free)
				carry(&h[i - 1], silence_from, period);
		}
		/* the silence's last sample stands for the rest of it, up to a period */
		if ((i + 1 == n || h[i + 1].end > silence_to) && silence_to != INT64_MAX)
			carry(x, silence_to, period);
		prev_free = 0;
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
	struct known *v;
	uint32_t nv;
	if (known_activity(m, &v, &nv) < 0)
		return -ENOMEM;
	m->host_fitted = 1;
	if (!nv)
		return 0;
	model_sort_host_spans(m, 0);
	uint32_t k = 0;
	for (uint32_t i = 0, j; i < m->n_host_spans; i = j) {
		uint32_t t = m->host_spans[i].thread;
		for (j = i; j < m->n_host_spans && m->host_spans[j].thread == t; j++)
			;
		while (k < nv && v[k].thread < t)
			k++;
		uint32_t e = k;
		while (e < nv && v[e].thread == t)
			e++;
		int64_t period = period_of(m, t);
		if (e > k && period > 0)
			fit_thread(m->host_spans + i, j - i, v + k, e - k, period);
	}
	free(v);
	/* a span carried forward ends where the next one begins, at the latest */
	model_cut_host_spans(m, 0);
	return 0;
}
