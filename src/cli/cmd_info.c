/* kgantt info: what a trace holds, at a glance: where it came from, its processes and
 * devices, how many records of each kind, and what was lost. */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "trace/packed.h"
#include "trace/trace_db.h"
#include "util/hw_figures.h"

static const char *trace_path;
static int read_failed;

/* A damaged trace shows up as a failing query: say so once, and fail at the end. */
static void query_failed(sqlite3 *db)
{
	if (!read_failed++)
		kg_err("cannot read '%s': %s", trace_path, sqlite3_errmsg(db));
}

static long long scalar(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return 0;
	}
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		query_failed(db);
	sqlite3_finalize(st);
	return v;
}

/* Steps a statement; a step that neither returns a row nor ends is a read error. */
static int next_row(sqlite3 *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		query_failed(db);
	return rc == SQLITE_ROW;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : "-";
}

/* ------------------------------------------------------------------ the kernels */

/* The kernels' count by process and their span: from the rows, or from the blocks of a
 * compacted trace (format 5), which hold its only copy of them and decode in a tenth of
 * the time SQL takes to step through as many rows. */
struct kernel_facts {
	long long *process, *count; /* the processes table's numbers, sorted; their kernels */
	size_t n;
	long long first, last;      /* the earliest start, the latest end; first > last: none */
};

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return (x > y) - (x < y);
}

static void count_kernels(struct kernel_facts *f, long long process, long long n)
{
	long long *at = f->n ? bsearch(&process, f->process, f->n, sizeof(*at), cmp_ll) : NULL;
	if (at)
		f->count[at - f->process] += n;
}

static void facts_from_rows(sqlite3 *db, struct kernel_facts *f)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT process, COUNT(*) FROM kernels GROUP BY process", -1,
			       &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return;
	}
	while (next_row(db, st))
		count_kernels(f, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
	sqlite3_finalize(st);
	f->first = scalar(db, "SELECT COALESCE(MIN(start), 1) FROM kernels");
	f->last = scalar(db, "SELECT COALESCE(MAX(end), 0) FROM kernels");
}

enum { K_PROCESS = 0, K_START = 6, K_END = 7 }; /* block order (trace/packed.c) */

static int facts_from_block(struct kernel_facts *f, sqlite3_stmt *st)
{
	struct kg_packed_block b;
	struct kg_row row;
	int64_t rows = sqlite3_column_int64(st, 1);
	int got = -1;
	if (rows < 1 || rows > KG_PACKED_BLOCK ||
	    packed_block_open(&b, sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2),
			      K_END + 1, (uint32_t)rows) < 0)
		return -1;
	while ((got = packed_block_row(&b, &row)) == 1) {
		if (!row_is_null(&row, K_PROCESS))
			count_kernels(f, row.v[K_PROCESS], 1);
		if (!row_is_null(&row, K_START) && row.v[K_START] < f->first)
			f->first = row.v[K_START];
		if (!row_is_null(&row, K_END) && row.v[K_END] > f->last)
			f->last = row.v[K_END];
	}
	packed_block_close(&b);
	return got;
}

