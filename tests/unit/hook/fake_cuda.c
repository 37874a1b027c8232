/* A stand-in for libcuda.so.1 in tests/unit/test_launch_hook.c: the entry points the launch
 * hook stands in for, each noting how it was called. */
#include <cuda.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* what the last launch passed, and which of these functions it reached */
EXPORT struct fake_launch {
	const char *reached;
	CUfunction f;
	CUstream stream;
	unsigned gx, shared;
	int calls;
} fake_last;

EXPORT CUresult fake_result = CUDA_SUCCESS;

static CUresult note(const char *reached, CUfunction f, CUstream stream, unsigned gx,
		     unsigned shared)
{
	fake_last = (struct fake_launch){reached, f, stream, gx, shared, fake_last.calls + 1};
	return fake_result;
}

#define KERNEL_ARGS                                                                        \
	CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,     \
		unsigned bz, unsigned shared, CUstream stream, void **params, void **extra
#define COOPERATIVE_ARGS                                                                   \
	CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,     \
		unsigned bz, unsigned shared, CUstream stream, void **params

EXPORT CUresult cuLaunchKernel(KERNEL_ARGS)
{
	return note("cuLaunchKernel", f, stream, gx, shared);
}

EXPORT CUresult cuLaunchKernel_ptsz(KERNEL_ARGS)
{
	return note("cuLaunchKernel_ptsz", f, stream, gx, shared);
}

EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
				 void **extra)
{
	return note("cuLaunchKernelEx", f, config->hStream, config->gridDimX,
		    config->sharedMemBytes);
}

/* five versions of one function: more than the hook's slots for it */
#define COOPERATIVE(v)                                                                     \
	static CUresult cooperative_##v(COOPERATIVE_ARGS)                                  \
	{                                                                                  \
		return note("cuLaunchCooperativeKernel" #v, f, stream, gx, shared);        \
	}
COOPERATIVE(1)
COOPERATIVE(2)
COOPERATIVE(3)
COOPERATIVE(4)
COOPERATIVE(5)

EXPORT CUresult cuLaunchCooperativeKernel(COOPERATIVE_ARGS)
{
	return cooperative_1(f, gx, gy, gz, bx, by, bz, shared, stream, params);
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
	*p = bytes;
	return CUDA_SUCCESS;
}

/* cuLaunchCooperativeKernel's versions by the version asked for: 1 to 5 */
EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
				    cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
	static void *const cooperative[] = {(void *)cooperative_1, (void *)cooperative_2,
					    (void *)cooperative_3, (void *)cooperative_4,
					    (void *)cooperative_5};
	int ptsz = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
	*pfn = NULL;
	if (!strcmp(symbol, "cuLaunchKernel"))
		*pfn = ptsz ? (void *)cuLaunchKernel_ptsz : (void *)cuLaunchKernel;
	else if (!strcmp(symbol, "cuLaunchKernelEx"))
		*pfn = (void *)cuLaunchKernelEx;
	else if (!strcmp(symbol, "cuLaunchCooperativeKernel") && version >= 1 && version <= 5)
		*pfn = cooperative[version - 1];
	else if (!strcmp(symbol, "cuMemAlloc"))
		*pfn = (void *)cuMemAlloc_v2;
	else if (!strcmp(symbol, "cuGetProcAddress"))
		*pfn = (void *)cuGetProcAddress_v2;
	if (status)
		*status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
