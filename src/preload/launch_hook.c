/* libkgantt-launch.so: the driver's kernel launches, seen from their entry points
 * (launch_hook.h says why).
 *
 * A program gets a driver function in one of three ways, and each is met here:
 * - cuGetProcAddress: the CUDA runtime (static or shared) takes every driver function from
 *   it, having found cuGetProcAddress itself with dlsym on libcuda's handle;
 * - dlsym on libcuda's handle: Triton's launcher, XLA's stubs;
 * - linking against libcuda: a driver-API program calls cuLaunchKernel by name, and the
 *   preloaded definition below comes first.
 * So this library defines dlsym: for the names it stands in for it hands out its own entry
 * point, and for every other name it jumps to the C library's dlsym. It must jump (a tail
 * call), not call: dlsym(RTLD_NEXT, ...) searches after the object its return address is
 * in, and that must stay the caller's (tests/unit/test_launch_hook.c checks it).
 *
 * An entry point is one of SLOTS per launch function, each bound to one of the driver's
 * functions (a version, a stream variant) when first handed out. Outside a window it loads
 * two flags, looks the kernel up in a lock-free table (is this its first launch?) and
 * jumps on. Nothing here allocates, locks or calls the C library while a launch is
 * passing through. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "preload/launch_hook.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define LIKELY(x) __builtin_expect(!!(x), 1)

static void forget_kernels(void);

EXPORT struct kg_launch_hook kg_launch_hook = {.version = KG_LAUNCH_HOOK_VERSION,
					       .forget_kernels = forget_kernels};

/* ------------------------------------------------------------------ the C library's dlsym */

typedef void *(*dlsym_fn)(void *handle, const char *symbol);
static dlsym_fn _Atomic libc_dlsym;

/* dlvsym is not defined here, so it finds the C library's dlsym by version: glibc 2.34 moved
 * it into libc (GLIBC_2.34); before, libdl's was GLIBC_2.2.5 (x86-64) or GLIBC_2.17
 * (AArch64). */
static dlsym_fn find_libc_dlsym(void)
{
	static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
	dlsym_fn f = atomic_load_explicit(&libc_dlsym, memory_order_acquire);
	for (size_t i = 0; !f && i < sizeof(versions) / sizeof(versions[0]); i++)
		f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
	atomic_store_explicit(&libc_dlsym, f, memory_order_release);
	return f;
}

/* ------------------------------------------------------------------ the kernels seen */

#define KERNELS 16384 /* a power of two; a program with more kernels has its rest unannounced */
#define PROBES  32

static CUfunction _Atomic kernels[KERNELS];

/* 1 when this is the function's first launch (it is noted, lock-free). */
static int first_launch(CUfunction f)
{
	uint64_t h = (uint64_t)(uintptr_t)f * 0x9E3779B97F4A7C15ull;
	for (uint32_t i = 0; i < PROBES; i++) {
		CUfunction _Atomic *slot = &kernels[((h >> 40) + i) & (KERNELS - 1)];
		CUfunction seen = atomic_load_explicit(slot, memory_order_relaxed);
		if (seen == f)
			return 0;
		if (!seen) {
			CUfunction empty = NULL;
			if (atomic_compare_exchange_strong_explicit(slot, &empty, f,
								    memory_order_relaxed,
								    memory_order_relaxed))
				return 1;
			if (empty == f)
				return 0;
		}
	}
	atomic_fetch_add_explicit(&kg_launch_hook.kernels_full, 1, memory_order_relaxed);
	return 0;
}

static void forget_kernels(void)
{
	for (size_t i = 0; i < KERNELS; i++)
		atomic_store_explicit(&kernels[i], NULL, memory_order_relaxed);
}

/* Whether this launch goes to the observer: inside a window, or a kernel's first. */
static inline int observed(CUfunction f)
{
	int first = atomic_load_explicit(&kg_launch_hook.first_launches, memory_order_relaxed) &&
		    first_launch(f);
	return first || atomic_load_explicit(&kg_launch_hook.observing, memory_order_relaxed);
}

