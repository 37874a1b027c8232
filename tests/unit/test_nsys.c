/* The Nsight Systems SQLite reader, on real H200 kgantt traces converted to nsys's export
 * layout by tests/tools/kgt_to_nsys.py (no nsys export could be made where kgantt is
 * developed). Each test checks the model against the numbers of the kgantt trace itself,
 * then bad inputs: unrelated SQLite files, missing tables and columns, NULL names, wrong
 * types, truncated files.
 *
 * The converted files are made on first use under build/tests/nsys/ (python3 with its
 * sqlite3 and lzma modules), and again when the converter or the fixture is newer. */
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

/* The nsys export of fixture NAME in the given schema layout ("3.28" or "3.16"). */
static const char *nsys_file(const char *name, const char *schema)
{
	static char out[256];
	char fixture[256], cmd[1024];
	snprintf(fixture, sizeof(fixture), FIXTURES "%s.kgt.xz", name);
	snprintf(out, sizeof(out), OUT_DIR "/%s-%s.sqlite", name, schema);
	int64_t t = mtime(out);
	if (t >= 0 && t >= mtime(fixture) && t >= mtime(CONVERTER))
		return out;
	mkdir("build", 0755);
	mkdir("build/tests", 0755);
	mkdir(OUT_DIR, 0755);
	snprintf(cmd, sizeof(cmd), "python3 " CONVERTER " --schema %s %s %s", schema, fixture, out);
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "    '%s' failed (exit %d): python3 with sqlite3 and lzma needed\n",
			cmd, rc);
	CHECK(rc == 0);
	return out;
}

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
	else
		fprintf(stderr, "    %s\n", l->err);
}

static void load_ok(struct loaded *l, const char *path)
{
	load(l, path);
	CHECK_EQ_INT(l->rc, 0);
}

static uint32_t count_ops(const struct kg_model *m, enum kg_op_kind kind)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_ops; i++)
		n += m->ops[i].kind == kind;
	return n;
}

