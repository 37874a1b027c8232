/* Nsight Systems SQLite export (`nsys export --type sqlite`) → the model.
 *
 * docs/readers.md documents the mapping. The export's schema changes between releases
 * (columns are added, some renamed), so every column is found by name: a missing required
 * column is an error naming table and column, a missing optional one reads as NULL. Codes
 * whose numbering is nsys's own (memory kinds, event types, event classes) are mapped
 * through the ENUM_* tables of the file itself when present, by symbol name. CUDA API
 * backtraces (nsys profile --cudabacktrace) come from CUDA_CALLCHAINS, read after the
 * activity for the callchains the calls name; CPU samples (nsys profile --sample, on by
 * default) from COMPOSITE_EVENTS and their frames from SAMPLING_CALLCHAINS, as host
 * spans like kgantt's own host samples (docs/host-samples.md, "Nsight Systems"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>

#include "model/load.h"
#include "trace/trace_db.h"
#include "trace/uncompress.h"
#include "util/array.h"
#include "util/demangle.h"
#include "util/idmap.h"
#include "util/pathfmt.h"
#include "util/tracer_work.h"

#define EXPECTED "expected an Nsight Systems SQLite export, nsys export --type sqlite"
#define TID_BITS 24               /* globalTid = hw << 56 | vm << 48 | pid << 24 | tid */
#define TID_MASK 0xFFFFFFull
#define NO_ID 0xFFFFFFFFu         /* CUPTI's "no stream / no event" (uint32 -1) */
#define PROGRESS_ROWS 65536
#define MAX_FRAMES 128            /* frames kept per backtrace, innermost first */
/* The CPU sampling period nsys allows, 100 to 8000 Hz (--sampling-frequency), and its
 * default, 1 kHz: the export does not say which was used (sample_periods). */
#define SAMPLE_PERIOD_MIN 125000
#define SAMPLE_PERIOD_MAX 10000000
#define SAMPLE_PERIOD_DEFAULT 1000000

/* ------------------------------------------------------------------ the reader */

/* One row of TARGET_INFO_GPU, or of TARGET_INFO_CUDA_DEVICE (which says which GPU a
 * process's CUDA device number is). */
struct gpu_row {
	int64_t id, cu_device, pid;     /* pid: TARGET_INFO_CUDA_DEVICE only, else -1 */
	struct kg_device props;         /* process and ordinal unset */
};

/* Codes of the file → kgantt's, indexed by the file's code (ENUM_* ids are small). */
enum { NCODES = 256 };
enum ev_class { EVC_UNKNOWN = 0, EVC_RUNTIME, EVC_DRIVER, EVC_BACKTRACE, EVC_OTHER };
enum nvtx_type { NV_NONE = 0, NV_PUSHPOP, NV_STARTEND, NV_MARK, NV_DOMAIN };

struct codes {
	uint8_t mem[NCODES], copy[NCODES], sync[NCODES], stream[NCODES], evclass[NCODES],
		nvtx[NCODES], state[NCODES];
};

/* A backtrace that a CUPTI_ACTIVITY_KIND_RUNTIME row names by callchainId: resolved into a
 * stack once CUDA_CALLCHAINS has been read (rows may come in any order). */
struct chain_ref {
	uint64_t pkey;          /* process key: globalTid with the tid bits clear */
	uint32_t correlation;   /* the call's; 0: none, then api says which call */
	uint32_t api;           /* the call itself when it has no correlation id, else KG_NONE */
	uint32_t chain;         /* index into chains */
	uint8_t prio;           /* 0 a backtrace record's, 1 a driver call's, 2 a runtime call's */
};

/* One CUDA_CALLCHAINS id that some call names, and its frames once read. */
struct chain {
	int64_t id;
	uint32_t first, n;      /* frames: cframes[first .. + n], innermost first */
	uint32_t flags;         /* KG_STACK_TRUNCATED when deeper than MAX_FRAMES */
	int found;              /* CUDA_CALLCHAINS has rows for it */
};

struct nsys_reader {
	struct kg_model *m;
	sqlite3 *db;
	const char *path;
	char *err;
	size_t errlen;
	const struct kg_load_opts *opts;
	sqlite3_stmt *str_st;           /* SELECT value FROM StringIds WHERE id = ? */
	uint32_t *str;                  /* StringIds id → model string; KG_NONE: not looked up */
	size_t nstr;
	struct kg_idmap procs;             /* process key (globalPid, tid bits clear) → process */
	struct kg_idmap proc_names;        /* process key → PROCESSES.name, as a model string */
	struct kg_idmap devs;              /* process << 32 | CUDA device id → device */
	struct kg_idmap domains;           /* process << 32 | NVTX domain id → domain name */
	uint64_t last_pkey;             /* one-entry caches: rows come in long runs */
	uint32_t last_proc, last_dproc, last_dev;
	int64_t last_ord;
	struct { uint32_t process, device, context, index; int64_t id; } last_stream;
	struct { uint32_t process, index; uint64_t tid; } last_thread;
	struct gpu_row *gpus, *cuda_devs;
	size_t ngpus, ncuda_devs;
	struct codes codes;
	uint64_t skipped_ops, skipped_apis, no_strings;
	int has_strings;
	struct chain_ref *refs;         /* calls with a backtrace */
	size_t nrefs, caprefs;
	struct chain *chains;           /* the callchains they name */
	uint32_t nchains, capchains;
	struct kg_idmap chain_ids;      /* CUDA_CALLCHAINS id → index into chains */
	struct kg_frame *cframes;       /* the chains' frames */
	size_t ncframes, capcframes;
	struct kg_idmap symbols;        /* StringIds id of a symbol → demangled model string */
	uint64_t bad_chains;            /* calls naming a callchain the file does not have */
	struct kg_idmap sample_ids;     /* COMPOSITE_EVENTS id → its host span */
	uint32_t first_sample;          /* host_spans from here on are the CPU samples */
	uint64_t bad_samples;           /* without an id, a time or a thread; ids seen before */
	double rows_done, rows_total;
};

static int oom(struct nsys_reader *r)
{
	snprintf(r->err, r->errlen, "'%s': out of memory", r->path);
	return -ENOMEM;
}

static int db_error(struct nsys_reader *r, const char *table)
{
	int code = sqlite3_errcode(r->db);
	snprintf(r->err, r->errlen, "'%s': cannot read %s: %s%s", r->path, table,
		 sqlite3_errmsg(r->db),
		 code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == SQLITE_IOERR
			 ? " (the file is damaged or truncated)"
			 : "");
	return code == SQLITE_NOMEM ? -ENOMEM : -EIO;
}

static void progress(struct nsys_reader *r)
{
	if (r->opts && r->opts->progress && r->rows_total > 0) {
		double f = r->rows_done / r->rows_total;
		r->opts->progress(f < 1 ? f : 1, r->opts->progress_arg);
	}
}

static int has_table(struct nsys_reader *r, const char *name)
{
	sqlite3_stmt *st;
	static const char sql[] =
		"SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name=?";
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

static int has_column(struct nsys_reader *r, const char *table, const char *col)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name=?2", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	int found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* ------------------------------------------------------------------ columns by name */

/* A column the reader wants: alternative names separated by '|' (the first one present
 * is read); required: the table is unusable without it. */
struct col {
	const char *names;
	int required;
};

static int append(char *sql, size_t len, size_t *at, const char *s)
{
	int n = snprintf(sql + *at, len - *at, "%s", s);
	if (n < 0 || (size_t)n >= len - *at)
		return -1;
	*at += (size_t)n;
	return 0;
}

/* Appends the first of c->names that table has (quoted), or NULL; *missing says so. */
static int append_col(struct nsys_reader *r, const char *table, const struct col *c, char *sql,
		      size_t len, size_t *at, int *missing)
{
	char name[64];
	for (const char *p = c->names; *p;) {
		size_t n = strcspn(p, "|");
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		p += n + (p[n] == '|');
		if (has_column(r, table, name)) {
			*missing = 0;
			char quoted[72];
			snprintf(quoted, sizeof(quoted), "\"%s\"", name);
			return append(sql, len, at, quoted);
		}
	}
	*missing = 1;
	return append(sql, len, at, "NULL");
}

/* SELECT of cols from table (column i of the result is cols[i], NULL where absent). An
 * error when a required column is missing: the message names it. */
static int build_select(struct nsys_reader *r, const char *table, const struct col *cols,
			int ncols, char *sql, size_t len)
{
	size_t at = 0;
	int rc = append(sql, len, &at, "SELECT ");
	for (int i = 0; i < ncols && !rc; i++) {
		int missing;
		rc = (i && append(sql, len, &at, ", ")) ||
		     append_col(r, table, &cols[i], sql, len, &at, &missing);
		if (!rc && missing && cols[i].required) {
			snprintf(r->err, r->errlen,
				 "'%s': table %s has no column '%.*s' (" EXPECTED ")", r->path,
				 table, (int)strcspn(cols[i].names, "|"), cols[i].names);
			return -EINVAL;
		}
	}
	if (!rc)
		rc = append(sql, len, &at, " FROM \"") || append(sql, len, &at, table) ||
		     append(sql, len, &at, "\"");
	if (rc) {
		snprintf(r->err, r->errlen, "'%s': query on %s too long", r->path, table);
		return -EINVAL;
	}
	return 0;
}

typedef int (*row_fn)(struct nsys_reader *r, sqlite3_stmt *st);

/* Calls row() for every row of table (if the file has it), with the columns cols. */
static int each_row(struct nsys_reader *r, const char *table, const struct col *cols, int ncols,
		    row_fn row)
{
	if (!has_table(r, table))
		return 0;
	char sql[2048];
	int rc = build_select(r, table, cols, ncols, sql, sizeof(sql));
	if (rc)
		return rc;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(r, table);
	int step;
	unsigned n = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		rc = row(r, st);
		if (++n % PROGRESS_ROWS == 0) {
			r->rows_done += PROGRESS_ROWS;
			progress(r);
		}
	}
	r->rows_done += n % PROGRESS_ROWS;
	if (!rc && step != SQLITE_DONE)
		rc = db_error(r, table);
	sqlite3_finalize(st);
	return rc;
}

#define EACH(r, table, cols, fn) each_row(r, table, cols, (int)(sizeof(cols) / sizeof(cols[0])), fn)

/* ------------------------------------------------------------------ values */

static int is_null(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL;
}

/* The integer in *v; 0 when the column is NULL. Asking for the type only when the value
 * is 0 spares a library call per column on the hot path. */
