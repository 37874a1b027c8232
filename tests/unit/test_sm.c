/* SM placement without a GPU: synthetic spools with kernels and SM block records are
 * imported (blocks matched by grid id, clocks aligned, losses counted, the recorder's own
 * calls left out), loaded, windowed, cloned and drawn; damaged SM records are refused
 * with a message, never a crash (ASan/UBSan); and the recorder's log reader
 * (src/recorder/smlog.c) runs against a fake driver whose "device memory" is a host
 * buffer laid out as include/kgantt/sm.h lays it out. */
#include "harness.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include "model/load.h"
#include "recorder/smlog.h"
#include "recorder/spool.h"
#include "render/plot.h"
#include "trace/packed.h"
#include "trace/spool_import.h"

#define REC(s, type, T) ((T *)spool_reserve((s), (type), sizeof(T)))

/* %globaltimer = trace clock + GT (the GPU's timer is near CLOCK_REALTIME) */
#define GT 1700000000000000000ll
#define CBID_DTOH 278           /* CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2 */
#define CBID_GET_LIBRARY 754    /* CUPTI_DRIVER_TRACE_CBID_cuKernelGetLibrary */
#define CBID_LAUNCH 307         /* CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel */

static char dir[256], out[300];
static struct kg_spool spool;

static void open_spool(void)
{
	char path[300];
	snprintf(dir, sizeof(dir), "/tmp/kgantt-sm-XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/h.1.kgspool", dir);
	snprintf(out, sizeof(out), "%s/out.kgt", dir);
	CHECK_EQ_INT(spool_open(&spool, path, 1 << 16), 0);
	uint32_t cmd = spool_string(&spool, "./sm_test");
	struct kg_raw_process *p = REC(&spool, KG_RAW_PROCESS, struct kg_raw_process);
	p->pid = 4242;
	p->start_ns = 1000;
	p->cmdline_str = cmd;
	uint32_t name = spool_string(&spool, "NVIDIA H200");
	struct kg_raw_device *d = REC(&spool, KG_RAW_DEVICE, struct kg_raw_device);
	d->name_str = name;
	d->sm_count = 8;
	d->cc_major = 9;
	struct kg_raw_context *c = REC(&spool, KG_RAW_CONTEXT, struct kg_raw_context);
	c->context_id = 1;
	struct kg_raw_stream *st = REC(&spool, KG_RAW_STREAM, struct kg_raw_stream);
	st->context_id = 1;
	st->stream_id = 13;
	st->flags = 2;
}

static void remove_dir(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_EQ_INT(system(cmd), 0);
}

static void api(uint32_t domain, uint32_t cbid, const char *name, uint32_t correlation,
		uint64_t start)
{
	uint32_t n = spool_string(&spool, name);
	struct kg_raw_api *a = REC(&spool, KG_RAW_API, struct kg_raw_api);
	a->start = start;
	a->end = start + 100;
	a->domain = domain;
	a->cbid = cbid;
	a->name_str = n;
	a->tid = 7;
	a->correlation_id = correlation;
}

/* A kernel and the runtime call that launched it (at start - 5 us). */
static void kernel(const char *name, uint32_t correlation, int64_t grid, uint64_t start,
		   uint64_t end, uint32_t stream)
{
	api(KG_API_RUNTIME, 211, "cudaLaunchKernel_v7000", correlation, start - 5000);
	uint32_t n = spool_string(&spool, name);
	struct kg_raw_kernel *k = REC(&spool, KG_RAW_KERNEL, struct kg_raw_kernel);
	k->name_str = n;
	k->correlation_id = correlation;
	k->context_id = 1;
	k->stream_id = stream;
	k->start = start;
	k->end = end;
	k->grid_id = grid;
	k->grid[0] = 8, k->grid[1] = k->grid[2] = 1;
	k->block[0] = 128, k->block[1] = k->block[2] = 1;
}

static void memcpy_record(uint32_t correlation, uint64_t start)
{
	struct kg_raw_memcpy *m = REC(&spool, KG_RAW_MEMCPY, struct kg_raw_memcpy);
	m->start = start;
	m->end = start + 1000;
	m->bytes = 32;
	m->copy_kind = 2;
	m->correlation_id = correlation;
	m->stream_id = 13;
	m->context_id = 1;
}