static const struct kg_stream *stream_by_id(const struct kg_model *m, uint32_t process,
					    int64_t id)
{
	for (uint32_t i = 0; i < m->n_streams; i++)
		if (m->streams[i].process == process && m->streams[i].id == id)
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

/* ------------------------------------------------------------------ real traces */

/* copies_bad: 8 kernels, 16 pageable copies (HtoD by cudaMemcpyAsync, DtoH by
 * cudaMemcpy), 8 memsets, 4 context syncs, 183 API calls (56 runtime), on an H200. */
static void check_copies_bad(const char *schema)
{
	struct loaded l;
	load_ok(&l, nsys_file("copies_bad", schema));
	struct kg_model *m = &l.m;
	CHECK_EQ_STR(m->source, "nsys");
	CHECK_EQ_INT(m->n_processes, 1);
	CHECK_EQ_INT(m->processes[0].pid, 564);
	CHECK_EQ_STR(model_text(m, m->processes[0].cmdline), "copies");
	CHECK_EQ_STR(model_text(m, m->processes[0].host), "vm");
	CHECK_EQ_INT(m->n_devices, 1);
	const struct kg_device *d = &m->devices[0];
	CHECK_EQ_STR(model_text(m, d->name), "NVIDIA H200");
	CHECK_EQ_STR(model_text(m, d->uuid), "bcc1dfc1-2d22-b7fe-0cb8-970918da4ec7");
	CHECK_EQ_INT(d->sm_count, 132);
	CHECK_EQ_INT(d->max_warps_per_sm, 64);
	CHECK_EQ_INT(d->cc_major, 9);
	CHECK_EQ_INT(d->smem_per_sm, 233472);
	CHECK_EQ_INT(d->memory_bytes, 150109880320);
	CHECK_EQ_INT(m->n_gpus, 1);

	CHECK_EQ_INT(count_ops(m, KG_OP_KERNEL), 8);
	CHECK_EQ_INT(count_ops(m, KG_OP_MEMCPY), 16);
	CHECK_EQ_INT(count_ops(m, KG_OP_MEMSET), 8);
	int64_t kernel_ns = 0, copy_ns = 0;
	int htod = 0, dtoh = 0, async = 0, linked = 0;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		const char *api = o->api == KG_NONE ? "" : model_text(m, m->apis[o->api].name);
		if (o->kind == KG_OP_KERNEL) {
			kernel_ns += o->end - o->start;
			CHECK_EQ_STR(model_text(m, o->name),
				     "copies_compute(float const*, float*, unsigned long, int)");
			CHECK_EQ_INT(m->streams[o->stream].id, 13);
			CHECK_EQ_INT(o->grid[0], 1056);
			CHECK_EQ_INT(o->block[0], 256);
			CHECK_EQ_INT(o->regs, 16);
			CHECK_EQ_INT(o->queued, KG_NO_TIME); /* nsys does not export it */
			CHECK_EQ_STR(api, "cudaLaunchKernel_v7000");
			CHECK(o->api_start <= o->start);
		} else if (o->kind == KG_OP_MEMCPY) {
			copy_ns += o->end - o->start;
			CHECK_EQ_INT(o->bytes, 33554432);
			if (o->copy_kind == KG_COPY_HTOD) {
				htod++;
				CHECK_EQ_INT(o->src_kind, KG_MEM_PAGEABLE);
				CHECK_EQ_INT(o->dst_kind, KG_MEM_DEVICE);
				CHECK_EQ_STR(model_text(m, o->name), "memcpy HtoD pageable→device");
				CHECK_EQ_STR(api, "cudaMemcpyAsync_v3020");
			} else if (o->copy_kind == KG_COPY_DTOH) {
				dtoh++;
				CHECK_EQ_INT(o->src_kind, KG_MEM_DEVICE);
				CHECK_EQ_INT(o->dst_kind, KG_MEM_PAGEABLE);
				CHECK_EQ_STR(api, "cudaMemcpy_v3020");
			}
			async += (o->flags & KG_OPF_ASYNC) != 0;
		} else {
			CHECK_EQ_INT(o->dst_kind, KG_MEM_DEVICE);
			CHECK_EQ_STR(model_text(m, o->name), "memset device");
			CHECK_EQ_INT(m->streams[o->stream].id, 7);
			CHECK(!(o->flags & KG_OPF_ASYNC));
		}
		linked += o->api != KG_NONE;
	}
	CHECK_EQ_INT(kernel_ns, 7526818); /* the kgantt trace's sum, to the nanosecond */
	CHECK_EQ_INT(copy_ns, 52034128);
	CHECK_EQ_INT(htod, 8);
	CHECK_EQ_INT(dtoh, 8);
	CHECK_EQ_INT(async, 8);
	CHECK_EQ_INT(linked, 32);

	CHECK_EQ_INT(m->n_apis, 183);
	uint32_t runtime = 0;
	for (uint32_t i = 0; i < m->n_apis; i++)
		runtime += !m->apis[i].driver;
	CHECK_EQ_INT(runtime, 56);
	CHECK_EQ_INT(m->n_threads, 1);
	CHECK_EQ_INT(m->threads[0].tid, 564);
	CHECK_EQ_STR(model_text(m, m->threads[0].name), "copies");

	CHECK_EQ_INT(m->n_syncs, 4);
	for (uint32_t i = 0; i < m->n_syncs; i++) {
		CHECK_EQ_INT(m->syncs[i].kind, KG_SYNC_CONTEXT);
		CHECK_EQ_INT(m->syncs[i].stream, KG_NONE);
		CHECK(m->syncs[i].api != KG_NONE);
		CHECK(strstr(model_text(m, m->apis[m->syncs[i].api].name), "Synchronize"));
	}
	/* the streams the program created, with their flags and priorities */
	CHECK_EQ_INT(m->n_streams, 8);
	CHECK_EQ_INT(stream_by_id(m, 0, 7)->kind, KG_STREAM_LEGACY_DEFAULT);
	CHECK_EQ_INT(stream_by_id(m, 0, 8)->kind, KG_STREAM_NON_BLOCKING);
	CHECK_EQ_INT(stream_by_id(m, 0, 12)->priority, -5);
	CHECK_EQ_INT(stream_by_id(m, 0, 13)->kind, KG_STREAM_BLOCKING);
	CHECK_EQ_INT(stream_by_id(m, 0, 13)->nops, 16);
	CHECK(m->begin != KG_NO_TIME && m->end > m->begin);
	CHECK_EQ_INT(m->n_notes, 0);
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

/* streams_fixed: 20 kernels on each of 8 non-blocking streams, 15 streams created. */
TEST(streams_fixed)
{
	struct loaded l;
	load_ok(&l, nsys_file("streams_fixed", "3.28"));
	struct kg_model *m = &l.m;
	CHECK_EQ_INT(count_ops(m, KG_OP_KERNEL), 160);
	CHECK_EQ_INT(count_ops(m, KG_OP_MEMSET), 1);
	CHECK_EQ_INT(count_ops(m, KG_OP_MEMCPY), 0); /* and no MEMCPY table at all */
	CHECK_EQ_INT(m->n_streams, 15);
	int64_t ns = 0;
	for (int64_t id = 13; id <= 20; id++) {
		const struct kg_stream *s = stream_by_id(m, 0, id);
		CHECK(s != NULL);
		CHECK_EQ_INT(s->nops, 20);
		CHECK_EQ_INT(s->kind, KG_STREAM_NON_BLOCKING);
		for (uint32_t i = s->first_op; i < s->first_op + s->nops; i++) {
			CHECK(i == s->first_op || m->ops[i].start >= m->ops[i - 1].start);
			CHECK_EQ_STR(model_text(m, m->ops[i].name), "streams_work(float*, int)");
			CHECK(m->ops[i].api != KG_NONE);
			ns += m->ops[i].end - m->ops[i].start;
		}
	}
	CHECK_EQ_INT(ns, 40548943);
	CHECK_EQ_INT(m->n_apis, 624);
	model_free(m);
}

/* nvtx_bad: 17 NVTX events (16 push/pop ranges and a mark) on the main thread. */
static void check_nvtx(const char *path)
{
	struct loaded l;
	load_ok(&l, path);
	struct kg_model *m = &l.m;
	CHECK_EQ_INT(m->n_ranges, 17);
	int steps = 0, marks = 0;
	int64_t step_ns = 0;
	for (uint32_t i = 0; i < m->n_ranges; i++) {
		const struct kg_range *g = &m->ranges[i];
		CHECK_EQ_INT(g->process, 0);
		CHECK_EQ_INT(g->domain, 0);
		CHECK(g->thread != KG_NONE);
		CHECK_EQ_INT(m->threads[g->thread].tid, 756);
		if (strcmp(model_text(m, g->name), "step") == 0) {
			steps++;
			step_ns += g->end - g->start;
		}
		if (strcmp(model_text(m, g->name), "halfway") == 0) {
			marks++;
			CHECK_EQ_INT(g->end, g->start);
		}
	}
	CHECK_EQ_INT(steps, 5);
	CHECK_EQ_INT(step_ns, 10819512);
	CHECK_EQ_INT(marks, 1);
	CHECK_EQ_INT(count_ops(m, KG_OP_KERNEL), 20);
	CHECK_EQ_INT(count_ops(m, KG_OP_MEMSET), 2);
	CHECK_EQ_INT(m->n_syncs, 9);
	uint32_t stream_syncs = 0;
	for (uint32_t i = 0; i < m->n_syncs; i++)
		if (m->syncs[i].kind == KG_SYNC_STREAM) {
			stream_syncs++;
			CHECK(m->syncs[i].stream != KG_NONE);
			CHECK_EQ_INT(m->streams[m->syncs[i].stream].id, 13);
		}
	CHECK_EQ_INT(stream_syncs, 6);
	model_free(m);
}

TEST(nvtx_bad)
{
	check_nvtx(nsys_file("nvtx_bad", "3.28"));
}

TEST(nvtx_bad_schema_3_16)
{
	check_nvtx(nsys_file("nvtx_bad", "3.16"));
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
	int steps = 0, in_domain = 0;
	for (uint32_t i = 0; i < l.m.n_ranges; i++) {
		steps += strcmp(model_text(&l.m, l.m.ranges[i].name), "step") == 0;
		in_domain += strcmp(model_text(&l.m, l.m.ranges[i].domain), "training") == 0;
	}
	CHECK_EQ_INT(l.m.n_ranges, 17); /* the domain's creation is not a range */
	CHECK_EQ_INT(steps, 5);
	CHECK_EQ_INT(in_domain, 16);
	model_free(&l.m);
	unlink(path);
}

/* timeslice_bad: two processes time-slicing one H200, 10 kernels each. */
TEST(timeslice_two_processes)
{
	struct loaded l;
	load_ok(&l, nsys_file("timeslice_bad", "3.28"));
	struct kg_model *m = &l.m;
	CHECK_EQ_INT(m->n_processes, 2);
	CHECK_EQ_INT(m->n_devices, 2);
	CHECK_EQ_INT(m->n_gpus, 1); /* same UUID: one physical GPU */
	CHECK_EQ_INT(m->devices[0].gpu, m->devices[1].gpu);
	uint32_t pids[2] = {m->processes[0].pid, m->processes[1].pid};
	CHECK((pids[0] == 709 && pids[1] == 710) || (pids[0] == 710 && pids[1] == 709));
	int64_t ns[2] = {0, 0};
	uint32_t n[2] = {0, 0}, apis[2] = {0, 0};
	for (uint32_t i = 0; i < m->n_ops; i++) {
		uint32_t p = m->streams[m->ops[i].stream].process;
		CHECK(p < 2);
		n[p]++;
		ns[p] += m->ops[i].end - m->ops[i].start;
		CHECK(m->ops[i].api != KG_NONE);
		CHECK_EQ_INT(m->apis[m->ops[i].api].process, p); /* correlation ids repeat */
		CHECK_EQ_STR(model_text(m, m->ops[i].name), "timeslice_spin(float*, int)");
	}
	for (uint32_t i = 0; i < m->n_apis; i++)
		apis[m->apis[i].process]++;
	CHECK_EQ_INT(n[0], 10);
	CHECK_EQ_INT(n[1], 10);
	CHECK_EQ_INT(apis[0], 161);
	CHECK_EQ_INT(apis[1], 161);
	uint32_t p709 = pids[0] == 709 ? 0 : 1;
	CHECK_EQ_INT(ns[p709], 465402091);
	CHECK_EQ_INT(ns[1 - p709], 467025549);
	CHECK_EQ_INT(m->n_streams, 16);
	model_free(m);
}

/* launches_graph: 10000 kernels from 100 launches of one CUDA graph. */
TEST(graph_kernels)
{
	struct loaded l;
	load_ok(&l, nsys_file("launches_graph", "3.28"));
	struct kg_model *m = &l.m;
	CHECK_EQ_INT(count_ops(m, KG_OP_KERNEL), 10000);
	uint32_t graph = 0;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind != KG_OP_KERNEL)
			continue;
		graph += (o->flags & KG_OPF_GRAPH) != 0;
		CHECK_EQ_INT(o->graph, 2);
		CHECK(o->api != KG_NONE);
		CHECK_EQ_STR(model_text(m, m->apis[o->api].name), "cudaGraphLaunch_v10000");
	}
	CHECK_EQ_INT(graph, 10000);
	model_free(m);
}

