/* CUPTI activity records → raw spool records (recorder/raw_format.h). */
#ifndef KGANTT_CONVERT_H
#define KGANTT_CONVERT_H

#include <cupti.h>
#include <stdint.h>

#include "recorder/spool.h"

struct kg_convert {
	uint64_t records;       /* activity records converted */
	uint64_t kernels;       /* ... of them kernels */
	uint64_t incomplete;    /* records with a missing timestamp (forced flush) */
	uint64_t dropped_total; /* running total: CUPTI's own count resets at each query */
	uint64_t unknown_kinds;
	void (*on_api_thread)(uint32_t tid); /* host samples: a CUDA call was made on tid */
	uint32_t runtime_names[CUPTI_RUNTIME_TRACE_CBID_SIZE]; /* spool string id by cbid */
	uint32_t driver_names[CUPTI_DRIVER_TRACE_CBID_SIZE];
};

/* One API call, from an activity record or from the callbacks (recorder/api_calls.c). */
struct kg_api_call {
	uint64_t start, end;
	uint32_t cbid;
	uint8_t driver;         /* 0 runtime, 1 driver */
	uint8_t sync_type;      /* a call that synchronises: its CUpti_ActivitySynchronizationType,
				 * and a KG_RAW_SYNC record beside its own (sync_calls.h); 0 none */
	uint32_t tid;
	uint32_t correlation_id;
	uint32_t return_value;
	uint32_t sync_context, sync_stream; /* the sync's context and stream ids */
	uint8_t hooked;         /* seen by the launch hook: a KG_RAW_HOOKED_LAUNCH record too */
	uint32_t hooked_stream, hooked_device; /* its stream's and device's ids, or
						* KG_RAW_STREAM_UNKNOWN */
};

void convert_init(struct kg_convert *c);
/* Both take the spool lock held by the caller. */
void convert_record(struct kg_convert *c, struct kg_spool *s, const CUpti_Activity *rec);
void convert_api_call(struct kg_convert *c, struct kg_spool *s, const struct kg_api_call *a);
void convert_dropped(struct kg_convert *c, struct kg_spool *s, uint64_t ts, size_t dropped,
		     CUcontext ctx, uint32_t stream_id);

#endif
