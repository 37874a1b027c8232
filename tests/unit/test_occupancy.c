#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <math.h>

#include "analysis/occupancy.h"

/* Measured on an H200 by occupancy_probe: '#' lines hold the device's properties, each
 * kernel's cudaFuncGetAttributes and cudaOccupancyMaxPotentialBlockSize; the rows hold
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor. Read at run time, from the repository
 * root, so that a new measurement needs no change here. */
#define FIXTURE "tests/fixtures/h200/occupancy_h200.csv"

struct fx_row {
	char kernel[64];
	int regs, smem_static, smem_dynamic, block, blocks_per_sm;
};

struct fx_kernel {
	char name[64];
	int regs, smem_static, max_block; /* from cudaFuncGetAttributes */
	int best_block, min_grid;         /* from cudaOccupancyMaxPotentialBlockSize */
};

struct fixture {
	struct kg_occ_device dev;
	int optin, reserved, rows_declared;
	struct fx_row rows[1024];
	int nrows;
	struct fx_kernel kernels[32];
	int nkernels;
};

/* The value of `key=` in a '#' line, or -1. */
static long field(const char *line, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof(pat), " %s=", key);
	const char *p = strstr(line, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

static struct fx_kernel *fx_kernel_named(struct fixture *f, const char *name)
{
	for (int i = 0; i < f->nkernels; i++)
		if (strcmp(f->kernels[i].name, name) == 0)
			return &f->kernels[i];
	CHECK(f->nkernels < (int)(sizeof(f->kernels) / sizeof(f->kernels[0])));
	struct fx_kernel *k = &f->kernels[f->nkernels++];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	return k;
}

static void parse_comment(struct fixture *f, const char *line)
{
	char name[64];
	if (sscanf(line, "# kernel=%63s", name) == 1) {
		struct fx_kernel *k = fx_kernel_named(f, name);
		if (strstr(line, " numRegs=")) {
			k->regs = (int)field(line, "numRegs");
			k->smem_static = (int)field(line, "sharedSizeBytes");
			k->max_block = (int)field(line, "maxThreadsPerBlock");
		} else if (strstr(line, "cudaOccupancyMaxPotentialBlockSize")) {
			k->best_block = (int)field(line, "block");
			k->min_grid = (int)field(line, "min_grid");
		}
		return;
	}
	int major, minor;
	if (sscanf(line, "# cc=%d.%d", &major, &minor) == 2) {
		f->dev.cc_major = major;
		f->dev.cc_minor = minor;
	}
	struct kg_occ_device *d = &f->dev;
	long v;
	if ((v = field(line, "multiProcessorCount")) >= 0)
		d->sm_count = (int)v;
	if ((v = field(line, "maxThreadsPerMultiProcessor")) >= 0)
		d->max_warps_per_sm = (int)v / 32; /* warpSize comes later; it is 32 */
	if ((v = field(line, "maxBlocksPerMultiProcessor")) >= 0)
		d->max_blocks_per_sm = (int)v;
	if ((v = field(line, "regsPerMultiprocessor")) >= 0)
		d->regs_per_sm = (int)v;
	if ((v = field(line, "regsPerBlock")) >= 0)
		d->max_regs_per_block = (int)v;
	if ((v = field(line, "sharedMemPerMultiprocessor")) >= 0)
		d->smem_per_sm = (int)v;
	if ((v = field(line, "sharedMemPerBlockOptin")) >= 0)
		f->optin = (int)v;
	if ((v = field(line, "reservedSharedMemPerBlock")) >= 0)
		f->reserved = (int)v;
	if ((v = field(line, "warpSize")) >= 0)
		d->warp_size = (int)v;
	if ((v = field(line, "maxThreadsPerBlock")) >= 0)
		d->max_threads_per_block = (int)v;
	if ((v = field(line, "rows")) >= 0)
		f->rows_declared = (int)v;
}

static void parse_row(struct fixture *f, const char *line)
{
	struct fx_row *r = &f->rows[f->nrows];
	if (strncmp(line, "kernel,", 7) == 0) /* the column names */
		return;
	CHECK(f->nrows < (int)(sizeof(f->rows) / sizeof(f->rows[0])));
	int n = sscanf(line, "%63[^,],%d,%d,%d,%d,%d", r->kernel, &r->regs, &r->smem_static,
		       &r->smem_dynamic, &r->block, &r->blocks_per_sm);
	if (n != 6)
		fprintf(stderr, "    bad fixture row: %s", line);
	CHECK_EQ_INT(n, 6);
	f->nrows++;
}

static struct fixture *load_fixture(void)
{
	static struct fixture f; /* large; each test runs in its own child process */
	memset(&f, 0, sizeof(f));
	f.rows_declared = -1;
	FILE *fp = fopen(FIXTURE, "r");
	if (!fp)
		fprintf(stderr, "    cannot open %s: run from the repository root\n", FIXTURE);
	CHECK(fp != NULL);
	char line[1024];
	while (fgets(line, sizeof(line), fp)) {
		if (line[0] == '#')
			parse_comment(&f, line);
		else if (line[0] != '\n')
			parse_row(&f, line);
	}
	fclose(fp);
	return &f;
}

TEST(h200_fixture_describes_the_h200)
{
	struct fixture *f = load_fixture();
	const struct kg_occ_device *d = &f->dev;
	CHECK_EQ_INT(d->cc_major, 9);
	CHECK_EQ_INT(d->cc_minor, 0);
	CHECK_EQ_INT(d->sm_count, 132);
	CHECK_EQ_INT(d->max_warps_per_sm, 64);
	CHECK_EQ_INT(d->max_blocks_per_sm, 32);
	CHECK_EQ_INT(d->max_threads_per_block, 1024);
	CHECK_EQ_INT(d->regs_per_sm, 65536);
	CHECK_EQ_INT(d->max_regs_per_block, 65536);
	CHECK_EQ_INT(d->smem_per_sm, 233472);
	CHECK_EQ_INT(d->warp_size, 32);
	CHECK_EQ_INT(f->optin, 232448);
	CHECK_EQ_INT(f->reserved, 1024);
	CHECK_EQ_INT(f->nkernels, 9);
	CHECK_EQ_INT(f->nrows, 516);
	CHECK_EQ_INT(f->rows_declared, f->nrows);
}

/* Every row, twice: with the opt-in limit the trace lacks (0: derived from cc) and with
 * the one cudaGetDeviceProperties reports. Every mismatch is printed before failing. */
static int check_rows(struct fixture *f, int optin)
{
	struct kg_occ_device d = f->dev;
	d.smem_per_block_optin = optin;
	int bad = 0;
	for (int i = 0; i < f->nrows; i++) {
		const struct fx_row *row = &f->rows[i];
		struct kg_occ_kernel k = {row->block, row->regs, row->smem_static,
					  row->smem_dynamic, 0};
		struct kg_occ_result r;
		int rc = occupancy_compute(&d, &k, &r);
		if (rc == 0 && r.blocks_per_sm == row->blocks_per_sm)
			continue;
		fprintf(stderr, "    optin %d: %s regs %d smem %d+%d block %d: rc %d, %d "
				"blocks/SM (%s), measured %d\n",
			optin, row->kernel, row->regs, row->smem_static, row->smem_dynamic,
			row->block, rc, r.blocks_per_sm, occupancy_limit_name(r.limiter),
			row->blocks_per_sm);
		bad++;
	}
	return bad;
}

TEST(h200_every_measured_row_matches)
{
	struct fixture *f = load_fixture();
	CHECK_EQ_INT(f->nrows, 516);
	int bad = check_rows(f, 0) + check_rows(f, f->optin);
	CHECK_EQ_INT(bad, 0);
}

TEST(h200_best_block_matches_cuda)
{
	struct fixture *f = load_fixture();
	int checked = 0;
	for (int i = 0; i < f->nkernels; i++) {
		const struct fx_kernel *fk = &f->kernels[i];
		int block = -1, grid = -1;
		CHECK_EQ_INT(occupancy_best_block(&f->dev, fk->regs, fk->smem_static, 0,
						  fk->max_block, &block, &grid),
			     0);
		if (block != fk->best_block || grid != fk->min_grid)
			fprintf(stderr, "    %s: block %d grid %d, CUDA said %d and %d\n", fk->name,
				block, grid, fk->best_block, fk->min_grid);
		CHECK_EQ_INT(block, fk->best_block);
		CHECK_EQ_INT(grid, fk->min_grid);
		checked++;
	}
	CHECK_EQ_INT(checked, 9);
}

static const struct kg_occ_device h200 = {9, 0, 132, 64, 32, 1024, 65536, 65536, 233472, 0, 32};

static struct kg_occ_result run(const struct kg_occ_device *d, int block, int regs,
				int smem_static, int smem_dynamic)
{
	struct kg_occ_kernel k = {block, regs, smem_static, smem_dynamic, 0};
	struct kg_occ_result r;
	CHECK_EQ_INT(occupancy_compute(d, &k, &r), 0);
	return r;
}

TEST(h200_limiters_and_their_counts)
{
	/* 1024 threads, 20 registers: two blocks fill the 64 warps. */
	struct kg_occ_result r = run(&h200, 1024, 20, 0, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 2);
	CHECK_EQ_INT(r.warps_per_sm, 64);
	CHECK(r.occupancy == 1.0);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_WARPS);
	CHECK_EQ_INT(r.by_warps, 2);
	CHECK_EQ_INT(r.by_regs, 2);      /* 640 registers a warp, allocated as 768: 21 warps
					  * per sub-partition, 84 per SM; a tie, so "warps" */
	CHECK_EQ_INT(r.by_smem, 228);    /* only the 1 KiB reserve, in a 228 KiB carveout */
	CHECK_EQ_INT(r.by_blocks, 32);
	CHECK_EQ_INT(r.smem_per_block, 1024);
	CHECK_EQ_INT(r.smem_config, 233472);

	/* 110 registers: 3584 a warp, 4 warps per sub-partition, 16 per SM. Without the
	 * sub-partitions it would be 18 warps and 3 blocks of 6. */
	r = run(&h200, 192, 110, 0, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 2);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_REGISTERS);
	CHECK(fabs(r.occupancy - 12.0 / 64) < 1e-12);

	r = run(&h200, 32, 20, 0, 49152);
	CHECK_EQ_INT(r.blocks_per_sm, 4); /* 233472 / 50176 */
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_SMEM);
	CHECK_EQ_INT(r.smem_per_block, 50176);

	r = run(&h200, 32, 20, 0, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 32);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_BLOCKS);

	/* 64 threads: warps and blocks both allow 32; the tie goes to warps. */
	r = run(&h200, 64, 20, 0, 0);
	CHECK_EQ_INT(r.by_warps, 32);
	CHECK_EQ_INT(r.by_blocks, 32);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_WARPS);

	/* Odd sizes round up: 100 bytes + 1 KiB reserve take 1152; 33 threads take 2 warps. */
	r = run(&h200, 33, 20, 100, 0);
	CHECK_EQ_INT(r.smem_per_block, 1152);
	CHECK_EQ_INT(r.by_warps, 32);
	CHECK_EQ_INT(r.warps_per_sm, 64);
}