/* The 3.16 layout has no graphId: graph kernels are still known by their graph node. */
TEST(graph_kernels_without_graph_id)
{
	const char *path = altered(nsys_file("launches_graph", "3.28"),
				   "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN graphId");
	struct loaded l;
	load_ok(&l, path);
	uint32_t graph = 0;
	for (uint32_t i = 0; i < l.m.n_ops; i++)
		graph += l.m.ops[i].kind == KG_OP_KERNEL && (l.m.ops[i].flags & KG_OPF_GRAPH);
	CHECK_EQ_INT(graph, 10000);
	model_free(&l.m);
	unlink(path);
}

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
				   "DROP TABLE ENUM_CUDA_MEM_KIND; DROP TABLE ENUM_CUDA_MEMCPY_OPER;"
				   "DROP TABLE ENUM_CUPTI_SYNC_TYPE; DROP TABLE ENUM_CUPTI_STREAM_TYPE;"
				   "DROP TABLE ENUM_NSYS_EVENT_CLASS; DROP TABLE ENUM_NSYS_EVENT_TYPE;");
	struct loaded l;
	load_ok(&l, path);
	uint32_t pageable_htod = 0, runtime = 0;
	for (uint32_t i = 0; i < l.m.n_ops; i++)
		pageable_htod += l.m.ops[i].copy_kind == KG_COPY_HTOD &&
				 l.m.ops[i].src_kind == KG_MEM_PAGEABLE &&
				 l.m.ops[i].dst_kind == KG_MEM_DEVICE;
	for (uint32_t i = 0; i < l.m.n_apis; i++)
		runtime += !l.m.apis[i].driver; /* from the function names */
	CHECK_EQ_INT(pageable_htod, 8);
	CHECK_EQ_INT(runtime, 56);
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
	CHECK_EQ_INT(l.m.n_apis, 183);
	CHECK(has_note(&l.m, "10 CUDA API rows"));
	model_free(&l.m);
	unlink(path);
}

