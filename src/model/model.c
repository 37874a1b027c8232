#include "model/model.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/op_order.h"
#include "model/untrue_times.h"
#include "util/array.h"
#include "util/format.h"
#include "util/idmap.h"


/* Lookups used while loading: streams by (process, device, context, id), threads by
 * (process, tid). Keys are hashed to 64 bits; collisions are resolved by checking the
 * element itself. */
struct model_index {
	struct kg_idmap streams, threads;
	struct kg_idmap stacks;  /* by hash of process, flags and frames */
	struct kg_idmap launches; /* by hash of the launch's bytes */
	uint32_t launches_indexed; /* launches[1 .. this) are in the map */
	uint32_t last_stream; /* readers ask for the same stream many times in a row */
	int have_last;
	uint32_t last_thread; /* and API calls come from one thread at a time */
	int have_last_thread;
};

static struct model_index *model_ix(struct kg_model *m)
{
	if (!m->index)
		m->index = calloc(1, sizeof(struct model_index));
	return m->index;
}

static void index_free(struct kg_model *m)
{
	struct model_index *ix = m->index;
	if (!ix)
		return;
	idmap_free(&ix->streams);
	idmap_free(&ix->threads);
	idmap_free(&ix->stacks);
	idmap_free(&ix->launches);
	free(ix);
	m->index = NULL;
}

/* ------------------------------------------------------------------ life cycle */

void model_init(struct kg_model *m, const char *source, const char *path)
{
	memset(m, 0, sizeof(*m));
	strtab_init(&m->strings);
	snprintf(m->source, sizeof(m->source), "%s", source);
	snprintf(m->path, sizeof(m->path), "%s", path ? path : "");
	m->begin = KG_NO_TIME;
	m->end = KG_NO_TIME;
	m->program_start = KG_NO_TIME;
}

void model_free(struct kg_model *m)
{
	strtab_free(&m->strings);
#define FREE_ARRAY(name) free(m->name);
	KG_MODEL_ARRAYS(FREE_ARRAY)
#undef FREE_ARRAY
	index_free(m);
	memset(m, 0, sizeof(*m));
}

static int copy_array(void **dst, uint32_t *n, uint32_t *cap, const void *src, uint32_t count,
		      size_t size)
{
	size_t sz = (size_t)count * size;
	if (!(*dst = malloc(sz ? sz : 1)))
		return -ENOMEM;
	if (sz) /* an empty array may be NULL */
		memcpy(*dst, src, sz);
	*n = *cap = count;
	return 0;
}

int model_clone(const struct kg_model *src, struct kg_model *dst)
{
	model_init(dst, src->source, src->path);
	int rc = 0;
	/* the strings interned again in id order keep their ids */
	for (size_t i = 0; !rc && i < src->strings.count; i++)
		if (model_string(dst, src->strings.entries[i]) != i + 1)
			rc = -ENOMEM;
#define COPY_ARRAY(name)                                                                     \
	if (!rc)                                                                             \
		rc = copy_array((void **)&dst->name, &dst->n_##name, &dst->cap_##name, src->name, \
				src->n_##name, sizeof(*src->name));
	KG_MODEL_ARRAYS(COPY_ARRAY)
#undef COPY_ARRAY
	if (rc) {
		model_free(dst);
		return rc;
	}
	memcpy(dst->stack_note, src->stack_note, sizeof(dst->stack_note));
	dst->begin = src->begin;
	dst->end = src->end;
	dst->dropped = src->dropped;
	dst->command = src->command;
	dst->has_queued = src->has_queued;
	dst->has_api = src->has_api;
	memcpy(dst->untrue, src->untrue, sizeof(dst->untrue));
	dst->times_checked = src->times_checked;
	dst->host_fitted = src->host_fitted;
	dst->gpu_work_calls = src->gpu_work_calls;
	dst->gpu_untraced = src->gpu_untraced;
	dst->unread_rows = src->unread_rows;
	memcpy(dst->notes, src->notes, sizeof(dst->notes));
	dst->n_notes = src->n_notes;
	return 0;
}

uint32_t model_string_n(struct kg_model *m, const char *text, size_t len)
{
	if (!text)
		return 0;
	return strtab_intern(&m->strings, text, len, NULL);
}

uint32_t model_string(struct kg_model *m, const char *text)
{
	return text ? model_string_n(m, text, strlen(text)) : 0;
}

const char *model_text(const struct kg_model *m, uint32_t id)
{
	const char *s = strtab_get(&m->strings, id);
	return s ? s : "";
}

void model_note(struct kg_model *m, const char *fmt, ...)
{
	if (m->n_notes >= (int)(sizeof(m->notes) / sizeof(m->notes[0])))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->notes[m->n_notes++], sizeof(m->notes[0]), fmt, ap);
	va_end(ap);
}

/* Appends one zeroed element to a KG_ARRAY, doubling its storage when full. */
static void *grow(void **arr, uint32_t *n, uint32_t *cap, size_t size)
{
	if (array_room(arr, cap, *n, size, 64) < 0)
		return NULL;
	void *e = (char *)*arr + (size_t)(*n)++ * size;
	memset(e, 0, size);
	return e;
}

