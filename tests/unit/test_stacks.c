/* Call stacks from the recorder to the model, without a GPU: the recorder's stack taker
 * (build/tests/libkgstacks.so, the same sources as the injected library) is called the
 * way CUPTI's callback calls it, from functions of this test; its spool is imported
 * (symbolised from this executable's own DWARF) and read back. The frames must name these
 * functions at the lines of their calls. */
#include "harness.h"
#include "import_spools.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "model/load.h"
#include "recorder/spool.h"
#include "recorder/stacks.h"
#include "trace/spool_import.h"
#include "trace/stack_import.h"
#include "util/clock.h"

static char dir[256];
static struct kg_spool spool;
static int line_of_sync, line_of_launch;
static uint64_t end_ts = 1000000; /* the spool's end record */
static uint32_t api_tid = 7;      /* the thread of the API records */

#define REC(s, type, T) ((T *)spool_reserve((s), (type), sizeof(T)))

static void open_spool(void)
{
	char path[300];
	snprintf(dir, sizeof(dir), "/tmp/kgantt-stacks-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/h.1.kgspool", dir);
	CHECK_EQ_INT(spool_open(&spool, path, 1 << 16), 0);
	struct kg_raw_process *p = REC(&spool, KG_RAW_PROCESS, struct kg_raw_process);
	p->pid = 4242;
	p->start_ns = 1000;
}

static void remove_dir(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ_INT(system(cmd), 0);
}

static void api_record(uint32_t correlation, const char *name, uint64_t start)
{
	uint32_t n = spool_string(&spool, name);
	struct kg_raw_api *a = REC(&spool, KG_RAW_API, struct kg_raw_api);
	a->start = start;
	a->end = start + 100;
	a->domain = KG_API_RUNTIME;
	a->name_str = n;
	a->tid = api_tid;
	a->correlation_id = correlation;
}

/* What CUPTI hands the callback at the entry of a runtime call. */
static void enter(CUpti_CallbackId cbid, uint32_t correlation, const void *params)
{
	CUpti_CallbackData cb;
	memset(&cb, 0, sizeof(cb));
	cb.callbackSite = CUPTI_API_ENTER;
	cb.correlationId = correlation;
	cb.functionParams = params;
	cb.symbolName = "kernel";
	stacks_on_api(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &cb);
}

__attribute__((noinline)) static void helper_sync(uint32_t correlation)
{
	line_of_sync = __LINE__ + 1;
	enter(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, correlation, NULL);
	__asm__ volatile("" ::: "memory"); /* keep the call from becoming a tail call */
}

__attribute__((noinline)) static void train_step(uint32_t correlation)
{
	helper_sync(correlation);
	__asm__ volatile("" ::: "memory");
}

/* Inlined into its caller: the stack must still show it, at the line of its call inside,
 * and its caller at the line that called it. */
static inline __attribute__((always_inline)) void inlined_wait(uint32_t correlation)
{
	line_of_sync = __LINE__ + 1;
	enter(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, correlation, NULL);
}

static int line_of_inlined_call;

__attribute__((noinline)) static void calls_inlined(uint32_t correlation)
{
	line_of_inlined_call = __LINE__ + 1;
	inlined_wait(correlation);
	__asm__ volatile("" ::: "memory");
}

static void launch(uint32_t correlation, const void *func)
{
	const void *params[8] = {func};
	line_of_launch = __LINE__ + 1;
	enter(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, correlation, params);
	__asm__ volatile("" ::: "memory");
}

static void finish(struct kg_model *m)
{
	stacks_drain(&spool);
	struct kg_raw_end *e = REC(&spool, KG_RAW_END, struct kg_raw_end);
	e->ts = end_ts;
	spool_close(&spool);

	char out[300], err[1024];
	snprintf(out, sizeof(out), "%s/out.kgt", dir);
	import_spools(dir, out);
	int rc = model_load(out, m, NULL, err, sizeof(err));
	if (rc)
		fprintf(stderr, "    %s\n", err);
	CHECK_EQ_INT(rc, 0);
	remove_dir();
}

static const struct kg_api *call(const struct kg_model *m, uint32_t correlation)
{
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (m->apis[i].correlation == correlation)
			return &m->apis[i];
	return NULL;
}

/* The depth of the frame of `function` in the call's stack, -1 when absent. */
static int frame_of(const struct kg_model *m, const struct kg_api *a, const char *function,
		    const struct kg_frame **out)
{
	if (!a || a->stack == KG_NONE)
		return -1;
	const struct kg_stack *s = &m->stacks[a->stack];
	for (uint32_t i = 0; i < s->n_frames; i++) {
		const struct kg_frame *f = &m->frames[s->first_frame + i];
		if (strstr(model_text(m, f->function), function)) {
			*out = f;
			return (int)i;
		}
	}
	return -1;
}

