#include "trace/spool_import.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder/raw_format.h"
#include "trace/columns.h"
#include "trace/packed.h"
#include "trace/schema.h"
#include "trace/hooked_import.h"
#include "util/api_names.h"
#include "trace/host_import.h"
#include "trace/hw_import.h"
#include "trace/sm_import.h"
#include "trace/stack_import.h"
#include "util/demangle.h"
#include "util/timemath.h"
#include "util/tracer_work.h"

enum {
	ST_STRING, ST_PROCESS, ST_MESSAGE, ST_DEVICE, ST_CONTEXT, ST_STREAM, ST_MEMCPY,
	ST_MEMSET, ST_SYNC, ST_NVTX_OPEN, ST_NVTX_CLOSE, ST_OVERHEAD, ST_DROPPED, ST_CAPTURE,
	ST_LAUNCH_SETTINGS,
	ST_COUNT
};

#define DEVICE_OP_COLUMNS                                                                  \
	"process, device, context, stream, correlation, bytes, start, end, async, channel, " \
	"channel_type, graph, graph_node, incomplete"
#define DEVICE_OP_NCOLUMNS 14

static const char *const stmt_sql[ST_COUNT] = {
	[ST_STRING] = "INSERT INTO strings(id, text) VALUES(?,?)",
	[ST_PROCESS] = "INSERT INTO processes(process, pid, ppid, host, exe, cmdline, rank, "
		       "start_ns, end_ns, realtime_offset_ns, mode, latency_timestamps, "
		       "cupti_api_version, complete, dropped_records, incomplete_records, "
		       "late_buffers, spool_note) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_MESSAGE] = "INSERT INTO messages VALUES(?,?,?,?)",
	[ST_DEVICE] = "INSERT OR REPLACE INTO devices VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
		      "?,?,?,?,?)",
	[ST_CONTEXT] = "INSERT OR REPLACE INTO contexts VALUES(?,?,?,?,?)",
	[ST_STREAM] = "INSERT OR REPLACE INTO streams VALUES(?,?,?,?,?,?)",
	/* copies and memsets: their shared columns first (DEVICE_OP_COLUMNS), in one order */
	[ST_MEMCPY] = "INSERT INTO memcpys(" DEVICE_OP_COLUMNS ", dst_device, copy_kind, "
		      "src_kind, dst_kind) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_MEMSET] = "INSERT INTO memsets(" DEVICE_OP_COLUMNS ", value, memory_kind) "
		      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_SYNC] = "INSERT INTO syncs VALUES(NULL,?,?,?,?,?,?,?,?,?,?)",
	[ST_NVTX_OPEN] = "INSERT INTO nvtx VALUES(NULL,?,?,?,?,?,?,?)",
	[ST_NVTX_CLOSE] = "UPDATE nvtx SET end = ?, end_thread = ? WHERE id = ?",
	[ST_OVERHEAD] = "INSERT INTO overheads VALUES(?,?,?,?,?,?,?)",
	[ST_DROPPED] = "INSERT INTO dropped VALUES(?,?,?,?,?)",
	[ST_CAPTURE] = "INSERT INTO captures VALUES(?,?,?,?)",
	[ST_LAUNCH_SETTINGS] = "INSERT OR REPLACE INTO launch_settings VALUES(?,?,?,?,?)",
};

static int fail(struct kg_import *im, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct kg_import *im, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(im->err, sizeof(im->err), fmt, ap);
	va_end(ap);
	return code;
}

static int sql_fail(struct kg_import *im, const char *what)
{
	return fail(im, -EIO, "cannot write '%s' (%s): %s", im->path, what,
		    sqlite3_errmsg(im->db));
}

