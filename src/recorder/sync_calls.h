/* Synchronisation records from the API callbacks, instead of CUPTI's SYNCHRONIZATION
 * activity kind (issue 26).
 *
 * Enabling full mode's extra activity kinds makes every later launch of the process slower,
 * even once they are disabled again: on the H100's launch loop, full mode with all its
 * parts held off ran 1.10x of the same without those kinds ever enabled (1.02-1.14, 38
 * rounds), and a process that enabled only this kind and CUPTI's OVERHEAD kind 1.05x of one
 * that enabled only the other four (1.03-1.08, 44 rounds; docs/results/process-cost-h100.md).
 * Full mode's callbacks already see every call that synchronises (they are recorded as API
 * calls): at its exit, the callback can say what CUPTI's record would (the kind of sync,
 * the context and the stream), and the spool gets the same KG_RAW_SYNC record, so nothing
 * downstream changes.
 *
 * Full mode's default. KGANTT_DEV_SYNC_KIND=1 goes back to CUPTI's kind, =2 records both
 * (each sync twice, for tests/gpu/sync_calls.py to compare); measurement only. */
#ifndef KGANTT_SYNC_CALLS_H
#define KGANTT_SYNC_CALLS_H

#include <cupti.h>
#include <stdint.h>

/* CUpti_ActivitySynchronizationType of a call that synchronises, 0 for any other. */
uint8_t sync_call_type(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/* At the exit of a call of that type: its context's and stream's CUPTI ids
 * (CUPTI_SYNCHRONIZATION_INVALID_VALUE for a sync of no stream, or when CUPTI cannot say). */
void sync_call_ids(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		   const CUpti_CallbackData *cb, uint8_t type, uint32_t *context_id,
		   uint32_t *stream_id);

#endif