static struct kg_stack_config config(enum kg_stack_mode mode)
{
	struct kg_stack_config c = {.mode = mode, .launch_first = 2, .launch_every = 10,
				    .max_depth = 64};
	return c;
}

TEST(stacks_name_the_calling_lines)
{
	open_spool();
	struct kg_stack_config c = config(KG_STACKS_WAITS);
	CHECK_EQ_INT(stacks_init(&c, &spool), 0);
	api_record(100, "cudaStreamSynchronize", 2000);
	train_step(100);
	struct kg_model m;
	finish(&m);

	const struct kg_api *a = call(&m, 100);
	CHECK(a && a->stack != KG_NONE);
	const struct kg_frame *f = NULL, *g = NULL;
	int d1 = frame_of(&m, a, "helper_sync", &f);
	int d2 = frame_of(&m, a, "train_step", &g);
	CHECK(d1 >= 0 && d2 > d1); /* innermost first */
	CHECK_EQ_INT(f->kind, KG_FRAME_NATIVE);
	CHECK(strstr(model_text(&m, f->file), "test_stacks.c") != NULL);
	CHECK_EQ_INT(f->line, line_of_sync);
	CHECK(strstr(model_text(&m, f->module), "test_stacks") != NULL);
	CHECK(!(m.stacks[a->stack].flags & KG_STACK_PARTIAL)); /* down to _start */
	/* the recorder's own frames are not the program's */
	const struct kg_frame *x;
	CHECK_EQ_INT(frame_of(&m, a, "take_stack", &x), -1);
	CHECK_EQ_INT(frame_of(&m, a, "capture_stack", &x), -1);
	CHECK_EQ_INT(frame_of(&m, a, "stacks_on_api", &x), -1);
	CHECK(strstr(m.stack_note, "--stacks waits") != NULL);
	model_free(&m);
}

TEST(stacks_expand_inlined_calls)
{
	open_spool();
	struct kg_stack_config c = config(KG_STACKS_WAITS);
	CHECK_EQ_INT(stacks_init(&c, &spool), 0);
	api_record(150, "cudaDeviceSynchronize", 2000);
	calls_inlined(150);
	struct kg_model m;
	finish(&m);
	const struct kg_api *a = call(&m, 150);
	const struct kg_frame *in = NULL, *out = NULL;
	int d1 = frame_of(&m, a, "inlined_wait", &in);
	int d2 = frame_of(&m, a, "calls_inlined", &out);
	CHECK(d1 >= 0 && d2 == d1 + 1);
	CHECK_EQ_INT(in->line, line_of_sync);
	CHECK_EQ_INT(out->line, line_of_inlined_call);
	CHECK_EQ_INT(in->address, out->address); /* one instruction, two frames */
	model_free(&m);
}

/* Taking a stack holds the program's thread: the trace says from when to when, on which
 * thread, so that the time is the recording's wherever it falls (a gap before a kernel).
 * Real clock and thread here: the recorder times it on kgantt's clock. */
TEST(stacks_say_how_long_they_held_the_thread)
{
	open_spool();
	struct kg_stack_config c = config(KG_STACKS_WAITS);
	CHECK_EQ_INT(stacks_init(&c, &spool), 0);
	uint64_t before = now_raw_ns();
	api_tid = (uint32_t)syscall(SYS_gettid);
	api_record(110, "cudaStreamSynchronize", before);
	api_tid = 7;
	train_step(110);
	uint64_t after = now_raw_ns();
	end_ts = after + 1000000;
	struct kg_model m;
	finish(&m);
	end_ts = 1000000;

	CHECK(call(&m, 110) && call(&m, 110)->stack != KG_NONE);
	CHECK_EQ_INT(m.n_tracer_spans, 1);
	const struct kg_host_span *t = &m.tracer_spans[0];
	CHECK_EQ_INT(m.threads[t->thread].tid, (int64_t)syscall(SYS_gettid));
	CHECK(t->start >= (int64_t)before && t->end <= (int64_t)after && t->end > t->start);
	CHECK(strstr(model_text(&m, m.tracer_name), "kgantt's stacks") != NULL);
	model_free(&m);
}

