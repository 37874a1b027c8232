// common.h — helpers shared by the kgantt example programs.
//
// Every example plants one GPU scheduling problem (mode `bad`) next to a twin that does
// the same work without it (mode `fixed`). kgantt records them; its validator reads the
// `kgantt-expect ...` lines these helpers print to check that the trace holds exactly the
// kernels, copies, memsets and NVTX ranges the program issued.
//
// Plain C-like C++17: no classes, no templates beyond what CUDA needs, no thrust/cub
// (those would launch kernels of their own and spoil the exact counts).
#pragma once

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// ---------------------------------------------------------------- error checking

// Wrap every CUDA runtime call: on failure print where and why, exit 1.
#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t check_err_ = (call);                                              \
        if (check_err_ != cudaSuccess) {                                              \
            fprintf(stderr, "%s:%d: CUDA error %s: %s\n  in: %s\n", __FILE__, __LINE__, \
                    cudaGetErrorName(check_err_), cudaGetErrorString(check_err_),     \
                    #call);                                                           \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

// After every kernel launch: a launch itself returns nothing, configuration errors
// (too many threads, too much shared memory) only show up in cudaGetLastError.
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

// ---------------------------------------------------------------- mode parsing

// Parse the optional single mode argument. `modes` is a NULL-terminated list; the first
// entry is the default when no argument is given. Returns the index of the chosen mode.
// Anything else (unknown mode, extra arguments) prints the usage on stderr and exits 2.
static inline int parse_mode(int argc, char **argv, const char *const *modes)
{
    int n = 0;
    while (modes[n]) n++;
    if (argc == 1) return 0;
    if (argc == 2) {
        for (int i = 0; i < n; i++)
            if (strcmp(argv[1], modes[i]) == 0) return i;
    }
    fprintf(stderr, "usage: %s [", argv[0]);
    for (int i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? "|" : "", modes[i]);
    fprintf(stderr, "]   (default: %s)\n", modes[0]);
    exit(2);
}

// ---------------------------------------------------------------- expectation lines

// One line per distinct kernel, copy kind and NVTX range name; the validator sums them
// over processes. Flushed right away so that nothing is lost if a process ends abruptly
// and so that lines of forked processes sharing one pipe do not interleave mid-line.
static inline void expect_line(const char *what, long long count)
{
    printf("kgantt-expect %s count=%lld\n", what, count);
    fflush(stdout);
}

// Pass the kernel function itself, not a string: the name printed is then the source
// identifier by construction, and a misspelt name fails to compile.
#define EXPECT_KERNEL(fn, count)                                 \
    do {                                                         \
        (void)(fn);                                              \
        expect_line("kernel=" #fn, (long long)(count));          \
    } while (0)

static inline void expect_memcpy(long long count) { expect_line("memcpy", count); }
static inline void expect_memset(long long count) { expect_line("memset", count); }

static inline void expect_nvtx(const char *range, long long count)
{
    char what[256];
    snprintf(what, sizeof what, "nvtx=%s", range);
    expect_line(what, count);
}

// ---------------------------------------------------------------- timing, devices

// Monotonic wall clock in milliseconds; the examples print how long their GPU part took
// on stderr so that the designed durations can be checked on the GPU without a tracer.
static inline double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline int sm_count(int device)
{
    int n = 0;
    CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
    return n;
}

// Theoretical occupancy of `kernel` at `block` threads and `smem` dynamic shared bytes on
// the current device: resident warps per SM over the SM's warp limit.
static inline double theoretical_occupancy(const void *kernel, int block, size_t smem, int *blocks_per_sm)
{
    int dev = 0, max_threads = 0, per_sm = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem));
    if (blocks_per_sm) *blocks_per_sm = per_sm;
    int warps_per_block = (block + 31) / 32;
    return (double)(per_sm * warps_per_block) / (double)(max_threads / 32);
}

// A grid of exactly one full wave: as many blocks of `block` threads as can be resident on
// all SMs at once. Every SM is busy and no block waits for a second wave.
static inline int full_wave_grid(const void *kernel, int block)
{
    int dev = 0, per_sm = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, 0));
    if (per_sm < 1) per_sm = 1;
    return per_sm * sm_count(dev);
}

// ---------------------------------------------------------------- device-side work

// A fixed amount of arithmetic: `iters` dependent fused multiply-adds. The result depends
// on every step (floating point fma chains cannot be folded without fast-math), so the
// compiler must execute them all, and the work is a count of operations, not a span of
// time: a kernel that is descheduled (time-slicing, sharing SMs) really takes longer,
// which is what the traces must show. x converges towards 1, so it stays finite.
//
// Rough cost on an H200 (1.98 GHz, 4 schedulers per SM, fma latency ~4 cycles):
//   - few warps per scheduler (<= 2): latency bound, ~4 cycles per iteration per warp;
//   - a full SM (64 warps): issue bound, ~1.4 issue slots per iteration (loop overhead
//     after unrolling by 8), i.e. about 22 cycles per iteration per thread.
__device__ __forceinline__ float burn(float x, int iters)
{
#pragma unroll 8
    for (int i = 0; i < iters; i++) x = fmaf(x, 0.9999f, 0.0001f);
    return x;
}
