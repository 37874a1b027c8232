/* Packed tables (trace/packed.h; a block's own tests are test_block.c's): a compacted trace (format 5) gives back every column of every row, reads as its rows
 * did, and says which block is damaged; the reader's ways of reading agree: rows on one
 * thread or two, blocks of format 2-4 or 5 on one or two; format 2-4's blocks are dropped
 * by edited rows and fall back to the rows when damaged; sizes read from the file are
 * bounded before anything is allocated. */
#include "harness.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>

#include "model/load.h"
#include "trace/packed.h"
#include "trace/packed_feed.h"
#include "trace/schema.h"
#include "trace/trace_db.h"

#include "alloc_watch.h"
#include "blocks_v1.h"
#include "trace_file.h"

#define rnd() ((uint64_t)test_random())

/* Every column of each packed table stored once; the reader's columns first, in the
 * order its column list says, predicted only from columns it reads. */
TEST(packed_tables_cover_their_tables)
{
	sqlite3 *db;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, kg_schema_sql, NULL, NULL, NULL) == SQLITE_OK);
	CHECK_EQ_INT(trace_create_rows(db, "main"), SQLITE_OK);
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++) {
		char sql[128];
		CHECK(t->ncolumns <= t->nstored);
		CHECK(t->nstored <= KG_PACKED_MAX_COLUMNS);
		for (int c = 0; c < t->nstored; c++) {
			int limit = c < t->ncolumns ? t->ncolumns : t->nstored;
			CHECK(t->stored[c].base < c && t->stored[c].prev < limit);
			CHECK(t->stored[c].prev < 0 || t->stored[c].prev >= c);
			CHECK(!t->stored[c].real || (t->stored[c].base < 0 && t->stored[c].prev < 0));
			snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM pragma_table_info('%s') WHERE "
						   "name = ?1", t->name);
			int64_t found;
			CHECK_EQ_INT(trace_db_int(db, sql, t->stored[c].name, &found), SQLITE_OK);
			CHECK_EQ_INT(found, 1);
		}
		snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM pragma_table_info('%s')", t->name);
		int64_t ncols;
		CHECK_EQ_INT(trace_db_int(db, sql, NULL, &ncols), SQLITE_OK);
		CHECK_EQ_INT(ncols, t->nstored);
	}
	sqlite3_close(db);
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
	test_trace_path(path, sizeof(path), "packed");
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, "BEGIN");
	exec(db, kg_schema_sql);
	CHECK_EQ_INT(trace_create_rows(db, "main"), SQLITE_OK);
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
	static int64_t queued_at[KERNELS]; /* the launch calls run around them */
	for (int i = 0; i < KERNELS; i++) {
		int proc = i % 11 == 0 ? 2 : i % 997 == 0 ? 99 : 1;
		int dev = proc == 2 && i % 2 ? 1 : 0;
		int ctx = dev == 1 ? 2 : 1;
		int64_t stream = dev == 1 ? 9 : i % 3 == 0 ? 7 : i % 3 == 1 ? 13 : 21;
		t += 500 + (int64_t)(rnd() % 300);
		queued_at[i] = t - 200;
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
		/* a launch's call runs while the driver queues its kernel */
		int64_t start = i < KERNELS ? queued_at[i] - 50 : 1000000 + (int64_t)i * 600;
		sqlite3_bind_int64(a, 5, start);
		if (i % 17 == 0)
			sqlite3_bind_null(a, 6);
		else
			sqlite3_bind_int64(a, 6, start + 100);
		sqlite3_bind_int(a, 7, i + 1);
		CHECK_EQ_INT(sqlite3_step(a), SQLITE_DONE);
		sqlite3_reset(a);
	}
	sqlite3_finalize(a);
	exec(db, "INSERT INTO memcpys(process, device, context, stream, correlation, copy_kind, "
		 "src_kind, dst_kind, bytes, start, end, async) VALUES(1, 0, 1, 13, 3, 1, 1, 3, "
		 "4096, 1500000, 1510000, 1)");
	/* hardware samples: REALs of every kind, NULLs */
	exec(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
		 "INSERT INTO hw_samples(process, device, start, end, sm_active_pct, occupancy_pct, "
		 "dram_read_bps, sm_clock_hz, ctxsw_pct) SELECT 1 + i % 2, 0, 1000000 + i * 100000, "
		 "1000000 + i * 100000 + 99999 + i % 3, (i % 101) / 7.0, CASE WHEN i % 5 THEN "
		 "1.0 / i END, i * 1e9 / 3, 1980000000.0, CASE WHEN i % 7 = 0 THEN -0.0 WHEN "
		 "i % 11 = 0 THEN 1e308 * 10 ELSE 5e-324 * i END FROM n");
	/* host samples: interleaved threads, times stepping back, NULL stacks, ids with gaps */
	exec(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
		 "INSERT INTO host_samples(id, process, thread, ts, stack, state, flags, overrun) "
		 "SELECT i + (i / 1000) * 7, 1 + i % 2, 7000 + i % 5, 1000000 + i * 200 - (i % 3) * 5, "
		 "CASE WHEN i % 9 THEN i % 40 END, i % 5, (i % 4) * 2 + 1, i % 13 = 0 FROM n");
	/* and the columns the model does not read, which a compacted trace keeps too */
	exec(db, "UPDATE kernels SET name = 10 + id % 7, cluster_x = CASE WHEN id % 3 THEN 2 END, "
		 "cluster_y = 1, local_mem_per_thread = id % 5, local_mem_total = id * 977 % 100003, "
		 "channel_type = 1, launch_type = id % 2, graph_node = CASE WHEN graph IS NOT NULL "
		 "THEN id % 13 END, grid_id = id * 2 + 5;"
		 "UPDATE api_calls SET cbid = 211 + id % 3, return_value = CASE WHEN id % 101 = 0 "
		 "THEN 700 ELSE 0 END, incomplete = id % 997 = 0, domain = 1 + id % 2");
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
			/* launches are numbered in the order the threads met them, as streams */
			CHECK(memcmp(op_launch(a, &p), op_launch(b, &q), sizeof(struct kg_launch)) == 0);
			p.stream = q.stream = 0;
			p.launch = q.launch = 0;
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

