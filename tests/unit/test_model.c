/* model_finish: ops sorted by stream then start (stable, from any arrival order), every op
 * linked to its launch call whether correlation ids are dense (a table) or sparse (a
 * hash), runtime calls preferred to the driver calls they make. */
#include "harness.h"

#include "analysis/analysis.h"
#include "model/model.h"

#define rnd() ((uint64_t)test_random())

/* Two processes, one device each, three streams; ops in a shuffled order with ties. */
static void build(struct kg_model *m, uint32_t n, uint32_t corr_step, uint32_t corr_base)
{
	model_init(m, "test", "");
	for (int p = 0; p < 2; p++) {
		model_add_process(m);
		struct kg_device *d = model_add_device(m);
		d->process = (uint32_t)p;
		d->ordinal = 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = i % 2;
		uint32_t corr = corr_base + (i + 1) * corr_step;
		struct kg_api *a = model_add_api(m);
		a->process = p;
		a->name = model_string(m, "cudaLaunchKernel");
		a->start = 1000 * (int64_t)i;
		a->end = a->start + 10;
		a->correlation = corr;
		if (i % 5 == 0) { /* the driver call inside it, same id, later start */
			struct kg_api *d = model_add_api(m);
			d->process = p;
			d->driver = 1;
			d->name = model_string(m, "cuLaunchKernel");
			d->start = 1000 * (int64_t)i + 2;
			d->end = d->start + 5;
			d->correlation = corr;
		}
	}
	/* ops in a random order; start times repeat, so ties must keep arrival order */
	uint32_t *order = malloc(n * sizeof(*order));
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(rnd() % (i + 1)), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = order[k], p = i % 2;
		uint32_t s = model_stream_index(m, p, p, 1, (int64_t)(i % 3));
		struct kg_op *o = model_add_op(m);
		o->stream = s;
		o->start = 1000 * (int64_t)(i / 4) + 500;
		o->end = o->start + 100 + (i % 2);
		o->correlation = corr_base + (i + 1) * corr_step;
		o->graph = k; /* arrival order, to check stability */
	}
	free(order);
}

static void check(struct kg_model *m, uint32_t n)
{
	CHECK_EQ_INT(model_finish(m), 0);
	CHECK_EQ_INT(m->n_ops, n);
	uint32_t seen = 0;
	for (uint32_t s = 0; s < m->n_streams; s++) {
		const struct kg_stream *st = &m->streams[s];
		CHECK(st->first_op == seen);
		seen += st->nops;
		for (uint32_t i = st->first_op; i < st->first_op + st->nops; i++) {
			const struct kg_op *o = &m->ops[i];
			CHECK_EQ_INT(o->stream, s);
			if (i > st->first_op) {
				const struct kg_op *q = &m->ops[i - 1];
				CHECK(q->start < o->start || (q->start == o->start && q->end <= o->end));
				if (q->start == o->start && q->end == o->end)
					CHECK(q->graph < o->graph); /* stable */
			}
			/* linked to the runtime call: same process, same id, the earlier start */
			CHECK(o->api != KG_NONE);
			const struct kg_api *a = &m->apis[o->api];
			CHECK_EQ_INT(a->correlation, o->correlation);
			CHECK_EQ_INT(a->process, st->process);
			CHECK_EQ_INT(a->driver, 0);
			CHECK(o->api_start == a->start);
			CHECK_EQ_INT(a->op, i);
			CHECK_EQ_INT(a->category, KG_API_LAUNCH);
		}
	}
	CHECK_EQ_INT(seen, n);
	CHECK_EQ_INT(m->n_gpus, 1); /* no UUIDs: same host, same ordinal = one GPU */
}

TEST(dense_correlation_ids)
{
	struct kg_model m;
	build(&m, 20000, 1, 0);
	check(&m, 20000);
	model_free(&m);
}

TEST(sparse_correlation_ids)
{
	struct kg_model m;
	build(&m, 5000, 100003, 7); /* far too sparse for a table: the hash map */
	check(&m, 5000);
	model_free(&m);
}

TEST(ids_from_a_large_base)
{
	struct kg_model m;
	build(&m, 3000, 1, 4000000000u - 10000); /* near the top of uint32 */
	check(&m, 3000);
	model_free(&m);
}

TEST(finish_twice_is_the_same)
{
	struct kg_model m;
	build(&m, 4000, 3, 0);
	check(&m, 4000);
	check(&m, 4000); /* model_restrict finishes again */
	CHECK_EQ_INT(model_restrict(&m, 0, 500000), 0);
	for (uint32_t i = 0; i < m.n_ops; i++)
		CHECK(m.ops[i].api_start < 500000);
	model_free(&m);
}

/* Streams and threads come out in (process, device, context, id) and (process, tid)
 * order, whatever order they were met in, and everything that names them follows. */
