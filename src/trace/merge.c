/* kgantt traces merged into one (merge.h). Every input is attached in turn and its rows
 * copied with their process numbers, string ids and times mapped, so that every column of
 * every table survives (nothing goes through the in-memory model): the small tables in
 * SQL; the packed ones (kernels, api_calls, hw_samples, host_samples: trace/packed.h), which hold nearly
 * all of a trace, read row by row from the input's blocks (or an older trace's rows),
 * mapped here and written as blocks of the output as they come (packed_stream), never as
 * SQL rows. */
#include "trace/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "trace/packed.h"
#include "trace/store.h"
#include "trace/schema.h"
#include "trace/trace_db.h"
#include "trace/uncompress.h"
#include "util/array.h"
#include "util/idmap.h"
#include "util/outfile.h"
#include "util/timemath.h"

/* What each table's columns mean to a merge; the other columns are copied as they are. */
struct table_map {
	const char *name;
	const char *times;     /* columns holding timestamps, " a b " */
	const char *strings;   /* columns holding string ids */
	int has_id;            /* an id INTEGER PRIMARY KEY: renumbered */
	const char *stacks;    /* columns holding stack ids: moved past the output's */
	const char *process;   /* how a row finds its process, when it has no column */
	const char *kernels;   /* columns holding kernel ids: moved past the output's kernels */
	int packed;            /* a packed table (kg_packed_tables): streamed (copy_packed) */
};

static const struct table_map tables[] = {
	{.name = "processes", .times = " start_ns end_ns "},
	{.name = "messages", .times = " ts "},
	{.name = "devices"},
	{.name = "contexts"},
	{.name = "streams"},
	{.name = "kernels", .times = " queued submitted start end ", .strings = " name demangled ",
	 .has_id = 1, .kernels = " id ", .packed = 1},
	{.name = "memcpys", .times = " start end ", .has_id = 1},
	{.name = "memsets", .times = " start end ", .has_id = 1},
	{.name = "syncs", .times = " start end ", .has_id = 1},
	{.name = "api_calls", .times = " start end ", .strings = " name ", .has_id = 1, .packed = 1},
	{.name = "nvtx", .times = " start end ", .strings = " domain name ", .has_id = 1},
	{.name = "overheads", .times = " start end "},
	{.name = "dropped", .times = " ts "},
	{.name = "captures", .times = " ts "},
	{.name = "launch_settings"},
	{.name = "stack_settings"},
	{.name = "modules"},
	{.name = "stacks", .stacks = " id "},
	{.name = "stack_frames", .strings = " function file module ", .stacks = " stack ",
	 .process = " JOIN src.stacks k ON k.id = t.stack JOIN pm ON pm.old = k.process"},
	{.name = "api_stacks", .stacks = " stack "},
	{.name = "hw_devices"},
	{.name = "hw_metrics"},
	{.name = "hw_samples", .times = " start end ", .packed = 1},
	{.name = "sm_blocks", .times = " start end ", .kernels = " kernel ",
	 .process = " JOIN srcrows.kernels k ON k.id = t.kernel JOIN pm ON pm.old = k.process"},
	{.name = "sm_settings", .times = " offset_ns "},
	{.name = "host_settings", .times = " start_ns "},
	{.name = "host_threads", .times = " start_ns wall_ns end_ns "},
	{.name = "host_samples", .times = " ts ", .stacks = " stack ", .has_id = 1, .packed = 1},
};

/* What a packed table's stored column becomes in the output. */
enum column_role { KEEP, PROCESS, TIME, STRING, STACK, NEW_ID };

/* A packed table of the output, written as blocks as the inputs' rows come. */
struct packed_out {
	const struct kg_packed_table *t;
	struct kg_packed_stream *stream;
	int64_t last;                           /* rowids (and ids) given so far */
	uint8_t role[KG_PACKED_MAX_COLUMNS];    /* by block index */
	int process;                            /* block index of its process column */
};

#define NPACKED 4 /* kg_packed_tables */

