/* Rules about kernels: under-filled-grid, low-occupancy, memory-bound (docs/rules.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"
#include "util/api_names.h"
#include "util/timemath.h"

/* ------------------------------------------------------------------ occupancy */

/* Time the kernels of each name had the GPU to themselves, by name id: an under-filled
 * grid only wastes SMs when nothing else runs beside it. One pass over the ops. */
static int64_t *solo_by_name(const struct kg_analysis *a)
{
	int64_t *t = calloc((size_t)a->m->strings.count + 2, sizeof(*t));
	for (uint32_t i = 0; t && a->solo && i < a->m->n_ops; i++) {
		const struct kg_op *o = &a->m->ops[i];
		if (o->kind == KG_OP_KERNEL && o->name <= a->m->strings.count)
			t[o->name] = kg_time_add(t[o->name], a->solo[i]);
	}
	return t;
}

/* A kernel of a library (cuBLAS, cuDNN, CUTLASS, PyTorch's own, Triton, NCCL): its block
 * size and registers are not the user's to change. Told by the kernel's name, else by
 * the library its launches came from (their stacks). NULL for the user's own kernels. */
static const char *kernel_library(const struct kg_analysis *a, const struct kg_kernel_stats *ks)
{
	static const struct {
		const char *part, *library;
	} names[] = {
		{"cutlass", "CUTLASS (through cuBLAS, cuDNN or a library)"},
		{"cublas", "cuBLAS"}, {"xmma", "cuBLAS/cuDNN"}, {"gemm", "cuBLAS"},
		{"gemv", "cuBLAS"}, {"sm90_", "cuBLAS/cuDNN"}, {"sm80_", "cuBLAS/cuDNN"},
		{"ampere_", "cuBLAS/cuDNN"}, {"cudnn", "cuDNN"}, {"nchwToNhwc", "cuDNN"},
		{"nhwcToNchw", "cuDNN"}, {"implicit_convolve", "cuDNN"}, {"conv2d", "cuDNN"},
		{"at::native::", "PyTorch (ATen)"}, {"at::cuda::", "PyTorch (ATen)"},
		{"triton_", "Triton (torch.compile)"}, {"nccl", "NCCL"}, {"flash", "FlashAttention"},
		{"cub::", "CUB"}, {"thrust::", "Thrust"},
	};
	static const struct {
		const char *module, *library;
	} modules[] = {
		{"libcublas", "cuBLAS"}, {"libcudnn", "cuDNN"}, {"libtorch", "PyTorch (ATen)"},
		{"libnccl", "NCCL"}, {"libcufft", "cuFFT"}, {"libcusparse", "cuSPARSE"},
	};
	const char *name = model_text(a->m, ks->name);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strstr(name, names[i].part))
			return names[i].library;
	/* the innermost frame outside the CUDA runtime of a launch of this kernel */
	const struct kg_model *m = a->m;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind != KG_OP_KERNEL || o->name != ks->name || o->api == KG_NONE ||
		    m->apis[o->api].stack == KG_NONE)
			continue;
		const struct kg_stack *st = &m->stacks[m->apis[o->api].stack];
		for (uint32_t k = 0; k < st->n_frames; k++) {
			const char *mod = model_text(m, m->frames[st->first_frame + k].module);
			const char *base = strrchr(mod, '/');
			base = base ? base + 1 : mod;
			if (!*base || !strncmp(base, "libcuda", 7))
				continue;
			for (size_t j = 0; j < sizeof(modules) / sizeof(modules[0]); j++)
				if (!strncmp(base, modules[j].module, strlen(modules[j].module)))
					return modules[j].library;
			return NULL;
		}
	}
	return NULL;
}

/* More work per call for a library kernel whose grid is too small, said for what it
 * computes: a convolution's grid follows from the batch and the image, a matrix product's
 * from the matrices (several small ones batched make one large grid), anything else's
 * (normalisation, reduction, element-wise) from the tensor's size. */
