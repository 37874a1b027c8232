/* kgantt pack: compacts kgantt traces (trace/packed.h): the kernels and API calls of a
 * trace written by an older kgantt, by another tool, or made rows again, into compressed
 * column blocks, their only copy; --drop makes them SQL rows again. */
#include <getopt.h> /* optind */
#include <stdio.h>

#include "cli/cli.h"
#include "trace/pack.h"

static const char *const usage_lines[] = {"pack [--drop] TRACE...", NULL};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Compacts each kgantt trace: its kernels and API calls become compressed\n"
		 "column blocks, their only copy (every column of every row kept), which\n"
		 "kgantt loads several times faster than SQL rows, in a file several times\n"
		 "smaller. For a trace written by an older kgantt or made rows again;\n"
		 "'kgantt record', 'import' and 'merge' write compacted traces already.\n"
		 "\n"
		 "Each TRACE is packed in a copy beside it that replaces it when complete\n"
		 "(room for a second copy is needed meanwhile): an interrupted pack leaves\n"
		 "the trace as it was. A symlink is followed; the link stays.\n",
};

static int pack_one(const char *path, int drop)
{
	char err[1024];
	if (trace_pack_file(path, drop, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

int cmd_pack(int argc, char **argv)
{
	int drop = 0;
	const struct cli_option opts[] = {
		OPT_BOOL(0, "drop", &drop,
			 "the other way: the kernels and API calls as SQL rows again, a plain trace "
			 "for the sqlite3 shell and older kgantt (larger)"),
		OPT_BOOL('q', "quiet", NULL, "print nothing but errors (the default on success)"),
		OPT_END(),
	};
	int c = cli_parse(&usage, opts, argc, argv);
	if (c >= 0)
		return c;
	if (optind >= argc)
		return cli_usage_error("no trace given");
	int rc = KG_EXIT_OK;
	for (int i = optind; i < argc; i++)
		if (pack_one(argv[i], drop) != KG_EXIT_OK)
			rc = KG_EXIT_FAILURE;
	return rc;
}