struct merger {
	sqlite3 *db;
	char *err;
	size_t errlen;
	const char *path;      /* the input being merged, for messages */
	struct kg_merge_stats *st;
	char (*hosts)[256];    /* hosts seen, and the realtime offset of their first process */
	long long *host_offset;
	int n_hosts, cap_hosts;
	long long ref_offset;  /* the first host's */
	int have_ref;
	struct packed_out out[NPACKED];
	/* the input being merged: its processes (old number → index in new/shift) and
	 * strings (old id → the output's), for the packed tables' rows */
	struct kg_idmap pm, sm;
	struct process_move { int64_t to, shift; } *moves; /* by the index pm gives */
	uint32_t cap_moves;
	int64_t stack_shift;   /* the input's stack ids go on after the output's (temp.km) */
};

static int sql_error(struct merger *g, const char *what)
{
	snprintf(g->err, g->errlen, "cannot merge '%s' (%s): %s", g->path, what, sqlite3_errmsg(g->db));
	return -EIO;
}

static int out_of_memory(struct merger *g)
{
	snprintf(g->err, g->errlen, "cannot merge '%s': out of memory", g->path);
	return -ENOMEM;
}

static int exec(struct merger *g, const char *sql, const char *what)
{
	return sqlite3_exec(g->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : sql_error(g, what);
}

static int has_word(const char *list, const char *word)
{
	char w[80];
	snprintf(w, sizeof(w), " %s ", word);
	return strstr(list, w) != NULL;
}

/* The shift that moves a process of host onto the first host's clock. */
static int host_shift(struct merger *g, const char *host, int has_offset, long long offset,
		      long long *shift)
{
	*shift = 0;
	if (!has_offset) {
		g->st->unaligned++;
		return 0;
	}
	/* one clock: the same host, and a realtime offset within a second of its first
	 * process's (NTP moves it by far less; another boot of the host by far more) */
	for (int i = 0; i < g->n_hosts; i++)
		if (!strcmp(g->hosts[i], host) && llabs(offset - g->host_offset[i]) < 1000000000LL) {
			*shift = g->host_offset[i] - g->ref_offset;
			return 0;
		}
	if (g->n_hosts == g->cap_hosts) {
		int cap = g->cap_hosts ? g->cap_hosts * 2 : 8;
		char(*h)[256] = realloc(g->hosts, (size_t)cap * sizeof(*h));
		long long *o = h ? realloc(g->host_offset, (size_t)cap * sizeof(*o)) : NULL;
		if (h)
			g->hosts = h;
		if (!o)
			return -ENOMEM;
		g->host_offset = o;
		g->cap_hosts = cap;
	}
	snprintf(g->hosts[g->n_hosts], sizeof(g->hosts[0]), "%s", host);
	g->host_offset[g->n_hosts++] = offset;
	if (!g->have_ref) {
		g->ref_offset = offset;
		g->have_ref = 1;
	}
	*shift = offset - g->ref_offset;
	if (*shift)
		g->st->shifted_hosts++;
	return 0;
}

/* pm(old, new, shift): the input's processes, renumbered after those merged already. */
static int map_processes(struct merger *g)
{
	sqlite3_stmt *sel = NULL, *ins = NULL;
	int rc = exec(g,
		      "DROP TABLE IF EXISTS temp.pm; CREATE TEMP TABLE pm(old INTEGER PRIMARY KEY, "
		      "new INTEGER, shift INTEGER)",
		      "process map");
	if (!rc && (sqlite3_prepare_v2(g->db,
				       "SELECT process, COALESCE(host, ''), realtime_offset_ns, "
				       "(SELECT COALESCE(MAX(process), 0) FROM main.processes) "
				       "FROM src.processes ORDER BY process",
				       -1, &sel, NULL) != SQLITE_OK ||
		    sqlite3_prepare_v2(g->db, "INSERT INTO pm VALUES(?, ?, ?)", -1, &ins, NULL) !=
			    SQLITE_OK))
		rc = sql_error(g, "processes");
	long long next = 0;
	int first = 1;
	while (!rc && sqlite3_step(sel) == SQLITE_ROW) {
		if (first)
			next = sqlite3_column_int64(sel, 3);
		first = 0;
		long long shift;
		rc = host_shift(g, (const char *)sqlite3_column_text(sel, 1),
				sqlite3_column_type(sel, 2) != SQLITE_NULL, sqlite3_column_int64(sel, 2),
				&shift);
		sqlite3_bind_int64(ins, 1, sqlite3_column_int64(sel, 0));
		sqlite3_bind_int64(ins, 2, ++next);
		sqlite3_bind_int64(ins, 3, shift);
		if (!rc && sqlite3_step(ins) != SQLITE_DONE)
			rc = sql_error(g, "process map");
		sqlite3_reset(ins);
		g->st->processes++;
	}
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return rc == -ENOMEM ? out_of_memory(g) : rc;
}

/* sm(old, new): the input's strings, interned in the output. */
static int map_strings(struct merger *g)
{
	return exec(g,
		    "DROP TABLE IF EXISTS temp.sm; CREATE TEMP TABLE sm(old INTEGER PRIMARY KEY, "
		    "new INTEGER);"
		    "INSERT INTO main.strings(text) SELECT DISTINCT text FROM src.strings "
		    "WHERE text NOT IN (SELECT text FROM main.strings);"
		    "INSERT INTO sm SELECT s.id, m.id FROM src.strings s JOIN main.strings m "
		    "ON m.text = s.text",
		    "strings");
}

/* appendf: adds to a growing SQL text */
static int appendf(char *buf, size_t cap, size_t *len, const char *fmt, const char *a,
		   const char *b)
{
	int n = snprintf(buf + *len, cap - *len, fmt, a, b);
	if (n < 0 || (size_t)n >= cap - *len)
		return -1;
	*len += (size_t)n;
	return 0;
}

/* INSERT INTO main.T (columns both have) SELECT each mapped FROM src.T. */
static int copy_table(struct merger *g, const struct table_map *t)
{
	char sql[8192], cols[4096], exprs[4096], joins[1024], q[160];
	size_t cl = 0, el = 0, jl = 0;
	int nstr = 0, rc = 0;
	sqlite3_stmt *info;
	const char *from = t->packed ? "srcrows" : "src", *to = t->packed ? "temp" : "main";
	snprintf(q, sizeof(q), "SELECT name FROM pragma_table_info('%s', '%s') WHERE name IN "
			       "(SELECT name FROM pragma_table_info('%s', '%s'))",
		 t->name, from, t->name, to);
	if (sqlite3_prepare_v2(g->db, q, -1, &info, NULL) != SQLITE_OK)
		return sql_error(g, t->name);
	joins[0] = 0;
	while (!rc && sqlite3_step(info) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(info, 0);
		char alias[16];
		rc = appendf(cols, sizeof(cols), &cl, "%s\"%s\"", cl ? ", " : "", c);
		if (rc)
			break;
		if (!strcmp(c, "process"))
			rc = appendf(exprs, sizeof(exprs), &el, "%spm.new%s", el ? ", " : "", "");
		else if (t->kernels && has_word(t->kernels, c)) /* sm_blocks name kernels by id */
			rc = appendf(exprs, sizeof(exprs), &el, "%st.\"%s\" + (SELECT off FROM ko)",
				     el ? ", " : "", c);
		else if (t->has_id && !strcmp(c, "id"))
			rc = appendf(exprs, sizeof(exprs), &el, "%sNULL%s", el ? ", " : "", "");
		else if (!strcmp(t->name, "processes") && !strcmp(c, "realtime_offset_ns"))
			rc = appendf(exprs, sizeof(exprs), &el, "%st.realtime_offset_ns - pm.shift%s",
				     el ? ", " : "", "");
		else if (t->stacks && has_word(t->stacks, c))
			rc = appendf(exprs, sizeof(exprs), &el, "%st.\"%s\" + (SELECT off FROM km)",
				     el ? ", " : "", c);
		else if (t->times && has_word(t->times, c))
			rc = appendf(exprs, sizeof(exprs), &el, "%st.\"%s\" + pm.shift", el ? ", " : "",
				     c);
		else if (t->strings && has_word(t->strings, c)) {
			snprintf(alias, sizeof(alias), "s%d", nstr++);
			rc = appendf(exprs, sizeof(exprs), &el, "%s%s.new", el ? ", " : "", alias);
			if (!rc) {
				char j[200];
				snprintf(j, sizeof(j), " LEFT JOIN sm %s ON %s.old = t.\"%s\"", alias, alias,
					 c);
				rc = appendf(joins, sizeof(joins), &jl, "%s%s", j, "");
			}
		} else
			rc = appendf(exprs, sizeof(exprs), &el, "%st.\"%s\"", el ? ", " : "", c);
	}
	sqlite3_finalize(info);
	if (rc) {
		snprintf(g->err, g->errlen, "cannot merge '%s': table %s has too many columns", g->path,
			 t->name);
		return -EINVAL;
	}
	if (!cl)
		return 0; /* a table the input does not have */
	snprintf(sql, sizeof(sql), "INSERT INTO %s.\"%s\"(%s) SELECT %s FROM %s.\"%s\" t%s%s", to,
		 t->name, cols, exprs, from, t->name,
		 t->process ? t->process : " JOIN pm ON pm.old = t.process", joins);
	return exec(g, sql, t->name);
}

/* ------------------------------------------------------------------ packed tables */

/* temp.pm and temp.sm (made by map_processes and map_strings) in memory, for the rows of
 * the packed tables. */
static int load_maps(struct merger *g)
{
	idmap_free(&g->pm);
	idmap_free(&g->sm);
	sqlite3_stmt *st;
	int rc = 0, step;
	uint32_t n = 0;
	if (sqlite3_prepare_v2(g->db, "SELECT old, new, shift FROM temp.pm", -1, &st, NULL) !=
	    SQLITE_OK)
		return sql_error(g, "process map");
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		uint32_t *slot = idmap_slot(&g->pm, (uint64_t)sqlite3_column_int64(st, 0));
		if (!slot || array_room((void **)&g->moves, &g->cap_moves, n, sizeof(*g->moves),
					64) < 0) {
			rc = out_of_memory(g);
			break;
		}
		g->moves[n] = (struct process_move){sqlite3_column_int64(st, 1),
						    sqlite3_column_int64(st, 2)};
		*slot = n++;
	}
	if (!rc && step != SQLITE_DONE)
		rc = sql_error(g, "process map");
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(g->db, "SELECT old, new FROM temp.sm", -1, &st, NULL) != SQLITE_OK)
		return sql_error(g, "strings");
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t to = sqlite3_column_int64(st, 1);
		uint32_t *slot = idmap_slot(&g->sm, (uint64_t)sqlite3_column_int64(st, 0));
		if (!slot)
			rc = out_of_memory(g);
		else if (to < 0 || to >= KG_IDMAP_NONE) {
			snprintf(g->err, g->errlen, "cannot merge '%s': more strings than a trace holds",
				 g->path);
			rc = -EINVAL;
		} else
			*slot = (uint32_t)to;
	}
	if (!rc && step != SQLITE_DONE)
		rc = sql_error(g, "strings");
	sqlite3_finalize(st);
	return rc;
}

