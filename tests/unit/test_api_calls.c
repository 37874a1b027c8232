/* The recorder's API calls from callbacks (src/recorder/api_calls.c) without a GPU: the
 * callback is handed CUPTI's callback data as CUPTI would, from several threads at once,
 * more calls than a thread's buffer holds, some while not capturing, some threads ending
 * before the drain; the spool it writes is read back record by record. Also CUPTI's copy
 * and memset records through recorder/convert.c, field by field. Built with the
 * sanitizers (ASan/UBSan). */
#include "harness.h"

#include <pthread.h>
#include <sys/stat.h>

#include "recorder/api_calls.h"
#include "recorder/convert.h"
#include "recorder/hooked_launches.h"
#include "recorder/launches.h"
#include "recorder/raw_format.h"
#include "recorder/spool.h"
#include "util/clock.h"

#define THREADS 4
#define CALLS 3000 /* per thread: the 1,024-call buffer fills twice */
/* per thread, with no drainer: more than the 512 buffers the threads may fill between them
 * before they must drain the full ones themselves */
#define MANY_CALLS 150000

static uint32_t calls_per_thread = CALLS;

/* CUPTI's switch, played: the last state each launch callback was switched to (the test's
 * definition is the one recorder/launches.c links to, before libcupti's). */
static uint8_t runtime_cb_on[CUPTI_RUNTIME_TRACE_CBID_SIZE], driver_cb_on[CUPTI_DRIVER_TRACE_CBID_SIZE];

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
					 CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	(void)subscriber;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		runtime_cb_on[cbid] = enable != 0;
	else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		driver_cb_on[cbid] = enable != 0;
	return CUPTI_SUCCESS;
}

static struct kg_spool spool;
static struct kg_convert conv;

static int never(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	(void)domain, (void)cbid;
	return 0;
}

/* One call as CUPTI reports it: enter, then exit with the return value. */
static void one_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, uint32_t corr,
		     int ret, int capturing)
{
	uint64_t data = 0;
	int rv = ret;
	CUpti_CallbackData cb = {.correlationId = corr, .correlationData = &data};
	cb.callbackSite = CUPTI_API_ENTER;
	api_calls_on_callback(domain, cbid, &cb, capturing);
	cb.callbackSite = CUPTI_API_EXIT;
	cb.functionReturnValue = &rv;
	api_calls_on_callback(domain, cbid, &cb, capturing);
}

/* A runtime call and the driver call it makes inside it, as CUPTI reports them: enter,
 * enter, exit, exit. */
static void runtime_around_driver(CUpti_CallbackId rt_cbid, uint32_t rt_corr,
				  CUpti_CallbackId drv_cbid, uint32_t drv_corr)
{
	uint64_t outer = 0, inner = 0;
	int rv = 0;
	CUpti_CallbackData rt = {.correlationId = rt_corr, .correlationData = &outer,
				 .functionReturnValue = &rv};
	CUpti_CallbackData drv = {.correlationId = drv_corr, .correlationData = &inner,
				  .functionReturnValue = &rv};
	rt.callbackSite = drv.callbackSite = CUPTI_API_ENTER;
	api_calls_on_callback(CUPTI_CB_DOMAIN_RUNTIME_API, rt_cbid, &rt, 1);
	api_calls_on_callback(CUPTI_CB_DOMAIN_DRIVER_API, drv_cbid, &drv, 1);
	drv.callbackSite = rt.callbackSite = CUPTI_API_EXIT;
	api_calls_on_callback(CUPTI_CB_DOMAIN_DRIVER_API, drv_cbid, &drv, 1);
	api_calls_on_callback(CUPTI_CB_DOMAIN_RUNTIME_API, rt_cbid, &rt, 1);
}

static void *caller(void *arg)
{
	uint32_t base = (uint32_t)(uintptr_t)arg * 100000u;
	for (uint32_t i = 1; i <= calls_per_thread; i++) {
		int driver = i % 3 == 0;
		one_call(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
			 driver ? CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel
				: CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
			 base + i, (int)(i % 7), i % 10 != 0 /* every 10th outside capture */);
	}
	return NULL;
}

struct seen {
	uint64_t calls, driver, runtime, bad_time, names;
	uint32_t tids[THREADS + 1];
	int ntids;
	uint64_t corr_sum, ret_sum;
};

/* Calls each() with every record of a spool, whole, after checking its header. */
static void each_record(const char *path, void (*each)(const struct kg_raw_hdr *h, void *ctx),
			void *ctx)
{
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	struct kg_raw_file_header fh;
	CHECK_EQ_INT((int)fread(&fh, sizeof(fh), 1, f), 1);
	CHECK(memcmp(fh.magic, KG_RAW_MAGIC, 8) == 0);
	static uint8_t rec[1 << 16];
	struct kg_raw_hdr h;
	while (fread(&h, sizeof(h), 1, f) == 1) {
		CHECK(h.size >= sizeof(h) && h.size <= sizeof(rec));
		memcpy(rec, &h, sizeof(h));
		CHECK_EQ_INT((int)fread(rec + sizeof(h), h.size - sizeof(h), 1, f), 1);
		each((const struct kg_raw_hdr *)rec, ctx);
	}
	fclose(f);
}

