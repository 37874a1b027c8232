/* The PyTorch profiler (Kineto) JSON reader: the four real H200 traces of
 * tests/fixtures/torch/, exact field mapping on small hand-written traces, and bad input
 * (empty, truncated, corrupt, wrong types, deep nesting, random damage), which must give
 * an error naming the file, or a model without the bad events, and never a crash. */
#include "harness.h"

#include <errno.h>
#include <stdarg.h>
#include <ftw.h>
#include <zlib.h>

#include "model/load.h"

static char dir[256];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Each test runs in its own child process: its folder goes when the child exits. */
static void remove_dir(void)
{
	if (dir[0])
		nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void make_dir(void)
{
	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "/tmp/kgantt-kineto-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	atexit(remove_dir);
}

/* Writes len bytes into a new file of the test folder; returns its path (static). */
static const char *write_file(const char *name, const void *data, size_t len)
{
	static char path[512];
	make_dir();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	CHECK(fwrite(data, 1, len, f) == len);
	CHECK(fclose(f) == 0);
	return path;
}

static const char *write_text(const char *name, const char *text)
{
	return write_file(name, text, strlen(text));
}

/* The whole of a file, read with zlib (which also reads plain files). */
static char *slurp(const char *path, size_t *len, int inflate)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	CHECK(buf != NULL);
	if (inflate) {
		gzFile g = gzopen(path, "rb");
		CHECK(g != NULL);
		int got;
		while ((got = gzread(g, buf + n, (unsigned)(cap - n))) > 0) {
			n += (size_t)got;
			if (n == cap)
				CHECK((buf = realloc(buf, cap *= 2)) != NULL);
		}
		gzclose(g);
	} else {
		FILE *f = fopen(path, "rb");
		CHECK(f != NULL);
		size_t got;
		while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
			n += got;
			if (n == cap)
				CHECK((buf = realloc(buf, cap *= 2)) != NULL);
		}
		fclose(f);
	}
	*len = n;
	return buf;
}

static int load(struct kg_model *m, const char *path, char *err, size_t errlen)
{
	model_init(m, "kineto", path);
	err[0] = 0;
	return read_kineto(m, path, NULL, err, errlen);
}

/* Loads and finishes a file that must load. */
static void load_ok(struct kg_model *m, const char *path)
{
	char err[512];
	int rc = load(m, path, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "    %s\n", err);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(model_finish(m), 0);
}

/* A file that must not load: the message names it and contains `what`. */
static void load_fails(const char *path, const char *what)
{
	struct kg_model m;
	char err[512];
	int rc = load(&m, path, err, sizeof(err));
	if (rc >= 0 || !strstr(err, path) || (what && !strstr(err, what)))
		fprintf(stderr, "    rc %d, message: %s\n", rc, err);
	CHECK(rc < 0);
	CHECK(strstr(err, path) != NULL);
	if (what)
		CHECK(strstr(err, what) != NULL);
	model_free(&m);
}

static int has_note(const struct kg_model *m, const char *text)
{
	for (int i = 0; i < m->n_notes; i++)
		if (strstr(m->notes[i], text))
			return 1;
	return 0;
}

struct counts {
	int kernels, memcpys, memsets, runtime, driver, linked, linked_runtime, steps;
};

static struct counts count(const struct kg_model *m)
{
	struct counts c = {0};
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		c.kernels += o->kind == KG_OP_KERNEL;
		c.memcpys += o->kind == KG_OP_MEMCPY;
		c.memsets += o->kind == KG_OP_MEMSET;
		if (o->kind == KG_OP_KERNEL && o->api != KG_NONE) {
			c.linked++;
			c.linked_runtime += !m->apis[o->api].driver;
		}
	}
	for (uint32_t i = 0; i < m->n_apis; i++)
		m->apis[i].driver ? c.driver++ : c.runtime++;
	for (uint32_t i = 0; i < m->n_ranges; i++)
		c.steps += strcmp(model_text(m, m->ranges[i].name), "step") == 0;
	return c;
}

static const struct kg_op *op_by_correlation(const struct kg_model *m, uint32_t corr)
{
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].correlation == corr)
			return &m->ops[i];
	return NULL;
}

static const struct kg_op *op_named(const struct kg_model *m, const char *name)
{
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (strcmp(model_text(m, m->ops[i].name), name) == 0)
			return &m->ops[i];
	return NULL;
}

static int n_syncs_of(const struct kg_model *m, int kind)
{
	int n = 0;
	for (uint32_t i = 0; i < m->n_syncs; i++)
		n += m->syncs[i].kind == kind;
	return n;
}

static void check_h200(const struct kg_model *m)
{
	CHECK_EQ_INT(m->n_devices, 1);
	const struct kg_device *d = &m->devices[0];
	CHECK_EQ_STR(model_text(m, d->name), "NVIDIA H200");
	CHECK_EQ_INT(d->ordinal, 0);
	CHECK_EQ_INT(d->sm_count, 132);
	CHECK_EQ_INT(d->cc_major, 9);
	CHECK_EQ_INT(d->cc_minor, 0);
	CHECK_EQ_INT(d->max_warps_per_sm, 64);
	CHECK_EQ_INT(d->max_blocks_per_sm, 32);
	CHECK_EQ_INT(d->max_threads_per_block, 1024);
	CHECK_EQ_INT(d->regs_per_sm, 65536);
	CHECK_EQ_INT(d->max_regs_per_block, 65536);
	CHECK_EQ_INT(d->smem_per_sm, 233472);
	CHECK_EQ_INT(d->smem_per_block, 49152);
	CHECK_EQ_INT(d->smem_per_block_optin, 232448);
	CHECK_EQ_INT(d->memory_bytes, 150109880320ll);
	CHECK_EQ_INT(d->uuid, 0);
	CHECK_EQ_INT(d->vendor, KG_VENDOR_NVIDIA);
	CHECK_EQ_INT(m->n_processes, 1);
	CHECK_EQ_INT(m->processes[0].pid, 924);
	CHECK_EQ_STR(model_text(m, m->processes[0].cmdline), "python3");
	CHECK_EQ_STR(model_text(m, m->command), "python3");
	CHECK_EQ_INT(m->processes[0].rank, 0); /* single-process runs: no distributedInfo */
	CHECK_EQ_STR(m->source, "kineto");
}

/* Expected numbers below come from Python, independently of this reader:
 *   python3 -c "import json,gzip,collections,sys; ev=json.load(gzip.open(sys.argv[1]))
 *   ['traceEvents']; print(collections.Counter(e.get('cat') for e in ev if e.get('ph')=='X'))"
 *   tests/fixtures/torch/NAME.json.gz
 * kernels = cat kernel, memcpys = gpu_memcpy, memsets = gpu_memset, runtime = cuda_runtime,
 * driver = cuda_driver; "linked runtime" counts kernels whose args.correlation is the
 * correlation of some cuda_runtime event (the rest are launched by cuLaunchKernel* only);
 * syncs count cuda_runtime names starting with cudaDeviceSynchronize,
 * cudaStreamSynchronize, cudaEventSynchronize or cudaStreamWaitEvent. */

TEST(fixture_pageable_item)
{
	struct kg_model m;
	load_ok(&m, "tests/fixtures/torch/torch_pageable_item.json.gz");
	struct counts c = count(&m);
	CHECK_EQ_INT(c.kernels, 270);
	CHECK_EQ_INT(c.memcpys, 30);
	CHECK_EQ_INT(c.memsets, 40);
	CHECK_EQ_INT(c.runtime, 402);
	CHECK_EQ_INT(c.driver, 20);
	CHECK_EQ_INT(c.linked, 270);
	CHECK_EQ_INT(c.linked_runtime, 250);
	CHECK_EQ_INT(m.n_syncs, 32);
	CHECK_EQ_INT(n_syncs_of(&m, KG_SYNC_STREAM), 30);
	CHECK_EQ_INT(n_syncs_of(&m, KG_SYNC_CONTEXT), 2);
	CHECK_EQ_INT(m.n_ranges, 30); /* step, zero_grad, Optimizer.step: 10 each */
	CHECK_EQ_INT(c.steps, 10);
	check_h200(&m);
	CHECK_EQ_INT(m.n_streams, 1);
	CHECK_EQ_INT(m.streams[0].id, 7);
	CHECK_EQ_INT(m.streams[0].nops, 340);

	/* {"ts": 5111704709054.892, "dur": 178.720, correlation 54, grid [8, 32, 1], ...} */
	const struct kg_op *k = op_by_correlation(&m, 54);
	CHECK(k != NULL);
	CHECK_EQ_INT(k->kind, KG_OP_KERNEL);
	CHECK_EQ_INT(k->start, 5111704709054892ll);
	CHECK_EQ_INT(k->end, 5111704709054892ll + 178720);
	const struct kg_launch *kl = op_launch(&m, k);
	CHECK_EQ_INT(kl->grid[0], 8);
	CHECK_EQ_INT(kl->grid[1], 32);
	CHECK_EQ_INT(kl->grid[2], 1);
	CHECK_EQ_INT(kl->block[0], 128);
	CHECK_EQ_INT(kl->regs, 255);
	CHECK_EQ_INT(kl->smem_dynamic, 33792);
	CHECK_EQ_INT(kl->smem_static, 0);
	CHECK_EQ_INT(k->queued, KG_NO_TIME); /* Kineto wrote "queued": 0 */
	CHECK(strstr(model_text(&m, k->name), "sm80_xmma_gemm_f32f32") != NULL);
	CHECK(k->api != KG_NONE);
	CHECK_EQ_STR(model_text(&m, m.apis[k->api].name), "cudaLaunchKernelExC");
	CHECK_EQ_INT(k->api_start, 5111704708987780ll);

	const struct kg_op *h2d = op_named(&m, "Memcpy HtoD (Pageable -> Device)");
	CHECK(h2d != NULL);
	CHECK_EQ_INT(h2d->copy_kind, KG_COPY_HTOD);
	CHECK_EQ_INT(h2d->src_kind, KG_MEM_PAGEABLE);
	CHECK_EQ_INT(h2d->dst_kind, KG_MEM_DEVICE);
	CHECK_EQ_INT(h2d->bytes, 4194304);
	CHECK(h2d->flags & KG_OPF_ASYNC); /* issued by cudaMemcpyAsync */
	const struct kg_op *d2h = op_named(&m, "Memcpy DtoH (Device -> Pinned)");
	CHECK(d2h != NULL);
	CHECK_EQ_INT(d2h->copy_kind, KG_COPY_DTOH);
	CHECK_EQ_INT(d2h->src_kind, KG_MEM_DEVICE);
	CHECK_EQ_INT(d2h->dst_kind, KG_MEM_PINNED);
	const struct kg_op *ms = op_named(&m, "Memset (Device)");
	CHECK(ms != NULL);
	CHECK_EQ_INT(ms->kind, KG_OP_MEMSET);
	CHECK_EQ_INT(ms->dst_kind, KG_MEM_DEVICE);
	CHECK(ms->flags & KG_OPF_ASYNC);

	CHECK(has_note(&m, "1440 cpu_op"));
	CHECK(m.begin != KG_NO_TIME && m.end > m.begin);
	model_free(&m);
}