TEST(stacks_sample_launches_and_dedupe)
{
	open_spool();
	struct kg_stack_config c = config(KG_STACKS_WAITS);
	CHECK_EQ_INT(stacks_init(&c, &spool), 0);
	static const char kernel_a = 'a', kernel_b = 'b';
	/* 30 launches of one kernel: the first is in a place of its own (no kernel before it);
	 * of the 29 after another of it, the first 2, then every 10th of the rest: 1 + 2 + 2 */
	for (uint32_t i = 0; i < 30; i++) {
		api_record(200 + i, "cudaLaunchKernel", 3000 + i * 200);
		launch(200 + i, &kernel_a);
	}
	api_record(300, "cudaLaunchKernel", 20000);
	launch(300, &kernel_b); /* another kernel: its own first launches */
	api_record(301, "cudaGetDevice", 21000);
	enter(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 301, NULL); /* not a wait */
	struct kg_model m;
	finish(&m);

	uint32_t with = 0;
	uint32_t stack = KG_NONE;
	for (uint32_t i = 0; i < 30; i++) {
		const struct kg_api *a = call(&m, 200 + i);
		CHECK(a);
		if (a->stack == KG_NONE)
			continue;
		with++;
		if (stack == KG_NONE)
			stack = a->stack;
		CHECK_EQ_INT(a->stack, stack); /* same place, same stack */
	}
	CHECK_EQ_INT(with, 5);
	CHECK(call(&m, 300)->stack != KG_NONE);
	CHECK_EQ_INT(call(&m, 301)->stack, KG_NONE);
	const struct kg_frame *f;
	CHECK(frame_of(&m, call(&m, 300), "launch", &f) >= 0);
	CHECK_EQ_INT(f->line, line_of_launch);
	model_free(&m);
}

/* One kernel launched after two others (a GEMM on two lines of a block): each place gets
 * its own first stacks, where counting by the kernel gave them all to the first place.
 * An asynchronous memset is counted by the kernel before it too. */
TEST(stacks_sample_launches_by_place)
{
	open_spool();
	struct kg_stack_config c = config(KG_STACKS_WAITS);
	CHECK_EQ_INT(stacks_init(&c, &spool), 0);
	static const char gemm = 'g', norm = 'n', gelu = 'u';
	uint32_t corr = 400;
	for (uint32_t step = 0; step < 6; step++) {
		api_record(corr, "cudaLaunchKernel", 1000 + corr * 100);
		launch(corr++, &norm);
		api_record(corr, "cudaLaunchKernel", 1000 + corr * 100);
		launch(corr++, &gemm); /* after norm: corr 401, 405, ... */
		api_record(corr, "cudaLaunchKernel", 1000 + corr * 100);
		launch(corr++, &gelu);
		api_record(corr, "cudaLaunchKernel", 1000 + corr * 100);
		launch(corr++, &gemm); /* after gelu: corr 403, 407, ... */
	}
	for (uint32_t i = 0; i < 3; i++) { /* a memset after the gemm, then after gelu */
		api_record(corr, "cudaMemsetAsync", 1000 + corr * 100);
		enter(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, corr++, NULL);
		api_record(corr, "cudaLaunchKernel", 1000 + corr * 100);
		launch(corr++, &gelu);
		api_record(corr, "cudaMemsetAsync", 1000 + corr * 100);
		enter(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, corr++, NULL);
		api_record(corr, "cudaLaunchKernel", 1000 + corr * 100);
		launch(corr++, &gemm);
	}
	struct kg_model m;
	finish(&m);
	uint32_t after_norm = 0, after_gelu = 0;
	for (uint32_t step = 0; step < 6; step++) {
		after_norm += call(&m, 401 + 4 * step)->stack != KG_NONE;
		after_gelu += call(&m, 403 + 4 * step)->stack != KG_NONE;
	}
	CHECK_EQ_INT(after_norm, 2); /* the first 2 of each place; the 10th is not reached */
	CHECK_EQ_INT(after_gelu, 2);
	/* memsets: after gemm (424, 432 of which the first is the place's first), after gelu */
	uint32_t memsets = 0;
	for (uint32_t i = 0; i < 3; i++)
		memsets += (call(&m, 424 + 4 * i)->stack != KG_NONE) +
			   (call(&m, 426 + 4 * i)->stack != KG_NONE);
	CHECK_EQ_INT(memsets, 4); /* 2 places (after gemm, after gelu), their first 2 each */
	model_free(&m);
}

TEST(stacks_all_mode_takes_every_call)
{
	open_spool();
	struct kg_stack_config c = config(KG_STACKS_ALL);
	CHECK_EQ_INT(stacks_init(&c, &spool), 0);
	static const char kernel = 'k';
	for (uint32_t i = 0; i < 20; i++) {
		api_record(400 + i, "cudaLaunchKernel", 3000 + i * 200);
		launch(400 + i, &kernel);
	}
	struct kg_model m;
	finish(&m);
	for (uint32_t i = 0; i < 20; i++)
		CHECK(call(&m, 400 + i)->stack != KG_NONE);
	CHECK_EQ_INT(m.n_stacks, 1);
	model_free(&m);
}

