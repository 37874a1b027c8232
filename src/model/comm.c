/* What a communication kernel is (comm.h): the trace's calls around its launch, its
 * args, its name. */
#include "model/comm.h"
#include "model/model.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	enum kg_comm_class cls;
} kinds[KG_COMM_KIND_COUNT] = {
#define KG_COMM_ROW_(id, nm, c) {nm, KG_COMM_CLASS_##c},
	KG_COMM_KINDS(KG_COMM_ROW_)
#undef KG_COMM_ROW_
};

const char *comm_kind_name(enum kg_comm_kind k)
{
	return (unsigned)k < KG_COMM_KIND_COUNT ? kinds[k].name : kinds[0].name;
}

enum kg_comm_class comm_kind_class(enum kg_comm_kind k)
{
	return (unsigned)k < KG_COMM_KIND_COUNT ? kinds[k].cls : KG_COMM_CLASS_ANY;
}

enum kg_comm_kind comm_kind_of_name(const char *name)
{
	/* letters and digits only, lower case: "nccl:_all_gather_base", "AllGather" and
	 * "all_gather_into_tensor" all read "allgather"; a kernel's parameter list is not
	 * part of its name */
	char s[160];
	size_t n = 0;
	for (const char *p = name; p && *p && *p != '(' && n + 1 < sizeof(s); p++)
		if (isalnum((unsigned char)*p))
			s[n++] = (char)tolower((unsigned char)*p);
	s[n] = 0;
	/* longest first: "allreduce" holds "reduce", "sendrecv" "send" and "recv" */
	static const struct {
		const char *word;
		enum kg_comm_kind kind;
	} words[] = {
		{"allreduce", KG_COMM_ALL_REDUCE},   {"reducescatter", KG_COMM_REDUCE_SCATTER},
		{"allgather", KG_COMM_ALL_GATHER},   {"alltoall", KG_COMM_ALL_TO_ALL},
		{"broadcast", KG_COMM_BROADCAST},    {"barrier", KG_COMM_BARRIER},
		{"sendrecv", KG_COMM_SEND_RECV},     {"isendirecv", KG_COMM_SEND_RECV},
		{"send", KG_COMM_SEND},              {"recv", KG_COMM_RECV},
		{"reduce", KG_COMM_REDUCE},
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(s, words[i].word))
			return words[i].kind;
	return KG_COMM_OTHER;
}

int comm_call_named(const char *name, size_t len)
{
	return (len == 18 && !memcmp(name, "record_param_comms", 18)) ||
	       (len > 5 && !memcmp(name, "nccl:", 5)) || (len > 6 && !memcmp(name, "c10d::", 6));
}

/* ------------------------------------------------------------------ the calls */

/* A range whose name is a communication call: NCCL's own NVTX ("ncclAllReduce"), a
 * PyTorch annotation ("nccl:all_reduce", "c10d::allreduce_"). Other ranges that happen to
 * hold "send" or "reduce" are not. */
static enum kg_comm_kind range_kind(const char *name)
{
	if (!name || (strncasecmp(name, "nccl", 4) && strncmp(name, "c10d::", 6)))
		return KG_COMM_OTHER;
	return comm_kind_of_name(name);
}

/* The calls to look in: the readers' (with their args) and the ranges that name one. */
struct calls {
	struct kg_comm_call *v;
	uint32_t n;
	const struct kg_comm_call **by_corr;   /* those with a correlation, by it */
	uint32_t n_corr;
	const struct kg_comm_call **by_thread; /* the others, by thread then start */
	uint32_t n_thread;
};

static int by_corr(const void *pa, const void *pb)
{
	const struct kg_comm_call *a = *(const struct kg_comm_call *const *)pa,
				  *b = *(const struct kg_comm_call *const *)pb;
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	return (a->correlation > b->correlation) - (a->correlation < b->correlation);
}

