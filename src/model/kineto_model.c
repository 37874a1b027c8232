/* The model layer of the Kineto reader (kineto_model.h): events to kernels, copies, API
 * calls, waits and ranges; correlation; devices and streams. Host operators (cpu_op,
 * python_function) and annotations, which outnumber everything else, are kept as
 * 24-byte intervals only, and give each API call the chain of them that enclosed it
 * (kineto_stacks.c). */
#include "model/kineto_model.h"
#include "model/kineto_stacks.h"
#include "util/format.h"
#include "util/idmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 1024        /* CUDA ordinals are small; larger ids are junk */
#define MAX_META 65536          /* process/thread name records kept */
#define MAX_PROPS 1024          /* deviceProperties entries kept */
/* A "queued" timestamp further than this before the kernel started is not believed:
 * Kineto writes 0 when CUPTI did not record it, and its unit changed across releases. */
#define MAX_QUEUE_NS 10000000000ll
/* Names remembered in front of the model's string table (struct name_slot): a trace
 * repeats a few hundred names millions of times. */
#define NAME_CACHE 4096
#define MAX_OTHER_CATS 32       /* categories not read, named in a note */

/* One deviceProperties entry; applied to the devices once the whole file is read, since
 * the key may come before or after traceEvents. */
struct kprop {
	struct kin_prop p;
	uint32_t name;
};

/* A process_name / thread_name metadata record, applied at the end for the same reason. */
struct kmeta {
	int64_t pid, tid;
	uint32_t name;
	int thread;               /* 1: thread_name, 0: process_name */
};

/* Events of a category the reader does not read, counted for the "not loaded" note. */
struct kother {
	char cat[KIN_MAX_CAT + 1];
	uint64_t n;
};

/* A cuda_sync event (CUPTI synchronization activity): gives the stream a host wait was
 * on, which the runtime call's record lacks. Matched to that call at the end. */
struct kpsync {
	int64_t start, end;
	uint32_t stream;          /* stream index, KG_NONE */
	uint32_t correlation;
	uint8_t kind;
};

/* A name and its model string id. The cache's own copy of the text: it does not rely
 * on where the model keeps its strings. */
struct name_slot {
	char *text;
	size_t len;
	uint32_t id;
};

#define VEC(T, name) \
	T *name;     \
	size_t n_##name, cap_##name

struct kin_build {
	struct kg_model *m;
	const char *path;
	/* the item being applied, and the text it came from */
	struct kin_event *ev;
	char *name;                     /* the event's name, NUL-terminated */
	size_t name_len;
	const char *aname;
	const char *btext;              /* the batch's strings (the event's args) */
	uint64_t ev_end;
	const unsigned char *text;
	size_t text_len;
	const struct kin_pos *text_at;
	/* what the model receives */
	uint32_t proc;
	int pid_known;
	int64_t pid;
	uint32_t dev_ix[MAX_DEVICES];
	uint32_t prop_name;             /* of the deviceProperties entry being read */
	struct name_slot *names;        /* NAME_CACHE slots, by name_hash */
	VEC(struct kprop, props);
	VEC(struct kmeta, metas);
	VEC(struct kpsync, psyncs);
	VEC(uint32_t, copies);          /* op indices of copies and memsets */
	struct kg_idmap async;          /* correlations of ...Async copy/memset calls */
	struct kg_idmap thread_grid;    /* correlations of launches whose "grid" is in threads */
	uint32_t first_op;              /* this trace's ops are from here on */
	struct kstacks *stacks;         /* host intervals, for the API calls' stacks */
	int64_t rank;
	int has_rank;
	uint32_t trace_name;
	int64_t t_min, t_max;           /* span of the host events, for the process */
	/* counts for the notes */
	uint64_t n_call_stack;       /* cpu_op events with a "Call stack" */
	uint64_t n_cpu_op, n_pyfunc, n_user_ann, n_gpu_ann, n_bad, n_other_pid, n_meta_dropped,
		n_cut;
	struct kother others[MAX_OTHER_CATS];
	int n_others;
	uint64_t n_others_more;         /* of categories past MAX_OTHER_CATS */
	uint64_t n_hip, n_cuda;         /* API calls named hip..., cu... : who made the GPUs */
	char first_bad[160];
	/* a fatal error */
	int failed;                     /* 0, or a negative errno code */
	char msg[400];
};

/* ------------------------------------------------------------------ small helpers */