static void count_call(const struct kg_raw_hdr *h, void *ctx)
{
	struct seen *s = ctx;
	if (h->type == KG_RAW_STRING)
		s->names++;
	if (h->type != KG_RAW_API)
		return;
	const struct kg_raw_api *a = (const void *)h;
	s->calls++;
	s->driver += a->domain == KG_API_DRIVER;
	s->runtime += a->domain == KG_API_RUNTIME;
	s->bad_time += a->end < a->start || a->start == 0 || a->name_str == 0;
	s->corr_sum += a->correlation_id % 100000u;
	s->ret_sum += a->return_value;
	int known = 0;
	for (int i = 0; i < s->ntids; i++)
		known |= s->tids[i] == a->tid;
	if (!known && s->ntids <= THREADS)
		s->tids[s->ntids++] = a->tid;
}

/* A spool in a new directory, and the API recorder writing to it. */
static void start_recorder(char *dir, char *path, size_t len)
{
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, len, "%s/h.1.kgspool", dir);
	CHECK_EQ_INT(spool_open(&spool, path, 1 << 16), 0);
	convert_init(&conv);
	/* no subscriber without a GPU: CUPTI refuses the enables, the recording goes on */
	CHECK_EQ_INT(api_calls_start(NULL, never, &conv, &spool), 0);
}

/* Four threads' calls, half of the threads ended before the first drain: each call in the
 * spool once, with its thread, function, correlation and return value. */
static void calls_from_threads(int with_drainer)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	if (!with_drainer)
		api_calls_stop();

	pthread_t t[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		CHECK_EQ_INT(pthread_create(&t[i], NULL, caller, (void *)(i + 1)), 0);
	for (int i = 0; i < THREADS / 2; i++) /* half have ended before the first drain */
		pthread_join(t[i], NULL);
	api_calls_drain();
	for (int i = THREADS / 2; i < THREADS; i++)
		pthread_join(t[i], NULL);
	api_calls_stop(); /* as at the program's exit */
	api_calls_drain();
	api_calls_drain(); /* nothing twice */
	spool_close(&spool);

	struct seen s = {0};
	each_record(path, count_call, &s);
	uint64_t kept = 0, corr = 0, ret = 0, driver = 0;
	for (uint32_t i = 1; i <= calls_per_thread; i++)
		if (i % 10 != 0) {
			kept++, corr += i % 100000u, ret += i % 7;
			driver += i % 3 == 0;
		}
	CHECK_EQ_INT((long long)s.calls, (long long)(kept * THREADS));
	CHECK_EQ_INT((long long)s.driver, (long long)(driver * THREADS));
	CHECK_EQ_INT((long long)s.runtime, (long long)((kept - driver) * THREADS));
	CHECK_EQ_INT((long long)s.bad_time, 0);
	CHECK_EQ_INT((long long)s.corr_sum, (long long)(corr * THREADS));
	CHECK_EQ_INT((long long)s.ret_sum, (long long)(ret * THREADS));
	CHECK_EQ_INT(s.ntids, THREADS); /* each thread its own id */
	CHECK_EQ_INT((long long)s.names, 2); /* each function's name written once */
	unlink(path);
	rmdir(dir);
}

TEST(calls_from_threads_reach_the_spool_once_each)
{
	calls_per_thread = CALLS;
	calls_from_threads(1);
}

/* No drainer (or one far behind): once the threads have filled every buffer there may be,
 * they convert the full ones themselves, and nothing is lost or written twice. */
TEST(threads_drain_the_buffers_themselves_when_the_drainer_lags)
{
	calls_per_thread = MANY_CALLS;
	calls_from_threads(0);
	calls_per_thread = CALLS;
}

/* cudaLaunchKernel calls cuLaunchKernel: one launch, one call, as CUPTI's activity
 * records have it; a driver call of the program's own is kept. */
TEST(driver_calls_inside_runtime_calls_are_left_out)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	runtime_around_driver(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1,
			      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 2);
	/* the program's own driver call, after */
	one_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 3, 0, 1);
	api_calls_stop();
	api_calls_drain();
	spool_close(&spool);
	struct seen s = {0};
	each_record(path, count_call, &s);
	CHECK_EQ_INT((long long)s.calls, 2);
	CHECK_EQ_INT((long long)s.runtime, 1);
	CHECK_EQ_INT((long long)s.driver, 1);
	CHECK_EQ_INT((long long)s.corr_sum, 1 + 3);
	CHECK_EQ_INT((long long)s.bad_time, 0);
	unlink(path);
	rmdir(dir);
}