static int reserve(void **arr, uint32_t *cap, uint32_t want, size_t size)
{
	if (want <= *cap)
		return 0;
	void *p = realloc(*arr, (size_t)want * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = want;
	array_advise_huge(p, (size_t)want * size);
	return 0;
}

int model_reserve(struct kg_model *m, uint32_t ops, uint32_t apis)
{
	if (!model_ix(m) || reserve((void **)&m->ops, &m->cap_ops, ops, sizeof(*m->ops)) < 0 ||
	    reserve((void **)&m->apis, &m->cap_apis, apis, sizeof(*m->apis)) < 0)
		return -ENOMEM;
	return 0;
}

#define ADD(m, name) grow((void **)&(m)->name, &(m)->n_##name, &(m)->cap_##name, sizeof(*(m)->name))

struct kg_process *model_add_process(struct kg_model *m)
{
	struct kg_process *p = ADD(m, processes);
	if (p) {
		p->start = p->end = p->realtime_offset = KG_NO_TIME;
		p->complete = 1;
	}
	return p;
}

struct kg_device *model_add_device(struct kg_model *m)
{
	struct kg_device *d = ADD(m, devices);
	if (d)
		d->ordinal = -1;
	return d;
}

struct kg_stream *model_add_stream(struct kg_model *m)
{
	struct kg_stream *s = ADD(m, streams);
	if (s)
		s->channel = -1;
	return s;
}

struct kg_thread *model_add_thread(struct kg_model *m)
{
	return ADD(m, threads);
}

void model_op_init(struct kg_op *o)
{
	memset(o, 0, sizeof(*o));
	o->queued = o->submitted = KG_NO_TIME;
	o->api_start = KG_NO_TIME;
	o->api = KG_NONE;
}

void model_api_init(struct kg_api *a)
{
	memset(a, 0, sizeof(*a));
	a->op = KG_NONE;
	a->thread = KG_NONE;
	a->stack = KG_NONE;
}

struct kg_op *model_add_op(struct kg_model *m)
{
	struct kg_op *o = ADD(m, ops);
	if (o)
		model_op_init(o);
	return o;
}

struct kg_api *model_add_api(struct kg_model *m)
{
	struct kg_api *a = ADD(m, apis);
	if (a)
		model_api_init(a);
	return a;
}

struct kg_sync *model_add_sync(struct kg_model *m)
{
	struct kg_sync *s = ADD(m, syncs);
	if (s) {
		s->stream = KG_NONE;
		s->api = KG_NONE;
	}
	return s;
}

struct kg_hw_device *model_add_hw_device(struct kg_model *m)
{
	struct kg_hw_device *d = ADD(m, hw_devices);
	if (d)
		d->device = KG_NONE;
	return d;
}

struct kg_sm_block *model_add_sm_block(struct kg_model *m)
{
	return ADD(m, sm_blocks);
}

struct kg_sm_info *model_add_sm_info(struct kg_model *m)
{
	struct kg_sm_info *x = ADD(m, sm_infos);
	if (x)
		x->offset_mad = x->offset_spread = KG_NO_TIME;
	return x;
}

struct kg_host_sampling *model_add_host_sampling(struct kg_model *m)
{
	return ADD(m, host_samplings);
}

struct kg_comm_call *model_add_comm_call(struct kg_model *m)
{
	struct kg_comm_call *x = ADD(m, comm_calls);
	if (x)
		*x = (struct kg_comm_call){.thread = KG_NONE, .seq = -1, .peer = -1};
	return x;
}

struct kg_hw_sample *model_add_hw_sample(struct kg_model *m)
{
	struct kg_hw_sample *x = ADD(m, hw_samples);
	if (x)
		for (int f = 0; f < KG_HW_N; f++)
			x->v[f] = NAN;
	return x;
}

struct kg_host_span *model_add_tracer_span(struct kg_model *m)
{
	struct kg_host_span *h = ADD(m, tracer_spans);
	if (h) {
		h->thread = h->stack = KG_NONE;
		h->state = KG_HOST_RUNNING;
	}
	return h;
}

struct kg_host_span *model_add_host_span(struct kg_model *m)
{
	struct kg_host_span *h = ADD(m, host_spans);
	if (h) {
		h->thread = h->stack = KG_NONE;
		h->state = KG_HOST_STATE_UNKNOWN;
	}
	return h;
}

static int by_thread_then_end(const void *a, const void *b)
{
	const struct kg_host_span *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

void model_sort_host_spans(struct kg_model *m, uint32_t first)
{
	if (m->n_host_spans > first + 1)
		qsort(m->host_spans + first, m->n_host_spans - first, sizeof(*m->host_spans),
		      by_thread_then_end);
}

/* Each span from where the thread's previous one ends, at the latest: a sample stands for
 * the time since the one before it when that is less than its periods (a thread woken
 * early, a late tick). A span left with no time (two samples at one time) goes. */
void model_cut_host_spans(struct kg_model *m, uint32_t first)
{
	model_sort_host_spans(m, first);
	uint32_t n = first;
	for (uint32_t i = first; i < m->n_host_spans; i++) {
		struct kg_host_span x = m->host_spans[i];
		const struct kg_host_span *prev = n > first ? &m->host_spans[n - 1] : NULL;
		if (prev && prev->thread == x.thread && x.start < prev->end)
			x.start = prev->end;
		if (x.start < x.end)
			m->host_spans[n++] = x;
	}
	m->n_host_spans = n;
}

struct kg_range *model_add_range(struct kg_model *m)
{
	struct kg_range *r = ADD(m, ranges);
	if (r) {
		r->end = KG_NO_TIME;
		r->thread = KG_NONE;
	}
	return r;
}

/* ------------------------------------------------------------------ launches */

const struct kg_launch kg_launch_unknown;

_Static_assert(sizeof(struct kg_launch) == 10 * sizeof(uint32_t),
	       "struct kg_launch has padding: equal launches would not be equal bytes");

static uint64_t launch_hash(const struct kg_launch *l)
{
	uint32_t w[sizeof(*l) / sizeof(uint32_t)];
	memcpy(w, l, sizeof(w));
	uint64_t h = 0;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h = idmap_mix(h ^ ((uint64_t)w[i] << (i % 2 * 32)) ^ i);
	return h | 1;
}

/* The map's slot of launch l: holding its index, or KG_IDMAP_NONE when l is not in the
 * table (equal hashes of different launches probe on). NULL when out of memory. */
static uint32_t *launch_table_slot(const struct kg_model *m, struct model_index *ix,
			     const struct kg_launch *l)
{
	for (uint64_t k = launch_hash(l);; k = idmap_mix(k) | 1) {
		uint32_t *slot = idmap_slot(&ix->launches, k);
		if (!slot || *slot == KG_IDMAP_NONE ||
		    !memcmp(&m->launches[*slot], l, sizeof(*l)))
			return slot;
	}
}

/* The map is dropped when the model is finished: a later model_launch (a restricted or
 * cloned model) puts the table back in first. */
static int index_launch_table(struct kg_model *m, struct model_index *ix)
{
	for (uint32_t i = ix->launches_indexed > 1 ? ix->launches_indexed : 1; i < m->n_launches;
	     i++) {
		uint32_t *slot = launch_table_slot(m, ix, &m->launches[i]);
		if (!slot)
			return -ENOMEM;
		if (*slot == KG_IDMAP_NONE)
			*slot = i;
	}
	ix->launches_indexed = m->n_launches;
	return 0;
}

uint32_t model_launch(struct kg_model *m, const struct kg_launch *l)
{
	if (!memcmp(l, &kg_launch_unknown, sizeof(*l)))
		return 0;
	struct model_index *ix = model_ix(m);
	if (!ix || index_launch_table(m, ix) < 0)
		return KG_NONE;
	uint32_t *slot = launch_table_slot(m, ix, l);
	if (!slot)
		return KG_NONE;
	if (*slot != KG_IDMAP_NONE)
		return *slot;
	if (!m->n_launches && !ADD(m, launches)) /* [0]: nothing known */
		return KG_NONE;
	struct kg_launch *e = ADD(m, launches);
	if (!e)
		return KG_NONE;
	*e = *l;
	*slot = m->n_launches - 1;
	ix->launches_indexed = m->n_launches;
	return *slot;
}

/* ------------------------------------------------------------------ streams, threads */

static uint32_t stream_lookup(struct kg_model *m, struct model_index *ix, uint32_t process,
			      uint32_t device, uint32_t context, int64_t id);

uint32_t model_stream_index(struct kg_model *m, uint32_t process, uint32_t device,
			    uint32_t context, int64_t id)
{
	struct model_index *ix = model_ix(m);
	if (!ix)
		return KG_NONE;
	if (ix->have_last) {
		const struct kg_stream *l = &m->streams[ix->last_stream];
		if (l->process == process && l->device == device && l->context == context &&
		    l->id == id)
			return ix->last_stream;
	}
	uint32_t found_stream = stream_lookup(m, ix, process, device, context, id);
	if (found_stream != KG_NONE) {
		ix->last_stream = found_stream;
		ix->have_last = 1;
	}
	return found_stream;
}

static uint32_t stream_lookup(struct kg_model *m, struct model_index *ix, uint32_t process,
			      uint32_t device, uint32_t context, int64_t id)
{
	uint64_t key = idmap_mix(((uint64_t)process << 40) ^ ((uint64_t)device << 32) ^
			     ((uint64_t)context << 20) ^ idmap_mix((uint64_t)id)) | 1;
	/* probe until the slot holds this exact stream (hash collisions move on) */
	for (uint64_t k = key;; k = idmap_mix(k) | 1) {
		uint32_t *slot = idmap_slot(&ix->streams, k);
		int found = slot && *slot != KG_IDMAP_NONE;
		if (!slot)
			return KG_NONE;
		if (found) {
			struct kg_stream *s = &m->streams[*slot];
			if (s->process == process && s->device == device && s->context == context &&
			    s->id == id)
				return *slot;
			continue;
		}
		struct kg_stream *s = model_add_stream(m);
		if (!s)
			return KG_NONE;
		s->process = process;
		s->device = device;
		s->context = context;
		s->id = id;
		*slot = m->n_streams - 1;
		return *slot;
	}
}

static uint32_t thread_lookup(struct kg_model *m, struct model_index *ix, uint32_t process,
			      int64_t tid);

uint32_t model_thread_index(struct kg_model *m, uint32_t process, int64_t tid)
{
	struct model_index *ix = model_ix(m);
	if (!ix)
		return KG_NONE;
	if (ix->have_last_thread) {
		const struct kg_thread *l = &m->threads[ix->last_thread];
		if (l->process == process && l->tid == tid)
			return ix->last_thread;
	}
	uint32_t t = thread_lookup(m, ix, process, tid);
	if (t != KG_NONE) {
		ix->last_thread = t;
		ix->have_last_thread = 1;
	}
	return t;
}

static uint32_t thread_lookup(struct kg_model *m, struct model_index *ix, uint32_t process,
			      int64_t tid)
{
	uint64_t key = idmap_mix(((uint64_t)process << 44) ^ (uint64_t)tid) | 1;
	for (uint64_t k = key;; k = idmap_mix(k) | 1) {
		uint32_t *slot = idmap_slot(&ix->threads, k);
		int found = slot && *slot != KG_IDMAP_NONE;
		if (!slot)
			return KG_NONE;
		if (found) {
			struct kg_thread *t = &m->threads[*slot];
			if (t->process == process && t->tid == tid)
				return *slot;
			continue;
		}
		struct kg_thread *t = model_add_thread(m);
		if (!t)
			return KG_NONE;
		t->process = process;
		t->tid = tid;
		*slot = m->n_threads - 1;
		return *slot;
	}
}

/* ------------------------------------------------------------------ classification */

/* A name table from a kind list (its codes are 0, 1, 2 ... in order). */
#define KIND_NAME_(id, code, name) name,
#define KIND_NAMES_FN(fn, LIST, other)                                                 \
	const char *fn(unsigned kind)                                                  \
	{                                                                              \
		static const char *const names[] = {LIST(KIND_NAME_)};                 \
		return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : other;  \
	}
KIND_NAMES_FN(copy_kind_name, KG_COPY_KINDS, "unknown")
KIND_NAMES_FN(mem_kind_name, KG_MEM_KINDS, "unknown")
KIND_NAMES_FN(stream_kind_name, KG_STREAM_KINDS, NULL)
KIND_NAMES_FN(sync_kind_name, KG_SYNC_KINDS, "unknown")
KIND_NAMES_FN(op_kind_name, KG_OP_KINDS, "unknown")

const char *host_state_name(unsigned state)
{
#define KG_HOST_STATE_NAME_(id, code, name) if (state == code) return name;
	KG_HOST_STATES(KG_HOST_STATE_NAME_)
#undef KG_HOST_STATE_NAME_
	return host_state_name(KG_HOST_STATE_UNKNOWN);
}
#undef KIND_NAMES_FN
#undef KIND_NAME_

/* Static kinds read as their plain kind in labels: the user cares where memory lives. */
static const char *label_mem_name(unsigned kind)
{
	return mem_kind_name(kind == KG_MEM_DEVICE_STATIC ? KG_MEM_DEVICE
			     : kind == KG_MEM_MANAGED_STATIC ? KG_MEM_MANAGED
							     : kind);
}

uint32_t model_copy_label(struct kg_model *m, const struct kg_op *o)
{
	char label[96];
	if (o->kind == KG_OP_MEMSET)
		snprintf(label, sizeof(label), "memset %s", label_mem_name(o->dst_kind));
	else
		snprintf(label, sizeof(label), "memcpy %s %s→%s", copy_kind_name(o->copy_kind),
			 label_mem_name(o->src_kind), label_mem_name(o->dst_kind));
	return model_string(m, label);
}

int model_launches_sampled(const struct kg_model *m)
{
	for (uint32_t p = 0; p < m->n_processes; p++)
		if (m->processes[p].launches_sampled)
			return 1;
	return 0;
}

uint64_t model_undated_kernels(const struct kg_model *m)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		uint32_t p = m->streams[o->stream].process;
		n += o->kind == KG_OP_KERNEL && p < m->n_processes &&
		     m->processes[p].launches_sampled && op_issued(m, o) == KG_NO_TIME;
	}
	return n;
}

