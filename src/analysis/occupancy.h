/* Theoretical occupancy: how many blocks of a kernel fit on one SM at once, and which
 * resource stops the next one. The same arithmetic as CUDA's occupancy calculator
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor, cuda_occupancy.h), for compute
 * capabilities 7.0 to 12.x; checked against every row of tests/fixtures/h200/
 * occupancy_h200.csv, measured on an H200.
 *
 *   struct kg_occ_device d = { 9, 0, 132, 64, 32, 1024, 65536, 65536, 233472, 0, 32 };
 *   struct kg_occ_kernel k = { 256, 40, 0, 49152 };
 *   struct kg_occ_result r;
 *   if (occupancy_compute(&d, &k, &r) == 0)
 *           printf("%d blocks/SM, %.0f%%, bound by %s\n", r.blocks_per_sm,
 *                  100 * r.occupancy, occupancy_limit_name(r.limiter));
 *
 * Functions return 0 or a negative errno-style code: -EINVAL for a bad argument (a
 * field <= 0, or beyond any GPU's: counts above 65536, registers or bytes of shared
 * memory above 2^28; a block of 0 or more than max_threads_per_block threads, more than
 * 255 registers per thread, more shared memory than one block may have), -ENOTSUP for a
 * compute capability this file has no constants for. Nothing is allocated; no state. */
#ifndef KGANTT_OCCUPANCY_H
#define KGANTT_OCCUPANCY_H

/* One GPU, as the trace's devices table describes it. */
struct kg_occ_device {
	int cc_major, cc_minor;
	int sm_count;
	int max_warps_per_sm;      /* 64 on H200 */
	int max_blocks_per_sm;     /* 32 */
	int max_threads_per_block; /* 1024 */
	int regs_per_sm;           /* 65536 */
	int max_regs_per_block;    /* 65536 */
	int smem_per_sm;           /* 233472 on H200 (CUPTI's maxSharedMemoryPerMultiprocessor) */
	int smem_per_block_optin;  /* 232448 on H200; 0 = unknown: derive from cc */
	int warp_size;             /* 32 */
};

/* One launch. Shared memory in bytes, without the driver's reserved share (added here). */
struct kg_occ_kernel {
	int block_threads, regs_per_thread, smem_static, smem_dynamic;
	/* The shared memory configuration (carveout) per SM the kernel ran with, bytes: the
	 * trace's shared_mem_executed. 0 = unknown: assume the driver's default, the largest
	 * configuration, as the CUDA occupancy API does. A value too small for one block is
	 * raised to the smallest configuration that holds one, as the driver does. */
	int smem_config;
};

/* Ties between limits are reported as the first in this order. */
enum kg_occ_limit {
	KG_OCC_LIMIT_WARPS,
	KG_OCC_LIMIT_REGISTERS,
	KG_OCC_LIMIT_SMEM,
	KG_OCC_LIMIT_BLOCKS,
	KG_OCC_LIMIT_INVALID
};

struct kg_occ_result {
	int blocks_per_sm;         /* resident blocks per SM, the minimum of the limits */
	int warps_per_sm;
	double occupancy;          /* warps_per_sm / max_warps_per_sm, 0..1 */
	enum kg_occ_limit limiter; /* which resource bounds it */
	/* Blocks per SM each limit alone allows; INT_MAX when the kernel uses none of that
	 * resource (no registers; no shared memory before cc 8.0). by_regs is 0 when one
	 * block needs more registers than a block may have: such a launch fails. */
	int by_warps, by_regs, by_smem, by_blocks;
	int smem_per_block;        /* bytes allocated per block: static + dynamic + reserved,
				    * rounded up to the allocation unit */
	int smem_config;           /* the carveout per SM the smem limit was computed with */
};

int occupancy_compute(const struct kg_occ_device *d, const struct kg_occ_kernel *k,
		      struct kg_occ_result *r);

/* The block size that maximises occupancy (resident threads per SM) for this kernel's
 * registers and static + dynamic shared memory, as cudaOccupancyMaxPotentialBlockSize
 * with a constant dynamic size: multiples of the warp size from the largest down, ties
 * going to the larger block. max_block is the kernel's own limit (cudaFuncAttributes::
 * maxThreadsPerBlock, lowered by __launch_bounds__); <= 0 = the device's. *min_grid is
 * the grid that fills the device once: blocks_per_sm * sm_count. -ERANGE when no block
 * size fits at all. */
int occupancy_best_block(const struct kg_occ_device *d, int regs_per_thread, int smem_static,
			 int smem_dynamic, int max_block, int *block, int *min_grid);

/* Waves: blocks / (sm_count * blocks_per_sm). 0 when that is undefined (no block fits,
 * bad arguments). */
double occupancy_waves(const struct kg_occ_device *d, const struct kg_occ_result *r,
		       long long blocks);

/* "warps", "registers", "shared memory", "blocks"; "invalid" for anything else. */
const char *occupancy_limit_name(enum kg_occ_limit l);

#endif
