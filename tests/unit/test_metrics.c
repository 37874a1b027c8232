/* The per-GPU and per-kernel figures of random models against a plain restatement of
 * what each one means (sorts and brute force). The analysis gets them in one sweep over
 * each GPU's ops and in passes over the ops in their stored order; the plain way must
 * agree exactly, with ties, overlaps, kernels of no length and kernels without a queued
 * time or a launch call. */
#include "harness.h"

#include <math.h>

#include "analysis/analysis.h"
#include "model/model.h"

#define rnd() ((uint64_t)test_random())

static const char *const kernel_names[] = {"gemm", "softmax", "ncclAllReduce", "add", "norm"};

/* One process, one GPU, a few streams; kernels, copies and memsets with random
 * overlapping times on a coarse grid (so that starts and ends repeat); most with a launch
 * call. queued: whether kernels carry queued times. */
static void build(struct kg_model *m, uint32_t n, uint32_t streams, int queued)
{
	model_init(m, "test", "");
	model_add_process(m);
	struct kg_device *d = model_add_device(m);
	d->process = 0;
	d->ordinal = 0;
	uint32_t thread = model_thread_index(m, 0, 1);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = (uint32_t)(rnd() % 100);
		int64_t start = 1000 + 10 * (int64_t)(rnd() % (n * 5));
		struct kg_op *o = model_add_op(m);
		o->kind = r < 80 ? KG_OP_KERNEL : r < 93 ? KG_OP_MEMCPY : KG_OP_MEMSET;
		o->stream = model_stream_index(m, 0, 0, 1, (int64_t)(rnd() % streams));
		o->start = start;
		o->end = start + 10 * (int64_t)(rnd() % 300); /* some of no length */
		o->name = model_string(m, o->kind == KG_OP_KERNEL ? kernel_names[rnd() % 5] : "copy");
		if (o->kind == KG_OP_KERNEL && queued && rnd() % 4)
			o->queued = start - (int64_t)(rnd() % 500);
		if (rnd() % 10 == 0)
			continue; /* no launch call */
		o->correlation = i + 1;
		struct kg_api *a = model_add_api(m);
		a->process = 0;
		a->thread = thread;
		a->correlation = i + 1;
		a->name = model_string(m, "cudaLaunchKernel");
		a->start = (o->queued != KG_NO_TIME ? o->queued : start) - (int64_t)(rnd() % 2000);
		a->end = a->start + 100;
	}
	CHECK_EQ_INT(model_finish(m), 0);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* The nearest-rank percentile of n values, by sorting them. */
