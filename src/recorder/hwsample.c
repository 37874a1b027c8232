/* Hardware sampling with CUPTI PM sampling (cupti_pmsampling.h + cupti_profiler_host.h).
 *
 * Measured on an H200 (tests/gpu/pm_sampling_probe.cu, docs/results/hw-h200.md):
 *  - a GPU counts only what fits one pass; more metrics make SetConfig refuse. So each
 *    figure of util/hw_figures.h has candidate metrics, and the set is built greedily in
 *    the figures' order, keeping a candidate only while the set still needs one pass;
 *  - sample times come back on the CUPTI clock, which the recorder set to
 *    CLOCK_MONOTONIC_RAW: they line up with the kernels as they are;
 *  - the first sample after Start spans from before it (the counters' previous state):
 *    samples much longer than the interval are dropped;
 *  - a counter-data image costs ~34 KB per sample on GH100, so it is kept small and the
 *    thread decodes often (every KGANTT_HW_DRAIN_MS, default 50 ms), looping until the
 *    GPU's buffer is empty.
 * Set-up runs on the program's thread that created the context (hw_device_used: see
 * there why), decoding on the sampler's own thread, the end in the exit handler. */
#include "recorder/hwsample.h"

#include <cuda.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h> /* C-clean but for one #include <string>: see cxx_shim/ */
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder/hostsample.h"
#include "recorder/own_thread.h"
#include "recorder/say.h"
#include "util/hw_figures.h"

#define HW_MAX_DEVICES 16
#define HW_BATCH 256             /* samples per spool record */
#define HW_IMAGE_SAMPLES 2000    /* samples per decode into the counter-data image */
#define HW_GPU_BUFFER (256u << 20) /* the GPU's own sample buffer */

/* The raw counters sampled, in the order the set is built: each is kept only while the
 * set still fits one pass. These are the ones measured to sample and decode cleanly on an
 * H200 (tests/gpu/pm_sampling_probe.cu); CUPTI's derived forms
 * (pct_of_peak_sustained_elapsed, dram__throughput) passed the one-pass check there but
 * crashed or failed CUPTI's decoder during sampling, so the figures are computed here. */
enum raw {
	R_SM_ACTIVE, R_SM_ELAPSED, R_WARPS, R_TENSOR, R_DRAM_READ, R_DRAM_WRITE, R_CLOCK,
	R_PCIE_READ, R_PCIE_WRITE, R_GR_ACTIVE, R_CTXSW, R_NVL_RX, R_NVL_TX, R_COUNT
};

static const char *const raw_metric[R_COUNT] = {
	[R_SM_ACTIVE] = "sm__cycles_active.avg",     /* per SM, averaged over SMs */
	[R_SM_ELAPSED] = "sm__cycles_elapsed.avg",
	[R_WARPS] = "sm__warps_active.avg",           /* resident warps summed over cycles */
	[R_TENSOR] = "sm__pipe_tensor_cycles_active.avg",
	[R_DRAM_READ] = "dram__bytes_read.sum",
	[R_DRAM_WRITE] = "dram__bytes_write.sum",
	[R_CLOCK] = "gpc__cycles_elapsed.avg.per_second",
	[R_PCIE_READ] = "pcie__read_bytes.sum",
	[R_PCIE_WRITE] = "pcie__write_bytes.sum",
	[R_GR_ACTIVE] = "gr__cycles_active.sum",
	[R_CTXSW] = "gpu__gr_cycles_active_cmd_ctxsw.sum",
	[R_NVL_RX] = "nvlrx__bytes.sum",
	[R_NVL_TX] = "nvltx__bytes.sum",
};

