/* The spool importer, on spools written with the recorder's own spool writer: complete,
 * cut short (the process was killed), and corrupt. */
#include "harness.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "recorder/spool.h"
#include "trace/hooked_import.h"
#include "trace/packed.h"
#include "trace/spool_import.h"
#include "trace/trace_db.h"
#include "util/tracer_work.h"

static char dir[256];

static void make_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/kgantt-test-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
}

#define REC(s, type, T) ((T *)spool_reserve((s), (type), sizeof(T)))

/* A small but complete process: one device, a priority stream, two kernels (one from a
 * graph), their launch API calls, a copy, an NVTX range; with_end 2: its end record says
 * CUPTI refused latency timestamps. */
static void write_process(const char *path, uint32_t pid, int with_end)
{
	struct kg_spool s;
	CHECK_EQ_INT(spool_open(&s, path, 4096), 0);
	struct kg_raw_process *p;
	uint32_t host = spool_string(&s, "gpu-host");
	uint32_t cmd = spool_string(&s, "./app --steps 3");
	p = REC(&s, KG_RAW_PROCESS, struct kg_raw_process);
	p->pid = pid;
	p->ppid = 1;
	p->start_ns = 1000;
	p->start_realtime_ns = 1000 + 5000000;
	p->host_str = host;
	p->cmdline_str = cmd;
	p->latency_timestamps = 1;

	uint32_t dev_name = spool_string(&s, "NVIDIA H200");
	struct kg_raw_device *d = REC(&s, KG_RAW_DEVICE, struct kg_raw_device);
	d->device_id = 0;
	d->name_str = dev_name;
	d->sm_count = 132;
	d->max_warps_per_sm = 64;
	d->cc_major = 9;
	struct kg_raw_stream *st = REC(&s, KG_RAW_STREAM, struct kg_raw_stream);
	st->context_id = 1;
	st->stream_id = 13;
	st->priority = (int32_t)4294967291u; /* as CUPTI stores -5 */
	st->flags = 2;

	uint32_t kname = spool_string(&s, "_Z12streams_workPfi");
	uint32_t launch = spool_string(&s, "cudaLaunchKernel");
	for (int i = 0; i < 2; i++) {
		struct kg_raw_api *a = REC(&s, KG_RAW_API, struct kg_raw_api);
		a->start = 2000 + (uint64_t)i * 1000;
		a->end = a->start + 100;
		a->domain = KG_API_RUNTIME;
		a->name_str = launch;
		a->tid = 77;
		a->correlation_id = 10 + (uint32_t)i;
		struct kg_raw_kernel *k = REC(&s, KG_RAW_KERNEL, struct kg_raw_kernel);
		k->name_str = kname;
		k->correlation_id = 10 + (uint32_t)i;
		k->stream_id = 13;
		k->context_id = 1;
		k->queued = i == 0 ? a->start + 50 : 0; /* the second came from a graph */
		k->submitted = i == 0 ? a->start + 60 : 0;
		k->start = a->start + 200;
		k->end = a->start + 700;
		k->graph_id = i == 0 ? 0 : 5;
		k->grid[0] = 8, k->grid[1] = 1, k->grid[2] = 1;
		k->block[0] = 256, k->block[1] = 1, k->block[2] = 1;
	}
	struct kg_raw_memcpy *m = REC(&s, KG_RAW_MEMCPY, struct kg_raw_memcpy);
	m->start = 5000, m->end = 6000, m->bytes = 1 << 20;
	m->copy_kind = 1, m->src_kind = 1, m->dst_kind = 3;
	uint32_t nv = spool_string(&s, "forward");
	struct kg_raw_marker *mk = REC(&s, KG_RAW_MARKER, struct kg_raw_marker);
	mk->ts = 1500, mk->id = 4, mk->kind = KG_MARK_START, mk->name_str = nv, mk->tid = 77;
	mk = REC(&s, KG_RAW_MARKER, struct kg_raw_marker);
	mk->ts = 4500, mk->id = 4, mk->kind = KG_MARK_END, mk->tid = 77;
	if (with_end) {
		struct kg_raw_end *e = REC(&s, KG_RAW_END, struct kg_raw_end);
		e->ts = 9000;
		e->latency_refused = with_end == 2;
	}
	spool_close(&s);
}

static long long query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	long long v = -12345;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static char text_buf[512];
static const char *query_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
	text_buf[0] = '\0';
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(text_buf, sizeof(text_buf), "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return text_buf;
}

