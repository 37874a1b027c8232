#include "recorder/convert.h"

#include <string.h>

#include "recorder/raw_format.h"

void convert_init(struct kg_convert *c)
{
	memset(c, 0, sizeof(*c));
}

#define RESERVE(s, type, T) ((T *)spool_reserve((s), (type), sizeof(T)))

static int missing(uint64_t start, uint64_t end)
{
	return start == 0 || end == 0 || end < start;
}

/* A record CUPTI delivered without its times (a forced flush) is marked and counted. */
static void check_times(struct kg_convert *c, struct kg_raw_hdr *h, uint64_t start,
			uint64_t end)
{
	if (missing(start, end)) {
		h->flags |= KG_RAW_F_INCOMPLETE;
		c->incomplete++;
	}
}

static void put_kernel(struct kg_convert *c, struct kg_spool *s, const CUpti_ActivityKernel10 *k)
{
	uint32_t name = spool_string(s, k->name);
	struct kg_raw_kernel *r = RESERVE(s, KG_RAW_KERNEL, struct kg_raw_kernel);
	if (!r)
		return;
	/* CUPTI leaves queued/submitted at 0 (or CUPTI_TIMESTAMP_UNKNOWN) when it has none:
	 * graph launches, latency timestamps off. The importer stores those as NULL. */
	r->queued = k->queued;
	r->submitted = k->submitted;
	r->start = k->start;
	r->end = k->end;
	r->completed = k->completed;
	r->graph_node_id = k->graphNodeId;
	r->grid_id = k->gridId;
	r->local_mem_total = k->localMemoryTotal_v2;
	r->device_id = k->deviceId;
	r->context_id = k->contextId;
	r->stream_id = k->streamId;
	r->correlation_id = k->correlationId;
	r->name_str = name;
	r->grid[0] = k->gridX, r->grid[1] = k->gridY, r->grid[2] = k->gridZ;
	r->block[0] = k->blockX, r->block[1] = k->blockY, r->block[2] = k->blockZ;
	r->cluster[0] = (int32_t)k->clusterX, r->cluster[1] = (int32_t)k->clusterY;
	r->cluster[2] = (int32_t)k->clusterZ;
	r->regs_per_thread = k->registersPerThread;
	r->static_smem = k->staticSharedMemory;
	r->dynamic_smem = k->dynamicSharedMemory;
	r->local_mem_per_thread = k->localMemoryPerThread;
	r->shared_mem_executed = k->sharedMemoryExecuted;
	r->channel_id = k->channelID;
	r->channel_type = (uint32_t)k->channelType;
	r->graph_id = k->graphId;
	r->launch_type = k->launchType;
	r->cache_config = k->cacheConfig.both;
	r->device_launched = k->isDeviceLaunched;
	check_times(c, &r->h, k->start, k->end);
}

/* The fields CUPTI's copy, peer copy and memset records share, by the same names. */
#define FILL_DEVICE_OP(r, m)                                                   \
	do {                                                                   \
		(r)->start = (m)->start;                                       \
		(r)->end = (m)->end;                                           \
		(r)->bytes = (m)->bytes;                                       \
		(r)->graph_node_id = (m)->graphNodeId;                         \
		(r)->context_id = (m)->contextId;                              \
		(r)->stream_id = (m)->streamId;                                \
		(r)->correlation_id = (m)->correlationId;                      \
		(r)->channel_id = (m)->channelID;                              \
		(r)->channel_type = (uint32_t)(m)->channelType;                \
		(r)->graph_id = (m)->graphId;                                  \
	} while (0)

