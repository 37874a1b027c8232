/* libkgantt-inject.so: the recorder that lives inside the traced program.
 *
 * The CUDA driver loads it when CUDA_INJECTION64_PATH names it and calls
 * InitializeInjection() from cuInit. From there it sets up the CUPTI Activity API on
 * CLOCK_MONOTONIC_RAW, hands CUPTI pre-allocated buffers, converts completed buffers
 * into the raw spool (recorder/raw_format.h) and writes them out at once. A flusher
 * thread asks CUPTI for completed records every KGANTT_FLUSH_MS (default 500 ms), so
 * a program that dies leaves everything CUPTI had handed over.
 *
 * Rules, because this code runs inside somebody else's program:
 *  - never exit(), abort() or raise; on any failure write a status record, say why on
 *    stderr once, and let the program run on untraced;
 *  - no allocation on the application's launch path: CUPTI asks for buffers from the
 *    launching thread, so they come from a pool filled at start;
 *  - settings come from the environment that `kgantt record` prepares (KGANTT_*).
 */
#include <cupti.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder/api_calls.h"
#include "recorder/api_filter.h"
#include "util/clock.h"
#include "recorder/convert.h"
#include "recorder/dev_ab.h"
#include "util/record_settings.h"
#include "recorder/hostsample.h"
#include "recorder/own_thread.h"
#include "recorder/hooked_launches.h"
#include "recorder/hwsample.h"
#include "recorder/launches.h"
#include "recorder/raw_format.h"
#include "recorder/smlog.h"
#include "recorder/spool.h"
#include "recorder/stop_wait.h"
#include "recorder/stacks.h"
#include "recorder/wait_places.h"

#define KG_EXPORT __attribute__((visibility("default")))
#define KG_STR2(x) #x
#define KG_STR(x) KG_STR2(x)
/* the libcupti soname this recorder is built against (libcupti.so.13 for CUDA 13) */
#define KG_CUPTI_SOVERSION KG_STR(CUPTI_SOVERSION_MAJOR)

struct kg_pool {
	pthread_mutex_t lock;
	uint8_t **free_bufs;
	int nfree, cap;
	size_t buf_bytes;
	uint64_t late; /* buffers malloc'ed on demand because the pool was empty */
};

static struct {
	int active;            /* CUPTI set up and the spool open */
	int capturing;         /* activity kinds currently enabled */
	int ever_captured;     /* they were, at some time: else the trace is empty, and says why */
	pid_t pid;
	enum kg_mode mode;
	int latency;
	int latency_refused;        /* asked for, CUPTI said no: every launch is then recorded */
	int dated;                  /* the launch hook dates every launch (KGANTT_DEV_DATED) */
	int sync_calls;             /* sync records from the API callbacks (sync_calls.h) */
	int sync_kind;              /* KGANTT_DEV_SYNC_KIND: 0 no CUPTI sync kind, 1 it instead,
				     * 2 it as well */
	int all_api;                /* 1: every API call, trivial queries too (--all-api) */
	int api_callbacks;          /* API calls from callbacks, not activity records (api_calls.h) */
	int all_launches;           /* 1: every kernel launch's call (--all-launches) */
	int launch_windows;         /* launch callbacks on in windows (launches.h) */
	struct kg_launch_hook *launch_hook; /* ... told by the preloaded hook instead */
	struct kg_stack_config stacks; /* call stacks (--stacks) */
	unsigned flush_ms;
	double delay_s, duration_s;
	int profiler_api_range;
	uint64_t hw_interval_ns;    /* --hw: PM sampling interval, 0 off */
	unsigned host_hz;           /* host samples a second per thread, 0 off */
	int sm;                     /* --sm: read the block logs of include/kgantt/sm.h */
	uint64_t t0;           /* CLOCK_MONOTONIC_RAW origin of --delay/--duration */
	struct kg_spool spool;
	struct kg_pool pool;
	struct kg_convert conv;
	CUpti_SubscriberHandle subscriber;
	pthread_mutex_t capture_lock;
	pthread_t flusher;
	int flusher_started;
	struct kg_stop_wait flusher_wait; /* the flusher's sleep, cut short at exit */
} g = {
	.capture_lock = PTHREAD_MUTEX_INITIALIZER,
};

static uint64_t now_realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CUPTI calls this for every timestamp it takes: all records share the host clock. */
static uint64_t timestamp_callback(void)
{
	return now_raw_ns();
}

/* ------------------------------------------------------------------ status */

