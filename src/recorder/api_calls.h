/* Full mode's API calls, taken from CUPTI's callbacks instead of its RUNTIME and DRIVER
 * activity records (those are what KGANTT_DEV_API_ACTIVITY=1 goes back to, for
 * measurement only).
 *
 * Full mode cost tiny PyTorch ops 1.46x raw CUPTI, and as much with every API call
 * recorded (`--all-api`) as without the trivial queries (docs/results/api-filter-h200.md):
 * not the records, then, but, it is suspected, CUPTI instrumenting every runtime and
 * driver function once their activity kinds are on (PyTorch makes about 14 calls per
 * kernel). Callbacks are enabled per function, so a function left out costs nothing. Each call's
 * enter and exit times (CLOCK_MONOTONIC_RAW, the clock of every other record) go into a
 * buffer of the calling thread; a drainer thread (and the flusher) moves the buffers to
 * the spool as the same KG_RAW_API records the activity path writes (recorder/convert.c). */
#ifndef KGANTT_API_CALLS_H
#define KGANTT_API_CALLS_H

#include <cupti.h>
#include <stdint.h>

#include "recorder/convert.h"
#include "recorder/spool.h"

/* skip(domain, cbid): 1 for a function not to record (the trivial queries). Enables the
 * callbacks of every other runtime and driver function; calls are written to spool,
 * their names interned through conv. 0, or -1 (nothing enabled). */
int api_calls_start(CUpti_SubscriberHandle sub,
		    int (*skip)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid),
		    struct kg_convert *conv, struct kg_spool *spool);
/* CUPTI's callbacks on or off for every runtime and driver function CUPTI names for which
 * pick(domain, cbid) returns 1. */
void api_calls_switch(CUpti_SubscriberHandle sub, uint32_t on,
		      int (*pick)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid));
/* From the CUPTI API callback, on the calling thread; a call that ends while not
 * capturing is not recorded. */
void api_calls_on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			   const CUpti_CallbackData *cb, int capturing);
/* A kernel launch the launch hook saw (recorder/hooked_launches.h), on the launching
 * thread: call holds all but the thread, its hooked_stream set. */
void api_calls_on_hooked_launch(const struct kg_api_call *call);
/* 1: the calls that synchronise write CUPTI's synchronisation records too (sync_calls.h). */
void api_calls_record_syncs(int on);
/* Moves every thread's finished calls to the spool (takes the spool lock). From the
 * flusher and at exit. */
void api_calls_drain(void);
/* Stops the drainer thread (at exit, before the last api_calls_drain). */
void api_calls_stop(void);
/* A forked child: record nothing (the parent's locks may be held). */
void api_calls_disable(void);

#endif