/* An SM block record holding n blocks; the caller fills them. */
static struct kg_raw_sm_block *sm_record(uint32_t n, uint64_t dropped)
{
	struct kg_raw_sm_blocks *r = spool_reserve(
		&spool, KG_RAW_SM_BLOCKS, (uint32_t)(sizeof(*r) + n * sizeof(struct kg_raw_sm_block)));
	r->ts = 9000000;
	r->dropped = dropped;
	r->context_id = 1;
	r->device_id = 0;
	r->count = n;
	r->record_size = sizeof(struct kg_raw_sm_block);
	r->why = KG_SM_AT_SYNC;
	return (struct kg_raw_sm_block *)(r + 1);
}

static void own(uint32_t correlation, uint32_t cbid, uint32_t flags)
{
	struct kg_raw_sm_own *o = REC(&spool, KG_RAW_SM_OWN, struct kg_raw_sm_own);
	o->correlation_id = correlation;
	o->cbid = cbid;
	o->flags = flags;
}

static void end_spool(void)
{
	struct kg_raw_end *e = REC(&spool, KG_RAW_END, struct kg_raw_end);
	e->ts = 20000000;
	spool_close(&spool);
}

/* Imports the spool directory; 0, or the importer's error with its message in err. */
static int import(char *err, size_t errlen)
{
	struct kg_import im;
	CHECK_EQ_INT(import_begin(&im, out, "test"), 0);
	int rc = import_spool_dir(&im, dir, NULL);
	if (!rc)
		rc = import_commit(&im);
	else {
		snprintf(err, errlen, "%s", im.err);
		import_abort(&im);
	}
	return rc;
}

