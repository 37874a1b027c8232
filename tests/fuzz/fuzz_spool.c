/* libFuzzer target: the raw spool importer (trace/spool_import.c, stack_import.c), as
 * 'kgantt import' runs it: the input is one process's spool file, imported into a new
 * trace, which is then loaded like any trace, analysed and written out (fuzz_pipeline.h).
 * A spool that is refused must say why; a trace the importer wrote must load. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_pipeline.h"
#include "model/load.h"
#include "trace/spool_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spool[PATH_MAX + 64], trace[PATH_MAX + 64];
	fuzz_write("in.kgspool", data, size, spool, sizeof(spool));
	fuzz_path("out.kgt", trace, sizeof(trace));
	static struct kg_import im; /* 10 KB of paths and messages: not on the stack */
	int rc = import_begin(&im, trace, "kgantt import");
	if (rc == 0) {
		rc = import_spool_file(&im, spool);
		if (rc == 0)
			rc = import_commit(&im);
		else
			import_abort(&im);
	}
	if (rc) {
		fuzz_say("fuzz_spool", rc, im.err);
		if (!im.err[0]) {
			fprintf(stderr, "fuzz_spool: import failed (%d) with an empty message\n", rc);
			abort();
		}
		return 0;
	}
	/* what the importer wrote, the reader must read */
	struct kg_model m;
	rc = fuzz_load("fuzz_spool", trace, NULL, &m);
	if (rc == -ERANGE) /* records no one recording spans (model/load.c): refused, said */
		return 0;
	if (rc != 0) {
		fprintf(stderr, "fuzz_spool: the imported trace does not load\n");
		abort();
	}
	fuzz_target = "fuzz_spool";
	fuzz_pipeline(&m, data, size, 0);
	model_free(&m);
	return 0;
}