static int64_t sorted_pct(int64_t *v, uint32_t n, double p)
{
	if (!n)
		return KG_NO_TIME;
	qsort(v, n, sizeof(*v), cmp_i64);
	uint32_t i = (uint32_t)(p * (n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

/* ------------------------------------------------------------------ kernel names */

static void check_name(const struct kg_model *m, const struct kg_kernel_stats *k)
{
	int64_t *dur = malloc((m->n_ops + 1) * sizeof(*dur));
	int64_t *launch = malloc((m->n_ops + 1) * sizeof(*launch));
	int64_t *queue = malloc((m->n_ops + 1) * sizeof(*queue));
	uint32_t n = 0, nl = 0, nq = 0, longest = KG_NONE;
	int64_t total = 0;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind != KG_OP_KERNEL || o->name != k->name)
			continue;
		int64_t d = o->end - o->start;
		if (longest == KG_NONE || d > m->ops[longest].end - m->ops[longest].start)
			longest = i; /* the first of the longest */
		total += d;
		dur[n++] = d;
		if (o->queued != KG_NO_TIME) {
			queue[nq++] = o->start - o->queued;
			if (o->api_start != KG_NO_TIME)
				launch[nl++] = o->queued - o->api_start;
		} else if (!m->has_queued && o->api_start != KG_NO_TIME && o->start >= o->api_start) {
			launch[nl++] = o->start - o->api_start;
		}
	}
	CHECK_EQ_INT(k->count, n);
	CHECK_EQ_INT(k->total, total);
	CHECK_EQ_INT(k->example_op, longest);
	CHECK_EQ_INT(k->p50, sorted_pct(dur, n, 0.5));
	CHECK_EQ_INT(k->p99, sorted_pct(dur, n, 0.99));
	CHECK_EQ_INT(k->min, dur[0]); /* sorted by sorted_pct */
	CHECK_EQ_INT(k->max, dur[n - 1]);
	CHECK_EQ_INT(k->launch_p50, sorted_pct(launch, nl, 0.5));
	CHECK_EQ_INT(k->launch_p99, sorted_pct(launch, nl, 0.99));
	CHECK_EQ_INT(k->queue_p50, sorted_pct(queue, nq, 0.5));
	CHECK_EQ_INT(k->queue_p99, sorted_pct(queue, nq, 0.99));
	CHECK_EQ_INT(k->launch_incl_queue, !m->has_queued);
	free(dur);
	free(launch);
	free(queue);
}

/* ------------------------------------------------------------------ one GPU */

struct span {
	int64_t start, end;
	uint32_t op;
};

static int by_start(const void *x, const void *y)
{
	const struct span *a = x, *b = y;
	if (a->start != b->start)
		return (a->start > b->start) - (a->start < b->start);
	if (a->end != b->end)
		return (a->end > b->end) - (a->end < b->end);
	return (a->op > b->op) - (a->op < b->op);
}

/* The ops of the kinds in mask, by start. */
static uint32_t spans_of(const struct kg_model *m, unsigned mask, struct span *s)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (mask & (1u << m->ops[i].kind))
			s[n++] = (struct span){m->ops[i].start, m->ops[i].end, i};
	qsort(s, n, sizeof(*s), by_start);
	return n;
}

/* Union length of the ops of mask, interval by interval; with gaps >= min_gap listed. */
static int64_t union_len(const struct kg_model *m, unsigned mask, struct span *s,
			 struct span *gaps, uint32_t *ngaps, int64_t min_gap)
{
	uint32_t n = spans_of(m, mask, s);
	int64_t total = 0, cs = 0, ce = 0;
	for (uint32_t i = 0; i <= n; i++) {
		if (i < n && i > 0 && s[i].start <= ce) {
			ce = s[i].end > ce ? s[i].end : ce;
			continue;
		}
		if (i > 0)
			total += ce - cs;
		if (i == n)
			break;
		if (i > 0 && gaps && s[i].start - ce >= min_gap)
			gaps[(*ngaps)++] = (struct span){ce, s[i].start, s[i].op};
		cs = s[i].start;
		ce = s[i].end;
	}
	return total;
}

/* Time with 1, 2, 3, 4+ kernels running: between every two consecutive start or end
 * times, the kernels running [start, end) then. */
static void concurrency(const struct kg_model *m, struct span *s, int64_t conc[4])
{
	uint32_t n = spans_of(m, 1u << KG_OP_KERNEL, s);
	int64_t *t = malloc((2 * n + 1) * sizeof(*t));
	for (uint32_t i = 0; i < n; i++) {
		t[2 * i] = s[i].start;
		t[2 * i + 1] = s[i].end > s[i].start ? s[i].end : s[i].start;
	}
	qsort(t, 2 * n, sizeof(*t), cmp_i64);
	for (uint32_t j = 0; j + 1 < 2 * n; j++) {
		if (t[j] == t[j + 1])
			continue;
		int active = 0;
		for (uint32_t i = 0; i < n && s[i].start <= t[j]; i++)
			active += s[i].end > t[j];
		if (active)
			conc[active > 4 ? 3 : active - 1] += t[j + 1] - t[j];
	}
	free(t);
}

/* Solo time, as the stream-serialization rule means it: a kernel (by start) is alone from
 * max(its start, the latest end before it) until the next kernel starts or it ends. */
