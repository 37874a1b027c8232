/* The Nsight Systems SQLite reader, on real H200 kgantt traces converted to nsys's export
 * layout by tests/tools/kgt_to_nsys.py (no nsys export could be made where kgantt is
 * developed). The model read from each export is checked against the kgantt trace it came
 * from, queried with SQL: the numbers stay right when a fixture is recorded again. Then
 * bad inputs: unrelated SQLite files, missing tables and columns, NULL names, wrong types,
 * truncated and damaged files.
 *
 * The converted files (and a decompressed copy of each trace) are made on first use
 * under build/tests/nsys/, with python3 and its sqlite3 and lzma modules, and again when
 * the converter or the fixture is newer. */
#include "harness.h"

#include <errno.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "model/load.h"

#define OUT_DIR "build/tests/nsys"
#define CONVERTER "tests/tools/kgt_to_nsys.py"
#define FIXTURES "tests/fixtures/h200/"

static int64_t mtime(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (int64_t)sb.st_mtime : -1;
}

/* The nsys export of fixture NAME in the given schema layout ("3.28" or "3.16"); the
 * decompressed trace is left beside it as NAME.kgt. */
static const char *nsys_file(const char *name, const char *schema)
{
	static char out[256];
	char fixture[256], kgt[256], cmd[1024];
	snprintf(fixture, sizeof(fixture), FIXTURES "%s.kgt.xz", name);
	snprintf(out, sizeof(out), OUT_DIR "/%s-%s.sqlite", name, schema);
	snprintf(kgt, sizeof(kgt), OUT_DIR "/%s.kgt", name);
	int64_t t = mtime(out) < mtime(kgt) ? mtime(out) : mtime(kgt);
	if (t >= 0 && t >= mtime(fixture) && t >= mtime(CONVERTER))
		return out;
	mkdir("build", 0755);
	mkdir("build/tests", 0755);
	mkdir(OUT_DIR, 0755);
	snprintf(cmd, sizeof(cmd), "python3 " CONVERTER " --schema %s --kgt-copy %s %s %s", schema,
		 kgt, fixture, out);
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "    '%s' failed (exit %d): python3 with sqlite3 and lzma needed\n",
			cmd, rc);
	CHECK(rc == 0);
	return out;
}

/* ------------------------------------------------------------------ the kgantt side */

/* The views the checks query: ops = the kernels, copies and memsets that ran (nsys has
 * no row for the others), with their pid; active = processes with any CUDA or NVTX row. */
static const char kgt_views[] =
	"CREATE TEMP VIEW ops AS SELECT o.*, p.pid FROM ("
	" SELECT process, device, context, stream, correlation, start, end, 0 AS kind"
	" FROM kernels UNION ALL SELECT process, device, context, stream, correlation, start,"
	" end, 1 FROM memcpys UNION ALL SELECT process, device, context, stream, correlation,"
	" start, end, 2 FROM memsets) o JOIN processes p USING(process)"
	" WHERE o.start IS NOT NULL AND o.end IS NOT NULL;"
	"CREATE TEMP VIEW active AS SELECT process FROM ops UNION SELECT process FROM api_calls"
	" UNION SELECT process FROM nvtx UNION SELECT process FROM syncs;";

static sqlite3 *kgt_open(const char *name)
{
	char path[256];
	snprintf(path, sizeof(path), OUT_DIR "/%s.kgt", name);
	sqlite3 *db;
	CHECK_EQ_INT(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_exec(db, kgt_views, NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static sqlite3_stmt *query(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fprintf(stderr, "    %s: %s\n", sql, sqlite3_errmsg(db));
	CHECK(st != NULL);
	return st;
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = query(db, sql);
	CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* One number of a fixture's kgantt trace. */
static int64_t kgt_int(const char *name, const char *sql)
{
	sqlite3 *db = kgt_open(name);
	int64_t v = q_int(db, sql);
	sqlite3_close(db);
	return v;
}

static const char *col_text(sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);
	return t ? t : "";
}

/* ------------------------------------------------------------------ the nsys side */

struct loaded {
	struct kg_model m;
	char err[512];
	int rc;
};

/* read_nsys + model_finish, as model_load does after detecting the format. */
static void load(struct loaded *l, const char *path)
{
	model_init(&l->m, "nsys", path);
	l->err[0] = '\0';
	l->rc = read_nsys(&l->m, path, NULL, l->err, sizeof(l->err));
	if (l->rc == 0)
		CHECK_EQ_INT(model_finish(&l->m), 0);
}

static void load_ok(struct loaded *l, const char *path)
{
	load(l, path);
	if (l->rc)
		fprintf(stderr, "    %s\n", l->err);
	CHECK_EQ_INT(l->rc, 0);
}

static uint32_t count_ops(const struct kg_model *m, enum kg_op_kind kind)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_ops; i++)
		n += m->ops[i].kind == kind;
	return n;
}

static uint32_t pid_of(const struct kg_model *m, uint32_t process)
{
	return m->processes[process].pid;
}

static const struct kg_stream *find_stream(const struct kg_model *m, int64_t pid, int64_t id)
{
	for (uint32_t i = 0; i < m->n_streams; i++)
		if (pid_of(m, m->streams[i].process) == pid && m->streams[i].id == id)
			return &m->streams[i];
	return NULL;
}

static int has_note(const struct kg_model *m, const char *part)
{
	for (int i = 0; i < m->n_notes; i++)
		if (strstr(m->notes[i], part))
			return 1;
	return 0;
}

/* A private copy of an export, changed by sql, for the bad-input tests. */
static const char *altered(const char *src, const char *sql)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/kgantt-nsys-XXXXXX");
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	FILE *in = fopen(src, "rb");
	CHECK(in != NULL);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		CHECK(write(fd, buf, n) == (ssize_t)n);
	fclose(in);
	close(fd);
	if (sql) {
		sqlite3 *db;
		char *msg = NULL;
		CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
		int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
		if (rc != SQLITE_OK)
			fprintf(stderr, "    %s: %s\n", sql, msg);
		sqlite3_free(msg);
		sqlite3_close(db);
		CHECK_EQ_INT(rc, SQLITE_OK);
	}
	return path;
}

/* SQL that copies a table without its NOT NULL constraints, which nsys's schema has on
 * many columns, so that a test can put NULLs there as a hand-made file might. */
#define LOOSEN(t) "CREATE TABLE loose AS SELECT * FROM " t "; DROP TABLE " t ";" \
		  "ALTER TABLE loose RENAME TO " t ";"

/* ------------------------------------------------------------------ model = kgantt trace */

static void check_processes(const struct kg_model *m, sqlite3 *db)
{
	CHECK_EQ_INT(m->n_processes,
		     q_int(db, "SELECT COUNT(*) FROM processes WHERE process IN active"));
	sqlite3_stmt *st = query(db, "SELECT pid, host FROM processes WHERE process IN active");
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t found = KG_NONE;
		for (uint32_t i = 0; i < m->n_processes; i++)
			if (m->processes[i].pid == sqlite3_column_int64(st, 0))
				found = i;
		CHECK(found != KG_NONE);
		CHECK_EQ_STR(model_text(m, m->processes[found].host), col_text(st, 1));
	}
	sqlite3_finalize(st);
	CHECK_EQ_INT(m->n_threads, q_int(db, "SELECT COUNT(*) FROM (SELECT process, thread FROM"
					     " api_calls UNION SELECT process, thread FROM nvtx)"));
}

/* Each device the model has is the kgantt trace's, with its properties; the physical
 * GPUs are those that ran something. */
