// occupancy_probe — ground truth for kgantt's occupancy calculator.
//
// Prints, on stdout:
//   '#' comment lines: the device properties the calculator needs, then one line per kernel
//   with its cudaFuncGetAttributes values and its cudaOccupancyMaxPotentialBlockSize answer;
//   a CSV header line, then one row per kernel x block size x dynamic shared memory:
//     kernel,regs_per_thread,static_smem,dynamic_smem,block_size,max_active_blocks_per_sm
//   where the last column is cudaOccupancyMaxActiveBlocksPerMultiprocessor's answer.
//
// Register counts and static shared memory are read from the loaded kernels
// (cudaFuncGetAttributes), never assumed. Block sizes above a kernel's maxThreadsPerBlock are
// skipped. Dynamic shared memory sizes are tried in ascending order; when static + dynamic
// exceeds sharedMemPerBlock (48 KiB) the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize
// is raised to exactly that dynamic size first (the attribute stays raised for the later,
// larger sizes, as in a real program). Combinations the runtime rejects are skipped with a
// '# skip' comment line; such notes, and the attribute raises, are printed as '#' lines after
// the last CSV row, so the rows form one block. Kernels are never launched.
//
// Build: make gpu-probes   (tests/gpu/gpu.mk)     Run: build/tests/gpu/occupancy_probe > occ.csv
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <cstdarg>
#include <string>

// N independent accumulators, all live across a runtime-length loop: register use grows with N.
template <int N>
__device__ __forceinline__ void acc_body(const float *__restrict__ in, float *__restrict__ out, int iters)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float a[N];
#pragma unroll
    for (int i = 0; i < N; ++i)
        a[i] = in[tid + i];
    const float s = in[tid + N];
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int i = 0; i < N; ++i)
            a[i] = fmaf(a[i], s, a[(i + 1) % N] + (float)it);
    }
    float r = 0.f;
#pragma unroll
    for (int i = 0; i < N; ++i)
        r += a[i] * (float)(i + 1);
    out[tid] = r;
}

template <int N>
__global__ void acc_kernel(const float *__restrict__ in, float *__restrict__ out, int iters)
{
    acc_body<N>(in, out, iters);
}

// Same heavy body, but launch bounds cap the block at 256 threads (maxThreadsPerBlock = 256).
__global__ void __launch_bounds__(256) acc128_lb256(const float *__restrict__ in, float *__restrict__ out, int iters)
{
    acc_body<128>(in, out, iters);
}

// Large static shared memory: 40 KiB.
#define STATIC_SMEM_FLOATS (10 * 1024)
__global__ void static_smem_40k(const float *__restrict__ in, float *__restrict__ out)
{
    __shared__ float buf[STATIC_SMEM_FLOATS];
    for (int i = threadIdx.x; i < STATIC_SMEM_FLOATS; i += blockDim.x)
        buf[i] = in[blockIdx.x * STATIC_SMEM_FLOATS + i];
    __syncthreads();
    float r = 0.f;
    for (int i = threadIdx.x; i < STATIC_SMEM_FLOATS; i += blockDim.x)
        r += buf[(i * 7 + 3) % STATIC_SMEM_FLOATS];
    out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

// Comment lines produced while the CSV rows are printed are held back and printed after the
// last row, so the rows form one unbroken block under the header.
static std::string g_notes;
static void note(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_notes += buf;
}

struct Probe {
    const char *name;
    const void *func;
};

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "occupancy_probe: %s failed: %s (%s)\n", #call, cudaGetErrorName(e_), \
                    cudaGetErrorString(e_));                                                      \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