/* Compacts the trace (format 5): the blocks become the rows' only copy. */
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

/* Packs as formats 2-4 did: version 1 blocks of the reader's columns beside the rows, and
 * the triggers that drop them when a row changes. */
static void pack_v1(void)
{
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, "BEGIN; CREATE TABLE IF NOT EXISTS packed(tbl TEXT NOT NULL, first_id INTEGER "
		 "NOT NULL, last_id INTEGER NOT NULL, rows INTEGER NOT NULL, data BLOB NOT NULL, "
		 "PRIMARY KEY(tbl, first_id)); DELETE FROM packed;"
		 "INSERT OR REPLACE INTO meta VALUES('packed_version', '1')");
	struct kg_row *rows = calloc(KG_PACKED_BLOCK, sizeof(*rows));
	sqlite3_stmt *ins;
	CHECK(sqlite3_prepare_v2(db, "INSERT INTO packed VALUES(?,?,?,?,?)", -1, &ins, NULL) ==
	      SQLITE_OK);
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++) {
		char sql[1024], list[900] = "";
		size_t at = 0;
		for (int c = 0; c < t->ncolumns; c++)
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", c ? ", " : "",
					       t->stored[c].name);
		snprintf(sql, sizeof(sql), "SELECT %s, rowid FROM %s ORDER BY rowid",
			 t->ncolumns ? list : "NULL", t->name);
		sqlite3_stmt *st;
		CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
		int64_t first = 0, last = 0;
		for (int more = 1; more;) {
			uint32_t n = 0;
			while (n < KG_PACKED_BLOCK && (more = sqlite3_step(st) == SQLITE_ROW)) {
				row_from_stmt(&rows[n], st, t->ncolumns);
				last = sqlite3_column_int64(st, t->ncolumns);
				if (n++ == 0)
					first = last;
			}
			if (!n)
				break;
			size_t len;
			uint8_t *data = encode_v1(rows, n, t->ncolumns, &len);
			sqlite3_bind_text(ins, 1, t->name, -1, SQLITE_STATIC);
			sqlite3_bind_int64(ins, 2, first);
			sqlite3_bind_int64(ins, 3, last);
			sqlite3_bind_int64(ins, 4, n);
			sqlite3_bind_blob(ins, 5, data, (int)len, free);
			CHECK_EQ_INT(sqlite3_step(ins), SQLITE_DONE);
			sqlite3_reset(ins);
		}
		sqlite3_finalize(st);
		snprintf(sql, sizeof(sql),
			 "DROP TRIGGER IF EXISTS packed_%1$s_insert;"
			 "DROP TRIGGER IF EXISTS packed_%1$s_update;"
			 "DROP TRIGGER IF EXISTS packed_%1$s_delete;"
			 "CREATE TRIGGER packed_%1$s_insert AFTER INSERT ON %1$s BEGIN "
			 "DELETE FROM packed WHERE tbl = '%1$s'; END;"
			 "CREATE TRIGGER packed_%1$s_update AFTER UPDATE ON %1$s BEGIN "
			 "DELETE FROM packed WHERE tbl = '%1$s'; END;"
			 "CREATE TRIGGER packed_%1$s_delete AFTER DELETE ON %1$s BEGIN "
			 "DELETE FROM packed WHERE tbl = '%1$s'; END;",
			 t->name);
		exec(db, sql);
	}
	sqlite3_finalize(ins);
	free(rows);
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

