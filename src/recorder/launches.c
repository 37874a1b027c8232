/* Kernel launches in full mode: their callbacks on in windows (launches.h). */
#include "recorder/launches.h"

#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "recorder/cbid_table.h"
#include "recorder/hostsample.h"
#include "recorder/own_thread.h"
#include "recorder/raw_format.h"
#include "recorder/stop_wait.h"
#include "util/api_names.h"
#include "util/clock.h"

#define SEEN_KEYS 4096 /* kernels told apart; more are all "seen" (the window then closes) */
#define DOMAIN_RUNTIME 1u
#define DOMAIN_DRIVER 2u

static struct {
	struct kg_cbid_table is_launch;
	uintptr_t seen[SEEN_KEYS];
	int new_kernel;           /* a kernel seen for the first time since the last look */
	int any_kernel;           /* a launch was seen: until then the window stays open */
	uint32_t closings;
	uint32_t window;          /* the window open now, numbered from 1; 0 while closed */
	CUpti_SubscriberHandle sub;
	pthread_t thread;
	int running;
	struct kg_stop_wait wait; /* the windows' sleeps, cut short at exit */
	/* the windows' state, and KGANTT_DEV_AB holding the callbacks off over it: switched
	 * under one lock, so that a window opening never undoes a hold */
	pthread_mutex_t switch_lock;
	uint32_t open;
	int held;
	uint32_t holds; /* holds begun: a launch's exit may have been lost in one */
	uint32_t on_ms, period_ms; /* the windows' length and period */
	int by_flag; /* KGANTT_DEV_WINDOW_FLAG: callbacks left on, closed windows by a flag */
	int none;    /* KGANTT_DEV_NO_LAUNCH_WINDOWS: launch callbacks never on */
	uint32_t domains; /* whose launch callbacks the windows switch on: DOMAIN_* bits */
	struct kg_launch_hook *hook; /* windows by the launch hook's flag, not CUPTI's callbacks */
	int dated; /* the hook tells every launch (its flag always up); windows for stacks only */
} lw = {.window = 1, .switch_lock = PTHREAD_MUTEX_INITIALIZER, .open = 1,
	.on_ms = LAUNCH_WINDOW_ON_MS, .period_ms = LAUNCH_WINDOW_PERIOD_MS,
	.domains = DOMAIN_RUNTIME | DOMAIN_DRIVER};

/* ------------------------------------------------------------------ which functions */

static int launches_one_kernel(const char *name)
{
	return api_category(name) == KG_API_LAUNCH && !strstr(name, "GraphLaunch") &&
	       !strstr(name, "HostFunc");
}

static uint8_t launch_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name,
			 void *ctx)
{
	(void)domain, (void)cbid, (void)ctx;
	return (uint8_t)launches_one_kernel(name);
}

void launches_init(void)
{
	cbid_table_fill(&lw.is_launch, launch_of, NULL);
}

int launches_is_kernel_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return cbid_table_get(&lw.is_launch, domain, cbid);
}

uintptr_t launches_key(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		       const CUpti_CallbackData *cb)
{
	const void *p = cb->functionParams;
	if (p && domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		switch (cbid) {
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
			return (uintptr_t)*(const void *const *)p; /* func, or graphExec, first */
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
			return (uintptr_t)((const void *const *)p)[1]; /* (config, func, ...) */
		}
	} else if (p && domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		switch (cbid) {
		case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
		case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
		case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
			return (uintptr_t)*(const void *const *)p;
		case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
		case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
			return (uintptr_t)((const void *const *)p)[1];
		}
	}
	return cb->symbolName ? (uintptr_t)cb->symbolName : (uintptr_t)cbid;
}

/* Open addressing without deletion: a key once in stays; a full neighbourhood counts as
 * seen, so that a program of more than SEEN_KEYS kernels still gets its windows closed. */
