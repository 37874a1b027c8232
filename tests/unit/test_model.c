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
			CHECK(o->api_start == a->start && o->api_end == a->end);
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
