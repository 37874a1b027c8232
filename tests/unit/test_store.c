/* The trace store (trace/store.h): a trace opened and checked once; what it is told from
 * its tables; its counts, meta values and rows the same whether its big tables are packed
 * blocks or SQL rows; what dump reads. */
#include "harness.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "model/load.h"

#include "trace/pack.h"
#include "trace/schema.h"

#include "trace_file.h"
#include "trace/store.h"

static char path[64];

/* The statements the store prepares, counted: SQLite's own, through this one (the store's
 * calls bind to it, the test being linked with the library; the shared SQLite's are
 * looked up past it). */
static int prepared;

int sqlite3_prepare_v2(sqlite3 *db, const char *sql, int n, sqlite3_stmt **st, const char **tail)
{
	static int (*real)(sqlite3 *, const char *, int, sqlite3_stmt **, const char **);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "sqlite3_prepare_v2");
	prepared++;
	return real(db, sql, n, st, tail);
}

/* The file locks SQLite takes and drops (fcntl F_SETLK), counted the same way (glibc's
 * fcntl64, which SQLite calls). */
static int locks;

int fcntl64(int fd, int cmd, ...);
int fcntl64(int fd, int cmd, ...)
{
	static int (*real)(int, int, ...);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "fcntl64");
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	locks += cmd == F_SETLK;
	return real(fd, cmd, arg);
}

/* The threads made, counted the same way. */
static int threads_made;

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
	threads_made++;
	return real(t, attr, fn, arg);
}

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "    SQL failed: %s\n", msg ? msg : "?");
		exit(1);
	}
}

/* A small trace of SQL rows: 3 kernels of one process, 2 API calls. */
static void write_trace(void)
{
	test_trace_path(path, sizeof(path), "store");
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, "BEGIN");
	CHECK_EQ_INT(test_trace_base(db), SQLITE_OK);
	exec(db, "INSERT INTO strings VALUES(1,'k');"
		 "INSERT INTO processes(process, pid, complete, host) VALUES(1, 100, 1, 'h');"
		 "INSERT INTO devices(process, device, name, sm_count) VALUES(1, 0, 'H200', 132);"
		 "INSERT INTO kernels(id, process, device, context, stream, correlation, demangled, "
		 "start, end) VALUES(1,1,0,1,7,1,1,100,200),(2,1,0,1,7,2,1,300,400),"
		 "(5,1,0,1,7,3,1,500,650);"
		 "INSERT INTO api_calls(id, process, thread, domain, name, start, end, correlation) "
		 "VALUES(1,1,9,1,1,50,60,1),(2,1,9,1,1,250,260,2);"
		 "COMMIT");
	sqlite3_close(db);
}

static void pack(void)
{
	char err[512];
	CHECK_EQ_INT(trace_pack_file(path, 0, err, sizeof(err)), 0);
}

/* The same answers from a trace of rows and from the same trace compacted. */
static void check_holds(int packed)
{
	struct kg_store *s;
	char err[512];
	CHECK_EQ_INT(store_open(path, &s, err, sizeof(err)), 0);
	CHECK_EQ_INT(store_packed_only(s), packed);
	int64_t n;
	CHECK_EQ_INT(store_count(s, "kernels", &n), 0);
	CHECK_EQ_INT(n, 3);
	CHECK_EQ_INT(store_count(s, "api_calls", &n), 0);
	CHECK_EQ_INT(n, 2);
	char v[64];
	store_meta(s, "format", v, sizeof(v));
	CHECK_EQ_STR(v, "kgantt-trace");
	/* every row of a packed table, every column, ids as stored */
	struct kg_store_rows *it;
	struct kg_row row;
	CHECK_EQ_INT(store_read_table(s, "kernels", &it), 0);
	int64_t ids[3], got = 0;
	while (store_next(it, &row) == 1 && got < 3)
		ids[got++] = row.v[KG_KB_id];
	store_done(it);
	CHECK_EQ_INT(got, 3);
	CHECK(ids[0] == 1 && ids[1] == 2 && ids[2] == 5);
	/* the loader's plan: units of blocks or chunks of ids, and their rows */
	struct kg_store_plan p;
	CHECK_EQ_INT(store_plan(s, "kernels", 0, 3, &p), 0);
	CHECK_EQ_INT(p.blocks, packed);
	struct kg_store_cursor *c;
	CHECK_EQ_INT(store_cursor_open(s, 1, &c), 0);
	got = 0;
	for (uint32_t u = 0; u < p.nunits; u++) {
		CHECK_EQ_INT(store_unit_open(c, &p, u), 0);
		while (store_unit_next(c, &row) == 1) {
			CHECK(row.v[COL_START] < row.v[COL_END] && !row_is_null(&row, COL_START));
			got++;
		}
	}
	CHECK_EQ_INT(got, 3);
	store_cursor_close(c);
	store_plan_free(&p);
	/* dump's reads: a compacted trace's packed tables and views as rows */
	CHECK_EQ_INT(store_read_any(s, "kernel_phases", 2, &it), 0);
	CHECK(store_columns(it) > 5);
	got = 0;
	while (store_next(it, NULL) == 1)
		got++;
	CHECK_EQ_INT(got, 2);
	store_done(it);
	CHECK_EQ_INT(store_read_any(s, "nope", -1, &it), -ENOENT);
	CHECK(strstr(store_error(s), "has no table 'nope'"));
	store_done(it);
	store_close(s);
}