static void status(enum kg_status_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void status(enum kg_status_level level, const char *fmt, ...)
{
	char text[2048]; /* the note of trivial API functions is about 1 kB */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (level >= KG_STATUS_WARNING || getenv("KGANTT_VERBOSE"))
		fprintf(stderr, "kgantt[%d]: %s\n", (int)getpid(), text);
	if (g.spool.fd < 0 || !g.spool.buf)
		return;
	pthread_mutex_lock(&g.spool.lock);
	uint32_t sid = spool_string(&g.spool, text);
	struct kg_raw_status *r = spool_reserve(&g.spool, KG_RAW_STATUS, sizeof(*r));
	if (r) {
		r->ts = now_raw_ns();
		r->level = level;
		r->text_str = sid;
	}
	spool_flush(&g.spool);
	pthread_mutex_unlock(&g.spool.lock);
}

static void hw_status(int level, const char *text)
{
	status((enum kg_status_level)level, "%s", text);
}

static void sm_status(int level, const char *text)
{
	status((enum kg_status_level)level, "%s", text);
}

static void host_status(int level, const char *text)
{
	status((enum kg_status_level)level, "%s", text);
}

static const char *cupti_error(CUptiResult res)
{
	const char *s = NULL;
	if (cuptiGetResultString(res, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

/* ------------------------------------------------------------------ buffers */

static int pool_init(struct kg_pool *p, size_t bytes, int count)
{
	pthread_mutex_init(&p->lock, NULL);
	p->buf_bytes = bytes;
	p->cap = count * 2;
	p->free_bufs = calloc((size_t)p->cap, sizeof(*p->free_bufs));
	if (!p->free_bufs)
		return -ENOMEM;
	for (int i = 0; i < count; i++) {
		uint8_t *b = aligned_alloc(8, bytes);
		if (!b)
			return -ENOMEM;
		p->free_bufs[p->nfree++] = b;
	}
	return 0;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	struct kg_pool *p = &g.pool;
	uint8_t *b = NULL;
	pthread_mutex_lock(&p->lock);
	if (p->nfree > 0)
		b = p->free_bufs[--p->nfree];
	else
		p->late++;
	pthread_mutex_unlock(&p->lock);
	if (!b)
		b = aligned_alloc(8, p->buf_bytes); /* pool exhausted: counted, reported */
	*buffer = b;
	*size = b ? p->buf_bytes : 0;
	*max_records = 0;
}

static void pool_put(struct kg_pool *p, uint8_t *b)
{
	pthread_mutex_lock(&p->lock);
	if (p->nfree < p->cap) {
		p->free_bufs[p->nfree++] = b;
		b = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	free(b);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
				      size_t size, size_t valid)
{
	if (!buffer)
		return;
	if (g.active && g.pid == getpid()) {
		pthread_mutex_lock(&g.spool.lock);
		CUpti_Activity *rec = NULL;
		while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
			convert_record(&g.conv, &g.spool, rec);
		size_t dropped = 0;
		if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS &&
		    dropped > 0)
			convert_dropped(&g.conv, &g.spool, now_raw_ns(), dropped, ctx, stream_id);
		spool_flush(&g.spool);
		pthread_mutex_unlock(&g.spool.lock);
	}
	pool_put(&g.pool, buffer);
}

/* ------------------------------------------------------------------ capture */

static const CUpti_ActivityKind full_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_RUNTIME,
	CUPTI_ACTIVITY_KIND_DRIVER,            CUPTI_ACTIVITY_KIND_MARKER,
	CUPTI_ACTIVITY_KIND_OVERHEAD,
};
static const CUpti_ActivityKind kernel_kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
};
/* Always on, whatever the window: a few records per device, context and stream. */
static const CUpti_ActivityKind meta_kinds[] = {
	CUPTI_ACTIVITY_KIND_DEVICE,
	CUPTI_ACTIVITY_KIND_CONTEXT,
	CUPTI_ACTIVITY_KIND_STREAM,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void capture_record(int on, const char *why)
{
	pthread_mutex_lock(&g.spool.lock);
	uint32_t sid = spool_string(&g.spool, why);
	struct kg_raw_capture *r = spool_reserve(&g.spool, KG_RAW_CAPTURE, sizeof(*r));
	if (r) {
		r->ts = now_raw_ns();
		r->on = (uint32_t)on;
		r->why_str = sid;
	}
	spool_flush(&g.spool);
	pthread_mutex_unlock(&g.spool.lock);
}

/* Weak: a libcupti older than these functions records every call, and says so. */
extern CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId, uint8_t)
	__attribute__((weak));
extern CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId, uint8_t)
	__attribute__((weak));

/* The trivial functions this CUPTI would not leave out (an id it does not know): they
 * are recorded, and the note does not name them. */
static struct {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
} kept_trivial[16];
static size_t n_kept_trivial;

static int kept_by_cupti(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	for (size_t i = 0; i < n_kept_trivial; i++)
		if (kept_trivial[i].domain == domain && kept_trivial[i].cbid == cbid)
			return 1;
	return 0;
}

/* Asks CUPTI to leave one trivial function out of the activity records; a function
 * it does not know (an older CUPTI) is kept in kept_trivial. */
static int leave_out(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	CUptiResult rc = domain == CUPTI_CB_DOMAIN_RUNTIME_API
				 ? cuptiActivityEnableRuntimeApi(cbid, 0)
				 : cuptiActivityEnableDriverApi(cbid, 0);
	if (rc == CUPTI_SUCCESS)
		return 1;
	if (!kept_by_cupti(domain, cbid) && n_kept_trivial < COUNT(kept_trivial)) {
		kept_trivial[n_kept_trivial].domain = domain;
		kept_trivial[n_kept_trivial].cbid = cbid;
		n_kept_trivial++;
	}
	return 0;
}

/* After the RUNTIME and DRIVER kinds are enabled (enabling them again resets this). */
static void skip_trivial_api(void)
{
	static int said;
	static const CUpti_CallbackDomain domains[] = {CUPTI_CB_DOMAIN_RUNTIME_API,
						       CUPTI_CB_DOMAIN_DRIVER_API};
	size_t left_out = 0;
	for (size_t d = 0; d < COUNT(domains) && cuptiActivityEnableRuntimeApi &&
			   cuptiActivityEnableDriverApi;
	     d++) {
		const CUpti_CallbackId *list;
		size_t n = api_filter_list(domains[d], &list);
		for (size_t i = 0; i < n; i++)
			left_out += (size_t)leave_out(domains[d], list[i]);
	}
	if (said++)
		return;
	if (left_out == 0) {
		status(KG_STATUS_INFO, "this CUPTI cannot leave single API functions out: every "
				       "API call is recorded");
	} else {
		char names[1536];
		api_filter_names(names, sizeof(names), kept_by_cupti);
		status(KG_STATUS_INFO, "API calls not recorded (trivial queries; kgantt record "
				       "--all-api keeps them): %s", names);
	}
}

/* Calls the trace leaves out get no stack either. */
static int untraced_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return !g.all_api && api_filter_trivial(domain, cbid);
}

