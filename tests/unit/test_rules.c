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
		for (uint32_t i = 0; i < a.n_findings; i++)
			fprintf(stderr, "    %s: %s %.1f%% %s\n", name, a.findings[i].rule,
				a.findings[i].gain_pct, a.findings[i].title);
	for (uint32_t i = 0; i < a.n_findings; i++)
		if (!strcmp(a.findings[i].rule, rule)) {
			if (gain_pct)
				*gain_pct = a.findings[i].gain_pct;
			return &a.findings[i];
		}
	return NULL;
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
	CHECK(f->fix[0] && f->explanation[0] && f->gain_how[0]);
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
		for (uint32_t i = 0; i < a.n_findings; i++)
			*n_severe += a.findings[i].severity >= KG_SEV_WARNING;
	}
	for (uint32_t i = 0; i < a.n_findings; i++)
		if (!strcmp(a.findings[i].rule, rule))
			return &a.findings[i];
	return NULL;
}

TEST(torch_pageable_item_syncs_every_step)
{
	const struct kg_finding *f =
		find_in("tests/fixtures/torch/torch_pageable_item.json.gz", NULL, "host-sync-stall", NULL);
	CHECK(f && f->gain_pct > 20);
	CHECK(find_in("tests/fixtures/torch/torch_pageable_item.json.gz", NULL,
		      "copy-compute-overlap", NULL));
	f = find_in(fixture("torch_pageable_item"), "step", "host-sync-stall", NULL);
	CHECK(f && f->gain_pct > 20);
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
	for (uint32_t i = 0; i < a.n_findings; i++) {
		const struct kg_finding *f = &a.findings[i];
		if (strcmp(f->rule, "low-occupancy") && strcmp(f->rule, "under-filled-grid"))
			continue;
		seen++;
		CHECK(strstr(f->fix, "cuBLAS") || strstr(f->fix, "PyTorch (ATen)"));
		CHECK(!strstr(f->fix, "threads per block"));
	}
	CHECK_EQ_INT(seen, 2);
	analysis_free(&a);
	model_free(&m);
}