static void solo_times(const struct kg_model *m, struct span *s, int64_t *solo)
{
	uint32_t n = spans_of(m, 1u << KG_OP_KERNEL, s);
	int64_t running_end = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		int64_t from = s[i].start > running_end ? s[i].start : running_end;
		int64_t to = i + 1 < n && s[i + 1].start < s[i].end ? s[i + 1].start : s[i].end;
		solo[s[i].op] = to > from ? to - from : 0;
		running_end = s[i].end > running_end ? s[i].end : running_end;
	}
}

static void check_gpu(const struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu_metrics *g = &a->gpus[0];
	const unsigned k = 1u << KG_OP_KERNEL, c = 1u << KG_OP_MEMCPY, all = 7;
	struct span *s = malloc((m->n_ops + 1) * sizeof(*s));
	struct span *gaps = malloc((m->n_ops + 1) * sizeof(*gaps));
	/* its ops, once each, by start */
	CHECK_EQ_INT(g->n_ops, m->n_ops);
	uint8_t *seen = calloc(m->n_ops + 1, 1);
	for (uint32_t i = 0; i < g->n_ops; i++) {
		CHECK(g->ops[i] < m->n_ops && !seen[g->ops[i]]);
		seen[g->ops[i]] = 1;
		if (i) {
			const struct kg_op *p = &m->ops[g->ops[i - 1]], *o = &m->ops[g->ops[i]];
			CHECK(p->start < o->start || (p->start == o->start && p->end <= o->end));
		}
	}
	free(seen);
	int64_t kb = union_len(m, k, s, NULL, NULL, 0), cb = union_len(m, c, s, NULL, NULL, 0);
	CHECK_EQ_INT(g->kernel_busy, kb);
	CHECK_EQ_INT(g->copy_busy, cb);
	CHECK_EQ_INT(g->copy_kernel_overlap, kb + cb - union_len(m, k | c, s, NULL, NULL, 0));
	uint32_t ngaps = 0;
	CHECK_EQ_INT(g->busy, union_len(m, all, s, gaps, &ngaps, a->cfg.sync_gap_ns));
	CHECK_EQ_INT(g->n_gaps, ngaps);
	for (uint32_t i = 0; i < ngaps; i++) {
		CHECK_EQ_INT(g->gaps[i].start, gaps[i].start);
		CHECK_EQ_INT(g->gaps[i].end, gaps[i].end);
		CHECK_EQ_INT(m->ops[g->gaps[i].next_op].start, gaps[i].end); /* ties: either op */
	}
	int64_t conc[4] = {0};
	concurrency(m, s, conc);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_INT(g->concurrent[i], conc[i]);
	int64_t *solo = calloc(m->n_ops + 1, sizeof(*solo));
	solo_times(m, s, solo);
	for (uint32_t i = 0; i < m->n_ops; i++)
		CHECK_EQ_INT(a->solo[i], solo[i]);
	free(solo);
	free(gaps);
	free(s);
}

static void check_model(uint32_t n, uint32_t streams, int queued)
{
	struct kg_model m;
	struct kg_analysis a;
	build(&m, n, streams, queued);
	CHECK_EQ_INT(m.has_queued, queued);
	CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
	CHECK_EQ_INT(a.n_gpus, 1);
	check_gpu(&a);
	uint32_t names = 0;
	for (uint32_t i = 0; i < a.n_kernels; i++) {
		check_name(&m, &a.kernels[i]);
		names++;
		if (i)
			CHECK(a.kernels[i - 1].total >= a.kernels[i].total);
	}
	CHECK_EQ_INT(names, 5);
	analysis_free(&a);
	model_free(&m);
}

TEST(figures_with_queued_times)
{
	for (int round = 0; round < 20; round++)
		check_model(200 + 50 * (uint32_t)round, 1 + (uint32_t)round % 6, 1);
}

TEST(figures_without_queued_times)
{
	for (int round = 0; round < 20; round++)
		check_model(200 + 50 * (uint32_t)round, 1 + (uint32_t)round % 6, 0);
}

