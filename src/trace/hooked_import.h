/* Launch calls the launch hook saw (src/preload/launch_hook.h) come with a correlation id
 * of the recorder's own (KG_RAW_HOOKED_CORRELATION and up) and their stream, but no
 * kernel: CUPTI gave the kernel the id of a call it never reported. The kernel is the one
 * on the call's device and stream that the driver queued while the call ran: its
 * latency timestamp `queued` lies between the call's start and end (1.4-1.8 µs before
 * the end on an H200). The import keeps a process's hooked calls and its kernels' queued
 * times until the process ends, then gives each call its kernel's id, and its call site
 * with it (stack_import.c). A call that finds no kernel, or two, keeps its own id: it
 * then dates no kernel, which is better than dating the wrong one. */
#ifndef KGANTT_HOOKED_IMPORT_H
#define KGANTT_HOOKED_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/raw_format.h"

struct kg_hooked_import;

struct kg_hooked_import *hooked_import_new(void);
void hooked_import_free(struct kg_hooked_import *h);
/* A kernel of the process that a hooked call may have launched. 0 or -ENOMEM. */
int hooked_import_kernel(struct kg_hooked_import *h, uint32_t device, uint32_t stream,
			 uint64_t queued, uint32_t correlation);
/* A hooked launch call (its API record), kept until hooked_import_match. 0 or -ENOMEM. */
int hooked_import_call(struct kg_hooked_import *h, const struct kg_raw_api *a);
/* The stream record that follows a hooked call's API record. */
void hooked_import_stream(struct kg_hooked_import *h, const struct kg_raw_hooked_launch *x);
/* Each kept call gets its kernel's correlation id where exactly one kernel fits; the
 * number of calls that did. 0 or more, or -ENOMEM. */
long hooked_import_match(struct kg_hooked_import *h);
/* The kept calls (0 for NULL), each with its correlation id as matched. */
size_t hooked_import_ncalls(const struct kg_hooked_import *h);
const struct kg_raw_api *hooked_import_call_at(const struct kg_hooked_import *h, size_t i);
/* The id a hooked call's own id became (itself when unmatched, or not a hooked id). */
uint32_t hooked_import_correlation(const struct kg_hooked_import *h, uint32_t own);

#endif