TEST(fixture_tiny_ops)
{
	struct kg_model m;
	load_ok(&m, "tests/fixtures/torch/torch_tiny_ops.json.gz");
	struct counts c = count(&m);
	CHECK_EQ_INT(c.kernels, 4000);
	CHECK_EQ_INT(c.memcpys, 0);
	CHECK_EQ_INT(c.memsets, 0);
	CHECK_EQ_INT(c.runtime, 4002);
	CHECK_EQ_INT(c.driver, 0);
	CHECK_EQ_INT(c.linked, 4000);
	CHECK_EQ_INT(c.linked_runtime, 4000);
	CHECK_EQ_INT(m.n_syncs, 2);
	CHECK_EQ_INT(n_syncs_of(&m, KG_SYNC_CONTEXT), 2);
	CHECK(m.syncs[0].api != KG_NONE);
	CHECK_EQ_STR(model_text(&m, m.apis[m.syncs[0].api].name), "cudaDeviceSynchronize");
	CHECK_EQ_INT(m.syncs[0].stream, KG_NONE);
	CHECK_EQ_INT(c.steps, 2);
	check_h200(&m);
	CHECK_EQ_INT(m.n_streams, 1);
	CHECK_EQ_INT(m.streams[0].id, 7);
	/* each stream's ops sorted by start, every kernel has its launch before it */
	for (uint32_t i = 1; i < m.n_ops; i++)
		CHECK(m.ops[i - 1].start <= m.ops[i].start);
	for (uint32_t i = 0; i < m.n_ops; i++)
		CHECK(m.ops[i].api_start <= m.ops[i].start);
	model_free(&m);
}

TEST(fixture_transformer_bf16)
{
	struct kg_model m;
	load_ok(&m, "tests/fixtures/torch/torch_transformer_bf16.json.gz");
	struct counts c = count(&m);
	CHECK_EQ_INT(c.kernels, 360);
	CHECK_EQ_INT(c.memcpys, 20);
	CHECK_EQ_INT(c.memsets, 85);
	CHECK_EQ_INT(c.runtime, 442);
	CHECK_EQ_INT(c.driver, 75);
	CHECK_EQ_INT(c.linked, 360);
	CHECK_EQ_INT(c.linked_runtime, 285);
	CHECK_EQ_INT(m.n_syncs, 2);
	CHECK_EQ_INT(m.n_ranges, 15);
	CHECK_EQ_INT(c.steps, 5);
	check_h200(&m);
	const struct kg_op *d2d = op_named(&m, "Memcpy DtoD (Device -> Device)");
	CHECK(d2d != NULL);
	CHECK_EQ_INT(d2d->copy_kind, KG_COPY_DTOD);
	CHECK_EQ_INT(d2d->src_kind, KG_MEM_DEVICE);
	CHECK_EQ_INT(d2d->dst_kind, KG_MEM_DEVICE);
	/* a driver launch (cuLaunchKernelEx) is linked when no runtime call has the id */
	int driver_linked = 0;
	for (uint32_t i = 0; i < m.n_ops; i++)
		driver_linked += m.ops[i].api != KG_NONE && m.apis[m.ops[i].api].driver;
	CHECK_EQ_INT(driver_linked, 75);
	model_free(&m);
}

TEST(fixture_two_streams)
{
	struct kg_model m;
	load_ok(&m, "tests/fixtures/torch/torch_two_streams.json.gz");
	struct counts c = count(&m);
	CHECK_EQ_INT(c.kernels, 90);
	CHECK_EQ_INT(c.memcpys, 10);
	CHECK_EQ_INT(c.memsets, 10);
	CHECK_EQ_INT(c.runtime, 242);
	CHECK_EQ_INT(c.driver, 0);
	CHECK_EQ_INT(c.linked, 90);
	CHECK_EQ_INT(c.linked_runtime, 90);
	CHECK_EQ_INT(m.n_syncs, 22);
	CHECK_EQ_INT(n_syncs_of(&m, KG_SYNC_STREAM_WAIT_EVENT), 20);
	CHECK_EQ_INT(n_syncs_of(&m, KG_SYNC_CONTEXT), 2);
	CHECK_EQ_INT(c.steps, 10);
	check_h200(&m);
	/* python: Counter(e['args']['stream'] for GPU ops) = {50: 100, 46: 10} */
	CHECK_EQ_INT(m.n_streams, 2);
	int n46 = 0, n50 = 0;
	for (uint32_t s = 0; s < m.n_streams; s++) {
		CHECK_EQ_INT(m.streams[s].device, 0);
		if (m.streams[s].id == 46)
			n46 = (int)m.streams[s].nops;
		if (m.streams[s].id == 50)
			n50 = (int)m.streams[s].nops;
	}
	CHECK_EQ_INT(n46, 10);
	CHECK_EQ_INT(n50, 100);
	const struct kg_op *h2d = op_named(&m, "Memcpy HtoD (Pinned -> Device)");
	CHECK(h2d != NULL);
	CHECK_EQ_INT(h2d->src_kind, KG_MEM_PINNED);
	/* thread_name is given twice for tid 949; the last one wins */
	int named = 0;
	for (uint32_t t = 0; t < m.n_threads; t++) {
		if (m.threads[t].tid == 924) {
			CHECK_EQ_STR(model_text(&m, m.threads[t].name), "thread 924 (python3)");
			named++;
		}
	}
	CHECK_EQ_INT(named, 1);
	model_free(&m);
}

/* The same trace, inflated to plain JSON, loads to the same model; progress reaches 1. */
static double last_fraction;
static int n_progress;

static void on_progress(double f, void *arg)
{
	(void)arg;
	CHECK(f >= last_fraction && f <= 1.0);
	last_fraction = f;
	n_progress++;
}

TEST(plain_json_and_progress)
{
	size_t len;
	char *text = slurp("tests/fixtures/torch/torch_tiny_ops.json.gz", &len, 1);
	const char *path = write_file("tiny.json", text, len);
	free(text);
	struct kg_model m;
	struct kg_load_opts opts = {.progress = on_progress};
	char err[512];
	model_init(&m, "kineto", path);
	CHECK_EQ_INT(read_kineto(&m, path, &opts, err, sizeof(err)), 0);
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK_EQ_INT(count(&m).kernels, 4000);
	CHECK_EQ_INT(count(&m).linked, 4000);
	CHECK(n_progress >= 2); /* 6 MB in 1 MiB chunks */
	CHECK(last_fraction == 1.0);
	model_free(&m);
}

/* ------------------------------------------------------------------ exact mapping */

#define HEAD "{\"traceEvents\": [\n"
#define TAIL "\n]}\n"

TEST(timestamps_exact)
{
	const char *path = write_text(
		"ts.json",
		HEAD "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k1\", \"pid\": 0, \"tid\": 7,"
		" \"ts\": 1700000000123456.789, \"dur\": 0.8, \"args\": {\"device\": 0,"
		" \"stream\": 7, \"correlation\": 1, \"queued\": 1700000000123455789}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k2\", \"pid\": 0, \"tid\": 7,"
		" \"ts\": 1.5e9, \"dur\": 2, \"args\": {\"device\": 0, \"stream\": 7,"
		" \"correlation\": 2, \"queued\": 5}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k3\", \"pid\": 0, \"tid\": 7,"
		" \"ts\": 10.0004, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 3}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k4\", \"pid\": 0, \"tid\": 7,"
		" \"ts\": 10.0005, \"dur\": -1, \"args\": {\"device\": 0, \"stream\": 7}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k5\", \"pid\": 0, \"tid\": 7,"
		" \"ts\": 1700000000123456.789, \"dur\": 1, \"args\": {\"device\": 0,"
		" \"stream\": 7, \"queued\": 1700000000123450}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k6\", \"pid\": 0, \"tid\": 7,"
		" \"ts\": 10.0004, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k7\", \"pid\": 0, \"tid\": 7,"
		" \"ts\": 10.0005, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}}" TAIL);
	struct kg_model m;
	load_ok(&m, path);
	CHECK_EQ_INT(m.n_ops, 5); /* k3, k4: no end, left out and counted (issue 12, defect 10) */
	const struct kg_op *k1 = op_named(&m, "k1"), *k2 = op_named(&m, "k2");
	CHECK_EQ_INT(k1->start, 1700000000123456789ll);
	CHECK_EQ_INT(k1->end, 1700000000123457589ll);
	CHECK_EQ_INT(k1->queued, 1700000000123455789ll); /* a real timestamp: kept */
	CHECK_EQ_INT(k2->start, 1500000000000ll);
	CHECK_EQ_INT(k2->end, 1500000002000ll);
	CHECK_EQ_INT(k2->queued, KG_NO_TIME); /* 1500 s before the start: not a real queue */
	CHECK_EQ_INT(op_named(&m, "k6")->start, 10000); /* 10.0004 µs rounds to 10000 ns */
	CHECK_EQ_INT(op_named(&m, "k7")->start, 10001); /* 10.0005 rounds half up */
	CHECK(op_named(&m, "k3") == NULL);    /* no dur */
	CHECK(op_named(&m, "k4") == NULL);    /* negative dur */
	CHECK_EQ_INT(m.processes[0].incomplete, 2);
	/* older Kineto wrote "queued" in whole microseconds */
	CHECK_EQ_INT(op_named(&m, "k5")->queued, 1700000000123450000ll);
	model_free(&m);
}

/* Issue 22: events of categories the reader does not read are counted and named, the
 * largest first; those that carry nothing kgantt shows (the profiler's span and overhead,
 * CUDA event records, flows, instants) are not. */
