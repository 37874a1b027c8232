/* The trace store (store.h): one connection, the checks made once, the reads planned. */
#include "trace/store.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/packed.h"
#include "trace/schema.h"
#include "trace/trace_db.h"
#include "util/hw_figures.h"

#define MEMO_TABLES 8 /* packed tables whose packed_usable is kept; more are asked anew */

struct kg_store {
	sqlite3 *db;
	char *path;
	int only;        /* format 5: the packed tables only as blocks */
	/* What the trace holds, read once: each ask was a query prepared anew, and a job
	 * report opens a thousand traces. The connection is read-only, its file not ours to
	 * change. */
	char *tables;    /* the names of its tables, each ended by NUL, then an empty one */
	struct usable {  /* packed_usable of each packed table (by its place in
			  * kg_packed_tables), once asked */
		int asked, usable;
		int64_t rows;
	} usable[MEMO_TABLES];
	char err[1024];
};

static int say(struct kg_store *s, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int say(struct kg_store *s, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return rc;
}

/* What failed reading what, in the model loader's words. */
static int read_failed(struct kg_store *s, const char *what)
{
	return say(s, -EIO, "cannot read '%s' (%s): %s", s->path, what, sqlite3_errmsg(s->db));
}

static int out_of_memory(struct kg_store *s)
{
	return say(s, -ENOMEM, "out of memory reading '%s'", s->path);
}

const char *store_path(const struct kg_store *s)
{
	return s->path;
}

const char *store_error(const struct kg_store *s)
{
	return s->err;
}

/* ------------------------------------------------------------------ opening */

/* The names of db's tables (struct kg_store's tables) into *out: 0, -ENOMEM, or -EIO
 * when its schema cannot be read (a damaged file: sqlite3_errmsg says how). */
static int read_tables(sqlite3 *db, char **out)
{
	sqlite3_stmt *st;
	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	size_t len = 0, cap = 512;
	char *names = malloc(cap);
	int rc = names ? 0 : -ENOMEM, step = SQLITE_DONE;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		size_t n = name ? strlen(name) + 1 : 0;
		if (len + n + 1 > cap) {
			char *grown = realloc(names, cap = 2 * (len + n + 1));
			if (!grown) {
				rc = -ENOMEM;
				break;
			}
			names = grown;
		}
		memcpy(names + len, name ? name : "", n);
		len += n;
	}
	if (!rc && step != SQLITE_DONE)
		rc = -EIO;
	sqlite3_finalize(st);
	if (rc) {
		free(names);
		return rc;
	}
	names[len] = 0;
	*out = names;
	return 0;
}

/* What could not open db (read_tables' rc) said in err, db closed: rc. */
static int open_failed(sqlite3 *db, const char *path, int rc, char *err, size_t errlen)
{
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory reading '%s'", path);
	else
		snprintf(err, errlen, "'%s' is damaged: %s", path, sqlite3_errmsg(db));
	sqlite3_close(db);
	return rc;
}

static int in_tables(const char *tables, const char *name)
{
	for (const char *t = tables; *t; t += strlen(t) + 1)
		if (!strcmp(t, name))
			return 1;
	return 0;
}

/* The store of an open db and the names of its tables (read here when NULL); closes db
 * and frees tables when it fails. */
static int store_new(sqlite3 *db, const char *path, char *tables, struct kg_store **out,
		     char *err, size_t errlen)
{
	struct kg_store *s = calloc(1, sizeof(*s));
	int rc = tables ? 0 : read_tables(db, &tables);
	if (!rc && (!s || !(s->path = strdup(path))))
		rc = -ENOMEM;
	if (rc) {
		free(s);
		free(tables);
		return open_failed(db, path, rc, err, errlen);
	}
	s->db = db;
	s->tables = tables;
	s->only = packed_only(db) == 1;
	*out = s;
	return 0;
}

int store_open(const char *path, struct kg_store **out, char *err, size_t errlen)
{
	sqlite3 *db;
	*out = NULL;
	int rc = trace_db_open(path, &db, err, errlen);
	return rc < 0 ? rc : store_new(db, path, NULL, out, err, errlen);
}

/* What the tables say the file is. */
static int kind_by_tables(const char *tables, const char *path, char *err, size_t errlen)
{
	/* a compacted trace (format 5) keeps its kernels as blocks in 'packed' */
	if (in_tables(tables, "meta") && (in_tables(tables, "kernels") || in_tables(tables, "packed")))
		return KG_STORE_TRACE;
	if (in_tables(tables, "StringIds") || in_tables(tables, "CUPTI_ACTIVITY_KIND_KERNEL") ||
	    in_tables(tables, "TARGET_INFO_GPU"))
		return KG_STORE_NSYS;
	snprintf(err, errlen,
		 "'%s' is an SQLite database but neither a kgantt trace (tables 'meta' and "
		 "'kernels' or 'packed') nor an Nsight Systems export (tables 'StringIds', "
		 "'CUPTI_ACTIVITY_KIND_KERNEL')",
		 path);
	return -EINVAL;
}

