// streams.cu — stream serialization.
//
//   streams [bad|fixed|busy]
//
// The work: CHAINS independent chains, each a sequence of STEPS dependent kernels that
// update that chain's own buffer. Each kernel has a small grid (SMALL_GRID blocks, far
// fewer than the H200's 132 SMs) and runs ~200 us.
//
//   bad   every kernel on the legacy default stream (stream 0): the chains are independent
//         but the stream serializes them, so at any moment one 16-block kernel runs and
//         ~88% of the SMs idle. 160 kernels x ~200 us = ~32 ms.
//   fixed the same kernels, each chain on its own cudaStreamNonBlocking stream: the eight
//         chains run side by side (8 x 16 = 128 blocks fit on 132 SMs at once). ~4 ms.
//   busy  a control for the rule: one stream, but every kernel fills the GPU (4 blocks per
//         SM), about the same total arithmetic. One stream is fine here; the rule must
//         NOT fire. ~3 ms.
#include "common.h"

enum { CHAINS = 8, STEPS = 20, BLOCK = 256, SMALL_GRID = 16 };

// One small kernel: ~200 us on an H200. With one 256-thread block per SM (2 warps per
// scheduler) the fma chain is latency bound at ~4 cycles per iteration:
// 100000 * 4 / 1.98 GHz ~= 200 us.
static const int SMALL_ITERS = 100000;

// busy: 20 kernels of 4*SMs blocks. Same thread-iterations as bad/fixed:
// 160 * 16 * 256 * 100000 = 6.55e10 ~= 20 * 528 * 256 * 24000 = 6.49e10.
// Each ~24000 * 11 cycles (8 warps per scheduler, issue bound) ~= 135 us.
enum { BUSY_KERNELS = 20, BUSY_BLOCKS_PER_SM = 4 };
static const int BUSY_ITERS = 24000;

// Each thread advances its own element by `iters` dependent steps; a chain's next kernel
// continues from where the previous left off (that is the dependency within a chain).
__global__ void streams_work(float *data, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] = burn(data[i], iters);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"bad", "fixed", "busy", NULL};
    const int mode = parse_mode(argc, argv, modes);
    const int sms = sm_count(0);

    // One buffer large enough for either layout: CHAINS slices of SMALL_GRID*BLOCK floats,
    // or one busy grid of BUSY_BLOCKS_PER_SM*sms blocks.
    size_t small_n = (size_t)SMALL_GRID * BLOCK;
    size_t busy_n = (size_t)BUSY_BLOCKS_PER_SM * sms * BLOCK;
    size_t n = CHAINS * small_n > busy_n ? CHAINS * small_n : busy_n;
    float *data = NULL;
    CHECK(cudaMalloc(&data, n * sizeof(float)));
    CHECK(cudaMemset(data, 0, n * sizeof(float)));
    CHECK(cudaDeviceSynchronize());

    cudaStream_t streams[CHAINS];
    for (int c = 0; c < CHAINS; c++) {
        // bad: every chain on the legacy default stream. fixed: one non-blocking stream per
        // chain (non-blocking so that nothing on stream 0 can implicitly serialize them).
        streams[c] = 0;
        if (mode == 1) CHECK(cudaStreamCreateWithFlags(&streams[c], cudaStreamNonBlocking));
    }

    long long launched = 0;
    double t0 = now_ms();
    if (mode == 0 || mode == 1) {
        // Issue step by step across the chains (breadth first), the order a program that
        // wants concurrency would use; in bad mode stream 0 serializes them regardless.
        for (int s = 0; s < STEPS; s++) {
            for (int c = 0; c < CHAINS; c++) {
                streams_work<<<SMALL_GRID, BLOCK, 0, streams[c]>>>(data + c * small_n, SMALL_ITERS);
                CHECK_LAUNCH();
                launched++;
            }
        }
    } else {
        // busy: one stream kept full. A created stream (not stream 0) to show that the rule
        // is about under-filled serialized kernels, not about which stream is used.
        cudaStream_t s;
        CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        int grid = BUSY_BLOCKS_PER_SM * sms;
        for (int k = 0; k < BUSY_KERNELS; k++) {
            streams_work<<<grid, BLOCK, 0, s>>>(data, BUSY_ITERS);
            CHECK_LAUNCH();
            launched++;
        }
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaStreamDestroy(s));
    }
    CHECK(cudaDeviceSynchronize());
    fprintf(stderr, "streams %s: %lld kernels in %.2f ms\n", modes[mode], launched, now_ms() - t0);

    if (mode == 1)
        for (int c = 0; c < CHAINS; c++) CHECK(cudaStreamDestroy(streams[c]));
    CHECK(cudaFree(data));
    CHECK(cudaDeviceSynchronize());

    EXPECT_KERNEL(streams_work, launched);
    expect_memset(1);
    return 0;
}
