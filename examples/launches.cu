// launches.cu — launch overhead.
//
//   launches [bad|fixed|graph]
//
// The work: CHUNKS chunks of 32 floats, updated ROUNDS times each; round r+1 of a chunk
// needs round r (the data dependency). CHUNKS * ROUNDS = 10,000 tiny updates of 32
// elements, a few fma each: microseconds of arithmetic in total.
//
//   bad   one kernel per chunk per round: 10,000 launches of 1 block x 32 threads on one
//         stream. Each kernel runs ~1-2 us, about what one launch costs the host, so the
//         GPU sits idle between kernels waiting for the next launch (launch-rate bound).
//         ~25-40 ms, mostly gaps.
//   fixed the same updates in ONE launch of a grid-stride kernel: each thread owns an
//         element and applies all ROUNDS updates to it in order. Microseconds.
//   graph the bad loop with its launch cost cut: one round (CHUNKS kernels) is captured
//         into a CUDA graph once and the graph is replayed ROUNDS times. The same 10,000
//         kernels reach the GPU, marked with a graph id. ~10-20 ms.
#include "common.h"

enum { CHUNKS = 100, ROUNDS = 100, CHUNK = 32, FUSED_BLOCK = 256 };

// The "trivial update" applied to one element per round: a few dependent fma.
static const int STEP_ITERS = 16;

// One tiny kernel: one round for one chunk (1 block of 32 threads).
__global__ void launches_step(float *chunk, int iters)
{
    chunk[threadIdx.x] = burn(chunk[threadIdx.x], iters);
}

// All rounds for all chunks in one launch. Round order per element is kept (the loop over
// rounds runs inside the thread), so the result equals that of the 10,000 launches.
__global__ void launches_fused(float *data, int n, int rounds, int iters)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x = data[i];
        for (int r = 0; r < rounds; r++) x = burn(x, iters);
        data[i] = x;
    }
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"bad", "fixed", "graph", NULL};
    const int mode = parse_mode(argc, argv, modes);

    const int n = CHUNKS * CHUNK;
    float *data = NULL;
    cudaStream_t stream;  // a created stream: graph capture is not allowed on stream 0
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&data, n * sizeof(float)));
    CHECK(cudaMemsetAsync(data, 0, n * sizeof(float), stream));
    CHECK(cudaStreamSynchronize(stream));

    long long steps = 0, fused = 0;
    double t0 = now_ms();
    if (mode == 0) {
        for (int r = 0; r < ROUNDS; r++) {
            for (int c = 0; c < CHUNKS; c++) {
                launches_step<<<1, CHUNK, 0, stream>>>(data + c * CHUNK, STEP_ITERS);
                CHECK_LAUNCH();
                steps++;
            }
        }
    } else if (mode == 1) {
        int grid = (n + FUSED_BLOCK - 1) / FUSED_BLOCK;
        launches_fused<<<grid, FUSED_BLOCK, 0, stream>>>(data, n, ROUNDS, STEP_ITERS);
        CHECK_LAUNCH();
        fused++;
    } else {
        // Capture one round. Nothing runs during capture; the launches become graph nodes
        // (in stream order, so they form a chain of CHUNKS kernel nodes).
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
        for (int c = 0; c < CHUNKS; c++) {
            launches_step<<<1, CHUNK, 0, stream>>>(data + c * CHUNK, STEP_ITERS);
            CHECK_LAUNCH();
        }
        CHECK(cudaStreamEndCapture(stream, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        for (int r = 0; r < ROUNDS; r++) {
            CHECK(cudaGraphLaunch(exec, stream));
            steps += CHUNKS;  // each replay runs every captured kernel once
        }
        CHECK(cudaStreamSynchronize(stream));
        CHECK(cudaGraphExecDestroy(exec));
        CHECK(cudaGraphDestroy(graph));
    }
    CHECK(cudaStreamSynchronize(stream));
    fprintf(stderr, "launches %s: %lld kernels in %.2f ms\n", modes[mode], steps + fused,
            now_ms() - t0);

    CHECK(cudaFree(data));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaDeviceSynchronize());

    if (steps) EXPECT_KERNEL(launches_step, steps);
    if (fused) EXPECT_KERNEL(launches_fused, fused);
    expect_memset(1);
    return 0;
}
