/* The trace store: a kgantt trace opened once, checked once (what it is, its version, the
 * reader version it needs, the tables it must have), and asked for what it holds: its meta
 * values, a table's row count, and rows, whether a table keeps them as packed blocks
 * (trace/packed.h) or as SQL rows. Every reader of a trace's rows (the model loader,
 * info, dump, pack, merge) goes through it, so every one runs the same checks on what it
 * reads: a trace either loads, dumps and exports, or is refused by all with the same
 * message.
 *
 * What the model loader reads is planned here, once: each read (enum kg_read) is a
 * query of the columns it needs, numbered by the enums below; the kernels' and API calls'
 * columns are their blocks' first (trace/columns.h), read from blocks or selected by name
 * from rows, so both ways give the same row. Errors: a negative errno-style code, and
 * store_error's message, which names the file. */
#ifndef KGANTT_STORE_H
#define KGANTT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/columns.h"
#include "trace/row.h"

struct kg_store;
struct kg_store_rows;

/* ------------------------------------------------------------------ opening */

/* What an SQLite file is, by its tables (store_open_sqlite). */
enum kg_store_kind { KG_STORE_TRACE, KG_STORE_NSYS };

/* Opens a kgantt trace and checks it: 0 and *out, or a negative errno with a message in
 * err that names the file and says what was expected (not a trace, a directory, truncated,
 * damaged, too new a format). */
int store_open(const char *path, struct kg_store **out, char *err, size_t errlen);
/* The same for any SQLite file a reader takes: KG_STORE_TRACE with *out (checked as
 * store_open checks), KG_STORE_NSYS (an Nsight Systems export: *out NULL, its reader opens
 * it), or a negative errno and the message (neither, truncated, damaged). */
int store_open_sqlite(const char *path, struct kg_store **out, char *err, size_t errlen);
void store_close(struct kg_store *s);

const char *store_path(const struct kg_store *s);
/* The last error's message ("cannot read 'PATH' (WHAT): ..."). */
const char *store_error(const struct kg_store *s);

/* ------------------------------------------------------------------ what it holds */

/* The reads between these two in one read transaction (a shared lock held from the first
 * to the last): each statement alone takes the lock, looks for a journal and checks the
 * file for changes, and drops its cached pages when it finds one: system calls that were
 * most of a small trace's load. 0, or the error. */
int store_hold(struct kg_store *s);
void store_release(struct kg_store *s);

/* A meta value, copied into out (empty when missing). */
void store_meta(struct kg_store *s, const char *key, char *out, size_t outlen);
/* 1 when the trace has this table (older traces lack the newer ones), 0 when not. */
int store_has_table(struct kg_store *s, const char *table);
/* 1 when it has the table and a row in it, 0 when not. */
int store_has_rows(struct kg_store *s, const char *table);
/* 1 when the trace keeps its packed tables only as blocks (format 5). */
int store_packed_only(const struct kg_store *s);
/* 1 when a packed table's blocks stand for its rows (trace/packed.h: packed_usable). */
int store_packed_usable(struct kg_store *s, const char *table);
/* A table's rows, however it keeps them. 0 or the error (a table it lacks: -EIO). */
int store_count(struct kg_store *s, const char *table, int64_t *rows);
/* The largest id of strings, and how many there are. 0 or the error. */
int store_strings_extent(struct kg_store *s, int64_t *max_id, int64_t *count);
/* The first message of the recorder that begins with prefix, into text; 0 when none. */
int store_first_message(struct kg_store *s, const char *prefix, char *text, size_t size);
/* The tables and views, as a trace of SQL rows has them (a compacted trace's packed tables
 * and the views on them included), by type then name: a read whose rows are (name,
 * type). 0 or the error. */
int store_read_names(struct kg_store *s, struct kg_store_rows **out);
/* Every column of the rows of a table or view (a compacted trace's packed tables and the
 * views on them made rows first), at most limit rows (-1: all): what dump writes. 0, or
 * the error (no such table: -ENOENT). */
int store_read_any(struct kg_store *s, const char *name, long limit, struct kg_store_rows **out);
/* A read's columns, and their names. */
int store_columns(const struct kg_store_rows *it);
const char *store_column_name(const struct kg_store_rows *it, int col);

/* ------------------------------------------------------------------ reading rows */