TEST(not_loaded_categories)
{
	const char *path = write_text(
		"cats.json",
		HEAD "{\"ph\": \"X\", \"cat\": \"mtia_runtime\", \"name\": \"a\", \"pid\": 1, \"tid\": 1,"
		" \"ts\": 10, \"dur\": 1},\n"
		"{\"ph\": \"X\", \"cat\": \"mtia_runtime\", \"name\": \"a\", \"pid\": 1, \"tid\": 1,"
		" \"ts\": 11, \"dur\": 1},\n"
		"{\"ph\": \"X\", \"cat\": \"mtia_ccp_events\", \"name\": \"b\", \"pid\": 1, \"tid\": 1,"
		" \"ts\": 12, \"dur\": 1, \"args\": {\"stream\": 3}},\n"
		"{\"ph\": \"X\", \"name\": \"no_cat\", \"pid\": 1, \"tid\": 1, \"ts\": 13, \"dur\": 1},\n"
		"{\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\","
		" \"tid\": \"PyTorch Profiler\", \"ts\": 1, \"dur\": 100},\n"
		"{\"ph\": \"X\", \"cat\": \"overhead\", \"name\": \"Activity Buffer Request\", \"pid\": 1,"
		" \"tid\": 1, \"ts\": 14, \"dur\": 1},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_event\", \"name\": \"e\", \"pid\": 1, \"tid\": 1, \"ts\": 15,"
		" \"dur\": 0},\n"
		"{\"ph\": \"i\", \"cat\": \"mtia_runtime\", \"name\": \"instant\", \"pid\": 1, \"tid\": 1,"
		" \"ts\": 16},\n"
		"{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"flow\", \"id\": 1, \"pid\": 1, \"tid\": 1,"
		" \"ts\": 17},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1,"
		" \"tid\": 1, \"ts\": 18, \"dur\": 1}" TAIL);
	struct kg_model m;
	load_ok(&m, path);
	CHECK(has_note(&m, "not loaded: 4 events of categories mtia_runtime (2), mtia_ccp_events "
			   "(1), without a category (1)"));
	CHECK_EQ_INT(m.n_apis, 1);
	model_free(&m);

	/* one category: its count is the total; more than the note holds: the largest */
	path = write_text("one.json", HEAD "{\"ph\": \"X\", \"cat\": \"cuda_profiler_range\", \"name\":"
			  " \"r\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}" TAIL);
	load_ok(&m, path);
	CHECK(has_note(&m, "not loaded: 1 event of category cuda_profiler_range"));
	model_free(&m);
	char *text = malloc(1 << 18);
	CHECK(text != NULL);
	int o = snprintf(text, 1 << 18, "%s", HEAD);
	for (int c = 0; c < 40; c++)
		for (int k = 0; k <= c; k++)
			o += snprintf(text + o, (size_t)(1 << 18) - (size_t)o,
				      "%s{\"ph\": \"X\", \"cat\": \"category_number_%02d\", \"name\": \"x\","
				      " \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}", c || k ? ",\n" : "", c);
	snprintf(text + o, (size_t)(1 << 18) - (size_t)o, "%s", TAIL);
	path = write_text("many.json", text);
	free(text);
	load_ok(&m, path);
	/* 820 events; categories past the 32 kept count in the total */
	CHECK(has_note(&m, "not loaded: 820 events of categories category_number_31 (32), "
			   "category_number_30 (31), "));
	int found = 0;
	for (int i = 0; i < m.n_notes; i++)
		if (strstr(m.notes[i], "not loaded: 820")) {
			found = 1;
			CHECK(strlen(m.notes[i]) < sizeof(m.notes[0]) - 1);
			CHECK(strcmp(m.notes[i] + strlen(m.notes[i]) - 5, ", ...") == 0);
		}
	CHECK(found);
	model_free(&m);
}

/* Issue 22: Kineto's tids as the JSON writes them (a CUPTI thread id read as int32 is
 * negative), named by its thread_name records. */
TEST(negative_tids_and_thread_names)
{
	const char *path = write_text(
		"tids.json",
		HEAD "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaEventQuery\", \"pid\": 9,"
		" \"tid\": -549452224, \"ts\": 10, \"dur\": 1},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 9,"
		" \"tid\": 9, \"ts\": 12, \"dur\": 1},\n"
		"{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 9, \"tid\": -549452224,"
		" \"args\": {\"name\": \"watchdog\"}},\n"
		"{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 9, \"tid\": 9,"
		" \"args\": {\"name\": \"thread 9 (python3)\"}}" TAIL);
	struct kg_model m;
	load_ok(&m, path);
	CHECK_EQ_INT(m.n_threads, 2);
	CHECK_EQ_INT(m.threads[0].tid, -549452224);
	CHECK_EQ_STR(model_text(&m, m.threads[0].name), "watchdog");
	char buf[96];
	CHECK_EQ_STR(model_thread_label(&m, &m.threads[0], buf, sizeof(buf)),
		     "watchdog (thread -549452224)");
	CHECK_EQ_STR(model_thread_label(&m, &m.threads[1], buf, sizeof(buf)), "thread 9 (python3)");
	model_free(&m);
}

/* Issue 22: a ROCm trace (HolisticTraceAnalysis's MI250 test trace,
 * tests/fixtures/public/hta): an AMD GPU, whose "compute capability" 9.0 is its gfx
 * version, gets no CUDA occupancy table. The numbers: tests/fixtures/public/hta/expect.py. */
TEST(public_amd_mi250)
{
	struct kg_model m;
	load_ok(&m, "tests/fixtures/public/hta/amd_mi250_rocm62.json.gz");
	struct counts c = count(&m);
	CHECK_EQ_INT(c.kernels, 14);
	CHECK_EQ_INT(c.memcpys, 2);
	CHECK_EQ_INT(c.runtime, 21);
	CHECK_EQ_INT(m.n_devices, 1);
	const struct kg_device *d = &m.devices[0];
	CHECK_EQ_STR(model_text(&m, d->name), "AMD Radeon Graphics");
	CHECK_EQ_INT(d->vendor, KG_VENDOR_AMD);
	CHECK_EQ_INT(d->cc_major, 9);
	CHECK_EQ_INT(d->max_blocks_per_sm, 0); /* not CUDA's 32 */
	CHECK_EQ_INT(d->max_warps_per_sm, 32); /* 2048 threads / 64-wide wavefronts */
	CHECK_EQ_INT(d->pcie_gen, 0);          /* Kineto does not record the link */
	CHECK_EQ_INT(m.n_threads, 2);
	CHECK_EQ_STR(model_text(&m, m.threads[1].name), "thread 598009 (pt_autograd_0)");
	model_free(&m);

	/* no deviceProperties: the hip... calls say who made the GPU */
	const char *path = write_text(
		"hip.json",
		HEAD "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"hipLaunchKernel\", \"pid\": 1,"
		" \"tid\": 1, \"ts\": 10, \"dur\": 1, \"args\": {\"correlation\": 1}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 0, \"ts\": 12,"
		" \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 0, \"correlation\": 1}}" TAIL);
	load_ok(&m, path);
	CHECK_EQ_INT(m.devices[0].vendor, KG_VENDOR_AMD);
	model_free(&m);
}

TEST(copy_names_and_async)
{
	const char *path = write_text(
		"copies.json",
		HEAD
		"{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy PtoP (Device -> "
		"Device)\", \"pid\": 1, \"tid\": 9, \"ts\": 10, \"dur\": 1, \"args\": {\"device\": 1,"
		" \"stream\": 9, \"correlation\": 11, \"bytes\": 64}},\n"
		"{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> "
		"Pageable)\", \"pid\": 0, \"tid\": 7, \"ts\": 20, \"dur\": 1, \"args\": {\"device\":"
		" 0, \"stream\": 7, \"correlation\": 12, \"bytes\": 8}},\n"
		"{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Managed -> "
		"Device Static)\", \"pid\": 0, \"tid\": 7, \"ts\": 30, \"dur\": 1, \"args\": {"
		"\"device\": 0, \"stream\": 7}},\n"
		"{\"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Managed)\", \"pid\": 0,"
		" \"tid\": 7, \"ts\": 40, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7,"
		" \"correlation\": 13, \"bytes\": 256}},\n"
		"{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy\", \"pid\": 0, \"tid\": 7,"
		" \"ts\": 50, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpy\", \"pid\": 5, "
		"\"tid\": 5, \"ts\": 19, \"dur\": 3, \"args\": {\"correlation\": 12}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemsetAsync\", \"pid\": 5,"
		" \"tid\": 5, \"ts\": 39, \"dur\": 1, \"args\": {\"correlation\": 13}}" TAIL);
	struct kg_model m;
	load_ok(&m, path);
	const struct kg_op *p2p = op_named(&m, "Memcpy PtoP (Device -> Device)");
	CHECK_EQ_INT(p2p->copy_kind, KG_COPY_PTOP);
	CHECK_EQ_INT(p2p->bytes, 64);
	CHECK_EQ_INT(op_device(&m, p2p)->ordinal, 1);
	CHECK_EQ_INT(m.n_devices, 2);
	CHECK_EQ_INT(m.devices[0].name, 0); /* no deviceProperties: unknown */
	const struct kg_op *d2h = op_named(&m, "Memcpy DtoH (Device -> Pageable)");
	CHECK_EQ_INT(d2h->copy_kind, KG_COPY_DTOH);
	CHECK_EQ_INT(d2h->dst_kind, KG_MEM_PAGEABLE);
	CHECK(!(d2h->flags & KG_OPF_ASYNC)); /* cudaMemcpy */
	CHECK(d2h->api != KG_NONE);
	const struct kg_op *h2d = op_named(&m, "Memcpy HtoD (Managed -> Device Static)");
	CHECK_EQ_INT(h2d->src_kind, KG_MEM_MANAGED);
	CHECK_EQ_INT(h2d->dst_kind, KG_MEM_DEVICE);
	const struct kg_op *ms = op_named(&m, "Memset (Managed)");
	CHECK_EQ_INT(ms->dst_kind, KG_MEM_MANAGED);
	CHECK(ms->flags & KG_OPF_ASYNC);
	const struct kg_op *odd = op_named(&m, "Memcpy");
	CHECK_EQ_INT(odd->copy_kind, KG_COPY_UNKNOWN);
	CHECK_EQ_INT(m.processes[0].pid, 5);
	model_free(&m);
}

/* Kineto's roctracer logger writes hipExtModuleLaunchKernel's global work size (threads)
 * as the kernel's "grid" (TraceLens's SGLang trace: a GEMM of 11,520 blocks of 256 read as
 * 2,949,120); hipLaunchKernel's is in blocks, as CUDA's. */
TEST(amd_ext_launch_grid_in_threads)
{
	const char *path = write_text(
		"ext.json",
		HEAD
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"Cijk_gemm\", \"pid\": 0, "
		"\"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7, "
		"\"correlation\": 21, \"grid\": [2949120, 1, 1], \"block\": [256, 1, 1]}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"elementwise\", \"pid\": 0, "
		"\"tid\": 7, \"ts\": 20, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7, "
		"\"correlation\": 22, \"grid\": [40, 1, 1], \"block\": [256, 1, 1]}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"odd_shape\", \"pid\": 0, "
		"\"tid\": 7, \"ts\": 30, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7, "
		"\"correlation\": 23, \"grid\": [1000, 64, 1], \"block\": [256, 2, 1]}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"hipExtModuleLaunchKernel\","
		" \"pid\": 5, \"tid\": 5, \"ts\": 8, \"dur\": 1, \"args\": {\"correlation\": 21}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"hipLaunchKernel\","
		" \"pid\": 5, \"tid\": 5, \"ts\": 18, \"dur\": 1, \"args\": {\"correlation\": 22}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"hipHccModuleLaunchKernel\","
		" \"pid\": 5, \"tid\": 5, \"ts\": 28, \"dur\": 1, \"args\": {\"correlation\": 23}}" TAIL);
	struct kg_model m;
	load_ok(&m, path);
	const struct kg_launch *gemm = op_launch(&m, op_named(&m, "Cijk_gemm"));
	CHECK_EQ_INT(gemm->grid[0], 11520);
	CHECK_EQ_INT(gemm->block[0], 256);
	CHECK_EQ_INT(op_launch(&m, op_named(&m, "elementwise"))->grid[0], 40);
	const struct kg_launch *odd = op_launch(&m, op_named(&m, "odd_shape"));
	CHECK_EQ_INT(odd->grid[0], 4); /* 1000 threads in blocks of 256: the last one partly */
	CHECK_EQ_INT(odd->grid[1], 32);
	CHECK_EQ_INT(odd->grid[2], 1);
	model_free(&m);
}