static int int_col(sqlite3_stmt *st, int col, int64_t *v)
{
	*v = sqlite3_column_int64(st, col);
	return *v != 0 || !is_null(st, col);
}

static int64_t time_col(sqlite3_stmt *st, int col)
{
	int64_t v;
	return int_col(st, col, &v) ? v : KG_NO_TIME;
}

/* The model string of a StringIds id, looked up once per id: exports hold many strings
 * (symbols, OS runtime calls) that no CUDA or NVTX row names. 0 when unknown. */
static uint32_t string_of(struct nsys_reader *r, int64_t id)
{
	if (!r->has_strings || id < 0)
		return 0;
	int cached = (uint64_t)id < r->nstr;
	if (cached && r->str[id] != KG_NONE)
		return r->str[id];
	sqlite3_bind_int64(r->str_st, 1, id);
	uint32_t s = 0;
	int step = sqlite3_step(r->str_st);
	if (step == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(r->str_st, 0);
		s = t ? model_string_n(r->m, (const char *)t,
				       (size_t)sqlite3_column_bytes(r->str_st, 0))
		      : 0;
	} else if (step == SQLITE_DONE) {
		r->no_strings++; /* a damaged file fails on its tables' own reads */
	}
	sqlite3_reset(r->str_st);
	if (cached)
		r->str[id] = s;
	return s;
}

/* The string a column names through StringIds; 0 for NULL. */
static uint32_t string_col(struct nsys_reader *r, sqlite3_stmt *st, int col)
{
	int64_t id;
	return int_col(st, col, &id) ? string_of(r, id) : 0;
}

static uint32_t text_col(struct nsys_reader *r, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? model_string_n(r->m, (const char *)t, (size_t)sqlite3_column_bytes(st, col)) : 0;
}

static uint8_t code_of(const uint8_t *map, sqlite3_stmt *st, int col)
{
	int64_t v = sqlite3_column_int64(st, col);
	return v >= 0 && v < NCODES ? map[v] : 0;
}

/* ------------------------------------------------------------------ processes, devices */

/* The process of a globalPid or globalTid, created on first sight. */
static uint32_t process_of(struct nsys_reader *r, uint64_t global)
{
	uint64_t key = global & ~TID_MASK;
	if (r->last_proc != KG_NONE && key == r->last_pkey)
		return r->last_proc;
	uint32_t *slot = idmap_slot(&r->procs, key);
	if (!slot)
		return KG_NONE;
	if (*slot == KG_NONE) {
		struct kg_process *p = model_add_process(r->m);
		if (!p)
			return KG_NONE;
		p->pid = (uint32_t)((key >> TID_BITS) & TID_MASK);
		uint32_t name = idmap_get(&r->proc_names, key);
		p->cmdline = name == KG_NONE ? 0 : name;
		*slot = r->m->n_processes - 1;
	}
	r->last_pkey = key;
	r->last_proc = *slot;
	return *slot;
}

/* The TARGET_INFO_GPU row of a process's CUDA device: through TARGET_INFO_CUDA_DEVICE
 * (which knows CUDA_VISIBLE_DEVICES' renumbering) when the file has it, else the GPU
 * whose id or CUDA device number is the ordinal. */
static const struct gpu_row *gpu_of(const struct nsys_reader *r, uint32_t pid, int64_t ord)
{
	int64_t gpu_id = ord;
	const struct gpu_row *cd = NULL;
	for (size_t i = 0; i < r->ncuda_devs; i++)
		if (r->cuda_devs[i].pid == pid && r->cuda_devs[i].cu_device == ord) {
			cd = &r->cuda_devs[i];
			gpu_id = cd->id;
			break;
		}
	for (size_t i = 0; i < r->ngpus; i++)
		if (r->gpus[i].id == gpu_id)
			return &r->gpus[i];
	for (size_t i = 0; i < r->ngpus; i++)
		if (r->gpus[i].cu_device == ord)
			return &r->gpus[i];
	return cd;
}

static uint32_t new_device(struct nsys_reader *r, uint32_t p, int64_t ord)
{
	struct kg_device *d = model_add_device(r->m);
	if (!d)
		return KG_NONE;
	const struct gpu_row *g = gpu_of(r, r->m->processes[p].pid, ord);
	if (g)
		*d = g->props;
	for (size_t i = 0; !d->uuid && i < r->ncuda_devs; i++) {
		const struct gpu_row *c = &r->cuda_devs[i];
		if (c->pid == r->m->processes[p].pid && c->cu_device == ord)
			d->uuid = c->props.uuid;
	}
	d->process = p;
	d->ordinal = (int32_t)ord;
	d->gpu = 0;
	d->vendor = KG_VENDOR_NVIDIA; /* Nsight Systems traces CUDA devices only */
	return r->m->n_devices - 1;
}

/* The device (process, CUDA device id), created on first sight with the properties of
 * its GPU. */
static uint32_t device_of(struct nsys_reader *r, uint32_t p, int64_t ord)
{
	if (p == KG_NONE)
		return KG_NONE;
	if (r->last_dev != KG_NONE && p == r->last_dproc && ord == r->last_ord)
		return r->last_dev;
	uint32_t *slot = idmap_slot(&r->devs, (uint64_t)p << 32 | (uint32_t)ord);
	if (!slot)
		return KG_NONE;
	if (*slot == KG_NONE)
		*slot = new_device(r, p, ord);
	r->last_dproc = p;
	r->last_ord = ord;
	r->last_dev = *slot;
	return *slot;
}

static int on_process_name(struct nsys_reader *r, sqlite3_stmt *st)
{
	uint64_t key = (uint64_t)sqlite3_column_int64(st, 0) & ~TID_MASK;
	uint32_t *slot = idmap_slot(&r->proc_names, key);
	if (!slot)
		return oom(r);
	*slot = text_col(r, st, 1);
	return 0;
}

enum { GPU_ID, GPU_CUDEV, GPU_NAME, GPU_UUID, GPU_SMS, GPU_WARPS, GPU_BLOCKS, GPU_THREADS,
       GPU_REGS_SM, GPU_REGS_BLOCK, GPU_SMEM_SM, GPU_SMEM_BLOCK, GPU_SMEM_OPTIN, GPU_CC_MAJOR,
       GPU_CC_MINOR, GPU_MEMORY, GPU_NCOLS };
/* TARGET_INFO_GPU's columns, or (after the |) those of TARGET_INFO_CUDA_GPU, where exports
 * of nsys 2021 and before keep a GPU's properties (their TARGET_INFO_GPU has its name and
 * bus only: Extra-P's test exports, an A100 node) */
static const struct col gpu_cols[GPU_NCOLS] = {
	[GPU_ID] = {"id|deviceId", 1},
	[GPU_CUDEV] = {"cuDevice|deviceId", 0},
	[GPU_NAME] = {"name", 0},
	[GPU_UUID] = {"uuid", 0},
	[GPU_SMS] = {"smCount|numMultiprocessors", 0},
	[GPU_WARPS] = {"maxWarpsPerSm|maxWarpsPerMultiprocessor", 0},
	[GPU_BLOCKS] = {"maxBlocksPerSm|maxBlocksPerMultiprocessor", 0},
	[GPU_THREADS] = {"maxThreadsPerBlock", 0},
	[GPU_REGS_SM] = {"maxRegistersPerSm|maxRegistersPerMultiprocessor", 0},
	[GPU_REGS_BLOCK] = {"maxRegistersPerBlock", 0},
	[GPU_SMEM_SM] = {"maxShmemPerSm|maxSharedMemoryPerMultiprocessor", 0},
	[GPU_SMEM_BLOCK] = {"maxShmemPerBlock|maxSharedMemoryPerBlock", 0},
	[GPU_SMEM_OPTIN] = {"maxShmemPerBlockOptin", 0},
	[GPU_CC_MAJOR] = {"computeMajor|computeCapabilityMajor", 0},
	[GPU_CC_MINOR] = {"computeMinor|computeCapabilityMinor", 0},
	[GPU_MEMORY] = {"totalMemory|globalMemorySize", 0},
};

static struct gpu_row *add_gpu_row(struct gpu_row **rows, size_t *n)
{
	struct gpu_row *p = realloc(*rows, (*n + 1) * sizeof(**rows));
	if (!p)
		return NULL;
	*rows = p;
	memset(&p[*n], 0, sizeof(p[*n]));
	p[*n].pid = -1;
	p[*n].props.ordinal = -1;
	return &p[(*n)++];
}

static int on_gpu(struct nsys_reader *r, sqlite3_stmt *st)
{
	struct gpu_row *g = add_gpu_row(&r->gpus, &r->ngpus);
	if (!g)
		return oom(r);
	struct kg_device *d = &g->props;
	g->id = sqlite3_column_int64(st, GPU_ID);
	g->cu_device = is_null(st, GPU_CUDEV) ? -1 : sqlite3_column_int64(st, GPU_CUDEV);
	d->name = text_col(r, st, GPU_NAME);
	d->uuid = text_col(r, st, GPU_UUID);
	d->sm_count = sqlite3_column_int(st, GPU_SMS);
	d->max_warps_per_sm = sqlite3_column_int(st, GPU_WARPS);
	d->max_blocks_per_sm = sqlite3_column_int(st, GPU_BLOCKS);
	d->max_threads_per_block = sqlite3_column_int(st, GPU_THREADS);
	d->regs_per_sm = sqlite3_column_int(st, GPU_REGS_SM);
	d->max_regs_per_block = sqlite3_column_int(st, GPU_REGS_BLOCK);
	d->smem_per_sm = sqlite3_column_int(st, GPU_SMEM_SM);
	d->smem_per_block = sqlite3_column_int(st, GPU_SMEM_BLOCK);
	d->smem_per_block_optin = sqlite3_column_int(st, GPU_SMEM_OPTIN);
	d->cc_major = sqlite3_column_int(st, GPU_CC_MAJOR);
	d->cc_minor = sqlite3_column_int(st, GPU_CC_MINOR);
	d->memory_bytes = sqlite3_column_int64(st, GPU_MEMORY);
	return 0;
}

enum { CD_GPU, CD_CUDA, CD_PID, CD_UUID, CD_SMS, CD_NCOLS };
static const struct col cuda_dev_cols[CD_NCOLS] = {
	[CD_GPU] = {"gpuId", 0}, [CD_CUDA] = {"cudaId", 1}, [CD_PID] = {"pid", 1},
	[CD_UUID] = {"uuid", 0}, [CD_SMS] = {"numMultiprocessors", 0},
};

/* A CUDA device as one process numbers it. Its own uuid and SM count stand in when the
 * file has no TARGET_INFO_GPU row for it. */