TEST(figures_of_many_ops)
{
	check_model(5000, 4, 1);
}

/* ------------------------------------------------------------------ idle gaps by cause */

/* An empty model of one process with GPU 0. */
static void one_gpu(struct kg_model *m)
{
	model_init(m, "test", "");
	model_add_process(m);
	struct kg_device *d = model_add_device(m);
	d->process = 0;
	d->ordinal = 0;
}

static void kernel_at(struct kg_model *m, uint32_t thread, int64_t launch, int64_t start,
		      int64_t end)
{
	struct kg_op *o = model_add_op(m);
	o->kind = KG_OP_KERNEL;
	o->stream = model_stream_index(m, 0, 0, 1, 7);
	o->start = start;
	o->end = end;
	o->name = model_string(m, "gemm");
	o->correlation = (uint32_t)m->n_ops;
	struct kg_api *a = model_add_api(m);
	a->process = 0;
	a->thread = thread;
	a->correlation = o->correlation;
	a->name = model_string(m, "cudaLaunchKernel");
	a->start = launch;
	a->end = launch + 50;
}

static void sync_at(struct kg_model *m, uint32_t thread, int64_t start, int64_t end)
{
	struct kg_api *a = model_add_api(m);
	a->process = 0;
	a->thread = thread;
	a->name = model_string(m, "cudaStreamSynchronize");
	a->start = start;
	a->end = end;
}

/* A gap that begins in a synchronising call is the sync's for as long as the host was in
 * such calls (their union, capped at the gap), the host's for the rest: the time the host
 * would have saved without them, and no more. */
TEST(sync_gaps_are_the_syncs_only_while_the_host_is_blocked)
{
	struct kg_model m;
	one_gpu(&m);
	uint32_t t1 = model_thread_index(&m, 0, 1), t2 = model_thread_index(&m, 0, 2);
	/* host-bound: the sync returns 10 µs after the GPU idles, then 38 µs of host work */
	kernel_at(&m, t1, 900, 1000, 100000);
	sync_at(&m, t1, 90000, 110000);
	kernel_at(&m, t1, 148000, 150000, 200000);
	/* GPU-bound: blocked 50 µs, the gap 21 µs: all of it the sync's */
	sync_at(&m, t1, 150500, 200500);
	kernel_at(&m, t1, 220000, 221000, 300000);
	/* two threads blocked at once, 550 and 400 ns overlapping by 350: 600 ns in all, of a
	 * 1 ms gap */
	sync_at(&m, t1, 299500, 300050);
	sync_at(&m, t2, 299700, 300100);
	kernel_at(&m, t1, 1299000, 1300000, 1400000);
	CHECK_EQ_INT(model_finish(&m), 0);
	struct kg_analysis a;
	CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
	CHECK_EQ_INT(a.n_gpus, 1);
	const struct kg_gpu_metrics *g = &a.gpus[0];
	CHECK_EQ_INT(g->n_gaps, 3);
	CHECK_EQ_INT(g->gaps[0].cause, KG_GAP_SYNC);
	CHECK_EQ_INT(g->gaps[0].sync_ns, 20000);  /* [90000, 110000]: blocked 20 µs */
	CHECK_EQ_INT(g->gaps[1].sync_ns, 21000);  /* the whole gap */
	CHECK_EQ_INT(g->gaps[2].sync_ns, 600);    /* the union, not 950 */
	CHECK_EQ_INT(g->idle_by_cause[KG_GAP_SYNC], 20000 + 21000 + 600);
	CHECK_EQ_INT(g->idle_by_cause[KG_GAP_HOST], (50000 - 20000) + (1000000 - 600));
	analysis_free(&a);
	model_free(&m);
}

static void call_at(struct kg_model *m, uint32_t thread, const char *name, int64_t start,
		    int64_t end)
{
	struct kg_api *a = model_add_api(m);
	a->process = 0;
	a->thread = thread;
	a->name = model_string(m, name);
	a->start = start;
	a->end = end;
}

