/* Launches told by the launch hook, recorded (hooked_launches.h). */
#include "recorder/hooked_launches.h"

#include <cupti.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/api_calls.h"
#include "recorder/cbid_table.h"
#include "recorder/launches.h"
#include "recorder/raw_format.h"
#include "recorder/stacks.h"
#include "util/clock.h"

static struct {
	struct kg_launch_hook *hook;
	int (*capturing)(void);
	/* KGANTT_DEV_HOOK_BARE=1 (bench/overhead.sh's kgantt-full-hookbare, measurement
	 * only): launches told but not recorded, the clock read twice as the probe's observer
	 * (tests/gpu/launch_hook_probe.c) does: what recording them costs */
	int bare;
	/* KGANTT_DEV_HOOK_QUERY (measurement only): by default each thread keeps its streams'
	 * ids and devices (stream_ids_of); "each" asks CUPTI for every recorded launch's, as the
	 * recorder did before (kgantt-full-queryeach); "none" never asks, the import then
	 * matching by time alone (kgantt-full-noquery) */
	enum { QUERY_CACHED, QUERY_EACH, QUERY_NONE } query;
	int dated; /* every launch told: a call each, a stack only in windows and at a first */
	_Atomic uint32_t next_id; /* correlation ids from KG_RAW_HOOKED_CORRELATION */
	/* bumped by every call that can change what a thread's stream handles stand for */
	_Atomic uint32_t generation;
	struct kg_cbid_table stream_movers; /* the calls that bump it: moves_streams */
} hl;

/* ------------------------------------------------------------------ streams' ids */

/* A launch's stream and device as CUPTI's kernel records name them, for the import to find
 * its kernel. Asking CUPTI for both costs every recorded launch two look-ups under CUPTI's
 * own locks; a thread launches on a few streams, so each thread keeps the answers for its
 * last STREAM_IDS handles. They are asked again when a call may have made a handle stand
 * for another stream (the thread's context switched, a stream or context destroyed: the
 * generation), and in every window (launches_closings), so that a switch no callback saw
 * (the runtime's own) stays wrong for one window at most; a wrong id leaves the call
 * unmatched, unless another thread launched on the stream it names while the call ran. */
#define STREAM_IDS 4

struct stream_ids {
	CUstream stream;
	uint8_t per_thread_stream, valid;
	uint32_t stream_id, device_id;
};

static __thread struct {
	uint32_t generation, closings, next;
	struct stream_ids at[STREAM_IDS];
} thread_ids;

/* CUPTI's answers, or unknown where it gives none (or, with QUERY_NONE, is not asked). */
static struct stream_ids ask_cupti(CUstream stream, int per_thread_stream)
{
	struct stream_ids ids = {stream, (uint8_t)per_thread_stream, 1, KG_RAW_STREAM_UNKNOWN,
				 KG_RAW_STREAM_UNKNOWN};
	if (hl.query == QUERY_NONE)
		return ids;
	if (cuptiGetStreamIdEx(NULL, stream, (uint8_t)per_thread_stream, &ids.stream_id) !=
	    CUPTI_SUCCESS)
		ids.stream_id = KG_RAW_STREAM_UNKNOWN;
	if (cuptiGetDeviceId(NULL, &ids.device_id) != CUPTI_SUCCESS)
		ids.device_id = KG_RAW_STREAM_UNKNOWN;
	return ids;
}

static struct stream_ids stream_ids_of(CUstream stream, int per_thread_stream)
{
	if (hl.query != QUERY_CACHED)
		return ask_cupti(stream, per_thread_stream);
	uint32_t generation = atomic_load_explicit(&hl.generation, memory_order_acquire);
	uint32_t closings = launches_closings();
	if (thread_ids.generation != generation || thread_ids.closings != closings) {
		memset(thread_ids.at, 0, sizeof(thread_ids.at));
		thread_ids.generation = generation;
		thread_ids.closings = closings;
	}
	for (uint32_t i = 0; i < STREAM_IDS; i++)
		if (thread_ids.at[i].valid && thread_ids.at[i].stream == stream &&
		    thread_ids.at[i].per_thread_stream == per_thread_stream)
			return thread_ids.at[i];
	struct stream_ids *slot = &thread_ids.at[thread_ids.next++ % STREAM_IDS];
	*slot = ask_cupti(stream, per_thread_stream);
	return *slot;
}

/* The calls after which a thread's stream handles may name other streams: the current
 * context set, pushed, popped, created, destroyed or reset, the device set or reset, a
 * stream destroyed (its handle can come back for another). */