TEST(stacks_off_takes_none)
{
	open_spool();
	struct kg_stack_config c = config(KG_STACKS_OFF);
	CHECK_EQ_INT(stacks_init(&c, &spool), 0);
	api_record(500, "cudaStreamSynchronize", 2000);
	train_step(500);
	struct kg_model m;
	finish(&m);
	CHECK_EQ_INT(call(&m, 500)->stack, KG_NONE);
	CHECK_EQ_INT(m.n_stacks, 0);
	model_free(&m);
}

/* A process killed before its stacks were drained: calls without stacks, no error. */
TEST(stacks_lost_with_the_process)
{
	open_spool();
	struct kg_stack_config c = config(KG_STACKS_WAITS);
	CHECK_EQ_INT(stacks_init(&c, &spool), 0);
	api_record(600, "cudaStreamSynchronize", 2000);
	train_step(600);
	spool_close(&spool); /* no drain, no end record */
	char out[300];
	snprintf(out, sizeof(out), "%s/out.kgt", dir);
	struct kg_import im;
	CHECK_EQ_INT(import_begin(&im, out, "test"), 0);
	CHECK_EQ_INT(import_spool_dir(&im, dir, NULL), 0);
	CHECK_EQ_INT(import_commit(&im), 0);
	struct kg_model m;
	char err[512];
	CHECK_EQ_INT(model_load(out, &m, NULL, err, sizeof(err)), 0);
	remove_dir();
	CHECK_EQ_INT(call(&m, 600)->stack, KG_NONE);
	model_free(&m);
}

/* A call-site record of no entries, first of its process: its entries were copied to the
 * end of a table not yet made (NULL + 0: UBSan; found by tests/fuzz/fuzz_spool). */
TEST(stacks_empty_call_site_record)
{
	struct kg_stack_import *si = stack_import_new();
	CHECK(si != NULL);
	struct kg_raw_callsites r = {.h = {.type = KG_RAW_CALLSITES, .size = sizeof(r)}};
	char err[128];
	CHECK_EQ_INT(stack_import_callsites(si, &r, sizeof(r), err, sizeof(err)), 0);
	stack_import_free(si);
}

/* Damaged spools (bytes flipped in stack, module, code and call-site records, or cut
 * short): the importer says so or imports what it can, never crashes (ASan/UBSan). */
TEST(stacks_damaged_spools_never_crash)
{
	open_spool();
	struct kg_stack_config c = config(KG_STACKS_ALL);
	CHECK_EQ_INT(stacks_init(&c, &spool), 0);
	static const char kernel = 'k';
	for (uint32_t i = 0; i < 6; i++) {
		api_record(700 + i, "cudaStreamSynchronize", 2000 + i * 100);
		if (i % 2)
			train_step(700 + i);
		else
			launch(700 + i, &kernel);
	}
	stacks_drain(&spool);
	spool_close(&spool);
	char path[300];
	snprintf(path, sizeof(path), "%s/h.1.kgspool", dir);
	FILE *f = fopen(path, "rb");
	CHECK(f);
	static unsigned char good[1 << 20], bad[1 << 20];
	size_t n = fread(good, 1, sizeof(good), f);
	fclose(f);
	CHECK(n > 64 && n < sizeof(good));
	int imported = 0, refused = 0;
	for (int round = 0; round < 60; round++) { /* each symbolises this binary: ~0.25 s */
		memcpy(bad, good, n);
		size_t len = n;
		if (round % 10 == 9) {
			len = 16 + test_random() % (n - 16); /* cut short */
		} else {
			int flips = 1 + (int)(test_random() % 8);
			for (int k = 0; k < flips; k++)
				bad[16 + test_random() % (n - 16)] ^= (unsigned char)(1 + test_random() % 255);
		}
		char sub[320], file[400], out[400];
		snprintf(sub, sizeof(sub), "%s/r%d", dir, round);
		CHECK(mkdir(sub, 0755) == 0);
		snprintf(file, sizeof(file), "%s/h.1.kgspool", sub);
		f = fopen(file, "wb");
		CHECK(f && fwrite(bad, 1, len, f) == len);
		fclose(f);
		snprintf(out, sizeof(out), "%s/out.kgt", sub);
		struct kg_import im;
		CHECK_EQ_INT(import_begin(&im, out, "test"), 0);
		if (import_spool_dir(&im, sub, NULL) == 0 && import_commit(&im) == 0) {
			struct kg_model m;
			char err[512];
			if (model_load(out, &m, NULL, err, sizeof(err)) == 0) {
				struct kg_analysis a;
				if (analysis_run(&m, NULL, &a) == 0)
					analysis_free(&a);
				model_free(&m);
			}
			imported++;
		} else {
			CHECK(im.err[0] != '\0'); /* a refusal says why */
			import_abort(&im);
			refused++;
		}
	}
	CHECK(imported > 0);
	remove_dir();
}
