/* The program's steps (analysis/steps.c) on synthetic loops: found by the rhythm of the
 * launches with micro-batches inside a step and a sync every N steps, warm-up told apart,
 * no steps claimed where there is no loop, the annotations preferred, and a quiet loop
 * given no finding. */
#include "harness.h"

#include "analysis/analysis.h"

static const int64_t us = 1000;

/* A model being built: one process, one GPU, one stream, one host thread; the GPU runs
 * the kernels after the gaps asked for, the host launches each 2 µs after the previous
 * one, or the gap later (it was busy), and never after the kernel starts. */
struct loop {
	struct kg_model m;
	uint32_t thread, stream, corr;
	int64_t t;       /* where the next kernel starts on the GPU */
	int64_t host;    /* where the host is */
};

static void loop_init(struct loop *l)
{
	memset(l, 0, sizeof(*l));
	model_init(&l->m, "test", "");
	model_add_process(&l->m);
	struct kg_device *d = model_add_device(&l->m);
	d->process = 0;
	l->thread = model_thread_index(&l->m, 0, 1);
	l->stream = model_stream_index(&l->m, 0, 0, 1, 7);
	l->t = 1000000 * us;
	l->host = l->t - 100 * us;
}

/* A kernel named name of len ns, gap ns after the previous one ended. */
static void kernel(struct loop *l, const char *name, int64_t len, int64_t gap)
{
	l->t += gap;
	struct kg_op *o = model_add_op(&l->m);
	o->kind = KG_OP_KERNEL;
	o->stream = l->stream;
	o->name = model_string(&l->m, name);
	o->start = l->t;
	o->end = l->t + len;
	o->correlation = ++l->corr;
	struct kg_api *a = model_add_api(&l->m);
	a->thread = l->thread;
	a->correlation = l->corr;
	a->name = model_string(&l->m, "cudaLaunchKernel");
	a->start = l->host + gap < l->t - 3 * us ? l->host + gap : l->t - 3 * us;
	a->end = a->start + 2 * us;
	l->host = a->end;
	l->t = o->end;
}

/* A host synchronisation of len ns, and a copy to the host. */
static void sync_copy(struct loop *l, int64_t len)
{
	struct kg_op *o = model_add_op(&l->m);
	o->kind = KG_OP_MEMCPY;
	o->copy_kind = KG_COPY_DTOH;
	o->stream = l->stream;
	o->name = model_string(&l->m, "Memcpy DtoH");
	o->start = l->t + 2 * us;
	o->end = o->start + 5 * us;
	o->bytes = 4;
	o->correlation = ++l->corr;
	struct kg_api *a = model_add_api(&l->m);
	a->thread = l->thread;
	a->correlation = l->corr;
	a->name = model_string(&l->m, "cudaMemcpy");
	a->start = l->t;
	a->end = o->end + len;
	l->host = a->end;
	struct kg_sync *s = model_add_sync(&l->m);
	s->start = a->start;
	s->end = a->end;
	s->stream = l->stream;
	s->kind = KG_SYNC_STREAM;
	l->t = a->end + 20 * us;
}

static void analyse(struct loop *l, struct kg_analysis *a, const struct kg_config *cfg)
{
	CHECK_EQ_INT(model_finish(&l->m), 0);
	CHECK(analysis_run(&l->m, cfg, a) == 0);
}

/* A training step: 4 micro-batches of forward and backward, then the optimizer. */
static void train_step(struct loop *l, double slow)
{
	static const char *const micro[] = {"fwd_a", "fwd_b", "bwd_b", "bwd_a"};
	static const char *const opt[] = {"adam_1", "adam_2", "adam_3", "zero_grad"};
	for (int mb = 0; mb < 4; mb++)
		for (int k = 0; k < 4; k++)
			kernel(l, micro[k], (int64_t)(100 * us * slow), mb == 0 && k == 0 ? 300 * us : 5 * us);
	for (int k = 0; k < 4; k++)
		kernel(l, opt[k], 50 * us, 5 * us);
}

TEST(micro_batches_stay_inside_one_step)
{
	struct loop l;
	struct kg_analysis a;
	loop_init(&l);
	for (int s = 0; s < 20; s++)
		train_step(&l, 1);
	analyse(&l, &a, NULL);
	CHECK_EQ_INT(a.steps.source, KG_STEPS_RHYTHM);
	CHECK_EQ_INT(a.steps.period, 20);
	if (a.steps.n < 19 || a.steps.n > 20)
		fprintf(stderr, "    %u steps of %u\n", a.steps.n, a.steps.period);
	CHECK(a.steps.n >= 19 && a.steps.n <= 20);
	/* a step starts where the host waited: at the first micro-batch's forward */
	CHECK(a.steps.v[1].kernels == 20);
	CHECK(!strcmp(model_text(&l.m, l.m.ops[a.gpus[0].ops[0]].name), "fwd_a"));
	analysis_free(&a);
	model_free(&l.m);
}