/* The reads of the model loader and of info; each names the columns it gives. */
enum kg_read {
	KG_READ_STRINGS,       /* id, text */
	KG_READ_PROCESSES,     /* PR_* */
	KG_READ_DEVICES,       /* DV_* */
	KG_READ_STREAMS,       /* process, context, stream, priority, flags, device, null_stream */
	KG_READ_REFUSALS,      /* process, text: the recorder's errors */
	KG_READ_MEMCPYS,       /* COL_*, C_* */
	KG_READ_MEMSETS,       /* COL_*, S_* */
	KG_READ_SYNCS,         /* process, type, context, stream, start, end, correlation, device */
	KG_READ_NVTX,          /* process, thread, domain, name, start, end */
	KG_READ_KERNELS,       /* COL_*, K_*: the rows, on one thread */
	KG_READ_API_CALLS,     /* A_* */
	KG_READ_STACK_FRAMES,  /* stack, process, flags, kind, function, file, line, module,
				* address, by stack and depth */
	KG_READ_API_STACKS,    /* process, correlation, stack */
	KG_READ_STACK_SETTING, /* mode, launch_first, launch_every, python: the one that
				* describes the stacks */
	KG_READ_HW_DEVICES,    /* process, device, interval_ns, chip, state, note, lost_samples */
	KG_READ_HW_METRICS,    /* process, device, figure, metric */
	KG_READ_HW_SAMPLES,    /* process, device, start, end, then each figure (REAL) */
	KG_READ_SM_SETTINGS,   /* process, device, blocks, kernels, dropped, unmatched,
				* offset_mad_ns, offset_spread_ns */
	KG_READ_SM_BLOCKS,     /* kernel id, its process, correlation, start, context, stream,
				* sm, block, start, end */
	KG_READ_HOST_SETTINGS, /* process, hz, note, threads, taken, lost_ring + lost_pending,
				* no_stack, lost_threads */
	KG_READ_HOST_THREADS,  /* process, thread (its tid), name: by process, then number */
	KG_READ_TRACER,        /* process, kind, thread, start, end: CUPTI's overhead records
				* of threads */
	KG_READ_LAUNCH_SETTINGS, /* process, calls ('sampled' or 'all'), window_on_ms,
				  * window_period_ms, why */
	/* info's */
	KG_READ_INFO_PROCESSES,  /* process, pid, ppid, host, rank, mode, complete, exit_status,
				  * dropped, incomplete, duration ms, cmdline, spool_note */
	KG_READ_INFO_MESSAGES,   /* process, pid, level, text: what info repeats */
	KG_READ_INFO_STACKS,     /* mode, launch_first, launch_every, max_depth, python */
	KG_READ_INFO_DEVICES,    /* device, name, cc_major, cc_minor, sm_count, GiB, uuid */
	KG_READ_INFO_HW,         /* process, device, chip, state, note, interval_ns,
				  * lost_samples, samples, pid */
	KG_READ_INFO_HW_FIGURES, /* 0, then each figure's samples, of ?1 process, ?2 device */
	KG_READ_INFO_PARTIAL,    /* the stacks cut short */
	KG_READ_INFO_HW_PROCESSES, /* the processes with hardware samples */
	KG_READ_INFO_SM,         /* device, blocks, kernels, dropped, unmatched, own_records,
				  * offset_mad_ns, offset_spread_ns, pid, SMs */
	KG_READ_INFO_HOST,       /* pid, hz, note, samples, threads sampled, taken, lost_ring,
				  * lost_pending, no_stack, lost_threads, unwind, python, signal */
	KG_READ_COUNT
};

enum { PR_NUMBER, PR_PID, PR_PPID, PR_HOST, PR_CMDLINE, PR_RANK, PR_COMPLETE, PR_EXIT_STATUS,
       PR_DROPPED, PR_INCOMPLETE, PR_START, PR_END, PR_REALTIME_OFFSET };
enum { DV_PROCESS, DV_DEVICE, DV_NAME, DV_UUID, DV_SM_COUNT, DV_MAX_WARPS_PER_SM,
       DV_MAX_BLOCKS_PER_SM, DV_MAX_THREADS_PER_BLOCK, DV_MAX_REGS_PER_SM, DV_MAX_REGS_PER_BLOCK,
       DV_MAX_SMEM_PER_SM, DV_MAX_SMEM_PER_BLOCK, DV_CC_MAJOR, DV_CC_MINOR, DV_MEMORY_BYTES };

/* Kernels, memcpys and memsets share their first columns; the kernels' and the API calls'
 * are their blocks' first (trace/columns.h). */