TEST(h200_block_too_big_for_the_register_file_gets_no_blocks)
{
	/* 142 registers allow 12 warps per SM; 13 warps round up to 16 for the hardware's
	 * per-block check, 73728 registers > 65536: the launch would fail. */
	struct kg_occ_result r = run(&h200, 416, 142, 0, 0);
	CHECK_EQ_INT(r.by_regs, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 0);
	CHECK_EQ_INT(r.warps_per_sm, 0);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_REGISTERS);
	CHECK(occupancy_waves(&h200, &r, 1000) == 0.0);
	r = run(&h200, 384, 142, 0, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 1);
}

TEST(h200_largest_block_of_shared_memory)
{
	struct kg_occ_result r = run(&h200, 128, 32, 0, 232448); /* the opt-in limit exactly */
	CHECK_EQ_INT(r.blocks_per_sm, 1);
	CHECK_EQ_INT(r.smem_per_block, 233472);
	struct kg_occ_kernel k = {128, 32, 0, 232448 + 1, 0};
	CHECK_EQ_INT(occupancy_compute(&h200, &k, &r), -EINVAL);
	k = (struct kg_occ_kernel){128, 32, 48 * 1024, 232448 - 48 * 1024 + 1, 0};
	CHECK_EQ_INT(occupancy_compute(&h200, &k, &r), -EINVAL);
	/* An explicit opt-in limit is honoured. */
	struct kg_occ_device d = h200;
	d.smem_per_block_optin = 100 * 1024;
	k = (struct kg_occ_kernel){128, 32, 0, 100 * 1024 + 1, 0};
	CHECK_EQ_INT(occupancy_compute(&d, &k, &r), -EINVAL);
}