static long long query(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v = -1;
	char err[256];
	CHECK_EQ_INT(sqlite3_open_v2(out, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	/* the trace keeps kernels and API calls as blocks: as rows in temp for SQL */
	CHECK_EQ_INT(packed_expand(db, "main", "temp", NULL, err, sizeof(err)), 0);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "    %s: %s\n", sql, sqlite3_errmsg(db));
		CHECK(0);
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -999 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* ------------------------------------------------------------------ the standard spool
 *
 * Three kernels of 8 blocks on 8 SMs; each kernel's first block starts d = 500, 700 and
 * 600 ns after the kernel's CUPTI start, so the three offset estimates are -GT-500,
 * -GT-700 and -GT-600: median -GT-600, spread 200, MAD 100. A block of a grid no kernel
 * has, a block whose end is before its start, 5 dropped. The recorder's own calls:
 * a copy (correlation 50) and a library lookup inside the launch of kernel 2
 * (correlation 11, which the runtime launch and its driver launch share). */
#define K_START(i) (1000000ull + (uint64_t)(i) * 100000)
static const uint64_t first_delay[3] = {500, 700, 600};

static void standard_spool(void)
{
	open_spool();
	own(11, CBID_GET_LIBRARY, 0);
	own(50, CBID_DTOH, KG_SM_OWN_COPY);
	kernel("_Z4busyPfi", 10, 100, K_START(0), K_START(0) + 50000, 13);
	kernel("_Z4tailPfi", 11, 101, K_START(1), K_START(1) + 50000, 13);
	api(KG_API_DRIVER, CBID_LAUNCH, "cuLaunchKernel", 11, K_START(1) - 4900);
	api(KG_API_DRIVER, CBID_GET_LIBRARY, "cuKernelGetLibrary", 11, K_START(1) - 4800);
	kernel("_Z4busyPfi", 12, 102, K_START(2), K_START(2) + 50000, 13);
	api(KG_API_RUNTIME, 165, "cudaDeviceSynchronize_v3020", 50, K_START(2) + 60000);
	api(KG_API_DRIVER, CBID_DTOH, "cuMemcpyDtoH_v2", 50, K_START(2) + 60100);
	memcpy_record(50, K_START(2) + 60200);
	memcpy_record(60, K_START(2) + 70000); /* the program's own copy */
	for (int i = 0; i < 3; i++) {
		struct kg_raw_sm_block *b = sm_record(i == 2 ? 10 : 8, i == 0 ? 5 : 0);
		for (uint32_t j = 0; j < 8; j++) {
			uint64_t t = K_START(i) + first_delay[i] + 1000 * j;
			b[j] = (struct kg_raw_sm_block){(uint64_t)(100 + i), t + GT, t + GT + 20000, 7 - j,
							j};
		}
		if (i == 2) {
			b[8] = (struct kg_raw_sm_block){999, GT + 1, GT + 2, 0, 0};
			b[9] = (struct kg_raw_sm_block){102, GT + 500, GT + 400, 0, 9};
		}
	}
	end_spool();
}

TEST(sm_import_matches_aligns_and_counts)
{
	standard_spool();
	char err[1024] = "";
	int rc = import(err, sizeof(err));
	if (rc)
		fprintf(stderr, "    %s\n", err);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM sm_blocks"), 24);
	CHECK_EQ_INT(query("SELECT COUNT(DISTINCT kernel) FROM sm_blocks"), 3);
	/* block j of kernel i: at K_START(i) + first_delay[i] + 1000 j - 600 on the trace clock */
	CHECK_EQ_INT(query("SELECT b.start FROM sm_blocks b JOIN kernels k ON k.id = b.kernel "
			   "WHERE k.grid_id = 101 AND b.block = 0"),
		     K_START(1) + 700 - 600);
	CHECK_EQ_INT(query("SELECT b.end - b.start FROM sm_blocks b JOIN kernels k ON "
			   "k.id = b.kernel WHERE k.grid_id = 100 AND b.block = 3"),
		     20000);
	CHECK_EQ_INT(query("SELECT sm FROM sm_blocks b JOIN kernels k ON k.id = b.kernel "
			   "WHERE k.grid_id = 102 AND b.block = 2"),
		     5);
	CHECK_EQ_INT(query("SELECT offset_ns FROM sm_settings"), -GT - 600);
	CHECK_EQ_INT(query("SELECT offset_spread_ns FROM sm_settings"), 200);
	CHECK_EQ_INT(query("SELECT offset_mad_ns FROM sm_settings"), 100);
	CHECK_EQ_INT(query("SELECT blocks FROM sm_settings"), 24);
	CHECK_EQ_INT(query("SELECT kernels FROM sm_settings"), 3);
	CHECK_EQ_INT(query("SELECT dropped FROM sm_settings"), 5);
	CHECK_EQ_INT(query("SELECT unmatched FROM sm_settings"), 2);
	/* the recorder's lookup and copy are gone; the program's launch, its driver launch,
	 * its sync and its copy stay */
	CHECK_EQ_INT(query("SELECT own_records FROM sm_settings"), 3);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM api_calls WHERE correlation = 11"), 2);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM api_calls WHERE cbid = 754"), 0);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM api_calls WHERE correlation = 50"), 1);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM memcpys"), 1);
	CHECK_EQ_INT(query("SELECT correlation FROM memcpys"), 60);
	/* the losses are said where `kgantt info` shows them */
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM messages WHERE level = 'warning' AND text "
			   "LIKE 'SM placement: 2 blocks of device 0 match no kernel%'"),
		     1);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM messages WHERE text LIKE 'SM placement: 5 "
			   "blocks%did not fit%'"),
		     1);
	remove_dir();
}

static const struct kg_op *op_of(const struct kg_model *m, const struct kg_sm_block *b)
{
	CHECK(b->op < m->n_ops);
	return &m->ops[b->op];
}

static int named(const struct kg_model *m, const struct kg_sm_block *b, const char *name)
{
	return strcmp(model_text(m, op_of(m, b)->name), name) == 0;
}