static void call_site(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, uint32_t corr,
		      CUpti_ApiCallbackSite site, uint64_t *data)
{
	int rv = 0;
	CUpti_CallbackData cb = {.correlationId = corr, .correlationData = data,
				 .functionReturnValue = &rv, .callbackSite = site};
	api_calls_on_callback(domain, cbid, &cb, 1);
}

/* Waits (half a second at most) for the windows' thread to close a window after the
 * closed-th closing, and checks that it did. */
static void await_closing(uint32_t closed)
{
	for (int i = 0; i < 100 && launches_closings() == closed; i++)
		sleep_ms(5);
	CHECK(launches_closings() != closed);
}

/* Kernel launches' callbacks go off and on with the windows (recorder/launches.h), so a
 * launch can lose its exit (the window closed inside the call) or its entry (it opened
 * inside). The lost exit must not leave the thread "inside a runtime call", dropping its
 * later driver calls; an exit without its entry is not a call. Fails without the checks in
 * api_calls_on_callback: the driver copy is dropped, the entry-less exit recorded. */
static void *straddling_thread(void *arg)
{
	(void)arg;
	uint64_t a = 0, b = 0, c = 0;
	const CUpti_CallbackDomain RT = CUPTI_CB_DOMAIN_RUNTIME_API, DRV = CUPTI_CB_DOMAIN_DRIVER_API;
	sleep_ms(3 * LAUNCH_WINDOW_ON_MS); /* set-up: no window closes before a first launch */
	CHECK_EQ_INT((int)launches_closings(), 0);
	launches_seen(0x1234);
	call_site(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 11, CUPTI_API_ENTER, &a);
	await_closing(launches_closings()); /* the launch's exit never comes */
	/* the program's own driver copy, after that launch */
	call_site(DRV, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, 12, CUPTI_API_ENTER, &b);
	call_site(DRV, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, 12, CUPTI_API_EXIT, &b);
	/* a launch whose entry came before the window opened */
	c = 12345;
	call_site(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 13, CUPTI_API_EXIT, &c);
	/* A window closing inside a call that is no launch (one of the syncs example's 0.8 ms
	 * cudaStreamSynchronize calls, on an H100): its exit still comes, so the driver call inside
	 * it stays its own. Without runtime_is_launch that driver call was recorded, with no
	 * start (and, from a sync call, a second sync record). */
	uint64_t d = 0, e = 0;
	call_site(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 14, CUPTI_API_ENTER, &d);
	call_site(DRV, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, 15, CUPTI_API_ENTER, &e);
	await_closing(launches_closings());
	call_site(DRV, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, 15, CUPTI_API_EXIT, &e);
	call_site(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 14, CUPTI_API_EXIT, &d);
	return NULL;
}

TEST(a_window_closing_inside_a_launch_loses_no_other_call)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	launches_init();
	CHECK(launches_is_kernel_launch(CUPTI_CB_DOMAIN_RUNTIME_API,
					CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
	CHECK(!launches_is_kernel_launch(CUPTI_CB_DOMAIN_RUNTIME_API,
					 CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000));
	CHECK(!launches_is_kernel_launch(CUPTI_CB_DOMAIN_DRIVER_API,
					 CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2));
	CHECK_EQ_INT(launches_start_windows(NULL, NULL, 0, &spool), 1);
	pthread_t t;
	CHECK_EQ_INT(pthread_create(&t, NULL, straddling_thread, NULL), 0);
	pthread_join(t, NULL);
	/* the window closed a few ms ago, so its thread sleeps about 85 ms more: the program's
	 * exit must not wait for it (recorder/stop_wait.h; took the 85 ms before) */
	uint64_t t0 = now_raw_ns();
	launches_stop_windows();
	CHECK(now_raw_ns() - t0 < 40000000ull);
	api_calls_stop();
	api_calls_drain();
	spool_close(&spool);
	struct seen s = {0};
	each_record(path, count_call, &s);
	CHECK_EQ_INT((long long)s.calls, 2);
	CHECK_EQ_INT((long long)s.driver, 1);
	CHECK_EQ_INT((long long)s.runtime, 1);
	CHECK_EQ_INT((long long)s.corr_sum, 12 + 14);
	CHECK_EQ_INT((long long)s.bad_time, 0);
	unlink(path);
	rmdir(dir);
}

TEST(a_disabled_recorder_records_nothing)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	api_calls_disable(); /* as in a forked child */
	one_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 7,
		 0, 1);
	api_calls_drain();
	spool_close(&spool);
	struct seen s = {0};
	each_record(path, count_call, &s);
	CHECK_EQ_INT((long long)s.calls, 0);
	unlink(path);
	rmdir(dir);
}


struct syncs_seen {
	uint32_t n, types[4], correlations[4];
	uint64_t start[4], end[4], call_start[16], call_end[16];
	uint32_t stream[4];
};

