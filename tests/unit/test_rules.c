/* The diagnosis on the real H200 traces of the examples: each example's planted problem
 * is found by the right rule with a real gain, and its fixed twin does not trigger it.
 * Run with an argument `print` to see every finding of every fixture. */
#include "harness.h"

#include "analysis/analysis.h"
#include "model/load.h"

static const char *fixture(const char *name)
{
	static char path[256];
	snprintf(path, sizeof(path), "build/fixtures/%s.kgt", name);
	if (access(path, R_OK) != 0) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd),
			 "mkdir -p build/fixtures && xz -dc tests/fixtures/h200/%s.kgt.xz > %s.tmp && "
			 "mv %s.tmp %s",
			 name, path, path, path);
		CHECK(system(cmd) == 0);
	}
	return path;
}

/* The first finding of `rule` in an analysis, or NULL. */
static const struct kg_finding *rule_finding(const struct kg_analysis *a, const char *rule)
{
	for (uint32_t i = 0; i < a->findings.n; i++)
		if (!strcmp(kg_rules[a->findings.v[i].rule].id, rule))
			return &a->findings.v[i];
	return NULL;
}

/* The finding of `rule` in the analysis of fixture `name`, or NULL. */
static const struct kg_finding *find(const char *name, const char *rule, double *gain_pct)
{
	static struct kg_model m;
	static struct kg_analysis a;
	char err[1024];
	analysis_free(&a);
	model_free(&m);
	if (model_load(fixture(name), &m, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "    %s\n", err);
		CHECK(0);
	}
	CHECK(analysis_run(&m, NULL, &a) == 0);
	if (getenv("KG_PRINT_FINDINGS"))
		for (uint32_t i = 0; i < a.findings.n; i++)
			fprintf(stderr, "    %s: %s %.1f%% %s\n", name,
				kg_rules[a.findings.v[i].rule].id, a.findings.v[i].gain_pct,
				finding_str(a.findings.v[i].title));
	const struct kg_finding *f = rule_finding(&a, rule);
	if (f && gain_pct)
		*gain_pct = f->gain_pct;
	return f;
}

static void planted(const char *bad, const char *fixed, const char *rule, double min_pct)
{
	double pct = 0;
	const struct kg_finding *f = find(bad, rule, &pct);
	if (!f)
		fprintf(stderr, "    %s: no %s finding\n", bad, rule);
	CHECK(f != NULL);
	if (pct < min_pct)
		fprintf(stderr, "    %s: %s gain only %.2f%% (expected >= %.1f%%)\n", bad, rule, pct, min_pct);
	CHECK(pct >= min_pct);
	CHECK(f->fix && f->fix[0] && f->explanation && f->explanation[0] && f->gain_how && f->gain_how[0]);
	if (fixed) {
		f = find(fixed, rule, &pct);
		if (f)
			fprintf(stderr, "    %s (the fixed twin) still has %s: %s (%.2f%%)\n", fixed, rule,
				f->title, pct);
		CHECK(f == NULL);
	}
}

TEST(streams_serialization_found_and_fixed)
{
	planted("streams_bad", "streams_fixed", "stream-serialization", 20);
}

TEST(streams_busy_single_stream_is_not_serialization)
{
	CHECK(find("streams_busy", "stream-serialization", NULL) == NULL);
}

TEST(copies_not_overlapping_found_and_fixed)
{
	planted("copies_bad", "copies_fixed", "copy-compute-overlap", 10);
}

TEST(launch_overhead_found_and_fixed)
{
	planted("launches_bad", "launches_fixed", "launch-overhead", 10);
}

TEST(low_occupancy_found_and_fixed)
{
	double pct = 0;
	const struct kg_finding *f = find("occupancy_bad", "low-occupancy", &pct);
	const struct kg_finding *g = find("occupancy_bad", "under-filled-grid", NULL);
	CHECK(f || g);
	CHECK(!find("occupancy_fixed", "low-occupancy", NULL));
	CHECK(!find("occupancy_fixed", "under-filled-grid", NULL));
}