/* ------------------------------------------------------------------ entry points */

typedef CUresult (*launch_kernel_fn)(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
				     unsigned bx, unsigned by, unsigned bz, unsigned shared,
				     CUstream stream, void **params, void **extra);
typedef CUresult (*launch_kernel_ex_fn)(const CUlaunchConfig *config, CUfunction f,
					void **params, void **extra);
typedef CUresult (*launch_cooperative_fn)(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
					  unsigned bx, unsigned by, unsigned bz, unsigned shared,
					  CUstream stream, void **params);

#define SLOTS 4

struct slot {
	void *_Atomic real;     /* the driver's function; set before the entry point is out */
	int per_thread_stream;
};

static struct slot slots[KG_HOOK_FNS][SLOTS];
/* the entry points for programs that call the functions by name: per-thread stream or not */
static struct slot named[KG_HOOK_FNS][2];

/* The observer around one launch: f and stream say what the call launches. */
#define OBSERVE(fn_, sl, f_, stream_, call)                                                   \
	do {                                                                                  \
		const struct kg_launch_observer *o_ =                                         \
			atomic_load_explicit(&kg_launch_hook.observer, memory_order_acquire); \
		if (!o_)                                                                      \
			return call;                                                          \
		struct kg_hooked_launch l_ = {.fn = (fn_),                                    \
					      .per_thread_stream = (sl)->per_thread_stream,   \
					      .function = (f_), .stream = (stream_)};         \
		o_->enter(&l_);                                                               \
		CUresult r_ = call;                                                           \
		o_->exit(&l_, r_);                                                            \
		return r_;                                                                    \
	} while (0)

static inline CUresult launch_kernel(struct slot *sl, CUfunction f, unsigned gx, unsigned gy,
				     unsigned gz, unsigned bx, unsigned by, unsigned bz,
				     unsigned shared, CUstream stream, void **params, void **extra)
{
	launch_kernel_fn real = (launch_kernel_fn)atomic_load_explicit(&sl->real,
								       memory_order_relaxed);
	if (LIKELY(!observed(f)))
		return real(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
	OBSERVE(KG_HOOK_LAUNCH_KERNEL, sl, f, stream,
		real(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra));
}

static inline CUresult launch_kernel_ex(struct slot *sl, const CUlaunchConfig *config,
					CUfunction f, void **params, void **extra)
{
	launch_kernel_ex_fn real = (launch_kernel_ex_fn)atomic_load_explicit(
		&sl->real, memory_order_relaxed);
	if (LIKELY(!observed(f)))
		return real(config, f, params, extra);
	OBSERVE(KG_HOOK_LAUNCH_KERNEL_EX, sl, f, config ? config->hStream : NULL,
		real(config, f, params, extra));
}

static inline CUresult launch_cooperative(struct slot *sl, CUfunction f, unsigned gx,
					  unsigned gy, unsigned gz, unsigned bx, unsigned by,
					  unsigned bz, unsigned shared, CUstream stream,
					  void **params)
{
	launch_cooperative_fn real = (launch_cooperative_fn)atomic_load_explicit(
		&sl->real, memory_order_relaxed);
	if (LIKELY(!observed(f)))
		return real(f, gx, gy, gz, bx, by, bz, shared, stream, params);
	OBSERVE(KG_HOOK_LAUNCH_COOPERATIVE, sl, f, stream,
		real(f, gx, gy, gz, bx, by, bz, shared, stream, params));
}

#define KERNEL_ARGS                                                                        \
	CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,     \
		unsigned bz, unsigned shared, CUstream stream, void **params, void **extra
#define COOPERATIVE_ARGS                                                                   \
	CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,     \
		unsigned bz, unsigned shared, CUstream stream, void **params

#define ENTRY_POINTS(i)                                                                    \
	static CUresult kernel_##i(KERNEL_ARGS)                                            \
	{                                                                                  \
		return launch_kernel(&slots[KG_HOOK_LAUNCH_KERNEL][i], f, gx, gy, gz, bx,  \
				     by, bz, shared, stream, params, extra);               \
	}                                                                                  \
	static CUresult kernel_ex_##i(const CUlaunchConfig *config, CUfunction f,          \
				      void **params, void **extra)                         \
	{                                                                                  \
		return launch_kernel_ex(&slots[KG_HOOK_LAUNCH_KERNEL_EX][i], config, f,    \
					params, extra);                                    \
	}                                                                                  \
	static CUresult cooperative_##i(COOPERATIVE_ARGS)                                  \
	{                                                                                  \
		return launch_cooperative(&slots[KG_HOOK_LAUNCH_COOPERATIVE][i], f, gx,    \
					  gy, gz, bx, by, bz, shared, stream, params);     \
	}