static void facts_from_blocks(sqlite3 *db, struct kernel_facts *f)
{
	sqlite3_stmt *st;
	f->first = INT64_MAX;
	f->last = INT64_MIN;
	if (sqlite3_prepare_v2(db, "SELECT first_id, rows, data FROM packed WHERE tbl = 'kernels'",
			       -1, &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return;
	}
	while (next_row(db, st))
		if (facts_from_block(f, st) < 0 && !read_failed++) {
			kg_err("cannot read '%s': the packed kernels block at id %lld is damaged",
			       trace_path, sqlite3_column_int64(st, 0));
			break;
		}
	sqlite3_finalize(st);
}

static void kernel_facts(sqlite3 *db, struct kernel_facts *f)
{
	size_t cap = (size_t)scalar(db, "SELECT COUNT(*) FROM processes");
	f->process = calloc(cap + 1, sizeof(*f->process));
	f->count = calloc(cap + 1, sizeof(*f->count));
	sqlite3_stmt *st;
	if (f->process && f->count &&
	    sqlite3_prepare_v2(db, "SELECT process FROM processes ORDER BY process", -1, &st,
			       NULL) == SQLITE_OK) {
		while (f->n < cap && next_row(db, st))
			f->process[f->n++] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (packed_only(db) == 1)
		facts_from_blocks(db, f);
	else
		facts_from_rows(db, f);
}

static long long kernels_of(const struct kernel_facts *f, long long process)
{
	long long *at = f->n ? bsearch(&process, f->process, f->n, sizeof(*at), cmp_ll) : NULL;
	return at ? f->count[at - f->process] : 0;
}

/* ------------------------------------------------------------------ the rest */

static void print_processes(sqlite3 *db, const struct kernel_facts *f)
{
	sqlite3_stmt *st;
	const char *sql =
		"SELECT process, pid, ppid, host, rank, mode, complete, exit_status, "
		"dropped_records, incomplete_records, (end_ns - start_ns) / 1e6, cmdline, spool_note "
		"FROM processes p ORDER BY process";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return;
	}
	printf("processes:\n");
	while (next_row(db, st)) {
		printf("  #%lld pid %lld (parent %lld) on %s%s%s: %s mode, %lld kernels, %.1f ms, %s, "
		       "exit: %s\n",
		       sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		       sqlite3_column_int64(st, 2), col_text(st, 3),
		       sqlite3_column_type(st, 4) == SQLITE_NULL ? "" : ", rank ",
		       sqlite3_column_type(st, 4) == SQLITE_NULL ? "" : col_text(st, 4),
		       col_text(st, 5), kernels_of(f, sqlite3_column_int64(st, 0)),
		       sqlite3_column_double(st, 10),
		       sqlite3_column_int(st, 6) ? "complete" : "INCOMPLETE", col_text(st, 7));
		printf("     %s\n", col_text(st, 11));
		if (sqlite3_column_int64(st, 8))
			printf("     dropped records: %lld\n", sqlite3_column_int64(st, 8));
		if (sqlite3_column_int64(st, 9))
			printf("     records with a missing timestamp: %lld\n",
			       sqlite3_column_int64(st, 9));
		if (sqlite3_column_type(st, 12) != SQLITE_NULL)
			printf("     note: %s\n", col_text(st, 12));
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db,
			       "SELECT m.process, p.pid, m.level, m.text FROM messages m JOIN "
			       "processes p USING(process) WHERE m.level != 'info' OR m.text LIKE "
			       "'API calls not recorded%' OR m.text LIKE 'this CUPTI cannot%'",
			       -1, &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return;
	}
	while (next_row(db, st))
		printf("  pid %lld %s: %s\n", sqlite3_column_int64(st, 1), col_text(st, 2),
		       col_text(st, 3));
	sqlite3_finalize(st);
}

/* How the stacks were taken and what they hold; nothing for a trace without them. */
static void print_stacks(sqlite3 *db)
{
	if (!scalar(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND "
			"name = 'stack_settings'"))
		return; /* a trace older than format 3 */
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT mode, launch_first, launch_every, max_depth, python FROM "
			       "stack_settings ORDER BY process LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return;
	}
	if (next_row(db, st)) {
		char a[32], b[32], c[32], d[32];
		printf("stacks: --stacks %s (launches: first %lld of each kernel, then 1 in %lld; "
		       "%lld native frames at most); %s calls with a stack, %s distinct stacks, "
		       "%s frames, %s partial\n",
		       col_text(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
		       sqlite3_column_int64(st, 3),
		       fmt_count((unsigned long long)scalar(db, "SELECT COUNT(*) FROM api_stacks"), a),
		       fmt_count((unsigned long long)scalar(db, "SELECT COUNT(*) FROM stacks"), b),
		       fmt_count((unsigned long long)scalar(db, "SELECT COUNT(*) FROM stack_frames"), c),
		       fmt_count((unsigned long long)scalar(db, "SELECT COUNT(*) FROM stacks WHERE "
								"flags & 1"),
				 d));
		printf("  python: %s\n", col_text(st, 4));
	}
	sqlite3_finalize(st);
}

static void print_devices(sqlite3 *db)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT DISTINCT device, name, cc_major, cc_minor, sm_count, "
			  "memory_bytes / 1073741824.0, uuid FROM devices ORDER BY device";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return;
	}
	printf("devices:\n");
	while (next_row(db, st))
		printf("  %lld: %s, sm_%d%d, %d SMs, %.0f GiB, GPU-%s\n", sqlite3_column_int64(st, 0),
		       col_text(st, 1), sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
		       sqlite3_column_int(st, 4), sqlite3_column_double(st, 5), col_text(st, 6));
	sqlite3_finalize(st);
}

