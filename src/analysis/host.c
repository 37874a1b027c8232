/* While the GPU waited (host.h): what the host thread that issued the next work did in
 * each idle gap.
 *
 * A gap's host side is its launching thread: the thread of the call that launched the
 * op that ended the gap. The part of the gap a finding claims (struct kg_idle) is cut
 * into pieces: all of it (launch-overhead), the time outside the process's blocking calls
 * (host-bound) or inside them (host-sync-stall). In each piece the thread was either in a
 * CUDA call (its API records: that time is the call's, whatever span encloses it, so
 * that a sync is never counted twice), or in one of its host spans (the stack, and the
 * off-CPU state, of a sample or of the profiler's innermost event), or in nothing the
 * trace shows ("not sampled"). Each piece's time is scaled so that the gap's part adds
 * up, then the finding's parts to the finding's gain, as the call sites are.
 *
 * What the thread did goes into one tree for the whole analysis, a node per frame called
 * from its parent's (report --host prints it), and each node knows its cause from the
 * frames on its path (the patterns below, one table). A finding lists activities: the
 * time spent below each first library frame (or operator, or CUDA call) the user's code
 * called, named by the path down to where most of it went, and the cause that takes
 * most of its gain: its fix replaces the rule's generic one, which would mislead (more
 * DataLoader workers slowed a timm ResNet-50 whose gaps were operator dispatch). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pipeline.h"
#include "util/api_names.h"
#include "util/array.h"
#include "util/idmap.h"
#include "util/pathfmt.h"
#include "util/timemath.h"
#include "util/tracer_work.h"

/* An activity is named by its deepest callee that takes at least this share of its
 * time: the frame the label ends at holds most of what its share says. (Each callee
 * half of its caller's, as before, named a Lightning Trainer.fit activity of 49 % by a
 * TensorDataset.__getitem__ that held 15 %.) */
#define SHARE_HOT 0.5
/* A cause that takes at least this share of a finding's gain gives the finding's fix; one
 * that takes at least SHARE_NOTABLE adds its fix to the rule's. */
#define SHARE_DOMINANT 0.5
#define SHARE_NOTABLE 0.25
/* An operator that ran this long a time on the host is computing, not dispatching: no
 * cause of its own (the frames say what). Profilers' events only: samples have no
 * event boundaries. */
#define LONG_STRETCH_NS 1000000.0

/* Path flags beyond the causes' bits (kg_host_node.flags). */
#define HOST_PATH_GENERATE (1u << 16) /* through transformers' generate */
#define HOST_PATH_CUDNN (1u << 17)    /* through cuDNN (its run-time compiled engines) */
#define HOST_PATH_LOADING (1u << 18)  /* in a launch call that loaded its kernel's code */

/* A CUDA call's node (KG_HOST_NODE_CALL) with this state: a launch call of
 * slow_launch_call_ns or more (analysis_slow_launch), which loaded or compiled its
 * kernel's code; its time is JIT compilation's, not dispatch. */
#define CALL_LOADING 1u

/* ------------------------------------------------------------------ causes */

static const char *const cause_ids[] = {
#define KG_HOST_CAUSE_ID_(id, name, what) name,
	KG_HOST_CAUSES(KG_HOST_CAUSE_ID_)
#undef KG_HOST_CAUSE_ID_
};
static const char *const cause_whats[] = {
#define KG_HOST_CAUSE_WHAT_(id, name, what) what,
	KG_HOST_CAUSES(KG_HOST_CAUSE_WHAT_)
#undef KG_HOST_CAUSE_WHAT_
};

static const char *const cause_fixes[KG_HOST_CAUSE_COUNT] = {
	[KG_HOST_CAUSE_TRACER] =
		"This time is the tracer's own (CUPTI's callbacks and buffers, the profiler's "
		"recorder), which the program does not pay untraced: take the other causes as "
		"the program's, and record with less (kgantt: --mode kernels or --stacks off; "
		"Nsight Systems: without --cudabacktrace, a lower --sampling-frequency; "
		"torch.profiler: with_stack=False).",
	[KG_HOST_CAUSE_LOCK] =
		"The launching thread waited for a lock or for the GIL while the GPU idled: "
		"another thread held it (a DataLoader thread, a logger, a metrics or "
		"checkpoint thread). Move that work to another process, release the GIL in "
		"native code, or take the lock off the launching thread's path.",
	[KG_HOST_CAUSE_GC] =
		"Python's garbage collector ran while the GPU waited: call gc.freeze() once "
		"the model and data are set up, raise its thresholds (gc.set_threshold), or "
		"gc.disable() during the steps and gc.collect() every N steps.",
	[KG_HOST_CAUSE_IMPORT] =
		"Python imported modules while the GPU waited: start-up, paid once before the "
		"loop, unless a lazy import (one inside a function, or a library's first use of "
		"a feature: torch._dynamo on an optimizer's first step) runs in the steps: import "
		"those modules at start-up, before the steps that count.",
	[KG_HOST_CAUSE_COMPILE] =
		"Compilation ran inside the work (Inductor, Triton, XLA): warm up before the "
		"steps that count, keep the compile caches between runs (TORCHINDUCTOR_"
		"FX_GRAPH_CACHE=1 and TORCHINDUCTOR_CACHE_DIR; JAX's jax_compilation_cache_dir) "
		"and avoid recompiling (steady shapes, dynamic=True or mark_dynamic).",
	[KG_HOST_CAUSE_COMPILED] =
		"The code torch.compile generated runs on the host between the kernels, a "
		"launch at a time: capture it in CUDA graphs (torch.compile(mode='reduce-"
		"overhead')) and remove graph breaks, so that more of the step is one graph.",
	[KG_HOST_CAUSE_DATA] =
		"The launching thread makes the batches itself: give the DataLoader worker "
		"processes (num_workers > 0, persistent_workers=True, prefetch_factor 2 or "
		"more) so that batches are ready before the step needs them, pin_memory=True "
		"with .to(device, non_blocking=True), and make __getitem__ and collate cheaper "
		"(tensors prepared once, batched transforms).",
	[KG_HOST_CAUSE_ALLOC] =
		"Memory was allocated while the GPU waited: reuse buffers instead of "
		"allocating each step (no torch.cuda.empty_cache() in the loop; "
		"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True), allocate pinned host "
		"buffers once, keep cudaMalloc and cudaFree out of the loop.",
	[KG_HOST_CAUSE_READ] =
		"The host read values back or logged each step (.item(), .cpu(), .tolist(), "
		"printing or logging tensors): keep the values on the GPU and read or log them "
		"every N steps, or from another thread.",
	[KG_HOST_CAUSE_SYNC] =
		"The launching thread waited in synchronising calls (cudaDeviceSynchronize, "
		"cudaStreamSynchronize, cudaEventSynchronize, a synchronous cudaMemcpy) until "
		"the GPU had nothing left to run, and queued the next work only then: "
		"synchronise only where the host needs a result (not after each kernel: a "
		"stream runs its work in order by itself), wait on an event of the one stream "
		"whose result it needs, and copy results with cudaMemcpyAsync into pinned "
		"memory, synchronising once a step.",
	[KG_HOST_CAUSE_IO] =
		"The launching thread blocked in I/O (files, network, checkpoints): move it off "
		"that thread (a DataLoader worker, a background thread, asynchronous "
		"checkpointing) or read ahead.",
	[KG_HOST_CAUSE_CPU] =
		"The launching thread computes on the CPU between its launches (operators on "
		"CPU tensors such as torch.randn without device=, NumPy, a CPU BLAS): make "
		"those tensors on the GPU (device='cuda'), or move the work to DataLoader "
		"workers or another process so that it overlaps the GPU's.",
	[KG_HOST_CAUSE_DISPATCH] =
		"The host spends the gaps dispatching many small operators, a launch at a "
		"time (Python and framework overhead per kernel; more DataLoader workers will "
		"not help): capture the step in a CUDA graph (torch.compile(mode='reduce-"
		"overhead'), torch.cuda.graphs), fuse operators with torch.compile, or give "
		"each kernel more work (larger batches).",
};

const char *host_cause_id(unsigned c)
{
	return c < KG_HOST_CAUSE_COUNT ? cause_ids[c] : cause_ids[KG_HOST_CAUSE_OTHER];
}

const char *host_cause_what(unsigned c)
{
	return c < KG_HOST_CAUSE_COUNT ? cause_whats[c] : cause_whats[KG_HOST_CAUSE_OTHER];
}

const char *host_cause_fix(unsigned c)
{
	return c < KG_HOST_CAUSE_COUNT ? cause_fixes[c] : NULL;
}

/* What a frame or call is matched on, and how. */
enum { ON_FUNCTION, ON_FILE, ON_MODULE, ON_CALL, ON_KIND, ON_STATE, ON_TRACER, ON_WAIT };
enum { HAS, IS, STARTS };

struct cause_pattern {
	uint8_t cause, on, how;
	const char *text;        /* ON_KIND, ON_STATE: unused (code) */
	unsigned code;
};

/* The one table of causes by frames: Python files as the profiler and the recorder write
 * them (relative to their sys.path entry, or whole), native functions and libraries, the
 * CUDA call the thread was in, off-CPU states. */