/* ... nor do kernel launches get CUPTI's callbacks when the launch hook tells them: none is
 * ever enabled then (what CUPTI charges for them: docs/results/launch-hook-h100.md). */
static int no_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return untraced_api(domain, cbid) ||
	       (g.launch_hook && launches_is_kernel_launch(domain, cbid));
}

/* For bench/recorder_cost.sh only (what each part of the recorder costs): activity kinds
 * left off, by number, from KGANTT_DEV_SKIP_KINDS ("5,6"). Not a user setting: the trace
 * then lacks what the kinds carry. */
static int dev_skipped_kind(CUpti_ActivityKind k)
{
	const char *v = getenv("KGANTT_DEV_SKIP_KINDS");
	for (const char *p = v; p && *p;) {
		char *end;
		long n = strtol(p, &end, 10);
		if (end == p)
			break;
		if (n == (long)k)
			return 1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* 1 for a kind whose records the API callbacks write instead: the calls themselves, and
 * the synchronisations (sync_calls.h: once enabled, CUPTI's kind costs every launch of the
 * process). */
static int from_callbacks(CUpti_ActivityKind k)
{
	return g.api_callbacks && (k == CUPTI_ACTIVITY_KIND_RUNTIME || k == CUPTI_ACTIVITY_KIND_DRIVER ||
				   (k == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION && g.sync_kind == 0));
}

/* Switch the traced kinds on or off; returns 0 or a CUPTI error (only when switching on). */
static CUptiResult set_capture(int on, const char *why)
{
	const CUpti_ActivityKind *kinds = g.mode == KG_MODE_FULL ? full_kinds : kernel_kinds;
	size_t n = g.mode == KG_MODE_FULL ? COUNT(full_kinds) : COUNT(kernel_kinds);
	CUptiResult first_err = CUPTI_SUCCESS;

	pthread_mutex_lock(&g.capture_lock);
	if (on == g.capturing) {
		pthread_mutex_unlock(&g.capture_lock);
		return CUPTI_SUCCESS;
	}
	for (size_t i = 0; i < n; i++) {
		if (dev_skipped_kind(kinds[i]) || from_callbacks(kinds[i]))
			continue;
		CUptiResult res = on ? cuptiActivityEnable(kinds[i]) : cuptiActivityDisable(kinds[i]);
		if (res != CUPTI_SUCCESS && on) {
			/* NVTX (MARKER) or MEMCPY2 may be unsupported on some setups: keep the rest. */
			status(KG_STATUS_WARNING, "cannot enable CUPTI activity kind %d: %s",
			       (int)kinds[i], cupti_error(res));
			if (kinds[i] == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
				first_err = res;
		}
	}
	if (on && g.mode == KG_MODE_FULL && !g.all_api && !g.api_callbacks)
		skip_trivial_api();
	g.capturing = on;
	g.ever_captured |= on;
	pthread_mutex_unlock(&g.capture_lock);
	capture_record(on, why);
	if (!on)
		cuptiActivityFlushAll(0);
	return first_err;
}

static void CUPTIAPI api_callback(void *userdata, CUpti_CallbackDomain domain,
				  CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *cb = data;
	if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
		uint32_t device = 0;
		const CUpti_ResourceData *rd = data;
		if (cuptiGetDeviceId(rd->context, &device) == CUPTI_SUCCESS)
			hw_device_used(device);
		return;
	}
	if (domain == CUPTI_CB_DOMAIN_RESOURCE &&
	    cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
		if (g.sm)
			smlog_on_context_destroy(((const CUpti_ResourceData *)data)->context);
		return;
	}
	if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API)
		return;
	/* the recorder's own calls (reading the SM block logs) are nobody's business */
	if (g.sm && smlog_on_api(domain, cbid, cb))
		return;
	if (g.hw_interval_ns && cb->callbackSite == CUPTI_API_EXIT)
		hw_on_api_exit(cb->context);
	if (g.launch_windows && launches_pass_over(domain, cbid, cb))
		return;
	if (g.launch_hook)
		hooked_launches_on_api(domain, cbid, cb);
	if (g.api_callbacks)
		api_calls_on_callback(domain, cbid, cb, g.capturing);
	if (g.capturing)
		stacks_on_api(domain, cbid, cb);
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API || !g.profiler_api_range)
		return;
	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart && cb->callbackSite == CUPTI_API_EXIT)
		set_capture(1, "cudaProfilerStart");
	else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop &&
		 cb->callbackSite == CUPTI_API_ENTER)
		set_capture(0, "cudaProfilerStop");
}

/* Returns at t, or at once when the program exits (at_exit joins the flusher): 1 then. */
static int sleep_until(uint64_t t)
{
	uint64_t now = now_raw_ns();
	return stop_wait_ns(&g.flusher_wait, now < t ? t - now : 0);
}

/* Moves completed records out of the process every flush_ms and runs the
 * --delay/--duration window. */