static void check_devices(const struct kg_model *m, sqlite3 *db)
{
	sqlite3_stmt *st = query(db, "SELECT d.name, d.uuid, d.sm_count, d.cc_major, d.cc_minor,"
				     " d.max_warps_per_sm, d.memory_bytes FROM devices d JOIN"
				     " processes p USING(process)"
				     " WHERE p.pid = ? AND d.device = ?");
	for (uint32_t i = 0; i < m->n_devices; i++) {
		const struct kg_device *d = &m->devices[i];
		sqlite3_bind_int64(st, 1, pid_of(m, d->process));
		sqlite3_bind_int64(st, 2, d->ordinal);
		CHECK_EQ_INT(sqlite3_step(st), SQLITE_ROW);
		CHECK_EQ_STR(model_text(m, d->name), col_text(st, 0));
		CHECK_EQ_STR(model_text(m, d->uuid), col_text(st, 1));
		CHECK_EQ_INT(d->sm_count, sqlite3_column_int(st, 2));
		CHECK_EQ_INT(d->cc_major, sqlite3_column_int(st, 3));
		CHECK_EQ_INT(d->cc_minor, sqlite3_column_int(st, 4));
		CHECK_EQ_INT(d->max_warps_per_sm, sqlite3_column_int(st, 5));
		CHECK_EQ_INT(d->memory_bytes, sqlite3_column_int64(st, 6));
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	CHECK_EQ_INT(m->n_gpus, q_int(db, "SELECT COUNT(DISTINCT d.uuid) FROM devices d WHERE"
					  " (process, device) IN"
					  " (SELECT process, device FROM ops)"));
}

/* The streams of every context that ran something, with priority and kind. */
static void check_streams(const struct kg_model *m, sqlite3 *db)
{
	static const char sql[] =
		"SELECT p.pid, s.stream, s.priority, s.flags, s.stream = c.null_stream"
		" FROM streams s JOIN processes p USING(process) JOIN contexts c USING(process,"
		" context) WHERE (s.process, s.context) IN (SELECT process, context FROM ops)";
	sqlite3_stmt *st = query(db, sql);
	uint32_t n = 0;
	for (; sqlite3_step(st) == SQLITE_ROW; n++) {
		const struct kg_stream *s =
			find_stream(m, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
		CHECK(s != NULL);
		CHECK_EQ_INT(s->priority, sqlite3_column_int(st, 2));
		int flags = sqlite3_column_int(st, 3), legacy = sqlite3_column_int(st, 4);
		CHECK_EQ_INT(s->kind, legacy || flags == 3 ? KG_STREAM_LEGACY_DEFAULT
				      : flags == 2	 ? KG_STREAM_NON_BLOCKING
				      : flags == 1	 ? KG_STREAM_BLOCKING
							 : KG_STREAM_UNKNOWN);
	}
	sqlite3_finalize(st);
	CHECK_EQ_INT(m->n_streams, n);
}

/* Per process, stream and kind: how many ops and their total time, to the nanosecond. */
static void check_ops(const struct kg_model *m, sqlite3 *db)
{
	CHECK_EQ_INT(m->n_ops, q_int(db, "SELECT COUNT(*) FROM ops"));
	sqlite3_stmt *st = query(db, "SELECT pid, stream, kind, COUNT(*), SUM(end - start)"
				     " FROM ops GROUP BY 1, 2, 3");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const struct kg_stream *s =
			find_stream(m, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
		CHECK(s != NULL);
		int64_t n = 0, ns = 0;
		for (uint32_t i = s->first_op; i < s->first_op + s->nops; i++)
			if (m->ops[i].kind == sqlite3_column_int(st, 2)) {
				n++;
				ns += m->ops[i].end - m->ops[i].start;
				CHECK(i == s->first_op || m->ops[i].start >= m->ops[i - 1].start);
			}
		CHECK_EQ_INT(n, sqlite3_column_int64(st, 3));
		CHECK_EQ_INT(ns, sqlite3_column_int64(st, 4));
	}
	sqlite3_finalize(st);
}

static int64_t ops_named(const struct kg_model *m, enum kg_op_kind kind, const char *name)
{
	int64_t n = 0;
	for (uint32_t i = 0; i < m->n_ops; i++)
		n += m->ops[i].kind == kind && strcmp(model_text(m, m->ops[i].name), name) == 0;
	return n;
}

/* Kernels by (demangled) name; copies by kind, memory kinds and async; memsets likewise. */
static void check_names_and_kinds(const struct kg_model *m, sqlite3 *db)
{
	sqlite3_stmt *st = query(db, "SELECT s.text, COUNT(*) FROM kernels k JOIN strings s"
				     " ON s.id = COALESCE(k.demangled, k.name) WHERE k.start IS NOT"
				     " NULL AND k.end IS NOT NULL GROUP BY 1");
	while (sqlite3_step(st) == SQLITE_ROW)
		CHECK_EQ_INT(ops_named(m, KG_OP_KERNEL, col_text(st, 0)),
			     sqlite3_column_int64(st, 1));
	sqlite3_finalize(st);
	st = query(db, "SELECT copy_kind, src_kind, dst_kind, async, COUNT(*), SUM(bytes), 1"
		       " FROM memcpys WHERE start IS NOT NULL AND end IS NOT NULL GROUP BY 1,2,3,4"
		       " UNION ALL SELECT 0, 0, memory_kind, async, COUNT(*), SUM(bytes), 2"
		       " FROM memsets WHERE start IS NOT NULL AND end IS NOT NULL GROUP BY 3, 4");
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t n = 0, bytes = 0;
		for (uint32_t i = 0; i < m->n_ops; i++) {
			const struct kg_op *o = &m->ops[i];
			if (o->kind == sqlite3_column_int(st, 6) &&
			    o->copy_kind == sqlite3_column_int(st, 0) &&
			    o->src_kind == sqlite3_column_int(st, 1) &&
			    o->dst_kind == sqlite3_column_int(st, 2) &&
			    !!(o->flags & KG_OPF_ASYNC) == sqlite3_column_int(st, 3)) {
				n++;
				bytes += (int64_t)o->bytes;
			}
		}
		CHECK_EQ_INT(n, sqlite3_column_int64(st, 4));
		CHECK_EQ_INT(bytes, sqlite3_column_int64(st, 5));
	}
	sqlite3_finalize(st);
}

/* API calls, runtime or driver, and the call each op is linked to by correlation: the
 * earliest of its process with that id. */
static void check_apis(const struct kg_model *m, sqlite3 *db)
{
	CHECK_EQ_INT(m->n_apis,
		     q_int(db, "SELECT COUNT(*) FROM api_calls WHERE start IS NOT NULL"));
	int64_t runtime = 0, linked = 0;
	for (uint32_t i = 0; i < m->n_apis; i++)
		runtime += !m->apis[i].driver;
	CHECK_EQ_INT(runtime, q_int(db, "SELECT COUNT(*) FROM api_calls WHERE domain = 1"));
	for (uint32_t i = 0; i < m->n_ops; i++)
		linked += m->ops[i].api != KG_NONE;
	sqlite3_stmt *st = query(db, "SELECT s.text, COUNT(*) FROM ops o JOIN api_calls a ON"
				     " a.id = (SELECT b.id FROM api_calls b WHERE b.process ="
				     " o.process AND b.correlation = o.correlation"
				     " ORDER BY b.start, b.id LIMIT 1)"
				     " JOIN strings s ON s.id = a.name GROUP BY 1");
	int64_t total = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t n = 0;
		for (uint32_t i = 0; i < m->n_ops; i++) {
			uint32_t a = m->ops[i].api;
			const char *name = a == KG_NONE ? NULL : model_text(m, m->apis[a].name);
			n += name && strcmp(name, col_text(st, 0)) == 0;
		}
		CHECK_EQ_INT(n, sqlite3_column_int64(st, 1));
		total += n;
	}
	sqlite3_finalize(st);
	CHECK_EQ_INT(linked, total);
}

/* Syncs by kind and the stream they waited for. */
static void check_syncs(const struct kg_model *m, sqlite3 *db)
{
	CHECK_EQ_INT(m->n_syncs, q_int(db, "SELECT COUNT(*) FROM syncs WHERE start IS NOT NULL"
					   " AND end IS NOT NULL"));
	sqlite3_stmt *st = query(db, "SELECT type, COALESCE(stream, -1), COUNT(*) FROM syncs"
				     " WHERE start IS NOT NULL AND end IS NOT NULL GROUP BY 1, 2");
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t n = 0;
		for (uint32_t i = 0; i < m->n_syncs; i++) {
			const struct kg_sync *y = &m->syncs[i];
			int64_t stream = y->stream == KG_NONE ? -1 : m->streams[y->stream].id;
			n += y->kind == sqlite3_column_int(st, 0) &&
			     stream == sqlite3_column_int64(st, 1) && y->api != KG_NONE;
		}
		CHECK_EQ_INT(n, sqlite3_column_int64(st, 2));
	}
	sqlite3_finalize(st);
}

/* NVTX ranges by name and domain, with their total time (open ranges count 0). */
static void check_ranges(const struct kg_model *m, sqlite3 *db)
{
	CHECK_EQ_INT(m->n_ranges, q_int(db, "SELECT COUNT(*) FROM nvtx"));
	sqlite3_stmt *st = query(db, "SELECT s.text, COALESCE(d.text, ''), COUNT(*),"
				     " SUM(COALESCE(n.end - n.start, 0)) FROM nvtx n JOIN strings s"
				     " ON s.id = n.name LEFT JOIN strings d ON d.id = n.domain"
				     " GROUP BY 1, 2");
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t n = 0, ns = 0;
		for (uint32_t i = 0; i < m->n_ranges; i++) {
			const struct kg_range *g = &m->ranges[i];
			if (strcmp(model_text(m, g->name), col_text(st, 0)) == 0 &&
			    strcmp(model_text(m, g->domain), col_text(st, 1)) == 0) {
				n++;
				ns += g->end == KG_NO_TIME ? 0 : g->end - g->start;
			}
		}
		CHECK_EQ_INT(n, sqlite3_column_int64(st, 2));
		CHECK_EQ_INT(ns, sqlite3_column_int64(st, 3));
	}
	sqlite3_finalize(st);
}

/* Loads the export of fixture name and checks the model against the kgantt trace. The
 * model is left in l for the test's own checks. */
static void load_and_compare(struct loaded *l, const char *name, const char *schema)
{
	load_ok(l, nsys_file(name, schema));
	sqlite3 *db = kgt_open(name);
	check_processes(&l->m, db);
	check_devices(&l->m, db);
	check_streams(&l->m, db);
	check_ops(&l->m, db);
	check_names_and_kinds(&l->m, db);
	check_apis(&l->m, db);
	check_syncs(&l->m, db);
	check_ranges(&l->m, db);
	sqlite3_close(db);
	CHECK_EQ_INT(l->m.n_notes, 0);
	CHECK(l->m.begin != KG_NO_TIME && l->m.end > l->m.begin);
}

