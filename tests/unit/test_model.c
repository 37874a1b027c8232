/* model_finish: ops sorted by stream then start (stable, from any arrival order), every op
 * linked to its launch call whether correlation ids are dense (a table) or sparse (a
 * hash), runtime calls preferred to the driver calls they make. */
#include "harness.h"

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