TEST(sm_model_loads_windows_and_clones)
{
	standard_spool();
	char err[1024];
	CHECK_EQ_INT(import(err, sizeof(err)), 0);
	struct kg_model m, c;
	CHECK_EQ_INT(model_load(out, &m, NULL, err, sizeof(err)), 0);
	CHECK_EQ_INT(m.n_sm_blocks, 24);
	CHECK_EQ_INT(m.n_sm_infos, 1);
	CHECK_EQ_INT(m.sm_infos[0].offset_mad, 100);
	CHECK_EQ_INT(m.sm_infos[0].dropped, 5);
	/* by SM, then start; each block inside its own kernel's time */
	for (uint32_t i = 0; i < m.n_sm_blocks; i++) {
		const struct kg_sm_block *b = &m.sm_blocks[i];
		const struct kg_op *o = op_of(&m, b);
		CHECK_EQ_INT(o->kind, KG_OP_KERNEL);
		CHECK(b->start >= o->start - 1000 && b->start < o->end);
		if (i)
			CHECK(b->sm > b[-1].sm || (b->sm == b[-1].sm && b->start >= b[-1].start));
	}
	CHECK(named(&m, &m.sm_blocks[0], "busy(float*, int)"));
	CHECK_EQ_INT(m.sm_blocks[0].sm, 0);
	CHECK_EQ_INT(m.sm_blocks[0].block, 7);

	/* a copy, cut to the launch of the second kernel: only its blocks stay */
	CHECK_EQ_INT(model_clone(&m, &c), 0);
	CHECK_EQ_INT(model_restrict(&c, K_START(1) - 6000, K_START(1) - 4000), 0);
	CHECK_EQ_INT(c.n_ops, 1);
	CHECK_EQ_INT(c.n_sm_blocks, 8);
	for (uint32_t i = 0; i < c.n_sm_blocks; i++)
		CHECK(named(&c, &c.sm_blocks[i], "tail(float*, int)"));
	model_free(&c);
	model_free(&m);
	remove_dir();
}

/* fontconfig keeps its caches for the life of the process: not a leak of ours */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

/* The picture, for a look: the test leaves it in /tmp/kgantt-sm-plot.png (and its trace
 * in /tmp/kgantt-sm-test.kgt) */
TEST(sm_plot_draws_the_sm_lanes)
{
	standard_spool();
	char err[1024];
	CHECK_EQ_INT(import(err, sizeof(err)), 0);
	struct kg_model m;
	CHECK_EQ_INT(model_load(out, &m, NULL, err, sizeof(err)), 0);
	struct kg_plot_opts o = {.format = KG_PLOT_PNG, .t0 = m.begin, .t1 = m.end,
				 .origin = m.begin, .width = 1200, .dpi = 96, .device = -1,
				 .trace_name = "sm_test", .host_lanes = 1, .sm = 1};
	char png[320], manifest[330];
	snprintf(png, sizeof(png), "%s/sm.png", dir);
	snprintf(manifest, sizeof(manifest), "%s/sm.png.json", dir);
	int rc = plot_render(&m, NULL, &o, png, manifest, err, sizeof(err));
	if (rc)
		fprintf(stderr, "    %s\n", err);
	CHECK_EQ_INT(rc, 0);
	struct stat sb;
	CHECK(stat(png, &sb) == 0 && sb.st_size > 2000);
	FILE *f = fopen(manifest, "r");
	CHECK(f != NULL);
	char text[1 << 16];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	CHECK(strstr(text, "\"sm_lanes\": 8") != NULL);
	CHECK(strstr(text, "\"sm_blocks\": 24") != NULL);
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "cp '%s' /tmp/kgantt-sm-plot.png && cp '%s' /tmp/kgantt-sm-test.kgt",
		 png, out);
	CHECK_EQ_INT(system(cmd), 0);
	model_free(&m);
	remove_dir();
}

/* ------------------------------------------------------------------ damaged records */

static void damaged_spool(uint32_t record_size, uint32_t count, uint32_t room)
{
	open_spool();
	kernel("_Z4busyPfi", 10, 100, K_START(0), K_START(0) + 50000, 13);
	struct kg_raw_sm_blocks *r = spool_reserve(
		&spool, KG_RAW_SM_BLOCKS, (uint32_t)(sizeof(*r) + room * sizeof(struct kg_raw_sm_block)));
	r->context_id = 1;
	r->count = count;
	r->record_size = record_size;
	end_spool();
}

TEST(sm_damaged_records_are_refused_with_a_message)
{
	char err[1024] = "";
	damaged_spool(16, 2, 2);
	CHECK(import(err, sizeof(err)) < 0);
	CHECK(strstr(err, "SM block record of 16-byte blocks") != NULL);
	CHECK(strstr(err, "h.1.kgspool") != NULL && strstr(err, "at byte") != NULL);
	remove_dir();

	damaged_spool(32, 5, 2);
	CHECK(import(err, sizeof(err)) < 0);
	CHECK(strstr(err, "says 5 blocks") != NULL);
	remove_dir();

	damaged_spool(32, UINT32_MAX, 1);
	CHECK(import(err, sizeof(err)) < 0);
	remove_dir();

	/* shorter than an SM record's header: refused by size */
	open_spool();
	spool_reserve(&spool, KG_RAW_SM_BLOCKS, 16);
	spool_reserve(&spool, KG_RAW_SM_OWN, 8);
	end_spool();
	CHECK(import(err, sizeof(err)) < 0);
	CHECK(strstr(err, "expected at least") != NULL);
	remove_dir();
}