/* cuda_sync records (experimental_config enable_cuda_sync_events) give a wait's stream. */
TEST(cuda_sync_events)
{
	const char *path = write_text(
		"sync.json",
		HEAD
		"{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Sync\", \"pid\": 0, "
		"\"tid\": 7, \"ts\": 100, \"dur\": 5, \"args\": {\"cuda_sync_kind\": \"Stream Sync\","
		" \"stream\": 7, \"correlation\": 21, \"device\": 0, \"context\": 1}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", "
		"\"pid\": 5, \"tid\": 6, \"ts\": 99, \"dur\": 7, \"args\": {\"correlation\": 21}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Context Sync\", \"pid\": 0, "
		"\"tid\": -1, \"ts\": 200, \"dur\": 5, \"args\": {\"cuda_sync_kind\": \"Context Sync\","
		" \"stream\": -1, \"correlation\": 22, \"device\": 0, \"context\": 1}},\n"
		"{\"ph\": \"X\", \"cat\": \"cuda_driver\", \"name\": \"cuEventSynchronize\", "
		"\"pid\": 5, \"tid\": 6, \"ts\": 300, \"dur\": 7, \"args\": {\"correlation\": 23}}"
		TAIL);
	struct kg_model m;
	load_ok(&m, path);
	CHECK_EQ_INT(m.n_syncs, 3);
	const struct kg_sync *s = &m.syncs[0];
	CHECK_EQ_INT(s->kind, KG_SYNC_STREAM);
	CHECK(s->api != KG_NONE);
	CHECK(s->stream != KG_NONE);
	CHECK_EQ_INT(m.streams[s->stream].id, 7);
	CHECK_EQ_INT(s->start, 99000);
	CHECK_EQ_INT(m.syncs[1].kind, KG_SYNC_EVENT); /* cuEventSynchronize */
	CHECK(m.apis[m.syncs[1].api].driver);
	CHECK_EQ_INT(m.syncs[2].kind, KG_SYNC_CONTEXT); /* no API call: a wait of its own */
	CHECK_EQ_INT(m.syncs[2].api, KG_NONE);
	CHECK_EQ_INT(m.syncs[2].stream, KG_NONE);
	CHECK_EQ_INT(m.syncs[2].start, 200000);
	CHECK_EQ_INT(m.n_threads, 1);
	CHECK_EQ_INT(m.threads[0].tid, 6);
	model_free(&m);
}

/* Metadata and top-level keys after traceEvents, a rank, step markers in any category,
 * cpu_op and python_function counted, unknown categories and phases ignored. */
TEST(keys_in_any_order)
{
	const char *path = write_text(
		"order.json",
		"{\"traceName\": \"/tmp/run.json\", \"traceEvents\": [\n"
		"{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 77, \"tid\": 78, \"args\": {"
		"\"name\": \"worker\"}},\n"
		"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ProfilerStep#4\", \"pid\": 77, "
		"\"tid\": 78, \"ts\": 1, \"dur\": 100},\n"
		"{\"name\": \"ProfilerStep#5\", \"ph\": \"X\", \"cat\": \"cpu_op\", \"pid\": 77, "
		"\"tid\": 78, \"ts\": 101, \"dur\": 100},\n"
		"{\"name\": \"aten::mm\", \"ph\": \"X\", \"cat\": \"cpu_op\", \"pid\": 77, "
		"\"tid\": 78, \"ts\": 2, \"dur\": 1, \"args\": {\"Input Dims\": [[1, 2], [3]]}},\n"
		"{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Linear\", "
		"\"pid\": 77, \"tid\": 78, \"ts\": 2, \"dur\": 1},\n"
		"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"fwd\", \"pid\": 77, "
		"\"tid\": 78, \"ts\": 3, \"dur\": 1},\n"
		"{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"fwd\", \"pid\": 0, "
		"\"tid\": 7, \"ts\": 4, \"dur\": 1},\n"
		"{\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": "
		"\"Spans\", \"tid\": \"PyTorch Profiler\", \"ts\": 0, \"dur\": 500},\n"
		"{\"ph\": \"X\", \"cat\": \"future_cat\", \"name\": \"x\", \"pid\": 77, \"tid\": 78,"
		" \"ts\": 0, \"dur\": 5},\n"
		"{\"ph\": \"s\", \"id\": 1, \"pid\": 77, \"tid\": 78, \"ts\": 1, \"cat\": \"ac2g\","
		" \"name\": \"ac2g\"},\n"
		"{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 0, \"args\": {\"name\": "
		"\"gpu row\"}},\n"
		"{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 77, \"args\": {\"name\": "
		"\"train.py\"}}\n"
		"], \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8},\n"
		"\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\", \"numSms\": 132}]}\n");
	struct kg_model m;
	load_ok(&m, path);
	CHECK_EQ_INT(m.n_ops, 0);
	CHECK_EQ_INT(m.n_devices, 0); /* no GPU activity: properties have nothing to go to */
	CHECK_EQ_INT(m.n_ranges, 3);
	CHECK_EQ_STR(model_text(&m, m.ranges[0].name), "ProfilerStep#4");
	CHECK_EQ_STR(model_text(&m, m.ranges[1].name), "ProfilerStep#5");
	CHECK_EQ_STR(model_text(&m, m.ranges[2].name), "fwd");
	CHECK_EQ_INT(m.ranges[0].start, 1000);
	CHECK_EQ_INT(m.ranges[0].end, 101000);
	CHECK_EQ_INT(m.processes[0].pid, 77);
	CHECK_EQ_STR(model_text(&m, m.processes[0].rank), "3");
	CHECK_EQ_STR(model_text(&m, m.processes[0].cmdline), "train.py");
	CHECK_EQ_STR(model_text(&m, m.command), "train.py");
	CHECK_EQ_INT(m.n_threads, 1);
	CHECK_EQ_STR(model_text(&m, m.threads[0].name), "worker");
	CHECK_EQ_INT(m.processes[0].start, 1000);
	CHECK_EQ_INT(m.processes[0].end, 201000);
	/* the step markers count as cpu_op events (and annotations in the stacks) */
	CHECK(has_note(&m, "3 cpu_op, 1 python_function and 1 user_annotation events"));
	CHECK(has_note(&m, "1 gpu_user_annotation events"));
	model_free(&m);
}

/* The JSON Array Format of the Chrome trace spec: a bare list of events. */
TEST(bare_event_array)
{
	const char *path = write_text(
		"array.json",
		"[{\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"k\", \"pid\": 2, \"tid\": 13, "
		"\"ts\": 5, \"dur\": 1}]");
	struct kg_model m;
	load_ok(&m, path);
	CHECK_EQ_INT(m.n_ops, 1);
	CHECK_EQ_INT(op_device(&m, &m.ops[0])->ordinal, 2); /* pid/tid when args lack them */
	CHECK_EQ_INT(m.streams[0].id, 13);
	CHECK_EQ_STR(model_text(&m, m.command), "");
	model_free(&m);
}

/* ------------------------------------------------------------------ bad input */

TEST(missing_and_empty)
{
	make_dir();
	char path[512];
	snprintf(path, sizeof(path), "%s/does-not-exist.json", dir);
	load_fails(path, "No such file");
	load_fails(write_text("empty.json", ""), "empty file");
	load_fails(write_text("blank.json", "  \n\t "), NULL);
	load_fails(dir, NULL); /* a folder */
}

TEST(not_a_trace)
{
	load_fails(write_text("obj.json", "{}"), "no \"traceEvents\"");
	load_fails(write_text("other.json", "{\"a\": [1, 2, {\"b\": null}], \"c\": true}"),
		   "no \"traceEvents\"");
	load_fails(write_text("open.json", "["), "unexpected end of input");
	load_fails(write_text("text.txt", "hello, this is not JSON\n"), "not valid JSON");
	load_fails(write_text("num.json", "42"), "expected an object");
	load_fails(write_text("str.json", "\"traceEvents\""), "expected an object");
	load_fails(write_text("two.json", "{\"traceEvents\": []} {}"), "not valid JSON");
	load_fails(write_text("bin.json", "\x7f" "ELF\x01\x02\x00\x00"), "not valid JSON");
}

TEST(wrong_types)
{
	load_fails(write_text("te5.json", "{\"traceEvents\": 5}"), "\"traceEvents\" is a number");
	load_fails(write_text("teobj.json", "{\"traceEvents\": {\"ph\": \"X\"}}"),
		   "\"traceEvents\" is an object");
	load_fails(write_text("testr.json", "{\"a\": 1,\n \"traceEvents\": \"x\"}"),
		   "line 2, column");

	/* bad events are skipped, counted, and the rest loads */
	const char *path = write_text(
		"types.json",
		HEAD "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad\", \"ts\": \"abc\", "
		"\"args\": {\"device\": 0, \"stream\": 7}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"nots\", \"args\": {\"device\": 0,"
		" \"stream\": 7}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"hugets\", \"ts\": 1e400, "
		"\"args\": {\"device\": 0, \"stream\": 7}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"nodev\", \"ts\": 1, \"pid\": \"x\"},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bigdev\", \"ts\": 1, \"args\": {"
		"\"device\": 99999999999, \"stream\": 7}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"tsobj\", \"ts\": {\"a\": 1}, "
		"\"args\": {\"device\": 0, \"stream\": 7}},\n"
		"5, \"x\", null, [1, [2]], true,\n"
		"{\"ph\": 5, \"cat\": [\"kernel\"], \"name\": {}, \"ts\": 1},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": 7, \"pid\": {}, \"ts\": 2, \"dur\":"
		" 123456789012345678901234567890, \"args\": {\"device\": 0, \"stream\": \"7\", "
		"\"grid\": \"x\", \"block\": [1, 2, 3, 4, -5, 1.5e99], \"correlation\": 99999999999,"
		" \"registers per thread\": 1e6, \"shared memory\": -1, \"queued\": true}},\n"
		"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"good\", \"ts\": 3, \"dur\": 1, "
		"\"args\": {\"device\": 0, \"stream\": 7, \"grid\": [2, 1, 1]}, \"args\": 5}" TAIL
		"\n");
	struct kg_model m;
	load_ok(&m, path);
	/* the "name": 7 kernel has no stream ("stream" is a string, pid an object): bad */
	CHECK_EQ_INT(m.n_ops, 1);
	CHECK_EQ_STR(model_text(&m, m.ops[0].name), "good");
	CHECK_EQ_INT(op_launch(&m, &m.ops[0])->grid[0], 2);
	/* all but "good" and the one whose "ph" is a number (an unknown phase is ignored) */
	CHECK(has_note(&m, "skipped 12 malformed events"));
	CHECK(has_note(&m, "\"ts\" is a string, expected a number"));
	CHECK(has_note(&m, "line 2"));
	model_free(&m);
}