static int on_cuda_device(struct nsys_reader *r, sqlite3_stmt *st)
{
	struct gpu_row *g = add_gpu_row(&r->cuda_devs, &r->ncuda_devs);
	if (!g)
		return oom(r);
	g->cu_device = sqlite3_column_int64(st, CD_CUDA);
	g->id = is_null(st, CD_GPU) ? g->cu_device : sqlite3_column_int64(st, CD_GPU);
	g->pid = sqlite3_column_int64(st, CD_PID);
	g->props.uuid = text_col(r, st, CD_UUID);
	g->props.sm_count = sqlite3_column_int(st, CD_SMS);
	return 0;
}

/* ------------------------------------------------------------------ GPU operations */

/* model_stream_index, remembering the last stream: consecutive rows often share one. */
static uint32_t stream_of(struct nsys_reader *r, uint32_t p, uint32_t d, uint32_t ctx, int64_t id)
{
	if (d == KG_NONE)
		return KG_NONE;
	if (r->last_stream.index != KG_NONE && r->last_stream.process == p &&
	    r->last_stream.device == d && r->last_stream.context == ctx && r->last_stream.id == id)
		return r->last_stream.index;
	uint32_t s = model_stream_index(r->m, p, d, ctx, id);
	r->last_stream.process = p;
	r->last_stream.device = d;
	r->last_stream.context = ctx;
	r->last_stream.id = id;
	r->last_stream.index = s;
	return s;
}

/* model_thread_index, remembering the last thread: API calls come in runs per thread. */
static uint32_t thread_of(struct nsys_reader *r, uint32_t p, uint64_t gtid)
{
	uint64_t tid = gtid & TID_MASK;
	if (r->last_thread.index != KG_NONE && r->last_thread.process == p &&
	    r->last_thread.tid == tid)
		return r->last_thread.index;
	r->last_thread.process = p;
	r->last_thread.tid = tid;
	r->last_thread.index = model_thread_index(r->m, p, tid);
	return r->last_thread.index;
}

/* Columns 0..7 of the kernel, memcpy and memset queries. */
enum { G_START, G_END, G_DEVICE, G_CONTEXT, G_STREAM, G_CORR, G_PID, G_NODE, G_NCOMMON };
#define GPU_COMMON_COLS                                                                    \
	[G_START] = {"start", 1}, [G_END] = {"end", 1}, [G_DEVICE] = {"deviceId", 1},     \
	[G_CONTEXT] = {"contextId", 0}, [G_STREAM] = {"streamId", 1},                       \
	[G_CORR] = {"correlationId", 0}, [G_PID] = {"globalPid", 0},                        \
	[G_NODE] = {"graphNodeId", 0}

/* A new op on its stream in *out; none (counted) when it has no times: CUPTI's
 * "timestamps could not be collected" is 0 for both. */
static int new_op(struct nsys_reader *r, sqlite3_stmt *st, enum kg_op_kind kind,
		  struct kg_op **out)
{
	*out = NULL;
	int64_t start = time_col(st, G_START), end = time_col(st, G_END);
	if (start == KG_NO_TIME || end == KG_NO_TIME || (start == 0 && end == 0)) {
		r->skipped_ops++;
		return 0;
	}
	uint32_t p = process_of(r, (uint64_t)sqlite3_column_int64(st, G_PID));
	uint32_t d = device_of(r, p, sqlite3_column_int64(st, G_DEVICE));
	uint32_t s = stream_of(r, p, d, (uint32_t)sqlite3_column_int64(st, G_CONTEXT),
			       sqlite3_column_int64(st, G_STREAM));
	struct kg_op *o = s == KG_NONE ? NULL : model_add_op(r->m);
	if (!o)
		return oom(r);
	o->kind = (uint8_t)kind;
	o->stream = s;
	o->start = start;
	o->end = end;
	o->correlation = (uint32_t)sqlite3_column_int64(st, G_CORR);
	if (sqlite3_column_int64(st, G_NODE))
		o->flags |= KG_OPF_GRAPH;
	*out = o;
	return 0;
}

enum { K_DEMANGLED = G_NCOMMON, K_SHORT, K_MANGLED, K_GRID_X, K_GRID_Y, K_GRID_Z, K_BLOCK_X,
       K_BLOCK_Y, K_BLOCK_Z, K_REGS, K_SMEM_STATIC, K_SMEM_DYNAMIC, K_SMEM_CONFIG, K_GRAPH,
       K_CHANNEL, K_NCOLS };
static const struct col kernel_cols[K_NCOLS] = {
	GPU_COMMON_COLS,
	[K_DEMANGLED] = {"demangledName", 0},
	[K_SHORT] = {"shortName", 0},
	[K_MANGLED] = {"mangledName", 0},
	[K_GRID_X] = {"gridX", 0},
	[K_GRID_Y] = {"gridY", 0},
	[K_GRID_Z] = {"gridZ", 0},
	[K_BLOCK_X] = {"blockX", 0},
	[K_BLOCK_Y] = {"blockY", 0},
	[K_BLOCK_Z] = {"blockZ", 0},
	[K_REGS] = {"registersPerThread", 0},
	[K_SMEM_STATIC] = {"staticSharedMemory", 0},
	[K_SMEM_DYNAMIC] = {"dynamicSharedMemory", 0},
	[K_SMEM_CONFIG] = {"sharedMemoryExecuted", 0},
	[K_GRAPH] = {"graphId", 0},
	[K_CHANNEL] = {"channelID|channelId", 0},
};

/* The demangled name (what the model shows), else the short, else the mangled one. */
static uint32_t kernel_name(struct nsys_reader *r, sqlite3_stmt *st)
{
	static const int cols[] = {K_DEMANGLED, K_SHORT, K_MANGLED};
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		uint32_t s = string_col(r, st, cols[i]);
		if (s && *model_text(r->m, s))
			return s;
	}
	return model_string(r->m, "(unnamed kernel)");
}

static int on_kernel(struct nsys_reader *r, sqlite3_stmt *st)
{
	struct kg_op *o;
	int rc = new_op(r, st, KG_OP_KERNEL, &o);
	if (!o)
		return rc;
	o->name = kernel_name(r, st);
	struct kg_launch l = {0};
	for (int i = 0; i < 3; i++) {
		l.grid[i] = (uint32_t)sqlite3_column_int64(st, K_GRID_X + i);
		l.block[i] = (uint32_t)sqlite3_column_int64(st, K_BLOCK_X + i);
	}
	l.regs = (uint16_t)sqlite3_column_int(st, K_REGS);
	l.smem_static = (uint32_t)sqlite3_column_int64(st, K_SMEM_STATIC);
	l.smem_dynamic = (uint32_t)sqlite3_column_int64(st, K_SMEM_DYNAMIC);
	l.smem_config = (uint32_t)sqlite3_column_int64(st, K_SMEM_CONFIG);
	if ((o->launch = model_launch(r->m, &l)) == KG_NONE)
		return oom(r);
	o->graph = (uint32_t)sqlite3_column_int64(st, K_GRAPH); /* CUPTI: 0 = no graph */
	if (o->graph)
		o->flags |= KG_OPF_GRAPH;
	struct kg_stream *s = &r->m->streams[o->stream];
	if (s->channel < 0 && !is_null(st, K_CHANNEL))
		s->channel = sqlite3_column_int(st, K_CHANNEL);
	return 0;
}

enum { C_BYTES = G_NCOMMON, C_KIND, C_SRC, C_DST, C_NCOLS };
static const struct col memcpy_cols[C_NCOLS] = {
	GPU_COMMON_COLS,
	[C_BYTES] = {"bytes", 0},
	[C_KIND] = {"copyKind", 0},
	[C_SRC] = {"srcKind", 0},
	[C_DST] = {"dstKind", 0},
};

static int on_memcpy(struct nsys_reader *r, sqlite3_stmt *st)
{
	struct kg_op *o;
	int rc = new_op(r, st, KG_OP_MEMCPY, &o);
	if (!o)
		return rc;
	const struct codes *c = &r->codes;
	o->bytes = (uint64_t)sqlite3_column_int64(st, C_BYTES);
	o->copy_kind = code_of(c->copy, st, C_KIND);
	o->src_kind = is_null(st, C_SRC) ? KG_MEM_UNKNOWN : code_of(c->mem, st, C_SRC);
	o->dst_kind = is_null(st, C_DST) ? KG_MEM_UNKNOWN : code_of(c->mem, st, C_DST);
	o->name = model_copy_label(r->m, o);
	return 0;
}

enum { S_BYTES = G_NCOMMON, S_KIND, S_NCOLS };
static const struct col memset_cols[S_NCOLS] = {
	GPU_COMMON_COLS,
	[S_BYTES] = {"bytes", 0},
	[S_KIND] = {"memKind|memoryKind", 0},
};

static int on_memset(struct nsys_reader *r, sqlite3_stmt *st)
{
	struct kg_op *o;
	int rc = new_op(r, st, KG_OP_MEMSET, &o);
	if (!o)
		return rc;
	o->bytes = (uint64_t)sqlite3_column_int64(st, S_BYTES);
	o->dst_kind = is_null(st, S_KIND) ? KG_MEM_UNKNOWN : code_of(r->codes.mem, st, S_KIND);
	o->name = model_copy_label(r->m, o);
	return 0;
}

/* ------------------------------------------------------------------ host side */

enum { A_START, A_END, A_CLASS, A_TID, A_CORR, A_NAME, A_CHAIN, A_NCOLS };
static const struct col api_cols[A_NCOLS] = {
	[A_START] = {"start", 1}, [A_END] = {"end", 0},       [A_CLASS] = {"eventClass", 0},
	[A_TID] = {"globalTid", 0}, [A_CORR] = {"correlationId", 0}, [A_NAME] = {"nameId", 0},
	[A_CHAIN] = {"callchainId", 0},
};

/* Driver functions are cu*, runtime ones cuda*: what decides when the file does not say. */
static int driver_name(const char *s)
{
	return s[0] == 'c' && s[1] == 'u' && strncmp(s, "cuda", 4) != 0;
}

/* Remembers that the call (process key, correlation, or the call api itself) has the
 * backtrace CUDA_CALLCHAINS id `id`; read_callchains resolves it. */
