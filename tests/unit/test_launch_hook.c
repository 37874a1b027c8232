/* The launch hook (src/preload/launch_hook.c), preloaded as kgantt record preloads it, over
 * a stand-in driver (tests/unit/hook/fake_cuda.c): the entry points it hands out, what
 * they pass on, what the observer is told, and that its dlsym keeps RTLD_NEXT the
 * caller's. The test runs itself again with LD_PRELOAD set. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "preload/launch_hook.h"

__attribute__((constructor(101))) static void preload_the_hook(void)
{
	if (getenv("KG_TEST_HOOK_PRELOADED"))
		return;
	setenv("KG_TEST_HOOK_PRELOADED", "1", 1);
	setenv("LD_PRELOAD", HOOK_LIB, 1);
	/* ASan wants its runtime first; the hook must come before it to be found first */
	const char *asan = getenv("ASAN_OPTIONS");
	char opts[512];
	snprintf(opts, sizeof(opts), "%s%sverify_asan_link_order=0", asan ? asan : "",
		 asan && *asan ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
	char *argv[] = {"test_launch_hook", NULL};
	execv("/proc/self/exe", argv);
	fprintf(stderr, "could not run the test again with LD_PRELOAD\n");
	exit(1);
}

struct fake_launch {
	const char *reached;
	CUfunction f;
	CUstream stream;
	unsigned gx, shared;
	int calls;
};

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
				CUdriverProcAddressQueryResult *);
typedef CUresult (*launch_kernel_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned,
				     unsigned, unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*launch_kernel_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);

static void *driver;
static struct fake_launch *last;

static const char *library_of(void *p)
{
	Dl_info info;
	if (!p || !dladdr(p, &info) || !info.dli_fname)
		return "";
	const char *slash = strrchr(info.dli_fname, '/');
	return slash ? slash + 1 : info.dli_fname;
}

static struct kg_launch_hook *the_hook(void)
{
	struct kg_launch_hook *h = dlsym(RTLD_DEFAULT, KG_LAUNCH_HOOK_SYMBOL);
	CHECK(h);
	CHECK_EQ_INT(h->version, KG_LAUNCH_HOOK_VERSION);
	return h;
}

int next_which_library(void); /* hook/next_a.c */

static get_proc_fn open_driver_at(const char *path, int flags)
{
	driver = dlopen(path, RTLD_NOW | flags);
	CHECK(driver);
	last = dlsym(driver, "fake_last");
	CHECK(last);
	get_proc_fn gpa = (get_proc_fn)dlsym(driver, "cuGetProcAddress_v2");
	CHECK_EQ_STR(library_of((void *)gpa), "libkgantt-launch.so");
	return gpa;
}

static get_proc_fn open_driver(int flags)
{
	return open_driver_at(FAKE_CUDA, flags);
}

static void *proc(get_proc_fn gpa, const char *name, int version, cuuint64_t flags)
{
	void *p = NULL;
	CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	CHECK_EQ_INT(gpa(name, &p, version, flags, &status), CUDA_SUCCESS);
	CHECK_EQ_INT(status, CU_GET_PROC_ADDRESS_SUCCESS);
	return p;
}

static CUresult launch(void *entry, uintptr_t f, uintptr_t stream)
{
	return ((launch_kernel_fn)entry)((CUfunction)f, 7, 1, 1, 32, 1, 1, 64, (CUstream)stream,
					 NULL, NULL);
}

/* ------------------------------------------------------------------ an observer */

static struct {
	int enters, exits;
	struct kg_hooked_launch entered, exited;
	uint64_t handed_back;
	CUresult result;
} seen;

static void on_enter(struct kg_hooked_launch *l)
{
	seen.enters++;
	CHECK_EQ_INT(l->mark[0], 0);
	seen.entered = *l;
	l->mark[0] = 1000 + (uint64_t)seen.enters;
}

static void on_exit_(struct kg_hooked_launch *l, CUresult result)
{
	seen.exits++;
	seen.exited = *l;
	seen.handed_back = l->mark[0];
	seen.result = result;
}

static const struct kg_launch_observer observer = {on_enter, on_exit_};

/* ------------------------------------------------------------------ tests */

