/* Launches told by the launch hook, recorded (hooked_launches.h). */
#include "recorder/hooked_launches.h"

#include <cupti.h>
#include <dlfcn.h>
#include <stdlib.h>

#include "recorder/api_calls.h"
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
	/* KGANTT_DEV_HOOK_NO_QUERY=1 (kgantt-full-noquery, measurement only): a recorded
	 * launch without CUPTI's two queries of its stream and device (the import then
	 * matches it by time alone): what the queries cost */
	int no_query;
	_Atomic uint32_t next_id; /* correlation ids from KG_RAW_HOOKED_CORRELATION */
} hl;

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
	launches_seen(key); /* a new kernel keeps the window open */
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
	uint32_t stream = KG_RAW_STREAM_UNKNOWN, device = KG_RAW_STREAM_UNKNOWN;
	if (!hl.no_query &&
	    cuptiGetStreamIdEx(NULL, l->stream, (uint8_t)l->per_thread_stream, &stream) !=
		    CUPTI_SUCCESS)
		stream = KG_RAW_STREAM_UNKNOWN;
	if (!hl.no_query && cuptiGetDeviceId(NULL, &device) != CUPTI_SUCCESS)
		device = KG_RAW_STREAM_UNKNOWN;
	api_calls_on_hooked_launch(&(struct kg_api_call){
		.start = l->mark[0],
		.end = end,
		.cbid = driver_cbid(l),
		.driver = 1,
		.correlation_id = (uint32_t)l->mark[1],
		.return_value = (uint32_t)result,
		.hooked = 1,
		.hooked_stream = stream,
		.hooked_device = device,
	});
}

static const struct kg_launch_observer observer = {on_enter, on_leave};

void hooked_launches_attach(struct kg_launch_hook *hook, int (*capturing)(void))
{
	const char *bare = getenv("KGANTT_DEV_HOOK_BARE");
	hl.bare = bare && *bare == '1';
	const char *no_query = getenv("KGANTT_DEV_HOOK_NO_QUERY");
	hl.no_query = no_query && *no_query == '1';
	hl.hook = hook;
	hl.capturing = capturing;
	atomic_store(&hook->observer, &observer);
	atomic_store(&hook->first_launches, 1);
}

void hooked_launches_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			    const CUpti_CallbackData *cb)
{
	if (hl.hook && domain == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_EXIT &&
	    (cbid == CUPTI_DRIVER_TRACE_CBID_cuModuleUnload ||
	     cbid == CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload))
		hl.hook->forget_kernels();
}

void hooked_launches_detach(void)
{
	if (hl.hook)
		atomic_store(&hl.hook->observer, NULL);
}
