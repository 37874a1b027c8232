/* Packed columns (trace/packed.h) and the kgantt reader's ways of reading: rows on one
 * thread, rows on two, packed blocks on one or two. All must give the same model; edited
 * rows must drop the blocks; damaged blocks must never crash and fall back to the rows. */
#include "harness.h"

#include <sqlite3.h>
#include <stdint.h>

#include "model/load.h"
#include "trace/packed.h"
#include "trace/schema.h"

/* ------------------------------------------------------------------ blocks */

#define rnd() ((uint64_t)test_random())

/* Values of every size and sign, NULLs in some columns, none or all in others. */
static void random_row(struct kg_row *row, int ncols, uint32_t r)
{
	static const int64_t edge[] = {0, 1, -1, INT64_MAX, INT64_MIN, 127, 128, -64, -65,
				       1LL << 40, -(1LL << 40)};
	row->nulls = 0;
	for (int c = 0; c < ncols; c++) {
		uint64_t x = rnd();
		switch (c % 5) {
		case 0: row->v[c] = (int64_t)r * 1000 + (int64_t)(x % 50); break; /* time-like */
		case 1: row->v[c] = edge[x % (sizeof(edge) / sizeof(edge[0]))]; break;
		case 2: row->v[c] = (int64_t)x; break;
		case 3: row->v[c] = 7; break;
		default: row->v[c] = 0; row->nulls |= 1u << c; break; /* always NULL */
		}
		if (c % 5 == 2 && x % 3 == 0) {
			row->v[c] = 0;
			row->nulls |= 1u << c;
		}
	}
}

static void *encode(struct kg_packed_writer *w, const struct kg_row *rows, uint32_t n,
		    size_t *len)
{
	packed_writer_reset(w);
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ_INT(packed_writer_add(w, &rows[i]), 0);
	const void *data;
	CHECK_EQ_INT(packed_writer_finish(w, &data, len), 0);
	void *copy = malloc(*len);
	memcpy(copy, data, *len);
	return copy;
}

TEST(blocks_round_trip_every_value)
{
	enum { NCOLS = 24, N = 5000 };
	struct kg_row *rows = calloc(N, sizeof(*rows));
	for (uint32_t i = 0; i < N; i++)
		random_row(&rows[i], NCOLS, i);
	struct kg_packed_writer *w = packed_writer_new(NCOLS);
	size_t len;
	void *data = encode(w, rows, N, &len);
	struct kg_packed_block b;
	CHECK_EQ_INT(packed_block_open(&b, data, len, NCOLS, N), 0);
	struct kg_row got;
	for (uint32_t i = 0; i < N; i++) {
		CHECK_EQ_INT(packed_block_row(&b, &got), 1);
		CHECK_EQ_INT(got.nulls, rows[i].nulls);
		for (int c = 0; c < NCOLS; c++)
			CHECK(got.v[c] == rows[i].v[c]);
	}
	CHECK_EQ_INT(packed_block_row(&b, &got), 0);
	/* the header must match what the table says */
	CHECK_EQ_INT(packed_block_open(&b, data, len, NCOLS - 1, N), -1);
	CHECK_EQ_INT(packed_block_open(&b, data, len, NCOLS, N + 1), -1);
	/* an empty block */
	free(data);
	data = encode(w, rows, 0, &len);
	CHECK_EQ_INT(packed_block_open(&b, data, len, NCOLS, 0), 0);
	CHECK_EQ_INT(packed_block_row(&b, &got), 0);
	free(data);
	packed_writer_free(w);
	free(rows);
}

TEST(blocks_hold_at_most_their_size)
{
	struct kg_packed_writer *w = packed_writer_new(1);
	struct kg_row row = {.v = {5}};
	for (uint32_t i = 0; i < KG_PACKED_BLOCK; i++)
		CHECK_EQ_INT(packed_writer_add(w, &row), 0);
	CHECK(packed_writer_add(w, &row) < 0);
	CHECK(packed_writer_new(0) == NULL);
	CHECK(packed_writer_new(KG_PACKED_MAX_COLUMNS + 1) == NULL);
	packed_writer_free(w);
}