TEST(carveout_from_the_trace)
{
	/* A kernel that ran in a 32 KiB carveout holds 3 blocks of 9 KiB, not 25. */
	struct kg_occ_kernel k = {128, 32, 0, 8192, 32 * 1024};
	struct kg_occ_result r;
	CHECK_EQ_INT(occupancy_compute(&h200, &k, &r), 0);
	CHECK_EQ_INT(r.smem_config, 32 * 1024);
	CHECK_EQ_INT(r.blocks_per_sm, 3);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_SMEM);
	/* A preference between configurations rounds up to the next: 20 KiB -> 32 KiB. */
	k.smem_config = 20 * 1024;
	CHECK_EQ_INT(occupancy_compute(&h200, &k, &r), 0);
	CHECK_EQ_INT(r.smem_config, 32 * 1024);
	/* Too small for one block (8 KiB < 9 KiB): the driver takes 16 KiB instead. */
	k.smem_config = 8 * 1024;
	CHECK_EQ_INT(occupancy_compute(&h200, &k, &r), 0);
	CHECK_EQ_INT(r.smem_config, 16 * 1024);
	CHECK_EQ_INT(r.blocks_per_sm, 1);
	/* More than the SM has: the SM's. */
	k.smem_config = 1 << 30;
	CHECK_EQ_INT(occupancy_compute(&h200, &k, &r), 0);
	CHECK_EQ_INT(r.smem_config, 233472);
	CHECK_EQ_INT(r.by_smem, 25);
	CHECK_EQ_INT(r.blocks_per_sm, 16);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_WARPS);
}