static int exec_sql(struct kg_import *im, const char *sql, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(im->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fail(im, -EIO, "cannot write '%s' (%s): %s", im->path, what,
		     msg ? msg : "?");
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

/* Kernels, API calls and host samples, most of what a spool holds, go to blocks as they
 * come (packed_stream): as SQL rows, even in a temp table, they cost the import their
 * inserts, trace_pack's reading them back and a scratch file as big as they are. Their
 * temp tables give the streams the order of their columns, then go: nothing may read
 * them. */
static const char *const stream_table[KG_IM_STREAMS] = {"kernels", "api_calls",
							"host_samples"};

static int open_streams(struct kg_import *im)
{
	char why[400], sql[64];
	for (int i = 0; i < KG_IM_STREAMS; i++) {
		int rc = packed_stream_open(im->db, stream_table[i], &im->stream[i], why,
					    sizeof(why));
		if (rc)
			return fail(im, rc < 0 ? rc : -EIO, "cannot write '%s': %s", im->path,
				    rc < 0 ? why : "no rows table");
		snprintf(sql, sizeof(sql), "DROP TABLE temp.%s", stream_table[i]);
		if ((rc = exec_sql(im, sql, stream_table[i])) != 0)
			return rc;
	}
	return 0;
}

/* The rows not yet in a block. */
static int finish_streams(struct kg_import *im)
{
	for (int i = 0; i < KG_IM_STREAMS; i++) {
		int rc = packed_stream_finish(im->stream[i]);
		if (rc == -EIO)
			return sql_fail(im, stream_table[i]);
		if (rc)
			return fail(im, rc, "cannot write '%s': out of memory", im->path);
	}
	return 0;
}

int import_begin(struct kg_import *im, const char *out_path, const char *command)
{
	memset(im, 0, sizeof(*im));
	strtab_init(&im->strings);
	snprintf(im->path, sizeof(im->path), "%s", out_path);
	/* Built in a temporary file beside it and renamed at the end (util/outfile.h): a
	 * crash, an error or Ctrl-C never leaves a half-written file under the name the
	 * user asked for, nor replaces the file that was there. */
	/* durable: record removes the spools once the trace is written */
	struct kg_outfile_opts oo = {.what = "the trace", .flags = KG_OUT_DURABLE};
	const char *tmp = outfile_open_path(&im->out, out_path, &oo);
	if (!tmp)
		return fail(im, -EIO, "%s", im->out.err);
	/* one thread per connection: no SQLite mutexes (a fifth of the time of a big import) */
	if (sqlite3_open_v2(tmp, &im->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		int rc = fail(im, -EIO, "cannot create '%s': %s", out_path,
			      im->db ? sqlite3_errmsg(im->db) : "out of memory");
		sqlite3_close(im->db);
		im->db = NULL;
		outfile_abort(&im->out);
		return rc;
	}
	/* 16 MiB of page cache each: nothing here reads a table twice (rows are appended,
	 * the packed blocks written once), so a cache as big as the trace buys no time, only
	 * memory (256 MiB each made 300 MB of the import's); it also sizes the sorter's runs
	 * when the indexes are built at the end. */
	char setup[200];
	snprintf(setup, sizeof(setup),
		 "PRAGMA page_size=%d; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
		 "PRAGMA cache_size=-16384; PRAGMA temp.cache_size=-16384; BEGIN;",
		 KG_TRACE_PAGE_SIZE);
	int rc = exec_sql(im, setup, "set-up");
	if (!rc)
		rc = exec_sql(im, kg_schema_sql, "schema");
	/* the packed tables' rows in temp (never in the trace's file): hardware samples stay
	 * there until import_commit packs them; kernels and API calls never do */
	if (!rc && trace_create_rows(im->db, "temp") != SQLITE_OK)
		rc = sql_fail(im, "schema");
	if (!rc)
		rc = open_streams(im);
	for (int i = 0; !rc && i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(im->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &im->st[i],
				       NULL) != SQLITE_OK)
			rc = sql_fail(im, stmt_sql[i]);
	if (!rc && trace_write_meta(im->db, "CLOCK_MONOTONIC_RAW", "kgantt-record", command) !=
			   SQLITE_OK)
		rc = sql_fail(im, "meta");
	if (rc)
		import_abort(im);
	return rc;
}

/* The statements the import holds: the database closes only without them. */
static void finalize_all(struct kg_import *im)
{
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(im->st[i]);
	memset(im->st, 0, sizeof(im->st));
	for (int i = 0; i < KG_IM_STREAMS; i++) {
		packed_stream_free(im->stream[i]);
		im->stream[i] = NULL;
	}
}

void import_abort(struct kg_import *im)
{
	finalize_all(im);
	if (im->db)
		sqlite3_close(im->db);
	im->db = NULL;
	outfile_abort(&im->out); /* nothing left to remove after a commit */
	strtab_free(&im->strings);
	free(im->demangled);
	im->demangled = NULL;
	free(im->procs);
	im->procs = NULL;
}

int import_commit(struct kg_import *im)
{
	int rc = finish_streams(im);
	if (!rc)
		rc = exec_sql(im, kg_index_sql, "indexes");
	char why[400];
	if (!rc && (rc = trace_pack(im->db, why, sizeof(why))) < 0)
		fail(im, rc, "cannot write '%s': %s", im->path, why);
	if (!rc)
		rc = exec_sql(im, "COMMIT;", "commit");
	finalize_all(im);
	if (!rc && sqlite3_close(im->db) != SQLITE_OK)
		rc = sql_fail(im, "close");
	if (!rc)
		im->db = NULL;
	if (!rc && (rc = outfile_commit(&im->out)) < 0)
		fail(im, rc, "%s", im->out.err);
	import_abort(im); /* frees the rest; after a commit nothing is left to remove */
	return rc;
}

/* ------------------------------------------------------------------ strings */

int64_t import_string(struct kg_import *im, const char *text)
{
	if (!text)
		return 0;
	int added = 0;
	uint32_t id = strtab_intern(&im->strings, text, strlen(text), &added);
	if (!id)
		return -ENOMEM;
	if (added) {
		sqlite3_stmt *st = im->st[ST_STRING];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
		int rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return sql_fail(im, "strings");
	}
	return id;
}

/* Demangled form of a kernel name, computed once per distinct name. Returns the name
 * itself when it is not a mangled C++ name. */
static int64_t demangled_id(struct kg_import *im, int64_t name_id)
{
	if (name_id <= 0)
		return name_id;
	if ((size_t)name_id >= im->demangled_cap) {
		size_t cap = im->demangled_cap ? im->demangled_cap : 1024;
		while (cap <= (size_t)name_id)
			cap *= 2;
		uint32_t *d = realloc(im->demangled, cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		memset(d + im->demangled_cap, 0, (cap - im->demangled_cap) * sizeof(*d));
		im->demangled = d;
		im->demangled_cap = cap;
	}
	if (!im->demangled[name_id]) {
		const char *name = strtab_get(&im->strings, (uint32_t)name_id);
		char *dem = demangle(name);
		int64_t id = dem ? import_string(im, dem) : name_id;
		free(dem);
		if (id < 0)
			return id;
		im->demangled[name_id] = (uint32_t)id;
	}
	return im->demangled[name_id];
}

/* ------------------------------------------------------------------ one spool */

struct spool_reader {
	struct kg_import *im;
	const char *path;
	const uint8_t *data;
	size_t size, off;
	size_t released;       /* bytes of data from its start whose pages were given back */
	size_t page;           /* the system's page size */
	uint32_t *smap;        /* spool string id -> global id */
	size_t smap_cap;
	struct kg_import_process *proc;
	int64_t process;
	int64_t first_kernel;  /* id of the process's first kernel */
	uint64_t last_ts;
	/* open NVTX ranges: marker id -> nvtx row id (open addressing, id+1 as key) */
	uint64_t *open_keys;
	int64_t *open_rows;
	size_t open_cap, open_count;
	struct kg_stack_import *stacks; /* made at the first stack record */
	struct kg_hw_import *hw;        /* made at the first hardware-sample record */
	struct kg_sm_import *sm;        /* made at the first SM placement record */
	struct kg_host_import *host;    /* made at the first host-sample record */
	struct kg_hooked_import *hooked; /* made when the launch hook sampled the launches */
	/* the recorder's timed stacks of hooked launch calls, kept until the calls have
	 * their kernels' ids (finish_hooked) */
	struct kg_raw_overhead *held;
	size_t n_held, cap_held;
};

static int64_t spool_str(struct spool_reader *r, uint32_t sid)
{
	if (sid == 0 || sid >= r->smap_cap)
		return 0;
	return r->smap[sid];
}

static const char *spool_text(struct spool_reader *r, uint32_t sid)
{
	int64_t g = spool_str(r, sid);
	return g > 0 ? strtab_get(&r->im->strings, (uint32_t)g) : NULL;
}

/* 0 and all-ones are CUPTI's "unknown": NULL in the trace. */
static int known_ts(uint64_t ts)
{
	return ts != 0 && ts != UINT64_MAX;
}

void import_bind_ts(sqlite3_stmt *st, int col, uint64_t ts)
{
	if (known_ts(ts))
		sqlite3_bind_int64(st, col, (int64_t)ts);
	else
		sqlite3_bind_null(st, col);
}

/* A row for a packed stream, value by value as an INSERT binds them. */
static void put(struct kg_row *row, int col, int64_t v)
{
	row->v[col] = v;
}

static void put_null(struct kg_row *row, int col)
{
	row->v[col] = 0; /* as sqlite3_column_int64 reads a NULL */
	row->nulls |= 1ull << col;
}

static void put_opt_ts(struct kg_row *row, int col, uint64_t ts)
{
	if (known_ts(ts))
		put(row, col, (int64_t)ts);
	else
		put_null(row, col);
}

int import_add_row(struct kg_import *im, int which, struct kg_row *row, int ncolumns)
{
	struct kg_packed_stream *s = im->stream[which];
	if (ncolumns != packed_stream_columns(s)) /* the schema changed, this did not */
		return fail(im, -EINVAL, "cannot write '%s': the importer gives %d columns of %s, "
			    "the table has %d", im->path, ncolumns, stream_table[which],
			    packed_stream_columns(s));
	int64_t id = ++im->rows[which];
	put(row, 0, id);
	int rc = packed_stream_add(s, row, id);
	return rc == -EIO ? sql_fail(im, stream_table[which]) : rc;
}

static int incomplete(const struct kg_raw_hdr *h)
{
	return (h->flags & KG_RAW_F_INCOMPLETE) != 0;
}

void import_bind_text(sqlite3_stmt *st, int col, const char *s)
{
	if (s)
		sqlite3_bind_text(st, col, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, col);
}

static int step(struct spool_reader *r, int which, const char *what)
{
	sqlite3_stmt *st = r->im->st[which];
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(r->im, what);
}

static void note_ts(struct spool_reader *r, uint64_t ts)
{
	if (ts != UINT64_MAX && ts > r->last_ts)
		r->last_ts = ts;
}

static int on_string(struct spool_reader *r, const struct kg_raw_string *s, size_t size)
{
	if (sizeof(*s) + s->len + 1 > size || s->text[s->len] != '\0')
		return fail(r->im, -EINVAL,
			    "'%s': string record at byte %zu: length %u does not fit its record",
			    r->path, r->off, s->len);
	/* The recorder numbers strings 1, 2, 3... in record order, so no id exceeds the
	 * number of string records the file holds: a larger one is damage, and must not
	 * size the table (4 bytes per id: 16 GiB for a 40-byte spool). */
	if (s->id > r->size / sizeof(*s))
		return fail(r->im, -EINVAL,
			    "'%s': string record at byte %zu: id %u, but a spool of %zu bytes holds "
			    "at most %zu strings",
			    r->path, r->off, s->id, r->size, r->size / sizeof(*s));
	if (s->id >= r->smap_cap) {
		size_t cap = r->smap_cap ? r->smap_cap : 1024;
		while (cap <= s->id)
			cap *= 2;
		uint32_t *m = realloc(r->smap, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		memset(m + r->smap_cap, 0, (cap - r->smap_cap) * sizeof(*m));
		r->smap = m;
		r->smap_cap = cap;
	}
	int64_t g = import_string(r->im, s->text);
	if (g < 0)
		return (int)g;
	r->smap[s->id] = (uint32_t)g;
	return 0;
}

static int new_process(struct spool_reader *r, const struct kg_raw_process *p)
{
	struct kg_import *im = r->im;
	if (im->nprocs == im->procs_cap) {
		size_t cap = im->procs_cap ? im->procs_cap * 2 : 16;
		struct kg_import_process *n = realloc(im->procs, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		im->procs = n;
		im->procs_cap = cap;
	}
	struct kg_import_process *ip = &im->procs[im->nprocs++];
	memset(ip, 0, sizeof(*ip));
	ip->process = (int64_t)im->nprocs;
	ip->pid = p->pid;
	ip->start_ns = p->start_ns;
	snprintf(ip->host, sizeof(ip->host), "%s", spool_text(r, p->host_str) ?: "");
	r->proc = ip;
	r->process = ip->process;
	r->first_kernel = im->rows[KG_IM_KERNELS] + 1;

	sqlite3_stmt *st = im->st[ST_PROCESS];
	sqlite3_bind_int64(st, 1, ip->process);
	sqlite3_bind_int64(st, 2, p->pid);
	sqlite3_bind_int64(st, 3, p->ppid);
	import_bind_text(st, 4, spool_text(r, p->host_str));
	import_bind_text(st, 5, spool_text(r, p->exe_str));
	import_bind_text(st, 6, spool_text(r, p->cmdline_str));
	import_bind_text(st, 7, spool_text(r, p->rank_str));
	sqlite3_bind_int64(st, 8, (int64_t)p->start_ns);
	sqlite3_bind_null(st, 9); /* end_ns: filled in when the spool has been read */
	sqlite3_bind_int64(st, 10, (int64_t)(p->start_realtime_ns - p->start_ns));
	sqlite3_bind_text(st, 11, p->mode == KG_MODE_KERNELS ? "kernels" : "full", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(st, 12, p->latency_timestamps);
	sqlite3_bind_int64(st, 13, p->cupti_api_version);
	sqlite3_bind_int64(st, 14, 0);
	sqlite3_bind_int64(st, 15, 0);
	sqlite3_bind_int64(st, 16, 0);
	sqlite3_bind_null(st, 17);
	sqlite3_bind_null(st, 18);
	r->last_ts = p->start_ns;
	return step(r, ST_PROCESS, "processes");
}

/* A row of the process's messages: level one of "info", "warning", "error". */
static int add_message(struct spool_reader *r, uint64_t ts, const char *level, const char *text)
{
	sqlite3_stmt *st = r->im->st[ST_MESSAGE];
	sqlite3_bind_int64(st, 1, r->process);
	sqlite3_bind_int64(st, 2, (int64_t)ts);
	sqlite3_bind_text(st, 3, level, -1, SQLITE_STATIC);
	import_bind_text(st, 4, text);
	return step(r, ST_MESSAGE, "messages");
}

static int on_status(struct spool_reader *r, const struct kg_raw_status *s)
{
	static const char *const levels[] = {"info", "warning", "error"};
	const char *text = spool_text(r, s->text_str);
	if (s->level >= KG_STATUS_ERROR && !r->proc->error_messages++)
		snprintf(r->proc->first_error, sizeof(r->proc->first_error), "%s", text ?: "");
	return add_message(r, s->ts, s->level < 3 ? levels[s->level] : "info", text);
}

static void uuid_text(const uint8_t u[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	char *o = out;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		*o++ = hex[u[i] >> 4];
		*o++ = hex[u[i] & 15];
	}
	*o = '\0';
}

static int on_device(struct spool_reader *r, const struct kg_raw_device *d)
{
	sqlite3_stmt *st = r->im->st[ST_DEVICE];
	char uuid[37];
	uuid_text(d->uuid, uuid);
	int c = 1;
	sqlite3_bind_int64(st, c++, r->process);
	sqlite3_bind_int64(st, c++, d->device_id);
	import_bind_text(st, c++, spool_text(r, d->name_str));
	sqlite3_bind_text(st, c++, uuid, -1, SQLITE_TRANSIENT);
	const uint64_t vals[] = {d->sm_count, d->max_warps_per_sm, d->max_blocks_per_sm,
				 d->max_threads_per_block, d->max_regs_per_sm,
				 d->max_regs_per_block, d->max_smem_per_sm,
				 d->max_smem_per_block, d->threads_per_warp, d->cc_major,
				 d->cc_minor, d->core_clock_khz, d->global_memory_bytes,
				 d->global_memory_bandwidth_kbps, d->l2_bytes, d->copy_engines,
				 d->mig};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		sqlite3_bind_int64(st, c++, (int64_t)vals[i]);
	return step(r, ST_DEVICE, "devices");
}

static int on_context(struct spool_reader *r, const struct kg_raw_context *x)
{
	sqlite3_stmt *st = r->im->st[ST_CONTEXT];
	sqlite3_bind_int64(st, 1, r->process);
	sqlite3_bind_int64(st, 2, x->context_id);
	sqlite3_bind_int64(st, 3, x->device_id);
	sqlite3_bind_int64(st, 4, x->null_stream_id);
	sqlite3_bind_int64(st, 5, x->is_green);
	return step(r, ST_CONTEXT, "contexts");
}

static int on_stream(struct spool_reader *r, const struct kg_raw_stream *x)
{
	sqlite3_stmt *st = r->im->st[ST_STREAM];
	sqlite3_bind_int64(st, 1, r->process);
	sqlite3_bind_int64(st, 2, x->context_id);
	sqlite3_bind_int64(st, 3, x->stream_id);
	sqlite3_bind_int64(st, 4, x->priority);
	sqlite3_bind_int64(st, 5, x->flags);
	sqlite3_bind_int64(st, 6, x->correlation_id);
	return step(r, ST_STREAM, "streams");
}

static int on_kernel(struct spool_reader *r, const struct kg_raw_kernel *k)
{
	struct kg_row row = {.nulls = 0};
	int64_t name = spool_str(r, k->name_str);
	int64_t dem = demangled_id(r->im, name);
	if (dem < 0)
		return (int)dem;
	put(&row, KG_KS_process, r->process);
	put(&row, KG_KS_device, k->device_id);
	put(&row, KG_KS_context, k->context_id);
	put(&row, KG_KS_stream, k->stream_id);
	put(&row, KG_KS_correlation, k->correlation_id);
	put(&row, KG_KS_name, name);
	put(&row, KG_KS_demangled, dem);
	/* Graph kernels: CUPTI gives no submitted time, and its queued time is the graph
	 * launch's (for the first node, the previous launch's: seen on an H200, CUPTI
	 * 13.0). Neither is a per-kernel phase, so both are stored as unknown. */
	put_opt_ts(&row, KG_KS_queued, k->graph_id ? 0 : k->queued);
	put_opt_ts(&row, KG_KS_submitted, k->graph_id ? 0 : k->submitted);
	put_opt_ts(&row, KG_KS_start, k->start);
	put_opt_ts(&row, KG_KS_end, k->end);
	for (int i = 0; i < 3; i++) {
		put(&row, KG_KS_grid_x + i, k->grid[i]);
		put(&row, KG_KS_block_x + i, k->block[i]);
		put(&row, KG_KS_cluster_x + i, k->cluster[i]);
	}
	put(&row, KG_KS_registers_per_thread, k->regs_per_thread);
	put(&row, KG_KS_static_smem, k->static_smem);
	put(&row, KG_KS_dynamic_smem, k->dynamic_smem);
	put(&row, KG_KS_local_mem_per_thread, k->local_mem_per_thread);
	put(&row, KG_KS_local_mem_total, (int64_t)k->local_mem_total);
	put(&row, KG_KS_shared_mem_executed, k->shared_mem_executed);
	put(&row, KG_KS_channel, k->channel_id);
	put(&row, KG_KS_channel_type, k->channel_type);
	put(&row, KG_KS_launch_type, k->launch_type);
	if (k->graph_id) {
		put(&row, KG_KS_graph, k->graph_id);
		put(&row, KG_KS_graph_node, (int64_t)k->graph_node_id);
	} else {
		put_null(&row, KG_KS_graph);
		put_null(&row, KG_KS_graph_node);
	}
	put(&row, KG_KS_grid_id, k->grid_id);
	put(&row, KG_KS_device_launched, k->device_launched);
	put(&row, KG_KS_incomplete, incomplete(&k->h));
	note_ts(r, k->end);
	r->proc->kernels++;
	r->proc->incomplete += incomplete(&k->h);
	if (r->hooked && !k->graph_id && !k->device_launched &&
	    hooked_import_kernel(r->hooked, k->device_id, k->stream_id,
				 known_ts(k->queued) ? k->queued : 0,
				 known_ts(k->start) ? k->start : 0, k->correlation_id) < 0)
		return fail(r->im, -ENOMEM, "out of memory reading '%s'", r->path);
	return import_add_row(r->im, KG_IM_KERNELS, &row, KG_KERNEL_NCOLUMNS);
}

static void bind_graph(sqlite3_stmt *st, int col, uint32_t graph, uint64_t node)
{
	if (graph) {
		sqlite3_bind_int64(st, col, graph);
		sqlite3_bind_int64(st, col + 1, (int64_t)node);
	} else {
		sqlite3_bind_null(st, col);
		sqlite3_bind_null(st, col + 1);
	}
}

/* DEVICE_OP_COLUMNS of a raw copy or memset (the same fields by the same names). */
#define BIND_DEVICE_OP(st, r, m)                                                      \
	do {                                                                          \
		int c_ = 1;                                                           \
		sqlite3_bind_int64(st, c_++, (r)->process);                           \
		sqlite3_bind_int64(st, c_++, (m)->device_id);                         \
		sqlite3_bind_int64(st, c_++, (m)->context_id);                        \
		sqlite3_bind_int64(st, c_++, (m)->stream_id);                         \
		sqlite3_bind_int64(st, c_++, (m)->correlation_id);                    \
		sqlite3_bind_int64(st, c_++, (int64_t)(m)->bytes);                    \
		import_bind_ts(st, c_++, (m)->start);                                    \
		import_bind_ts(st, c_++, (m)->end);                                      \
		sqlite3_bind_int64(st, c_++, (m)->async);                             \
		sqlite3_bind_int64(st, c_++, (m)->channel_id);                        \
		sqlite3_bind_int64(st, c_++, (m)->channel_type);                      \
		bind_graph(st, c_, (m)->graph_id, (m)->graph_node_id);                \
		sqlite3_bind_int64(st, c_ + 2, incomplete(&(m)->h));                  \
		note_ts(r, (m)->end);                                                 \
		(r)->proc->incomplete += incomplete(&(m)->h);                         \
	} while (0)

static int on_memcpy(struct spool_reader *r, const struct kg_raw_memcpy *m)
{
	if (sm_import_own_copy(r->sm, m->correlation_id))
		return 0; /* a copy of an SM block log */
	sqlite3_stmt *st = r->im->st[ST_MEMCPY];
	BIND_DEVICE_OP(st, r, m);
	int c = DEVICE_OP_NCOLUMNS + 1;
	sqlite3_bind_int64(st, c++, m->dst_device_id);
	sqlite3_bind_int64(st, c++, m->copy_kind);
	sqlite3_bind_int64(st, c++, m->src_kind);
	sqlite3_bind_int64(st, c++, m->dst_kind);
	r->proc->memcpys++;
	return step(r, ST_MEMCPY, "memcpys");
}

static int on_memset(struct spool_reader *r, const struct kg_raw_memset *m)
{
	if (sm_import_own_copy(r->sm, m->correlation_id))
		return 0;
	sqlite3_stmt *st = r->im->st[ST_MEMSET];
	BIND_DEVICE_OP(st, r, m);
	int c = DEVICE_OP_NCOLUMNS + 1;
	sqlite3_bind_int64(st, c++, m->value);
	sqlite3_bind_int64(st, c++, m->memory_kind);
	r->proc->memsets++;
	return step(r, ST_MEMSET, "memsets");
}

static int on_sync(struct spool_reader *r, const struct kg_raw_sync *y)
{
	sqlite3_stmt *st = r->im->st[ST_SYNC];
	int c = 1;
	sqlite3_bind_int64(st, c++, r->process);
	sqlite3_bind_int64(st, c++, y->type);
	sqlite3_bind_int64(st, c++, y->context_id);
	/* CUPTI uses all-ones for "not a stream/event sync" */
	if (y->stream_id != UINT32_MAX)
		sqlite3_bind_int64(st, c++, y->stream_id);
	else
		sqlite3_bind_null(st, c++);
	if (y->event_id != UINT32_MAX)
		sqlite3_bind_int64(st, c++, y->event_id);
	else
		sqlite3_bind_null(st, c++);
	import_bind_ts(st, c++, y->start);
	import_bind_ts(st, c++, y->end);
	sqlite3_bind_int64(st, c++, y->correlation_id);
	sqlite3_bind_int64(st, c++, y->return_value);
	sqlite3_bind_int64(st, c++, incomplete(&y->h));
	note_ts(r, y->end);
	r->proc->syncs++;
	return step(r, ST_SYNC, "syncs");
}

static int add_api_row(struct spool_reader *r, const struct kg_raw_api *a)
{
	struct kg_row row = {.nulls = 0};
	put(&row, KG_AS_process, r->process);
	put(&row, KG_AS_thread, a->tid);
	put(&row, KG_AS_domain, a->domain);
	put(&row, KG_AS_cbid, a->cbid);
	put(&row, KG_AS_name, spool_str(r, a->name_str));
	put_opt_ts(&row, KG_AS_start, a->start);
	put_opt_ts(&row, KG_AS_end, a->end);
	put(&row, KG_AS_correlation, a->correlation_id);
	put(&row, KG_AS_return_value, a->return_value);
	put(&row, KG_AS_incomplete, incomplete(&a->h));
	note_ts(r, a->end);
	r->proc->api_calls++;
	r->proc->incomplete += incomplete(&a->h);
	return import_add_row(r->im, KG_IM_API_CALLS, &row, KG_API_NCOLUMNS);
}

/* The process's hooked calls and kernels, made at the first sign of the launch hook (its
 * launch settings, or a hooked call where those were lost); NULL when out of memory. */
static struct kg_hooked_import *hooked_of(struct spool_reader *r)
{
	if (!r->hooked && (r->hooked = hooked_import_new()) != NULL) {
		const char *match = getenv("KGANTT_DEV_MATCH");
		hooked_import_in_order_only(r->hooked, match && !strcmp(match, "order"));
	}
	return r->hooked;
}

static int on_api(struct spool_reader *r, const struct kg_raw_api *a)
{
	if (sm_import_own_api(r->sm, a->domain, a->cbid, a->correlation_id))
		return 0; /* the recorder reading SM block logs, not the program */
	if (a->correlation_id < KG_RAW_HOOKED_CORRELATION) {
		int edge = r->hooked ? api_capture_edge(spool_text(r, a->name_str)) : 0;
		if ((edge == 1 || edge == -1) &&
		    hooked_import_capture(r->hooked, a->tid, edge == 1 ? a->start : a->end,
					  edge == 1) < 0)
			return fail(r->im, -ENOMEM, "out of memory reading '%s'", r->path);
		return add_api_row(r, a);
	}
	/* a launch the launch hook saw: kept until its kernel can be found */
	if (!hooked_of(r) || hooked_import_call(r->hooked, a) < 0)
		return fail(r->im, -ENOMEM, "out of memory reading '%s'", r->path);
	return 0;
}

/* Streams whose launch calls could not be paired with their kernels, said in the trace. */
static int note_unmatched(struct spool_reader *r, struct kg_hooked_unmatched u)
{
	if (!u.streams)
		return 0;
	char text[256];
	snprintf(text, sizeof(text),
		 "%llu launch calls on %llu streams not paired with their %llu kernels (not as "
		 "many, or the kernels started before the calls): those kernels have no launch "
		 "time",
		 (unsigned long long)u.calls, (unsigned long long)u.streams,
		 (unsigned long long)u.kernels);
	return add_message(r, r->last_ts, "warning", text);
}

/* The hooked calls, given their kernels' correlation ids (and their call sites with
 * them), then written. */
static int finish_hooked(struct spool_reader *r)
{
	if (!hooked_import_ncalls(r->hooked))
		return 0;
	if (hooked_import_match(r->hooked) < 0)
		return fail(r->im, -ENOMEM, "out of memory matching the launch calls of '%s'",
			    r->path);
	stack_import_recorrelate(r->stacks, r->hooked);
	int rc = note_unmatched(r, hooked_import_unmatched(r->hooked));
	for (size_t i = 0; !rc && i < hooked_import_ncalls(r->hooked); i++)
		rc = add_api_row(r, hooked_import_call_at(r->hooked, i));
	return rc;
}

/* Open-range table: CUPTI gives a range's start and end as two records sharing an id. */
static int64_t *open_slot(struct spool_reader *r, uint32_t id, int insert)
{
	if (insert && (r->open_count + 1) * 2 > r->open_cap) {
		size_t cap = r->open_cap ? r->open_cap * 2 : 256;
		uint64_t *keys = calloc(cap, sizeof(*keys));
		int64_t *rows = calloc(cap, sizeof(*rows));
		if (!keys || !rows) {
			free(keys);
			free(rows);
			return NULL;
		}
		for (size_t i = 0; i < r->open_cap; i++) {
			if (!r->open_keys[i])
				continue;
			size_t j = (r->open_keys[i] * 0x9E3779B97F4A7C15ull) >> 40 & (cap - 1);
			while (keys[j])
				j = (j + 1) & (cap - 1);
			keys[j] = r->open_keys[i];
			rows[j] = r->open_rows[i];
		}
		free(r->open_keys);
		free(r->open_rows);
		r->open_keys = keys;
		r->open_rows = rows;
		r->open_cap = cap;
	}
	if (!r->open_cap)
		return NULL;
	uint64_t key = (uint64_t)id + 1;
	size_t j = (key * 0x9E3779B97F4A7C15ull) >> 40 & (r->open_cap - 1);
	while (r->open_keys[j] && r->open_keys[j] != key)
		j = (j + 1) & (r->open_cap - 1);
	if (!r->open_keys[j]) {
		if (!insert)
			return NULL;
		r->open_keys[j] = key;
		r->open_count++;
	}
	return &r->open_rows[j];
}

static int on_marker(struct spool_reader *r, const struct kg_raw_marker *m)
{
	note_ts(r, m->ts);
	if (m->kind == KG_MARK_END) {
		int64_t *row = open_slot(r, m->id, 0);
		if (!row || !*row)
			return 0; /* its start fell outside the capture window */
		sqlite3_stmt *st = r->im->st[ST_NVTX_CLOSE];
		sqlite3_bind_int64(st, 1, (int64_t)m->ts);
		sqlite3_bind_int64(st, 2, m->tid);
		sqlite3_bind_int64(st, 3, *row);
		*row = 0; /* ids may be reused after the range closed */
		return step(r, ST_NVTX_CLOSE, "nvtx");
	}
	sqlite3_stmt *st = r->im->st[ST_NVTX_OPEN];
	sqlite3_bind_int64(st, 1, r->process);
	sqlite3_bind_int64(st, 2, m->tid);
	sqlite3_bind_int64(st, 3, spool_str(r, m->domain_str));
	sqlite3_bind_int64(st, 4, spool_str(r, m->name_str));
	sqlite3_bind_int64(st, 5, (int64_t)m->ts);
	if (m->kind == KG_MARK_INSTANT) {
		sqlite3_bind_int64(st, 6, (int64_t)m->ts);
		sqlite3_bind_int64(st, 7, m->tid);
	} else {
		sqlite3_bind_null(st, 6);
		sqlite3_bind_null(st, 7);
	}
	int rc = step(r, ST_NVTX_OPEN, "nvtx");
	if (rc)
		return rc;
	r->proc->nvtx++;
	if (m->kind == KG_MARK_START) {
		int64_t *row = open_slot(r, m->id, 1);
		if (!row)
			return -ENOMEM;
		*row = sqlite3_last_insert_rowid(r->im->db);
	}
	return 0;
}

static int insert_overhead(struct spool_reader *r, const struct kg_raw_overhead *o)
{
	sqlite3_stmt *st = r->im->st[ST_OVERHEAD];
	sqlite3_bind_int64(st, 1, r->process);
	sqlite3_bind_int64(st, 2, o->kind);
	sqlite3_bind_int64(st, 3, o->object_kind);
	sqlite3_bind_int64(st, 4, o->object_id);
	import_bind_ts(st, 5, o->start);
	import_bind_ts(st, 6, o->end);
	sqlite3_bind_int64(st, 7, o->correlation_id);
	return step(r, ST_OVERHEAD, "overheads");
}

/* A stack the recorder timed for a hooked launch call names the call by the hook's own id,
 * which the call gives up for its kernel's at the process's end: held until then. */
static int on_overhead(struct spool_reader *r, const struct kg_raw_overhead *o)
{
	if (o->kind != KG_OVERHEAD_KGANTT_STACK || o->correlation_id < KG_RAW_HOOKED_CORRELATION)
		return insert_overhead(r, o);
	if (r->n_held == r->cap_held) {
		size_t cap = r->cap_held ? 2 * r->cap_held : 256;
		struct kg_raw_overhead *v = realloc(r->held, cap * sizeof(*v));
		if (!v)
			return fail(r->im, -ENOMEM, "out of memory reading '%s'", r->path);
		r->held = v;
		r->cap_held = cap;
	}
	r->held[r->n_held++] = *o;
	return 0;
}

/* The held stack times, each with its call's correlation id as matched. */
static int write_held(struct spool_reader *r)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < r->n_held; i++) {
		r->held[i].correlation_id =
			hooked_import_correlation(r->hooked, r->held[i].correlation_id);
		rc = insert_overhead(r, &r->held[i]);
	}
	r->n_held = 0;
	return rc;
}

static int on_dropped(struct spool_reader *r, const struct kg_raw_dropped *d)
{
	if (d->dropped_total > KG_MOST_RECORDS)
		return fail(r->im, -EINVAL, "'%s': a dropped record says %llu records were dropped, "
			    "which cannot be true (at most 2^48): the spool is damaged", r->path,
			    (unsigned long long)d->dropped_total);
	sqlite3_stmt *st = r->im->st[ST_DROPPED];
	sqlite3_bind_int64(st, 1, r->process);
	sqlite3_bind_int64(st, 2, (int64_t)d->ts);
	sqlite3_bind_int64(st, 3, d->context_id);
	sqlite3_bind_int64(st, 4, d->stream_id);
	sqlite3_bind_int64(st, 5, (int64_t)d->dropped_total);
	if (d->dropped_total > r->proc->dropped)
		r->proc->dropped = d->dropped_total;
	return step(r, ST_DROPPED, "dropped");
}

static int on_capture(struct spool_reader *r, const struct kg_raw_capture *c)
{
	sqlite3_stmt *st = r->im->st[ST_CAPTURE];
	sqlite3_bind_int64(st, 1, r->process);
	sqlite3_bind_int64(st, 2, (int64_t)c->ts);
	sqlite3_bind_int64(st, 3, c->on);
	import_bind_text(st, 4, spool_text(r, c->why_str));
	return step(r, ST_CAPTURE, "captures");
}

static int on_launch_settings(struct spool_reader *r, const struct kg_raw_launch_settings *x)
{
	sqlite3_stmt *st = r->im->st[ST_LAUNCH_SETTINGS];
	sqlite3_bind_int64(st, 1, r->process);
	sqlite3_bind_text(st, 2, x->sampled ? "sampled" : "all", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, x->window_on_ms);
	sqlite3_bind_int64(st, 4, x->window_period_ms);
	const char *how = spool_text(r, x->why_str);
	import_bind_text(st, 5, how);
	if (how && (!strcmp(how, KG_LAUNCHES_BY_HOOK) || !strcmp(how, KG_LAUNCHES_DATED_BY_HOOK)) &&
	    !hooked_of(r))
		return fail(r->im, -ENOMEM, "out of memory reading '%s'", r->path);
	return step(r, ST_LAUNCH_SETTINGS, "launch_settings");
}

/* Stack records go to stack_import.c, which keeps them until the process is finished. */
static int on_stack_record(struct spool_reader *r, const struct kg_raw_hdr *h)
{
	char why[256] = "";
	if (!r->stacks && !(r->stacks = stack_import_new()))
		return -ENOMEM;
	int rc = 0;
	switch (h->type) {
	case KG_RAW_STACK_SETTINGS: {
		const struct kg_raw_stack_settings *x = (const void *)h;
		rc = stack_import_settings(r->stacks, x, spool_text(r, x->python_str));
		break;
	}
	case KG_RAW_MODULE: {
		const struct kg_raw_module *x = (const void *)h;
		rc = stack_import_module(r->stacks, x, spool_text(r, x->path_str));
		break;
	}
	case KG_RAW_PYCODE: {
		const struct kg_raw_pycode *x = (const void *)h;
		rc = stack_import_pycode(r->stacks, x, h->size, spool_text(r, x->filename_str),
					 spool_text(r, x->qualname_str), why, sizeof(why));
		break;
	}
	case KG_RAW_STACK:
		rc = stack_import_stack(r->stacks, (const void *)h, h->size, why, sizeof(why));
		break;
	case KG_RAW_CALLSITES:
		rc = stack_import_callsites(r->stacks, (const void *)h, h->size, why, sizeof(why));
		break;
	}
	if (rc == -EINVAL)
		return fail(r->im, rc, "'%s': at byte %zu: %s", r->path, r->off, why);
	return rc;
}

/* Hardware samples (record --hw) go straight to their tables (trace/hw_import.c). */
static int on_hw_record(struct spool_reader *r, const struct kg_raw_hdr *h)
{
	if (!r->hw && !(r->hw = hw_import_new(r->im)))
		return r->im->err[0] ? -EIO : -ENOMEM;
	if (h->type == KG_RAW_HW_DEVICE) {
		const struct kg_raw_hw_device *x = (const void *)h;
		return hw_import_device(r->hw, r->process, x, spool_text(r, x->metric_str),
					spool_text(r, x->note_str));
	}
	char why[256] = "";
	int rc = hw_import_samples(r->hw, r->process, (const void *)h, h->size, why, sizeof(why));
	if (rc == -EINVAL)
		return fail(r->im, rc, "'%s': at byte %zu: %s", r->path, r->off, why);
	return rc;
}

/* Host samples (record --host-samples, trace/host_import.c): the samples to their blocks
 * as they come, naming the stacks as the trace will number them; the Python version
 * their line tables need goes to the stacks' importer, which has no other source of it
 * when call stacks are off. */
static int on_host_record(struct spool_reader *r, const struct kg_raw_hdr *h)
{
	struct kg_import *im = r->im;
	if (!r->host && !(r->host = host_import_new(im, r->process, r->proc)))
		return -ENOMEM;
	char why[256] = "";
	int rc = 0;
	switch (h->type) {
	case KG_RAW_HOST_SETTINGS: {
		const struct kg_raw_host_settings *x = (const void *)h;
		const char *python = spool_text(r, x->python_str);
		rc = host_import_settings(r->host, x, python, spool_text(r, x->note_str));
		if (!rc && x->python_version && !r->stacks && !(r->stacks = stack_import_new()))
			rc = -ENOMEM;
		if (!rc && x->python_version)
			rc = stack_import_python(r->stacks, x->python_version);
		break;
	}
	case KG_RAW_HOST_THREAD: {
		const struct kg_raw_host_thread *x = (const void *)h;
		rc = host_import_thread(r->host, x, spool_text(r, x->name_str), why, sizeof(why));
		break;
	}
	case KG_RAW_HOST_SAMPLES:
		rc = host_import_samples(r->host, (const void *)h, h->size, im->stacks_written, why,
					 sizeof(why));
		break;
	case KG_RAW_HOST_COUNTS: rc = host_import_counts(r->host, (const void *)h); break;
	}
	if (rc == -EINVAL && why[0])
		return fail(im, rc, "'%s': at byte %zu: %s", r->path, r->off, why);
	return rc;
}

/* SM placement (record --sm): kept until the process's kernels are all in (sm_import.c). */
static int on_sm_record(struct spool_reader *r, const struct kg_raw_hdr *h)
{
	if (!r->sm && !(r->sm = sm_import_new()))
		return -ENOMEM;
	if (h->type == KG_RAW_SM_OWN)
		return sm_import_own(r->sm, (const void *)h);
	char why[256] = "";
	int rc = sm_import_blocks(r->sm, (const void *)h, h->size, why, sizeof(why));
	if (rc == -EINVAL)
		return fail(r->im, rc, "'%s': at byte %zu: %s", r->path, r->off, why);
	return rc;
}

static const uint32_t min_size[KG_RAW_TYPE_MAX] = {
	[KG_RAW_PROCESS] = sizeof(struct kg_raw_process),
	[KG_RAW_STRING] = sizeof(struct kg_raw_string),
	[KG_RAW_STATUS] = sizeof(struct kg_raw_status),
	[KG_RAW_DEVICE] = sizeof(struct kg_raw_device),
	[KG_RAW_CONTEXT] = sizeof(struct kg_raw_context),
	[KG_RAW_STREAM] = sizeof(struct kg_raw_stream),
	[KG_RAW_KERNEL] = sizeof(struct kg_raw_kernel),
	[KG_RAW_MEMCPY] = sizeof(struct kg_raw_memcpy),
	[KG_RAW_MEMSET] = sizeof(struct kg_raw_memset),
	[KG_RAW_SYNC] = sizeof(struct kg_raw_sync),
	[KG_RAW_API] = sizeof(struct kg_raw_api),
	[KG_RAW_MARKER] = sizeof(struct kg_raw_marker),
	[KG_RAW_OVERHEAD] = sizeof(struct kg_raw_overhead),
	[KG_RAW_DROPPED] = sizeof(struct kg_raw_dropped),
	[KG_RAW_CAPTURE] = sizeof(struct kg_raw_capture),
	[KG_RAW_END] = sizeof(struct kg_raw_end),
	[KG_RAW_STACK_SETTINGS] = sizeof(struct kg_raw_stack_settings),
	[KG_RAW_MODULE] = sizeof(struct kg_raw_module),
	[KG_RAW_STACK] = sizeof(struct kg_raw_stack),
	[KG_RAW_CALLSITES] = sizeof(struct kg_raw_callsites),
	[KG_RAW_PYCODE] = sizeof(struct kg_raw_pycode),
	[KG_RAW_HW_DEVICE] = sizeof(struct kg_raw_hw_device),
	[KG_RAW_HW_SAMPLES] = sizeof(struct kg_raw_hw_samples),
	[KG_RAW_SM_BLOCKS] = sizeof(struct kg_raw_sm_blocks),
	[KG_RAW_SM_OWN] = sizeof(struct kg_raw_sm_own),
	[KG_RAW_HOST_SETTINGS] = sizeof(struct kg_raw_host_settings),
	[KG_RAW_HOST_THREAD] = sizeof(struct kg_raw_host_thread),
	[KG_RAW_HOST_SAMPLES] = sizeof(struct kg_raw_host_samples),
	[KG_RAW_HOST_COUNTS] = sizeof(struct kg_raw_host_counts),
	[KG_RAW_LAUNCH_SETTINGS] = sizeof(struct kg_raw_launch_settings),
	[KG_RAW_HOOKED_LAUNCH] = sizeof(struct kg_raw_hooked_launch),
};

static int on_record(struct spool_reader *r, const struct kg_raw_hdr *h, int *ended,
		     const struct kg_raw_end **end)
{
	if (h->type == KG_RAW_STRING)
		return on_string(r, (const void *)h, h->size);
	if (!r->proc && h->type != KG_RAW_PROCESS)
		return fail(r->im, -EINVAL,
			    "'%s': record of type %u at byte %zu comes before the process record",
			    r->path, h->type, r->off);
	switch (h->type) {
	case KG_RAW_PROCESS:
		if (r->proc)
			return fail(r->im, -EINVAL, "'%s': second process record at byte %zu",
				    r->path, r->off);
		return new_process(r, (const void *)h);
	case KG_RAW_STATUS: return on_status(r, (const void *)h);
	case KG_RAW_DEVICE: return on_device(r, (const void *)h);
	case KG_RAW_CONTEXT: return on_context(r, (const void *)h);
	case KG_RAW_STREAM: return on_stream(r, (const void *)h);
	case KG_RAW_KERNEL: return on_kernel(r, (const void *)h);
	case KG_RAW_MEMCPY: return on_memcpy(r, (const void *)h);
	case KG_RAW_MEMSET: return on_memset(r, (const void *)h);
	case KG_RAW_SYNC: return on_sync(r, (const void *)h);
	case KG_RAW_API: return on_api(r, (const void *)h);
	case KG_RAW_MARKER: return on_marker(r, (const void *)h);
	case KG_RAW_OVERHEAD: return on_overhead(r, (const void *)h);
	case KG_RAW_DROPPED: return on_dropped(r, (const void *)h);
	case KG_RAW_CAPTURE: return on_capture(r, (const void *)h);
	case KG_RAW_LAUNCH_SETTINGS: return on_launch_settings(r, (const void *)h);
	case KG_RAW_HOOKED_LAUNCH:
		if (r->hooked)
			hooked_import_stream(r->hooked, (const void *)h);
		return 0;
	case KG_RAW_STACK_SETTINGS:
	case KG_RAW_MODULE:
	case KG_RAW_STACK:
	case KG_RAW_CALLSITES:
	case KG_RAW_PYCODE: return on_stack_record(r, h);
	case KG_RAW_HW_DEVICE:
	case KG_RAW_HW_SAMPLES: return on_hw_record(r, h);
	case KG_RAW_SM_BLOCKS:
	case KG_RAW_SM_OWN: return on_sm_record(r, h);
	case KG_RAW_HOST_SETTINGS:
	case KG_RAW_HOST_THREAD:
	case KG_RAW_HOST_SAMPLES:
	case KG_RAW_HOST_COUNTS: return on_host_record(r, h);
	case KG_RAW_END:
		*ended = 1;
		*end = (const void *)h;
		return 0;
	}
	return 0; /* a newer recorder's record type: skipped */
}

/* The SM importer matches blocks to the process's kernels by (context, grid id): the
 * kernels, which the trace holds as blocks only, are read again from the spool (the
 * records read, r->data up to r->off, checked then), with the ids on_kernel gave them. */
static int sm_kernels(struct spool_reader *r)
{
	if (!sm_import_needs_kernels(r->sm))
		return 0;
	const struct kg_raw_file_header *fh = (const void *)r->data;
	int64_t id = r->first_kernel;
	int rc = 0;
	for (size_t off = fh->header_size; !rc && off < r->off;) {
		const struct kg_raw_hdr *h = (const void *)(r->data + off);
		const struct kg_raw_kernel *k = (const void *)h;
		if (h->type == KG_RAW_KERNEL) /* a start NULL in the trace reads 0: unknown */
			rc = sm_import_kernel(r->sm, id++, k->context_id, (uint64_t)k->grid_id,
					      known_ts(k->start) ? (int64_t)k->start : 0);
		off += h->size;
	}
	return rc ? fail(r->im, rc, "out of memory matching the SM blocks of '%s' to its kernels",
			 r->path)
		  : 0;
}

static int finish_process(struct spool_reader *r, int ended, const struct kg_raw_end *end,
			  const char *note)
{
	struct kg_import_process *p = r->proc;
	sqlite3_stmt *st;
	int src = finish_hooked(r);
	if (!src)
		src = write_held(r);
	if (src)
		return src;
	src = stack_import_write(r->stacks, r->im, r->process);
	if (!src)
		src = sm_kernels(r);
	if (!src)
		src = sm_import_write(r->sm, r->im, r->process);
	if (!src)
		src = host_import_write(r->host);
	if (src)
		return src == -ENOMEM && !r->im->err[0]
			       ? fail(r->im, src, "out of memory reading the stacks of '%s'", r->path)
			       : src;
	p->complete = ended;
	p->end_ns = ended ? end->ts : r->last_ts;
	if (ended && end->dropped_total > KG_MOST_RECORDS)
		return fail(r->im, -EINVAL, "'%s': its end record says %llu records were dropped, "
			    "which cannot be true (at most 2^48): the spool is damaged", r->path,
			    (unsigned long long)end->dropped_total);
	if (ended && end->dropped_total > p->dropped)
		p->dropped = end->dropped_total;
	if (sqlite3_prepare_v2(r->im->db,
			       "UPDATE processes SET end_ns=?1, complete=?2, dropped_records=?3, "
			       "late_buffers=?4, spool_note=?5, incomplete_records=?7, "
			       "latency_timestamps = CASE WHEN ?8 THEN 0 ELSE latency_timestamps END "
			       "WHERE process=?6",
			       -1, &st, NULL) != SQLITE_OK)
		return sql_fail(r->im, "processes");
	sqlite3_bind_int64(st, 1, (int64_t)p->end_ns);
	sqlite3_bind_int64(st, 2, ended);
	sqlite3_bind_int64(st, 3, (int64_t)p->dropped);
	if (ended)
		sqlite3_bind_int64(st, 4, (int64_t)end->late_buffers);
	else
		sqlite3_bind_null(st, 4);
	import_bind_text(st, 5, note);
	sqlite3_bind_int64(st, 6, r->process);
	sqlite3_bind_int64(st, 7, (int64_t)p->incomplete);
	sqlite3_bind_int64(st, 8, ended && end->latency_refused);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_fail(r->im, "processes");
	return 0;
}

/* Pages of the mapped spool count in the importer's resident memory once read, and stay
 * there until the unmap: the whole spool, 108 bytes an event for 10 M kernels and 10 M API
 * calls (2.2 GB; docs/results/import-memory.md). The records read so far are given back
 * every KG_SPOOL_RELEASE bytes, so the spool adds that much at most. The few records kept by pointer (stack_import.c's
 * stacks and line tables) read back from the file when used: the mapping is private and
 * never written, so dropped pages come back as the file's own. */
#define KG_SPOOL_RELEASE (16u << 20)

static void release_read(struct spool_reader *r)
{
	size_t upto = r->off & ~(r->page - 1);
	if (upto - r->released < KG_SPOOL_RELEASE)
		return;
	madvise((void *)(r->data + r->released), upto - r->released, MADV_DONTNEED);
	r->released = upto;
}

static int read_spool(struct spool_reader *r)
{
	const struct kg_raw_file_header *fh = (const void *)r->data;
	if (r->size < sizeof(*fh) || memcmp(fh->magic, KG_RAW_MAGIC, 8) != 0)
		return fail(r->im, -EINVAL, "'%s' is not a kgantt spool (expected magic '%s')",
			    r->path, "KGSPOOL");
	if (fh->version != KG_RAW_VERSION)
		return fail(r->im, -EINVAL, "'%s': spool version %u, this kgantt reads version %u",
			    r->path, fh->version, KG_RAW_VERSION);
	/* records are read in place, so they must start 8-aligned as the writer puts them */
	if (fh->header_size < sizeof(*fh) || fh->header_size > r->size || fh->header_size % 8)
		return fail(r->im, -EINVAL,
			    "'%s': bad header size %u (expected a multiple of 8, at least %zu, at "
			    "most the file's %zu bytes)",
			    r->path, fh->header_size, sizeof(*fh), r->size);

	int ended = 0, rc = 0;
	const struct kg_raw_end *end = NULL;
	char note[256] = "";
	r->off = fh->header_size;
	while (!rc && !ended && r->off < r->size) {
		const struct kg_raw_hdr *h = (const void *)(r->data + r->off);
		size_t left = r->size - r->off;
		if (left < sizeof(*h) || h->size < sizeof(*h) || h->size % 8 || h->size > left) {
			/* the process died while this record was being written */
			snprintf(note, sizeof(note), "spool ends inside a record at byte %zu of %zu",
				 r->off, r->size);
			break;
		}
		if (h->type < KG_RAW_TYPE_MAX && h->size < min_size[h->type])
			return fail(r->im, -EINVAL,
				    "'%s': record of type %u at byte %zu is %u bytes, expected at "
				    "least %u",
				    r->path, h->type, r->off, h->size, min_size[h->type]);
		rc = on_record(r, h, &ended, &end);
		r->off += h->size;
		release_read(r);
	}
	if (rc)
		return rc;
	if (!r->proc)
		return fail(r->im, -EINVAL, "'%s': no process record (empty or truncated spool)",
			    r->path);
	if (!ended && !note[0])
		snprintf(note, sizeof(note),
			 "no end record: the process died or was killed before its exit handler "
			 "ran; records CUPTI had not handed over are missing");
	return finish_process(r, ended, end, note[0] ? note : NULL);
}

int import_spool_file(struct kg_import *im, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(im, -errno, "cannot open '%s': %s", path, strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		int err = -errno;
		close(fd);
		return fail(im, err, "cannot stat '%s': %s", path, strerror(-err));
	}
	struct spool_reader r = {.im = im, .path = path, .size = (size_t)sb.st_size,
				 .page = (size_t)sysconf(_SC_PAGESIZE)};
	void *map = NULL;
	if (r.size > 0) {
		map = mmap(NULL, r.size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			int err = -errno;
			close(fd);
			return fail(im, err, "cannot map '%s': %s", path, strerror(-err));
		}
	}
	close(fd);
	r.data = map;
	int rc = r.size ? read_spool(&r)
			: fail(im, -EINVAL, "'%s' is empty: the process wrote nothing", path);
	/* the readers' allocations return -ENOMEM without words: the message is made here */
	if (rc == -ENOMEM && !im->err[0])
		fail(im, rc, "out of memory importing '%s' (%zu bytes)", path, r.size);
	if (map)
		munmap(map, r.size);
	free(r.smap);
	free(r.open_keys);
	free(r.open_rows);
	stack_import_free(r.stacks);
	hooked_import_free(r.hooked);
	free(r.held);
	hw_import_free(r.hw);
	sm_import_free(r.sm);
	host_import_free(r.host);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int import_spool_dir(struct kg_import *im, const char *dir, int *nfiles)
{
	DIR *d = opendir(dir);
	if (!d)
		return fail(im, -errno, "cannot open '%s': %s", dir, strerror(errno));
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 8 || strcmp(e->d_name + len - 8, ".kgspool") != 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				rc = -ENOMEM;
				break;
			}
			names = nn;
		}
		names[n] = malloc(strlen(dir) + len + 2);
		if (!names[n]) {
			rc = -ENOMEM;
			break;
		}
		sprintf(names[n], "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	if (!rc && n) /* no spool file: names is NULL, which qsort may not be given */
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; !rc && i < n; i++)
		rc = import_spool_file(im, names[i]);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == -ENOMEM && !im->err[0])
		fail(im, rc, "out of memory reading '%s'", dir);
	if (nfiles)
		*nfiles = (int)n;
	return rc;
}

int import_set_program_start(struct kg_import *im, uint64_t ns)
{
	char text[32];
	snprintf(text, sizeof(text), "%llu", (unsigned long long)ns);
	return trace_put_meta(im->db, "program_start_ns", text) == SQLITE_OK ? 0 : sql_fail(im, "meta");
}

int import_set_exit_status(struct kg_import *im, uint32_t pid, const char *status)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(im->db, "UPDATE processes SET exit_status=? WHERE pid=?", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_fail(im, "processes");
	sqlite3_bind_text(st, 1, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, pid);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(im, "processes");
}