/* ------------------------------------------------------------------ bad input */

static void load_fails(const char *path, int rc, const char *part)
{
	struct loaded l;
	load(&l, path);
	CHECK_EQ_INT(l.rc, rc);
	CHECK(strstr(l.err, path) != NULL);
	if (!strstr(l.err, part))
		fprintf(stderr, "    expected \"%s\" in the message\n", part);
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
				   "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; DROP TABLE NVTX_EVENTS;");
	load_fails(path, -EINVAL, "without CUDA or NVTX data");
	unlink(path);
}

TEST(nvprof_export)
{
	const char *path = altered(nsys_file("copies_bad", "3.28"),
				   "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL;"
				   "DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY;"
				   "DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET;"
				   "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; DROP TABLE NVTX_EVENTS;"
				   "DROP TABLE StringIds; DROP TABLE META_DATA_EXPORT;"
				   "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT);");
	load_fails(path, -EINVAL, "nvprof");
	unlink(path);
}

TEST(missing_required_column)
{
	const char *path = altered(nsys_file("copies_bad", "3.28"),
				   "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN start");
	load_fails(path, -EINVAL,
		   "table CUPTI_ACTIVITY_KIND_KERNEL has no column 'start' (expected an Nsight "
		   "Systems export, 2023.1 or later)");
	unlink(path);
}