static void keep_syncs(const struct kg_raw_hdr *h, void *ctx)
{
	struct syncs_seen *s = ctx;
	if (h->type == KG_RAW_API) {
		const struct kg_raw_api *a = (const void *)h;
		if (a->correlation_id < 16) {
			s->call_start[a->correlation_id] = a->start;
			s->call_end[a->correlation_id] = a->end;
		}
	}
	if (h->type != KG_RAW_SYNC || s->n == 4)
		return;
	const struct kg_raw_sync *y = (const void *)h;
	s->types[s->n] = y->type;
	s->correlations[s->n] = y->correlation_id;
	s->start[s->n] = y->start;
	s->end[s->n] = y->end;
	s->stream[s->n++] = y->stream_id;
}

/* With sync records from the calls (full mode's default, recorder/sync_calls.h), a call
 * that synchronises writes CUPTI's synchronisation record beside its own, with its times
 * and kind; a driver sync inside a runtime one, or any other call, writes none. */
TEST(sync_calls_write_the_sync_record_cupti_would)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	api_calls_record_syncs(1);
	runtime_around_driver(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 11,
			      CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, 11);
	one_call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, 12, 0, 1);
	one_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 13,
		 0, 1);
	api_calls_record_syncs(0);
	one_call(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
		 14, 0, 1);
	api_calls_stop();
	api_calls_drain();
	spool_close(&spool);
	struct syncs_seen s = {0};
	each_record(path, keep_syncs, &s);
	CHECK_EQ_INT(s.n, 2);
	CHECK_EQ_INT(s.types[0], CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
	CHECK_EQ_INT(s.types[1], CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE);
	for (uint32_t i = 0; i < 2; i++) {
		uint32_t c = s.correlations[i];
		CHECK_EQ_INT(c, 11 + i);
		CHECK(s.start[i] != 0 && s.start[i] == s.call_start[c] && s.end[i] == s.call_end[c]);
		CHECK_EQ_INT(s.stream[i], CUPTI_SYNCHRONIZATION_INVALID_VALUE); /* no context here */
	}
	unlink(path);
	rmdir(dir);
}

struct wanted {
	uint16_t type;
	void *out;
	size_t size;
	int found;
};

static void keep_first(const struct kg_raw_hdr *h, void *ctx)
{
	struct wanted *w = ctx;
	if (w->found || h->type != w->type)
		return;
	memcpy(w->out, h, w->size < h->size ? w->size : h->size);
	w->found = 1;
}

/* The first record of a type in a spool, copied into out. */
static int first_record(const char *path, uint16_t type, void *out, size_t size)
{
	struct wanted w = {type, out, size, 0};
	each_record(path, keep_first, &w);
	return w.found;
}

/* CUPTI's copy, peer copy and memset records become raw records field by field
 * (recorder/convert.c), and one without its end is marked incomplete. */
TEST(activity_records_convert_field_by_field)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	CUpti_ActivityMemcpyPtoP4 p = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY2, .copyKind = 10,
				       .srcKind = 3, .dstKind = 3, .flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC,
				       .bytes = 4096, .start = 100, .end = 200, .srcDeviceId = 1,
				       .dstDeviceId = 2, .contextId = 5, .streamId = 7,
				       .correlationId = 77, .channelID = 9, .graphId = 3,
				       .graphNodeId = 33};
	CUpti_ActivityMemset4 m = {.kind = CUPTI_ACTIVITY_KIND_MEMSET, .value = 0xab,
				   .bytes = 512, .start = 300, .end = 0 /* no end */,
				   .deviceId = 4, .contextId = 6, .streamId = 8, .correlationId = 88,
				   .memoryKind = 3};
	pthread_mutex_lock(&spool.lock);
	convert_record(&conv, &spool, (const CUpti_Activity *)&p);
	convert_record(&conv, &spool, (const CUpti_Activity *)&m);
	pthread_mutex_unlock(&spool.lock);
	spool_close(&spool);
	CHECK_EQ_INT((int)conv.incomplete, 1);

	struct kg_raw_memcpy c;
	CHECK(first_record(path, KG_RAW_MEMCPY, &c, sizeof(c)));
	CHECK(c.start == 100 && c.end == 200 && c.bytes == 4096 && c.graph_node_id == 33);
	CHECK(c.device_id == 1 && c.dst_device_id == 2 && c.context_id == 5 && c.stream_id == 7);
	CHECK(c.correlation_id == 77 && c.channel_id == 9 && c.graph_id == 3);
	CHECK(c.copy_kind == 10 && c.src_kind == 3 && c.dst_kind == 3 && c.async == 1);
	CHECK_EQ_INT(c.h.flags & KG_RAW_F_INCOMPLETE, 0);

	struct kg_raw_memset z;
	CHECK(first_record(path, KG_RAW_MEMSET, &z, sizeof(z)));
	CHECK(z.start == 300 && z.bytes == 512 && z.device_id == 4 && z.stream_id == 8);
	CHECK(z.correlation_id == 88 && z.value == 0xab && z.memory_kind == 3 && z.async == 0);
	CHECK(z.h.flags & KG_RAW_F_INCOMPLETE);
	unlink(path);
	rmdir(dir);
}