ENTRY_POINTS(0)
ENTRY_POINTS(1)
ENTRY_POINTS(2)
ENTRY_POINTS(3)

static void *const entry_points[KG_HOOK_FNS][SLOTS] = {
	[KG_HOOK_LAUNCH_KERNEL] = {(void *)kernel_0, (void *)kernel_1, (void *)kernel_2,
				   (void *)kernel_3},
	[KG_HOOK_LAUNCH_KERNEL_EX] = {(void *)kernel_ex_0, (void *)kernel_ex_1,
				      (void *)kernel_ex_2, (void *)kernel_ex_3},
	[KG_HOOK_LAUNCH_COOPERATIVE] = {(void *)cooperative_0, (void *)cooperative_1,
					(void *)cooperative_2, (void *)cooperative_3},
};

/* The driver's names of the launch functions, without a variant's suffix. */
static const char *const fn_names[KG_HOOK_FNS] = {
	[KG_HOOK_LAUNCH_KERNEL] = "cuLaunchKernel",
	[KG_HOOK_LAUNCH_KERNEL_EX] = "cuLaunchKernelEx",
	[KG_HOOK_LAUNCH_COOPERATIVE] = "cuLaunchCooperativeKernel",
};

/* Which launch function a name is (*ptsz: its per-thread stream variant, the "_ptsz"
 * suffix); -1 for any other name. */
static int launch_fn_of(const char *symbol, int *ptsz)
{
	for (int fn = 0; fn < KG_HOOK_FNS; fn++) {
		size_t n = strlen(fn_names[fn]);
		if (strncmp(symbol, fn_names[fn], n) != 0)
			continue;
		if (!symbol[n] || !strcmp(symbol + n, "_ptsz")) {
			*ptsz = symbol[n] != 0;
			return fn;
		}
	}
	return -1;
}

/* defined by name below (cuda.h declares the others) */
EXPORT CUresult cuLaunchKernel_ptsz(KERNEL_ARGS);
EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
				      void **params, void **extra);
EXPORT CUresult cuLaunchCooperativeKernel_ptsz(COOPERATIVE_ARGS);

/* A function of this library's: dlsym(RTLD_DEFAULT, "cuLaunchKernel") finds the one
 * defined by name here, which must not stand in for itself. */
static int is_mine(void *p)
{
	void *const by_name[] = {
		(void *)cuLaunchKernel,            (void *)cuLaunchKernel_ptsz,
		(void *)cuLaunchKernelEx,          (void *)cuLaunchKernelEx_ptsz,
		(void *)cuLaunchCooperativeKernel, (void *)cuLaunchCooperativeKernel_ptsz,
	};
	for (size_t i = 0; i < sizeof(by_name) / sizeof(by_name[0]); i++)
		if (by_name[i] == p)
			return 1;
	for (int fn = 0; fn < KG_HOOK_FNS; fn++)
		for (int i = 0; i < SLOTS; i++)
			if (entry_points[fn][i] == p)
				return 1;
	return 0;
}

/* The entry point standing in for the driver's function real; real itself when every slot
 * is bound to another. */