TEST(streams_and_threads_in_canonical_order)
{
	struct kg_model m;
	model_init(&m, "test", "");
	model_add_process(&m);
	struct kg_device *d = model_add_device(&m);
	d->process = 0;
	uint32_t s9 = model_stream_index(&m, 0, 0, 1, 9), s3 = model_stream_index(&m, 0, 0, 1, 3);
	uint32_t t7 = model_thread_index(&m, 0, 700), t5 = model_thread_index(&m, 0, 500);
	CHECK(s9 == 0 && s3 == 1 && t7 == 0 && t5 == 1);
	struct kg_op *o = model_add_op(&m);
	o->stream = s9;
	o->start = 10;
	o->end = 20;
	o = model_add_op(&m);
	o->stream = s3;
	o->start = 30;
	o->end = 40;
	struct kg_api *a = model_add_api(&m);
	a->thread = t7;
	a->start = 1;
	a->end = 2;
	struct kg_sync *y = model_add_sync(&m);
	y->stream = s9;
	struct kg_range *g = model_add_range(&m);
	g->thread = t5;
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK(m.streams[0].id == 3 && m.streams[1].id == 9);
	CHECK(m.threads[0].tid == 500 && m.threads[1].tid == 700);
	CHECK_EQ_INT(m.ops[m.streams[1].first_op].start, 10); /* stream 9's op */
	CHECK_EQ_INT(m.ops[m.streams[0].first_op].start, 30);
	CHECK_EQ_INT(m.apis[0].thread, 1);   /* tid 700 */
	CHECK_EQ_INT(m.syncs[0].stream, 1);  /* stream 9 */
	CHECK_EQ_INT(m.ranges[0].thread, 0); /* tid 500 */
	model_free(&m);
}

/* A launch is kept once: equal launches share an index, all zeros is 0, and an op's
 * launch reads the same after finishing, cloning and restricting the model. */
TEST(launches_are_kept_once)
{
	struct kg_model m;
	model_init(&m, "test", "");
	struct kg_launch none = {0}, a = {{8, 1, 1}, {128, 1, 1}, 0, 1024, 0, 32, 0};
	struct kg_launch b = a;
	b.regs = 33;
	CHECK_EQ_INT(model_launch(&m, &none), 0);
	uint32_t ia = model_launch(&m, &a), ib = model_launch(&m, &b);
	CHECK(ia != 0 && ib != 0 && ia != ib);
	CHECK_EQ_INT(model_launch(&m, &a), ia);
	CHECK_EQ_INT(m.n_launches, 3); /* [0], a, b */
	model_add_process(&m);
	model_add_device(&m)->process = 0;
	uint32_t s = model_stream_index(&m, 0, 0, 1, 7);
	for (int i = 0; i < 3; i++) {
		struct kg_op *o = model_add_op(&m);
		o->stream = s;
		o->start = 100 * (3 - i); /* backwards: finishing moves them */
		o->end = o->start + 10;
		o->launch = i == 0 ? 0 : i == 1 ? ia : ib;
	}
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK(!memcmp(op_launch(&m, &m.ops[0]), &b, sizeof(b)));   /* start 100 */
	CHECK(!memcmp(op_launch(&m, &m.ops[1]), &a, sizeof(a)));   /* start 200 */
	CHECK(!memcmp(op_launch(&m, &m.ops[2]), &none, sizeof(a))); /* nothing known */
	/* the lookup is gone after finishing; the table is indexed again when asked */
	CHECK_EQ_INT(model_launch(&m, &b), ib);
	struct kg_model c;
	CHECK_EQ_INT(model_clone(&m, &c), 0);
	CHECK_EQ_INT(model_restrict(&c, 150, 1000), 0);
	CHECK_EQ_INT(c.n_ops, 2);
	CHECK(!memcmp(op_launch(&c, &c.ops[0]), &a, sizeof(a)));
	CHECK_EQ_INT(model_launch(&c, &a), ia);
	struct kg_op stray = {.launch = 1000}; /* out of the table: nothing known */
	CHECK(!memcmp(op_launch(&c, &stray), &none, sizeof(none)));
	model_free(&c);
	model_free(&m);
}

/* What a reader leaves: each stream's ops in a few long ascending runs (kernels, copies,
 * memsets), of very different lengths, which the finish merges (the shorter run copied
 * out, from the front or the back); the SM blocks follow their kernels. */