int kernel_is_comm(const char *name)
{
	return name && (strstr(name, "nccl") || strstr(name, "NCCL") || strstr(name, "rccl") ||
			strstr(name, "nvshmem") || strstr(name, "AllReduce") ||
			strstr(name, "all_reduce") || strstr(name, "allreduce"));
}

enum kg_vendor model_vendor_of_name(const char *name)
{
	static const char *const amd[] = {"AMD", "Radeon", "Instinct"};
	static const char *const nvidia[] = {"NVIDIA", "Tesla", "GeForce", "Quadro", "TITAN"};
	for (size_t i = 0; name && i < sizeof(amd) / sizeof(amd[0]); i++)
		if (strstr(name, amd[i]))
			return KG_VENDOR_AMD;
	for (size_t i = 0; name && i < sizeof(nvidia) / sizeof(nvidia[0]); i++)
		if (strstr(name, nvidia[i]))
			return KG_VENDOR_NVIDIA;
	return KG_VENDOR_UNKNOWN;
}

/* Devices whose reader did not say who made them (kgantt traces: always CUDA's names). */
static void vendors_from_names(struct kg_model *m)
{
	for (uint32_t i = 0; i < m->n_devices; i++)
		if (m->devices[i].vendor == KG_VENDOR_UNKNOWN)
			m->devices[i].vendor = (uint8_t)model_vendor_of_name(model_text(m, m->devices[i].name));
}

