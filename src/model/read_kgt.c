/* kgantt's own trace (SQLite, docs/trace-format.md) → the model. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kgt_reader.h"
#include "model/load.h"
#include "util/idmap.h"
#include "util/timemath.h"
#include "util/tracer_work.h"

int kgt_store_failed(struct kgt_reader *r, int rc)
{
	snprintf(r->err, r->errlen, "%s", store_error(r->s));
	return rc;
}

int kgt_oom(struct kgt_reader *r)
{
	snprintf(r->err, r->errlen, "out of memory reading '%s'", r->path);
	return -ENOMEM;
}

uint32_t kgt_str_of(const struct kgt_reader *r, int64_t id)
{
	if (r->str)
		return id > 0 && (size_t)id < r->nstr ? r->str[id] : 0;
	uint32_t v = id > 0 ? idmap_get(&r->strmap, (uint64_t)id) : KG_IDMAP_NONE;
	return v == KG_IDMAP_NONE ? 0 : v;
}

uint32_t kgt_text(struct kgt_reader *r, const struct kg_store_rows *it, int col)
{
	const char *t = store_text(it, col);
	return t ? model_string(r->m, t) : 0;
}

static int64_t time_col(const struct kg_store_rows *it, int col)
{
	return store_null(it, col) ? KG_NO_TIME : store_int(it, col);
}

int kgt_each_row(struct kgt_reader *r, enum kg_read what,
		 int (*row)(struct kgt_reader *, const struct kg_store_rows *))
{
	struct kg_store_rows *it;
	int rc = store_read(r->s, what, &it), got = 0;
	if (rc)
		rc = kgt_store_failed(r, rc);
	while (!rc && (got = store_next(it, NULL)) == 1)
		rc = row(r, it);
	if (!rc && got < 0)
		rc = kgt_store_failed(r, got);
	store_done(it);
	return rc;
}

int kgt_each_device_row(struct kgt_reader *r, enum kg_read what, uint64_t *skipped,
			int (*row)(struct kgt_reader *, const struct kg_store_rows *, uint32_t device))
{
	struct kg_store_rows *it;
	int rc = store_read(r->s, what, &it), got = 0;
	if (rc)
		rc = kgt_store_failed(r, rc);
	while (!rc && (got = store_next(it, NULL)) == 1) {
		uint32_t p = kgt_proc_of(r, store_int(it, 0));
		uint32_t dev = kgt_device_of(r, p, store_int(it, 1));
		if (dev == KG_NONE) {
			if (skipped)
				(*skipped)++;
			continue;
		}
		rc = row(r, it, dev);
	}
	if (!rc && got < 0)
		rc = kgt_store_failed(r, got);
	store_done(it);
	return rc;
}

/* Trace string id → model string id. Writers number strings 1, 2, 3...: an array by id,
 * unless the ids are sparse (an edited or damaged file), where an array would be sized by
 * the largest id, not by the strings there are (4 bytes per id: a 1 KB file could ask
 * for gigabytes); then a hash map of the ids present. */
static int load_strings(struct kgt_reader *r)
{
	int64_t max = 0, count = 0;
	int rc = store_strings_extent(r->s, &max, &count);
	if (rc)
		return kgt_store_failed(r, rc);
	if (max >= 0 && max <= 2 * count + 1024) {
		r->nstr = (size_t)max + 1;
		if (!(r->str = calloc(r->nstr, sizeof(*r->str))))
			return kgt_oom(r);
	} else if (idmap_reserve(&r->strmap, (size_t)count) < 0) {
		return kgt_oom(r);
	}
	struct kg_store_rows *it;
	int got = 0;
	if ((rc = store_read(r->s, KG_READ_STRINGS, &it)) != 0)
		rc = kgt_store_failed(r, rc);
	while (!rc && (got = store_next(it, NULL)) == 1) {
		int64_t id = store_int(it, 0);
		if (id <= 0)
			continue;
		if (r->str) {
			if (id <= max)
				r->str[id] = kgt_text(r, it, 1);
		} else {
			uint32_t *slot = idmap_slot(&r->strmap, (uint64_t)id);
			if (!slot)
				rc = kgt_oom(r);
			else
				*slot = kgt_text(r, it, 1);
		}
	}
	if (!rc && got < 0)
		rc = kgt_store_failed(r, got);
	store_done(it);
	return rc;
}