static void launch_settings(const struct kg_raw_hdr *h, void *ctx)
{
	if (h->type == KG_RAW_LAUNCH_SETTINGS)
		*(struct kg_raw_launch_settings *)ctx = *(const struct kg_raw_launch_settings *)h;
}

/* Whether launches_pass_over passes a launch's callback over: the kernel is the first
 * parameter of cudaLaunchKernel and cuLaunchKernel (launches_key). */
static int passed_over(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, uintptr_t kernel,
		       CUpti_ApiCallbackSite site)
{
	const void *params[1] = {(const void *)kernel};
	CUpti_CallbackData cb = {.callbackSite = site, .functionParams = params};
	return launches_pass_over(domain, cbid, &cb);
}

/* The measurement switches tests/gpu/window_switch.sh runs (bench/overhead.sh's
 * kgantt-full-win-first and kgantt-full-winflag): the first window only, its next a minute
 * away, written as such in the trace and stopped at once at exit (its first run took 60 s);
 * with the flag, a closed window passes a launch over, not a copy, and not a new kernel's
 * launch, whose exit and inner driver launch are then recorded too, and nothing after it. */
TEST(the_windows_measurement_switches_do_what_they_say)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	launches_init();
	setenv("KGANTT_DEV_LAUNCH_WINDOW", "10,60000", 1);
	setenv("KGANTT_DEV_WINDOW_FLAG", "1", 1);
	CHECK_EQ_INT(launches_start_windows(NULL, NULL, 0, &spool), 1);
	const CUpti_CallbackDomain RT = CUPTI_CB_DOMAIN_RUNTIME_API, DRV = CUPTI_CB_DOMAIN_DRIVER_API;
	const CUpti_CallbackId launch = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	const CUpti_CallbackId drv_launch = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
	uint32_t closed = launches_closings();
	CHECK_EQ_INT(passed_over(RT, launch, 0x5678, CUPTI_API_ENTER), 0);
	CHECK_EQ_INT(passed_over(RT, launch, 0x5678, CUPTI_API_EXIT), 0);
	await_closing(closed);
	CHECK_EQ_INT(passed_over(RT, launch, 0x5678, CUPTI_API_ENTER), 1);
	CHECK_EQ_INT(passed_over(RT, launch, 0x5678, CUPTI_API_EXIT), 1);
	CHECK_EQ_INT(passed_over(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 0, CUPTI_API_ENTER), 0);
	/* a kernel never seen, around its driver launch (a kernel seen: 0x5678) */
	CHECK_EQ_INT(passed_over(RT, launch, 0x9999, CUPTI_API_ENTER), 0);
	CHECK_EQ_INT(passed_over(DRV, drv_launch, 0x5678, CUPTI_API_ENTER), 0);
	CHECK_EQ_INT(passed_over(DRV, drv_launch, 0x5678, CUPTI_API_EXIT), 0);
	CHECK_EQ_INT(passed_over(RT, launch, 0x9999, CUPTI_API_EXIT), 0);
	CHECK_EQ_INT(passed_over(RT, launch, 0x9999, CUPTI_API_ENTER), 1);
	CHECK_EQ_INT(passed_over(RT, launch, 0x9999, CUPTI_API_EXIT), 1);
	CHECK_EQ_INT(passed_over(DRV, drv_launch, 0x5678, CUPTI_API_ENTER), 1);
	uint64_t t0 = now_raw_ns();
	launches_stop_windows();
	CHECK(now_raw_ns() - t0 < 1000000000ull);
	unsetenv("KGANTT_DEV_LAUNCH_WINDOW");
	unsetenv("KGANTT_DEV_WINDOW_FLAG");
	api_calls_stop();
	spool_close(&spool);
	struct kg_raw_launch_settings ls = {0};
	each_record(path, launch_settings, &ls);
	CHECK_EQ_INT(ls.sampled, 1);
	CHECK_EQ_INT(ls.window_on_ms, 10);
	CHECK_EQ_INT(ls.window_period_ms, 60000);
	unlink(path);
	rmdir(dir);
}

/* KGANTT_DEV_LAUNCH_DOMAINS=runtime (window_switch.sh's kgantt-full-win-runtime): the
 * windows switch the runtime's launch callbacks and leave the driver's off throughout, also
 * where the API calls' callbacks had switched every callback on. */