int main(void)
{
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        fprintf(stderr, "occupancy_probe: no CUDA device (%s)\n", e != cudaSuccess ? cudaGetErrorString(e) : "count 0");
        return 1;
    }
    int dev = 0;
    CHECK(cudaSetDevice(dev));
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, dev));
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);

    printf("# occupancy_probe runtime=%d driver=%d device=%d\n", rt, drv, dev);
    printf("# name=%s\n", p.name);
    printf("# cc=%d.%d\n", p.major, p.minor);
    printf("# multiProcessorCount=%d\n", p.multiProcessorCount);
    printf("# maxThreadsPerMultiProcessor=%d\n", p.maxThreadsPerMultiProcessor);
    printf("# maxBlocksPerMultiProcessor=%d\n", p.maxBlocksPerMultiProcessor);
    printf("# regsPerMultiprocessor=%d\n", p.regsPerMultiprocessor);
    printf("# regsPerBlock=%d\n", p.regsPerBlock);
    printf("# sharedMemPerMultiprocessor=%zu\n", (size_t)p.sharedMemPerMultiprocessor);
    printf("# sharedMemPerBlock=%zu\n", (size_t)p.sharedMemPerBlock);
    printf("# sharedMemPerBlockOptin=%zu\n", (size_t)p.sharedMemPerBlockOptin);
    printf("# reservedSharedMemPerBlock=%zu\n", (size_t)p.reservedSharedMemPerBlock);
    printf("# warpSize=%d\n", p.warpSize);
    printf("# maxThreadsPerBlock=%d\n", p.maxThreadsPerBlock);

    const Probe probes[] = {
        {"acc4", (const void *)acc_kernel<4>},
        {"acc16", (const void *)acc_kernel<16>},
        {"acc32", (const void *)acc_kernel<32>},
        {"acc48", (const void *)acc_kernel<48>},
        {"acc64", (const void *)acc_kernel<64>},
        {"acc96", (const void *)acc_kernel<96>},
        {"acc128", (const void *)acc_kernel<128>},
        {"acc128_lb256", (const void *)acc128_lb256},
        {"static_smem_40k", (const void *)static_smem_40k},
    };
    const int nprobes = (int)(sizeof probes / sizeof probes[0]);
    const int blocks[] = {32, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1024};
    const int nblocks = (int)(sizeof blocks / sizeof blocks[0]);
    const size_t dyns[] = {0, 1024, 8192, 32768, 49152, 100 * 1024};
    const int ndyns = (int)(sizeof dyns / sizeof dyns[0]);

    // Per-kernel attributes first (all comment lines precede the CSV).
    cudaFuncAttributes attrs[sizeof probes / sizeof probes[0]];
    bool ok[sizeof probes / sizeof probes[0]];
    for (int k = 0; k < nprobes; ++k) {
        ok[k] = false;
        e = cudaFuncGetAttributes(&attrs[k], probes[k].func);
        if (e != cudaSuccess) {
            printf("# skip kernel=%s cudaFuncGetAttributes: %s\n", probes[k].name, cudaGetErrorName(e));
            cudaGetLastError();
            continue;
        }
        ok[k] = true;
        const cudaFuncAttributes &a = attrs[k];
        printf("# kernel=%s numRegs=%d sharedSizeBytes=%zu maxThreadsPerBlock=%d localSizeBytes=%zu "
               "maxDynamicSharedSizeBytes=%d preferredShmemCarveout=%d ptxVersion=%d binaryVersion=%d\n",
               probes[k].name, a.numRegs, (size_t)a.sharedSizeBytes, a.maxThreadsPerBlock,
               (size_t)a.localSizeBytes, a.maxDynamicSharedSizeBytes, a.preferredShmemCarveout,
               a.ptxVersion, a.binaryVersion);
        int min_grid = 0, best_block = 0;
        e = cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, probes[k].func, 0, 0);
        if (e != cudaSuccess) {
            printf("# kernel=%s cudaOccupancyMaxPotentialBlockSize error=%s\n", probes[k].name, cudaGetErrorName(e));
            cudaGetLastError();
        } else {
            printf("# kernel=%s cudaOccupancyMaxPotentialBlockSize block=%d min_grid=%d\n", probes[k].name,
                   best_block, min_grid);
        }
    }

    printf("kernel,regs_per_thread,static_smem,dynamic_smem,block_size,max_active_blocks_per_sm\n");
    int rows = 0, skipped = 0;
    for (int k = 0; k < nprobes; ++k) {
        if (!ok[k])
            continue;
        const cudaFuncAttributes &a = attrs[k];
        const size_t stat = (size_t)a.sharedSizeBytes;
        for (int d = 0; d < ndyns; ++d) {
            const size_t dyn = dyns[d];
            if (stat + dyn > (size_t)p.sharedMemPerBlockOptin) {
                note("# skip kernel=%s dynamic_smem=%zu static+dynamic exceeds sharedMemPerBlockOptin\n",
                       probes[k].name, dyn);
                skipped += nblocks;
                continue;
            }
            if (stat + dyn > (size_t)p.sharedMemPerBlock) {
                cudaFuncAttributes cur;
                int cur_max = -1;
                if (cudaFuncGetAttributes(&cur, probes[k].func) == cudaSuccess)
                    cur_max = cur.maxDynamicSharedSizeBytes;
                else
                    cudaGetLastError();
                if (cur_max < (int)dyn) {
                    e = cudaFuncSetAttribute(probes[k].func, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn);
                    if (e != cudaSuccess) {
                        note("# skip kernel=%s dynamic_smem=%zu cudaFuncSetAttribute: %s\n", probes[k].name, dyn,
                               cudaGetErrorName(e));
                        cudaGetLastError();
                        skipped += nblocks;
                        continue;
                    }
                    note("# kernel=%s cudaFuncAttributeMaxDynamicSharedMemorySize=%zu\n", probes[k].name, dyn);
                }
            }
            for (int b = 0; b < nblocks; ++b) {
                const int bs = blocks[b];
                if (bs > a.maxThreadsPerBlock) {
                    ++skipped;
                    continue;
                }
                int nb = -1;
                e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, probes[k].func, bs, dyn);
                if (e != cudaSuccess) {
                    note("# skip kernel=%s block_size=%d dynamic_smem=%zu: %s\n", probes[k].name, bs, dyn,
                           cudaGetErrorName(e));
                    cudaGetLastError();
                    ++skipped;
                    continue;
                }
                printf("%s,%d,%zu,%zu,%d,%d\n", probes[k].name, a.numRegs, stat, dyn, bs, nb);
                ++rows;
            }
        }
    }
    fputs(g_notes.c_str(), stdout);
    printf("# rows=%d skipped=%d\n", rows, skipped);
    fflush(stdout);
    return rows > 0 ? 0 : 1;
}
