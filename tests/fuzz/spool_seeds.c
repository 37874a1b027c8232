/* Writes the seed spools of fuzz_spool with the recorder's own spool writer
 * (recorder/spool.c), so that they are what a recording leaves: `make fuzz-spool-seeds`
 * (again after a change to recorder/raw_format.h).
 *
 *   spool_seeds DIR     writes DIR/complete.kgspool, killed.kgspool, stacks.kgspool
 *
 * complete: every kind of activity record of one process, ending with its end record;
 * killed: the same process cut short inside a record, as SIGKILL leaves it;
 * stacks: call-stack settings, a module, a Python code object, stacks and call sites. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/spool.h"
#include "util/tracer_work.h"

#define REC(s, type, T) ((T *)spool_reserve((s), (type), sizeof(T)))

static void die(const char *what, const char *path)
{
	fprintf(stderr, "spool_seeds: %s '%s': %s\n", what, path, strerror(errno));
	exit(1);
}

static void open_spool(struct kg_spool *s, const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	if (spool_open(s, path, 1 << 16) < 0)
		die("cannot create", path);
}

static void process(struct kg_spool *s, uint32_t pid)
{
	uint32_t host = spool_string(s, "gpu-host"), cmd = spool_string(s, "./app --steps 3");
	struct kg_raw_process *p = REC(s, KG_RAW_PROCESS, struct kg_raw_process);
	p->pid = pid, p->ppid = 1, p->host_str = host, p->cmdline_str = cmd;
	p->start_ns = 1000, p->start_realtime_ns = 5001000, p->latency_timestamps = 1;
	p->cupti_api_version = 130001;
	uint32_t dev = spool_string(s, "NVIDIA H200");
	struct kg_raw_device *d = REC(s, KG_RAW_DEVICE, struct kg_raw_device);
	d->name_str = dev, d->sm_count = 132, d->max_warps_per_sm = 64, d->max_blocks_per_sm = 32;
	d->max_threads_per_block = 1024, d->max_regs_per_sm = 65536, d->max_regs_per_block = 65536;
	d->max_smem_per_sm = 233472, d->max_smem_per_block = 49152, d->threads_per_warp = 32;
	d->cc_major = 9, d->global_memory_bytes = 150109880320ull, d->uuid[0] = 0x57;
	struct kg_raw_context *c = REC(s, KG_RAW_CONTEXT, struct kg_raw_context);
	c->context_id = 1, c->null_stream_id = 7;
	for (uint32_t i = 0; i < 2; i++) {
		struct kg_raw_stream *st = REC(s, KG_RAW_STREAM, struct kg_raw_stream);
		st->context_id = 1, st->stream_id = 13 + i, st->flags = 2 - i;
		st->priority = i ? 0 : (int32_t)4294967291u; /* -5, as CUPTI stores it */
	}
}

/* Two launches and their kernels (the second from a graph), a copy, a memset, a sync,
 * an NVTX range and mark, CUPTI's overhead, dropped records, the capture switch. */