/* Which raw counters each figure needs (bits of enum raw). */
static const unsigned figure_needs[KG_HW_N] = {
	[KG_HW_SM_ACTIVE] = 1u << R_SM_ACTIVE | 1u << R_SM_ELAPSED,
	[KG_HW_OCCUPANCY] = 1u << R_WARPS | 1u << R_SM_ACTIVE,
	[KG_HW_DRAM_READ] = 1u << R_DRAM_READ,
	[KG_HW_DRAM_WRITE] = 1u << R_DRAM_WRITE,
	[KG_HW_DRAM_PEAK] = 1u << R_DRAM_READ | 1u << R_DRAM_WRITE,
	[KG_HW_TENSOR] = 1u << R_TENSOR | 1u << R_SM_ELAPSED,
	[KG_HW_SM_CLOCK] = 1u << R_CLOCK,
	[KG_HW_PCIE_READ] = 1u << R_PCIE_READ,
	[KG_HW_PCIE_WRITE] = 1u << R_PCIE_WRITE,
	[KG_HW_NVLINK_RX] = 1u << R_NVL_RX,
	[KG_HW_NVLINK_TX] = 1u << R_NVL_TX,
	[KG_HW_CTXSW] = 1u << R_CTXSW | 1u << R_GR_ACTIVE,
};

struct hw_sample {
	int64_t start, end;
	float v[KG_HW_N];
};

enum dev_state { DEV_UNUSED, DEV_WANTED, DEV_STARTING, DEV_SAMPLING, DEV_DONE };

struct hw_dev {
	enum dev_state state;
	char chip[64];
	uint8_t *avail;
	CUpti_Profiler_Host_Object *host;
	CUpti_PmSampling_Object *pm;
	uint8_t *config;            /* CUPTI keeps using it after SetConfig: freed at the end */
	uint8_t *image;
	size_t image_size;
	const char *names[R_COUNT]; /* the chosen raw counters */
	int raw[R_COUNT];           /* names[i] is raw counter raw[i] */
	int n;
	unsigned have;              /* bits of enum raw taken */
	double max_warps;           /* warps an SM holds: occupancy's 100% */
	double peak_bps;            /* DRAM's peak bandwidth, 0 unknown */
	uint64_t lost;              /* long first samples, overflowed buffers */
	struct hw_sample batch[HW_BATCH]; /* samples waiting for the spool */
	int n_batch;
};

static struct {
	struct kg_spool *spool;
	kg_hw_status_fn status;
	uint64_t interval;
	unsigned drain_ms;
	int setup_in_context_callback; /* KGANTT_HW_SETUP=context: at context creation */
	size_t gpu_buffer;
	uint32_t image_samples;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int started, stop, profiler_ready;
	int pending;                   /* devices wanted and not yet set up */
	int exit_hook;                 /* stop_before_teardown registered */
	struct hw_dev dev[HW_MAX_DEVICES];
} hw = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static const char *err_text(CUptiResult r)
{
	const char *s = NULL;
	return cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s ? s : "unknown CUPTI error";
}

#define say(...) say_to(hw.status, __VA_ARGS__)

/* ------------------------------------------------------------------ spool records */

static void write_device_record(int device, uint32_t figure, const char *metric, int state,
				const char *note)
{
	struct kg_spool *s = hw.spool;
	pthread_mutex_lock(&s->lock);
	uint32_t metric_s = metric ? spool_string(s, metric) : 0;
	uint32_t note_s = note ? spool_string(s, note) : 0;
	struct kg_raw_hw_device *r = spool_reserve(s, KG_RAW_HW_DEVICE, sizeof(*r));
	if (r) {
		r->interval_ns = hw.interval;
		r->device = device;
		r->figure = figure;
		r->metric_str = metric_s;
		r->note_str = note_s;
		r->state = state;
	}
	spool_flush(s);
	pthread_mutex_unlock(&s->lock);
}

/* The device will not be sampled (or stops being sampled): the trace says why. */
static void refuse(int device, int state, const char *what, CUptiResult r)
{
	char note[512];
	const char *hint = r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
				   ? " (GPU counters are restricted to admin users: see NVIDIA's "
				     "ERR_NVGPUCTRPERM page, or run as root)"
			   : r == CUPTI_ERROR_INVALID_OPERATION
				   ? " (another profiler or process is sampling this GPU)"
			   : r == CUPTI_ERROR_NOT_SUPPORTED ? " (this GPU or driver does not support it)"
							    : "";
	snprintf(note, sizeof(note), "%s: %s%s", what, err_text(r), hint);
	write_device_record(device, UINT32_MAX, NULL, state, note);
	say(1, "no hardware samples on device %d: %s", device, note);
}