static int on_process(struct kgt_reader *r, const struct kg_store_rows *st)
{
	int64_t num = store_int(st, PR_NUMBER);
	if (num <= 0 || num > 1000000) {
		snprintf(r->err, r->errlen, "cannot read '%s' (processes: bad process number): "
			 "%lld", r->path, (long long)num);
		return -EIO;
	}
	if ((size_t)num >= r->nproc) {
		size_t n = (size_t)num + 16;
		uint32_t *p = realloc(r->proc, n * sizeof(*p));
		if (!p)
			return kgt_oom(r);
		for (size_t i = r->nproc; i < n; i++)
			p[i] = KG_NONE;
		r->proc = p;
		r->nproc = n;
	}
	struct kg_process *p = model_add_process(r->m);
	if (!p)
		return kgt_oom(r);
	r->proc[num] = r->m->n_processes - 1;
	p->pid = (uint32_t)store_int(st, PR_PID);
	p->ppid = (uint32_t)store_int(st, PR_PPID);
	p->host = kgt_text(r, st, PR_HOST);
	p->cmdline = kgt_text(r, st, PR_CMDLINE);
	p->rank = kgt_text(r, st, PR_RANK);
	p->complete = (int)store_int(st, PR_COMPLETE);
	p->exit_status = kgt_text(r, st, PR_EXIT_STATUS);
	int64_t dropped = store_int(st, PR_DROPPED), incomplete = store_int(st, PR_INCOMPLETE);
	if (dropped < 0 || incomplete < 0 || dropped > KG_MOST_RECORDS || incomplete > KG_MOST_RECORDS) {
		snprintf(r->err, r->errlen, "cannot read '%s' (processes, process %lld): %lld dropped "
			 "and %lld incomplete records cannot be true (at most 2^48)",
			 r->path, (long long)num, (long long)dropped, (long long)incomplete);
		return -EIO;
	}
	p->dropped = (uint64_t)dropped;
	p->incomplete = (uint64_t)incomplete;
	p->start = time_col(st, PR_START);
	p->end = time_col(st, PR_END);
	p->realtime_offset = time_col(st, PR_REALTIME_OFFSET);
	return 0;
}

uint32_t kgt_proc_of(const struct kgt_reader *r, int64_t num)
{
	return num > 0 && (size_t)num < r->nproc ? r->proc[num] : KG_NONE;
}

static int on_device(struct kgt_reader *r, const struct kg_store_rows *st)
{
	uint32_t p = kgt_proc_of(r, store_int(st, DV_PROCESS));
	int64_t ord = store_int(st, DV_DEVICE);
	if (p == KG_NONE || ord < 0 || ord >= MAX_ORDINALS)
		return 0; /* a device of no known process: nothing can refer to it */
	struct kg_device *d = model_add_device(r->m);
	if (!d)
		return kgt_oom(r);
	d->process = p;
	d->ordinal = (int32_t)ord;
	d->name = kgt_text(r, st, DV_NAME);
	d->uuid = kgt_text(r, st, DV_UUID);
	d->sm_count = (int)store_int(st, DV_SM_COUNT);
	d->max_warps_per_sm = (int)store_int(st, DV_MAX_WARPS_PER_SM);
	d->max_blocks_per_sm = (int)store_int(st, DV_MAX_BLOCKS_PER_SM);
	d->max_threads_per_block = (int)store_int(st, DV_MAX_THREADS_PER_BLOCK);
	d->regs_per_sm = (int)store_int(st, DV_MAX_REGS_PER_SM);
	d->max_regs_per_block = (int)store_int(st, DV_MAX_REGS_PER_BLOCK);
	d->smem_per_sm = (int)store_int(st, DV_MAX_SMEM_PER_SM);
	d->smem_per_block = (int)store_int(st, DV_MAX_SMEM_PER_BLOCK);
	d->cc_major = (int)store_int(st, DV_CC_MAJOR);
	d->cc_minor = (int)store_int(st, DV_CC_MINOR);
	d->memory_bytes = store_int(st, DV_MEMORY_BYTES);
	r->dev[(size_t)p * MAX_ORDINALS + (size_t)ord] = r->m->n_devices - 1;
	return 0;
}