static int64_t sql_int(const char *text)
{
	sqlite3 *db;
	int64_t v = 0;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK_EQ_INT(trace_db_int(db, text, NULL, &v), SQLITE_OK);
	sqlite3_close(db);
	return v;
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

TEST(every_way_of_reading_agrees)
{
	CHECK_EQ_INT(packed_table("kernels")->ncolumns, 24);
	CHECK_EQ_INT(packed_table("api_calls")->ncolumns, 7);
	write_trace();
	struct kg_model rows1, rows2, v1a, v1b, c1, c2, c3;
	load(&rows1, 1, 0); /* no blocks yet: rows */
	load(&rows2, 0, 0);
	CHECK(rows1.n_ops > KERNELS * 9 / 10 && rows1.n_ops < KERNELS);
	CHECK(has_note(&rows1, "no known process")); /* process 99 */
	check_same(&rows1, &rows2);
	CHECK(!usable("kernels"));
	pack_v1(); /* formats 2-4 */
	CHECK(usable("kernels") && usable("api_calls"));
	load(&v1a, 1, 0);
	load(&v1b, 0, 0);
	check_same(&rows1, &v1a);
	check_same(&rows1, &v1b);
	pack(); /* format 5 */
	CHECK(usable("kernels") && usable("api_calls"));
	CHECK_EQ_INT(sql_int("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('kernels', "
			     "'api_calls', 'kernel_phases', 'api', 'call_stacks') OR type = 'trigger'"),
		     0);
	load(&c1, 1, 0);
	load(&c2, 0, 0);
	load(&c3, 0, 1); /* rows asked for: the blocks are the rows */
	check_same(&rows1, &c1);
	check_same(&rows1, &c2);
	check_same(&rows1, &c3);
	/* launches linked: every kernel of a known process has its call */
	uint32_t linked = 0;
	for (uint32_t i = 0; i < c2.n_ops; i++)
		linked += c2.ops[i].api != KG_NONE;
	CHECK(linked > c2.n_ops * 9 / 10);
	struct kg_model *all[] = {&rows1, &rows2, &v1a, &v1b, &c1, &c2, &c3};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		model_free(all[i]);
	unlink(path);
}

/* Every row of table in schema a and in schema b, every column quoted (its type shows, a
 * REAL in digits enough to read back the same double): the same, in rowid order. */
static void check_same_rows(sqlite3 *db, const char *table, const char *a, const char *b)
{
	char cols[2048] = "", sql[4096], q[160];
	size_t n = 0;
	sqlite3_stmt *st, *x, *y;
	snprintf(q, sizeof(q), "SELECT name FROM pragma_table_info('%s', '%s')", table, a);
	CHECK(sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		n += (size_t)snprintf(cols + n, sizeof(cols) - n, "%squote(\"%s\")", n ? "||','||" : "",
				      (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	CHECK(n > 0);
	snprintf(sql, sizeof(sql), "SELECT %s FROM \"%s\".%s ORDER BY rowid", cols, a, table);
	CHECK(sqlite3_prepare_v2(db, sql, -1, &x, NULL) == SQLITE_OK);
	snprintf(sql, sizeof(sql), "SELECT %s FROM \"%s\".%s ORDER BY rowid", cols, b, table);
	CHECK(sqlite3_prepare_v2(db, sql, -1, &y, NULL) == SQLITE_OK);
	int rx, ry, rows = 0;
	while ((rx = sqlite3_step(x)) == SQLITE_ROW && (ry = sqlite3_step(y)) == SQLITE_ROW) {
		CHECK_EQ_STR((const char *)sqlite3_column_text(x, 0),
			     (const char *)sqlite3_column_text(y, 0));
		rows++;
	}
	CHECK_EQ_INT(rx, SQLITE_DONE);
	CHECK_EQ_INT(sqlite3_step(y), SQLITE_DONE);
	CHECK(rows > 1000);
	sqlite3_finalize(x);
	sqlite3_finalize(y);
}

/* packed_rows over schema a (blocks) and b (SQL rows): the same rows, rowids and NULLs. */
static void check_same_row_reads(sqlite3 *db, const struct kg_packed_table *t, const char *a,
				 const char *b)
{
	char err[256];
	struct kg_packed_rows *x, *y;
	struct kg_row rx, ry;
	int64_t idx, idy;
	int gx, gy, rows = 0;
	CHECK_EQ_INT(packed_rows_open(db, a, t, &x, err, sizeof(err)), 0);
	CHECK_EQ_INT(packed_rows_open(db, b, t, &y, err, sizeof(err)), 0);
	while ((gx = packed_rows_next(x, &rx, &idx)) == 1) {
		CHECK_EQ_INT((gy = packed_rows_next(y, &ry, &idy)), 1);
		if (gy != 1)
			break;
		CHECK(idx == idy);
		CHECK(rx.nulls == ry.nulls);
		for (int c = 0; c < t->nstored; c++)
			CHECK(row_is_null(&rx, c) || rx.v[c] == ry.v[c]);
		rows++;
	}
	CHECK_EQ_INT(gx, 0);
	CHECK_EQ_INT(packed_rows_next(y, &ry, &idy), 0);
	CHECK(rows > 1000);
	packed_rows_close(x);
	packed_rows_close(y);
}

static void copy_file(const char *from, const char *to)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	CHECK_EQ_INT(system(cmd), 0);
}

static char *meta(sqlite3 *db, const char *key)
{
	static char v[64];
	trace_db_meta(db, key, v, sizeof(v));
	return v;
}

TEST(compacted_traces_keep_every_column_of_every_row)
{
	write_trace();
	char rows[80];
	snprintf(rows, sizeof(rows), "%s.rows", path);
	copy_file(path, rows);
	pack();
	sqlite3 *db;
	char err[256], attach[128];
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK_EQ_STR(meta(db, "packed_version"), "2");
	CHECK_EQ_STR(meta(db, "version"), "6");
	CHECK_EQ_STR(meta(db, "min_reader_version"), "5");
	snprintf(attach, sizeof(attach), "ATTACH '%s' AS orig", rows);
	exec(db, attach);
	/* read row by row, as merge copies them: the blocks give what the rows hold */
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++)
		check_same_row_reads(db, t, "main", "orig");
	/* as readers see them: temp tables, one table after another, then all (made once) */
	CHECK_EQ_INT(packed_expand(db, "main", "temp", "kernels", err, sizeof(err)), 0);
	CHECK_EQ_INT(packed_expand(db, "main", "temp", "hw_samples", err, sizeof(err)), 0);
	CHECK_EQ_INT(packed_expand(db, "main", "temp", NULL, err, sizeof(err)), 0);
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++)
		check_same_rows(db, t->name, "orig", "temp");
	/* made rows again for good: the same, in main, with the views */
	exec(db, "BEGIN");
	CHECK_EQ_INT(trace_unpack(db, err, sizeof(err)), 0);
	exec(db, "COMMIT");
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++)
		check_same_rows(db, t->name, "orig", "main");
	CHECK_EQ_STR(meta(db, "packed_version"), "");
	CHECK_EQ_STR(meta(db, "min_reader_version"), "1");
	int64_t n;
	CHECK_EQ_INT(trace_db_int(db, "SELECT COUNT(*) FROM main.kernel_phases", NULL, &n), SQLITE_OK);
	CHECK_EQ_INT(n, KERNELS);
	CHECK_EQ_INT(trace_db_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE "
				      "'packed%'", NULL, &n), SQLITE_OK);
	CHECK_EQ_INT(n, 0);
	sqlite3_close(db);
	/* packing twice changes nothing */
	pack();
	pack();
	CHECK(usable("kernels"));
	unlink(rows);
	unlink(path);
}