#define FILL_MEMCPY(r, m)                                                      \
	do {                                                                   \
		FILL_DEVICE_OP(r, m);                                          \
		(r)->copy_kind = (m)->copyKind;                                \
		(r)->src_kind = (m)->srcKind;                                  \
		(r)->dst_kind = (m)->dstKind;                                  \
		(r)->async = ((m)->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0; \
	} while (0)

static void put_memcpy(struct kg_convert *c, struct kg_spool *s, const CUpti_ActivityMemcpy6 *m)
{
	struct kg_raw_memcpy *r = RESERVE(s, KG_RAW_MEMCPY, struct kg_raw_memcpy);
	if (!r)
		return;
	FILL_MEMCPY(r, m);
	r->device_id = m->deviceId;
	r->dst_device_id = m->deviceId;
	check_times(c, &r->h, m->start, m->end);
}

static void put_peer_memcpy(struct kg_convert *c, struct kg_spool *s,
			    const CUpti_ActivityMemcpyPtoP4 *m)
{
	struct kg_raw_memcpy *r = RESERVE(s, KG_RAW_MEMCPY, struct kg_raw_memcpy);
	if (!r)
		return;
	FILL_MEMCPY(r, m);
	r->device_id = m->srcDeviceId;
	r->dst_device_id = m->dstDeviceId;
	check_times(c, &r->h, m->start, m->end);
}

static void put_memset(struct kg_convert *c, struct kg_spool *s, const CUpti_ActivityMemset4 *m)
{
	struct kg_raw_memset *r = RESERVE(s, KG_RAW_MEMSET, struct kg_raw_memset);
	if (!r)
		return;
	FILL_DEVICE_OP(r, m);
	r->device_id = m->deviceId;
	r->value = m->value;
	r->memory_kind = m->memoryKind;
	r->async = (m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0;
	check_times(c, &r->h, m->start, m->end);
}

static void put_sync(struct kg_convert *c, struct kg_spool *s,
		     const CUpti_ActivitySynchronization2 *y)
{
	struct kg_raw_sync *r = RESERVE(s, KG_RAW_SYNC, struct kg_raw_sync);
	if (!r)
		return;
	r->start = y->start;
	r->end = y->end;
	r->type = (uint32_t)y->type;
	r->context_id = y->contextId;
	r->stream_id = y->streamId;
	r->event_id = y->cudaEventId;
	r->correlation_id = y->correlationId;
	r->return_value = y->returnValue;
	check_times(c, &r->h, y->start, y->end);
}

/* API names come from CUPTI's static table; each is interned once per cbid. */
static uint32_t api_name(struct kg_convert *c, struct kg_spool *s, int driver, uint32_t cbid)
{
	uint32_t *cache = driver ? c->driver_names : c->runtime_names;
	uint32_t size = driver ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE;
	if (cbid < size && cache[cbid])
		return cache[cbid];
	const char *name = NULL;
	cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
			     cbid, &name);
	uint32_t id = spool_string(s, name ? name : "unknown");
	if (cbid < size)
		cache[cbid] = id;
	return id;
}

void convert_api_call(struct kg_convert *c, struct kg_spool *s, const struct kg_api_call *a)
{
	uint32_t name = api_name(c, s, a->driver, a->cbid);
	struct kg_raw_api *r = RESERVE(s, KG_RAW_API, struct kg_raw_api);
	if (!r)
		return;
	r->start = a->start;
	r->end = a->end;
	r->domain = a->driver ? KG_API_DRIVER : KG_API_RUNTIME;
	r->cbid = a->cbid;
	r->name_str = name;
	r->tid = a->tid;
	r->correlation_id = a->correlation_id;
	r->return_value = a->return_value;
	check_times(c, &r->h, a->start, a->end);
	if (c->on_api_thread)
		c->on_api_thread(a->tid);
	if (a->hooked) {
		struct kg_raw_hooked_launch *x =
			RESERVE(s, KG_RAW_HOOKED_LAUNCH, struct kg_raw_hooked_launch);
		if (x) {
			x->correlation_id = a->correlation_id;
			x->stream_id = a->hooked_stream;
			x->device_id = a->hooked_device;
		}
	}
	if (a->sync_type) /* the record CUPTI's SYNCHRONIZATION kind would have made */
		put_sync(c, s, &(CUpti_ActivitySynchronization2){
			.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
			.type = (CUpti_ActivitySynchronizationType)a->sync_type,
			.start = a->start, .end = a->end, .correlationId = a->correlation_id,
			.contextId = a->sync_context, .streamId = a->sync_stream,
			.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE, /* CUPTI's own: unknown */
			.returnValue = a->return_value});
}

static void put_api(struct kg_convert *c, struct kg_spool *s, const CUpti_ActivityAPI *a,
		    int driver)
{
	convert_api_call(c, s, &(struct kg_api_call){.start = a->start, .end = a->end,
						      .cbid = a->cbid, .driver = (uint8_t)driver,
						      .tid = a->threadId,
						      .correlation_id = a->correlationId,
						      .return_value = a->returnValue});
}

static void put_marker(struct kg_spool *s, const CUpti_ActivityMarker2 *m)
{
	uint32_t kind;
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START)
		kind = KG_MARK_START;
	else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END)
		kind = KG_MARK_END;
	else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS)
		kind = KG_MARK_INSTANT;
	else
		return; /* sync markers (acquire/release) are not ranges: not kept */
	uint32_t name = m->name ? spool_string(s, m->name) : 0;
	uint32_t domain = m->domain ? spool_string(s, m->domain) : 0;
	struct kg_raw_marker *r = RESERVE(s, KG_RAW_MARKER, struct kg_raw_marker);
	if (!r)
		return;
	r->ts = m->timestamp;
	r->id = m->id;
	r->kind = kind;
	r->name_str = name;
	r->domain_str = domain;
	if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
	    m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS)
		r->tid = m->objectId.pt.threadId;
}