static sqlite3 *import_dir(void)
{
	char out[300], err[1024];
	snprintf(out, sizeof(out), "%s/out.kgt", dir);
	struct kg_import im;
	int n = 0;
	CHECK_EQ_INT(import_begin(&im, out, "test"), 0);
	int rc = import_spool_dir(&im, dir, &n);
	if (rc)
		fprintf(stderr, "    %s\n", im.err);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(import_commit(&im), 0);
	sqlite3 *db;
	CHECK_EQ_INT(trace_db_open(out, &db, err, sizeof(err)), 0);
	/* the trace keeps kernels and API calls as blocks: as rows in temp for SQL */
	CHECK_EQ_INT(packed_expand(db, "main", "temp", NULL, err, sizeof(err)), 0);
	return db;
}

TEST(import_complete_process)
{
	char path[300];
	make_dir();
	snprintf(path, sizeof(path), "%s/a.1.kgspool", dir);
	write_process(path, 4242, 1);
	sqlite3 *db = import_dir();
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM kernels"), 2);
	CHECK_EQ_INT(query_int(db, "SELECT complete FROM processes"), 1);
	CHECK_EQ_INT(query_int(db, "SELECT latency_timestamps FROM processes"), 1);
	CHECK_EQ_INT(query_int(db, "SELECT pid FROM processes"), 4242);
	CHECK_EQ_INT(query_int(db, "SELECT end_ns FROM processes"), 9000);
	CHECK_EQ_INT(query_int(db, "SELECT realtime_offset_ns FROM processes"), 5000000);
	CHECK_EQ_STR(query_text(db, "SELECT host FROM processes"), "gpu-host");
	CHECK_EQ_STR(query_text(db, "SELECT s.text FROM kernels k JOIN strings s "
				    "ON s.id = k.demangled LIMIT 1"),
		     "streams_work(float*, int)");
	CHECK_EQ_STR(query_text(db, "SELECT s.text FROM kernels k JOIN strings s "
				    "ON s.id = k.name LIMIT 1"),
		     "_Z12streams_workPfi");
	CHECK_EQ_INT(query_int(db, "SELECT priority FROM streams"), -5);
	/* the graph kernel has no queued/submitted: NULL, not 0 */
	CHECK_EQ_INT(query_int(db, "SELECT queued FROM kernels WHERE graph = 5"), -1);
	CHECK_EQ_INT(query_int(db, "SELECT queued FROM kernels WHERE graph IS NULL"), 2050);
	CHECK_EQ_INT(query_int(db, "SELECT launch_latency_ns FROM kernel_phases "
				   "WHERE graph IS NULL"),
		     50);
	CHECK_EQ_INT(query_int(db, "SELECT queue_wait_ns FROM kernel_phases WHERE graph IS NULL"),
		     150);
	CHECK_EQ_INT(query_int(db, "SELECT end - start FROM nvtx"), 3000);
	CHECK_EQ_STR(query_text(db, "SELECT src || '>' || dst FROM copies"), "pageable>device");
	CHECK_EQ_STR(query_text(db, "SELECT name FROM devices"), "NVIDIA H200");
	/* written packed (trace/packed.h), and the blocks stand for the rows */
	int64_t rows;
	CHECK_EQ_INT(packed_usable(db, "kernels", &rows), 1);
	CHECK_EQ_INT(rows, 2);
	CHECK_EQ_INT(packed_usable(db, "api_calls", &rows), 1);
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM packed"), 2);
	sqlite3_close(db);
}

/* The process record said latency timestamps were on; CUPTI, set up after it, refused
 * them: the trace says off. */
TEST(import_latency_refused)
{
	char path[300];
	make_dir();
	snprintf(path, sizeof(path), "%s/a.1.kgspool", dir);
	write_process(path, 4242, 2);
	sqlite3 *db = import_dir();
	CHECK_EQ_INT(query_int(db, "SELECT latency_timestamps FROM processes"), 0);
	CHECK_EQ_INT(query_int(db, "SELECT complete FROM processes"), 1);
	sqlite3_close(db);
}