/* A cell trace_pack cannot give back as it was is refused, not changed. */
TEST(packing_refuses_what_it_cannot_keep)
{
	write_trace();
	sqlite3 *db;
	char err[256];
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, "UPDATE kernels SET start = start + 0.5 WHERE id = 7");
	exec(db, "BEGIN");
	CHECK_EQ_INT(trace_pack(db, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "kernels row 7: column start holds a real number"));
	exec(db, "ROLLBACK; UPDATE kernels SET start = CAST(start AS INTEGER);"
		 "ALTER TABLE api_calls ADD COLUMN note TEXT");
	exec(db, "BEGIN");
	CHECK_EQ_INT(trace_pack(db, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "column 'note' that kgantt does not know"));
	exec(db, "ROLLBACK");
	sqlite3_close(db);
	unlink(path);
}

TEST(edited_rows_drop_version_1_blocks)
{
	write_trace();
	pack_v1();
	sql("DELETE FROM kernels WHERE id % 97 = 0");
	CHECK(!usable("kernels"));
	CHECK(usable("api_calls"));
	struct kg_model a, b;
	load(&a, 0, 0);
	load(&b, 1, 1);
	check_same(&a, &b);
	pack_v1();
	sql("UPDATE api_calls SET end = end + 1 WHERE id = 5");
	CHECK(usable("kernels") && !usable("api_calls"));
	pack_v1();
	sql("INSERT INTO kernels(process, device, context, stream, start, end) "
	    "VALUES(1, 0, 1, 7, 5, 6)");
	CHECK(!usable("kernels"));
	/* blocks whose ids no longer span the table's */
	pack_v1();
	sql("DROP TRIGGER packed_kernels_delete; DELETE FROM kernels WHERE id = 1");
	CHECK(!usable("kernels"));
	model_free(&a);
	model_free(&b);
	unlink(path);
}