static void *flusher_main(void *arg)
{
	uint64_t on_at = g.t0 + (uint64_t)(g.delay_s * 1e9);
	uint64_t off_at = g.duration_s > 0 ? on_at + (uint64_t)(g.duration_s * 1e9) : UINT64_MAX;
	int window = g.delay_s > 0 || g.duration_s > 0;
	int started = !window || g.delay_s <= 0;
	int stopped = 0;
	hostsample_own_thread();

	for (;;) {
		uint64_t next = now_raw_ns() + (uint64_t)g.flush_ms * 1000000ull;
		if (!started && on_at < next)
			next = on_at;
		if (!stopped && off_at < next)
			next = off_at;
		if (sleep_until(next))
			break;
		uint64_t now = now_raw_ns();
		if (window && !started && now >= on_at) {
			started = 1;
			set_capture(1, "delay elapsed");
		}
		if (window && !stopped && now >= off_at) {
			stopped = 1;
			set_capture(0, "duration elapsed");
		}
		cuptiActivityFlushAll(0);
		api_calls_drain();
		stacks_drain(&g.spool);
		hostsample_drain(&g.spool);
	}
	return NULL;
}

/* ------------------------------------------------------------------ start and end */

static double env_double(const char *name, double def)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	char *end;
	double d = strtod(v, &end);
	return *end == '\0' && d >= 0 ? d : def;
}

static long env_long(const char *name, long def, long lo, long hi);

/* A setting of util/record_settings.h: its variable, else its default. */
static long setting(enum kg_record_setting id)
{
	const struct kg_record_setting_info *r = &kg_record_setting[id];
	return env_long(r->env, r->def, r->lo, r->hi);
}

static long env_long(const char *name, long def, long lo, long hi)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return def;
	char *end;
	long n = strtol(v, &end, 10);
	if (*end != '\0' || n < lo || n > hi)
		return def;
	return n;
}

/* The spool goes to $KGANTT_DIR (made by `kgantt record`), else ./kgantt-spool. */
static int open_spool(void)
{
	const char *dir = getenv("KGANTT_DIR");
	char host[256] = "host";
	char path[PATH_MAX];

	if (!dir || !*dir)
		dir = "kgantt-spool";
	mkdir(dir, 0755);
	gethostname(host, sizeof(host) - 1);
	snprintf(path, sizeof(path), "%s/%s.%d.kgspool", dir, host, (int)getpid());
	size_t stage = (size_t)env_long("KGANTT_STAGE_KB", 1024, 64, 1 << 20) * 1024;
	int err = spool_open(&g.spool, path, stage);
	if (err < 0) {
		fprintf(stderr, "kgantt[%d]: cannot create '%s': %s; the program runs untraced\n",
			(int)getpid(), path, strerror(-err));
		return err;
	}
	return 0;
}

static char *read_cmdline(void)
{
	FILE *f = fopen("/proc/self/cmdline", "r");
	if (!f)
		return NULL;
	char *buf = malloc(8192);
	size_t n = buf ? fread(buf, 1, 8191, f) : 0;
	fclose(f);
	if (!buf)
		return NULL;
	for (size_t i = 0; i + 1 < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return buf;
}

static void write_process_record(void)
{
	char host[256] = "";
	char exe[PATH_MAX] = "";
	char *cmdline = read_cmdline();
	const char *rank_env = getenv("KGANTT_RANK_ENV");
	const char *rank = NULL;
	uint32_t api = 0;

	gethostname(host, sizeof(host) - 1);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0)
		exe[n] = '\0';
	if (rank_env && *rank_env)
		rank = getenv(rank_env);
	if (!rank) /* common launchers' rank variables, first found wins */
		rank = getenv("RANK") ? getenv("RANK")
		       : getenv("OMPI_COMM_WORLD_RANK") ? getenv("OMPI_COMM_WORLD_RANK")
		       : getenv("PMI_RANK") ? getenv("PMI_RANK") : getenv("SLURM_PROCID");
	cuptiGetVersion(&api);

	pthread_mutex_lock(&g.spool.lock);
	uint32_t host_s = spool_string(&g.spool, host);
	uint32_t cmd_s = spool_string(&g.spool, cmdline ? cmdline : "");
	uint32_t rank_s = rank ? spool_string(&g.spool, rank) : 0;
	uint32_t exe_s = spool_string(&g.spool, exe);
	struct kg_raw_process *r = spool_reserve(&g.spool, KG_RAW_PROCESS, sizeof(*r));
	if (r) {
		r->pid = (uint32_t)getpid();
		r->ppid = (uint32_t)getppid();
		r->start_ns = now_raw_ns();
		r->start_realtime_ns = now_realtime_ns();
		r->cupti_api_version = api;
		r->mode = g.mode;
		r->host_str = host_s;
		r->cmdline_str = cmd_s;
		r->rank_str = rank_s;
		r->exe_str = exe_s;
		r->latency_timestamps = (uint32_t)g.latency;
		r->buffer_bytes = (uint32_t)g.pool.buf_bytes;
		r->buffer_count = (uint32_t)g.pool.nfree;
	}
	spool_flush(&g.spool);
	pthread_mutex_unlock(&g.spool.lock);
	free(cmdline);
}

/* Let the device finish what the program queued, so the last kernels are complete. */
static void sync_current_context(void)
{
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!cuda)
		return;
	typedef int (*ctx_get_fn)(void **);
	typedef int (*ctx_sync_fn)(void);
	ctx_get_fn get = (ctx_get_fn)dlsym(cuda, "cuCtxGetCurrent");
	ctx_sync_fn sync = (ctx_sync_fn)dlsym(cuda, "cuCtxSynchronize");
	void *ctx = NULL;
	if (get && sync && get(&ctx) == 0 && ctx)
		sync();
	dlclose(cuda);
}

