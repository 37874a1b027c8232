/* Theoretical occupancy, after CUDA's occupancy calculator. The constants per
 * architecture and the algorithm come from cuda_occupancy.h (CUDA 13.0), the reference
 * implementation of cudaOccupancyMaxActiveBlocksPerMultiprocessor; the register and
 * shared memory rules were then checked against 516 measurements on an H200. */
#include "analysis/occupancy.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>

#define MAX_REGS_PER_THREAD 255 /* the ISA's limit since Kepler: ptxas never assigns more */

/* What the calculator needs to know about one architecture that the devices table does
 * not say. */
struct occ_arch {
	int major, minor;
	int smem_unit;      /* shared memory is allocated to a block in multiples of this */
	int smem_reserved;  /* bytes the driver reserves in every block (cc >= 8.0) */
	int reg_unit;       /* a warp's registers are allocated in multiples of this */
	int sub_partitions; /* an SM's register file is split evenly among these; a warp
			     * takes all its registers from one */
	const short *configs; /* the shared memory capacities (carveouts) one SM can be
			       * set to, KiB, ascending */
	int nconfigs;
};

/* Carveouts per architecture, from cuda_occupancy.h's cudaOccAlignUpShmemSizeVoltaPlus
 * and the CUDA programming guide's per-cc tables. */
