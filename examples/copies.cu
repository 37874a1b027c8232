// copies.cu — copies that do not overlap compute.
//
//   copies [bad|fixed]
//
// The work, in BATCHES batches of BATCH_BYTES (32 MiB) each:
//   host input --HtoD--> device in;  memset device out to 0;
//   copies_compute(in -> out);       device out --DtoH--> host output.
// Per batch: 2 copies, 1 memset, 1 kernel, in both modes.
//
//   bad   pageable host memory (malloc). The HtoD cudaMemcpyAsync on the compute stream
//         cannot be asynchronous from pageable memory (the driver stages it through a
//         pinned bounce buffer and returns only when the source may be reused), the memset
//         is the synchronous cudaMemset and the DtoH is the synchronous cudaMemcpy. So
//         copy, memset, kernel and copy back run strictly one after another, the GPU
//         computes only a fraction of the time and the copy engines idle while it does.
//   fixed pinned host memory (cudaMallocHost), three non-blocking streams and two device
//         buffer slots (double buffering): the HtoD of batch i+1 (copy-in stream) runs while
//         the kernel of batch i (compute stream) runs, while the DtoH of batch i-1
//         (copy-out stream) runs. Events order the streams; one synchronize at the end.
//
// Designed on an H200 (PCIe Gen5 host link): a 32 MiB pinned copy ~0.6-0.7 ms, pageable
// ~2x-3x that; the kernel ~0.9 ms, about as long as a pinned copy so overlap matters.
// bad ~8 x (2 + 0.9 + 2) ms ~= 40 ms; fixed ~8 x 0.9 + fill/drain ~= 9 ms.
#include "common.h"

enum { BATCHES = 8, BLOCK = 256, SLOTS = 2 };
static const size_t BATCH_BYTES = 32u << 20;  // 32 MiB
static const size_t BATCH_N = BATCH_BYTES / sizeof(float);

// Arithmetic per element, chosen so the kernel lasts about as long as a pinned copy of its
// batch: 8M elements * 2500 fma / (~12000 fma per cycle on a full H200 at 1.98 GHz)
// ~= 0.9 ms.
static const int ITERS = 2500;