TEST(time_slicing_found_and_fixed)
{
	planted("timeslice_bad", "timeslice_fixed", "time-slicing", 3);
}

TEST(gpu_imbalance_found_and_fixed)
{
	planted("multigpu_bad", "multigpu_fixed", "gpu-imbalance", 10);
}

/* Real PyTorch traces, as torch.profiler wrote them (Kineto JSON) and as kgantt recorded
 * the same scenarios (restricted to the NVTX "step" ranges, as `report --nvtx step`). */
static const struct kg_finding *find_in(const char *path, const char *window, const char *rule,
					 int *n_severe)
{
	static struct kg_model m;
	static struct kg_analysis a;
	char err[1024];
	analysis_free(&a);
	model_free(&m);
	if (model_load(path, &m, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "    %s\n", err);
		CHECK(0);
	}
	int64_t t0, t1;
	if (window) {
		CHECK(model_range_window(&m, window, &t0, &t1) == 0);
		CHECK(model_restrict(&m, t0, t1) == 0);
	}
	CHECK(analysis_run(&m, NULL, &a) == 0);
	if (n_severe) {
		*n_severe = 0;
		for (uint32_t i = 0; i < a.findings.n; i++)
			*n_severe += a.findings.v[i].severity >= KG_SEV_WARNING;
	}
	return rule_finding(&a, rule);
}

/* Each step builds its batch on the CPU (6.5 ms), copies it from pageable memory, trains
 * (about 3 ms of GPU work) and reads loss.item(), blocking 1.0-1.1 ms while the GPU
 * finishes. The GPU then idles through the next batch's making: the host's time. Without
 * the .item() the host would only have started that batch 1.1 ms sooner, so that is all
 * the sync may claim (about 10% of a 10 ms step); the rest is host-bound. */
TEST(torch_pageable_item_waits_for_its_host_more_than_its_syncs)
{
	const struct kg_finding *f =
		find_in(fixture("torch_pageable_item"), "step", "host-sync-stall", NULL);
	CHECK(f && f->gain_pct > 8 && f->gain_pct < 14);
	f = find_in(fixture("torch_pageable_item"), "step", "host-bound", NULL);
	CHECK(f && f->gain_pct > 45);
	f = find_in("tests/fixtures/torch/torch_pageable_item.json.gz", NULL, "host-bound", NULL);
	CHECK(f && f->gain_pct > 45);
	f = find_in("tests/fixtures/torch/torch_pageable_item.json.gz", NULL, "host-sync-stall", NULL);
	CHECK(f && f->gain_pct < 14);
	CHECK(find_in("tests/fixtures/torch/torch_pageable_item.json.gz", NULL,
		      "copy-compute-overlap", NULL));
}

/* examples/torch_cnn.py at batch 4096 on the H200 (tests/gpu/sync_gain_h200.sh): the
 * GPU's step is long, loss.item() blocks about 10 ms of it, and without it (noitem) the
 * traced step was 14.4-15.7 ms shorter (trimmed mean, median): the sync's finding claims
 * the time the host was blocked, 10.2 ms a step, where the whole gaps would have claimed
 * 130; the same loop without the sync has no such finding. */
TEST(torch_cnn_item_claims_the_time_it_blocks)
{
	int steps = 105; /* NVTX "step" ranges in the trace: 5 warm-up, 100 timed */
	const struct kg_finding *f =
		find_in(fixture("torch_cnn_item_b4096"), "step", "host-sync-stall", NULL);
	CHECK(f != NULL);
	double per_step_ms = f ? f->gain_ns / 1e6 / steps : 0;
	CHECK(per_step_ms > 9 && per_step_ms < 12);
	CHECK(!find_in(fixture("torch_cnn_noitem_b4096"), "step", "host-sync-stall", NULL));
}

/* A GPT training step recorded on the H200 (bench/torch_step.py --gpt): 5.6 s of imports
 * and set-up lie between CUDA's first work and the steps. That gap is real idle time but no
 * step pays it: host-bound sizes the steps' own gaps, says what it left out, and
 * gpu-utilization marks the gap as start-up and says how to record without it. */
