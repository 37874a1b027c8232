/* Synchronisation records from the API callbacks (sync_calls.h says why). */
#include "recorder/sync_calls.h"

#include <stddef.h>

uint8_t sync_call_type(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		switch (cbid) {
		case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
			return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
		case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
			return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
		case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
			return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
		case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020:
			return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
		default:
			return 0;
		}
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
		switch (cbid) {
		case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
		case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
			return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
		case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
		case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
			return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
		case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
			return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
		case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
		case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
			return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
		default:
			return 0;
		}
	return 0;
}

/* The per-thread variants (_ptsz) read a null stream as the thread's default stream. */
static int per_thread(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return domain == CUPTI_CB_DOMAIN_RUNTIME_API
		       ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000 ||
				 cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000
		       : cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz ||
				 cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz;
}

void sync_call_ids(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		   const CUpti_CallbackData *cb, uint8_t type, uint32_t *context_id,
		   uint32_t *stream_id)
{
	*context_id = *stream_id = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	if (!cb->context)
		return; /* no context yet: nothing to synchronise, nothing CUPTI can name */
	if (cuptiGetContextId(cb->context, context_id) != CUPTI_SUCCESS)
		*context_id = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	if (type != CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE &&
	    type != CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
		return;
	/* every one of these takes its stream first (cudaStreamSynchronize_v3020_params,
	 * cuStreamWaitEvent_params...) */
	CUstream stream = cb->functionParams ? *(CUstream const *)cb->functionParams : NULL;
	uint8_t ptsz = (uint8_t)per_thread(domain, cbid);
	/* the handles of the legacy and the per-thread default stream (cudaStreamLegacy,
	 * cudaStreamPerThread; CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) */
	if (stream == (CUstream)0x1) {
		stream = NULL;
		ptsz = 0;
	} else if (stream == (CUstream)0x2) {
		stream = NULL;
		ptsz = 1;
	}
	if (cuptiGetStreamIdEx(cb->context, stream, ptsz, stream_id) != CUPTI_SUCCESS)
		*stream_id = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
}