/* One row of an input's packed table as the output holds it: its process renumbered (0
 * when the input has no such process: the row is left out, as the small tables' join
 * leaves theirs), its times moved onto the first host's clock, its strings re-interned,
 * its id the next. */
static int map_row(struct merger *g, struct packed_out *po, struct kg_row *row)
{
	uint32_t p = row_is_null(row, po->process) ? KG_IDMAP_NONE
						   : idmap_get(&g->pm, (uint64_t)row->v[po->process]);
	if (p == KG_IDMAP_NONE)
		return 0;
	int64_t shift = g->moves[p].shift;
	for (int c = 0; c < po->t->nstored; c++) {
		if (row_is_null(row, c) && po->role[c] != NEW_ID)
			continue;
		switch (po->role[c]) {
		case PROCESS: row->v[c] = g->moves[p].to; break;
		case TIME: row->v[c] = kg_time_add(row->v[c], shift); break;
		case STRING: {
			uint32_t to = idmap_get(&g->sm, (uint64_t)row->v[c]);
			if (to == KG_IDMAP_NONE)
				row->nulls |= 1ull << c; /* a string the input lacks */
			else
				row->v[c] = to;
			break;
		}
		case STACK: row->v[c] += g->stack_shift; break;
		case NEW_ID:
			row->v[c] = po->last + 1;
			row->nulls &= ~(1ull << c);
			break;
		case KEEP: break;
		}
	}
	return 1;
}

