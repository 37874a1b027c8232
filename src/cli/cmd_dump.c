/* kgantt dump: the raw rows of one trace table, as stored (uftrace dump's role). */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/store.h"

static const char *const usage_lines[] = {"dump [--table NAME] [--limit N] TRACE", NULL};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Prints the rows of one table (default: kernels) as tab-separated values\n"
		 "with a header line. 'kgantt dump --table list TRACE' lists the tables and\n"
		 "views; docs/trace-format.md describes every column.\n",
};

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
	const char *table = "kernels";
	int max_rows = -1;
	const struct cli_option opts[] = {
		OPT_STRING('t', "table", &table, "NAME",
			   "the table or view (default: kernels); list: their names"),
		OPT_COUNT('n', "limit", &max_rows, "N", 2000000000, "at most N rows"),
		OPT_END(),
	};
	int c = cli_parse(&usage, opts, argc, argv);
	if (c >= 0)
		return c;
	if (optind + 1 != argc)
		return cli_usage_error(optind == argc ? "no trace given" : "one trace at a time");
	long limit = max_rows;
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
