// longrun.cu — a steady, long-running program for kgantt's kill test.
//
//   longrun [seconds]        (default 10)
//
// Launches ~1 ms kernels in a loop, synchronizing its stream every BATCH kernels, until
// `seconds` have passed. Every ~100 ms it prints `longrun progress <kernels launched>`
// (flushed), so a test can see it is under way before it kills it (SIGKILL) mid-run and
// check that the trace recorded so far survives. Run to the end, it prints the usual
// expectation line. About 1000 kernels per second: 10 s -> ~10,000 kernels.
#include "common.h"

#include <math.h>

enum { BLOCK = 256, BATCH = 10 };

// ~1 ms on an H200: one full wave, ~22 cycles per iteration per thread (see common.h):
// 90000 * 22 / 1.98 GHz ~= 1 ms.
static const int ITERS = 90000;
static const double PROGRESS_MS = 100.0;

__global__ void longrun_tick(float *data, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] = burn(data[i], iters);
}

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s [seconds]   (default: 10)\n", argv0);
    exit(2);
}

int main(int argc, char **argv)
{
    double seconds = 10.0;
    if (argc > 2) usage(argv[0]);
    if (argc == 2) {
        char *end = NULL;
        seconds = strtod(argv[1], &end);
        if (end == argv[1] || *end != '\0' || !isfinite(seconds) || seconds <= 0) usage(argv[0]);
    }

    const int grid = full_wave_grid((const void *)longrun_tick, BLOCK);
    float *data = NULL;
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&data, (size_t)grid * BLOCK * sizeof(float)));
    CHECK(cudaMemsetAsync(data, 0, (size_t)grid * BLOCK * sizeof(float), stream));
    CHECK(cudaStreamSynchronize(stream));

    long long launched = 0;
    const double t0 = now_ms(), t_end = t0 + seconds * 1000.0;
    double next_progress = t0 + PROGRESS_MS, now = t0;
    while (now < t_end) {
        for (int k = 0; k < BATCH; k++) {
            longrun_tick<<<grid, BLOCK, 0, stream>>>(data, ITERS);
            CHECK_LAUNCH();
            launched++;
        }
        // Keep at most BATCH kernels queued: the GPU never runs far ahead of the host,
        // so the trace at any kill time covers everything launched up to ~10 ms before.
        CHECK(cudaStreamSynchronize(stream));
        now = now_ms();
        if (now >= next_progress) {
            printf("longrun progress %lld\n", launched);
            fflush(stdout);
            next_progress = now + PROGRESS_MS;
        }
    }
    CHECK(cudaDeviceSynchronize());
    fprintf(stderr, "longrun: %lld kernels in %.2f ms\n", launched, now_ms() - t0);

    CHECK(cudaFree(data));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaDeviceSynchronize());

    EXPECT_KERNEL(longrun_tick, launched);
    expect_memset(1);
    return 0;
}
