/* A stand-in observer for the launch hook (src/preload/launch_hook.h), preloaded after it:
 *   LD_PRELOAD="build/libkgantt-launch.so build/tests/gpu/libhookprobe.so" PROGRAM
 * HOOK_PROBE=count (default): every launch told, counted by function and stream variant,
 *   printed to stderr at exit: do a program's launches go through the hook at all?
 * HOOK_PROBE=window: windows of 10 ms in every 100 ms, and each kernel's first launch, as
 *   the recorder would open them, the observer reading the clock at entry and exit: what
 *   the hook costs a launch without CUPTI's launch callbacks (bench/overhead.sh's
 *   *-hookprobe configurations). */
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
