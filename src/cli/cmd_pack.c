/* kgantt pack: compacts kgantt traces (trace/packed.h): the kernels and API calls of a
 * trace written by an older kgantt, by another tool, or made rows again, into compressed
 * column blocks, their only copy; --drop makes them SQL rows again. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "trace/pack.h"

static void pack_usage(FILE *f)
{
	fprintf(f, "usage: kgantt pack [--drop] TRACE...\n"
		   "\n"
		   "Compacts each kgantt trace: its kernels and API calls become compressed\n"
		   "column blocks, their only copy (every column of every row kept), which\n"
		   "kgantt loads several times faster than SQL rows, in a file several times\n"
		   "smaller. For a trace written by an older kgantt or made rows again;\n"
		   "'kgantt record', 'import' and 'merge' write compacted traces already.\n"
		   "\n"
		   "Each TRACE is packed in a copy beside it that replaces it when complete\n"
		   "(room for a second copy is needed meanwhile): an interrupted pack leaves\n"
		   "the trace as it was. A symlink is followed; the link stays.\n"
		   "\n"
		   "  --drop   the other way: the kernels and API calls as SQL rows again, a\n"
		   "           plain trace for the sqlite3 shell and older kgantt (larger)\n"
		   "  -q       print nothing but errors (the default on success)\n");
}

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
	static const struct option longopts[] = {
		{"drop", no_argument, NULL, 'd'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int drop = 0, c;
	optind = 1;
	while ((c = cli_getopt("pack", argc, argv, "hq", longopts)) != -1) {
		switch (c) {
		case 'd': drop = 1; break;
		case 'q': break; /* pack says nothing on success: accepted, as by every command */
		case 'h': pack_usage(stdout); return finish_stdout(KG_EXIT_OK);
		default: return KG_EXIT_USAGE; /* cli_getopt said why */
		}
	}
	if (optind >= argc) {
		kg_err("pack: no trace given");
		pack_usage(stderr);
		return KG_EXIT_USAGE;
	}
	int rc = KG_EXIT_OK;
	for (int i = optind; i < argc; i++)
		if (pack_one(argv[i], drop) != KG_EXIT_OK)
			rc = KG_EXIT_FAILURE;
	return rc;
}
