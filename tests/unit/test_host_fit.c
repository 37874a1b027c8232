/* Host samples fitted to the thread's known CUDA activity (src/model/host_fit.c), on a
 * model made here whose every span is worked out by hand: samples among dense launches
 * keep their period; the samples in a 25 ms silence stand for it and for nothing outside
 * it, and the sample before it for the launches up to it; a sample inside a call keeps
 * its start; a sample after the thread's last call (an exit handler's) no longer reaches
 * back over it; a thread that never called CUDA, and a
 * process whose sampling rate is not known, are left as they were; a window does not
 * fit them again; a sample off CPU stands for its silence even when it is shorter than a
 * period, where a running one keeps its period. */
#include "harness.h"

#include "model/model.h"

#define MS 1000000LL
#define US 1000LL
#define PERIOD (10 * MS) /* 100 samples a second */

struct world {
	struct kg_model m;
	uint32_t t1, t2, stream;
};

/* A kernel launched at `at`: its call recorded (a 50 ns call) or, when not sampled, only
 * its queued time, 1 µs after the call's start, as the sampled ones say. */
static void launch(struct world *w, int64_t at, int sampled)
{
	struct kg_model *m = &w->m;
	struct kg_op *o = model_add_op(m);
	o->kind = KG_OP_KERNEL;
	o->stream = w->stream;
	o->queued = at + US;
	o->submitted = KG_NO_TIME;
	o->start = at + 5 * US;
	o->end = at + 6 * US;
	o->name = model_string(m, "step");
	o->correlation = (uint32_t)m->n_ops;
	if (!sampled)
		return;
	struct kg_api *a = model_add_api(m);
	a->process = 0;
	a->thread = w->t1;
	a->correlation = o->correlation;
	a->name = model_string(m, "cudaLaunchKernel");
	a->start = at;
	a->end = at + 50;
}

static void call(struct world *w, const char *name, int64_t start, int64_t end)
{
	struct kg_api *a = model_add_api(&w->m);
	a->process = 0;
	a->thread = w->t1;
	a->name = model_string(&w->m, name);
	a->start = start;
	a->end = end;
}

/* A sample taken at t, as the reader makes it: the period before it. */
static void sample(struct world *w, uint32_t thread, int64_t t)
{
	struct kg_host_span *h = model_add_host_span(&w->m);
	CHECK(h != NULL);
	h->start = t - PERIOD;
	h->end = t;
	h->thread = thread;
	h->source = KG_HOST_FROM_SAMPLES;
	h->state = KG_HOST_RUNNING;
}

/* Launches every 100 µs from 0.1 to 19.9 ms and from 45 to 60 ms, every other one's call
 * sampled (the last of the first stretch not: it is dated by its queued time, 19.901 ms);
 * a 9.5 ms sync at 60.5 ms; samples at 15, 25, 35, 47, 57, 65 and 75 ms on the launching
 * thread, and at 25 and 35 ms on a thread that never calls CUDA. */
/* A process whose launch calls were sampled, a device, two threads and a stream. */
static void world_begin(struct world *w)
{
	struct kg_model *m = &w->m;
	model_init(m, "test", "");
	struct kg_process *p = model_add_process(m);
	p->launches_sampled = 1;
	struct kg_device *d = model_add_device(m);
	d->process = 0;
	d->ordinal = 0;
	w->t1 = model_thread_index(m, 0, 1);
	w->t2 = model_thread_index(m, 0, 2);
	w->stream = model_stream_index(m, 0, 0, 1, 7);
}

/* Sampled at hz by the process, the spans cut as the reader leaves them, and finished. */
static void world_end(struct world *w, uint32_t hz)
{
	struct kg_host_sampling *h = model_add_host_sampling(&w->m);
	CHECK(h != NULL);
	h->process = 0;
	h->hz = hz;
	model_cut_host_spans(&w->m, 0);
	CHECK_EQ_INT(model_finish(&w->m), 0);
}

static void world_init(struct world *w, uint32_t hz)
{
	world_begin(w);
	for (int i = 1; i < 200; i++)
		launch(w, i * 100 * US, i % 2 == 0);
	for (int i = 450; i <= 600; i++)
		launch(w, i * 100 * US, i % 2 == 0);
	call(w, "cudaStreamSynchronize", 60500 * US, 70 * MS);
	static const int64_t at[] = {15, 25, 35, 47, 57, 65, 75};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		sample(w, w->t1, at[i] * MS);
	sample(w, w->t2, 25 * MS);
	sample(w, w->t2, 35 * MS);
	world_end(w, hz);
}

/* Thread t's spans, in order, against want[0, n) of {start, end}. */
static void spans_are(const struct kg_model *m, uint32_t t, const int64_t (*want)[2], uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < m->n_host_spans; i++) {
		const struct kg_host_span *h = &m->host_spans[i];
		if (h->thread != t)
			continue;
		CHECK(k < n);
		if (h->start != want[k][0] || h->end != want[k][1])
			fprintf(stderr, "    span %u: [%lld, %lld], expected [%lld, %lld]\n", k,
				(long long)h->start, (long long)h->end, (long long)want[k][0],
				(long long)want[k][1]);
		CHECK_EQ_INT(h->start, want[k][0]);
		CHECK_EQ_INT(h->end, want[k][1]);
		k++;
	}
	CHECK_EQ_INT(k, n);
}