static const struct cause_pattern patterns[] = {
	{KG_HOST_CAUSE_TRACER, ON_TRACER, IS, NULL, 0}, /* kg_tracer_library */
	{KG_HOST_CAUSE_TRACER, ON_CALL, STARTS, "CUPTI's own work", 0}, /* model.tracer_spans */
	{KG_HOST_CAUSE_LOCK, ON_STATE, IS, NULL, KG_HOST_GIL_WAIT},
	{KG_HOST_CAUSE_LOCK, ON_FUNCTION, IS, "take_gil", 0},
	{KG_HOST_CAUSE_LOCK, ON_FUNCTION, IS, "pthread_mutex_lock", 0},
	{KG_HOST_CAUSE_LOCK, ON_FUNCTION, IS, "__lll_lock_wait", 0},
	{KG_HOST_CAUSE_LOCK, ON_FUNCTION, STARTS, "pthread_cond_", 0},
	{KG_HOST_CAUSE_LOCK, ON_FUNCTION, STARTS, "sem_wait", 0},
	{KG_HOST_CAUSE_LOCK, ON_FUNCTION, IS, "PyThread_acquire_lock_timed", 0},
	{KG_HOST_CAUSE_LOCK, ON_FUNCTION, HAS, "acquire of _thread.", 0},
	{KG_HOST_CAUSE_LOCK, ON_FILE, IS, "threading.py", 0},
	{KG_HOST_CAUSE_LOCK, ON_FILE, HAS, "/threading.py", 0},
	/* the import machinery: a module's body run by an import is the import's, whatever
	 * the module (torch/_dynamo/convert_frame.py imported is no compilation) */
	{KG_HOST_CAUSE_IMPORT, ON_FILE, HAS, "importlib._bootstrap", 0},
	{KG_HOST_CAUSE_IMPORT, ON_FUNCTION, IS, "PyImport_ImportModuleLevelObject", 0},
	{KG_HOST_CAUSE_IMPORT, ON_FUNCTION, IS, "import_find_and_load", 0},
	{KG_HOST_CAUSE_GC, ON_FUNCTION, IS, "<gc>", 0},
	{KG_HOST_CAUSE_GC, ON_FUNCTION, HAS, "built-in function collect>", 0},
	{KG_HOST_CAUSE_GC, ON_FUNCTION, IS, "gc_collect_main", 0},
	{KG_HOST_CAUSE_GC, ON_FUNCTION, IS, "gc_collect_region", 0},
	{KG_HOST_CAUSE_GC, ON_FUNCTION, IS, "_PyGC_Collect", 0},
	{KG_HOST_CAUSE_GC, ON_FUNCTION, IS, "PyGC_Collect", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_dynamo/convert_frame", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_dynamo/symbolic_convert", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_dynamo/output_graph", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_inductor/compile_fx", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_inductor/codecache", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_inductor/async_compile", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_inductor/codegen/", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_inductor/graph.py", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_inductor/scheduler.py", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_inductor/select_algorithm", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "torch/_functorch/aot_autograd", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "triton/compiler/", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "triton/runtime/autotuner", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FILE, HAS, "jax/_src/compiler", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FUNCTION, IS, "backend_compile", 0},
	{KG_HOST_CAUSE_COMPILE, ON_FUNCTION, IS, "compile_or_get_cached", 0},
	{KG_HOST_CAUSE_COMPILE, ON_MODULE, STARTS, "libnvrtc", 0},
	{KG_HOST_CAUSE_COMPILE, ON_MODULE, STARTS, "libnvJitLink", 0},
	{KG_HOST_CAUSE_COMPILE, ON_MODULE, STARTS, "libnvptxcompiler", 0},
	{KG_HOST_CAUSE_COMPILE, ON_CALL, STARTS, "cuModuleLoad", 0},
	{KG_HOST_CAUSE_COMPILE, ON_CALL, STARTS, "cuLibraryLoad", 0},
	{KG_HOST_CAUSE_COMPILE, ON_CALL, STARTS, "cuLink", 0},
	{KG_HOST_CAUSE_COMPILED, ON_FILE, HAS, "/torchinductor_", 0},
	{KG_HOST_CAUSE_COMPILED, ON_FUNCTION, HAS, "Torch-Compiled Region", 0},
	{KG_HOST_CAUSE_COMPILED, ON_FUNCTION, HAS, "CompiledFxGraph", 0},
	{KG_HOST_CAUSE_COMPILED, ON_FUNCTION, IS, "CompiledFunction", 0},
	{KG_HOST_CAUSE_DATA, ON_FILE, HAS, "torch/utils/data/", 0},
	{KG_HOST_CAUSE_DATA, ON_FILE, HAS, "torchvision/transforms", 0},
	{KG_HOST_CAUSE_DATA, ON_FILE, HAS, "torchvision/datasets", 0},
	{KG_HOST_CAUSE_DATA, ON_FILE, HAS, "torchvision/io", 0},
	{KG_HOST_CAUSE_DATA, ON_FILE, STARTS, "PIL/", 0},
	{KG_HOST_CAUSE_DATA, ON_FILE, HAS, "/PIL/", 0},
	{KG_HOST_CAUSE_DATA, ON_FILE, HAS, "webdataset/", 0},
	{KG_HOST_CAUSE_DATA, ON_FUNCTION, HAS, "enumerate(DataLoader)", 0},
	{KG_HOST_CAUSE_DATA, ON_FUNCTION, IS, "__getitem__", 0},
	{KG_HOST_CAUSE_DATA, ON_FUNCTION, HAS, "collate", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, IS, "malloc", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, IS, "free", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, IS, "calloc", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, IS, "realloc", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, STARTS, "_int_malloc", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, STARTS, "_int_free", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, STARTS, "__libc_malloc", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, STARTS, "mmap", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, STARTS, "munmap", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, HAS, "CUDACachingAllocator", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, HAS, "CachingHostAllocator", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, IS, "aten::pin_memory", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, IS, "aten::_pin_memory", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FUNCTION, IS, "aten::empty_pinned", 0},
	{KG_HOST_CAUSE_ALLOC, ON_FILE, HAS, "torch/cuda/memory.py", 0},
	{KG_HOST_CAUSE_ALLOC, ON_CALL, IS, NULL, KG_API_ALLOC}, /* by api_category */
	{KG_HOST_CAUSE_READ, ON_FUNCTION, IS, "aten::item", 0},
	{KG_HOST_CAUSE_READ, ON_FUNCTION, IS, "aten::_local_scalar_dense", 0},
	{KG_HOST_CAUSE_READ, ON_FUNCTION, HAS, "method item of", 0},
	{KG_HOST_CAUSE_READ, ON_FUNCTION, HAS, "method tolist of", 0},
	{KG_HOST_CAUSE_READ, ON_FUNCTION, HAS, "method cpu of", 0},
	{KG_HOST_CAUSE_READ, ON_FUNCTION, HAS, "method numpy of", 0},
	{KG_HOST_CAUSE_READ, ON_FUNCTION, HAS, "built-in function print>", 0},
	{KG_HOST_CAUSE_READ, ON_FUNCTION, IS, "builtin_print", 0},
	{KG_HOST_CAUSE_READ, ON_FILE, HAS, "logging/__init__.py", 0},
	{KG_HOST_CAUSE_READ, ON_FILE, HAS, "tqdm/", 0},
	{KG_HOST_CAUSE_READ, ON_FILE, HAS, "wandb/", 0},
	{KG_HOST_CAUSE_READ, ON_FILE, HAS, "tensorboard/", 0},
	/* a CUDA call, or a native frame of one (a static cudart's), that waits for the GPU:
	 * after reads, whose own fix is the one */
	{KG_HOST_CAUSE_SYNC, ON_WAIT, IS, NULL, 0},
	{KG_HOST_CAUSE_IO, ON_STATE, IS, NULL, KG_HOST_BLOCKED},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "read", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "__libc_read", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "write", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "__libc_write", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, STARTS, "pread", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, STARTS, "pwrite", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, STARTS, "recv", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "send", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "sendmsg", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "poll", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "__poll", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "select", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, IS, "epoll_wait", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, STARTS, "fsync", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, HAS, "method read of", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, HAS, "method write of", 0},
	{KG_HOST_CAUSE_IO, ON_FUNCTION, HAS, "built-in function open>", 0},
	{KG_HOST_CAUSE_IO, ON_FILE, HAS, "torch/serialization.py", 0},
	{KG_HOST_CAUSE_IO, ON_FILE, IS, "socket.py", 0},
	{KG_HOST_CAUSE_IO, ON_FILE, HAS, "/socket.py", 0},
	/* PyTorch's CPU kernels (its CPU-capability namespaces, the CPU generator), NumPy's
	 * core, CPU BLAS and OpenMP: before op-dispatch, whose frames call them */
	{KG_HOST_CAUSE_CPU, ON_FUNCTION, HAS, "::cpu::", 0},
	{KG_HOST_CAUSE_CPU, ON_FUNCTION, HAS, "at::native::DEFAULT::", 0},
	{KG_HOST_CAUSE_CPU, ON_FUNCTION, HAS, "at::native::AVX2::", 0},
	{KG_HOST_CAUSE_CPU, ON_FUNCTION, HAS, "at::native::AVX512::", 0},
	{KG_HOST_CAUSE_CPU, ON_FUNCTION, HAS, "CPUGeneratorImpl", 0},
	{KG_HOST_CAUSE_CPU, ON_FUNCTION, HAS, "cpu_serial_kernel", 0},
	{KG_HOST_CAUSE_CPU, ON_MODULE, STARTS, "_multiarray_umath", 0},
	{KG_HOST_CAUSE_CPU, ON_MODULE, STARTS, "libopenblas", 0},
	{KG_HOST_CAUSE_CPU, ON_MODULE, STARTS, "libmkl", 0},
	{KG_HOST_CAUSE_CPU, ON_MODULE, STARTS, "libgomp", 0},
	{KG_HOST_CAUSE_CPU, ON_MODULE, STARTS, "libdnnl", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_KIND, IS, NULL, KG_FRAME_OP},
	{KG_HOST_CAUSE_DISPATCH, ON_FUNCTION, STARTS, "nn.Module: ", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FUNCTION, HAS, "at::_ops::", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FUNCTION, HAS, "c10::Dispatcher", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FUNCTION, HAS, "torch::autograd::", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, HAS, "torch/nn/modules/", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, HAS, "torch/nn/functional.py", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, HAS, "torch/_tensor.py", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, HAS, "torch/autograd/", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, HAS, "torch/optim/", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, HAS, "torch/_ops.py", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, STARTS, "transformers/", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, HAS, "/transformers/", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, STARTS, "timm/", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_FILE, HAS, "/timm/", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_MODULE, STARTS, "libtorch", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_MODULE, STARTS, "libc10", 0},
	{KG_HOST_CAUSE_DISPATCH, ON_CALL, IS, NULL, KG_API_LAUNCH}, /* by api_category */
};