static const char *more_work_per_call(const char *name)
{
	if (strstr(name, "conv") || strstr(name, "scudnn"))
		return "a larger batch, or channels_last (NHWC) tensors so that cuDNN can choose "
		       "other kernels";
	static const char *const products[] = {"gemm", "gemv", "matmul", "cublas", "cutlass", "xmma"};
	for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++)
		if (strstr(name, products[i]))
			return "a larger batch, or several small matrix products as one batched/grouped "
			       "call: torch.bmm, torch.baddbmm";
	return "a larger batch or larger tensors";
}

/* What the user can change about a library's kernel. */
static void library_fix(struct kg_finding *f, const char *lib, const char *name, int underfilled,
			int sms)
{
	if (underfilled)
		finding_set(&f->fix, "This kernel is %s's: its grid follows from the problem you give it, not "
			 "from a block size you choose. Give it more work per call (%s), so that its "
			 "grid covers the %d SMs; run independent work beside it on other streams; or "
			 "fuse the small operations around it (torch.compile).",
			 lib, more_work_per_call(name), sms);
	else
		finding_set(&f->fix, "This kernel is %s's: its block size, registers and shared memory are the "
			 "library's choice. What you control: the shapes (batch and feature sizes "
			 "multiples of 8 for fp16/bf16 and of 64 or 128 where you can, so it picks "
			 "tiles that fill the SMs), the algorithm (torch.backends.cudnn.benchmark = "
			 "True lets cuDNN time its algorithms for your shapes; "
			 "torch.backends.cuda.matmul.allow_tf32 / bf16 autocast choose faster "
			 "kernels), and fusion (torch.compile) so that fewer, larger kernels run.",
			 lib);
}

/* The achieved figures behind a finding about kernel k, appended to its figures. */
static void hw_figures_text(const struct kg_analysis *a, uint32_t k, struct kg_finding *f)
{
	static const int shown[] = {KG_HW_OCCUPANCY, KG_HW_SM_ACTIVE, KG_HW_DRAM_PEAK, KG_HW_TENSOR};
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		double v = hw_kernel_figure(a, k, shown[i]);
		if (!isnan(v))
			finding_append(&f->figures, ", achieved_%s=%.1f",
				       kg_hw_figure_info[shown[i]].column, v);
	}
	if (a->hw_kernels && k < a->n_kernels && a->hw_kernels[k].samples)
		finding_append(&f->figures, ", hw_samples_alone=%u", a->hw_kernels[k].samples);
}

/* Kernels past this many worth an occupancy finding (either rule) are not reported: the
 * longest ones say what there is to say. */
#define OCCUPANCY_FINDINGS 5

/* What the occupancy rules know of one kernel name. */
struct occ_case {
	int underfilled;          /* fewer blocks than SMs (else: low occupancy) */
	double unused;            /* share of the GPU left unused: what filling it saves */
	double best_occ;          /* occupancy at the calculator's best block size */
	double achieved, sm_active; /* the counters (record --hw), NaN without them */
	double gain;
};

