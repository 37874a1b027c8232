/* While the GPU waited (analysis/host.c) on small models made here, where every figure is
 * known: a span clipped to the gap, the time no span covers, the launching thread among
 * several, a sync's time given to the sync and not also to the span around it, the cause
 * and its fix, and a trace without host spans or without idle findings left as it was. */
#include <math.h>

#include "harness.h"

#include "analysis/analysis.h"
#include "model/model.h"
#include "report/finding_out.h"
#include "text/json_writer.h"

#define USER_FILE "train.py"
#define COLLATE_FILE "/usr/lib/python3/dist-packages/torch/utils/data/_utils/collate.py"
#define OTHER_FILE "/usr/lib/python3/dist-packages/somelib/work.py"

struct world {
	struct kg_model m;
	uint32_t t1, t2;
	uint32_t epoch, collate, other; /* stacks: epoch; default_collate ← epoch; work ← epoch */
};

static struct kg_frame python(struct kg_model *m, const char *file, const char *fn, int line)
{
	struct kg_frame f = {0};
	f.kind = KG_FRAME_PYTHON;
	f.file = model_string(m, file);
	f.function = model_string(m, fn);
	f.line = line;
	return f;
}

static void world_init(struct world *w)
{
	struct kg_model *m = &w->m;
	model_init(m, "test", "");
	model_add_process(m);
	struct kg_device *d = model_add_device(m);
	d->process = 0;
	d->ordinal = 0;
	w->t1 = model_thread_index(m, 0, 1);
	w->t2 = model_thread_index(m, 0, 2);
	struct kg_frame f[2];
	f[0] = python(m, USER_FILE, "epoch", 14);
	w->epoch = model_add_stack(m, 0, f, 1, 0);
	f[1] = f[0];
	f[0] = python(m, COLLATE_FILE, "default_collate", 212);
	w->collate = model_add_stack(m, 0, f, 2, 0);
	f[0] = python(m, OTHER_FILE, "work", 7);
	w->other = model_add_stack(m, 0, f, 2, 0);
}

static void api_at(struct kg_model *m, uint32_t thread, const char *name, int64_t start,
		   int64_t end, uint32_t correlation)
{
	struct kg_api *a = model_add_api(m);
	a->process = 0;
	a->thread = thread;
	a->correlation = correlation;
	a->name = model_string(m, name);
	a->start = start;
	a->end = end;
}

/* A kernel [start, end] launched by thread at `launch` (a 50 ns call). */
static void kernel_at(struct kg_model *m, uint32_t thread, int64_t launch, int64_t start,
		      int64_t end)
{
	struct kg_op *o = model_add_op(m);
	o->kind = KG_OP_KERNEL;
	o->stream = model_stream_index(m, 0, 0, 1, 7);
	o->start = start;
	o->end = end;
	o->name = model_string(m, "gemm");
	o->correlation = (uint32_t)m->n_ops;
	api_at(m, thread, "cudaLaunchKernel", launch, launch + 50, o->correlation);
}

static void span_at(struct kg_model *m, uint32_t thread, int64_t start, int64_t end,
		    uint32_t stack)
{
	struct kg_host_span *h = model_add_host_span(m);
	CHECK(h != NULL);
	h->start = start;
	h->end = end;
	h->thread = thread;
	h->stack = stack;
	h->source = KG_HOST_FROM_SAMPLES;
	h->state = KG_HOST_RUNNING;
}

static void analysed(struct world *w, struct kg_analysis *a)
{
	CHECK_EQ_INT(model_finish(&w->m), 0);
	CHECK_EQ_INT(analysis_run(&w->m, NULL, a), 0);
}

static const struct kg_finding *rule_finding(const struct kg_analysis *a, enum kg_rule_id r)
{
	for (uint32_t i = 0; i < a->findings.n; i++)
		if (a->findings.v[i].rule == r)
			return &a->findings.v[i];
	return NULL;
}

/* The share of f named `label` (host_node_label), 0 when none. */
static double share_of(const struct kg_analysis *a, const struct kg_finding *f, const char *label)
{
	char buf[1024];
	for (uint32_t k = 0; k < f->n_host; k++)
		if (!strcmp(host_node_label(a, f->host[k].node, buf, sizeof(buf)), label))
			return f->host[k].ns;
	return 0;
}