int store_open_sqlite(const char *path, struct kg_store **out, char *err, size_t errlen)
{
	sqlite3 *db;
	char *tables;
	*out = NULL;
	int rc = trace_db_open_file(path, &db, err, errlen);
	if (rc < 0)
		return rc;
	/* a schema that cannot be read is damage, said as trace_db_open says it, not
	 * "neither format" */
	if ((rc = read_tables(db, &tables)) < 0)
		return open_failed(db, path, rc == -ENOMEM ? rc : -EINVAL, err, errlen);
	int kind = kind_by_tables(tables, path, err, errlen);
	if (kind != KG_STORE_TRACE) {
		free(tables);
		sqlite3_close(db);
		return kind;
	}
	if ((rc = trace_db_check(db, path, err, errlen)) < 0) {
		free(tables);
		return rc; /* closed */
	}
	rc = store_new(db, path, tables, out, err, errlen);
	return rc < 0 ? rc : KG_STORE_TRACE;
}

void store_close(struct kg_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s->tables);
	free(s->path);
	free(s);
}

/* ------------------------------------------------------------------ what it holds */

int store_hold(struct kg_store *s)
{
	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return read_failed(s, "a read transaction");
	return 0;
}

void store_release(struct kg_store *s)
{
	if (!sqlite3_get_autocommit(s->db)) /* keeps the temp tables made, as without it */
		sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
}

void store_meta(struct kg_store *s, const char *key, char *out, size_t outlen)
{
	trace_db_meta(s->db, key, out, outlen);
}

int store_has_table(struct kg_store *s, const char *table)
{
	return in_tables(s->tables, table);
}

int store_has_rows(struct kg_store *s, const char *table)
{
	int64_t n = 0;
	char sql[160];
	if (!store_has_table(s, table))
		return 0;
	snprintf(sql, sizeof(sql), "SELECT EXISTS(SELECT 1 FROM %s)", table);
	return trace_db_int(s->db, sql, NULL, &n) == SQLITE_OK && n > 0;
}

int store_packed_only(const struct kg_store *s)
{
	return s->only;
}

/* packed_usable, asked once a table. */
static int usable(struct kg_store *s, const char *table, int64_t *rows)
{
	const struct kg_packed_table *t = packed_table(table);
	size_t i = t ? (size_t)(t - kg_packed_tables) : MEMO_TABLES;
	if (i >= MEMO_TABLES)
		return packed_usable(s->db, table, rows);
	struct usable *u = &s->usable[i];
	if (!u->asked)
		u->usable = packed_usable(s->db, table, &u->rows), u->asked = 1;
	*rows = u->rows;
	return u->usable;
}

int store_packed_usable(struct kg_store *s, const char *table)
{
	int64_t rows;
	return usable(s, table, &rows);
}

int store_count(struct kg_store *s, const char *table, int64_t *rows)
{
	char sql[128];
	*rows = 0;
	if (packed_table(table)) { /* counted however it is kept */
		if (usable(s, table, rows) || !s->only)
			return 0;
		return say(s, -EIO, "cannot read '%s': %s", s->path, sqlite3_errmsg(s->db));
	}
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s", table); /* walks pages, not rows */
	if (trace_db_int(s->db, sql, NULL, rows) != SQLITE_OK)
		return say(s, -EIO, "cannot read '%s': %s", s->path, sqlite3_errmsg(s->db));
	return 0;
}

int store_strings_extent(struct kg_store *s, int64_t *max_id, int64_t *count)
{
	if (trace_db_int(s->db, "SELECT MAX(id) FROM strings", NULL, max_id) != SQLITE_OK ||
	    trace_db_int(s->db, "SELECT COUNT(*) FROM strings", NULL, count) != SQLITE_OK)
		return read_failed(s, "strings");
	return 0;
}

int store_first_message(struct kg_store *s, const char *prefix, char *text, size_t size)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "SELECT text FROM messages WHERE text LIKE ?1 || '%' "
				      "ORDER BY rowid LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	int found = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0);
	if (found)
		snprintf(text, size, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return found;
}

/* ------------------------------------------------------------------ the reads */

#define OP_COLUMNS "process, device, context, stream, correlation, incomplete, start, end, channel"
#define HW_COLUMN_(id, column, unit, label) ", " #column
#define HW_COUNT_(id, column, unit, label) ", COUNT(" #column ")"

