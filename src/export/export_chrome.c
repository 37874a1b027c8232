/* Chrome trace-event JSON, for ui.perfetto.dev and chrome://tracing (docs/export.md).
 *
 * Track layout:
 *   - each host process is a process group (pid = (process+1) * stride), its threads are
 *     tracks (tid = the OS thread id) holding the API calls and NVTX ranges, plus a
 *     "synchronization waits" track and, for what belongs to no thread, a "no thread" one;
 *   - each device of each process is a group of its own (pid = host pid + 1 + ordinal),
 *     its streams are tracks (tid = the stream id);
 *   - flows (ph s/f, cat "launch") join each launch call to what it launched;
 *   - hardware samples (record --hw) are counters (ph C) of the device's group, one per
 *     figure: "SM active (%)", "DRAM read (GB/s)", "SM clock (MHz)".
 *
 * The JSON importers of both viewers need the complete ("X") events of one track to
 * nest: a slice that starts inside another and ends after it is mis-drawn or dropped.
 * A stream's ops can overlap that way (a trace's clock skew, or CUPTI reporting
 * concurrent work on one stream), so every track is laid out in lanes: an event goes on
 * the first lane where it nests or follows, and a new lane ("stream 7 (overlap)") is
 * opened when it fits on none. Nothing is ever dropped.
 *
 * The document is streamed through report/json_writer.h (compact), so memory does not
 * grow with the trace. Times are microseconds after the earliest timestamp exported
 * (otherData gives that origin in ns), printed from integer nanoseconds with three
 * decimals. */
#include "analysis/analysis.h" /* frame_label */
#include "export/export.h"
#include "text/json_writer.h"
#include "util/timemath.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KGANTT_VERSION
#define KGANTT_VERSION "0"
#endif

#define EXTRA_TID 1000000000 /* tids of the tracks kgantt adds (lanes, queues) start here */
#define MAX_LABEL 192

/* ------------------------------------------------------------------ lanes */

/* One lane: the end times of the slices still open on it, innermost last. */
struct lane {
	int64_t *ends;
	uint32_t depth, cap;
	int32_t tid;
};

/* A track and its lanes. lane 0 is the track itself; the others are opened on demand.
 * A tree over the lanes' innermost ends (min and max of each range; a leaf of a lane not
 * open holds neither) finds the first lane a slice may go on without trying each: a
 * stream whose host runs hundreds of kernels ahead has as many queue lanes, all busy. */
struct track {
	int32_t pid, tid;
	int32_t sort;             /* thread_sort_index of lane 0; lane k adds k (up to 31) */
	int named;                /* lane 0's thread_name has been written */
	const char *more;         /* extra lanes: "overlap" → "X (overlap 2)"; NULL → "X (2)" */
	char label[MAX_LABEL];    /* "stream 7", "thread 5678" */
	struct lane *lanes;
	uint32_t n, cap;
	int64_t *lo, *hi;         /* the tree: node i's children 2i and 2i+1, lane k's leaf
				   * leaves + k */
	uint32_t leaves;          /* a power of two, at least cap */
};

#define NOT_OPEN_LO INT64_MAX
#define NOT_OPEN_HI INT64_MIN

/* Lane k's innermost end into the tree (INT64_MIN when nothing is open on it). */
static void tree_set(struct track *t, uint32_t k)
{
	const struct lane *l = &t->lanes[k];
	uint32_t i = t->leaves + k;
	t->lo[i] = t->hi[i] = l->depth ? l->ends[l->depth - 1] : INT64_MIN;
	for (i /= 2; i; i /= 2) {
		t->lo[i] = t->lo[2 * i] < t->lo[2 * i + 1] ? t->lo[2 * i] : t->lo[2 * i + 1];
		t->hi[i] = t->hi[2 * i] > t->hi[2 * i + 1] ? t->hi[2 * i] : t->hi[2 * i + 1];
	}
}

/* The tree for t->cap lanes, the first t->n open. 0 or -1 (out of memory). */
static int tree_build(struct track *t)
{
	uint32_t leaves = t->leaves ? t->leaves : 4;
	while (leaves < t->cap)
		leaves *= 2;
	if (leaves != t->leaves) {
		int64_t *lo = realloc(t->lo, 2 * leaves * sizeof(*lo));
		int64_t *hi = lo ? realloc(t->hi, 2 * leaves * sizeof(*hi)) : NULL;
		if (lo)
			t->lo = lo;
		if (!hi)
			return -1;
		t->hi = hi;
		t->leaves = leaves;
	}
	for (uint32_t i = 1; i < 2 * leaves; i++) {
		t->lo[i] = NOT_OPEN_LO;
		t->hi[i] = NOT_OPEN_HI;
	}
	for (uint32_t k = 0; k < t->n; k++)
		tree_set(t, k);
	return 0;
}

/* The first lane (from the left) whose innermost end is at most s (it may close, and
 * then the slice may fit) or at least e (the slice nests in it), or t->n. */
static uint32_t tree_first(const struct track *t, int64_t s, int64_t e)
{
	if (!t->leaves || !(t->lo[1] <= s || t->hi[1] >= e))
		return t->n;
	uint32_t i = 1;
	while (i < t->leaves)
		i = t->lo[2 * i] <= s || t->hi[2 * i] >= e ? 2 * i : 2 * i + 1;
	return i - t->leaves;
}

static void track_reset(struct track *t, int32_t pid, int32_t tid, int32_t sort, int named,
			const char *more)
{
	t->pid = pid;
	t->tid = tid;
	t->sort = sort;
	t->named = named;
	t->more = more;
	for (uint32_t i = 0; i < t->n; i++)
		t->lanes[i].depth = 0;
	t->n = 0;
	if (t->leaves)
		tree_build(t); /* its size stays: cannot fail */
}

static void track_free(struct track *t)
{
	for (uint32_t i = 0; i < t->cap; i++)
		free(t->lanes[i].ends);
	free(t->lanes);
	free(t->lo);
	free(t->hi);
	memset(t, 0, sizeof(*t));
}