TEST(a_sync_every_few_steps_does_not_make_them_one)
{
	struct loop l;
	struct kg_analysis a;
	loop_init(&l);
	for (int s = 0; s < 40; s++) {
		train_step(&l, 1);
		if (s % 5 == 4)
			sync_copy(&l, 50 * us); /* loss.item() every 5 steps */
	}
	analyse(&l, &a, NULL);
	CHECK_EQ_INT(a.steps.source, KG_STEPS_RHYTHM);
	CHECK_EQ_INT(a.steps.period, 20);
	CHECK(a.steps.n >= 38 && a.steps.n <= 40);
	uint32_t syncs = 0;
	for (uint32_t s = 0; s < a.steps.n; s++)
		syncs += a.steps.v[s].syncs;
	CHECK(syncs >= 7 && syncs <= 8);
	analysis_free(&a);
	model_free(&l.m);
}

TEST(three_slow_first_steps_are_warm_up)
{
	struct loop l;
	struct kg_analysis a;
	loop_init(&l);
	int64_t fourth = 0;
	for (int s = 0; s < 24; s++) {
		if (s == 3)
			fourth = l.t + 300 * us; /* the fourth iteration's first kernel */
		train_step(&l, s < 3 ? 3.0 : 1.0);
	}
	analyse(&l, &a, NULL);
	CHECK_EQ_INT(a.steps.source, KG_STEPS_RHYTHM);
	CHECK(a.steps.n >= 23 && a.steps.n <= 24);
	/* the first steady step is the fourth iteration, those before it warm-up */
	if (a.steps.steady_begin != fourth)
		for (uint32_t s = 0; s < a.steps.n; s++)
			fprintf(stderr, "    %u: %lld %lld %u %d (fourth %lld)\n", s,
				(long long)a.steps.v[s].start, (long long)a.steps.v[s].time,
				a.steps.v[s].ops, a.steps.v[s].warmup, (long long)fourth);
	CHECK(a.steps.steady_begin == fourth);
	CHECK(a.steps.first_steady >= 2 && a.steps.v[a.steps.first_steady - 1].warmup);
	CHECK(!a.steps.v[a.steps.first_steady].warmup);
	CHECK(a.steps.p50 == 2195 * us); /* 1.8 ms of kernels, 395 µs of gaps */
	CHECK(a.steps.max < 2 * a.steps.p50);
	analysis_free(&a);
	model_free(&l.m);
}

/* A start-up that repeats at the loop's own period for a while (XLA autotuning a kernel
 * variant a few times, then compiling): the loop is the long stretch after it, not the
 * start-up to the end (which held no steps at all: a JAX loop recorded on the H200). */
TEST(a_start_up_that_repeats_is_not_the_loop)
{
	static const char *const tune[] = {"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"};
	static const char *const step[] = {"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"};
	struct loop l;
	struct kg_analysis a;
	loop_init(&l);
	for (int r = 0; r < 4; r++)
		for (int k = 0; k < 10; k++)
			kernel(&l, tune[k], 20 * us, 5 * us);
	unsigned x = 777;
	for (int i = 0; i < 500; i++) { /* compiling: kernels of every kind, no order */
		char name[16];
		x = x * 1103515245u + 12345u;
		snprintf(name, sizeof(name), "c%u", (x >> 16) % 300);
		kernel(&l, name, 10 * us, (x >> 8) % 40 * us);
	}
	for (int s = 0; s < 100; s++)
		for (int k = 0; k < 10; k++)
			kernel(&l, step[k], 5 * us, k ? 2 * us : 80 * us);
	analyse(&l, &a, NULL);
	CHECK_EQ_INT(a.steps.source, KG_STEPS_RHYTHM);
	CHECK_EQ_INT(a.steps.period, 10);
	CHECK(a.steps.n >= 99 && a.steps.n <= 101);
	analysis_free(&a);
	model_free(&l.m);
}