struct read_plan {
	const char *what;    /* for messages */
	const char *needs;   /* a table without which the read has no rows; NULL none */
	const char *expand;  /* the packed table a compacted trace's rows are made of first */
	const char *sql;     /* NULL: made from the packed tables' columns (model_select) */
	uint64_t reals;      /* bit c: column c is REAL (its double's bits in a kg_row) */
	int of_expand;       /* 1: each row is one of expand's (FROM it or an inner JOIN), so
			      * there are none when it has none: not made rows for nothing */
};

#define HW_REALS (((1ull << KG_HW_N) - 1) << 4)

static const struct read_plan plans[KG_READ_COUNT] = {
	[KG_READ_STRINGS] = {"strings", NULL, NULL, "SELECT id, text FROM strings", 0, 0},
	[KG_READ_PROCESSES] = {"processes", NULL, NULL,
			       "SELECT process, pid, ppid, host, cmdline, rank, complete, "
			       "exit_status, dropped_records, incomplete_records, start_ns, end_ns, "
			       "realtime_offset_ns FROM processes ORDER BY process", 0, 0},
	[KG_READ_DEVICES] = {"devices", NULL, NULL,
			     "SELECT process, device, name, uuid, sm_count, max_warps_per_sm, "
			     "max_blocks_per_sm, max_threads_per_block, max_regs_per_sm, "
			     "max_regs_per_block, max_smem_per_sm, max_smem_per_block, cc_major, "
			     "cc_minor, memory_bytes FROM devices ORDER BY process, device", 0, 0},
	[KG_READ_STREAMS] = {"streams", NULL, NULL,
			     "SELECT s.process, s.context, s.stream, s.priority, s.flags, c.device, "
			     "c.null_stream FROM streams s JOIN contexts c USING(process, context)", 0, 0},
	[KG_READ_REFUSALS] = {"messages", NULL, NULL,
			      "SELECT process, text FROM messages WHERE level = 'error' ORDER BY "
			      "rowid", 0, 0},
	[KG_READ_MEMCPYS] = {"memcpys", NULL, NULL,
			     "SELECT " OP_COLUMNS ", copy_kind, src_kind, dst_kind, bytes, async, "
			     "graph FROM memcpys", 0, 0},
	[KG_READ_MEMSETS] = {"memsets", NULL, NULL,
			     "SELECT " OP_COLUMNS ", memory_kind, bytes, async, graph FROM memsets", 0, 0},
	[KG_READ_SYNCS] = {"syncs", NULL, NULL,
			   "SELECT y.process, y.type, y.context, y.stream, y.start, y.end, "
			   "y.correlation, c.device FROM syncs y LEFT JOIN contexts c "
			   "USING(process, context)", 0, 0},
	[KG_READ_NVTX] = {"nvtx", NULL, NULL,
			  "SELECT process, thread, domain, name, start, end FROM nvtx", 0, 0},
	[KG_READ_KERNELS] = {"kernels", NULL, NULL, NULL, 0, 0},
	[KG_READ_API_CALLS] = {"api_calls", NULL, NULL, NULL, 0, 0},
	[KG_READ_STACK_FRAMES] = {"stack_frames", "stack_frames", NULL,
				  "SELECT f.stack, s.process, s.flags, f.kind, f.function, f.file, "
				  "f.line, f.module, f.address FROM stack_frames f JOIN stacks s "
				  "ON s.id = f.stack ORDER BY f.stack, f.depth", 0, 0},
	[KG_READ_API_STACKS] = {"api_stacks", "api_stacks", NULL,
				"SELECT process, correlation, stack FROM api_stacks", 0, 0},
	[KG_READ_STACK_SETTING] = {"stack_settings", "stack_settings", NULL,
				   "SELECT mode, launch_first, launch_every, python FROM "
				   "stack_settings ORDER BY (python LIKE 'CPython%') DESC, process "
				   "LIMIT 1", 0, 0},
	[KG_READ_HW_DEVICES] = {"hw_devices", "hw_devices", NULL,
				"SELECT process, device, interval_ns, chip, state, note, "
				"lost_samples FROM hw_devices", 0, 0},
	[KG_READ_HW_METRICS] = {"hw_metrics", "hw_metrics", NULL,
				"SELECT process, device, figure, metric FROM hw_metrics", 0, 0},
	[KG_READ_HW_SAMPLES] = {"hw_samples", "hw_devices", "hw_samples",
				"SELECT process, device, start, end" KG_HW_FIGURES(HW_COLUMN_)
				" FROM hw_samples ORDER BY process, device, start", HW_REALS, 1},
	[KG_READ_SM_SETTINGS] = {"sm_settings", "sm_settings", NULL,
				 "SELECT process, device, blocks, kernels, dropped, unmatched, "
				 "offset_mad_ns, offset_spread_ns FROM sm_settings ORDER BY process, "
				 "device", 0, 0},
	[KG_READ_SM_BLOCKS] = {"sm_blocks", "sm_blocks", "kernels",
			       "SELECT b.kernel, k.process, k.correlation, k.start, k.context, "
			       "k.stream, b.sm, b.block, b.start, b.end FROM sm_blocks b "
			       "JOIN kernels k ON k.id = b.kernel ORDER BY b.kernel", 0, 1},
	[KG_READ_HOST_SETTINGS] = {"host_settings", "host_settings", NULL,
				   "SELECT process, hz, note, threads, taken, lost_ring + lost_pending, "
				   "no_stack, lost_threads, faulted FROM host_settings ORDER BY process", 0, 0},
	[KG_READ_HOST_THREADS] = {"host_threads", "host_threads", NULL,
				  "SELECT process, thread, name FROM host_threads ORDER BY process, "
				  "number", 0, 0},
	[KG_READ_TRACER] = {"overheads", "overheads", NULL,
			     "SELECT process, kind, object, start, end FROM overheads WHERE "
			     "object_kind = 2 AND end > start ORDER BY process, object, start",
			     0, 0},
	[KG_READ_LAUNCH_SETTINGS] = {"launch_settings", "launch_settings", NULL,
				     "SELECT process, calls, window_on_ms, window_period_ms, why "
				     "FROM launch_settings ORDER BY process", 0, 0},
	[KG_READ_INFO_PROCESSES] = {"processes", NULL, NULL,
				    "SELECT process, pid, ppid, host, rank, mode, complete, "
				    "exit_status, dropped_records, incomplete_records, (end_ns - "
				    "start_ns) / 1e6, cmdline, spool_note FROM processes p ORDER BY "
				    "process", 0, 0},
	[KG_READ_INFO_MESSAGES] = {"messages", NULL, NULL,
				   "SELECT m.process, p.pid, m.level, m.text FROM messages m JOIN "
				   "processes p USING(process) WHERE m.level != 'info' OR m.text LIKE "
				   "'API calls not recorded%' OR m.text LIKE 'this CUPTI cannot%'", 0, 0},
	[KG_READ_INFO_STACKS] = {"stack_settings", "stack_settings", NULL,
				 "SELECT mode, launch_first, launch_every, max_depth, python FROM "
				 "stack_settings ORDER BY process LIMIT 1", 0, 0},
	[KG_READ_INFO_DEVICES] = {"devices", NULL, NULL,
				  "SELECT DISTINCT device, name, cc_major, cc_minor, sm_count, "
				  "memory_bytes / 1073741824.0, uuid FROM devices ORDER BY device", 0, 0},
	[KG_READ_INFO_HW] = {"hw_devices", "hw_devices", "hw_samples",
			     "SELECT h.process, h.device, h.chip, h.state, h.note, h.interval_ns, "
			     "h.lost_samples, (SELECT COUNT(*) FROM hw_samples s WHERE "
			     "s.process = h.process AND s.device = h.device), (SELECT pid FROM "
			     "processes p WHERE p.process = h.process) FROM hw_devices h "
			     "ORDER BY 1, 2", 0, 0},
	[KG_READ_INFO_HW_FIGURES] = {"hw_samples", "hw_devices", "hw_samples",
				     "SELECT 0" KG_HW_FIGURES(HW_COUNT_) " FROM hw_samples WHERE "
				     "process = ?1 AND device = ?2", 0, 0},
	[KG_READ_INFO_PARTIAL] = {"stacks", "stacks", NULL,
				  "SELECT COUNT(*) FROM stacks WHERE flags & 1", 0, 0},
	[KG_READ_INFO_HW_PROCESSES] = {"hw_devices", "hw_devices", NULL,
				       "SELECT COUNT(DISTINCT process) FROM hw_devices", 0, 0},
	[KG_READ_INFO_SM] = {"sm_settings", "sm_settings", "kernels",
			     "SELECT s.device, s.blocks, s.kernels, s.dropped, s.unmatched, "
			     "s.own_records, s.offset_mad_ns, s.offset_spread_ns, p.pid, "
			     "(SELECT COUNT(DISTINCT b.sm) FROM sm_blocks b JOIN kernels k ON "
			     "k.id = b.kernel WHERE k.process = s.process AND k.device = s.device) "
			     "FROM sm_settings s JOIN processes p USING(process) ORDER BY s.process, "
			     "s.device", 0, 0},
	[KG_READ_INFO_HOST] = {"host_settings", "host_settings", "host_samples",
			       "SELECT p.pid, h.hz, h.note, COALESCE(n.samples, 0), (SELECT COUNT(*) "
			       "FROM host_threads t WHERE t.process = h.process), h.taken, "
			       "h.lost_ring, h.lost_pending, h.no_stack, h.lost_threads, h.unwind, "
			       "h.python, h.signal FROM host_settings h JOIN processes p "
			       "USING(process) LEFT JOIN (SELECT process, COUNT(*) AS samples FROM "
			       "host_samples GROUP BY process) n USING(process) ORDER BY h.process", 0, 0},
};

