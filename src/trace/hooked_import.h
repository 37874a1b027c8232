/* Launch calls the launch hook saw (src/preload/launch_hook.h) come with a correlation id
 * of the recorder's own (KG_RAW_HOOKED_CORRELATION and up) and their stream, but no
 * kernel: CUPTI gave the kernel the id of a call it never reported. The kernel is the one
 * on the call's device and stream that the driver queued while the call ran: its
 * latency timestamp `queued` lies between the call's start and end (1.4-1.8 µs before
 * the end on an H200). The import keeps a process's hooked calls and its kernels' queued
 * times until the process ends, then gives each call its kernel's id, and its call site
 * with it (stack_import.c). A call that finds no kernel, or two, keeps its own id: it
 * then dates no kernel, which is better than dating the wrong one.
 *
 * Without latency timestamps (the launch hook dating every launch: record's
 * KGANTT_DEV_DATED), a stream's calls and kernels are paired by launch order: the n-th
 * launch call on a stream that did not fail, by start, is the n-th kernel CUPTI recorded
 * there outside a graph, by correlation id (CUPTI hands them out in launch order). It holds
 * on every stream of one launching thread (H100: 100 % of the kernels of a launch loop,
 * PyTorch, CuPy and JAX dated inside their own call, tests/gpu/hook_stamps.py). Where two
 * threads launch on one stream at once, two kernels' calls may be swapped, each then
 * dated by a call that overlapped its own. A stream whose calls and kernels are not as
 * many (a kernel record lost; a launch inside its thread's stream capture, which queues
 * none, is left out: hooked_import_capture), or where more than one
 * kernel in HOOKED_EARLY_PER started before its call, is left unmatched and counted. */
#ifndef KGANTT_HOOKED_IMPORT_H
#define KGANTT_HOOKED_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/raw_format.h"

struct kg_hooked_import;

struct kg_hooked_import *hooked_import_new(void);
void hooked_import_free(struct kg_hooked_import *h);
/* A kernel of the process that a hooked call may have launched (not a graph's): queued
 * and start 0 where unknown. 0 or -ENOMEM. */
int hooked_import_kernel(struct kg_hooked_import *h, uint32_t device, uint32_t stream,
			 uint64_t queued, uint64_t start, uint32_t correlation);
/* 1: pair by launch order even where kernels have queued times (KGANTT_DEV_MATCH=order,
 * tests/gpu/check_dated.py: checked against the queued times). */
void hooked_import_in_order_only(struct kg_hooked_import *h, int on);
/* A stream capture's begin (begin 1: the call's start) or end (0: the call's end) on thread
 * tid: the thread's launches in between queue no kernel (they become a graph's nodes).
 * 0 or -ENOMEM. */
int hooked_import_capture(struct kg_hooked_import *h, uint32_t tid, uint64_t t, int begin);
/* A hooked launch call (its API record), kept until hooked_import_match. 0 or -ENOMEM. */
int hooked_import_call(struct kg_hooked_import *h, const struct kg_raw_api *a);
/* The stream record that follows a hooked call's API record. */
void hooked_import_stream(struct kg_hooked_import *h, const struct kg_raw_hooked_launch *x);
/* Each kept call gets its kernel's correlation id where exactly one kernel fits; the
 * number of calls that did. 0 or more, or -ENOMEM. */
long hooked_import_match(struct kg_hooked_import *h);
/* The streams whose calls were left unmatched by launch order, and their calls and
 * kernels. */
struct kg_hooked_unmatched {
	uint64_t streams, calls, kernels;
};
struct kg_hooked_unmatched hooked_import_unmatched(const struct kg_hooked_import *h);
/* The kept calls (0 for NULL), each with its correlation id as matched. */
size_t hooked_import_ncalls(const struct kg_hooked_import *h);
const struct kg_raw_api *hooked_import_call_at(const struct kg_hooked_import *h, size_t i);
/* The id a hooked call's own id became (itself when unmatched, or not a hooked id). */
uint32_t hooked_import_correlation(const struct kg_hooked_import *h, uint32_t own);

#endif