static void *entry_point(int fn, void *real, int ptsz)
{
	if (!real || is_mine(real))
		return real;
	for (int i = 0; i < SLOTS; i++) {
		struct slot *sl = &slots[fn][i];
		void *bound = atomic_load_explicit(&sl->real, memory_order_acquire);
		if (!bound && atomic_compare_exchange_strong_explicit(&sl->real, &bound, real,
								      memory_order_acq_rel,
								      memory_order_acquire)) {
			/* the variant comes with the function: whoever binds it says which */
			sl->per_thread_stream = ptsz;
			bound = real;
		}
		if (bound == real) {
			atomic_fetch_add_explicit(&kg_launch_hook.entry_points, 1,
						  memory_order_relaxed);
			return entry_points[fn][i];
		}
	}
	atomic_fetch_add_explicit(&kg_launch_hook.not_hooked, 1, memory_order_relaxed);
	return real;
}

/* ------------------------------------------------------------------ cuGetProcAddress */

typedef CUresult (*get_proc_v1_fn)(const char *symbol, void **pfn, int version,
				   cuuint64_t flags);
typedef CUresult (*get_proc_v2_fn)(const char *symbol, void **pfn, int version,
				   cuuint64_t flags, CUdriverProcAddressQueryResult *status);
static get_proc_v1_fn _Atomic driver_get_proc_v1;
static get_proc_v2_fn _Atomic driver_get_proc_v2;

static CUresult get_proc_v1(const char *symbol, void **pfn, int version, cuuint64_t flags);
static CUresult get_proc_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
			    CUdriverProcAddressQueryResult *status);

/* What cuGetProcAddress found for symbol, or what stands in for it here. */
static void *proc_found(const char *symbol, void *found, int version, cuuint64_t flags)
{
	if (!found || !symbol)
		return found;
	if (!strcmp(symbol, "cuGetProcAddress")) { /* the _v2 signature from CUDA 12.0 on */
		if (version >= 12000) {
			atomic_store(&driver_get_proc_v2, (get_proc_v2_fn)found);
			return (void *)get_proc_v2;
		}
		atomic_store(&driver_get_proc_v1, (get_proc_v1_fn)found);
		return (void *)get_proc_v1;
	}
	int ptsz = 0;
	int fn = launch_fn_of(symbol, &ptsz);
	if (fn < 0)
		return found;
	return entry_point(fn, found, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0);
}

static CUresult get_proc_v1(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
	get_proc_v1_fn driver = atomic_load(&driver_get_proc_v1);
	CUresult r = driver(symbol, pfn, version, flags);
	if (r == CUDA_SUCCESS && pfn)
		*pfn = proc_found(symbol, *pfn, version, flags);
	return r;
}

static CUresult get_proc_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
			    CUdriverProcAddressQueryResult *status)
{
	get_proc_v2_fn driver = atomic_load(&driver_get_proc_v2);
	CUresult r = driver(symbol, pfn, version, flags, status);
	if (r == CUDA_SUCCESS && pfn)
		*pfn = proc_found(symbol, *pfn, version, flags);
	return r;
}

/* ------------------------------------------------------------------ dlsym */

/* For a name this library stands in for, its own function (found is the C library's answer
 * for the same lookup); NULL for every other name. */
static void *dlsym_found(const char *symbol, void *found)
{
	if (!found)
		return NULL;
	if (!strcmp(symbol, "cuGetProcAddress_v2")) {
		atomic_store(&driver_get_proc_v2, (get_proc_v2_fn)found);
		return (void *)get_proc_v2;
	}
	if (!strcmp(symbol, "cuGetProcAddress")) {
		atomic_store(&driver_get_proc_v1, (get_proc_v1_fn)found);
		return (void *)get_proc_v1;
	}
	int ptsz = 0;
	int fn = launch_fn_of(symbol, &ptsz);
	return fn < 0 ? NULL : entry_point(fn, found, ptsz);
}

