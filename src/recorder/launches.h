/* Kernel launches in full mode: which API functions launch a kernel, the key of the kernel
 * a launch is for, and the windows in which their callbacks are on (record --all-launches
 * turns the windows off).
 *
 * A kernel record with latency timestamps already says when the host queued it (`queued`,
 * 1.4-1.8 µs before the launch call returned on the H200), so full mode needs a launch's
 * own API record only for what a sample gives as well: the launch latency, the call's stack,
 * the launching thread. CUPTI charges each API callback on the calling thread, launches
 * included, so the callbacks of kernel launches are on only in windows: from the start,
 * until the first launch and for as long as kernels never seen before keep appearing (a
 * window's length without one), then WINDOW_ON_MS in every WINDOW_PERIOD_MS. A kernel that
 * first appears outside a window has its launches sampled from the next one on. Every
 * other call (waits, copies, memsets, allocations, events, graph launches) is recorded each
 * time. The trace says so (KG_RAW_LAUNCH_SETTINGS), and the analysis dates an unsampled
 * kernel by its queued time less the sampled calls' lead (model.h, op_issued).
 * Measured (docs/results/floor-parts-h100.md): on a loop of empty launches the windows cost
 * 1.06-1.08x whatever their length (1 ms in every 100 as much as 10). When `kgantt record`
 * preloaded the launch hook (recorder/hooked_launches.h), the windows switch its flag
 * instead and no launch callback is ever on: 1.06x on that loop too, not shown cheaper
 * (docs/results/launch-hook-h100.md), and each kernel's first launch seen. */
#ifndef KGANTT_LAUNCHES_H
#define KGANTT_LAUNCHES_H

#include <cupti.h>
#include <stdint.h>

#include "preload/launch_hook.h"
#include "recorder/spool.h"

#define LAUNCH_WINDOW_ON_MS 10
#define LAUNCH_WINDOW_PERIOD_MS 100

/* Reads the callback names once: which functions launch a kernel. */
void launches_init(void);
/* 1 when the function launches one kernel (cudaLaunchKernel, cuLaunchKernelEx, ...; not a
 * graph launch, not a host function). */
int launches_is_kernel_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
/* The kernel a launch-like call is for, as a key: the function when the parameters say
 * it, else the symbol name CUPTI hands the callback. */
uintptr_t launches_key(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		       const CUpti_CallbackData *cb);
/* A kernel launch's key seen (launches_pass_over calls it at each launch's entry): a kernel
 * not seen before keeps the window open. 1 when the key is new. */
int launches_seen(uintptr_t key);
/* From every API callback while windows run: 1 when the callback is a kernel launch's that
 * the windows leave out, to be passed over. Only with the windows by flag
 * (KGANTT_DEV_WINDOW_FLAG=1), where the launch callbacks stay on: a launch of a kernel never
 * seen before is then recorded even outside a window (its first launch may be the only
 * one of its call site: a warm-up's, after a compilation the window closed in), with its
 * exit and the launch calls inside it. Switched, the callbacks are off outside windows and
 * this is 0; it notes the kernel either way. */
int launches_pass_over(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		       const CUpti_CallbackData *cb);
/* Starts the windows' thread; writes the launch settings record either way (sampled, or
 * every launch when the thread cannot start). With hook (recorder/hooked_launches.h) the
 * windows switch its flag, else CUPTI's launch callbacks; with hook and dated, the hook
 * tells every launch (dated: a call each, its stack only in windows: launches_window),
 * and the record says every launch. 1 when windows run. */
int launches_start_windows(CUpti_SubscriberHandle sub, struct kg_launch_hook *hook, int dated,
			   struct kg_spool *spool);
/* Every launch: the settings record only (--all-launches, --hw, --sm, --stacks all). */
void launches_record_all(struct kg_spool *spool, const char *why);
/* For KGANTT_DEV_AB only (recorder/dev_ab.h): hold the launch callbacks off whatever the
 * window (1), or give them back to the windows (0). Nothing while windows do not run. */
void launches_hold(int hold);
/* At exit, before the last drain: the thread stops, launch callbacks stay on. */
void launches_stop_windows(void);
/* The window open now, numbered from 1 (the first opens at start); 0 while the launch
 * callbacks are closed; 1 throughout when windows do not run (every launch recorded). */
uint32_t launches_window(void);
/* Counts the windows the launch callbacks were closed: a call that entered before a
 * close may never see its exit (api_calls.c). */
uint32_t launches_closings(void);

#endif