static void put_overhead(struct kg_spool *s, const CUpti_ActivityOverhead3 *o)
{
	struct kg_raw_overhead *r = RESERVE(s, KG_RAW_OVERHEAD, struct kg_raw_overhead);
	if (!r)
		return;
	r->start = o->start;
	r->end = o->end;
	r->kind = (uint32_t)o->overheadKind;
	r->object_kind = (uint32_t)o->objectKind;
	r->object_id = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
				       o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS
			       ? o->objectId.pt.threadId
			       : o->objectId.dcs.deviceId;
	r->correlation_id = o->correlationId;
}

static void put_device(struct kg_spool *s, const CUpti_ActivityDevice5 *d)
{
	uint32_t name = spool_string(s, d->name);
	struct kg_raw_device *r = RESERVE(s, KG_RAW_DEVICE, struct kg_raw_device);
	if (!r)
		return;
	r->device_id = d->id;
	r->name_str = name;
	memcpy(r->uuid, &d->uuid, sizeof(r->uuid));
	r->global_memory_bytes = d->globalMemorySize;
	r->global_memory_bandwidth_kbps = d->globalMemoryBandwidth;
	r->sm_count = d->numMultiprocessors;
	r->max_warps_per_sm = d->maxWarpsPerMultiprocessor;
	r->max_blocks_per_sm = d->maxBlocksPerMultiprocessor;
	r->max_threads_per_block = d->maxThreadsPerBlock;
	r->max_regs_per_sm = d->maxRegistersPerMultiprocessor;
	r->max_regs_per_block = d->maxRegistersPerBlock;
	r->max_smem_per_sm = d->maxSharedMemoryPerMultiprocessor;
	r->max_smem_per_block = d->maxSharedMemoryPerBlock;
	r->threads_per_warp = d->numThreadsPerWarp;
	r->cc_major = d->computeCapabilityMajor;
	r->cc_minor = d->computeCapabilityMinor;
	r->core_clock_khz = d->coreClockRate;
	r->l2_bytes = d->l2CacheSize;
	r->copy_engines = d->numMemcpyEngines;
	r->mig = d->isMigEnabled;
}

static void put_context(struct kg_spool *s, const CUpti_ActivityContext3 *x)
{
	struct kg_raw_context *r = RESERVE(s, KG_RAW_CONTEXT, struct kg_raw_context);
	if (!r)
		return;
	r->context_id = x->contextId;
	r->device_id = x->deviceId;
	r->null_stream_id = x->nullStreamId;
	r->is_green = x->isGreenContext;
}

static void put_stream(struct kg_spool *s, const CUpti_ActivityStream *x)
{
	struct kg_raw_stream *r = RESERVE(s, KG_RAW_STREAM, struct kg_raw_stream);
	if (!r)
		return;
	r->context_id = x->contextId;
	r->stream_id = x->streamId;
	r->priority = (int32_t)x->priority; /* CUPTI stores the signed priority as uint32 */
	r->flags = (uint32_t)x->flag;
	r->correlation_id = x->correlationId;
}

void convert_record(struct kg_convert *c, struct kg_spool *s, const CUpti_Activity *rec)
{
	c->records++;
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		c->kernels++;
		put_kernel(c, s, (const CUpti_ActivityKernel10 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		put_memcpy(c, s, (const CUpti_ActivityMemcpy6 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		put_peer_memcpy(c, s, (const CUpti_ActivityMemcpyPtoP4 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		put_memset(c, s, (const CUpti_ActivityMemset4 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		put_sync(c, s, (const CUpti_ActivitySynchronization2 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		put_api(c, s, (const CUpti_ActivityAPI *)rec, 0);
		break;
	case CUPTI_ACTIVITY_KIND_DRIVER:
		put_api(c, s, (const CUpti_ActivityAPI *)rec, 1);
		break;
	case CUPTI_ACTIVITY_KIND_MARKER:
		put_marker(s, (const CUpti_ActivityMarker2 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		put_overhead(s, (const CUpti_ActivityOverhead3 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_DEVICE:
		put_device(s, (const CUpti_ActivityDevice5 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_CONTEXT:
		put_context(s, (const CUpti_ActivityContext3 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_STREAM:
		put_stream(s, (const CUpti_ActivityStream *)rec);
		break;
	default:
		c->unknown_kinds++;
		break;
	}
}

void convert_dropped(struct kg_convert *c, struct kg_spool *s, uint64_t ts, size_t dropped,
		     CUcontext ctx, uint32_t stream_id)
{
	uint32_t ctx_id = 0;
	if (ctx)
		cuptiGetContextId(ctx, &ctx_id);
	c->dropped_total += dropped;
	struct kg_raw_dropped *r = RESERVE(s, KG_RAW_DROPPED, struct kg_raw_dropped);
	if (!r)
		return;
	r->ts = ts;
	r->dropped_total = c->dropped_total;
	r->context_id = ctx_id;
	r->stream_id = stream_id;
}