/* The model loader's columns of kernels and api_calls, "process, device, ...", as whole
 * rows (select) and by chunk of ids (chunk): made once, from the packed tables' columns
 * (trace/packed.c), for whichever thread asks first. */
static char model_select[2][1024], model_chunk[2][1024];
static pthread_once_t model_select_once = PTHREAD_ONCE_INIT;

static int bulk_index(const char *table)
{
	return strcmp(table, "kernels") ? 1 : 0;
}

static void make_model_selects(void)
{
	for (int i = 0; i < 2; i++) {
		const struct kg_packed_table *t = &kg_packed_tables[i];
		char cols[900];
		size_t len = 0;
		for (int c = 0; c < t->ncolumns; c++)
			len += (size_t)snprintf(cols + len, sizeof(cols) - len, "%s%s", c ? ", " : "",
						t->stored[c].name);
		snprintf(model_select[i], sizeof(model_select[i]), "SELECT %s FROM %s", cols,
			 t->name);
		snprintf(model_chunk[i], sizeof(model_chunk[i]),
			 "SELECT %s FROM %s WHERE rowid BETWEEN ?1 AND ?2", cols, t->name);
	}
}

static const char *model_sql(const char *table, int chunk)
{
	pthread_once(&model_select_once, make_model_selects);
	return chunk ? model_chunk[bulk_index(table)] : model_select[bulk_index(table)];
}