/* What the stacks cost in the trace, and what did not fit. */
static void report_stacks(void)
{
	if (g.stacks.mode == KG_STACKS_OFF)
		return;
	struct kg_stack_counts c;
	stacks_counts(&c);
	status(c.lost ? KG_STATUS_WARNING : KG_STATUS_INFO,
	       "call stacks: %llu calls, %llu distinct stacks, %llu calls without a stack "
	       "(tables full); %llu waits took the stack unwound before at their Python place "
	       "(%u places, %d equal stacks first, one wait in %d unwound again: %llu; %u "
	       "places reached CUDA by several native paths and were unwound every time)",
	       (unsigned long long)c.calls, (unsigned long long)c.stacks,
	       (unsigned long long)c.lost, (unsigned long long)c.reused, c.places,
	       WAIT_PLACE_TRUST, WAIT_PLACE_CHECK, (unsigned long long)c.checked, c.varying);
	if (c.reused_wrong >= 0)
		status(KG_STATUS_INFO, "call stacks checked (KGANTT_DEV_WAIT_PLACES=check): every "
				       "wait unwound; %lld of the %llu reused stacks were not the one "
				       "unwound",
		       (long long)c.reused_wrong, (unsigned long long)c.reused);
}

/* A window that never opened leaves an empty trace, which must say why: the reports
 * (cli/trace_load.c) show this message instead of a bare "nothing to show". On the H200
 * one GPT program began its steps 8.8 to 11.7 s after it started, from run to run, so a
 * --delay read off one run can fall after the next one has ended. */
static void report_window_never_opened(void)
{
	if (g.ever_captured)
		return;
	double ran = (double)(now_raw_ns() - g.t0) / 1e9;
	if (g.profiler_api_range)
		status(KG_STATUS_WARNING, "nothing recorded: the process never called "
					  "cudaProfilerStart (--capture-range cudaProfilerApi) "
					  "in its %.1f s", ran);
	else if (g.delay_s > 0)
		status(KG_STATUS_WARNING, "nothing recorded: the process ended %.1f s after "
					  "the program started, before --delay %.1f had passed: "
					  "use a smaller --delay", ran, g.delay_s);
}

/* The spool's last record: its absence tells the importer the process died. */
static void write_end_record(void)
{
	pthread_mutex_lock(&g.spool.lock);
	struct kg_raw_end *r = spool_reserve(&g.spool, KG_RAW_END, sizeof(*r));
	if (r) {
		r->ts = now_raw_ns();
		r->dropped_total = g.conv.dropped_total;
		r->records = g.conv.records;
		r->incomplete_records = g.conv.incomplete;
		r->late_buffers = g.pool.late;
		r->latency_refused = (uint32_t)g.latency_refused;
	}
	spool_flush(&g.spool);
	g.active = 0;
	pthread_mutex_unlock(&g.spool.lock);
}

/* What the launch hook could not do, said in the trace: no launch through it at all (a
 * program's own dlsym comes before the preloaded one), launches it never saw, first
 * launches it could not tell. */
static void report_hook_shortfalls(void)
{
	if (!g.launch_hook)
		return;
	if (g.conv.kernels && !atomic_load(&g.launch_hook->entry_points))
		status(KG_STATUS_WARNING, "no kernel launch went through the launch hook (the "
					  "program has its own dlsym?): no launch call was sampled; "
					  "record --launch-hook off samples through CUPTI's callbacks");
	uint64_t left = atomic_load(&g.launch_hook->not_hooked);
	uint64_t full = atomic_load(&g.launch_hook->kernels_full);
	if (left)
		status(KG_STATUS_WARNING, "the launch hook left %llu launch entry points to the "
					  "driver (more versions than its slots): their launches "
					  "were never sampled", (unsigned long long)left);
	if (full)
		status(KG_STATUS_WARNING, "the launch hook's table of kernels was full: %llu "
					  "launches of kernels past it, whose first launch was not "
					  "recorded outside a window", (unsigned long long)full);
}

static void at_exit(void)
{
	if (!g.active || g.pid != getpid())
		return;
	if (g.flusher_started)
		stop_wait_stop(&g.flusher_wait);
	dev_ab_stop(); /* the part back on before the last records leave */
	sync_current_context();
	hw_stop(); /* after the sync: the last kernels' samples are complete */
	if (g.sm)
		smlog_at_exit(); /* before the flush: its own calls' records leave with the rest */
	cuptiActivityFlushAll(0);
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (g.flusher_started)
		pthread_join(g.flusher, NULL);
	launches_stop_windows();
	report_hook_shortfalls();
	api_calls_stop();
	api_calls_drain();
	hostsample_stop(&g.spool); /* its last samples, and their stacks */
	stacks_drain(&g.spool);
	report_stacks();
	report_window_never_opened();

	write_end_record();
	if (g.pool.late)
		fprintf(stderr,
			"kgantt[%d]: %llu activity buffers were allocated on demand; "
			"raise --buffers to keep allocation off the launch path\n",
			(int)getpid(), (unsigned long long)g.pool.late);
}

/* A forked child that does not exec must not write into its parent's spool. */
static void atfork_child(void)
{
	hooked_launches_detach();
	hostsample_disable();
	stacks_disable();
	api_calls_disable();
	smlog_disable();
	if (g.active) {
		g.active = 0;
		if (g.spool.fd >= 0)
			close(g.spool.fd);
		g.spool.fd = -1;
	}
}

/* KGANTT_HOST_HZ: the sampler (recorder/hostsample.c). The thread in cuInit calls CUDA; the
 * others that do are named by their API records. */
static void start_host_samples(void)
{
	struct kg_host_config cfg = {
		.hz = g.host_hz,
		.max_native = (unsigned)setting(KG_RS_STACK_DEPTH),
		.cuda_tid = (pid_t)syscall(SYS_gettid),
	};
	if (cfg.hz && hostsample_start(&cfg, &g.spool, host_status) == 0)
		g.conv.on_api_thread = hostsample_cuda_thread;
}