static int add_chain_ref(struct nsys_reader *r, uint64_t pkey, uint32_t correlation,
			 uint32_t api, int64_t id, uint8_t prio)
{
	if (id < 0)
		return 0; /* not a callchain id: read as none */
	uint32_t *slot = idmap_slot(&r->chain_ids, (uint64_t)id);
	if (!slot)
		return oom(r);
	if (*slot == KG_NONE) {
		if (r->nchains == r->capchains) {
			uint32_t cap = r->capchains ? r->capchains * 2 : 64;
			struct chain *c = cap > r->capchains
						  ? realloc(r->chains, (size_t)cap * sizeof(*c))
						  : NULL;
			if (!c)
				return oom(r);
			r->chains = c;
			r->capchains = cap;
		}
		r->chains[r->nchains] = (struct chain){.id = id};
		*slot = r->nchains++;
	}
	if (r->nrefs == r->caprefs) {
		size_t cap = r->caprefs ? r->caprefs * 2 : 256;
		struct chain_ref *p = realloc(r->refs, cap * sizeof(*p));
		if (!p)
			return oom(r);
		r->refs = p;
		r->caprefs = cap;
	}
	r->refs[r->nrefs++] = (struct chain_ref){.pkey = pkey, .correlation = correlation,
						 .api = api, .chain = *slot, .prio = prio};
	return 0;
}

static int on_api(struct nsys_reader *r, sqlite3_stmt *st)
{
	int64_t start, end, class, chain;
	uint8_t cls = !int_col(st, A_CLASS, &class) ? EVC_UNKNOWN
		      : class >= 0 && class < NCODES ? r->codes.evclass[class]
						     : EVC_UNKNOWN;
	int has_chain = int_col(st, A_CHAIN, &chain);
	uint64_t gtid = (uint64_t)sqlite3_column_int64(st, A_TID);
	/* INT64_MIN is the model's "unknown" (KG_NO_TIME): no start either */
	if (cls == EVC_OTHER || cls == EVC_BACKTRACE || !int_col(st, A_START, &start) ||
	    start == KG_NO_TIME) {
		r->skipped_apis++; /* e.g. CUDA backtrace records: not calls of their own */
		/* a backtrace record carries the stack of the call with its correlation id */
		uint32_t corr = (uint32_t)sqlite3_column_int64(st, A_CORR);
		if (cls == EVC_BACKTRACE && has_chain && corr)
			return add_chain_ref(r, gtid & ~TID_MASK, corr, KG_NONE, chain, 0);
		return 0;
	}
	uint32_t p = process_of(r, gtid);
	struct kg_api *a = p == KG_NONE ? NULL : model_add_api(r->m);
	if (!a)
		return oom(r);
	a->process = p;
	a->thread = thread_of(r, p, gtid);
	a->start = start;
	a->end = int_col(st, A_END, &end) ? end : start;
	a->correlation = (uint32_t)sqlite3_column_int64(st, A_CORR);
	a->name = string_col(r, st, A_NAME);
	a->driver = cls == EVC_DRIVER ||
		    (cls == EVC_UNKNOWN && driver_name(model_text(r->m, a->name)));
	if (!has_chain)
		return 0;
	return add_chain_ref(r, gtid & ~TID_MASK, a->correlation,
			     a->correlation ? KG_NONE : r->m->n_apis - 1, chain,
			     a->driver ? 1 : 2);
}

enum { Y_START, Y_END, Y_DEVICE, Y_CONTEXT, Y_STREAM, Y_CORR, Y_PID, Y_TYPE, Y_NCOLS };
static const struct col sync_cols[Y_NCOLS] = {
	[Y_START] = {"start", 1},        [Y_END] = {"end", 1},
	[Y_DEVICE] = {"deviceId", 0},    [Y_CONTEXT] = {"contextId", 0},
	[Y_STREAM] = {"streamId", 0},    [Y_CORR] = {"correlationId", 0},
	[Y_PID] = {"globalPid", 0},      [Y_TYPE] = {"syncType", 1},
};

static int on_sync(struct nsys_reader *r, sqlite3_stmt *st)
{
	if (time_col(st, Y_START) == KG_NO_TIME || time_col(st, Y_END) == KG_NO_TIME)
		return 0; /* NULL, or INT64_MIN: the model's "unknown" */
	uint32_t p = process_of(r, (uint64_t)sqlite3_column_int64(st, Y_PID));
	struct kg_sync *y = p == KG_NONE ? NULL : model_add_sync(r->m);
	if (!y)
		return oom(r);
	y->process = p;
	y->start = sqlite3_column_int64(st, Y_START);
	y->end = sqlite3_column_int64(st, Y_END);
	y->correlation = (uint32_t)sqlite3_column_int64(st, Y_CORR);
	y->kind = code_of(r->codes.sync, st, Y_TYPE);
	int64_t stream = sqlite3_column_int64(st, Y_STREAM);
	/* only stream waits name a stream; others carry CUPTI's invalid id (-1 as uint32) */
	if ((y->kind == KG_SYNC_STREAM || y->kind == KG_SYNC_STREAM_WAIT_EVENT) &&
	    !is_null(st, Y_STREAM) && stream >= 0 && stream != NO_ID) {
		uint32_t d = device_of(r, p, sqlite3_column_int64(st, Y_DEVICE));
		uint32_t ctx = (uint32_t)sqlite3_column_int64(st, Y_CONTEXT);
		if (d != KG_NONE)
			y->stream = model_stream_index(r->m, p, d, ctx, stream);
	}
	return 0;
}

enum { N_START, N_END, N_TYPE, N_TEXT, N_TEXTID, N_TID, N_DOMAIN, N_NCOLS };
static const struct col nvtx_cols[N_NCOLS] = {
	[N_START] = {"start", 1}, [N_END] = {"end", 0},       [N_TYPE] = {"eventType", 1},
	[N_TEXT] = {"text", 0},   [N_TEXTID] = {"textId", 0}, [N_TID] = {"globalTid", 0},
	[N_DOMAIN] = {"domainId", 0},
};

/* The message: registered strings come through textId, others as text. */
static uint32_t nvtx_text(struct nsys_reader *r, sqlite3_stmt *st)
{
	return is_null(st, N_TEXT) ? string_col(r, st, N_TEXTID) : text_col(r, st, N_TEXT);
}

static uint64_t domain_key(uint32_t p, sqlite3_stmt *st)
{
	return (uint64_t)p << 32 | (uint32_t)sqlite3_column_int64(st, N_DOMAIN);
}

static int on_nvtx_domain(struct nsys_reader *r, sqlite3_stmt *st)
{
	if (code_of(r->codes.nvtx, st, N_TYPE) != NV_DOMAIN)
		return 0;
	uint32_t p = process_of(r, (uint64_t)sqlite3_column_int64(st, N_TID));
	uint32_t *slot = p == KG_NONE ? NULL : idmap_slot(&r->domains, domain_key(p, st));
	if (!slot)
		return oom(r);
	*slot = nvtx_text(r, st);
	return 0;
}

static int on_nvtx(struct nsys_reader *r, sqlite3_stmt *st)
{
	uint8_t type = code_of(r->codes.nvtx, st, N_TYPE);
	if ((type != NV_PUSHPOP && type != NV_STARTEND && type != NV_MARK) ||
	    sqlite3_column_int64(st, N_START) == KG_NO_TIME) /* the model's "unknown" */
		return 0;
	uint64_t gtid = (uint64_t)sqlite3_column_int64(st, N_TID);
	uint32_t p = process_of(r, gtid);
	struct kg_range *g = p == KG_NONE ? NULL : model_add_range(r->m);
	if (!g)
		return oom(r);
	g->process = p;
	g->thread = thread_of(r, p, gtid);
	g->name = nvtx_text(r, st);
	g->start = sqlite3_column_int64(st, N_START);
	g->end = type == NV_MARK ? g->start : time_col(st, N_END);
	if (sqlite3_column_int64(st, N_DOMAIN)) {
		uint32_t name = idmap_get(&r->domains, domain_key(p, st));
		g->domain = name != KG_NONE ? name : model_string(r->m, "(unnamed domain)");
	}
	return 0;
}

/* ------------------------------------------------------------------ streams, threads */

/* TARGET_INFO_* rows name processes by hardware, VM and process id, not globalPid. */
static uint64_t global_pid(sqlite3_stmt *st, int hw, int vm, int pid)
{
	return (uint64_t)sqlite3_column_int64(st, hw) << 56 |
	       ((uint64_t)sqlite3_column_int64(st, vm) & 0xFF) << 48 |
	       ((uint64_t)sqlite3_column_int64(st, pid) & TID_MASK) << TID_BITS;
}

/* The process of a TARGET_INFO row; KG_NONE for processes without CUDA or NVTX rows. */
static uint32_t known_process(struct nsys_reader *r, uint64_t gpid)
{
	return idmap_get(&r->procs, gpid);
}

enum { X_NULL_STREAM, X_HW, X_VM, X_PID, X_DEVICE, X_CONTEXT, X_NCOLS };
static const struct col context_cols[X_NCOLS] = {
	[X_NULL_STREAM] = {"nullStreamId", 0}, [X_HW] = {"hwId", 0},   [X_VM] = {"vmId", 0},
	[X_PID] = {"processId", 1},            [X_DEVICE] = {"deviceId", 1},
	[X_CONTEXT] = {"contextId", 1},
};

/* A context's legacy default stream. It is created here if no op ran on it, as for
 * every stream the export lists. */
static int on_context(struct nsys_reader *r, sqlite3_stmt *st)
{
	uint32_t p = known_process(r, global_pid(st, X_HW, X_VM, X_PID));
	uint32_t d = device_of(r, p, sqlite3_column_int64(st, X_DEVICE));
	if (d == KG_NONE || is_null(st, X_NULL_STREAM))
		return 0;
	uint32_t s = model_stream_index(r->m, p, d, (uint32_t)sqlite3_column_int64(st, X_CONTEXT),
					sqlite3_column_int64(st, X_NULL_STREAM));
	if (s == KG_NONE)
		return oom(r);
	r->m->streams[s].kind = KG_STREAM_LEGACY_DEFAULT;
	return 0;
}

enum { T_STREAM, T_HW, T_VM, T_PID, T_CONTEXT, T_PRIORITY, T_FLAG, T_NCOLS };
static const struct col stream_cols[T_NCOLS] = {
	[T_STREAM] = {"streamId", 1},   [T_HW] = {"hwId", 0},        [T_VM] = {"vmId", 0},
	[T_PID] = {"processId", 1},     [T_CONTEXT] = {"contextId", 1},
	[T_PRIORITY] = {"priority", 0}, [T_FLAG] = {"flag|flags", 0},
};

/* The device of a context: TARGET_INFO_CUDA_STREAM does not say, the context's streams do. */
static uint32_t context_device(const struct kg_model *m, uint32_t p, uint32_t ctx)
{
	for (uint32_t i = 0; i < m->n_streams; i++)
		if (m->streams[i].process == p && m->streams[i].context == ctx)
			return m->streams[i].device;
	return KG_NONE;
}

