// nvtx.cu — NVTX annotations around GPU work.
//
//   nvtx            (no modes)
//
// A toy training loop of STEPS steps, annotated with NVTX v3 (header-only: it finds the
// tool through NVTX_INJECTION64_PATH at run time, no library to link):
//   whole_run   nvtxRangeStartA / nvtxRangeEnd around everything     (1)
//   step        nvtxRangePushA / Pop, one per step                     (STEPS)
//     forward   nested in step: 2 x nvtx_forward kernels               (STEPS)
//     backward  nested in step: 2 x nvtx_backward kernels              (STEPS)
//   halfway     one nvtxMarkA (an instant, not a range) after step 2
// Each step ends with a stream synchronize inside its `step` range, so that on the chart
// a step range covers its kernels' execution, not only their launches. Kernels ~0.5 ms
// each; the whole run ~10 ms of GPU work.
#include "common.h"

#include <nvtx3/nvToolsExt.h>

enum { STEPS = 5, PER_PHASE = 2, BLOCK = 256 };

// ~0.5 ms each on an H200 (one full wave, ~22 cycles per iteration per thread).
static const int ITERS = 45000;

__global__ void nvtx_forward(float *act, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    act[i] = burn(act[i], iters);
}

__global__ void nvtx_backward(float *act, float *grad, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    grad[i] = burn(act[i] + grad[i], iters);
}

int main(int argc, char **argv)
{
    if (argc != 1) {
        fprintf(stderr, "usage: %s   (no arguments)\n", argv[0]);
        return 2;
    }

    const int grid = full_wave_grid((const void *)nvtx_forward, BLOCK);
    const size_t n = (size_t)grid * BLOCK;
    float *act = NULL, *grad = NULL;
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&act, n * sizeof(float)));
    CHECK(cudaMalloc(&grad, n * sizeof(float)));
    CHECK(cudaMemsetAsync(act, 0, n * sizeof(float), stream));
    CHECK(cudaMemsetAsync(grad, 0, n * sizeof(float), stream));
    CHECK(cudaStreamSynchronize(stream));

    long long forwards = 0, backwards = 0, steps = 0, fwd_ranges = 0, bwd_ranges = 0;
    double t0 = now_ms();
    nvtxRangeId_t whole = nvtxRangeStartA("whole_run");
    for (int s = 0; s < STEPS; s++) {
        nvtxRangePushA("step");
        steps++;

        nvtxRangePushA("forward");
        fwd_ranges++;
        for (int k = 0; k < PER_PHASE; k++) {
            nvtx_forward<<<grid, BLOCK, 0, stream>>>(act, ITERS);
            CHECK_LAUNCH();
            forwards++;
        }
        nvtxRangePop();  // forward

        nvtxRangePushA("backward");
        bwd_ranges++;
        for (int k = 0; k < PER_PHASE; k++) {
            nvtx_backward<<<grid, BLOCK, 0, stream>>>(act, grad, ITERS);
            CHECK_LAUNCH();
            backwards++;
        }
        nvtxRangePop();  // backward

        CHECK(cudaStreamSynchronize(stream));
        nvtxRangePop();  // step

        if (s == 1) nvtxMarkA("halfway");
    }
    CHECK(cudaDeviceSynchronize());
    nvtxRangeEnd(whole);
    fprintf(stderr, "nvtx: %d steps in %.2f ms\n", STEPS, now_ms() - t0);

    CHECK(cudaFree(act));
    CHECK(cudaFree(grad));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaDeviceSynchronize());

    EXPECT_KERNEL(nvtx_forward, forwards);
    EXPECT_KERNEL(nvtx_backward, backwards);
    expect_memset(2);
    expect_nvtx("whole_run", 1);
    expect_nvtx("step", steps);
    expect_nvtx("forward", fwd_ranges);
    expect_nvtx("backward", bwd_ranges);
    return 0;
}
