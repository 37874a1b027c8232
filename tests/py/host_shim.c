/* The recorder's host sampler without CUDA, for tests/py/test_hostsample.py: LD_PRELOAD
 * this library into any program and it samples it as the injected recorder would, from
 * the same sources (recorder/hostsample.c, stacks.c, pyframes.c, spool.c), into
 * $KGANTT_DIR/host.<pid>.kgspool at KGANTT_HOST_HZ. The spool holds a process record, the
 * host records, the stacks and Python code records, and an end record, so that
 * `kgantt import` symbolises the stacks. A forked child stops sampling, as the recorder's.
 *
 * host_shim_cuda(): what CUPTI's API record of a CUDA call made on the calling thread does
 * (for a test of the move to wall-clock time). host_shim_stop(): the exit handler's work,
 * early (a test that wants its counts before the program ends). host_shim_launch() and
 * host_shim_sync(): the records CUPTI would write of a kernel launch and of a device-wide
 * wait, kernels "running" on a GPU that is not there, so that a trace made here has a GPU
 * side for every command to show (tests/fixtures/host). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder/hostsample.h"
#include "recorder/raw_format.h"
#include "recorder/spool.h"
#include "recorder/stacks.h"
#include "util/clock.h"
#include "util/record_settings.h"

#define EXPORT __attribute__((visibility("default")))

static struct kg_spool spool = {.fd = -1};
static pid_t owner;
static volatile int stopped;

static void status(int level, const char *text)
{
	if (level > 0 || getenv("KGANTT_VERBOSE"))
		fprintf(stderr, "host_shim[%d]: %s\n", (int)getpid(), text);
	pthread_mutex_lock(&spool.lock);
	uint32_t s = spool_string(&spool, text);
	struct kg_raw_status *r = spool_reserve(&spool, KG_RAW_STATUS, sizeof(*r));
	if (r) {
		r->ts = now_raw_ns();
		r->level = (uint32_t)level;
		r->text_str = s;
	}
	pthread_mutex_unlock(&spool.lock);
}

EXPORT void host_shim_stop(void)
{
	if (owner != getpid() || stopped)
		return;
	stopped = 1;
	hostsample_stop(&spool);
	pthread_mutex_lock(&spool.lock);
	struct kg_raw_end *e = spool_reserve(&spool, KG_RAW_END, sizeof(*e));
	if (e)
		e->ts = now_raw_ns();
	spool_flush(&spool);
	pthread_mutex_unlock(&spool.lock);
}

/* Native work without the GIL (ctypes.CDLL releases it): the sample's innermost frame is
 * here, the Python frames those of the ctypes call. */
EXPORT __attribute__((noinline)) double host_shim_spin(double secs)
{
	double x = 0, t0 = (double)now_raw_ns();
	while ((double)now_raw_ns() - t0 < secs * 1e9)
		for (int i = 1; i < 1000; i++)
			x += 1.0 / i;
	return x;
}

/* What the API record of a CUDA call made on this thread does: with host samples on, CUPTI
 * records kernel thread ids (recorder/inject.c). */
static void null_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The handler's cost on the calling thread, where it stands: the median of n samples it
 * takes of itself, less the median of n deliveries of a signal whose handler does nothing
 * (both a system call and a signal delivery). Writes "handler_ns delivery_ns" to out;
 * -1 when the thread has no slot yet. */
EXPORT int host_shim_bench(int n, char *out, int len)
{
	uint64_t *a = calloc((size_t)n, sizeof(*a)), *b = calloc((size_t)n, sizeof(*b));
	struct sigaction sa, old;
	int sig = SIGRTMIN + 2, rc = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = null_handler;
	sa.sa_flags = SA_SIGINFO;
	if (!a || !b || sigaction(sig, &sa, &old) < 0)
		goto out;
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	for (int i = 0; i < n; i++) {
		uint64_t t0 = now_raw_ns();
		if (hostsample_sample_self() < 0)
			goto restore;
		uint64_t t1 = now_raw_ns();
		syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), sig, &si);
		uint64_t t2 = now_raw_ns();
		a[i] = t1 - t0;
		b[i] = t2 - t1;
	}
	qsort(a, (size_t)n, sizeof(*a), cmp_u64);
	qsort(b, (size_t)n, sizeof(*b), cmp_u64);
	snprintf(out, (size_t)len, "%llu %llu", (unsigned long long)(a[n / 2] - b[n / 2]),
		 (unsigned long long)b[n / 2]);
	rc = 0;
restore:
	sigaction(sig, &old, NULL);
out:
	free(a);
	free(b);
	return rc;
}

EXPORT void host_shim_cuda(void)
{
	hostsample_cuda_thread((uint32_t)syscall(SYS_gettid));
}

/* The fake GPU: its one stream's last kernel end, the last correlation id given. */
static uint64_t gpu_busy_until;
static uint32_t correlation;

/* A runtime API record of the calling thread, [start, now]; the record's correlation id. */
static uint32_t api_record(const char *name, uint64_t start)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	hostsample_cuda_thread(tid);
	pthread_mutex_lock(&spool.lock);
	uint32_t name_str = spool_string(&spool, name);
	struct kg_raw_api *a = spool_reserve(&spool, KG_RAW_API, sizeof(*a));
	uint32_t id = ++correlation;
	if (a) {
		a->start = start;
		a->end = now_raw_ns();
		a->domain = KG_API_RUNTIME;
		a->name_str = name_str;
		a->tid = tid;
		a->correlation_id = id;
	}
	pthread_mutex_unlock(&spool.lock);
	return id;
}