TEST(no_loop_no_steps)
{
	struct loop l;
	struct kg_analysis a;
	loop_init(&l);
	unsigned x = 12345;
	for (int i = 0; i < 2000; i++) {
		char name[16];
		x = x * 1103515245u + 12345u;
		snprintf(name, sizeof(name), "k%u", (x >> 16) % 40);
		kernel(&l, name, 20 * us, (x >> 8) % 50 * us);
	}
	analyse(&l, &a, NULL);
	CHECK_EQ_INT(a.steps.source, KG_STEPS_NONE);
	CHECK_EQ_INT(a.steps.n, 0);
	analysis_free(&a);
	model_free(&l.m);
	/* nor where every launch is alike: an inner loop, nothing tells its steps apart */
	loop_init(&l);
	for (int i = 0; i < 2000; i++)
		kernel(&l, i % 2 ? "add" : "mul", 2 * us, 4 * us);
	analyse(&l, &a, NULL);
	CHECK_EQ_INT(a.steps.n, 0);
	analysis_free(&a);
	model_free(&l.m);
}

/* An annotated loop: the annotation wins over the rhythm, the user's name over the usual
 * ones, and --rhythm finds the same steps without them. */
TEST(annotations_first)
{
	struct loop l;
	struct kg_analysis a;
	loop_init(&l);
	for (int s = 0; s < 10; s++) {
		int64_t start = l.host; /* on the host: the step's launches are inside it */
		train_step(&l, 1);
		struct kg_range *r = model_add_range(&l.m);
		char name[32];
		snprintf(name, sizeof(name), "ProfilerStep#%d", s + 7);
		r->name = model_string(&l.m, name);
		r->start = start;
		r->end = l.host;
		r->thread = l.thread;
	}
	analyse(&l, &a, NULL);
	CHECK_EQ_INT(a.steps.source, KG_STEPS_ANNOTATION);
	CHECK_EQ_INT(a.steps.n, 10);
	CHECK(!strncmp(model_text(&l.m, a.steps.name), "ProfilerStep#", 13));
	int64_t p50 = a.steps.p50;
	analysis_free(&a);
	struct kg_config cfg;
	analysis_config_default(&cfg);
	cfg.steps_rhythm = 1;
	CHECK(analysis_run(&l.m, &cfg, &a) == 0);
	CHECK_EQ_INT(a.steps.source, KG_STEPS_RHYTHM);
	CHECK(a.steps.n >= 9 && a.steps.n <= 10);
	CHECK(a.steps.p50 == p50);
	analysis_free(&a);
	cfg.steps_rhythm = 0;
	cfg.steps_name = "no such range";
	CHECK(analysis_run(&l.m, &cfg, &a) == 0);
	CHECK_EQ_INT(a.steps.source, KG_STEPS_RHYTHM); /* the user's name, or the rhythm */
	analysis_free(&a);
	model_free(&l.m);
}

/* A quiet loop, its GPU always busy, after a second of start-up: steps that apply, and
 * the analysis of the steady steps alone (report cuts the trace to them) keeps the steps
 * it is given and finds nothing. */
TEST(quiet_loop_gains_no_finding)
{
	struct loop l;
	struct kg_analysis a, b;
	loop_init(&l);
	kernel(&l, "init", 10 * us, 0);
	l.t += 1000000 * us;
	for (int s = 0; s < 30; s++)
		for (int k = 0; k < 6; k++) {
			char name[16];
			snprintf(name, sizeof(name), "k%d", k);
			kernel(&l, name, 500 * us, (k == 0 ? 20 : 1) * us);
		}
	analyse(&l, &a, NULL);
	CHECK(a.steps.n >= 29 && a.steps.applied);
	const struct kg_steps *st = &a.steps;
	CHECK_EQ_INT(model_restrict(&l.m, st->v[st->first_steady].host_start,
				    st->v[st->n - 1].host_end), 0);
	struct kg_config cfg;
	analysis_config_default(&cfg);
	cfg.steps_given = st;
	CHECK(analysis_run(&l.m, &cfg, &b) == 0);
	CHECK_EQ_INT(b.steps.n, a.steps.n);
	CHECK(b.steps.v != a.steps.v && b.steps.p50 == a.steps.p50);
	CHECK_EQ_INT(b.gpus[0].idle_startup, 0);
	for (uint32_t i = 0; i < b.findings.n; i++)
		fprintf(stderr, "    %s\n", finding_str(b.findings.v[i].title));
	CHECK_EQ_INT(b.findings.n, 0);
	analysis_free(&b);
	analysis_free(&a);
	model_free(&l.m);
}