enum {
	COL_PROCESS, COL_DEVICE, COL_CONTEXT, COL_STREAM, COL_CORRELATION, COL_INCOMPLETE,
	COL_START, COL_END, COL_CHANNEL,
	/* kernels */
	K_NAME = KG_KB_demangled, K_QUEUED = KG_KB_queued, K_SUBMITTED = KG_KB_submitted,
	K_GRID = KG_KB_grid_x, K_BLOCK = KG_KB_block_x, K_REGS = KG_KB_registers_per_thread,
	K_SMEM_STATIC = KG_KB_static_smem, K_SMEM_DYNAMIC = KG_KB_dynamic_smem,
	K_SMEM_CONFIG = KG_KB_shared_mem_executed, K_GRAPH = KG_KB_graph,
	K_DEVICE_LAUNCHED = KG_KB_device_launched, K_COLUMNS = KG_KERNEL_MODEL_COLUMNS,
	/* memcpys */
	C_COPY_KIND = 9, C_SRC_KIND, C_DST_KIND, C_BYTES, C_ASYNC, C_GRAPH, C_COLUMNS,
	/* memsets */
	S_MEMORY_KIND = 9, S_BYTES, S_ASYNC, S_GRAPH, S_COLUMNS,
	/* api_calls */
	A_PROCESS = KG_AB_process, A_THREAD = KG_AB_thread, A_DOMAIN = KG_AB_domain,
	A_NAME = KG_AB_name, A_START = KG_AB_start, A_END = KG_AB_end,
	A_CORRELATION = KG_AB_correlation, A_COLUMNS = KG_API_MODEL_COLUMNS,
};
/* the columns kernels share with copies and memsets: at the same places in a block */
_Static_assert((int)KG_KB_process == (int)COL_PROCESS && (int)KG_KB_device == (int)COL_DEVICE &&
		       (int)KG_KB_context == (int)COL_CONTEXT && (int)KG_KB_stream == (int)COL_STREAM &&
		       (int)KG_KB_correlation == (int)COL_CORRELATION && (int)KG_KB_incomplete == (int)COL_INCOMPLETE &&
		       (int)KG_KB_start == (int)COL_START && (int)KG_KB_end == (int)COL_END &&
		       (int)KG_KB_channel == (int)COL_CHANNEL,
	       "trace/columns.h: kernels' first columns");
_Static_assert((int)K_GRID + 2 == (int)KG_KB_grid_z && (int)K_BLOCK + 2 == (int)KG_KB_block_z,
	       "trace/columns.h: grid and block dimensions side by side");

/* The rows of a read, one at a time. */
struct kg_store_rows;
/* 0 and *out (no rows when the trace lacks the read's tables), or the error. */
int store_read(struct kg_store *s, enum kg_read what, struct kg_store_rows **out);
/* Binds the read's ?1, ?2 (KG_READ_INFO_HW_FIGURES: process, device). */
void store_read_bind(struct kg_store_rows *it, int param, int64_t v);
/* 1 with the next row (row may be NULL: then only the accessors below), 0 after the last,
 * or the error. */
int store_next(struct kg_store_rows *it, struct kg_row *row);
/* The current row's column col: as an integer, a real, text (NULL when NULL), NULL or not. */
int64_t store_int(const struct kg_store_rows *it, int col);
double store_real(const struct kg_store_rows *it, int col);
const char *store_text(const struct kg_store_rows *it, int col);
int store_null(const struct kg_store_rows *it, int col);
void store_done(struct kg_store_rows *it);

/* Every row of a packed table, every column in block order, from its blocks or its SQL
 * rows (trace/packed.h's packed_rows, with its checks): what info counts. Read with
 * store_next; the accessors give the row's integers. */
int store_read_table(struct kg_store *s, const char *table, struct kg_store_rows **out);

/* ------------------------------------------------------------------ the big tables */

/* How kernels or api_calls is read on several threads: in units, each its packed blocks
 * (blocks) or a chunk of KG_STORE_CHUNK ids of its rows; no units when the ids are too
 * sparse for chunks (read it with store_read then). */
#define KG_STORE_CHUNK 16384
struct kg_store_unit {
	int64_t first_id;
	uint32_t rows;         /* a block's rows; a chunk's at most */
	uint32_t slice;        /* the rows of the units before it: where its own start */
};
struct kg_store_plan {
	const char *table;
	int blocks;
	uint32_t nunits;
	struct kg_store_unit *units;
	uint64_t slots;        /* rows the units may give, all together */
};
/* The plan of table ("kernels", "api_calls") of rows rows; blocks unless rows_only or
 * they cannot stand for the rows of a trace that has rows. 0, or the error (the blocks of
 * a compacted trace do not fit together: -EBADMSG). */
int store_plan(struct kg_store *s, const char *table, int rows_only, int64_t rows,
	       struct kg_store_plan *p);
void store_plan_free(struct kg_store_plan *p);

/* One thread's reader of units: the store's connection (own 0), or a connection of its
 * own for a second thread. */
struct kg_store_cursor;
int store_cursor_open(struct kg_store *s, int own, struct kg_store_cursor **out);
/* The rows of unit u of p, in the read's columns (COL_*, K_* / A_*): 0, or the error. */
int store_unit_open(struct kg_store_cursor *c, const struct kg_store_plan *p, uint32_t u);
/* 1 with the next row, 0 after the unit's last, or the error (-EBADMSG: a damaged
 * block, said as every reader says it). */
int store_unit_next(struct kg_store_cursor *c, struct kg_row *row);
const char *store_cursor_error(const struct kg_store_cursor *c);
/* The message of a damaged block of table at id first, into err: -EBADMSG. */
int store_damaged(const struct kg_store *s, char *err, size_t errlen, const char *table,
		  int64_t first);
void store_cursor_close(struct kg_store_cursor *c);

#endif
