/* libFuzzer target: kgantt merge of two kgantt traces (trace/merge.c). The input is cut
 * into two traces (fuzz_traces.h: SQLite files or SQL on an empty trace; a JSON piece is
 * refused as merge refuses it); the merge writes a trace, or refuses with a message; the
 * merge of two traces that load must load; then everything that runs
 * on a loaded model (fuzz_pipeline.h), every figure checked. Clocks of several hosts are
 * put on one through the processes' realtime offsets: extreme offsets are the point. */
#include <errno.h>
#include <stdint.h>

#include "fuzz_pipeline.h"
#include "fuzz_traces.h"
#include "trace/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_target = "fuzz_merge";
	struct fuzz_piece p[2];
	if (fuzz_pieces(data, size, p, 2) < 2)
		return 0;
	char in[2][PATH_MAX + 64], out[PATH_MAX + 64], err[1024] = "";
	int loads = 1;
	for (int i = 0; i < 2; i++) {
		if (!fuzz_trace_file(&p[i], i, in[i], sizeof(in[i])))
			return 0;
		loads &= fuzz_load(fuzz_target, in[i], NULL, NULL) == 0;
	}
	const char *inputs[] = {in[0], in[1]};
	struct kg_merge_stats st;
	fuzz_path("merged.kgt", out, sizeof(out));
	if (trace_merge(out, inputs, 2, &st, err, sizeof(err)) < 0) {
		if (!err[0])
			fuzz_fail("merge failed without a message");
		return 0;
	}
	struct kg_model m;
	int rc = fuzz_load(fuzz_target, out, NULL, &m);
	if (rc != 0) {
		/* what merge writes of traces that load, loads; unless the two lie further apart
		 * than any recording (model/load.c: refused, said) */
		if (loads && rc != -ERANGE) {
			fprintf(stderr, "fuzz_merge: two traces load, their merge does not\n");
			abort();
		}
		return 0;
	}
	fuzz_pipeline(&m, data, size, 0);
	fuzz_round_trip(&m);
	model_free(&m);
	return 0;
}
