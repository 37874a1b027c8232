// pm_sampling_probe: what CUPTI PM sampling offers on this GPU, before the recorder relies on it.
//
//   pm_sampling_probe OUTDIR [interval_ns ...]
//
// 1. lists the chip's PM-sampling base metrics (OUTDIR/pm_base_metrics.txt);
// 2. finds, for each figure kgantt wants (SM active, warps, tensor pipe, DRAM, PCIe, NVLink,
//    clock), the metric names that exist and the largest set that still fits one pass
//    (OUTDIR/pm_metric_sets.txt);
// 3. samples that set while a memory-bound, a tensor-core, an FMA, an 8-block kernel and an
//    idle gap run, with CUPTI kernel tracing on CLOCK_MONOTONIC_RAW at the same time, and
//    writes every sample (OUTDIR/pm_samples_<interval>.csv) and the kernels (pm_kernels.csv),
//    so the samples' clock can be compared with the kernels';
// 4. times a fixed mixed workload with and without sampling at each interval (overhead).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <mma.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

static const char *g_out = ".";
static FILE *g_log;

#define CK(call)                                                                              \
	do {                                                                                      \
		CUptiResult r_ = (call);                                                              \
		if (r_ != CUPTI_SUCCESS) {                                                            \
			const char *s_ = "?";                                                             \
			cuptiGetResultString(r_, &s_);                                                    \
			fprintf(stderr, "%s:%d %s -> %d %s\n", __FILE__, __LINE__, #call, (int)r_, s_); \
		}                                                                                     \
	} while (0)

static uint64_t now_raw(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static uint64_t now_real(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static uint64_t CUPTIAPI ts_cb(void) { return now_raw(); }

/* ---- kernel tracing ---- */
struct kern {
	std::string name;
	uint64_t start, end;
	uint32_t grid;
};
static std::vector<kern> g_kernels;
static pthread_mutex_t g_klock = PTHREAD_MUTEX_INITIALIZER;

static void CUPTIAPI buf_req(uint8_t **b, size_t *s, size_t *m)
{
	*s = 8 << 20;
	*b = (uint8_t *)aligned_alloc(8, *s);
	*m = 0;
}
static void CUPTIAPI buf_done(CUcontext, uint32_t, uint8_t *b, size_t, size_t valid)
{
	CUpti_Activity *rec = NULL;
	while (cuptiActivityGetNextRecord(b, valid, &rec) == CUPTI_SUCCESS) {
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
			CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)rec;
			pthread_mutex_lock(&g_klock);
			g_kernels.push_back({k->name ? k->name : "?", k->start, k->end, (uint32_t)k->gridId});
			pthread_mutex_unlock(&g_klock);
		}
	}
	free(b);
}

/* ---- workloads ---- */
__global__ void k_copy(const float4 *a, float4 *b, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		b[i] = a[i];
}
__global__ void k_fma(float *o, int iters)
{
	float x = threadIdx.x, y = 1.0001f;
	for (int i = 0; i < iters; i++) x = fmaf(x, y, 0.5f);
	if (x == 12345.f) o[0] = x;
}
__global__ void k_tensor(float *o, int iters)
{
	using namespace nvcuda;
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
	wmma::fill_fragment(a, __float2half(0.001f));
	wmma::fill_fragment(b, __float2half(0.001f));
	wmma::fill_fragment(c, 0.f);
	for (int i = 0; i < iters; i++) wmma::mma_sync(c, a, b, c);
	if (c.x[0] == 12345.f) o[0] = c.x[0];
}
__global__ void k_empty(void) {}
__global__ void k_globaltimer(unsigned long long *t)
{
	unsigned long long g;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
	*t = g;
}

static float4 *g_a, *g_b;
static float *g_o;
static size_t g_n;
static int g_sms;

static void run_phases(void)
{
	for (int i = 0; i < 20; i++) k_copy<<<g_sms * 8, 512>>>(g_a, g_b, g_n);
	cudaDeviceSynchronize();
	usleep(3000);
	k_tensor<<<g_sms * 8, 256>>>(g_o, 400000);
	cudaDeviceSynchronize();
	usleep(3000);
	k_fma<<<g_sms * 8, 256>>>(g_o, 400000);
	cudaDeviceSynchronize();
	usleep(3000);
	k_fma<<<8, 256>>>(g_o, 400000);
	cudaDeviceSynchronize();
	usleep(10000);
	for (int i = 0; i < 2000; i++) k_empty<<<1, 32>>>();
	cudaDeviceSynchronize();
}

/* a fixed mixed workload for the overhead test: small launches and copies */
static double timed_mix(void)
{
	uint64_t t = now_raw();
	for (int r = 0; r < 40; r++) {
		for (int i = 0; i < 200; i++) k_empty<<<1, 32>>>();
		k_copy<<<g_sms * 8, 512>>>(g_a, g_b, g_n / 8);
		k_fma<<<g_sms * 4, 256>>>(g_o, 20000);
		cudaDeviceSynchronize();
	}
	return (now_raw() - t) / 1e6;
}

/* ---- metric sets ---- */
static std::string g_chip;
static std::vector<uint8_t> g_avail;

static int passes_of(const std::vector<std::string> &names, std::string *err)
{
	CUpti_Profiler_Host_Initialize_Params ip = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	ip.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
	ip.pChipName = g_chip.c_str();
	ip.pCounterAvailabilityImage = g_avail.data();
	CUptiResult r = cuptiProfilerHostInitialize(&ip);
	if (r != CUPTI_SUCCESS) { *err = "host init"; return -1; }
	std::vector<const char *> p;
	for (auto &s : names) p.push_back(s.c_str());
	int passes = -1;
	CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	ap.pHostObject = ip.pHostObject;
	ap.ppMetricNames = p.data();
	ap.numMetrics = p.size();
	r = cuptiProfilerHostConfigAddMetrics(&ap);
	if (r != CUPTI_SUCCESS) {
		const char *s = "?";
		cuptiGetResultString(r, &s);
		*err = std::string("add: ") + s;
	} else {
		CUpti_Profiler_Host_GetConfigImageSize_Params sp = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
		sp.pHostObject = ip.pHostObject;
		r = cuptiProfilerHostGetConfigImageSize(&sp);
		std::vector<uint8_t> img(sp.configImageSize);
		CUpti_Profiler_Host_GetConfigImage_Params gp = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
		gp.pHostObject = ip.pHostObject;
		gp.configImageSize = img.size();
		gp.pConfigImage = img.data();
		if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetConfigImage(&gp);
		CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
		np.configImageSize = img.size();
		np.pConfigImage = img.data();
		if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetNumOfPasses(&np);
		if (r == CUPTI_SUCCESS) passes = (int)np.numOfPasses;
		else {
			const char *s = "?";
			cuptiGetResultString(r, &s);
			*err = std::string("config: ") + s;
		}
	}
	CUpti_Profiler_Host_Deinitialize_Params dp = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	dp.pHostObject = ip.pHostObject;
	cuptiProfilerHostDeinitialize(&dp);
	return passes;
}

struct want {
	const char *label;
	std::vector<std::string> names;
};

static std::vector<std::string> choose_set(FILE *f)
{
	std::vector<want> wants = {
		{"sm_active", {"sm__cycles_active.avg", "sm__cycles_active.sum", "sm__cycles_active.max", "gr__cycles_active.avg"}},
		{"elapsed", {"sm__cycles_elapsed.avg", "sm__cycles_elapsed.max", "gpc__cycles_elapsed.max", "sys__cycles_elapsed.max", "gpu__cycles_elapsed.max"}},
		{"warps", {"sm__warps_active.avg", "sm__warps_active.sum", "sm__warps_active.avg.pct_of_peak_sustained_elapsed", "sm__warps_active.avg.per_cycle_active"}},
		{"tensor", {"sm__pipe_tensor_op_hmma_cycles_active.avg", "sm__pipe_tensor_cycles_active.avg", "sm__pipe_tensor_op_gmma_cycles_active.avg", "sm__pipe_shared_cycles_active.avg", "sm__inst_executed_pipe_tensor.sum", "sm__pipe_tensor_op_hmma_cycles_active.sum", "sm__pipe_tensor_cycles_active.sum"}},
		{"dram_read", {"dram__bytes_read.sum", "dram__sectors_read.sum", "dramc__read_throughput.avg.pct_of_peak_sustained_elapsed", "dram__read_throughput.avg.pct_of_peak_sustained_elapsed"}},
		{"dram_write", {"dram__bytes_write.sum", "dram__sectors_write.sum", "dramc__write_throughput.avg.pct_of_peak_sustained_elapsed"}},
		{"pcie_read", {"pcie__read_bytes.sum", "pcie__rx_bytes.sum", "pcie__bytes_read.sum"}},
		{"pcie_write", {"pcie__write_bytes.sum", "pcie__tx_bytes.sum", "pcie__bytes_write.sum"}},
		{"nvlink_rx", {"nvlrx__bytes.sum", "nvl__rx_bytes.sum", "nvlrx__bytes_data_user.sum"}},
		{"nvlink_tx", {"nvltx__bytes.sum", "nvl__tx_bytes.sum", "nvltx__bytes_data_user.sum"}},
		{"sm_clock", {"gpc__cycles_elapsed.avg.per_second", "sm__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.max", "sys__cycles_elapsed.avg.per_second"}},
		{"gr_active", {"gr__cycles_active.sum", "gr__cycles_active.avg", "gpu__cycles_active.avg"}},
	};
	std::vector<std::string> set;
	std::string err;
	for (auto &w : wants) {
		fprintf(f, "# %s\n", w.label);
		for (auto &n : w.names) {
			int alone = passes_of({n}, &err);
			fprintf(f, "  %-60s alone: %d %s\n", n.c_str(), alone, alone < 0 ? err.c_str() : "");
		}
		int taken = 0;
		for (auto &n : w.names) {
			std::vector<std::string> trial = set;
			trial.push_back(n);
			int p = passes_of(trial, &err);
			if (p == 1) {
				set = trial;
				fprintf(f, "  => %s (set of %zu still one pass)\n", n.c_str(), set.size());
				taken = 1;
				break;
			}
		}
		if (!taken) fprintf(f, "  => none fits one pass with the set so far\n");
	}
	fprintf(f, "\nchosen set (%zu):\n", set.size());
	for (auto &n : set) fprintf(f, "  %s\n", n.c_str());
	return set;
}

static void list_base(void)
{
	std::string path = std::string(g_out) + "/pm_base_metrics.txt";
	FILE *f = fopen(path.c_str(), "w");
	CUpti_Profiler_Host_Initialize_Params ip = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	ip.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
	ip.pChipName = g_chip.c_str();
	ip.pCounterAvailabilityImage = g_avail.data();
	CK(cuptiProfilerHostInitialize(&ip));
	const char *tn[] = {"counter", "ratio", "throughput"};
	for (int t = 0; t < 3; t++) {
		CUpti_Profiler_Host_GetBaseMetrics_Params bp = {CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
		bp.pHostObject = ip.pHostObject;
		bp.metricType = (CUpti_MetricType)t;
		CK(cuptiProfilerHostGetBaseMetrics(&bp));
		for (size_t i = 0; i < bp.numMetrics; i++) {
			CUpti_Profiler_Host_GetMetricProperties_Params pp = {CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
			pp.pHostObject = ip.pHostObject;
			pp.pMetricName = bp.ppMetricNames[i];
			cuptiProfilerHostGetMetricProperties(&pp);
			fprintf(f, "%s\t%s\t%s\t%s\n", tn[t], bp.ppMetricNames[i], pp.pHwUnit ? pp.pHwUnit : "",
				pp.pDescription ? pp.pDescription : "");
		}
	}
	CUpti_Profiler_Host_Deinitialize_Params dp = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	dp.pHostObject = ip.pHostObject;
	cuptiProfilerHostDeinitialize(&dp);
	fclose(f);
}

/* ---- sampling session ---- */
struct session {
	CUpti_Profiler_Host_Object *host;
	CUpti_PmSampling_Object *pm;
	std::vector<uint8_t> config, data;
	std::vector<const char *> names;
	volatile int stop;
	pthread_t thr;
	size_t decodes, overflow;
	FILE *csv;
	uint64_t samples;
};

static void drain(session *s)
{
	CUpti_PmSampling_DecodeData_Params dd = {CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
	dd.pPmSamplingObject = s->pm;
	dd.pCounterDataImage = s->data.data();
	dd.counterDataImageSize = s->data.size();
	CUptiResult r = cuptiPmSamplingDecodeData(&dd);
	s->decodes++;
	if (dd.overflow) s->overflow++;
	if (r != CUPTI_SUCCESS) {
		const char *m = "?";
		cuptiGetResultString(r, &m);
		fprintf(g_log, "decode: %s\n", m);
	}
	CUpti_PmSampling_GetCounterDataInfo_Params ci = {CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
	ci.pCounterDataImage = s->data.data();
	ci.counterDataImageSize = s->data.size();
	CK(cuptiPmSamplingGetCounterDataInfo(&ci));
	std::vector<double> v(s->names.size());
	for (size_t i = 0; i < ci.numCompletedSamples; i++) {
		CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
		si.pPmSamplingObject = s->pm;
		si.pCounterDataImage = s->data.data();
		si.counterDataImageSize = s->data.size();
		si.sampleIndex = i;
		CK(cuptiPmSamplingCounterDataGetSampleInfo(&si));
		CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
		ev.pHostObject = s->host;
		ev.pCounterDataImage = s->data.data();
		ev.counterDataImageSize = s->data.size();
		ev.rangeIndex = i;
		ev.ppMetricNames = s->names.data();
		ev.numMetrics = s->names.size();
		ev.pMetricValues = v.data();
		CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
		if (s->csv) {
			fprintf(s->csv, "%llu,%llu", (unsigned long long)si.startTimestamp, (unsigned long long)si.endTimestamp);
			for (double x : v) fprintf(s->csv, ",%.6g", x);
			fprintf(s->csv, "\n");
		}
		s->samples++;
	}
	if (dd.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL || ci.numCompletedSamples > 0) {
		CUpti_PmSampling_CounterDataImage_Initialize_Params in = {CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
		in.pPmSamplingObject = s->pm;
		in.counterDataSize = s->data.size();
		in.pCounterData = s->data.data();
		CK(cuptiPmSamplingCounterDataImageInitialize(&in));
	}
}

static void *decoder(void *arg)
{
	session *s = (session *)arg;
	while (!s->stop) {
		usleep(20000);
		drain(s);
	}
	return NULL;
}

static int session_start(session *s, const std::vector<std::string> &set, uint64_t interval_ns, const char *csv)
{
	s->names.clear();
	for (auto &n : set) s->names.push_back(n.c_str());
	CUpti_Profiler_Host_Initialize_Params ip = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	ip.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
	ip.pChipName = g_chip.c_str();
	ip.pCounterAvailabilityImage = g_avail.data();
	CK(cuptiProfilerHostInitialize(&ip));
	s->host = ip.pHostObject;
	CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	ap.pHostObject = s->host;
	ap.ppMetricNames = s->names.data();
	ap.numMetrics = s->names.size();
	CK(cuptiProfilerHostConfigAddMetrics(&ap));
	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	sp.pHostObject = s->host;
	CK(cuptiProfilerHostGetConfigImageSize(&sp));
	s->config.resize(sp.configImageSize);
	CUpti_Profiler_Host_GetConfigImage_Params gp = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	gp.pHostObject = s->host;
	gp.configImageSize = s->config.size();
	gp.pConfigImage = s->config.data();
	CK(cuptiProfilerHostGetConfigImage(&gp));

	CUpti_PmSampling_Enable_Params en = {CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
	en.deviceIndex = 0;
	CUptiResult r = cuptiPmSamplingEnable(&en);
	if (r != CUPTI_SUCCESS) {
		const char *m = "?";
		cuptiGetResultString(r, &m);
		fprintf(g_log, "enable: %s\n", m);
		return -1;
	}
	s->pm = en.pPmSamplingObject;
	CUpti_PmSampling_SetConfig_Params sc = {CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
	sc.pPmSamplingObject = s->pm;
	sc.configSize = s->config.size();
	sc.pConfig = s->config.data();
	sc.hardwareBufferSize = 256ull << 20;
	sc.samplingInterval = interval_ns;
	sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
	sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	r = cuptiPmSamplingSetConfig(&sc);
	if (r != CUPTI_SUCCESS) {
		const char *m = "?";
		cuptiGetResultString(r, &m);
		fprintf(g_log, "setconfig: %s\n", m);
	}
	CUpti_PmSampling_GetCounterDataSize_Params ds = {CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
	ds.pPmSamplingObject = s->pm;
	ds.pMetricNames = s->names.data();
	ds.numMetrics = s->names.size();
	ds.maxSamples = 20000;
	CK(cuptiPmSamplingGetCounterDataSize(&ds));
	fprintf(g_log, "interval %llu ns: config image %zu B, counter data for %u samples %zu B\n",
		(unsigned long long)interval_ns, s->config.size(), ds.maxSamples, ds.counterDataSize);
	s->data.assign(ds.counterDataSize, 0);
	CUpti_PmSampling_CounterDataImage_Initialize_Params in = {CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	in.pPmSamplingObject = s->pm;
	in.counterDataSize = s->data.size();
	in.pCounterData = s->data.data();
	CK(cuptiPmSamplingCounterDataImageInitialize(&in));
	s->csv = csv ? fopen(csv, "w") : NULL;
	if (s->csv) {
		fprintf(s->csv, "start,end");
		for (auto &n : set) fprintf(s->csv, ",%s", n.c_str());
		fprintf(s->csv, "\n");
	}
	s->stop = 0;
	s->samples = s->decodes = s->overflow = 0;
	CUpti_PmSampling_Start_Params st = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
	st.pPmSamplingObject = s->pm;
	uint64_t t0 = now_raw();
	CK(cuptiPmSamplingStart(&st));
	fprintf(g_log, "start took %.3f ms (raw clock at start %llu, cuptiGetTimestamp %llu, realtime %llu)\n",
		(now_raw() - t0) / 1e6, (unsigned long long)now_raw(), (unsigned long long)[] {
			uint64_t t;
			cuptiGetTimestamp(&t);
			return t;
		}(), (unsigned long long)now_real());
	pthread_create(&s->thr, NULL, decoder, s);
	return 0;
}

static void session_stop(session *s)
{
	s->stop = 1;
	pthread_join(s->thr, NULL);
	CUpti_PmSampling_Stop_Params st = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
	st.pPmSamplingObject = s->pm;
	CK(cuptiPmSamplingStop(&st));
	drain(s);
	fprintf(g_log, "  samples %llu, decodes %zu, overflow %zu\n", (unsigned long long)s->samples, s->decodes, s->overflow);
	if (s->csv) fclose(s->csv);
	s->csv = NULL;
	CUpti_PmSampling_Disable_Params di = {CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
	di.pPmSamplingObject = s->pm;
	CK(cuptiPmSamplingDisable(&di));
	CUpti_Profiler_Host_Deinitialize_Params dp = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	dp.pHostObject = s->host;
	cuptiProfilerHostDeinitialize(&dp);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc > 1) g_out = argv[1];
	std::vector<uint64_t> intervals;
	for (int i = 2; i < argc; i++) intervals.push_back(strtoull(argv[i], NULL, 10));
	if (intervals.empty()) intervals = {1000000, 100000, 20000, 10000};
	g_log = stdout;
	setvbuf(stdout, NULL, _IOLBF, 0);

	CK(cuptiActivityRegisterTimestampCallback(ts_cb));
	CK(cuptiActivityRegisterCallbacks(buf_req, buf_done));
	CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
	cudaFree(0);
	cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0);
	g_n = (1ull << 30) / sizeof(float4);
	cudaMalloc(&g_a, g_n * sizeof(float4));
	cudaMalloc(&g_b, g_n * sizeof(float4));
	cudaMalloc(&g_o, 64);
	cudaMemset(g_a, 0, g_n * sizeof(float4));

	CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
	CK(cuptiProfilerInitialize(&pi));
	CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	cn.deviceIndex = 0;
	CK(cuptiDeviceGetChipName(&cn));
	g_chip = cn.pChipName ? cn.pChipName : "?";
	CUpti_PmSampling_GetCounterAvailability_Params ca = {CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
	ca.deviceIndex = 0;
	CK(cuptiPmSamplingGetCounterAvailability(&ca));
	g_avail.resize(ca.counterAvailabilityImageSize);
	ca.pCounterAvailabilityImage = g_avail.data();
	CK(cuptiPmSamplingGetCounterAvailability(&ca));
	printf("chip %s, %d SMs, counter availability image %zu B\n", g_chip.c_str(), g_sms, g_avail.size());
	{
		CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params mp = {CUpti_Profiler_Host_GetMaxNumHardwareMetricsPerPass_Params_STRUCT_SIZE};
		mp.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
		mp.pChipName = g_chip.c_str();
		mp.pCounterAvailabilityImage = g_avail.data();
		CK(cuptiProfilerHostGetMaxNumHardwareMetricsPerPass(&mp));
		printf("max hardware metrics per pass: %zu\n", mp.maxMetricsPerPass);
	}
	list_base();
	std::string sets = std::string(g_out) + "/pm_metric_sets.txt";
	FILE *sf = fopen(sets.c_str(), "w");
	std::vector<std::string> set = choose_set(sf);
	fclose(sf);
	printf("chosen set:");
	for (auto &n : set) printf(" %s", n.c_str());
	printf("\n");

	/* globaltimer vs host clocks */
	unsigned long long *dt;
	cudaMalloc(&dt, 8);
	for (int i = 0; i < 3; i++) {
		uint64_t r0 = now_raw(), w0 = now_real();
		k_globaltimer<<<1, 1>>>(dt);
		cudaDeviceSynchronize();
		uint64_t r1 = now_raw(), w1 = now_real();
		unsigned long long g;
		cudaMemcpy(&g, dt, 8, cudaMemcpyDeviceToHost);
		printf("globaltimer %llu; raw %llu..%llu; realtime %llu..%llu; gt-realtime_mid %lld ns; gt-raw_mid %lld ns\n", g,
			(unsigned long long)r0, (unsigned long long)r1, (unsigned long long)w0, (unsigned long long)w1,
			(long long)(g - (w0 + w1) / 2), (long long)(g - (r0 + r1) / 2));
	}

	session s = {};
	for (uint64_t iv : intervals) {
		char csv[512];
		snprintf(csv, sizeof csv, "%s/pm_samples_%llu.csv", g_out, (unsigned long long)iv);
		printf("== phases sampled at %llu ns\n", (unsigned long long)iv);
		uint64_t t0 = now_raw();
		if (session_start(&s, set, iv, csv) != 0) break;
		run_phases();
		session_stop(&s);
		printf("  phases took %.1f ms\n", (now_raw() - t0) / 1e6);
	}
	cuptiActivityFlushAll(1);
	{
		std::string kp = std::string(g_out) + "/pm_kernels.csv";
		FILE *kf = fopen(kp.c_str(), "w");
		fprintf(kf, "start,end,grid,name\n");
		for (auto &k : g_kernels)
			if (k.name.find("k_empty") == std::string::npos)
				fprintf(kf, "%llu,%llu,%u,%s\n", (unsigned long long)k.start, (unsigned long long)k.end, k.grid, k.name.c_str());
		fclose(kf);
	}

	/* overhead: the mixed workload, untraced by PM sampling vs each interval, interleaved */
	printf("== overhead (ms per mixed workload, 5 rounds, interleaved)\n");
	timed_mix();
	std::vector<uint64_t> cfg = {0};
	for (uint64_t iv : intervals) cfg.push_back(iv);
	std::vector<std::vector<double>> times(cfg.size());
	for (int round = 0; round < 5; round++)
		for (size_t c = 0; c < cfg.size(); c++) {
			if (cfg[c] && session_start(&s, set, cfg[c], NULL) != 0) continue;
			times[c].push_back(timed_mix());
			if (cfg[c]) session_stop(&s);
		}
	double base = 0;
	for (size_t c = 0; c < cfg.size(); c++) {
		if (times[c].empty()) continue;
		qsort(times[c].data(), times[c].size(), sizeof(double), cmp_d);
		double med = times[c][times[c].size() / 2];
		if (c == 0) base = med;
		printf("  %-10s %8llu ns: median %.2f ms  ratio %.3f  (min %.2f max %.2f)\n", cfg[c] ? "sampled" : "off",
			(unsigned long long)cfg[c], med, base ? med / base : 0, times[c].front(), times[c].back());
	}
	/* a second process's view: does Enable fail while we hold it? (checked by the caller running two) */
	printf("done\n");
	return 0;
}