static int by_thread_start(const void *pa, const void *pb)
{
	const struct kg_comm_call *a = *(const struct kg_comm_call *const *)pa,
				  *b = *(const struct kg_comm_call *const *)pb;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int calls_build(const struct kg_model *m, struct calls *c)
{
	uint32_t n = m->n_comm_calls;
	uint8_t *kind_of = calloc((size_t)m->strings.count + 2, 1); /* 1 + kind, 0 not seen */
	for (uint32_t i = 0; kind_of && i < m->n_ranges; i++) {
		uint32_t nm = m->ranges[i].name;
		if (nm <= m->strings.count && !kind_of[nm])
			kind_of[nm] = (uint8_t)(1 + range_kind(model_text(m, nm)));
		n += nm <= m->strings.count && kind_of[nm] > 1 && m->ranges[i].thread != KG_NONE;
	}
	c->v = malloc(((size_t)n + 1) * sizeof(*c->v));
	c->by_corr = malloc(((size_t)n + 1) * sizeof(*c->by_corr));
	c->by_thread = malloc(((size_t)n + 1) * sizeof(*c->by_thread));
	if (!kind_of || !c->v || !c->by_corr || !c->by_thread) {
		free(kind_of);
		return -ENOMEM;
	}
	if (m->n_comm_calls) /* none: comm_calls may be NULL */
		memcpy(c->v, m->comm_calls, m->n_comm_calls * sizeof(*c->v));
	c->n = m->n_comm_calls;
	for (uint32_t i = 0; i < m->n_ranges; i++) {
		const struct kg_range *r = &m->ranges[i];
		if (r->name > m->strings.count || kind_of[r->name] <= 1 || r->thread == KG_NONE)
			continue;
		c->v[c->n++] = (struct kg_comm_call){
			.start = r->start, .end = r->end == KG_NO_TIME ? INT64_MAX : r->end,
			.process = r->process, .thread = r->thread, .seq = -1, .peer = -1,
			.kind = (uint8_t)(kind_of[r->name] - 1)};
	}
	free(kind_of);
	for (uint32_t i = 0; i < c->n; i++) {
		if (c->v[i].thread == KG_NONE)
			c->by_corr[c->n_corr++] = &c->v[i];
		else
			c->by_thread[c->n_thread++] = &c->v[i];
	}
	qsort(c->by_corr, c->n_corr, sizeof(*c->by_corr), by_corr);
	qsort(c->by_thread, c->n_thread, sizeof(*c->by_thread), by_thread_start);
	return 0;
}

static void calls_free(struct calls *c)
{
	free(c->v);
	free(c->by_corr);
	free(c->by_thread);
}

/* What a call says fills what the identity does not know yet: the kind when only the
 * kernel's name gave one (a SendRecv kernel of an all-to-all), the sizes, the group. */
static void take(struct kg_comm_id *id, const struct kg_comm_call *c)
{
	if (c->kind != KG_COMM_OTHER && !id->from_call) {
		id->kind = c->kind;
		id->from_call = 1;
	}
	if (!id->elems)
		id->elems = c->elems;
	if (!id->group)
		id->group = c->group;
	if (id->seq < 0)
		id->seq = c->seq;
	if (id->peer < 0 && c->kind == id->kind) /* a recv's peer is no send's */
		id->peer = c->peer;
}

static void by_correlation(const struct calls *c, uint32_t process, uint32_t corr,
			   struct kg_comm_id *id)
{
	struct kg_comm_call key = {.process = process, .correlation = corr};
	const struct kg_comm_call *kp = &key, **hit;
	if (!corr || !c->n_corr)
		return;
	hit = bsearch(&kp, c->by_corr, c->n_corr, sizeof(*c->by_corr), by_corr);
	if (hit)
		take(id, *hit);
}

/* The calls on the thread that enclose time t, innermost (latest start) first. The
 * record_param_comms operator encloses the nccl:* annotation, which encloses the launch:
 * a handful at most, so only the few calls before t are looked at. */
#define ENCLOSING_LOOKBACK 16

static void by_enclosing(const struct calls *c, uint32_t thread, int64_t t, struct kg_comm_id *id)
{
	uint32_t lo = 0, hi = c->n_thread; /* first call after (thread, t) */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct kg_comm_call *x = c->by_thread[mid];
		if (x->thread < thread || (x->thread == thread && x->start <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t k = 0; k < ENCLOSING_LOOKBACK && lo > k; k++) {
		const struct kg_comm_call *x = c->by_thread[lo - 1 - k];
		if (x->thread != thread)
			break;
		if (x->end >= t)
			take(id, x);
	}
}

int comm_identify(const struct kg_model *m, struct kg_comm_id **ids, uint32_t *n)
{
	*ids = NULL;
	*n = 0;
	uint32_t count = 0;
	for (uint32_t i = 0; i < m->n_ops; i++)
		count += (m->ops[i].flags & KG_OPF_COMM) != 0;
	if (!count)
		return 0;
	struct calls c = {0};
	struct kg_comm_id *v = malloc((size_t)count * sizeof(*v));
	/* the kind of each kernel name, read once: a trace repeats a few names */
	uint8_t *name_kind = calloc((size_t)m->strings.count + 2, 1); /* 1 + kind, 0 not yet */
	if (!v || !name_kind || calls_build(m, &c) < 0) {
		free(v);
		free(name_kind);
		calls_free(&c);
		return -ENOMEM;
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (!(o->flags & KG_OPF_COMM))
			continue;
		uint8_t *nk = o->name <= m->strings.count ? &name_kind[o->name] : NULL;
		if (nk && !*nk)
			*nk = (uint8_t)(1 + comm_kind_of_name(model_text(m, o->name)));
		uint8_t kind = nk ? (uint8_t)(*nk - 1) : (uint8_t)KG_COMM_OTHER;
		struct kg_comm_id *id = &v[k++];
		*id = (struct kg_comm_id){.op = i, .seq = -1, .kind = kind, .name_kind = kind,
					  .peer = -1};
		by_correlation(&c, m->streams[o->stream].process, o->correlation, id);
		if (o->api != KG_NONE && o->api < m->n_apis)
			by_enclosing(&c, m->apis[o->api].thread, m->apis[o->api].start, id);
	}
	calls_free(&c);
	free(name_kind);
	*ids = v;
	*n = k;
	return 0;
}

const struct kg_comm_id *comm_id_of(const struct kg_comm_id *ids, uint32_t n, uint32_t op)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ids[mid].op < op)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo].op == op ? &ids[lo] : NULL;
}