TEST(start_up_idle_is_not_a_steps_cost)
{
	const struct kg_finding *f = find("gpt_full_fast", "host-bound", NULL);
	CHECK(f != NULL);
	CHECK(f && f->gain_ns > 400e6 && f->gain_ns < 700e6); /* 6.18 s with the start-up */
	CHECK(f && strstr(f->explanation, "Not counted: 5644.6 ms before the GPU's steady work"));
	CHECK(f && !strstr(f->explanation, "wind-down"));
	/* most gaps end with a launch or an asynchronous memset whose stack was not sampled:
	 * each is placed as its kind's sampled ones are (62 % went unplaced when memsets
	 * were not) */
	CHECK(f && f->unsited_ns < 0.15 * f->gain_ns);
	f = find("gpt_full_fast", "gpu-utilization", NULL);
	CHECK(f && f->n_evidence >= 1 && strstr(f->evidence[0].text, "(host, start-up)"));
	CHECK(f && strstr(f->fix, "steady work began 5679.5 ms into the trace"));
	CHECK(f && strstr(f->title, "busy 15% of the span (64% of its steady work)"));
	/* shares and severities are of the steady span (1.68 s of the 7.34 s): the steps' own
	 * 531 ms of waiting for the host is a third of their time, critical; of the whole span
	 * it was 7 %, a warning */
	double pct = 0;
	f = find("gpt_full_fast", "host-bound", &pct);
	CHECK(f && f->severity == KG_SEV_CRITICAL);
	CHECK(pct > 30 && pct < 33);
}

/* One stream: a first op, 600 ms of start-up, 100 steps of 1 ms of kernel each launched
 * 2 ms late, 700 ms of wind-down, a last op. Only the steps' 2 ms gaps are host-bound. */
TEST(start_up_and_wind_down_gaps_are_told_apart_from_the_steps)
{
	struct kg_model m;
	struct kg_analysis a;
	model_init(&m, "test", "");
	model_add_process(&m);
	struct kg_device *d = model_add_device(&m);
	d->process = 0;
	d->ordinal = 0;
	uint32_t thread = model_thread_index(&m, 0, 1);
	const int64_t ms = 1000000;
	int64_t t = 1000 * ms;
	for (uint32_t i = 0; i < 102; i++) {
		int64_t len = i == 0 || i == 101 ? 10000 : ms;
		struct kg_op *o = model_add_op(&m);
		o->kind = KG_OP_KERNEL;
		o->stream = model_stream_index(&m, 0, 0, 1, 7);
		o->name = model_string(&m, "step_kernel");
		o->start = t;
		o->end = t + len;
		o->correlation = i + 1;
		struct kg_api *api = model_add_api(&m);
		api->process = 0;
		api->thread = thread;
		api->correlation = i + 1;
		api->name = model_string(&m, "cudaLaunchKernel");
		api->start = t - 5000; /* launched just before it ran: after the GPU went idle */
		api->end = t - 1000;
		t = o->end + (i == 0 ? 600 * ms : i == 100 ? 700 * ms : 2 * ms);
	}
	CHECK_EQ_INT(model_finish(&m), 0);
	CHECK(analysis_run(&m, NULL, &a) == 0);
	const struct kg_finding *f = rule_finding(&a, "host-bound");
	CHECK(f != NULL);
	CHECK(f && f->gain_ns > 197 * ms && f->gain_ns < 199 * ms); /* 99 gaps of 2 ms */
	CHECK(f && strstr(f->explanation, "Not counted: 600.0 ms before the GPU's steady work"));
	CHECK(f && strstr(f->explanation, "and 700.0 ms after it ended (wind-down)"));
	CHECK(f && strstr(f->title, "in 99 gaps"));
	/* gpu-utilization: where the steady work began, and which --delay leaves most of the
	 * start-up out when the trace knows when record started the program (2.5 s before the
	 * first op): a quarter early, rounded down, since start-up varies between runs */
	const struct kg_finding *u = rule_finding(&a, "gpu-utilization");
	CHECK(u && strstr(u->fix, "steady work began 600.0 ms into the trace"));
	analysis_free(&a);
	m.program_start = 1000 * ms - 2500 * ms; /* 2.5 s before the first op */
	CHECK(analysis_run(&m, NULL, &a) == 0);
	u = rule_finding(&a, "gpu-utilization");
	if (u && !strstr(u->fix, "--delay 2.3 "))
		fprintf(stderr, "    %s\n", u->fix);
	CHECK(u && strstr(u->fix, "began 3.1 s after the program started."));
	CHECK(u && strstr(u->fix, "--delay 2.3 cuts most of it"));
	CHECK(u && strstr(u->fix, "--capture-range cudaProfilerApi"));
	analysis_free(&a);
	model_free(&m);
}

