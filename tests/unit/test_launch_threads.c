/* Which thread launched each kernel (src/model/launch_threads.c), on a model made here: one
 * stream fed by a main thread (the forward pass, the optimizer) and an autograd thread
 * (the backward pass), as PyTorch's training loops feed it, with the first step's launch
 * calls sampled and the later steps' not. A kernel that only one thread launched after
 * the same operation gets that thread; one both launched after the same operation gets
 * none; a stream fed by one thread gives its thread to all; a window keeps it working. */
#include "harness.h"

#include "model/model.h"

#define US 1000LL

struct world {
	struct kg_model m;
	uint32_t main, autograd, stream, other_stream;
};

static void kernel(struct world *w, uint32_t stream, const char *name, int64_t at,
		   uint32_t thread)
{
	struct kg_model *m = &w->m;
	struct kg_op *o = model_add_op(m);
	o->kind = KG_OP_KERNEL;
	o->stream = stream;
	o->queued = at + US;
	o->submitted = KG_NO_TIME;
	o->start = at + 5 * US;
	o->end = at + 6 * US;
	o->name = model_string(m, name);
	o->correlation = (uint32_t)m->n_ops;
	if (thread == KG_NONE)
		return; /* its call not sampled */
	struct kg_api *a = model_add_api(m);
	a->process = 0;
	a->thread = thread;
	a->correlation = o->correlation;
	a->name = model_string(m, "cudaLaunchKernel");
	a->start = at;
	a->end = at + 100;
}

/* One step from `at`: fwd, relu (main); bwd, add (autograd); add, sgd (main); and a
 * "fill" that both threads launch after a "relu" (main in the forward pass, autograd at
 * the end of the backward pass). sampled: the calls recorded. */
static int64_t step(struct world *w, int64_t at, int sampled)
{
	static const struct {
		const char *name;
		int autograd;
	} seq[] = {{"fwd", 0}, {"relu", 0}, {"fill", 0}, {"bwd", 1}, {"add", 1},
		   {"relu", 1}, {"fill", 1}, {"add", 0}, {"sgd", 0}};
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++, at += 10 * US) {
		uint32_t t = seq[i].autograd ? w->autograd : w->main;
		kernel(w, w->stream, seq[i].name, at, sampled ? t : KG_NONE);
	}
	return at;
}

static void world_init(struct world *w)
{
	struct kg_model *m = &w->m;
	model_init(m, "test", "");
	struct kg_process *p = model_add_process(m);
	p->launches_sampled = 1;
	struct kg_device *d = model_add_device(m);
	d->process = 0;
	d->ordinal = 0;
	w->main = model_thread_index(m, 0, 1);
	w->autograd = model_thread_index(m, 0, 2);
	w->stream = model_stream_index(m, 0, 0, 1, 7);
	w->other_stream = model_stream_index(m, 0, 0, 1, 8);
	int64_t at = 100 * US;
	at = step(w, at, 1);
	at = step(w, at, 0);
	at = step(w, at, 0);
	/* a stream only the main thread feeds: its one sampled launch says so for the rest */
	kernel(w, w->other_stream, "copy_kernel", at, w->main);
	kernel(w, w->other_stream, "copy_kernel", at + 10 * US, KG_NONE);
	CHECK_EQ_INT(model_finish(m), 0);
}

/* The launching thread of the ops named `name` on stream s, in start order, from the
 * n-th on (their calls not sampled). */
static uint32_t thread_of(const struct world *w, uint32_t s, const char *name, int nth)
{
	const struct kg_model *m = &w->m;
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].stream == s && !strcmp(model_text(m, m->ops[i].name), name) && nth-- == 0)
			return model_op_launch_thread(m, i);
	CHECK(0);
	return KG_NONE;
}

TEST(each_kernel_gets_the_thread_that_launched_it_in_its_place)
{
	struct world w;
	world_init(&w);
	CHECK_EQ_INT(w.m.streams[w.stream].launch_thread, KG_NONE); /* two threads feed it */
	/* the second step's, whose calls were not sampled */
	CHECK_EQ_INT(thread_of(&w, w.stream, "fwd", 1), w.main);
	CHECK_EQ_INT(thread_of(&w, w.stream, "bwd", 1), w.autograd);
	/* "add": both threads launch it, but each after its own operation */
	CHECK_EQ_INT(thread_of(&w, w.stream, "add", 2), w.autograd); /* after bwd */
	CHECK_EQ_INT(thread_of(&w, w.stream, "add", 3), w.main);     /* after fill */
	/* "relu": after fwd the main thread's, after add the autograd thread's */
	CHECK_EQ_INT(thread_of(&w, w.stream, "relu", 2), w.main);
	CHECK_EQ_INT(thread_of(&w, w.stream, "relu", 3), w.autograd);
	/* "fill" after "relu": both threads did, and its name alone says no more */
	CHECK_EQ_INT(thread_of(&w, w.stream, "fill", 2), KG_NONE);
	CHECK_EQ_INT(thread_of(&w, w.stream, "fill", 3), KG_NONE);
	/* a sampled one: its call's thread */
	CHECK_EQ_INT(thread_of(&w, w.stream, "fill", 1), w.autograd);
	/* a stream of one thread */
	CHECK_EQ_INT(w.m.streams[w.other_stream].launch_thread, w.main);
	CHECK_EQ_INT(thread_of(&w, w.other_stream, "copy_kernel", 1), w.main);
	model_free(&w.m);
}

TEST(a_kernel_seen_after_another_operation_gets_its_names_one_thread)
{
	struct world w;
	world_init(&w);
	/* "sgd" after a "fwd": never sampled in that place, but only the main thread ever
	 * launched an sgd */
	kernel(&w, w.stream, "fwd", 900 * US, KG_NONE);
	kernel(&w, w.stream, "sgd", 910 * US, KG_NONE);
	CHECK_EQ_INT(model_finish(&w.m), 0);
	CHECK_EQ_INT(thread_of(&w, w.stream, "sgd", 3), w.main);
	model_free(&w.m);
}

TEST(a_window_keeps_the_threads_its_sampled_calls_say)
{
	struct world w;
	world_init(&w);
	struct kg_model c;
	CHECK_EQ_INT(model_clone(&w.m, &c), 0);
	CHECK_EQ_INT(c.n_launch_places, w.m.n_launch_places);
	model_free(&c);
	/* the first step and the second: the second's kernels still get their threads */
	CHECK_EQ_INT(model_restrict(&w.m, 0, 280 * US), 0);
	CHECK_EQ_INT(thread_of(&w, w.stream, "bwd", 1), w.autograd);
	CHECK_EQ_INT(thread_of(&w, w.stream, "sgd", 1), w.main);
	model_free(&w.m);
}
