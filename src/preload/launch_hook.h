/* The launch hook: the driver's kernel launches seen without CUPTI's launch callbacks.
 *
 * Full mode samples launch calls (their time, stack and thread) in windows. Taken from
 * CUPTI's callbacks, the windows cost a loop of empty launches 1.06-1.08x whatever their
 * length, and 1.02x more when the callbacks stay on and return at once
 * (docs/results/floor-parts-h100.md); and a callback can see a kernel's first launch only
 * while it is on. So the launch calls come from the launch functions themselves (the hook
 * alone costs that loop 1.00x: docs/results/launch-hook-h100.md):
 * libkgantt-launch.so, preloaded into the recorded program (LD_PRELOAD, set by
 * kgantt record), hands the program its own entry points for the driver's kernel launches
 * (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and their per-thread
 * stream variants), wherever the program gets them: from cuGetProcAddress (the CUDA
 * runtime takes every driver function from it), from dlsym (Triton, JAX, CuPy's NVRTC
 * kernels) or by linking (a driver-API program). Outside a window such an entry point
 * costs two flag loads, a look-up in its table of kernels seen and an indirect jump;
 * inside one, or at a kernel's first launch, it tells the observer the recorder attached.
 *
 * The recorder (libkgantt-inject.so, which the driver loads later) finds the hook with
 * dlsym(RTLD_DEFAULT, KG_LAUNCH_HOOK_SYMBOL); without it (a program started without the
 * preload, a static or setuid one), the recorder samples through CUPTI's callbacks as
 * before. This header is shared by both libraries and by nothing else. */
#ifndef KGANTT_LAUNCH_HOOK_H
#define KGANTT_LAUNCH_HOOK_H

#include <cuda.h>
#include <stdatomic.h>
#include <stdint.h>

#define KG_LAUNCH_HOOK_SYMBOL  "kg_launch_hook"
#define KG_LAUNCH_HOOK_VERSION 1

/* The launch functions the hook stands in for. */
enum kg_hook_fn {
	KG_HOOK_LAUNCH_KERNEL,      /* cuLaunchKernel */
	KG_HOOK_LAUNCH_KERNEL_EX,   /* cuLaunchKernelEx */
	KG_HOOK_LAUNCH_COOPERATIVE, /* cuLaunchCooperativeKernel */
	KG_HOOK_FNS
};

/* One observed launch, as the hook's entry point saw it. */
struct kg_hooked_launch {
	enum kg_hook_fn fn;
	int per_thread_stream;  /* the entry point is the _ptsz variant */
	CUfunction function;
	CUstream stream;
	uint64_t mark[2];       /* the observer's, from enter to exit (zero before enter) */
};

/* What the recorder attaches: called on the launching thread, around the driver's call. */
struct kg_launch_observer {
	void (*enter)(struct kg_hooked_launch *l);
	void (*exit)(struct kg_hooked_launch *l, CUresult result);
};

struct kg_launch_hook {
	uint32_t version;       /* KG_LAUNCH_HOOK_VERSION */
	/* 1 while a launch window is open: every launch goes to the observer */
	_Atomic uint32_t observing;
	/* 1: a kernel's first launch goes to the observer whether a window is open or not */
	_Atomic uint32_t first_launches;
	const struct kg_launch_observer *_Atomic observer;
	/* every kernel's next launch is a first launch again: the recorder calls it when a
	 * module or library is unloaded, since the driver then reuses its functions' handles
	 * (XLA's autotuner loads, launches and unloads a module per candidate) */
	void (*forget_kernels)(void);
	/* counts; the recorder says the last two in the trace when not 0 */
	_Atomic uint64_t entry_points;   /* launch entry points handed out */
	_Atomic uint64_t not_hooked;     /* ... left as the driver's: no free slot */
	_Atomic uint64_t kernels_full;   /* launches of kernels the full table could not hold
					  * (their first launch not told) */
};

#endif