/* ------------------------------------------------------------------ real traces */

/* copies_bad: pageable copies, HtoD by cudaMemcpyAsync and DtoH by cudaMemcpy, beside a
 * kernel on another stream; memsets on the legacy stream; one H200. */
static void check_copies_bad(const char *schema)
{
	struct loaded l;
	load_and_compare(&l, "copies_bad", schema);
	struct kg_model *m = &l.m;
	CHECK_EQ_STR(m->source, "nsys");
	CHECK_EQ_STR(model_text(m, m->processes[0].cmdline), "copies");
	CHECK_EQ_INT(m->threads[0].tid, m->processes[0].pid); /* the main thread */
	CHECK_EQ_STR(model_text(m, m->threads[0].name), "copies");
	const struct kg_device *d = &m->devices[0];
	CHECK_EQ_STR(model_text(m, d->name), "NVIDIA H200");
	CHECK_EQ_INT(d->sm_count, 132);
	CHECK_EQ_INT(d->smem_per_block, 49152);
	CHECK(count_ops(m, KG_OP_MEMCPY) > 0);
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		const char *api = o->api == KG_NONE ? "" : model_text(m, m->apis[o->api].name);
		CHECK_EQ_INT(o->queued, KG_NO_TIME); /* nsys does not export it */
		if (o->kind == KG_OP_KERNEL) {
			CHECK_EQ_STR(model_text(m, o->name),
				     "copies_compute(float const*, float*, unsigned long, int)");
			CHECK_EQ_STR(api, "cudaLaunchKernel_v7000");
			CHECK(o->api_start <= o->start);
		} else if (o->kind == KG_OP_MEMCPY && o->copy_kind == KG_COPY_HTOD) {
			CHECK_EQ_STR(model_text(m, o->name), "memcpy HtoD pageable→device");
			CHECK_EQ_STR(api, "cudaMemcpyAsync_v3020");
			CHECK(o->flags & KG_OPF_ASYNC);
		} else if (o->kind == KG_OP_MEMCPY) {
			CHECK_EQ_INT(o->src_kind, KG_MEM_DEVICE);
			CHECK_EQ_INT(o->dst_kind, KG_MEM_PAGEABLE);
			CHECK(!(o->flags & KG_OPF_ASYNC));
		} else {
			CHECK_EQ_STR(model_text(m, o->name), "memset device");
			CHECK_EQ_INT(m->streams[o->stream].kind, KG_STREAM_LEGACY_DEFAULT);
		}
	}
	model_free(m);
}

TEST(copies_bad_schema_3_28)
{
	check_copies_bad("3.28");
}

TEST(copies_bad_schema_3_16)
{
	check_copies_bad("3.16");
}

/* streams_fixed: the same kernel on 8 non-blocking streams; no copies, so the export has
 * no CUPTI_ACTIVITY_KIND_MEMCPY table at all. */
TEST(streams_fixed)
{
	struct loaded l;
	load_and_compare(&l, "streams_fixed", "3.28");
	uint32_t busy = 0;
	for (uint32_t i = 0; i < l.m.n_streams; i++)
		busy += l.m.streams[i].kind == KG_STREAM_NON_BLOCKING &&
			l.m.streams[i].nops == 20;
	CHECK_EQ_INT(busy, 8);
	CHECK_EQ_INT(count_ops(&l.m, KG_OP_MEMCPY), 0);
	CHECK_EQ_INT(ops_named(&l.m, KG_OP_KERNEL, "streams_work(float*, int)"), 160);
	model_free(&l.m);
}

/* nvtx_bad: push/pop ranges (whole_run, step, forward, backward) and a mark. */
static void check_nvtx(const char *schema)
{
	struct loaded l;
	load_and_compare(&l, "nvtx_bad", schema);
	uint32_t marks = 0;
	for (uint32_t i = 0; i < l.m.n_ranges; i++) {
		const struct kg_range *g = &l.m.ranges[i];
		CHECK(g->thread != KG_NONE);
		if (strcmp(model_text(&l.m, g->name), "halfway") == 0) {
			marks++;
			CHECK_EQ_INT(g->end, g->start);
		}
	}
	CHECK_EQ_INT(marks, 1);
	model_free(&l.m);
}

TEST(nvtx_bad)
{
	check_nvtx("3.28");
}

TEST(nvtx_bad_schema_3_16)
{
	check_nvtx("3.16");
}

/* Registered NVTX strings come through textId, and domains by their DomainCreate row. */
TEST(nvtx_registered_strings_and_domains)
{
	const char *path = altered(
		nsys_file("nvtx_bad", "3.28"),
		"INSERT INTO StringIds SELECT (SELECT MAX(id) FROM StringIds) + 1, 'step' "
		" WHERE NOT EXISTS (SELECT 1 FROM StringIds WHERE value = 'step');"
		"UPDATE NVTX_EVENTS SET textId = (SELECT id FROM StringIds WHERE value = 'step'),"
		" text = NULL WHERE text = 'step';"
		"INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid, domainId, eventId)"
		" SELECT 1, 75, 'training', globalTid, 3, 1000 FROM NVTX_EVENTS LIMIT 1;"
		"UPDATE NVTX_EVENTS SET domainId = 3 WHERE eventType = 59;");
	struct loaded l;
	load_ok(&l, path);
	int64_t steps = 0, in_domain = 0;
	for (uint32_t i = 0; i < l.m.n_ranges; i++) {
		steps += strcmp(model_text(&l.m, l.m.ranges[i].name), "step") == 0;
		in_domain += strcmp(model_text(&l.m, l.m.ranges[i].domain), "training") == 0;
	}
	/* the domain's creation is not a range */
	CHECK_EQ_INT(l.m.n_ranges, kgt_int("nvtx_bad", "SELECT COUNT(*) FROM nvtx"));
	CHECK_EQ_INT(steps, kgt_int("nvtx_bad", "SELECT COUNT(*) FROM nvtx n JOIN strings s"
						" ON s.id = n.name WHERE s.text = 'step'"));
	CHECK_EQ_INT(in_domain, kgt_int("nvtx_bad", "SELECT COUNT(*) FROM nvtx WHERE end > start"));
	model_free(&l.m);
	unlink(path);
}

/* timeslice_bad: two processes time-slicing one H200; their correlation ids repeat. */
TEST(timeslice_two_processes)
{
	struct loaded l;
	load_and_compare(&l, "timeslice_bad", "3.28");
	struct kg_model *m = &l.m;
	CHECK_EQ_INT(m->n_processes, 2);
	CHECK_EQ_INT(m->n_devices, 2);
	CHECK_EQ_INT(m->n_gpus, 1); /* the same UUID: one physical GPU */
	for (uint32_t i = 0; i < m->n_ops; i++) {
		CHECK(m->ops[i].api != KG_NONE);
		CHECK_EQ_INT(m->apis[m->ops[i].api].process, m->streams[m->ops[i].stream].process);
	}
	model_free(m);
}

/* launches_graph: kernels launched by replays of one CUDA graph. */
TEST(graph_kernels)
{
	struct loaded l;
	load_and_compare(&l, "launches_graph", "3.28");
	int64_t graph = 0;
	for (uint32_t i = 0; i < l.m.n_ops; i++)
		if (l.m.ops[i].flags & KG_OPF_GRAPH) {
			graph++;
			CHECK_EQ_STR(model_text(&l.m, l.m.apis[l.m.ops[i].api].name),
				     "cudaGraphLaunch_v10000");
		}
	CHECK(graph > 0);
	/* and each graph's kernels carry its id */
	sqlite3 *db = kgt_open("launches_graph");
	sqlite3_stmt *st = query(db, "SELECT graph, COUNT(*) FROM kernels WHERE graph IS NOT NULL"
				     " GROUP BY 1");
	int64_t total = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t n = 0;
		for (uint32_t i = 0; i < l.m.n_ops; i++)
			n += (l.m.ops[i].flags & KG_OPF_GRAPH) &&
			     l.m.ops[i].graph == sqlite3_column_int64(st, 0);
		CHECK_EQ_INT(n, sqlite3_column_int64(st, 1));
		total += n;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	CHECK_EQ_INT(graph, total);
	model_free(&l.m);
}

/* The 2024.6 layout has no graphId: graph kernels are still known by their graph node. */
TEST(graph_kernels_without_graph_id)
{
	const char *path = altered(nsys_file("launches_graph", "3.28"),
				   "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN graphId");
	struct loaded l;
	load_ok(&l, path);
	int64_t graph = 0;
	for (uint32_t i = 0; i < l.m.n_ops; i++)
		graph += l.m.ops[i].kind == KG_OP_KERNEL && (l.m.ops[i].flags & KG_OPF_GRAPH);
	CHECK_EQ_INT(graph, kgt_int("launches_graph", "SELECT COUNT(*) FROM kernels"
						      " WHERE graph IS NOT NULL"));
	model_free(&l.m);
	unlink(path);
}