TEST(long_runs_merge_and_blocks_follow)
{
	static const uint32_t runs[][3] = {{5000, 7, 300}, {3, 4000, 2}, {1, 1, 6000}};
	struct kg_model m;
	model_init(&m, "test", "");
	model_add_process(&m);
	model_add_device(&m)->process = 0;
	uint32_t n = 0;
	for (uint32_t kind = 0; kind < 3; kind++)
		for (uint32_t s = 0; s < 3; s++)
			for (uint32_t i = 0; i < runs[s][kind]; i++) {
				struct kg_op *o = model_add_op(&m);
				o->kind = (uint8_t)kind;
				o->stream = model_stream_index(&m, 0, 0, 1, (int64_t)s);
				/* interleaved in time with the other runs of the stream */
				o->start = (int64_t)(rnd() % 1000000);
				o->end = o->start + (int64_t)(rnd() % 3); /* equal ends: ties */
				o->graph = n; /* reading order */
				struct kg_sm_block *b = model_add_sm_block(&m);
				b->op = n++;
				b->block = o->graph;
			}
	/* each run in start order, as a reader leaves it */
	for (uint32_t at = 0; at < n;) {
		uint32_t end = at + 1;
		while (end < n && m.ops[end].kind == m.ops[at].kind &&
		       m.ops[end].stream == m.ops[at].stream)
			end++;
		for (uint32_t i = at + 1; i < end; i++) /* insertion sort by start */
			for (uint32_t j = i; j > at && m.ops[j - 1].start > m.ops[j].start; j--) {
				struct kg_op t = m.ops[j];
				m.ops[j] = m.ops[j - 1];
				m.ops[j - 1] = t;
			}
		for (uint32_t i = at; i < end; i++)
			m.ops[i].graph = i; /* reading order after the sort */
		at = end;
	}
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_ops, n);
	for (uint32_t s = 0; s < m.n_streams; s++) {
		const struct kg_stream *st = &m.streams[s];
		CHECK_EQ_INT(st->nops, runs[s][0] + runs[s][1] + runs[s][2]);
		for (uint32_t i = st->first_op + 1; i < st->first_op + st->nops; i++) {
			const struct kg_op *q = &m.ops[i - 1], *o = &m.ops[i];
			CHECK(q->start < o->start ||
			      (q->start == o->start &&
			       (q->end < o->end || (q->end == o->end && q->graph < o->graph))));
		}
	}
	for (uint32_t i = 0; i < m.n_sm_blocks; i++)
		CHECK_EQ_INT(m.ops[m.sm_blocks[i].op].graph, m.sm_blocks[i].block);
	model_free(&m);
}

/* The memory a trace takes is mostly these: 10M kernels with their launch calls in
 * 1.3 GB. A field added to them costs as much as a table; see docs/results/report-speed.md. */
TEST(op_and_call_sizes)
{
	CHECK_EQ_INT(sizeof(struct kg_op), 80);
	CHECK_EQ_INT(sizeof(struct kg_api), 48);
	CHECK_EQ_INT(sizeof(struct kg_launch), 40);
}

/* ------------------------------------------------------------------ untrue times (issue 22) */

/* A model on a clock 5000 s from 0 (as CLOCK_MONOTONIC_RAW after boot), its body 1 ms of
 * work: one op, call, range and wait per way a time cannot be true. */
#define T0 5000000000000ll

static struct kg_op *op_at(struct kg_model *m, uint32_t s, uint8_t kind, int64_t start,
			   int64_t end, const char *name)
{
	struct kg_op *o = model_add_op(m);
	o->stream = s;
	o->kind = kind;
	o->start = start;
	o->end = end;
	o->name = model_string(m, name);
	return o;
}

static struct kg_api *api_at(struct kg_model *m, int64_t start, int64_t end)
{
	struct kg_api *a = model_add_api(m);
	a->name = model_string(m, "cudaStreamSynchronize");
	a->start = start;
	a->end = end;
	a->thread = model_thread_index(m, 0, 1);
	return a;
}

/* An empty model of one process with one device and one stream: the stream's index. */
static uint32_t one_stream(struct kg_model *m)
{
	model_init(m, "test", "");
	model_add_process(m);
	model_add_device(m)->process = 0;
	return model_stream_index(m, 0, 0, 1, 7);
}

static void untrue_model(struct kg_model *m)
{
	uint32_t s = one_stream(m);
	m->processes[0].start = 0; /* taken from a record left out: unknown after */
	for (int i = 0; i < 1000; i++) { /* the body: 1 ms */
		op_at(m, s, KG_OP_KERNEL, T0 + 1000 * i, T0 + 1000 * i + 500, "k");
		struct kg_sm_block *b = model_add_sm_block(m);
		b->op = m->n_ops - 1, b->start = T0 + 1000 * i + 10, b->end = T0 + 1000 * i + 490;
	}
	op_at(m, s, KG_OP_KERNEL, T0 + 10, T0 + 5, "k_backwards");  /* end before start */
	model_add_sm_block(m)->op = m->n_ops - 1;                     /* goes with it */

	op_at(m, s, KG_OP_MEMCPY, 0, T0 + 20, "copy_at_zero");       /* at time 0 */
	op_at(m, s, KG_OP_MEMSET, -1, T0, "memset_at_minus_one");    /* before time 0 */
	op_at(m, s, KG_OP_KERNEL, T0, INT64_MAX, "k_forever");      /* INT64_MAX */
	op_at(m, s, KG_OP_KERNEL, T0 + 3600000000000000ll, T0 + 3600000000000001ll,
	      "k_a_month_later");                                     /* far */
	op_at(m, s, KG_OP_KERNEL, T0 + 500, KG_NO_TIME, "k_no_end"); /* unknown: kept */
	api_at(m, T0 + 100, T0 + 50);                                /* end before start */
	struct kg_sync *y = model_add_sync(m);                       /* its wait: goes too */
	y->api = m->n_apis - 1, y->start = T0 + 100, y->end = T0 + 50;
	api_at(m, T0 + 200, T0 + 300);                               /* fine, with its wait */
	y = model_add_sync(m);
	y->api = m->n_apis - 1, y->start = T0 + 200, y->end = T0 + 300;
	y = model_add_sync(m);                                       /* a wait of its own */
	y->start = -INT64_MAX, y->end = T0;
	struct kg_range *r = model_add_range(m);                    /* never closed: kept */
	r->start = T0;
	r = model_add_range(m);
	r->start = 0, r->end = T0 + 1000;                            /* at time 0 */
	r->name = model_string(m, "step");
}