_Static_assert(K_COLUMNS <= KG_PACKED_MAX_COLUMNS, "a kernel row fits a kg_row");

/* ------------------------------------------------------------------ reading rows */

struct kg_store_rows {
	struct kg_store *s;
	const char *what;
	sqlite3_stmt *st;           /* SQL rows; NULL: none (or packed rows) */
	struct kg_packed_rows *packed;
	struct kg_row row;          /* the current packed row */
	uint64_t reals;
	int ncolumns;
	char err[512];
};

/* A compacted trace's rows of a packed table, made a temp table for SQL that joins them. */
static int expand(struct kg_store *s, const char *table)
{
	char why[512];
	if (!s->only)
		return 0;
	int rc = packed_expand(s->db, "main", "temp", table, why, sizeof(why));
	return rc ? say(s, rc, "cannot read '%s': %s", s->path, why) : 0;
}

static int rows_new(struct kg_store *s, const char *what, struct kg_store_rows **out)
{
	struct kg_store_rows *it = calloc(1, sizeof(*it));
	*out = it;
	if (!it)
		return out_of_memory(s);
	it->s = s;
	it->what = what;
	return 0;
}

static int rows_prepare(struct kg_store_rows *it, const char *sql)
{
	if (sqlite3_prepare_v2(it->s->db, sql, -1, &it->st, NULL) != SQLITE_OK)
		return read_failed(it->s, it->what);
	it->ncolumns = sqlite3_column_count(it->st);
	return 0;
}

/* 1 when a compacted trace's rows of the packed table are none (a trace without --hw
 * has no hw_samples): made rows, they would be a temp table's (its schema made too). */
static int expands_to_none(struct kg_store *s, const char *table)
{
	int64_t rows;
	return s->only && usable(s, table, &rows) && rows == 0;
}

int store_read(struct kg_store *s, enum kg_read what, struct kg_store_rows **out)
{
	const struct read_plan *p = &plans[what];
	int rc = rows_new(s, p->what, out);
	if (rc || (p->needs && !store_has_table(s, p->needs)))
		return rc;
	if (p->of_expand && expands_to_none(s, p->expand))
		return 0; /* no rows */
	if (p->expand && (rc = expand(s, p->expand)) != 0)
		return rc;
	(*out)->reals = p->reals;
	return rows_prepare(*out, p->sql ? p->sql : model_sql(p->what, 0));
}

int store_read_table(struct kg_store *s, const char *table, struct kg_store_rows **out)
{
	const struct kg_packed_table *t = packed_table(table);
	int rc = rows_new(s, table, out);
	if (rc)
		return rc;
	rc = packed_rows_open(s->db, "main", t, &(*out)->packed, (*out)->err, sizeof((*out)->err));
	(*out)->ncolumns = t->nstored;
	return rc ? say(s, rc, "cannot read '%s': %s", s->path, (*out)->err) : 0;
}

void store_read_bind(struct kg_store_rows *it, int param, int64_t v)
{
	if (it->st)
		sqlite3_bind_int64(it->st, param, v);
}