/* The figures device (process, device) has samples of, by label: ", SM active, ...". */
static void hw_figures_taken(sqlite3 *db, long long process, long long device, char *out,
			     size_t len)
{
	char sql[1024];
	int n = snprintf(sql, sizeof(sql), "SELECT 0");
#define KG_HW_COUNT_(id, column, unit, label) \
	n += snprintf(sql + n, sizeof(sql) - (size_t)n, ", COUNT(" #column ")");
	KG_HW_FIGURES(KG_HW_COUNT_)
#undef KG_HW_COUNT_
	snprintf(sql + n, sizeof(sql) - (size_t)n, " FROM hw_samples WHERE process = ?1 AND "
		 "device = ?2");
	out[0] = '\0';
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return;
	}
	sqlite3_bind_int64(st, 1, process);
	sqlite3_bind_int64(st, 2, device);
	size_t k = 0;
	if (next_row(db, st))
		for (int f = 0; f < KG_HW_N; f++)
			if (sqlite3_column_int64(st, 1 + f) > 0 && k < len)
				k += (size_t)snprintf(out + k, len - k, ", %s", kg_hw_figure_info[f].label);
	sqlite3_finalize(st);
}

/* "every 100 µs" */
static const char *interval_text(long long ns, char buf[32])
{
	if (ns <= 0)
		snprintf(buf, 32, "interval unknown");
	else if (ns < 1000)
		snprintf(buf, 32, "every %lld ns", ns);
	else if (ns < 1000000)
		snprintf(buf, 32, "every %g µs", ns / 1e3);
	else
		snprintf(buf, 32, "every %g ms", ns / 1e6);
	return buf;
}

/* A line per device that sampled its hardware counters (record --hw), or why it did not;
 * nothing for a trace without the tables. */
static void print_hw(sqlite3 *db)
{
	if (!scalar(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND "
			"name = 'hw_devices'"))
		return;
	char why[256];
	/* a compacted trace's samples as rows (a few per millisecond: quick) */
	if (packed_expand(db, "main", "temp", "hw_samples", why, sizeof(why)) < 0) {
		if (!read_failed++)
			kg_err("cannot read '%s': %s", trace_path, why);
		return;
	}
	int many = scalar(db, "SELECT COUNT(DISTINCT process) FROM hw_devices") > 1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT h.process, h.device, h.chip, h.state, h.note, h.interval_ns, "
			       "h.lost_samples, (SELECT COUNT(*) FROM hw_samples s WHERE "
			       "s.process = h.process AND s.device = h.device), (SELECT pid FROM "
			       "processes p WHERE p.process = h.process) FROM hw_devices h "
			       "ORDER BY 1, 2",
			       -1, &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return;
	}
	while (next_row(db, st)) {
		char who[64], chip[96] = "", iv[32], n[32], figs[512];
		long long p = sqlite3_column_int64(st, 0), d = sqlite3_column_int64(st, 1);
		const char *state = col_text(st, 3);
		if (many) /* devices are numbered per process */
			snprintf(who, sizeof(who), "pid %lld device %lld", sqlite3_column_int64(st, 8), d);
		else
			snprintf(who, sizeof(who), "device %lld", d);
		if (!strcmp(state, "refused")) {
			printf("hardware samples: %s refused: %s\n", who, col_text(st, 4));
			continue;
		}
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			snprintf(chip, sizeof(chip), " (%s)", col_text(st, 2));
		hw_figures_taken(db, p, d, figs, sizeof(figs));
		long long samples = sqlite3_column_int64(st, 7);
		printf("hardware samples: %s%s %s: %s sample%s%s (lost %lld)", who, chip,
		       interval_text(sqlite3_column_int64(st, 5), iv),
		       fmt_count((unsigned long long)samples, n), samples == 1 ? "" : "s", figs,
		       sqlite3_column_int64(st, 6));
		if (strcmp(state, "sampled"))
			printf("; %s: %s", state, col_text(st, 4));
		printf("\n");
	}
	sqlite3_finalize(st);
}

/* SM placement (record --sm): a line per process and device that logged blocks; nothing
 * for a trace without the table. */