/* Every cut and many flipped bytes: decoding ends with -1 or a row count, never a crash
 * (ASan watches every read). */
TEST(damaged_blocks_never_crash)
{
	enum { NCOLS = 10, N = 300 };
	struct kg_row rows[N];
	for (uint32_t i = 0; i < N; i++)
		random_row(&rows[i], NCOLS, i);
	struct kg_packed_writer *w = packed_writer_new(NCOLS);
	size_t len;
	uint8_t *data = encode(w, rows, N, &len);
	struct kg_packed_block b;
	struct kg_row got;
	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *part = malloc(cut ? cut : 1);
		memcpy(part, data, cut);
		if (packed_block_open(&b, part, cut, NCOLS, N) == 0) {
			int r;
			while ((r = packed_block_row(&b, &got)) == 1)
				;
			CHECK_EQ_INT(r, -1); /* a cut block cannot decode to its end */
		}
		free(part);
	}
	for (int i = 0; i < 3000; i++) {
		uint8_t *bad = malloc(len);
		memcpy(bad, data, len);
		for (int k = 0; k < 1 + (int)(rnd() % 4); k++)
			bad[rnd() % len] ^= (uint8_t)(1 + rnd() % 255);
		if (packed_block_open(&b, bad, len, NCOLS, N) == 0) {
			uint32_t n = 0;
			int r;
			while ((r = packed_block_row(&b, &got)) == 1)
				n++;
			CHECK(r == -1 || n == N);
		}
		free(bad);
	}
	CHECK_EQ_INT(packed_block_open(&b, NULL, 0, NCOLS, N), -1);
	free(data);
	packed_writer_free(w);
}

/* ------------------------------------------------------------------ a trace */

static char path[64];
enum { KERNELS = 140000, APIS = 150000 };

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fprintf(stderr, "    %s: %s\n", sql, msg);
	CHECK(msg == NULL);
}

/* Two processes; ids with gaps; rows of no known process; a stream the streams table
 * does not list; channels that appear late; NULL starts, queued times and graphs. */