/* torchrun_2ranks: the launcher and two ranks, one GPU each. Each device gets its own
 * GPU's properties through TARGET_INFO_CUDA_DEVICE. */
TEST(torchrun_two_gpus)
{
	struct loaded l;
	load_and_compare(&l, "torchrun_2ranks", "3.28");
	CHECK_EQ_INT(l.m.n_processes, 3);
	CHECK_EQ_INT(l.m.n_gpus, 2);
	model_free(&l.m);
}

/* More recordings, each compared with its kgantt trace as above. */
#define COMPARED(name)                                   \
	TEST(name)                                       \
	{                                                \
		struct loaded l;                         \
		load_and_compare(&l, #name, "3.28");     \
		model_free(&l.m);                        \
	}
COMPARED(launches_bad)
COMPARED(launches_bad_kernels)
COMPARED(occupancy_bad)
COMPARED(copies_fixed)
COMPARED(streams_bad)
COMPARED(streams_busy)
COMPARED(multigpu_bad)
COMPARED(timeslice_fixed)
COMPARED(longrun_killed)
COMPARED(capture_range)
COMPARED(torch_transformer_bf16)
COMPARED(torch_two_streams)
COMPARED(torch_pageable_item)
COMPARED(end_abort)

static void count_progress(double f, void *arg)
{
	double *last = arg;
	CHECK(f >= *last - 1e-9 && f <= 1.0);
	*last = f;
}

TEST(progress_reaches_one)
{
	double last = 0;
	struct kg_load_opts opts = {.progress = count_progress, .progress_arg = &last};
	struct kg_model m;
	char err[256];
	const char *path = nsys_file("launches_graph", "3.28");
	model_init(&m, "nsys", path);
	CHECK_EQ_INT(read_nsys(&m, path, &opts, err, sizeof(err)), 0);
	CHECK(last == 1.0);
	model_free(&m);
}

/* Without the ENUM tables the reader falls back on the codes the schema reference gives:
 * nsys's memory kinds count from pageable = 0, CUPTI's from 1. */
TEST(codes_without_enum_tables)
{
	const char *path = altered(nsys_file("copies_bad", "3.28"),
				   "DROP TABLE ENUM_CUDA_MEM_KIND;"
				   "DROP TABLE ENUM_CUDA_MEMCPY_OPER;"
				   "DROP TABLE ENUM_CUPTI_SYNC_TYPE;"
				   "DROP TABLE ENUM_CUPTI_STREAM_TYPE;"
				   "DROP TABLE ENUM_NSYS_EVENT_CLASS;"
				   "DROP TABLE ENUM_NSYS_EVENT_TYPE;");
	struct loaded l;
	load_ok(&l, path);
	int64_t pageable_htod = 0, runtime = 0;
	for (uint32_t i = 0; i < l.m.n_ops; i++)
		pageable_htod += l.m.ops[i].copy_kind == KG_COPY_HTOD &&
				 l.m.ops[i].src_kind == KG_MEM_PAGEABLE &&
				 l.m.ops[i].dst_kind == KG_MEM_DEVICE;
	for (uint32_t i = 0; i < l.m.n_apis; i++)
		runtime += !l.m.apis[i].driver; /* from the function names */
	CHECK_EQ_INT(pageable_htod,
		     kgt_int("copies_bad", "SELECT COUNT(*) FROM memcpys WHERE copy_kind = 1"
					   " AND src_kind = 1 AND dst_kind = 3"));
	CHECK_EQ_INT(runtime,
		     kgt_int("copies_bad", "SELECT COUNT(*) FROM api_calls WHERE domain = 1"));
	CHECK_EQ_INT(l.m.syncs[0].kind, KG_SYNC_CONTEXT);
	model_free(&l.m);
	unlink(path);
}

/* Rows of a class nsys gives CUDA backtraces are not calls: counted, not loaded. */
TEST(backtrace_rows_skipped)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		"INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES (67, 'TRACE_PROCESS_EVENT_CUDABACKTRACE',"
		" 'CUDA backtrace');"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT start - 1, end + 1, 67, globalTid,"
		" correlationId, nameId, returnValue, 5 FROM CUPTI_ACTIVITY_KIND_RUNTIME"
		" WHERE eventClass = 0 LIMIT 10;");
	struct loaded l;
	load_ok(&l, path);
	CHECK_EQ_INT(l.m.n_apis, kgt_int("copies_bad", "SELECT COUNT(*) FROM api_calls"));
	CHECK(has_note(&l.m, "10 CUDA API rows"));
	model_free(&l.m);
	unlink(path);
}

/* ------------------------------------------------------------------ CUDA API backtraces */

/* CUDA_CALLCHAINS as the schema reference defines it, a few symbols and one callchain
 * (id 7): the launch in libcudart, a mangled function of the program, main. */
#define CALLCHAINS                                                                        \
	"CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL,"     \
	" module INTEGER NOT NULL, unresolved INTEGER, originalIP INTEGER,"              \
	" stackDepth INTEGER NOT NULL, PRIMARY KEY (id, stackDepth));"                    \
	"INSERT INTO StringIds VALUES (100001, 'cudaLaunchKernel'),"                      \
	" (100002, '/usr/lib/x86_64-linux-gnu/libcudart.so.13'),"                         \
	" (100003, '_Z10launch_allPfi'), (100004, '/work/copies'), (100005, 'main'),"    \
	" (100006, '_ZN3app4stepEi'), (100007, '/usr/lib/x86_64-linux-gnu/libcuda.so.1'),"\
	" (100008, '_Z3foov'), (100009, 'cuLaunchKernel'), (100010, '');"                 \
	"INSERT INTO CUDA_CALLCHAINS VALUES (7, 100001, 100002, NULL, 385552, 0),"       \
	" (7, 100003, 100004, NULL, 10816, 1), (7, 100005, 100004, NULL, 12056, 2);"

/* The calls of one function in the export, as SQL. */
#define CALLS_OF(fn)                                                                      \
	" nameId = (SELECT id FROM StringIds WHERE value = '" fn "')"
#define LAUNCHES CALLS_OF("cudaLaunchKernel_v7000")
#define MEMCPYS CALLS_OF("cudaMemcpy_v3020")
#define MEMSETS CALLS_OF("cudaMemset_v3020")

static int64_t calls_named(const char *fn)
{
	char sql[256];
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM api_calls a JOIN strings s ON"
				   " s.id = a.name WHERE s.text = '%s'", fn);
	return kgt_int("copies_bad", sql);
}

/* Checks that the calls named fn all have one stack (returned), or none (KG_NONE). */
static uint32_t stack_of_calls(const struct kg_model *m, const char *fn)
{
	uint32_t stack = KG_NONE, n = 0;
	for (uint32_t i = 0; i < m->n_apis; i++) {
		if (strcmp(model_text(m, m->apis[i].name), fn) != 0)
			continue;
		if (n++ == 0)
			stack = m->apis[i].stack;
		CHECK_EQ_INT(m->apis[i].stack, stack);
	}
	CHECK_EQ_INT(n, calls_named(fn));
	return stack;
}

static uint32_t calls_with_stacks(const struct kg_model *m)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_apis; i++)
		n += m->apis[i].stack != KG_NONE;
	return n;
}

/* Frame d of stack s is function@module, native, without file, line or address. */
static void check_frame(const struct kg_model *m, uint32_t s, uint32_t d, const char *function,
			const char *module)
{
	CHECK(s < m->n_stacks && d < m->stacks[s].n_frames);
	const struct kg_frame *f = &m->frames[m->stacks[s].first_frame + d];
	CHECK_EQ_STR(model_text(m, f->function), function);
	CHECK_EQ_STR(model_text(m, f->module), module);
	CHECK_EQ_INT(f->kind, KG_FRAME_NATIVE);
	CHECK_EQ_INT(f->file, 0);
	CHECK_EQ_INT(f->line, 0);
	CHECK_EQ_INT(f->address, 0);
}

static void check_launch_stack(const struct kg_model *m, uint32_t s)
{
	CHECK_EQ_INT(m->stacks[s].n_frames, 3);
	CHECK_EQ_INT(m->stacks[s].flags, 0);
	check_frame(m, s, 0, "cudaLaunchKernel", "/usr/lib/x86_64-linux-gnu/libcudart.so.13");
	check_frame(m, s, 1, "launch_all(float*, int)", "/work/copies"); /* demangled */
	check_frame(m, s, 2, "main", "/work/copies");
}

/* Every launch names a callchain, half of them 7, half an equal copy of it (8): one
 * stack, innermost frame first, for all of them; the kernels' launches carry it. */