TEST(torch_tiny_ops_starve_on_launches)
{
	const struct kg_finding *f =
		find_in("tests/fixtures/torch/torch_tiny_ops.json.gz", NULL, "launch-overhead", NULL);
	CHECK(f && f->gain_pct > 30);
	f = find_in(fixture("torch_tiny_ops"), "step", "launch-overhead", NULL);
	CHECK(f && f->gain_pct > 30);
}

TEST(torch_transformer_is_healthy)
{
	int severe = -1;
	find_in("tests/fixtures/torch/torch_transformer_bf16.json.gz", NULL, "none", &severe);
	CHECK_EQ_INT(severe, 0);
}

TEST(torch_two_streams_overlap_copies)
{
	CHECK(!find_in("tests/fixtures/torch/torch_two_streams.json.gz", NULL, "copy-compute-overlap",
		       NULL));
	CHECK(!find_in(fixture("torch_two_streams"), "step", "copy-compute-overlap", NULL));
}

/* What pinned copies would move is the GPU's host link's: PCIe gen 4 on an A100 reaches
 * about half of what gen 5 does on an H200 (the copies example has no pinned copy of its
 * own to measure it by). */
TEST(pageable_copy_gain_takes_the_gpu_link_rate)
{
	struct kg_model m;
	struct kg_analysis a;
	char err[1024];
	CHECK(model_load(fixture("copies_bad"), &m, NULL, err, sizeof(err)) == 0);
	CHECK(analysis_run(&m, NULL, &a) == 0);
	const struct kg_finding *f = rule_finding(&a, "copy-compute-overlap");
	CHECK(f && strstr(f->gain_how, "(50 GB/s: PCIe gen 5 x16"));
	double h200 = f ? f->gain_ns : 0;
	analysis_free(&a);
	for (uint32_t d = 0; d < m.n_devices; d++)
		m.devices[d].cc_major = 8, m.devices[d].cc_minor = 0;
	CHECK(analysis_run(&m, NULL, &a) == 0);
	f = rule_finding(&a, "copy-compute-overlap");
	CHECK(f && strstr(f->gain_how, "(25 GB/s: PCIe gen 4 x16"));
	CHECK(f && f->gain_ns < h200); /* pinned copies would gain less over a slower link */
	analysis_free(&a);
	/* the link the trace records, when it records one: PCIe gen 4 x8 */
	for (uint32_t d = 0; d < m.n_devices; d++)
		m.devices[d].pcie_gen = 4, m.devices[d].pcie_lanes = 8;
	CHECK(analysis_run(&m, NULL, &a) == 0);
	f = rule_finding(&a, "copy-compute-overlap");
	CHECK(f && strstr(f->gain_how, "(13 GB/s: 80 % of its PCIe gen 4 x8 link)"));
	analysis_free(&a);
	model_free(&m);
}

/* Only the causes the copies had are said and fixed: the copies example made pinned and
 * asynchronous leaves its host-to-device copies on the compute stream, and the finding
 * says that alone (Extra-P's GTX 1060 export was told "0 copies used pageable host
 * memory" and to allocate pinned buffers it had). */