TEST(import_killed_process_is_marked_incomplete)
{
	char path[300];
	make_dir();
	snprintf(path, sizeof(path), "%s/a.1.kgspool", dir);
	write_process(path, 1, 0);
	/* chop the file inside its last record, as a SIGKILL during write() would */
	struct stat sb;
	CHECK(stat(path, &sb) == 0);
	CHECK(truncate(path, sb.st_size - 12) == 0);
	sqlite3 *db = import_dir();
	CHECK_EQ_INT(query_int(db, "SELECT complete FROM processes"), 0);
	CHECK(strstr(query_text(db, "SELECT spool_note FROM processes"), "ends inside a record"));
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM kernels"), 2);
	/* the range's end record was cut off: the range stays open */
	CHECK_EQ_INT(query_int(db, "SELECT end FROM nvtx"), -1);
	sqlite3_close(db);
}

TEST(import_process_without_end_record)
{
	char path[300];
	make_dir();
	snprintf(path, sizeof(path), "%s/a.1.kgspool", dir);
	write_process(path, 1, 0);
	sqlite3 *db = import_dir();
	CHECK_EQ_INT(query_int(db, "SELECT complete FROM processes"), 0);
	CHECK(strstr(query_text(db, "SELECT spool_note FROM processes"), "no end record"));
	CHECK_EQ_INT(query_int(db, "SELECT end_ns FROM processes"), 6000); /* last record seen */
	sqlite3_close(db);
}

TEST(import_gathers_several_processes)
{
	char path[300];
	make_dir();
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/h.%d.kgspool", dir, 100 + i);
		write_process(path, 100 + (uint32_t)i, 1);
	}
	snprintf(path, sizeof(path), "%s/unrelated.txt", dir);
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	close(fd);
	sqlite3 *db = import_dir();
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM processes"), 3);
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM kernels"), 6);
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(DISTINCT process) FROM kernels"), 3);
	/* strings are shared across processes */
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM strings WHERE text = 'cudaLaunchKernel'"), 1);
	sqlite3_close(db);
}

static void expect_import_error(const char *content, size_t len, const char *needle)
{
	char path[300], out[300];
	make_dir();
	snprintf(path, sizeof(path), "%s/bad.kgspool", dir);
	snprintf(out, sizeof(out), "%s/out.kgt", dir);
	FILE *f = fopen(path, "wb");
	CHECK(f);
	fwrite(content, 1, len, f);
	fclose(f);
	struct kg_import im;
	CHECK_EQ_INT(import_begin(&im, out, "test"), 0);
	int rc = import_spool_file(&im, path);
	CHECK(rc < 0);
	if (!strstr(im.err, needle))
		fprintf(stderr, "    error was: %s\n", im.err);
	CHECK(strstr(im.err, needle));
	CHECK(strstr(im.err, path)); /* names the file */
	import_abort(&im);
	CHECK(access(out, F_OK) != 0); /* no half-written trace left */
}

/* A directory without spool files imports none, and says so (kgantt import's "no
 * *.kgspool file"): its names list is NULL then, which qsort may not be given (UBSan, in
 * t002 under a sanitized kgantt). */
TEST(import_of_a_directory_without_spools_finds_none)
{
	make_dir();
	char out[300];
	snprintf(out, sizeof(out), "%s.kgt", dir);
	struct kg_import im;
	int n = -1;
	CHECK_EQ_INT(import_begin(&im, out, "test"), 0);
	CHECK_EQ_INT(import_spool_dir(&im, dir, &n), 0);
	CHECK_EQ_INT(n, 0);
	import_abort(&im);
	unlink(out);
	rmdir(dir);
}

TEST(import_rejects_wrong_magic)
{
	expect_import_error("PK\3\4 this is a zip file ....", 28, "is not a kgantt spool");
}

TEST(import_rejects_empty_file)
{
	expect_import_error("", 0, "is empty");
}

static size_t make_header(char *buf)
{
	struct kg_raw_file_header fh = {.version = KG_RAW_VERSION, .header_size = sizeof(fh)};
	memcpy(fh.magic, KG_RAW_MAGIC, 8);
	memcpy(buf, &fh, sizeof(fh));
	return sizeof(fh);
}

TEST(import_rejects_record_before_process)
{
	char buf[256] = {0};
	size_t n = make_header(buf);
	struct kg_raw_kernel k = {.h = {.type = KG_RAW_KERNEL, .size = sizeof(k)}};
	memcpy(buf + n, &k, sizeof(k));
	expect_import_error(buf, n + sizeof(k), "comes before the process record");
}

TEST(import_rejects_short_record)
{
	char buf[256] = {0};
	size_t n = make_header(buf);
	struct kg_raw_process p = {.h = {.type = KG_RAW_PROCESS, .size = sizeof(p)}};
	memcpy(buf + n, &p, sizeof(p));
	n += sizeof(p);
	struct kg_raw_hdr h = {.type = KG_RAW_KERNEL, .size = 16};
	memcpy(buf + n, &h, sizeof(h));
	expect_import_error(buf, n + 16, "expected at least");
}