/* 1 when kernel k is worth a finding of either occupancy rule, with its case. */
static int occupancy_case(const struct kg_analysis *a, uint32_t k, const int64_t *solo,
			  struct occ_case *c)
{
	const struct kg_kernel_stats *ks = &a->kernels[k];
	const struct kg_op *o = op(a, ks->example_op);
	if (!ks->occupancy_ok || ks->p50 < a->cfg.long_kernel_ns || !op_is_compute(o))
		return 0;
	const struct kg_launch *l = op_launch(a->m, o);
	const struct kg_device *d = op_device(a->m, o);
	c->underfilled = ks->waves > 0 && ks->waves < a->cfg.underfill_waves &&
			 ks->blocks < d->sm_count;
	int low = ks->occ.occupancy < a->cfg.low_occupancy;
	c->achieved = hw_kernel_figure(a, k, KG_HW_OCCUPANCY) / 100;
	c->sm_active = hw_kernel_figure(a, k, KG_HW_SM_ACTIVE) / 100;
	double dram = hw_kernel_figure(a, k, KG_HW_DRAM_PEAK) / 100;
	/* a kernel that already moves DRAM near its peak gains nothing from more warps:
	 * rule_memory_bound says what it needs instead */
	if (low && !c->underfilled && !isnan(dram) && dram >= a->cfg.memory_bound)
		return 0;
	if (!c->underfilled && !low)
		return 0;
	struct kg_occ_device od;
	struct kg_occ_result best = {0};
	occ_device_of(d, &od);
	c->best_occ = ks->occ.occupancy;
	if (ks->best_block > 0) {
		struct kg_occ_kernel bk = {ks->best_block, l->regs, (int)l->smem_static,
					   (int)l->smem_dynamic, 0};
		if (occupancy_compute(&od, &bk, &best) == 0 && best.occupancy > c->best_occ)
			c->best_occ = best.occupancy;
	}
	c->unused = c->underfilled ? 1.0 - (double)ks->blocks / d->sm_count
				   : 1.0 - ks->occ.occupancy / (c->best_occ > 0 ? c->best_occ : 1);
	/* measured: the share of SM cycles with no block, while it ran alone */
	if (c->underfilled && !isnan(c->sm_active))
		c->unused = c->sm_active < 1 ? 1.0 - c->sm_active : 0;
	c->gain = (double)(c->underfilled ? solo[ks->name] : ks->total) * c->unused;
	return analysis_worth(a, c->gain);
}

static void occupancy_title(const struct kg_analysis *a, const struct kg_kernel_stats *ks,
			    const struct occ_case *c, const char *nm, int sms, struct kg_finding *f)
{
	if (c->underfilled)
		finding_set(&f->title,
			    "%s launches %lld %s on %d SMs: %.0f%% of the SMs have nothing to "
			    "do for %.1f ms",
			    nm, ks->blocks, ks->blocks == 1 ? "block" : "blocks", sms,
			    100.0 * c->unused, ms(ks->total));
	else if (!isnan(c->achieved))
		finding_set(&f->title,
			    "%s runs at %.0f%% theoretical, %.0f%% achieved occupancy (limited by "
			    "%s) for %.1f ms",
			    nm, 100 * ks->occ.occupancy, 100 * c->achieved,
			    occupancy_limit_name(ks->occ.limiter), ms(ks->total));
	else
		finding_set(&f->title,
			    "%s runs at %.0f%% theoretical occupancy (limited by %s) for %.1f ms", nm,
			    100 * ks->occ.occupancy, occupancy_limit_name(ks->occ.limiter),
			    ms(ks->total));
}

static void occupancy_fix(const struct kg_kernel_stats *ks, const char *name, const char *lib,
			  const struct occ_case *c, const struct kg_device *d, struct kg_finding *f)
{
	if (lib)
		library_fix(f, lib, name, c->underfilled, d->sm_count);
	else if (c->underfilled)
		finding_set(&f->fix,
			    "Give the grid at least one block per SM (%d here; %d blocks fill one "
			    "wave at %d threads per block): split the work into more, smaller "
			    "blocks or more work per launch; or run independent kernels beside it "
			    "on other streams.",
			    d->sm_count, ks->best_grid > 0 ? ks->best_grid : d->sm_count,
			    ks->best_block > 0 ? ks->best_block : ks->threads);
	else if (ks->best_block > 0)
		finding_set(&f->fix,
			    "Launch with %d threads per block (the occupancy calculator's choice "
			    "for its registers and shared memory: %.0f%% occupancy) and at least "
			    "%d blocks (one full wave: cudaOccupancyMaxPotentialBlockSize); "
			    "otherwise cut registers (__launch_bounds__, -maxrregcount) or shared "
			    "memory per block.",
			    ks->best_block, 100 * c->best_occ, ks->best_grid);
	else
		finding_set(&f->fix, "Use more, larger blocks (cudaOccupancyMaxPotentialBlockSize) "
				     "and fewer registers or less shared memory per block.");
}