static int on_stream(struct nsys_reader *r, sqlite3_stmt *st)
{
	uint32_t p = known_process(r, global_pid(st, T_HW, T_VM, T_PID));
	uint32_t ctx = (uint32_t)sqlite3_column_int64(st, T_CONTEXT);
	uint32_t d = p == KG_NONE ? KG_NONE : context_device(r->m, p, ctx);
	if (d == KG_NONE)
		return 0; /* a stream of a context that did nothing */
	uint32_t s = model_stream_index(r->m, p, d, ctx, sqlite3_column_int64(st, T_STREAM));
	if (s == KG_NONE)
		return oom(r);
	struct kg_stream *k = &r->m->streams[s];
	/* CUPTI keeps priorities as uint32: -5 may come as 4294967291 */
	k->priority = (int32_t)(uint32_t)sqlite3_column_int64(st, T_PRIORITY);
	uint8_t kind = code_of(r->codes.stream, st, T_FLAG);
	if (k->kind != KG_STREAM_LEGACY_DEFAULT || kind == KG_STREAM_LEGACY_DEFAULT)
		k->kind = kind;
	return 0;
}

/* ThreadNames names threads that made CUDA calls or NVTX ranges; others are not added. */
static int name_threads(struct nsys_reader *r)
{
	if (!r->m->n_threads || !has_table(r, "ThreadNames"))
		return 0;
	struct kg_idmap known = {0};
	int rc = 0;
	for (uint32_t i = 0; i < r->m->n_threads && !rc; i++) {
		const struct kg_thread *t = &r->m->threads[i];
		uint32_t *slot = idmap_slot(&known, (uint64_t)t->process << TID_BITS | t->tid);
		if (!slot)
			rc = oom(r);
		else
			*slot = i;
	}
	/* a table of another layout fails to prepare (st = NULL): threads stay unnamed */
	sqlite3_stmt *st = NULL;
	if (!rc)
		sqlite3_prepare_v2(r->db, "SELECT nameId, globalTid FROM ThreadNames", -1, &st, NULL);
	while (st && !rc && sqlite3_step(st) == SQLITE_ROW) {
		uint64_t gtid = (uint64_t)sqlite3_column_int64(st, 1);
		uint32_t p = known_process(r, gtid & ~TID_MASK);
		uint64_t key = (uint64_t)p << TID_BITS | (gtid & TID_MASK);
		uint32_t t = p == KG_NONE ? KG_NONE : idmap_get(&known, key);
		if (t != KG_NONE)
			r->m->threads[t].name = string_col(r, st, 0);
	}
	sqlite3_finalize(st);
	idmap_free(&known);
	return rc;
}

/* ------------------------------------------------------------------ links */

static uint64_t corr_key(uint32_t process, uint32_t corr)
{
	return (uint64_t)(process + 1) << 32 | corr;
}

/* The API call behind each copy, memset and sync, found by correlation id: nsys exports
 * no async flag for copies, the name of the call says it (cudaMemcpyAsync), and a sync
 * records the call that waited. Only the correlation ids of those rows are hashed, not
 * every API call's. */
static int link_calls(struct nsys_reader *r)
{
	struct kg_model *m = r->m;
	struct kg_idmap calls = {0};
	int rc = 0;
	for (uint32_t i = 0; i < m->n_ops && !rc; i++)
		if (m->ops[i].kind != KG_OP_KERNEL && m->ops[i].correlation)
			rc = idmap_slot(&calls, corr_key(m->streams[m->ops[i].stream].process,
							 m->ops[i].correlation)) ? 0 : -ENOMEM;
	for (uint32_t i = 0; i < m->n_syncs && !rc; i++) {
		const struct kg_sync *y = &m->syncs[i];
		if (y->correlation)
			rc = idmap_slot(&calls, corr_key(y->process, y->correlation)) ? 0 : -ENOMEM;
	}
	for (uint32_t i = 0; i < m->n_apis && !rc && calls.count; i++) {
		const struct kg_api *a = &m->apis[i];
		uint32_t *slot = a->correlation ? idmap_find(&calls, corr_key(a->process,
									      a->correlation))
						: NULL;
		/* the outer (runtime) call, which starts first, as model_finish links them */
		if (slot && (*slot == KG_NONE || a->start < m->apis[*slot].start))
			*slot = i;
	}
	for (uint32_t i = 0; i < m->n_ops && !rc && calls.count; i++) {
		struct kg_op *o = &m->ops[i];
		uint32_t a = o->kind == KG_OP_KERNEL || !o->correlation
				     ? KG_NONE
				     : idmap_get(&calls, corr_key(m->streams[o->stream].process,
								  o->correlation));
		if (a != KG_NONE && strstr(model_text(m, m->apis[a].name), "Async"))
			o->flags |= KG_OPF_ASYNC;
	}
	for (uint32_t i = 0; i < m->n_syncs && !rc && calls.count; i++)
		if (m->syncs[i].correlation)
			m->syncs[i].api = idmap_get(&calls, corr_key(m->syncs[i].process,
								     m->syncs[i].correlation));
	idmap_free(&calls);
	return rc ? oom(r) : 0;
}

/* ------------------------------------------------------------------ backtraces */

/* The demangled form of a symbol (StringIds id), looked up once per id. */
static uint32_t symbol_of(struct nsys_reader *r, int64_t id)
{
	uint32_t *slot = id >= 0 ? idmap_slot(&r->symbols, (uint64_t)id) : NULL;
	if (slot && *slot != KG_NONE)
		return *slot;
	uint32_t s = string_of(r, id);
	char *d = s ? demangle(model_text(r->m, s)) : NULL;
	if (d) {
		s = model_string(r->m, d);
		free(d);
	}
	if (slot)
		*slot = s;
	return s;
}

enum { CC_ID, CC_DEPTH, CC_SYMBOL, CC_MODULE, CC_UNRESOLVED, CC_IP, CC_SPECIAL, CC_NCOLS };
static const struct col callchain_cols[CC_NCOLS] = {
	[CC_ID] = {"id", 0},         [CC_DEPTH] = {"stackDepth", 0}, [CC_SYMBOL] = {"symbol", 0},
	[CC_MODULE] = {"module", 0}, [CC_UNRESOLVED] = {"unresolved", 0},
	[CC_IP] = {"originalIP", 0}, [CC_SPECIAL] = {"specialEntry", 0},
};

/* One row of CUDA_CALLCHAINS or SAMPLING_CALLCHAINS as a frame. The export has no source
 * files or lines, and its instruction pointers are absolute, without the modules' load
 * addresses: the model's module-relative address stays unknown. A symbol nsys could not
 * resolve (its instruction pointer written as text, or a guess such as a library's _init)
 * is no symbol: the frame is its library's, without a function, as kgantt's own traces
 * have it; one without a library either is named by its instruction pointer. */
static struct kg_frame callchain_frame(struct nsys_reader *r, sqlite3_stmt *st, int unresolved)
{
	struct kg_frame f;
	memset(&f, 0, sizeof(f));
	f.kind = KG_FRAME_NATIVE;
	int64_t v, ip;
	f.module = string_col(r, st, CC_MODULE);
	if (f.module && !*model_text(r->m, f.module))
		f.module = 0;
	if (int_col(st, CC_SYMBOL, &v))
		f.function = unresolved ? (f.module ? 0 : string_of(r, v)) : symbol_of(r, v);
	if (f.function && !*model_text(r->m, f.function))
		f.function = 0;
	if (!f.function && !f.module && int_col(st, CC_IP, &ip)) {
		char hex[24];
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)ip);
		f.function = model_string(r->m, hex);
	}
	return f;
}

/* A chain's flags beyond the stack's (KG_STACK_TRUNCATED): every frame unresolved. */
#define CHAIN_UNRESOLVED (1u << 16)

/* What a walk over a callchain table does with each id's rows: want() says whether its
 * frames are needed (the others are skipped unread: symbols cost a lookup and a
 * demangling each), got() takes them, innermost first, with the chain's flags. */
struct chain_walk {
	int (*want)(struct nsys_reader *r, int64_t id);
	int (*got)(struct nsys_reader *r, int64_t id, const struct kg_frame *f, uint32_t n,
		   uint32_t flags);
};

/* One run of a chain's rows read into buf: the frame of depth `depth`, unless it repeats
 * the last depth (a duplicate row: no primary key), is nsys's own entry rather than a
 * frame (specialEntry), or lies past MAX_FRAMES (cut: KG_STACK_TRUNCATED), so that a
 * damaged depth cannot make the reader keep more than MAX_FRAMES a chain. */
static void chain_row(struct nsys_reader *r, sqlite3_stmt *st, int64_t depth, int64_t *last,
		      struct kg_frame *buf, uint32_t *n, uint32_t *flags)
{
	int64_t v;
	if (depth == *last)
		return;
	*last = depth;
	if (int_col(st, CC_SPECIAL, &v) && v)
		return;
	if (depth >= MAX_FRAMES || *n >= MAX_FRAMES) {
		*flags |= KG_STACK_TRUNCATED;
		return;
	}
	int unresolved = int_col(st, CC_UNRESOLVED, &v) && v != 0;
	if (!unresolved)
		*flags &= ~CHAIN_UNRESOLVED;
	buf[(*n)++] = callchain_frame(r, st, unresolved);
}

/* Walks table's rows sorted by id and depth (nsys's primary key, so usually an index
 * walk). Depth 0 is the innermost frame. 0, 1 when the table lacks its id or depth
 * column (said in a note, naming what is not read), or an error. */
static int each_chain(struct nsys_reader *r, const char *table, const char *what,
		      const struct chain_walk *w)
{
	for (int i = CC_ID; i <= CC_DEPTH; i++)
		if (!has_column(r, table, callchain_cols[i].names)) {
			model_note(r->m, "%s has no column '%s': %s are not read", table,
				   callchain_cols[i].names, what);
			return 1;
		}
	char sql[1024];
	int rc = build_select(r, table, callchain_cols, CC_NCOLS, sql, sizeof(sql));
	if (rc)
		return rc;
	size_t len = strlen(sql);
	snprintf(sql + len, sizeof(sql) - len, " ORDER BY \"id\", \"stackDepth\"");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(r, table);
	struct kg_frame buf[MAX_FRAMES];
	int64_t cur = -1, last = -1; /* the id whose rows are being read, its last depth */
	uint32_t n = 0, flags = 0;
	int taking = 0, step;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id, depth;
		if (!int_col(st, CC_ID, &id) || id < 0 || !int_col(st, CC_DEPTH, &depth) ||
		    depth < 0)
			continue;
		if (id != cur) {
			if (taking)
				rc = w->got(r, cur, buf, n, n ? flags : flags & ~CHAIN_UNRESOLVED);
			cur = id;
			last = -1;
			n = 0;
			flags = CHAIN_UNRESOLVED;
			taking = !rc && w->want(r, id);
		}
		if (taking)
			chain_row(r, st, depth, &last, buf, &n, &flags);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_error(r, table);
	if (!rc && taking)
		rc = w->got(r, cur, buf, n, n ? flags : flags & ~CHAIN_UNRESOLVED);
	sqlite3_finalize(st);
	return rc;
}