TEST(unpacking_version_1_removes_blocks_and_triggers)
{
	write_trace();
	pack_v1();
	sqlite3 *db;
	char err[256];
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK_EQ_INT(trace_unpack(db, err, sizeof(err)), 0);
	sqlite3_close(db);
	CHECK_EQ_INT(sql_int("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'packed%'"), 0);
	CHECK_EQ_INT(sql_int("SELECT COUNT(*) FROM kernels"), KERNELS);
	CHECK(!usable("kernels"));
	unlink(path);
}

TEST(damaged_version_1_blocks_fall_back_to_the_rows)
{
	write_trace();
	struct kg_model rows, k, a;
	load(&rows, 1, 1);
	pack_v1();
	sql("UPDATE packed SET data = substr(data, 1, length(data) - 9) WHERE tbl = 'kernels' "
	    "AND first_id = (SELECT MAX(first_id) FROM packed WHERE tbl = 'kernels')");
	CHECK(usable("kernels")); /* what packed_usable can see still agrees */
	load(&k, 0, 0);
	CHECK(has_note(&k, "packed kernels block"));
	CHECK(has_note(&k, "damaged"));
	drop_note(&k, "damaged");
	check_same(&rows, &k);
	pack_v1();
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

/* The load fails saying which file, table and block, and reads nothing it should not. */
static void load_fails(const char *says)
{
	for (int threads = 0; threads < 2; threads++) {
		struct kg_model m;
		struct kg_load_opts o = {.one_thread = threads};
		char err[512];
		model_init(&m, "kgantt", path);
		CHECK(read_kgt(&m, path, &o, err, sizeof(err)) < 0);
		if (!strstr(err, says) || !strstr(err, path))
			fprintf(stderr, "    %s\n", err);
		CHECK(strstr(err, says) && strstr(err, path));
		model_free(&m);
	}
	sqlite3 *db;
	char err[256];
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(packed_expand(db, "main", "temp", NULL, err, sizeof(err)) < 0);
	sqlite3_close(db);
}

/* packed_expand, as info, dump, merge and export make rows, fails naming the table. */
static void expand_fails(const char *says)
{
	sqlite3 *db;
	char err[256];
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK_EQ_INT(packed_expand(db, "main", "temp", NULL, err, sizeof(err)), -EBADMSG);
	CHECK(strstr(err, says));
	sqlite3_close(db);
}

TEST(damaged_compacted_blocks_are_errors)
{
	write_trace();
	pack();
	sql("UPDATE packed SET data = substr(data, 1, length(data) - 9) WHERE tbl = 'kernels' "
	    "AND first_id = (SELECT MAX(first_id) FROM packed WHERE tbl = 'kernels')");
	load_fails("the packed kernels block at id");
	expand_fails("the packed kernels block at id");
	pack(); /* compacted already: nothing to rebuild the blocks from */
	load_fails("the packed kernels block at id");
	write_trace();
	pack();
	sql("UPDATE packed SET data = zeroblob(40) WHERE tbl = 'api_calls' AND first_id = 1");
	load_fails("the packed api_calls block at id 1 is damaged");
	write_trace();
	pack();
	sql("UPDATE packed SET rows = rows - 1 WHERE tbl = 'api_calls' AND first_id = 1");
	load_fails("the packed api_calls block at id 1 is damaged");
	write_trace();
	pack(); /* blocks that overlap */
	sql("UPDATE packed SET last_id = last_id + 70000 WHERE tbl = 'kernels' AND first_id = 1");
	load_fails("the packed kernels block at id 68072 is damaged"); /* the one overlapped */
	expand_fails("the packed kernels block at id 68072 is damaged");
	unlink(path);
}

/* The rows of table's block at first_id, changed by change() and written back as a block
 * (its header as it was): a writer that lies about its rows. */
static void rewrite_block(const char *table, int64_t first_id,
			  void (*change)(struct kg_row *rows, uint32_t n, int id))
{
	const struct kg_packed_table *t = packed_table(table);
	sqlite3 *db;
	sqlite3_stmt *st;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "SELECT rows, data FROM packed WHERE tbl = ?1 AND first_id = ?2",
				 -1, &st, NULL) == SQLITE_OK);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, first_id);
	CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
	uint32_t n = (uint32_t)sqlite3_column_int64(st, 0);
	struct kg_row *rows = calloc(n, sizeof(*rows));
	struct kg_packed_block b;
	CHECK_EQ_INT(packed_block_open(&b, sqlite3_column_blob(st, 1),
				       (size_t)sqlite3_column_bytes(st, 1), t->nstored, n), 0);
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ_INT(packed_block_row(&b, &rows[i]), 1);
	packed_block_close(&b);
	sqlite3_finalize(st);
	change(rows, n, packed_id_column(t));
	struct kg_packed_writer *w = packed_writer_new(t->nstored, t->stored);
	for (uint32_t i = 0; i < n; i++)
		CHECK_EQ_INT(packed_writer_add(w, &rows[i]), 0);
	const void *data;
	size_t len;
	CHECK_EQ_INT(packed_writer_finish(w, &data, &len), 0);
	CHECK(sqlite3_prepare_v2(db, "UPDATE packed SET data = ?3 WHERE tbl = ?1 AND first_id = ?2",
				 -1, &st, NULL) == SQLITE_OK);
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, first_id);
	sqlite3_bind_blob(st, 3, data, (int)len, SQLITE_STATIC);
	CHECK_EQ_INT(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	packed_writer_free(w);
	free(rows);
	sqlite3_close(db);
}

