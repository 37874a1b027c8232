/* libFuzzer target: kgantt diff BEFORE AFTER. The input is cut into two traces
 * (fuzz_traces.h: kgantt traces as files or SQL, PyTorch profiler JSON); both that load
 * are analysed, compared (diff_compute) and the diff written as text and JSON, every
 * figure checked (fuzz_figures.h: the "+92233720368547648 %"). */
#include <stdint.h>

#include "fuzz_pipeline.h"
#include "fuzz_traces.h"

/* Trace i of the input loaded and analysed into *m, *a: 0, or -1 (nothing to free). */
static int load_one(const struct fuzz_piece *p, int i, struct kg_model *m, struct kg_analysis *a)
{
	char path[PATH_MAX + 64];
	if (!fuzz_trace_file(p, i, path, sizeof(path)) || fuzz_load(fuzz_target, path, NULL, m))
		return -1;
	if (analysis_run(m, NULL, a) == 0)
		return 0;
	model_free(m);
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_target = "fuzz_diff";
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	struct fuzz_piece p[2];
	if (fuzz_pieces(data, size, p, 2) < 2)
		return 0;
	struct kg_model m[2];
	struct kg_analysis a[2];
	if (load_one(&p[0], 0, &m[0], &a[0]) < 0)
		return 0;
	if (load_one(&p[1], 1, &m[1], &a[1]) == 0) {
		fuzz_diff(&a[0], &a[1]);
		analysis_free(&a[1]);
		model_free(&m[1]);
	}
	analysis_free(&a[0]);
	model_free(&m[0]);
	return 0;
}