/* Bytes flipped anywhere in the SM records: refused or imported, never a crash; what is
 * imported loads. */
TEST(sm_damaged_spools_never_crash)
{
	for (int round = 0; round < 60; round++) {
		standard_spool();
		char path[300];
		snprintf(path, sizeof(path), "%s/h.1.kgspool", dir);
		FILE *f = fopen(path, "r+b");
		CHECK(f != NULL);
		fseek(f, 0, SEEK_END);
		long size = ftell(f);
		int flips = 1 + (int)(test_random() % 6);
		for (int k = 0; k < flips; k++) {
			/* the SM records lie in the second half of the spool */
			long at = size / 2 + (long)(test_random() % (unsigned long)(size / 2));
			fseek(f, at, SEEK_SET);
			fputc((int)(test_random() & 255), f);
		}
		fclose(f);
		char err[1024];
		if (import(err, sizeof(err)) == 0) {
			struct kg_model m;
			if (model_load(out, &m, NULL, err, sizeof(err)) == 0)
				model_free(&m);
		}
		remove_dir();
	}
}

/* ------------------------------------------------------------------ the recorder's side */

/* The device's log, as include/kgantt/sm.h lays it out, in host memory. */
static struct {
	uint64_t magic;
	uint32_t capacity, record_size;
	uint64_t count, reserved;
	struct kg_raw_sm_block rec[4];
} dev_log = {0x31474f4c4d53474bull, 4, 32, 0, 0, {{0}}};

static int ctx_obj, lib_obj, mod_obj, kernel_a, kernel_b, other_kernel, module_kernel;
#define CTX ((CUcontext)&ctx_obj)
static uint32_t outer_correlation, next_correlation = 1000;
static int n_dtoh, n_lookups;
static char said[2048];

/* What CUPTI does at the entry of every driver call: the recorder must know its own. A
 * call made inside the program's call shares that call's correlation id. */
static void enter(CUpti_CallbackId cbid)
{
	CUpti_CallbackData cb;
	memset(&cb, 0, sizeof(cb));
	cb.callbackSite = CUPTI_API_ENTER;
	cb.correlationId = outer_correlation ? outer_correlation : next_correlation++;
	cb.context = CTX;
	CHECK_EQ_INT(smlog_on_api(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cb), 1);
}

static CUresult f_get_library(CUlibrary *lib, CUkernel k)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuKernelGetLibrary);
	*lib = (void *)k == &kernel_a || (void *)k == &kernel_b ? (CUlibrary)&lib_obj : NULL;
	return *lib ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult f_library_global(CUdeviceptr *p, size_t *bytes, CUlibrary lib, const char *name)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuLibraryGetGlobal);
	n_lookups++;
	if ((void *)lib != &lib_obj || strcmp(name, "kgantt_sm_log") != 0)
		return CUDA_ERROR_NOT_FOUND;
	*p = (CUdeviceptr)(uintptr_t)&dev_log;
	*bytes = sizeof(dev_log);
	return CUDA_SUCCESS;
}

static CUresult f_func_module(CUmodule *mod, CUfunction f)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuFuncGetModule);
	/* a driver-API program's own function; for a runtime kernel (a CUkernel) the H200
	 * answered 400, invalid handle */
	*mod = (void *)f == &module_kernel ? (CUmodule)&mod_obj : NULL;
	return *mod ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult f_module_global(CUdeviceptr *p, size_t *b, CUmodule m, const char *n)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuModuleGetGlobal_v2);
	n_lookups++;
	if ((void *)m != &mod_obj || strcmp(n, "_ZL13kgantt_sm_log") != 0)
		return CUDA_ERROR_NOT_FOUND; /* this module's log goes by its mangled name */
	*p = (CUdeviceptr)(uintptr_t)&dev_log;
	*b = sizeof(dev_log);
	return CUDA_SUCCESS;
}