/* A CUDA_CALLCHAINS id some call names, not read yet: ids of mixed types sort apart, and
 * the first run wins. */
static int want_call_chain(struct nsys_reader *r, int64_t id)
{
	uint32_t ci = idmap_get(&r->chain_ids, (uint64_t)id);
	if (ci == KG_NONE || r->chains[ci].found)
		return 0;
	r->chains[ci].found = 1;
	return 1;
}

/* A frame's library, by its file's base name ("" without one). */
static const char *frame_library(const struct nsys_reader *r, const struct kg_frame *f)
{
	return path_base(f->module ? model_text(r->m, f->module) : "");
}

/* How many of a CUDA API backtrace's innermost frames are where the tracer took it, not
 * the program's: the tracer's own library's (CUPTI's, Nsight Systems' injection: nsys
 * unwinds from inside CUPTI's callback), then the driver's frames without a symbol that
 * called into it. Left in, the call's time would read as the tracer's work. None when
 * nothing else is left. */
static uint32_t capture_frames(const struct nsys_reader *r, const struct kg_frame *f, uint32_t n)
{
	uint32_t k = 0;
	while (k < n && kg_tracer_library(frame_library(r, &f[k])))
		k++;
	if (!k)
		return 0;
	while (k < n && !strncmp(frame_library(r, &f[k]), "libcuda.so", 10) && !f[k].function)
		k++;
	return k < n ? k : 0;
}

static int got_call_chain(struct nsys_reader *r, int64_t id, const struct kg_frame *f,
			  uint32_t n, uint32_t flags)
{
	struct chain *c = &r->chains[idmap_get(&r->chain_ids, (uint64_t)id)];
	uint32_t skip = capture_frames(r, f, n);
	f += skip;
	n -= skip;
	if (r->ncframes + n > r->capcframes) {
		size_t cap = r->capcframes ? r->capcframes : 1024;
		while (cap < r->ncframes + n)
			cap *= 2;
		struct kg_frame *p = realloc(r->cframes, cap * sizeof(*p));
		if (!p)
			return oom(r);
		r->cframes = p;
		r->capcframes = cap;
	}
	memcpy(r->cframes + r->ncframes, f, n * sizeof(*f));
	c->first = (uint32_t)r->ncframes;
	c->n = n;
	c->flags = flags & KG_STACK_TRUNCATED;
	r->ncframes += n;
	return 0;
}

/* Reads the frames of the callchains that calls name. 0, 1 when the table cannot be read
 * (said in a note), or an error. */
static int read_callchain_rows(struct nsys_reader *r)
{
	static const struct chain_walk calls = {want_call_chain, got_call_chain};
	return each_chain(r, "CUDA_CALLCHAINS", "the CUDA API backtraces", &calls);
}

/* The stack of each call with a backtrace: model_add_stack_ref for the calls with a
 * correlation id (model_finish gives it to the outer, runtime, call of that id), the
 * call itself otherwise. A call's own callchainId wins over a backtrace record's, and a
 * runtime call's over a driver call's. The stack note counts the calls given a stack. */
static int link_callchains(struct nsys_reader *r)
{
	struct kg_model *m = r->m;
	struct kg_idmap stacks = {0}; /* process << 32 | chain index → stack */
	struct kg_idmap called = {0}; /* corr_key of the calls with a stack */
	uint64_t direct = 0;
	int rc = 0;
	for (uint8_t prio = 0; prio <= 2 && !rc; prio++)
		for (size_t i = 0; i < r->nrefs && !rc; i++) {
			const struct chain_ref *ref = &r->refs[i];
			if (ref->prio != prio)
				continue;
			const struct chain *c = &r->chains[ref->chain];
			if (!c->found || !c->n) {
				r->bad_chains += c->id != 0; /* nsys may write 0 for "none" */
				continue;
			}
			uint32_t p = known_process(r, ref->pkey);
			if (p == KG_NONE)
				continue; /* a backtrace record of a process without calls */
			uint32_t *slot = idmap_slot(&stacks, (uint64_t)p << 32 | ref->chain);
			if (slot && *slot == KG_NONE)
				*slot = model_add_stack(m, p, &r->cframes[c->first], c->n,
							c->flags);
			if (!slot || *slot == KG_NONE) {
				rc = -ENOMEM;
			} else if (ref->correlation) {
				rc = model_add_stack_ref(m, p, ref->correlation, *slot);
				if (!rc && !idmap_slot(&called, corr_key(p, ref->correlation)))
					rc = -ENOMEM;
			} else if (ref->api < m->n_apis) {
				direct += m->apis[ref->api].stack == KG_NONE;
				m->apis[ref->api].stack = *slot;
			}
		}
	uint64_t linked = direct;
	for (uint32_t i = 0; i < m->n_apis && !rc && called.count; i++) {
		const struct kg_api *a = &m->apis[i];
		uint32_t *slot = a->correlation ? idmap_find(&called, corr_key(a->process,
									       a->correlation))
						: NULL;
		if (slot && *slot == KG_NONE) { /* count each (process, correlation) once */
			*slot = 1;
			linked++;
		}
	}
	idmap_free(&stacks);
	idmap_free(&called);
	if (rc)
		return oom(r);
	if (linked)
		snprintf(m->stack_note, sizeof(m->stack_note),
			 "Nsight Systems CUDA API backtraces (%llu calls)",
			 (unsigned long long)linked);
	return 0;
}

/* CUDA API backtraces: without a CUDA_CALLCHAINS table (or without callchainId values)
 * there are none, which is not an error. */
static int read_callchains(struct nsys_reader *r)
{
	if (!r->nrefs || !has_table(r, "CUDA_CALLCHAINS"))
		return 0;
	int rc = read_callchain_rows(r);
	return rc < 0 ? rc : rc ? 0 : link_callchains(r);
}

/* ------------------------------------------------------------------ CPU samples */

enum { E_ID, E_START, E_TID, E_STATE, E_NCOLS };
static const struct col sample_cols[E_NCOLS] = {
	[E_ID] = {"id", 1}, [E_START] = {"start", 1}, [E_TID] = {"globalTid", 0},
	[E_STATE] = {"threadState", 0},
};

/* A CPU sample as a host span that ends at its time: where it starts waits for the
 * period (sample_periods). Samples of processes without CUDA or NVTX rows (the launcher,
 * a shell: nsys samples the whole process tree) are not read. */
static int on_sample(struct nsys_reader *r, sqlite3_stmt *st)
{
	int64_t id, ts, gtid;
	if (!int_col(st, E_ID, &id) || id < 0 || !int_col(st, E_START, &ts) || ts <= 0 ||
	    ts == INT64_MAX || !int_col(st, E_TID, &gtid)) {
		r->bad_samples++;
		return 0;
	}
	uint32_t p = known_process(r, (uint64_t)gtid & ~TID_MASK);
	if (p == KG_NONE)
		return 0;
	uint32_t *slot = idmap_slot(&r->sample_ids, (uint64_t)id);
	if (!slot)
		return oom(r);
	if (*slot != KG_NONE) { /* no primary key: a damaged file */
		r->bad_samples++;
		return 0;
	}
	uint32_t t = thread_of(r, p, (uint64_t)gtid);
	struct kg_host_span *x = t == KG_NONE ? NULL : model_add_host_span(r->m);
	if (!x)
		return oom(r);
	x->start = x->end = ts;
	x->thread = t;
	x->state = code_of(r->codes.state, st, E_STATE);
	x->source = KG_HOST_FROM_SAMPLES;
	*slot = r->m->n_host_spans - 1;
	return 0;
}

static int want_sample_chain(struct nsys_reader *r, int64_t id)
{
	return idmap_get(&r->sample_ids, (uint64_t)id) != KG_NONE;
}

/* A sample's frames: its stack (equal chains of a process are one), and partial when
 * nsys resolved none of them (a stripped program, say). */
static int got_sample_chain(struct nsys_reader *r, int64_t id, const struct kg_frame *f,
			    uint32_t n, uint32_t flags)
{
	struct kg_model *m = r->m;
	struct kg_host_span *x = &m->host_spans[idmap_get(&r->sample_ids, (uint64_t)id)];
	if (flags & CHAIN_UNRESOLVED)
		x->flags |= KG_HOST_PARTIAL;
	if (!n)
		return 0;
	x->stack = model_add_stack(m, m->threads[x->thread].process, f, n,
				   flags & KG_STACK_TRUNCATED);
	return x->stack == KG_NONE ? oom(r) : 0;
}

/* The median time between one process's consecutive samples of a thread, within nsys's
 * range; its default when no thread has two. spans: the samples, by thread and end. */
static int64_t sample_period(const struct kg_model *m, uint32_t first, uint32_t process,
			     int64_t *buf)
{
	uint32_t n = 0;
	for (uint32_t i = first + 1; i < m->n_host_spans; i++) {
		const struct kg_host_span *a = &m->host_spans[i - 1], *b = &m->host_spans[i];
		if (a->thread == b->thread && m->threads[b->thread].process == process &&
		    b->end > a->end)
			buf[n++] = b->end - a->end;
	}
	int64_t p = n ? select_kth(buf, n, n / 2) : SAMPLE_PERIOD_DEFAULT;
	return p < SAMPLE_PERIOD_MIN ? SAMPLE_PERIOD_MIN : p > SAMPLE_PERIOD_MAX ? SAMPLE_PERIOD_MAX : p;
}

/* How one process's threads were sampled: its period as a rate, its samples and threads. */
static int add_sampling(struct nsys_reader *r, uint32_t process, int64_t period)
{
	struct kg_model *m = r->m;
	struct kg_host_sampling *h = model_add_host_sampling(m);
	if (!h)
		return oom(r);
	h->process = process;
	h->hz = (uint32_t)((1000000000 + period / 2) / period);
	for (uint32_t i = r->first_sample; i < m->n_host_spans; i++) {
		const struct kg_host_span *x = &m->host_spans[i];
		if (m->threads[x->thread].process != process)
			continue;
		h->samples++;
		h->threads += i == r->first_sample || x[-1].thread != x->thread;
	}
	h->taken = h->samples;
	return 0;
}