TEST(device_properties_junk)
{
	const char *path = write_text(
		"props.json",
		"{\"deviceProperties\": [5, {\"id\": -3, \"name\": 4, \"numSms\": 1e30}, "
		"{\"numSms\": 7, \"computeMajor\": 8, \"computeMinor\": 9, \"warpSize\": 0, "
		"\"maxThreadsPerMultiprocessor\": 1536}],\n"
		"\"distributedInfo\": {\"rank\": \"zero\"},\n"
		"\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1,"
		" \"dur\": 1, \"args\": {\"device\": 1, \"stream\": 3}}]}");
	struct kg_model m;
	load_ok(&m, path);
	CHECK_EQ_INT(m.n_devices, 1);
	/* no "id": the second entry kept is ordinal 1 */
	CHECK_EQ_INT(m.devices[0].sm_count, 7);
	CHECK_EQ_INT(m.devices[0].max_blocks_per_sm, 24);
	CHECK_EQ_INT(m.devices[0].max_warps_per_sm, 0); /* warpSize 0 */
	CHECK_EQ_INT(m.processes[0].rank, 0);
	model_free(&m);
}

TEST(deep_nesting)
{
	size_t depth = 200000, len = 0;
	char *text = malloc(2 * depth + 64);
	CHECK(text != NULL);
	len += (size_t)sprintf(text, "{\"traceEvents\": [");
	memset(text + len, '[', depth);
	len += depth;
	memset(text + len, ']', depth);
	len += depth;
	len += (size_t)sprintf(text + len, ", {\"args\": {\"a\": %s}}]}", "[[[{}]]]");
	struct kg_model m;
	load_ok(&m, write_file("deep.json", text, len));
	CHECK_EQ_INT(m.n_ops, 0);
	CHECK(has_note(&m, "skipped 1 malformed"));
	model_free(&m);
	/* the same, never closed */
	load_fails(write_file("deep-open.json", text, 17 + depth), "unexpected end of input");
	free(text);
}

static const char *write_gz(const char *name, const char *data, size_t len)
{
	static char path[512];
	make_dir();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	gzFile g = gzopen(path, "wb");
	CHECK(g != NULL);
	CHECK(gzwrite(g, data, (unsigned)len) == (int)len);
	CHECK(gzclose(g) == Z_OK);
	return path;
}

TEST(truncated_and_corrupt)
{
	size_t len;
	char *gz = slurp("tests/fixtures/torch/torch_two_streams.json.gz", &len, 0);
	load_fails(write_file("cut.json.gz", gz, len / 2), "truncated");
	load_fails(write_file("cut2.json.gz", gz, 10), "truncated");
	load_fails(write_file("magic.json.gz", gz, 2), "truncated");
	char *bad = malloc(len);
	CHECK(bad != NULL);
	memcpy(bad, gz, len);
	for (size_t i = len / 3; i < len / 3 + 64; i++)
		bad[i] ^= 0x5a;
	load_fails(write_file("corrupt.json.gz", bad, len), NULL);
	free(bad);
	free(gz);

	char *text = slurp("tests/fixtures/torch/torch_two_streams.json.gz", &len, 1);
	load_fails(write_file("cut.json", text, len / 2), "inside \"traceEvents\" (truncated");
	load_fails(write_gz("cutjson.gz", text, len / 2), "inside \"traceEvents\"");
	/* a gzip file whose name says nothing: detected by content */
	struct kg_model m;
	load_ok(&m, write_gz("noext", text, len));
	CHECK_EQ_INT(count(&m).kernels, 90);
	model_free(&m);
	/* two gzip members in one file (cat a.gz b.gz) */
	free(text);
}

TEST(concatenated_gzip)
{
	const char *a = HEAD "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0,"
			     " \"tid\": 7, \"ts\": 5, \"dur\": 1},\n";
	const char *b = "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
			"\"tid\": 7, \"ts\": 9, \"dur\": 1}" TAIL;
	size_t la, lb;
	char *ga = slurp(write_gz("a.gz", a, strlen(a)), &la, 0);
	char *gb = slurp(write_gz("b.gz", b, strlen(b)), &lb, 0);
	char *both = malloc(la + lb);
	CHECK(both != NULL);
	memcpy(both, ga, la);
	memcpy(both + la, gb, lb);
	struct kg_model m;
	load_ok(&m, write_file("ab.json.gz", both, la + lb));
	CHECK_EQ_INT(m.n_ops, 2);
	model_free(&m);
	free(ga);
	free(gb);
	free(both);
}

/* Random damage to a real trace: flipped bytes, cuts, inserted junk. Anything may come
 * back but a crash or a sanitizer report; a failure must name the file. */
TEST(fuzz_damage)
{
	size_t len;
	char *text = slurp("tests/fixtures/torch/torch_two_streams.json.gz", &len, 1);
	char *buf = malloc(len + 16);
	CHECK(buf != NULL);
	unsigned seed = 12345;
	for (int round = 0; round < 60; round++) {
		memcpy(buf, text, len);
		size_t n = len;
		for (int k = 0; k < 1 + round % 8; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 4) % n;
			static const char junk[] = "{}[]\",:0123456789.eE-+ntfx\\\x80\xff";
			buf[at] = junk[(seed >> 20) % (sizeof(junk) - 1)];
		}
		if (round % 5 == 4)
			n = (seed >> 3) % len;
		const char *path = round % 2 ? write_gz("fuzz.gz", buf, n)
					     : write_file("fuzz.json", buf, n);
		struct kg_model m;
		char err[512];
		int rc = load(&m, path, err, sizeof(err));
		if (rc < 0)
			CHECK(strstr(err, path) != NULL);
		else
			CHECK_EQ_INT(model_finish(&m), 0);
		model_free(&m);
	}
	free(buf);
	free(text);
}

/* ------------------------------------------------------------------ call stacks */

/* A growing JSON text. */
struct jbuf {
	char *p;
	size_t n, cap;
};

__attribute__((format(printf, 2, 3))) static void jadd(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	CHECK(need >= 0);
	if (b->n + (size_t)need + 1 > b->cap) {
		b->cap = (b->n + (size_t)need + 1) * 2;
		CHECK((b->p = realloc(b->p, b->cap)) != NULL);
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->n, (size_t)need + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)need;
}

/* Host event (cpu_op, python_function, user_annotation) and API call; times in µs as
 * Kineto writes them (ts and dur given as text). */
static void jhost(struct jbuf *b, const char *cat, const char *name, int tid, const char *ts,
		  const char *dur)
{
	jadd(b, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 5, \"tid\": %d, "
		"\"ts\": %s, \"dur\": %s, \"args\": {\"External id\": 1}},\n", cat, name, tid, ts,
	     dur);
}

static void japi(struct jbuf *b, const char *name, int tid, const char *ts, const char *dur,
		 int corr)
{
	jadd(b, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": 5, "
		"\"tid\": %d, \"ts\": %s, \"dur\": %s, \"args\": {\"correlation\": %d}},\n", name, tid,
	     ts, dur, corr);
}

/* Writes HEAD + events + a last dummy event + TAIL and loads it. */
static void jload(struct kg_model *m, struct jbuf *b, const char *file)
{
	jadd(b, "{\"ph\": \"i\", \"name\": \"end\", \"ts\": 0}" TAIL);
	struct jbuf all = {0};
	jadd(&all, HEAD "%s", b->p);
	load_ok(m, write_text(file, all.p));
	free(all.p);
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static const struct kg_api *api_by_correlation(const struct kg_model *m, uint32_t corr)
{
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (m->apis[i].correlation == corr)
			return &m->apis[i];
	CHECK(!"no such call");
	return NULL;
}

/* A stack as text, innermost first: "op:aten::item | py:train.py:27:epoch |
 * ann:ProfilerStep"; "-" for none; a trailing " +cut" when truncated. */
static const char *stack_text(const struct kg_model *m, uint32_t stack)
{
	static char buf[8192];
	size_t n = 0;
	if (stack == KG_NONE)
		return "-";
	CHECK(stack < m->n_stacks);
	const struct kg_stack *s = &m->stacks[stack];
	CHECK(s->first_frame + s->n_frames <= m->n_frames);
	buf[0] = 0;
	for (uint32_t i = 0; i < s->n_frames && n < sizeof(buf) - 200; i++) {
		const struct kg_frame *f = &m->frames[s->first_frame + i];
		static const char *const kinds[] = {"native", "py", "op", "ann"};
		CHECK(f->kind <= KG_FRAME_ANNOTATION);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s:", i ? " | " : "",
				      kinds[f->kind]);
		if (f->file || f->line)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s:%d:",
					      model_text(m, f->file), f->line);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", model_text(m, f->function));
	}
	if (s->flags & KG_STACK_TRUNCATED)
		snprintf(buf + n, sizeof(buf) - n, " +cut");
	return buf;
}

static const char *call_stack(const struct kg_model *m, uint32_t corr)
{
	return stack_text(m, api_by_correlation(m, corr)->stack);
}

/* How many distinct stacks the API calls have (the model's stacks also hold those of the
 * host spans). */
static uint32_t call_stacks(const struct kg_model *m)
{
	uint32_t n = 0;
	for (uint32_t s = 0; s < m->n_stacks; s++)
		for (uint32_t i = 0; i < m->n_apis; i++)
			if (m->apis[i].stack == s) {
				n++;
				break;
			}
	return n;
}

/* Operators inside Python functions inside a step: innermost first, each of its kind,
 * Python names split into file, line and function. */