/* Other architectures, from their published properties, each number worked out by hand
 * with the rules of cuda_occupancy.h. */
static const struct kg_occ_device v100 = {7, 0, 80, 64, 32, 1024, 65536, 65536, 98304, 0, 32};
static const struct kg_occ_device t4 = {7, 5, 40, 32, 16, 1024, 65536, 65536, 65536, 0, 32};
static const struct kg_occ_device a100 = {8, 0, 108, 64, 32, 1024, 65536, 65536, 167936, 0, 32};
static const struct kg_occ_device a10 = {8, 6, 72, 48, 16, 1024, 65536, 65536, 102400, 0, 32};
static const struct kg_occ_device l4 = {8, 9, 58, 48, 24, 1024, 65536, 65536, 102400, 0, 32};

TEST(volta_and_turing)
{
	/* Before Ampere: 256-byte units, no reserve; a kernel without shared memory is not
	 * limited by it at all. */
	struct kg_occ_result r = run(&v100, 256, 32, 100, 0);
	CHECK_EQ_INT(r.smem_per_block, 256);
	CHECK_EQ_INT(r.by_smem, 384);
	CHECK_EQ_INT(r.blocks_per_sm, 8);
	r = run(&v100, 256, 0, 0, 0);
	CHECK_EQ_INT(r.by_smem, INT_MAX);
	CHECK_EQ_INT(r.by_regs, INT_MAX);
	CHECK_EQ_INT(r.blocks_per_sm, 8);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_WARPS);
	r = run(&v100, 128, 32, 0, 40 * 1024); /* 96 KiB / 40 KiB */
	CHECK_EQ_INT(r.blocks_per_sm, 2);
	struct kg_occ_kernel k = {128, 32, 0, 96 * 1024 + 1, 0};
	CHECK_EQ_INT(occupancy_compute(&v100, &k, &r), -EINVAL); /* opt-in limit 96 KiB */

	/* Turing: 32 warps and 16 blocks per SM, 64 KiB. */
	r = run(&t4, 64, 32, 0, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 16);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_WARPS); /* 16 by warps too */
	CHECK(r.occupancy == 1.0);
	r = run(&t4, 1024, 32, 0, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 1);
	r = run(&t4, 256, 64, 0, 0); /* 2048 a warp: 8 per sub-partition, 32 per SM */
	CHECK_EQ_INT(r.by_regs, 4);
	r = run(&t4, 128, 32, 0, 20 * 1024); /* needs 32 KiB at least; the 64 KiB config */
	CHECK_EQ_INT(r.blocks_per_sm, 3);
	k = (struct kg_occ_kernel){128, 32, 0, 64 * 1024 + 1, 0};
	CHECK_EQ_INT(occupancy_compute(&t4, &k, &r), -EINVAL);
}