static void print_shares(const struct kg_analysis *a, const struct kg_finding *f)
{
	char buf[1024];
	for (uint32_t k = 0; k < f->n_host; k++)
		fprintf(stderr, "    %.0f ns in %s\n", f->host[k].ns,
			host_node_label(a, f->host[k].node, buf, sizeof(buf)));
	fprintf(stderr, "    %.0f ns not seen, gain %.0f\n", f->host_unseen_ns, f->gain_ns);
}

#define PERIOD 200000
#define GAPS 10 /* each holds a sample or two: enough to name a cause (KG_HOST_FEW_SAMPLES) */

/* Each gap [base + 100000, base + 201000] of 101 µs: the thread in the collate span from
 * before the gap (clipped: 40 µs of it count), in the user's own frame for 30 µs, in no
 * span for 30.5 µs, in the launch call for 50 ns, in no span again for 450 ns. */
TEST(clipped_spans_and_time_no_span_covers)
{
	struct world w;
	world_init(&w);
	struct kg_model *m = &w.m;
	for (int i = 0; i <= GAPS; i++) {
		int64_t base = (int64_t)i * PERIOD;
		kernel_at(m, w.t1, base + 500, base + 1000, base + 100000);
		if (i == GAPS)
			break;
		span_at(m, w.t1, base + 90000, base + 140000, w.collate);
		span_at(m, w.t1, base + 140000, base + 170000, w.epoch);
	}
	struct kg_analysis a;
	analysed(&w, &a);
	const struct kg_finding *f = rule_finding(&a, KG_RULE_HOST_BOUND);
	CHECK(f != NULL);
	if (getenv("KG_PRINT"))
		print_shares(&a, f);
	CHECK(fabs(f->gain_ns - GAPS * 101000.0) < 1);
	CHECK(fabs(share_of(&a, f, "collate.py:212 in default_collate ← train.py:14 in epoch") -
		   GAPS * 40000.0) < 1e-6);
	CHECK(fabs(share_of(&a, f, "train.py:14 in epoch") - GAPS * 30000.0) < 1e-6);
	CHECK(fabs(share_of(&a, f, "cudaLaunchKernel (CUDA)") - GAPS * 50.0) < 1e-6);
	CHECK(fabs(f->host_unseen_ns - GAPS * 30950.0) < 1e-6);
	/* data loading is the largest cause but not half the gain: the rule's own fix stays,
	 * and with 40 % of the gain (at least SHARE_NOTABLE) data loading's follows it */
	CHECK(fabs(f->host_cause_ns[KG_HOST_CAUSE_DATA] - GAPS * 40000.0) < 1e-6);
	CHECK_EQ_INT(f->host_cause, -1);
	CHECK(!strncmp(f->fix, "Queue work ahead of the GPU", 27));
	CHECK(strstr(f->fix, " Besides, data loading took 40% of it: ") != NULL);
	CHECK(strstr(f->fix, "num_workers") != NULL);
	/* the whole trace's table: the gaps whole, the same parts */
	CHECK_EQ_INT(a.host.on, 1);
	CHECK_EQ_INT(a.host.gaps, GAPS);
	CHECK(fabs(a.host.idle_ns - GAPS * 101000.0) < 1);
	CHECK(fabs(a.host.unseen_ns - GAPS * 30950.0) < 1e-6);
	CHECK(fabs(a.host.cause_ns[KG_HOST_CAUSE_DATA] - GAPS * 40000.0) < 1e-6);
	analysis_free(&a);
	model_free(m);
}

/* Two threads launch in turn, each busy with its own work: a gap is the thread's that
 * launched the work ending it, never the other's. Data loading takes more than half the
 * gain: the finding's fix is data loading's. */