TEST(untrue_times_left_out_counted_and_named)
{
	struct kg_model m;
	untrue_model(&m);
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_ops, 1001); /* the body and k_no_end */
	CHECK_EQ_INT(m.n_apis, 1);
	CHECK_EQ_INT(m.n_syncs, 1);
	CHECK_EQ_INT(m.syncs[0].api, 0);
	CHECK_EQ_INT(m.apis[0].start, T0 + 200);
	CHECK_EQ_INT(m.n_ranges, 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_KERNEL][KG_UNTRUE_END_BEFORE_START], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_KERNEL][KG_UNTRUE_INT64_LIMIT], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_KERNEL][KG_UNTRUE_FAR], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_COPY][KG_UNTRUE_AT_ZERO], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_MEMSET][KG_UNTRUE_NEGATIVE], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_API][KG_UNTRUE_END_BEFORE_START], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_WAIT][KG_UNTRUE_INT64_LIMIT], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_RANGE][KG_UNTRUE_AT_ZERO], 1);
	CHECK_EQ_INT(m.n_notes, 1);
	CHECK_EQ_STR(m.notes[0], "left out 3 kernels, 1 copy, 1 memset, 1 API call, 1 range and "
				 "1 wait whose times cannot be true: at INT64_MAX or -INT64_MAX (2), "
				 "end before start (2), at time 0 (2), before time 0 (1), far from the "
				 "other records (1); the first: kernel 'k_backwards'");
	CHECK_EQ_INT(m.begin, T0);           /* the span as the true records make it */
	CHECK_EQ_INT(m.end, T0 + 999500);
	CHECK_EQ_INT(m.processes[0].start, KG_NO_TIME);
	CHECK_EQ_INT(m.n_sm_blocks, 1000);   /* the blocks of the kernels kept, still theirs */
	for (uint32_t i = 0; i < m.n_sm_blocks; i++)
		CHECK_EQ_STR(model_text(&m, m.ops[m.sm_blocks[i].op].name), "k");
	/* once: a window's edges would look far from what is left in it */
	uint64_t before = m.untrue[KG_UNTRUE_KERNEL][KG_UNTRUE_FAR];
	CHECK_EQ_INT(model_restrict(&m, T0, T0 + 2000), 0);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_KERNEL][KG_UNTRUE_FAR], before);
	CHECK_EQ_INT(m.n_ranges, 1);         /* never closed, from before the window: kept */
	CHECK_EQ_INT(m.n_notes, 1);
	model_free(&m);
}

/* A clock that starts with the trace (Nsight's, a test's) keeps its zeros and what is a
 * little before them, and a start-up of seconds before 20 ms of work; a record more than
 * 1000 s (1000 times the least length a body is given, 1 s) away is not. */
/* The records that are only spans: hardware samples, SM blocks, host samples and the
 * tracer's spans, judged as the rest (a garbage row's sample was drawn at INT64_MIN). */
TEST(untrue_times_of_samples_and_spans)
{
	struct kg_model m;
	uint32_t s = one_stream(&m);
	for (int i = 0; i < 1000; i++) { /* the body: 1 ms */
		op_at(&m, s, KG_OP_KERNEL, T0 + 1000 * i, T0 + 1000 * i + 500, "k");
		struct kg_sm_block *b = model_add_sm_block(&m);
		b->op = m.n_ops - 1, b->start = T0 + 1000 * i + 10, b->end = T0 + 1000 * i + 490;
	}
	struct kg_sm_block *b = model_add_sm_block(&m);              /* at -INT64_MAX */
	b->op = 0, b->start = -INT64_MAX, b->end = T0 + 490;
	struct kg_hw_sample *hw = model_add_hw_sample(&m);           /* fine */
	hw->start = T0, hw->end = T0 + 1000;
	hw = model_add_hw_sample(&m);                                /* at time 0 */
	hw->start = 0, hw->end = 1000;
	struct kg_host_span *h = model_add_host_span(&m);            /* fine */
	h->start = T0, h->end = T0 + 1000;
	h = model_add_host_span(&m);                                 /* end before start */
	h->start = T0 + 1000, h->end = T0;
	h = model_add_tracer_span(&m);                               /* far */
	h->start = T0 + 3600000000000000ll, h->end = T0 + 3600000000000001ll;
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_HW_SAMPLE][KG_UNTRUE_AT_ZERO], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_SM_BLOCK][KG_UNTRUE_INT64_LIMIT], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_HOST_SPAN][KG_UNTRUE_END_BEFORE_START], 1);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_TRACER_SPAN][KG_UNTRUE_FAR], 1);
	CHECK_EQ_INT(m.n_sm_blocks, 1000);
	CHECK_EQ_INT(m.n_hw_samples, 1);
	CHECK_EQ_INT(m.hw_samples[0].start, T0);
	CHECK_EQ_INT(m.n_host_spans, 1);
	CHECK_EQ_INT(m.host_spans[0].start, T0);
	CHECK_EQ_INT(m.n_tracer_spans, 0);
	CHECK_EQ_INT(m.n_notes, 1);
	CHECK_EQ_STR(m.notes[0], "left out 1 hardware sample, 1 SM block, 1 host sample and 1 "
				 "tracer span whose times cannot be true: at INT64_MAX or -INT64_MAX "
				 "(1), end before start (1), at time 0 (1), far from the other records "
				 "(1)");
	CHECK_EQ_INT(m.begin, T0);
	CHECK_EQ_INT(m.end, T0 + 999500);
	model_free(&m);
}