TEST(the_launch_domains_switch_leaves_the_other_domain_off)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	launches_init();
	const CUpti_CallbackId rt_launch = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
	const CUpti_CallbackId drv_launch = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
	driver_cb_on[drv_launch] = 1; /* as the API calls' callbacks left it */
	setenv("KGANTT_DEV_LAUNCH_DOMAINS", "runtime", 1);
	setenv("KGANTT_DEV_LAUNCH_WINDOW", "10,60000", 1); /* closed until the stop, however late
							     * this thread looks */
	CHECK_EQ_INT(launches_start_windows(NULL, NULL, 0, &spool), 1);
	CHECK_EQ_INT(runtime_cb_on[rt_launch], 1);
	CHECK_EQ_INT(driver_cb_on[drv_launch], 0);
	uint32_t closed = launches_closings();
	CHECK_EQ_INT(launches_seen(0x9abc), 1);
	CHECK_EQ_INT(launches_seen(0x9abc), 0);
	await_closing(closed);
	CHECK_EQ_INT(runtime_cb_on[rt_launch], 0);
	CHECK_EQ_INT(driver_cb_on[drv_launch], 0);
	launches_stop_windows();
	CHECK_EQ_INT(runtime_cb_on[rt_launch], 1);
	CHECK_EQ_INT(driver_cb_on[drv_launch], 0);
	unsetenv("KGANTT_DEV_LAUNCH_DOMAINS");
	unsetenv("KGANTT_DEV_LAUNCH_WINDOW");
	api_calls_stop();
	spool_close(&spool);
	unlink(path);
	rmdir(dir);
}

/* ------------------------------------------------------------------ the launch hook */

/* CUPTI's and the stack sampler's sides of a hooked launch, played (the test's
 * definitions come before libcupti's and stand for recorder/stacks.c's) */
static uint32_t stacks_asked, stack_correlation;

void stacks_on_hooked_launch(uint32_t cbid, uintptr_t key, uint32_t correlation)
{
	(void)cbid, (void)key;
	stacks_asked++;
	stack_correlation = correlation;
}

static uint32_t streams_asked, devices_asked, fake_device = 3;

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream,
					uint8_t per_thread, uint32_t *id)
{
	(void)context;
	streams_asked++;
	*id = (uint32_t)(uintptr_t)stream + (per_thread ? 1000 : 0);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *device)
{
	(void)context;
	devices_asked++;
	*device = fake_device;
	return CUPTI_SUCCESS;
}

static int forgotten;
static void forget(void)
{
	forgotten++;
}

static int capturing_yes(void)
{
	return 1;
}

struct hooked_seen {
	struct kg_raw_api api;
	struct kg_raw_hooked_launch stream;
	int apis, streams;
	uint32_t sampled, how;    /* the launch settings' */
	uint32_t hook_string;     /* the id of "the launch hook" */
	uint32_t dated_string;    /* the id of "every launch dated by the launch hook" */
};

static int string_is(const struct kg_raw_string *str, const char *text)
{
	return str->len == strlen(text) && !memcmp(str->text, text, str->len);
}

static void hooked_records(const struct kg_raw_hdr *h, void *ctx)
{
	struct hooked_seen *s = ctx;
	if (h->type == KG_RAW_STRING) {
		const struct kg_raw_string *str = (const void *)h;
		if (string_is(str, KG_LAUNCHES_BY_HOOK))
			s->hook_string = str->id;
		if (string_is(str, KG_LAUNCHES_DATED_BY_HOOK))
			s->dated_string = str->id;
	} else if (h->type == KG_RAW_API) {
		s->api = *(const struct kg_raw_api *)h;
		s->apis++;
	} else if (h->type == KG_RAW_HOOKED_LAUNCH) {
		s->stream = *(const struct kg_raw_hooked_launch *)h;
		s->streams++;
	} else if (h->type == KG_RAW_LAUNCH_SETTINGS) {
		s->sampled = ((const struct kg_raw_launch_settings *)h)->sampled;
		s->how = ((const struct kg_raw_launch_settings *)h)->why_str;
	}
}

/* With the launch hook (recorder/hooked_launches.h) the windows switch its flag, never a
 * CUPTI launch callback; a launch it tells becomes the driver's API call under the
 * recorder's own correlation id, followed by its stream's record, its stack asked for under
 * the same id; an unloaded module makes the hook forget its kernels. */