TEST(the_launching_thread_among_several)
{
	struct world w;
	world_init(&w);
	struct kg_model *m = &w.m;
	for (int i = 0; i <= 12; i++) {
		int64_t base = (int64_t)i * PERIOD;
		/* t2 launches kernels 2, 6 and 10; t1 the others */
		kernel_at(m, i % 4 == 2 ? w.t2 : w.t1, base + 500, base + 1000, base + 100000);
	}
	for (int i = 0; i < 12; i++) { /* both threads busy in every gap */
		int64_t base = (int64_t)i * PERIOD;
		span_at(m, w.t1, base + 100000, base + 200500, w.collate);
		span_at(m, w.t2, base + 100000, base + 200500, w.other);
	}
	struct kg_analysis a;
	analysed(&w, &a);
	const struct kg_finding *f = rule_finding(&a, KG_RULE_HOST_BOUND);
	CHECK(f != NULL);
	if (getenv("KG_PRINT"))
		print_shares(&a, f);
	/* gaps 1, 5 and 9 end with t2's launches, the 9 others with t1's */
	CHECK(fabs(f->host_cause_ns[KG_HOST_CAUSE_DATA] - 9 * 100500.0) < 1e-6);
	CHECK(fabs(f->host_cause_ns[KG_HOST_CAUSE_OTHER] - 3 * 100500.0) < 1e-6);
	CHECK(fabs(f->host_cause_ns[KG_HOST_CAUSE_DISPATCH] - 12 * 50.0) < 1e-6); /* the launches */
	CHECK(fabs(f->host_unseen_ns - 12 * 450.0) < 1e-6);
	CHECK_EQ_INT(f->host_cause, KG_HOST_CAUSE_DATA);
	CHECK(strstr(f->fix, "num_workers") != NULL);
	analysis_free(&a);
	model_free(m);
}

/* The thread blocks in a sync inside the collate span: while it is blocked the GPU waits
 * on the sync (host-sync-stall's part, given to the call), after it returns on the host
 * (host-bound's part, given to collate). No time is in both. The sync's part of a gap is
 * the time the host was blocked, capped at the gap (metrics.c): 60 µs of the 101 µs,
 * though only 50 µs of the call fall in the gap; each finding's part is spread over what
 * the thread did in its pieces of the gap. */
TEST(sync_time_is_the_syncs_only)
{
	struct world w;
	world_init(&w);
	struct kg_model *m = &w.m;
	for (int i = 0; i <= GAPS; i++) {
		int64_t base = (int64_t)i * PERIOD;
		kernel_at(m, w.t1, base + 500, base + 1000, base + 100000);
		if (i == GAPS)
			break;
		api_at(m, w.t1, "cudaStreamSynchronize", base + 90000, base + 150000, 0);
		span_at(m, w.t1, base + 80000, base + 200500, w.collate);
	}
	struct kg_analysis a;
	analysed(&w, &a);
	const struct kg_finding *hb = rule_finding(&a, KG_RULE_HOST_BOUND);
	const struct kg_finding *ss = rule_finding(&a, KG_RULE_HOST_SYNC_STALL);
	CHECK(hb != NULL && ss != NULL);
	if (getenv("KG_PRINT")) {
		print_shares(&a, hb);
		print_shares(&a, ss);
	}
	/* host-bound: 41 µs a gap, spread over [150000, 201000]: collate 50.5 µs of those
	 * 51, the launch call 50 ns, 450 ns in no span */
	double scale = 41000.0 / 51000.0;
	CHECK(fabs(hb->gain_ns - GAPS * 41000.0) < 1);
	CHECK(fabs(hb->host_cause_ns[KG_HOST_CAUSE_DATA] - GAPS * 50500.0 * scale) < 1e-6);
	CHECK(fabs(hb->host_unseen_ns - GAPS * 450.0 * scale) < 1e-6);
	/* host-sync-stall: [100000, 150000], all in the sync, none in collate */
	CHECK(fabs(ss->gain_ns - GAPS * 60000.0) < 1);
	CHECK(fabs(share_of(&a, ss, "cudaStreamSynchronize (CUDA)") - GAPS * 60000.0) < 1e-6);
	CHECK(ss->host_cause_ns[KG_HOST_CAUSE_DATA] == 0);
	CHECK(ss->host_unseen_ns == 0);
	/* the sync's time is its cause, named; the rule's fix is the one for it */
	CHECK_EQ_INT(ss->host_cause, KG_HOST_CAUSE_SYNC);
	CHECK(fabs(ss->host_cause_ns[KG_HOST_CAUSE_SYNC] - GAPS * 60000.0) < 1e-6);
	CHECK(!strncmp(ss->fix, "Remove per-step synchronisation", 31));
	/* the table: every gap whole, collate counted once */
	CHECK(fabs(a.host.idle_ns - GAPS * 101000.0) < 1);
	CHECK(fabs(a.host.cause_ns[KG_HOST_CAUSE_DATA] - GAPS * 50500.0) < 1e-6);
	analysis_free(&a);
	model_free(m);
}