/* The device index of (process, ordinal); a device the trace never described gets a bare
 * entry, so that an op is never dropped for want of its device's properties. */
static uint32_t device_of(struct kgt_reader *r, uint32_t p, int64_t ord)
{
	if (p == KG_NONE || ord < 0 || ord >= MAX_ORDINALS)
		return KG_NONE;
	uint32_t *slot = &r->dev[(size_t)p * MAX_ORDINALS + (size_t)ord];
	if (*slot == KG_NONE) {
		struct kg_device *d = model_add_device(r->m);
		if (!d)
			return KG_NONE;
		d->process = p;
		d->ordinal = (int32_t)ord;
		*slot = r->m->n_devices - 1;
	}
	return *slot;
}

uint32_t kgt_device_of(struct kgt_reader *r, uint32_t process, int64_t ordinal)
{
	return device_of(r, process, ordinal);
}

static int on_stream(struct kgt_reader *r, const struct kg_store_rows *st)
{
	/* process, context, stream, priority, flags, device, null_stream */
	uint32_t p = kgt_proc_of(r, store_int(st, 0));
	uint32_t d = device_of(r, p, store_int(st, 5));
	if (d == KG_NONE)
		return 0;
	uint32_t ctx = (uint32_t)store_int(st, 1);
	int64_t id = store_int(st, 2);
	uint32_t s = model_stream_index(r->m, p, d, ctx, id);
	if (s == KG_NONE)
		return kgt_oom(r);
	struct kg_stream *k = &r->m->streams[s];
	k->priority = (int)store_int(st, 3);
	int flags = (int)store_int(st, 4);
	int is_null = !store_null(st, 6) && store_int(st, 6) == id;
	k->kind = is_null || flags == 3 ? KG_STREAM_LEGACY_DEFAULT
		  : flags == 2	        ? KG_STREAM_NON_BLOCKING
		  : flags == 1	        ? KG_STREAM_BLOCKING
					: KG_STREAM_UNKNOWN;
	return 0;
}

/* ------------------------------------------------------------------ GPU operations */

int kgt_each_op_row(struct kgt_reader *r, enum kg_read what,
		    int (*row)(struct kgt_reader *, const struct kg_row *))
{
	struct kg_store_rows *it;
	struct kg_row values;
	int rc = store_read(r->s, what, &it), got = 0;
	if (rc)
		rc = kgt_store_failed(r, rc);
	while (!rc && (got = store_next(it, &values)) == 1)
		rc = row(r, &values);
	if (!rc && got < 0)
		rc = kgt_store_failed(r, got);
	store_done(it);
	return rc;
}

/* The stream of the row's (process, device, context, stream); KG_NONE for a device of no
 * known process (counted as skipped), or when out of memory (*no_memory set). */
uint32_t kgt_row_stream(struct kgt_reader *r, const struct kg_row *row, uint64_t *skipped,
			int *no_memory)
{
	uint32_t p = kgt_proc_of(r, row->v[COL_PROCESS]);
	uint32_t d = device_of(r, p, row->v[COL_DEVICE]);
	if (d == KG_NONE) {
		(*skipped)++;
		return KG_NONE;
	}
	uint32_t s = model_stream_index(r->m, p, d, (uint32_t)row->v[COL_CONTEXT],
					 row->v[COL_STREAM]);
	if (s == KG_NONE) {
		*no_memory = 1;
		return KG_NONE;
	}
	if (r->m->streams[s].channel < 0 && !row_is_null(row, COL_CHANNEL))
		r->m->streams[s].channel = (int32_t)row->v[COL_CHANNEL];
	return s;
}