/* the second row's id given to the third as well: the block's first and last ids hold */
static void duplicate_id(struct kg_row *rows, uint32_t n, int id)
{
	CHECK(n > 3);
	rows[2].v[id] = rows[1].v[id];
}

static void swap_ids(struct kg_row *rows, uint32_t n, int id)
{
	int64_t x = rows[1].v[id];
	rows[1].v[id] = rows[2].v[id];
	rows[2].v[id] = x;
}

/* A trace loads exactly when its rows can be written out ('export -f sqlite', 'pack
 * --drop', dump, merge: packed_expand): the model loader, which reads the blocks' first
 * columns, checks what the writers of every column check, and says it in their words.
 * Each of these loaded before, and then failed to export (duplicate ids: SQLite's
 * "UNIQUE constraint failed"; a block whose rows do not carry the ids it claims). */
TEST(a_trace_loads_exactly_when_its_rows_can_be_written_out)
{
	write_trace();
	pack();
	rewrite_block("kernels", 1, duplicate_id);
	load_fails("the packed kernels block at id 1 is damaged");
	expand_fails("the packed kernels block at id 1 is damaged");
	write_trace();
	pack();
	rewrite_block("api_calls", 1, swap_ids);
	load_fails("the packed api_calls block at id 1 is damaged");
	expand_fails("the packed api_calls block at id 1 is damaged");
	write_trace();
	pack(); /* a block that claims ids its rows do not have */
	sql("UPDATE packed SET first_id = first_id + 1000000, last_id = last_id + 1000000 WHERE "
	    "tbl = 'kernels' AND first_id = (SELECT MAX(first_id) FROM packed WHERE tbl = "
	    "'kernels')");
	int64_t at = sql_int("SELECT MAX(first_id) FROM packed WHERE tbl = 'kernels'");
	char says[128];
	snprintf(says, sizeof(says), "the packed kernels block at id %lld is damaged", (long long)at);
	load_fails(says);
	expand_fails(says);
	write_trace();
	pack(); /* the same block twice, under other ids */
	sql("INSERT INTO packed SELECT tbl, first_id + 1000000, last_id + 1000000, rows, data FROM "
	    "packed WHERE tbl = 'kernels' AND first_id = 1");
	load_fails("the packed kernels block at id 1000001 is damaged");
	expand_fails("the packed kernels block at id 1000001 is damaged");
	unlink(path);
}

