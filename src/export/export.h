/* kgantt export: a loaded model written out for other tools — Chrome trace-event JSON
 * (ui.perfetto.dev, chrome://tracing), CSV for pandas, or a kgantt trace (SQLite).
 *
 * Every format is a set of callbacks, one per kind of event, in the manner of uftrace's
 * `struct uftrace_dump_ops`. One walker (export_walk.c) visits the model in a fixed order
 * and calls them, so every format sees exactly the same events:
 *
 *   begin
 *   process (each)  device (each)  thread (each)  stream (each)
 *   api and range   per process, per thread, by start (ties: the longer first, so an
 *                   enclosing slice comes before what it encloses); ranges of no thread
 *                   last in their process
 *   host_span       per thread, by start (model order: a thread's spans never overlap)
 *   op              per stream, by start (ties: the longer first)
 *   sync            per process, by start (ties: the longer first)
 *   end
 *
 * A format's state embeds struct kg_export_ops as its first member and gets back to
 * itself from the pointer it is called with. A callback left NULL is skipped. Each
 * returns 0 or a negative errno-style code, which stops the walk and is returned. */
#ifndef KGANTT_EXPORT_H
#define KGANTT_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

struct kg_export_ops {
	int (*begin)(struct kg_export_ops *x, const struct kg_model *m);
	int (*process)(struct kg_export_ops *x, const struct kg_model *m, uint32_t i);
	int (*device)(struct kg_export_ops *x, const struct kg_model *m, uint32_t i);
	int (*thread)(struct kg_export_ops *x, const struct kg_model *m, uint32_t i);
	int (*stream)(struct kg_export_ops *x, const struct kg_model *m, uint32_t i);
	int (*api)(struct kg_export_ops *x, const struct kg_model *m, uint32_t i);
	int (*range)(struct kg_export_ops *x, const struct kg_model *m, uint32_t i);
	int (*host_span)(struct kg_export_ops *x, const struct kg_model *m, uint32_t i);
	int (*op)(struct kg_export_ops *x, const struct kg_model *m, uint32_t i);
	int (*sync)(struct kg_export_ops *x, const struct kg_model *m, uint32_t i);
	int (*end)(struct kg_export_ops *x, const struct kg_model *m);
};

/* Visits the model in the order above. 0, -ENOMEM, or the first callback's error. */
int export_walk(const struct kg_model *m, struct kg_export_ops *ops);

enum kg_export_format {
	KG_EXPORT_CHROME = 0,   /* trace-event JSON, displayTimeUnit ns */
	KG_EXPORT_PERFETTO,     /* the same, plus each kernel's queue phases as slices */
	KG_EXPORT_CSV,
	KG_EXPORT_SQLITE,       /* a kgantt trace (src/trace/schema.c) */
	KG_EXPORT_FOLDED,       /* host time while the GPU waited: folded stacks */
	KG_EXPORT_SPEEDSCOPE,   /* the same, speedscope's JSON */
};

/* What a CSV export lists: one row per GPU operation, API call, range, sync or host span
 * (a sample's period, or a profiler's host event). */
enum kg_export_table { KG_TABLE_OPS = 0, KG_TABLE_APIS, KG_TABLE_RANGES, KG_TABLE_SYNCS,
		       KG_TABLE_HOST };

struct kg_export_opts {
	enum kg_export_format format;
	enum kg_export_table table;
	/* the --from/--to/--nvtx window the model was restricted to, for the JSON's
	 * otherData; windowed = 0 when the whole trace is exported */
	int windowed;
	int64_t window_begin, window_end;
	const char *window_nvtx;
};

/* The writers. JSON and CSV stream to f (which the caller opens, checks and closes);
 * they return 0, -ENOMEM, or -EIO when a write failed (errno then says why). The
 * SQLite writer creates path itself (through a temporary file and a rename) and puts a
 * message naming the file in err on failure. */
int export_chrome(FILE *f, const struct kg_model *m, const struct kg_export_opts *o);
int export_csv(FILE *f, const struct kg_model *m, const struct kg_export_opts *o);
int export_sqlite(const char *path, const struct kg_model *m, const struct kg_export_opts *o,
		  char *err, size_t errlen);
/* The tree of what the launching thread did while the GPU waited (report --host), for
 * flame-graph tools (export_flame.c): 0, -ENODATA when the trace has no host activity,
 * -ENOMEM, -EIO. */
struct kg_analysis;
int export_folded(FILE *f, const struct kg_analysis *a);
int export_speedscope(FILE *f, const struct kg_analysis *a, const char *title);

#endif
