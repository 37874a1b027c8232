// sm_cost.cu — what include/kgantt/sm.h's macros cost per block.
//
// The same kernel with and without KGANTT_SM_BLOCK_BEGIN()/END(), timed with CUDA events
// (the median of REPS runs each, interleaved), for many tiny blocks (the macros' cost
// stands out) and for longer ones; the log's count is reset before each run so every block
// stores its record, as under `kgantt record --sm`:
//
//     sm_cost blocks=1000000 threads=128 iters=0 plain_ms=... sm_ms=... ns_per_block=... ratio=...
//
// Usage: sm_cost [REPS] (default 9). Exit status: 0, or 1 on a CUDA error.
#define KGANTT_SM_CAPACITY (1u << 20)
#include <kgantt/sm.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#define CK(call)                                                                              \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "sm_cost: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
                    cudaGetErrorString(e_));                                                  \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

__device__ __forceinline__ float work(float x, int iters)
{
    for (int i = 0; i < iters; i++) x = fmaf(x, 0.9999f, 0.0001f);
    return x;
}

__global__ void plain(float *out, int iters)
{
    float x = work(threadIdx.x * 1e-3f, iters);
    if (x == 12345.f) out[blockIdx.x] = x;
}

__global__ void logged(float *out, int iters)
{
    KGANTT_SM_BLOCK_BEGIN();
    float x = work(threadIdx.x * 1e-3f, iters);
    if (x == 12345.f) out[blockIdx.x] = x;
    KGANTT_SM_BLOCK_END();
}

static float run(bool with_log, int blocks, int threads, int iters, float *out)
{
    unsigned long long zero = 0;
    CK(cudaMemcpyToSymbol(kgantt_sm_log, &zero, sizeof(zero), offsetof(struct kgantt_sm_log, count)));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    if (with_log)
        logged<<<blocks, threads>>>(out, iters);
    else
        plain<<<blocks, threads>>>(out, iters);
    CK(cudaGetLastError());
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return ms;
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    if (reps < 1) reps = 9;
    struct { int blocks, threads, iters; } cases[] = {
        {1000000, 128, 0},      // tiny blocks: the macros' cost alone
        {1000000, 128, 100},
        {200000, 128, 2000},    // ~longer blocks
        {132 * 8, 256, 100000}, // a few long blocks
    };
    float *out;
    CK(cudaMalloc(&out, 1000000 * sizeof(float)));
    run(true, 1000, 128, 10, out);  // warm-up, both kernels loaded
    run(false, 1000, 128, 10, out);
    for (const auto &c : cases) {
        std::vector<float> p, s;
        for (int r = 0; r < reps; r++) {
            p.push_back(run(false, c.blocks, c.threads, c.iters, out));
            s.push_back(run(true, c.blocks, c.threads, c.iters, out));
        }
        float pm = median(p), sm = median(s);
        printf("sm_cost blocks=%d threads=%d iters=%d plain_ms=%.4f sm_ms=%.4f ns_per_block=%.2f "
               "ratio=%.4f\n",
               c.blocks, c.threads, c.iters, pm, sm, (sm - pm) * 1e6 / c.blocks, sm / pm);
    }
    unsigned long long count = 0;
    CK(cudaMemcpyFromSymbol(&count, kgantt_sm_log, sizeof(count), offsetof(struct kgantt_sm_log, count)));
    printf("sm_cost last_run_logged_blocks=%llu\n", count);
    CK(cudaFree(out));
    return 0;
}