int store_next(struct kg_store_rows *it, struct kg_row *row)
{
	if (it->packed) {
		int64_t rowid;
		int got = packed_rows_next(it->packed, &it->row, &rowid);
		if (got < 0)
			return say(it->s, got, "cannot read '%s': %s", it->s->path, it->err);
		if (got && row)
			*row = it->row;
		return got;
	}
	if (!it->st)
		return 0;
	int step = sqlite3_step(it->st);
	if (step == SQLITE_DONE)
		return 0;
	if (step != SQLITE_ROW)
		return read_failed(it->s, it->what);
	if (row) {
		int n = it->ncolumns < KG_PACKED_MAX_COLUMNS ? it->ncolumns : KG_PACKED_MAX_COLUMNS;
		row_from_stmt(row, it->st, n);
		for (uint64_t r = it->reals; r; r &= r - 1) { /* REALs as their bits */
			int c = __builtin_ctzll(r);
			if (c < n && !row_is_null(row, c)) {
				double d = sqlite3_column_double(it->st, c);
				memcpy(&row->v[c], &d, sizeof(d));
			}
		}
	}
	return 1;
}

int64_t store_int(const struct kg_store_rows *it, int col)
{
	return it->st ? sqlite3_column_int64(it->st, col) : it->row.v[col];
}

double store_real(const struct kg_store_rows *it, int col)
{
	return it->st ? sqlite3_column_double(it->st, col) : (double)it->row.v[col];
}

const char *store_text(const struct kg_store_rows *it, int col)
{
	return it->st ? (const char *)sqlite3_column_text(it->st, col) : NULL;
}

int store_null(const struct kg_store_rows *it, int col)
{
	return it->st ? sqlite3_column_type(it->st, col) == SQLITE_NULL : row_is_null(&it->row, col);
}

int store_columns(const struct kg_store_rows *it)
{
	return it->ncolumns;
}

const char *store_column_name(const struct kg_store_rows *it, int col)
{
	return it->st ? sqlite3_column_name(it->st, col) : NULL;
}

void store_done(struct kg_store_rows *it)
{
	if (!it)
		return;
	sqlite3_finalize(it->st);
	packed_rows_close(it->packed);
	free(it);
}

/* ------------------------------------------------------------------ dump's reads */

static int is_rows_view(const char *name)
{
	for (int i = 0; kg_rows_views[i]; i++)
		if (!strcmp(kg_rows_views[i], name))
			return 1;
	return 0;
}

int store_read_names(struct kg_store *s, struct kg_store_rows **out)
{
	/* a compacted trace (format 5) keeps the rows of its packed tables as blocks, and has
	 * no views on them: they are listed as the rows they stand for */
	char sql[1024], more[512] = "";
	size_t n = 0;
	for (const struct kg_packed_table *t = kg_packed_tables; s->only && t->name; t++)
		n += (size_t)snprintf(more + n, sizeof(more) - n, " UNION SELECT '%s', 'table'",
				      t->name);
	for (int i = 0; s->only && kg_rows_views[i]; i++)
		n += (size_t)snprintf(more + n, sizeof(more) - n, " UNION SELECT '%s', 'view'",
				      kg_rows_views[i]);
	snprintf(sql, sizeof(sql),
		 "SELECT name, type FROM sqlite_master WHERE type IN ('table','view')%s "
		 "ORDER BY 2, 1",
		 more);
	int rc = rows_new(s, "tables", out);
	if (!rc && sqlite3_prepare_v2(s->db, sql, -1, &(*out)->st, NULL) != SQLITE_OK)
		rc = say(s, -EIO, "cannot list the tables: %s", sqlite3_errmsg(s->db));
	if (!rc)
		(*out)->ncolumns = 2;
	return rc;
}

static int table_exists(struct kg_store *s, const char *name)
{
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND "
			       "name = ?1 UNION SELECT 1 FROM sqlite_temp_master WHERE name = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* The rows a compacted trace keeps as blocks made a temp table, for the table or view
 * asked for. */
static int rows_of_blocks(struct kg_store *s, const char *name)
{
	char why[512];
	int view = is_rows_view(name);
	if (!s->only || (!view && !packed_table(name)))
		return 0;
	int rc = packed_expand(s->db, "main", "temp", view ? NULL : name, why, sizeof(why));
	if (!rc && view && trace_index_rows(s->db, "temp") != SQLITE_OK) { /* the views join */
		snprintf(why, sizeof(why), "%s", sqlite3_errmsg(s->db));
		rc = -EIO;
	}
	return rc ? say(s, rc, "cannot read '%s': %s", s->path, why) : 0;
}

int store_read_any(struct kg_store *s, const char *name, long limit, struct kg_store_rows **out)
{
	*out = NULL;
	int rc = rows_of_blocks(s, name);
	if (rc)
		return rc;
	if (!table_exists(s, name))
		return say(s, -ENOENT, "'%s' has no table '%s' (see 'kgantt dump --table list %s')",
			   s->path, name, s->path);
	char sql[512];
	/* the name was checked against sqlite_master above, so quoting it is safe */
	snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\" LIMIT %ld", name, limit);
	if ((rc = rows_new(s, name, out)) != 0)
		return rc;
	if (sqlite3_prepare_v2(s->db, sql, -1, &(*out)->st, NULL) != SQLITE_OK)
		return say(s, -EIO, "cannot read table '%s': %s", name, sqlite3_errmsg(s->db));
	(*out)->ncolumns = sqlite3_column_count((*out)->st);
	return 0;
}