TEST(untrue_times_near_zero_and_start_up_kept)
{
	struct kg_model m;
	uint32_t s = one_stream(&m);
	for (int i = 0; i < 20000; i++) /* 20 ms of work, from 100 ms */
		op_at(&m, s, KG_OP_KERNEL, 100000000 + 1000 * i, 100000000 + 1000 * i + 900, "k");
	op_at(&m, s, KG_OP_KERNEL, 0, 10, "k_at_zero");
	op_at(&m, s, KG_OP_KERNEL, -5000, 10, "k_before_zero");
	for (int i = 0; i < 50; i++) /* cuInit and set-up, 2 s before: 100 times the work */
		api_at(&m, -1900000000ll + i * 1000, -1900000000ll + i * 1000 + 500);
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_ops, 20002);
	CHECK_EQ_INT(m.n_apis, 50);
	CHECK_EQ_INT(m.n_notes, 0);
	model_free(&m);

	s = one_stream(&m);
	for (int i = 0; i < 20000; i++)
		op_at(&m, s, KG_OP_KERNEL, T0 + 1000 * i, T0 + 1000 * i + 900, "k");
	api_at(&m, T0 - 2000000000000ll, T0 - 1999999999000ll); /* 2000 s before */
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_apis, 0);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_API][KG_UNTRUE_FAR], 1);
	/* a record 900 s before is within reach, and the body it widens reaches the other:
	 * a start-up seen only in a few calls is kept whole */
	api_at(&m, T0 - 2000000000000ll, T0 - 1999999999000ll);
	api_at(&m, T0 - 900000000000ll, T0 - 899999999000ll);
	m.times_checked = 0;
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_apis, 2);
	model_free(&m);
}

/* Nothing left but what cannot be true: its note comes first, where the commands'
 * "nothing to show" reads. */
TEST(untrue_times_note_first_when_nothing_is_left)
{
	struct kg_model m;
	uint32_t s = one_stream(&m);
	model_note(&m, "a reader's note");
	op_at(&m, s, KG_OP_KERNEL, T0 + 10, T0, "k");
	op_at(&m, s, KG_OP_KERNEL, INT64_MAX, INT64_MAX, "k");
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_ops, 0);
	CHECK_EQ_INT(m.n_notes, 2);
	CHECK(strncmp(m.notes[0], "left out 2 kernels", 18) == 0);
	CHECK_EQ_STR(m.notes[1], "a reader's note");
	model_free(&m);
}

/* Times that cannot be true in a trace whose records are all kept (found by the fuzz
 * targets' figure check): a process ending at INT64_MAX (a kgantt trace's processes
 * table: report --json said "end_ns": 9223372036854775807), a kernel queued after it
 * started or before its launch call (a spool: queue wait p50 "-281474.98 s"), and one
 * queued longer before it started than any recording lasts, with no launch call to bound
 * it (a spool: queue wait p50 9.04e18 ns). */
