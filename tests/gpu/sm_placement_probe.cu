// sm_placement_probe: checks on the GPU what include/kgantt/sm.h and the recorder rely on.
//
//  1. %gridid read in a block equals CUPTI's gridId for that kernel;
//  2. %globaltimer against the kernels' CUPTI times on CLOCK_MONOTONIC_RAW: a constant offset?
//     its resolution (distinct steps seen in a spin loop);
//  3. from a CUPTI driver-API callback on a launch: cuFuncGetModule + cuModuleGetGlobal find the
//     static buffer, under the default lazy module loading; which names work;
//  4. reading the buffer with cuMemcpyDtoH at cudaDeviceSynchronize's exit and when the context
//     is destroyed; the recorder's own calls show up as activity records with which
//     correlation ids (so they can be left out of the trace);
//  5. per-block cost of the macros;
//  6. where the blocks of two concurrent kernels and of a tail wave went.
#define KGANTT_SM_CAPACITY (1u << 20)
#include <kgantt/sm.h>

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#define CK(x)                                                                  \
	do {                                                                       \
		CUptiResult r_ = (x);                                                  \
		if (r_) {                                                              \
			const char *s_;                                                    \
			cuptiGetResultString(r_, &s_);                                     \
			printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_);             \
		}                                                                      \
	} while (0)

static uint64_t now_raw(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static uint64_t CUPTIAPI ts_cb(void) { return now_raw(); }

struct kern {
	std::string name;
	uint64_t start, end, grid;
	uint32_t corr;
};
static std::vector<kern> g_kernels;
static std::set<uint32_t> g_own_corr;
static int g_own_activity, g_memcpy_records;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI buf_req(uint8_t **b, size_t *s, size_t *m)
{
	*s = 8 << 20;
	*b = (uint8_t *)aligned_alloc(8, *s);
	*m = 0;
}
static void CUPTIAPI buf_done(CUcontext, uint32_t, uint8_t *b, size_t, size_t valid)
{
	CUpti_Activity *rec = NULL;
	pthread_mutex_lock(&g_lock);
	while (cuptiActivityGetNextRecord(b, valid, &rec) == CUPTI_SUCCESS) {
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
			CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)rec;
			g_kernels.push_back({k->name, k->start, k->end, (uint64_t)k->gridId, k->correlationId});
		} else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
			CUpti_ActivityMemcpy6 *c = (CUpti_ActivityMemcpy6 *)rec;
			g_memcpy_records++;
			if (g_own_corr.count(c->correlationId)) g_own_activity++;
		} else if (rec->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
			CUpti_ActivityAPI *a = (CUpti_ActivityAPI *)rec;
			if (g_own_corr.count(a->correlationId)) g_own_activity++;
		}
	}
	pthread_mutex_unlock(&g_lock);
	free(b);
}

/* ---- the recorder side, in miniature ---- */
static __thread int t_inside;
static std::map<CUmodule, CUdeviceptr> g_logs;
static std::vector<kgantt_sm_record> g_records;
static uint64_t g_dropped;
static int g_launch_cb, g_lookups, g_found, g_drains, g_ctx_destroy_seen;
static std::set<int> g_cbids_in_launch;

static void drain(const char *why)
{
	t_inside = 1;
	for (auto &kv : g_logs) {
		struct {
			unsigned long long magic;
			unsigned capacity, size;
			unsigned long long count, reserved;
		} hdr;
		CUresult r = cuMemcpyDtoH(&hdr, kv.second, sizeof hdr);
		if (r != CUDA_SUCCESS) {
			printf("drain(%s): header copy failed %d\n", why, (int)r);
			continue;
		}
		uint64_t n = std::min<uint64_t>(hdr.count, hdr.capacity);
		if (hdr.count > hdr.capacity) g_dropped += hdr.count - hdr.capacity;
		size_t old = g_records.size();
		g_records.resize(old + n);
		if (n) cuMemcpyDtoH(&g_records[old], kv.second + 32, n * sizeof(kgantt_sm_record));
		cuMemsetD8(kv.second + 16, 0, 8);
		printf("drain(%s): magic ok %d, %llu records\n", why, hdr.magic == KGANTT_SM_MAGIC, (unsigned long long)n);
	}
	g_drains++;
	t_inside = 0;
}