/* A gap the host spent mostly capturing CUDA graphs is graph capture's, whatever API names
 * the capture (runtime, driver, HIP), nested captures of two streams are one, a capture
 * the trace does not see end runs to the trace's end and one it does not see begin from
 * its start; no other gap is, and none counts in the steady span or as host-bound. */
TEST(gaps_while_the_host_captures_graphs_are_graph_capture)
{
	struct kg_model m;
	one_gpu(&m);
	uint32_t t1 = model_thread_index(&m, 0, 1), t2 = model_thread_index(&m, 0, 2);
	/* gap 0 [100, 1000] µs: t2's capture began before the trace's first call, ended at 900 */
	call_at(&m, t2, "cuStreamEndCapture", 890000, 900000);
	kernel_at(&m, t1, 0, 1000, 100000);
	kernel_at(&m, t1, 999000, 1000000, 1100000);
	/* gap 1 [1100, 2100]: nested captures of two streams 1200-1900 (70 % of the host's
	 * 1100-2099): graph capture */
	call_at(&m, t1, "cudaStreamBeginCapture_v10000", 1200000, 1201000);
	call_at(&m, t1, "cudaStreamBeginCapture_v10000", 1300000, 1301000);
	call_at(&m, t1, "cudaStreamEndCapture_v10000", 1500000, 1501000);
	call_at(&m, t1, "cudaStreamEndCapture_v10000", 1899000, 1900000);
	kernel_at(&m, t1, 2099000, 2100000, 2200000);
	/* gap 2 [2200, 3200]: a capture of 300 of its 1000 µs: the host's */
	call_at(&m, t1, "hipStreamBeginCapture", 2500000, 2501000);
	call_at(&m, t1, "hipStreamEndCapture", 2799000, 2800000);
	kernel_at(&m, t1, 3199000, 3200000, 3300000);
	/* gap 3 [3300, 4300]: a capture that never ended, from 3400 */
	call_at(&m, t1, "cudaStreamBeginCapture_v10000", 3400000, 3401000);
	kernel_at(&m, t1, 4299000, 4300000, 4400000);
	CHECK_EQ_INT(model_finish(&m), 0);
	struct kg_analysis a;
	CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
	const struct kg_gpu_metrics *g = &a.gpus[0];
	CHECK_EQ_INT(g->n_gaps, 4);
	CHECK_EQ_INT(g->gaps[0].place, KG_GAP_CAPTURE); /* 800 of the host's 899 µs */
	CHECK_EQ_INT(g->gaps[1].place, KG_GAP_CAPTURE);
	CHECK_EQ_INT(g->gaps[2].place, KG_GAP_STEADY);
	CHECK_EQ_INT(g->gaps[3].place, KG_GAP_CAPTURE);
	CHECK_EQ_INT(g->idle_capture, 900000 + 1000000 + 1000000);
	CHECK_EQ_INT(g->steady_idle_by_cause[KG_GAP_HOST], 1000000);
	CHECK_EQ_INT(gpu_steady_span(&a, g), a.span - g->idle_capture);
	CHECK_EQ_STR(gap_place_name(KG_GAP_CAPTURE), "graph capture");
	analysis_free(&a);
	model_free(&m);
}

/* Instantiating a captured graph is setting it up too: a gap the host spent mostly in
 * cudaGraphInstantiate (or hipGraphInstantiateWithFlags) is graph capture's; one spent
 * mostly launching the graph is not. */