static CUresult f_dtoh(void *dst, CUdeviceptr src, size_t n)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2);
	n_dtoh++;
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

static CUresult f_htod(CUdeviceptr dst, const void *src, size_t n)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2);
	memcpy((void *)(uintptr_t)dst, src, n);
	return CUDA_SUCCESS;
}

static CUresult f_get_current(CUcontext *c)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent);
	*c = CTX;
	return CUDA_SUCCESS;
}

static CUresult f_push(CUcontext c)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuCtxPushCurrent_v2);
	return CUDA_SUCCESS;
}

static CUresult f_pop(CUcontext *c)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuCtxPopCurrent_v2);
	return CUDA_SUCCESS;
}

static CUresult f_sync(void)
{
	enter(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize);
	return CUDA_SUCCESS;
}

static int f_ids(CUcontext c, uint32_t *ctx_id, uint32_t *device)
{
	*ctx_id = 1;
	*device = 0;
	return 0;
}

static void f_status(int level, const char *text)
{
	snprintf(said + strlen(said), sizeof(said) - strlen(said), "%d %s\n", level, text);
}

static const struct kg_smlog_driver fake = {
	f_get_library, f_library_global, f_func_module, f_module_global, f_dtoh, f_htod,
	f_get_current, f_push, f_pop, f_sync, f_ids,
};

/* The program launches f (with cudaLaunchKernel: the runtime call's correlation id). */
static void launch(void *f, uint32_t correlation)
{
	cuLaunchKernel_params params;
	memset(&params, 0, sizeof(params));
	params.f = (CUfunction)f;
	CUpti_CallbackData cb;
	memset(&cb, 0, sizeof(cb));
	cb.callbackSite = CUPTI_API_ENTER;
	cb.correlationId = correlation;
	cb.context = CTX;
	cb.functionParams = &params;
	outer_correlation = correlation;
	CHECK_EQ_INT(smlog_on_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
				  &cb), 0);
	outer_correlation = 0;
}

/* The program's cudaDeviceSynchronize returns (its nested cuCtxSynchronize first). */
static void synchronize(uint32_t correlation)
{
	int ok = 0;
	CUpti_CallbackData cb;
	memset(&cb, 0, sizeof(cb));
	cb.callbackSite = CUPTI_API_EXIT;
	cb.correlationId = correlation;
	cb.context = CTX;
	cb.functionReturnValue = &ok;
	outer_correlation = correlation;
	CHECK_EQ_INT(smlog_on_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
				  &cb), 0);
	CHECK_EQ_INT(smlog_on_api(CUPTI_CB_DOMAIN_RUNTIME_API,
				  CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, &cb), 0);
	outer_correlation = 0;
}

/* The kernel's blocks, as the device writes them: count goes up past the capacity. */
static void run_blocks(uint64_t grid, uint32_t n, uint64_t t0)
{
	for (uint32_t j = 0; j < n; j++) {
		uint64_t i = dev_log.count++;
		if (i < dev_log.capacity)
			dev_log.rec[i] = (struct kg_raw_sm_block){grid, t0 + GT + 100 * j,
								  t0 + GT + 100 * j + 5000, j, j};
	}
}