static void device_record(void)
{
	static int done;
	if (done++)
		return;
	pthread_mutex_lock(&spool.lock);
	uint32_t name = spool_string(&spool, "no GPU (tests/py/host_shim.c)");
	struct kg_raw_device *d = spool_reserve(&spool, KG_RAW_DEVICE, sizeof(*d));
	if (d) {
		d->name_str = name;
		d->sm_count = 132;
		d->max_warps_per_sm = 64;
		d->max_blocks_per_sm = 32;
		d->max_threads_per_block = 1024;
		d->threads_per_warp = 32;
		d->cc_major = 9;
	}
	pthread_mutex_unlock(&spool.lock);
}

/* Spins until ns of the raw clock: time the launching thread spends in the call. */
static void spin_until(uint64_t ns)
{
	while (now_raw_ns() < ns)
		;
}

/* A cudaLaunchKernel of api_us on the calling thread, and its kernel `name` of gpu_us on
 * stream 7 of device 0 from the call's end, or once the kernel before it is done. */
EXPORT __attribute__((noinline)) void host_shim_launch(const char *name, double api_us,
						     double gpu_us)
{
	if (owner != getpid() || stopped)
		return;
	device_record();
	uint64_t t0 = now_raw_ns();
	spin_until(t0 + (uint64_t)(api_us * 1e3));
	uint32_t id = api_record("cudaLaunchKernel", t0);
	uint64_t start = now_raw_ns() + 5000;
	start = start > gpu_busy_until ? start : gpu_busy_until + 1000;
	pthread_mutex_lock(&spool.lock);
	uint32_t name_str = spool_string(&spool, name);
	struct kg_raw_kernel *k = spool_reserve(&spool, KG_RAW_KERNEL, sizeof(*k));
	if (k) {
		k->name_str = name_str;
		k->correlation_id = id;
		k->context_id = 1;
		k->stream_id = 7;
		k->start = start;
		k->end = start + (uint64_t)(gpu_us * 1e3);
		k->grid[0] = k->grid[1] = k->grid[2] = 1;
		k->block[0] = 128, k->block[1] = k->block[2] = 1;
		gpu_busy_until = k->end;
	}
	pthread_mutex_unlock(&spool.lock);
}

/* A cudaDeviceSynchronize on the calling thread: asleep until the last kernel is done. */
EXPORT __attribute__((noinline)) void host_shim_sync(void)
{
	if (owner != getpid() || stopped)
		return;
	uint64_t t0 = now_raw_ns();
	while (now_raw_ns() < gpu_busy_until) {
		uint64_t left = gpu_busy_until - now_raw_ns();
		struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
		nanosleep(&ts, NULL);
	}
	uint32_t id = api_record("cudaDeviceSynchronize", t0);
	pthread_mutex_lock(&spool.lock);
	struct kg_raw_sync *y = spool_reserve(&spool, KG_RAW_SYNC, sizeof(*y));
	if (y) {
		y->start = t0;
		y->end = now_raw_ns();
		y->type = 4; /* context */
		y->context_id = 1;
		y->stream_id = y->event_id = UINT32_MAX;
		y->correlation_id = id;
	}
	pthread_mutex_unlock(&spool.lock);
}

static void child(void)
{
	hostsample_disable();
	if (spool.fd >= 0)
		close(spool.fd);
	spool.fd = -1;
	owner = 0;
}

/* What the recorder's flusher does, every 100 ms. */
static void *flusher(void *arg)
{
	(void)arg;
	hostsample_own_thread();
	while (!stopped) {
		usleep(100000);
		if (owner == getpid() && !stopped) {
			stacks_drain(&spool);
			hostsample_drain(&spool);
		}
	}
	return NULL;
}

__attribute__((constructor)) static void start(void)
{
	const char *dir = getenv("KGANTT_DIR");
	const char *hz = getenv("KGANTT_HOST_HZ");
	char path[4096];
	if (!dir || !hz)
		return;
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/host.%d.kgspool", dir, (int)getpid());
	if (spool_open(&spool, path, 1 << 20) < 0) {
		fprintf(stderr, "host_shim: cannot create '%s'\n", path);
		return;
	}
	owner = getpid();
	pthread_mutex_lock(&spool.lock);
	struct kg_raw_process *p = spool_reserve(&spool, KG_RAW_PROCESS, sizeof(*p));
	if (p) {
		p->pid = (uint32_t)getpid();
		p->ppid = (uint32_t)getppid();
		p->start_ns = now_raw_ns();
		p->host_str = spool_string(&spool, "host");
		p->cmdline_str = spool_string(&spool, "host_shim");
	}
	spool_flush(&spool);
	pthread_mutex_unlock(&spool.lock);
	const char *depth = getenv("KGANTT_STACK_DEPTH");
	struct kg_host_config cfg = {
		.hz = (unsigned)atoi(hz),
		.max_native = depth ? (unsigned)atoi(depth)
				    : (unsigned)kg_record_setting[KG_RS_STACK_DEPTH].def,
	};
	pthread_atfork(NULL, NULL, child);
	atexit(host_shim_stop);
	pthread_t t;
	if (getenv("KGANTT_SHIM_NO_FLUSHER") == NULL)
		pthread_create(&t, NULL, flusher, NULL);
	/* as `record --stacks off --host-samples`: the importer takes the Python version, which
	 * line tables need, from the host samples' settings */
	hostsample_start(&cfg, &spool, status);
}