TEST(callchain_shared_by_many_calls)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		CALLCHAINS
		"INSERT INTO CUDA_CALLCHAINS SELECT 8, symbol, module, unresolved, originalIP,"
		" stackDepth FROM CUDA_CALLCHAINS WHERE id = 7;"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 7 + (rowid % 2) WHERE"
		LAUNCHES ";");
	struct loaded l;
	load_ok(&l, path);
	struct kg_model *m = &l.m;
	CHECK_EQ_INT(m->n_stacks, 1);
	CHECK_EQ_INT(m->n_frames, 3);
	uint32_t s = stack_of_calls(m, "cudaLaunchKernel_v7000");
	CHECK_EQ_INT(s, 0);
	check_launch_stack(m, s);
	CHECK_EQ_INT(m->stacks[s].process, 0);
	CHECK_EQ_INT(calls_with_stacks(m), calls_named("cudaLaunchKernel_v7000"));
	char note[128];
	snprintf(note, sizeof(note), "Nsight Systems CUDA API backtraces (%lld calls)",
		 (long long)calls_named("cudaLaunchKernel_v7000"));
	CHECK_EQ_STR(m->stack_note, note);
	CHECK_EQ_INT(m->n_notes, 0);
	uint32_t kernels = 0;
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].kind == KG_OP_KERNEL) {
			kernels++;
			CHECK_EQ_INT(m->apis[m->ops[i].api].stack, s);
		}
	CHECK(kernels > 0);
	model_free(m);
	unlink(path);
}

/* No stacks and no error: backtrace ids without a CUDA_CALLCHAINS table, a table without
 * a callchainId column to name its chains (older layouts). A CUDA_CALLCHAINS without the
 * columns that order its frames is named in a note. */
TEST(callchains_missing_table_or_column)
{
	static const char *const cases[] = {
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 7 WHERE" LAUNCHES ";",
		CALLCHAINS "ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME DROP COLUMN callchainId;",
		CALLCHAINS "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 7 WHERE" LAUNCHES
			   ";CREATE TABLE c AS SELECT id, symbol, module FROM CUDA_CALLCHAINS;"
			   "DROP TABLE CUDA_CALLCHAINS; ALTER TABLE c RENAME TO CUDA_CALLCHAINS;",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = altered(nsys_file("copies_bad", "3.28"), cases[i]);
		struct loaded l;
		load_ok(&l, path);
		CHECK_EQ_INT(l.m.n_stacks, 0);
		CHECK_EQ_INT(calls_with_stacks(&l.m), 0);
		CHECK_EQ_STR(l.m.stack_note, "");
		CHECK_EQ_INT(l.m.n_apis, kgt_int("copies_bad", "SELECT COUNT(*) FROM api_calls"));
		CHECK_EQ_INT(l.m.n_notes, i == 2);
		if (i == 2)
			CHECK(has_note(&l.m, "CUDA_CALLCHAINS has no column 'stackDepth'"));
		model_free(&l.m);
		unlink(path);
	}
}

/* Frames without symbols or modules (NULL where nsys's schema says NOT NULL, an empty
 * string, an id StringIds lacks) are kept, unnamed or named by their address. */
TEST(callchain_null_symbol)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		CALLCHAINS LOOSEN("CUDA_CALLCHAINS")
		"INSERT INTO CUDA_CALLCHAINS VALUES (9, NULL, NULL, NULL, NULL, 0),"
		" (9, NULL, 100004, NULL, 4200971, 1), (9, 999999, 100010, NULL, NULL, 2),"
		" (9, 100010, 100004, NULL, NULL, 3), (9, 100005, 100004, NULL, 1234, 4);"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 9 WHERE" MEMCPYS ";");
	struct loaded l;
	load_ok(&l, path);
	uint32_t s = stack_of_calls(&l.m, "cudaMemcpy_v3020");
	CHECK(s != KG_NONE);
	CHECK_EQ_INT(l.m.stacks[s].n_frames, 5);
	check_frame(&l.m, s, 0, "", "");
	check_frame(&l.m, s, 1, "", "/work/copies"); /* its library's, no symbol */
	check_frame(&l.m, s, 2, "", "");
	check_frame(&l.m, s, 3, "", "/work/copies");
	check_frame(&l.m, s, 4, "main", "/work/copies");
	CHECK(has_note(&l.m, "1 names refer to ids missing from StringIds"));
	model_free(&l.m);
	unlink(path);
}
/* A symbol nsys could not resolve is no symbol (its text is an address, or a guess); a
 * frame without one is its library's, without a function. Resolved symbols are
 * demangled. */
TEST(callchain_unresolved_symbols)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		CALLCHAINS LOOSEN("CUDA_CALLCHAINS")
		"INSERT INTO CUDA_CALLCHAINS VALUES (10, 100008, 100007, 1, 139637976727552, 0),"
		" (10, NULL, 100007, 1, 139637976731648, 1), (10, 100008, 100004, 0, 4096, 2),"
		" (10, 100006, 100004, NULL, 8192, 3);"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 10 WHERE" MEMSETS ";");
	struct loaded l;
	load_ok(&l, path);
	uint32_t s = stack_of_calls(&l.m, "cudaMemset_v3020");
	CHECK(s != KG_NONE);
	CHECK_EQ_INT(l.m.stacks[s].n_frames, 4);
	check_frame(&l.m, s, 0, "", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	check_frame(&l.m, s, 1, "", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	check_frame(&l.m, s, 2, "foo()", "/work/copies");
	check_frame(&l.m, s, 3, "app::step(int)", "/work/copies");
	CHECK_EQ_INT(l.m.n_notes, 0);
	model_free(&l.m);
	unlink(path);
}

/* nsys unwinds a CUDA call's backtrace from inside CUPTI's callback (pipit's
 * saxpy-mpi-cuda export, Nsight Systems 2022.2: two libcupti frames, then libcuda's
 * unnamed one, then cudaMalloc): those are where the tracer took it, not the program's,
 * and would make the call's time read as the tracer's. A chain of nothing else keeps
 * its frames; a libcuda frame with a symbol (a driver API the program called) stays. */
TEST(callchain_starts_below_the_tracer)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		CALLCHAINS LOOSEN("CUDA_CALLCHAINS")
		"INSERT INTO StringIds VALUES (100011, '/opt/nsys/target-linux-x64/libcupti.so.11.7'),"
		" (100012, '0x7fd990700588'), (100013, '/opt/nsys/libToolsInjection64.so');"
		"INSERT INTO CUDA_CALLCHAINS VALUES (11, 100012, 100011, 1, 1, 0),"
		" (11, 100012, 100013, 1, 2, 1), (11, 100012, 100007, 1, 3, 2),"
		" (11, 100009, 100007, 0, 4, 3), (11, 100012, 100007, 1, 5, 4),"
		" (11, 100005, 100004, NULL, 6, 5);"
		"INSERT INTO CUDA_CALLCHAINS VALUES (12, 100012, 100011, 1, 1, 0),"
		" (12, 100012, 100007, 1, 3, 1);"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 11 WHERE" MEMSETS ";"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 12 WHERE" MEMCPYS ";");
	struct loaded l;
	load_ok(&l, path);
	uint32_t s = stack_of_calls(&l.m, "cudaMemset_v3020");
	CHECK(s != KG_NONE);
	CHECK_EQ_INT(l.m.stacks[s].n_frames, 3);
	check_frame(&l.m, s, 0, "cuLaunchKernel", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	check_frame(&l.m, s, 1, "", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
	check_frame(&l.m, s, 2, "main", "/work/copies");
	s = stack_of_calls(&l.m, "cudaMemcpy_v3020");
	CHECK(s != KG_NONE);
	CHECK_EQ_INT(l.m.stacks[s].n_frames, 2);
	check_frame(&l.m, s, 0, "", "/opt/nsys/target-linux-x64/libcupti.so.11.7");
	model_free(&l.m);
	unlink(path);
}

/* Depth is bounded by MAX_FRAMES (128), never by the file: 200 frames keep the innermost
 * 128, one frame at depth 4e12 is cut without allocating for it, gaps close up. */
TEST(callchain_depth_capped)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		CALLCHAINS
		"WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < 199)"
		" INSERT INTO CUDA_CALLCHAINS SELECT 11, CASE WHEN n = 0 THEN 100001"
		" ELSE 100005 END, 100004, NULL, 4096 + n, n FROM d;"
		"INSERT INTO CUDA_CALLCHAINS VALUES (12, 100001, 100002, NULL, 1, 0),"
		" (12, 100005, 100004, NULL, 2, 4000000000000),"
		" (13, 100001, 100002, NULL, 1, 0), (13, 100003, 100004, NULL, 2, 5),"
		" (13, 100005, 100004, NULL, 3, 9);"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 11 WHERE" LAUNCHES ";"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 12 WHERE" MEMCPYS ";"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 13 WHERE" MEMSETS ";");
	struct loaded l;
	load_ok(&l, path);
	struct kg_model *m = &l.m;
	uint32_t deep = stack_of_calls(m, "cudaLaunchKernel_v7000");
	uint32_t far = stack_of_calls(m, "cudaMemcpy_v3020");
	uint32_t gaps = stack_of_calls(m, "cudaMemset_v3020");
	CHECK(deep != KG_NONE && far != KG_NONE && gaps != KG_NONE);
	CHECK_EQ_INT(m->stacks[deep].n_frames, 128);
	CHECK_EQ_INT(m->stacks[deep].flags, KG_STACK_TRUNCATED);
	check_frame(m, deep, 0, "cudaLaunchKernel", "/work/copies");
	check_frame(m, deep, 127, "main", "/work/copies");
	CHECK_EQ_INT(m->stacks[far].n_frames, 1);
	CHECK_EQ_INT(m->stacks[far].flags, KG_STACK_TRUNCATED);
	check_frame(m, far, 0, "cudaLaunchKernel", "/usr/lib/x86_64-linux-gnu/libcudart.so.13");
	check_launch_stack(m, gaps); /* depths 0, 5, 9: three frames in order, not cut */
	CHECK_EQ_INT(m->n_stacks, 3);
	CHECK_EQ_INT(m->n_frames, 128 + 1 + 3);
	model_free(m);
	unlink(path);
}