void kgt_op_common(struct kg_op *o, const struct kg_row *row, enum kg_op_kind kind,
		      uint32_t stream)
{
	o->kind = (uint8_t)kind;
	o->stream = stream;
	o->correlation = (uint32_t)row->v[COL_CORRELATION];
	if (row->v[COL_INCOMPLETE])
		o->flags |= KG_OPF_INCOMPLETE;
	o->start = row->v[COL_START];
	o->end = row->v[COL_END];
}

/* A row whose start or end is NULL never ran within the recording: nothing to draw or
 * measure. INT64_MIN is the model's "unknown" (KG_NO_TIME), so a row holding it has no
 * time either. */
int kgt_ran(const struct kg_row *row)
{
	return !row_is_null(row, COL_START) && !row_is_null(row, COL_END) &&
	       row->v[COL_START] != KG_NO_TIME && row->v[COL_END] != KG_NO_TIME;
}

struct kg_op *kgt_new_op(struct kgt_reader *r, const struct kg_row *row, enum kg_op_kind kind,
			int *err)
{
	int no_memory = 0;
	uint32_t s = kgt_ran(row) ? kgt_row_stream(r, row, &r->skipped, &no_memory) : KG_NONE;
	struct kg_op *o = s == KG_NONE ? NULL : model_add_op(r->m);
	if (o)
		kgt_op_common(o, row, kind, s);
	else if (s != KG_NONE || no_memory)
		*err = kgt_oom(r);
	return o;
}

static int on_memcpy(struct kgt_reader *r, const struct kg_row *row)
{
	int err = 0;
	struct kg_op *o = kgt_new_op(r, row, KG_OP_MEMCPY, &err);
	if (!o)
		return err;
	o->copy_kind = (uint8_t)row->v[C_COPY_KIND];
	o->src_kind = (uint8_t)row->v[C_SRC_KIND];
	o->dst_kind = (uint8_t)row->v[C_DST_KIND];
	o->bytes = (uint64_t)row->v[C_BYTES];
	if (row->v[C_ASYNC])
		o->flags |= KG_OPF_ASYNC;
	graph_of(o, row, C_GRAPH);
	o->name = model_copy_label(r->m, o);
	return 0;
}

static int on_memset(struct kgt_reader *r, const struct kg_row *row)
{
	int err = 0;
	struct kg_op *o = kgt_new_op(r, row, KG_OP_MEMSET, &err);
	if (!o)
		return err;
	o->dst_kind = (uint8_t)row->v[S_MEMORY_KIND];
	o->bytes = (uint64_t)row->v[S_BYTES];
	if (row->v[S_ASYNC])
		o->flags |= KG_OPF_ASYNC;
	graph_of(o, row, S_GRAPH);
	o->name = model_copy_label(r->m, o);
	return 0;
}

/* ------------------------------------------------------------------ host side */

static int on_sync(struct kgt_reader *r, const struct kg_store_rows *st)
{
	/* process, type, context, stream, start, end, correlation, device */
	uint32_t p = kgt_proc_of(r, store_int(st, 0));
	if (p == KG_NONE || time_col(st, 4) == KG_NO_TIME || time_col(st, 5) == KG_NO_TIME)
		return 0;
	struct kg_sync *y = model_add_sync(r->m);
	if (!y)
		return kgt_oom(r);
	y->process = p;
	y->kind = (uint8_t)store_int(st, 1);
	if (!store_null(st, 3)) {
		uint32_t d = device_of(r, p, store_int(st, 7));
		if (d != KG_NONE)
			y->stream = model_stream_index(r->m, p, d, (uint32_t)store_int(st, 2),
						       store_int(st, 3));
	}
	y->start = store_int(st, 4);
	y->end = store_int(st, 5);
	y->correlation = (uint32_t)store_int(st, 6);
	return 0;
}

static int on_nvtx(struct kgt_reader *r, const struct kg_store_rows *st)
{
	uint32_t p = kgt_proc_of(r, store_int(st, 0));
	if (p == KG_NONE || time_col(st, 4) == KG_NO_TIME)
		return 0; /* no process, or no start: nothing to place it by */
	struct kg_range *g = model_add_range(r->m);
	if (!g)
		return kgt_oom(r);
	g->process = p;
	g->thread = model_thread_index(r->m, p, (uint64_t)store_int(st, 1));
	g->domain = kgt_str_of(r, store_int(st, 2));
	g->name = kgt_str_of(r, store_int(st, 3));
	g->start = time_col(st, 4);
	g->end = time_col(st, 5);
	return 0;
}