/* record --sm: the driver functions the block logs need, and their tables. */
static void setup_smlog(void)
{
	struct kg_smlog_driver drv;
	char why[256];
	if (smlog_load_driver(&drv, why, sizeof(why)) < 0) {
		status(KG_STATUS_WARNING, "no SM placement: %s", why);
		g.sm = 0;
	} else if (smlog_init(&drv, &g.spool, sm_status) < 0) {
		status(KG_STATUS_WARNING, "no SM placement: cannot allocate its tables");
		g.sm = 0;
	} else {
		smlog_subscribe(g.subscriber);
		status(KG_STATUS_INFO, "SM placement: reading the block logs of kernels built "
				       "with include/kgantt/sm.h (record --sm)");
	}
}

/* Full mode: kernel launches' calls (and stacks) sampled in windows, unless something
 * needs every launch's callback: --all-launches, --stacks all, --hw, --sm; or unless no
 * kernel says when it was queued (--latency off): an unsampled launch would then have no
 * time on the host at all, and host-bound and launch-overhead would see one in ten. */
static const char *every_launch_because(void)
{
	return g.all_launches                  ? "record --all-launches"
	       : g.latency_refused              ? "CUPTI refused latency timestamps"
	       : !g.latency && !g.dated         ? "record --latency off"
	       : g.stacks.mode == KG_STACKS_ALL ? "record --stacks all"
	       : g.hw_interval_ns               ? "record --hw"
	       : g.sm                           ? "record --sm"
	       : !g.api_callbacks && !stacks_sample_launches()
		       ? "API calls from CUPTI's activity records"
		       : NULL;
}

/* The launch hook, when kgantt record preloaded it and the windows will be used: decided
 * before any callback is enabled, since with it no launch callback ever is. It needs the
 * API calls from callbacks (its calls go where theirs do) and the latency timestamps (the
 * import finds a call's kernel by its queued time). */
static void find_launch_hook(void)
{
	struct kg_launch_hook *hook =
		g.mode == KG_MODE_FULL && g.api_callbacks ? hooked_launches_find() : NULL;
	g.dated = hook && g.dated;
	if (!every_launch_because())
		g.launch_hook = hook;
	else
		g.dated = 0;
}

static int capturing_now(void)
{
	return g.capturing;
}

static void setup_launch_windows(void)
{
	const char *every = every_launch_because();
	if (every) {
		launches_record_all(&g.spool, every);
		return;
	}
	if (g.launch_hook) {
		stacks_skip_module(g.launch_hook);
		hooked_launches_attach(g.launch_hook, capturing_now, g.dated);
	}
	g.launch_windows =
		launches_start_windows(g.subscriber, g.launch_hook, g.dated, &g.spool);
	if (g.launch_windows && g.dated)
		status(KG_STATUS_INFO, "every kernel launch's call recorded by %s, its stack "
				       "sampled: every launch while new kernels appear, then %d ms in "
				       "every %d ms, and each kernel's first launch",
		       KG_LAUNCHES_BY_HOOK, LAUNCH_WINDOW_ON_MS, LAUNCH_WINDOW_PERIOD_MS);
	else if (g.launch_windows)
		status(KG_STATUS_INFO, "kernel launches' calls and stacks sampled by %s: every "
				       "launch while new kernels appear, then %d ms in every %d ms%s; "
				       "each kernel's queued time says when it was issued (record "
				       "--all-launches: every launch)",
		       g.launch_hook ? KG_LAUNCHES_BY_HOOK : KG_LAUNCHES_BY_CALLBACKS,
		       LAUNCH_WINDOW_ON_MS, LAUNCH_WINDOW_PERIOD_MS,
		       g.launch_hook ? ", and each kernel's first launch" : "");
}

/* KGANTT_DEV_AB (bench/ab_cost.py only): the callbacks api_calls_start left on for good */
static int always_on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return !untraced_api(domain, cbid) && !launches_is_kernel_launch(domain, cbid);
}

static int in_kernel_kinds(CUpti_ActivityKind k)
{
	for (size_t i = 0; i < COUNT(kernel_kinds); i++)
		if (kernel_kinds[i] == k)
			return 1;
	return 0;
}

static void start_dev_ab(void)
{
	/* the kinds full mode enables beyond kernels mode's (set_capture: the API kinds are
	 * off while API calls come from callbacks) */
	CUpti_ActivityKind extra[COUNT(full_kinds)];
	size_t n = 0;
	for (size_t i = 0; i < COUNT(full_kinds); i++)
		if (!in_kernel_kinds(full_kinds[i]) && !from_callbacks(full_kinds[i]) &&
		    !dev_skipped_kind(full_kinds[i]))
			extra[n++] = full_kinds[i];
	if (dev_ab_start(g.subscriber, extra, n, always_on_callback) > 0)
		status(KG_STATUS_WARNING, "KGANTT_DEV_AB=%s: part of full mode switched off in "
					  "alternate periods, for measurement only",
		       getenv("KGANTT_DEV_AB"));
}