static int text_matches(const char *s, unsigned how, const char *p)
{
	if (!s || !*s)
		return 0;
	return how == IS ? !strcmp(s, p) : how == STARTS ? !strncmp(s, p, strlen(p))
							 : strstr(s, p) != NULL;
}

/* A CUDA call that waits for the GPU (api_blocks_host_call), by its name as CUPTI or a
 * native frame gives it: a C symbol ("cudaStreamSynchronize_v3020", "cuMemcpyDtoH_v2"),
 * not a C++ one ("cudaError cudaMalloc<double>(...)", "c10::cuda::..."). */
static int waits_for_gpu(const char *name)
{
	if (!name || strpbrk(name, " :<("))
		return 0;
	size_t n = !strncmp(name, "cuda", 4) ? 4 : !strncmp(name, "hip", 3) ? 3
						 : !strncmp(name, "cu", 2)    ? 2 : 0;
	if (!n || name[n] < 'A' || name[n] > 'Z')
		return 0;
	return api_blocks_host_call(api_category(name), name);
}

/* The causes' bits of one node: a frame, a call or a state. */
static uint32_t node_causes(const struct kg_model *m, const struct kg_host_node *n)
{
	const struct kg_frame *f = n->kind == KG_HOST_NODE_FRAME && n->frame != KG_NONE
					   ? &m->frames[n->frame] : NULL;
	const char *call = n->kind == KG_HOST_NODE_CALL ? model_text(m, n->name) : NULL;
	const char *fn = f ? model_text(m, f->function) : NULL, *file = f ? model_text(m, f->file) : NULL;
	const char *module = f && f->module ? path_base(model_text(m, f->module)) : NULL;
	uint32_t bits = 0;
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		const struct cause_pattern *p = &patterns[i];
		int hit = 0;
		switch (p->on) {
		case ON_FUNCTION: hit = text_matches(fn, p->how, p->text); break;
		case ON_FILE: hit = text_matches(file, p->how, p->text); break;
		case ON_MODULE: hit = text_matches(module, p->how, p->text); break;
		case ON_KIND: hit = f && f->kind == p->code; break;
		case ON_STATE: hit = n->kind == KG_HOST_NODE_STATE && n->state == p->code; break;
		case ON_TRACER: hit = module && kg_tracer_library(module); break;
		case ON_WAIT:
			hit = waits_for_gpu(call ? call : f && f->kind == KG_FRAME_NATIVE ? fn : NULL);
			break;
		case ON_CALL:
			hit = call && (p->text ? text_matches(call, p->how, p->text)
					       : api_category(call) == (enum kg_api_category)p->code);
			break;
		}
		if (hit)
			bits |= 1u << p->cause;
	}
	if (file && (strstr(file, "transformers/generation/") || !strncmp(file, "transformers/generation", 23)))
		bits |= HOST_PATH_GENERATE;
	if (module && !strncmp(module, "libcudnn", 8))
		bits |= HOST_PATH_CUDNN;
	if (n->kind == KG_HOST_NODE_CALL && n->state == CALL_LOADING)
		bits |= 1u << KG_HOST_CAUSE_COMPILE | HOST_PATH_LOADING;
	return bits;
}

/* The first cause of a path's bits (the list's order), OTHER when none. */
static uint8_t first_cause(uint32_t bits)
{
	for (unsigned c = 0; c < KG_HOST_CAUSE_OTHER; c++)
		if (bits & (1u << c))
			return (uint8_t)c;
	return KG_HOST_CAUSE_OTHER;
}

/* A node's bits under its parent's. Compiled code runs under the wrappers that compiled
 * it (aot_autograd's forward, compile_fx's run): a graph's generated code below them is
 * the graph running; a compiler below the generated code (Triton compiling its kernels at
 * their first call) is compilation. So of the two, the innermost frame's says which. */
static uint32_t inner_bits(uint32_t own, uint32_t parent)
{
	const uint32_t jit = (1u << KG_HOST_CAUSE_COMPILE) | (1u << KG_HOST_CAUSE_COMPILED);
	return own | (own & jit ? parent & ~jit : parent);
}

/* ------------------------------------------------------------------ spans' causes */

/* The causes' bits of a stack's frames: what the tree's path to its leaf gathers. */
static uint32_t stack_bits(const struct kg_model *m, uint32_t stack)
{
	uint32_t bits = 0;
	const struct kg_stack *st = &m->stacks[stack];
	for (uint32_t i = st->n_frames; i-- > 0;) { /* from the outermost, as the tree */
		struct kg_host_node n = {.kind = KG_HOST_NODE_FRAME, .frame = st->first_frame + i};
		bits = inner_bits(node_causes(m, &n), bits);
	}
	return bits;
}

#define STACK_SEEN (1u << 31) /* memo: the stack's bits are known */

uint8_t *host_span_causes(const struct kg_model *m)
{
	if (!m->n_host_spans)
		return NULL;
	uint8_t *cause = malloc(m->n_host_spans);
	/* by stack, the last for spans without one: samples repeat few stacks many times */
	uint32_t *memo = calloc((size_t)m->n_stacks + 1, sizeof(*memo));
	uint32_t state[8] = {0}; /* enum kg_host_state fits in 3 bits */
	if (!cause || !memo) {
		free(cause);
		free(memo);
		return NULL;
	}
	for (unsigned s = 0; s < 8; s++) {
		struct kg_host_node n = {.kind = KG_HOST_NODE_STATE, .state = (uint8_t)s};
		state[s] = host_state_off_cpu(s) ? node_causes(m, &n) : 0;
	}
	for (uint32_t i = 0; i < m->n_host_spans; i++) {
		const struct kg_host_span *h = &m->host_spans[i];
		uint32_t k = h->stack < m->n_stacks ? h->stack : m->n_stacks;
		if (!(memo[k] & STACK_SEEN))
			memo[k] = (k < m->n_stacks ? stack_bits(m, k) : 0) | STACK_SEEN;
		cause[i] = first_cause((memo[k] & ~STACK_SEEN) | state[h->state & 7]);
	}
	free(memo);
	return cause;
}

/* ------------------------------------------------------------------ the tree */

/* Stretches of a profiler's events seen in a node (for LONG_STRETCH_NS). */
struct stretch {
	uint32_t n;
	double ns;
};

struct host_ctx {
	struct kg_analysis *a;
	const struct kg_model *m;
	struct kg_host_table *t;
	struct kg_idmap children;     /* (parent, what) → node, probed and verified */
	struct kg_idmap leaves;       /* (stack, call, state) → leaf, probed and verified */
	struct leaf {
		uint32_t stack, call, node;
		uint8_t state, call_state;
	} *leaf;
	uint32_t n_leaf, cap_leaf;
	struct stretch *stretch;      /* by node, when counting */
	uint32_t cap_stretch;
	/* where each thread's spans begin (n_threads + 1) */
	uint32_t *span_first;
	/* API calls by (thread, start), blocking calls by (process, start) */
	struct ivals {
		uint32_t *id;         /* api indices */
		int64_t *end_max;     /* the latest end among the group's calls up to here */
		uint32_t *first;      /* by group: where its calls begin (groups + 1) */
	} calls, blocks;
	/* scratch: the pieces of a gap looked at, and the calls of a piece */
	struct piece {
		int64_t start, end;
		uint32_t api;
	} *pieces, *inside;
	uint32_t n_pieces, cap_pieces, n_inside, cap_inside;
	/* the tally being made: time by node */
	double *ns;
	uint32_t cap_ns;
	uint32_t *touched;
	uint32_t n_touched, cap_touched;
	uint32_t *sample_seen;        /* by host span: the finding that last counted it */
	uint32_t finding_id, samples; /* the finding being tallied, its samples so far */
	int counting;                 /* the trace's table: count the stretches */
	uint32_t unseen;              /* the root of the time no span covers */
};

/* A native frame of a library without a symbol. A run of them in one library, one called
 * by another, is one node, named by where the run entered the library (leaf_of): a
 * driver's twenty unnamed frames read as one "libcuda.so.1+0x2b1f40 (no symbols)", and a
 * stripped program's own frame keeps the offset that addr2line takes. Where the trace
 * has no module-relative addresses (an Nsight export), a library's are all one node. */
static int library_frame(const struct kg_frame *f)
{
	return f->kind == KG_FRAME_NATIVE && !f->function && f->module;
}

