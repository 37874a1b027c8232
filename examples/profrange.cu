// profrange.cu — a capture range: only the work between cudaProfilerStart() and
// cudaProfilerStop() should be recorded with `kgantt record --capture-range
// cudaProfilerApi`. 200 warm-up kernels, then 50 "interesting" ones inside the range,
// then 200 more outside. Its expectation lines describe the range only; recorded without
// a capture range, the trace also holds the 400 profrange_outside kernels.
#include <cuda_profiler_api.h>

#include "common.h"

__global__ void profrange_outside(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}

__global__ void profrange_inside(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 2.0f - 1.0f;
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"range", NULL};
    parse_mode(argc, argv, modes);
    const int n = 1 << 20, block = 256, grid = (n + block - 1) / block;
    float *x = NULL;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMemset(x, 0, n * sizeof(float)));
    for (int i = 0; i < 200; i++) {
        profrange_outside<<<grid, block>>>(x, n);
        CHECK_LAUNCH();
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStart());
    for (int i = 0; i < 50; i++) {
        profrange_inside<<<grid, block>>>(x, n);
        CHECK_LAUNCH();
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStop());
    for (int i = 0; i < 200; i++) {
        profrange_outside<<<grid, block>>>(x, n);
        CHECK_LAUNCH();
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(x));
    EXPECT_KERNEL(profrange_inside, 50);
    printf("kgantt-outside kernel=profrange_outside count=400\n");
    return 0;
}