static void occupancy_finding(struct kg_analysis *a, uint32_t k, const struct occ_case *c)
{
	const struct kg_kernel_stats *ks = &a->kernels[k];
	const struct kg_op *o = op(a, ks->example_op);
	const struct kg_launch *l = op_launch(a->m, o);
	const struct kg_device *d = op_device(a->m, o);
	struct kg_finding *f = analysis_add_finding(
		a, c->underfilled ? KG_RULE_UNDER_FILLED_GRID : KG_RULE_LOW_OCCUPANCY);
	if (!f)
		return;
	/* a library's kernel runs at the occupancy its authors chose (a tensor-core GEMM keeps
	 * few, large warps on purpose): said, but no gain claimed, and no more than info */
	const char *lib = kernel_library(a, ks);
	int by_design = lib && !c->underfilled;
	uint32_t mark = a->n_blame;
	for (uint32_t i = 0; !by_design && i < a->m->n_ops; i++) {
		const struct kg_op *o2 = op(a, i);
		if (o2->kind == KG_OP_KERNEL && o2->name == ks->name)
			analysis_blame(a, KG_NONE, i,
				       (double)(c->underfilled ? (a->solo ? a->solo[i] : 0) : dur(o2)) *
					       c->unused);
	}
	finding_take_blame(a, f, mark);
	char nm[160];
	rule_kernel_name(a, ks->name, nm, sizeof(nm));
	occupancy_title(a, ks, c, nm, d->sm_count, f);
	finding_set(&f->explanation,
		    "%d threads per block, %d registers per thread, %d bytes of shared memory per "
		    "block: %d blocks (%d warps of %d) fit on an SM, limited by %s; the grid is "
		    "%.2f waves. Too few resident warps cannot hide memory and instruction "
		    "latency; too few blocks leave SMs empty.",
		    ks->threads, l->regs, (int)(l->smem_static + l->smem_dynamic),
		    ks->occ.blocks_per_sm, ks->occ.warps_per_sm, d->max_warps_per_sm,
		    occupancy_limit_name(ks->occ.limiter), ks->waves);
	occupancy_fix(ks, model_text(a->m, ks->name), lib, c, d, f);
	f->gain_ns = by_design ? 0 : c->gain;
	if (by_design) {
		f->severity = KG_SEV_INFO;
		finding_set(&f->gain_how,
			    "not estimated: the occupancy of %s's kernels is the library's design, "
			    "not a loss; only the shapes, the algorithm or fusion around it change "
			    "what runs",
			    lib);
	} else if (c->underfilled && !isnan(c->sm_active))
		finding_set(&f->gain_how,
			    "time it ran alone x share of SM cycles the counters found idle (%.0f%%): "
			    "an upper bound (assumes the work spreads over all SMs)",
			    100 * (1 - c->sm_active));
	else
		finding_set(&f->gain_how, "%s",
			    c->underfilled ? "kernel time x share of SMs without a block: an upper "
					     "bound (assumes the work spreads over all SMs)"
					   : "kernel time x (1 - occupancy / occupancy at the best "
					     "block size): an upper bound (assumes time scales with "
					     "resident warps)");
	f->start = o->start;
	f->end = o->end;
	finding_evidence(f, o->start, o->end, o->stream, ks->example_op,
			 "longest instance: %.3f ms, grid %u x %u x %u, block %u x %u x %u",
			 ms(dur(o)), l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
			 l->block[2]);
	finding_set(&f->figures,
		    "launches=%u, total_ms=%.3f, occupancy=%.3f, best_block=%d, best_occupancy=%.3f, "
		    "waves=%.2f",
		    ks->count, ms(ks->total), ks->occ.occupancy, ks->best_block, c->best_occ,
		    ks->waves);
	hw_figures_text(a, k, f);
}

/* The longest OCCUPANCY_FINDINGS kernel names worth either occupancy finding; of them,
 * those that are under-filled (or not). */