static void write_trace(void)
{
	snprintf(path, sizeof(path), "/tmp/kgantt-packed-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	unlink(path);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, "BEGIN");
	exec(db, kg_schema_sql);
	exec(db, "INSERT INTO meta VALUES('format','kgantt-trace'),('version','2'),"
		 "('min_reader_version','1');"
		 "INSERT INTO strings VALUES(1,'kernel_a'),(2,'kernel_b'),(3,'cudaLaunchKernel'),"
		 "(4,'cudaMemcpyAsync');"
		 "INSERT INTO processes(process, pid, complete) VALUES(1, 100, 1), (2, 200, 1);"
		 "INSERT INTO devices(process, device, name, sm_count) VALUES(1, 0, 'H200', 132),"
		 "(2, 0, 'H200', 132), (2, 1, 'H200', 132);"
		 "INSERT INTO contexts VALUES(1, 1, 0, 7, 0), (2, 1, 0, 7, 0), (2, 2, 1, 9, 0);"
		 "INSERT INTO streams VALUES(1, 1, 7, 0, 3, NULL), (1, 1, 13, -5, 2, NULL),"
		 "(2, 1, 7, 0, 3, NULL), (2, 2, 9, 0, 3, NULL);");
	sqlite3_stmt *k, *a;
	CHECK(sqlite3_prepare_v2(db,
				 "INSERT INTO kernels(id, process, device, context, stream, "
				 "correlation, demangled, queued, submitted, start, end, grid_x, "
				 "grid_y, grid_z, block_x, block_y, block_z, registers_per_thread, "
				 "static_smem, dynamic_smem, shared_mem_executed, channel, graph, "
				 "device_launched, incomplete) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
				 "?,?,?,?,?,?,?,?)",
				 -1, &k, NULL) == SQLITE_OK);
	int64_t id = 1, t = 1000000;
	for (int i = 0; i < KERNELS; i++) {
		int proc = i % 11 == 0 ? 2 : i % 997 == 0 ? 99 : 1;
		int dev = proc == 2 && i % 2 ? 1 : 0;
		int ctx = dev == 1 ? 2 : 1;
		int64_t stream = dev == 1 ? 9 : i % 3 == 0 ? 7 : i % 3 == 1 ? 13 : 21;
		t += 500 + (int64_t)(rnd() % 300);
		int b = 1;
		sqlite3_bind_int64(k, b++, id);
		sqlite3_bind_int(k, b++, proc);
		sqlite3_bind_int(k, b++, dev);
		sqlite3_bind_int(k, b++, ctx);
		sqlite3_bind_int64(k, b++, stream);
		sqlite3_bind_int(k, b++, i + 1); /* correlation */
		sqlite3_bind_int(k, b++, 1 + i % 2);
		if (i % 5 == 0)
			sqlite3_bind_null(k, b++);
		else
			sqlite3_bind_int64(k, b++, t - 200);
		sqlite3_bind_int64(k, b++, t - 100);
		if (i % 1009 == 0)
			sqlite3_bind_null(k, b++); /* never ran in the recording */
		else
			sqlite3_bind_int64(k, b++, t + (i % 7 == 0 ? -3000 : 0)); /* some out of order */
		sqlite3_bind_int64(k, b++, t + 400);
		for (int j = 0; j < 6; j++)
			sqlite3_bind_int(k, b++, j == 0 ? 1 + i % 500 : j == 3 ? 256 : 1);
		sqlite3_bind_int(k, b++, 32 + i % 64);
		sqlite3_bind_int(k, b++, 1024);
		sqlite3_bind_int(k, b++, i % 4 ? 0 : 49152);
		sqlite3_bind_int(k, b++, 102400);
		if (i < 50000)
			sqlite3_bind_null(k, b++); /* channel known only later */
		else
			sqlite3_bind_int(k, b++, (int)(stream % 5));
		if (i % 13 == 0)
			sqlite3_bind_int(k, b++, 42);
		else
			sqlite3_bind_null(k, b++);
		sqlite3_bind_int(k, b++, 0);
		sqlite3_bind_int(k, b++, i % 101 == 0);
		CHECK_EQ_INT(sqlite3_step(k), SQLITE_DONE);
		sqlite3_reset(k);
		id += i % 1000 == 999 ? 40 : 1; /* gaps */
	}
	sqlite3_finalize(k);
	CHECK(sqlite3_prepare_v2(db,
				 "INSERT INTO api_calls(process, thread, domain, name, start, end, "
				 "correlation) VALUES(?,?,?,?,?,?,?)",
				 -1, &a, NULL) == SQLITE_OK);
	for (int i = 0; i < APIS; i++) {
		sqlite3_bind_int(a, 1, i % 11 == 0 ? 2 : 1);
		sqlite3_bind_int(a, 2, 5000 + i % 3);
		sqlite3_bind_int(a, 3, 1);
		sqlite3_bind_int(a, 4, i < KERNELS ? 3 : 4);
		sqlite3_bind_int64(a, 5, 1000000 + (int64_t)i * 600);
		if (i % 17 == 0)
			sqlite3_bind_null(a, 6);
		else
			sqlite3_bind_int64(a, 6, 1000000 + (int64_t)i * 600 + 50);
		sqlite3_bind_int(a, 7, i + 1);
		CHECK_EQ_INT(sqlite3_step(a), SQLITE_DONE);
		sqlite3_reset(a);
	}
	sqlite3_finalize(a);
	exec(db, "INSERT INTO memcpys(process, device, context, stream, correlation, copy_kind, "
		 "src_kind, dst_kind, bytes, start, end, async) VALUES(1, 0, 1, 13, 3, 1, 1, 3, "
		 "4096, 1500000, 1510000, 1)");
	exec(db, "COMMIT");
	sqlite3_close(db);
}

static void load(struct kg_model *m, int one_thread, int rows_only)
{
	struct kg_load_opts o = {.one_thread = one_thread, .rows_only = rows_only};
	char err[512];
	model_init(m, "kgantt", path);
	int rc = read_kgt(m, path, &o, err, sizeof(err));
	if (rc)
		fprintf(stderr, "    %s\n", err);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(model_finish(m), 0);
}

static uint32_t same_stream(const struct kg_model *a, uint32_t s, const struct kg_model *b)
{
	const struct kg_stream *x = &a->streams[s];
	for (uint32_t i = 0; i < b->n_streams; i++) {
		const struct kg_stream *y = &b->streams[i];
		if (y->process == x->process && y->device == x->device && y->context == x->context &&
		    y->id == x->id)
			return i;
	}
	return KG_NONE;
}

/* Same ops (stream by stream, in order, every field), same calls, same notes. Stream
 * numbers may differ: two threads meet the streams in another order. */
static void check_same(const struct kg_model *a, const struct kg_model *b)
{
	CHECK_EQ_INT(a->n_ops, b->n_ops);
	CHECK_EQ_INT(a->n_apis, b->n_apis);
	CHECK_EQ_INT(a->n_streams, b->n_streams);
	CHECK_EQ_INT(a->n_notes, b->n_notes);
	for (int i = 0; i < a->n_notes; i++)
		CHECK_EQ_STR(a->notes[i], b->notes[i]);
	for (uint32_t s = 0; s < a->n_streams; s++) {
		uint32_t t = same_stream(a, s, b);
		CHECK(t != KG_NONE);
		const struct kg_stream *x = &a->streams[s], *y = &b->streams[t];
		CHECK_EQ_INT(x->nops, y->nops);
		CHECK_EQ_INT(x->channel, y->channel);
		CHECK_EQ_INT(x->kind, y->kind);
		CHECK_EQ_INT(x->priority, y->priority);
		for (uint32_t i = 0; i < x->nops; i++) {
			struct kg_op p = a->ops[x->first_op + i], q = b->ops[y->first_op + i];
			p.stream = q.stream = 0;
			if (memcmp(&p, &q, sizeof(p)) != 0)
				fprintf(stderr, "    stream %u op %u differs (start %lld vs %lld)\n", s, i,
					(long long)p.start, (long long)q.start);
			CHECK(memcmp(&p, &q, sizeof(p)) == 0);
		}
	}
	for (uint32_t i = 0; i < a->n_apis; i++) {
		const struct kg_api *x = &a->apis[i], *y = &b->apis[i];
		CHECK(x->start == y->start && x->end == y->end && x->name == y->name &&
		      x->correlation == y->correlation && x->process == y->process &&
		      x->category == y->category);
		CHECK((x->op == KG_NONE) == (y->op == KG_NONE));
		CHECK_EQ_INT(x->thread, y->thread); /* threads in one order whoever met them first */
	}
	CHECK_EQ_INT(a->n_threads, b->n_threads);
	for (uint32_t t = 0; t < a->n_threads; t++)
		CHECK(a->threads[t].process == b->threads[t].process &&
		      a->threads[t].tid == b->threads[t].tid);
	for (uint32_t s = 0; s < a->n_streams; s++) /* streams too */
		CHECK_EQ_INT(same_stream(a, s, b), s);
}

static void pack(void)
{
	sqlite3 *db;
	char err[256];
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, "BEGIN");
	int rc = trace_pack(db, err, sizeof(err));
	if (rc)
		fprintf(stderr, "    %s\n", err);
	CHECK_EQ_INT(rc, 0);
	exec(db, "COMMIT");
	sqlite3_close(db);
}