static const short volta_configs[] = {0, 8, 16, 32, 64, 96};
static const short turing_configs[] = {32, 64};
static const short ga100_configs[] = {0, 8, 16, 32, 64, 100, 132, 164};
static const short ga10x_configs[] = {0, 8, 16, 32, 64, 100};
static const short hopper_configs[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

#define CONFIGS(a) a, (int)(sizeof(a) / sizeof(a[0]))

/* Shared memory granularity is 256 bytes before Ampere and 128 from it; Ampere also
 * introduced the 1 KiB reserved per block (reservedSharedMemPerBlock). Registers go to
 * warps in units of 256 and SMs have 4 sub-partitions on every architecture here. */
static const struct occ_arch occ_archs[] = {
	{7, 0, 256, 0, 256, 4, CONFIGS(volta_configs)},     /* V100 */
	{7, 2, 256, 0, 256, 4, CONFIGS(volta_configs)},     /* Xavier */
	{7, 5, 256, 0, 256, 4, CONFIGS(turing_configs)},    /* T4, RTX 20 */
	{8, 0, 128, 1024, 256, 4, CONFIGS(ga100_configs)},  /* A100 */
	{8, 6, 128, 1024, 256, 4, CONFIGS(ga10x_configs)},  /* A10, RTX 30 */
	{8, 7, 128, 1024, 256, 4, CONFIGS(ga100_configs)},  /* Orin */
	{8, 9, 128, 1024, 256, 4, CONFIGS(ga10x_configs)},  /* L4, L40, RTX 40 */
	{9, 0, 128, 1024, 256, 4, CONFIGS(hopper_configs)}, /* H100, H200 */
	{10, 0, 128, 1024, 256, 4, CONFIGS(hopper_configs)}, /* B200 */
	{10, 1, 128, 1024, 256, 4, CONFIGS(hopper_configs)},
	{10, 3, 128, 1024, 256, 4, CONFIGS(hopper_configs)}, /* B300 */
	{11, 0, 128, 1024, 256, 4, CONFIGS(hopper_configs)}, /* Thor */
	{12, 0, 128, 1024, 256, 4, CONFIGS(ga10x_configs)},  /* RTX 50 */
	{12, 1, 128, 1024, 256, 4, CONFIGS(ga10x_configs)},  /* DGX Spark */
};

static const struct occ_arch *find_arch(int major, int minor)
{
	for (size_t i = 0; i < sizeof(occ_archs) / sizeof(occ_archs[0]); i++)
		if (occ_archs[i].major == major && occ_archs[i].minor == minor)
			return &occ_archs[i];
	return NULL;
}

static long long round_up(long long x, long long unit)
{
	return (x + unit - 1) / unit * unit;
}

static int div_round_up(int x, int y)
{
	return (x + y - 1) / y;
}

/* The figures come from a file: each must be one a GPU can have (far above any today's:
 * H200 has 132 SMs, 64 warps, 1024 threads, 64K registers, 228 KiB), which also keeps
 * every product below in int and the block-size search short. */
#define MAX_COUNT (1 << 16)     /* SMs, warps and blocks per SM, threads per block, warp */
#define MAX_AMOUNT (1 << 28)    /* registers, bytes of shared memory */

static int in_range(int v, int lo, int hi)
{
	return v >= lo && v <= hi;
}

static int device_ok(const struct kg_occ_device *d)
{
	return d && d->cc_major > 0 && d->cc_minor >= 0 && in_range(d->sm_count, 1, MAX_COUNT) &&
	       in_range(d->max_warps_per_sm, 1, MAX_COUNT) &&
	       in_range(d->max_blocks_per_sm, 1, MAX_COUNT) &&
	       in_range(d->max_threads_per_block, 1, MAX_COUNT) &&
	       in_range(d->regs_per_sm, 1, MAX_AMOUNT) &&
	       in_range(d->max_regs_per_block, 1, MAX_AMOUNT) &&
	       in_range(d->smem_per_sm, 1, MAX_AMOUNT) &&
	       in_range(d->smem_per_block_optin, 0, MAX_AMOUNT) &&
	       in_range(d->warp_size, 1, MAX_COUNT);
}

/* The smallest carveout of the architecture that holds `bytes`; -1 if none does. */
static long long config_at_least(const struct occ_arch *a, long long bytes)
{
	for (int i = 0; i < a->nconfigs; i++)
		if ((long long)a->configs[i] * 1024 >= bytes)
			return (long long)a->configs[i] * 1024;
	return -1;
}

/* The most shared memory one block may use, reserved share included. The trace only has
 * the 48 KiB non-opt-in limit, but a kernel that launched with more had opted in, so the
 * opt-in limit is the one that applies: all of the largest carveout but the reserve. */
static long long smem_block_limit(const struct kg_occ_device *d, const struct occ_arch *a)
{
	long long optin = d->smem_per_block_optin;
	if (optin <= 0) {
		long long largest = (long long)a->configs[a->nconfigs - 1] * 1024;
		optin = (largest < d->smem_per_sm ? largest : d->smem_per_sm) - a->smem_reserved;
	}
	return optin + a->smem_reserved;
}

/* The carveout the blocks share. Asked for none, the occupancy API assumes the largest
 * (the device's shared memory per SM); a preference is rounded up to a configuration the
 * hardware has; and when that cannot hold even one block the driver ignores it and takes
 * the smallest configuration that can. */
static long long pick_carveout(const struct kg_occ_device *d, const struct occ_arch *a,
			       int wanted, long long per_block)
{
	long long want = wanted > 0 && wanted < d->smem_per_sm ? wanted : d->smem_per_sm;
	long long c = config_at_least(a, want);
	if (c < 0) /* a device larger than its architecture's table: trust the device */
		c = want;
	if (c < per_block) {
		c = config_at_least(a, per_block);
		if (c < 0)
			c = per_block;
	}
	return c;
}

static int limit_by_warps(const struct kg_occ_device *d, int warps_per_block)
{
	return d->max_warps_per_sm / warps_per_block;
}

/* Registers go to warps, regs_per_thread * warp_size rounded up to the unit, each warp's
 * from a single sub-partition, so the SM holds (its registers / sub-partitions / a warp's
 * share) warps per sub-partition. A block must also fit max_regs_per_block, which the
 * hardware checks as if its warps were rounded up to a multiple of the sub-partitions. */
static int limit_by_regs(const struct kg_occ_device *d, const struct occ_arch *a,
			 int regs_per_thread, int warps_per_block)
{
	long long per_warp = round_up((long long)regs_per_thread * d->warp_size, a->reg_unit);
	if (per_warp == 0)
		return INT_MAX;
	long long hw_warps = round_up(warps_per_block, a->sub_partitions);
	if (per_warp * hw_warps > d->max_regs_per_block ||
	    per_warp * warps_per_block > d->max_regs_per_block)
		return 0;
	long long warps_per_part = d->regs_per_sm / a->sub_partitions / per_warp;
	return (int)(warps_per_part * a->sub_partitions / warps_per_block);
}

/* Of equal limits, the hardware's block count before shared memory: the driver picks the
 * smallest carveout that holds as many blocks as the rest allow (a 10-thread kernel on an
 * A100 ran with a 32 KB carveout, 32 blocks of its 1 KB reserved share: "limited by shared
 * memory" for a kernel that uses none) */
static enum kg_occ_limit pick_limiter(const struct kg_occ_result *r)
{
	if (r->blocks_per_sm == r->by_warps)
		return KG_OCC_LIMIT_WARPS;
	if (r->blocks_per_sm == r->by_regs)
		return KG_OCC_LIMIT_REGISTERS;
	if (r->blocks_per_sm == r->by_blocks)
		return KG_OCC_LIMIT_BLOCKS;
	return KG_OCC_LIMIT_SMEM;
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static int kernel_ok(const struct kg_occ_device *d, const struct kg_occ_kernel *k)
{
	return k && k->block_threads > 0 && k->block_threads <= d->max_threads_per_block &&
	       k->regs_per_thread >= 0 && k->regs_per_thread <= MAX_REGS_PER_THREAD &&
	       k->smem_static >= 0 && k->smem_dynamic >= 0 && k->smem_config >= 0;
}

int occupancy_compute(const struct kg_occ_device *d, const struct kg_occ_kernel *k,
		      struct kg_occ_result *r)
{
	if (!r)
		return -EINVAL;
	*r = (struct kg_occ_result){.limiter = KG_OCC_LIMIT_INVALID};
	if (!device_ok(d) || !kernel_ok(d, k))
		return -EINVAL;
	const struct occ_arch *a = find_arch(d->cc_major, d->cc_minor);
	if (!a)
		return -ENOTSUP;

	long long smem = round_up((long long)k->smem_static + k->smem_dynamic + a->smem_reserved,
				  a->smem_unit);
	if (smem > smem_block_limit(d, a) || smem > INT_MAX)
		return -EINVAL;
	long long carveout = pick_carveout(d, a, k->smem_config, smem);

	int warps = div_round_up(k->block_threads, d->warp_size);
	r->by_warps = limit_by_warps(d, warps);
	r->by_regs = limit_by_regs(d, a, k->regs_per_thread, warps);
	r->by_smem = smem ? (int)(carveout / smem) : INT_MAX;
	r->by_blocks = d->max_blocks_per_sm;
	r->smem_per_block = (int)smem;
	r->smem_config = (int)carveout;

	r->blocks_per_sm = min_int(min_int(r->by_warps, r->by_regs),
				   min_int(r->by_smem, r->by_blocks));
	r->warps_per_sm = r->blocks_per_sm * warps;
	r->occupancy = (double)r->warps_per_sm / d->max_warps_per_sm;
	r->limiter = pick_limiter(r);
	return 0;
}

int occupancy_best_block(const struct kg_occ_device *d, int regs_per_thread, int smem_static,
			 int smem_dynamic, int max_block, int *block, int *min_grid)
{
	if (block)
		*block = 0;
	if (min_grid)
		*min_grid = 0;
	if (!block || !min_grid || !device_ok(d))
		return -EINVAL;
	int limit = d->max_threads_per_block;
	if (max_block > 0 && max_block < limit)
		limit = max_block;

	/* Down from the largest size in warp steps, keeping a size only when it holds
	 * strictly more threads: ties go to the larger block, as in CUDA. */
	long long best_threads = 0, full = (long long)d->max_warps_per_sm * d->warp_size;
	int best_blocks = 0;
	for (long long aligned = round_up(limit, d->warp_size); aligned > 0;
	     aligned -= d->warp_size) {
		struct kg_occ_kernel k = {aligned < limit ? (int)aligned : limit, regs_per_thread,
					  smem_static, smem_dynamic, 0};
		struct kg_occ_result r;
		int rc = occupancy_compute(d, &k, &r);
		if (rc < 0)
			return rc;
		long long threads = (long long)k.block_threads * r.blocks_per_sm;
		if (threads > best_threads) {
			best_threads = threads;
			best_blocks = r.blocks_per_sm;
			*block = k.block_threads;
		}
		if (best_threads >= full) /* nothing can beat a full SM */
			break;
	}
	if (best_blocks == 0)
		return -ERANGE;
	*min_grid = best_blocks * d->sm_count;
	return 0;
}

double occupancy_waves(const struct kg_occ_device *d, const struct kg_occ_result *r,
		       long long blocks)
{
	if (!d || !r || d->sm_count <= 0 || r->blocks_per_sm <= 0 || blocks < 0)
		return 0.0;
	return (double)blocks / ((double)d->sm_count * r->blocks_per_sm);
}

const char *occupancy_limit_name(enum kg_occ_limit l)
{
	switch (l) {
	case KG_OCC_LIMIT_WARPS:
		return "warps";
	case KG_OCC_LIMIT_REGISTERS:
		return "registers";
	case KG_OCC_LIMIT_SMEM:
		return "shared memory";
	case KG_OCC_LIMIT_BLOCKS:
		return "blocks";
	case KG_OCC_LIMIT_INVALID:
		break;
	}
	return "invalid";
}
