/* What one part of full mode costs, measured inside one process (issue 26; bench/ab_cost.py).
 *
 * Between processes the launch loop and tiny PyTorch ops spread 1.5-2x in one
 * configuration on the shared GPU host, so a part worth 5 % needs hundreds of runs. Inside
 * one process the rate of launches holds to a few per cent. KGANTT_DEV_AB=PART switches one
 * part of full mode off and on again in alternate periods of KGANTT_DEV_AB_MS (default 50),
 * and appends each switch's time, on the trace's clock, to the file KGANTT_DEV_AB_LOG:
 *   kinds      the activity kinds full mode adds to kernels mode (copies, memsets,
 *              synchronisation, NVTX, CUPTI's overhead records)
 *   callbacks  the API callbacks that are on all the time (every call that is not a kernel
 *              launch and not a trivial query: waits, copies, allocations, events...)
 *   kind:N,..  some of those kinds only, by number (17 overhead, 38 synchronisation...)
 *   both       the two together
 *   all        the two and the launch windows (their callbacks held off): full mode
 *              against kernels mode with latency timestamps, but for the host samples
 *              (free: docs/results/full-mode-pooled-h200.md)
 * KGANTT_DEV_AB_MS=0 holds the part off for the whole run once full mode has set it up: a
 * process that paid full mode's start-up, for comparing with kernels mode between processes.
 * Otherwise the launch windows run as usual (KGANTT_DEV_NO_LAUNCH_WINDOWS=1 turns them off).
 * Not a user setting: in the off periods the trace lacks what the part records. */
#ifndef KGANTT_DEV_AB_H
#define KGANTT_DEV_AB_H

#include <cupti.h>
#include <stddef.h>

/* 1 when the recorder keeps this API function's callback on all the time. */
typedef int (*dev_ab_always_on)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

/* Starts the switching thread when KGANTT_DEV_AB names a part: kinds[0..n) are full mode's
 * kinds beyond kernels mode's. 1 started, 0 not asked, -1 asked but could not (said on stderr). */
int dev_ab_start(CUpti_SubscriberHandle sub, const CUpti_ActivityKind *kinds, size_t n,
		 dev_ab_always_on always_on);
/* At exit, before the last flush: the thread stops with the part on. */
void dev_ab_stop(void);

/* KGANTT_DEV_HOOK=1, kernels mode only: every runtime and driver API callback enabled and
 * disabled again at start, to see whether CUPTI keeps charging each API call once its
 * callbacks were ever on (what full mode's callbacks cost even when off). KGANTT_DEV_HOOK=runtime
 * or driver instead leaves one callback of that domain on, for a copy the launch loop never
 * makes: whether CUPTI charges every call of a domain while any callback of it is on. */
void dev_hook_once(CUpti_SubscriberHandle sub);

#endif
