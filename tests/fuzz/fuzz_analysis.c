/* libFuzzer target: everything that runs on a loaded model (fuzz_pipeline.h, in full).
 * The input is a trace: Kineto JSON mutates best, but any format model_load detects is
 * taken. */
#include <stdint.h>

#include "fuzz_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_target = "fuzz_analysis";
	char path[PATH_MAX + 64];
	fuzz_write("in.json", data, size, path, sizeof(path));
	struct kg_model m;
	if (fuzz_load(fuzz_target, path, NULL, &m) != 0)
		return 0;
	fuzz_pipeline(&m, data, size, 1);
	model_free(&m);
	return 0;
}