// out[i] += f(in[i]): accumulates into the freshly zeroed output (hence the memset).
__global__ void copies_compute(const float *in, float *out, size_t n, int iters)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] += burn(in[i], iters);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"bad", "fixed", NULL};
    const int mode = parse_mode(argc, argv, modes);
    const bool pinned = (mode == 1);
    const size_t total = (size_t)BATCHES * BATCH_BYTES;

    // Host buffers for all batches: pageable in bad, page-locked in fixed. Both are filled
    // (touched) before the timed part, so page faults do not count against either mode.
    float *h_in = NULL, *h_out = NULL;
    if (pinned) {
        CHECK(cudaMallocHost(&h_in, total));
        CHECK(cudaMallocHost(&h_out, total));
    } else {
        h_in = (float *)malloc(total);
        h_out = (float *)malloc(total);
        if (!h_in || !h_out) {
            fprintf(stderr, "copies: out of host memory\n");
            return 1;
        }
    }
    for (size_t i = 0; i < total / sizeof(float); i++) h_in[i] = (float)(i & 1023) * 1e-3f;
    memset(h_out, 0, total);

    const int grid = full_wave_grid((const void *)copies_compute, BLOCK);
    float *d_in[SLOTS], *d_out[SLOTS];
    for (int s = 0; s < SLOTS; s++) {
        CHECK(cudaMalloc(&d_in[s], BATCH_BYTES));
        CHECK(cudaMalloc(&d_out[s], BATCH_BYTES));
    }
    CHECK(cudaDeviceSynchronize());

    long long kernels = 0, copies = 0, memsets = 0;
    double t0 = now_ms();
    if (!pinned) {
        // bad: one compute stream (blocking, as cudaStreamCreate makes it) and one slot.
        cudaStream_t compute;
        CHECK(cudaStreamCreate(&compute));
        for (int b = 0; b < BATCHES; b++) {
            const float *src = h_in + (size_t)b * BATCH_N;
            float *dst = h_out + (size_t)b * BATCH_N;
            // Async in name only: from pageable memory it returns after the copy is staged.
            CHECK(cudaMemcpyAsync(d_in[0], src, BATCH_BYTES, cudaMemcpyHostToDevice, compute));
            copies++;
            // Synchronous memset on the legacy stream (waits for the compute stream, too).
            CHECK(cudaMemset(d_out[0], 0, BATCH_BYTES));
            memsets++;
            copies_compute<<<grid, BLOCK, 0, compute>>>(d_in[0], d_out[0], BATCH_N, ITERS);
            CHECK_LAUNCH();
            kernels++;
            // Synchronous copy back: the host waits for the kernel, then for the copy.
            CHECK(cudaMemcpy(dst, d_out[0], BATCH_BYTES, cudaMemcpyDeviceToHost));
            copies++;
        }
        CHECK(cudaStreamDestroy(compute));
    } else {
        // fixed: three streams, two slots. For batch b in slot s = b % 2:
        //   copy-in : wait until the kernel of batch b-2 is done reading d_in[s]; HtoD;
        //             record in_ready[s].
        //   compute : wait in_ready[s] and until the DtoH of batch b-2 has drained d_out[s];
        //             memset d_out[s]; kernel; record computed[s].
        //   copy-out: wait computed[s]; DtoH; record drained[s].
        // cudaStreamWaitEvent waits for the event's most recent record at the time of the
        // call, which here is batch b-2's; an event never recorded (b < 2) waits for nothing.
        cudaStream_t copy_in, compute, copy_out;
        CHECK(cudaStreamCreateWithFlags(&copy_in, cudaStreamNonBlocking));
        CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
        CHECK(cudaStreamCreateWithFlags(&copy_out, cudaStreamNonBlocking));
        cudaEvent_t in_ready[SLOTS], computed[SLOTS], drained[SLOTS];
        for (int s = 0; s < SLOTS; s++) {
            CHECK(cudaEventCreateWithFlags(&in_ready[s], cudaEventDisableTiming));
            CHECK(cudaEventCreateWithFlags(&computed[s], cudaEventDisableTiming));
            CHECK(cudaEventCreateWithFlags(&drained[s], cudaEventDisableTiming));
        }
        for (int b = 0; b < BATCHES; b++) {
            const int s = b % SLOTS;
            const float *src = h_in + (size_t)b * BATCH_N;
            float *dst = h_out + (size_t)b * BATCH_N;

            CHECK(cudaStreamWaitEvent(copy_in, computed[s], 0));
            CHECK(cudaMemcpyAsync(d_in[s], src, BATCH_BYTES, cudaMemcpyHostToDevice, copy_in));
            copies++;
            CHECK(cudaEventRecord(in_ready[s], copy_in));

            CHECK(cudaStreamWaitEvent(compute, in_ready[s], 0));
            CHECK(cudaStreamWaitEvent(compute, drained[s], 0));
            CHECK(cudaMemsetAsync(d_out[s], 0, BATCH_BYTES, compute));
            memsets++;
            copies_compute<<<grid, BLOCK, 0, compute>>>(d_in[s], d_out[s], BATCH_N, ITERS);
            CHECK_LAUNCH();
            kernels++;
            CHECK(cudaEventRecord(computed[s], compute));

            CHECK(cudaStreamWaitEvent(copy_out, computed[s], 0));
            CHECK(cudaMemcpyAsync(dst, d_out[s], BATCH_BYTES, cudaMemcpyDeviceToHost, copy_out));
            copies++;
            CHECK(cudaEventRecord(drained[s], copy_out));
        }
        CHECK(cudaDeviceSynchronize());  // the one synchronization
        for (int s = 0; s < SLOTS; s++) {
            CHECK(cudaEventDestroy(in_ready[s]));
            CHECK(cudaEventDestroy(computed[s]));
            CHECK(cudaEventDestroy(drained[s]));
        }
        CHECK(cudaStreamDestroy(copy_in));
        CHECK(cudaStreamDestroy(compute));
        CHECK(cudaStreamDestroy(copy_out));
    }
    CHECK(cudaDeviceSynchronize());
    fprintf(stderr, "copies %s: %d batches of %zu MiB in %.2f ms\n", modes[mode], BATCHES,
            BATCH_BYTES >> 20, now_ms() - t0);

    // A cheap sanity check that the results came back (same value in both modes).
    double sum = 0;
    for (size_t i = 0; i < total / sizeof(float); i += 4099) sum += h_out[i];
    fprintf(stderr, "copies %s: checksum %.6f\n", modes[mode], sum);

    for (int s = 0; s < SLOTS; s++) {
        CHECK(cudaFree(d_in[s]));
        CHECK(cudaFree(d_out[s]));
    }
    if (pinned) {
        CHECK(cudaFreeHost(h_in));
        CHECK(cudaFreeHost(h_out));
    } else {
        free(h_in);
        free(h_out);
    }
    CHECK(cudaDeviceSynchronize());

    EXPECT_KERNEL(copies_compute, kernels);
    expect_memcpy(copies);
    expect_memset(memsets);
    return 0;
}