/* nsys exports no sampling rate (--sampling-frequency): each process's period is the
 * median time between a thread's consecutive samples, and a sample stands for at most
 * that period before it, cut where the thread's previous sample ends, as kgantt's own
 * samples do (docs/host-samples.md). A thread nsys saw off CPU between two samples keeps
 * that time unsampled. */
static int sample_periods(struct nsys_reader *r)
{
	struct kg_model *m = r->m;
	uint32_t first = r->first_sample, n = m->n_host_spans - first;
	int64_t *buf = malloc(((size_t)n + 1) * sizeof(*buf));
	int64_t *period = malloc(((size_t)m->n_processes + 1) * sizeof(*period));
	int rc = buf && period ? 0 : oom(r);
	model_sort_host_spans(m, first);
	for (uint32_t p = 0; !rc && p < m->n_processes; p++)
		period[p] = 0;
	for (uint32_t i = first; !rc && i < m->n_host_spans; i++) {
		uint32_t p = m->threads[m->host_spans[i].thread].process;
		if (!period[p]) {
			period[p] = sample_period(m, first, p, buf);
			rc = add_sampling(r, p, period[p]);
		}
		struct kg_host_span *x = &m->host_spans[i];
		x->start = x->end > period[p] ? x->end - period[p] : 0;
	}
	if (!rc)
		model_cut_host_spans(m, first);
	free(buf);
	free(period);
	return rc;
}

/* CPU samples: COMPOSITE_EVENTS' rows (id, start, globalTid, threadState) and the frames
 * SAMPLING_CALLCHAINS gives each id, innermost first. An export without them (nsys
 * profile --sample=none) has none, which is not an error. */
static int read_samples(struct nsys_reader *r)
{
	r->first_sample = r->m->n_host_spans;
	int rc = EACH(r, "COMPOSITE_EVENTS", sample_cols, on_sample);
	if (rc || r->m->n_host_spans == r->first_sample)
		return rc;
	static const struct chain_walk samples = {want_sample_chain, got_sample_chain};
	if (has_table(r, "SAMPLING_CALLCHAINS"))
		rc = each_chain(r, "SAMPLING_CALLCHAINS", "the CPU samples' stacks", &samples);
	else
		model_note(r->m, "no SAMPLING_CALLCHAINS table: the CPU samples have no stacks");
	return rc < 0 ? rc : sample_periods(r);
}

/* ------------------------------------------------------------------ codes */

/* The file's code → kgantt's, by the symbol names of an ENUM table: each entry of
 * names is "SUFFIX" and the kgantt code; a symbol matches when it ends with _SUFFIX (or
 * is SUFFIX). The first match wins, so longer suffixes come first. */
struct code_name {
	const char *suffix;
	uint8_t code;
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0 && (n == k || s[n - k - 1] == '_');
}

/* Fills map from table (id, name) when the file has it; map keeps its defaults else.
 * fallback: the code of a listed symbol none of names matches. */
static int load_codes(struct nsys_reader *r, const char *table, const struct code_name *names,
		      size_t n, int fallback, uint8_t *map)
{
	if (!has_table(r, table) || !has_column(r, table, "name"))
		return 0;
	char sql[128];
	snprintf(sql, sizeof(sql), "SELECT id, name FROM \"%s\"", table);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(r, table);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *sym = (const char *)sqlite3_column_text(st, 1);
		if (id < 0 || id >= NCODES || !sym)
			continue;
		size_t i = 0;
		while (i < n && !ends_with(sym, names[i].suffix))
			i++;
		if (i < n)
			map[id] = names[i].code;
		else if (fallback >= 0)
			map[id] = (uint8_t)fallback;
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : db_error(r, table);
}

static const struct code_name mem_names[] = {
	{"PAGEABLE", KG_MEM_PAGEABLE}, {"PINNED", KG_MEM_PINNED},      {"DEVICE_STATIC", 6},
	{"MANAGED_STATIC", 7},         {"DEVICE", KG_MEM_DEVICE},      {"ARRAY", KG_MEM_ARRAY},
	{"MANAGED", KG_MEM_MANAGED},   {"UNKNOWN", KG_MEM_UNKNOWN},
};
static const struct code_name copy_names[] = {
	/* unified-memory migrations are not copies the program asked for */
	{"UVM_HTOD", KG_COPY_UNKNOWN}, {"UVM_DTOH", KG_COPY_UNKNOWN}, {"UVM_DTOD", KG_COPY_UNKNOWN},
	{"HTOD", KG_COPY_HTOD}, {"DTOH", KG_COPY_DTOH}, {"HTOA", 3}, {"ATOH", 4}, {"ATOA", 5},
	{"ATOD", 6}, {"DTOA", 7}, {"DTOD", KG_COPY_DTOD}, {"HTOH", KG_COPY_HTOH},
	{"PTOP", KG_COPY_PTOP},
};
static const struct code_name sync_names[] = {
	{"EVENT_SYNCHRONIZE", KG_SYNC_EVENT}, {"STREAM_WAIT_EVENT", KG_SYNC_STREAM_WAIT_EVENT},
	{"STREAM_SYNCHRONIZE", KG_SYNC_STREAM}, {"CONTEXT_SYNCHRONIZE", KG_SYNC_CONTEXT},
};
static const struct code_name stream_names[] = {
	{"NON_BLOCKING", KG_STREAM_NON_BLOCKING}, {"DEFAULT", KG_STREAM_BLOCKING},
	{"NULL", KG_STREAM_LEGACY_DEFAULT},
};
static const struct code_name class_names[] = {
	{"CUDA_RUNTIME", EVC_RUNTIME}, {"CUDA_DRIVER", EVC_DRIVER},
	{"CUDABACKTRACE", EVC_BACKTRACE},
};
/* ENUM_SAMPLING_THREAD_STATE: on CPU, or asleep (interruptible, uninterruptible, waiting);
 * the rest (unscheduled, stopped, in an OS runtime call...) says nothing kgantt uses. */
static const struct code_name state_names[] = {
	{"Running", KG_HOST_RUNNING},      {"Interruptible", KG_HOST_BLOCKED},
	{"Uninterruptible", KG_HOST_BLOCKED}, {"Waiting", KG_HOST_BLOCKED},
};
static const struct code_name nvtx_names[] = {
	{"NvtxPushPopRange", NV_PUSHPOP}, {"NvtxStartEndRange", NV_STARTEND}, {"NvtxMark", NV_MARK},
	{"NvtxDomainCreate", NV_DOMAIN},
};

#define NAMES(a) a, sizeof(a) / sizeof(a[0])

/* Defaults: the codes of the export schema reference, for files without ENUM tables. */
static void default_codes(struct codes *c)
{
	memset(c, 0, sizeof(*c));
	/* ENUM_CUDA_MEM_KIND counts from pageable = 0 where CUPTI starts at 1 */
	static const uint8_t mem[8] = {KG_MEM_PAGEABLE, KG_MEM_PINNED, KG_MEM_DEVICE, KG_MEM_ARRAY,
				       KG_MEM_MANAGED, 6, 7, KG_MEM_UNKNOWN};
	memcpy(c->mem, mem, sizeof(mem));
	for (int i = 0; i <= KG_COPY_PTOP; i++)
		c->copy[i] = (uint8_t)i; /* ENUM_CUDA_MEMCPY_OPER is CUPTI's */
	for (int i = 0; i <= KG_SYNC_CONTEXT; i++)
		c->sync[i] = (uint8_t)i;
	c->stream[1] = KG_STREAM_BLOCKING;
	c->stream[2] = KG_STREAM_NON_BLOCKING;
	c->stream[3] = KG_STREAM_LEGACY_DEFAULT;
	c->nvtx[34] = NV_MARK;
	c->nvtx[59] = NV_PUSHPOP;
	c->nvtx[60] = NV_STARTEND;
	c->nvtx[75] = NV_DOMAIN;
	memset(c->state, KG_HOST_STATE_UNKNOWN, sizeof(c->state));
	c->state[1] = KG_HOST_RUNNING; /* ENUM_SAMPLING_THREAD_STATE's numbering */
	c->state[2] = c->state[3] = c->state[7] = KG_HOST_BLOCKED;
	/* ENUM_NSYS_EVENT_CLASS's numbering (pipit's saxpy-mpi-cuda export, nsys 2022.2 with
	 * no ENUM tables, has each backtraced call twice: its class-67 backtrace record and
	 * CUPTI's call, of one correlation id); other classes stay unknown, the function
	 * name telling runtime from driver */
	c->evclass[0] = EVC_RUNTIME;
	c->evclass[1] = EVC_DRIVER;
	c->evclass[67] = EVC_BACKTRACE;
}

static int read_codes(struct nsys_reader *r)
{
	struct codes *c = &r->codes;
	default_codes(c);
	int rc = load_codes(r, "ENUM_CUDA_MEM_KIND", NAMES(mem_names), KG_MEM_UNKNOWN, c->mem);
	if (!rc)
		rc = load_codes(r, "ENUM_CUDA_MEMCPY_OPER", NAMES(copy_names), KG_COPY_UNKNOWN,
				c->copy);
	if (!rc)
		rc = load_codes(r, "ENUM_CUPTI_SYNC_TYPE", NAMES(sync_names), KG_SYNC_UNKNOWN,
				c->sync);
	if (!rc)
		rc = load_codes(r, "ENUM_CUPTI_STREAM_TYPE", NAMES(stream_names), KG_STREAM_UNKNOWN,
				c->stream);
	/* a class it does not know is some other API (OS runtime, cuDNN...) or a backtrace */
	if (!rc && has_table(r, "ENUM_NSYS_EVENT_CLASS")) /* its numbering, not the default's */
		memset(c->evclass, EVC_UNKNOWN, sizeof(c->evclass));
	if (!rc)
		rc = load_codes(r, "ENUM_NSYS_EVENT_CLASS", NAMES(class_names), -1, c->evclass);
	if (!rc)
		rc = load_codes(r, "ENUM_NSYS_EVENT_TYPE", NAMES(nvtx_names), NV_NONE, c->nvtx);
	if (!rc)
		rc = load_codes(r, "ENUM_SAMPLING_THREAD_STATE", NAMES(state_names),
				KG_HOST_STATE_UNKNOWN, c->state);
	return rc;
}