TEST(samples_stand_for_the_silence_they_were_taken_in)
{
	struct world w;
	world_init(&w, 100);
	const struct kg_model *m = &w.m;
	/* the last launch before the silence was not sampled: it is known from its queued time */
	CHECK_EQ_INT(m->processes[0].launch_lead, US);
	const int64_t want[][2] = {
		{5 * MS, 19901 * US},      /* among launches 100 µs apart: its period, and on
					    * to the silence after them */
		{19901 * US, 25 * MS},     /* the silence's first: from its start */
		{25 * MS, 45 * MS},        /* its last: to its end, a period on */
		{45 * MS, 47 * MS},        /* launching again: from where the silence ended */
		{47 * MS, 57 * MS},        /* among launches: its period */
		{57 * MS, 70 * MS},        /* inside the sync: on to the silence after it */
		{70 * MS, 75 * MS},        /* after the thread's last call: not before it */
	};
	spans_are(m, w.t1, want, sizeof(want) / sizeof(want[0]));
	/* where each sample was taken, for the export (export_sqlite.c) */
	static const int64_t carried[] = {4901 * US, 0, 10 * MS, 0, 0, 5 * MS, 0};
	uint32_t k = 0;
	for (uint32_t i = 0; i < m->n_host_spans; i++)
		if (m->host_spans[i].thread == w.t1)
			CHECK_EQ_INT(m->host_spans[i].carried, carried[k++]);
	const int64_t other[][2] = {{15 * MS, 25 * MS}, {25 * MS, 35 * MS}};
	spans_are(m, w.t2, other, 2);
	model_free(&w.m);
}

TEST(a_window_does_not_fit_them_again)
{
	struct world w;
	world_init(&w, 100);
	CHECK_EQ_INT(model_restrict(&w.m, 30 * MS, 50 * MS), 0);
	const int64_t want[][2] = {{30 * MS, 45 * MS}, {45 * MS, 47 * MS}, {47 * MS, 50 * MS}};
	spans_are(&w.m, w.t1, want, 3);
	/* the first carried 10 ms past its sample, at 35 ms, and still is; the last was
	 * taken at 57 ms, past the window */
	CHECK_EQ_INT(w.m.host_spans[0].carried, 10 * MS);
	CHECK_EQ_INT(w.m.host_spans[2].carried, 0);
	model_free(&w.m);
}

TEST(without_a_known_rate_samples_keep_their_period)
{
	struct world w;
	world_init(&w, 0);
	const int64_t want[][2] = {
		{5 * MS, 15 * MS}, {15 * MS, 25 * MS}, {25 * MS, 35 * MS}, {37 * MS, 47 * MS},
		{47 * MS, 57 * MS}, {57 * MS, 65 * MS}, {65 * MS, 75 * MS},
	};
	spans_are(&w.m, w.t1, want, sizeof(want) / sizeof(want[0]));
	model_free(&w.m);
}

/* A thread launching every 100 µs from 0.1 to 20 ms and from 24 to 40 ms, silent between
 * (4 ms, shorter than the period), with samples at 15 ms (running), 23 ms (state) and
 * 33 ms (running). */
static void short_silence_init(struct world *w, uint8_t state)
{
	struct kg_model *m = &w->m;
	world_begin(w);
	for (int i = 1; i <= 200; i++)
		launch(w, i * 100 * US, 1);
	for (int i = 240; i <= 400; i++)
		launch(w, i * 100 * US, 1);
	sample(w, w->t1, 15 * MS);
	sample(w, w->t1, 23 * MS);
	m->host_spans[m->n_host_spans - 1].state = state;
	sample(w, w->t1, 33 * MS);
	world_end(w, 100);
}

TEST(a_sample_off_cpu_stands_for_its_silence_however_short)
{
	struct world w;
	short_silence_init(&w, KG_HOST_BLOCKED);
	/* blocked at 23 ms: one wait, after the launch at 20 ms (its call ends 20.00005 ms)
	 * and until the next at 24 ms; the sample before stands for the launches up to it */
	const int64_t want[][2] = {
		{5 * MS, 20 * MS + 50}, {20 * MS + 50, 24 * MS}, {24 * MS, 33 * MS}};
	spans_are(&w.m, w.t1, want, 3);
	model_free(&w.m);
	/* running at 23 ms: sampled statistically, its period */
	short_silence_init(&w, KG_HOST_RUNNING);
	const int64_t running[][2] = {{5 * MS, 15 * MS}, {15 * MS, 23 * MS}, {23 * MS, 33 * MS}};
	spans_are(&w.m, w.t1, running, 3);
	model_free(&w.m);
}