static int lane_push(struct lane *l, int64_t end)
{
	if (l->depth == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 8;
		int64_t *e = realloc(l->ends, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		l->ends = e;
		l->cap = cap;
	}
	l->ends[l->depth++] = end;
	return 0;
}

/* Whether [s, e] may go on l, given that nothing placed before started after s: what
 * ended by s is closed, then it must end within the innermost slice still open. */
static int lane_fits(struct lane *l, int64_t s, int64_t e)
{
	while (l->depth && l->ends[l->depth - 1] <= s)
		l->depth--;
	return !l->depth || e <= l->ends[l->depth - 1];
}

/* ------------------------------------------------------------------ state */

struct queued {
	int64_t queued, start;
	uint32_t op;
};

/* Host spans of one thread being joined into one slice (runs of one stack and state). */
struct host_run {
	uint32_t first, n;        /* host_spans[first .. first + n) */
	int64_t start, end;
	int32_t tid;              /* the thread's samples track */
};

struct chrome {
	struct kg_export_ops ops; /* first: the walker's callbacks */
	const struct kg_export_opts *o;
	struct jw w;
	int failed;               /* an allocation failed */
	int64_t origin;           /* ns; every ts is relative to it */
	int32_t stride;           /* pid of host process p: (p + 1) * stride */
	int32_t next_tid;
	int32_t *stream_tid, *thread_tid, *api_tid;
	uint32_t cur_stream, cur_proc, cur_thread, cur_sync_proc;
	struct track stream, host, sync, queue;
	struct queued *pending;   /* the current stream's queue slices, laid out at its end */
	uint32_t n_pending, cap_pending;
	struct jw_prepared *texts; /* by string id of the model: its JSON text, made on first use */
	size_t n_texts;
	struct host_run run;      /* host spans not yet written (run.n 0: none) */
	uint8_t *calls;           /* by thread: it has API calls or ranges (host spans only) */
	uint32_t run_thread;      /* the thread whose samples track run.tid is */
	/* perfetto: the lighter form of docs/export.md ("perfetto: fewer bytes a kernel") */
	int lean;
	uint8_t *launches;        /* by API call: an op it launched is written (its flow) */
};

static struct chrome *self(struct kg_export_ops *x)
{
	return (struct chrome *)x;
}

/* ------------------------------------------------------------------ output */

/* "k": µs with ns decimals; perfetto's without the decimals' trailing zeros (the same
 * number: 180000 for 180000.000, 2.3 for 2.300) */
static void kv_us(struct chrome *c, const char *k, size_t kn, int64_t v)
{
	if (!c->lean) {
		jw_kv_milli(&c->w, k, kn, v);
		return;
	}
	char b[32];
	size_t n = jw_milli_text(b, v);
	while (b[n - 1] == '0')
		n--;
	n -= b[n - 1] == '.';
	jw_kv_raw(&c->w, k, kn, b, n);
}

/* "ts": a time on the document's time line */
static void ts(struct chrome *c, int64_t t)
{
	kv_us(c, "ts", 2, kg_time_diff(t, c->origin));
}

/* 0, -EIO (errno says why), or -ENOMEM */
static int status(struct chrome *c)
{
	if (c->w.write_errno)
		return -EIO;
	return c->failed || c->w.failed ? -ENOMEM : 0;
}

/* ------------------------------------------------------------------ events */

/* The JSON text of the model's string id: a name is written as often as its kernel runs.
 * NULL when out of memory. */
static const struct jw_prepared *text(struct chrome *c, const struct kg_model *m, uint32_t id)
{
	if (id >= c->n_texts) {
		size_t n = m->strings.count + 1 > id ? m->strings.count + 1 : (size_t)id + 1;
		struct jw_prepared *t = realloc(c->texts, n * sizeof(*t));
		if (!t) {
			c->failed = 1;
			return NULL;
		}
		memset(t + c->n_texts, 0, (n - c->n_texts) * sizeof(*t));
		c->texts = t;
		c->n_texts = n;
	}
	struct jw_prepared *t = &c->texts[id];
	if (!t->text && jw_prepare(&c->w, model_text(m, id), t) < 0) {
		c->failed = 1;
		return NULL;
	}
	return t;
}

/* "k": the model's string id */
static void kv_text(struct chrome *c, const struct kg_model *m, const char *k, size_t kn,
		    uint32_t id)
{
	const struct jw_prepared *t = text(c, m, id);
	if (t)
		jw_kv_raw(&c->w, k, kn, t->text, t->n);
}

/* "k": one of kgantt's own names, which need no escape */
#define kv_name_lit(c, k, v) kv_plain_lit(&(c)->w, k, v, strlen(v))

/* The fields of an event after its name; ph is one letter. */
static void ev_head(struct chrome *c, const char *ph, const char *cat, int32_t pid, int32_t tid)
{
	if (cat)
		kv_name_lit(c, "cat", cat);
	kv_plain_lit(&c->w, "ph", ph, 1);
	kv_int_lit(&c->w, "pid", pid);
	kv_int_lit(&c->w, "tid", tid);
}

/* Opens an event named by kgantt ("launch", "thread_name") and writes its common fields;
 * the caller adds the rest and closes it. */
static void ev_open(struct chrome *c, const char *ph, const char *name, const char *cat,
		    int32_t pid, int32_t tid)
{
	j_open(&c->w);
	kv_name_lit(c, "name", name);
	ev_head(c, ph, cat, pid, tid);
}

/* Where a slice's flow arrow starts or ends (perfetto): a launch call's "flow_out" or its
 * op's "flow_in", with the call's bind_id. */
struct flow_end {
	int64_t bind_id;          /* 0: none */
	const char *dir;          /* "flow_out", "flow_in" */
};

#define NO_FLOW ((struct flow_end){0, NULL})

/* The rest of a complete event [start, end]; leaves "args" open for the caller. */
static void ev_span(struct chrome *c, int64_t start, int64_t end, struct flow_end fl)
{
	ts(c, start);
	kv_us(c, "dur", 3, kg_time_span(end, start));
	if (fl.bind_id) {
		kv_int_lit(&c->w, "bind_id", fl.bind_id);
		jw_kv_bool(&c->w, fl.dir, strlen(fl.dir), 1);
	}
	j_key_lit(&c->w, "args");
	j_open(&c->w);
}

/* A complete event [start, end]; leaves "args" open for the caller. */
static void ev_complete(struct chrome *c, const char *name, const char *cat, int32_t pid,
			int32_t tid, int64_t start, int64_t end)
{
	ev_open(c, "X", name, cat, pid, tid);
	ev_span(c, start, end, NO_FLOW);
}

/* The same named by the model's string id. */
static void ev_complete_text(struct chrome *c, const struct kg_model *m, uint32_t name,
			     const char *cat, int32_t pid, int32_t tid, int64_t start, int64_t end,
			     struct flow_end fl)
{
	j_open(&c->w);
	kv_text(c, m, "name", 4, name);
	ev_head(c, "X", cat, pid, tid);
	ev_span(c, start, end, fl);
}

static void ev_close_args(struct chrome *c)
{
	j_close(&c->w); /* args */
	j_close(&c->w);
}

/* A metadata event: process_name, thread_name, *_sort_index. */
static void meta(struct chrome *c, const char *what, int32_t pid, int32_t tid, const char *name,
		 int64_t sort)
{
	ev_open(c, "M", what, NULL, pid, tid);
	j_key_lit(&c->w, "args");
	j_open(&c->w);
	if (name)
		kv_str_lit(&c->w, "name", name);
	else
		kv_int_lit(&c->w, "sort_index", sort);
	ev_close_args(c);
}

static void name_thread(struct chrome *c, int32_t pid, int32_t tid, const char *name, int32_t sort)
{
	meta(c, "thread_name", pid, tid, name, 0);
	meta(c, "thread_sort_index", pid, tid, NULL, sort);
}

/* Opens lane t->n and names its track: lane 0 is the track itself (named by its stream
 * or thread callback, or here when it is one kgantt adds), the others "X (overlap)",
 * "X (overlap 3)", or "X (2)" for a track without `more`. -1 when out of memory. */
static int open_lane(struct chrome *c, struct track *t)
{
	uint32_t k = t->n;
	if (k == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 4;
		struct lane *l = realloc(t->lanes, cap * sizeof(*l));
		if (!l)
			return -1;
		memset(l + t->cap, 0, (cap - t->cap) * sizeof(*l));
		t->lanes = l;
		t->cap = cap;
		if (tree_build(t) < 0)
			return -1;
	}
	t->lanes[k].tid = k ? c->next_tid++ : t->tid;
	t->n++;
	tree_set(t, k);
	if (k == 0) {
		if (!t->named)
			name_thread(c, t->pid, t->tid, t->label, t->sort);
		return 0;
	}
	char name[MAX_LABEL + 32];
	if (t->more)
		snprintf(name, sizeof(name), k == 1 ? "%s (%s)" : "%s (%s %u)", t->label, t->more, k + 1);
	else
		snprintf(name, sizeof(name), "%s (%u)", t->label, k + 1);
	name_thread(c, t->pid, t->lanes[k].tid, name, t->sort + (k < 31 ? (int32_t)k : 31));
	return 0;
}

/* The tid of the lane that [s, e] goes on: the first where it fits, or a new one. A lane
 * the tree passes over neither closes anything by s nor holds the slice; one it offers
 * that does not fit after all closed something, and is offered no more. */
static int32_t place(struct chrome *c, struct track *t, int64_t s, int64_t e, uint32_t *lane)
{
	uint32_t k;
	while ((k = tree_first(t, s, e)) < t->n && !lane_fits(&t->lanes[k], s, e))
		tree_set(t, k);
	if ((k == t->n && open_lane(c, t) < 0) || lane_push(&t->lanes[k], e) < 0) {
		c->failed = 1;
		return t->tid;
	}
	tree_set(t, k);
	if (lane)
		*lane = k;
	return t->lanes[k].tid;
}

/* ------------------------------------------------------------------ ids of groups and tracks */

static int32_t host_pid(const struct chrome *c, uint32_t process)
{
	return (int32_t)(process + 1) * c->stride;
}

static int32_t gpu_pid(const struct chrome *c, const struct kg_model *m, uint32_t device)
{
	const struct kg_device *d = &m->devices[device];
	int32_t ord = d->ordinal >= 0 && d->ordinal < c->stride - 1 ? d->ordinal : c->stride - 2;
	return host_pid(c, d->process) + 1 + ord;
}

struct stream_key {
	int32_t pid;
	int64_t id;
	uint32_t s;
};

static int stream_key_cmp(const void *pa, const void *pb)
{
	const struct stream_key *a = pa, *b = pb;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->s < b->s ? -1 : a->s > b->s;
}

/* A stream's tid is its id, unless that is out of range or another stream of the same
 * group (another context on the device) has it. */
static int assign_stream_tids(struct chrome *c, const struct kg_model *m)
{
	struct stream_key *k = malloc((m->n_streams ? m->n_streams : 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (uint32_t s = 0; s < m->n_streams; s++)
		k[s] = (struct stream_key){gpu_pid(c, m, m->streams[s].device), m->streams[s].id, s};
	qsort(k, m->n_streams, sizeof(*k), stream_key_cmp);
	for (uint32_t i = 0; i < m->n_streams; i++) {
		int dup = i && k[i].pid == k[i - 1].pid && k[i].id == k[i - 1].id;
		c->stream_tid[k[i].s] = !dup && k[i].id >= 0 && k[i].id < EXTRA_TID ? (int32_t)k[i].id
										  : c->next_tid++;
	}
	free(k);
	return 0;
}

static int64_t earliest(const struct kg_model *m)
{
	int64_t t = m->begin;
#define EARLIER(v)                                                  \
	do {                                                        \
		int64_t v_ = (v);                                   \
		if (v_ != KG_NO_TIME && (t == KG_NO_TIME || v_ < t)) \
			t = v_;                                     \
	} while (0)
	for (uint32_t i = 0; i < m->n_ops; i++)
		EARLIER(m->ops[i].queued);
	for (uint32_t i = 0; i < m->n_apis; i++)
		EARLIER(m->apis[i].start);
	for (uint32_t i = 0; i < m->n_ranges; i++)
		EARLIER(m->ranges[i].start);
	for (uint32_t i = 0; i < m->n_syncs; i++)
		EARLIER(m->syncs[i].start);
	for (uint32_t i = 0; i < m->n_hw_samples; i++)
		EARLIER(m->hw_samples[i].start);
	for (uint32_t i = 0; i < m->n_host_spans; i++) /* those written (on_host_span) */
		if (m->host_spans[i].source == KG_HOST_FROM_SAMPLES)
			EARLIER(m->host_spans[i].start);
#undef EARLIER
	return t == KG_NO_TIME ? 0 : t;
}

/* ------------------------------------------------------------------ labels */

static void stream_label(const struct kg_model *m, uint32_t s, char *out, size_t len, int full)
{
	const struct kg_stream *st = &m->streams[s];
	int n = snprintf(out, len, "stream %lld", (long long)st->id);
	if (!full || n < 0 || (size_t)n >= len)
		return;
	char extra[128] = "";
	const char *kind = stream_kind_name(st->kind);
	int e = 0;
	if (kind)
		e += snprintf(extra + e, sizeof(extra) - (size_t)e, ", %s", kind);
	if (st->priority)
		e += snprintf(extra + e, sizeof(extra) - (size_t)e, ", prio %d", st->priority);
	if (st->channel >= 0)
		snprintf(extra + e, sizeof(extra) - (size_t)e, ", channel %d", st->channel);
	if (extra[0])
		snprintf(out + n, len - (size_t)n, " (%s)", extra + 2);
}

static void thread_label(const struct kg_model *m, uint32_t t, char *out, size_t len)
{
	const struct kg_thread *th = &m->threads[t];
	const char *name = model_text(m, th->name);
	snprintf(out, len, *name ? "thread %llu (%s)" : "thread %llu", (unsigned long long)th->tid,
		 name);
}

/* ------------------------------------------------------------------ callbacks */

static void other_data(struct chrome *c, const struct kg_model *m)
{
	j_key_lit(&c->w, "otherData");
	j_open(&c->w);
	kv_str_lit(&c->w, "generator", "kgantt " KGANTT_VERSION);
	kv_str_lit(&c->w, "source", m->path);
	kv_str_lit(&c->w, "source_format", m->source);
	if (m->command)
		kv_str_lit(&c->w, "command", model_text(m, m->command));
	/* as a string: a double cannot hold every int64 */
	char b[24];
	b[jw_i64_text(b, c->origin)] = '\0';
	kv_str_lit(&c->w, "time_origin_ns", b);
	kv_str_lit(&c->w, "time_note", "ts and dur are microseconds after time_origin_ns on the trace's clock");
	if (c->o->windowed) {
		b[jw_i64_text(b, c->o->window_begin)] = '\0';
		kv_str_lit(&c->w, "window_begin_ns", b);
		b[jw_i64_text(b, c->o->window_end)] = '\0';
		kv_str_lit(&c->w, "window_end_ns", b);
		if (c->o->window_nvtx)
			kv_str_lit(&c->w, "window_nvtx", c->o->window_nvtx);
	}
	for (int i = 0; i < m->n_notes; i++) {
		char k[16];
		snprintf(k, sizeof(k), "note_%d", i + 1);
		kv_str(&c->w, k, m->notes[i]);
	}
	j_close(&c->w);
}

/* Which threads have API calls or ranges on their own track: the others' host spans go
 * there, not on a track of their own beside an empty one. */
static int mark_calls(struct chrome *c, const struct kg_model *m)
{
	c->calls = calloc((size_t)m->n_threads + 1, 1);
	if (!c->calls)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (m->apis[i].thread < m->n_threads)
			c->calls[m->apis[i].thread] = 1;
	for (uint32_t i = 0; i < m->n_ranges; i++)
		if (m->ranges[i].thread < m->n_threads)
			c->calls[m->ranges[i].thread] = 1;
	return 0;
}

/* perfetto: which API calls launched an op that is written, for their flow_out */
static int mark_launches(struct chrome *c, const struct kg_model *m)
{
	c->launches = calloc((size_t)m->n_apis + 1, 1);
	if (!c->launches)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].api < m->n_apis && m->ops[i].start != KG_NO_TIME)
			c->launches[m->ops[i].api] = 1;
	return 0;
}

static int on_begin(struct kg_export_ops *x, const struct kg_model *m)
{
	struct chrome *c = self(x);
	int max_ord = 0;
	for (uint32_t i = 0; i < m->n_devices; i++)
		if (m->devices[i].ordinal > max_ord && m->devices[i].ordinal < 100000)
			max_ord = m->devices[i].ordinal;
	for (c->stride = 100; c->stride < max_ord + 2; c->stride *= 10)
		;
	c->origin = earliest(m);
	c->next_tid = EXTRA_TID;
	c->stream_tid = malloc((m->n_streams + 1) * sizeof(int32_t));
	c->thread_tid = malloc((m->n_threads + 1) * sizeof(int32_t));
	c->api_tid = malloc((m->n_apis + 1) * sizeof(int32_t));
	if (!c->stream_tid || !c->thread_tid || !c->api_tid || assign_stream_tids(c, m) < 0)
		return -ENOMEM;
	for (uint32_t t = 0; t < m->n_threads; t++) {
		uint64_t tid = m->threads[t].tid;
		c->thread_tid[t] = tid > 0 && tid < EXTRA_TID ? (int32_t)tid : c->next_tid++;
	}
	if (m->n_host_spans && mark_calls(c, m) < 0)
		return -ENOMEM;
	if (c->lean && mark_launches(c, m) < 0)
		return -ENOMEM;
	c->cur_stream = c->cur_proc = c->cur_thread = c->cur_sync_proc = KG_NONE;
	j_open(&c->w);
	kv_str_lit(&c->w, "displayTimeUnit", "ns");
	other_data(c, m);
	j_key_lit(&c->w, "traceEvents");
	j_aopen(&c->w);
	return 0;
}

static int on_process(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct chrome *c = self(x);
	const struct kg_process *p = &m->processes[i];
	char name[512];
	int n = snprintf(name, sizeof(name), "pid %u", p->pid);
	if (p->host)
		n += snprintf(name + n, sizeof(name) - (size_t)n, " on %s", model_text(m, p->host));
	if (p->rank && n < (int)sizeof(name))
		snprintf(name + n, sizeof(name) - (size_t)n, " (rank %s)", model_text(m, p->rank));
	meta(c, "process_name", host_pid(c, i), 0, name, 0);
	meta(c, "process_sort_index", host_pid(c, i), 0, NULL, host_pid(c, i));
	return 0;
}

static int on_device(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct chrome *c = self(x);
	const struct kg_device *d = &m->devices[i];
	const char *dn = model_text(m, d->name);
	uint32_t pid = d->process < m->n_processes ? m->processes[d->process].pid : 0;
	char name[512];
	snprintf(name, sizeof(name), "GPU %d%s%s (pid %u)", d->ordinal, *dn ? " " : "", dn, pid);
	meta(c, "process_name", gpu_pid(c, m, i), 0, name, 0);
	meta(c, "process_sort_index", gpu_pid(c, m, i), 0, NULL, gpu_pid(c, m, i));
	return 0;
}

static int on_thread(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct chrome *c = self(x);
	char name[MAX_LABEL];
	thread_label(m, i, name, sizeof(name));
	name_thread(c, host_pid(c, m->threads[i].process), c->thread_tid[i], name,
		    (int32_t)(i + 1) * 64);
	return 0;
}

static int on_stream(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct chrome *c = self(x);
	char name[MAX_LABEL];
	stream_label(m, i, name, sizeof(name), 1);
	name_thread(c, gpu_pid(c, m, m->streams[i].device), c->stream_tid[i], name,
		    (int32_t)(i + 1) * 64);
	return 0;
}

/* The host track of (process, thread): the thread's, or "annotations" for ranges that
 * belong to no thread. Switched when the walk moves on (it goes thread by thread). */
static struct track *host_track(struct chrome *c, const struct kg_model *m, uint32_t process,
				uint32_t thread)
{
	struct track *t = &c->host;
	if (process == c->cur_proc && thread == c->cur_thread)
		return t;
	c->cur_proc = process;
	c->cur_thread = thread;
	if (thread < m->n_threads) {
		track_reset(t, host_pid(c, process), c->thread_tid[thread], (int32_t)(thread + 1) * 64,
			    1, "overlap");
		thread_label(m, thread, t->label, sizeof(t->label));
	} else {
		track_reset(t, host_pid(c, process), c->next_tid++, (int32_t)(m->n_threads + 2) * 64,
			    0, "overlap");
		snprintf(t->label, sizeof(t->label), "no thread");
	}
	return t;
}

static int on_api(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct chrome *c = self(x);
	const struct kg_api *a = &m->apis[i];
	struct track *t = host_track(c, m, a->process, a->thread);
	int64_t end = a->end != KG_NO_TIME && a->end > a->start ? a->end : a->start;
	int32_t tid = place(c, t, a->start, end, NULL);
	c->api_tid[i] = tid;
	struct flow_end fl = c->lean && c->launches[i] ? (struct flow_end){(int64_t)i + 1, "flow_out"}
						      : NO_FLOW;
	ev_complete_text(c, m, a->name, a->driver ? "cuda_driver" : "cuda_runtime", t->pid,
		    tid, a->start, end, fl);
	if (a->correlation)
		kv_int_lit(&c->w, "correlation", a->correlation);
	kv_name_lit(c, "category", api_category_name(a->category));
	ev_close_args(c);
	return status(c);
}

static int on_range(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct chrome *c = self(x);
	const struct kg_range *r = &m->ranges[i];
	struct track *t = host_track(c, m, r->process, r->thread);
	/* a range never closed is drawn to the end of the trace */
	int64_t end = r->end != KG_NO_TIME ? r->end : m->end;
	end = end > r->start ? end : r->start;
	int32_t tid = place(c, t, r->start, end, NULL);
	ev_complete_text(c, m, r->name, "nvtx", t->pid, tid, r->start, end, NO_FLOW);
	if (r->domain)
		kv_text(c, m, "domain", 6, r->domain);
	if (r->end == KG_NO_TIME)
		kv_bool_lit(&c->w, "unclosed", 1);
	ev_close_args(c);
	return status(c);
}

/* ------------------------------------------------------------------ host spans */

/* Whether span x goes on with the run: the same thread, stack, state and flags, from the
 * run's end (a missed sample is a gap: what the thread did then is not known). */
static int run_goes_on(const struct host_run *run, const struct kg_model *m,
		       const struct kg_host_span *x)
{
	const struct kg_host_span *a = &m->host_spans[run->first];
	return run->n && a->thread == x->thread && a->stack == x->stack && a->state == x->state &&
	       a->flags == x->flags && a->source == x->source && x->start == run->end;
}

/* The run as one slice on its thread's samples track, named by the innermost frame; its
 * args say the state and the whole stack, innermost first. */
static void write_run(struct chrome *c, const struct kg_model *m)
{
	const struct host_run *run = &c->run;
	const struct kg_host_span *x = &m->host_spans[run->first];
	const struct kg_stack *st = x->stack < m->n_stacks ? &m->stacks[x->stack] : NULL;
	const struct kg_frame *f = st && st->n_frames ? &m->frames[st->first_frame] : NULL;
	char name[MAX_LABEL], frame[512];
	frame_label(m, f, frame, sizeof(frame));
	snprintf(name, sizeof(name), "%s",
		 f && f->function ? model_text(m, f->function) : f ? frame : "no stack");
	ev_complete(c, name, "host_sample",
		    host_pid(c, m->threads[x->thread].process), run->tid, run->start, run->end);
	kv_str_lit(&c->w, "state", host_state_name(x->state));
	kv_int(&c->w, "samples", run->n);
	if (st) {
		j_key_lit(&c->w, "stack");
		j_aopen(&c->w);
		for (uint32_t k = 0; k < st->n_frames; k++) {
			frame_label(m, &m->frames[st->first_frame + k], frame, sizeof(frame));
			j_str(&c->w, frame);
		}
		j_aclose(&c->w);
	}
	static const struct { uint8_t flag; const char *name; } flags[] = {
		{KG_HOST_PARTIAL, "partial"}, {KG_HOST_HOLDS_GIL, "holds_gil"},
		{KG_HOST_CPU_TIME, "cpu_time"},
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (x->flags & flags[i].flag)
			kv_bool(&c->w, flags[i].name, 1);
	ev_close_args(c);
}

/* A sampled thread's spans go on a track of their own beside the thread's when it has API
 * calls or ranges (they would not nest), else on the thread's own. Spans from samples only: a profiler trace's export stays
 * as it was, its host events left to the tracks that have them. */
static int on_host_span(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct chrome *c = self(x);
	const struct kg_host_span *h = &m->host_spans[i];
	if (h->thread >= m->n_threads || h->source != KG_HOST_FROM_SAMPLES)
		return 0;
	if (run_goes_on(&c->run, m, h)) {
		c->run.n++;
		c->run.end = h->end;
		return 0;
	}
	if (c->run.n)
		write_run(c, m);
	if ((!c->run.n || h->thread != c->run_thread) && !c->calls[h->thread]) {
		c->run_thread = h->thread;
		c->run.tid = c->thread_tid[h->thread];
	} else if (!c->run.n || h->thread != c->run_thread) {
		char label[MAX_LABEL + 16];
		c->run_thread = h->thread;
		c->run.tid = c->next_tid++;
		thread_label(m, h->thread, label, sizeof(label) - 16);
		strcat(label, " host");
		name_thread(c, host_pid(c, m->threads[h->thread].process), c->run.tid, label,
			    (int32_t)(h->thread + 1) * 64 + 1);
	}
	c->run = (struct host_run){i, 1, h->start, h->end, c->run.tid};
	return status(c);
}

/* ------------------------------------------------------------------ GPU operations */

static void op_latencies(struct chrome *c, const struct kg_op *o)
{
	if (o->queued != KG_NO_TIME)
		kv_int_lit(&c->w, "queue_wait_ns", kg_time_diff(o->start, o->queued));
	if (o->submitted != KG_NO_TIME)
		kv_int_lit(&c->w, "submitted_rel_ns", kg_time_diff(o->submitted, o->start));
	if (o->api_start != KG_NO_TIME) {
		kv_int_lit(&c->w, "total_latency_ns", kg_time_diff(o->start, o->api_start));
		if (o->queued != KG_NO_TIME)
			kv_int_lit(&c->w, "launch_latency_ns", kg_time_diff(o->queued, o->api_start));
	}
}

/* "[x,y,z]" */
static size_t dim3(char *out, const uint32_t v[3])
{
	char *p = out;
	for (int i = 0; i < 3; i++) {
		*p++ = i ? ',' : '[';
		p += jw_i64_text(p, v[i]);
	}
	*p++ = ']';
	return (size_t)(p - out);
}

static void op_args(struct chrome *c, const struct kg_model *m, const struct kg_op *o)
{
	const struct kg_stream *s = &m->streams[o->stream];
	if (!c->lean) { /* perfetto: its track says them ("GPU 0 ...", "stream 7") */
		kv_int_lit(&c->w, "device", m->devices[s->device].ordinal);
		kv_int_lit(&c->w, "stream", s->id);
	}
	if (o->correlation)
		kv_int_lit(&c->w, "correlation", o->correlation);
	if (o->kind == KG_OP_KERNEL) {
		const struct kg_launch *l = op_launch(m, o);
		char d[72];
		/* a trace that does not say the launch shape (Kineto's graph-launched kernels on
		 * ROCm) gets none: a grid of [0,0,0] reads as a fact; the report says "unknown" */
		if (l->grid[0] && l->block[0]) {
			kv_raw_lit(&c->w, "grid", d, dim3(d, l->grid));
			kv_raw_lit(&c->w, "block", d, dim3(d, l->block));
			kv_int_lit(&c->w, "registers", l->regs);
			kv_int_lit(&c->w, "static_smem", l->smem_static);
			kv_int_lit(&c->w, "dynamic_smem", l->smem_dynamic);
			if (l->smem_config)
				kv_int_lit(&c->w, "smem_config", l->smem_config);
		}
	} else {
		kv_int_lit(&c->w, "bytes", (int64_t)o->bytes);
		if (o->kind == KG_OP_MEMCPY) {
			kv_str_lit(&c->w, "copy_kind", copy_kind_name(o->copy_kind));
			kv_str_lit(&c->w, "src_kind", mem_kind_name(o->src_kind));
		}
		kv_str(&c->w, o->kind == KG_OP_MEMCPY ? "dst_kind" : "memory_kind",
		       mem_kind_name(o->dst_kind));
	}
	if (o->flags & KG_OPF_GRAPH)
		kv_int_lit(&c->w, "graph", o->graph);
	op_latencies(c, o);
	static const struct { uint16_t flag; const char *name; } flags[] = {
		{KG_OPF_INCOMPLETE, "incomplete"}, {KG_OPF_ASYNC, "async"},
		{KG_OPF_COMM, "communication"},    {KG_OPF_DEVICE_LAUNCHED, "device_launched"},
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (o->flags & flags[i].flag)
			kv_bool(&c->w, flags[i].name, 1);
}

/* The arrow from the launch call to the op. The start is bound 1 ns inside the call, so
 * that a call ending exactly where this one starts is not taken for it; the end in the
 * middle of the op ("bp":"e": the enclosing slice), for the same reason with ops that run
 * back to back. */
static void flow(struct chrome *c, const struct kg_model *m, uint32_t i, int32_t pid, int32_t tid)
{
	const struct kg_op *o = &m->ops[i];
	const struct kg_api *a = &m->apis[o->api];
	int64_t ae = a->end == KG_NO_TIME ? a->start : a->end;
	ev_open(c, "s", "launch", "launch", host_pid(c, a->process), c->api_tid[o->api]);
	kv_int_lit(&c->w, "id", (int64_t)i + 1);
	ts(c, kg_time_add(a->start, kg_time_span(ae, a->start) >= 2 ? 1 : 0));
	j_close(&c->w);
	ev_open(c, "f", "launch", "launch", pid, tid);
	kv_plain_lit(&c->w, "bp", "e", 1);
	kv_int_lit(&c->w, "id", (int64_t)i + 1);
	ts(c, kg_time_add(o->start, kg_time_span(o->end, o->start) / 2));
	j_close(&c->w);
}

static int queued_cmp(const void *pa, const void *pb)
{
	const struct queued *a = pa, *b = pb;
	if (a->queued != b->queued)
		return a->queued < b->queued ? -1 : 1;
	if (a->start != b->start)
		return a->start > b->start ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

/* perfetto: the current stream's "queued" slices, [queued, start] of each kernel, on the
 * "stream N queue" track. Kept until the stream is done and laid out in order of their
 * own start: they need not come in the order of the ops' starts. */
static void flush_queue(struct chrome *c, const struct kg_model *m)
{
	if (!c->n_pending)
		return;
	uint32_t s = m->ops[c->pending[0].op].stream;
	/* its lanes sort right after the stream's own */
	track_reset(&c->queue, gpu_pid(c, m, m->streams[s].device), c->next_tid++,
		    (int32_t)(s + 1) * 64 + 32, 0, NULL);
	char label[MAX_LABEL];
	stream_label(m, s, label, sizeof(label), 0);
	snprintf(c->queue.label, sizeof(c->queue.label), "%s queue", label);
	qsort(c->pending, c->n_pending, sizeof(*c->pending), queued_cmp);
	for (uint32_t i = 0; i < c->n_pending; i++) {
		const struct queued *q = &c->pending[i];
		const struct kg_op *o = &m->ops[q->op];
		int32_t tid = place(c, &c->queue, q->queued, q->start, NULL);
		ev_complete(c, "queued", "queue", c->queue.pid, tid, q->queued, q->start);
		kv_text(c, m, "name", 4, o->name);
		if (o->correlation)
			kv_int_lit(&c->w, "correlation", o->correlation);
		if (o->submitted != KG_NO_TIME && !c->lean) /* perfetto: the kernel's arg */
			kv_int_lit(&c->w, "submitted_rel_ns", kg_time_diff(o->submitted, o->start));
		ev_close_args(c);
	}
	c->n_pending = 0;
}

static int queue_later(struct chrome *c, const struct kg_op *o, uint32_t i)
{
	if (o->queued == KG_NO_TIME || o->queued > o->start)
		return 0;
	if (c->n_pending == c->cap_pending) {
		uint32_t cap = c->cap_pending ? c->cap_pending * 2 : 1024;
		struct queued *q = realloc(c->pending, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		c->pending = q;
		c->cap_pending = cap;
	}
	c->pending[c->n_pending++] = (struct queued){o->queued, o->start, i};
	return 0;
}

static int on_op(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct chrome *c = self(x);
	const struct kg_op *o = &m->ops[i];
	if (o->start == KG_NO_TIME)
		return 0; /* nowhere to draw it (no reader makes these) */
	if (o->stream != c->cur_stream) {
		flush_queue(c, m);
		c->cur_stream = o->stream;
		track_reset(&c->stream, gpu_pid(c, m, m->streams[o->stream].device),
			    c->stream_tid[o->stream], (int32_t)(o->stream + 1) * 64, 1, "overlap");
		stream_label(m, o->stream, c->stream.label, sizeof(c->stream.label), 0);
	}
	int64_t end = o->end > o->start ? o->end : o->start;
	uint32_t lane = 0;
	int32_t tid = place(c, &c->stream, o->start, end, &lane);
	int lean_flow = c->lean && o->api != KG_NONE;
	ev_complete_text(c, m, o->name, op_kind_name(o->kind), c->stream.pid, tid, o->start, end,
			 lean_flow ? (struct flow_end){(int64_t)o->api + 1, "flow_in"} : NO_FLOW);
	op_args(c, m, o);
	if (lane)
		kv_bool_lit(&c->w, "overlaps_previous", 1);
	ev_close_args(c);
	if (o->api != KG_NONE && !lean_flow)
		flow(c, m, i, c->stream.pid, tid);
	if (c->o->format == KG_EXPORT_PERFETTO && o->kind == KG_OP_KERNEL &&
	    queue_later(c, o, i) < 0)
		return -ENOMEM;
	return status(c); /* -EIO stops the walk early: nothing more can be written */
}

static int on_sync(struct kg_export_ops *x, const struct kg_model *m, uint32_t i)
{
	struct chrome *c = self(x);
	const struct kg_sync *y = &m->syncs[i];
	flush_queue(c, m); /* the ops are done */
	if (y->process != c->cur_sync_proc) {
		c->cur_sync_proc = y->process;
		track_reset(&c->sync, host_pid(c, y->process), c->next_tid++,
			    (int32_t)(m->n_threads + 1) * 64, 0, "overlap");
		snprintf(c->sync.label, sizeof(c->sync.label), "synchronization waits");
	}
	int64_t end = y->end > y->start ? y->end : y->start;
	int32_t tid = place(c, &c->sync, y->start, end, NULL);
	ev_complete(c, sync_kind_name(y->kind), "sync", c->sync.pid, tid, y->start, end);
	if (y->stream < m->n_streams)
		kv_int_lit(&c->w, "stream", m->streams[y->stream].id);
	if (y->correlation)
		kv_int_lit(&c->w, "correlation", y->correlation);
	ev_close_args(c);
	return status(c);
}

/* ------------------------------------------------------------------ hardware samples */

/* Figure f's counter name ("SM active (%)") and the factor from its unit to the name's:
 * bytes per second as GB/s and hertz as MHz read better than 2.6e12 and 1.98e9. */
static double counter_name(int f, char *out, size_t len)
{
	static const char *const units[] = {[KG_HW_PCT] = "%", [KG_HW_BPS] = "GB/s",
					    [KG_HW_HZ] = "MHz"};
	static const double scale[] = {[KG_HW_PCT] = 1, [KG_HW_BPS] = 1e-9, [KG_HW_HZ] = 1e-6};
	const struct kg_hw_figure_info *fi = &kg_hw_figure_info[f];
	unsigned u = fi->unit <= KG_HW_HZ ? fi->unit : KG_HW_PCT;
	snprintf(out, len, "%s (%s)", fi->label, units[u]);
	return scale[u];
}

static void counter(struct chrome *c, const char *name, int32_t pid, int64_t t, double v)
{
	ev_open(c, "C", name, NULL, pid, 0);
	ts(c, t);
	j_key_lit(&c->w, "args");
	j_open(&c->w);
	j_key_lit(&c->w, "value");
	j_num(&c->w, v); /* six digits: what the counters hold, not a double's 17 */
	ev_close_args(c);
}

/* One figure of one device's samples hw[0 .. n): its value from each sample's start, and
 * 0 from the end of the last sample of a run (a pause in sampling, a figure not counted,
 * the end): a counter otherwise holds its last value for ever. */
static void figure_counter(struct chrome *c, const struct kg_hw_sample *hw, uint32_t n,
			   int f, int32_t pid, int64_t join)
{
	char name[128];
	double k = counter_name(f, name, sizeof(name));
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_hw_sample *x = &hw[i];
		if (!isfinite(x->v[f]) || x->end <= x->start)
			continue; /* not counted, or no time to hold a value over */
		counter(c, name, pid, x->start, x->v[f] * k);
		uint32_t j = i + 1;
		while (j < n && hw[j].end <= hw[j].start) /* zero-length ones do not count */
			j++;
		if (j == n || hw[j].start > kg_time_add(x->end, join) || !isfinite(hw[j].v[f]))
			counter(c, name, pid, x->end, 0);
	}
}

/* The counters of every sampled device, on its GPU group. Samples are by device, then
 * start (model_finish). */
static void hw_counters(struct chrome *c, const struct kg_model *m)
{
	for (uint32_t i = 0; i < m->n_hw_samples && !c->failed;) {
		uint32_t d = m->hw_samples[i].device, n = 0;
		while (i + n < m->n_hw_samples && m->hw_samples[i + n].device == d)
			n++;
		int64_t join = 0;
		for (uint32_t h = 0; h < m->n_hw_devices; h++)
			if (m->hw_devices[h].device == d && m->hw_devices[h].interval_ns > 0)
				join = m->hw_devices[h].interval_ns / 2; /* jitter, not a pause */
		for (int f = 0; d < m->n_devices && f < KG_HW_N; f++)
			figure_counter(c, &m->hw_samples[i], n, f, gpu_pid(c, m, d), join);
		i += n;
	}
}

static int on_end(struct kg_export_ops *x, const struct kg_model *m)
{
	struct chrome *c = self(x);
	flush_queue(c, m);
	if (c->run.n)
		write_run(c, m);
	hw_counters(c, m);
	j_aclose(&c->w);
	j_close(&c->w);
	return status(c);
}

int export_chrome(FILE *f, const struct kg_model *m, const struct kg_export_opts *o)
{
	struct chrome c = {
		.ops = {.begin = on_begin, .process = on_process, .device = on_device,
			.thread = on_thread, .stream = on_stream, .api = on_api, .range = on_range,
			.host_span = on_host_span, .op = on_op, .sync = on_sync, .end = on_end},
		.o = o,
		.lean = o->format == KG_EXPORT_PERFETTO,
	};
	/* the writer buffers: stdio's buffer (nothing is in it yet) would split each of its
	 * pieces into two write()s, the first of 4 KiB. Only over a descriptor: a stream in
	 * memory or of a cookie (gzip) is its buffer, and breaks without it. */
	if (fileno(f) >= 0)
		setvbuf(f, NULL, _IONBF, 0);
	if (jw_begin_compact(&c.w, f) < 0)
		return -ENOMEM;
	int rc = export_walk(m, &c.ops);
	if (jw_end(&c.w) < 0 && !rc)
		rc = c.w.write_errno ? -EIO : -ENOMEM;
	if (c.w.write_errno)
		errno = c.w.write_errno; /* for the caller's message */
	track_free(&c.stream);
	track_free(&c.host);
	track_free(&c.sync);
	track_free(&c.queue);
	free(c.stream_tid);
	free(c.thread_tid);
	free(c.calls);
	free(c.launches);
	free(c.api_tid);
	free(c.pending);
	for (size_t i = 0; i < c.n_texts; i++)
		free(c.texts[i].text);
	free(c.texts);
	return rc;
}