static void activity(struct kg_spool *s)
{
	uint32_t kname = spool_string(s, "_Z12streams_workPfi");
	uint32_t launch = spool_string(s, "cudaLaunchKernel");
	for (uint32_t i = 0; i < 2; i++) {
		struct kg_raw_api *a = REC(s, KG_RAW_API, struct kg_raw_api);
		a->start = 2000 + i * 1000, a->end = a->start + 100, a->domain = KG_API_RUNTIME;
		a->cbid = 211, a->name_str = launch, a->tid = 77, a->correlation_id = 10 + i;
		struct kg_raw_kernel *k = REC(s, KG_RAW_KERNEL, struct kg_raw_kernel);
		k->name_str = kname, k->correlation_id = 10 + i, k->stream_id = 13 + i, k->context_id = 1;
		k->queued = i ? 0 : a->start + 50, k->submitted = i ? 0 : a->start + 60;
		k->start = a->start + 200, k->end = a->start + 700, k->graph_id = i ? 5 : 0;
		k->grid[0] = 8, k->grid[1] = k->grid[2] = 1, k->block[0] = 256;
		k->block[1] = k->block[2] = 1, k->regs_per_thread = 32, k->channel_id = 3;
	}
	struct kg_raw_memcpy *m = REC(s, KG_RAW_MEMCPY, struct kg_raw_memcpy);
	m->start = 5000, m->end = 6000, m->bytes = 1 << 20, m->copy_kind = 1, m->src_kind = 1;
	m->dst_kind = 3, m->stream_id = 13, m->context_id = 1, m->correlation_id = 12;
	struct kg_raw_memset *ms = REC(s, KG_RAW_MEMSET, struct kg_raw_memset);
	ms->start = 6100, ms->end = 6200, ms->bytes = 4096, ms->memory_kind = 3, ms->stream_id = 14;
	ms->context_id = 1, ms->async = 1;
	uint32_t sync = spool_string(s, "cudaStreamSynchronize");
	struct kg_raw_api *a = REC(s, KG_RAW_API, struct kg_raw_api);
	a->start = 6300, a->end = 7000, a->domain = KG_API_RUNTIME, a->cbid = 131;
	a->name_str = sync, a->tid = 77, a->correlation_id = 13;
	struct kg_raw_sync *y = REC(s, KG_RAW_SYNC, struct kg_raw_sync);
	y->start = 6310, y->end = 6990, y->type = 3, y->context_id = 1, y->stream_id = 13;
	y->event_id = UINT32_MAX, y->correlation_id = 13;
	uint32_t nv = spool_string(s, "forward"), dom = spool_string(s, "app");
	struct kg_raw_marker *mk = REC(s, KG_RAW_MARKER, struct kg_raw_marker);
	mk->ts = 1500, mk->id = 4, mk->kind = KG_MARK_START, mk->name_str = nv, mk->tid = 77;
	mk->domain_str = dom, mk->push_pop = 1;
	mk = REC(s, KG_RAW_MARKER, struct kg_raw_marker);
	mk->ts = 4500, mk->id = 4, mk->kind = KG_MARK_END, mk->tid = 77;
	mk = REC(s, KG_RAW_MARKER, struct kg_raw_marker);
	mk->ts = 4600, mk->id = 5, mk->kind = KG_MARK_INSTANT, mk->name_str = nv, mk->tid = 78;
	struct kg_raw_overhead *o = REC(s, KG_RAW_OVERHEAD, struct kg_raw_overhead);
	o->start = 7100, o->end = 7200, o->kind = 1, o->object_kind = 1, o->object_id = 77;
	struct kg_raw_dropped *dr = REC(s, KG_RAW_DROPPED, struct kg_raw_dropped);
	dr->ts = 7300, dr->dropped_total = 2, dr->context_id = 1, dr->stream_id = 13;
	uint32_t why = spool_string(s, "cudaProfilerStart");
	struct kg_raw_capture *cap = REC(s, KG_RAW_CAPTURE, struct kg_raw_capture);
	cap->ts = 1100, cap->on = 1, cap->why_str = why;
	uint32_t text = spool_string(s, "CUPTI: a message from the recorder");
	struct kg_raw_status *st = REC(s, KG_RAW_STATUS, struct kg_raw_status);
	st->ts = 7400, st->level = KG_STATUS_WARNING, st->text_str = text;
}

static void end(struct kg_spool *s)
{
	struct kg_raw_end *e = REC(s, KG_RAW_END, struct kg_raw_end);
	e->ts = 9000, e->dropped_total = 2, e->records = s->records;
}

/* Stacks as recorder/stacks.c writes them: settings, the modules, the Python code objects
 * the frames name, each distinct stack once, then which calls made which stack. */
static void stacks(struct kg_spool *s)
{
	uint32_t py = spool_string(s, "CPython 3.11.2");
	struct kg_raw_stack_settings *set = REC(s, KG_RAW_STACK_SETTINGS, struct kg_raw_stack_settings);
	set->mode = KG_STACKS_WAITS, set->launch_first = 8, set->launch_every = 64;
	set->max_depth = 64, set->python_str = py, set->python = 1, set->python_version = 0x030b;
	uint32_t lib = spool_string(s, "/nonexistent/libapp.so");
	struct kg_raw_module *mod = REC(s, KG_RAW_MODULE, struct kg_raw_module);
	mod->base = 0x400000, mod->low = 0x401000, mod->high = 0x480000, mod->path_str = lib;
	mod->build_id_len = 4, mod->build_id[0] = 0xab;
	uint32_t pylib = spool_string(s, "/nonexistent/libpython3.11.so.1.0");
	mod = REC(s, KG_RAW_MODULE, struct kg_raw_module);
	mod->base = 0x7f0000000000, mod->low = 0x7f0000001000, mod->high = 0x7f0000400000;
	mod->path_str = pylib;
	/* co_linetable of a four-line function, from CPython 3.11 */
	static const uint8_t linetable[] = {128, 0, 216, 8, 9, 136, 65, 137, 5, 128, 65, 216, 8,
					    9, 136, 65, 137, 5, 128, 65, 216, 11, 12, 128, 72};
	uint32_t file = spool_string(s, "train.py"), fn = spool_string(s, "train_step");
	struct kg_raw_pycode *pc = spool_reserve(s, KG_RAW_PYCODE, sizeof(*pc) + sizeof(linetable));
	pc->id = 1, pc->filename_str = file, pc->qualname_str = fn, pc->firstlineno = 3;
	pc->linetable_len = sizeof(linetable);
	memcpy(pc + 1, linetable, sizeof(linetable));
	/* stack 1: two native frames, then the interpreter running train_step */
	struct kg_raw_stack *k = spool_reserve(s, KG_RAW_STACK, sizeof(*k) + 3 * 8 + 8);
	k->id = 1, k->n_native = 3, k->n_python = 1;
	uint64_t *ips = (uint64_t *)(k + 1);
	ips[0] = 0x401234, ips[1] = 0x402000, ips[2] = 0x7f0000002000;
	struct kg_raw_pyframe *f = (struct kg_raw_pyframe *)(ips + 3);
	f->code = 1, f->lasti = 12;
	k = spool_reserve(s, KG_RAW_STACK, sizeof(*k) + 8);
	k->id = 2, k->n_native = 1, k->flags = 1, ips = (uint64_t *)(k + 1), ips[0] = 0x401300;
	struct kg_raw_callsites *cs =
		spool_reserve(s, KG_RAW_CALLSITES, sizeof(*cs) + 3 * sizeof(struct kg_raw_callsite));
	cs->count = 3;
	struct kg_raw_callsite *c = (struct kg_raw_callsite *)(cs + 1);
	c[0] = (struct kg_raw_callsite){10, 1}, c[1] = (struct kg_raw_callsite){11, 1};
	c[2] = (struct kg_raw_callsite){13, 2};
}

