// sm_tailwave.cu — a tail wave: the last wave of blocks leaves most SMs idle
// (kgantt record --sm shows it per SM).
//
//   sm_tailwave [bad|fixed]
//
// sm_tailwave_work takes the most dynamic shared memory a block may have (opt-in, 227 KiB
// on an H200), so only one block fits on an SM at a time: a wave is SMs blocks.
//   bad    2.25 waves (297 blocks on 132 SMs), ~1 ms of dependent arithmetic per block:
//          two full waves, then a third of 33 blocks during which 99 SMs idle; the kernel
//          takes three block times for 2.25 of work (~3 ms).
//   fixed  the same total arithmetic in exactly 2 waves: 2 x SMs blocks, each doing 1.125
//          times the work (~2.25 ms).
// The blocks per SM (1 expected) are printed on stderr. Two launches, a
// cudaDeviceSynchronize after each (where the recorder reads the block log).
#include "common.h"

#include <kgantt/sm.h>

static const int ITERS = 500000;    // ~1 ms per block (one 256-thread block per SM)

__global__ void sm_tailwave_work(float *out, int iters)
{
    extern __shared__ float stage[];
    KGANTT_SM_BLOCK_BEGIN();
    float x = burn(threadIdx.x * 1e-3f, iters);
    stage[threadIdx.x] = x;             // the shared memory is used: it cannot be dropped
    __syncthreads();
    if (stage[(threadIdx.x + 1) % blockDim.x] == 12345.f) out[blockIdx.x] = x;
    KGANTT_SM_BLOCK_END();
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"bad", "fixed", NULL};
    int mode = parse_mode(argc, argv, modes);
    int dev = 0, smem = 0, per_sm = 0, sms = sm_count(0);
    CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CHECK(cudaFuncSetAttribute(sm_tailwave_work, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sm_tailwave_work, 256, smem));
    int waves4 = mode == 0 ? 9 : 8;     // quarter waves: 2.25 or 2
    int blocks = sms * waves4 / 4;
    int iters = mode == 0 ? ITERS : ITERS * 9 / 8;
    float *out;
    CHECK(cudaMalloc(&out, (size_t)blocks * sizeof(float)));
    CHECK(cudaMemset(out, 0, (size_t)blocks * sizeof(float)));
    CHECK(cudaDeviceSynchronize());

    double t0 = now_ms();
    for (int r = 0; r < 2; r++) {
        sm_tailwave_work<<<blocks, 256, smem>>>(out, iters);
        CHECK_LAUNCH();
        CHECK(cudaDeviceSynchronize());
    }
    double ms = now_ms() - t0;
    fprintf(stderr, "sm_tailwave %s: %d SMs, %d bytes of shared memory per block, %d block(s) "
            "per SM resident, %d blocks (%.2f waves) x %d iterations, 2 launches: %.2f ms\n",
            modes[mode], sms, smem, per_sm, blocks, blocks / (double)(sms * (per_sm ? per_sm : 1)),
            iters, ms);
    printf("kgantt-sm-blocks %d\n", 2 * blocks);
    EXPECT_KERNEL(sm_tailwave_work, 2);
    expect_memset(1);
    CHECK(cudaFree(out));
    return 0;
}