static int setup_cupti(void)
{
	CUptiResult res;

	/* Before any kind is enabled: every timestamp is CLOCK_MONOTONIC_RAW from here on.
	 * (KGANTT_DEV_NO_TSCB: for bench/recorder_cost.sh only, the callback's own cost; the
	 * trace's times are then CUPTI's clock, not comparable with the host's.) */
	const char *no_tscb = getenv("KGANTT_DEV_NO_TSCB");
	res = no_tscb && *no_tscb == '1' ? CUPTI_SUCCESS
					 : cuptiActivityRegisterTimestampCallback(timestamp_callback);
	if (res != CUPTI_SUCCESS) {
		status(KG_STATUS_ERROR, "CUPTI refused the timestamp callback: %s", cupti_error(res));
		return -1;
	}
	res = cuptiSubscribe(&g.subscriber, (CUpti_CallbackFunc)api_callback, NULL);
	if (res != CUPTI_SUCCESS) {
		status(KG_STATUS_ERROR,
		       "CUPTI refused to subscribe: %s (another profiler such as nsys, ncu or "
		       "torch.profiler is attached to this process); the program runs untraced",
		       cupti_error(res));
		return -1;
	}
	res = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (res != CUPTI_SUCCESS) {
		status(KG_STATUS_ERROR, "CUPTI refused the buffer callbacks: %s", cupti_error(res));
		return -1;
	}
	/* host samples name threads by their kernel ids: the API records then do too, so that
	 * a thread's calls and its samples meet (CUPTI's default is pthread_self()'s low bits) */
	if ((g.host_hz && !g.api_callbacks) || env_long("KGANTT_DEV_TID", 0, 0, 1))
		cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM); /* _DEV_: cost only */
	launches_init(); /* before any callback: api_calls asks which calls launch kernels */
	if (g.latency) { /* before the launch hook is looked for: it needs them */
		res = cuptiActivityEnableLatencyTimestamps(1);
		if (res != CUPTI_SUCCESS) {
			status(KG_STATUS_WARNING, "no queued/submitted timestamps: %s",
			       cupti_error(res));
			g.latency = 0; /* then every launch's call dates its kernel */
			g.latency_refused = 1;
		}
	}
	find_launch_hook();
	if (g.api_callbacks) {
		/* CUPTI's NVTX and overhead records then carry the ids the callbacks take */
		cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
		api_calls_record_syncs(g.sync_calls);
		if (api_calls_start(g.subscriber, no_callback, &g.conv, &g.spool) < 0) {
			g.api_callbacks = 0;
			g.launch_hook = NULL; /* its calls would go nowhere: CUPTI's launch records */
			status(KG_STATUS_WARNING, "API calls from CUPTI's activity records: the "
						  "callbacks' buffers could not be set up");
		} else if (!g.all_api) {
			char names[1536]; /* no callback for them: every one is left out */
			api_filter_names(names, sizeof(names), NULL);
			status(KG_STATUS_INFO, "API calls not recorded (trivial queries; kgantt "
					       "record --all-api keeps them): %s", names);
		}
	}
	if (g.stacks.mode != KG_STACKS_OFF) {
		g.stacks.untraced = no_callback;
		if (stacks_init(&g.stacks, &g.spool) < 0) {
			status(KG_STATUS_WARNING, "no call stacks: cannot allocate their tables");
			g.stacks.mode = KG_STACKS_OFF;
		} else {
			stacks_subscribe(g.subscriber);
		}
	}
	if (g.mode == KG_MODE_FULL)
		setup_launch_windows();
	if (g.mode == KG_MODE_FULL && g.api_callbacks)
		start_dev_ab();
	if (g.mode == KG_MODE_KERNELS)
		dev_hook_once(g.subscriber);
	if (g.sm)
		setup_smlog();
	if (g.hw_interval_ns && hw_start(g.hw_interval_ns, &g.spool, hw_status) == 0) {
		cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
				    CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
		hw_subscribe(g.subscriber);
	}
	if (g.profiler_api_range) {
		cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
				    CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
		cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
				    CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
	}
	for (size_t i = 0; i < COUNT(meta_kinds); i++) {
		res = cuptiActivityEnable(meta_kinds[i]);
		if (res != CUPTI_SUCCESS)
			status(KG_STATUS_WARNING, "cannot enable CUPTI activity kind %d: %s",
			       (int)meta_kinds[i], cupti_error(res));
	}
	int start_now = !g.profiler_api_range && g.delay_s <= 0;
	if (start_now) {
		res = set_capture(1, "start");
		if (res != CUPTI_SUCCESS) {
			status(KG_STATUS_ERROR, "CUPTI cannot trace kernels: %s; the program runs untraced",
			       cupti_error(res));
			return -1;
		}
	}
	return 0;
}

