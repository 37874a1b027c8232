/* SM placement (`record --sm`): which SM ran each block of a kernel, and when.
 *
 * No CUDA API says where a block ran; a kernel built with include/kgantt/sm.h logs it
 * itself, per block, into a buffer in its module's device memory. The recorder finds that
 * buffer by name at the kernel's first launch (from CUPTI's driver-API callback), and
 * copies it out when the device is idle: at the exit of cudaDeviceSynchronize /
 * cuCtxSynchronize, when a context is destroyed, and at the end of the program. The
 * blocks go to the spool raw (KG_RAW_SM_BLOCKS); the importer matches them to kernels.
 *
 * The recorder's own driver calls (finding a buffer, copying it) raise CUPTI callbacks and
 * may leave activity records of their own: each is announced in the spool before it is
 * made (KG_RAW_SM_OWN), and the importer leaves those records out.
 *
 * Nothing here allocates on the launch path (the tables are made by smlog_init) or takes
 * the program down: a failure is a status line and the program runs on. */
#ifndef KGANTT_SMLOG_H
#define KGANTT_SMLOG_H

#include <cuda.h>
#include <cupti.h>
#include <stdint.h>

#include "recorder/spool.h"

/* The driver functions the log needs: libcuda's (smlog_load_driver), or a test's fakes.
 * kernel_get_library may be NULL (a driver before CUDA 12.5 has none). */
struct kg_smlog_driver {
	CUresult (*kernel_get_library)(CUlibrary *lib, CUkernel kernel);
	CUresult (*library_get_global)(CUdeviceptr *dptr, size_t *bytes, CUlibrary lib,
				       const char *name);
	CUresult (*func_get_module)(CUmodule *mod, CUfunction f);
	CUresult (*module_get_global)(CUdeviceptr *dptr, size_t *bytes, CUmodule mod,
				      const char *name);
	CUresult (*memcpy_dtoh)(void *dst, CUdeviceptr src, size_t bytes);
	CUresult (*memcpy_htod)(CUdeviceptr dst, const void *src, size_t bytes);
	CUresult (*ctx_get_current)(CUcontext *ctx);
	CUresult (*ctx_push)(CUcontext ctx);
	CUresult (*ctx_pop)(CUcontext *ctx);
	CUresult (*ctx_synchronize)(void);
	/* CUPTI's context id and device ordinal of a context; 0, or -1 when unknown */
	int (*context_ids)(CUcontext ctx, uint32_t *context_id, uint32_t *device);
};

/* libcuda's functions, already loaded by the program. 0, or -1 with why. */
int smlog_load_driver(struct kg_smlog_driver *d, char *why, size_t whylen);

/* Allocates the tables. status(level, text) says what went wrong (enum kg_status_level);
 * it must not call into CUDA. 0, or -ENOMEM (the log stays off). */
int smlog_init(const struct kg_smlog_driver *drv, struct kg_spool *spool,
	       void (*status)(int level, const char *text));
/* Enables the CUPTI callbacks the log needs on the recorder's subscriber. */
void smlog_subscribe(CUpti_SubscriberHandle sub);

/* From the CUPTI API callback, first: returns 1 when the call is one the recorder made
 * itself (the caller does nothing else with it). */
int smlog_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		 const CUpti_CallbackData *cb);
/* CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING: the last chance to read its buffers. */
void smlog_on_context_destroy(CUcontext ctx);
/* The end of the program (before the spool's end record): reads what is left in the
 * contexts still alive, says what was found, and stops the log. */
void smlog_at_exit(void);
/* A forked child: stop (its parent's locks may be held). */
void smlog_disable(void);

/* What the log did, for the tests and the status line at exit. */
struct kg_smlog_counts {
	uint64_t kernels;       /* distinct kernels (context, handle) looked up */
	uint64_t buffers;       /* block logs found */
	uint64_t reads;         /* buffer reads that found blocks */
	uint64_t blocks;        /* blocks copied to the spool */
	uint64_t dropped;       /* blocks the buffers had no room for */
	uint64_t own_calls;     /* driver calls the recorder made */
	uint64_t failures;      /* lookups or reads that failed */
};
void smlog_counts(struct kg_smlog_counts *c);

#endif
