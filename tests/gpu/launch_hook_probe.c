/* A stand-in observer for the launch hook (src/preload/launch_hook.h), preloaded after it:
 *   LD_PRELOAD="build/libkgantt-launch.so build/tests/gpu/libhookprobe.so" PROGRAM
 * HOOK_PROBE=count (default): every launch told, counted by function and stream variant,
 *   printed to stderr at exit: do a program's launches go through the hook at all?
 * HOOK_PROBE=window: windows of 10 ms in every 100 ms, and each kernel's first launch, as
 *   the recorder would open them, the observer reading the clock at entry and exit: what
 *   the hook costs a launch without CUPTI's launch callbacks (bench/overhead.sh's
 *   *-hookprobe configurations).
 * HOOK_PROBE=stamp: every launch told, the observer reading the clock once at entry and
 *   keeping it with the stream in a ring of its thread's: what dating every launch on the
 *   host would cost, where CUPTI's latency timestamps date it now (*-hookstamp).
 *   With HOOK_PROBE_OUT=FILE it keeps every launch's entry and exit times, stream,
 *   function and thread instead, in one array, and writes them to FILE at exit, a line
 *   each (tests/gpu/hook_stamps.py matches them to a trace's kernels). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "preload/launch_hook.h"

static struct kg_launch_hook *hook;
static _Atomic uint64_t told[KG_HOOK_FNS][2], failed, nanoseconds;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void enter(struct kg_hooked_launch *l)
{
	l->mark[0] = now_ns();
}

static void leave(struct kg_hooked_launch *l, CUresult r)
{
	uint64_t entered = l->mark[0];
	atomic_fetch_add_explicit(&told[l->fn][l->per_thread_stream], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&nanoseconds, now_ns() - entered, memory_order_relaxed);
	if (r != CUDA_SUCCESS)
		atomic_fetch_add_explicit(&failed, 1, memory_order_relaxed);
}

static const struct kg_launch_observer observer = {enter, leave};

/* HOOK_PROBE=stamp */
#define RING 1024 /* small: static TLS comes out of every thread's stack */
struct stamp {
	uint64_t t;
	CUstream stream;
};
static __thread struct stamp ring[RING];
static __thread uint32_t ring_next;

static void stamp_enter(struct kg_hooked_launch *l)
{
	struct stamp *s = &ring[ring_next++ & (RING - 1)];
	s->t = now_ns();
	s->stream = l->stream;
}

static void stamp_leave(struct kg_hooked_launch *l, CUresult r)
{
	(void)l;
	(void)r;
}

static const struct kg_launch_observer stamper = {stamp_enter, stamp_leave};

/* HOOK_PROBE=stamp with HOOK_PROBE_OUT: every launch kept, for the match */
#define KEPT (1u << 22)
struct kept {
	uint64_t enter, exit;
	CUstream stream;
	CUfunction function;
	uint32_t tid;
	int per_thread_stream;
	int result;
};
static struct kept *kept;
static _Atomic uint32_t kept_n;
static const char *kept_path;

static void keep_enter(struct kg_hooked_launch *l)
{
	l->mark[0] = now_ns();
}

static void keep_leave(struct kg_hooked_launch *l, CUresult r)
{
	uint64_t out = now_ns();
	uint32_t i = atomic_fetch_add_explicit(&kept_n, 1, memory_order_relaxed);
	if (i >= KEPT)
		return;
	kept[i] = (struct kept){l->mark[0], out, l->stream, l->function,
				(uint32_t)gettid(), l->per_thread_stream, (int)r};
}

static const struct kg_launch_observer keeper = {keep_enter, keep_leave};

static void write_kept(void)
{
	uint32_t n = atomic_load(&kept_n);
	if (!n)
		return;
	char path[4096];
	snprintf(path, sizeof path, "%s.%d", kept_path, (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "enter exit stream function tid ptsz result\n");
	for (uint32_t i = 0; i < n && i < KEPT; i++)
		fprintf(f, "%llu %llu %llx %llx %u %d %d\n", (unsigned long long)kept[i].enter,
			(unsigned long long)kept[i].exit,
			(unsigned long long)(uintptr_t)kept[i].stream,
			(unsigned long long)(uintptr_t)kept[i].function, kept[i].tid,
			kept[i].per_thread_stream, kept[i].result);
	if (n > KEPT)
		fprintf(f, "# %u launches past the %u kept\n", n - KEPT, KEPT);
	fclose(f);
}

static void *windows(void *arg)
{
	for (;;) {
		atomic_store(&hook->observing, 1);
		usleep(10000);
		atomic_store(&hook->observing, 0);
		usleep(90000);
	}
	return NULL;
}

static void report(void)
{
	uint64_t n = 0;
	for (int f = 0; f < KG_HOOK_FNS; f++)
		n += told[f][0] + told[f][1];
	if (!n && !hook->entry_points)
		return; /* a process that launched nothing (python's helpers) */
	fprintf(stderr,
		"hook-probe: pid %d: %llu launches told (kernel %llu+%llu ptsz, ex %llu+%llu, "
		"cooperative %llu+%llu), %llu failed, %.0f ns a call; entry points %llu, not "
		"hooked %llu, kernels past the table %llu\n",
		(int)getpid(), (unsigned long long)n, (unsigned long long)told[0][0],
		(unsigned long long)told[0][1], (unsigned long long)told[1][0],
		(unsigned long long)told[1][1], (unsigned long long)told[2][0],
		(unsigned long long)told[2][1], (unsigned long long)failed,
		n ? (double)nanoseconds / (double)n : 0.0, (unsigned long long)hook->entry_points,
		(unsigned long long)hook->not_hooked, (unsigned long long)hook->kernels_full);
}

__attribute__((constructor)) static void attach(void)
{
	hook = dlsym(RTLD_DEFAULT, KG_LAUNCH_HOOK_SYMBOL);
	if (!hook) {
		fprintf(stderr, "hook-probe: no launch hook preloaded\n");
		return;
	}
	const char *mode = getenv("HOOK_PROBE");
	if (mode && !strcmp(mode, "stamp")) {
		kept_path = getenv("HOOK_PROBE_OUT");
		if (kept_path && (kept = calloc(KEPT, sizeof *kept))) {
			atomic_store(&hook->observer, &keeper);
			atexit(write_kept);
		} else {
			atomic_store(&hook->observer, &stamper);
		}
		atomic_store(&hook->observing, 1);
		return;
	}
	atomic_store(&hook->observer, &observer);
	if (mode && !strcmp(mode, "window")) {
		atomic_store(&hook->first_launches, 1);
		pthread_t t;
		pthread_attr_t a;
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_create(&t, &a, windows, NULL);
	} else {
		atomic_store(&hook->observing, 1);
	}
	atexit(report);
}