int64_t device_link_bytes_per_s(const struct kg_device *d)
{
	/* bytes/s per lane and direction: 2.5 and 5 GT/s with 8b/10b, then 128b/130b at 8,
	 * 16 and 32 GT/s, then 64 GT/s in 256-byte FLITs carrying 236 bytes of packets */
	static const int64_t lane[] = {0, 250000000, 500000000, 984615384, 1969230769,
				       3938461538, 7375000000};
	if (!d->pcie_gen || d->pcie_gen >= sizeof(lane) / sizeof(lane[0]))
		return 0;
	return lane[d->pcie_gen] * d->pcie_lanes;
}

const char *model_thread_label(const struct kg_model *m, const struct kg_thread *t, char *buf,
			       size_t len)
{
	const char *name = model_text(m, t->name);
	char tid[24];
	snprintf(tid, sizeof(tid), "%" PRId64, t->tid);
	if (*name && strstr(name, tid)) /* PyTorch names its threads "thread 924 (python3)" */
		snprintf(buf, len, "%s", name);
	else if (*name)
		snprintf(buf, len, "%s (thread %s)", name, tid);
	else
		snprintf(buf, len, "thread %s", tid);
	return buf;
}

/* ------------------------------------------------------------------ canonical order */

/* Streams by (process, device, context, id) and host threads by (process, tid), whatever
 * order a reader met them in (two reading threads meet them in either order): reports,
 * chart lanes and exports list them the same way on every run and from every reader. */
static int stream_cmp(const void *x, const void *y, void *model)
{
	const struct kg_model *m = model;
	const struct kg_stream *a = &m->streams[*(const uint32_t *)x];
	const struct kg_stream *b = &m->streams[*(const uint32_t *)y];
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->context != b->context)
		return a->context < b->context ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static int thread_cmp(const void *x, const void *y, void *model)
{
	const struct kg_model *m = model;
	const struct kg_thread *a = &m->threads[*(const uint32_t *)x];
	const struct kg_thread *b = &m->threads[*(const uint32_t *)y];
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* Sorts n elements of `size` bytes by cmp and returns old index → new index, or NULL
 * when they were in order already (or, with *rc = -ENOMEM, out of memory). */
static uint32_t *renumber(void *array, uint32_t n, size_t size,
			  int (*cmp)(const void *, const void *, void *), void *arg, int *rc)
{
	uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
	uint32_t *map = malloc(((size_t)n + 1) * sizeof(*map));
	char *copy = malloc((size_t)n * size + 1);
	*rc = order && map && copy ? 0 : -ENOMEM;
	int moved = 0;
	if (!*rc) {
		for (uint32_t i = 0; i < n; i++)
			order[i] = i;
		qsort_r(order, n, sizeof(*order), cmp, arg);
		for (uint32_t i = 0; i < n; i++) {
			map[order[i]] = i;
			moved |= order[i] != i;
		}
	}
	if (moved) {
		memcpy(copy, array, (size_t)n * size);
		for (uint32_t i = 0; i < n; i++)
			memcpy((char *)array + (size_t)i * size, copy + (size_t)order[i] * size, size);
	}
	free(order);
	free(copy);
	if (!moved) {
		free(map);
		return NULL;
	}
	return map;
}

static int canonical_streams(struct kg_model *m)
{
	int rc;
	uint32_t *map = renumber(m->streams, m->n_streams, sizeof(*m->streams), stream_cmp, m, &rc);
	if (!map)
		return rc;
	for (uint32_t i = 0; i < m->n_ops; i++)
		m->ops[i].stream = map[m->ops[i].stream];
	for (uint32_t i = 0; i < m->n_syncs; i++)
		if (m->syncs[i].stream < m->n_streams)
			m->syncs[i].stream = map[m->syncs[i].stream];
	free(map);
	return 0;
}

/* The threads in order; *map (old → new, NULL when nothing moved) is for the API calls,
 * renumbered in index_launches' pass over them. */
static int canonical_threads(struct kg_model *m, uint32_t **map)
{
	int rc;
	*map = renumber(m->threads, m->n_threads, sizeof(*m->threads), thread_cmp, m, &rc);
	for (uint32_t i = 0; *map && i < m->n_ranges; i++)
		if (m->ranges[i].thread < m->n_threads)
			m->ranges[i].thread = (*map)[m->ranges[i].thread];
	for (uint32_t i = 0; *map && i < m->n_host_spans; i++)
		if (m->host_spans[i].thread < m->n_threads)
			m->host_spans[i].thread = (*map)[m->host_spans[i].thread];
	for (uint32_t i = 0; *map && i < m->n_tracer_spans; i++)
		if (m->tracer_spans[i].thread < m->n_threads)
			m->tracer_spans[i].thread = (*map)[m->tracer_spans[i].thread];
	for (uint32_t i = 0; *map && i < m->n_comm_calls; i++)
		if (m->comm_calls[i].thread < m->n_threads)
			m->comm_calls[i].thread = (*map)[m->comm_calls[i].thread];
	return rc;
}

/* Widens [*begin, *end] to take in [start, end] (KG_NO_TIME: unknown). A record whose end
 * is unknown (a call the source lost the end of) reaches its start at least: else a trace
 * of such calls days apart had no span to be refused for. */
static void widen(int64_t *begin, int64_t *end, int64_t start, int64_t stop)
{
	if (stop == KG_NO_TIME)
		stop = start;
	if (start != KG_NO_TIME && (*begin == KG_NO_TIME || start < *begin))
		*begin = start;
	if (stop != KG_NO_TIME && (*end == KG_NO_TIME || stop > *end))
		*end = stop;
}

static void note_time(struct kg_model *m, int64_t start, int64_t end)
{
	widen(&m->begin, &m->end, start, end);
}

/* Devices of different processes that are the same physical GPU become one kg_gpu. */
static int build_gpus(struct kg_model *m)
{
	struct kg_idmap seen = {0};
	for (uint32_t i = 0; i < m->n_devices; i++) {
		struct kg_device *d = &m->devices[i];
		uint32_t host = d->process < m->n_processes ? m->processes[d->process].host : 0;
		uint64_t key = d->uuid ? idmap_mix((uint64_t)d->uuid) | 1
				       : idmap_mix(((uint64_t)host << 32) ^ (uint32_t)d->ordinal ^
					       0x5bd1e995ull) | 1;
		uint32_t *slot = idmap_slot(&seen, key);
		int found = slot && *slot != KG_IDMAP_NONE;
		if (!slot) {
			idmap_free(&seen);
			return -ENOMEM;
		}
		if (!found) {
			struct kg_gpu *g = ADD(m, gpus);
			if (!g) {
				idmap_free(&seen);
				return -ENOMEM;
			}
			g->device = i;
			g->host = host;
			g->uuid = d->uuid;
			g->ordinal = d->ordinal;
			*slot = m->n_gpus - 1;
		}
		d->gpu = *slot;
	}
	idmap_free(&seen);
	return 0;
}

/* Classifies each distinct name once: a million calls share a few dozen names. Value
 * 0 = not yet computed, else class + 1. */
static uint8_t *name_class_cache(const struct kg_model *m)
{
	return calloc((size_t)m->strings.count + 2, 1);
}

/* ------------------------------------------------------------------ launch calls */

/* API calls by (process, correlation id). CUPTI numbers the calls of a process 1, 2, 3...
 * so a dense table per process (4 bytes a call) is the usual case; ids from elsewhere that
 * are too sparse for that go through a hash map. */
struct launch_index {
	uint32_t *first;   /* per process: offset of its table in slots */
	uint32_t *limit;   /* per process: correlation ids below this are in the table */
	uint32_t *slots;   /* api index or KG_NONE */
	struct kg_idmap sparse;
	int dense;
};

static void launch_index_free(struct launch_index *li)
{
	free(li->first);
	free(li->limit);
	free(li->slots);
	idmap_free(&li->sparse);
}

static uint32_t *launch_slot(struct launch_index *li, uint32_t process, uint32_t correlation)
{
	if (li->dense)
		return correlation < li->limit[process] ? &li->slots[li->first[process] + correlation]
							: NULL;
	return idmap_slot(&li->sparse, ((uint64_t)(process + 1) << 32) | correlation);
}

static uint32_t launch_get(const struct launch_index *li, uint32_t process, uint32_t correlation)
{
	if (li->dense)
		return correlation < li->limit[process] ? li->slots[li->first[process] + correlation]
							: KG_NONE;
	return idmap_get(&li->sparse, ((uint64_t)(process + 1) << 32) | correlation);
}

static int launch_index_init(struct launch_index *li, const struct kg_model *m)
{
	memset(li, 0, sizeof(*li));
	uint32_t np = m->n_processes + 1; /* + 1: calls of no known process */
	li->first = calloc(np, sizeof(*li->first));
	li->limit = calloc(np, sizeof(*li->limit));
	if (!li->first || !li->limit)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_apis; i++) {
		const struct kg_api *a = &m->apis[i];
		uint32_t p = a->process < np ? a->process : np - 1;
		if (a->correlation >= li->limit[p])
			li->limit[p] = a->correlation == UINT32_MAX ? UINT32_MAX : a->correlation + 1;
	}
	uint64_t total = 0;
	for (uint32_t p = 0; p < np; p++) {
		li->first[p] = (uint32_t)total;
		total += li->limit[p];
	}
	/* a table no more than 4 times the calls (a process that numbers from a large first
	 * id, or several processes, still fit) */
	li->dense = total <= 4 * (uint64_t)m->n_apis + 4096;
	if (!li->dense)
		return idmap_reserve(&li->sparse, m->n_apis);
	li->slots = malloc((size_t)(total + 1) * sizeof(*li->slots));
	if (!li->slots)
		return -ENOMEM;
	memset(li->slots, 0xff, (size_t)(total + 1) * sizeof(*li->slots));
	return 0;
}