static void occupancy_rule(struct kg_analysis *a, int underfilled)
{
	int64_t *solo = solo_by_name(a);
	if (!solo)
		return;
	uint32_t reported = 0;
	for (uint32_t k = 0; k < a->n_kernels && reported < OCCUPANCY_FINDINGS; k++) {
		struct occ_case c;
		if (!occupancy_case(a, k, solo, &c))
			continue;
		reported++;
		if (c.underfilled == underfilled)
			occupancy_finding(a, k, &c);
	}
	free(solo);
}

void rule_under_filled_grid(struct kg_analysis *a)
{
	occupancy_rule(a, 1);
}

void rule_low_occupancy(struct kg_analysis *a)
{
	occupancy_rule(a, 0);
}

/* ------------------------------------------------------------------ memory-bound */

/* Kernels whose counters show DRAM near its peak while they ran alone (record --hw): more
 * occupancy or other block sizes will not speed them up; fewer bytes will. One finding for
 * all of them, without a gain estimate: what fusing or narrower types save depends on the
 * program. */
void rule_memory_bound(struct kg_analysis *a)
{
	int64_t total = 0;
	uint32_t n = 0, first = KG_NONE;
	double lo = 1e9, hi = 0;
	for (uint32_t k = 0; k < a->n_kernels; k++) {
		double dram = hw_kernel_figure(a, k, KG_HW_DRAM_PEAK) / 100;
		if (isnan(dram) || dram < a->cfg.memory_bound)
			continue;
		total = kg_time_add(total, a->kernels[k].total);
		lo = dram < lo ? dram : lo;
		hi = dram > hi ? dram : hi;
		if (first == KG_NONE)
			first = k;
		n++;
	}
	if (!n || !analysis_worth(a, (double)total))
		return;
	struct kg_finding *f = analysis_add_finding(a, KG_RULE_MEMORY_BOUND);
	if (!f)
		return;
	const struct kg_kernel_stats *ks = &a->kernels[first];
	const struct kg_op *o = op(a, ks->example_op);
	char nm[160];
	rule_kernel_name(a, ks->name, nm, sizeof(nm));
	f->severity = KG_SEV_INFO;
	char range[48];
	if (llround(100 * lo) == llround(100 * hi))
		snprintf(range, sizeof(range), "%.0f%%", 100 * hi);
	else
		snprintf(range, sizeof(range), "%.0f-%.0f%%", 100 * lo, 100 * hi);
	if (n == 1)
		finding_set(&f->title, "%s moves DRAM at %s of its peak for %.1f ms",
			 nm, range, ms(total));
	else
		finding_set(&f->title, "%u kernels move DRAM at %s of their peak for %.1f ms (%s the "
			 "longest)",
			 n, range, ms(total), nm);
	finding_set(&f->explanation, "The GPU's counters, in samples where each of these kernels ran alone, show DRAM "
		 "bandwidth at %.0f%% or more of what the memory can deliver: the kernels wait on "
		 "memory, not on SMs, so larger blocks, more occupancy or more streams do not speed "
		 "them up.",
		 100 * a->cfg.memory_bound);
	finding_set(&f->fix, "Move fewer bytes: fuse the elementwise and normalisation kernels that read and "
		 "write the same tensors (torch.compile, or a hand-fused kernel), keep activations "
		 "in bf16/fp8, and avoid materialising intermediates (views instead of copies, "
		 "in-place ops). Compare the kernels' bytes with the time at peak bandwidth to see "
		 "how much a fused version can save.");
	finding_set(&f->gain_how, "not estimated: what fusion saves depends on the bytes it removes");
	f->start = o->start;
	f->end = o->end;
	finding_evidence(f, o->start, o->end, o->stream, ks->example_op,
			 "%s: DRAM at %.0f%% of peak, SMs %.0f%% active, %.0f%% achieved occupancy",
			 nm, hw_kernel_figure(a, first, KG_HW_DRAM_PEAK),
			 hw_kernel_figure(a, first, KG_HW_SM_ACTIVE),
			 hw_kernel_figure(a, first, KG_HW_OCCUPANCY));
	finding_set(&f->figures, "kernels=%u, total_ms=%.3f", n, ms(total));
	hw_figures_text(a, first, f);
}