/* A callchainId that CUDA_CALLCHAINS does not have gives no stack and a note; 0, which
 * nsys may write for "no backtrace", and negative ids give no stack silently. A call
 * without a correlation id still gets its own backtrace. */
TEST(callchain_id_missing)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		CALLCHAINS
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 999 WHERE" LAUNCHES ";"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 7 WHERE" MEMCPYS ";"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 0 WHERE" MEMSETS ";"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = -1 WHERE"
		CALLS_OF("cudaFree_v3020") ";"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 7, correlationId = NULL WHERE"
		CALLS_OF("cudaGetLastError_v3020") ";");
	struct loaded l;
	load_ok(&l, path);
	struct kg_model *m = &l.m;
	CHECK_EQ_INT(stack_of_calls(m, "cudaLaunchKernel_v7000"), KG_NONE);
	CHECK_EQ_INT(stack_of_calls(m, "cudaMemset_v3020"), KG_NONE);
	CHECK_EQ_INT(stack_of_calls(m, "cudaFree_v3020"), KG_NONE);
	uint32_t s = stack_of_calls(m, "cudaMemcpy_v3020");
	CHECK(s != KG_NONE);
	check_launch_stack(m, s);
	CHECK_EQ_INT(stack_of_calls(m, "cudaGetLastError_v3020"), s);
	CHECK_EQ_INT(calls_with_stacks(m),
		     calls_named("cudaMemcpy_v3020") + calls_named("cudaGetLastError_v3020"));
	char note[160];
	snprintf(note, sizeof(note),
		 "%lld CUDA API calls name a backtrace (callchainId) that CUDA_CALLCHAINS does"
		 " not have", (long long)calls_named("cudaLaunchKernel_v7000"));
	CHECK(has_note(m, note));
	CHECK_EQ_INT(m->n_notes, 1);
	model_free(m);
	unlink(path);
}

/* Backtraces as separate records of their own event class (TRACE_PROCESS_EVENT_CUDABACKTRACE)
 * that repeat the call's correlation id: the stack goes to that call. One whose
 * correlation id no call has is not counted. */
TEST(callchain_on_backtrace_records)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		CALLCHAINS
		"INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES (67, 'TRACE_PROCESS_EVENT_CUDABACKTRACE',"
		" 'CUDA backtrace');"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT start - 1, end + 1, 67, globalTid,"
		" correlationId, 100001, 0, 7 FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE" LAUNCHES ";"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT start, end, 67, globalTid, 999999,"
		" 100001, 0, 7 FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1;");
	struct loaded l;
	load_ok(&l, path);
	struct kg_model *m = &l.m;
	CHECK_EQ_INT(m->n_apis, kgt_int("copies_bad", "SELECT COUNT(*) FROM api_calls"));
	uint32_t s = stack_of_calls(m, "cudaLaunchKernel_v7000");
	CHECK(s != KG_NONE);
	check_launch_stack(m, s);
	CHECK_EQ_INT(calls_with_stacks(m), calls_named("cudaLaunchKernel_v7000"));
	char note[128];
	snprintf(note, sizeof(note), "Nsight Systems CUDA API backtraces (%lld calls)",
		 (long long)calls_named("cudaLaunchKernel_v7000"));
	CHECK_EQ_STR(m->stack_note, note);
	CHECK(has_note(m, "CUDA API rows without a start or not calls (backtraces)"));
	model_free(m);
	unlink(path);
}

/* A driver call inside a runtime call shares its correlation id: a backtrace taken at the
 * driver call goes to the runtime call the program made (model_finish), and the runtime
 * call's own backtrace wins over its driver call's. */
TEST(callchain_of_driver_call_goes_to_runtime_call)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		CALLCHAINS
		"INSERT INTO CUDA_CALLCHAINS SELECT 8, symbol, module, unresolved, originalIP,"
		" stackDepth FROM CUDA_CALLCHAINS WHERE id = 7 AND stackDepth > 0;"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT start + 1, end - 1, 1, globalTid,"
		" correlationId, 100009, 0, 7 FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE" LAUNCHES ";"
		"INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME SELECT start + 1, end - 1, 1, globalTid,"
		" correlationId, 100009, 0, 7 FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE" MEMCPYS ";"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET callchainId = 8 WHERE" MEMCPYS ";");
	struct loaded l;
	load_ok(&l, path);
	struct kg_model *m = &l.m;
	int64_t launches = calls_named("cudaLaunchKernel_v7000");
	int64_t copies = calls_named("cudaMemcpy_v3020");
	CHECK_EQ_INT(m->n_apis, kgt_int("copies_bad", "SELECT COUNT(*) FROM api_calls") +
					launches + copies);
	uint32_t s = stack_of_calls(m, "cudaLaunchKernel_v7000");
	CHECK(s != KG_NONE);
	check_launch_stack(m, s);
	uint32_t own = stack_of_calls(m, "cudaMemcpy_v3020");
	CHECK(own != KG_NONE && own != s);
	CHECK_EQ_INT(m->stacks[own].n_frames, 2);
	check_frame(m, own, 0, "launch_all(float*, int)", "/work/copies");
	uint32_t driver = 0;
	for (uint32_t i = 0; i < m->n_apis; i++)
		if (strcmp(model_text(m, m->apis[i].name), "cuLaunchKernel") == 0) {
			driver++;
			CHECK(m->apis[i].driver);
			CHECK_EQ_INT(m->apis[i].stack, KG_NONE);
		}
	CHECK_EQ_INT(driver, launches + copies);
	CHECK_EQ_INT(calls_with_stacks(m), launches + copies);
	model_free(m);
	unlink(path);
}

/* The 2024.6 layout carries the same backtraces. */
TEST(callchains_schema_3_16)
{
	const char *path = altered(nsys_file("copies_bad", "3.16"),
				   CALLCHAINS "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME"
					      " SET callchainId = 7 WHERE" LAUNCHES ";");
	struct loaded l;
	load_ok(&l, path);
	check_launch_stack(&l.m, stack_of_calls(&l.m, "cudaLaunchKernel_v7000"));
	CHECK_EQ_INT(l.m.n_stacks, 1);
	model_free(&l.m);
	unlink(path);
}

/* ------------------------------------------------------------------ CPU samples */

/* COMPOSITE_EVENTS and SAMPLING_CALLCHAINS as the schema reference defines them (without
 * their NOT NULL and primary keys, so that bad rows can be put there), the program's
 * thread G (the launching thread of the export) and T0 (its first call), some frames. */
#define SAMPLES                                                                           \
	"CREATE TABLE COMPOSITE_EVENTS (id INTEGER, start INTEGER, cpu INTEGER,"          \
	" threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER);"                    \
	"CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER, symbol INTEGER, module INTEGER,"   \
	" kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER," \
	" originalIP INTEGER, unwindMethod INTEGER, stackDepth INTEGER);"                 \
	"CREATE TEMP VIEW g AS SELECT globalTid AS g, MIN(start) AS t0 FROM"              \
	" CUPTI_ACTIVITY_KIND_RUNTIME;"                                                   \
	"INSERT INTO StringIds VALUES (200001, '_Z3hotv'), (200002, '/work/app'),"        \
	" (200003, 'main'), (200004, '0x7f0000001000'), (200005, '[Broken backtraces]');"

/* The span of thread tid (of the export's process) that ends at t0 + ms milliseconds. */
static const struct kg_host_span *span_at(const struct kg_model *m, int64_t tid, int64_t t0,
					  int64_t ms)
{
	for (uint32_t i = 0; i < m->n_host_spans; i++) {
		const struct kg_host_span *x = &m->host_spans[i];
		if (m->threads[x->thread].tid == tid && x->end == t0 + ms * 1000000)
			return x;
	}
	return NULL;
}

/* Samples of the launching thread 1 ms apart and one after a pause; a second thread; a
 * process nsys sampled that made no CUDA call; bad rows. Each sample stands for the
 * median spacing (1 ms) before it; equal chains are one stack, innermost first; a chain
 * nsys resolved no frame of is partial; nsys's own entries are not frames; states by
 * ENUM_SAMPLING_THREAD_STATE. */