static void sql(const char *text)
{
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, text);
	sqlite3_close(db);
}

static int usable(const char *table)
{
	sqlite3 *db;
	int64_t rows;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	int u = packed_usable(db, table, &rows);
	sqlite3_close(db);
	return u;
}

static int has_note(const struct kg_model *m, const char *text)
{
	for (int i = 0; i < m->n_notes; i++)
		if (strstr(m->notes[i], text))
			return 1;
	return 0;
}

/* Takes out the note that says text; the rest must be as read from the rows. */
static void drop_note(struct kg_model *m, const char *text)
{
	for (int i = 0; i < m->n_notes; i++)
		if (strstr(m->notes[i], text)) {
			memmove(m->notes[i], m->notes[i + 1], (size_t)(m->n_notes - i - 1) * sizeof(m->notes[0]));
			m->n_notes--;
			return;
		}
}

TEST(four_ways_of_reading_agree)
{
	CHECK_EQ_INT(packed_table("kernels")->ncolumns, 24);
	CHECK_EQ_INT(packed_table("api_calls")->ncolumns, 7);
	write_trace();
	struct kg_model rows1, rows2, packed1, packed2;
	load(&rows1, 1, 0); /* no blocks yet: rows */
	load(&rows2, 0, 0);
	CHECK(rows1.n_ops > KERNELS * 9 / 10 && rows1.n_ops < KERNELS);
	CHECK(has_note(&rows1, "no known process")); /* process 99 */
	check_same(&rows1, &rows2);
	CHECK(!usable("kernels"));
	pack();
	CHECK(usable("kernels") && usable("api_calls"));
	load(&packed1, 1, 0);
	load(&packed2, 0, 0);
	check_same(&rows1, &packed1);
	check_same(&rows1, &packed2);
	/* launches linked: every kernel of a known process has its call */
	uint32_t linked = 0;
	for (uint32_t i = 0; i < packed2.n_ops; i++)
		linked += packed2.ops[i].api != KG_NONE;
	CHECK(linked > packed2.n_ops * 9 / 10);
	model_free(&rows1);
	model_free(&rows2);
	model_free(&packed1);
	model_free(&packed2);
	unlink(path);
}