TEST(ampere_and_ada)
{
	struct kg_occ_result r = run(&a100, 256, 32, 0, 48 * 1024); /* 164 KiB / 49 KiB */
	CHECK_EQ_INT(r.smem_per_block, 50176);
	CHECK_EQ_INT(r.blocks_per_sm, 3);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_SMEM);
	CHECK_EQ_INT(r.smem_config, 167936);
	r = run(&a100, 128, 32, 0, 166912); /* sharedMemPerBlockOptin of the A100 */
	CHECK_EQ_INT(r.blocks_per_sm, 1);
	struct kg_occ_kernel k = {128, 32, 0, 166912 + 1, 0};
	CHECK_EQ_INT(occupancy_compute(&a100, &k, &r), -EINVAL);
	/* Extra-P's vector_add on an A100 (an Nsight export): 10 threads, no shared memory,
	 * run with a 32 KiB carveout: 32 blocks of the 1 KiB reserve, as many as the SM takes;
	 * the tie is the blocks' limit, not shared memory's */
	k = (struct kg_occ_kernel){10, 16, 0, 0, 32768};
	CHECK_EQ_INT(occupancy_compute(&a100, &k, &r), 0);
	CHECK_EQ_INT(r.by_smem, 32);
	CHECK_EQ_INT(r.by_blocks, 32);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_BLOCKS);

	/* cc 8.6: 48 warps, 16 blocks, 100 KiB, opt-in 99 KiB. */
	r = run(&a10, 128, 32, 0, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 12);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_WARPS);
	CHECK(r.occupancy == 1.0);
	r = run(&a10, 64, 32, 0, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 16);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_BLOCKS);
	CHECK(fabs(r.occupancy - 32.0 / 48) < 1e-12);
	r = run(&a10, 128, 32, 0, 99 * 1024);
	CHECK_EQ_INT(r.blocks_per_sm, 1);
	k = (struct kg_occ_kernel){128, 32, 0, 99 * 1024 + 1, 0};
	CHECK_EQ_INT(occupancy_compute(&a10, &k, &r), -EINVAL);

	/* cc 8.9: 24 blocks. */
	r = run(&l4, 32, 16, 0, 0);
	CHECK_EQ_INT(r.blocks_per_sm, 24);
	CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_BLOCKS);
}

