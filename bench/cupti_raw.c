/*
 * cupti_raw.c — the smallest useful CUPTI tracer, the baseline for bench/overhead.sh.
 *
 * Loaded by the CUDA driver through  CUDA_INJECTION64_PATH=/abs/path/libcupti_raw.so,
 * which calls InitializeInjection() during cuInit.  It enables one activity kind,
 * CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, hands CUPTI 8 MiB buffers, counts the records
 * of each completed buffer and puts the buffer back on a free list for reuse.  At exit
 * an atexit handler forces a flush (cuptiActivityFlushAll(1)) and prints one line:
 *
 *     cupti_raw: records=<N> dropped=<D> buffers=<B>
 *
 * For bench/recorder_cost.sh (what each CUPTI mechanism costs on its own), environment
 * variables add to that floor: CUPTI_RAW_KINDS=kernel,runtime,driver,memcpy,memset,sync
 * (the activity kinds; default kernel), CUPTI_RAW_LATENCY=1 (queued/submitted
 * timestamps), CUPTI_RAW_TSCB=1 (a timestamp callback reading CLOCK_MONOTONIC_RAW),
 * CUPTI_RAW_CB=runtime,driver (a callback on every function of those API domains that
 * reads the clock at entry and exit), CUPTI_RAW_API=launch (with the runtime and driver
 * kinds: every function's API record turned off but the kernel launches', as kgantt turns
 * off its trivial queries: what CUPTI's wrapping of the calls it records none of costs).
 *
 * On successful start-up it prints "cupti_raw: initialized" to stderr; overhead.sh
 * checks for that line so that a library that silently failed to load cannot pass for
 * a (suspiciously cheap) traced run.  Nothing else is printed; records are not decoded.
 */
#include <cupti.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CR_EXPORT __attribute__((visibility("default")))

enum { CR_BUF_SIZE = 8u << 20, CR_BUF_ALIGN = 8, CR_MAX_FREE = 64 };

static pthread_mutex_t cr_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *cr_free[CR_MAX_FREE];
static int cr_nfree;

static atomic_ullong cr_records;
static atomic_ullong cr_dropped;
static atomic_ullong cr_buffers;   /* buffers allocated (not reuses) */
static atomic_int cr_errors;
static int cr_initialized;

static void cr_report(const char *what, CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "unknown CUPTI error";
    fprintf(stderr, "cupti_raw: ERROR: %s failed: %s (%d)\n", what, s, (int)r);
    atomic_fetch_add(&cr_errors, 1);
}

static void CUPTIAPI cr_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    uint8_t *b = NULL;
    pthread_mutex_lock(&cr_lock);
    if (cr_nfree > 0)
        b = cr_free[--cr_nfree];
    pthread_mutex_unlock(&cr_lock);
    if (!b) {
        void *p = NULL;
        if (posix_memalign(&p, CR_BUF_ALIGN, CR_BUF_SIZE) != 0) {
            fprintf(stderr, "cupti_raw: ERROR: cannot allocate an activity buffer\n");
            atomic_fetch_add(&cr_errors, 1);
            *buffer = NULL;
            *size = 0;
            *max_records = 0;
            return;              /* CUPTI drops records and counts them */
        }
        b = p;
        atomic_fetch_add(&cr_buffers, 1);
    }
    *buffer = b;
    *size = CR_BUF_SIZE;
    *max_records = 0;            /* as many as fit */
}

static void CUPTIAPI cr_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                         size_t size, size_t valid)
{
    (void)size;
    if (!buffer)
        return;
    unsigned long long n = 0;
    CUpti_Activity *rec = NULL;
    for (;;) {
        CUptiResult r = cuptiActivityGetNextRecord(buffer, valid, &rec);
        if (r == CUPTI_SUCCESS) {
            n++;
            continue;
        }
        if (r != CUPTI_ERROR_MAX_LIMIT_REACHED)
            cr_report("cuptiActivityGetNextRecord", r);
        break;
    }
    atomic_fetch_add(&cr_records, n);

    size_t dropped = 0;
    CUptiResult r = cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped);
    if (r == CUPTI_SUCCESS)
        atomic_fetch_add(&cr_dropped, (unsigned long long)dropped);
    else
        cr_report("cuptiActivityGetNumDroppedRecords", r);

    int kept = 0;
    pthread_mutex_lock(&cr_lock);
    if (cr_nfree < CR_MAX_FREE) {
        cr_free[cr_nfree++] = buffer;
        kept = 1;
    }
    pthread_mutex_unlock(&cr_lock);
    if (!kept)
        free(buffer);
}