TEST(edited_rows_drop_the_blocks)
{
	write_trace();
	pack();
	sql("DELETE FROM kernels WHERE id % 97 = 0");
	CHECK(!usable("kernels"));
	CHECK(usable("api_calls"));
	struct kg_model a, b;
	load(&a, 0, 0);
	load(&b, 1, 1);
	check_same(&a, &b);
	pack();
	sql("UPDATE api_calls SET end = end + 1 WHERE id = 5");
	CHECK(usable("kernels") && !usable("api_calls"));
	pack();
	sql("INSERT INTO kernels(process, device, context, stream, start, end) "
	    "VALUES(1, 0, 1, 7, 5, 6)");
	CHECK(!usable("kernels"));
	/* blocks whose ids no longer span the table's */
	pack();
	sql("DROP TRIGGER packed_kernels_delete; DELETE FROM kernels WHERE id = 1");
	CHECK(!usable("kernels"));
	model_free(&a);
	model_free(&b);
	unlink(path);
}

TEST(damaged_blocks_fall_back_to_the_rows)
{
	write_trace();
	struct kg_model rows, k, a;
	load(&rows, 1, 1);
	pack();
	sql("UPDATE packed SET data = substr(data, 1, length(data) - 9) WHERE tbl = 'kernels' "
	    "AND first_id = (SELECT MAX(first_id) FROM packed WHERE tbl = 'kernels')");
	CHECK(usable("kernels")); /* what packed_usable can see still agrees */
	load(&k, 0, 0);
	CHECK(has_note(&k, "packed kernels block"));
	CHECK(has_note(&k, "damaged"));
	drop_note(&k, "damaged");
	check_same(&rows, &k);
	pack();
	sql("UPDATE packed SET data = zeroblob(40) WHERE tbl = 'api_calls' AND first_id = 1");
	load(&a, 0, 0);
	CHECK(has_note(&a, "packed api_calls block at id 1 is damaged"));
	drop_note(&a, "damaged");
	check_same(&rows, &a);
	model_free(&rows);
	model_free(&k);
	model_free(&a);
	unlink(path);
}