/* Without StringIds the activity still loads: counts and times stay right, names do not. */
TEST(missing_string_ids)
{
	const char *path = altered(nsys_file("copies_bad", "3.28"), "DROP TABLE StringIds");
	struct loaded l;
	load_ok(&l, path);
	CHECK_EQ_INT(count_ops(&l.m, KG_OP_KERNEL), 8);
	CHECK_EQ_INT(l.m.n_apis, 183);
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
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = NULL WHERE rowid <= 3;"
		"UPDATE NVTX_EVENTS SET text = NULL;");
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
	CHECK_EQ_INT(l.m.n_apis, 183);
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
		"UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET globalTid = NULL, end = NULL WHERE rowid < 5;"
		"UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET syncType = 'soon';"
		"UPDATE TARGET_INFO_GPU SET smCount = 'lots', name = 42;"
		"UPDATE TARGET_INFO_CUDA_STREAM SET priority = 'high', flag = 99;"
		"UPDATE StringIds SET value = x'00ff00' WHERE id = 1;");
	struct loaded l;
	load_ok(&l, path);
	CHECK_EQ_INT(count_ops(&l.m, KG_OP_KERNEL), 7);
	CHECK(has_note(&l.m, "1 GPU operations without timestamps"));
	CHECK_EQ_INT(l.m.n_apis, 183);
	CHECK(l.m.n_processes >= 2);
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