static void CUPTIAPI on_cb(void *, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data)
{
	if (dom == CUPTI_CB_DOMAIN_RESOURCE) {
		if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
			g_ctx_destroy_seen++;
			printf("context destroy starting\n");
			drain("context destroy");
		}
		if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) printf("module loaded (resource callback)\n");
		return;
	}
	const CUpti_CallbackData *cd = (const CUpti_CallbackData *)data;
	if (t_inside) {
		if (cd->callbackSite == CUPTI_API_ENTER) {
			pthread_mutex_lock(&g_lock);
			g_own_corr.insert(cd->correlationId);
			pthread_mutex_unlock(&g_lock);
		}
		return;
	}
	if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cd->callbackSite == CUPTI_API_ENTER) {
		CUfunction f = NULL;
		if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz)
			f = ((const cuLaunchKernel_params *)cd->functionParams)->f;
		else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz)
			f = ((const cuLaunchKernelEx_params *)cd->functionParams)->f;
		g_cbids_in_launch.insert((int)cbid);
		if (!f) return;
		g_launch_cb++;
		t_inside = 1;
		CUmodule mod = NULL;
		CUresult r = cuFuncGetModule(&mod, f);
		if (r == CUDA_SUCCESS && !g_logs.count(mod)) {
			g_lookups++;
			CUdeviceptr p = 0;
			size_t size = 0;
			const char *names[] = {"_ZL13kgantt_sm_log", "kgantt_sm_log"};
			for (const char *n : names) {
				CUresult g = cuModuleGetGlobal(&p, &size, mod, n);
				printf("lookup %s in module %p: %d (size %zu)\n", n, (void *)mod, (int)g, size);
				if (g == CUDA_SUCCESS) break;
			}
			if (p) g_found++;
			g_logs[mod] = p; /* 0: module without the buffer */
			if (!p) g_logs.erase(mod), g_logs[mod] = 0;
		} else if (r != CUDA_SUCCESS)
			printf("cuFuncGetModule: %d\n", (int)r);
		t_inside = 0;
	}
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && cd->callbackSite == CUPTI_API_EXIT &&
		cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020) {
		/* only modules with a buffer */
		std::map<CUmodule, CUdeviceptr> keep;
		for (auto &kv : g_logs)
			if (kv.second) keep[kv.first] = kv.second;
		std::swap(keep, g_logs);
		drain("device sync");
		for (auto &kv : keep)
			if (!kv.second) g_logs[kv.first] = 0;
	}
}

/* ---- kernels ---- */
__global__ void work(float *x, int iters)
{
	KGANTT_SM_BLOCK_BEGIN();
	float v = threadIdx.x;
	for (int i = 0; i < iters; i++) v = v * 1.0001f + 0.5f;
	if (v == 1234.f) x[0] = v;
	KGANTT_SM_BLOCK_END();
}
__global__ void work_plain(float *x, int iters)
{
	float v = threadIdx.x;
	for (int i = 0; i < iters; i++) v = v * 1.0001f + 0.5f;
	if (v == 1234.f) x[0] = v;
}
__global__ void tail(float *x, int iters)
{
	extern __shared__ float big[];
	KGANTT_SM_BLOCK_BEGIN();
	float v = threadIdx.x;
	for (int i = 0; i < iters; i++) v = v * 1.0001f + 0.5f;
	big[threadIdx.x] = v;
	__syncthreads();
	if (big[(threadIdx.x + 1) % blockDim.x] == 1234.f) x[0] = v;
	KGANTT_SM_BLOCK_END();
}
__global__ void timer_steps(unsigned long long *out)
{
	unsigned long long prev = kgantt_sm_globaltimer_(), steps = 0, minstep = ~0ull;
	for (int i = 0; i < 200000 && steps < 64; i++) {
		unsigned long long t = kgantt_sm_globaltimer_();
		if (t != prev) {
			if (t - prev < minstep) minstep = t - prev;
			steps++;
			prev = t;
		}
	}
	out[0] = minstep;
	out[1] = steps;
}

static float time_kernel(void (*k)(float *, int), int blocks, float *x, int iters)
{
	cudaEvent_t a, b;
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	std::vector<float> ms;
	for (int r = 0; r < 7; r++) {
		cudaEventRecord(a);
		k<<<blocks, 128>>>(x, iters);
		cudaEventRecord(b);
		cudaEventSynchronize(b);
		float t;
		cudaEventElapsedTime(&t, a, b);
		ms.push_back(t);
	}
	std::sort(ms.begin(), ms.end());
	return ms[3];
}

