/* kgantt dump: the raw rows of one trace table, as stored (uftrace dump's role). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/store.h"

static void dump_usage(FILE *f)
{
	fprintf(f, "usage: kgantt dump [--table NAME] [--limit N] TRACE\n"
		   "\n"
		   "Prints the rows of one table (default: kernels) as tab-separated values\n"
		   "with a header line. 'kgantt dump --table list TRACE' lists the tables and\n"
		   "views; docs/trace-format.md describes every column.\n");
}

/* Every row of the read as tab-separated text, after a header line of its columns'
 * names (none: the list of tables). */
static int print_rows(struct kg_store *s, struct kg_store_rows *it, int header)
{
	int n = store_columns(it), got;
	for (int i = 0; header && i < n; i++)
		printf("%s%c", store_column_name(it, i), i + 1 < n ? '\t' : '\n');
	while ((got = store_next(it, NULL)) == 1)
		for (int i = 0; i < n; i++) {
			const char *t = store_text(it, i);
			printf("%s%c", t ? t : "", i + 1 < n ? '\t' : '\n');
		}
	if (got < 0 && header)
		kg_err("%s", store_error(s));
	return got < 0 && header ? KG_EXIT_FAILURE : KG_EXIT_OK;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"table", required_argument, NULL, 't'},
		{"limit", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *table = "kernels";
	long limit = -1;
	int c;
	optind = 1;
	while ((c = cli_getopt("dump", argc, argv, "t:n:h", longopts)) != -1) {
		switch (c) {
		case 't': table = optarg; break;
		case 'n': {
			char *end;
			limit = strtol(optarg, &end, 10);
			if (*end || limit < 0) {
				kg_err("--limit: '%s' is not a count", optarg);
				return KG_EXIT_USAGE;
			}
			break;
		}
		case 'h': dump_usage(stdout); return finish_stdout(KG_EXIT_OK);
		default: return KG_EXIT_USAGE; /* cli_getopt said why */
		}
	}
	if (optind + 1 != argc) {
		dump_usage(stderr);
		return KG_EXIT_USAGE;
	}
	struct kg_store *s;
	struct kg_store_rows *it = NULL;
	char err[1024];
	if (store_open(argv[optind], &s, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	int list = !strcmp(table, "list");
	int rc = list ? store_read_names(s, &it) : store_read_any(s, table, limit, &it);
	if (rc < 0)
		kg_err("%s", store_error(s));
	else
		rc = print_rows(s, it, !list);
	store_done(it);
	store_close(s);
	return rc < 0 ? KG_EXIT_FAILURE : finish_stdout(rc);
}
