// sm_concurrent.cu — two kernels on two streams sharing the GPU's SMs (kgantt record --sm).
//
//   sm_concurrent [half|full]
//
// Not a problem planted: where the blocks of two concurrent kernels go. Both kernels log
// each block's SM and times with include/kgantt/sm.h; `kgantt record --sm` and
// `kgantt plot --sm` show one lane per SM.
//
//   half  (default) each kernel gets SMs/2 blocks (66 on a 132-SM H200) of 128 threads, a
//         ~2 ms dependent loop per block, launched together on two non-blocking streams:
//         together they fill the GPU once, and the question is whether the scheduler
//         spreads each kernel over the SMs or packs it into half of them.
//   full  each kernel gets SMs blocks: two blocks per SM at once if the scheduler mixes
//         the kernels (stacked rows in an SM's lane), else the second kernel waits.
//
// Each mode runs 3 rounds, a cudaDeviceSynchronize after each (where the recorder reads the
// logs). Designed on an H200: ~2 ms per round (latency bound: 4 warps per SM).
#include "common.h"

#include <kgantt/sm.h>

static const int ITERS = 1000000;   // ~2 ms at 4 cycles per dependent fma, 1.98 GHz
static const int ROUNDS = 3;

__global__ void sm_concurrent_a(float *out, int iters)
{
    KGANTT_SM_BLOCK_BEGIN();
    float x = burn(threadIdx.x * 1e-3f, iters);
    if (x == 12345.f) out[blockIdx.x] = x;  // never true: keeps the loop
    KGANTT_SM_BLOCK_END();
}

__global__ void sm_concurrent_b(float *out, int iters)
{
    KGANTT_SM_BLOCK_BEGIN();
    float x = burn(threadIdx.x * 2e-3f, iters);
    if (x == 12345.f) out[blockIdx.x] = x;
    KGANTT_SM_BLOCK_END();
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"half", "full", NULL};
    int mode = parse_mode(argc, argv, modes);
    int sms = sm_count(0);
    int blocks = mode == 0 ? (sms / 2 > 0 ? sms / 2 : 1) : sms;
    float *out;
    CHECK(cudaMalloc(&out, (size_t)blocks * sizeof(float)));
    CHECK(cudaMemset(out, 0, (size_t)blocks * sizeof(float)));
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CHECK(cudaDeviceSynchronize());

    double t0 = now_ms();
    for (int r = 0; r < ROUNDS; r++) {
        sm_concurrent_a<<<blocks, 128, 0, a>>>(out, ITERS);
        CHECK_LAUNCH();
        sm_concurrent_b<<<blocks, 128, 0, b>>>(out, ITERS);
        CHECK_LAUNCH();
        CHECK(cudaDeviceSynchronize());
    }
    double ms = now_ms() - t0;
    fprintf(stderr, "sm_concurrent %s: %d SMs, 2 kernels x %d blocks x %d rounds (%d blocks): "
            "%.2f ms\n", modes[mode], sms, blocks, ROUNDS, 2 * blocks * ROUNDS, ms);
    printf("kgantt-sm-blocks %d\n", 2 * blocks * ROUNDS);
    EXPECT_KERNEL(sm_concurrent_a, ROUNDS);
    EXPECT_KERNEL(sm_concurrent_b, ROUNDS);
    expect_memset(1);
    CHECK(cudaStreamDestroy(a));
    CHECK(cudaStreamDestroy(b));
    CHECK(cudaFree(out));
    return 0;
}