static struct kg_frame native(struct kg_model *m, const char *module, const char *fn,
			      uint64_t address)
{
	struct kg_frame f = {0};
	f.kind = KG_FRAME_NATIVE;
	f.module = model_string(m, module);
	f.function = fn ? model_string(m, fn) : 0;
	f.address = address;
	return f;
}

/* A run of a library's frames without symbols is one node, named by the run's outermost
 * frame, where it entered the library (a driver's unnamed frames under a C program's
 * main, as an Nsight export of CloverLeaf has them); a sample in a tracer's library
 * (Nsight Systems' injection) is the tracer's; a native frame of a synchronising CUDA
 * function (a static cudart's) waits for the GPU. */
TEST(unnamed_library_frames_tracers_and_native_syncs)
{
	struct world w;
	world_init(&w);
	struct kg_model *m = &w.m;
	const char *cuda = "/usr/lib64/libcuda.so.525.105.17";
	struct kg_frame f[5];
	f[0] = native(m, cuda, NULL, 0x10);
	f[1] = native(m, cuda, NULL, 0x20);
	f[2] = native(m, "/work/app", "main", 0x400);
	uint32_t two = model_add_stack(m, 0, f, 3, 0);
	f[0] = native(m, cuda, NULL, 0x30);
	f[1] = native(m, cuda, NULL, 0x40);
	f[2] = native(m, cuda, NULL, 0x20); /* entered where `two` entered */
	f[3] = native(m, "/work/app", "main", 0x400);
	uint32_t three = model_add_stack(m, 0, f, 4, 0);
	f[0] = native(m, "/opt/nsys/libToolsInjection64.so", NULL, 0x60);
	f[1] = native(m, "/work/app", "main", 0x400);
	uint32_t tracer = model_add_stack(m, 0, f, 2, 0);
	f[0] = native(m, cuda, NULL, 0x70);
	f[1] = native(m, "/work/app", "cudaDeviceSynchronize", 0x800);
	f[2] = native(m, "/work/app", "main", 0x400);
	uint32_t sync = model_add_stack(m, 0, f, 3, 0);
	for (int i = 0; i <= GAPS; i++) {
		int64_t base = (int64_t)i * PERIOD;
		kernel_at(m, w.t1, base + 500, base + 1000, base + 100000);
		if (i == GAPS)
			break;
		span_at(m, w.t1, base + 100000, base + 130000, two);
		span_at(m, w.t1, base + 130000, base + 160000, three);
		span_at(m, w.t1, base + 160000, base + 170000, tracer);
		span_at(m, w.t1, base + 170000, base + 200500, sync);
	}
	struct kg_analysis a;
	analysed(&w, &a);
	uint32_t cuda_nodes = 0;
	char buf[256];
	for (uint32_t n = 0; n < a.host.n_nodes; n++)
		if (strstr(host_node_name(&a, n, buf, sizeof(buf)), "libcuda")) {
			cuda_nodes++;
			if (a.host.nodes[n].parent != KG_NONE &&
			    a.host.nodes[a.host.nodes[n].parent].depth == 1)
				CHECK_EQ_STR(buf, "libcuda.so.525.105.17+0x1f (no symbols)");
		}
	CHECK_EQ_INT(cuda_nodes, 2); /* under main, and under cudaDeviceSynchronize */
	/* each gap of 101 µs: 10 in the tracer's library, 30.5 in the sync (then the launch) */
	CHECK(fabs(a.host.cause_ns[KG_HOST_CAUSE_TRACER] - GAPS * 10000.0) < 1e-6);
	CHECK(fabs(a.host.cause_ns[KG_HOST_CAUSE_SYNC] - GAPS * 30500.0) < 1e-6);
	analysis_free(&a);
	model_free(m);
}

/* Without host spans nothing is said; with spans but a GPU that never waits for the
 * host, no finding has a host part. */
