/* One process's call stacks from its spool (recorder/stacks.c) → the trace's tables
 * stack_settings, modules, stacks, stack_frames and api_stacks (docs/trace-format.md).
 *
 * The spool reader hands each stack record over as it meets it (the records stay mapped
 * until the process is finished); at the end of the process, stack_import_write
 * symbolises every native address from the files the process had loaded, turns Python
 * instruction offsets into lines, puts the Python frames in their place among the native
 * ones and writes the rows. */
#ifndef KGANTT_STACK_IMPORT_H
#define KGANTT_STACK_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/raw_format.h"
#include "trace/spool_import.h"

struct kg_stack_import;

struct kg_stack_import *stack_import_new(void);
void stack_import_free(struct kg_stack_import *si);

/* Each returns 0, or a negative errno with a message in err (record too short for what
 * it says it holds). Texts are the spool's strings, already looked up. */
int stack_import_settings(struct kg_stack_import *si, const struct kg_raw_stack_settings *r,
			  const char *python);
/* The Python version (major << 8 | minor) the line tables are read by, from another record
 * (host samples' settings) when the call stacks' settings do not say it: with call stacks
 * off, there are none. */
int stack_import_python(struct kg_stack_import *si, uint32_t version);
int stack_import_module(struct kg_stack_import *si, const struct kg_raw_module *r,
			const char *path);
int stack_import_pycode(struct kg_stack_import *si, const struct kg_raw_pycode *r, size_t size,
			const char *filename, const char *qualname, char *err, size_t errlen);
int stack_import_stack(struct kg_stack_import *si, const struct kg_raw_stack *r, size_t size,
		       char *err, size_t errlen);
int stack_import_callsites(struct kg_stack_import *si, const struct kg_raw_callsites *r,
			   size_t size, char *err, size_t errlen);

/* Writes the rows of process `process`. 0 or a negative errno (message in im->err). */
int stack_import_write(struct kg_stack_import *si, struct kg_import *im, int64_t process);
struct kg_hooked_import;
/* The call sites of launch calls the launch hook saw take the ids their calls were given
 * (trace/hooked_import.h); before stack_import_write. si may be NULL. */
void stack_import_recorrelate(struct kg_stack_import *si, const struct kg_hooked_import *h);

#endif
