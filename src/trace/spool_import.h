/* Builds a kgantt trace (SQLite, trace/schema.c) from the recorder's raw spools.
 *
 *   struct kg_import im;
 *   import_begin(&im, "run.kgt", "kgantt record -- ./app");
 *   import_spool_dir(&im, "run.kgt.spool");     (or import_spool_file per file)
 *   import_set_exit_status(&im, pid, "exit 0");
 *   import_commit(&im);                          (renames it over run.kgt: util/outfile.h)
 *   import_abort(&im) on any error.
 *
 * Every function returns 0 or a negative errno-style code; on failure im->err holds a
 * message that names the file, the byte offset and what was expected. */
#ifndef KGANTT_SPOOL_IMPORT_H
#define KGANTT_SPOOL_IMPORT_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/row.h"
#include "util/outfile.h"
#include "util/strtab.h"

struct kg_packed_stream;

/* The tables written as blocks as their records come (trace/packed.h). */
enum { KG_IM_KERNELS, KG_IM_API_CALLS, KG_IM_HOST_SAMPLES, KG_IM_STREAMS };

struct kg_import_process {
	int64_t process; /* row id in the processes table */
	uint32_t pid;
	char host[128];
	int complete;
	uint64_t kernels, memcpys, memsets, api_calls, syncs, nvtx, dropped;
	uint64_t incomplete; /* kernels, copies, memsets and API calls with a time missing */
	uint64_t start_ns, end_ns;
	int error_messages;
	char first_error[512];
	/* host samples (record --host-samples): whether the process said how it sampled, at
	 * what rate (0: it could not), the samples in the trace, and the recorder's final
	 * counts of those it took and of those it lost (its buffers full) */
	int host_sampled;
	uint32_t host_hz;
	uint64_t host_samples, host_taken, host_lost;
};

struct kg_import {
	sqlite3 *db;
	char path[4096];
	struct kg_outfile out;      /* the trace is built in out.tmp (util/outfile.h) */
	char err[1024];
	struct kg_strtab strings;   /* every text, interned; id = strings.id */
	uint32_t *demangled;        /* by string id: id of its demangled text, 0 unknown */
	size_t demangled_cap;
	sqlite3_stmt *st[16];
	struct kg_packed_stream *stream[KG_IM_STREAMS];
	int64_t rows[KG_IM_STREAMS]; /* rows written to each stream: the last id given */
	struct kg_import_process *procs;
	size_t nprocs, procs_cap;
	uint64_t strings_written;   /* strings already inserted into the table */
	int64_t stacks_written;     /* stacks of the processes imported so far: ids go on */
	uint64_t stacks_ns;         /* spent writing call stacks (symbolising them, mostly):
				     * record says it when it is most of the wait */
	uint32_t stack_modules;     /* modules whose files were read for their symbols */
};

int import_begin(struct kg_import *im, const char *out_path, const char *command);
int import_spool_file(struct kg_import *im, const char *spool_path);
/* Imports every *.kgspool file of a directory, in name order. */
int import_spool_dir(struct kg_import *im, const char *dir, int *nfiles);
int import_set_exit_status(struct kg_import *im, uint32_t pid, const char *status);
/* When `kgantt record` started the program (CLOCK_MONOTONIC_RAW ns: the origin of its
 * --delay), into the trace's meta table as program_start_ns. */
int import_set_program_start(struct kg_import *im, uint64_t ns);
int import_commit(struct kg_import *im);
/* Global id of a text, inserted into the strings table the first time it is seen; 0 for
 * NULL, negative on error. */
int64_t import_string(struct kg_import *im, const char *text);
/* A row of a table written as blocks (KG_IM_*), its columns from 1 (0 is the id) up to
 * ncolumns - 1 filled, to its stream with the next id: ids go 1, 2, 3... over every spool,
 * as the rowids of SQL inserts would. 0, or a negative errno with the message in err. */
int import_add_row(struct kg_import *im, int which, struct kg_row *row, int ncolumns);
/* A spool's time (0 and UINT64_MAX: not known, NULL) and text (NULL stays NULL) bound to
 * a statement's parameter col. */
void import_bind_ts(sqlite3_stmt *st, int col, uint64_t ts);
void import_bind_text(sqlite3_stmt *st, int col, const char *s);
void import_abort(struct kg_import *im);

#endif