TEST(the_launch_hook_windows_and_its_launches)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	launches_init();
	memset(runtime_cb_on, 0, sizeof(runtime_cb_on));
	memset(driver_cb_on, 0, sizeof(driver_cb_on));
	struct kg_launch_hook hook = {.version = KG_LAUNCH_HOOK_VERSION, .forget_kernels = forget};
	hooked_launches_attach(&hook, capturing_yes, 0);
	CHECK(atomic_load(&hook.observer) != NULL);
	CHECK_EQ_INT(atomic_load(&hook.first_launches), 1);
	CHECK_EQ_INT(launches_start_windows(NULL, &hook, 0, &spool), 1);
	CHECK_EQ_INT(atomic_load(&hook.observing), 1); /* open until the first launch */
	CHECK_EQ_INT(runtime_cb_on[CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000], 0);
	CHECK_EQ_INT(driver_cb_on[CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel], 0);

	const struct kg_launch_observer *o = atomic_load(&hook.observer);
	struct kg_hooked_launch l = {.fn = KG_HOOK_LAUNCH_KERNEL_EX, .per_thread_stream = 1,
				     .function = (CUfunction)0x1234, .stream = (CUstream)0x22};
	o->enter(&l);
	CHECK_EQ_INT(stacks_asked, 1);
	o->exit(&l, CUDA_ERROR_INVALID_VALUE);

	/* a module unloaded: the hook forgets its kernels (their handles come back) */
	CUpti_CallbackData cb = {.callbackSite = CUPTI_API_EXIT};
	hooked_launches_on_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuModuleUnload,
			       &cb);
	hooked_launches_on_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
			       &cb);
	CHECK_EQ_INT(forgotten, 1);

	launches_stop_windows();
	CHECK_EQ_INT(atomic_load(&hook.observing), 1); /* launches after the windows are seen */
	CHECK_EQ_INT(driver_cb_on[CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel], 0);
	api_calls_stop();
	api_calls_drain();
	spool_close(&spool);

	struct hooked_seen s = {0};
	each_record(path, hooked_records, &s);
	CHECK_EQ_INT(s.apis, 1);
	CHECK_EQ_INT(s.api.domain, KG_API_DRIVER);
	CHECK_EQ_INT(s.api.cbid, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
	CHECK(s.api.correlation_id >= KG_RAW_HOOKED_CORRELATION);
	CHECK_EQ_INT(s.api.correlation_id, stack_correlation);
	CHECK_EQ_INT(s.api.return_value, CUDA_ERROR_INVALID_VALUE);
	CHECK(s.api.start > 0 && s.api.end >= s.api.start);
	CHECK_EQ_INT(s.streams, 1);
	CHECK_EQ_INT(s.stream.correlation_id, s.api.correlation_id);
	CHECK_EQ_INT(s.stream.stream_id, 0x22 + 1000); /* the per-thread stream's */
	CHECK_EQ_INT(s.stream.device_id, 3);
	CHECK(s.hook_string != 0);
	CHECK_EQ_INT(s.how, s.hook_string);
	hooked_launches_detach();
	CHECK(atomic_load(&hook.observer) == NULL);
	unlink(path);
	rmdir(dir);
}


/* KGANTT_DEV_DATED: the hook tells every launch, a window open or not, and each becomes a
 * call; its stack is taken only in a window or at a kernel's first launch; the settings
 * say every launch, dated by the hook. */
TEST(the_launch_hook_dates_every_launch_when_told)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	launches_init();
	struct kg_launch_hook hook = {.version = KG_LAUNCH_HOOK_VERSION, .forget_kernels = forget};
	hooked_launches_attach(&hook, capturing_yes, 1);
	setenv("KGANTT_DEV_LAUNCH_WINDOW", "10,60000", 1); /* closed until the stop */
	uint32_t closed = launches_closings();
	CHECK_EQ_INT(launches_start_windows(NULL, &hook, 1, &spool), 1);
	const struct kg_launch_observer *o = atomic_load(&hook.observer);
	uint32_t stacks = stacks_asked;
	struct kg_hooked_launch l = {.fn = KG_HOOK_LAUNCH_KERNEL, .function = (CUfunction)0x5151,
				     .stream = (CUstream)0x22};
	o->enter(&l);
	o->exit(&l, CUDA_SUCCESS);
	CHECK_EQ_INT(stacks_asked, stacks + 1); /* the window is open */
	await_closing(closed);
	CHECK_EQ_INT(atomic_load(&hook.observing), 1); /* closed, every launch still told */
	for (int i = 0; i < 2; i++) {
		l = (struct kg_hooked_launch){.fn = KG_HOOK_LAUNCH_KERNEL,
					      .function = (CUfunction)0x5151,
					      .stream = (CUstream)0x22};
		o->enter(&l);
		o->exit(&l, CUDA_SUCCESS);
	}
	CHECK_EQ_INT(stacks_asked, stacks + 1);
	l = (struct kg_hooked_launch){.fn = KG_HOOK_LAUNCH_KERNEL, .function = (CUfunction)0x5252,
				      .stream = (CUstream)0x22};
	o->enter(&l); /* a kernel's first launch: its stack, window or not */
	o->exit(&l, CUDA_SUCCESS);
	CHECK_EQ_INT(stacks_asked, stacks + 2);
	launches_stop_windows();
	unsetenv("KGANTT_DEV_LAUNCH_WINDOW");
	api_calls_stop();
	api_calls_drain();
	spool_close(&spool);

	struct hooked_seen s = {0};
	each_record(path, hooked_records, &s);
	CHECK_EQ_INT(s.apis, 4);
	CHECK_EQ_INT(s.sampled, 0);
	CHECK(s.dated_string != 0);
	CHECK_EQ_INT(s.how, s.dated_string);
	hooked_launches_detach();
	unlink(path);
	rmdir(dir);
}

/* The hook attached with KGANTT_DEV_HOOK_QUERY=query (NULL: the default), CUPTI's look-ups
 * counted from 0: the observer the hook calls. */