TEST(untrue_times_of_processes_and_queues)
{
	struct kg_model m;
	uint32_t s = one_stream(&m);
	m.processes[0].start = T0 - 1000;
	m.processes[0].end = INT64_MAX;
	m.processes[0].realtime_offset = INT64_MAX; /* 1.8e24 in SQL, read saturated (fuzz_job) */
	uint32_t thread = model_thread_index(&m, 0, 1);
	for (int i = 0; i < 4; i++) {
		struct kg_op *o = op_at(&m, s, KG_OP_KERNEL, T0 + 1000 * i, T0 + 1000 * i + 500, "k");
		o->correlation = (uint32_t)i + 1;
		o->queued = o->start - 100;
		o->submitted = o->start - 50;
		struct kg_api *a = api_at(&m, o->start - 300, o->start - 200);
		a->thread = thread;
		a->correlation = o->correlation;
		a->name = model_string(&m, "cudaLaunchKernel");
	}
	m.ops[1].queued = m.ops[1].start + (1ll << 48);    /* queued after it started */
	m.ops[2].queued = m.ops[2].start - 400;            /* before its launch call */
	m.ops[3].submitted = m.ops[3].queued - 1;          /* submitted before queued */
	struct kg_op *far = op_at(&m, s, KG_OP_KERNEL, T0 + 5000, T0 + 5500, "k");
	far->queued = far->start - KG_LONGEST_NS - 1;      /* queued 3.2 years before */
	far->submitted = far->start - 10;
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_ops, 5);
	CHECK_EQ_INT(m.n_notes, 0);
	CHECK_EQ_INT(m.processes[0].start, T0 - 1000);
	CHECK_EQ_INT(m.processes[0].end, KG_NO_TIME);
	CHECK_EQ_INT(m.processes[0].realtime_offset, KG_NO_TIME);
	CHECK_EQ_INT(m.ops[4].start, T0 + 5000);
	CHECK_EQ_INT(m.ops[4].queued, KG_NO_TIME);
	CHECK_EQ_INT(m.ops[4].submitted, T0 + 4990);
	CHECK_EQ_INT(m.ops[0].queued, m.ops[0].start - 100);
	CHECK_EQ_INT(m.ops[0].submitted, m.ops[0].start - 50);
	CHECK_EQ_INT(m.ops[1].queued, KG_NO_TIME);
	CHECK_EQ_INT(m.ops[1].submitted, m.ops[1].start - 50);
	CHECK_EQ_INT(m.ops[2].queued, KG_NO_TIME);
	CHECK_EQ_INT(m.ops[3].queued, m.ops[3].start - 100);
	CHECK_EQ_INT(m.ops[3].submitted, KG_NO_TIME);
	struct kg_analysis a;
	CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
	CHECK(a.kernels[0].queue_p50 >= 0 && a.kernels[0].queue_p99 <= 100);
	CHECK(a.kernels[0].launch_p50 >= 0 && a.kernels[0].launch_p99 <= 300);
	analysis_free(&a);
	model_free(&m);
}

/* An API call lasting 26 years, alone in its trace: its own body, so not far from it, but
 * longer than any recording (fuzz_spool: the span read 841328705.39 s). */
/* A few records and one far from them, its start and its end both (fuzz_spool: a memset
 * at 3.4e18 ns beside five records at a few µs made the span 3.4e18 ns: the outer time
 * left out of the body was its end, and its start the body's edge). */
TEST(untrue_times_one_record_far_from_few)
{
	struct kg_model m;
	uint32_t s = one_stream(&m);
	op_at(&m, s, KG_OP_KERNEL, 2200, 2500, "k");
	op_at(&m, s, KG_OP_KERNEL, 3200, 3500, "k");
	op_at(&m, s, KG_OP_MEMCPY, 5000, 6000, "memcpy");
	op_at(&m, s, KG_OP_MEMSET, 3414120447861528532LL, 3415246347922796137LL, "memset");
	api_at(&m, 2000, 2100);
	api_at(&m, 3000, 3100);
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_ops, 3);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_MEMSET][KG_UNTRUE_FAR], 1);
	CHECK_EQ_INT(m.end, 6000);
	model_free(&m);
}

/* Records that rules 1, 2 and 5 leave out place no body: with their other ends (near
 * -INT64_MAX) in the sample, the body reached everything and kept a kernel and calls 1e19
 * ns apart; exported and read again without them, the kernel went and the trace was
 * refused (fuzz_analysis: "the exported trace does not load"). */
TEST(untrue_times_records_left_out_place_no_body)
{
	struct kg_model m;
	uint32_t s = one_stream(&m);
	for (int i = 0; i < 5; i++)
		op_at(&m, s, KG_OP_KERNEL, -INT64_MAX + 1000, INT64_MAX, "k");
	op_at(&m, s, KG_OP_KERNEL, -4611686018427387807LL, -4611686018427386807LL, "k");
	api_at(&m, 8446744073709550806LL, 8446744073709550806LL);
	api_at(&m, INT64_MAX - 1, INT64_MAX - 1);
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_KERNEL][KG_UNTRUE_INT64_LIMIT], 5);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_KERNEL][KG_UNTRUE_NEGATIVE], 1);
	CHECK_EQ_INT(m.n_ops, 0);
	CHECK_EQ_INT(m.n_apis, 2);
	model_free(&m);
}

/* Calls whose ends the source lost reach their starts: without, two such calls 29 years
 * apart gave the trace no end, and it was read instead of refused (fuzz_analysis). */
TEST(span_of_calls_without_end)
{
	struct kg_model m;
	one_stream(&m);
	api_at(&m, 46000, KG_NO_TIME);
	api_at(&m, 922337203854775000LL, KG_NO_TIME);
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_apis, 2);
	CHECK_EQ_INT(m.begin, 46000);
	CHECK_EQ_INT(m.end, 922337203854775000LL);
	model_free(&m);
}