TEST(best_block_elsewhere)
{
	int block, grid;
	/* 64 registers on a T4: 8 warps per sub-partition, 32 per SM, all the T4 has: one
	 * block of 1024 fills it. */
	CHECK_EQ_INT(occupancy_best_block(&t4, 64, 0, 0, 0, &block, &grid), 0);
	CHECK_EQ_INT(block, 1024);
	CHECK_EQ_INT(grid, 40);
	/* A kernel limit that is not a multiple of the warp is tried as it is: 1000 threads
	 * (32 warps) give 2000 a SM, 672 (21 warps) 3 x 672 = 2016, and 512 fills the SM. */
	CHECK_EQ_INT(occupancy_best_block(&h200, 20, 0, 0, 1000, &block, &grid), 0);
	CHECK_EQ_INT(block, 512);
	CHECK_EQ_INT(grid, 4 * 132);
	CHECK_EQ_INT(occupancy_best_block(&h200, 20, 0, 0, 700, &block, &grid), 0);
	CHECK_EQ_INT(block, 512);
	CHECK_EQ_INT(occupancy_best_block(&h200, 20, 0, 0, 500, &block, &grid), 0);
	CHECK_EQ_INT(block, 256); /* 4 x 500 = 2000, 7 x 288 = 2016, 8 x 256 = 2048 */
	CHECK_EQ_INT(grid, 8 * 132);
	/* Shared memory decides: 100 KiB a block leaves room for 2. */
	CHECK_EQ_INT(occupancy_best_block(&h200, 32, 0, 100 * 1024, 0, &block, &grid), 0);
	CHECK_EQ_INT(block, 1024);
	CHECK_EQ_INT(grid, 264);
}

TEST(invalid_inputs_are_refused)
{
	struct kg_occ_result r;
	struct kg_occ_kernel ok = {256, 32, 0, 0, 0};
	CHECK_EQ_INT(occupancy_compute(&h200, &ok, &r), 0);
	CHECK_EQ_INT(occupancy_compute(NULL, &ok, &r), -EINVAL);
	CHECK_EQ_INT(occupancy_compute(&h200, NULL, &r), -EINVAL);
	CHECK_EQ_INT(occupancy_compute(&h200, &ok, NULL), -EINVAL);

	struct kg_occ_kernel bad[] = {
		{0, 32, 0, 0, 0},   {-32, 32, 0, 0, 0}, {1025, 32, 0, 0, 0},
		{256, 256, 0, 0, 0}, {256, -1, 0, 0, 0}, {256, 32, -1, 0, 0},
		{256, 32, 0, -1, 0}, {256, 32, 0, 0, -1}, {256, 32, INT_MAX, INT_MAX, 0},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r.blocks_per_sm = 7;
		CHECK_EQ_INT(occupancy_compute(&h200, &bad[i], &r), -EINVAL);
		CHECK_EQ_INT(r.blocks_per_sm, 0);
		CHECK_EQ_INT(r.limiter, KG_OCC_LIMIT_INVALID);
	}
	struct kg_occ_kernel max_regs = {128, 255, 0, 0, 0};
	CHECK_EQ_INT(occupancy_compute(&h200, &max_regs, &r), 0);
	CHECK_EQ_INT(r.blocks_per_sm, 2); /* 8192 a warp: 2 warps per sub-partition */

	/* Each device field, zeroed or negative, in turn. */
	for (size_t off = 0; off < sizeof(h200) / sizeof(int); off++) {
		struct kg_occ_device d = h200;
		int *fld = (int *)&d + off;
		int zero_ok = fld == &d.cc_minor || fld == &d.smem_per_block_optin;
		*fld = 0;
		CHECK_EQ_INT(occupancy_compute(&d, &ok, &r), zero_ok ? 0 : -EINVAL);
		*fld = -1;
		CHECK_EQ_INT(occupancy_compute(&d, &ok, &r), -EINVAL);
		int block = 1, grid = 1;
		CHECK(occupancy_best_block(&d, 32, 0, 0, 0, &block, &grid) == 0 ||
		      (block == 0 && grid == 0));
		CHECK(occupancy_waves(&d, &r, 100) >= 0.0);
	}

	/* Architectures without constants. */
	struct kg_occ_device d = h200;
	d.cc_major = 6;
	CHECK_EQ_INT(occupancy_compute(&d, &ok, &r), -ENOTSUP);
	d.cc_major = 9;
	d.cc_minor = 5;
	CHECK_EQ_INT(occupancy_compute(&d, &ok, &r), -ENOTSUP);

	int block = 1, grid = 1;
	CHECK_EQ_INT(occupancy_best_block(&h200, 256, 0, 0, 0, &block, &grid), -EINVAL);
	CHECK_EQ_INT(occupancy_best_block(&h200, 32, 0, 300 * 1024, 0, &block, &grid), -EINVAL);
	CHECK_EQ_INT(occupancy_best_block(&h200, 32, 0, 0, 0, NULL, &grid), -EINVAL);
	CHECK_EQ_INT(occupancy_best_block(&h200, 32, 0, 0, 0, &block, NULL), -EINVAL);
	CHECK_EQ_INT(occupancy_best_block(NULL, 32, 0, 0, 0, &block, &grid), -EINVAL);
	/* A register file too small for any warp: nothing fits. */
	d = h200;
	d.regs_per_sm = 1024;
	CHECK_EQ_INT(occupancy_best_block(&d, 255, 0, 0, 0, &block, &grid), -ERANGE);
	CHECK_EQ_INT(block, 0);
	CHECK_EQ_INT(grid, 0);
}