void kgt_progress(struct kgt_reader *r, double f)
{
	if (r->opts && r->opts->progress)
		r->opts->progress(f, r->opts->progress_arg);
}

/* What the recorder said that the report repeats: that it left trivial API queries out
 * (unless --all-api), and a recording window that never opened (--delay past the
 * program's end, no cudaProfilerStart), which an empty trace's "nothing to show" then
 * gives as its reason: noted first. */
static void note_recorder_messages(struct kgt_reader *r)
{
	char text[sizeof(r->m->notes[0])];
	if (store_first_message(r->s, "nothing recorded:", text, sizeof(text)))
		model_note(r->m, "%s", text);
	if (store_first_message(r->s, "API calls not recorded", text, sizeof(text)))
		model_note(r->m, "trivial API queries (cudaGetDevice, cudaGetLastError, "
				 "cuCtxGetCurrent...) were not recorded: kgantt record --all-api "
				 "keeps them");
}

/* A process whose recorder could not start (CUPTI refused: another profiler attached, no
 * permission) ran untraced; its first error says why. Kept on the process, so that every
 * command can tell "recording was refused" from "the program did nothing on the GPU". */
static void note_refusals(struct kgt_reader *r)
{
	struct kg_store_rows *it;
	if (store_read(r->s, KG_READ_REFUSALS, &it) == 0)
		while (store_next(it, NULL) == 1) {
			uint32_t p = kgt_proc_of(r, store_int(it, 0));
			const char *why = store_text(it, 1);
			struct kg_process *proc = p != KG_NONE ? &r->m->processes[p] : NULL;
			if (!proc || proc->refused || !why || !*why)
				continue;
			proc->refused = model_string(r->m, why);
			model_note(r->m, "pid %" PRIu32 " was not recorded: %s", proc->pid, why);
		}
	store_done(it);
}

static uint32_t known_thread(const struct kg_model *m, uint32_t process, int64_t tid)
{
	for (uint32_t t = 0; t < m->n_threads; t++)
		if (m->threads[t].process == process && m->threads[t].tid == tid)
			return t;
	return KG_NONE;
}

/* The tracer's own work on a thread that also made API calls (util/tracer_work.h): CUPTI's
 * overhead records and the stacks the recorder timed. */
static int on_tracer(struct kgt_reader *r, const struct kg_store_rows *st)
{
	uint32_t p = kgt_proc_of(r, store_int(st, 0));
	if (p == KG_NONE || !kg_overhead_is_tracer(store_int(st, 1)))
		return 0;
	uint32_t t = known_thread(r->m, p, store_int(st, 2));
	if (t == KG_NONE)
		return 0; /* the recorder's own threads: not the program's time */
	struct kg_host_span *h = model_add_tracer_span(r->m);
	if (!h)
		return kgt_oom(r);
	h->thread = t;
	h->start = time_col(st, 3);
	h->end = time_col(st, 4);
	if (h->start == KG_NO_TIME || h->end == KG_NO_TIME || h->end <= h->start) {
		r->m->n_tracer_spans--;
		return 0;
	}
	if (!r->m->tracer_name)
		r->m->tracer_name =
			model_string(r->m, "the tracer's own work (CUPTI's buffers, kgantt's stacks)");
	return 0;
}

/* Full mode's launch calls sampled in windows: the process's kernels are dated by their
 * queued times (model.h, op_issued). */
static int on_launch_setting(struct kgt_reader *r, const struct kg_store_rows *st)
{
	uint32_t p = kgt_proc_of(r, store_int(st, 0));
	const char *calls = store_text(st, 1);
	if (p != KG_NONE && calls && !strcmp(calls, "sampled"))
		r->m->processes[p].launches_sampled = 1;
	return 0;
}

