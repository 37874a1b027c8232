/* The importer's side of host samples (record --host-samples, recorder/hostsample.c): one
 * process's KG_RAW_HOST_SETTINGS, _THREAD, _SAMPLES and _COUNTS records into the trace's
 * host_settings, host_threads and host_samples tables (trace/schema.c,
 * docs/trace-format.md). The samples go to their packed blocks as they come, each naming
 * its thread by the kernel's thread id (as API calls do) and its stack by the trace's stack
 * id; the settings, the final counts and the threads are written when the process is
 * finished. */
#ifndef KGANTT_HOST_IMPORT_H
#define KGANTT_HOST_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/raw_format.h"
#include "trace/spool_import.h"

struct kg_host_import;

/* For process `process` (its row in processes), whose summary is p. NULL: no memory. */
struct kg_host_import *host_import_new(struct kg_import *im, int64_t process,
				       struct kg_import_process *p);
void host_import_free(struct kg_host_import *h);

/* Each takes one record (size: the record's), its texts already looked up (NULL when
 * absent). 0, -EINVAL with `why` filled (the record does not hold what it says, a sample
 * of a thread no record named), or -ENOMEM / -EIO (message in the import's err).
 * stack_base: what the process's stack ids are moved by in the trace
 * (kg_import.stacks_written). */
int host_import_settings(struct kg_host_import *h, const struct kg_raw_host_settings *x,
			 const char *python, const char *note);
int host_import_thread(struct kg_host_import *h, const struct kg_raw_host_thread *x,
		       const char *name, char *why, size_t why_size);
int host_import_samples(struct kg_host_import *h, const struct kg_raw_host_samples *x,
			size_t size, int64_t stack_base, char *why, size_t why_size);
int host_import_counts(struct kg_host_import *h, const struct kg_raw_host_counts *x);

/* The process's host_settings and host_threads rows, once its records are all read; 0
 * when it sampled nothing. 0, -ENOMEM or -EIO (message in the import's err). */
int host_import_write(struct kg_host_import *h);

#endif