TEST(cpu_samples_read_as_host_spans)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		SAMPLES
		"INSERT INTO COMPOSITE_EVENTS SELECT k, t0 + k * 1000000, 0, CASE k WHEN 2 THEN 2"
		" ELSE 1 END, g, 0 FROM g, (SELECT 1 AS k UNION SELECT 2 UNION SELECT 3 UNION"
		" SELECT 4 UNION SELECT 10);"
		"INSERT INTO COMPOSITE_EVENTS SELECT 20 + k, t0 + k * 1000000, 0, 7, g + 1, 0"
		" FROM g, (SELECT 2 AS k UNION SELECT 3);"
		"INSERT INTO COMPOSITE_EVENTS SELECT 30, t0 + 5000000, 0, 1, g + (1 << 24), 0 FROM g;"
		"INSERT INTO COMPOSITE_EVENTS SELECT 40, NULL, 0, 1, g, 0 FROM g;"
		"INSERT INTO COMPOSITE_EVENTS SELECT 41, t0, 0, 1, NULL, 0 FROM g;"
		"INSERT INTO COMPOSITE_EVENTS SELECT 1, t0 + 7000000, 0, 1, g, 0 FROM g;"
		"INSERT INTO COMPOSITE_EVENTS SELECT 42, -5, 0, 1, g, 0 FROM g;"
		"INSERT INTO SAMPLING_CALLCHAINS VALUES (1, 200001, 200002, 0, 0, 0, 0, 16, 0, 0),"
		" (1, 200003, 200002, 0, 0, 0, 0, 32, 0, 1), (2, 200001, 200002, 0, 0, 0, 0, 17, 0, 0),"
		" (2, 200003, 200002, 0, 0, 0, 0, 33, 0, 1), (3, 200004, 200002, 0, 0, 1, 0, 1, 0, 0),"
		" (3, 200004, 100007, 0, 0, 1, 0, 2, 0, 1), (4, 200001, 200002, 0, 0, 0, 0, 16, 0, 0),"
		" (4, 200005, 200002, 0, 0, 1, 1, 0, 0, 1), (4, 200003, 200002, 0, 0, 0, 0, 32, 0, 2),"
		" (30, 200001, 200002, 0, 0, 0, 0, 16, 0, 0);");
	sqlite3 *db;
	CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
	int64_t g = q_int(db, "SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1");
	int64_t t0 = q_int(db, "SELECT MIN(start) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
	sqlite3_close(db);
	struct loaded l;
	load_ok(&l, path);
	struct kg_model *m = &l.m;
	int64_t tid = g & 0xFFFFFF;
	CHECK_EQ_INT(m->n_host_spans, 7);
	const struct kg_host_span *s[5] = {span_at(m, tid, t0, 1), span_at(m, tid, t0, 2),
					   span_at(m, tid, t0, 3), span_at(m, tid, t0, 4),
					   span_at(m, tid, t0, 10)};
	for (int i = 0; i < 5; i++) {
		CHECK(s[i] != NULL);
		CHECK_EQ_INT(s[i]->end - s[i]->start, 1000000);
		CHECK_EQ_INT(s[i]->source, KG_HOST_FROM_SAMPLES);
	}
	CHECK_EQ_INT(s[0]->stack, s[1]->stack); /* equal frames, other addresses: one stack */
	CHECK(s[0]->stack != KG_NONE);
	check_frame(m, s[0]->stack, 0, "hot()", "/work/app");
	check_frame(m, s[0]->stack, 1, "main", "/work/app");
	CHECK_EQ_INT(m->stacks[s[0]->stack].n_frames, 2);
	CHECK_EQ_INT(s[0]->state, KG_HOST_RUNNING);
	CHECK_EQ_INT(s[1]->state, KG_HOST_BLOCKED);
	CHECK_EQ_INT(s[0]->flags, 0);
	CHECK_EQ_INT(s[2]->flags, KG_HOST_PARTIAL);
	check_frame(m, s[2]->stack, 0, "", "/work/app");
	CHECK_EQ_INT(s[3]->stack, s[0]->stack); /* [Broken backtraces] is not a frame */
	CHECK_EQ_INT(s[4]->stack, KG_NONE);
	const struct kg_host_span *o = span_at(m, tid + 1, t0, 3);
	CHECK(o != NULL && span_at(m, tid + 1, t0, 2) != NULL);
	CHECK_EQ_INT(o->state, KG_HOST_BLOCKED);
	CHECK_EQ_INT(o->end - o->start, 1000000);
	CHECK_EQ_INT(m->n_host_samplings, 1);
	CHECK_EQ_INT(m->host_samplings[0].hz, 1000);
	CHECK_EQ_INT(m->host_samplings[0].samples, 7);
	CHECK_EQ_INT(m->host_samplings[0].threads, 2);
	CHECK_EQ_INT(m->n_processes, 1); /* the process without CUDA is not read */
	CHECK(has_note(m, "4 CPU samples (COMPOSITE_EVENTS) without an id, a time or a thread"));
	model_free(m);
	unlink(path);
}

/* States by their names where the export numbers them otherwise; without
 * SAMPLING_CALLCHAINS the samples have no stacks (a note says so); 200 frames keep the
 * innermost 128; samples 250 µs apart stand for 250 µs each. */
TEST(cpu_samples_states_stacks_and_period)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		SAMPLES
		"DELETE FROM ENUM_SAMPLING_THREAD_STATE;"
		"INSERT INTO ENUM_SAMPLING_THREAD_STATE VALUES (11, 'Running', 'Running'),"
		" (12, 'Uninterruptible', 'Uninterruptible'), (1, 'Stopped', 'Stopped');"
		"INSERT INTO COMPOSITE_EVENTS SELECT k, t0 + k * 250000, 0, CASE k WHEN 1 THEN 11"
		" WHEN 2 THEN 12 ELSE 1 END, g, 0 FROM g, (SELECT 1 AS k UNION SELECT 2 UNION"
		" SELECT 3);"
		"WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < 199)"
		" INSERT INTO SAMPLING_CALLCHAINS SELECT 1, CASE WHEN n = 0 THEN 200001 ELSE 200003"
		" END, 200002, 0, 0, 0, 0, n, 0, n FROM d;");
	struct loaded l;
	load_ok(&l, path);
	CHECK_EQ_INT(l.m.n_host_spans, 3);
	const struct kg_host_span *x = l.m.host_spans;
	CHECK_EQ_INT(x[0].state, KG_HOST_RUNNING);
	CHECK_EQ_INT(x[1].state, KG_HOST_BLOCKED);
	CHECK_EQ_INT(x[2].state, KG_HOST_STATE_UNKNOWN);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_INT(x[i].end - x[i].start, 250000);
	CHECK_EQ_INT(l.m.stacks[x[0].stack].n_frames, 128);
	CHECK_EQ_INT(l.m.stacks[x[0].stack].flags, KG_STACK_TRUNCATED);
	check_frame(&l.m, x[0].stack, 0, "hot()", "/work/app");
	CHECK_EQ_INT(l.m.host_samplings[0].hz, 4000);
	model_free(&l.m);
	unlink(path);
	path = altered(nsys_file("copies_bad", "3.28"),
		       SAMPLES "DROP TABLE SAMPLING_CALLCHAINS;"
			       "INSERT INTO COMPOSITE_EVENTS SELECT 1, t0 + 1000000, 0, 1, g, 0 FROM g;");
	load_ok(&l, path);
	CHECK_EQ_INT(l.m.n_host_spans, 1);
	CHECK_EQ_INT(l.m.host_spans[0].stack, KG_NONE);
	CHECK_EQ_INT(l.m.host_spans[0].end - l.m.host_spans[0].start, 1000000); /* nsys's default */
	CHECK(has_note(&l.m, "no SAMPLING_CALLCHAINS table: the CPU samples have no stacks"));
	model_free(&l.m);
	unlink(path);
}

/* ------------------------------------------------------------------ bad input */

static void load_fails(const char *path, int rc, const char *part)
{
	struct loaded l;
	load(&l, path);
	if (l.rc != rc || !strstr(l.err, path) || !strstr(l.err, part))
		fprintf(stderr, "    got \"%s\", expected \"%s\" in it\n", l.err, part);
	CHECK_EQ_INT(l.rc, rc);
	CHECK(strstr(l.err, path) != NULL);
	CHECK(strstr(l.err, part) != NULL);
	model_free(&l.m);
}

TEST(unrelated_sqlite_file)
{
	const char *path = altered(nsys_file("copies_bad", "3.28"), NULL);
	unlink(path);
	sqlite3 *db;
	CHECK_EQ_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_EQ_INT(sqlite3_exec(db,
				  "CREATE TABLE recipes(name TEXT, minutes INTEGER);"
				  "INSERT INTO recipes VALUES('bread', 240);",
				  NULL, NULL, NULL),
		     SQLITE_OK);
	sqlite3_close(db);
	load_fails(path, -EINVAL, "no table CUPTI_ACTIVITY_KIND_KERNEL");
	unlink(path);
}

TEST(nsys_export_without_cuda)
{
	const char *path = altered(nsys_file("copies_bad", "3.28"),
				   "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
				   "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY;"
				   "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;"
				   "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;"
				   "DROP TABLE IF EXISTS NVTX_EVENTS;");
	load_fails(path, -EINVAL, "without CUDA or NVTX data");
	unlink(path);
}

