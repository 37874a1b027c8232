// bound.cu — what the GPU's counters tell apart (kgantt record --hw).
//
//   bound [mixed]
//
// Four kernels that all look alike on a timeline — long bars, full grids — but are limited
// by different parts of the GPU, each run alone (one stream, synchronised between phases)
// so that PM samples can be attributed to it:
//   bound_copy     streams 1 GiB in and 1 GiB out (float4 loads and stores): memory-bound.
//                  The counters should show DRAM near its peak and SMs waiting on it.
//   bound_tensor   wmma 16x16x16 half-precision matrix products in registers, no memory:
//                  the tensor pipes busy, DRAM idle.
//   bound_fma      a dependent chain of FMAs, no memory: SMs busy, tensor pipes idle.
//   bound_few      the same FMA chain on 8 blocks: 8 of the SMs active (6% on an H200).
// Each phase lasts ~20 ms on an H200 so that a 100 us sampling interval gives ~200 samples.
#include "common.h"

#include <mma.h>

__global__ void bound_copy(const float4 *in, float4 *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

__global__ void bound_tensor(float *sink, int iters)
{
    using namespace nvcuda;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(a, __float2half(0.001f));
    wmma::fill_fragment(b, __float2half(0.001f));
    wmma::fill_fragment(c, 0.f);
    for (int i = 0; i < iters; i++) wmma::mma_sync(c, a, b, c);
    if (c.x[0] == 12345.f) sink[0] = c.x[0]; // never true: keeps the work
}

__global__ void bound_fma(float *sink, int iters)
{
    float x = (float)threadIdx.x, y = 1.0001f;
    for (int i = 0; i < iters; i++) x = fmaf(x, y, 0.5f);
    if (x == 12345.f) sink[0] = x;
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"mixed", NULL};
    parse_mode(argc, argv, modes);
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t n = (1ull << 30) / sizeof(float4);
    float4 *in, *out;
    float *sink;
    CHECK(cudaMalloc(&in, n * sizeof(float4)));
    CHECK(cudaMalloc(&out, n * sizeof(float4)));
    CHECK(cudaMalloc(&sink, 64));
    CHECK(cudaMemset(in, 0, n * sizeof(float4)));
    CHECK(cudaDeviceSynchronize());

    for (int i = 0; i < 40; i++) {
        bound_copy<<<sms * 8, 512>>>(in, out, n);
        CHECK_LAUNCH();
    }
    CHECK(cudaDeviceSynchronize());
    bound_tensor<<<sms * 8, 256>>>(sink, 300000);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    bound_fma<<<sms * 8, 256>>>(sink, 2000000);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    bound_fma<<<8, 256>>>(sink, 2000000);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    printf("bound: %d copies of 1 GiB, 1 tensor, 1 fma, 1 fma on 8 blocks\n", 40);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(sink));
    return 0;
}