/* ------------------------------------------------------------------ the big tables */

/* The damaged block's message, in the model loader's words: where the blocks are the only
 * copy, nothing else to read; in older formats the loader reads the rows instead. */
int store_damaged(const struct kg_store *s, char *err, size_t errlen, const char *table,
		  int64_t first)
{
	char what[256];
	packed_damaged(what, sizeof(what), table, first);
	snprintf(err, errlen, "'%s': %s%s", s->path, what,
		 s->only ? "" : " (the rows themselves are read instead; 'kgantt pack' "
				"rebuilds the blocks)");
	return -EBADMSG;
}

/* The packed blocks of a table, in id order, with the slice each gets; 0, or 1 when they
 * do not fit together (packed_block_follows): then the rows are read, or, in a compacted
 * trace, -EBADMSG. */
static int list_blocks(struct kg_store *s, struct kg_store_plan *p)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT first_id, last_id, rows FROM packed WHERE tbl = ?1 "
			       "ORDER BY first_id",
			       -1, &st, NULL) != SQLITE_OK)
		return s->only ? read_failed(s, p->table) : 1;
	sqlite3_bind_text(st, 1, p->table, -1, SQLITE_STATIC);
	uint32_t cap = 0;
	int64_t before = INT64_MIN;
	int rc = 0;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		int64_t first = sqlite3_column_int64(st, 0), last = sqlite3_column_int64(st, 1);
		int64_t rows = sqlite3_column_int64(st, 2);
		if (!packed_block_follows(before, first, last, rows) || p->slots >= INT32_MAX) {
			rc = s->only ? store_damaged(s, s->err, sizeof(s->err), p->table, first) : 1;
			break;
		}
		before = last;
		if (p->nunits == cap) {
			cap = cap ? cap * 2 : 64;
			struct kg_store_unit *u = realloc(p->units, cap * sizeof(*u));
			if (!u) {
				rc = out_of_memory(s);
				break;
			}
			p->units = u;
		}
		p->units[p->nunits++] = (struct kg_store_unit){first, (uint32_t)rows, (uint32_t)p->slots};
		p->slots += (uint64_t)rows;
	}
	sqlite3_finalize(st);
	if (rc) {
		free(p->units);
		p->units = NULL;
		p->nunits = 0;
		p->slots = 0;
	}
	return rc;
}

/* Chunks of ids of the rows; none when the ids are too sparse. */
static int plan_chunks(struct kg_store *s, struct kg_store_plan *p, int64_t rows)
{
	int64_t lo, hi;
	if (trace_db_id_range(s->db, p->table, &lo, &hi) != SQLITE_OK)
		return read_failed(s, p->table);
	uint64_t span = hi >= lo && hi - lo < INT32_MAX ? (uint64_t)(hi - lo) + 1 : 0;
	/* A slot per id is sized by the ids, not by the rows: a few rows with ids far apart
	 * (an edited or damaged file) would reserve gigabytes. Ids sparser than that are read
	 * one by one instead, into an array that grows with the rows found. */
	if (span > (uint64_t)rows + (uint64_t)rows / 4 + KG_STORE_CHUNK)
		span = 0;
	p->nunits = (uint32_t)((span + KG_STORE_CHUNK - 1) / KG_STORE_CHUNK);
	if (p->nunits && !(p->units = calloc(p->nunits, sizeof(*p->units))))
		return out_of_memory(s);
	for (uint32_t u = 0; u < p->nunits; u++)
		p->units[u] = (struct kg_store_unit){lo + (int64_t)u * KG_STORE_CHUNK, KG_STORE_CHUNK,
						     u * KG_STORE_CHUNK};
	p->slots = (uint64_t)p->nunits * KG_STORE_CHUNK;
	return 0;
}

int store_plan(struct kg_store *s, const char *table, int rows_only, int64_t rows,
	       struct kg_store_plan *p)
{
	*p = (struct kg_store_plan){.table = bulk_index(table) ? "api_calls" : "kernels"};
	int64_t n;
	if ((s->only || !rows_only) && usable(s, table, &n)) {
		p->blocks = 1;
		int rc = list_blocks(s, p);
		if (rc <= 0)
			return rc;
		p->blocks = 0;
	}
	return s->only ? 0 : plan_chunks(s, p, rows);
}

void store_plan_free(struct kg_store_plan *p)
{
	free(p->units);
	p->units = NULL;
}