/* kg_load_opts.copy_only: the kernels and API calls counted, however they are kept. */
static int count_bulk(struct kgt_reader *r)
{
	int64_t kernels, apis;
	int rc = store_count(r->s, "kernels", &kernels);
	if (!rc)
		rc = store_count(r->s, "api_calls", &apis);
	if (rc)
		return kgt_store_failed(r, rc);
	r->m->unread_rows = (uint64_t)kernels + (uint64_t)apis;
	return 0;
}

/* What only some commands need: the stacks, host and hardware samples, SM blocks. */
static int read_extras(struct kgt_reader *r)
{
	int rc = kgt_read_stacks(r);
	if (!rc)
		rc = kgt_read_host(r);
	if (!rc)
		rc = kgt_read_hw(r);
	if (!rc) /* after every op: its blocks name ops by index */
		rc = kgt_read_sm(r);
	return rc;
}

static int read_all(struct kgt_reader *r)
{
	int copy_only = r->opts && r->opts->copy_only;
	char command[4096];
	int rc = load_strings(r);
	store_meta(r->s, "command", command, sizeof(command));
	r->m->command = model_string(r->m, command);
	char start[32];
	store_meta(r->s, "program_start_ns", start, sizeof(start));
	char *end = NULL;
	long long t = start[0] ? strtoll(start, &end, 10) : 0;
	if (start[0] && end && !*end && t > 0)
		r->m->program_start = t;
	if (!rc)
		rc = kgt_each_row(r, KG_READ_PROCESSES, on_process);
	if (!rc) {
		r->dev = malloc(((size_t)r->m->n_processes + 1) * MAX_ORDINALS * sizeof(*r->dev));
		if (!r->dev)
			return kgt_oom(r);
		memset(r->dev, 0xff, ((size_t)r->m->n_processes + 1) * MAX_ORDINALS * sizeof(*r->dev));
	}
	if (!rc)
		rc = kgt_each_row(r, KG_READ_LAUNCH_SETTINGS, on_launch_setting);
	if (!rc)
		rc = kgt_each_row(r, KG_READ_DEVICES, on_device);
	if (!rc)
		rc = kgt_each_row(r, KG_READ_STREAMS, on_stream);
	kgt_progress(r, 0.05);
	if (!rc)
		note_recorder_messages(r);
	if (!rc)
		note_refusals(r);
	if (!rc)
		rc = copy_only ? count_bulk(r) : kgt_read_bulk(r);
	kgt_progress(r, 0.85);
	if (!rc)
		rc = kgt_each_op_row(r, KG_READ_MEMCPYS, on_memcpy);
	if (!rc)
		rc = kgt_each_op_row(r, KG_READ_MEMSETS, on_memset);
	kgt_progress(r, 0.9);
	if (!rc)
		rc = kgt_each_row(r, KG_READ_SYNCS, on_sync);
	if (!rc)
		rc = kgt_each_row(r, KG_READ_NVTX, on_nvtx);
	if (!rc && !copy_only)
		rc = kgt_each_row(r, KG_READ_TRACER, on_tracer);
	if (!rc && !copy_only)
		rc = read_extras(r);
	kgt_progress(r, 1.0);
	return rc;
}

int read_kgt_store(struct kg_model *m, struct kg_store *s, const struct kg_load_opts *opts,
		   char *err, size_t errlen)
{
	struct kgt_reader r = {.m = m, .s = s, .path = store_path(s), .err = err,
			       .errlen = errlen, .opts = opts};
	int rc = store_hold(s); /* one read transaction for every read */
	rc = rc ? kgt_store_failed(&r, rc) : read_all(&r);
	store_release(s);
	if (!rc && r.skipped)
		model_note(m, "%llu operations name no known process or device and were skipped",
			   (unsigned long long)r.skipped);
	free(r.str);
	idmap_free(&r.strmap);
	free(r.proc);
	free(r.dev);
	idmap_free(&r.stacks);
	return rc;
}

int read_kgt(struct kg_model *m, const char *path, const struct kg_load_opts *opts, char *err,
	     size_t errlen)
{
	struct kg_store *s;
	int rc = store_open(path, &s, err, errlen);
	if (rc < 0)
		return rc;
	rc = read_kgt_store(m, s, opts, err, errlen);
	store_close(s);
	return rc;
}