TEST(import_rejects_future_version)
{
	char buf[64] = {0};
	size_t n = make_header(buf);
	((struct kg_raw_file_header *)buf)->version = 99;
	expect_import_error(buf, n, "spool version 99");
}

TEST(import_rejects_bad_string_length)
{
	char buf[256] = {0};
	size_t n = make_header(buf);
	struct kg_raw_string *s = (void *)(buf + n);
	s->h.type = KG_RAW_STRING;
	s->h.size = 24;
	s->id = 1;
	s->len = 200;
	expect_import_error(buf, n + 24, "does not fit its record");
}

/* Records are read in place: a header size that is not a multiple of 8 put every record
 * off its alignment (UBSan: misaligned access; found by tests/fuzz/fuzz_spool). */
TEST(import_rejects_misaligned_header_size)
{
	char buf[256] = {0};
	size_t n = make_header(buf);
	((struct kg_raw_file_header *)buf)->header_size = 19;
	struct kg_raw_process p = {.h = {.type = KG_RAW_PROCESS, .size = sizeof(p)}, .pid = 7};
	memcpy(buf + 19, &p, sizeof(p));
	expect_import_error(buf, 19 + sizeof(p), "bad header size 19");
	(void)n;
}

/* A string id sized the id table: 4 bytes per id, so a tiny spool could ask for 16 GiB
 * (found by tests/fuzz/fuzz_spool). Ids count the string records, which the file's size
 * bounds; otherwise the spool is whole, so only the id can be refused. */
TEST(import_rejects_string_id_beyond_file)
{
	char buf[256] = {0};
	size_t n = make_header(buf);
	struct kg_raw_string *s = (void *)(buf + n);
	s->h.type = KG_RAW_STRING;
	s->h.size = 24;
	s->id = 1u << 26; /* 256 MiB of table before the bound */
	s->len = 1;
	s->text[0] = 'x';
	n += 24;
	struct kg_raw_process p = {.h = {.type = KG_RAW_PROCESS, .size = sizeof(p)}, .pid = 7};
	memcpy(buf + n, &p, sizeof(p));
	n += sizeof(p);
	struct kg_raw_end e = {.h = {.type = KG_RAW_END, .size = sizeof(e)}};
	memcpy(buf + n, &e, sizeof(e));
	expect_import_error(buf, n + sizeof(e), "holds at most");
}