/* Two frames that are one node: the same function of the same file or library; lines
 * apart (a sample's innermost line moves) unless the line is a definition. */
static int same_place(const struct kg_frame *x, const struct kg_frame *y)
{
	if (x->kind != y->kind || x->function != y->function || x->file != y->file ||
	    x->module != y->module || x->flags != y->flags)
		return 0;
	if ((x->flags & KG_FRAME_DEF_LINE) && x->line != y->line)
		return 0;
	return x->function || x->address == y->address;
}

static uint64_t place_hash(const struct kg_frame *f)
{
	uint64_t h = idmap_mix(((uint64_t)f->function << 32) ^ f->file ^ ((uint64_t)f->kind << 60));
	h = idmap_mix(h ^ f->module ^ ((uint64_t)f->flags << 40));
	if (f->flags & KG_FRAME_DEF_LINE)
		h = idmap_mix(h ^ (uint32_t)f->line);
	if (!f->function)
		h = idmap_mix(h ^ f->address);
	return h;
}

static int same_node(const struct host_ctx *c, const struct kg_host_node *n, uint32_t parent,
		     uint8_t kind, uint32_t frame, uint32_t name, uint8_t state)
{
	if (n->parent != parent || n->kind != kind)
		return 0;
	switch (kind) {
	case KG_HOST_NODE_FRAME:
		if (frame == KG_NONE || n->frame == KG_NONE)
			return frame == n->frame;
		return same_place(&c->m->frames[n->frame], &c->m->frames[frame]);
	case KG_HOST_NODE_CALL: return n->name == name && n->state == state;
	case KG_HOST_NODE_STATE: return n->state == state;
	default: return 1;
	}
}

/* The node of (kind, frame, name, state) under parent (KG_NONE: a root), made when new.
 * KG_NONE when out of memory. */
static uint32_t child(struct host_ctx *c, uint32_t parent, uint8_t kind, uint32_t frame,
		      uint32_t name, uint8_t state)
{
	struct kg_host_table *t = c->t;
	const struct kg_frame *f = frame != KG_NONE ? &c->m->frames[frame] : NULL;
	uint64_t key = idmap_mix(((uint64_t)parent << 32) ^ ((uint64_t)kind << 8) ^ state);
	key = idmap_mix(key ^ (f ? place_hash(f) : 0) ^ ((uint64_t)name << 20));
	for (;; key = idmap_mix(key + 1)) {
		uint32_t *slot = idmap_slot(&c->children, key >> 1);
		if (!slot)
			return KG_NONE;
		if (*slot != KG_IDMAP_NONE) {
			struct kg_host_node *n = &t->nodes[*slot];
			if (!same_node(c, n, parent, kind, frame, name, state))
				continue;
			if (f && n->frame != KG_NONE && c->m->frames[n->frame].line != f->line)
				n->lines = 1;
			return *slot;
		}
		if (t->n_nodes >= UINT32_MAX - 1 ||
		    array_room((void **)&t->nodes, &t->cap_nodes, t->n_nodes, sizeof(*t->nodes),
			       256) < 0)
			return KG_NONE;
		struct kg_host_node *n = &t->nodes[t->n_nodes];
		*n = (struct kg_host_node){.parent = parent, .frame = frame, .name = name,
					   .kind = kind, .state = state};
		n->depth = parent == KG_NONE ? 1 : t->nodes[parent].depth + 1;
		uint32_t own = node_causes(c->m, n);
		n->flags = inner_bits(own, parent == KG_NONE ? 0 : t->nodes[parent].flags);
		/* a CUDA call says itself whether it waits: not a frame above it named like a
		 * wait (nsys names a stripped libcudart's frames by its nearest export: pipit's
		 * saxpy export has a launch under "cudaMemcpy") */
		if (kind == KG_HOST_NODE_CALL && !(own & (1u << KG_HOST_CAUSE_SYNC)))
			n->flags &= ~(1u << KG_HOST_CAUSE_SYNC);
		n->cause = first_cause(n->flags);
		*slot = t->n_nodes++;
		return *slot;
	}
}

/* The leaf of a stack (innermost first; KG_NONE: not known), the CUDA call the thread was
 * in (string id, 0: none; call_state: CALL_LOADING or 0) and its state: the path of
 * frames from the outermost, then the call, then an off-CPU state. KG_NONE when out of
 * memory. */
static uint32_t leaf_of(struct host_ctx *c, uint32_t stack, uint32_t call, uint8_t call_state,
			uint8_t state)
{
	const struct kg_model *m = c->m;
	if (!host_state_off_cpu(state))
		state = KG_HOST_RUNNING; /* one leaf for every on-CPU or unknown state */
	uint64_t key = idmap_mix(((uint64_t)stack << 32) ^ call) ^ ((uint64_t)state << 56) ^
		       ((uint64_t)call_state << 48);
	for (;; key = idmap_mix(key + 1)) {
		uint32_t *slot = idmap_slot(&c->leaves, key >> 1);
		if (!slot)
			return KG_NONE;
		if (*slot != KG_IDMAP_NONE) {
			const struct leaf *l = &c->leaf[*slot];
			if (l->stack != stack || l->call != call || l->state != state ||
			    l->call_state != call_state)
				continue;
			return l->node;
		}
		uint32_t node = KG_NONE; /* the parent so far: none, a root comes next */
		if (stack < m->n_stacks) {
			const struct kg_stack *st = &m->stacks[stack];
			for (uint32_t i = st->n_frames; i-- > 0;) {
				const struct kg_frame *f = &m->frames[st->first_frame + i];
				const struct kg_host_node *p = node != KG_NONE ? &c->t->nodes[node] : NULL;
				if (p && p->kind == KG_HOST_NODE_FRAME && p->frame != KG_NONE &&
				    library_frame(f) && library_frame(&m->frames[p->frame]) &&
				    f->module == m->frames[p->frame].module)
					continue; /* a run of one library's unnamed frames: one node */
				if ((node = child(c, node, KG_HOST_NODE_FRAME, st->first_frame + i, 0,
						  0)) == KG_NONE)
					return KG_NONE;
			}
		}
		if (node == KG_NONE && !call) /* a span whose stack is not known */
			node = child(c, KG_NONE, KG_HOST_NODE_FRAME, KG_NONE, 0, 0);
		else if (call)
			node = child(c, node, KG_HOST_NODE_CALL, KG_NONE, call, call_state);
		if (node != KG_NONE && host_state_off_cpu(state))
			node = child(c, node, KG_HOST_NODE_STATE, KG_NONE, 0, state);
		if (node == KG_NONE ||
		    array_room((void **)&c->leaf, &c->cap_leaf, c->n_leaf, sizeof(*c->leaf), 256) < 0)
			return KG_NONE;
		/* the table may have grown meanwhile: look the slot up again */
		if (!(slot = idmap_slot(&c->leaves, key >> 1)))
			return KG_NONE;
		c->leaf[c->n_leaf] = (struct leaf){stack, call, node, state, call_state};
		*slot = c->n_leaf++;
		return node;
	}
}

/* Time in a node, for the tally being made. 0, or -ENOMEM. */
static int tally(struct host_ctx *c, uint32_t node, double ns)
{
	if (node >= c->cap_ns) {
		uint32_t cap = c->t->cap_nodes > node ? c->t->cap_nodes : node + 1;
		double *p = realloc(c->ns, (size_t)cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + c->cap_ns, 0, (size_t)(cap - c->cap_ns) * sizeof(*p));
		c->ns = p;
		c->cap_ns = cap;
	}
	if (c->ns[node] == 0) {
		if (array_room((void **)&c->touched, &c->cap_touched, c->n_touched,
			       sizeof(*c->touched), 256) < 0)
			return -ENOMEM;
		c->touched[c->n_touched++] = node;
	}
	c->ns[node] += ns;
	return 0;
}