TEST(stacks_nested)
{
	struct jbuf b = {0};
	jhost(&b, "user_annotation", "ProfilerStep#1", 10, "1000", "1000");
	jhost(&b, "python_function", "train.py(27): epoch", 10, "1010", "900");
	jhost(&b, "python_function", "/opt/m/x.py(12): forward", 10, "1020", "300");
	jhost(&b, "python_function", "nn.Module: Linear_0", 10, "1030", "200");
	jhost(&b, "cpu_op", "aten::linear", 10, "1040", "100");
	japi(&b, "cudaLaunchKernel", 10, "1050", "5", 1);
	jhost(&b, "python_function", "<built-in method item of Tensor object at 0x7f3a2c0b1e50>",
	      10, "1400", "200");
	jhost(&b, "cpu_op", "aten::item", 10, "1410", "180");
	jhost(&b, "cpu_op", "aten::_local_scalar_dense", 10, "1420", "160");
	japi(&b, "cudaMemcpyAsync", 10, "1430", "20", 2);
	japi(&b, "cudaStreamSynchronize", 10, "1455", "120", 3);
	japi(&b, "cudaLaunchKernel", 10, "1700", "5", 4);  /* in epoch only */
	japi(&b, "cudaLaunchKernel", 10, "2100", "5", 5);  /* after the step */
	japi(&b, "cudaLaunchKernel", 10, "990", "5", 6);   /* before it */
	jadd(&b, "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> "
		 "Pinned)\", \"pid\": 0, \"tid\": 7, \"ts\": 1460, \"dur\": 2, \"args\": {\"device\":"
		 " 0, \"stream\": 7, \"correlation\": 2, \"bytes\": 4}},\n");
	struct kg_model m;
	jload(&m, &b, "nested.json");
	CHECK_EQ_STR(call_stack(&m, 1), "op:aten::linear | py:nn.Module: Linear_0 | "
		     "py:/opt/m/x.py:12:forward | py:train.py:27:epoch | ann:ProfilerStep");
	CHECK_EQ_STR(call_stack(&m, 2), "op:aten::_local_scalar_dense | op:aten::item | "
		     "py:<built-in method item of Tensor object> | py:train.py:27:epoch | "
		     "ann:ProfilerStep");
	CHECK_EQ_INT(api_by_correlation(&m, 3)->stack, api_by_correlation(&m, 2)->stack);
	CHECK_EQ_STR(call_stack(&m, 4), "py:train.py:27:epoch | ann:ProfilerStep");
	CHECK_EQ_STR(call_stack(&m, 5), "-");
	CHECK_EQ_STR(call_stack(&m, 6), "-");
	/* field by field */
	const struct kg_stack *s = &m.stacks[api_by_correlation(&m, 1)->stack];
	const struct kg_frame *f = &m.frames[s->first_frame];
	CHECK_EQ_INT(s->n_frames, 5);
	CHECK_EQ_INT(s->flags, 0);
	CHECK_EQ_INT(s->process, 0);
	CHECK_EQ_INT(f[0].kind, KG_FRAME_OP);
	CHECK_EQ_INT(f[1].kind, KG_FRAME_PYTHON);
	CHECK_EQ_INT(f[1].file, 0);
	CHECK_EQ_INT(f[1].line, 0);
	CHECK_EQ_INT(f[2].kind, KG_FRAME_PYTHON);
	CHECK_EQ_STR(model_text(&m, f[2].file), "/opt/m/x.py");
	CHECK_EQ_INT(f[2].line, 12);
	CHECK_EQ_STR(model_text(&m, f[2].function), "forward");
	CHECK_EQ_INT(f[4].kind, KG_FRAME_ANNOTATION);
	CHECK_EQ_INT(f[4].address, 0);
	CHECK_EQ_INT(f[4].module, 0);
	/* the copy's operator is its launch call's stack */
	const struct kg_op *o = op_by_correlation(&m, 2);
	CHECK(o != NULL && o->api != KG_NONE);
	CHECK_EQ_STR(stack_text(&m, m.apis[o->api].stack), call_stack(&m, 2));
	CHECK_EQ_INT(call_stacks(&m), 3);
	CHECK(strstr(m.stack_note, "operators and Python functions") != NULL);
	CHECK(has_note(&m, "linked 4 of 6 API calls"));
	CHECK(has_note(&m, "3 cpu_op, 4 python_function and 1 user_annotation events"));
	CHECK(has_note(&m, "2 calls were outside any"));
	CHECK(!has_note(&m, "call stacks:"));
	/* the step is still a range, the threads are those of the calls and ranges */
	CHECK_EQ_INT(m.n_ranges, 1);
	CHECK_EQ_INT(m.n_threads, 1);
	model_free(&m);
}

/* A host operator of PyTorch 1.8-1.10 with its "Call stack" arg. */
static void jop_stack(struct jbuf *b, const char *name, const char *ts, const char *dur,
		      const char *stack)
{
	jadd(b, "{\"ph\": \"X\", \"cat\": \"Operator\", \"name\": \"%s\", \"pid\": 5, \"tid\": 10, "
		"\"ts\": %s, \"dur\": %s, \"args\": {\"Input Dims\": [[2, 3]], \"Call stack\": "
		"\"%s\", \"External id\": 1}},\n", name, ts, dur, stack);
}

/* PyTorch 1.8-1.10 write an operator's Python stack in its args ("Call stack", innermost
 * first): its frames go below the outermost operator that has one, with the line that
 * ran; an operator inside it repeats its caller's stack and adds nothing; the profiler's
 * own frames are left out. */
TEST(stacks_call_stack)
{
	struct jbuf b = {0};
	jop_stack(&b, "ProfilerStep#1", "1000", "1000",
		  "/p/torch/profiler/profiler.py(313): step;train.py(54): <module>");
	const char *conv = "/p/torch/nn/modules/conv.py(443): _conv_forward;train.py(30): step;"
			   "train.py(50): <module>";
	jop_stack(&b, "aten::conv2d", "1010", "100", conv);
	jop_stack(&b, "aten::convolution", "1020", "80", conv); /* its caller's stack again */
	japi(&b, "cudaLaunchKernel", 10, "1030", "5", 1);
	jop_stack(&b, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "1200", "100",
		  "/p/torch/autograd/profiler.py(614): __enter__;"
		  "/p/torch/utils/data/dataloader.py(518): __next__;train.py(42): <module>");
	jop_stack(&b, "aten::empty", "1210", "50",
		  "/p/torch/autograd/profiler.py(611): __init__;"
		  "/p/torch/utils/data/dataloader.py(518): __next__;train.py(42): <module>");
	japi(&b, "cudaMemsetAsync", 10, "1220", "5", 2);
	jop_stack(&b, "aten::zeros", "1400", "50", "/p/torch/autograd/profiler.py(611): __init__");
	japi(&b, "cudaLaunchKernel", 10, "1410", "5", 3);
	jop_stack(&b, "aten::ones", "1500", "50", ";");
	japi(&b, "cudaLaunchKernel", 10, "1510", "5", 4);
	struct kg_model m;
	jload(&m, &b, "call_stack.json");
	CHECK_EQ_STR(call_stack(&m, 1), "op:aten::convolution | op:aten::conv2d | "
		     "py:/p/torch/nn/modules/conv.py:443:_conv_forward | py:train.py:30:step | "
		     "py:train.py:50:<module> | ann:ProfilerStep");
	CHECK_EQ_STR(call_stack(&m, 2), "op:aten::empty | "
		     "op:enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ | "
		     "py:/p/torch/utils/data/dataloader.py:518:__next__ | py:train.py:42:<module> | "
		     "ann:ProfilerStep");
	CHECK_EQ_STR(call_stack(&m, 3), "op:aten::zeros | ann:ProfilerStep");
	CHECK_EQ_STR(call_stack(&m, 4), "op:aten::ones | ann:ProfilerStep");
	/* the line is the one that ran, not the def's */
	const struct kg_stack *s = &m.stacks[api_by_correlation(&m, 1)->stack];
	CHECK_EQ_INT(m.frames[s->first_frame + 3].kind, KG_FRAME_PYTHON);
	CHECK_EQ_INT(m.frames[s->first_frame + 3].flags & KG_FRAME_DEF_LINE, 0);
	CHECK(strstr(m.stack_note, "their Python call stacks") != NULL);
	CHECK(has_note(&m, "linked 4 of 4 API calls"));
	model_free(&m);
}

/* Events of one thread never enclose the calls of another; events without a tid and
 * calls without one are on thread 0, as for the calls themselves. */
TEST(stacks_threads)
{
	struct jbuf b = {0};
	jhost(&b, "cpu_op", "aten::mm", 1, "100", "100");
	jhost(&b, "cpu_op", "aten::add", 2, "100", "100");
	japi(&b, "cudaLaunchKernel", 2, "110", "5", 1);
	japi(&b, "cudaLaunchKernel", 1, "120", "5", 2);
	japi(&b, "cudaLaunchKernel", 3, "130", "5", 3); /* a thread without events */
	jadd(&b, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::sum\", \"pid\": 5, "
		 "\"ts\": 300, \"dur\": 10},\n");
	jadd(&b, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
		 "\"pid\": 5, \"ts\": 301, \"dur\": 1, \"args\": {\"correlation\": 4}},\n");
	japi(&b, "cudaLaunchKernel", 1, "302", "1", 5);
	jhost(&b, "cpu_op", "aten::only_here", 4, "0", "1000"); /* a thread of events only */
	struct kg_model m;
	jload(&m, &b, "threads.json");
	CHECK_EQ_STR(call_stack(&m, 1), "op:aten::add");
	CHECK_EQ_STR(call_stack(&m, 2), "op:aten::mm");
	CHECK_EQ_STR(call_stack(&m, 3), "-");
	CHECK_EQ_STR(call_stack(&m, 4), "op:aten::sum");
	CHECK_EQ_STR(call_stack(&m, 5), "-");
	CHECK_EQ_INT(m.n_threads, 4); /* tids 0, 1, 2, 3: none made for the events' tid 4 */
	CHECK(strstr(m.stack_note, "operators only") != NULL);
	model_free(&m);
}

/* Equal timestamps, µs rounding (older Kineto wrote whole µs), equal starts listed inner
 * first, a child overrunning its parent by rounding. */
TEST(stacks_edges)
{
	struct jbuf b = {0};
	jhost(&b, "cpu_op", "op_a", 1, "100", "100");            /* [100, 200] */
	japi(&b, "c1", 1, "100", "100", 1);                      /* the same: inside */
	japi(&b, "c2", 1, "200", "10", 2);                       /* begins at its end: not */
	japi(&b, "c3", 1, "90", "10", 3);                        /* ends at its start: not */
	japi(&b, "c4", 1, "200", "0", 4);                        /* 0 µs at its end: inside */
	japi(&b, "c12", 1, "200", "0.5", 12);                    /* from its end: not, though */
								 /* within 1 µs of it */
	jhost(&b, "cpu_op", "op_b", 2, "100", "10");             /* [100, 110] */
	japi(&b, "c5", 2, "105", "5.4", 5);                      /* ends 0.4 µs after: in */
	japi(&b, "c6", 2, "108", "3", 6);                        /* 1 µs after: in */
	japi(&b, "c7", 2, "108.5", "3.5", 7);                    /* 2 µs after: not */
	/* equal starts: the shorter listed first is still the inner one */
	jhost(&b, "cpu_op", "inner", 3, "500", "10");
	jhost(&b, "cpu_op", "outer", 3, "500", "50");
	japi(&b, "c8", 3, "500", "1", 8);
	/* equal times, different kinds: annotation > Python > operator */
	jhost(&b, "cpu_op", "aten::x", 4, "700", "10");
	jhost(&b, "python_function", "f.py(1): f", 4, "700", "10");
	jhost(&b, "user_annotation", "ann", 4, "700", "10");
	japi(&b, "c9", 4, "701", "1", 9);
	/* a child that overruns its parent by 0.5 µs is still its child */
	jhost(&b, "cpu_op", "parent", 5, "900", "10");
	jhost(&b, "cpu_op", "child", 5, "905", "5.5");
	japi(&b, "c10", 5, "909", "1.4", 10);
	/* the next sibling begun 0.3 µs before its elder ended */
	jhost(&b, "cpu_op", "elder", 6, "1000", "10");
	jhost(&b, "cpu_op", "younger", 6, "1009.7", "20");
	japi(&b, "c11", 6, "1020", "1", 11);
	struct kg_model m;
	jload(&m, &b, "edges.json");
	CHECK_EQ_STR(call_stack(&m, 1), "op:op_a");
	CHECK_EQ_STR(call_stack(&m, 2), "-");
	CHECK_EQ_STR(call_stack(&m, 3), "-");
	CHECK_EQ_STR(call_stack(&m, 4), "op:op_a");
	CHECK_EQ_STR(call_stack(&m, 12), "-");
	CHECK_EQ_STR(call_stack(&m, 5), "op:op_b");
	CHECK_EQ_STR(call_stack(&m, 6), "op:op_b");
	CHECK_EQ_STR(call_stack(&m, 7), "-");
	CHECK_EQ_STR(call_stack(&m, 8), "op:inner | op:outer");
	CHECK_EQ_STR(call_stack(&m, 9), "op:aten::x | py:f.py:1:f | ann:ann");
	CHECK_EQ_STR(call_stack(&m, 10), "op:child | op:parent");
	CHECK_EQ_STR(call_stack(&m, 11), "op:younger");
	CHECK(!has_note(&m, "call stacks:"));
	model_free(&m);
}