static void read_settings(void)
{
	const char *mode = getenv("KGANTT_MODE");
	g.mode = mode && strcmp(mode, "kernels") == 0 ? KG_MODE_KERNELS : KG_MODE_FULL;
	g.latency = (int)env_long("KGANTT_LATENCY", g.mode == KG_MODE_FULL, 0, 1);
	/* KGANTT_DEV_DATED=1 (issue 26, measurement until shown on the GPU): the launch hook
	 * dates every launch by its call, so latency timestamps are not needed */
	g.dated = (int)env_long("KGANTT_DEV_DATED", 0, 0, 1);
	g.all_api = (int)env_long("KGANTT_ALL_API", 0, 0, 1);
	/* API calls from callbacks, which CUPTI charges only for the functions enabled (the
	 * activity kinds instrument every one): KGANTT_DEV_API_ACTIVITY=1, for measurement
	 * only, takes them from the activity records as before issue 26 */
	g.api_callbacks = g.mode == KG_MODE_FULL && !env_long("KGANTT_DEV_API_ACTIVITY", 0, 0, 1);
	/* KGANTT_DEV_SYNC_KIND (measurement only): 1 CUPTI's sync records instead of the
	 * callbacks', 2 both (tests/gpu/sync_calls.sh compares them) */
	g.sync_kind = (int)env_long("KGANTT_DEV_SYNC_KIND", 0, 0, 2);
	g.sync_calls = g.api_callbacks && g.sync_kind != 1;
	g.all_launches = (int)env_long("KGANTT_ALL_LAUNCHES", 0, 0, 1);
	g.flush_ms = (unsigned)setting(KG_RS_FLUSH_MS);
	const char *stacks = getenv("KGANTT_STACKS");
	g.stacks.mode = g.mode != KG_MODE_FULL       ? KG_STACKS_OFF
			: !stacks || !*stacks        ? KG_STACKS_WAITS
			: !strcmp(stacks, "off")     ? KG_STACKS_OFF
			: !strcmp(stacks, "all")     ? KG_STACKS_ALL
						     : KG_STACKS_WAITS;
	g.stacks.launch_first = (unsigned)setting(KG_RS_STACK_FIRST);
	g.stacks.launch_every = (unsigned)setting(KG_RS_STACK_EVERY);
	g.stacks.max_depth = (unsigned)setting(KG_RS_STACK_DEPTH);
	g.delay_s = env_double("KGANTT_DELAY", 0);
	g.duration_s = env_double("KGANTT_DURATION", 0);
	const char *range = getenv("KGANTT_CAPTURE_RANGE");
	g.profiler_api_range = range && strcmp(range, "cudaProfilerApi") == 0;
	g.sm = g.mode == KG_MODE_FULL && env_long("KGANTT_SM", 0, 0, 1);
	g.hw_interval_ns = (uint64_t)setting(KG_RS_HW_NS);
	/* unset: the default of full mode; kernels mode has no API calls to place samples by */
	const char *hz = getenv(kg_record_setting[KG_RS_HOST_HZ].env);
	g.host_hz = g.mode == KG_MODE_KERNELS && !(hz && *hz) ? 0 : (unsigned)setting(KG_RS_HOST_HZ);
	const char *t0 = getenv("KGANTT_T0");
	g.t0 = t0 && *t0 ? strtoull(t0, NULL, 10) : 0;
	if (g.t0 == 0 || g.t0 > now_raw_ns())
		g.t0 = now_raw_ns();
}

/* NVTX's injection entry points. `record` points NVTX_INJECTION64_PATH at this library,
 * not at libcupti: a program that brings its own libcupti (PyTorch does) would otherwise
 * load a second copy of CUPTI for NVTX, one nobody configured, and its ranges would be
 * lost. Forwarding to the libcupti this library is bound to keeps one CUPTI. */
typedef int (*nvtx_init_fn)(const void *get_export_table);

static int forward_nvtx(const char *entry, const void *get_export_table)
{
	void *cupti = dlopen("libcupti.so." KG_CUPTI_SOVERSION, RTLD_LAZY | RTLD_NOLOAD);
	nvtx_init_fn fn = cupti ? (nvtx_init_fn)dlsym(cupti, entry)
				: (nvtx_init_fn)dlsym(RTLD_NEXT, entry); /* our own dependency */
	int rc = fn ? fn(get_export_table) : 0;
	if (cupti)
		dlclose(cupti);
	return rc;
}

KG_EXPORT int InitializeInjectionNvtx2(const void *get_export_table)
{
	return forward_nvtx("InitializeInjectionNvtx2", get_export_table);
}

KG_EXPORT int InitializeInjectionNvtx(const void *get_export_table)
{
	return forward_nvtx("InitializeInjectionNvtx", get_export_table);
}

/* KGANTT_DEBUG_CRASH=1 (for kgantt's developers, never set by `record`): a crash in the
 * traced program prints the faulting thread's stack on stderr before the program dies as
 * it would have. Without it the recorder installs no signal handler. */
static void crash_report(int sig)
{
	void *frames[64];
	int n = backtrace(frames, 64);
	char msg[64];
	int len = snprintf(msg, sizeof(msg), "kgantt[%d]: signal %d, stack:\n", (int)getpid(), sig);
	if (write(2, msg, (size_t)len) < 0 || n <= 0)
		_exit(128 + sig);
	backtrace_symbols_fd(frames, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void debug_crashes(void)
{
	if (env_long("KGANTT_DEBUG_CRASH", 0, 0, 1)) {
		signal(SIGSEGV, crash_report);
		signal(SIGBUS, crash_report);
		signal(SIGABRT, crash_report);
	}
}

KG_EXPORT int InitializeInjection(void)
{
	static int done;
	if (done) /* the driver may call us once per cuInit */
		return 1;
	done = 1;

	g.pid = getpid();
	read_settings();
	debug_crashes();
	if (open_spool() < 0)
		return 1; /* the program runs on; `record` notices the missing spool */

	long buf_mb = setting(KG_RS_BUFFER_MB);
	long nbuf = setting(KG_RS_BUFFERS);
	if (pool_init(&g.pool, (size_t)buf_mb << 20, (int)nbuf) < 0) {
		fprintf(stderr, "kgantt[%d]: cannot allocate %ld buffers of %ld MiB; untraced\n",
			(int)g.pid, nbuf, buf_mb);
		spool_close(&g.spool);
		return 1;
	}
	convert_init(&g.conv);
	write_process_record();
	g.active = 1;
	if (setup_cupti() < 0) {
		/* refused, not crashed: end the spool cleanly so the trace says why and is
		 * not mistaken for a dead process */
		write_end_record();
		spool_close(&g.spool);
		return 1;
	}
	pthread_atfork(NULL, NULL, atfork_child);
	atexit(at_exit);
	if (stop_wait_init(&g.flusher_wait) == 0 &&
	    own_thread_start(&g.flusher, flusher_main, "kgantt-flusher") == 0)
		g.flusher_started = 1;
	else
		status(KG_STATUS_WARNING, "no flusher thread: records leave only at exit");
	start_host_samples(); /* after the flusher, which it must know as the recorder's */
	status(KG_STATUS_INFO, "recording (%s mode, latency timestamps %s)",
	       g.mode == KG_MODE_FULL ? "full" : "kernels", g.latency ? "on" : "off");
	return 1;
}
