// occupancy.cu — low occupancy and under-filled grids.
//
//   occupancy [bad|fixed]
//
// Two kernels, the same work in both modes, only the launch configuration differs.
//
// occupancy_tile: a shared-memory tile kernel. Each block stages a TILE of 4096 floats
//   (16 KiB of static shared memory, whatever the block size) and every thread then walks
//   a dependent chain of shared-memory reads for each of its elements. Its speed depends on
//   how many warps each SM holds to hide that latency.
//     bad   32-thread blocks, one block per tile (4096 blocks). A block is one warp, and the
//           shared memory caps residency at floor(228 KiB / (16 KiB + 1 KiB reserved)) =
//           13 blocks per SM: 13 of 64 warps, theoretical occupancy ~20%.
//     fixed the block size cudaOccupancyMaxPotentialBlockSize picks (1024 expected: 2 blocks
//           per SM = 64 warps, 100%) and one full wave of blocks (SMs x blocks per SM),
//           each looping over tiles.
//   Designed on an H200: fixed ~4 ms (issue bound, ~2 cycles per warp-step per SM);
//   bad ~11 ms (13 warps cannot hide a ~55-cycle step, and 4096 blocks / 1716 resident
//   slots = 2.4 waves).
//
// occupancy_grid: a grid-stride arithmetic kernel.
//     bad   40 blocks of 256 threads: fewer blocks than the H200's 132 SMs, so 92 SMs idle
//           for the whole kernel. Its theoretical occupancy is fine (100%: 8 blocks of 8
//           warps could be resident per SM), but 40 SMs hold 8 warps each and the rest none.
//     fixed MaxPotentialBlockSize's block (1024 expected, 13 registers: 2 blocks per SM,
//           100%) and one full wave over all SMs (264 blocks).
//   Designed on an H200: fixed ~0.7 ms, bad ~3.5 ms.
//
// Both variants' theoretical occupancy is computed with
// cudaOccupancyMaxActiveBlocksPerMultiprocessor and printed on stderr.
#include "common.h"

enum { TILE = 4096 };                       // floats per tile: 16 KiB of shared memory
static const size_t TILE_N = 16u << 20;     // 16M floats (64 MiB) = 4096 tiles
static const int TILE_ITERS = 1024;         // dependent shared-memory steps per element
static const size_t GRID_N = 4u << 20;      // 4M floats for occupancy_grid
static const int GRID_ITERS = 4096;         // fma per element for occupancy_grid
enum { BAD_TILE_BLOCK = 32, BAD_GRID_BLOCKS = 40, BAD_GRID_BLOCK = 256 };

// Each step's shared-memory address depends on the value just read (through its sign bit,
// which is always 0 here since all values stay positive, but the compiler cannot know),
// so every thread waits for one shared load per step: latency bound, and only more
// resident warps hide it. Lanes of a warp read consecutive words: no bank conflicts.
__global__ void occupancy_tile(const float *in, float *out, int ntiles, int iters)
{
    __shared__ float tile[TILE];
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const float *src = in + (size_t)t * TILE;
        for (int j = threadIdx.x; j < TILE; j += blockDim.x) tile[j] = src[j];
        __syncthreads();
        for (int j = threadIdx.x; j < TILE; j += blockDim.x) {
            float acc = tile[j];
            int idx = j;
            for (int k = 0; k < iters; k++) {
                idx = (idx + 32 + (__float_as_int(acc) >> 31)) & (TILE - 1);
                acc = fmaf(acc, 0.5f, tile[idx]);
            }
            out[(size_t)t * TILE + j] = acc;
        }
        __syncthreads();  // the tile is overwritten by the next iteration
    }
}

__global__ void occupancy_grid(float *data, size_t n, int iters)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        data[i] = burn(data[i], iters);
}

static void report(const char *mode, const char *kernel, const void *fn, int block, int grid)
{
    int per_sm = 0;
    double occ = theoretical_occupancy(fn, block, 0, &per_sm);
    fprintf(stderr,
            "occupancy %s: %s <<<%d, %d>>>: %d blocks/SM resident, theoretical occupancy %.1f%%\n",
            mode, kernel, grid, block, per_sm, occ * 100.0);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"bad", "fixed", NULL};
    const int mode = parse_mode(argc, argv, modes);
    const int sms = sm_count(0);
    const int ntiles = (int)(TILE_N / TILE);

    // Same in both modes: prefer the largest shared-memory carveout for the tile kernel, so
    // that residency is limited by the 228 KiB an SM has, deterministically, and the
    // occupancy calculator and the hardware agree.
    CHECK(cudaFuncSetAttribute((const void *)occupancy_tile,
                               cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared));

    int tile_block, tile_grid, grid_block, grid_grid;
    if (mode == 0) {
        tile_block = BAD_TILE_BLOCK;
        tile_grid = ntiles;  // one 32-thread block per tile
        grid_block = BAD_GRID_BLOCK;
        grid_grid = BAD_GRID_BLOCKS;  // < 132 SMs
    } else {
        int min_grid = 0, per_sm = 0;
        CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &tile_block, occupancy_tile, 0, 0));
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, occupancy_tile, tile_block, 0));
        tile_grid = sms * per_sm;  // one full wave; blocks loop over the tiles
        if (tile_grid > ntiles) tile_grid = ntiles;
        CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &grid_block, occupancy_grid, 0, 0));
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, occupancy_grid, grid_block, 0));
        grid_grid = sms * per_sm;
    }
    report(modes[mode], "occupancy_tile", (const void *)occupancy_tile, tile_block, tile_grid);
    report(modes[mode], "occupancy_grid", (const void *)occupancy_grid, grid_block, grid_grid);

    float *in = NULL, *out = NULL;
    CHECK(cudaMalloc(&in, TILE_N * sizeof(float)));
    CHECK(cudaMalloc(&out, TILE_N * sizeof(float)));
    // Every byte 0x3c: each float reads 0x3c3c3c3c ~= 0.0115, positive as the kernel wants.
    CHECK(cudaMemset(in, 0x3c, TILE_N * sizeof(float)));
    CHECK(cudaDeviceSynchronize());

    cudaEvent_t e0, e1, e2;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventCreate(&e2));
    CHECK(cudaEventRecord(e0, 0));
    occupancy_tile<<<tile_grid, tile_block>>>(in, out, ntiles, TILE_ITERS);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(e1, 0));
    occupancy_grid<<<grid_grid, grid_block>>>(out, GRID_N, GRID_ITERS);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(e2, 0));
    CHECK(cudaDeviceSynchronize());

    float ms_tile = 0, ms_grid = 0;
    CHECK(cudaEventElapsedTime(&ms_tile, e0, e1));
    CHECK(cudaEventElapsedTime(&ms_grid, e1, e2));
    fprintf(stderr, "occupancy %s: occupancy_tile %.2f ms, occupancy_grid %.2f ms\n", modes[mode],
            ms_tile, ms_grid);

    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    CHECK(cudaEventDestroy(e2));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaDeviceSynchronize());

    EXPECT_KERNEL(occupancy_tile, 1);
    EXPECT_KERNEL(occupancy_grid, 1);
    expect_memset(1);
    return 0;
}