/* Every row of the input's table t, mapped, into the output's blocks. */
static int copy_packed(struct merger *g, struct packed_out *po)
{
	char why[512];
	struct kg_packed_rows *it;
	int rc = packed_rows_open(g->db, "src", po->t, &it, why, sizeof(why)), got;
	struct kg_row row;
	int64_t rowid;
	while (!rc && (got = packed_rows_next(it, &row, &rowid)) != 0) {
		if (got < 0) {
			rc = got;
			break;
		}
		if (!map_row(g, po, &row))
			continue;
		rc = packed_stream_add_stored(po->stream, &row, ++po->last);
		if (rc == -ENOMEM)
			snprintf(why, sizeof(why), "out of memory");
		else if (rc)
			snprintf(why, sizeof(why), "%s", sqlite3_errmsg(g->db));
	}
	packed_rows_close(it);
	if (rc)
		snprintf(g->err, g->errlen, "cannot merge '%s' (%s): %s", g->path, po->t->name, why);
	return rc;
}

/* The output's packed tables: a stream each, in block order, and what each column of
 * theirs is to a merge (tables[]). Their temp tables, made for the streams' column order,
 * go: no row is ever inserted into them. */
static int open_outputs(struct merger *g)
{
	int i = 0, rc = 0;
	for (const struct kg_packed_table *t = kg_packed_tables; !rc && t->name; t++, i++) {
		if (i == NPACKED) {
			snprintf(g->err, g->errlen, "merge.c: NPACKED is not kg_packed_tables' count");
			return -EINVAL;
		}
		const struct table_map *m = NULL;
		for (size_t k = 0; !m && k < sizeof(tables) / sizeof(tables[0]); k++)
			m = strcmp(tables[k].name, t->name) ? NULL : &tables[k];
		if (!m) {
			snprintf(g->err, g->errlen, "merge.c: no table_map for %s", t->name);
			return -EINVAL;
		}
		struct packed_out *po = &g->out[i];
		char why[400], sql[128];
		po->t = t;
		po->process = -1;
		for (int c = 0; c < t->nstored; c++) {
			const char *name = t->stored[c].name;
			po->role[c] = !strcmp(name, "process")                      ? PROCESS
				      : m->has_id && !strcmp(name, "id")             ? NEW_ID
				      : m->times && has_word(m->times, name)         ? TIME
				      : m->strings && has_word(m->strings, name)     ? STRING
				      : m->stacks && has_word(m->stacks, name)       ? STACK
										     : KEEP;
			if (po->role[c] == PROCESS)
				po->process = c;
		}
		if (po->process < 0) {
			snprintf(g->err, g->errlen, "%s: no process column", t->name);
			return -EINVAL;
		}
		rc = packed_stream_open(g->db, t->name, &po->stream, why, sizeof(why));
		if (rc) {
			snprintf(g->err, g->errlen, "cannot write '%s': %s", g->path, why);
			return rc < 0 ? rc : -EINVAL;
		}
		snprintf(sql, sizeof(sql), "DROP TABLE temp.%s", t->name);
		rc = exec(g, sql, t->name);
	}
	return rc;
}