TEST(untrue_times_longer_than_any_recording)
{
	struct kg_model m;
	one_stream(&m);
	struct kg_api *a = api_at(&m, T0, T0 + 841328705391294000LL);
	a->thread = model_thread_index(&m, 0, 1);
	a->name = model_string(&m, "cudaGetDevice");
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_apis, 0);
	CHECK_EQ_INT(m.untrue[KG_UNTRUE_API][KG_UNTRUE_TOO_LONG], 1);
	CHECK(m.n_notes >= 1 && strstr(m.notes[0], "longer than any recording"));
	model_free(&m);
}

/* The body as the comment of untrue_times.c defines it, from every time sorted: the
 * middle 98 % (all but 2 at each end under 200 times), widened while the next time out
 * lies within 1000 times the body's length (at least 1 s); the times after 0 alone when
 * they are most. 1 when t lies in it. */
static int by_time(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t reach_ref(int64_t lo, int64_t hi)
{
	return (hi - lo < 1000000000 ? 1000000000 : hi - lo) * 1000;
}

static void body_ref(int64_t *t, size_t n, int64_t *lo, int64_t *hi)
{
	qsort(t, n, sizeof(*t), by_time);
	size_t p = 0;
	while (p < n && t[p] <= 0)
		p++;
	if (p < n - p)
		t += p, n -= p;
	size_t outer = n < 6 ? 0 : n < 200 ? 2 : n / 100, i = outer, j = n - 1 - outer;
	for (int grew = 1; grew;) {
		grew = 0;
		for (; i > 0 && t[i] - t[i - 1] <= reach_ref(t[i], t[j]); i--)
			grew = 1;
		for (; j + 1 < n && t[j + 1] - t[j] <= reach_ref(t[i], t[j]); j++)
			grew = 1;
	}
	*lo = t[i] - reach_ref(t[i], t[j]);
	*hi = t[j] + reach_ref(t[i], t[j]);
}

/* Calls in a random order: 1 ms of work, start-ups and wind-downs strewn at random
 * distances before and after it, far enough that some are within reach of the body (or
 * of one another) and some are not. The calls kept are those the body from the sorted
 * times keeps (every call is in the sample: fewer than 5461). */
TEST(untrue_times_body_as_from_sorted_times)
{
	for (int round = 0; round < 40; round++) {
		struct kg_model m;
		one_stream(&m);
		uint32_t n = 300 + (uint32_t)(test_random() % 3000), kept = 0;
		int64_t *t = malloc(2 * n * sizeof(*t)), lo, hi;
		for (uint32_t i = 0; i < n; i++) {
			int64_t at = T0 + (int64_t)(test_random() % 1000000);
			uint64_t r = test_random() % 100;
			if (r < 3) /* a start-up or wind-down, up to 3000 s away */
				at += (r == 1 ? -1 : 1) * (int64_t)(test_random() % 3000000000000ull);
			if (r == 0)
				at = (int64_t)(test_random() % 1000); /* near 0 */
			api_at(&m, at, at + 100);
			t[2 * i] = at, t[2 * i + 1] = at + 100;
		}
		body_ref(t, 2 * n, &lo, &hi);
		for (uint32_t i = 0; i < n; i++)
			kept += m.apis[i].start >= lo && m.apis[i].end <= hi;
		CHECK_EQ_INT(model_finish(&m), 0);
		CHECK_EQ_INT(m.n_apis, kept);
		free(t);
		model_free(&m);
	}
}

/* Calls that put work on the GPU and no GPU operation: the GPU side was not traced. */
/* Host spans: each thread's in start order after the finish, whatever order the reader
 * gave them; a window keeps the parts within it (what the thread did then, and only
 * that); a clone has them and their threads' names. */
TEST(host_spans_sorted_cut_and_cloned)
{
	struct kg_model m;
	model_init(&m, "test", "");
	model_add_process(&m);
	uint32_t t[2] = {model_thread_index(&m, 0, 200), model_thread_index(&m, 0, 100)};
	m.threads[t[0]].name = model_string(&m, "loader");
	static const int64_t at[][3] = {{0, 300, 400}, {1, 0, 1000}, {0, 100, 200},
					{0, 200, 300}, {1, 1000, 2000}, {0, 900, 1000}};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		struct kg_host_span *x = model_add_host_span(&m);
		CHECK(x && x->stack == KG_NONE);
		x->thread = t[at[i][0]];
		x->start = at[i][1];
		x->end = at[i][2];
		x->state = (uint8_t)i;
		x->source = KG_HOST_FROM_SAMPLES;
	}
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.n_host_spans, 6);
	for (uint32_t i = 1; i < m.n_host_spans; i++) {
		const struct kg_host_span *a = &m.host_spans[i - 1], *b = &m.host_spans[i];
		CHECK(a->thread < b->thread || (a->thread == b->thread && a->end <= b->start));
	}
	struct kg_model c;
	CHECK_EQ_INT(model_clone(&m, &c), 0);
	CHECK_EQ_INT(model_restrict(&c, 250, 1500), 0);
	int64_t sum = 0, first = INT64_MAX, last = 0;
	for (uint32_t i = 0; i < c.n_host_spans; i++) {
		const struct kg_host_span *x = &c.host_spans[i];
		CHECK(x->start >= 250 && x->end <= 1500 && x->start < x->end);
		sum += x->end - x->start;
		first = x->start < first ? x->start : first;
		last = x->end > last ? x->end : last;
	}
	/* thread 200: 250-300, 300-400, 900-1000; thread 100: 250-1000, 1000-1500 */
	CHECK_EQ_INT(c.n_host_spans, 5);
	CHECK_EQ_INT(sum, 50 + 100 + 100 + 750 + 500);
	CHECK_EQ_INT(first, 250);
	CHECK_EQ_INT(last, 1500);
	uint32_t named = KG_NONE;
	for (uint32_t i = 0; i < c.n_threads; i++)
		if (c.threads[i].tid == 200)
			named = i;
	CHECK(named != KG_NONE && !strcmp(model_text(&c, c.threads[named].name), "loader"));
	CHECK_EQ_INT(m.n_host_spans, 6); /* the original whole */
	model_free(&c);
	model_free(&m);
}