static void flush_batch(int device, struct hw_dev *d)
{
	if (!d->n_batch)
		return;
	size_t per = kg_raw_hw_sample_bytes(KG_HW_N);
	uint32_t size = (uint32_t)(sizeof(struct kg_raw_hw_samples) + per * (size_t)d->n_batch);
	struct kg_spool *s = hw.spool;
	pthread_mutex_lock(&s->lock);
	struct kg_raw_hw_samples *r = spool_reserve(s, KG_RAW_HW_SAMPLES, size);
	if (r) {
		r->device = device;
		r->count = (uint32_t)d->n_batch;
		r->n_figures = KG_HW_N;
		r->lost = (uint32_t)(d->lost > UINT32_MAX ? UINT32_MAX : d->lost);
		d->lost = 0;
		uint8_t *p = (uint8_t *)(r + 1);
		for (int i = 0; i < d->n_batch; i++, p += per) {
			memcpy(p, &d->batch[i].start, 8);
			memcpy(p + 8, &d->batch[i].end, 8);
			memcpy(p + 16, d->batch[i].v, 4 * (size_t)KG_HW_N);
		}
	}
	spool_flush(s);
	pthread_mutex_unlock(&s->lock);
	d->n_batch = 0;
}

/* ------------------------------------------------------------------ choosing metrics */

static CUptiResult host_init(struct hw_dev *d, CUpti_Profiler_Host_Object **out)
{
	CUpti_Profiler_Host_Initialize_Params p = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
	p.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
	p.pChipName = d->chip;
	p.pCounterAvailabilityImage = d->avail;
	CUptiResult r = cuptiProfilerHostInitialize(&p);
	*out = p.pHostObject;
	return r;
}

static void host_free(CUpti_Profiler_Host_Object *host)
{
	CUpti_Profiler_Host_Deinitialize_Params p = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
	p.pHostObject = host;
	cuptiProfilerHostDeinitialize(&p);
}

/* The config image for these metrics (malloc'ed) and how many passes it needs; NULL when
 * a name is unknown to the chip. */
static uint8_t *config_image(CUpti_Profiler_Host_Object *host, const char **names, int n,
			     size_t *size, size_t *passes)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params a = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
	a.pHostObject = host;
	a.ppMetricNames = names;
	a.numMetrics = (size_t)n;
	if (cuptiProfilerHostConfigAddMetrics(&a) != CUPTI_SUCCESS)
		return NULL;
	CUpti_Profiler_Host_GetConfigImageSize_Params s = {.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
	s.pHostObject = host;
	if (cuptiProfilerHostGetConfigImageSize(&s) != CUPTI_SUCCESS || !s.configImageSize)
		return NULL;
	uint8_t *img = malloc(s.configImageSize);
	CUpti_Profiler_Host_GetConfigImage_Params g = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
	g.pHostObject = host;
	g.configImageSize = s.configImageSize;
	g.pConfigImage = img;
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
	np.configImageSize = s.configImageSize;
	np.pConfigImage = img;
	if (!img || cuptiProfilerHostGetConfigImage(&g) != CUPTI_SUCCESS ||
	    cuptiProfilerHostGetNumOfPasses(&np) != CUPTI_SUCCESS) {
		free(img);
		return NULL;
	}
	*size = s.configImageSize;
	*passes = np.numOfPasses;
	return img;
}

/* Passes these metrics need, or 0 when the chip does not know one of them. */
static size_t passes_of(struct hw_dev *d, const char **names, int n)
{
	CUpti_Profiler_Host_Object *host = NULL;
	if (host_init(d, &host) != CUPTI_SUCCESS)
		return 0;
	size_t size = 0, passes = 0;
	free(config_image(host, names, n, &size, &passes));
	host_free(host);
	return passes;
}