TEST(no_spans_or_no_idle_finding_no_claims)
{
	struct world w;
	world_init(&w);
	struct kg_model *m = &w.m;
	for (int i = 0; i <= GAPS; i++) {
		int64_t base = (int64_t)i * PERIOD;
		kernel_at(m, w.t1, base + 500, base + 1000, base + 100000);
	}
	struct kg_analysis a;
	analysed(&w, &a);
	CHECK(rule_finding(&a, KG_RULE_HOST_BOUND) != NULL);
	CHECK_EQ_INT(a.host.on, 0);
	CHECK_EQ_INT(a.host.n_nodes, 0);
	for (uint32_t i = 0; i < a.findings.n; i++) {
		CHECK_EQ_INT(a.findings.v[i].n_host, 0);
		CHECK_EQ_INT(a.findings.v[i].host_cause, -1);
	}
	analysis_free(&a);
	model_free(m);

	/* back to back kernels queued well ahead: the GPU never waits */
	world_init(&w);
	for (int i = 0; i < 50; i++)
		kernel_at(m, w.t1, 100 + i * 100, 10000 + (int64_t)i * 10000, 20000 + (int64_t)i * 10000);
	span_at(m, w.t1, 0, 600000, w.collate);
	analysed(&w, &a);
	CHECK_EQ_INT(a.host.on, 1);
	CHECK(a.host.idle_ns == 0);
	for (uint32_t i = 0; i < a.findings.n; i++) {
		CHECK(!host_idle_rule(a.findings.v[i].rule));
		CHECK_EQ_INT(a.findings.v[i].n_host, 0);
	}
	analysis_free(&a);
	model_free(m);
}

/* Frames named as the user reads them: a profiler's Python function by its def, code
 * torch.compile generated by its graph. */
TEST(frame_labels)
{
	struct kg_model m;
	model_init(&m, "test", "");
	char buf[256];
	struct kg_frame f = python(&m, "/home/u/train.py", "epoch", 12);
	frame_label(&m, &f, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "train.py:12 in epoch");
	f.flags = KG_FRAME_DEF_LINE;
	frame_label(&m, &f, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "epoch (train.py, defined at line 12)");
	f = python(&m, "/tmp/torchinductor_u/c3/c3b3jv66yffi5bkokkbptc3hfaz3duzsobcplxooh43kk4yqbmun.py",
		   "call", 179);
	frame_label(&m, &f, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "call in compiled graph c3b3jv66 (torch.compile)");
	CHECK(!frame_is_users(&m, &f));
	model_free(&m);
}

/* Off-CPU samples waiting for the GIL: a lock wait, with its own fix, whatever the frames. */
TEST(gil_wait_is_a_lock_wait)
{
	struct world w;
	world_init(&w);
	struct kg_model *m = &w.m;
	for (int i = 0; i <= GAPS; i++) {
		int64_t base = (int64_t)i * PERIOD;
		kernel_at(m, w.t1, base + 500, base + 1000, base + 100000);
		if (i == GAPS)
			break;
		span_at(m, w.t1, base + 100000, base + 200500, w.collate);
		m->host_spans[m->n_host_spans - 1].state = KG_HOST_GIL_WAIT;
	}
	struct kg_analysis a;
	analysed(&w, &a);
	const struct kg_finding *f = rule_finding(&a, KG_RULE_HOST_BOUND);
	CHECK(f != NULL);
	CHECK_EQ_INT(f->host_cause, KG_HOST_CAUSE_LOCK);
	CHECK(fabs(f->host_cause_ns[KG_HOST_CAUSE_LOCK] - GAPS * 100500.0) < 1e-6);
	CHECK(strstr(f->fix, "GIL") != NULL);
	char buf[1024];
	CHECK_EQ_STR(host_node_label(&a, f->host[0].node, buf, sizeof(buf)),
		     "[waiting for the GIL] ← collate.py:212 in default_collate ← train.py:14 in epoch");
	analysis_free(&a);
	model_free(m);
}

/* Three gaps, a sample in each: too few to say what the thread did. The finding keeps
 * the count and its rule's fix, and names no cause (KG_HOST_FEW_SAMPLES); with ten gaps
 * (GAPS) the same spans name data loading (clipped_spans_and_time_no_span_covers). */