TEST(unpack_removes_blocks_and_triggers)
{
	write_trace();
	pack();
	sqlite3 *db;
	char err[256];
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK_EQ_INT(trace_unpack(db, err, sizeof(err)), 0);
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'packed%'",
				 -1, &st, NULL) == SQLITE_OK);
	CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
	CHECK_EQ_INT(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	CHECK(!usable("kernels"));
	unlink(path);
}

/* The recorder's note that it left trivial API queries out reaches the report header. */
TEST(left_out_api_queries_are_noted)
{
	write_trace();
	struct kg_model a, b;
	load(&a, 0, 0);
	CHECK(!has_note(&a, "trivial API queries"));
	sql("INSERT INTO messages VALUES(1, 5, 'info', 'API calls not recorded (trivial queries; "
	    "kgantt record --all-api keeps them): cudaGetDevice, cudaGetLastError')");
	load(&b, 0, 0);
	CHECK(has_note(&b, "trivial API queries"));
	CHECK(has_note(&b, "--all-api"));
	model_free(&a);
	model_free(&b);
	unlink(path);
}

/* ------------------------------------------------------------------ sizes from the file */

/* The largest single allocation while the hook is installed: what a file can make the
 * reader ask for. Both reader threads allocate, hence the atomics. */
int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
					      void (*f)(const volatile void *));
static size_t largest_alloc;

