// multigpu.cu — work imbalance across GPUs.
//
//   multigpu [bad|fixed]
//
// Needs at least 2 GPUs; with fewer it prints `kgantt-skip needs 2 GPUs, found <n>` and
// exits 0. Uses every visible GPU (D of them).
//
// The work: (D + 2) units, a unit being UNIT_N elements of fixed arithmetic, processed in
// LAUNCHES kernel launches per GPU (the same number of launches on every GPU, in both
// modes; only the size of each launch differs).
//
//   bad   GPU 0 gets 3 units, every other GPU 1 unit: GPU 0 is busy ~3x as long, the others
//         idle while the host waits for GPU 0. On 2 H200s: GPU 0 ~170 ms, GPU 1 ~57 ms.
//   fixed the same (D + 2) units split evenly: every GPU busy the same time. On 2 H200s
//         ~113 ms each.
//
// One host thread drives all GPUs with asynchronous launches (one stream per GPU, issued
// round-robin so all GPUs start together), then synchronizes every device.
#include "common.h"

enum { LAUNCHES = 10, BLOCK = 256, MAX_DEV = 64 };

// 840 = lcm(1..8): a multiple of any GPU count up to 8, so the even split of (D + 2)
// units is exact (beyond that the remainder goes one element each to the first GPUs).
static const size_t UNIT_N = 840u * 16384u;  // 13.8M elements
// One unit per launch: 13.8M * 10000 fma / (~2.4e13 fma/s on a full H200) ~= 5.7 ms.
static const int ITERS = 10000;

__global__ void multigpu_work(float *out, size_t n, int iters)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = burn((float)(i & 1023) * 1e-3f, iters);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"bad", "fixed", NULL};
    const int mode = parse_mode(argc, argv, modes);

    int ndev = 0;
    cudaError_t err = cudaGetDeviceCount(&ndev);
    if (err != cudaSuccess) {
        // No GPU or no driver: treat as zero GPUs (anything worse shows up in the other
        // examples). Clear the error so it does not linger.
        fprintf(stderr, "multigpu: cudaGetDeviceCount: %s\n", cudaGetErrorString(err));
        (void)cudaGetLastError();
        ndev = 0;
    }
    if (ndev < 2) {
        printf("kgantt-skip needs 2 GPUs, found %d\n", ndev);
        fflush(stdout);
        return 0;
    }
    if (ndev > MAX_DEV) ndev = MAX_DEV;

    // Elements per launch on each GPU.
    size_t n[MAX_DEV];
    const size_t total = (size_t)(ndev + 2) * UNIT_N;
    for (int d = 0; d < ndev; d++) {
        if (mode == 0)
            n[d] = (d == 0) ? 3 * UNIT_N : UNIT_N;
        else
            n[d] = total / ndev + ((size_t)d < total % ndev ? 1 : 0);
    }

    float *out[MAX_DEV];
    int grid[MAX_DEV];
    cudaStream_t stream[MAX_DEV];
    cudaEvent_t start[MAX_DEV], stop[MAX_DEV];
    for (int d = 0; d < ndev; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&out[d], n[d] * sizeof(float)));
        CHECK(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
        CHECK(cudaEventCreate(&start[d]));
        CHECK(cudaEventCreate(&stop[d]));
        grid[d] = full_wave_grid((const void *)multigpu_work, BLOCK);
        CHECK(cudaDeviceSynchronize());
    }

    long long launched = 0;
    double t0 = now_ms();
    for (int d = 0; d < ndev; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaEventRecord(start[d], stream[d]));
    }
    for (int k = 0; k < LAUNCHES; k++) {
        for (int d = 0; d < ndev; d++) {
            CHECK(cudaSetDevice(d));
            multigpu_work<<<grid[d], BLOCK, 0, stream[d]>>>(out[d], n[d], ITERS);
            CHECK_LAUNCH();
            launched++;
        }
    }
    for (int d = 0; d < ndev; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaEventRecord(stop[d], stream[d]));
    }
    for (int d = 0; d < ndev; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaDeviceSynchronize());
    }
    fprintf(stderr, "multigpu %s: %d GPUs, %lld kernels in %.2f ms\n", modes[mode], ndev, launched,
            now_ms() - t0);
    for (int d = 0; d < ndev; d++) {
        float ms = 0;
        CHECK(cudaSetDevice(d));
        CHECK(cudaEventElapsedTime(&ms, start[d], stop[d]));
        fprintf(stderr, "multigpu %s: GPU %d: %zu elements per launch, busy %.2f ms\n", modes[mode],
                d, n[d], ms);
    }

    for (int d = 0; d < ndev; d++) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaEventDestroy(start[d]));
        CHECK(cudaEventDestroy(stop[d]));
        CHECK(cudaStreamDestroy(stream[d]));
        CHECK(cudaFree(out[d]));
        CHECK(cudaDeviceSynchronize());
    }

    EXPECT_KERNEL(multigpu_work, launched);
    return 0;
}