/* The same place in every step gives one stack: "#<digits>" and object addresses go. */
TEST(stacks_dedupe_steps)
{
	struct jbuf b = {0};
	char name[128], ts[32];
	for (int i = 0; i < 3; i++) {
		int t = 1000 * (i + 1);
		snprintf(name, sizeof(name), "ProfilerStep#%d", i + 7);
		snprintf(ts, sizeof(ts), "%d", t);
		jhost(&b, "user_annotation", name, 1, ts, "900");
		snprintf(name, sizeof(name), "<built-in method item of Tensor object at 0x7f%04x>",
			 0xa0 + i * 0x1111);
		snprintf(ts, sizeof(ts), "%d", t + 10);
		jhost(&b, "python_function", name, 1, ts, "100");
		snprintf(ts, sizeof(ts), "%d", t + 20);
		jhost(&b, "cpu_op", "aten::item", 1, ts, "50");
		snprintf(ts, sizeof(ts), "%d", t + 30);
		japi(&b, "cudaStreamSynchronize", 1, ts, "10", i + 1);
		snprintf(ts, sizeof(ts), "%d", t + 500);
		japi(&b, "cudaLaunchKernel", 1, ts, "10", i + 11);
	}
	/* "Optimizer.step#SGD.step" keeps its name: only a trailing #<digits> goes */
	jhost(&b, "user_annotation", "Optimizer.step#SGD.step", 1, "5000", "10");
	japi(&b, "cudaLaunchKernel", 1, "5001", "1", 21);
	struct kg_model m;
	jload(&m, &b, "steps.json");
	CHECK_EQ_STR(call_stack(&m, 1), "op:aten::item | py:<built-in method item of Tensor "
		     "object> | ann:ProfilerStep");
	CHECK_EQ_INT(api_by_correlation(&m, 2)->stack, api_by_correlation(&m, 1)->stack);
	CHECK_EQ_INT(api_by_correlation(&m, 3)->stack, api_by_correlation(&m, 1)->stack);
	CHECK_EQ_STR(call_stack(&m, 11), "ann:ProfilerStep");
	CHECK_EQ_INT(api_by_correlation(&m, 12)->stack, api_by_correlation(&m, 11)->stack);
	CHECK_EQ_INT(api_by_correlation(&m, 13)->stack, api_by_correlation(&m, 11)->stack);
	CHECK_EQ_STR(call_stack(&m, 21), "ann:Optimizer.step#SGD.step");
	CHECK_EQ_INT(call_stacks(&m), 3);
	/* the ranges keep their numbers */
	CHECK_EQ_STR(model_text(&m, m.ranges[0].name), "ProfilerStep#7");
	model_free(&m);
}

/* 70 nested operators: the innermost 64 are kept, the stack says it was cut. */
TEST(stacks_truncated)
{
	struct jbuf b = {0};
	char name[32], ts[32], dur[32];
	for (int i = 0; i < 70; i++) {
		snprintf(name, sizeof(name), "op%d", i);
		snprintf(ts, sizeof(ts), "%d", 100 + i);
		snprintf(dur, sizeof(dur), "%d", 1000 - 2 * i);
		jhost(&b, "cpu_op", name, 1, ts, dur);
	}
	japi(&b, "cudaLaunchKernel", 1, "500", "1", 1);
	japi(&b, "cudaLaunchKernel", 1, "149.5", "1", 2); /* under op0..op49 */
	struct kg_model m;
	jload(&m, &b, "deep.json");
	const struct kg_stack *s = &m.stacks[api_by_correlation(&m, 1)->stack];
	CHECK_EQ_INT(s->n_frames, 64);
	CHECK(s->flags & KG_STACK_TRUNCATED);
	CHECK_EQ_STR(model_text(&m, m.frames[s->first_frame].function), "op69");
	CHECK_EQ_STR(model_text(&m, m.frames[s->first_frame + 63].function), "op6");
	s = &m.stacks[api_by_correlation(&m, 2)->stack];
	CHECK_EQ_INT(s->n_frames, 50);
	CHECK_EQ_INT(s->flags, 0);
	CHECK_EQ_STR(model_text(&m, m.frames[s->first_frame].function), "op49");
	CHECK(has_note(&m, "1 calls' stacks were deeper than 64 frames"));
	model_free(&m);
}

/* Events that cannot be placed link nothing; overlapping events that do not nest are
 * cut, and nothing crashes. */
TEST(stacks_malformed)
{
	struct jbuf b = {0};
	jadd(&b, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"nodur\", \"pid\": 5, "
		 "\"tid\": 1, \"ts\": 100},\n");
	jhost(&b, "cpu_op", "negdur", 1, "100", "-50");
	jhost(&b, "cpu_op", "strts", 1, "\"100\"", "50");
	jhost(&b, "cpu_op", "nullts", 1, "null", "50");
	jhost(&b, "cpu_op", "hugedur", 1, "100", "1e30");
	jhost(&b, "cpu_op", "overflow", 1, "9223372036854775", "9223372036854775");
	jadd(&b, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"pid\": 5, \"tid\": 1, \"ts\": 100, "
		 "\"dur\": 50},\n"); /* no name */
	jadd(&b, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": {\"a\": 1}, \"pid\": 5, "
		 "\"tid\": 1, \"ts\": 100, \"dur\": 50},\n"); /* name an object */
	japi(&b, "cudaLaunchKernel", 1, "110", "1", 1);
	/* A [1000, 1100] and B [1050, 1200] overlap without nesting */
	jhost(&b, "cpu_op", "A", 1, "1000", "100");
	jhost(&b, "cpu_op", "B", 1, "1050", "150");
	japi(&b, "cudaLaunchKernel", 1, "1060", "1", 2);
	japi(&b, "cudaLaunchKernel", 1, "1020", "1", 3);
	/* a call without dur: where it began */
	jhost(&b, "cpu_op", "C", 1, "2000", "100");
	jadd(&b, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"x\", \"pid\": 5, "
		 "\"tid\": 1, \"ts\": 2050, \"args\": {\"correlation\": 4}},\n");
	struct kg_model m;
	jload(&m, &b, "malformed.json");
	/* nothing usable encloses call 1 */
	CHECK_EQ_STR(call_stack(&m, 1), "-");
	CHECK_EQ_STR(call_stack(&m, 2), "op:B | op:A");
	CHECK_EQ_STR(call_stack(&m, 3), "op:A");
	CHECK_EQ_STR(call_stack(&m, 4), "op:C");
	/* no dur, negative, too large, end past int64, no name, name not a string */
	CHECK(has_note(&m, "call stacks: 6 host events without a usable time span or name"));
	CHECK(has_note(&m, "1 overran the event enclosing them"));
	CHECK(has_note(&m, "skipped 2 malformed events"));
	model_free(&m);
}

/* Out of order in the file: the same stacks as in order. */
TEST(stacks_unsorted)
{
	struct jbuf b = {0};
	japi(&b, "c3", 1, "2050", "1", 3);
	jhost(&b, "cpu_op", "aten::b", 1, "2000", "100");
	japi(&b, "c2", 1, "1500", "1", 2);
	jhost(&b, "cpu_op", "aten::inner", 1, "1010", "50");
	japi(&b, "c1", 1, "1020", "1", 1);
	jhost(&b, "user_annotation", "ProfilerStep#0", 1, "900", "2000");
	jhost(&b, "cpu_op", "aten::a", 1, "1000", "600");
	struct kg_model m;
	jload(&m, &b, "unsorted.json");
	CHECK_EQ_STR(call_stack(&m, 1), "op:aten::inner | op:aten::a | ann:ProfilerStep");
	CHECK_EQ_STR(call_stack(&m, 2), "op:aten::a | ann:ProfilerStep");
	CHECK_EQ_STR(call_stack(&m, 3), "op:aten::b | ann:ProfilerStep");
	model_free(&m);
}

/* Overlapping, never nested events and deep nesting at scale: linear, no blow-up. */
TEST(stacks_adversarial_scale)
{
	struct jbuf b = {0};
	char ts[32], dur[32];
	int n = 50000;
	for (int i = 0; i < n; i++) { /* [2i, 2i + 4n): each overruns the one before */
		snprintf(ts, sizeof(ts), "%d", 2 * i);
		snprintf(dur, sizeof(dur), "%d", 4 * n);
		jhost(&b, "cpu_op", i % 2 ? "odd" : "even", 1, ts, dur);
		snprintf(ts, sizeof(ts), "%d.5", 2 * i);
		japi(&b, "cudaLaunchKernel", 1, ts, "0.1", i + 1);
	}
	for (int i = 0; i < n; i++) { /* fully nested, 50000 deep */
		snprintf(ts, sizeof(ts), "%d", 10 * n + i);
		snprintf(dur, sizeof(dur), "%d", 2 * (n - i));
		jhost(&b, "cpu_op", "deep", 2, ts, dur);
		snprintf(ts, sizeof(ts), "%d.5", 10 * n + i);
		japi(&b, "cudaLaunchKernel", 2, ts, "0.1", n + i + 1);
	}
	struct kg_model m;
	jload(&m, &b, "scale.json");
	CHECK_EQ_STR(call_stack(&m, 1), "op:even");
	CHECK_EQ_STR(call_stack(&m, 2), "op:odd | op:even");
	const struct kg_stack *s = &m.stacks[api_by_correlation(&m, (uint32_t)(2 * n))->stack];
	CHECK_EQ_INT(s->n_frames, 64);
	CHECK(s->flags & KG_STACK_TRUNCATED);
	for (uint32_t i = 0; i < m.n_apis; i++)
		CHECK(m.apis[i].stack != KG_NONE);
	CHECK(has_note(&m, "49999 overran the event enclosing them"));
	model_free(&m);
}

/* The real H200 trace (no with_stack): the calls under aten::item. Expected values from
 * Python, on the raw events (same tid, ts <= call.ts, ts + dur >= call.ts + call.dur):
 * the 10 cudaMemcpyAsync and 10 cudaStreamSynchronize of aten::item sit in
 * aten::_local_scalar_dense < aten::item < the "step" annotation; the 20 others of each
 * in aten::copy_ < aten::_to_copy < aten::to < step; the 2 cudaDeviceSynchronize are
 * outside any; 15 distinct chains. */