TEST(gpu_untraced)
{
	struct kg_model m;
	model_init(&m, "test", "");
	model_add_process(&m);
	struct kg_api *a = api_at(&m, 100, 200);
	a->name = model_string(&m, "cudaLaunchKernel");
	a = api_at(&m, 300, 400);
	a->name = model_string(&m, "hipMemcpyAsync");
	api_at(&m, 500, 600); /* a wait does not count */
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.gpu_work_calls, 2);
	CHECK_EQ_INT(m.gpu_untraced, 1);
	model_add_device(&m)->process = 0;
	op_at(&m, model_stream_index(&m, 0, 0, 1, 7), KG_OP_KERNEL, 150, 160, "k");
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.gpu_untraced, 0);
	model_free(&m);
}

/* Signed tids in order; a lane's label: the name when it holds the tid, else the name
 * and the tid, else the tid. */
TEST(thread_labels_and_signed_tids)
{
	struct kg_model m;
	model_init(&m, "test", "");
	model_add_process(&m);
	uint32_t a = model_thread_index(&m, 0, 2919752), b = model_thread_index(&m, 0, -549452224);
	uint32_t c = model_thread_index(&m, 0, 77);
	m.threads[a].name = model_string(&m, "thread 2919752 (pt_autograd_0)");
	m.threads[c].name = model_string(&m, "pt_main_thread");
	(void)b;
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.threads[0].tid, -549452224);
	CHECK_EQ_INT(m.threads[1].tid, 77);
	char buf[96];
	CHECK_EQ_STR(model_thread_label(&m, &m.threads[0], buf, sizeof(buf)), "thread -549452224");
	CHECK_EQ_STR(model_thread_label(&m, &m.threads[1], buf, sizeof(buf)),
		     "pt_main_thread (thread 77)");
	CHECK_EQ_STR(model_thread_label(&m, &m.threads[2], buf, sizeof(buf)),
		     "thread 2919752 (pt_autograd_0)");
	model_free(&m);
}

TEST(vendor_and_host_link)
{
	CHECK_EQ_INT(model_vendor_of_name("NVIDIA H200"), KG_VENDOR_NVIDIA);
	CHECK_EQ_INT(model_vendor_of_name("Tesla V100-SXM2-16GB"), KG_VENDOR_NVIDIA);
	CHECK_EQ_INT(model_vendor_of_name("AMD Instinct MI250X"), KG_VENDOR_AMD);
	CHECK_EQ_INT(model_vendor_of_name("AMD Radeon Graphics"), KG_VENDOR_AMD);
	CHECK_EQ_INT(model_vendor_of_name("A100-SXM4-40GB"), KG_VENDOR_UNKNOWN);
	CHECK_EQ_INT(model_vendor_of_name(NULL), KG_VENDOR_UNKNOWN);
	struct kg_device d = {.pcie_gen = 4, .pcie_lanes = 16};
	CHECK_EQ_INT(device_link_bytes_per_s(&d), 31507692304ll); /* 16 GT/s x16, 128b/130b */
	d.pcie_gen = 0;
	CHECK_EQ_INT(device_link_bytes_per_s(&d), 0);
	d.pcie_gen = 9;
	CHECK_EQ_INT(device_link_bytes_per_s(&d), 0);
	/* a reader that says nothing: the name decides in model_finish */
	struct kg_model m;
	model_init(&m, "test", "");
	model_add_process(&m);
	struct kg_device *x = model_add_device(&m);
	x->name = model_string(&m, "NVIDIA H200");
	x = model_add_device(&m);
	x->name = model_string(&m, "AMD Radeon Graphics");
	x->vendor = KG_VENDOR_NVIDIA; /* the reader's word stands */
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(m.devices[0].vendor, KG_VENDOR_NVIDIA);
	CHECK_EQ_INT(m.devices[1].vendor, KG_VENDOR_NVIDIA);
	model_free(&m);
}
