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

static const char *const usage_lines[] = {"import -o FILE [options] SPOOL...", NULL};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "SPOOL is a spool directory (FILE.spool/ left by 'kgantt record', or the\n"
		 "kgantt-spool/ that the recorder writes when injected by hand) or a single\n"
		 "*.kgspool file. Every process found becomes part of one trace.\n",
};

int cmd_import(int argc, char **argv)
{
	const char *output = NULL;
	int quiet = 0;
	const struct cli_option opts[] = {
		CLI_OUTPUT_OPTIONS(&output, &quiet, "SPOOLs"),
		OPT_END(),
	};
	int rc = cli_parse(&usage, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if ((rc = output_and_inputs(output, argc, argv, "no spool to read", "an input spool")))
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