/* A profiler's stretch of an event in node (for LONG_STRETCH_NS). */
static int count_stretch(struct host_ctx *c, uint32_t node, double ns)
{
	if (node >= c->cap_stretch) {
		uint32_t cap = c->t->cap_nodes > node ? c->t->cap_nodes : node + 1;
		struct stretch *p = realloc(c->stretch, (size_t)cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		memset(p + c->cap_stretch, 0, (size_t)(cap - c->cap_stretch) * sizeof(*p));
		c->stretch = p;
		c->cap_stretch = cap;
	}
	c->stretch[node].n++;
	c->stretch[node].ns += ns;
	return 0;
}

/* ------------------------------------------------------------------ lookups */

static int call_cmp(const void *x, const void *y, void *arg)
{
	const struct kg_model *m = arg;
	const struct kg_api *a = &m->apis[*(const uint32_t *)x], *b = &m->apis[*(const uint32_t *)y];
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int block_cmp(const void *x, const void *y, void *arg)
{
	const struct kg_model *m = arg;
	const struct kg_api *a = &m->apis[*(const uint32_t *)x], *b = &m->apis[*(const uint32_t *)y];
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/* The calls of each thread (by_thread) or the blocking calls of each process, by start. */
static int ivals_build(struct ivals *v, const struct kg_model *m, int by_thread)
{
	uint32_t groups = by_thread ? m->n_threads : m->n_processes, n = 0;
	v->id = malloc(((size_t)m->n_apis + 1) * sizeof(*v->id));
	v->end_max = malloc(((size_t)m->n_apis + 1) * sizeof(*v->end_max));
	v->first = malloc(((size_t)groups + 1) * sizeof(*v->first));
	if (!v->id || !v->end_max || !v->first)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_apis; i++) {
		const struct kg_api *a = &m->apis[i];
		uint32_t g = by_thread ? a->thread : a->process;
		if (a->start != KG_NO_TIME && g < groups && (by_thread || api_blocks_host(m, a)))
			v->id[n++] = i;
	}
	qsort_r(v->id, n, sizeof(*v->id), by_thread ? call_cmp : block_cmp, (void *)m);
	uint32_t k = 0;
	for (uint32_t g = 0; g <= groups; g++) {
		v->first[g] = k;
		for (; k < n; k++) {
			const struct kg_api *a = &m->apis[v->id[k]];
			if ((by_thread ? a->thread : a->process) != g)
				break;
			int64_t e = api_end(a);
			v->end_max[k] = k > v->first[g] && v->end_max[k - 1] > e ? v->end_max[k - 1] : e;
		}
	}
	return 0;
}

static void ivals_free(struct ivals *v)
{
	free(v->id);
	free(v->end_max);
	free(v->first);
}

/* Appends to c->inside the calls of group g overlapping [s, e], clipped to it, in start
 * order, as disjoint pieces: where calls nest (a runtime call around the driver's), the
 * outer one. 0, or -ENOMEM. */
static int calls_in(struct host_ctx *c, const struct ivals *v, uint32_t g, int64_t s, int64_t e)
{
	const struct kg_model *m = c->m;
	uint32_t lo = v->first[g], hi = v->first[g + 1];
	c->n_inside = 0;
	while (lo < hi) { /* the first call that starts at e or later */
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->apis[v->id[mid]].start < e)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t k = lo;
	while (k > v->first[g] && v->end_max[k - 1] > s)
		k--;
	int64_t covered = s;
	for (; k < lo; k++) {
		const struct kg_api *a = &m->apis[v->id[k]];
		int64_t from = a->start > covered ? a->start : covered, to = api_end(a) < e ? api_end(a) : e;
		if (to <= from)
			continue;
		if (array_room((void **)&c->inside, &c->cap_inside, c->n_inside, sizeof(*c->inside),
			       16) < 0)
			return -ENOMEM;
		c->inside[c->n_inside++] = (struct piece){from, to, v->id[k]};
		covered = to;
	}
	return 0;
}

static int add_piece(struct host_ctx *c, int64_t s, int64_t e)
{
	if (e <= s)
		return 0;
	if (array_room((void **)&c->pieces, &c->cap_pieces, c->n_pieces, sizeof(*c->pieces), 16) < 0)
		return -ENOMEM;
	c->pieces[c->n_pieces++] = (struct piece){s, e, KG_NONE};
	return 0;
}

/* The pieces of [s, e] that `part` names, in c->pieces. 0, or -ENOMEM. */
static int gap_pieces(struct host_ctx *c, int64_t s, int64_t e, uint32_t process,
		      enum kg_idle_part part)
{
	c->n_pieces = 0;
	if (part == KG_IDLE_WHOLE || process >= c->m->n_processes)
		return add_piece(c, s, e);
	if (calls_in(c, &c->blocks, process, s, e) < 0)
		return -ENOMEM;
	int64_t at = s;
	for (uint32_t i = 0; i < c->n_inside; i++) {
		const struct piece *b = &c->inside[i];
		if ((part == KG_IDLE_HOST ? add_piece(c, at, b->start) : add_piece(c, b->start, b->end)) < 0)
			return -ENOMEM;
		at = b->end;
	}
	if (part == KG_IDLE_HOST && add_piece(c, at, e) < 0)
		return -ENOMEM;
	if (!c->n_pieces) /* nothing there (a call that only touched the gap): all of it */
		return add_piece(c, s, e);
	return 0;
}

/* The first span of thread t that ends after s (its spans do not overlap: ends rise). */
static uint32_t first_span_after(const struct host_ctx *c, uint32_t t, int64_t s)
{
	const struct kg_host_span *h = c->m->host_spans;
	uint32_t lo = c->span_first[t], hi = c->span_first[t + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (h[mid].end <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ------------------------------------------------------------------ attribution */

/* What thread t did in [s, e] (the thread's calls in c->inside): into the tally, each ns
 * times scale. The time no span or call covers goes to the unseen root. 0, or -ENOMEM. */
static int thread_in(struct host_ctx *c, uint32_t t, int64_t s, int64_t e, double scale,
		     uint32_t unseen)
{
	const struct kg_model *m = c->m;
	double seen = 0;
	for (uint32_t i = 0; i < c->n_inside; i++) {
		const struct piece *p = &c->inside[i];
		const struct kg_api *a = &m->apis[p->api];
		uint32_t node = leaf_of(c, a->stack, a->name,
					analysis_slow_launch(c->a, a) ? CALL_LOADING : 0,
					KG_HOST_RUNNING);
		double len = (double)(p->end - p->start);
		if (node == KG_NONE || tally(c, node, len * scale) < 0)
			return -ENOMEM;
		seen += len;
	}
	uint32_t k = first_span_after(c, t, s), in = 0;
	int64_t at = s; /* spans that break the rule and overlap are not counted twice */
	for (; k < c->span_first[t + 1] && m->host_spans[k].start < e; k++) {
		const struct kg_host_span *h = &m->host_spans[k];
		int64_t from = h->start > at ? h->start : at, to = h->end < e ? h->end : e;
		double len = 0;
		while (from < to) { /* less the calls inside it */
			while (in < c->n_inside && c->inside[in].end <= from)
				in++;
			int64_t stop = in < c->n_inside && c->inside[in].start < to ? c->inside[in].start : to;
			if (stop > from)
				len += (double)(stop - from);
			from = in < c->n_inside && c->inside[in].start < to ? c->inside[in].end : to;
		}
		if (to > at)
			at = to;
		if (len <= 0)
			continue;
		uint32_t node = leaf_of(c, h->stack, 0, 0, h->state);
		if (node == KG_NONE || tally(c, node, len * scale) < 0)
			return -ENOMEM;
		if (c->counting && h->source == KG_HOST_FROM_EVENTS && count_stretch(c, node, len) < 0)
			return -ENOMEM;
		c->t->sources |= 1u << h->source;
		if (h->source == KG_HOST_FROM_SAMPLES && c->sample_seen[k] != c->finding_id) {
			c->sample_seen[k] = c->finding_id; /* once a finding, however many gaps */
			c->samples++;
		}
		seen += len;
	}
	double rest = (double)(e - s) - seen;
	return rest > 0 ? tally(c, unseen, rest * scale) : 0;
}

/* The first of thread t's tracer spans (model.tracer_spans, by thread and start) that
 * ends after s, or the first of a later thread. */
static uint32_t first_tracer_after(const struct kg_model *m, uint32_t t, int64_t s)
{
	const struct kg_host_span *v = m->tracer_spans;
	uint32_t lo = 0, hi = m->n_tracer_spans;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid].thread < t || (v[mid].thread == t && v[mid].start < s))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && v[lo - 1].thread == t && v[lo - 1].end > s)
		lo--;
	return lo;
}

/* Thread t's time in [s, e), scaled: first the tracer's own work in it (CUPTI's overhead
 * records), whatever call or span encloses it, then what the thread's calls and spans
 * say of the rest. */
static int piece_in(struct host_ctx *c, uint32_t t, int64_t s, int64_t e, double scale)
{
	const struct kg_model *m = c->m;
	int64_t from = s;
	for (uint32_t k = first_tracer_after(m, t, s);
	     k < m->n_tracer_spans && m->tracer_spans[k].thread == t &&
	     m->tracer_spans[k].start < e && from < e;
	     k++) {
		const struct kg_host_span *x = &m->tracer_spans[k];
		int64_t a = x->start > from ? x->start : from, z = x->end < e ? x->end : e;
		if (z <= a)
			continue;
		if (a > from && (calls_in(c, &c->calls, t, from, a) < 0 ||
				 thread_in(c, t, from, a, scale, c->unseen) < 0))
			return -ENOMEM;
		uint32_t node = leaf_of(c, KG_NONE, m->tracer_name, 0, KG_HOST_RUNNING);
		if (node == KG_NONE || tally(c, node, (double)(z - a) * scale) < 0)
			return -ENOMEM;
		from = z;
	}
	if (from < e && (calls_in(c, &c->calls, t, from, e) < 0 ||
			 thread_in(c, t, from, e, scale, c->unseen) < 0))
		return -ENOMEM;
	return 0;
}

/* The part `part` of the gap [s, e] that next_op ended, ns of idle time: what its
 * launching thread did then, into the tally. 0, or -ENOMEM. */
static int attribute(struct host_ctx *c, int64_t s, int64_t e, uint32_t next_op,
		     enum kg_idle_part part, double ns)
{
	const struct kg_model *m = c->m;
	uint32_t unseen = c->unseen;
	if (!(ns > 0) || e <= s)
		return 0;
	const struct kg_op *o = next_op < m->n_ops ? &m->ops[next_op] : NULL;
	uint32_t t = model_op_launch_thread(m, next_op);
	uint32_t process = o ? m->streams[o->stream].process : KG_NONE;
	if (t >= m->n_threads) /* the launching thread is not known */
		return tally(c, unseen, ns);
	if (gap_pieces(c, s, e, process, part) < 0)
		return -ENOMEM;
	double len = 0;
	for (uint32_t i = 0; i < c->n_pieces; i++)
		len += (double)(c->pieces[i].end - c->pieces[i].start);
	for (uint32_t i = 0; i < c->n_pieces; i++)
		if (piece_in(c, t, c->pieces[i].start, c->pieces[i].end, ns / len) < 0)
			return -ENOMEM;
	return 0;
}

/* The cause of a node, told by its path, unless it is an operator that computed for long
 * stretches (a profiler's events say how long each ran). */
static uint8_t node_cause(const struct host_ctx *c, uint32_t node)
{
	const struct kg_host_node *n = &c->t->nodes[node];
	if (n->cause == KG_HOST_CAUSE_DISPATCH && node < c->cap_stretch && c->stretch[node].n &&
	    c->stretch[node].ns / c->stretch[node].n >= LONG_STRETCH_NS)
		return KG_HOST_CAUSE_OTHER;
	return n->cause;
}

/* ------------------------------------------------------------------ the trace's table */

/* Every steady idle gap of cause host or sync, whole, on every GPU. */
static int trace_table(struct host_ctx *c)
{
	struct kg_analysis *a = c->a;
	struct kg_host_table *t = c->t;
	c->counting = 1;
	for (uint32_t g = 0; g < a->n_gpus; g++)
		for (uint32_t i = 0; i < a->gpus[g].n_gaps; i++) {
			const struct kg_gap *gap = &a->gpus[g].gaps[i];
			if (gap->place != KG_GAP_STEADY ||
			    (gap->cause != KG_GAP_HOST && gap->cause != KG_GAP_SYNC))
				continue;
			double len = (double)kg_time_span(gap->end, gap->start);
			if (attribute(c, gap->start, gap->end, gap->next_op, KG_IDLE_WHOLE, len) < 0)
				return -ENOMEM;
			t->idle_ns += len;
			t->gaps++;
		}
	c->counting = 0;
	for (uint32_t i = 0; i < c->n_touched; i++) {
		uint32_t n = c->touched[i];
		t->nodes[n].self = c->ns[n];
		c->ns[n] = 0;
	}
	c->n_touched = 0;
	for (uint32_t n = t->n_nodes; n-- > 0;) { /* children come after their parents */
		struct kg_host_node *x = &t->nodes[n];
		x->total += x->self;
		if (x->parent != KG_NONE)
			t->nodes[x->parent].total += x->total;
		if (x->kind == KG_HOST_NODE_UNSEEN)
			t->unseen_ns += x->self;
		else
			t->cause_ns[node_cause(c, n)] += x->self;
	}
	return 0;
}

/* ------------------------------------------------------------------ findings */

static int by_ns(const void *x, const void *y)
{
	const struct kg_host_share *a = x, *b = y;
	if (a->ns != b->ns)
		return (a->ns < b->ns) - (a->ns > b->ns);
	return (a->entry > b->entry) - (a->entry < b->entry);
}

/* The first idle entry of blame index b or later. */
static uint32_t idle_from(const struct kg_analysis *a, uint32_t b)
{
	uint32_t lo = 0, hi = a->n_idle;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a->idle[mid].blame < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A frame of the user's code, or an annotation the user placed (record_function("step"),
 * an NVTX range): without Python frames (a profiler trace without with_stack) the
 * annotations are all that tells the user's steps apart. Annotations that name a cause
 * (the DataLoader's) are the framework's. */
static int user_node(const struct kg_model *m, const struct kg_host_node *x)
{
	if (x->kind != KG_HOST_NODE_FRAME || x->frame == KG_NONE)
		return 0;
	const struct kg_frame *f = &m->frames[x->frame];
	if (f->kind == KG_FRAME_ANNOTATION)
		return !(node_causes(m, x) & ((1u << KG_HOST_CAUSE_COUNT) - 1));
	return frame_is_users(m, f);
}

static int is_user_node(const struct host_ctx *c, uint32_t n)
{
	return user_node(c->m, &c->t->nodes[n]);
}

/* The activity a leaf's time belongs to (kg_host_share.entry): below the innermost user
 * frame on its path, the first node; the leaf itself when it is that frame; the root
 * when the path has no user frame. */
static uint32_t entry_of(const struct host_ctx *c, uint32_t leaf)
{
	const struct kg_host_node *nodes = c->t->nodes;
	uint32_t below = leaf;
	for (uint32_t x = leaf; x != KG_NONE; below = x, x = nodes[x].parent)
		if (is_user_node(c, x))
			return x == leaf ? leaf : below;
	return below;
}

/* Each node's callees as lists (first_child, next_sibling), for the hot paths. */
struct kids {
	uint32_t *first, *next;
};

static int kids_build(struct kids *k, const struct kg_host_table *t)
{
	k->first = malloc(((size_t)t->n_nodes + 1) * sizeof(*k->first));
	k->next = malloc(((size_t)t->n_nodes + 1) * sizeof(*k->next));
	if (!k->first || !k->next)
		return -ENOMEM;
	for (uint32_t n = 0; n < t->n_nodes; n++)
		k->first[n] = KG_NONE;
	for (uint32_t n = t->n_nodes; n-- > 0;) {
		uint32_t p = t->nodes[n].parent;
		k->next[n] = p != KG_NONE ? k->first[p] : KG_NONE;
		if (p != KG_NONE)
			k->first[p] = n;
	}
	return 0;
}

/* A frame of the tracer's own libraries (CUPTI, the recorder): the tracing cause's. */
static int tracer_frame(const struct host_ctx *c, uint32_t node)
{
	const struct kg_host_node *n = &c->t->nodes[node];
	return n->kind == KG_HOST_NODE_FRAME &&
	       (node_causes(c->m, n) & (1u << KG_HOST_CAUSE_TRACER));
}

/* Leaves' time ({node: leaf, ns}, n of them, in h) grouped in place by activity, each
 * named by its hot path, largest first; cause_ns gets each leaf's time by cause. acc:
 * zeros, one per node, left as they were. The number of activities. */
static uint32_t group_activities(struct host_ctx *c, const struct kids *k, struct kg_host_share *h,
				 uint32_t n_leaves, double *acc, double *cause_ns)
{
	const struct kg_host_table *t = c->t;
	uint32_t rows = 0;
	/* acc: each node's time from the leaves of its own activity; the entries' totals */
	for (uint32_t i = 0; i < n_leaves; i++) {
		uint32_t e = entry_of(c, h[i].node);
		h[i].entry = e;
		cause_ns[node_cause(c, h[i].node)] += h[i].ns;
		for (uint32_t x = h[i].node;; x = t->nodes[x].parent) {
			acc[x] += h[i].ns;
			if (x == e)
				break;
		}
	}
	uint32_t *walked = malloc(((size_t)n_leaves + 1) * sizeof(*walked)); /* the leaves */
	for (uint32_t i = 0; walked && i < n_leaves; i++)
		walked[i] = h[i].node;
	for (uint32_t i = 0; i < n_leaves; i++) { /* one row per activity, at its entry */
		uint32_t e = h[i].entry;
		if (acc[e] <= 0)
			continue;
		h[rows++] = (struct kg_host_share){e, e, 0, acc[e]};
		acc[e] = -acc[e]; /* taken; restored below */
	}
	for (uint32_t r = 0; r < rows; r++)
		acc[h[r].entry] = -acc[h[r].entry];
	for (uint32_t r = 0; r < rows; r++) { /* down while one callee takes half of it */
		uint32_t x = h[r].entry;
		/* a user's frame that spent the time itself: its callees are other activities */
		for (int own = !is_user_node(c, x); own;) {
			uint32_t best = KG_NONE;
			for (uint32_t y = k->first[x]; y != KG_NONE; y = k->next[y])
				if (acc[y] > 0 && (best == KG_NONE || acc[y] > acc[best]))
					best = y;
			if (best == KG_NONE || acc[best] < SHARE_HOT * acc[h[r].entry] ||
			    is_user_node(c, best) ||
			    (tracer_frame(c, x) && !tracer_frame(c, best)))
				break; /* the tracer's own function names it, not libgcc's unwinder */
			x = best;
		}
		h[r].node = x;
	}
	for (uint32_t r = 0; r < rows; r++)
		h[r].cause = node_cause(c, h[r].node);
	qsort(h, rows, sizeof(*h), by_ns);
	/* acc back to zeros: along each leaf's path up to its activity's entry */
	for (uint32_t i = 0; walked && i < n_leaves; i++)
		for (uint32_t x = walked[i]; x != KG_NONE && acc[x] != 0; x = t->nodes[x].parent)
			acc[x] = 0;
	if (!walked)
		for (uint32_t n = 0; n < t->n_nodes; n++)
			acc[n] = 0;
	free(walked);
	return rows;
}

/* What a cause's fix adds for the library the time was spent through. */
static const char *cause_fix_more(int cause, uint32_t paths)
{
	if (cause == KG_HOST_CAUSE_COMPILE && (paths & HOST_PATH_CUDNN))
		/* a transformers decoder on the H200: 76 % of the idle GPU in nvrtcCompileProgram
		 * under cuDNN's ExecutionPlanBuilder, every token (tests/fixtures/h200/host) */
		return " Here cuDNN compiles its fused kernels at run time (NVRTC, under "
		       "cudnn_frontend's ExecutionPlanBuilder) for every new shape: attention "
		       "over a KV cache that grows each decoded token is a new shape each token. "
		       "Keep the shapes fixed (transformers: generate(..., "
		       "cache_implementation='static')), or take another attention kernel (with "
		       "torch.nn.attention.sdpa_kernel(SDPBackend.FLASH_ATTENTION), or "
		       "torch.backends.cuda.enable_cudnn_sdp(False)).";
	if (cause == KG_HOST_CAUSE_COMPILE && (paths & HOST_PATH_LOADING))
		/* TraceLens's cold-start normalization trace on an MI300X: ten launch calls of
		 * 1 ms or more, 111-332 ms each, 1.04 s of its host-bound time */
		return " Here launch calls of slow_launch_call_ns or more (1 ms unless set) "
		       "loaded their kernels' code at the kernels' first launch (CUDA's lazy "
		       "module loading, HIP's code objects, or a JIT of PTX where the binary "
		       "has no code for this GPU): paid once per kernel, so measure after a "
		       "warm-up, or load the code at start-up (CUDA_MODULE_LOADING=EAGER) and "
		       "build for this GPU's architecture.";
	if (cause == KG_HOST_CAUSE_DISPATCH && (paths & HOST_PATH_GENERATE))
		return " For transformers' generate: a static KV cache (generate(..., "
		       "cache_implementation='static')) with torch.compile makes each token's "
		       "step one graph.";
	return "";
}

/* The leaf piece_in tallies CUPTI's overhead records to: measured time, not sampled. */
static int tracer_records_node(const struct host_ctx *c, uint32_t node)
{
	const struct kg_host_node *n = &c->t->nodes[node];
	return c->m->tracer_name && n->parent == KG_NONE && n->kind == KG_HOST_NODE_CALL &&
	       n->name == c->m->tracer_name;
}

/* A finding's shares from its leaves (f->host holds them as {node: leaf, ns} on entry):
 * its activities, the causes, the fix. */
static int finding_shares(struct host_ctx *c, const struct kids *k, struct kg_finding *f,
			  double *acc)
{
	const struct kg_host_table *t = c->t;
	for (uint32_t i = 0; i < f->n_host; i++) /* the leaves, before they are grouped */
		if (tracer_records_node(c, f->host[i].node))
			f->host_tracer_records_ns += f->host[i].ns;
	f->n_host = group_activities(c, k, f->host, f->n_host, acc, f->host_cause_ns);
	if (finding_host_few_samples(f))
		return 0; /* the rule's fix stays: a few samples say no cause */
	int best = -1;
	for (int x = 0; x < KG_HOST_CAUSE_OTHER; x++)
		if (f->host_cause_ns[x] > 0 && (best < 0 || f->host_cause_ns[x] > f->host_cause_ns[best]))
			best = x;
	if (best < 0 || f->host_cause_ns[best] < SHARE_NOTABLE * f->gain_ns)
		return 0;
	int dominant = f->host_cause_ns[best] >= SHARE_DOMINANT * f->gain_ns;
	if (dominant)
		f->host_cause = best;
	if ((f->rule == KG_RULE_LAUNCH_OVERHEAD && best == KG_HOST_CAUSE_DISPATCH) ||
	    (f->rule == KG_RULE_HOST_SYNC_STALL && best == KG_HOST_CAUSE_SYNC))
		return 0; /* what the rule says already, and its fix is the one */
	uint32_t paths = 0; /* the path flags of the activities of that cause */
	for (uint32_t i = 0; i < f->n_host; i++)
		if (f->host[i].cause == best)
			paths |= t->nodes[f->host[i].node].flags;
	if (!dominant) {
		/* a large part, not most (the rest the program's own code, say): the rule's
		 * fix stays, and the cause's follows it */
		finding_append(&f->fix, " Besides, %s took %.0f%% of it: %s%s",
			       host_cause_what((unsigned)best),
			       100.0 * f->host_cause_ns[best] / f->gain_ns,
			       host_cause_fix((unsigned)best), cause_fix_more(best, paths));
		return 0;
	}
	finding_set(&f->fix, "%s%s", host_cause_fix((unsigned)best), cause_fix_more(best, paths));
	return 0;
}

int host_idle_rule(unsigned r)
{
	return r == KG_RULE_HOST_BOUND || r == KG_RULE_HOST_SYNC_STALL ||
	       r == KG_RULE_LAUNCH_OVERHEAD;
}

/* A finding's tally, scaled to its gain, as leaves in f->host ({node, ns}) and the part
 * no span covers. 0, or -ENOMEM. */
static int finding_leaves(struct host_ctx *c, struct kg_finding *f)
{
	struct kg_analysis *a = c->a;
	double parts = 0;
	c->finding_id++;
	c->samples = 0;
	for (uint32_t k = idle_from(a, f->first_blame);
	     k < a->n_idle && a->idle[k].blame < f->first_blame + f->n_blame; k++) {
		const struct kg_idle *d = &a->idle[k];
		double ns = a->blame[d->blame].ns;
		if (attribute(c, d->start, d->end, d->next_op, (enum kg_idle_part)d->part, ns) < 0)
			return -ENOMEM;
		parts += ns;
	}
	f->host_samples = c->samples;
	double scale = parts > 0 ? f->gain_ns / parts : 0;
	int rc = c->n_touched && !(f->host = malloc(c->n_touched * sizeof(*f->host))) ? -ENOMEM : 0;
	for (uint32_t i = 0; i < c->n_touched; i++) {
		uint32_t n = c->touched[i];
		if (!rc && c->t->nodes[n].kind == KG_HOST_NODE_UNSEEN)
			f->host_unseen_ns += c->ns[n] * scale;
		else if (!rc && c->ns[n] > 0)
			f->host[f->n_host++] = (struct kg_host_share){n, n, 0, c->ns[n] * scale};
		c->ns[n] = 0;
	}
	c->n_touched = 0;
	return rc;
}

/* The whole table's activities (report --host's, diff's), from the nodes' own time. */
static int table_activities(struct host_ctx *c, const struct kids *k, double *acc)
{
	struct kg_host_table *t = c->t;
	double cause_ns[KG_HOST_CAUSE_COUNT] = {0};
	t->acts = malloc(((size_t)t->n_nodes + 1) * sizeof(*t->acts));
	if (!t->acts)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t x = 0; x < t->n_nodes; x++)
		if (t->nodes[x].self > 0 && t->nodes[x].kind != KG_HOST_NODE_UNSEEN)
			t->acts[n++] = (struct kg_host_share){x, x, 0, t->nodes[x].self};
	t->n_acts = group_activities(c, k, t->acts, n, acc, cause_ns);
	return 0;
}

static int findings_host(struct host_ctx *c)
{
	struct kg_analysis *a = c->a;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < a->findings.n; i++) {
		struct kg_finding *f = &a->findings.v[i];
		if (host_idle_rule(f->rule) && f->n_blame)
			rc = finding_leaves(c, f);
	}
	/* the tree is complete now: the activities */
	struct kids k = {0};
	double *acc = NULL;
	if (!rc && kids_build(&k, c->t) < 0)
		rc = -ENOMEM;
	if (!rc && !(acc = calloc((size_t)c->t->n_nodes + 1, sizeof(*acc))))
		rc = -ENOMEM;
	for (uint32_t i = 0; !rc && i < a->findings.n; i++) {
		struct kg_finding *f = &a->findings.v[i];
		if (!f->n_host)
			continue;
		rc = finding_shares(c, &k, f, acc);
	}
	if (!rc)
		rc = table_activities(c, &k, acc);
	free(k.first);
	free(k.next);
	free(acc);
	return rc;
}

static int unnamed_frame(const struct host_ctx *c, uint32_t node)
{
	const struct kg_host_node *n = &c->t->nodes[node];
	return n->kind == KG_HOST_NODE_FRAME && n->frame != KG_NONE &&
	       !c->m->frames[n->frame].function;
}

/* *v holds at least n doubles, the new ones 0 (the tree grows as waits are tallied).
 * 0, or -ENOMEM. */
static int grow_zeroed(double **v, uint32_t *cap, uint32_t n)
{
	if (n <= *cap)
		return 0;
	double *g = realloc(*v, (size_t)n * sizeof(*g));
	if (!g)
		return -ENOMEM;
	memset(g + *cap, 0, (size_t)(n - *cap) * sizeof(*g));
	*v = g;
	*cap = n;
	return 0;
}

/* A step's host wait this long is looked into (the report's outliers are longer). */
#define STEP_GAP_NS 1000000

/* Each step's longest wait of the host (analysis/steps.h: the launching thread's time
 * between two of the step's launches): what that thread did then, the node of the tree
 * that took most of it, so that an outlier step says where the host was. 0, or -ENOMEM. */
static int steps_host(struct host_ctx *c, struct kg_steps *st)
{
	const struct kg_model *m = c->m;
	double *acc = NULL; /* time under each node in the wait: its leaves', summed up; zero
			     * between waits (the nodes touched are zeroed after each) */
	uint32_t cap_acc = 0, *up = NULL, n_up = 0, cap_up = 0;
	int rc = 0;
	for (uint32_t s = 0; !rc && s < st->n; s++) {
		struct kg_step *x = &st->v[s];
		x->gap_node = KG_NONE;
		if (x->host_gap < STEP_GAP_NS || x->gap_thread >= m->n_threads ||
		    x->gap_end == KG_NO_TIME)
			continue;
		int64_t e = x->gap_end, b = kg_time_add(e, -x->host_gap);
		if (calls_in(c, &c->calls, x->gap_thread, b, e) < 0 ||
		    thread_in(c, x->gap_thread, b, e, 1.0, c->unseen) < 0 ||
		    grow_zeroed(&acc, &cap_acc, c->t->n_nodes + 1) < 0) {
			rc = -ENOMEM;
			break;
		}
		double seen = 0;
		for (uint32_t i = 0; !rc && i < c->n_touched; i++) {
			uint32_t leaf = c->touched[i];
			if (c->t->nodes[leaf].kind == KG_HOST_NODE_UNSEEN)
				continue;
			seen += c->ns[leaf];
			for (uint32_t n = leaf; n != KG_NONE; n = c->t->nodes[n].parent) {
				if (!(acc[n] > 0)) {
					if (array_room((void **)&up, &cap_up, n_up, sizeof(*up), 64) < 0) {
						rc = -ENOMEM;
						break;
					}
					up[n_up++] = n;
				}
				acc[n] += c->ns[leaf];
			}
		}
		/* the deepest node that holds half of what was seen: the leaves of a library's
		 * work (nvrtc's hundred frames) are each small, their caller is not */
		uint32_t best = KG_NONE;
		for (uint32_t i = 0; i < n_up; i++) {
			uint32_t n = up[i];
			if (acc[n] >= 0.5 * seen && seen > 0 &&
			    (best == KG_NONE || c->t->nodes[n].depth > c->t->nodes[best].depth))
				best = n;
		}
		/* a frame without a name (a library's unsymbolised code) says less than the
		 * named one that called it, which holds at least as much */
		while (best != KG_NONE && unnamed_frame(c, best) && c->t->nodes[best].parent != KG_NONE)
			best = c->t->nodes[best].parent;
		if (best != KG_NONE) {
			x->gap_node = best;
			x->gap_cause = node_cause(c, best);
			x->gap_share = (float)(acc[best] / (double)x->host_gap);
		}
		for (uint32_t i = 0; i < n_up; i++)
			acc[up[i]] = 0;
		n_up = 0;
		for (uint32_t i = 0; i < c->n_touched; i++)
			c->ns[c->touched[i]] = 0;
		c->n_touched = 0;
	}
	free(acc);
	free(up);
	return rc;
}

/* ------------------------------------------------------------------ run */

/* Where each thread's spans begin: they are in (thread, start) order (model_finish). */
static int index_spans(struct host_ctx *c)
{
	const struct kg_model *m = c->m;
	c->span_first = malloc(((size_t)m->n_threads + 1) * sizeof(*c->span_first));
	if (!c->span_first)
		return -ENOMEM;
	uint32_t k = 0;
	for (uint32_t t = 0; t <= m->n_threads; t++) {
		while (k < m->n_host_spans && m->host_spans[k].thread < t)
			k++;
		c->span_first[t] = k;
	}
	return 0;
}

int host_run(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	if (!m->n_host_spans)
		return 0; /* nothing to say: every output stays as it was */
	struct host_ctx c = {.a = a, .m = m, .t = &a->host};
	a->host.on = 1;
	c.unseen = child(&c, KG_NONE, KG_HOST_NODE_UNSEEN, KG_NONE, 0, 0);
	c.sample_seen = calloc(m->n_host_spans, sizeof(*c.sample_seen));
	int rc = c.unseen == KG_NONE || !c.sample_seen ? -ENOMEM : index_spans(&c);
	if (!rc)
		rc = ivals_build(&c.calls, m, 1);
	if (!rc)
		rc = ivals_build(&c.blocks, m, 0);
	if (!rc)
		rc = trace_table(&c);
	if (!rc)
		rc = findings_host(&c);
	if (!rc)
		rc = steps_host(&c, &a->steps);
	for (uint32_t g = 0; !rc && a->gpu_steps && g < a->n_gpus; g++)
		rc = steps_host(&c, &a->gpu_steps[g]);
	idmap_free(&c.children);
	idmap_free(&c.leaves);
	free(c.leaf);
	free(c.stretch);
	free(c.span_first);
	free(c.sample_seen);
	ivals_free(&c.calls);
	ivals_free(&c.blocks);
	free(c.pieces);
	free(c.inside);
	free(c.ns);
	free(c.touched);
	return rc;
}

void host_free(struct kg_analysis *a)
{
	free(a->host.nodes);
	free(a->host.acts);
	free(a->idle);
	memset(&a->host, 0, sizeof(a->host));
	a->idle = NULL;
	a->n_idle = a->cap_idle = 0;
}

/* ------------------------------------------------------------------ labels */

const char *host_node_name(const struct kg_analysis *a, uint32_t node, char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	const struct kg_host_node *n = &a->host.nodes[node];
	char api[96];
	switch (n->kind) {
	case KG_HOST_NODE_FRAME:
		if (n->frame == KG_NONE) {
			snprintf(buf, len, "a stack not known");
		} else {
			struct kg_frame f = m->frames[n->frame];
			if (n->lines)
				f.line = 0; /* it ran at several */
			frame_label(m, &f, buf, len);
		}
		break;
	case KG_HOST_NODE_CALL:
		snprintf(buf, len, "%s (CUDA%s)", api_display_name(model_text(m, n->name), api,
								   sizeof(api)),
			 n->state == CALL_LOADING ? ", loading the kernel's code" : "");
		break;
	case KG_HOST_NODE_STATE:
		snprintf(buf, len, "[%s]", host_state_name(n->state));
		break;
	default:
		snprintf(buf, len, "%s", a->host.sources & (1u << KG_HOST_FROM_SAMPLES)
						 ? "not sampled"
						 : "outside the trace's host events");
		break;
	}
	return buf;
}

#define LABEL_FRAMES 4 /* a longer path shows its two innermost and two outermost */

/* A frame of the import machinery (the import cause's own patterns): what it runs is the
 * module being imported, which names the time better than the machinery does. */
static int import_machinery(const struct kg_model *m, const struct kg_host_node *x)
{
	return x->kind == KG_HOST_NODE_FRAME && x->frame < m->n_frames &&
	       (node_causes(m, x) & (1u << KG_HOST_CAUSE_IMPORT));
}

const char *host_node_label(const struct kg_analysis *a, uint32_t node, char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	const struct kg_host_node *nodes = a->host.nodes;
	uint32_t path[256], n = 0;
	/* from the node outwards to the user's frame (or the root), the import machinery's
	 * frames left out: "convert_frame.py in <module> ← __init__.py in <module>" */
	for (uint32_t x = node; x != KG_NONE && n < 256; x = nodes[x].parent) {
		if (!import_machinery(m, &nodes[x]))
			path[n++] = x;
		if (x != node && user_node(m, &nodes[x]))
			break;
	}
	if (!n) /* nothing but the machinery (a stack cut at its outer end) */
		path[n++] = node;
	size_t at = 0;
	buf[0] = 0;
	for (uint32_t i = 0; i < n && at + 1 < len; i++) {
		if (n > LABEL_FRAMES && i == 2) {
			int w = snprintf(buf + at, len - at, " ← …");
			if (w < 0 || (size_t)w >= len - at)
				break;
			at += (size_t)w;
			i = n - 2;
		}
		char one[320];
		int w = snprintf(buf + at, len - at, "%s%s", i ? " ← " : "",
				 host_node_name(a, path[i], one, sizeof(one)));
		if (w < 0 || (size_t)w >= len - at)
			break; /* cut */
		at += (size_t)w;
	}
	return buf;
}

/* ------------------------------------------------------------------ the tree in order */

struct tree_walk {
	const struct kg_host_node *nodes;
	struct kids k;
	uint32_t *out, n;
	double min;
};

static int by_total(const void *x, const void *y, void *arg)
{
	const struct kg_host_node *nodes = arg;
	double a = nodes[*(const uint32_t *)x].total, b = nodes[*(const uint32_t *)y].total;
	if (a != b)
		return (a < b) - (a > b);
	return (*(const uint32_t *)x > *(const uint32_t *)y) - (*(const uint32_t *)x < *(const uint32_t *)y);
}

/* The nodes of list (n of them) worth showing, each followed by its own, depth first. */
static int walk(struct tree_walk *w, uint32_t *list, uint32_t n)
{
	qsort_r(list, n, sizeof(*list), by_total, (void *)w->nodes);
	for (uint32_t i = 0; i < n && w->nodes[list[i]].total >= w->min; i++) {
		uint32_t x = list[i], m = 0;
		w->out[w->n++] = x;
		for (uint32_t y = w->k.first[x]; y != KG_NONE; y = w->k.next[y])
			m++;
		uint32_t *kids = malloc(((size_t)m + 1) * sizeof(*kids));
		if (!kids)
			return -ENOMEM;
		m = 0;
		for (uint32_t y = w->k.first[x]; y != KG_NONE; y = w->k.next[y])
			kids[m++] = y;
		int rc = walk(w, kids, m);
		free(kids);
		if (rc < 0)
			return rc;
	}
	return 0;
}

uint32_t *host_tree(const struct kg_analysis *a, double min_share, uint32_t *n)
{
	const struct kg_host_table *t = &a->host;
	struct tree_walk w = {.nodes = t->nodes, .min = min_share * t->idle_ns};
	uint32_t *roots = malloc(((size_t)t->n_nodes + 1) * sizeof(*roots)), n_roots = 0;
	w.out = malloc(((size_t)t->n_nodes + 1) * sizeof(*w.out));
	int rc = roots && w.out ? kids_build(&w.k, t) : -ENOMEM;
	for (uint32_t x = 0; !rc && x < t->n_nodes; x++)
		if (t->nodes[x].parent == KG_NONE && t->nodes[x].total > 0)
			roots[n_roots++] = x;
	if (!rc)
		rc = walk(&w, roots, n_roots);
	free(roots);
	free(w.k.first);
	free(w.k.next);
	if (rc) {
		free(w.out);
		return NULL;
	}
	*n = w.n;
	return w.out;
}