TEST(sm_recorder_reads_logs_through_the_driver)
{
	open_spool();
	CHECK_EQ_INT(smlog_init(&fake, &spool, f_status), 0);
	launch(&kernel_a, 10);
	CHECK_EQ_INT(n_lookups, 1);
	launch(&kernel_b, 11); /* the same library: its log is known */
	launch(&kernel_a, 12);
	CHECK_EQ_INT(n_lookups, 1);
	launch(&other_kernel, 13); /* the owner of this one cannot be told: said, not fatal */
	CHECK(strstr(said, "cannot tell the module") != NULL);
	run_blocks(200, 3, K_START(0));
	run_blocks(201, 3, K_START(1)); /* 6 blocks in a log of 4: 2 dropped */
	synchronize(20);
	CHECK_EQ_INT(dev_log.count, 0);
	int reads = n_dtoh;
	synchronize(21); /* nothing launched since: the log is not even looked at */
	CHECK_EQ_INT(n_dtoh, reads);
	launch(&kernel_a, 14);
	run_blocks(202, 2, K_START(2));
	smlog_at_exit();
	CHECK_EQ_INT(dev_log.count, 0);
	struct kg_smlog_counts c;
	smlog_counts(&c);
	CHECK_EQ_INT(c.buffers, 1);
	CHECK_EQ_INT(c.blocks, 6);
	CHECK_EQ_INT(c.dropped, 2);
	CHECK_EQ_INT(c.reads, 2);
	CHECK(c.own_calls >= 8);
	CHECK(strstr(said, "6 blocks read in 2 reads, 2 dropped") != NULL);

	/* what CUPTI would have recorded: the kernels, the program's calls, and the records of
	 * the recorder's own copies, which share the sync's correlation id */
	kernel("_Z4busyPfi", 10, 200, K_START(0), K_START(0) + 50000, 13);
	kernel("_Z4tailPfi", 11, 201, K_START(1), K_START(1) + 50000, 13);
	kernel("_Z4busyPfi", 12, 203, K_START(1) + 60000, K_START(1) + 70000, 13);
	kernel("_Z4busyPfi", 14, 202, K_START(2), K_START(2) + 50000, 13);
	api(KG_API_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuKernelGetLibrary, "cuKernelGetLibrary", 10,
	    K_START(0) - 4900);
	api(KG_API_RUNTIME, 165, "cudaDeviceSynchronize_v3020", 20, K_START(2) - 10000);
	api(KG_API_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize", 20,
	    K_START(2) - 9900);
	api(KG_API_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2", 20,
	    K_START(2) - 9800);
	memcpy_record(20, K_START(2) - 9700);
	end_spool();
	char err[1024];
	int rc = import(err, sizeof(err));
	if (rc)
		fprintf(stderr, "    %s\n", err);
	CHECK_EQ_INT(rc, 0);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM sm_blocks"), 6);
	CHECK_EQ_INT(query("SELECT COUNT(DISTINCT kernel) FROM sm_blocks"), 3);
	CHECK_EQ_INT(query("SELECT dropped FROM sm_settings"), 2);
	CHECK_EQ_INT(query("SELECT unmatched FROM sm_settings"), 0);
	CHECK_EQ_INT(query("SELECT offset_ns FROM sm_settings"), -GT);
	CHECK_EQ_INT(query("SELECT own_records FROM sm_settings"), 3);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM api_calls WHERE correlation = 20"), 2);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM api_calls WHERE correlation = 10"), 1);
	CHECK_EQ_INT(query("SELECT COUNT(*) FROM memcpys"), 0);
	remove_dir();
}

TEST(sm_recorder_leaves_a_foreign_variable_alone)
{
	open_spool();
	CHECK_EQ_INT(smlog_init(&fake, &spool, f_status), 0);
	dev_log.magic = 42; /* a variable of the same name that is not the log */
	dev_log.count = 3;
	launch(&kernel_a, 10);
	synchronize(20);
	CHECK(strstr(said, "is not include/kgantt/sm.h's log") != NULL);
	CHECK_EQ_INT(dev_log.count, 3); /* never written */
	smlog_at_exit();
	struct kg_smlog_counts c;
	smlog_counts(&c);
	CHECK_EQ_INT(c.blocks, 0);
	end_spool();
	remove_dir();
}

/* A driver without cuKernelGetLibrary, a kernel of a module the program loaded itself: the
 * log is found through cuFuncGetModule, by its second name. */
TEST(sm_recorder_finds_a_module_log)
{
	open_spool();
	struct kg_smlog_driver old = fake;
	old.kernel_get_library = NULL;
	CHECK_EQ_INT(smlog_init(&old, &spool, f_status), 0);
	launch(&module_kernel, 10);
	CHECK_EQ_INT(n_lookups, 2); /* the plain name, then the mangled one */
	launch(&module_kernel, 11);
	CHECK_EQ_INT(n_lookups, 2);
	run_blocks(300, 2, K_START(0));
	synchronize(20);
	CHECK_EQ_INT(dev_log.count, 0);
	smlog_at_exit();
	struct kg_smlog_counts c;
	smlog_counts(&c);
	CHECK_EQ_INT(c.buffers, 1);
	CHECK_EQ_INT(c.blocks, 2);
	CHECK_EQ_INT(c.failures, 0);
	end_spool();
	remove_dir();
}