TEST(nvprof_export)
{
	const char *path = altered(nsys_file("copies_bad", "3.28"),
				   "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
				   "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY;"
				   "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;"
				   "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;"
				   "DROP TABLE IF EXISTS NVTX_EVENTS;"
				   "DROP TABLE StringIds; DROP TABLE META_DATA_EXPORT;"
				   "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY,"
				   " value TEXT);");
	load_fails(path, -EINVAL, "nvprof");
	unlink(path);
}

TEST(missing_required_column)
{
	const char *path = altered(nsys_file("copies_bad", "3.28"),
				   "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN start");
	load_fails(path, -EINVAL,
		   "table CUPTI_ACTIVITY_KIND_KERNEL has no column 'start' (expected an Nsight "
		   "Systems SQLite export, nsys export --type sqlite)");
	unlink(path);
}

/* Without StringIds the activity still loads: counts and times stay right, names do not. */
TEST(missing_string_ids)
{
	const char *path = altered(nsys_file("copies_bad", "3.28"), "DROP TABLE StringIds");
	struct loaded l;
	load_ok(&l, path);
	CHECK_EQ_INT(count_ops(&l.m, KG_OP_KERNEL),
		     kgt_int("copies_bad", "SELECT COUNT(*) FROM kernels"));
	CHECK_EQ_INT(l.m.n_apis, kgt_int("copies_bad", "SELECT COUNT(*) FROM api_calls"));
	CHECK(has_note(&l.m, "no StringIds table"));
	for (uint32_t i = 0; i < l.m.n_ops; i++)
		if (l.m.ops[i].kind == KG_OP_KERNEL)
			CHECK_EQ_STR(model_text(&l.m, l.m.ops[i].name), "(unnamed kernel)");
	model_free(&l.m);
	unlink(path);
}

/* NULL names: the short name stands in for a missing demangled one; with none, a
 * placeholder. Ids that StringIds lacks are counted in a note. */
TEST(null_names)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		LOOSEN("CUPTI_ACTIVITY_KIND_KERNEL") LOOSEN("CUPTI_ACTIVITY_KIND_RUNTIME")
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = NULL WHERE rowid <= 4;"
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = NULL, shortName = NULL,"
		" mangledName = NULL WHERE rowid = 5;"
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET demangledName = 999999, shortName = NULL,"
		" mangledName = NULL WHERE rowid = 6;"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = NULL WHERE rowid <= 3;");
	struct loaded l;
	load_ok(&l, path);
	uint32_t shortname = 0, unnamed = 0;
	for (uint32_t i = 0; i < l.m.n_ops; i++) {
		const char *n = model_text(&l.m, l.m.ops[i].name);
		shortname += strcmp(n, "copies_compute") == 0;
		unnamed += strcmp(n, "(unnamed kernel)") == 0;
	}
	CHECK_EQ_INT(shortname, 4);
	CHECK_EQ_INT(unnamed, 2);
	CHECK_EQ_INT(l.m.n_apis, kgt_int("copies_bad", "SELECT COUNT(*) FROM api_calls"));
	CHECK(has_note(&l.m, "missing from StringIds"));
	model_free(&l.m);
	unlink(path);
}

/* Text where numbers belong, negative and huge values: loaded as SQLite converts them,
 * never a crash. */
TEST(wrong_types)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		LOOSEN("CUPTI_ACTIVITY_KIND_KERNEL") LOOSEN("CUPTI_ACTIVITY_KIND_RUNTIME")
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 'many', deviceId = -7,"
		" streamId = 'x', globalPid = 'nobody' WHERE rowid = 1;"
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL WHERE rowid = 2;"
		"UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET srcKind = 100000, copyKind = -3;"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = NULL, end = NULL"
		" WHERE rowid < 5;"
		"UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET syncType = 'soon';"
		"UPDATE TARGET_INFO_GPU SET smCount = 'lots', name = 42;"
		"UPDATE TARGET_INFO_CUDA_STREAM SET priority = 'high', flag = 99;"
		"UPDATE StringIds SET value = x'00ff00' WHERE id = 1;");
	struct loaded l;
	load_ok(&l, path);
	CHECK_EQ_INT(count_ops(&l.m, KG_OP_KERNEL),
		     kgt_int("copies_bad", "SELECT COUNT(*) FROM kernels") - 1);
	CHECK(has_note(&l.m, "1 GPU operations without timestamps"));
	CHECK_EQ_INT(l.m.n_apis, kgt_int("copies_bad", "SELECT COUNT(*) FROM api_calls"));
	CHECK(l.m.n_processes >= 2);
	model_free(&l.m);
	unlink(path);
}

/* Issue 22: rows whose times cannot be true are left out, counted and named; Nsight's
 * clock starts with the session, so a call at 0 is kept. Every device is NVIDIA's. */
TEST(untrue_times)
{
	const char *path = altered(
		nsys_file("copies_bad", "3.28"),
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 1000 WHERE rowid = 1;"
		"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 9223372036854775807,"
		" end = 9223372036854775807 WHERE rowid = 2;"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = 0 WHERE rowid = 1;"
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET end = start + 2592000000000000 WHERE rowid = 2;");
	struct loaded l;
	load_ok(&l, path);
	CHECK_EQ_INT(count_ops(&l.m, KG_OP_KERNEL),
		     kgt_int("copies_bad", "SELECT COUNT(*) FROM kernels") - 2);
	CHECK_EQ_INT(l.m.n_apis, kgt_int("copies_bad", "SELECT COUNT(*) FROM api_calls") - 1);
	CHECK_EQ_INT(l.m.untrue[KG_UNTRUE_KERNEL][KG_UNTRUE_END_BEFORE_START], 1);
	CHECK_EQ_INT(l.m.untrue[KG_UNTRUE_KERNEL][KG_UNTRUE_INT64_LIMIT], 1);
	CHECK_EQ_INT(l.m.untrue[KG_UNTRUE_API][KG_UNTRUE_FAR], 1);
	CHECK(has_note(&l.m, "left out 2 kernels and 1 API call whose times cannot be true: at "
			     "INT64_MAX or -INT64_MAX (1), end before start (1), far from the other "
			     "records (1); the first: kernel '"));
	for (uint32_t i = 0; i < l.m.n_devices; i++)
		CHECK_EQ_INT(l.m.devices[i].vendor, KG_VENDOR_NVIDIA);
	model_free(&l.m);
	unlink(path);
}

TEST(truncated_file)
{
	const char *path = altered(nsys_file("launches_graph", "3.28"), NULL);
	struct stat sb;
	CHECK_EQ_INT(stat(path, &sb), 0);
	CHECK_EQ_INT(truncate(path, sb.st_size / 2), 0);
	load_fails(path, -EIO, "truncated");
	CHECK_EQ_INT(truncate(path, 50), 0);
	load_fails(path, -EINVAL, "not an SQLite database");
	unlink(path);
}

/* Damaged pages in the middle (a bad copy, not a short one): an error, not a crash. */
TEST(damaged_pages)
{
	const char *path = altered(nsys_file("launches_graph", "3.28"), NULL);
	struct stat sb;
	CHECK_EQ_INT(stat(path, &sb), 0);
	FILE *f = fopen(path, "r+b");
	CHECK(f != NULL);
	char junk[512];
	memset(junk, 0x5a, sizeof(junk));
	for (long at = 8192; at + 4096 < (long)sb.st_size; at += 16384) {
		fseek(f, at, SEEK_SET);
		fwrite(junk, 1, sizeof(junk), f);
	}
	fclose(f);
	struct loaded l;
	load(&l, path);
	CHECK(l.rc == -EIO || l.rc == 0);
	if (l.rc)
		CHECK(strstr(l.err, "damaged or truncated") != NULL);
	model_free(&l.m);
	unlink(path);
}

TEST(not_sqlite)
{
	load_fails("tests/unit/harness.h", -EINVAL, "not an SQLite database");
	load_fails(OUT_DIR "/no-such-file.sqlite", -ENOENT, "cannot open");
}

/* A kgantt trace is SQLite too, but not an nsys export. */
TEST(kgantt_trace_is_not_nsys)
{
	char cmd[512], path[] = "/tmp/kgantt-nsys-kgt-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "xz -dc " FIXTURES "copies_bad.kgt.xz > %s", path);
	if (system(cmd) != 0) {
		unlink(path);
		return; /* no xz here: the other SQLite checks cover it */
	}
	load_fails(path, -EINVAL, "no table CUPTI_ACTIVITY_KIND_KERNEL");
	unlink(path);
}

/* The whole path: the format found from the content, read, finished. */
TEST(model_load_detects_nsys)
{
	struct kg_model m;
	char err[512];
	const char *path = nsys_file("timeslice_bad", "3.16");
	CHECK_EQ_INT(detect_format(path, err, sizeof(err)), KG_FORMAT_NSYS);
	CHECK_EQ_INT(model_load(path, &m, NULL, err, sizeof(err)), 0);
	CHECK_EQ_STR(m.source, "nsys");
	CHECK_EQ_INT(m.n_ops, 20);
	CHECK_EQ_INT(m.n_gpus, 1);
	model_free(&m);
}