/* A feed (a second thread decoding ahead) gives packed_rows' rows, ids and errors, and
 * stops cleanly when closed before its last row. */
static void check_feed(sqlite3 *db, const struct kg_packed_table *t, const char *says)
{
	char err[256], ferr[256] = "";
	struct kg_packed_rows *x;
	struct kg_packed_feed *f;
	struct kg_row rx;
	const struct kg_row *ry;
	int64_t idx, idy;
	int gx, gy = 1, rows = 0;
	CHECK_EQ_INT(packed_rows_open(db, "main", t, &x, err, sizeof(err)), 0);
	CHECK_EQ_INT(packed_feed_open(path, t, &f, ferr, sizeof(ferr)), 0);
	while ((gx = packed_rows_next(x, &rx, &idx)) == 1) {
		if ((gy = packed_feed_next(f, &ry, &idy, ferr, sizeof(ferr))) != 1)
			break;
		CHECK(idx == idy);
		CHECK(rx.nulls == ry->nulls);
		for (int c = 0; c < t->nstored; c++)
			CHECK(row_is_null(&rx, c) || rx.v[c] == ry->v[c]);
		rows++;
	}
	if (gx == 1) /* the feed ended first */
		CHECK_EQ_INT(gy, 1);
	else
		CHECK_EQ_INT(packed_feed_next(f, &ry, &idy, ferr, sizeof(ferr)), gx);
	if (says) {
		CHECK(gx < 0 && strstr(err, says) && !strcmp(err, ferr));
	} else {
		CHECK_EQ_INT(gx, 0);
		CHECK(rows > 8192); /* several batches */
		CHECK_EQ_INT(packed_feed_next(f, &ry, &idy, ferr, sizeof(ferr)), 0); /* stays at the end */
	}
	packed_rows_close(x);
	packed_feed_close(f);
	/* closed after one row, and before any */
	CHECK_EQ_INT(packed_feed_open(path, t, &f, ferr, sizeof(ferr)), 0);
	CHECK(packed_feed_next(f, &ry, &idy, ferr, sizeof(ferr)) != 0);
	packed_feed_close(f);
	CHECK_EQ_INT(packed_feed_open(path, t, &f, ferr, sizeof(ferr)), 0);
	packed_feed_close(f);
}