/* ------------------------------------------------------------------ the file */

/* A truncated copy still opens, and SQLite fails only when a read reaches past the cut,
 * if ever: compare the size the header promises with the file's, up front. */
static int check_file(struct nsys_reader *r)
{
	int fd = uncompress_open(r->path); /* a compressed export's decompressed copy */
	if (fd < 0) {
		int e = errno;
		snprintf(r->err, r->errlen, "cannot open '%s': %s", r->path, strerror(e));
		return -e;
	}
	uint64_t promised, has;
	int sqlite = trace_db_sqlite_size(fd, &promised, &has) == 0;
	close(fd);
	if (!sqlite) {
		snprintf(r->err, r->errlen, "'%s' is not an SQLite database (" EXPECTED ")",
			 r->path);
		return -EINVAL;
	}
	if (promised > has) {
		snprintf(r->err, r->errlen,
			 "'%s' is truncated: its SQLite header promises %llu bytes, the file "
			 "has %llu", r->path, (unsigned long long)promised, (unsigned long long)has);
		return -EIO;
	}
	return 0;
}

/* Refuses files that are not nsys exports, naming what they look like instead. */
static int check_tables(struct nsys_reader *r)
{
	static const char *const activity[] = {
		"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
		"CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"};
	int any = 0;
	for (size_t i = 0; i < sizeof(activity) / sizeof(activity[0]); i++)
		any |= has_table(r, activity[i]);
	if (sqlite3_errcode(r->db) == SQLITE_NOTADB || sqlite3_errcode(r->db) == SQLITE_CORRUPT)
		return db_error(r, "its table list");
	if (any)
		return 0;
	if (has_table(r, "StringTable"))
		snprintf(r->err, r->errlen,
			 "'%s' is an nvprof export, not Nsight Systems' (" EXPECTED ")", r->path);
	else if (has_table(r, "StringIds") || has_table(r, "META_DATA_EXPORT"))
		snprintf(r->err, r->errlen,
			 "'%s': an Nsight Systems export without CUDA or NVTX data (profile with "
			 "nsys profile --trace=cuda,nvtx)", r->path);
	else
		snprintf(r->err, r->errlen,
			 "'%s': no table CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME "
			 "or NVTX_EVENTS (" EXPECTED ", from nsys export --type sqlite)", r->path);
	return -EINVAL;
}

static void read_version(struct nsys_reader *r)
{
	static const char sql[] =
		"SELECT value FROM META_DATA_EXPORT WHERE name='EXPORT_SCHEMA_VERSION'";
	sqlite3_stmt *st;
	if (!has_table(r, "META_DATA_EXPORT") ||
	    sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		if (v && atoi(v) != 3) /* a new major version re-does the whole layout */
			model_note(r->m, "Nsight Systems export schema %s: kgantt knows 3.x", v);
	}
	sqlite3_finalize(st);
}

static int open_strings(struct nsys_reader *r)
{
	r->has_strings = has_table(r, "StringIds");
	if (!r->has_strings) {
		model_note(r->m, "no StringIds table: kernel, API and NVTX names are unknown");
		return 0;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, "SELECT MAX(id), COUNT(*) FROM StringIds", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_error(r, "StringIds");
	int64_t max = 0, count = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		max = sqlite3_column_int64(st, 0);
		count = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	/* ids are dense from 0; a cache beyond 64M entries is not worth its memory, nor one
	 * sized by ids far sparser than the strings there are (a damaged file: 4 bytes per
	 * id, touched at once) */
	r->nstr = max >= 0 && max < (1 << 26) && max <= 2 * count + 1024 ? (size_t)max + 1 : 0;
	r->str = malloc((r->nstr ? r->nstr : 1) * sizeof(*r->str));
	if (!r->str)
		return oom(r);
	memset(r->str, 0xff, r->nstr * sizeof(*r->str));
	if (sqlite3_prepare_v2(r->db, "SELECT value FROM StringIds WHERE id=?", -1, &r->str_st,
			       NULL) != SQLITE_OK)
		return db_error(r, "StringIds");
	return 0;
}

/* Rows of the big tables, for progress: max(rowid) costs a b-tree descent, not a scan. */
static void count_rows(struct nsys_reader *r)
{
	static const char *const tables[] = {
		"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
		"CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME",
		"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS",
		"NVTX_EVENTS", "COMPOSITE_EVENTS"}; /* NVTX_EVENTS is read twice: domains first */
	if (!r->opts || !r->opts->progress)
		return;
	for (size_t i = 0; i < sizeof(tables) / sizeof(*tables); i++) {
		char sql[128];
		sqlite3_stmt *st;
		snprintf(sql, sizeof(sql), "SELECT MAX(rowid) FROM \"%s\"", tables[i]);
		if (!has_table(r, tables[i]) ||
		    sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
			continue;
		if (sqlite3_step(st) == SQLITE_ROW)
			r->rows_total += (double)sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
}

static int read_info(struct nsys_reader *r)
{
	static const struct col name_cols[] = {{"globalPid", 1}, {"name", 0}};
	int rc = EACH(r, "PROCESSES", name_cols, on_process_name);
	if (!rc)
		rc = EACH(r, !has_column(r, "TARGET_INFO_GPU", "id") &&
				     has_table(r, "TARGET_INFO_CUDA_GPU") ? "TARGET_INFO_CUDA_GPU"
									  : "TARGET_INFO_GPU",
			  gpu_cols, on_gpu);
	if (!rc)
		rc = EACH(r, "TARGET_INFO_CUDA_DEVICE", cuda_dev_cols, on_cuda_device);
	return rc;
}

static int read_activity(struct nsys_reader *r)
{
	int rc = EACH(r, "CUPTI_ACTIVITY_KIND_KERNEL", kernel_cols, on_kernel);
	if (!rc)
		rc = EACH(r, "CUPTI_ACTIVITY_KIND_MEMCPY", memcpy_cols, on_memcpy);
	if (!rc)
		rc = EACH(r, "CUPTI_ACTIVITY_KIND_MEMSET", memset_cols, on_memset);
	if (!rc)
		rc = EACH(r, "CUPTI_ACTIVITY_KIND_RUNTIME", api_cols, on_api);
	if (!rc)
		rc = EACH(r, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", sync_cols, on_sync);
	/* two passes: the row that names a domain need not come before the ranges in it */
	if (!rc)
		rc = EACH(r, "NVTX_EVENTS", nvtx_cols, on_nvtx_domain);
	if (!rc)
		rc = EACH(r, "NVTX_EVENTS", nvtx_cols, on_nvtx);
	return rc;
}

static int read_host(struct nsys_reader *r)
{
	sqlite3_stmt *st;
	if (!has_table(r, "TARGET_INFO_SYSTEM_ENV") ||
	    sqlite3_prepare_v2(r->db,
			       "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name='Hostname'", -1,
			       &st, NULL) != SQLITE_OK)
		return 0;
	uint32_t host = sqlite3_step(st) == SQLITE_ROW ? text_col(r, st, 0) : 0;
	sqlite3_finalize(st);
	for (uint32_t i = 0; i < r->m->n_processes; i++)
		r->m->processes[i].host = host;
	return 0;
}

static int read_all(struct nsys_reader *r)
{
	int rc = check_tables(r);
	if (!rc) {
		read_version(r);
		rc = open_strings(r);
	}
	if (!rc)
		rc = read_codes(r);
	if (!rc)
		rc = read_info(r);
	count_rows(r);
	if (!rc)
		rc = read_activity(r);
	if (!rc)
		rc = EACH(r, "TARGET_INFO_CUDA_CONTEXT_INFO", context_cols, on_context);
	if (!rc)
		rc = EACH(r, "TARGET_INFO_CUDA_STREAM", stream_cols, on_stream);
	if (!rc)
		rc = read_samples(r);
	if (!rc)
		rc = name_threads(r);
	if (!rc)
		rc = read_host(r);
	if (!rc)
		rc = link_calls(r);
	if (!rc)
		rc = read_callchains(r);
	return rc;
}

static void add_notes(struct nsys_reader *r)
{
	if (r->skipped_ops)
		model_note(r->m, "%llu GPU operations without timestamps were skipped",
			   (unsigned long long)r->skipped_ops);
	if (r->skipped_apis)
		model_note(r->m, "%llu CUDA API rows without a start or not calls (backtraces) "
			   "were skipped", (unsigned long long)r->skipped_apis);
	if (r->no_strings)
		model_note(r->m, "%llu names refer to ids missing from StringIds",
			   (unsigned long long)r->no_strings);
	if (r->bad_chains)
		model_note(r->m, "%llu CUDA API calls name a backtrace (callchainId) that "
			   "CUDA_CALLCHAINS does not have", (unsigned long long)r->bad_chains);
	if (r->bad_samples)
		model_note(r->m, "%llu CPU samples (COMPOSITE_EVENTS) without an id, a time or a "
			   "thread, or with an id seen before, were left out",
			   (unsigned long long)r->bad_samples);
}

int read_nsys(struct kg_model *m, const char *path, const struct kg_load_opts *opts, char *err,
	      size_t errlen)
{
	struct nsys_reader r = {.m = m, .path = path, .err = err, .errlen = errlen, .opts = opts,
				.last_proc = KG_NONE, .last_dev = KG_NONE,
				.last_stream.index = KG_NONE, .last_thread.index = KG_NONE};
	int rc = check_file(&r);
	if (rc)
		return rc;
	/* one thread uses the connection: no mutex around every sqlite3_column_*() call */
	if (sqlite3_open_v2(path, &r.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 r.db ? sqlite3_errmsg(r.db) : "out of memory");
		sqlite3_close(r.db);
		return -EIO;
	}
	/* read the pages in place rather than copying each into SQLite's cache */
	sqlite3_exec(r.db, "PRAGMA mmap_size=1073741824", NULL, NULL, NULL);
	snprintf(m->source, sizeof(m->source), "nsys");
	rc = read_all(&r);
	if (!rc) {
		add_notes(&r);
		if (r.opts && r.opts->progress)
			r.opts->progress(1.0, r.opts->progress_arg);
	}
	sqlite3_finalize(r.str_st);
	sqlite3_close(r.db);
	free(r.str);
	free(r.gpus);
	free(r.cuda_devs);
	idmap_free(&r.procs);
	idmap_free(&r.proc_names);
	idmap_free(&r.devs);
	idmap_free(&r.domains);
	idmap_free(&r.chain_ids);
	idmap_free(&r.symbols);
	idmap_free(&r.sample_ids);
	free(r.refs);
	free(r.chains);
	free(r.cframes);
	return rc;
}