static int grow_vec(void **arr, size_t *n, size_t *cap, size_t size)
{
	if (*n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 64;
	void *p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

#define PUSH(v, name) \
	(grow_vec((void **)&(v)->name, &(v)->n_##name, &(v)->cap_##name, sizeof(*(v)->name)) < 0 \
		 ? NULL                                                                          \
		 : &(v)->name[(v)->n_##name++])

/* Correlation id → value. Id 0 means "none" and is never stored. */
static int cmap_put(struct kg_idmap *h, uint32_t key, uint32_t val)
{
	if (!key)
		return 0;
	uint32_t *slot = idmap_slot(h, key);
	if (!slot)
		return -ENOMEM;
	*slot = val;
	return 0;
}

static int cmap_get(const struct kg_idmap *h, uint32_t key, uint32_t *val)
{
	const uint32_t *v = key ? idmap_find(h, key) : NULL;
	if (v)
		*val = *v;
	return v != NULL;
}

static int has_prefix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);
	return len >= n && memcmp(s, p, n) == 0;
}

/* A hash of the whole name, 8 bytes at a time: FNV-1a (the string table's) takes a
 * multiply per byte, and kernel names run to hundreds of bytes. */
static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = len * 0x9e3779b97f4a7c15ull;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	uint64_t w = 0;
	memcpy(&w, s + i, len - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

/* The model string id of the len bytes at s (model_string_n), through the cache. 0 when
 * out of memory. */
static uint32_t name_id(struct kin_build *b, const char *s, size_t len)
{
	struct name_slot *slot = &b->names[name_hash(s, len) & (NAME_CACHE - 1)];
	if (slot->id && slot->len == len && memcmp(slot->text, s, len) == 0)
		return slot->id;
	uint32_t id = model_string_n(b->m, s, len);
	char *copy = id ? malloc(len + 1) : NULL;
	if (copy) { /* no room to remember it: the next lookup asks the model again */
		memcpy(copy, s, len);
		copy[len] = 0;
		free(slot->text);
		*slot = (struct name_slot){copy, len, id};
	}
	return id;
}

static void out_of_memory(struct kin_build *b)
{
	snprintf(b->msg, sizeof(b->msg), "'%s': out of memory", b->path);
	b->failed = -ENOMEM;
}

/* Marks the current event unusable; the first reason is kept for the note. */
static void bad_event(struct kin_build *b, const char *why)
{
	if (!b->ev->bad)
		b->ev->bad = why;
}

/* Counts an unusable event or element, ending at byte end of the text being applied. */
static void count_bad(struct kin_build *b, uint64_t end, const char *why)
{
	if (!b->n_bad++) {
		char where[96];
		kin_place(b->text_at, b->text, b->text_len, end, where, sizeof(where));
		snprintf(b->first_bad, sizeof(b->first_bad), "first ending at %s: %s", where, why);
	}
}

/* ------------------------------------------------------------------ events → model */

static int64_t ev_end(const struct kin_event *e)
{
	if (!(e->have & KH_DUR) || e->ts > INT64_MAX - e->dur)
		return KG_NO_TIME;
	return e->ts + e->dur;
}

/* Host events of the one process: the first pid seen is the process; events of other
 * pids (merged traces) are kept in it, and counted. */
static void host_pid(struct kin_build *b)
{
	if (!(b->ev->have & KH_PID))
		return;
	if (!b->pid_known) {
		b->pid_known = 1;
		b->pid = b->ev->pid;
		b->m->processes[b->proc].pid = (uint32_t)b->ev->pid;
	} else if (b->ev->pid != b->pid) {
		b->n_other_pid++;
	}
}

static void host_span(struct kin_build *b, int64_t start, int64_t end)
{
	if (b->t_min == KG_NO_TIME || start < b->t_min)
		b->t_min = start;
	if (end != KG_NO_TIME && (b->t_max == KG_NO_TIME || end > b->t_max))
		b->t_max = end;
}

static uint32_t ev_thread(struct kin_build *b)
{
	return model_thread_index(b->m, b->proc, b->ev->have & KH_TID ? b->ev->tid : 0);
}

/* The kg_device index of CUDA ordinal id, created on first use; KG_NONE for junk. */
static uint32_t device_index(struct kin_build *b, int64_t id)
{
	if (id < 0 || id >= MAX_DEVICES)
		return KG_NONE;
	if (b->dev_ix[id] != KG_NONE)
		return b->dev_ix[id];
	struct kg_device *d = model_add_device(b->m);
	if (!d)
		return KG_NONE;
	d->process = b->proc;
	d->ordinal = (int32_t)id;
	b->dev_ix[id] = b->m->n_devices - 1;
	return b->dev_ix[id];
}

/* The stream of a GPU event: args.device/args.stream, or as Kineto draws it, pid/tid. */
static uint32_t ev_stream(struct kin_build *b)
{
	const struct kin_event *e = b->ev;
	int64_t dev = e->have & KH_DEVICE ? e->device : e->have & KH_PID ? e->pid : -1;
	int has_stream = (e->have & (KH_STREAM | KH_TID)) != 0;
	uint32_t d = device_index(b, dev);
	if (d == KG_NONE || !has_stream)
		return KG_NONE;
	uint32_t ix = model_stream_index(b->m, b->proc, d, 0,
					 e->have & KH_STREAM ? e->stream : e->tid);
	if (ix == KG_NONE)
		out_of_memory(b);
	return ix;
}

static uint32_t ev_correlation(const struct kin_event *e)
{
	return e->have & KH_CORR && e->correlation > 0 && e->correlation <= UINT32_MAX
		       ? (uint32_t)e->correlation : 0;
}

/* Fills what kernels, copies and memsets share; NULL when the event has no stream or
 * memory ran out (then b->failed says so). */
static struct kg_op *add_op(struct kin_build *b, uint8_t kind)
{
	uint32_t stream = ev_stream(b);
	if (stream == KG_NONE) {
		if (!b->failed)
			bad_event(b, "no valid \"device\" and \"stream\"");
		return NULL;
	}
	/* without "dur" the GPU work has no end: left out and counted, as a kgantt trace
	 * leaves out a record without timestamps ("losses" in the report says so), not
	 * listed as a 0 ns kernel */
	int64_t end = ev_end(b->ev);
	if (end == KG_NO_TIME) {
		b->m->processes[b->proc].incomplete++;
		return NULL;
	}
	struct kg_op *o = model_add_op(b->m);
	uint32_t name = name_id(b, b->name, b->name_len);
	if (!o || !name) {
		out_of_memory(b);
		return NULL;
	}
	o->kind = kind;
	o->stream = stream;
	o->name = name;
	o->start = b->ev->ts;
	o->end = end;
	o->correlation = ev_correlation(b->ev);
	if (b->ev->have & KH_BYTES && b->ev->bytes > 0)
		o->bytes = (uint64_t)b->ev->bytes;
	return o;
}

/* CUPTI's queued stamp as Kineto wrote it: nanoseconds in recent releases, whole
 * microseconds (us(kernel.queued)) in older ones, 0 when not recorded. Taken only when it
 * falls shortly before the kernel's start in one of these units. */
static int64_t queued_time(int64_t q, int64_t start)
{
	if (q <= 0 || start == KG_NO_TIME)
		return KG_NO_TIME;
	if (q <= start && start - q < MAX_QUEUE_NS)
		return q;
	if (q <= INT64_MAX / 1000 && q * 1000 <= start && start - q * 1000 < MAX_QUEUE_NS)
		return q * 1000;
	return KG_NO_TIME;
}

/* What the event's args (or its name) say of a communication call: by the kernel's
 * correlation (its own args), else by the thread and time of the host call. */
static void add_comm_call(struct kin_build *b, int by_correlation)
{
	const struct kin_event *e = b->ev;
	uint8_t kind = (uint8_t)comm_kind_of_name(e->have & KH_COLL ? b->btext + e->coll : b->name);
	uint32_t group = 0, thread = by_correlation ? KG_NONE : ev_thread(b);
	if (!by_correlation && thread == KG_NONE)
		return out_of_memory(b);
	if (e->have & KH_GROUP && !(group = model_string_n(b->m, b->btext + e->group, e->group_len)))
		return out_of_memory(b);
	struct kg_comm_call *c = model_add_comm_call(b->m);
	if (!c)
		return out_of_memory(b);
	c->start = e->ts;
	c->end = ev_end(e) == KG_NO_TIME ? e->ts : ev_end(e);
	c->process = b->proc;
	c->thread = thread;
	c->correlation = by_correlation ? ev_correlation(e) : 0;
	c->group = group;
	c->elems = e->have & (KH_ELEMS | KH_DIMS) && e->elems > 0 ? (uint64_t)e->elems : 0;
	c->seq = e->have & KH_SEQ && e->seq >= 0 ? e->seq : -1;
	c->peer = e->have & KH_PEER && e->peer >= 0 && e->peer < INT32_MAX ? (int32_t)e->peer : -1;
	c->kind = kind;
}

static void add_kernel(struct kin_build *b)
{
	const struct kin_event *e = b->ev;
	struct kg_op *o = add_op(b, KG_OP_KERNEL);
	if (!o)
		return;
	struct kg_launch l = {0};
	memcpy(l.grid, e->grid, sizeof(l.grid));
	memcpy(l.block, e->block, sizeof(l.block));
	if (e->have & KH_REGS && e->regs > 0)
		l.regs = e->regs > UINT16_MAX ? UINT16_MAX : (uint16_t)e->regs;
	/* Kineto gives one "shared memory" figure, static + dynamic together */
	if (e->have & KH_SMEM && e->smem > 0)
		l.smem_dynamic = e->smem > UINT32_MAX ? UINT32_MAX : (uint32_t)e->smem;
	if ((o->launch = model_launch(b->m, &l)) == KG_NONE) {
		out_of_memory(b);
		return;
	}
	if (e->have & KH_QUEUED)
		o->queued = queued_time(e->queued, e->ts);
	if (e->have & KH_GRAPH && e->graph > 0 && e->graph <= UINT32_MAX) {
		o->graph = (uint32_t)e->graph;
		o->flags |= KG_OPF_GRAPH;
	}
	if (e->have & KH_COMM)
		add_comm_call(b, 1);
}

static uint8_t mem_kind(const char *k, size_t len)
{
	static const char *const names[] = {"Unknown", "Pageable", "Pinned", "Device", "Array",
					    "Managed", "Device Static", "Managed Static"};
	for (size_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && memcmp(names[i], k, len) == 0)
			return i == 6 ? KG_MEM_DEVICE : i == 7 ? KG_MEM_MANAGED : (uint8_t)i;
	return KG_MEM_UNKNOWN;
}

/* "Memcpy HtoD (Pageable -> Device)": CUPTI's copy kind and memory kind names, which
 * Kineto writes into the event name. Codes are CUPTI's, as in the model. */
static void parse_copy_name(struct kg_op *o, const char *n)
{
	const char *sp = strchr(n, ' '), *open = strchr(n, '('), *arrow = strstr(n, " -> ");
	if (sp) {
		size_t len = strcspn(sp + 1, " (");
		for (unsigned k = KG_COPY_UNKNOWN + 1; k <= KG_COPY_PTOP; k++)
			if (strlen(copy_kind_name(k)) == len && memcmp(copy_kind_name(k), sp + 1, len) == 0)
				o->copy_kind = (uint8_t)k;
	}
	if (!open)
		return;
	open++;
	const char *close = strchr(open, ')');
	if (!close)
		return;
	if (o->kind == KG_OP_MEMSET || !arrow || arrow > close) {
		o->dst_kind = mem_kind(open, (size_t)(close - open)); /* "Memset (Device)" */
		return;
	}
	o->src_kind = mem_kind(open, (size_t)(arrow - open));
	o->dst_kind = mem_kind(arrow + 4, (size_t)(close - arrow - 4));
}

static void add_copy(struct kin_build *b, uint8_t kind)
{
	struct kg_op *o = add_op(b, kind);
	if (!o)
		return;
	parse_copy_name(o, b->name);
	uint32_t *ix = PUSH(b, copies);
	if (!ix) {
		out_of_memory(b);
		return;
	}
	*ix = b->m->n_ops - 1;
}

/* The wait a synchronising runtime/driver call stands for, from its name. */
static uint8_t api_sync_kind(const char *n, size_t len)
{
	if (has_prefix(n, len, "cudaDeviceSynchronize") || has_prefix(n, len, "cuCtxSynchronize"))
		return KG_SYNC_CONTEXT;
	if (has_prefix(n, len, "cudaStreamSynchronize") ||
	    has_prefix(n, len, "cuStreamSynchronize"))
		return KG_SYNC_STREAM;
	if (has_prefix(n, len, "cudaEventSynchronize") || has_prefix(n, len, "cuEventSynchronize"))
		return KG_SYNC_EVENT;
	if (has_prefix(n, len, "cudaStreamWaitEvent") || has_prefix(n, len, "cuStreamWaitEvent"))
		return KG_SYNC_STREAM_WAIT_EVENT;
	return KG_SYNC_UNKNOWN;
}

static void add_sync_for(struct kin_build *b, const struct kg_api *a, uint8_t kind)
{
	struct kg_sync *y = model_add_sync(b->m);
	if (!y) {
		out_of_memory(b);
		return;
	}
	y->start = a->start;
	y->end = a->end;
	y->process = b->proc;
	y->api = b->m->n_apis - 1;
	y->correlation = a->correlation;
	y->kind = kind;
}

static void add_api(struct kin_build *b, int driver)
{
	const char *n = b->name;
	struct kg_api *a = model_add_api(b->m);
	uint32_t name = name_id(b, n, b->name_len);
	uint32_t thread = ev_thread(b);
	if (!a || !name || thread == KG_NONE) {
		out_of_memory(b);
		return;
	}
	host_pid(b);
	a->start = b->ev->ts;
	a->end = ev_end(b->ev);
	if (a->end == KG_NO_TIME)
		b->m->processes[b->proc].incomplete++;
	a->name = name;
	a->thread = thread;
	a->correlation = ev_correlation(b->ev);
	a->driver = (uint8_t)driver;
	a->process = b->proc;
	b->n_hip += has_prefix(n, b->name_len, "hip");
	b->n_cuda += has_prefix(n, b->name_len, "cu");
	host_span(b, a->start, a->end);
	uint8_t kind = api_sync_kind(n, b->name_len);
	if (kind)
		add_sync_for(b, a, kind);
	/* Kineto's roctracer logger writes hipExtModuleLaunchKernel's and
	 * hipHccModuleLaunchKernel's global work size, in threads, where the kernel's "grid"
	 * goes (hipLaunchKernel's and hipModuleLaunchKernel's are blocks): an SGLang GEMM of
	 * 11,520 blocks read as 2,949,120. Their kernels' grids are divided at the end. */
	if ((has_prefix(n, b->name_len, "hipExtModuleLaunchKernel") ||
	     has_prefix(n, b->name_len, "hipHccModuleLaunchKernel")) &&
	    cmap_put(&b->thread_grid, a->correlation, 1) < 0)
		out_of_memory(b);
	/* cudaMemcpyAsync, cuMemsetD32Async...: their copies get KG_OPF_ASYNC at the end */
	if (strstr(n, "Async") && (strstr(n, "Memcpy") || strstr(n, "Memset")) &&
	    cmap_put(&b->async, a->correlation, 1) < 0)
		out_of_memory(b);
}

static void add_range(struct kin_build *b)
{
	struct kg_range *r = model_add_range(b->m);
	uint32_t name = name_id(b, b->name, b->name_len);
	uint32_t thread = ev_thread(b);
	if (!r || !name || thread == KG_NONE) {
		out_of_memory(b);
		return;
	}
	host_pid(b);
	r->start = b->ev->ts;
	r->end = ev_end(b->ev);
	r->name = name;
	r->thread = thread;
	r->process = b->proc;
	host_span(b, r->start, r->end);
}

/* A cuda_sync record waits to be matched to its runtime call (see struct kpsync). */
static void add_psync(struct kin_build *b)
{
	const struct kin_event *e = b->ev;
	struct kpsync *p = PUSH(b, psyncs);
	if (!p) {
		out_of_memory(b);
		return;
	}
	p->start = e->ts;
	p->end = ev_end(e);
	p->correlation = ev_correlation(e);
	p->kind = e->sync_kind;
	/* Kineto writes stream -1 for context and device synchronisations */
	p->stream = e->have & KH_STREAM && e->stream >= 0 ? ev_stream(b) : KG_NONE;
}

static void add_meta(struct kin_build *b)
{
	const struct kin_event *e = b->ev;
	int thread = b->name_len == 11 && memcmp(b->name, "thread_name", 11) == 0;
	int process = b->name_len == 12 && memcmp(b->name, "process_name", 12) == 0;
	if ((!thread && !process) || !(e->have & KH_ANAME) || !(e->have & KH_PID))
		return;
	if (b->n_metas >= MAX_META) {
		b->n_meta_dropped++;
		return;
	}
	struct kmeta *k = PUSH(b, metas);
	if (!k || !(k->name = model_string_n(b->m, b->aname, e->aname_len))) {
		out_of_memory(b);
		return;
	}
	k->pid = e->pid;
	k->tid = e->have & KH_TID ? e->tid : 0;
	k->thread = thread;
}

/* A host operator, Python function or annotation: kept as an interval of its thread
 * (the same tid as the API calls'), for the stacks of the calls it encloses. */
static void add_host(struct kin_build *b, unsigned kind)
{
	const struct kin_event *e = b->ev;
	uint32_t name = 0;
	if (kind == KG_FRAME_PYTHON && e->have & KH_NAME)
		b->name_len = kstacks_drop_addresses(b->name, b->name_len);
	if (e->have & KH_NAME && !(name = name_id(b, b->name, b->name_len))) {
		out_of_memory(b);
		return;
	}
	if (kstacks_add(b->stacks, (uint64_t)(e->have & KH_TID ? e->tid : 0), e->ts, ev_end(e),
			name, kind) < 0)
		out_of_memory(b);
}

/* A host operator's Python stack (PyTorch 1.8-1.10), kept before the operator. */
static void add_call_stack(struct kin_build *b)
{
	const struct kin_event *e = b->ev;
	const char *text = b->btext + e->call_stack;
	if (strspn(text, ";") == e->call_stack_len)
		return; /* no frame (kstacks_add_call_stack wants one at least) */
	uint32_t stack = model_string_n(b->m, text, e->call_stack_len);
	b->n_call_stack++;
	if (!stack || kstacks_add_call_stack(b->stacks, (uint64_t)(e->have & KH_TID ? e->tid : 0),
					     e->ts, ev_end(e), stack) < 0)
		out_of_memory(b);
}

/* An "X" (complete) event of a category we keep. */
static void complete_event(struct kin_build *b)
{
	struct kin_event *e = b->ev;
	int step = e->have & KH_NAME && has_prefix(b->name, b->name_len, "ProfilerStep#");
	switch (e->cat) {
	case KC_KERNEL: add_kernel(b); break;
	case KC_MEMCPY: add_copy(b, KG_OP_MEMCPY); break;
	case KC_MEMSET: add_copy(b, KG_OP_MEMSET); break;
	case KC_RUNTIME: add_api(b, 0); break;
	case KC_DRIVER: add_api(b, 1); break;
	case KC_SYNC: add_psync(b); break;
	case KC_USER_ANN:
		b->n_user_ann++;
		add_range(b);
		add_host(b, KG_FRAME_ANNOTATION);
		if (comm_call_named(b->name, b->name_len))
			add_comm_call(b, 0);
		break;
	case KC_CPU_OP: case KC_PYFUNC:
		if (e->cat == KC_CPU_OP && comm_call_named(b->name, b->name_len))
			add_comm_call(b, 0);
		/* the step markers of older releases (cpu_op) are annotations too */
		if (step)
			add_range(b);
		*(e->cat == KC_CPU_OP ? &b->n_cpu_op : &b->n_pyfunc) += 1;
		if (e->have & KH_CALL_STACK && !step)
			add_call_stack(b);
		add_host(b, step ? KG_FRAME_ANNOTATION
			    : e->cat == KC_CPU_OP ? KG_FRAME_OP : KG_FRAME_PYTHON);
		break;
	default: break;
	}
}

static void apply_event(struct kin_build *b)
{
	struct kin_event *e = b->ev;
	if (e->ph == 'M') {
		add_meta(b);
		return;
	}
	if (e->ph != 'X')
		return; /* flows (ac2g duplicate the correlation ids), instants, counters */
	if (e->cat == KC_GPU_ANN)
		b->n_gpu_ann++;
	if (e->cat == KC_OTHER || e->cat == KC_NONE || e->cat == KC_GPU_ANN)
		return;
	if (!e->bad && !(e->have & KH_TS))
		e->bad = "no \"ts\"";
	if (!e->bad)
		complete_event(b);
	if (e->bad)
		count_bad(b, b->ev_end, e->bad);
}

static void apply_prop(struct kin_build *b, const struct kin_prop *in)
{
	uint32_t name = b->prop_name;
	b->prop_name = 0;
	if (b->n_props >= MAX_PROPS)
		return;
	struct kprop *p = PUSH(b, props);
	if (!p) {
		out_of_memory(b);
		return;
	}
	p->p = *in;
	p->name = name;
	if (p->p.id < 0)
		p->p.id = (int64_t)b->n_props - 1; /* no "id": the position is the ordinal */
}

/* A string of the batch in the model; 0 (with b->failed set) when out of memory. */
static uint32_t intern(struct kin_build *b, const struct kin_batch *batch, uint32_t off,
		       uint32_t len)
{
	uint32_t id = model_string_n(b->m, kin_str(batch, off), len);
	if (!id)
		out_of_memory(b);
	return id;
}

/* Categories that carry nothing kgantt shows, left out without a note (docs/readers.md,
 * "Dropped, and why"): the profiler's own span and overhead, CUDA event records. */
static int ignored_cat(const char *cat, size_t len)
{
	static const char *const cats[] = {"Trace", "overhead", "cuda_event"};
	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
		if (strlen(cats[i]) == len && memcmp(cats[i], cat, len) == 0)
			return 1;
	return 0;
}

/* An event of a category not read: counted under its name for the note. */
static void count_other(struct kin_build *b, const char *cat, size_t len)
{
	if (ignored_cat(cat, len))
		return;
	if (!len) { /* named as the note says it, and sorted so */
		cat = "without a category";
		len = strlen(cat);
	}
	for (int i = 0; i < b->n_others; i++)
		if (strlen(b->others[i].cat) == len && memcmp(b->others[i].cat, cat, len) == 0) {
			b->others[i].n++;
			return;
		}
	if (b->n_others == MAX_OTHER_CATS) {
		b->n_others_more++;
		return;
	}
	struct kother *o = &b->others[b->n_others++];
	memcpy(o->cat, cat, len); /* len <= KIN_MAX_CAT: the JSON layer cut it */
	o->cat[len] = 0;
	o->n = 1;
}

static void apply_item(struct kin_build *b, struct kin_batch *batch, struct kin_item *it)
{
	switch (it->type) {
	case KI_EVENT:
		b->ev = &it->u.ev;
		b->name = batch->text + it->u.ev.name;
		b->name_len = it->u.ev.name_len;
		b->aname = batch->text + it->u.ev.aname;
		b->btext = batch->text;
		b->ev_end = it->end;
		apply_event(b);
		break;
	case KI_BAD:
		count_bad(b, it->end, it->u.why);
		break;
	case KI_PROP_NAME:
		b->prop_name = intern(b, batch, it->u.str.off, it->u.str.len);
		break;
	case KI_PROP:
		apply_prop(b, &it->u.prop);
		break;
	case KI_TRACE_NAME:
		b->trace_name = intern(b, batch, it->u.str.off, it->u.str.len);
		break;
	case KI_RANK:
		b->rank = it->u.rank;
		b->has_rank = 1;
		break;
	case KI_OTHER_CAT:
		count_other(b, kin_str(batch, it->u.str.off), it->u.str.len);
		break;
	default:
		break;
	}
}

int kin_build_apply(struct kin_build *b, struct kin_batch *batch, const unsigned char *text,
		    size_t len, const struct kin_pos *at)
{
	b->text = text;
	b->text_len = len;
	b->text_at = at;
	b->n_cut += batch->n_cut;
	for (size_t i = 0; i < batch->n_items && !b->failed; i++)
		apply_item(b, batch, &batch->items[i]);
	b->text = NULL;
	b->text_at = NULL;
	return b->failed;
}

/* ------------------------------------------------------------------ after the parse */

/* Resident blocks per SM by compute capability (CUDA programming guide, "Technical
 * Specifications"): Kineto does not record it and the occupancy rules need it. */
static int max_blocks_for(int major, int minor)
{
	if (major == 7)
		return minor == 5 ? 16 : 32;
	if (major == 8)
		return minor == 0 ? 32 : minor == 9 ? 24 : 16;
	if (major == 9 || major == 10)
		return 32;
	return 0;
}

/* Who made a GPU: its name says, else its warp size (AMD's data-centre GPUs run 64-wide
 * wavefronts; its consumer ones, 32, are named "Radeon"), else the API the program
 * called (ROCm's Kineto writes hipLaunchKernel as cuda_runtime). */
static uint8_t vendor_of(const struct kin_build *b, const char *name, int warp)
{
	enum kg_vendor v = model_vendor_of_name(name);
	if (v == KG_VENDOR_UNKNOWN && warp == 64)
		v = KG_VENDOR_AMD;
	if (v == KG_VENDOR_UNKNOWN && (b->n_hip || b->n_cuda))
		v = b->n_hip > b->n_cuda ? KG_VENDOR_AMD : KG_VENDOR_NVIDIA;
	return (uint8_t)v;
}

static void apply_props(struct kin_build *b)
{
	for (uint32_t i = 0; i < b->m->n_devices; i++)
		b->m->devices[i].vendor = vendor_of(b, "", 0);
	for (size_t i = 0; i < b->n_props; i++) {
		const struct kin_prop *p = &b->props[i].p;
		if (p->id < 0 || p->id >= MAX_DEVICES || b->dev_ix[p->id] == KG_NONE)
			continue; /* a GPU without activity in this trace */
		struct kg_device *d = &b->m->devices[b->dev_ix[p->id]];
		d->name = b->props[i].name;
		d->vendor = vendor_of(b, model_text(b->m, d->name), p->warp);
		d->memory_bytes = p->mem;
		d->cc_major = p->major;
		d->cc_minor = p->minor;
		d->sm_count = p->sms;
		d->max_threads_per_block = p->threads_block;
		d->max_warps_per_sm = p->warp > 0 ? p->threads_sm / p->warp : 0;
		/* CUDA's table: an AMD GPU's "compute capability" is its gfx version */
		if (d->vendor != KG_VENDOR_AMD)
			d->max_blocks_per_sm = max_blocks_for(p->major, p->minor);
		d->regs_per_sm = p->regs_sm;
		d->max_regs_per_block = p->regs_block;
		d->smem_per_sm = p->smem_sm;
		d->smem_per_block = p->smem_block;
		d->smem_per_block_optin = p->smem_optin;
	}
}

/* Process and thread names; the pid of the host events tells which are ours (GPU rows
 * carry process names too). */
static void apply_metas(struct kin_build *b)
{
	struct kg_model *m = b->m;
	for (size_t i = 0; i < b->n_metas; i++) {
		const struct kmeta *k = &b->metas[i];
		if (!b->pid_known || k->pid != b->pid)
			continue;
		if (!k->thread) {
			m->processes[b->proc].cmdline = k->name;
			continue;
		}
		for (uint32_t t = 0; t < m->n_threads; t++)
			if (m->threads[t].process == b->proc && m->threads[t].tid == k->tid)
				m->threads[t].name = k->name; /* the last name given wins */
	}
	uint32_t cmd = m->processes[b->proc].cmdline;
	m->command = cmd ? cmd : b->trace_name;
}

/* Gives each host wait the stream its cuda_sync record names; a record without a
 * runtime call (API tracing off) becomes a wait of its own. */
static int apply_psyncs(struct kin_build *b)
{
	struct kg_idmap byc = {0};
	struct kg_model *m = b->m;
	int rc = 0;
	for (uint32_t i = 0; i < m->n_syncs && rc == 0; i++)
		if (m->syncs[i].process == b->proc)
			rc = cmap_put(&byc, m->syncs[i].correlation, i);
	for (size_t i = 0; i < b->n_psyncs && rc == 0; i++) {
		const struct kpsync *p = &b->psyncs[i];
		uint32_t y;
		struct kg_sync *sy = NULL;
		if (cmap_get(&byc, p->correlation, &y)) {
			sy = &m->syncs[y];
		} else if ((sy = model_add_sync(m)) != NULL) {
			sy->start = p->start, sy->end = p->end, sy->process = b->proc;
			sy->correlation = p->correlation;
			sy->kind = p->kind;
		} else {
			rc = -ENOMEM;
			break;
		}
		if (p->stream != KG_NONE)
			sy->stream = p->stream;
		if (!sy->kind)
			sy->kind = p->kind;
	}
	idmap_free(&byc);
	return rc;
}

static void apply_async(struct kin_build *b)
{
	for (size_t i = 0; i < b->n_copies; i++) {
		struct kg_op *o = &b->m->ops[b->copies[i]];
		uint32_t v;
		if (cmap_get(&b->async, o->correlation, &v))
			o->flags |= KG_OPF_ASYNC;
	}
}

/* The kernels whose "grid" Kineto gave in threads (add_api) get it in blocks. */
static int apply_thread_grids(struct kin_build *b)
{
	struct kg_model *m = b->m;
	for (uint32_t i = b->first_op; b->thread_grid.count && i < m->n_ops; i++) {
		struct kg_op *o = &m->ops[i];
		uint32_t v;
		if (o->kind != KG_OP_KERNEL || o->launch >= m->n_launches ||
		    !cmap_get(&b->thread_grid, o->correlation, &v))
			continue;
		struct kg_launch l = m->launches[o->launch];
		for (int d = 0; d < 3; d++)
			if (l.block[d] > 0)
				l.grid[d] = (uint32_t)(((uint64_t)l.grid[d] + l.block[d] - 1) / l.block[d]);
		if ((o->launch = model_launch(m, &l)) == KG_NONE)
			return -ENOMEM;
	}
	return 0;
}

/* Gives each API call the operators, Python functions and annotations enclosing it. */
static int link_stacks(struct kin_build *b, struct kstacks_result *r)
{
	struct kg_model *m = b->m;
	int rc = kstacks_link(b->stacks, m, b->proc, r);
	if (rc < 0)
		return rc;
	if (b->n_pyfunc)
		snprintf(m->stack_note, sizeof(m->stack_note), "PyTorch profiler: enclosing "
			 "operators and Python functions (with_stack=True)");
	else if (b->n_call_stack)
		snprintf(m->stack_note, sizeof(m->stack_note), "PyTorch profiler: enclosing "
			 "operators and their Python call stacks (with_stack=True)");
	else if (b->n_cpu_op)
		snprintf(m->stack_note, sizeof(m->stack_note), "PyTorch profiler: enclosing "
			 "operators only (recorded without with_stack)");
	else if (b->n_user_ann)
		snprintf(m->stack_note, sizeof(m->stack_note), "PyTorch profiler: enclosing "
			 "annotations only (recorded without operators or with_stack)");
	return 0;
}

static int by_count(const void *x, const void *y)
{
	const struct kother *a = x, *c = y;
	if (a->n != c->n)
		return a->n > c->n ? -1 : 1;
	return strcmp(a->cat, c->cat);
}

/* "not loaded: 1,204 events of categories mtia_ccp_events (1,000), mtia_runtime (204)",
 * the largest first, as many as the note holds. */
static void other_cats_note(struct kin_build *b)
{
	if (!b->n_others)
		return;
	qsort(b->others, (size_t)b->n_others, sizeof(b->others[0]), by_count);
	uint64_t total = b->n_others_more;
	for (int i = 0; i < b->n_others; i++)
		total += b->others[i].n;
	char text[sizeof(b->m->notes[0])], cnt[32];
	size_t o = 0, room = sizeof(text) - 8; /* for ", ..." */
	o += (size_t)snprintf(text, sizeof(text), "not loaded: %s event%s of categor%s",
			      fmt_count(total, cnt), total == 1 ? "" : "s",
			      b->n_others + (b->n_others_more > 0) == 1 ? "y" : "ies");
	int shown = 0;
	if (b->n_others == 1 && !b->n_others_more) /* its count is the total */
		shown = snprintf(text + o, sizeof(text) - o, " %s", b->others[0].cat) > 0;
	for (; shown < b->n_others; shown++) {
		char item[sizeof(b->others[0].cat) + 40];
		int n = snprintf(item, sizeof(item), "%s %s (%s)", shown ? "," : "",
				 b->others[shown].cat, fmt_count(b->others[shown].n, cnt));
		if (o + (size_t)n >= room)
			break;
		memcpy(text + o, item, (size_t)n + 1);
		o += (size_t)n;
	}
	if (shown < b->n_others || b->n_others_more)
		snprintf(text + o, sizeof(text) - o, ", ...");
	model_note(b->m, "%s", text);
}

static void add_notes(struct kin_build *b, const struct kstacks_result *r)
{
	struct kg_model *m = b->m;
	uint64_t unusable = kstacks_unusable(b->stacks);
	if (b->n_cpu_op || b->n_pyfunc || b->n_user_ann)
		model_note(m, "linked %llu of %llu API calls to the operators, Python functions "
			   "and annotations enclosing them (from %llu cpu_op, %llu python_function "
			   "and %llu user_annotation events); %llu %s outside any",
			   (unsigned long long)r->linked, (unsigned long long)r->calls,
			   (unsigned long long)b->n_cpu_op, (unsigned long long)b->n_pyfunc,
			   (unsigned long long)b->n_user_ann,
			   (unsigned long long)(r->calls - r->linked),
			   plural(r->calls - r->linked, "call was", "calls were"));
	if (unusable || r->not_nested || r->truncated)
		model_note(m, "call stacks: %llu host events without a usable time span or name "
			   "were not used, %llu overran the event enclosing them and were cut at its end, "
			   "%llu calls' stacks were deeper than %d frames (the outermost were cut)",
			   (unsigned long long)unusable, (unsigned long long)r->not_nested,
			   (unsigned long long)r->truncated, KSTACK_MAX_FRAMES);
	if (b->n_gpu_ann)
		model_note(m, "not loaded: %llu gpu_user_annotation events (Kineto's copies of the "
			   "annotations on the GPU timeline; the host ranges are kept)",
			   (unsigned long long)b->n_gpu_ann);
	other_cats_note(b);
	if (b->n_bad)
		model_note(m, "skipped %llu malformed events (%s)", (unsigned long long)b->n_bad,
			   b->first_bad[0] ? b->first_bad : "not objects");
	if (b->n_other_pid)
		model_note(m, "%llu host events of pids other than %lld were merged into it",
			   (unsigned long long)b->n_other_pid, (long long)b->pid);
	if (b->n_cut)
		model_note(m, "%llu names longer than %u bytes were cut", (unsigned long long)b->n_cut,
			   KIN_MAX_NAME);
	if (b->n_meta_dropped)
		model_note(m, "%llu process/thread name records beyond %d were ignored",
			   (unsigned long long)b->n_meta_dropped, MAX_META);
}

int kin_build_finish(struct kin_build *b)
{
	struct kg_process *p = &b->m->processes[b->proc];
	char buf[32];
	struct kstacks_result r;
	apply_props(b);
	apply_metas(b);
	apply_async(b);
	if (apply_psyncs(b) < 0 || apply_thread_grids(b) < 0)
		return -ENOMEM;
	if (b->has_rank) {
		snprintf(buf, sizeof(buf), "%lld", (long long)b->rank);
		if (!(p->rank = model_string(b->m, buf)))
			return -ENOMEM;
	}
	p->start = b->t_min;
	p->end = b->t_max;
	if (link_stacks(b, &r) < 0)
		return -ENOMEM;
	add_notes(b, &r);
	return 0;
}

/* ------------------------------------------------------------------ life */

struct kin_build *kin_build_new(struct kg_model *m, const char *path)
{
	struct kin_build *b = calloc(1, sizeof(*b)); /* ~5 KB of device table: not on the stack */
	if (!b)
		return NULL;
	b->m = m;
	b->path = path;
	b->t_min = b->t_max = KG_NO_TIME;
	for (int i = 0; i < MAX_DEVICES; i++)
		b->dev_ix[i] = KG_NONE;
	b->stacks = kstacks_new();
	b->names = calloc(NAME_CACHE, sizeof(*b->names));
	if (!b->stacks || !b->names || !model_add_process(m)) {
		kin_build_free(b);
		return NULL;
	}
	b->proc = m->n_processes - 1;
	b->first_op = m->n_ops;
	return b;
}

void kin_build_free(struct kin_build *b)
{
	if (!b)
		return;
	free(b->props);
	free(b->metas);
	free(b->psyncs);
	free(b->copies);
	idmap_free(&b->async);
	idmap_free(&b->thread_grid);
	kstacks_free(b->stacks);
	for (size_t i = 0; b->names && i < NAME_CACHE; i++)
		free(b->names[i].text);
	free(b->names);
	free(b);
}

const char *kin_build_error(const struct kin_build *b)
{
	return b->msg;
}