/* Launch calls the launch hook saw (trace/hooked_import.h): the recorder's own correlation
 * ids, each API record followed by its stream; kernels queued inside two of them, one call
 * in a capture (no kernel); a call site under a hooked id, and its stack's time. */
static void hooked(struct kg_spool *s)
{
	uint32_t how = spool_string(s, KG_LAUNCHES_BY_HOOK);
	struct kg_raw_launch_settings *ls =
		REC(s, KG_RAW_LAUNCH_SETTINGS, struct kg_raw_launch_settings);
	ls->sampled = 1, ls->window_on_ms = 10, ls->window_period_ms = 100, ls->why_str = how;
	uint32_t kname = spool_string(s, "_Z5emptyv"), launch = spool_string(s, "cuLaunchKernel");
	for (uint32_t i = 0; i < 3; i++) {
		struct kg_raw_api *a = REC(s, KG_RAW_API, struct kg_raw_api);
		a->start = 2000 + i * 1000, a->end = a->start + 100, a->domain = KG_API_DRIVER;
		a->cbid = 307, a->name_str = launch, a->tid = 77;
		a->correlation_id = KG_RAW_HOOKED_CORRELATION + i;
		struct kg_raw_hooked_launch *x =
			REC(s, KG_RAW_HOOKED_LAUNCH, struct kg_raw_hooked_launch);
		x->correlation_id = a->correlation_id, x->stream_id = i == 1 ? KG_RAW_STREAM_UNKNOWN : 13;
		x->device_id = i == 1 ? KG_RAW_STREAM_UNKNOWN : 0;
		if (i == 2)
			continue; /* captured into a graph: no kernel */
		struct kg_raw_kernel *k = REC(s, KG_RAW_KERNEL, struct kg_raw_kernel);
		k->name_str = kname, k->correlation_id = 20 + i, k->stream_id = 13, k->context_id = 1;
		k->queued = a->start + 60, k->submitted = a->start + 70;
		k->start = a->start + 200, k->end = a->start + 300;
		k->grid[0] = k->grid[1] = k->grid[2] = 1, k->block[0] = 32;
		k->block[1] = k->block[2] = 1;
	}
	struct kg_raw_callsites *cs =
		spool_reserve(s, KG_RAW_CALLSITES, sizeof(*cs) + sizeof(struct kg_raw_callsite));
	cs->count = 1;
	((struct kg_raw_callsite *)(cs + 1))[0] =
		(struct kg_raw_callsite){KG_RAW_HOOKED_CORRELATION, 2};
	/* its stack's time, held until the call has its kernel's id (spool_import.c) */
	struct kg_raw_overhead *o = REC(s, KG_RAW_OVERHEAD, struct kg_raw_overhead);
	o->start = 1990, o->end = 1998, o->kind = KG_OVERHEAD_KGANTT_STACK;
	o->object_kind = KG_OVERHEAD_OBJECT_THREAD, o->object_id = 77;
	o->correlation_id = KG_RAW_HOOKED_CORRELATION;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: spool_seeds DIR\n");
		return 2;
	}
	const char *dir = argv[1];
	mkdir(dir, 0755);
	struct kg_spool s;
	open_spool(&s, dir, "complete.kgspool");
	process(&s, 4242);
	activity(&s);
	end(&s);
	spool_close(&s);

	open_spool(&s, dir, "killed.kgspool");
	process(&s, 4243);
	activity(&s);
	spool_flush(&s);
	/* the last record is cut in the middle, as a SIGKILL during write(2) leaves it */
	s.len = 0;
	struct kg_raw_kernel *k = REC(&s, KG_RAW_KERNEL, struct kg_raw_kernel);
	k->start = 8000, k->end = 8500;
	s.len = sizeof(*k) / 2;
	spool_close(&s);

	open_spool(&s, dir, "stacks.kgspool");
	process(&s, 4244);
	activity(&s);
	stacks(&s);
	end(&s);
	spool_close(&s);

	open_spool(&s, dir, "hooked.kgspool");
	process(&s, 4245);
	hooked(&s);
	stacks(&s);
	end(&s);
	spool_close(&s);
	return 0;
}