TEST(gaps_while_the_host_instantiates_graphs_are_graph_capture)
{
	struct kg_model m;
	one_gpu(&m);
	uint32_t t1 = model_thread_index(&m, 0, 1);
	kernel_at(&m, t1, 0, 1000, 100000);
	call_at(&m, t1, "hipGraphInstantiateWithFlags", 150000, 900000);
	kernel_at(&m, t1, 999000, 1000000, 1100000);
	call_at(&m, t1, "cudaGraphLaunch_v10000", 1200000, 1900000);
	kernel_at(&m, t1, 2099000, 2100000, 2200000);
	CHECK_EQ_INT(model_finish(&m), 0);
	struct kg_analysis a;
	CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
	const struct kg_gpu_metrics *g = &a.gpus[0];
	CHECK_EQ_INT(g->n_gaps, 2);
	CHECK_EQ_INT(g->gaps[0].place, KG_GAP_CAPTURE);
	CHECK_EQ_INT(g->gaps[1].place, KG_GAP_STEADY);
	CHECK_EQ_INT(g->idle_capture, 900000);
	analysis_free(&a);
	model_free(&m);
}

/* A kernel known only by its own record: queued by the driver at `queued`, no launch call. */
static void kernel_queued(struct kg_model *m, int64_t queued, int64_t start, int64_t end)
{
	struct kg_op *o = model_add_op(m);
	o->kind = KG_OP_KERNEL;
	o->stream = model_stream_index(m, 0, 0, 1, 7);
	o->start = start;
	o->end = end;
	o->queued = queued;
	o->submitted = KG_NO_TIME;
	o->name = model_string(m, "gemm");
}

/* Without launch calls (kernels mode with latency timestamps, issue 26), a kernel's queued
 * time says when the host issued it: queued before the GPU went idle is launch latency;
 * queued after is the host's side, which without its calls cannot tell host work from a
 * wait (unknown). On main every such gap was unknown. */
TEST(queued_time_tells_launch_latency_without_launch_calls)
{
	struct kg_model m;
	one_gpu(&m);
	kernel_queued(&m, 900, 1000, 100000);
	kernel_queued(&m, 99000, 150000, 200000);   /* queued before idle: 50 µs of launch */
	kernel_queued(&m, 260000, 261000, 300000);  /* queued 60 µs into the gap: the host's */
	CHECK_EQ_INT(model_finish(&m), 0);
	struct kg_analysis a;
	CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
	const struct kg_gpu_metrics *g = &a.gpus[0];
	CHECK_EQ_INT(g->n_gaps, 2);
	CHECK_EQ_INT(g->gaps[0].cause, KG_GAP_LAUNCH);
	CHECK_EQ_INT(g->gaps[1].cause, KG_GAP_UNKNOWN);
	CHECK_EQ_INT(g->idle_by_cause[KG_GAP_LAUNCH], 50000);
	analysis_free(&a);
	model_free(&m);
}

/* A kernel and its launch call: the call [call, call_end) with this correlation id (none
 * when call is KG_NO_TIME), the driver queueing it at queued. */
static void launch_queued(struct kg_model *m, uint32_t correlation, int64_t call,
			  int64_t call_end, int64_t queued, int64_t start, int64_t end)
{
	kernel_queued(m, queued, start, end);
	m->ops[m->n_ops - 1].correlation = correlation;
	if (call == KG_NO_TIME)
		return;
	struct kg_api *a = model_add_api(m);
	a->process = 0;
	a->thread = model_thread_index(m, 0, 1);
	a->correlation = correlation;
	a->name = model_string(m, "cudaLaunchKernel");
	a->start = call;
	a->end = call_end;
}

static const struct kg_finding *finding_of(const struct kg_analysis *a, enum kg_rule_id rule)
{
	for (uint32_t i = 0; i < a->findings.n; i++)
		if (a->findings.v[i].rule == rule)
			return &a->findings.v[i];
	return NULL;
}

/* launch-latency's gain is the GPU's idle time the slow launches caused: in the gaps they
 * ended, from the call's start plus the threshold (100 µs) to the queueing. Launches slow
 * while the GPU was busy anyway save nothing; (median - threshold) x launches said 4 ms. */