static void print_sm(sqlite3 *db)
{
	if (!scalar(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND "
			"name = 'sm_settings'"))
		return;
	char why[256];
	/* blocks are counted by their kernels' device: a compacted trace's kernels as rows */
	if (scalar(db, "SELECT COUNT(*) FROM sm_settings") &&
	    packed_expand(db, "main", "temp", "kernels", why, sizeof(why)) < 0) {
		if (!read_failed++)
			kg_err("cannot read '%s': %s", trace_path, why);
		return;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT s.device, s.blocks, s.kernels, s.dropped, s.unmatched, "
			       "s.own_records, s.offset_mad_ns, s.offset_spread_ns, p.pid, "
			       "(SELECT COUNT(DISTINCT b.sm) FROM sm_blocks b JOIN kernels k ON "
			       "k.id = b.kernel WHERE k.process = s.process AND k.device = s.device) "
			       "FROM sm_settings s JOIN processes p USING(process) ORDER BY s.process, "
			       "s.device",
			       -1, &st, NULL) != SQLITE_OK) {
		query_failed(db);
		return;
	}
	while (next_row(db, st)) {
		char b[32], k[32], d[32], u[32], align[96] = "clock not aligned (no kernel start)";
		if (sqlite3_column_type(st, 6) != SQLITE_NULL)
			snprintf(align, sizeof(align), "block times ±%lld ns (offsets spread %lld ns)",
				 sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 7));
		printf("SM placement: pid %lld device %lld: %s blocks of %s kernels on %lld SMs, %s "
		       "dropped (log full), %s matching no kernel, %s; %lld recorder records left "
		       "out\n",
		       sqlite3_column_int64(st, 8), sqlite3_column_int64(st, 0),
		       fmt_count((unsigned long long)sqlite3_column_int64(st, 1), b),
		       fmt_count((unsigned long long)sqlite3_column_int64(st, 2), k),
		       sqlite3_column_int64(st, 9),
		       fmt_count((unsigned long long)sqlite3_column_int64(st, 3), d),
		       fmt_count((unsigned long long)sqlite3_column_int64(st, 4), u), align,
		       sqlite3_column_int64(st, 5));
	}
	sqlite3_finalize(st);
}

/* Which tables load from packed columns (trace/packed.h), and which from their rows. */
static void print_packed(sqlite3 *db)
{
	int all = 1;
	printf("packed:");
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++) {
		int64_t rows;
		int usable = packed_usable(db, t->name, &rows);
		all &= usable;
		printf(" %s %s%s", t->name, usable ? "yes" : "no", t[1].name ? "," : "");
	}
	printf("%s\n", packed_only(db) == 1 ? " (their only copy: 'kgantt export -f sqlite' writes "
					      "them as rows)"
		       : all ? ""
			     : " (kgantt pack makes them: a smaller file, faster loading)");
}

/* Rows of a table; of a packed table, however it is stored. */
static long long table_rows(sqlite3 *db, const char *table)
{
	char sql[128];
	int64_t rows;
	if (packed_table(table)) {
		if (packed_usable(db, table, &rows) || packed_only(db) != 1)
			return rows;
		query_failed(db);
		return 0;
	}
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s", table);
	return scalar(db, sql);
}

int cmd_info(int argc, char **argv)
{
	static const char *const usage_lines[] = {"info TRACE", NULL};
	static const struct cli_usage usage = {
		.usage = usage_lines,
		.about = "Says what a trace holds: where it came from, its processes and devices,\n"
			 "how many records of each kind, and what was lost.\n",
	};
	const struct cli_option opts[] = {OPT_END()};
	int c = cli_parse(&usage, opts, argc, argv);
	if (c >= 0)
		return c;
	if (optind + 1 != argc)
		return cli_usage_error(optind == argc ? "no trace given" : "one trace at a time");
	argv += optind - 1; /* argv[1]: the trace */
	sqlite3 *db;
	char err[1024], buf[4096];
	if (trace_db_open(argv[1], &db, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	trace_path = argv[1];
	printf("trace: %s\n", argv[1]);
	trace_db_meta(db, "version", buf, sizeof(buf));
	printf("format: kgantt-trace version %s", buf);
	trace_db_meta(db, "created_by", buf, sizeof(buf));
	printf(", written by %s", buf);
	trace_db_meta(db, "created_at", buf, sizeof(buf));
	printf(" at %s\n", buf);
	trace_db_meta(db, "command", buf, sizeof(buf));
	printf("command: %s\n", buf);
	struct kernel_facts facts = {0};
	kernel_facts(db, &facts);
	double span = facts.last > facts.first ? (double)facts.last - (double)facts.first : 0;
	printf("kernel span: %.3f ms\n", span / 1e6);
	print_processes(db, &facts);
	free(facts.process);
	free(facts.count);
	print_devices(db);
	print_hw(db);
	static const char *const tables[] = {"kernels", "memcpys", "memsets", "syncs", "api_calls",
					     "nvtx", "streams", "overheads"};
	printf("records:");
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		char n[32];
		printf(" %s %s%s", tables[i], fmt_count((unsigned long long)table_rows(db, tables[i]), n),
		       i + 1 < sizeof(tables) / sizeof(tables[0]) ? "," : "\n");
	}
	print_packed(db);
	print_stacks(db);
	print_sm(db);
	sqlite3_close(db);
	return finish_stdout(read_failed ? KG_EXIT_FAILURE : KG_EXIT_OK);
}
