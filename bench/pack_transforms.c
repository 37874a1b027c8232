/* Which of the packed blocks' transforms pay, and at which zstd level (bench/README.md,
 * "Trace-size benchmark"): the kernels and API calls of traces of SQL rows (any format;
 * `kgantt pack --drop` makes a compacted trace rows) encoded with kgantt's writer
 * (trace/packed.h) under variants of kgantt's own column table, with the bytes of the
 * blocks and the time to encode and to decode them.
 *
 *   build/bench/pack_transforms [-n RUNS] TRACE...     (make bench-pack) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace/packed.h"

struct variant {
	const char *what;
	int level;
	/* changes kgantt's column table */
	void (*change)(struct kg_packed_column *c, int n, const char *table);
};

static int col(const struct kg_packed_column *c, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return i;
	return -1;
}

/* each column minus its previous value: what format 2-4's blocks did */
static void all_delta(struct kg_packed_column *c, int n, const char *table)
{
	for (int i = 0; i < n; i++)
		c[i].base = -1, c[i].prev = (int8_t)i;
}

/* end, queued, submitted minus their previous value, not minus the row's start */
static void times_not_from_start(struct kg_packed_column *c, int n, const char *table)
{
	static const char *const t[] = {"end", "queued", "submitted"};
	for (int i = 0; i < 3; i++) {
		int k = col(c, n, t[i]);
		if (k >= 0)
			c[k].base = -1, c[k].prev = (int8_t)k;
	}
}

/* start minus the previous start, not minus the previous end */
static void start_from_start(struct kg_packed_column *c, int n, const char *table)
{
	int k = col(c, n, "start");
	c[k].prev = (int8_t)k;
}

/* codes, names, sizes minus their previous value instead of as they are */
static void codes_as_deltas(struct kg_packed_column *c, int n, const char *table)
{
	for (int i = 0; i < n; i++)
		if (c[i].base < 0 && c[i].prev < 0)
			c[i].prev = (int8_t)i;
}

static const struct variant variants[] = {
    {"kgantt's (level 9)", 9, NULL},
    {"each column minus its previous value (format 2-4's)", 9, all_delta},
    {"end, queued, submitted not minus the start", 9, times_not_from_start},
    {"start minus the previous start, not the previous end", 9, start_from_start},
    {"codes, names and sizes as deltas", 9, codes_as_deltas},
    {"kgantt's, level 1", 1, NULL},
    {"kgantt's, level 3", 3, NULL},
    {"kgantt's, level 6", 6, NULL},
    {"kgantt's, level 12", 12, NULL},
    {"kgantt's, level 19", 19, NULL},
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

/* A table's rows, in id order, every stored column. */
struct rows {
	struct kg_row *r;
	size_t n;
};

static int read_rows(sqlite3 *db, const struct kg_packed_table *t, struct rows *out)
{
	char sql[2048];
	size_t len = (size_t)snprintf(sql, sizeof(sql), "SELECT ");
	for (int c = 0; c < t->nstored; c++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s%s", c ? ", " : "",
					t->stored[c].name);
	snprintf(sql + len, sizeof(sql) - len, " FROM %s ORDER BY id", t->name);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr,
			"pack_transforms: %s (a trace of rows is needed: kgantt pack --drop)\n",
			sqlite3_errmsg(db));
		return -1;
	}
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (out->n == cap) {
			cap = cap ? cap * 2 : 65536;
			struct kg_row *r = realloc(out->r, cap * sizeof(*r));
			if (!r)
				return -1;
			out->r = r;
		}
		row_from_stmt(&out->r[out->n++], st, t->nstored);
	}
	sqlite3_finalize(st);
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct result {
	size_t bytes;
	double encode_s, decode_s;
};