/* All raw counters when they fit one pass (one check: true on GH100), else each in
 * turn while the set stays at one pass. */
static void choose_metrics(struct hw_dev *d)
{
	d->n = 0;
	d->have = 0;
	for (int r = 0; r < R_COUNT; r++) {
		d->names[d->n] = raw_metric[r];
		d->raw[d->n++] = r;
	}
	if (passes_of(d, d->names, d->n) != 1) {
		d->n = 0;
		for (int r = 0; r < R_COUNT; r++) {
			d->names[d->n] = raw_metric[r];
			d->raw[d->n] = r;
			if (passes_of(d, d->names, d->n + 1) == 1)
				d->n++;
		}
	}
	for (int i = 0; i < d->n; i++)
		d->have |= 1u << d->raw[i];
}

static int figure_taken(const struct hw_dev *d, int f)
{
	return figure_needs[f] && (d->have & figure_needs[f]) == figure_needs[f] &&
	       (f != KG_HW_OCCUPANCY || d->max_warps > 0) && (f != KG_HW_DRAM_PEAK || d->peak_bps > 0);
}

/* What an SM holds and DRAM's peak, from the driver, on a thread with the context current
 * (cuCtxGetDevice and cuDeviceGetAttribute are calls the trace leaves out by default). */
static void read_device_limits(struct hw_dev *d)
{
	typedef int (*get_device_fn)(int *);
	typedef int (*get_attr_fn)(int *, int, int);
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	get_device_fn get_device = cuda ? (get_device_fn)dlsym(cuda, "cuCtxGetDevice") : NULL;
	get_attr_fn get_attr = cuda ? (get_attr_fn)dlsym(cuda, "cuDeviceGetAttribute") : NULL;
	int dev = 0, threads = 0, clock_khz = 0, bus_bits = 0;
	if (get_device && get_attr && get_device(&dev) == 0) {
		get_attr(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
		get_attr(&clock_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, dev);
		get_attr(&bus_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, dev);
	}
	if (cuda)
		dlclose(cuda);
	d->max_warps = threads > 0 ? threads / 32.0 : 0;
	/* double data rate: two transfers per memory clock */
	d->peak_bps = clock_khz > 0 && bus_bits > 0 ? 2.0 * clock_khz * 1e3 * bus_bits / 8 : 0;
}

/* ------------------------------------------------------------------ starting a device */

static CUptiResult read_chip(int device, struct hw_dev *d)
{
	CUpti_Device_GetChipName_Params c = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
	c.deviceIndex = (size_t)device;
	CUptiResult r = cuptiDeviceGetChipName(&c);
	if (r != CUPTI_SUCCESS)
		return r;
	snprintf(d->chip, sizeof(d->chip), "%s", c.pChipName ? c.pChipName : "");
	CUpti_PmSampling_GetCounterAvailability_Params a = {.structSize = CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
	a.deviceIndex = (size_t)device;
	r = cuptiPmSamplingGetCounterAvailability(&a);
	if (r != CUPTI_SUCCESS)
		return r;
	d->avail = malloc(a.counterAvailabilityImageSize);
	if (!d->avail)
		return CUPTI_ERROR_OUT_OF_MEMORY;
	a.pCounterAvailabilityImage = d->avail;
	return cuptiPmSamplingGetCounterAvailability(&a);
}

static CUptiResult init_image(struct hw_dev *d)
{
	CUpti_PmSampling_CounterDataImage_Initialize_Params p = {.structSize = CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
	p.pPmSamplingObject = d->pm;
	p.counterDataSize = d->image_size;
	p.pCounterData = d->image;
	return cuptiPmSamplingCounterDataImageInitialize(&p);
}

static CUptiResult configure(struct hw_dev *d, int device, const char **what)
{
	size_t config_size = 0, passes = 0;
	CUptiResult r;
	*what = "describing the counters";
	if ((r = host_init(d, &d->host)) != CUPTI_SUCCESS)
		return r;
	d->config = config_image(d->host, d->names, d->n, &config_size, &passes);
	if (!d->config)
		return CUPTI_ERROR_NOT_SUPPORTED;
	*what = "enabling PM sampling";
	CUpti_PmSampling_Enable_Params e = {.structSize = CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
	e.deviceIndex = (size_t)device;
	if ((r = cuptiPmSamplingEnable(&e)) != CUPTI_SUCCESS)
		return r;
	d->pm = e.pPmSamplingObject;
	*what = "configuring PM sampling";
	CUpti_PmSampling_SetConfig_Params s = {.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
	s.pPmSamplingObject = d->pm;
	s.configSize = config_size;
	s.pConfig = d->config;
	s.hardwareBufferSize = hw.gpu_buffer;
	s.samplingInterval = hw.interval;
	s.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
	s.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	r = cuptiPmSamplingSetConfig(&s);
	if (r != CUPTI_SUCCESS)
		return r;
	CUpti_PmSampling_GetCounterDataSize_Params z = {.structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
	z.pPmSamplingObject = d->pm;
	z.pMetricNames = d->names;
	z.numMetrics = (size_t)d->n;
	z.maxSamples = hw.image_samples;
	if ((r = cuptiPmSamplingGetCounterDataSize(&z)) != CUPTI_SUCCESS)
		return r;
	d->image_size = z.counterDataSize;
	d->image = calloc(1, d->image_size); /* zeroed, as CUPTI's own samples do */
	if (!d->image)
		return CUPTI_ERROR_OUT_OF_MEMORY;
	if ((r = init_image(d)) != CUPTI_SUCCESS)
		return r;
	*what = "starting PM sampling";
	CUpti_PmSampling_Start_Params st = {.structSize = CUpti_PmSampling_Start_Params_STRUCT_SIZE};
	st.pPmSamplingObject = d->pm;
	return cuptiPmSamplingStart(&st);
}

static void release(struct hw_dev *d)
{
	if (d->pm) {
		CUpti_PmSampling_Disable_Params p = {.structSize = CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
		p.pPmSamplingObject = d->pm;
		cuptiPmSamplingDisable(&p);
		d->pm = NULL;
	}
	if (d->host)
		host_free(d->host);
	d->host = NULL;
	free(d->image);
	free(d->avail);
	free(d->config);
	d->image = d->avail = d->config = NULL;
}

static void stop_before_teardown(void);

static void start_device(int device, struct hw_dev *d)
{
	const char *what = "initialising the CUPTI profiler";
	CUptiResult r = CUPTI_SUCCESS;
	if (!hw.profiler_ready) {
		CUpti_Profiler_Initialize_Params p = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
		r = cuptiProfilerInitialize(&p);
		hw.profiler_ready = r == CUPTI_SUCCESS;
	}
	if (r == CUPTI_SUCCESS) {
		what = "reading the chip's counters";
		r = read_chip(device, d);
	}
	if (r == CUPTI_SUCCESS) {
		read_device_limits(d);
		choose_metrics(d);
		if (d->n == 0) {
			what = "choosing metrics (the chip knows none of kgantt's)";
			r = CUPTI_ERROR_NOT_SUPPORTED;
		}
	}
	if (r == CUPTI_SUCCESS)
		r = configure(d, device, &what);
	if (r != CUPTI_SUCCESS) {
		refuse(device, 1, what, r);
		release(d);
		pthread_mutex_lock(&hw.lock);
		d->state = DEV_DONE;
		pthread_mutex_unlock(&hw.lock);
		return;
	}
	write_device_record(device, UINT32_MAX, d->chip, 0, NULL);
	char taken[1024] = "";
	size_t len = 0;
	for (int f = 0; f < KG_HW_N; f++) {
		if (!figure_taken(d, f))
			continue;
		char metric[256] = "";
		size_t ml = 0;
		for (int k = 0; k < R_COUNT; k++)
			if (figure_needs[f] & (1u << k))
				ml += (size_t)snprintf(metric + ml, ml < sizeof(metric) ? sizeof(metric) - ml : 0,
						       "%s%s", ml ? ", " : "", raw_metric[k]);
		write_device_record(device, (uint32_t)f, metric, 0, NULL);
		len += (size_t)snprintf(taken + len, len < sizeof(taken) ? sizeof(taken) - len : 0,
					"%s%s", len ? ", " : "", kg_hw_figure_info[f].label);
		if (len >= sizeof(taken))
			len = sizeof(taken) - 1;
	}
	say(0, "hardware samples on device %d (%s) every %llu ns: %s", device, d->chip,
	    (unsigned long long)hw.interval, taken);
	pthread_mutex_lock(&hw.lock);
	d->state = DEV_SAMPLING;
	int first = !hw.exit_hook;
	hw.exit_hook = 1;
	pthread_mutex_unlock(&hw.lock);
	if (first)
		atexit(stop_before_teardown);
}

/* ------------------------------------------------------------------ decoding */

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

/* One sample's figures from its raw counters (NaN where a counter is missing). */
static void figures_of(const struct hw_dev *d, const double *raw, double seconds, float *v)
{
	double f[KG_HW_N];
	f[KG_HW_SM_ACTIVE] = 100 * ratio(raw[R_SM_ACTIVE], raw[R_SM_ELAPSED]);
	/* warps resident per active cycle, over what an SM can hold */
	f[KG_HW_OCCUPANCY] = 100 * ratio(ratio(raw[R_WARPS], raw[R_SM_ACTIVE]), d->max_warps);
	f[KG_HW_DRAM_READ] = ratio(raw[R_DRAM_READ], seconds);
	f[KG_HW_DRAM_WRITE] = ratio(raw[R_DRAM_WRITE], seconds);
	f[KG_HW_DRAM_PEAK] = 100 * ratio(f[KG_HW_DRAM_READ] + f[KG_HW_DRAM_WRITE], d->peak_bps);
	/* the counter adds up an SM's four sub-partitions' tensor pipes: 400% when all are
	 * busy (a wmma loop on the H200 read 357%) */
	f[KG_HW_TENSOR] = 100 * ratio(raw[R_TENSOR], 4 * raw[R_SM_ELAPSED]);
	f[KG_HW_SM_CLOCK] = raw[R_CLOCK];
	f[KG_HW_PCIE_READ] = ratio(raw[R_PCIE_READ], seconds);
	f[KG_HW_PCIE_WRITE] = ratio(raw[R_PCIE_WRITE], seconds);
	f[KG_HW_NVLINK_RX] = ratio(raw[R_NVL_RX], seconds);
	f[KG_HW_NVLINK_TX] = ratio(raw[R_NVL_TX], seconds);
	/* share of the engine's active cycles spent switching contexts */
	f[KG_HW_CTXSW] = 100 * ratio(raw[R_CTXSW], raw[R_GR_ACTIVE]);
	for (int i = 0; i < KG_HW_N; i++)
		v[i] = figure_taken(d, i) && isfinite(f[i]) ? (float)f[i] : NAN;
}

static void add_sample(int device, struct hw_dev *d, size_t index)
{
	CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {.structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
	si.pPmSamplingObject = d->pm;
	si.pCounterDataImage = d->image;
	si.counterDataImageSize = d->image_size;
	si.sampleIndex = index;
	if (cuptiPmSamplingCounterDataGetSampleInfo(&si) != CUPTI_SUCCESS ||
	    si.endTimestamp <= si.startTimestamp) {
		d->lost++;
		return;
	}
	uint64_t dur = si.endTimestamp - si.startTimestamp;
	if (dur > 3 * hw.interval) { /* spans from before Start, or across a stall */
		d->lost++;
		return;
	}
	double raw[R_COUNT];
	double got[R_COUNT];
	CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
	ev.pHostObject = d->host;
	ev.pCounterDataImage = d->image;
	ev.counterDataImageSize = d->image_size;
	ev.rangeIndex = index;
	ev.ppMetricNames = d->names;
	ev.numMetrics = (size_t)d->n;
	ev.pMetricValues = got;
	if (cuptiProfilerHostEvaluateToGpuValues(&ev) != CUPTI_SUCCESS) {
		d->lost++;
		return;
	}
	for (int r = 0; r < R_COUNT; r++)
		raw[r] = NAN;
	for (int i = 0; i < d->n; i++)
		raw[d->raw[i]] = got[i];
	if (d->n_batch == HW_BATCH)
		flush_batch(device, d);
	struct hw_sample *b = &d->batch[d->n_batch++];
	b->start = (int64_t)si.startTimestamp;
	b->end = (int64_t)si.endTimestamp;
	figures_of(d, raw, (double)dur / 1e9, b->v);
}

/* Decode everything the GPU holds; a full image is evaluated, re-initialised and
 * decoded into again. Returns -1 when the device stopped working. */
static int drain_device(int device, struct hw_dev *d)
{
	for (int round = 0; round < 1000; round++) {
		CUpti_PmSampling_DecodeData_Params dd = {.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
		dd.pPmSamplingObject = d->pm;
		dd.pCounterDataImage = d->image;
		dd.counterDataImageSize = d->image_size;
		CUptiResult r = cuptiPmSamplingDecodeData(&dd);
		if (dd.overflow)
			d->lost++; /* how many is unknown: at least one */
		if (r != CUPTI_SUCCESS && r != CUPTI_ERROR_OUT_OF_MEMORY) {
			refuse(device, 2, "decoding samples", r);
			return -1;
		}
		CUpti_PmSampling_GetCounterDataInfo_Params ci = {.structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
		ci.pCounterDataImage = d->image;
		ci.counterDataImageSize = d->image_size;
		if (cuptiPmSamplingGetCounterDataInfo(&ci) != CUPTI_SUCCESS)
			return -1;
		for (size_t i = 0; i < ci.numCompletedSamples; i++)
			add_sample(device, d, i);
		if (ci.numCompletedSamples && init_image(d) != CUPTI_SUCCESS)
			return -1;
		if (dd.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
			break;
	}
	flush_batch(device, d);
	return 0;
}

static void stop_device(int device, struct hw_dev *d)
{
	CUpti_PmSampling_Stop_Params p = {.structSize = CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
	p.pPmSamplingObject = d->pm;
	cuptiPmSamplingStop(&p);
	drain_device(device, d);
	release(d);
	d->state = DEV_DONE;
}

/* ------------------------------------------------------------------ the thread */

static void *sampler_main(void *arg)
{
	if (hostsample_own_thread)
		hostsample_own_thread();
	(void)arg;
	pthread_mutex_lock(&hw.lock);
	while (!hw.stop) {
		for (int i = 0; i < HW_MAX_DEVICES; i++) {
			struct hw_dev *d = &hw.dev[i];
			if (d->state != DEV_SAMPLING)
				continue;
			pthread_mutex_unlock(&hw.lock);
			int rc = drain_device(i, d);
			pthread_mutex_lock(&hw.lock);
			if (rc < 0) {
				release(d);
				d->state = DEV_DONE;
			}
		}
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)hw.drain_ms * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		if (!hw.stop)
			pthread_cond_timedwait(&hw.wake, &hw.lock, &until);
	}
	pthread_mutex_unlock(&hw.lock);
	return NULL;
}

int hw_start(uint64_t interval_ns, struct kg_spool *spool, kg_hw_status_fn status)
{
	if (!interval_ns)
		return 0;
	hw.interval = interval_ns;
	hw.spool = spool;
	hw.status = status;
	const char *ms = getenv("KGANTT_HW_DRAIN_MS");
	hw.drain_ms = ms && atoi(ms) > 0 ? (unsigned)atoi(ms) : 50;
	/* knobs for kgantt's developers, to compare set-ups on a GPU */
	const char *setup = getenv("KGANTT_HW_SETUP");
	hw.setup_in_context_callback = setup && !strcmp(setup, "context");
	const char *mb = getenv("KGANTT_HW_BUFFER_MB");
	hw.gpu_buffer = mb && atoi(mb) > 0 ? (size_t)atoi(mb) << 20 : HW_GPU_BUFFER;
	const char *img = getenv("KGANTT_HW_IMAGE_SAMPLES");
	hw.image_samples = img && atoi(img) > 0 ? (uint32_t)atoi(img) : HW_IMAGE_SAMPLES;
	if (own_thread_start(&hw.thread, sampler_main, "kgantt-hw") != 0) {
		say(1, "no hardware samples: cannot start the sampler's thread");
		return -1;
	}
	hw.started = 1;
	return 0;
}

static void start_pending(uint32_t device)
{
	pthread_mutex_lock(&hw.lock);
	int mine = hw.dev[device].state == DEV_WANTED;
	if (mine)
		hw.dev[device].state = DEV_STARTING;
	pthread_mutex_unlock(&hw.lock);
	if (!mine)
		return;
	start_device((int)device, &hw.dev[device]); /* sets DEV_SAMPLING or DEV_DONE */
	pthread_mutex_lock(&hw.lock);
	hw.pending--;
	pthread_cond_signal(&hw.wake);
	pthread_mutex_unlock(&hw.lock);
}

void hw_device_used(uint32_t device)
{
	if (!hw.started || device >= HW_MAX_DEVICES)
		return;
	pthread_mutex_lock(&hw.lock);
	int fresh = hw.dev[device].state == DEV_UNUSED;
	if (fresh) {
		hw.dev[device].state = DEV_WANTED;
		hw.pending++;
	}
	pthread_mutex_unlock(&hw.lock);
	if (fresh && hw.setup_in_context_callback)
		start_pending(device);
}

/* Sampling is set up on a program thread that has the device's context current and
 * fully made: at the exit of its first launch, allocation or copy on that device. On the
 * H200, cuptiProfilerInitialize on another thread while the program ran crashed inside
 * libnvperf_host (NVPW_CUDA_LoadDriver), and decoding crashed when sampling had been set
 * up inside the context-creation callback. It costs that thread a few hundred
 * milliseconds, once per device. */
void hw_on_api_exit(CUcontext ctx)
{
	if (!hw.started || !__atomic_load_n(&hw.pending, __ATOMIC_RELAXED) || !ctx)
		return;
	uint32_t device = 0;
	if (cuptiGetDeviceId(ctx, &device) == CUPTI_SUCCESS && device < HW_MAX_DEVICES)
		start_pending(device);
}

/* Ends sampling: the thread first (given 2 s: a decoder stuck in CUPTI is left alone, and
 * so are the counters), then each device is stopped, drained and released. Once. */
void hw_stop(void)
{
	pthread_mutex_lock(&hw.lock);
	int started = hw.started;
	hw.started = 0;
	hw.stop = 1;
	pthread_cond_signal(&hw.wake);
	pthread_mutex_unlock(&hw.lock);
	if (!started)
		return;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 2;
	if (pthread_timedjoin_np(hw.thread, NULL, &until) != 0) {
		say(1, "hardware samples: the decoder did not stop; the last samples are lost");
		return;
	}
	for (int i = 0; i < HW_MAX_DEVICES; i++)
		if (hw.dev[i].state == DEV_SAMPLING)
			stop_device(i, &hw.dev[i]);
}

/* Registered when the first device starts sampling, from a program thread after the CUDA
 * runtime set itself up: exit handlers run last-registered first, so this one runs before
 * the runtime's own teardown. On the H200, stopping and decoding after that teardown (in
 * the recorder's exit handler, registered at cuInit) crashed inside libnvperf_host. */
static void stop_before_teardown(void)
{
	hw_stop();
}

void hw_subscribe(CUpti_SubscriberHandle sub)
{
	static const CUpti_CallbackId runtime[] = {
		CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
		CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
		CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
		CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
		CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
		CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
		CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
		CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
	};
	static const CUpti_CallbackId driver[] = {
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,   CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
	};
	for (size_t i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++)
		cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, runtime[i]);
	for (size_t i = 0; i < sizeof(driver) / sizeof(driver[0]); i++)
		cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, driver[i]);
}