TEST(trace_open_rejects_non_traces)
{
	char path[300], err[1024];
	sqlite3 *db;
	make_dir();
	CHECK(trace_db_open("/nonexistent/x.kgt", &db, err, sizeof(err)) < 0);
	CHECK(strstr(err, "cannot open '/nonexistent/x.kgt'"));
	CHECK(trace_db_open(dir, &db, err, sizeof(err)) < 0);
	CHECK(strstr(err, "is a directory"));
	snprintf(path, sizeof(path), "%s/text.kgt", dir);
	FILE *f = fopen(path, "w");
	fputs("hello, not a database at all, but long enough to look like one?\n", f);
	fclose(f);
	CHECK(trace_db_open(path, &db, err, sizeof(err)) < 0);
	CHECK(strstr(err, "not an SQLite database"));
	snprintf(path, sizeof(path), "%s/other.db", dir);
	sqlite3 *o;
	CHECK(sqlite3_open(path, &o) == SQLITE_OK);
	CHECK(sqlite3_exec(o, "CREATE TABLE t(x)", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(o);
	CHECK(trace_db_open(path, &db, err, sizeof(err)) < 0);
	CHECK(strstr(err, "no meta table"));
}

/* Launch calls the launch hook saw (trace/hooked_import.h): each finds the kernel queued
 * inside it on its stream, or the only one of any stream when its stream is unknown, and
 * takes its correlation id; a call with two candidates, or none, keeps its own. */
static void hooked_call(struct kg_spool *s, uint32_t name, uint64_t start, uint32_t own,
			uint32_t stream, uint32_t ret)
{
	struct kg_raw_api *a = REC(s, KG_RAW_API, struct kg_raw_api);
	a->start = start, a->end = start + 100;
	a->domain = KG_API_DRIVER, a->name_str = name, a->tid = 78;
	a->correlation_id = own, a->return_value = ret;
	struct kg_raw_hooked_launch *x = REC(s, KG_RAW_HOOKED_LAUNCH, struct kg_raw_hooked_launch);
	x->correlation_id = own, x->stream_id = stream;
	x->device_id = stream == KG_RAW_STREAM_UNKNOWN ? KG_RAW_STREAM_UNKNOWN : 0;
}

static void stack_time(struct kg_spool *s, uint64_t start, uint32_t correlation, uint32_t kind)
{
	struct kg_raw_overhead *o = REC(s, KG_RAW_OVERHEAD, struct kg_raw_overhead);
	o->start = start, o->end = start + 8;
	o->kind = kind, o->object_kind = KG_OVERHEAD_OBJECT_THREAD, o->object_id = 78;
	o->correlation_id = correlation;
}

/* A 100 ns kernel of one 32-thread block: no queued time (latency timestamps off). */
static struct kg_raw_kernel *kernel_started(struct kg_spool *s, uint32_t name, uint32_t stream,
					    uint64_t start, uint32_t correlation, uint32_t graph)
{
	struct kg_raw_kernel *k = REC(s, KG_RAW_KERNEL, struct kg_raw_kernel);
	k->name_str = name, k->correlation_id = correlation, k->stream_id = stream;
	k->context_id = 1, k->start = start, k->end = start + 100, k->graph_id = graph;
	k->grid[0] = k->grid[1] = k->grid[2] = 1;
	k->block[0] = k->block[1] = k->block[2] = 32;
	return k;
}

/* ... queued at queued, starting 500 ns later. */
static void kernel_at(struct kg_spool *s, uint32_t name, uint32_t stream, uint64_t queued,
		      uint32_t correlation)
{
	struct kg_raw_kernel *k = kernel_started(s, name, stream, queued + 500, correlation, 0);
	k->queued = queued, k->submitted = queued + 10;
}

/* A new spool in a new dir, begun with a process (pid 7) and its launch settings: sampled
 * or every launch, and how. */
static void hooked_process(struct kg_spool *s, int latency, int sampled, const char *how)
{
	char path[300];
	make_dir();
	snprintf(path, sizeof(path), "%s/a.1.kgspool", dir);
	CHECK_EQ_INT(spool_open(s, path, 4096), 0);
	struct kg_raw_process *p = REC(s, KG_RAW_PROCESS, struct kg_raw_process);
	p->pid = 7, p->start_ns = 1000, p->latency_timestamps = (uint32_t)latency;
	uint32_t why = spool_string(s, how);
	struct kg_raw_launch_settings *ls =
		REC(s, KG_RAW_LAUNCH_SETTINGS, struct kg_raw_launch_settings);
	ls->sampled = (uint32_t)sampled, ls->why_str = why;
	if (sampled)
		ls->window_on_ms = 10, ls->window_period_ms = 100;
}

TEST(import_hooked_launch_calls_find_their_kernels)
{
	struct kg_spool s;
	hooked_process(&s, 1, 1, KG_LAUNCHES_BY_HOOK);
	uint32_t kname = spool_string(&s, "k");
	uint32_t launch = spool_string(&s, "cuLaunchKernel");
	const uint32_t own = KG_RAW_HOOKED_CORRELATION;
	/* calls and kernels in the order a spool has them: calls drained late, or early */
	kernel_at(&s, kname, 13, 2050, 10);
	hooked_call(&s, launch, 2000, own + 0, 13, 0);
	hooked_call(&s, launch, 3000, own + 1, 14, 0);
	hooked_call(&s, launch, 3001, own + 2, 13, 0); /* another thread, another stream */
	kernel_at(&s, kname, 14, 3050, 11);
	kernel_at(&s, kname, 13, 3060, 12);
	hooked_call(&s, launch, 5000, own + 3, KG_RAW_STREAM_UNKNOWN, 0);
	kernel_at(&s, kname, 13, 5050, 13);
	hooked_call(&s, launch, 6000, own + 4, KG_RAW_STREAM_UNKNOWN, 0);
	kernel_at(&s, kname, 13, 6020, 14);
	kernel_at(&s, kname, 14, 6040, 15);
	hooked_call(&s, launch, 7000, own + 5, 13, 1); /* failed: no kernel */
	kernel_at(&s, kname, 13, 7200, 16);          /* queued after the call: not its */
	/* the recorder's timed stacks: of a hooked call (held, then its kernel's id), of an
	 * unmatched one (its own id), and a CUPTI overhead record (as it is) */
	stack_time(&s, 1990, own + 0, KG_OVERHEAD_KGANTT_STACK);
	stack_time(&s, 6990, own + 5, KG_OVERHEAD_KGANTT_STACK);
	stack_time(&s, 2990, own + 1, 1u << 16);
	struct kg_raw_end *e = REC(&s, KG_RAW_END, struct kg_raw_end);
	e->ts = 9000;
	spool_close(&s);

	sqlite3 *db = import_dir();
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM api_calls"), 6);
	CHECK_EQ_STR(query_text(db, "SELECT group_concat(correlation, ',') FROM "
				    "(SELECT correlation FROM api_calls ORDER BY start)"),
		     "10,11,12,13,4026531844,4026531845");
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM kernels k JOIN api_calls a "
				   "ON a.correlation = k.correlation"),
		     4);
	CHECK_EQ_STR(query_text(db, "SELECT why FROM launch_settings"), KG_LAUNCHES_BY_HOOK);
	CHECK_EQ_STR(query_text(db, "SELECT group_concat(correlation, ',') FROM (SELECT "
				    "correlation FROM overheads ORDER BY start)"),
		     "10,4026531841,4026531845");
	sqlite3_close(db);
}