static void cr_at_exit(void)
{
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (r != CUPTI_SUCCESS)
        cr_report("cuptiActivityFlushAll", r);
    fprintf(stderr, "cupti_raw: records=%llu dropped=%llu buffers=%llu errors=%d\n",
            (unsigned long long)atomic_load(&cr_records),
            (unsigned long long)atomic_load(&cr_dropped),
            (unsigned long long)atomic_load(&cr_buffers), atomic_load(&cr_errors));
    fflush(stderr);
}

static uint64_t cr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static _Thread_local uint64_t cr_enter_ns, cr_sum_ns;

static void CUPTIAPI cr_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
                                 const void *data)
{
    const CUpti_CallbackData *cb = data;
    (void)ud;
    (void)dom;
    (void)cbid;
    if (cb->callbackSite == CUPTI_API_ENTER)
        cr_enter_ns = cr_now();
    else
        cr_sum_ns += cr_now() - cr_enter_ns;
}

/* Whether the comma list in variable var names word. */
static int cr_listed(const char *var, const char *word)
{
    const char *v = getenv(var);
    size_t n = strlen(word);
    for (const char *p = v; p && (p = strstr(p, word)); p += n)
        if ((p == v || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return 1;
    return 0;
}

static int cr_is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
        return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060;
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
}

/* CUPTI_RAW_API=launch: only the launches keep their API records. */
static void cr_launches_only(void)
{
    for (CUpti_CallbackId cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++)
        if (!cr_is_launch(CUPTI_CB_DOMAIN_RUNTIME_API, cbid))
            cuptiActivityEnableRuntimeApi(cbid, 0);
    for (CUpti_CallbackId cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
        if (!cr_is_launch(CUPTI_CB_DOMAIN_DRIVER_API, cbid))
            cuptiActivityEnableDriverApi(cbid, 0);
}

static int cr_extras(void)
{
    static const struct {
        const char *name;
        CUpti_ActivityKind kind;
    } kinds[] = {{"runtime", CUPTI_ACTIVITY_KIND_RUNTIME}, {"driver", CUPTI_ACTIVITY_KIND_DRIVER},
                 {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY}, {"memset", CUPTI_ACTIVITY_KIND_MEMSET},
                 {"sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION}};
    const char *tscb = getenv("CUPTI_RAW_TSCB"), *lat = getenv("CUPTI_RAW_LATENCY");
    if (tscb && *tscb == '1' && cuptiActivityRegisterTimestampCallback(cr_now) != CUPTI_SUCCESS)
        return -1;
    if (lat && *lat == '1' && cuptiActivityEnableLatencyTimestamps(1) != CUPTI_SUCCESS)
        return -1;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++)
        if (cr_listed("CUPTI_RAW_KINDS", kinds[i].name) &&
            cuptiActivityEnable(kinds[i].kind) != CUPTI_SUCCESS)
            return -1;
    if (cr_listed("CUPTI_RAW_API", "launch"))
        cr_launches_only();
    if (getenv("CUPTI_RAW_CB")) {
        CUpti_SubscriberHandle sub;
        if (cuptiSubscribe(&sub, (CUpti_CallbackFunc)cr_callback, NULL) != CUPTI_SUCCESS)
            return -1;
        if (cr_listed("CUPTI_RAW_CB", "runtime"))
            cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
        if (cr_listed("CUPTI_RAW_CB", "driver"))
            cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
    }
    return 0;
}

CR_EXPORT int InitializeInjection(void)
{
    if (cr_initialized)
        return 1;
    cr_initialized = 1;

    CUptiResult r = cuptiActivityRegisterCallbacks(cr_buffer_requested, cr_buffer_completed);
    if (r != CUPTI_SUCCESS) {
        cr_report("cuptiActivityRegisterCallbacks", r);
        return 0;
    }
    if (cr_extras() < 0) {
        fprintf(stderr, "cupti_raw: ERROR: a CUPTI_RAW_* setting was refused\n");
        return 0;
    }
    r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS) {
        cr_report("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
        return 0;
    }
    if (atexit(cr_at_exit) != 0) {
        fprintf(stderr, "cupti_raw: ERROR: atexit registration failed\n");
        return 0;
    }
    fprintf(stderr, "cupti_raw: initialized\n");
    return 1;
}