TEST(rows_and_blocks_read_the_same)
{
	write_trace();
	check_holds(0);
	pack();
	check_holds(1);
	unlink(path);
}

/* One open tells what an SQLite file is: a kgantt trace (checked), an Nsight Systems
 * export (left to its reader), or neither, said as every command says it. */
TEST(an_sqlite_file_is_told_by_its_tables)
{
	write_trace();
	struct kg_store *s;
	char err[512];
	CHECK_EQ_INT(store_open_sqlite(path, &s, err, sizeof(err)), KG_STORE_TRACE);
	store_close(s);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, "UPDATE meta SET value = '99' WHERE key = 'min_reader_version'");
	sqlite3_close(db);
	CHECK(store_open_sqlite(path, &s, err, sizeof(err)) < 0 && !s);
	CHECK(strstr(err, "upgrade kgantt"));
	unlink(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, "CREATE TABLE StringIds(id INTEGER, value TEXT)");
	sqlite3_close(db);
	CHECK_EQ_INT(store_open_sqlite(path, &s, err, sizeof(err)), KG_STORE_NSYS);
	CHECK(!s);
	CHECK(store_open(path, &s, err, sizeof(err)) < 0);
	CHECK(strstr(err, "is not a kgantt trace"));
	unlink(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	exec(db, "CREATE TABLE t(x)");
	sqlite3_close(db);
	CHECK(store_open_sqlite(path, &s, err, sizeof(err)) < 0);
	CHECK(strstr(err, "neither a kgantt trace"));
	unlink(path);
}

/* What a compacted trace holds is asked once, not prepared anew each time (a job report
 * opens a thousand traces): its tables, whether its packed tables can be read and how
 * many rows they hold; and a trace without --hw has no rows of its hardware samples made
 * for nothing (its SQL reads them from a temp table of the blocks' rows: that table made,
 * with the schema of all of them). */
TEST(what_it_holds_is_asked_once)
{
	write_trace();
	pack();
	struct kg_store *s;
	char err[512];
	CHECK_EQ_INT(store_open(path, &s, err, sizeof(err)), 0);
	int before = prepared;
	for (int i = 0; i < 3; i++) {
		CHECK(store_has_table(s, "meta") && store_has_table(s, "hw_devices"));
		CHECK(!store_has_table(s, "kernels") && !store_has_table(s, "nope"));
		CHECK_EQ_INT(store_packed_usable(s, "kernels"), 1);
	}
	int64_t n;
	for (int i = 0; i < 3; i++) {
		CHECK_EQ_INT(store_count(s, "kernels", &n), 0);
		CHECK_EQ_INT(n, 3);
	}
	CHECK(prepared - before <= 2); /* packed_usable of kernels: the format, the rows */
	before = prepared;
	struct kg_store_rows *it;
	CHECK_EQ_INT(store_read(s, KG_READ_HW_SAMPLES, &it), 0);
	CHECK_EQ_INT(store_next(it, NULL), 0);
	store_done(it);
	CHECK(prepared - before <= 2); /* packed_usable of hw_samples */
	store_close(s);
	unlink(path);
}

/* A trace's load reads it in one read transaction: its file locked once, not for each of
 * its fifty statements (each also looked for a journal and checked the file for changes). */
TEST(a_load_locks_the_file_once)
{
	write_trace();
	pack();
	struct kg_model m;
	struct kg_load_opts o = {.one_thread = 1};
	char err[512];
	locks = 0;
	CHECK_EQ_INT(model_load(path, &m, &o, err, sizeof(err)), 0);
	CHECK_EQ_INT(m.n_ops, 3);
	/* SQLite sets 4 locks to take the file and drop it: once for the load (168 before),
	 * and once for each of the few statements that open and check it */
	CHECK(locks <= 40);
	model_free(&m);
	unlink(path);
}

/* A small trace is loaded and analysed on the calling thread: a thread, and the loader's
 * second connection to the file, cost more than they save on a few thousand records (a
 * job report reads a thousand such traces). */
TEST(a_small_trace_on_one_thread)
{
	write_trace();
	pack();
	struct kg_model m;
	struct kg_analysis a;
	char err[512];
	threads_made = 0;
	CHECK_EQ_INT(model_load(path, &m, NULL, err, sizeof(err)), 0);
	CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
	CHECK_EQ_INT(threads_made, 0);
	analysis_free(&a);
	model_free(&m);
	unlink(path);
}