TEST(copy_overlap_says_only_the_causes_present)
{
	struct kg_model m;
	struct kg_analysis a;
	char err[1024];
	CHECK(model_load(fixture("copies_bad"), &m, NULL, err, sizeof(err)) == 0);
	uint32_t async = model_string(&m, "cudaMemcpyAsync_v3020");
	for (uint32_t i = 0; i < m.n_ops; i++) {
		struct kg_op *o = &m.ops[i];
		if (o->kind == KG_OP_KERNEL)
			continue;
		if (o->src_kind == KG_MEM_PAGEABLE)
			o->src_kind = KG_MEM_PINNED;
		if (o->dst_kind == KG_MEM_PAGEABLE)
			o->dst_kind = KG_MEM_PINNED;
		if (o->api != KG_NONE)
			m.apis[o->api].name = async;
	}
	CHECK(analysis_run(&m, NULL, &a) == 0);
	const struct kg_finding *f = rule_finding(&a, "copy-compute-overlap");
	CHECK(f != NULL);
	if (f) {
		CHECK(!strncmp(f->explanation, "8 host-to-device copies ran on a stream that also runs", 54));
		CHECK(!strstr(f->explanation, "pageable") && !strstr(f->explanation, "synchronous"));
		CHECK(!strncmp(f->fix, "Copy with cudaMemcpyAsync on a dedicated copy stream", 52));
		CHECK(!strstr(f->fix, "pinned") && !strstr(f->fix, "cudaMemsetAsync"));
		CHECK(!strstr(f->gain_how, "pageable"));
	}
	analysis_free(&a);
	model_free(&m);
}

/* A library's kernel (here the occupancy example's kernels renamed as cuBLAS's and
 * PyTorch's would be) gets a fix the user can apply, not "change the block size". */
TEST(library_kernels_get_fixes_the_user_controls)
{
	struct kg_model m;
	struct kg_analysis a;
	char err[1024];
	CHECK(model_load(fixture("occupancy_bad"), &m, NULL, err, sizeof(err)) == 0);
	uint32_t gemm = model_string(&m, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
	uint32_t elem = model_string(&m, "void at::native::vectorized_elementwise_kernel<4, "
					 "at::native::FillFunctor<float>>(int, at::native::FillFunctor<float>)");
	for (uint32_t i = 0; i < m.n_ops; i++) {
		const char *n = model_text(&m, m.ops[i].name);
		if (strstr(n, "occupancy_tile"))
			m.ops[i].name = gemm;
		else if (strstr(n, "occupancy_grid"))
			m.ops[i].name = elem;
	}
	CHECK(analysis_run(&m, NULL, &a) == 0);
	int seen = 0;
	for (uint32_t i = 0; i < a.findings.n; i++) {
		const struct kg_finding *f = &a.findings.v[i];
		if (f->rule != KG_RULE_LOW_OCCUPANCY && f->rule != KG_RULE_UNDER_FILLED_GRID)
			continue;
		seen++;
		CHECK(strstr(f->fix, "cuBLAS") || strstr(f->fix, "PyTorch (ATen)"));
		CHECK(!strstr(f->fix, "threads per block"));
		/* a library kernel's occupancy is its design (a tensor-core GEMM runs few, large
		 * warps on purpose): said, with no gain claimed and no more than a warning */
		if (f->rule == KG_RULE_LOW_OCCUPANCY) {
			CHECK(f->gain_ns == 0 && f->severity <= KG_SEV_WARNING);
			CHECK(strstr(f->gain_how, "design"));
		}
	}
	CHECK_EQ_INT(seen, 2);
	analysis_free(&a);
	model_free(&m);
}

/* A launch-bound loop (300 kernels of 2 µs, 4 µs apart) on a noisy host: every 20th launch
 * comes 30 µs late, three come 3 ms late. The 30 µs gaps are the tail of the loop's own
 * launch cost: launch-overhead's, not host-bound's too (one gap, one finding; the H100's
 * launches_bad fixture of 2026-12-07 had 127 such gaps, a host-bound warning beside the
 * launch-overhead it repeated). The 3 ms gaps are more than launch_gap_spread times the
 * median gap: the host did something else, host-bound's alone. */
static void write_launch_loop(const char *path)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "{\"traceEvents\": [\n");
	double end = 100; /* µs: the previous kernel's end */
	for (int i = 0; i < 300; i++) {
		double gap = i && i % 100 == 50 ? 3000 : i && i % 20 == 0 ? 30 : 4;
		double call = gap > 4 ? end + gap - 3 : end - 1, start = end + gap;
		fprintf(f,
			"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
			"\"tid\":1,\"ts\":%.3f,\"dur\":2,\"args\":{\"correlation\":%d}},\n"
			"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"step\",\"pid\":0,\"tid\":7,"
			"\"ts\":%.3f,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}%s\n",
			call, i + 1, start, i + 1, i < 299 ? "," : "");
		end = start + 2;
	}
	fprintf(f, "]}\n");
	fclose(f);
}