/* Without latency timestamps the launch hook dates every launch (KGANTT_DEV_DATED): a
 * stream's calls that did not fail, and were not made inside their thread's stream capture,
 * pair with its kernels outside graphs in launch order;
 * a stream where they are not as many, or where a kernel starts before its call, keeps
 * its calls' own ids and is said in a message. */
TEST(import_dated_launches_pair_by_launch_order)
{
	struct kg_spool s;
	hooked_process(&s, 0, 0, KG_LAUNCHES_DATED_BY_HOOK);
	uint32_t kname = spool_string(&s, "k");
	uint32_t launch = spool_string(&s, "cuLaunchKernel");
	const uint32_t own = KG_RAW_HOOKED_CORRELATION;
	/* stream 13: a failed launch among three, a graph's kernel, calls drained late */
	kernel_started(&s, kname, 13, 2500, 20, 0);
	hooked_call(&s, launch, 2000, own + 0, 13, 0);
	hooked_call(&s, launch, 3000, own + 1, 13, 1);
	kernel_started(&s, kname, 13, 3900, 50, 4);
	hooked_call(&s, launch, 4000, own + 2, 13, 0);
	hooked_call(&s, launch, 5000, own + 3, 13, 0);
	kernel_started(&s, kname, 13, 4500, 21, 0);
	kernel_started(&s, kname, 13, 5500, 22, 0);
	/* a launch inside the thread's stream capture queues no kernel */
	uint32_t begin = spool_string(&s, "cudaStreamBeginCapture_v10000");
	uint32_t end = spool_string(&s, "cudaStreamEndCapture_v10000");
	struct kg_raw_api *cap = REC(&s, KG_RAW_API, struct kg_raw_api);
	cap->start = 5100, cap->end = 5150, cap->name_str = begin, cap->tid = 78;
	cap->domain = KG_API_RUNTIME, cap->correlation_id = 900;
	hooked_call(&s, launch, 5200, own + 9, 13, 0);
	cap = REC(&s, KG_RAW_API, struct kg_raw_api);
	cap->start = 5300, cap->end = 5350, cap->name_str = end, cap->tid = 78;
	cap->domain = KG_API_RUNTIME, cap->correlation_id = 901;
	/* stream 14: two calls, one kernel */
	hooked_call(&s, launch, 2100, own + 4, 14, 0);
	hooked_call(&s, launch, 2200, own + 5, 14, 0);
	kernel_started(&s, kname, 14, 2600, 23, 0);
	/* stream 15: a kernel that started before the call it would pair with */
	hooked_call(&s, launch, 6000, own + 6, 15, 0);
	hooked_call(&s, launch, 6100, own + 7, 15, 0);
	kernel_started(&s, kname, 15, 5900, 30, 0);
	kernel_started(&s, kname, 15, 6200, 31, 0);
	/* no stream, no queued time: nothing to pair with */
	hooked_call(&s, launch, 7000, own + 8, KG_RAW_STREAM_UNKNOWN, 0);
	struct kg_raw_end *e = REC(&s, KG_RAW_END, struct kg_raw_end);
	e->ts = 9000;
	spool_close(&s);

	sqlite3 *db = import_dir();
	CHECK_EQ_STR(query_text(db, "SELECT group_concat(correlation, ',') FROM (SELECT "
				    "correlation FROM api_calls WHERE start BETWEEN 2000 AND 5000 "
				    "AND start % 1000 = 0 ORDER BY start)"),
		     "20,4026531841,21,22");
	CHECK_EQ_INT(query_int(db, "SELECT correlation FROM api_calls WHERE start = 5200"),
		     own + 9);
	CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM kernels k JOIN api_calls a "
				   "ON a.correlation = k.correlation"),
		     3);
	CHECK_EQ_STR(query_text(db, "SELECT calls FROM launch_settings"), "all");
	CHECK_EQ_STR(query_text(db, "SELECT text FROM messages WHERE level = 'warning'"),
		     "4 launch calls on 2 streams not paired with their 3 kernels (not as many, "
		     "or the kernels started before the calls): those kernels have no launch time");
	sqlite3_close(db);

	/* with latency timestamps, KGANTT_DEV_MATCH=order pairs as queued times do */
	hooked_process(&s, 1, 1, KG_LAUNCHES_BY_HOOK);
	kname = spool_string(&s, "k");
	launch = spool_string(&s, "cuLaunchKernel");
	hooked_call(&s, launch, 2000, own + 0, 13, 0);
	hooked_call(&s, launch, 3000, own + 1, 13, 0);
	kernel_at(&s, kname, 13, 2050, 10);
	kernel_at(&s, kname, 13, 3050, 11);
	e = REC(&s, KG_RAW_END, struct kg_raw_end);
	e->ts = 9000;
	spool_close(&s);
	setenv("KGANTT_DEV_MATCH", "order", 1);
	db = import_dir();
	unsetenv("KGANTT_DEV_MATCH");
	CHECK_EQ_STR(query_text(db, "SELECT group_concat(correlation, ',') FROM (SELECT "
				    "correlation FROM api_calls ORDER BY start)"),
		     "10,11");
	sqlite3_close(db);
}