int launches_seen(uintptr_t key)
{
	uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
	for (uint32_t i = 0; i < 8; i++) {
		uintptr_t *slot = &lw.seen[((h >> 40) + i) & (SEEN_KEYS - 1)];
		uintptr_t k = __atomic_load_n(slot, __ATOMIC_RELAXED);
		if (k == key)
			return 0;
		if (k == 0) {
			uintptr_t zero = 0;
			if (__atomic_compare_exchange_n(slot, &zero, key, 0, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)) {
				__atomic_store_n(&lw.new_kernel, 1, __ATOMIC_RELAXED);
				__atomic_store_n(&lw.any_kernel, 1, __ATOMIC_RELAXED);
				return 1;
			}
			if (zero == key)
				return 0;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ windows */

/* A domain left out of lw.domains (KGANTT_DEV_LAUNCH_DOMAINS) has its launch callbacks
 * switched off whenever the others are switched. */
static void set_launch_callbacks(uint32_t on)
{
	if (lw.hook) {
		atomic_store_explicit(&lw.hook->observing, on || lw.dated, memory_order_relaxed);
		return;
	}
	cbid_table_enable(&lw.is_launch, CUPTI_CB_DOMAIN_RUNTIME_API, 1, lw.sub,
			  on && (lw.domains & DOMAIN_RUNTIME));
	cbid_table_enable(&lw.is_launch, CUPTI_CB_DOMAIN_DRIVER_API, 1, lw.sub,
			  on && (lw.domains & DOMAIN_DRIVER));
}

static void window_switch(uint32_t on)
{
	pthread_mutex_lock(&lw.switch_lock);
	lw.open = on;
	if (!lw.held && !lw.by_flag)
		set_launch_callbacks(on);
	pthread_mutex_unlock(&lw.switch_lock);
}

void launches_hold(int hold)
{
	if (!lw.running)
		return;
	pthread_mutex_lock(&lw.switch_lock);
	lw.held = hold;
	if (hold)
		__atomic_add_fetch(&lw.holds, 1, __ATOMIC_RELAXED);
	set_launch_callbacks(hold ? 0 : lw.open);
	pthread_mutex_unlock(&lw.switch_lock);
}

static uint64_t ms_ns(uint32_t ms)
{
	return (uint64_t)ms * 1000000ull;
}

static void *window_main(void *arg)
{
	(void)arg;
	if (hostsample_own_thread)
		hostsample_own_thread();
	while (!stop_wait_ns(&lw.wait, ms_ns(lw.on_ms))) {
		/* the program's set-up (module loading, allocation) can outlast a window: none
		 * closes before the first launch, nor while new kernels keep appearing */
		if (__atomic_exchange_n(&lw.new_kernel, 0, __ATOMIC_RELAXED) ||
		    !__atomic_load_n(&lw.any_kernel, __ATOMIC_RELAXED))
			continue;
		uint32_t closed = __atomic_add_fetch(&lw.closings, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&lw.window, 0, __ATOMIC_RELAXED);
		window_switch(0);
		int stopped = stop_wait_ns(&lw.wait, ms_ns(lw.period_ms - lw.on_ms));
		window_switch(1);
		__atomic_store_n(&lw.window, closed + 1, __ATOMIC_RELAXED);
		if (stopped)
			break;
	}
	return NULL;
}

static void write_settings(struct kg_spool *spool, int sampled, const char *why)
{
	pthread_mutex_lock(&spool->lock);
	uint32_t why_s = why ? spool_string(spool, why) : 0;
	struct kg_raw_launch_settings *r =
		spool_reserve(spool, KG_RAW_LAUNCH_SETTINGS, sizeof(*r));
	if (r) {
		r->sampled = (uint32_t)sampled;
		r->window_on_ms = sampled ? lw.on_ms : 0;
		r->window_period_ms = sampled ? lw.period_ms : 0;
		r->why_str = why_s;
	}
	spool_flush(spool);
	pthread_mutex_unlock(&spool->lock);
}

/* For bench/overhead.sh only: KGANTT_DEV_NO_LAUNCH_WINDOWS=1 (kgantt-full-nowindows: what
 * the windows cost; the launch callbacks never on, so the trace has no launch call and no
 * launch stack), KGANTT_DEV_LAUNCH_WINDOW="ON_MS,PERIOD_MS" (kgantt-full-win-*:
 * whether the windows' cost follows the time they are open), KGANTT_DEV_WINDOW_FLAG=1
 * (kgantt-full-winflag: the launch callbacks never switched off, a closed window's launches
 * passed over in the callback: whether CUPTI charges the switching),
 * KGANTT_DEV_LAUNCH_DOMAINS=runtime|driver (kgantt-full-win-runtime, -driver: the launch
 * callbacks of that domain only, the other's never on: which one CUPTI charges a runtime
 * launch for, since the runtime's launch calls the driver's). */
static void dev_window_settings(void)
{
	const char *none = getenv("KGANTT_DEV_NO_LAUNCH_WINDOWS");
	lw.none = none && *none == '1';
	const char *flag = getenv("KGANTT_DEV_WINDOW_FLAG");
	lw.by_flag = flag && *flag == '1';
	const char *domains = getenv("KGANTT_DEV_LAUNCH_DOMAINS");
	lw.domains = domains && !strcmp(domains, "runtime") ? DOMAIN_RUNTIME
		     : domains && !strcmp(domains, "driver") ? DOMAIN_DRIVER
							      : DOMAIN_RUNTIME | DOMAIN_DRIVER;
	const char *v = getenv("KGANTT_DEV_LAUNCH_WINDOW");
	unsigned on, period;
	lw.on_ms = LAUNCH_WINDOW_ON_MS;
	lw.period_ms = LAUNCH_WINDOW_PERIOD_MS;
	if (v && sscanf(v, "%u,%u", &on, &period) == 2 && on > 0 && on < period &&
	    period <= 60000) {
		lw.on_ms = on;
		lw.period_ms = period;
	}
}

int launches_start_windows(CUpti_SubscriberHandle sub, struct kg_launch_hook *hook, int dated,
			   struct kg_spool *spool)
{
	if (lw.running)
		return 1;
	lw.sub = sub;
	lw.hook = hook;
	lw.dated = hook && dated;
	dev_window_settings();
	if (lw.none) {
		set_launch_callbacks(0); /* the API calls' and stacks' callbacks turned them on */
		if (hook)
			atomic_store(&hook->first_launches, 0);
		write_settings(spool, 1, "KGANTT_DEV_NO_LAUNCH_WINDOWS=1: no launch sampled");
		return 0;
	}
	set_launch_callbacks(1);
	if (stop_wait_init(&lw.wait) != 0 ||
	    own_thread_start(&lw.thread, window_main, "kgantt-windows") != 0) {
		/* the hook's flag stays up: every launch, as the record says */
		write_settings(spool, 0, "the recorder could not start its windows' thread");
		return 0;
	}
	lw.running = 1;
	if (lw.dated)
		write_settings(spool, 0, KG_LAUNCHES_DATED_BY_HOOK);
	else
		write_settings(spool, 1, hook ? KG_LAUNCHES_BY_HOOK : KG_LAUNCHES_BY_CALLBACKS);
	return 1;
}

void launches_record_all(struct kg_spool *spool, const char *why)
{
	write_settings(spool, 0, why);
}

void launches_stop_windows(void)
{
	if (!lw.running)
		return;
	stop_wait_stop(&lw.wait);
	pthread_join(lw.thread, NULL);
	lw.running = 0;
	set_launch_callbacks(1); /* launches after this (other atexit handlers) are seen */
}

/* Launch calls this thread is inside that are recorded although no window was open (their
 * kernel was new, or they run inside such a call): their exits are recorded too. Valid
 * while lw.holds is what it was at the first of them: a hold (KGANTT_DEV_AB) switches the
 * callbacks off and may lose an exit. */
static __thread uint32_t forced_depth, forced_holds;

int launches_pass_over(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		       const CUpti_CallbackData *cb)
{
	if (!launches_is_kernel_launch(domain, cbid))
		return 0;
	int enter = cb->callbackSite == CUPTI_API_ENTER;
	int fresh = enter && launches_seen(launches_key(domain, cbid, cb));
	if (!lw.by_flag)
		return 0; /* the callbacks are off outside the windows: nothing to pass over */
	uint32_t holds = __atomic_load_n(&lw.holds, __ATOMIC_RELAXED);
	if (forced_depth && forced_holds != holds)
		forced_depth = 0;
	int outside = __atomic_load_n(&lw.window, __ATOMIC_RELAXED) == 0;
	if (!enter) {
		if (!forced_depth)
			return outside;
		forced_depth--;
		return 0;
	}
	if (forced_depth || (outside && fresh)) {
		if (!forced_depth++)
			forced_holds = holds;
		return 0;
	}
	return outside;
}

uint32_t launches_window(void)
{
	return __atomic_load_n(&lw.window, __ATOMIC_RELAXED);
}

uint32_t launches_closings(void)
{
	return __atomic_load_n(&lw.closings, __ATOMIC_ACQUIRE);
}
