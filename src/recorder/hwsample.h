/* Hardware sampling (`kgantt record --hw`): CUPTI PM sampling of GPU-wide counters
 * (SM active, achieved occupancy, tensor pipes, DRAM, PCIe, NVLink, SM clock) on every
 * device the program uses, written to the spool as KG_RAW_HW_* records on the trace's
 * clock. A device is set up on the thread that created its context (a one-time cost),
 * samples are decoded on the sampler's own thread, sampling ends in the exit handler. When the GPU refuses (counters not permitted, another
 * profiler holds them, an unsupported GPU), the spool says why and the program runs on. */
#ifndef KGANTT_HWSAMPLE_H
#define KGANTT_HWSAMPLE_H

#include <stdint.h>

#include <cupti.h>

#include "recorder/spool.h"

typedef void (*kg_hw_status_fn)(int level, const char *text);

/* interval_ns: the GPU's sampling interval (0: off). Starts the sampler's thread. */
int hw_start(uint64_t interval_ns, struct kg_spool *spool, kg_hw_status_fn status);
/* A context was created on this CUDA device: start sampling it (from CUPTI's resource
 * callback, on the creating thread; the first context of each device only). */
void hw_device_used(uint32_t device);
/* After an API call on a thread with this context current: sets up the devices waiting
 * for it (from CUPTI's API callback; cheap when none waits). */
void hw_on_api_exit(CUcontext ctx);
/* Callbacks hw_on_api_exit needs: the launch, allocation and copy APIs. */
void hw_subscribe(CUpti_SubscriberHandle sub);
/* Stop sampling, write what the GPU still holds, release the counters (at exit). */
void hw_stop(void);

#endif