/* What model_finish judges records by (untrue_times.h): the body, NULL when the model was
 * judged once already; what was left out; the calls' old index → new, once one was. */
struct judging {
	const struct untrue_body *body;
	struct untrue_tally tally;
	uint32_t *api_map;
	uint32_t n_apis;              /* before any was left out */
};

/* 1 when call i is left out (counted), 0 when it stays as call n, -ENOMEM. */
static int call_left_out(struct kg_model *m, struct judging *j, uint32_t i, uint32_t n)
{
	const struct kg_api *a = &m->apis[i];
	int why = j->body ? untrue_judge(j->body, a->start, a->end) : -1;
	if (why < 0) {
		if (j->api_map)
			j->api_map[i] = n;
		return 0;
	}
	if (!j->api_map) {
		if (!(j->api_map = malloc(((size_t)m->n_apis + 1) * sizeof(*j->api_map))))
			return -ENOMEM;
		for (uint32_t k = 0; k < i; k++)
			j->api_map[k] = k;
	}
	j->api_map[i] = KG_NONE;
	untrue_count(&j->tally, KG_UNTRUE_API, why, a->name);
	return 1;
}

/* Leaves out the calls whose times cannot be true, categorises the others, renumbers
 * their thread (thread_map, may be NULL) and indexes those with a correlation id. */
