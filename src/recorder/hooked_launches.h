/* Full mode's launch windows through the launch hook (src/preload/launch_hook.h) instead of
 * CUPTI's launch callbacks, when `kgantt record` preloaded it: the windows (launches.c)
 * then switch the hook's flag, and no launch callback of CUPTI's is ever enabled. A
 * launch the hook tells is recorded as CUPTI's callbacks would have recorded it: its API
 * call (the driver's cuLaunchKernel, cuLaunchKernelEx or cuLaunchCooperativeKernel,
 * entered and left around the driver's own), its stack when the stack sampler takes one,
 * and its kernel kept seen. Its correlation id is the recorder's own (raw_format.h,
 * KG_RAW_HOOKED_CORRELATION): the import finds its kernel by stream and queued time. */
#ifndef KGANTT_HOOKED_LAUNCHES_H
#define KGANTT_HOOKED_LAUNCHES_H

#include <cupti.h>

#include "preload/launch_hook.h"

/* The preloaded hook, or NULL: none preloaded, another version, or
 * KGANTT_DEV_NO_LAUNCH_HOOK=1 (bench/overhead.sh: CUPTI's callbacks as before). */
struct kg_launch_hook *hooked_launches_find(void);
/* Tells the hook to call the recorder: at each kernel's first launch, and in windows
 * (launches.c switches hook->observing), or with dated at every launch, whose call is
 * recorded, its stack only in windows and at a kernel's first launch (the import pairs
 * calls and kernels by launch order: trace/hooked_import.h). capturing() says whether to
 * record now. */
void hooked_launches_attach(struct kg_launch_hook *hook, int (*capturing)(void), int dated);
/* From CUPTI's API callback: a module or library unloaded gives its functions' handles
 * back to the driver, so the hook forgets which kernels it has seen. */
void hooked_launches_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			    const CUpti_CallbackData *cb);
/* A forked child records nothing. */
void hooked_launches_detach(void);

#endif