TEST(stacks_fixture_item)
{
	struct kg_model m;
	load_ok(&m, "tests/fixtures/torch/torch_pageable_item.json.gz");
	const char *item = "op:aten::_local_scalar_dense | op:aten::item | ann:step";
	const char *to = "op:aten::copy_ | op:aten::_to_copy | op:aten::to | ann:step";
	int n_item_sync = 0, n_item_copy = 0, n_to_sync = 0, n_none = 0;
	for (uint32_t i = 0; i < m.n_apis; i++) {
		const char *name = model_text(&m, m.apis[i].name);
		const char *st = stack_text(&m, m.apis[i].stack);
		if (strcmp(st, "-") == 0) {
			CHECK_EQ_STR(name, "cudaDeviceSynchronize");
			n_none++;
		}
		if (strcmp(st, item) == 0) {
			n_item_sync += strcmp(name, "cudaStreamSynchronize") == 0;
			n_item_copy += strcmp(name, "cudaMemcpyAsync") == 0;
		}
		n_to_sync += strcmp(st, to) == 0 && strcmp(name, "cudaStreamSynchronize") == 0;
	}
	CHECK_EQ_INT(n_item_sync, 10);
	CHECK_EQ_INT(n_item_copy, 10);
	CHECK_EQ_INT(n_to_sync, 20);
	CHECK_EQ_INT(n_none, 2);
	CHECK_EQ_STR(call_stack(&m, 458), item); /* cudaStreamSynchronize, 518 µs */
	CHECK_EQ_INT(call_stacks(&m), 15);
	/* the DtoH copy of .item() is linked to its call, hence to the operator */
	const struct kg_op *o = op_by_correlation(&m, 457);
	CHECK(o != NULL && o->api != KG_NONE);
	CHECK_EQ_STR(stack_text(&m, m.apis[o->api].stack), item);
	CHECK(strstr(m.stack_note, "operators only (recorded without with_stack)") != NULL);
	CHECK(has_note(&m, "linked 420 of 422 API calls"));
	if (getenv("KG_PRINT_STACKS"))
		printf("    cudaStreamSynchronize (correlation 458): %s\n", call_stack(&m, 458));
	model_free(&m);
}

/* ------------------------------------------------------------------ host spans */

/* The host spans of the thread with this tid, as "START-END innermost-frame" lines (times
 * in µs of the trace), in order; each span checked: events as source, state unknown. */
static const char *spans_text(const struct kg_model *m, int64_t tid)
{
	static char buf[16384];
	size_t n = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < m->n_host_spans; i++) {
		const struct kg_host_span *h = &m->host_spans[i];
		CHECK(h->thread < m->n_threads);
		if (i)
			CHECK(h->thread > h[-1].thread ||
			      (h->thread == h[-1].thread && h->start >= h[-1].end));
		if (m->threads[h->thread].tid != tid)
			continue;
		CHECK_EQ_INT(h->source, KG_HOST_FROM_EVENTS);
		CHECK_EQ_INT(h->state, KG_HOST_STATE_UNKNOWN);
		CHECK(h->end > h->start && h->stack < m->n_stacks);
		const struct kg_frame *f = &m->frames[m->stacks[h->stack].first_frame];
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%lld-%lld %s", n ? ", " : "",
				      (long long)(h->start / 1000), (long long)(h->end / 1000),
				      model_text(m, f->function));
		CHECK(n < sizeof(buf) - 100);
	}
	return buf;
}

/* The stretches of the innermost open event, each with its whole chain; a Python
 * function's line is its definition. */
TEST(host_spans_nested)
{
	struct jbuf b = {0};
	jhost(&b, "user_annotation", "ProfilerStep#1", 10, "1000", "1000");
	jhost(&b, "python_function", "train.py(27): epoch", 10, "1010", "900");
	jhost(&b, "python_function", "/opt/m/x.py(12): forward", 10, "1020", "300");
	jhost(&b, "cpu_op", "aten::linear", 10, "1040", "100");
	japi(&b, "cudaLaunchKernel", 10, "1050", "5", 1);
	jhost(&b, "cpu_op", "aten::item", 10, "1410", "180");
	jhost(&b, "cpu_op", "aten::_local_scalar_dense", 10, "1420", "160");
	jhost(&b, "cpu_op", "aten::empty", 10, "1500", "0"); /* splits nothing */
	japi(&b, "cudaStreamSynchronize", 10, "1455", "120", 3);
	struct kg_model m;
	jload(&m, &b, "spans.json");
	CHECK_EQ_STR(spans_text(&m, 10),
		     "1000-1010 ProfilerStep, 1010-1020 epoch, 1020-1040 forward, "
		     "1040-1140 aten::linear, 1140-1320 forward, 1320-1410 epoch, "
		     "1410-1420 aten::item, 1420-1580 aten::_local_scalar_dense, "
		     "1580-1590 aten::item, 1590-1910 epoch, 1910-2000 ProfilerStep");
	/* the whole chain, as the calls' stacks give it */
	const struct kg_host_span *h = &m.host_spans[3];
	CHECK_EQ_INT(h->stack, api_by_correlation(&m, 1)->stack);
	CHECK_EQ_STR(stack_text(&m, m.host_spans[7].stack), call_stack(&m, 3));
	const struct kg_frame *f = &m.frames[m.stacks[m.host_spans[1].stack].first_frame];
	CHECK_EQ_INT(f->line, 27);
	CHECK_EQ_INT(f->flags, KG_FRAME_DEF_LINE);
	f = &m.frames[m.stacks[m.host_spans[0].stack].first_frame];
	CHECK_EQ_INT(f->flags, 0);
	/* a window keeps the spans that overlap it */
	CHECK_EQ_INT(model_restrict(&m, m.host_spans[4].start + 1, m.host_spans[6].start), 0);
	CHECK_EQ_STR(spans_text(&m, 10), "1140-1320 forward, 1320-1410 epoch");
	model_free(&m);
}

/* Spans go to the threads the model has (those that made calls or ranges), follow them
 * when model_finish puts the threads in order, and end with the thread's last event, past
 * its last call. */
TEST(host_spans_threads)
{
	struct jbuf b = {0};
	jhost(&b, "cpu_op", "aten::mm", 9, "100", "100");
	japi(&b, "cudaLaunchKernel", 9, "110", "5", 1);
	jhost(&b, "cpu_op", "aten::add", 9, "300", "50"); /* after the last call */
	jhost(&b, "cpu_op", "aten::sum", 2, "100", "20");
	jhost(&b, "user_annotation", "step", 2, "90", "200"); /* a range: thread 2 is known */
	jhost(&b, "cpu_op", "aten::only_here", 4, "0", "1000"); /* a thread of events only */
	struct kg_model m;
	jload(&m, &b, "span_threads.json");
	CHECK_EQ_INT(m.n_threads, 2);
	CHECK_EQ_INT(m.threads[0].tid, 2); /* met second, put first */
	CHECK_EQ_STR(spans_text(&m, 9), "100-200 aten::mm, 300-350 aten::add");
	CHECK_EQ_STR(spans_text(&m, 2), "90-100 step, 100-120 aten::sum, 120-290 step");
	CHECK_EQ_STR(spans_text(&m, 4), "");
	CHECK_EQ_INT(m.host_spans[0].thread, 0);
	model_free(&m);
}

/* Overlapping events that do not nest, a child overrunning its parent by rounding, and
 * an elder sibling overrun by its younger: spans never overlap and cover what the
 * events cover. */
TEST(host_spans_edges)
{
	struct jbuf b = {0};
	jhost(&b, "cpu_op", "A", 1, "1000", "100");
	jhost(&b, "cpu_op", "B", 1, "1050", "150"); /* cut at A's end */
	jhost(&b, "cpu_op", "parent", 1, "1300", "10");
	jhost(&b, "cpu_op", "child", 1, "1305", "5.5"); /* ends with the parent */
	jhost(&b, "cpu_op", "elder", 1, "1400", "10");
	jhost(&b, "cpu_op", "younger", 1, "1409.7", "20");
	japi(&b, "cudaLaunchKernel", 1, "1060", "1", 1);
	struct kg_model m;
	jload(&m, &b, "span_edges.json");
	CHECK_EQ_STR(spans_text(&m, 1), "1000-1050 A, 1050-1100 B, 1300-1305 parent, "
		     "1305-1310 child, 1400-1409 elder, 1409-1429 younger");
	model_free(&m);
}

/* 2,000 randomly damaged copies of a small trace with stacks: flipped bytes, junk,
 * cuts. Anything may come back but a crash or a sanitizer report. */
TEST(stacks_fuzz)
{
	struct jbuf b = {0};
	jhost(&b, "user_annotation", "ProfilerStep#3", 1, "1000", "1000");
	jhost(&b, "python_function", "train.py(27): epoch", 1, "1010", "900");
	jhost(&b, "python_function", "<built-in method item of Tensor object at 0x7f00>", 1,
	      "1400", "200");
	jhost(&b, "cpu_op", "aten::item", 1, "1410", "180");
	japi(&b, "cudaStreamSynchronize", 1, "1455", "120", 3);
	jhost(&b, "cpu_op", "aten::mm", 2, "1000", "10");
	japi(&b, "cudaLaunchKernel", 2, "1001", "2", 4);
	jadd(&b, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, "
		 "\"ts\": 1004, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7, "
		 "\"correlation\": 4}}" TAIL);
	struct jbuf all = {0};
	jadd(&all, HEAD "%s", b.p);
	free(b.p);
	size_t len = all.n;
	char *buf = malloc(len + 64);
	CHECK(buf != NULL);
	static const char junk[] = "{}[]\",:0123456789.eE-+ntfx#()\\\x80\xff ";
	int loaded = 0;
	for (int round = 0; round < 2000; round++) {
		memcpy(buf, all.p, len);
		size_t n = len;
		int edits = 1 + (int)(test_random() % 6);
		for (int k = 0; k < edits; k++) {
			size_t at = test_random() % n;
			unsigned long long r = test_random();
			if (r % 3 == 0)
				buf[at] = junk[(r >> 8) % (sizeof(junk) - 1)];
			else
				buf[at] ^= (char)(1u << ((r >> 8) % 8));
		}
		if (test_random() % 4 == 0)
			n = test_random() % n;
		const char *path = write_file("fuzz.json", buf, n);
		struct kg_model m;
		char err[512];
		int rc = load(&m, path, err, sizeof(err));
		if (rc < 0) {
			CHECK(strstr(err, path) != NULL);
		} else {
			CHECK_EQ_INT(model_finish(&m), 0);
			for (uint32_t i = 0; i < m.n_apis; i++)
				if (m.apis[i].stack != KG_NONE)
					(void)stack_text(&m, m.apis[i].stack);
			loaded++;
		}
		model_free(&m);
	}
	CHECK(loaded > 100); /* some damage leaves valid JSON: the stacks are exercised */
	free(buf);
	free(all.p);
}
