/* Loading a trace of any supported format into the model. */
#ifndef KGANTT_LOAD_H
#define KGANTT_LOAD_H

#include <stddef.h>

#include "model/model.h"

enum kg_format { KG_FORMAT_UNKNOWN = 0, KG_FORMAT_KGANTT, KG_FORMAT_KINETO, KG_FORMAT_NSYS };

/* Progress for long loads: called now and then with the fraction done (0..1). */
typedef void (*kg_progress_fn)(double fraction, void *arg);

struct kg_load_opts {
	kg_progress_fn progress;
	void *progress_arg;
	int one_thread;   /* read on the calling thread only (tests compare the two ways) */
	int rows_only;    /* kgantt traces: read the SQL rows even where packed columns exist */
	int keep_untrue_times; /* tests of what comes after loading: keep the records whose
				* times cannot be true (model_finish leaves them out) */
	int any_span;     /* export's tables and info, which compute nothing of the times: a
			   * trace whose records span more than any recording (traces of two
			   * machines merged) is read as it is, not refused */
	int copy_only;    /* kgantt traces: the caller copies the rows from the file itself
			   * (export -f sqlite of a whole trace), so only what says whether it
			   * holds anything is read: processes, devices, streams, copies,
			   * memsets, syncs, ranges; the kernels and API calls are counted
			   * (kg_model.unread_rows), not read, and so are stacks, host and
			   * hardware samples, SM blocks. Other formats are read whole */
};

/* Detects the format from the content (never from the file name), reads the file into
 * m (model_init'ed here) and finishes it. 0, or a negative errno-style code with a
 * message in err naming the file, the place and what was expected. */
int model_load(const char *path, struct kg_model *m, const struct kg_load_opts *opts,
	       char *err, size_t errlen);
enum kg_format detect_format(const char *path, char *err, size_t errlen);
const char *format_name(enum kg_format f);
/* The name of the format a model was read from, by its source key ("kgantt", "kineto",
 * "nsys"): "kgantt trace", ... */
const char *source_name(const char *source);
/* What recorded it beside CUPTI ("the kgantt recorder", "Nsight Systems"; "the profiler"
 * for another source), and how a trace of it gets host samples (a command). */
const char *source_recorder(const char *source);
const char *source_host_samples(const char *source);

/* The readers; each fills an initialised model and does not call model_finish. */
int read_kgt(struct kg_model *m, const char *path, const struct kg_load_opts *opts, char *err,
	     size_t errlen);
/* The same of a trace open (trace/store.h: model_load opens it once, to tell what it is). */
struct kg_store;
int read_kgt_store(struct kg_model *m, struct kg_store *s, const struct kg_load_opts *opts,
		   char *err, size_t errlen);
int read_kineto(struct kg_model *m, const char *path, const struct kg_load_opts *opts,
		char *err, size_t errlen);
int read_nsys(struct kg_model *m, const char *path, const struct kg_load_opts *opts, char *err,
	      size_t errlen);

#endif
