/* What the recorder's own code costs per event, without a GPU or CUPTI running: each part
 * that runs for every kernel or API call, timed over millions of calls on one thread, so
 * that the recorder's share of a traced program's overhead (docs/overhead.md) can be told
 * from CUPTI's. The parts:
 *
 *   clock          the timestamp callback's body (util/clock.h, CLOCK_MONOTONIC_RAW): CUPTI
 *                  calls it for every timestamp it takes; a syscall where the clock source
 *                  has no vDSO path, tens of ns where it has
 *   api_callback   one API call taken from CUPTI's callbacks (recorder/api_calls.c: enter
 *                  and exit, into the thread's buffer; its share of moving full buffers to
 *                  the spool included), on the program's thread
 *                  (the drainer thread converts them, on another core if there is one);
 *                  then api_callback_written, the same with the spool written to a file
 *   kernel_record  one CUPTI kernel record made a spool record (recorder/convert.c: its
 *                  name interned, 160 bytes staged), on the flush thread; then
 *                  kernel_record_written, the same with the staged bytes written to a
 *                  file in DIR a buffer at a time, as the recorder does
 *   api_record     one CUPTI runtime API record the same way (and api_record_written)
 *
 *   build/bench/recorder_parts [-n MILLIONS] [-d DIR]   (make bench-parts; defaults 4, /tmp)
 *
 * Writing GBs in seconds (as -n 4 does) meets the kernel's dirty-page throttling, which a
 * program launching 200,000 kernels a second (40 MB/s of spool) does not: the _written
 * figures are an upper bound.
 * Prints "PART_ns=<median of 5 repetitions, ns per event>" lines. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/api_calls.h"
#include "recorder/convert.h"
#include "recorder/spool.h"
#include "util/clock.h"

#define REPS 5
#define STAGE (8u << 20) /* the spool's staging buffer, as the recorder's */

static struct kg_spool spool;
static struct kg_convert conv;

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return v[n / 2];
}

static volatile uint64_t sink;

static void part_clock(long n)
{
	for (long i = 0; i < n; i++)
		sink += now_raw_ns();
}

static int not_skipped(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	(void)domain, (void)cbid;
	return 0;
}

static void part_api_callback(long n)
{
	uint64_t data = 0;
	int rv = 0;
	CUpti_CallbackData cb = {.correlationData = &data, .functionReturnValue = &rv};
	for (long i = 0; i < n; i++) {
		cb.correlationId = (uint32_t)i;
		cb.callbackSite = CUPTI_API_ENTER;
		api_calls_on_callback(CUPTI_CB_DOMAIN_RUNTIME_API,
				      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &cb, 1);
		cb.callbackSite = CUPTI_API_EXIT;
		api_calls_on_callback(CUPTI_CB_DOMAIN_RUNTIME_API,
				      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &cb, 1);
	}
	api_calls_drain();
}

/* Records as CUPTI hands them over: a buffer's worth converted under the spool lock, then
 * the staged bytes written, as inject.c's buffer_completed does. */
static void convert_all(const CUpti_Activity *rec, long n)
{
	const long per_buffer = 50000;
	for (long i = 0; i < n; i += per_buffer) {
		pthread_mutex_lock(&spool.lock);
		for (long j = i; j < n && j < i + per_buffer; j++)
			convert_record(&conv, &spool, rec);
		spool_flush(&spool);
		pthread_mutex_unlock(&spool.lock);
	}
}

static void part_kernel_record(long n)
{
	/* a PyTorch kernel's mangled name: interned for every record */
	static const char *name =
		"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEvi"
		"T0_T1_";
	CUpti_ActivityKernel10 k = {
		.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, .name = name, .queued = 1000,
		.submitted = 2000, .start = 3000, .end = 4000, .gridX = 64, .gridY = 1, .gridZ = 1,
		.blockX = 256, .blockY = 1, .blockZ = 1, .deviceId = 0, .contextId = 1,
		.streamId = 7, .correlationId = 42};
	convert_all((const CUpti_Activity *)&k, n);
}

static void part_api_record(long n)
{
	CUpti_ActivityAPI a = {.kind = CUPTI_ACTIVITY_KIND_RUNTIME,
			       .cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
			       .start = 1000, .end = 3000, .processId = 1, .threadId = 2,
			       .correlationId = 42};
	convert_all((const CUpti_Activity *)&a, n);
}

static void run(const char *name, void (*part)(long), long n)
{
	double ns[REPS];
	part(n / 10); /* warm: pages, caches, the strings' table */
	for (int r = 0; r < REPS; r++) {
		uint64_t t0 = now_raw_ns();
		part(n);
		ns[r] = (double)(now_raw_ns() - t0) / (double)n;
	}
	printf("%s_ns=%.1f\n", name, median(ns, REPS));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long millions = 4;
	const char *dir = "/tmp";
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-n"))
			millions = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "-d"))
			dir = argv[i + 1];
	}
	if (millions < 1 || millions > 1000 || argc % 2 == 0) {
		fprintf(stderr, "usage: recorder_parts [-n MILLIONS] [-d DIR]\n");
		return 2;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/recorder_parts.%d.kgspool", dir, (int)getpid());
	/* first what the recorder's code costs: the spool's bytes go to /dev/null */
	int null_fd = open("/dev/null", O_WRONLY);
	if (spool_open(&spool, path, STAGE) < 0 || null_fd < 0 || dup2(null_fd, spool.fd) < 0) {
		fprintf(stderr, "recorder_parts: cannot write '%s' or /dev/null\n", path);
		return 1;
	}
	close(null_fd);
	unlink(path);
	convert_init(&conv);
	/* no CUPTI subscriber: the callbacks are called here directly */
	if (api_calls_start(NULL, not_skipped, &conv, &spool) < 0) {
		fprintf(stderr, "recorder_parts: api_calls_start failed\n");
		return 1;
	}
	long n = millions * 1000000;
	run("clock", part_clock, n);
	run("api_callback", part_api_callback, n);
	run("kernel_record", part_kernel_record, n);
	run("api_record", part_api_record, n);
	api_calls_drain();
	spool_close(&spool);
	/* then with the bytes written to a file, as they are */
	if (spool_open(&spool, path, STAGE) < 0) {
		fprintf(stderr, "recorder_parts: cannot write '%s'\n", path);
		return 1;
	}
	run("api_callback_written", part_api_callback, n);
	run("kernel_record_written", part_kernel_record, n);
	run("api_record_written", part_api_record, n);
	api_calls_stop();
	api_calls_drain();
	spool_close(&spool);
	unlink(path);
	return 0;
}
