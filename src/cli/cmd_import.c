/* kgantt import: build a trace from spools that 'kgantt record' could not convert itself
 * (record was killed, the recorder was injected by hand with CUDA_INJECTION64_PATH, or
 * spools gathered from several hosts). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <getopt.h> /* optind */

#include "cli/cli.h"
#include "trace/spool_import.h"

static void import_usage(FILE *f)
{
	fprintf(f, "usage: kgantt import [-f] -o FILE SPOOL...\n"
		   "\n"
		   "SPOOL is a spool directory (FILE.spool/ left by 'kgantt record', or the\n"
		   "kgantt-spool/ that the recorder writes when injected by hand) or a single\n"
		   "*.kgspool file. Every process found becomes part of one trace.\n"
		   "\n"
		   "  -o, --output FILE   trace to write; replaced if it exists, never one of the\n"
		   "                      SPOOLs (written beside it and renamed when complete)\n"
		   "      --force         accepted for older scripts; changes nothing\n"
		   "  -q, --quiet         print nothing but errors\n");
}

int cmd_import(int argc, char **argv)
{
	const char *output;
	int quiet;
	int rc = output_and_inputs(argc, argv, "import", "no spool to read", "an input spool",
				   import_usage, &output,
				   &quiet);
	if (rc >= 0)
		return rc;
	struct kg_import im;
	rc = import_begin(&im, output, "kgantt import");
	int total = 0;
	for (int i = optind; !rc && i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) < 0) {
			kg_err("cannot open '%s': %s", argv[i], strerror(errno));
			import_abort(&im);
			return KG_EXIT_FAILURE;
		}
		int n = 1;
		rc = S_ISDIR(sb.st_mode) ? import_spool_dir(&im, argv[i], &n)
					 : import_spool_file(&im, argv[i]);
		total += n;
	}
	if (!rc && total == 0) {
		kg_err("no *.kgspool file in %s", argv[optind]);
		import_abort(&im);
		return KG_EXIT_FAILURE;
	}
	if (rc) {
		kg_err("%s", im.err);
		import_abort(&im);
		return KG_EXIT_FAILURE;
	}
	size_t n = im.nprocs;
	if (import_commit(&im)) {
		kg_err("%s", im.err);
		return KG_EXIT_FAILURE;
	}
	if (!quiet)
		fprintf(stderr, "kgantt: wrote '%s' from %zu process spool%s\n", output, n,
			n == 1 ? "" : "s");
	return KG_EXIT_OK;
}