/* Device figures come from the trace: INT_MAX SMs or blocks per SM overflowed the
 * products (blocks x SMs for the smallest full grid, blocks x warps) and a warp of one
 * thread in a block of INT_MAX made the block-size search run for billions of steps
 * (found by tests/fuzz/fuzz_spool). A figure beyond any GPU's is refused like a zero. */
TEST(device_figures_beyond_any_gpu_are_refused)
{
	struct kg_occ_kernel ok = {256, 32, 0, 0, 0};
	struct kg_occ_result r;
	for (size_t off = 0; off < sizeof(h200) / sizeof(int); off++) {
		struct kg_occ_device d = h200;
		int *fld = (int *)&d + off;
		if (fld == &d.cc_major || fld == &d.cc_minor)
			continue; /* no constants for them: -ENOTSUP, checked above */
		*fld = INT_MAX;
		CHECK_EQ_INT(occupancy_compute(&d, &ok, &r), -EINVAL);
		int block = 1, grid = 1;
		CHECK_EQ_INT(occupancy_best_block(&d, 32, 0, 0, 0, &block, &grid), -EINVAL);
		CHECK_EQ_INT(block, 0);
		CHECK_EQ_INT(grid, 0);
	}
	/* the largest of each figure still taken: no product overflows */
	struct kg_occ_device big = h200;
	big.sm_count = big.max_blocks_per_sm = 1 << 16;
	int block = 0, grid = 0;
	CHECK_EQ_INT(occupancy_best_block(&big, 32, 0, 0, 0, &block, &grid), 0);
	CHECK(block > 0 && grid > 0);
}

TEST(waves)
{
	struct kg_occ_result r = run(&h200, 1024, 20, 0, 0); /* 2 blocks/SM: 264 a wave */
	CHECK(occupancy_waves(&h200, &r, 264) == 1.0);
	CHECK(occupancy_waves(&h200, &r, 132) == 0.5);
	CHECK(fabs(occupancy_waves(&h200, &r, 265) - 265.0 / 264) < 1e-12);
	CHECK(occupancy_waves(&h200, &r, 0) == 0.0);
	CHECK(occupancy_waves(&h200, &r, -5) == 0.0);
	CHECK(occupancy_waves(NULL, &r, 264) == 0.0);
	CHECK(occupancy_waves(&h200, NULL, 264) == 0.0);
	CHECK(occupancy_waves(&h200, &r, 264LL * 1000000000) == 1e9);
	struct kg_occ_result none = {0};
	CHECK(occupancy_waves(&h200, &none, 264) == 0.0);
}

TEST(limit_names)
{
	CHECK_EQ_STR(occupancy_limit_name(KG_OCC_LIMIT_WARPS), "warps");
	CHECK_EQ_STR(occupancy_limit_name(KG_OCC_LIMIT_REGISTERS), "registers");
	CHECK_EQ_STR(occupancy_limit_name(KG_OCC_LIMIT_SMEM), "shared memory");
	CHECK_EQ_STR(occupancy_limit_name(KG_OCC_LIMIT_BLOCKS), "blocks");
	CHECK_EQ_STR(occupancy_limit_name(KG_OCC_LIMIT_INVALID), "invalid");
	CHECK_EQ_STR(occupancy_limit_name((enum kg_occ_limit)42), "invalid");
	CHECK_EQ_STR(occupancy_limit_name((enum kg_occ_limit)-1), "invalid");
}
