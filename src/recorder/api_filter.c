/* Which CUDA API functions the trace leaves out unless --all-api (api_filter.h). */
#include "recorder/api_filter.h"

#include <stdio.h>
#include <string.h>

#include "util/api_names.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* API functions not recorded unless --all-api: queries that launch nothing, wait for
 * nothing and take well under a microsecond, which PyTorch calls around every launch
 * (an MLP training step on the H200: 14 API calls per kernel, 6 M cudaGetDevice,
 * 1.6 M cuDevicePrimaryCtxGetState, 1.0 M cudaGetLastError for 760 k kernels) and cuBLAS
 * and cuDNN around theirs (a GPT training step on the H200: cuKernelGetAttribute,
 * cuGetErrorString, cudaGetErrorString, cuDriverGetVersion and cuCtxGetLimit were 19,000
 * of its 57,000 recorded calls, 0.1-0.3 us each). torch.profiler leaves such calls out
 * of its traces too. Also cudaGetFuncBySymbol and cudaStreamGetId, queries too (the GPT
 * training step made 31 cudaGetFuncBySymbol a step). Attribute settings made before
 * launches (cuKernelSetAttribute: cuBLAS sets a kernel's shared memory, about 3 us) stay:
 * host time in the gaps before launches. */
static const CUpti_CallbackId trivial_runtime[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v10010,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v2_v11030,
	CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
	CUPTI_RUNTIME_TRACE_CBID_cudaFuncGetAttributes_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorString_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorName_v6050,
	CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetLimit_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetPriority_v5050,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetFlags_v5050,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetFuncBySymbol_v11000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetId_v12000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetId_ptsz_v12000,
};
static const CUpti_CallbackId trivial_driver[] = {
	CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice_v2,
	CUPTI_DRIVER_TRACE_CBID_cuKernelGetName,
	CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction,
	CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
	CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
	CUPTI_DRIVER_TRACE_CBID_cuFuncGetAttribute,
	CUPTI_DRIVER_TRACE_CBID_cuFuncGetName,
	CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
	CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
	CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute,
	CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttributes,
	CUPTI_DRIVER_TRACE_CBID_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetStreamPriorityRange,
	CUPTI_DRIVER_TRACE_CBID_cuStreamIsCapturing,
	CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo,
	CUPTI_DRIVER_TRACE_CBID_cuStreamGetCaptureInfo_v2,
	CUPTI_DRIVER_TRACE_CBID_cuGetErrorString,
	CUPTI_DRIVER_TRACE_CBID_cuGetErrorName,
	CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion,
	CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetLimit,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetFlags,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetId,
	CUPTI_DRIVER_TRACE_CBID_cuStreamGetPriority,
	CUPTI_DRIVER_TRACE_CBID_cuStreamGetFlags,
	CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx,
	CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx_v2,
	CUPTI_DRIVER_TRACE_CBID_cuStreamGetId,
};

size_t api_filter_list(CUpti_CallbackDomain domain, const CUpti_CallbackId **list)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		*list = trivial_runtime;
		return COUNT(trivial_runtime);
	}
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
		*list = trivial_driver;
		return COUNT(trivial_driver);
	}
	*list = NULL;
	return 0;
}

int api_filter_trivial(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	const CUpti_CallbackId *list;
	size_t n = api_filter_list(domain, &list);
	for (size_t i = 0; i < n; i++)
		if (list[i] == cbid)
			return 1;
	return 0;
}

/* Whether item is one of the comma-separated names in buf. */
static int listed(const char *buf, const char *item)
{
	size_t il = strlen(item);
	for (const char *p = buf; (p = strstr(p, item)) != NULL; p += il)
		if ((p == buf || p[-1] == ' ') && (p[il] == ',' || p[il] == '\0'))
			return 1;
	return 0;
}

void api_filter_names(char *buf, size_t size,
		      int (*omit)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid))
{
	static const CUpti_CallbackDomain domains[] = {CUPTI_CB_DOMAIN_RUNTIME_API,
						       CUPTI_CB_DOMAIN_DRIVER_API};
	size_t len = 0;
	if (size == 0)
		return;
	buf[0] = '\0';
	for (size_t d = 0; d < COUNT(domains); d++) {
		const CUpti_CallbackId *list;
		size_t n = api_filter_list(domains[d], &list);
		for (size_t i = 0; i < n; i++) {
			const char *name = NULL;
			if ((omit && omit(domains[d], list[i])) ||
			    cuptiGetCallbackName(domains[d], list[i], &name) != CUPTI_SUCCESS || !name)
				continue;
			/* "cudaStreamGetCaptureInfo_v2_v11030": every version suffix goes */
			char item[128], prev[128];
			api_display_name(name, item, sizeof(item));
			do {
				snprintf(prev, sizeof(prev), "%s", item);
				api_display_name(prev, item, sizeof(item));
			} while (strcmp(prev, item) != 0);
			if (listed(buf, item)) /* the _v2 of a function already named */
				continue;
			int w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", item);
			if (w < 0 || (size_t)w >= size - len) {
				buf[len] = '\0';
				return;
			}
			len += (size_t)w;
		}
	}
}