static int index_launches(struct kg_model *m, struct launch_index *li, const uint32_t *thread_map,
			  struct judging *j)
{
	if (launch_index_init(li, m) < 0)
		return -ENOMEM;
	uint8_t *cls = name_class_cache(m);
	if (!cls)
		return -ENOMEM;
	uint32_t np = m->n_processes + 1, n = 0;
	int rc = 0;
	m->gpu_work_calls = 0;
	for (uint32_t i = 0; i < m->n_apis && rc >= 0; i++) {
		if ((rc = call_left_out(m, j, i, n)) != 0)
			continue;
		struct kg_api *a = &m->apis[n++];
		if (a != &m->apis[i])
			*a = m->apis[i];
		a->op = KG_NONE;
		if (thread_map && a->thread < m->n_threads)
			a->thread = thread_map[a->thread];
		if (a->name <= m->strings.count) {
			if (!cls[a->name])
				cls[a->name] = (uint8_t)(api_category(model_text(m, a->name)) + 1);
			a->category = (uint8_t)(cls[a->name] - 1);
		} else {
			a->category = (uint8_t)api_category(model_text(m, a->name));
		}
		m->gpu_work_calls += a->category == KG_API_LAUNCH || a->category == KG_API_MEMCPY ||
				     a->category == KG_API_MEMSET;
		if (!a->correlation)
			continue;
		uint32_t *slot = launch_slot(li, a->process < np ? a->process : np - 1, a->correlation);
		if (!slot) {
			rc = -ENOMEM;
			break;
		}
		/* runtime and driver calls can share a correlation id: keep the outer (runtime)
		 * call, which starts first, as the launch the user wrote */
		if (*slot == KG_NONE || a->start < m->apis[*slot].start)
			*slot = n - 1;
	}
	free(cls);
	if (rc >= 0)
		m->n_apis = n;
	return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------ call stacks */

static uint64_t stack_hash(uint32_t process, const struct kg_frame *f, uint32_t n,
			   uint32_t flags)
{
	uint64_t h = idmap_mix(((uint64_t)process << 32) ^ flags ^ ((uint64_t)n << 48));
	for (uint32_t i = 0; i < n; i++) {
		h = idmap_mix(h ^ f[i].address ^ ((uint64_t)f[i].kind << 56));
		h = idmap_mix(h ^ f[i].function ^ ((uint64_t)f[i].file << 32));
		h = idmap_mix(h ^ f[i].module ^ ((uint64_t)(uint32_t)f[i].line << 32));
	}
	return h;
}

int model_same_frame(const struct kg_frame *a, const struct kg_frame *b)
{
	return a->address == b->address && a->function == b->function && a->file == b->file &&
	       a->module == b->module && a->line == b->line && a->kind == b->kind &&
	       a->flags == b->flags;
}

static int same_frames(const struct kg_frame *a, const struct kg_frame *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (!model_same_frame(&a[i], &b[i]))
			return 0;
	return 1;
}

uint32_t model_add_stack(struct kg_model *m, uint32_t process, const struct kg_frame *frames,
			 uint32_t n, uint32_t flags)
{
	struct model_index *ix = model_ix(m);
	if (!ix)
		return KG_NONE;
	/* equal hashes of different stacks are told apart by probing the next key */
	uint64_t key = stack_hash(process, frames, n, flags);
	for (int probe = 0; probe < 64; probe++, key = idmap_mix(key + 1)) {
		uint32_t *slot = idmap_slot(&ix->stacks, key >> 1);
		if (!slot)
			return KG_NONE;
		if (*slot != KG_IDMAP_NONE) {
			const struct kg_stack *s = &m->stacks[*slot];
			if (s->process == process && s->flags == flags && s->n_frames == n &&
			    same_frames(&m->frames[s->first_frame], frames, n))
				return *slot;
			continue;
		}
		if (m->n_frames + (uint64_t)n >= UINT32_MAX ||
		    reserve((void **)&m->frames, &m->cap_frames,
			    m->n_frames + n > m->cap_frames ? (m->n_frames + n) * 2 + 64 : 0,
			    sizeof(*m->frames)) < 0)
			return KG_NONE;
		struct kg_stack *s = ADD(m, stacks);
		if (!s)
			return KG_NONE;
		s->first_frame = m->n_frames;
		s->n_frames = n;
		s->process = process;
		s->flags = flags;
		if (n)
			memcpy(&m->frames[m->n_frames], frames, n * sizeof(*frames));
		m->n_frames += n;
		*slot = m->n_stacks - 1;
		return *slot;
	}
	return KG_NONE;
}

int model_add_stack_ref(struct kg_model *m, uint32_t process, uint32_t correlation,
			uint32_t stack)
{
	struct kg_stack_ref *r = ADD(m, stack_refs);
	if (!r)
		return -ENOMEM;
	r->process = process;
	r->correlation = correlation;
	r->stack = stack;
	return 0;
}

/* Each stack reference names its call by correlation id: the outer (runtime) call of
 * that id, as for launches. */
static void link_stacks(struct kg_model *m, const struct launch_index *li)
{
	uint32_t np = m->n_processes + 1;
	for (uint32_t i = 0; i < m->n_stack_refs; i++) {
		const struct kg_stack_ref *r = &m->stack_refs[i];
		if (r->stack >= m->n_stacks)
			continue;
		uint32_t a = launch_get(li, r->process < np ? r->process : np - 1, r->correlation);
		if (a != KG_NONE)
			m->apis[a].stack = r->stack;
	}
}

/* ------------------------------------------------------------------ finish */

/* What model_finish does to each op: span, flags and the link to its launch call, done
 * where the reader left the ops, before they move (so the index of the calls by
 * correlation id is freed before the sort keys are made: the two never take memory at
 * once). Two threads share the work, each a half of the ops; what both would write is
 * kept per part and merged after. */
struct link_part {
	struct kg_model *m;
	const struct launch_index *li;
	const struct untrue_body *body; /* NULL: judged already */
	struct untrue_tally tally;      /* ops left out */
	uint32_t from, to;
	int64_t begin, end;
	int has_queued;
	uint32_t foreign;      /* kernels whose correlation id named a call that could not
				* have launched them (foreign_call) */
	uint8_t *comm;         /* name class cache: 2 = communication kernel */
};

/* The driver queues a launch while its call runs (on the H200 at least 0.9 µs before the
 * call returns, median 1.3-1.5 µs, over every launch of the fixtures launches_bad and
 * gpt_default); one queued later than this after its call ended was launched by another
 * call that carries the same correlation id. */
#define FOREIGN_CALL_SLACK_NS 20000

/* 1 when call a cannot have launched o: o was queued after a had returned. CUPTI once gave
 * every call and kernel of a run, from the 89th on, correlation id 89 (H100, 2026-12-05):
 * joined by it, 150,000 kernels had a "launch latency" of 1.6 s and launch-latency a gain
 * of 245,815 s in a 3.5 s trace. */
static int foreign_call(const struct kg_op *o, const struct kg_api *a)
{
	/* a graph's kernels share its launch's id and may be queued long after it returned */
	return !(o->flags & KG_OPF_GRAPH) && o->queued != KG_NO_TIME && a->end != KG_NO_TIME &&
	       o->queued > kg_time_add(a->end, FOREIGN_CALL_SLACK_NS);
}

/* Whether a kernel's queued or submitted time t can be true: not after the kernel
 * started, not before the call that launched it (after), and not longer before the start
 * than any recording lasts, which bounds it where no call does. */
static int queue_time_true(const struct kg_op *o, int64_t t, int64_t after)
{
	return t <= o->start && t >= after && kg_time_diff(o->start, t) <= KG_LONGEST_NS;
}

/* Queue times that cannot be true (a damaged trace: a queue wait of -3 days, or of 286
 * years) are unknown, as in a trace without them. api_start: KG_NO_TIME when not known
 * yet. */
static void judge_queue(struct kg_op *o, int64_t api_start)
{
	int64_t after = api_start != KG_NO_TIME ? api_start : INT64_MIN;
	if (o->queued != KG_NO_TIME && !queue_time_true(o, o->queued, after))
		o->queued = KG_NO_TIME;
	if (o->submitted != KG_NO_TIME &&
	    (!queue_time_true(o, o->submitted, after) ||
	     (o->queued != KG_NO_TIME && o->submitted < o->queued)))
		o->submitted = KG_NO_TIME;
}

static void link_op(struct link_part *p, struct kg_op *o)
{
	struct kg_model *m = p->m;
	o->api = KG_NONE;
	o->api_start = KG_NO_TIME;
	int why = p->body ? untrue_judge(p->body, o->start, o->end) : -1;
	if (why >= 0) { /* model_order_ops drops it */
		untrue_count(&p->tally, untrue_op_kind(o), why, o->name);
		o->flags |= KG_OPF_LEFT_OUT;
		return;
	}
	widen(&p->begin, &p->end, o->start, o->end);
	if (o->kind == KG_OP_KERNEL) {
		judge_queue(o, KG_NO_TIME);
		if (o->queued != KG_NO_TIME)
			p->has_queued = 1;
		if (o->name <= m->strings.count) {
			if (!p->comm[o->name])
				p->comm[o->name] = (uint8_t)(kernel_is_comm(model_text(m, o->name)) + 1);
			if (p->comm[o->name] == 2)
				o->flags |= KG_OPF_COMM;
		}
	}
	if (!o->correlation)
		return;
	uint32_t process = m->streams[o->stream].process;
	uint32_t ai = launch_get(p->li, process < m->n_processes ? process : m->n_processes,
				 o->correlation);
	if (ai == KG_NONE)
		return;
	if (foreign_call(o, &m->apis[ai])) {
		p->foreign++;
		return;
	}
	o->api = ai;
	o->api_start = m->apis[ai].start;
	judge_queue(o, o->api_start);
}

/* After the links: a kernel whose launch call was not sampled is dated by its queued time
 * (op_issued). */
static void mark_issued_queued(const struct kg_model *m, struct kg_op *o)
{
	uint32_t process = m->streams[o->stream].process;
	o->flags &= (uint16_t)~KG_OPF_ISSUED_QUEUED;
	if (o->kind == KG_OP_KERNEL && o->api_start == KG_NO_TIME && o->queued != KG_NO_TIME &&
	    process < m->n_processes && m->processes[process].launches_sampled)
		o->flags |= KG_OPF_ISSUED_QUEUED;
}

static void *link_part_main(void *arg)
{
	struct link_part *p = arg;
	for (uint32_t i = p->from; i < p->to; i++) {
		link_op(p, &p->m->ops[i]);
		mark_issued_queued(p->m, &p->m->ops[i]);
	}
	return NULL;
}

static int link_ops(struct kg_model *m, const struct launch_index *li, struct judging *j)
{
	struct link_part part[2];
	uint32_t half = m->n_ops / 2;
	for (int k = 0; k < 2; k++)
		part[k] = (struct link_part){.m = m, .li = li, .body = j->body, .from = k ? half : 0,
					     .to = k ? m->n_ops : half, .begin = KG_NO_TIME,
					     .end = KG_NO_TIME, .comm = name_class_cache(m)};
	int rc = part[0].comm && part[1].comm ? 0 : -ENOMEM;
	if (!rc) {
		pthread_t second;
		int threaded = m->n_ops > 65536 &&
			       pthread_create(&second, NULL, link_part_main, &part[1]) == 0;
		link_part_main(&part[0]);
		if (threaded)
			pthread_join(second, NULL);
		else
			link_part_main(&part[1]);
	}
	/* ops before calls in the note's "first": the ops are the ones that show */
	struct untrue_tally calls = j->tally;
	j->tally = (struct untrue_tally){0};
	if (part[0].foreign + part[1].foreign) {
		char n[32];
		model_note(m, "%s kernels were queued after the call their correlation id names had "
			      "returned: that call did not launch them (the recorder gave several "
			      "calls one id), so their launch calls are unknown",
			   fmt_count(part[0].foreign + part[1].foreign, n));
	}
	for (int k = 0; k < 2; k++) {
		note_time(m, part[k].begin, part[k].end);
		m->has_queued |= part[k].has_queued;
		free(part[k].comm);
		untrue_merge(&j->tally, &part[k].tally);
	}
	untrue_merge(&j->tally, &calls);
	return rc;
}

/* Each API call's first op in the final order (index_launches cleared them). */
static void first_ops(struct kg_model *m)
{
	for (uint32_t i = 0; i < m->n_ops; i++) {
		uint32_t ai = m->ops[i].api;
		if (ai < m->n_apis && m->apis[ai].op == KG_NONE)
			m->apis[ai].op = i;
	}
}

static int by_device_then_start(const void *a, const void *b)
{
	const struct kg_hw_sample *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* Samples in (device, start) order, for the analysis' and charts' walks. */
static void sort_hw_samples(struct kg_model *m)
{
	for (uint32_t i = 1; i < m->n_hw_samples; i++)
		if (by_device_then_start(&m->hw_samples[i - 1], &m->hw_samples[i]) > 0) {
			qsort(m->hw_samples, m->n_hw_samples, sizeof(*m->hw_samples),
			      by_device_then_start);
			return;
		}
}

void model_hw_sample_range(const struct kg_model *m, uint32_t d, uint32_t *first, uint32_t *end)
{
	uint32_t lo = 0, hi = m->n_hw_samples;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->hw_samples[mid].device < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo < m->n_hw_samples && m->hw_samples[lo].device == d)
		lo++;
	*end = lo;
}

static int sm_block_cmp(const void *a, const void *b, void *model)
{
	const struct kg_model *m = model;
	const struct kg_sm_block *x = a, *y = b;
	uint32_t dx = m->streams[m->ops[x->op].stream].device;
	uint32_t dy = m->streams[m->ops[y->op].stream].device;
	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (x->sm != y->sm)
		return x->sm < y->sm ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int host_span_cmp(const void *a, const void *b)
{
	const struct kg_host_span *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* Host spans (and the tracer's) by (thread, start): the attribution looks up a thread's
 * spans in a gap. */
static void sort_host_spans(struct kg_host_span *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		if (host_span_cmp(&v[i - 1], &v[i]) > 0) {
			qsort(v, n, sizeof(*v), host_span_cmp);
			return;
		}
}

/* Blocks by (device, SM, start): each SM's lane is one run. Blocks of no op (a reader's
 * mistake) are dropped first, so the comparison never looks past the ops. */
static void sort_sm_blocks(struct kg_model *m)
{
	drop_sm_blocks_of_no_op(m);
	uint32_t n = m->n_sm_blocks;
	for (uint32_t i = 1; i < n; i++)
		if (sm_block_cmp(&m->sm_blocks[i - 1], &m->sm_blocks[i], m) > 0) {
			qsort_r(m->sm_blocks, n, sizeof(*m->sm_blocks), sm_block_cmp, m);
			return;
		}
}

struct proc_lead {
	uint32_t process;
	int64_t lead;
};

static int by_process_lead(const void *a, const void *b)
{
	const struct proc_lead *x = a, *y = b;
	if (x->process != y->process)
		return (x->process > y->process) - (x->process < y->process);
	return (x->lead > y->lead) - (x->lead < y->lead);
}

/* Each process with sampled launch calls: the median, over its sampled kernel launches, of
 * the time from the call's start to the kernel's queued time (op_issued). */
static int launch_leads(struct kg_model *m)
{
	int any = 0;
	for (uint32_t p = 0; p < m->n_processes; p++) {
		m->processes[p].launch_lead = 0;
		any |= m->processes[p].launches_sampled;
	}
	if (!any)
		return 0;
	uint32_t n = 0, cap = 0;
	struct proc_lead *v = NULL;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		uint32_t p = m->streams[o->stream].process;
		if (o->kind != KG_OP_KERNEL || o->api_start == KG_NO_TIME || o->queued == KG_NO_TIME ||
		    p >= m->n_processes || !m->processes[p].launches_sampled)
			continue;
		if (array_room((void **)&v, &cap, n, sizeof(*v), 1024) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = (struct proc_lead){p, kg_time_diff(o->queued, o->api_start)};
	}
	if (n)
		qsort(v, n, sizeof(*v), by_process_lead);
	for (uint32_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j].process == v[i].process; j++)
			;
		m->processes[v[i].process].launch_lead = v[i + (j - i) / 2].lead;
	}
	free(v);
	return 0;
}

int model_finish(struct kg_model *m)
{
	/* idempotent: model_restrict calls it again on a smaller model */
	m->begin = m->end = KG_NO_TIME;
	m->n_gpus = 0;
	m->has_queued = 0;
	struct launch_index li = {0};
	uint32_t *thread_map = NULL;
	/* records whose times cannot be true are judged once: a window cut would make its
	 * edges look far from what is left in it */
	struct untrue_body body;
	struct judging j = {.n_apis = m->n_apis};
	int rc = m->times_checked ? 0 : untrue_find_body(m, &body);
	j.body = m->times_checked ? NULL : &body;
	if (!rc)
		rc = canonical_streams(m);
	if (!rc)
		rc = canonical_threads(m, &thread_map);
	if (!rc)
		rc = index_launches(m, &li, thread_map, &j);
	if (!rc)
		link_stacks(m, &li);
	free(thread_map);
	if (!rc)
		rc = link_ops(m, &li, &j);
	launch_index_free(&li);
	if (!rc)
		rc = model_order_ops(m);
	if (!rc)
		first_ops(m);
	if (!rc)
		rc = model_launch_threads(m);
	if (!rc)
		rc = launch_leads(m);
	if (!rc)
		rc = model_fit_host_samples(m);
	if (!rc && j.body)
		untrue_finish(m, j.body, &j.tally, j.api_map, j.n_apis);
	free(j.api_map);
	m->times_checked |= !rc;
	if (rc < 0 || build_gpus(m) < 0)
		return -ENOMEM;
	m->has_api = m->n_apis > 0;
	m->gpu_untraced = !m->n_ops && m->gpu_work_calls > 0;
	vendors_from_names(m);
	sort_hw_samples(m);
	sort_sm_blocks(m);
	sort_host_spans(m->host_spans, m->n_host_spans);
	sort_host_spans(m->tracer_spans, m->n_tracer_spans);
	/* the span is the GPU's working window; API calls only when there is no GPU work */
	for (uint32_t i = 0; !m->n_ops && i < m->n_apis; i++)
		note_time(m, m->apis[i].start, m->apis[i].end);
	m->dropped = 0;
	for (uint32_t p = 0; p < m->n_processes; p++)
		m->dropped += m->processes[p].dropped;
	index_free(m);
	return 0;
}

/* The blocks of the ops model_restrict kept (op_map: old index → new, KG_NONE gone). */
static void keep_sm_blocks_of(struct kg_model *m, const uint32_t *op_map)
{
	uint32_t n = 0;
	for (uint32_t i = 0; op_map && i < m->n_sm_blocks; i++) {
		struct kg_sm_block b = m->sm_blocks[i];
		if ((b.op = op_map[b.op]) != KG_NONE)
			m->sm_blocks[n++] = b;
	}
	m->n_sm_blocks = n;
}

/* The host spans' parts within [t0, t1): what the host did in the window, and only that,
 * so that time summed over spans is the window's. */
static void keep_host_spans_in(struct kg_model *m, int64_t t0, int64_t t1)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_host_spans; i++) {
		struct kg_host_span x = m->host_spans[i];
		if (x.end <= t0 || x.start >= t1)
			continue;
		x.start = x.start > t0 ? x.start : t0;
		if (x.end > t1) { /* carried past t1: still past the sample's time, if at all */
			int64_t taken = kg_time_add(x.end, -(int64_t)x.carried);
			x.carried = taken < t1 ? (uint32_t)(t1 - taken) : 0;
			x.end = t1;
		}
		m->host_spans[n++] = x;
	}
	m->n_host_spans = n;
}