TEST(a_launch_bound_loop_leaves_its_host_gaps_to_launch_overhead)
{
	char path[] = "/tmp/kgantt-loop-XXXXXX.json";
	int fd = mkstemps(path, 5);
	CHECK(fd >= 0);
	close(fd);
	write_launch_loop(path);
	const struct kg_finding *f = find_in(path, NULL, "launch-overhead", NULL);
	CHECK(f != NULL);
	if (f) /* 296 gaps: 281 of 4 µs and 15 of 30 µs, not the three of 3 ms */
		CHECK(strstr(finding_str(f->figures), "tiny_kernels=296,") != NULL);
	f = find_in(path, NULL, "host-bound", NULL);
	CHECK(f != NULL);
	if (f)
		CHECK(strstr(finding_str(f->figures), "gaps=3,") != NULL);
	unlink(path);
}

/* ------------------------------------------------------------------ times at the edges */

/* Times as a file may hold them (found by tests/fuzz/fuzz_analysis): a launch at
 * INT64_MAX for a kernel at -INT64_MAX, a kernel as long as int64 allows, one without a
 * duration (its end unknown: KG_NO_TIME, which is INT64_MIN), a grid whose block count
 * passes LLONG_MAX, a device whose every property is INT32_MAX, and a range over all of it. Every difference of two such times, every
 * sum of such durations, overflowed int64 somewhere in the analysis, the report, the
 * exports, the view or the chart: UBSan ends the test at the first one. */
static const char extreme_json[] =
	"{\"deviceProperties\": [{\"id\": 0, \"name\": \"H200\", \"computeMajor\": 2147483647,"
	"\"computeMinor\": 2147483647, \"numSms\": 2147483647, \"maxThreadsPerBlock\": 2147483647,"
	"\"maxThreadsPerMultiprocessor\": 2147483647, \"regsPerBlock\": 2147483647,"
	"\"regsPerMultiprocessor\": 2147483647, \"warpSize\": 2147483647,"
	"\"sharedMemPerBlock\": 2147483647, \"sharedMemPerMultiprocessor\": 2147483647,"
	"\"totalGlobalMem\": 9223372036854775807}],\n"
	"\"traceEvents\": [\n"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
	"\"ts\":9223372036854775.806,\"dur\":0,\"args\":{\"correlation\":1}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_far\",\"pid\":0,\"tid\":7,"
	"\"ts\":-9223372036854775.807,\"dur\":1,\"args\":{\"device\":0,\"stream\":7,"
	"\"correlation\":1,\"grid\":[4294967295,4294967295,4294967295],\"block\":[1024,1,1]}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_long\",\"pid\":0,\"tid\":8,"
	"\"ts\":-9223372036854775.807,\"dur\":9223372036854775.807,\"args\":{\"device\":0,"
	"\"stream\":8,\"correlation\":2}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_long\",\"pid\":0,\"tid\":8,"
	"\"ts\":0,\"dur\":9223372036854775.807,\"args\":{\"device\":0,\"stream\":8}},\n"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_no_dur\",\"pid\":0,\"tid\":7,"
	"\"ts\":100,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}},\n"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\","
	"\"pid\":0,\"tid\":7,\"ts\":9223372036854775.800,\"dur\":0.007,\"args\":{\"device\":0,"
	"\"stream\":7,\"bytes\":1048576}},\n"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"step\",\"pid\":1,\"tid\":1,"
	"\"ts\":-9223372036854775.807,\"dur\":9223372036854775.807}\n"
	"]}\n";