static uint8_t moves_streams(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			     const char *name, void *ctx)
{
	(void)domain, (void)cbid, (void)ctx;
	static const char *const parts[] = {
		"SetDevice",   "CtxSetCurrent", "CtxPushCurrent", "CtxPopCurrent",
		"CtxCreate",   "CtxDestroy",    "CtxReset",       "CtxRelease",
		"DeviceReset", "ThreadExit",    "StreamDestroy",  "SetValidDevices",
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strstr(name, parts[i]))
			return 1;
	return 0;
}

struct kg_launch_hook *hooked_launches_find(void)
{
	const char *off = getenv("KGANTT_DEV_NO_LAUNCH_HOOK");
	if (off && *off == '1')
		return NULL;
	struct kg_launch_hook *hook = dlsym(RTLD_DEFAULT, KG_LAUNCH_HOOK_SYMBOL);
	return hook && hook->version == KG_LAUNCH_HOOK_VERSION ? hook : NULL;
}

/* CUPTI's callback id of the driver function a hook's entry point stands in for. */
static uint32_t driver_cbid(const struct kg_hooked_launch *l)
{
	switch (l->fn) {
	case KG_HOOK_LAUNCH_KERNEL_EX:
		return l->per_thread_stream ? CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz
					    : CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx;
	case KG_HOOK_LAUNCH_COOPERATIVE:
		return l->per_thread_stream ? CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz
					    : CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel;
	default:
		return l->per_thread_stream ? CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz
					    : CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
	}
}

/* mark[0]: the call's start (0: not recorded); mark[1]: its correlation id */
static void on_enter(struct kg_hooked_launch *l)
{
	uintptr_t key = (uintptr_t)l->function;
	int first = launches_seen(key); /* a new kernel keeps the window open */
	if (hl.bare) {
		l->mark[1] = now_raw_ns();
		return;
	}
	if (!hl.capturing())
		return;
	uint32_t id = KG_RAW_HOOKED_CORRELATION |
		      (atomic_fetch_add_explicit(&hl.next_id, 1, memory_order_relaxed) &
		       ~KG_RAW_HOOKED_CORRELATION);
	l->mark[1] = id;
	if (!hl.dated || first || launches_window())
		stacks_on_hooked_launch(driver_cbid(l), key, id);
	l->mark[0] = now_raw_ns(); /* after the stack: the call's time without the unwinding */
}

static void on_leave(struct kg_hooked_launch *l, CUresult result)
{
	if (!l->mark[0]) {
		if (hl.bare)
			l->mark[1] = now_raw_ns() - l->mark[1];
		return;
	}
	uint64_t end = now_raw_ns();
	/* the kernel record's ids, for the import to find it (NULL context: any) */
	struct stream_ids ids = stream_ids_of(l->stream, l->per_thread_stream);
	api_calls_on_hooked_launch(&(struct kg_api_call){
		.start = l->mark[0],
		.end = end,
		.cbid = driver_cbid(l),
		.driver = 1,
		.correlation_id = (uint32_t)l->mark[1],
		.return_value = (uint32_t)result,
		.hooked = 1,
		.hooked_stream = ids.stream_id,
		.hooked_device = ids.device_id,
	});
}

static const struct kg_launch_observer observer = {on_enter, on_leave};

void hooked_launches_attach(struct kg_launch_hook *hook, int (*capturing)(void), int dated)
{
	hl.dated = dated;
	const char *bare = getenv("KGANTT_DEV_HOOK_BARE");
	hl.bare = bare && *bare == '1';
	const char *query = getenv("KGANTT_DEV_HOOK_QUERY");
	hl.query = query && !strcmp(query, "each")   ? QUERY_EACH
		   : query && !strcmp(query, "none") ? QUERY_NONE
						     : QUERY_CACHED;
	if (hl.query == QUERY_CACHED) /* only the threads' caches ask which calls move streams */
		cbid_table_fill(&hl.stream_movers, moves_streams, NULL);
	hl.hook = hook;
	hl.capturing = capturing;
	atomic_store(&hook->observer, &observer);
	atomic_store(&hook->first_launches, 1);
}

void hooked_launches_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			    const CUpti_CallbackData *cb)
{
	if (!hl.hook || cb->callbackSite != CUPTI_API_EXIT)
		return;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && (cbid == CUPTI_DRIVER_TRACE_CBID_cuModuleUnload ||
						     cbid == CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload))
		hl.hook->forget_kernels();
	if (cbid_table_get(&hl.stream_movers, domain, cbid))
		atomic_fetch_add_explicit(&hl.generation, 1, memory_order_release);
}

void hooked_launches_detach(void)
{
	if (hl.hook)
		atomic_store(&hl.hook->observer, NULL);
}