static int finish_outputs(struct merger *g)
{
	for (int i = 0; i < NPACKED; i++)
		if (packed_stream_finish(g->out[i].stream) < 0) {
			snprintf(g->err, g->errlen, "cannot write '%s' (%s): %s", g->path,
				 g->out[i].t->name, sqlite3_errmsg(g->db));
			return -EIO;
		}
	return 0;
}

static struct packed_out *output_of(struct merger *g, const char *table)
{
	for (int i = 0; i < NPACKED; i++)
		if (g->out[i].t && !strcmp(g->out[i].t->name, table))
			return &g->out[i];
	return NULL;
}

static int attach(struct merger *g, const char *path, const char *as)
{
	sqlite3_stmt *st;
	char sql[64];
	snprintf(sql, sizeof(sql), "ATTACH ?1 AS %s", as);
	if (sqlite3_prepare_v2(g->db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_error(g, "attach");
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sql_error(g, "attach");
	sqlite3_finalize(st);
	return rc;
}

/* srcrows for a compacted input: the kernels' rows, when its SM blocks need them to find
 * their process (copy_table's join), else empty tables (a scratch database, attached as
 * "": removed when detached). */
static int input_kernel_rows(struct merger *g)
{
	int64_t sm = 0;
	char why[400];
	if (trace_db_int(g->db, "SELECT EXISTS(SELECT 1 FROM src.sm_blocks)", NULL, &sm) !=
	    SQLITE_OK)
		sm = 0; /* a trace without the table */
	if (!sm)
		return trace_create_rows(g->db, "srcrows") == SQLITE_OK ? 0 : sql_error(g, "rows");
	if (packed_expand(g->db, "src", "srcrows", "kernels", why, sizeof(why)) == 0)
		return 0;
	snprintf(g->err, g->errlen, "cannot merge '%s': %s", g->path, why);
	return -EIO;
}

static int merge_one(struct merger *g, const char *path)
{
	struct kg_store *check;
	g->path = path;
	if (store_open(path, &check, g->err, g->errlen) < 0) /* a kgantt trace, whole */
		return -EINVAL;
	int compacted = store_packed_only(check);
	store_close(check);
	int rc = attach(g, path, "src");
	if (!rc && (rc = attach(g, compacted ? "" : path, "srcrows")) != 0)
		sqlite3_exec(g->db, "DETACH src", NULL, NULL, NULL);
	if (rc)
		return rc;
	/* one transaction per input: an attached database cannot be detached inside the
	 * transaction that read it (the output is a temporary file until the end anyway) */
	rc = exec(g, "BEGIN", "begin");
	if (!rc && compacted)
		rc = input_kernel_rows(g);
	if (!rc)
		rc = map_processes(g);
	if (!rc)
		rc = map_strings(g);
	if (!rc)
		rc = load_maps(g);
	/* stack ids of this input go on after the output's */
	if (!rc)
		rc = exec(g,
			  "DROP TABLE IF EXISTS temp.km; CREATE TEMP TABLE km AS "
			  "SELECT COALESCE(MAX(id), 0) AS off FROM main.stacks",
			  "stacks");
	if (!rc && trace_db_int(g->db, "SELECT off FROM temp.km", NULL, &g->stack_shift) !=
			   SQLITE_OK)
		rc = sql_error(g, "stacks");
	/* and kernel ids after the output's, so that sm_blocks still find theirs */
	char ko[128];
	snprintf(ko, sizeof(ko), "DROP TABLE IF EXISTS temp.ko; CREATE TEMP TABLE ko AS SELECT "
		 "%lld AS off", (long long)output_of(g, "kernels")->last);
	if (!rc)
		rc = exec(g, ko, "kernels");
	for (size_t i = 0; !rc && i < sizeof(tables) / sizeof(tables[0]); i++)
		rc = tables[i].packed ? copy_packed(g, output_of(g, tables[i].name))
				      : copy_table(g, &tables[i]);
	if (!rc)
		rc = exec(g, "DROP TABLE temp.pm; DROP TABLE temp.sm; DROP TABLE temp.km; "
			     "DROP TABLE temp.ko; COMMIT",
			  "commit");
	else
		sqlite3_exec(g->db, "ROLLBACK", NULL, NULL, NULL);
	if (sqlite3_exec(g->db, "DETACH srcrows; DETACH src", NULL, NULL, NULL) != SQLITE_OK && !rc)
		rc = sql_error(g, "detach");
	return rc;
}

static int write_meta(struct merger *g, const char *const *inputs, int n)
{
	char command[4096];
	size_t len = (size_t)snprintf(command, sizeof(command), "kgantt merge");
	for (int i = 0; i < n && len < sizeof(command); i++)
		len += (size_t)snprintf(command + len, sizeof(command) - len, " %s", inputs[i]);
	return trace_write_meta(g->db, "CLOCK_MONOTONIC_RAW", "kgantt-merge", command) == SQLITE_OK
		       ? 0
		       : sql_error(g, "meta");
}

int trace_merge(const char *out, const char *const *inputs, int n, struct kg_merge_stats *st,
		char *err, size_t errlen)
{
	struct merger g = {.err = err, .errlen = errlen, .path = out, .st = st};
	memset(st, 0, sizeof(*st));
	/* compressed inputs decompressed first: ATTACH goes through the VFS the output's
	 * connection was opened with, which must be the one that serves their copies */
	for (int i = 0; i < n; i++)
		if (uncompress_input(inputs[i], err, errlen) < 0)
			return -EINVAL;
	/* built beside out and renamed over it (util/outfile.h): an interrupted merge leaves
	 * out as it was and no temporary file */
	struct kg_outfile of;
	struct kg_outfile_opts oo = {.what = "the merged trace"};
	const char *tmp = outfile_open_path(&of, out, &oo);
	if (!tmp) {
		snprintf(err, errlen, "%s", of.err);
		return -EIO;
	}
	if (sqlite3_open_v2(tmp, &g.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				       SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot create '%s': %s", out,
			 g.db ? sqlite3_errmsg(g.db) : "out of memory");
		sqlite3_close(g.db);
		outfile_abort(&of);
		return -EIO;
	}
	char setup[128];
	snprintf(setup, sizeof(setup), "PRAGMA page_size=%d; PRAGMA journal_mode=OFF; "
		 "PRAGMA synchronous=OFF;", KG_TRACE_PAGE_SIZE);
	int rc = exec(&g, setup, "set-up");
	if (!rc)
		rc = exec(&g, kg_schema_sql, "schema");
	/* the packed tables' temp tables give their streams the columns, then go */
	if (!rc && trace_create_rows(g.db, "temp") != SQLITE_OK)
		rc = sql_error(&g, "schema");
	if (!rc)
		rc = open_outputs(&g);
	if (!rc)
		rc = write_meta(&g, inputs, n);
	/* the output's strings looked up by text while merging; dropped at the end */
	if (!rc)
		rc = exec(&g, "CREATE INDEX strings_by_text ON strings(text)", "strings");
	for (int i = 0; !rc && i < n; i++)
		rc = merge_one(&g, inputs[i]);
	g.path = out;
	if (!rc)
		rc = finish_outputs(&g);
	for (int i = 0; i < NPACKED; i++)
		packed_stream_free(g.out[i].stream);
	idmap_free(&g.pm);
	idmap_free(&g.sm);
	free(g.moves);
	if (!rc)
		rc = exec(&g, "BEGIN; DROP INDEX strings_by_text", "strings");
	if (!rc)
		rc = exec(&g, kg_index_sql, "indexes");
	char why[400];
	if (!rc && (rc = trace_pack(g.db, why, sizeof(why))) < 0)
		snprintf(err, errlen, "cannot write '%s': %s", out, why);
	if (!rc) /* VACUUM: the pages of the strings' index given back */
		rc = exec(&g, "COMMIT; VACUUM", "commit");
	st->hosts = g.n_hosts;
	if (sqlite3_close(g.db) != SQLITE_OK && !rc) {
		snprintf(err, errlen, "cannot write '%s'", out);
		rc = -EIO;
	}
	if (!rc && (rc = outfile_commit(&of)) < 0)
		snprintf(err, errlen, "%s", of.err);
	if (rc)
		outfile_abort(&of);
	free(g.hosts);
	free(g.host_offset);
	return rc;
}