static void note_alloc(const volatile void *p, size_t size)
{
	(void)p;
	size_t seen = __atomic_load_n(&largest_alloc, __ATOMIC_RELAXED);
	while (size > seen &&
	       !__atomic_compare_exchange_n(&largest_alloc, &seen, size, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

static void note_free(const volatile void *p)
{
	(void)p;
}

/* Row and string ids far apart: a few rows in a 100 KB file whose largest ids would size
 * the reader's tables — a slot per kernel id, room for copies up to the largest copy id
 * (70M x 120 bytes: 8.4 GB), 4 bytes per string id. Found by tests/fuzz/fuzz_kgt. The
 * tables must follow the rows there are, and the rows must still all be read. */
TEST(sparse_ids_do_not_size_allocations)
{
	snprintf(path, sizeof(path), "/tmp/kgantt-sparse-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	unlink(path);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, kg_schema_sql);
	exec(db, "INSERT INTO meta VALUES('format','kgantt-trace'),('version','3'),"
		 "('min_reader_version','1');"
		 "INSERT INTO strings VALUES(1,'kernel_a'),(268435456,'kernel_far');"
		 "INSERT INTO processes(process, pid, complete) VALUES(1, 100, 1);"
		 "INSERT INTO devices(process, device, name, sm_count) VALUES(1, 0, 'H200', 132);"
		 "INSERT INTO contexts VALUES(1, 1, 0, 7, 0);"
		 "INSERT INTO streams VALUES(1, 1, 7, 0, 3, NULL);"
		 "INSERT INTO kernels(id, process, device, context, stream, correlation, "
		 "demangled, start, end) VALUES(1, 1, 0, 1, 7, 1, 1, 1000, 2000),"
		 "(50000000, 1, 0, 1, 7, 2, 268435456, 3000, 4000);"
		 "INSERT INTO api_calls(id, process, thread, name, start, end, correlation) "
		 "VALUES(1, 1, 5, 1, 900, 950, 1), (60000000, 1, 5, 1, 2900, 2950, 2);"
		 "INSERT INTO memcpys(id, process, device, context, stream, correlation, "
		 "copy_kind, bytes, start, end) VALUES(70000000, 1, 0, 1, 7, 3, 1, 64, 5000, 6000)");
	sqlite3_close(db);
	struct kg_model m;
	char err[512];
	for (int rows_only = 0; rows_only < 2; rows_only++) {
		struct kg_load_opts o = {.rows_only = rows_only};
		model_init(&m, "kgantt", path);
		largest_alloc = 0;
		__sanitizer_install_malloc_and_free_hooks(note_alloc, note_free);
		int rc = read_kgt(&m, path, &o, err, sizeof(err));
		__sanitizer_install_malloc_and_free_hooks(NULL, NULL);
		if (rc)
			fprintf(stderr, "    %s\n", err);
		CHECK_EQ_INT(rc, 0);
		if (largest_alloc >= (64u << 20))
			fprintf(stderr, "    largest allocation: %zu bytes\n", largest_alloc);
		CHECK(largest_alloc < (64u << 20));
		CHECK_EQ_INT(model_finish(&m), 0);
		CHECK_EQ_INT(m.n_ops, 3);
		CHECK_EQ_INT(m.n_apis, 2);
		int far = 0;
		for (uint32_t i = 0; i < m.n_ops; i++)
			far += !strcmp(model_text(&m, m.ops[i].name), "kernel_far");
		CHECK_EQ_INT(far, 1); /* the sparse string id still names its kernel */
		model_free(&m);
	}
	unlink(path);
}

/* INT64_MIN is the model's "unknown" time (KG_NO_TIME): a row holding it has no time, as
 * if NULL, and is skipped like one; kept, its "end - start" overflowed downstream. */
TEST(int64_min_times_are_unknown)
{
	snprintf(path, sizeof(path), "/tmp/kgantt-min-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	unlink(path);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, kg_schema_sql);
	exec(db, "INSERT INTO meta VALUES('format','kgantt-trace'),('version','3'),"
		 "('min_reader_version','1');"
		 "INSERT INTO strings VALUES(1,'k');"
		 "INSERT INTO processes(process, pid, complete) VALUES(1, 100, 1);"
		 "INSERT INTO contexts VALUES(1, 1, 0, 7, 0);"
		 "INSERT INTO streams VALUES(1, 1, 7, 0, 3, NULL);"
		 "INSERT INTO kernels(process, device, context, stream, demangled, start, end) "
		 "VALUES(1, 0, 1, 7, 1, 1000, 2000), (1, 0, 1, 7, 1, -9223372036854775808, 5),"
		 "(1, 0, 1, 7, 1, 5, -9223372036854775808);"
		 "INSERT INTO api_calls(process, thread, name, start, end) VALUES(1, 5, 1, 900, 950),"
		 "(1, 5, 1, -9223372036854775808, 10);"
		 "INSERT INTO syncs(process, type, context, stream, start, end) VALUES"
		 "(1, 3, 1, 7, 100, 200), (1, 3, 1, 7, -9223372036854775808, 200);"
		 "INSERT INTO nvtx(process, thread, name, start, end) VALUES(1, 5, 1, 100, 200),"
		 "(1, 5, 1, -9223372036854775808, 200)");
	sqlite3_close(db);
	for (int rows_only = 0; rows_only < 2; rows_only++) {
		struct kg_model m;
		struct kg_load_opts o = {.rows_only = rows_only};
		char err[512];
		model_init(&m, "kgantt", path);
		CHECK_EQ_INT(read_kgt(&m, path, &o, err, sizeof(err)), 0);
		CHECK_EQ_INT(model_finish(&m), 0);
		CHECK_EQ_INT(m.n_ops, 1);
		CHECK_EQ_INT(m.n_apis, 1);
		CHECK_EQ_INT(m.n_syncs, 1);
		CHECK_EQ_INT(m.n_ranges, 1);
		model_free(&m);
	}
	unlink(path);
}
