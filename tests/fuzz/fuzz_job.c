/* libFuzzer target: a job of several traces (kgantt report/plot/view of a folder). The
 * input is cut into up to four traces (fuzz_traces.h: kgantt traces as files or SQL,
 * PyTorch profiler JSON); each that loads is analysed and reduced to its ranks
 * (job_rank_summaries), which go through the wire as MPI sends them (fuzz_jobs.h); then
 * the job is analysed, reported as text and JSON (every figure checked), written as its
 * page and, for half the inputs, drawn: the two-trace chart that hung on the -O2 build
 * (issue 22) is here. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_jobs.h"
#include "fuzz_traces.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_target = "fuzz_job";
	struct fuzz_piece p[FUZZ_MAX_PIECES];
	int n = fuzz_pieces(data, size, p, FUZZ_MAX_PIECES);
	struct kg_rank *ranks = NULL;
	uint32_t n_ranks = 0, files = 0;
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX + 64];
		struct kg_model m;
		if (!fuzz_trace_file(&p[i], i, path, sizeof(path)) ||
		    fuzz_load(fuzz_target, path, NULL, &m) != 0)
			continue;
		files++;
		struct kg_analysis a;
		uint32_t before = n_ranks;
		if (analysis_run(&m, NULL, &a) == 0) {
			/* out of memory: the ranks made so far are whole */
			job_rank_summaries(&a, path, NULL, &ranks, &n_ranks);
			analysis_free(&a);
		}
		model_free(&m);
		for (uint32_t r = before; r < n_ranks; r++)
			fuzz_wire_trip(&ranks[r]); /* out of memory: r stays as it was */
	}
	fuzz_job_outputs(ranks, n_ranks, files, size && data[size / 2] % 2 == 0);
	return 0;
}