/* One variant over one table: the blocks' bytes, the median encode and decode times. */
static int measure(const struct kg_packed_table *t, const struct rows *rows,
		   const struct variant *v, int runs, struct result *res)
{
	struct kg_packed_column c[KG_PACKED_MAX_COLUMNS];
	memcpy(c, t->stored, (size_t)t->nstored * sizeof(c[0]));
	if (v->change)
		v->change(c, t->nstored, t->name);
	struct kg_packed_writer *w = packed_writer_new(t->nstored, c);
	if (!w)
		return -1;
	packed_writer_level(w, v->level);
	double enc[16], dec[16];
	for (int run = 0; run < runs; run++) {
		double t0 = now(), spent_decoding = 0;
		res->bytes = 0;
		for (size_t at = 0; at < rows->n; at += KG_PACKED_BLOCK) {
			size_t n = rows->n - at < KG_PACKED_BLOCK ? rows->n - at : KG_PACKED_BLOCK;
			packed_writer_reset(w);
			for (size_t i = 0; i < n; i++)
				packed_writer_add(w, &rows->r[at + i]);
			const void *data;
			size_t len;
			if (packed_writer_finish(w, &data, &len) < 0)
				return -1;
			res->bytes += len;
			double d0 = now();
			struct kg_packed_block b;
			struct kg_row row;
			if (packed_block_open(&b, data, len, t->nstored, (uint32_t)n) < 0)
				return -1;
			for (size_t i = 0; i < n; i++)
				if (packed_block_row(&b, &row) != 1 ||
				    row.nulls != rows->r[at + i].nulls ||
				    memcmp(row.v, rows->r[at + i].v,
					   sizeof(row.v[0]) * (size_t)t->nstored))
					return -1; /* must read back exactly */
			packed_block_close(&b);
			spent_decoding += now() - d0;
		}
		enc[run] = now() - t0 - spent_decoding;
		dec[run] = spent_decoding;
	}
	qsort(enc, (size_t)runs, sizeof(enc[0]), cmp_double);
	qsort(dec, (size_t)runs, sizeof(dec[0]), cmp_double);
	res->encode_s = enc[runs / 2];
	res->decode_s = dec[runs / 2];
	packed_writer_free(w);
	return 0;
}

static int one_trace(const char *path, int runs)
{
	sqlite3 *db;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "pack_transforms: cannot open %s\n", path);
		return -1;
	}
	struct rows rows[2] = {{0}};
	int rc = 0;
	for (int i = 0; !rc && i < 2; i++)
		rc = read_rows(db, &kg_packed_tables[i], &rows[i]);
	sqlite3_close(db);
	printf("\n%s: %zu kernels, %zu API calls\n\n", path, rows[0].n, rows[1].n);
	printf("| variant | kernel blocks B/kernel | API blocks B/call | encode s | decode s |\n");
	printf("| --- | ---: | ---: | ---: | ---: |\n");
	for (size_t v = 0; !rc && v < NVARIANTS; v++) {
		struct result r[2] = {{0}};
		for (int i = 0; !rc && i < 2; i++)
			rc = measure(&kg_packed_tables[i], &rows[i], &variants[v], runs, &r[i]);
		if (!rc)
			printf("| %s | %.2f | %.2f | %.3f | %.3f |\n", variants[v].what,
			       rows[0].n ? (double)r[0].bytes / (double)rows[0].n : 0,
			       rows[1].n ? (double)r[1].bytes / (double)rows[1].n : 0,
			       r[0].encode_s + r[1].encode_s, r[0].decode_s + r[1].decode_s);
	}
	if (rc)
		fprintf(stderr,
			"pack_transforms: %s: a variant did not read back or ran out of memory\n",
			path);
	free(rows[0].r);
	free(rows[1].r);
	return rc;
}

int main(int argc, char **argv)
{
	int runs = 3, opt, rc = 0;
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || (runs = atoi(optarg)) < 1 || runs > 16) {
			fprintf(stderr, "usage: pack_transforms [-n RUNS (1-16)] TRACE...\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: pack_transforms [-n RUNS (1-16)] TRACE...\n");
		return 2;
	}
	printf("Medians of %d runs, one thread; every variant's blocks decode back to the rows.\n",
	       runs);
	for (int i = optind; i < argc; i++)
		if (one_trace(argv[i], runs) < 0)
			rc = 1;
	return rc;
}