/* Real launches (H100, 2026-12-08: tests/fixtures/h100/dated/, written by
 * tests/gpu/stamps_fixture.py from the launch hook probe's kept launches and a kernels-mode
 * trace with latency timestamps): a dated spool of them, without the queued times, pairs
 * each kernel with a call, and the driver's queued time of that kernel lies inside it for
 * as many as tests/gpu/hook_stamps.py counted (every one where one thread launches on a
 * stream; 1,152 of 1,601 where four threads launch on one at once). */
#define DATED_FIXTURES "tests/fixtures/h100/dated/"
#define DATED_BASE 1000000000000ull /* the fixtures' times are from the first kernel */
#define DATED_MAX 16384

struct dated_kernel {
	uint32_t correlation;
	int64_t queued;
};

static size_t dated_spool(const char *name, struct dated_kernel *kernels)
{
	char cmd[512], line[256];
	snprintf(cmd, sizeof(cmd), "xz -dc " DATED_FIXTURES "%s.launches.xz", name);
	FILE *in = popen(cmd, "r");
	CHECK(in != NULL);
	struct kg_spool s;
	hooked_process(&s, 0, 0, KG_LAUNCHES_DATED_BY_HOOK);
	uint32_t kname = spool_string(&s, "k"), launch = spool_string(&s, "cuLaunchKernel");
	size_t nk = 0, nc = 0;
	while (in && fgets(line, sizeof(line), in)) {
		long long a, b, start, end;
		char queued[32], stream[32];
		int result;
		if (sscanf(line, "K %lld %lld %lld %31s", &a, &b, &start, queued) == 4 &&
		    nk < DATED_MAX) {
			kernel_started(&s, kname, (uint32_t)a, DATED_BASE + (uint64_t)start,
				       (uint32_t)b, 0);
			kernels[nk++] = (struct dated_kernel){(uint32_t)b,
							      strcmp(queued, "-") ? atoll(queued) : -1};
		} else if (sscanf(line, "C %lld %lld %31s %lld %d", &start, &end, stream, &a,
				  &result) == 5) {
			struct kg_raw_api *c = REC(&s, KG_RAW_API, struct kg_raw_api);
			c->start = DATED_BASE + (uint64_t)start, c->end = DATED_BASE + (uint64_t)end;
			c->domain = KG_API_DRIVER, c->name_str = launch, c->tid = (uint32_t)a;
			c->correlation_id = KG_RAW_HOOKED_CORRELATION + (uint32_t)nc++;
			c->return_value = (uint32_t)result;
			struct kg_raw_hooked_launch *x =
				REC(&s, KG_RAW_HOOKED_LAUNCH, struct kg_raw_hooked_launch);
			x->correlation_id = c->correlation_id;
			x->stream_id = strcmp(stream, "-") ? (uint32_t)atoll(stream)
							   : KG_RAW_STREAM_UNKNOWN;
			x->device_id = x->stream_id == KG_RAW_STREAM_UNKNOWN ? KG_RAW_STREAM_UNKNOWN : 0;
		}
	}
	CHECK(in && pclose(in) == 0);
	struct kg_raw_end *e = REC(&s, KG_RAW_END, struct kg_raw_end);
	e->ts = DATED_BASE + 100000000000ull;
	spool_close(&s);
	return nk;
}