EXPORT void *dlsym(void *handle, const char *symbol)
{
	dlsym_fn libc = atomic_load_explicit(&libc_dlsym, memory_order_acquire);
	if (!libc && !(libc = find_libc_dlsym()))
		return NULL;
	/* only "cu..." names with a real handle: RTLD_NEXT's answer depends on the caller */
	if (handle != RTLD_NEXT && symbol[0] == 'c' && symbol[1] == 'u' &&
	    (!strncmp(symbol, "cuGetProcAddress", 16) || !strncmp(symbol, "cuLaunch", 8))) {
		void *mine = dlsym_found(symbol, libc(handle, symbol));
		if (mine)
			return mine;
	}
	return libc(handle, symbol); /* a tail call: the caller's return address is kept */
}

/* ------------------------------------------------------------------ by name */

/* The entry point of a program that calls a launch function by name: bound on the first
 * call to the next definition after this library, or to the loaded libcuda's. The second is
 * for a driver that hands out these functions themselves (its own references bound to
 * them) while loaded where RTLD_NEXT does not look (the runtime loads it RTLD_LOCAL). */
static struct slot *named_slot(int fn, int ptsz, const char *name)
{
	struct slot *sl = &named[fn][ptsz];
	if (LIKELY(atomic_load_explicit(&sl->real, memory_order_acquire) != NULL))
		return sl;
	dlsym_fn libc = find_libc_dlsym();
	void *real = libc ? libc(RTLD_NEXT, name) : NULL;
	void *cuda = libc && !real ? dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) : NULL;
	if (cuda) {
		real = libc(cuda, name);
		dlclose(cuda);
	}
	if (is_mine(real))
		real = NULL;
	sl->per_thread_stream = ptsz;
	atomic_store_explicit(&sl->real, real, memory_order_release);
	return real ? sl : NULL;
}

EXPORT CUresult cuLaunchKernel(KERNEL_ARGS)
{
	struct slot *sl = named_slot(KG_HOOK_LAUNCH_KERNEL, 0, "cuLaunchKernel");
	return sl ? launch_kernel(sl, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra)
		  : CUDA_ERROR_NOT_INITIALIZED;
}

EXPORT CUresult cuLaunchKernel_ptsz(KERNEL_ARGS)
{
	struct slot *sl = named_slot(KG_HOOK_LAUNCH_KERNEL, 1, "cuLaunchKernel_ptsz");
	return sl ? launch_kernel(sl, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra)
		  : CUDA_ERROR_NOT_INITIALIZED;
}

EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
				 void **extra)
{
	struct slot *sl = named_slot(KG_HOOK_LAUNCH_KERNEL_EX, 0, "cuLaunchKernelEx");
	return sl ? launch_kernel_ex(sl, config, f, params, extra) : CUDA_ERROR_NOT_INITIALIZED;
}

EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
				      void **params, void **extra)
{
	struct slot *sl = named_slot(KG_HOOK_LAUNCH_KERNEL_EX, 1, "cuLaunchKernelEx_ptsz");
	return sl ? launch_kernel_ex(sl, config, f, params, extra) : CUDA_ERROR_NOT_INITIALIZED;
}

EXPORT CUresult cuLaunchCooperativeKernel(COOPERATIVE_ARGS)
{
	struct slot *sl = named_slot(KG_HOOK_LAUNCH_COOPERATIVE, 0, "cuLaunchCooperativeKernel");
	return sl ? launch_cooperative(sl, f, gx, gy, gz, bx, by, bz, shared, stream, params)
		  : CUDA_ERROR_NOT_INITIALIZED;
}

EXPORT CUresult cuLaunchCooperativeKernel_ptsz(COOPERATIVE_ARGS)
{
	struct slot *sl =
		named_slot(KG_HOOK_LAUNCH_COOPERATIVE, 1, "cuLaunchCooperativeKernel_ptsz");
	return sl ? launch_cooperative(sl, f, gx, gy, gz, bx, by, bz, shared, stream, params)
		  : CUDA_ERROR_NOT_INITIALIZED;
}