TEST(feeds_give_the_rows_and_errors_of_packed_rows)
{
	write_trace();
	pack();
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	check_feed(db, packed_table("kernels"), NULL);
	check_feed(db, packed_table("api_calls"), NULL);
	sqlite3_close(db);
	rewrite_block("kernels", 1, duplicate_id);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	check_feed(db, packed_table("kernels"), "the packed kernels block at id 1 is damaged");
	sqlite3_close(db);
	/* a file that cannot be opened: said by the first row */
	char ferr[256] = "";
	struct kg_packed_feed *f;
	const struct kg_row *row;
	int64_t id;
	CHECK_EQ_INT(packed_feed_open("/nonexistent/x.kgt", packed_table("kernels"), &f, ferr,
				      sizeof(ferr)), 0);
	CHECK_EQ_INT(packed_feed_next(f, &row, &id, ferr, sizeof(ferr)), -EIO);
	CHECK(strstr(ferr, "cannot open '/nonexistent/x.kgt'"));
	packed_feed_close(f);
	unlink(path);
}

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

/* Row and string ids far apart: a few rows in a 100 KB file whose largest ids would size
 * the reader's tables — a slot per kernel id, room for copies up to the largest copy id
 * (70M x 120 bytes: 8.4 GB), 4 bytes per string id. Found by tests/fuzz/fuzz_kgt. The
 * tables must follow the rows there are, and the rows must still all be read. */
TEST(sparse_ids_do_not_size_allocations)
{
	test_trace_path(path, sizeof(path), "sparse");
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, kg_schema_sql);
	CHECK_EQ_INT(trace_create_rows(db, "main"), SQLITE_OK);
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
	for (int way = 0; way < 3; way++) { /* blocks, rows, compacted */
		struct kg_load_opts o = {.rows_only = way == 1};
		if (way == 2)
			pack();
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
	test_trace_path(path, sizeof(path), "min");
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, kg_schema_sql);
	CHECK_EQ_INT(trace_create_rows(db, "main"), SQLITE_OK);
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
	for (int way = 0; way < 3; way++) { /* blocks, rows, compacted */
		struct kg_model m;
		struct kg_load_opts o = {.rows_only = way == 1};
		char err[512];
		if (way == 2)
			pack();
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