/* The kernels dated by a call, and of them those whose queued time lies inside it. */
static void dated_pairs(sqlite3 *db, const struct dated_kernel *kernels, size_t nk,
			size_t *dated, size_t *inside)
{
	sqlite3_stmt *st;
	CHECK_EQ_INT(sqlite3_prepare_v2(db, "SELECT k.correlation, a.start, a.end FROM kernels k "
					    "JOIN api_calls a ON a.correlation = k.correlation "
					    "ORDER BY k.correlation",
					-1, &st, NULL),
		     SQLITE_OK);
	*dated = *inside = 0;
	size_t i = 0; /* the fixture's kernels are in correlation order too */
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t corr = (uint32_t)sqlite3_column_int64(st, 0);
		while (i < nk && kernels[i].correlation < corr)
			i++;
		CHECK(i < nk && kernels[i].correlation == corr);
		int64_t q = kernels[i].queued + (int64_t)DATED_BASE;
		(*dated)++;
		*inside += kernels[i].queued != -1 && sqlite3_column_int64(st, 1) <= q &&
			   q <= sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
}

TEST(import_pairs_real_launches_by_launch_order)
{
	static const struct {
		const char *name;
		size_t kernels, inside;
	} runs[] = {{"cupy", 1203, 1203}, {"jax", 1129, 1129}, {"gpt", 10936, 10936},
		    {"multi", 1601, 1152}};
	static struct dated_kernel kernels[DATED_MAX];
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		size_t nk = dated_spool(runs[r].name, kernels), dated, inside;
		CHECK_EQ_INT(nk, runs[r].kernels);
		sqlite3 *db = import_dir();
		dated_pairs(db, kernels, nk, &dated, &inside);
		fprintf(stderr, "    %s: %zu kernels, %zu dated, %zu inside their call\n",
			runs[r].name, nk, dated, inside);
		CHECK_EQ_INT(dated, nk);
		CHECK_EQ_INT(inside, runs[r].inside);
		CHECK_EQ_INT(query_int(db, "SELECT COUNT(*) FROM messages WHERE level = 'warning'"),
			     0);
		sqlite3_close(db);
	}
}

/* The call sites of hooked calls take the ids their calls took (stack_import.c). */
TEST(hooked_call_sites_take_their_calls_ids)
{
	struct kg_hooked_import *h = hooked_import_new();
	CHECK(h);
	const uint32_t own = KG_RAW_HOOKED_CORRELATION;
	CHECK_EQ_INT(hooked_import_kernel(h, 0, 7, 150, 650, 42), 0);
	struct kg_raw_api a = {.start = 100, .end = 200, .correlation_id = own + 9};
	CHECK_EQ_INT(hooked_import_call(h, &a), 0);
	hooked_import_stream(h, &(struct kg_raw_hooked_launch){.correlation_id = own + 9,
							       .stream_id = 7, .device_id = 0});
	a = (struct kg_raw_api){.start = 300, .end = 400, .correlation_id = own + 3};
	CHECK_EQ_INT(hooked_import_call(h, &a), 0);
	CHECK_EQ_INT(hooked_import_match(h), 1);
	CHECK_EQ_INT(hooked_import_correlation(h, own + 9), 42);
	CHECK_EQ_INT(hooked_import_correlation(h, own + 3), own + 3);
	CHECK_EQ_INT(hooked_import_correlation(h, own + 4), own + 4);
	CHECK_EQ_INT(hooked_import_correlation(h, 5), 5);
	CHECK_EQ_INT(hooked_import_ncalls(h), 2);
	CHECK_EQ_INT(hooked_import_call_at(h, 0)->correlation_id, 42);
	hooked_import_free(h);
}