TEST(launch_latency_gain_is_the_gpu_idle_it_caused)
{
	for (int idle = 0; idle < 2; idle++) {
		struct kg_model m;
		one_gpu(&m);
		for (uint32_t i = 0; i < 20; i++) {
			int64_t s = 1000000 * (int64_t)(i + 1); /* 300 µs from call to queue */
			if (idle) /* 100 µs kernels, 900 µs apart; queued 100 µs before each */
				launch_queued(&m, i + 1, s - 400000, s - 50000, s - 100000, s,
					      s + 100000);
			else /* 1 ms kernels back to back, launched 800 µs ahead */
				launch_queued(&m, i + 1, s - 800000, s - 450000, s - 500000, s,
					      s + 1000000);
		}
		CHECK_EQ_INT(model_finish(&m), 0);
		struct kg_analysis a;
		CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
		const struct kg_finding *f = finding_of(&a, KG_RULE_LAUNCH_LATENCY);
		if (idle) {
			CHECK(f != NULL);
			/* 19 gaps, each [start - 300 µs, start - 100 µs] of it */
			CHECK(f && fabs(f->gain_ns - 19 * 200000.0) < 1);
		} else {
			CHECK(f == NULL);
		}
		analysis_free(&a);
		model_free(&m);
	}
}

/* A launch is queued while its call runs. CUPTI once gave every call and kernel of a run
 * one correlation id: kernels queued long after the call that id names returned were not
 * launched by it, and keep their queued time and no call (the report says how many);
 * a kernel queued inside its call stays its call's. */
TEST(a_kernel_queued_after_its_call_returned_is_not_that_calls)
{
	struct kg_model m;
	one_gpu(&m);
	launch_queued(&m, 89, 0, 1000, 500, 2000, 3000);	  /* its own call */
	for (uint32_t i = 1; i <= 20; i++) {			  /* the same id, later */
		int64_t s = 1000000 * (int64_t)i;
		launch_queued(&m, 89, KG_NO_TIME, 0, s - 5000, s, s + 1000);
	}
	launch_queued(&m, 7, 30000000, 30000100, 30000120, 30000200, 30000300); /* 20 ns late: */
	/* its own; a graph's kernel, queued 1 ms after its cudaGraphLaunch returned: its own */
	launch_queued(&m, 8, 40000000, 40000100, 41000000, 41000100, 41000200);
	m.ops[m.n_ops - 1].flags |= KG_OPF_GRAPH;
	CHECK_EQ_INT(model_finish(&m), 0);
	uint32_t linked = 0, dated = 0;
	for (uint32_t i = 0; i < m.n_ops; i++) {
		linked += m.ops[i].api != KG_NONE;
		dated += m.ops[i].queued != KG_NO_TIME;
	}
	CHECK_EQ_INT(linked, 3);
	CHECK_EQ_INT(dated, 23);
	int said = 0;
	for (int i = 0; i < m.n_notes; i++)
		said |= strstr(m.notes[i], "20 kernels were queued after the call their correlation "
					   "id names had returned") != NULL;
	CHECK(said);
	model_free(&m);
}

/* ------------------------------------------------------------------ utilisation chunks */

/* A GPU busy all along is busy 1.0 in every chunk, whatever the span: chunks are whole
 * nanoseconds (992 ns in 30 chunks of 33 or 34), and a 34 ns chunk read "1.028 busy"
 * when divided by the mean length (found by fuzz_analysis's figure check); a span
 * shorter than 30 ns had chunks of no length, never busy. */
TEST(utilization_chunks_are_fractions_of_their_own_length)
{
	static const int64_t spans[] = {992, 1000, 29, 31, 1234567};
	for (size_t s = 0; s < sizeof(spans) / sizeof(*spans); s++) {
		struct kg_model m;
		one_gpu(&m);
		uint32_t t = model_thread_index(&m, 0, 1);
		kernel_at(&m, t, 500, 1000, 1000 + spans[s]);
		CHECK_EQ_INT(model_finish(&m), 0);
		struct kg_analysis a;
		CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
		for (int c = 0; c < a.gpus[0].n_util; c++)
			CHECK(fabs(a.gpus[0].util[c] - 1.0) < 1e-12);
		analysis_free(&a);
		model_free(&m);
	}
}