static void atexit_note(void) { printf("atexit handler runs (context destroy seen so far: %d)\n", g_ctx_destroy_seen); }

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	atexit(atexit_note);
	CK(cuptiActivityRegisterTimestampCallback(ts_cb));
	CK(cuptiActivityRegisterCallbacks(buf_req, buf_done));
	CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
	CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
	CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));
	CUpti_SubscriberHandle sub;
	CK(cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_cb, NULL));
	CK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API));
	CK(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020));
	CK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE));

	float *x;
	cudaMalloc(&x, 64);
	int sms;
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);

	unsigned long long *steps;
	cudaMallocManaged(&steps, 16);
	timer_steps<<<1, 1>>>(steps);
	cudaDeviceSynchronize();
	printf("globaltimer: smallest step %llu ns over %llu steps\n", steps[0], steps[1]);

	/* placement: two concurrent kernels on two streams, then a tail wave */
	cudaStream_t s1, s2;
	cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
	cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
	work<<<sms / 2, 128, 0, s1>>>(x, 200000);
	work<<<sms / 2, 128, 0, s2>>>(x, 200000);
	cudaDeviceSynchronize();
	int maxsmem = 0;
	cudaDeviceGetAttribute(&maxsmem, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
	cudaFuncSetAttribute(tail, cudaFuncAttributeMaxDynamicSharedMemorySize, maxsmem);
	tail<<<sms * 2 + sms / 4, 256, maxsmem>>>(x, 100000);
	cudaDeviceSynchronize();
	for (int i = 0; i < 20; i++) work<<<sms * 4, 128>>>(x, 2000);
	cudaDeviceSynchronize();

	/* cost per block */
	int blocks = 200000;
	float plain = time_kernel(work_plain, blocks, x, 100), with = time_kernel(work, blocks, x, 100);
	cudaDeviceSynchronize();
	printf("cost: %d blocks x 128 threads, 100 iters: plain %.3f ms, with macros %.3f ms: +%.2f ns per block (ratio %.3f)\n",
		blocks, plain, with, (with - plain) * 1e6 / blocks, with / plain);
	float plain2 = time_kernel(work_plain, blocks, x, 2000), with2 = time_kernel(work, blocks, x, 2000);
	cudaDeviceSynchronize();
	printf("cost: %d blocks x 128 threads, 2000 iters: plain %.3f ms, with macros %.3f ms: +%.2f ns per block (ratio %.3f)\n",
		blocks, plain2, with2, (with2 - plain2) * 1e6 / blocks, with2 / plain2);

	cuptiActivityFlushAll(1);
	printf("launch callbacks %d, driver cbids seen in launches:", g_launch_cb);
	for (int c : g_cbids_in_launch) printf(" %d", c);
	printf("\nmodules looked up %d, buffers found %d, drains %d, records %zu, dropped %llu\n", g_lookups, g_found, g_drains,
		g_records.size(), (unsigned long long)g_dropped);
	printf("own calls: %zu correlation ids; activity records carrying them: %d (memcpy records in all: %d)\n", g_own_corr.size(),
		g_own_activity, g_memcpy_records);

	/* 1 + 2: grid ids and clocks */
	std::map<uint64_t, const kern *> by_grid;
	for (auto &k : g_kernels) by_grid[k.grid] = &k;
	std::map<uint64_t, std::pair<uint64_t, uint64_t>> span;
	std::map<uint64_t, std::set<unsigned>> sms_of;
	for (auto &r : g_records) {
		auto &s = span[r.grid];
		if (!s.first || r.start < s.first) s.first = r.start;
		if (r.end > s.second) s.second = r.end;
		sms_of[r.grid].insert(r.smid);
	}
	int matched = 0, unmatched = 0;
	std::vector<long long> off_start, off_end;
	for (auto &kv : span) {
		auto it = by_grid.find(kv.first);
		if (it == by_grid.end()) {
			unmatched++;
			continue;
		}
		matched++;
		off_start.push_back((long long)it->second->start - (long long)kv.second.first);
		off_end.push_back((long long)it->second->end - (long long)kv.second.second);
		if (matched <= 6)
			printf("grid %llu %s: cupti %llu..%llu (%.1f us), blocks %llu..%llu (%.1f us), on %zu SMs\n",
				(unsigned long long)kv.first, it->second->name.substr(0, 20).c_str(),
				(unsigned long long)it->second->start, (unsigned long long)it->second->end,
				(it->second->end - it->second->start) / 1e3, (unsigned long long)kv.second.first,
				(unsigned long long)kv.second.second, (kv.second.second - kv.second.first) / 1e3, sms_of[kv.first].size());
	}
	std::sort(off_start.begin(), off_start.end());
	std::sort(off_end.begin(), off_end.end());
	printf("grid ids: %d kernels matched by grid id, %d record grids unmatched (of %zu kernels)\n", matched, unmatched,
		g_kernels.size());
	if (!off_start.empty()) {
		size_t n = off_start.size();
		printf("offset cupti.start - first block start: min %lld median %lld max %lld ns\n", off_start[0], off_start[n / 2],
			off_start[n - 1]);
		printf("offset cupti.end - last block end:     min %lld median %lld max %lld ns\n", off_end[0], off_end[n / 2],
			off_end[n - 1]);
	}
	/* 6: concurrent kernels' SM sets */
	std::vector<uint64_t> grids;
	for (auto &k : g_kernels) grids.push_back(k.grid);
	std::sort(grids.begin(), grids.end());
	for (size_t i = 0; i < grids.size() && i < 4; i++) {
		auto &s = sms_of[grids[i]];
		printf("kernel grid %llu: %zu blocks' SMs:", (unsigned long long)grids[i], s.size());
		int c = 0;
		for (unsigned v : s)
			if (c++ < 40) printf(" %u", v);
		printf("\n");
	}
	printf("main returns\n");
	return 0;
}