TEST(a_few_samples_name_no_cause)
{
	struct world w;
	world_init(&w);
	struct kg_model *m = &w.m;
	for (int i = 0; i <= 3; i++) {
		int64_t base = (int64_t)i * PERIOD;
		kernel_at(m, w.t1, base + 500, base + 1000, base + 100000);
		if (i < 3)
			span_at(m, w.t1, base + 90000, base + 200500, w.collate);
	}
	struct kg_analysis a;
	analysed(&w, &a);
	const struct kg_finding *f = rule_finding(&a, KG_RULE_HOST_BOUND);
	CHECK(f != NULL);
	CHECK_EQ_INT(f->host_samples, 3);
	CHECK(finding_host_few_samples(f));
	CHECK_EQ_INT(f->host_cause, -1);
	CHECK(strstr(f->fix, "num_workers") == NULL && strstr(f->fix, "Besides") == NULL);
	analysis_free(&a);
	model_free(m);
}

/* A compiled graph's generated code running under aot_autograd's forward is the graph
 * running, not compilation (TraceLens's sd3.5 trace: 362 ms of it was called JIT
 * compilation); Triton compiling a kernel at the generated code's first call is. */
static int cause_of_path(const char *inner_file, const char *inner_fn)
{
	struct world w;
	world_init(&w);
	struct kg_model *m = &w.m;
	struct kg_frame f[4];
	int n = 0;
	if (inner_file)
		f[n++] = python(m, inner_file, inner_fn, 10);
	f[n++] = python(m, "/tmp/torchinductor_u/c3/c3b3jv66yffi5bkokkbptc3hfaz3duzsobcplxooh43kk4yqbmun.py",
			"call", 120);
	f[n++] = python(m, "torch/_functorch/aot_autograd.py", "forward", 1126);
	f[n++] = python(m, USER_FILE, "epoch", 14);
	uint32_t stack = model_add_stack(m, 0, f, (uint32_t)n, 0);
	for (int i = 0; i <= GAPS; i++) {
		int64_t base = (int64_t)i * PERIOD;
		kernel_at(m, w.t1, base + 500, base + 1000, base + 100000);
		if (i < GAPS)
			span_at(m, w.t1, base + 100000, base + 200500, stack);
	}
	struct kg_analysis a;
	analysed(&w, &a);
	const struct kg_finding *hb = rule_finding(&a, KG_RULE_HOST_BOUND);
	int cause = hb ? hb->host_cause : -2;
	analysis_free(&a);
	model_free(m);
	return cause;
}

TEST(compiled_code_running_is_not_compilation)
{
	CHECK_EQ_INT(cause_of_path(NULL, NULL), KG_HOST_CAUSE_COMPILED);
	CHECK_EQ_INT(cause_of_path("triton/compiler/compiler.py", "compile"), KG_HOST_CAUSE_COMPILE);
}

/* A finding's JSON lists its 100 largest activities and counts the rest (a vLLM step's
 * 7,494, each with its whole path, made 93 MB); what it lists and what it counts add up
 * to what its causes sum. */
TEST(json_lists_the_largest_activities_and_counts_the_rest)
{
	struct world w;
	world_init(&w);
	struct kg_model *m = &w.m;
	enum { N = 130 };
	for (int i = 0; i <= N; i++) {
		int64_t base = (int64_t)i * PERIOD;
		kernel_at(m, w.t1, base + 500, base + 1000, base + 100000);
		if (i == N)
			break;
		char fn[32];
		snprintf(fn, sizeof(fn), "work_%d", i);
		struct kg_frame f[2] = {python(m, OTHER_FILE, fn, 7 + i), python(m, USER_FILE, "epoch", 14)};
		span_at(m, w.t1, base + 100000, base + 100000 + 1000 * (N - i) + 1000,
			model_add_stack(m, 0, f, 2, 0));
	}
	struct kg_analysis a;
	analysed(&w, &a);
	const struct kg_finding *f = rule_finding(&a, KG_RULE_HOST_BOUND);
	CHECK(f != NULL);
	CHECK_EQ_INT(f->n_host, N + 1); /* each function, and the part no span covers */
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	struct jw jw;
	CHECK_EQ_INT(jw_begin_compact(&jw, out), 0);
	struct kg_finding_place place = {.a = &a};
	finding_json(&jw, &place, f, 1);
	CHECK_EQ_INT(jw_end(&jw), 0);
	fclose(out);
	int labels = 0;
	for (const char *p = text; (p = strstr(p, "\"label\":")) != NULL; p++)
		labels++;
	CHECK_EQ_INT(labels, 100);
	CHECK(strstr(text, "\"activities_left_out\":31,") != NULL);
	free(text);
	analysis_free(&a);
	model_free(m);
}
