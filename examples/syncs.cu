// syncs.cu — a synchronisation hidden in a helper function.
//
//   syncs [bad|fixed]
//
// A training-like loop of STEPS steps. Each step the host prepares its input (HOST_US of
// CPU work, as a data loader or Python would), then launches KERNELS kernels of ~KERNEL_US
// each on one stream, then calls log_progress(), a helper that a reader of the main loop
// would not suspect:
//
//   bad   log_progress() copies the step's loss to the host and waits for it with
//         cudaStreamSynchronize (the line marked "kgantt-site: sync"). The GPU drains,
//         the host returns, prepares the next step while the GPU has nothing to do, then
//         launches: every step the GPU idles HOST_US.
//   fixed log_progress() only adds the loss into a device-side accumulator; the host
//         reads it once at the end. The host prepares step i+1 while the GPU runs step i.
//
// Designed on an H200: bad ~STEPS x (HOST_US + KERNELS x KERNEL_US) = 200 x (300 + 600) µs
// = 180 ms; fixed ~STEPS x max(HOST_US, 600 µs) = 120 ms. kgantt's host-sync-stall
// finding must name this file and the marked line.
#include "common.h"

enum { STEPS = 200, KERNELS = 4, BLOCKS = 264, BLOCK = 256 };
static const double HOST_US = 300;
// ~150 µs per kernel at 2 blocks per SM: see burn()'s cost in common.h
static const int ITERS = 60000;

__global__ void syncs_step(float *x, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] = burn(x[i], iters);
}

// The loss of a step: one value per block, summed by one block.
__global__ void syncs_loss(const float *x, float *loss, float *total)
{
    __shared__ float part[BLOCK];
    float s = 0;
    for (int i = threadIdx.x; i < BLOCKS * BLOCK; i += BLOCK)
        s += x[i];
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0;
        for (int k = 0; k < BLOCK; k++)
            t += part[k];
        *loss = t;
        *total += t;
    }
}

// CPU work standing for data loading: a busy wait of `us` microseconds.
static void prepare_input(double us)
{
    double until = now_ms() + us / 1e3;
    while (now_ms() < until) {
    }
}

// What a progress logger often does: fetch the loss and print it. The copy lands in pinned
// memory, but the cudaStreamSynchronize waits for every kernel queued so far.
static float log_progress(int step, cudaStream_t s, const float *d_loss, float *h_loss, bool wait)
{
    if (!wait)
        return 0; // fixed: syncs_loss already added the loss into the device-side total
    CHECK(cudaMemcpyAsync(h_loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s)); // kgantt-site: sync
    if (step % 50 == 0)
        fprintf(stderr, "step %d loss %.3f\n", step, *h_loss);
    return *h_loss;
}

static void train(cudaStream_t s, float *d_x, float *d_loss, float *d_total, float *h_loss, bool wait)
{
    for (int step = 0; step < STEPS; step++) {
        prepare_input(HOST_US);
        for (int k = 0; k < KERNELS; k++) {
            syncs_step<<<BLOCKS, BLOCK, 0, s>>>(d_x, ITERS);
            CHECK_LAUNCH();
        }
        syncs_loss<<<1, BLOCK, 0, s>>>(d_x, d_loss, d_total);
        CHECK_LAUNCH();
        log_progress(step, s, d_loss, h_loss, wait);
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"bad", "fixed", NULL};
    const bool wait = parse_mode(argc, argv, modes) == 0;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *d_x = NULL, *d_loss = NULL, *d_total = NULL, *h_loss = NULL;
    CHECK(cudaMalloc(&d_x, sizeof(float) * BLOCKS * BLOCK));
    CHECK(cudaMalloc(&d_loss, sizeof(float)));
    CHECK(cudaMalloc(&d_total, sizeof(float)));
    CHECK(cudaMallocHost(&h_loss, sizeof(float)));
    CHECK(cudaMemsetAsync(d_x, 0, sizeof(float) * BLOCKS * BLOCK, s));
    CHECK(cudaMemsetAsync(d_total, 0, sizeof(float), s));
    CHECK(cudaStreamSynchronize(s));

    double t0 = now_ms();
    train(s, d_x, d_loss, d_total, h_loss, wait);
    float total = 0;
    CHECK(cudaMemcpyAsync(&total, d_total, sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    fprintf(stderr, "syncs %s: %.1f ms, total loss %.3f\n", wait ? "bad" : "fixed", now_ms() - t0,
            total);

    CHECK(cudaDeviceSynchronize());
    EXPECT_KERNEL(syncs_step, STEPS * KERNELS);
    EXPECT_KERNEL(syncs_loss, STEPS);
    expect_memcpy(wait ? STEPS + 1 : 1);
    expect_memset(2);
    CHECK(cudaFreeHost(h_loss));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_loss));
    CHECK(cudaFree(d_total));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