struct kg_store_cursor {
	struct kg_store *s;
	sqlite3 *db;
	int own;
	sqlite3_stmt *st[2][2]; /* [table][blocks] */
	sqlite3_stmt *at;       /* the unit's: its block, or its chunk's rows */
	const struct kg_packed_table *t;
	int ncolumns;           /* of a chunk's rows */
	int in_block;
	struct kg_block_read b;
	char err[512];
};

int store_cursor_open(struct kg_store *s, int own, struct kg_store_cursor **out)
{
	struct kg_store_cursor *c = calloc(1, sizeof(*c));
	*out = c;
	if (!c)
		return out_of_memory(s);
	c->s = s;
	c->db = s->db;
	c->own = own;
	if (own && sqlite3_open_v2(s->path, &c->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
				   NULL) != SQLITE_OK) {
		snprintf(c->err, sizeof(c->err), "cannot read '%s' (second connection): %s", s->path,
			 sqlite3_errmsg(c->db));
		return -EIO;
	}
	return 0;
}

static int cursor_failed(struct kg_store_cursor *c, const char *what)
{
	snprintf(c->err, sizeof(c->err), "cannot read '%s' (%s): %s", c->s->path, what,
		 sqlite3_errmsg(c->db));
	return -EIO;
}

static sqlite3_stmt *cursor_statement(struct kg_store_cursor *c, const struct kg_store_plan *p)
{
	int i = bulk_index(p->table);
	sqlite3_stmt **st = &c->st[i][p->blocks];
	if (!*st) {
		char sql[256];
		snprintf(sql, sizeof(sql),
			 "SELECT last_id, rows, data FROM packed WHERE tbl = '%s' AND first_id = ?1",
			 p->table);
		if (sqlite3_prepare_v2(c->db, p->blocks ? sql : model_sql(p->table, 1), -1, st,
				       NULL) != SQLITE_OK) {
			cursor_failed(c, p->table);
			return NULL;
		}
	}
	return *st;
}

static void unit_close(struct kg_store_cursor *c)
{
	if (c->in_block)
		packed_read_close(&c->b);
	c->in_block = 0;
	if (c->at)
		sqlite3_reset(c->at);
	c->at = NULL;
}

/* A block is read through its id (version 2) with every reader's checks; a version 1
 * block (formats 2-4) holds the loader's columns only. */
static int open_block(struct kg_store_cursor *c, const struct kg_store_unit *u)
{
	sqlite3_stmt *st = c->at;
	sqlite3_bind_int64(st, 1, u->first_id);
	int step = sqlite3_step(st);
	if (step != SQLITE_ROW)
		return step == SQLITE_DONE
			       ? store_damaged(c->s, c->err, sizeof(c->err), c->t->name, u->first_id)
			       : cursor_failed(c, c->t->name);
	int id = packed_id_column(c->t);
	int ncolumns = c->s->only && id >= c->t->ncolumns ? id + 1 : c->t->ncolumns;
	if (sqlite3_column_int64(st, 1) != u->rows ||
	    packed_read_open(&c->b, c->t, ncolumns, u->first_id, sqlite3_column_int64(st, 0),
			     u->rows, sqlite3_column_blob(st, 2),
			     (size_t)sqlite3_column_bytes(st, 2)) < 0)
		return store_damaged(c->s, c->err, sizeof(c->err), c->t->name, u->first_id);
	c->in_block = 1;
	return 0;
}

int store_unit_open(struct kg_store_cursor *c, const struct kg_store_plan *p, uint32_t u)
{
	unit_close(c);
	c->t = packed_table(p->table);
	c->ncolumns = c->t->ncolumns;
	if (!(c->at = cursor_statement(c, p)))
		return -EIO;
	if (p->blocks)
		return open_block(c, &p->units[u]);
	sqlite3_bind_int64(c->at, 1, p->units[u].first_id);
	sqlite3_bind_int64(c->at, 2, p->units[u].first_id + KG_STORE_CHUNK - 1);
	return 0;
}

int store_unit_next(struct kg_store_cursor *c, struct kg_row *row)
{
	if (c->in_block) {
		int got = packed_read_row(&c->b, row);
		return got >= 0 ? got
				: store_damaged(c->s, c->err, sizeof(c->err), c->t->name, c->b.first);
	}
	int step = c->at ? sqlite3_step(c->at) : SQLITE_DONE;
	if (step == SQLITE_ROW) {
		row_from_stmt(row, c->at, c->ncolumns);
		return 1;
	}
	return step == SQLITE_DONE ? 0 : cursor_failed(c, c->t->name);
}

const char *store_cursor_error(const struct kg_store_cursor *c)
{
	return c->err;
}

void store_cursor_close(struct kg_store_cursor *c)
{
	if (!c)
		return;
	unit_close(c);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			sqlite3_finalize(c->st[i][j]);
	if (c->own)
		sqlite3_close(c->db);
	free(c);
}