static const struct kg_launch_observer *hook_asking(struct kg_launch_hook *hook,
						    const char *query)
{
	if (query)
		setenv("KGANTT_DEV_HOOK_QUERY", query, 1);
	hooked_launches_attach(hook, capturing_yes, 0);
	unsetenv("KGANTT_DEV_HOOK_QUERY");
	streams_asked = devices_asked = 0;
	return atomic_load(&hook->observer);
}

static void launch_on(const struct kg_launch_observer *o, uintptr_t stream)
{
	struct kg_hooked_launch l = {.fn = KG_HOOK_LAUNCH_KERNEL, .function = (CUfunction)0x99,
				     .stream = (CUstream)stream};
	o->enter(&l);
	o->exit(&l, CUDA_SUCCESS);
}

struct hooked_ids {
	uint32_t stream[16], device[16];
	int n;
};

static void hooked_ids_of(const struct kg_raw_hdr *h, void *ctx)
{
	struct hooked_ids *s = ctx;
	if (h->type != KG_RAW_HOOKED_LAUNCH || s->n >= 16)
		return;
	s->stream[s->n] = ((const struct kg_raw_hooked_launch *)h)->stream_id;
	s->device[s->n++] = ((const struct kg_raw_hooked_launch *)h)->device_id;
}

/* A thread keeps its streams' ids (recorder/hooked_launches.c): CUPTI is asked once a
 * stream, again after a call that can change what a handle names (cudaSetDevice, not
 * cudaGetDevice), and again once a window has closed. */
TEST(the_launch_hook_asks_cupti_once_a_stream)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	launches_init();
	struct kg_launch_hook hook = {.version = KG_LAUNCH_HOOK_VERSION, .forget_kernels = forget};
	const struct kg_launch_observer *o = hook_asking(&hook, NULL);
	fake_device = 3;
	/* no windows' thread yet: no window closes under these */
	launch_on(o, 0x22);
	launch_on(o, 0x22);
	launch_on(o, 0x33);
	launch_on(o, 0x22);
	CHECK_EQ_INT(streams_asked, 2);
	CHECK_EQ_INT(devices_asked, 2);

	CUpti_CallbackData cb = {.callbackSite = CUPTI_API_EXIT};
	fake_device = 5;
	hooked_launches_on_api(CUPTI_CB_DOMAIN_RUNTIME_API,
			       CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, &cb);
	launch_on(o, 0x22);
	CHECK_EQ_INT(streams_asked, 2);
	hooked_launches_on_api(CUPTI_CB_DOMAIN_RUNTIME_API,
			       CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020, &cb);
	launch_on(o, 0x22);
	CHECK_EQ_INT(streams_asked, 3);
	hooked_launches_on_api(CUPTI_CB_DOMAIN_DRIVER_API,
			       CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, &cb);
	launch_on(o, 0x22);
	CHECK_EQ_INT(streams_asked, 4);

	uint32_t closed = launches_closings();
	CHECK_EQ_INT(launches_start_windows(NULL, &hook, 0, &spool), 1);
	await_closing(closed);
	launch_on(o, 0x22);
	CHECK_EQ_INT(streams_asked, 5);
	launches_stop_windows();
	api_calls_stop();
	api_calls_drain();
	spool_close(&spool);

	struct hooked_ids s = {0};
	each_record(path, hooked_ids_of, &s);
	CHECK_EQ_INT(s.n, 8);
	const uint32_t streams[] = {0x22, 0x22, 0x33, 0x22, 0x22, 0x22, 0x22, 0x22};
	const uint32_t devices[] = {3, 3, 3, 3, 3, 5, 5, 5};
	for (int i = 0; i < s.n && i < 8; i++) {
		CHECK_EQ_INT(s.stream[i], streams[i]);
		CHECK_EQ_INT(s.device[i], devices[i]);
	}
	hooked_launches_detach();
	unlink(path);
	rmdir(dir);
}

/* KGANTT_DEV_HOOK_QUERY=each, the measurement switch for the recorder before the threads
 * kept their ids: CUPTI asked for every recorded launch's stream and device. */
TEST(the_launch_hook_asks_cupti_each_launch_when_told)
{
	char dir[] = "/tmp/kgantt-api-XXXXXX", path[64];
	start_recorder(dir, path, sizeof(path));
	launches_init();
	struct kg_launch_hook hook = {.version = KG_LAUNCH_HOOK_VERSION, .forget_kernels = forget};
	const struct kg_launch_observer *o = hook_asking(&hook, "each");
	launch_on(o, 0x22);
	launch_on(o, 0x22);
	launch_on(o, 0x33);
	CHECK_EQ_INT(streams_asked, 3);
	CHECK_EQ_INT(devices_asked, 3);
	api_calls_stop();
	api_calls_drain();
	spool_close(&spool);
	hooked_launches_detach();
	unlink(path);
	rmdir(dir);
}