TEST(runtime_path_entry_points_pass_launches_on)
{
	get_proc_fn gpa = open_driver(RTLD_LOCAL);
	void *legacy = proc(gpa, "cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_DEFAULT);
	void *ptsz = proc(gpa, "cuLaunchKernel", 13000,
			  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
	CHECK_EQ_STR(library_of(legacy), "libkgantt-launch.so");
	CHECK_EQ_STR(library_of(ptsz), "libkgantt-launch.so");
	CHECK(legacy != ptsz);
	CHECK(proc(gpa, "cuLaunchKernel", 12080, 0) == legacy); /* one slot per function */
	CHECK_EQ_INT(the_hook()->entry_points, 3);

	int *result = dlsym(driver, "fake_result");
	*result = CUDA_ERROR_INVALID_VALUE;
	CHECK_EQ_INT(launch(legacy, 0x1234, 0x55), CUDA_ERROR_INVALID_VALUE);
	CHECK_EQ_STR(last->reached, "cuLaunchKernel");
	CHECK_EQ_INT((uintptr_t)last->f, 0x1234);
	CHECK_EQ_INT((uintptr_t)last->stream, 0x55);
	CHECK_EQ_INT(last->gx, 7);
	CHECK_EQ_INT(last->shared, 64);
	launch(ptsz, 0x1234, 0);
	CHECK_EQ_STR(last->reached, "cuLaunchKernel_ptsz");

	/* other functions are the driver's own; cuGetProcAddress itself is the hook's */
	CHECK_EQ_STR(library_of(proc(gpa, "cuMemAlloc", 13000, 0)), "libcuda.so.1");
	CHECK_EQ_STR(library_of(proc(gpa, "cuGetProcAddress", 13000, 0)),
		     "libkgantt-launch.so");
}

TEST(observer_told_inside_a_window_only)
{
	get_proc_fn gpa = open_driver(RTLD_LOCAL);
	void *legacy = proc(gpa, "cuLaunchKernel", 13000, 0);
	void *ptsz = proc(gpa, "cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
	struct kg_launch_hook *h = the_hook();
	atomic_store(&h->observer, &observer);
	launch(legacy, 0x10, 0x20);
	CHECK_EQ_INT(seen.enters, 0); /* no window */
	CHECK_EQ_INT(last->calls, 1);

	atomic_store(&h->observing, 1);
	CHECK_EQ_INT(launch(legacy, 0x11, 0x21), CUDA_SUCCESS);
	CHECK_EQ_INT(seen.enters, 1);
	CHECK_EQ_INT(seen.exits, 1);
	CHECK_EQ_INT(seen.entered.fn, KG_HOOK_LAUNCH_KERNEL);
	CHECK_EQ_INT(seen.entered.per_thread_stream, 0);
	CHECK_EQ_INT((uintptr_t)seen.entered.function, 0x11);
	CHECK_EQ_INT((uintptr_t)seen.exited.stream, 0x21);
	CHECK_EQ_INT(seen.handed_back, 1001);
	CHECK_EQ_INT(seen.result, CUDA_SUCCESS);
	CHECK_EQ_INT(last->calls, 2);
	launch(ptsz, 0x12, 0x22);
	CHECK_EQ_INT(seen.entered.per_thread_stream, 1);

	/* cuLaunchKernelEx: the stream is the configuration's */
	void *ex = dlsym(driver, "cuLaunchKernelEx");
	CHECK_EQ_STR(library_of(ex), "libkgantt-launch.so");
	CUlaunchConfig config = {.gridDimX = 3, .hStream = (CUstream)0x77};
	((launch_kernel_ex_fn)ex)(&config, (CUfunction)0x13, NULL, NULL);
	CHECK_EQ_STR(last->reached, "cuLaunchKernelEx");
	CHECK_EQ_INT(last->gx, 3);
	CHECK_EQ_INT(seen.exited.fn, KG_HOOK_LAUNCH_KERNEL_EX);
	CHECK_EQ_INT((uintptr_t)seen.exited.stream, 0x77);

	atomic_store(&h->observing, 0);
	launch(legacy, 0x11, 0x21);
	CHECK_EQ_INT(seen.enters, 3);
}

TEST(a_kernels_first_launch_told_outside_windows)
{
	get_proc_fn gpa = open_driver(RTLD_LOCAL);
	void *entry = proc(gpa, "cuLaunchKernel", 13000, 0);
	struct kg_launch_hook *h = the_hook();
	atomic_store(&h->observer, &observer);
	atomic_store(&h->first_launches, 1);
	launch(entry, 0xA0, 0);
	launch(entry, 0xA0, 0);
	CHECK_EQ_INT(seen.enters, 1);
	launch(entry, 0xB0, 0);
	CHECK_EQ_INT(seen.enters, 2);
	CHECK_EQ_INT((uintptr_t)seen.entered.function, 0xB0);
	/* seen inside a window: not first again after it */
	atomic_store(&h->observing, 1);
	launch(entry, 0xC0, 0);
	atomic_store(&h->observing, 0);
	launch(entry, 0xC0, 0);
	CHECK_EQ_INT(seen.enters, 3);
	/* thousands of kernels: each told once */
	for (uintptr_t f = 1; f <= 5000; f++)
		launch(entry, 0x100000 + (f << 4), 0);
	for (uintptr_t f = 1; f <= 5000; f++)
		launch(entry, 0x100000 + (f << 4), 0);
	CHECK_EQ_INT(seen.enters, 5003);
	CHECK_EQ_INT(h->kernels_full, 0);
	/* a module unloaded: its handles may come back as other kernels' */
	h->forget_kernels();
	launch(entry, 0xA0, 0);
	launch(entry, 0xA0, 0);
	CHECK_EQ_INT(seen.enters, 5004);
}

TEST(more_versions_than_slots_left_to_the_driver)
{
	get_proc_fn gpa = open_driver(RTLD_LOCAL);
	for (int v = 1; v <= 4; v++)
		CHECK_EQ_STR(library_of(proc(gpa, "cuLaunchCooperativeKernel", v, 0)),
			     "libkgantt-launch.so");
	CHECK_EQ_STR(library_of(proc(gpa, "cuLaunchCooperativeKernel", 5, 0)),
		     "libcuda.so.1");
	CHECK_EQ_INT(the_hook()->not_hooked, 1);
}

TEST(driver_handing_out_the_hooks_functions)
{
	/* a driver whose own references bind to the preloaded functions by name, and which
	 * cudart loads privately (RTLD_LOCAL): those functions find it loaded, by soname */
	get_proc_fn gpa = open_driver_at(FAKE_CUDA_INTERPOSED, RTLD_LOCAL);
	void *entry = proc(gpa, "cuLaunchKernel", 13000, 0);
	CHECK_EQ_STR(library_of(entry), "libkgantt-launch.so");
	struct kg_launch_hook *h = the_hook();
	atomic_store(&h->observer, &observer);
	atomic_store(&h->observing, 1);
	CHECK_EQ_INT(launch(entry, 0x5, 0x6), CUDA_SUCCESS);
	CHECK_EQ_STR(last->reached, "cuLaunchKernel");
	CHECK_EQ_INT(seen.enters, 1);
	launch(proc(gpa, "cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM),
	       0x5, 0x6);
	CHECK_EQ_STR(last->reached, "cuLaunchKernel_ptsz");
	CHECK_EQ_INT(seen.entered.per_thread_stream, 1);
	CHECK_EQ_INT(seen.enters, 2);
}

TEST(launch_called_by_name)
{
	/* found in the global scope, dlsym's answer is the hook's function by name, not
	 * another entry point standing in for it */
	launch_kernel_fn by_name = (launch_kernel_fn)dlsym(RTLD_DEFAULT, "cuLaunchKernel");
	CHECK_EQ_STR(library_of((void *)by_name), "libkgantt-launch.so");
	CHECK_EQ_INT(the_hook()->entry_points, 0);
	/* no driver yet: an error, not a crash */
	CHECK_EQ_INT(launch((void *)by_name, 0x1, 0), CUDA_ERROR_NOT_INITIALIZED);
	open_driver(RTLD_GLOBAL);
	struct kg_launch_hook *h = the_hook();
	atomic_store(&h->observer, &observer);
	atomic_store(&h->observing, 1);
	CHECK_EQ_INT(launch((void *)by_name, 0x2, 0x3), CUDA_SUCCESS);
	CHECK_EQ_STR(last->reached, "cuLaunchKernel");
	CHECK_EQ_INT(seen.enters, 1); /* once, not once per stand-in */
}

TEST(rtld_next_stays_the_callers)
{
	/* the test links next_a then next_b: from next_a, RTLD_NEXT finds next_b's function;
	 * had the hook's dlsym called the C library's instead of jumping to it, the search
	 * would start after the hook and find next_a's */
	CHECK_EQ_STR(library_of(dlsym(RTLD_DEFAULT, "dlsym")), "libkgantt-launch.so");
	CHECK_EQ_INT(next_which_library(), 2);
}