#include "export/export.h"
#include "render/layout.h"
#include "render/plot.h"
#include "render/view.h"
#include "report/report.h"

/* fontconfig (under cairo) keeps caches it never frees: its leaks, not kgantt's, and not
 * worth a table of them after every test. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

TEST(extreme_times_analyse_report_export_and_draw)
{
	char path[] = "/tmp/kgantt-extreme-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, extreme_json, sizeof(extreme_json) - 1) == (ssize_t)sizeof(extreme_json) - 1);
	close(fd);
	struct kg_model m;
	struct kg_analysis a;
	char err[1024];
	/* the loader leaves such records out (issue 22); what follows must survive them all
	 * the same: a trace made only of them has nothing to tell them from */
	struct kg_load_opts keep = {.keep_untrue_times = 1};
	if (model_load(path, &m, &keep, err, sizeof(err)) != 0)
		fprintf(stderr, "    %s\n", err);
	CHECK_EQ_INT(m.n_ops, 4); /* k_no_dur is left out: no end */
	CHECK(analysis_run(&m, NULL, &a) == 0);
	/* sums saturate at INT64_MAX: never negative, never wrapped */
	for (uint32_t g = 0; g < a.n_gpus; g++) {
		CHECK(a.gpus[g].kernel_time > 0 && a.gpus[g].busy > 0);
		CHECK(a.gpus[g].copy_kernel_overlap >= 0);
	}
	for (uint32_t k = 0; k < a.n_kernels; k++)
		CHECK(a.kernels[k].total >= 0 && a.kernels[k].min >= 0);
	FILE *out = fopen("/dev/null", "w");
	CHECK(out != NULL);
	struct kg_report_opts ro = {.top = 0, .finding_sites = 3, .sites = 20};
	CHECK_EQ_INT(report_text(out, &a, &ro), 0);
	CHECK_EQ_INT(report_json(out, &a, &ro), 0);
	struct kg_export_opts eo = {.format = KG_EXPORT_PERFETTO};
	CHECK_EQ_INT(export_chrome(out, &m, &eo), 0);
	eo.format = KG_EXPORT_CSV;
	CHECK_EQ_INT(export_csv(out, &m, &eo), 0);
	struct kg_view_opts vo = {.trace_path = path, .tool_version = "test"};
	CHECK_EQ_INT(view_html(out, &a, &vo), 0);
	fclose(out);
	struct kg_layout_opts lo = {.t0 = m.begin, .t1 = m.end, .width = 1600, .label_width = 200,
				    .right_margin = 20, .device = -1, .host_lanes = 1};
	struct kg_layout l;
	CHECK(layout_build(&m, &lo, &l) == 0);
	struct kg_tick ticks[64];
	CHECK(layout_ticks(&l, m.begin, 12, ticks, 64) >= 0);
	for (uint32_t i = 0; i < m.n_ops; i++) {
		double x = layout_x(&l, m.ops[i].start);
		CHECK(x >= l.x0 - (l.x1 - l.x0) - 1 && x <= l.x1 + (l.x1 - l.x0) + 1);
	}
	layout_free(&l);
	char svg[64];
	snprintf(svg, sizeof(svg), "%s.svg", path);
	struct kg_plot_opts po = {.format = KG_PLOT_SVG, .t0 = m.begin, .t1 = m.end,
				  .origin = m.begin, .width = 800, .dpi = 96, .device = -1,
				  .host_lanes = 1};
	struct kg_plot_notes notes = {&a};
	CHECK(plot_render(&m, &notes, &po, svg, NULL, err, sizeof(err)) == 0);
	unlink(svg);
	analysis_free(&a);
	model_free(&m);
	unlink(path);
}
