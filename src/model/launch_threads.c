/* Which host thread launched each kernel (model.h, model_op_launch_thread).
 *
 * A kernel whose launch call is in the trace was launched by that call's thread. Full mode
 * samples the launch calls, so most kernels carry only their queued time. On a stream fed
 * by one thread that thread launched them all. PyTorch's training loops feed one stream
 * from two: the main thread launches the forward pass and the optimizer, the autograd
 * engine's thread the backward pass. There the sampled launches say which thread launched
 * each kernel in each place of the stream's order, a kernel and the operation before it
 * (the backward pass's first kernel follows the forward pass's last one); where a place
 * had both threads, the kernel's name alone, when only one thread ever launched it. Else
 * the thread is not known, and the analysis says so rather than guess. */
#include <errno.h>
#include <stdlib.h>

#include "model/model.h"
#include "util/array.h"

/* Neither one thread nor none: kg_launch_place.thread when several launched it. */
#define SEVERAL (KG_NONE - 1)
/* kg_launch_place.prev of the by-name entries: any operation before it. */
#define ANY_PREV KG_NONE

static int place_cmp(const void *a, const void *b)
{
	const struct kg_launch_place *x = a, *y = b;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->prev != y->prev)
		return x->prev < y->prev ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

/* The name of the operation before ops[i] on its stream, 0 for the stream's first. */
static uint32_t prev_name(const struct kg_model *m, uint32_t i)
{
	const struct kg_stream *s = &m->streams[m->ops[i].stream];
	return i > s->first_op ? m->ops[i - 1].name : 0;
}

/* Each stream's one launching thread, when its kernels' recorded launch calls all came
 * from one. */
static void stream_threads(struct kg_model *m)
{
	for (uint32_t s = 0; s < m->n_streams; s++)
		m->streams[s].launch_thread = KG_NONE;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind != KG_OP_KERNEL || o->api >= m->n_apis)
			continue;
		uint32_t t = m->apis[o->api].thread, *lt = &m->streams[o->stream].launch_thread;
		*lt = *lt == KG_NONE || *lt == t ? t : SEVERAL;
	}
	for (uint32_t s = 0; s < m->n_streams; s++)
		if (m->streams[s].launch_thread == SEVERAL)
			m->streams[s].launch_thread = KG_NONE;
}

static int add_place(struct kg_model *m, struct kg_launch_place p)
{
	if (array_room((void **)&m->launch_places, &m->cap_launch_places, m->n_launch_places,
		       sizeof(*m->launch_places), 256) < 0)
		return -ENOMEM;
	m->launch_places[m->n_launch_places++] = p;
	return 0;
}

/* Sorted, one entry a key: SEVERAL where its launches came from more than one thread. */
static void merge_places(struct kg_model *m)
{
	if (!m->n_launch_places)
		return; /* the array may be NULL */
	qsort(m->launch_places, m->n_launch_places, sizeof(*m->launch_places), place_cmp);
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_launch_places; i++) {
		const struct kg_launch_place *p = &m->launch_places[i];
		struct kg_launch_place *last = n ? &m->launch_places[n - 1] : NULL;
		if (last && last->stream == p->stream && last->name == p->name && last->prev == p->prev) {
			if (last->thread != p->thread)
				last->thread = SEVERAL;
			continue;
		}
		m->launch_places[n++] = *p;
	}
	m->n_launch_places = n;
}

int model_launch_threads(struct kg_model *m)
{
	stream_threads(m);
	m->n_launch_places = 0;
	if (!model_launches_sampled(m))
		return 0;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind != KG_OP_KERNEL || o->api >= m->n_apis ||
		    m->streams[o->stream].launch_thread != KG_NONE)
			continue;
		uint32_t t = m->apis[o->api].thread;
		if (add_place(m, (struct kg_launch_place){o->stream, o->name, prev_name(m, i), t}) < 0 ||
		    add_place(m, (struct kg_launch_place){o->stream, o->name, ANY_PREV, t}) < 0)
			return -ENOMEM;
	}
	merge_places(m);
	return 0;
}

/* The thread of the place (stream, name, prev), KG_NONE when not one. */
static uint32_t place_thread(const struct kg_model *m, uint32_t stream, uint32_t name,
			     uint32_t prev)
{
	struct kg_launch_place key = {stream, name, prev, 0};
	uint32_t lo = 0, hi = m->n_launch_places;
	while (lo < hi) { /* the first entry not before the key */
		uint32_t mid = lo + (hi - lo) / 2;
		if (place_cmp(&m->launch_places[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct kg_launch_place *p = lo < m->n_launch_places ? &m->launch_places[lo] : NULL;
	if (!p || p->stream != stream || p->name != name || p->prev != prev || p->thread == SEVERAL)
		return KG_NONE;
	return p->thread;
}

uint32_t model_op_launch_thread(const struct kg_model *m, uint32_t op)
{
	if (op >= m->n_ops)
		return KG_NONE;
	const struct kg_op *o = &m->ops[op];
	if (o->api < m->n_apis)
		return m->apis[o->api].thread;
	if (o->kind != KG_OP_KERNEL || !(o->flags & KG_OPF_ISSUED_QUEUED))
		return KG_NONE;
	uint32_t t = m->streams[o->stream].launch_thread;
	if (t == KG_NONE)
		t = place_thread(m, o->stream, o->name, prev_name(m, op));
	if (t == KG_NONE)
		t = place_thread(m, o->stream, o->name, ANY_PREV);
	return t;
}