int model_op_in_window(const struct kg_op *o, int64_t t0, int64_t t1)
{
	int64_t issued = o->flags & KG_OPF_ISSUED_QUEUED ? o->queued : o->api_start;
	return issued != KG_NO_TIME ? issued >= t0 && issued < t1 : o->end > t0 && o->start < t1;
}

/* Keeps what overlaps [t0, t1): the report's --from/--to/--nvtx window. A GPU operation
 * belongs to the window when it was launched in it (the GPU may run it later: a CPU-side
 * range such as a training step ends before its kernels do), or, when its launch is not
 * in the trace, when it runs in it. */
int model_op_in_gpu_window(const struct kg_model *m, const struct kg_op *o, int64_t t0,
			   int64_t t1, const int64_t *gpu_window)
{
	uint32_t g = gpu_window ? op_device(m, o)->gpu : KG_NONE;
	if (g < m->n_gpus && gpu_window[2 * g] != KG_NO_TIME)
		return model_op_in_window(o, gpu_window[2 * g], gpu_window[2 * g + 1]);
	return model_op_in_window(o, t0, t1);
}

int model_restrict(struct kg_model *m, int64_t t0, int64_t t1)
{
	return model_restrict_gpus(m, t0, t1, NULL);
}

int model_restrict_gpus(struct kg_model *m, int64_t t0, int64_t t1, const int64_t *gpu_window)
{
	uint32_t n = 0;
	uint32_t *op_map = m->n_sm_blocks ? malloc(((size_t)m->n_ops + 1) * sizeof(*op_map)) : NULL;
	if (m->n_sm_blocks && !op_map)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		int in = model_op_in_gpu_window(m, o, t0, t1, gpu_window);
		if (op_map)
			op_map[i] = in ? n : KG_NONE;
		if (in)
			m->ops[n++] = *o;
	}
	m->n_ops = n;
	keep_sm_blocks_of(m, op_map);
	free(op_map);
	n = 0;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (m->apis[i].end > t0 && m->apis[i].start < t1)
			m->apis[n++] = m->apis[i];
	m->n_apis = n;
	n = 0;
	for (uint32_t i = 0; i < m->n_syncs; i++)
		if (m->syncs[i].end > t0 && m->syncs[i].start < t1)
			m->syncs[n++] = m->syncs[i];
	m->n_syncs = n;
	n = 0;
	for (uint32_t i = 0; i < m->n_ranges; i++) {
		const struct kg_range *r = &m->ranges[i];
		if ((r->end == KG_NO_TIME || r->end > t0) && r->start < t1)
			m->ranges[n++] = *r;
	}
	m->n_ranges = n;
	n = 0;
	for (uint32_t i = 0; i < m->n_hw_samples; i++)
		if (m->hw_samples[i].end > t0 && m->hw_samples[i].start < t1)
			m->hw_samples[n++] = m->hw_samples[i];
	m->n_hw_samples = n;
	keep_host_spans_in(m, t0, t1);
	for (uint32_t i = 0; i < m->n_syncs; i++)
		m->syncs[i].api = KG_NONE; /* indices changed */
	return model_finish(m);
}

/* The window from the first start to the last end of the ranges named `name`. */
int model_range_window(const struct kg_model *m, const char *name, int64_t *t0, int64_t *t1)
{
	int64_t lo = KG_NO_TIME, hi = KG_NO_TIME;
	for (uint32_t i = 0; i < m->n_ranges; i++) {
		const struct kg_range *r = &m->ranges[i];
		const char *rn = model_text(m, r->name);
		if (strcmp(rn, name) != 0 && strncmp(rn, name, strlen(name)) != 0)
			continue;
		if (lo == KG_NO_TIME || r->start < lo)
			lo = r->start;
		int64_t e = r->end == KG_NO_TIME ? r->start : r->end;
		if (hi == KG_NO_TIME || e > hi)
			hi = e;
	}
	if (lo == KG_NO_TIME)
		return -1;
	*t0 = lo;
	*t1 = hi;
	return 0;
}
