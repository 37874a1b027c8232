/* Call sites: which lines of the program caused each finding, and how much of its gain.
 *
 * A rule lists the events behind its finding with their part of the gain (analysis_blame:
 * a synchronising call and the idle time after it; a launch and the gap before its
 * kernel; a copy and the time pinned memory would save). Each event's API call has a
 * stack (the recorder's, or the operators and Python functions of a PyTorch profiler
 * trace), and each stack one site: the innermost frame of the user's own code, the
 * framework operator it called, and the API function. A kernel whose launch got no stack
 * (launches are sampled) takes the site of the launch with a stack nearest to it in time
 * of the same kernel in the most specific place that has one (the operations around it on
 * its stream, place_key); an asynchronous memset (sampled as launches are) likewise
 * (sampled_site).
 *
 * A site's gain over all findings counts each event once, at its largest share: findings
 * overlap (host-bound and launch-overhead both claim the gap before a late launch), and
 * summing them put a site at 160 % of the span (site_totals). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "util/cxx_name.h"
#include "util/api_names.h"
#include "util/array.h"
#include "util/idmap.h"
#include "util/pathfmt.h"

/* ------------------------------------------------------------------ whose code */

static int contains(const char *s, const char *part)
{
	return s && strstr(s, part) != NULL;
}

/* Packages and standard modules whose frames are not the user's. The PyTorch profiler
 * writes file names relative to the sys.path entry they were found in ("torch/nn/
 * modules/module.py", "typing.py"), so the first component is all there is to go by. */
static int library_python_path(const char *file)
{
	static const char *const tops[] = {
		"torch", "torchvision", "torchaudio", "triton", "transformers", "accelerate",
		"deepspeed", "megatron", "apex", "lightning", "pytorch_lightning", "numpy", "jax",
		"flax", "optax", "cupy", "tensorflow", "keras", "timm", "peft", "datasets",
		"safetensors", "tokenizers", "einops", "importlib", "concurrent", "multiprocessing",
		"asyncio", "collections", "json", "logging", "unittest", "threading", "contextlib",
		"functools", "typing", "traceback", "abc", "runpy", "queue", "selectors", "socket",
		"copy", "inspect", "enum", "dataclasses", "weakref", "warnings", "os", "posixpath",
		"genericpath", "random", "codecs", "linecache", "tokenize", "pickle", "copyreg",
	};
	if (*file == '/')
		return 0;
	size_t n = strcspn(file, "/.");
	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++)
		if (strlen(tops[i]) == n && !strncmp(file, tops[i], n))
			return 1;
	return 0;
}

/* The module torch.compile wrote for a graph (Inductor's output code, under
 * /tmp/torchinductor_USER/xx/HASH.py): its HASH, NULL for any other file. */
static const char *compiled_graph(const char *file)
{
	const char *dir = file ? strstr(file, "/torchinductor_") : NULL;
	size_t n = file ? strlen(file) : 0;
	if (!dir || n < 4 || strcmp(file + n - 3, ".py"))
		return NULL;
	return path_base(file);
}

/* A Python file of the user's, not of the interpreter, an installed package or a
 * framework, nor code torch.compile generated: where the user can change something. */
static int user_python_file(const char *file)
{
	if (!file || !*file || *file == '<' || compiled_graph(file))
		return 0; /* <frozen importlib._bootstrap>, <string>, built-ins */
	if (contains(file, "/site-packages/") || contains(file, "/dist-packages/") ||
	    library_python_path(file))
		return 0;
	/* the standard library: .../lib/python3.12/x.py */
	const char *lib = strstr(file, "/lib/python");
	if (lib && strchr(lib + 11, '/'))
		return 0;
	return 1;
}

/* Libraries whose frames are never the user's call site: the CUDA stack, the C and C++
 * runtimes, the interpreter and the frameworks. */
static int runtime_module(const char *module)
{
	static const char *const libs[] = {
		"libcuda.", "libcudart", "libcupti", "libnvidia", "libcublas", "libcudnn",
		"libnccl", "libcufft", "libcurand", "libcusparse", "libcusolver", "libnvrtc",
		"libnvJitLink", "libtorch", "libc10", "libpython", "libc.", "libc-", "libstdc++",
		"libgcc_s", "libpthread", "libm.", "libdl.", "ld-linux", "libkgantt", "libtriton",
		"libjax", "libxla", "libcupy", "libopenblas", "libgomp", "libmpi", "libucp", "libucs",
	};
	if (!module || !*module)
		return 0;
	if (contains(module, "/site-packages/") || contains(module, "/dist-packages/") ||
	    contains(module, "/usr/local/cuda") || !strncmp(module, "/lib/", 5) ||
	    !strncmp(module, "/lib64/", 7) || !strncmp(module, "/usr/lib", 8))
		return 1;
	const char *b = path_base(module);
	if (!strncmp(b, "python", 6))
		return 1; /* the interpreter's own executable */
	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (!strncmp(b, libs[i], strlen(libs[i])))
			return 1;
	return 0;
}

/* "at::_ops::item::call" (PyTorch's operator entry points, in libtorch's symbols) →
 * "aten::item" in buf; 0 when the function is not one. */
static int aten_op_of(const char *fn, char *buf, size_t len)
{
	const char *p = strstr(fn, "at::_ops::");
	if (!p)
		return 0;
	p += 10;
	const char *e = strstr(p, "::");
	if (!e || e == p || (strncmp(e, "::call", 6) && strncmp(e, "::redispatch", 12)))
		return 0;
	snprintf(buf, len, "aten::%.*s", (int)(e - p), p);
	return 1;
}

#define FRAME_NAME_WIDTH 72 /* bytes of a native function's name in a frame's label */

void frame_label(const struct kg_model *m, const struct kg_frame *f, char *buf, size_t len)
{
	if (!f) {
		buf[0] = '\0';
		return;
	}
	const char *fn = model_text(m, f->function);
	const char *file = model_text(m, f->file);
	if (!*fn && f->module && f->kind == KG_FRAME_NATIVE) {
		if (f->address) /* the instruction's, in the library: addr2line -e LIB ADDR */
			snprintf(buf, len, "%s+0x%llx (no symbols)",
				 path_base(model_text(m, f->module)),
				 (unsigned long long)(f->address - 1));
		else
			snprintf(buf, len, "%s (no symbols)", path_base(model_text(m, f->module)));
		return;
	}
	if (!*fn && !f->module && f->kind == KG_FRAME_NATIVE && f->address) {
		/* no file maps it: the kernel's vDSO (under clock_gettime) or code generated at
		 * run time */
		snprintf(buf, len, "0x%llx (no file: the vDSO or generated code)",
			 (unsigned long long)f->address);
		return;
	}
	if (!*fn)
		fn = "?";
	/* a C++ frame's full name runs to lines of templates (absl's hash sets, PyTorch's
	 * TensorIterator lambdas); its module and the path around it tell it apart */
	char brief[FRAME_NAME_WIDTH * 2];
	if (f->kind == KG_FRAME_NATIVE && strlen(fn) > FRAME_NAME_WIDTH)
		fn = cxx_short_name(fn, FRAME_NAME_WIDTH, brief, sizeof(brief));
	const char *graph = compiled_graph(file);
	if (graph) /* its hash and line mean nothing to the user; which graph it is does */
		snprintf(buf, len, "%s in compiled graph %.8s (torch.compile)", fn, graph);
	else if (*file && f->line > 0 && (f->flags & KG_FRAME_DEF_LINE))
		snprintf(buf, len, "%s (%s, defined at line %d)", fn, path_base(file), f->line);
	else if (*file && f->line > 0)
		snprintf(buf, len, "%s:%d in %s", path_base(file), f->line, fn);
	else if (*file)
		snprintf(buf, len, "%s in %s", path_base(file), fn);
	else if (f->module)
		snprintf(buf, len, "%s (%s)", fn, path_base(model_text(m, f->module)));
	else
		snprintf(buf, len, "%s", fn);
}

/* A function of CUDA's own that nvcc puts in the user's binary: the runtime it links
 * statically by default (cudaLaunchKernel, __cudart1050) and cuda_runtime.h's templates
 * ("cudaError cudaMalloc<double>(double**, unsigned long)"). An Nsight export names them
 * without a file, often by the nearest export (Extra-P's and pipit's exports: a launch
 * "at cudaDeviceSynchronize (ex-gpu)"). */
static int cuda_own_function(const char *fn)
{
	if (!strncmp(fn, "cudaError_t ", 12))
		fn += 12;
	else if (!strncmp(fn, "cudaError ", 10))
		fn += 10;
	return !strncmp(fn, "__cudart", 8) ||
	       (!strncmp(fn, "cuda", 4) && fn[4] >= 'A' && fn[4] <= 'Z');
}

/* Code nvcc wrote into the user's binary around a <<<...>>> launch (the launch stub and
 * the CUDA headers inlined into it) or CUDA's own code linked into it: the user's line is
 * the caller. */
static int nvcc_stub(const struct kg_model *m, const struct kg_frame *f)
{
	const char *fn = f->function ? model_text(m, f->function) : "";
	const char *file = f->file ? model_text(m, f->file) : "";
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	return !strncmp(fn, "__device_stub_", 14) || !strncmp(fn, "__cudaLaunch", 12) ||
	       cuda_own_function(fn) ||
	       !strcmp(base, "device_functions.h") || !strcmp(base, "cuda_runtime.h") ||
	       !strcmp(base, "host_runtime.h") || strstr(file, "/cuda/include/") ||
	       strstr(file, "/targets/x86_64-linux/include/") || !strncmp(base, "tmpxft_", 7);
}

int frame_is_users(const struct kg_model *m, const struct kg_frame *f)
{
	if (f->kind == KG_FRAME_PYTHON)
		return user_python_file(model_text(m, f->file));
	return f->kind == KG_FRAME_NATIVE && f->module &&
	       !runtime_module(model_text(m, f->module)) && !nvcc_stub(m, f);
}

/* The user's frame of a stack: its innermost Python frame in the user's files, else its
 * innermost native frame in the user's own binaries; else the innermost Python frame at
 * all. KG_NONE when none. */
uint32_t stack_user_frame(const struct kg_model *m, const struct kg_stack *s)
{
	uint32_t any_python = KG_NONE;
	for (uint32_t i = 0; i < s->n_frames; i++) {
		const struct kg_frame *f = &m->frames[s->first_frame + i];
		if (f->kind == KG_FRAME_PYTHON) {
			if (user_python_file(model_text(m, f->file)))
				return s->first_frame + i;
			if (any_python == KG_NONE)
				any_python = s->first_frame + i;
		}
	}
	int after_device_stub = 0;
	for (uint32_t i = 0; i < s->n_frames; i++) {
		const struct kg_frame *f = &m->frames[s->first_frame + i];
		if (f->kind != KG_FRAME_NATIVE || !f->module || runtime_module(model_text(m, f->module)))
			continue;
		if (nvcc_stub(m, f)) {
			after_device_stub |= f->function &&
					     !strncmp(model_text(m, f->function), "__device_stub_", 14);
			continue;
		}
		/* the host function nvcc names after the kernel calls its __device_stub_: its
		 * line is the kernel's definition; the launch is in its caller */
		if (after_device_stub) {
			after_device_stub = 0;
			continue;
		}
		/* a stripped binary of the user's still names the place: module + address */
		return s->first_frame + i;
	}
	return any_python;
}

/* The operator the user's frame called: the outermost operator frame inside it (the
 * aten::item the line called, not the aten::_local_scalar_dense it called in turn); without
 * one, the graph torch.compile made of it, when the calls ran in one. */
static void op_of(const struct kg_model *m, const struct kg_stack *s, uint32_t user, uint32_t *frame,
		  char *name, size_t len)
{
	uint32_t end = user != KG_NONE ? user - s->first_frame : s->n_frames;
	*frame = KG_NONE;
	name[0] = '\0';
	for (uint32_t i = end; i-- > 0;) {
		const struct kg_frame *f = &m->frames[s->first_frame + i];
		if (f->kind == KG_FRAME_OP) {
			*frame = s->first_frame + i;
			snprintf(name, len, "%s", model_text(m, f->function));
			return;
		}
		if (f->kind == KG_FRAME_NATIVE && f->function &&
		    aten_op_of(model_text(m, f->function), name, len)) {
			*frame = s->first_frame + i;
			return;
		}
	}
	for (uint32_t i = end; i-- > 0;) {
		const struct kg_frame *f = &m->frames[s->first_frame + i];
		const char *graph = f->kind == KG_FRAME_PYTHON ? compiled_graph(model_text(m, f->file))
							       : NULL;
		if (graph) {
			*frame = s->first_frame + i;
			snprintf(name, len, "compiled graph %.8s", graph);
			return;
		}
	}
}

/* ------------------------------------------------------------------ sites */

struct site_table {
	struct kg_analysis *a;
	struct kg_idmap by_key;       /* site key → site */
	struct kg_idmap *of_call;     /* (stack, API name) → site: analysis.call_sites */
	uint32_t cap;
};

static uint64_t site_key(uint32_t user_fn, uint32_t user_file, int32_t line, uint32_t op_hash,
			 uint32_t api)
{
	uint64_t h = idmap_mix(((uint64_t)user_fn << 32) | user_file);
	h = idmap_mix(h ^ ((uint64_t)(uint32_t)line << 32 | op_hash));
	return idmap_mix(h ^ api) >> 1;
}

static uint32_t op_hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

/* The site of a call with a stack: made once per stack. */
static uint32_t site_of(struct site_table *t, const struct kg_api *call)
{
	struct kg_analysis *a = t->a;
	const struct kg_model *m = a->m;
	const struct kg_stack *s = &m->stacks[call->stack];
	uint32_t uf = stack_user_frame(m, s), opf;
	char op[sizeof(a->sites[0].op)];
	op_of(m, s, uf, &opf, op, sizeof(op));
	const struct kg_frame *f = uf != KG_NONE ? &m->frames[uf] : NULL;
	uint64_t key = site_key(f ? f->function : 0, f ? f->file : 0, f ? f->line : 0,
				op_hash(op), call->name);
	for (int probe = 0; probe < 16; probe++, key = idmap_mix(key + 1) >> 1) {
		uint32_t *slot = idmap_slot(&t->by_key, key);
		if (!slot)
			return KG_NONE;
		if (*slot != KG_IDMAP_NONE) {
			const struct kg_site *x = &a->sites[*slot];
			const struct kg_frame *g = x->user_frame != KG_NONE ? &m->frames[x->user_frame]
									    : NULL;
			int same_user = (!f && !g) || (f && g && f->function == g->function &&
						       f->file == g->file && f->line == g->line);
			if (same_user && x->api_name == call->name && !strcmp(x->op, op))
				return *slot;
			continue;
		}
		if (array_room((void **)&a->sites, &t->cap, a->n_sites, sizeof(*a->sites), 64) < 0)
			return KG_NONE;
		struct kg_site *x = &a->sites[a->n_sites];
		memset(x, 0, sizeof(*x));
		x->stack = call->stack;
		x->user_frame = uf;
		x->op_frame = opf;
		snprintf(x->op, sizeof(x->op), "%s", op);
		x->api_name = call->name;
		char user[200], api[96];
		frame_label(m, f, user, sizeof(user));
		api_display_name(model_text(m, call->name), api, sizeof(api));
		if (*user && *op)
			snprintf(x->label, sizeof(x->label), "%s → %s → %s", user, op, api);
		else if (*user)
			snprintf(x->label, sizeof(x->label), "%s → %s", user, api);
		else if (*op)
			snprintf(x->label, sizeof(x->label), "%s → %s", op, api);
		else
			snprintf(x->label, sizeof(x->label), "%s (no frame of the program's own)", api);
		*slot = a->n_sites++;
		return *slot;
	}
	return KG_NONE;
}

static uint64_t call_key(uint32_t stack, uint32_t api_name)
{
	return ((uint64_t)stack << 32 | api_name) & (UINT64_MAX >> 1);
}

/* A stack is one place, but a profiler's operator stack is shared by the calls of several
 * API functions: a site is a stack and an API function. */
static uint32_t stack_site(struct site_table *t, const struct kg_api *call)
{
	if (call->stack == KG_NONE || call->stack >= t->a->m->n_stacks)
		return KG_NONE;
	uint32_t *c = idmap_slot(t->of_call, call_key(call->stack, call->name));
	if (!c)
		return KG_NONE;
	if (*c == KG_IDMAP_NONE)
		*c = site_of(t, call);
	return *c;
}

uint32_t analysis_call_site(const struct kg_analysis *a, uint32_t api)
{
	if (!a->call_sites || api >= a->m->n_apis || a->m->apis[api].stack == KG_NONE)
		return KG_NONE;
	const struct kg_api *c = &a->m->apis[api];
	return idmap_get(a->call_sites, call_key(c->stack, c->name));
}

void analysis_free_sites(struct kg_analysis *a)
{
	if (a->call_sites)
		idmap_free(a->call_sites);
	free(a->call_sites);
	a->call_sites = NULL;
	free(a->sites);
	a->sites = NULL;
	a->n_sites = 0;
	launch_stacks_free(&a->launch_stacks);
}

/* ------------------------------------------------------------------ unsampled launches */

static uint64_t kernel_key(const struct kg_model *m, const struct kg_op *o)
{
	return ((uint64_t)m->streams[o->stream].process << 32) | o->name;
}

/* An operation's shape: its name (a kernel's, a copy's label) and its launch settings
 * (grid, block, shared memory). UINT64_MAX past the stream's ends. */
static uint64_t op_shape(const struct kg_model *m, const struct kg_stream *s, uint32_t i, int step)
{
	int64_t j = (int64_t)i + step;
	if (j < s->first_op || j >= (int64_t)s->first_op + s->nops)
		return UINT64_MAX;
	return (uint64_t)m->ops[j].launch << 32 | m->ops[j].name;
}

/* Op i's kernel in its place, from the most specific level to the least:
 *   4  its own shape and those of the two operations before and after it on its stream;
 *   3  the same, one on each side;
 *   2  its shape and the shape of the one before;
 *   1  its name and the name of the one before;
 *   0  its name alone.
 * A GEMM launched from three lines of a transformer block runs in three places, and the
 * shapes around it tell two of them apart where the names alone do not (the same
 * elementwise kernel before both; measured on the H200's every-launch traces,
 * docs/results/sampled-launches-h200.md). Each level has a table of its own. */
static uint64_t place_key(const struct kg_model *m, uint32_t i, int level)
{
	const struct kg_stream *s = &m->streams[m->ops[i].stream];
	uint64_t k = kernel_key(m, &m->ops[i]);
	if (level == 0)
		return k;
	if (level == 1) /* a shape's low half is the name */
		return idmap_mix(k ^ idmap_mix((uint32_t)op_shape(m, s, i, -1)));
	static const int around[5][2] = {[2] = {-1, 0}, [3] = {-1, 1}, [4] = {-2, 2}};
	for (int d = around[level][0]; d <= around[level][1]; d++)
		k = idmap_mix(k ^ idmap_mix(op_shape(m, s, i, d) + (uint64_t)(d + 2)));
	return k;
}

static int by_key_time(const void *p, const void *q)
{
	const struct kg_place_entry *a = p, *b = q;
	if (a->key != b->key)
		return (a->key > b->key) - (a->key < b->key);
	return (a->t > b->t) - (a->t < b->t);
}

/* Every launch of the model with a stack, in the tables of its places. */
static int launch_stacks_build(const struct kg_model *m, struct kg_launch_stacks *ls)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_ops; i++)
		n += m->ops[i].api != KG_NONE && m->apis[m->ops[i].api].stack != KG_NONE;
	if (n == m->n_ops) /* every operation has its own (record --stacks all) */
		return 0;
	for (int l = 0; l < KG_PLACE_LEVELS; l++)
		if (!(ls->e[l] = malloc(((size_t)n + 1) * sizeof(*ls->e[l]))))
			return -ENOMEM;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->api == KG_NONE || m->apis[o->api].stack == KG_NONE)
			continue;
		const struct kg_api *c = &m->apis[o->api];
		for (int l = 0; l < KG_PLACE_LEVELS; l++)
			ls->e[l][ls->n] = (struct kg_place_entry){place_key(m, i, l), o->start,
								  c->stack, c->name};
		ls->n++;
	}
	for (int l = 0; l < KG_PLACE_LEVELS; l++)
		qsort(ls->e[l], ls->n, sizeof(*ls->e[l]), by_key_time);
	return 0;
}

void launch_stacks_free(struct kg_launch_stacks *ls)
{
	for (int l = 0; l < KG_PLACE_LEVELS; l++)
		free(ls->e[l]);
	memset(ls, 0, sizeof(*ls));
}

/* The site of an unsampled launch (op i): that of the launch with a stack nearest to it in
 * time, of the same kernel in the most specific place that has one. A place's launches
 * come from one line or few, and the nearest one from the same phase of the program: a
 * decoder's warm-up call and its timed call run the same kernels in the same places, and
 * the stacks sampled first (each place's first launches) are the warm-up's. Sharing an
 * unsampled launch among all its kernel's sampled sites mixed both, and a kernel's lines.
 * The launches are the whole run's when the analysis is of its steady steps: the stacks
 * of each place's first launches were taken in the warm-up the steps leave out.
 * KG_NONE when no launch of the kernel has a stack. */
static uint32_t sampled_site(struct site_table *t, const struct kg_launch_stacks *ls,
			     uint32_t i)
{
	const struct kg_model *m = t->a->m;
	int64_t at = m->ops[i].start;
	for (int l = KG_PLACE_LEVELS - 1; l >= 0; l--) {
		const struct kg_place_entry *v = ls->e[l], want = {place_key(m, i, l), at, 0, 0};
		uint32_t lo = 0, hi = ls->n;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (by_key_time(&v[mid], &want) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		int after = lo < ls->n && v[lo].key == want.key;
		int before = lo > 0 && v[lo - 1].key == want.key;
		const struct kg_place_entry *near =
			after && (!before || v[lo].t - at <= at - v[lo - 1].t) ? &v[lo]
			: before					      ? &v[lo - 1]
									      : NULL;
		if (near)
			return stack_site(t, &(struct kg_api){.stack = near->stack,
							      .name = near->api_name});
	}
	return KG_NONE;
}

/* ------------------------------------------------------------------ per finding */

/* One finding's gain by site: room for every site, each made before the tallies. */
struct tally {
	double *ns;                   /* by site, this finding */
	uint32_t *touched;
	uint32_t n_touched;
};

static void tally_add(struct tally *y, uint32_t site, double ns)
{
	if (y->ns[site] == 0)
		y->touched[y->n_touched++] = site;
	y->ns[site] += ns;
}

static int by_share(const void *p, const void *q, void *arg)
{
	const double *ns = arg;
	double a = ns[*(const uint32_t *)p], b = ns[*(const uint32_t *)q];
	return (a < b) - (a > b);
}

/* The site of a finding's event: its call's, else (an unsampled launch, or asynchronous
 * memset, sampled as launches are) its place's. KG_NONE when neither has one. */
static uint32_t event_site(struct site_table *t, const struct kg_launch_stacks *ls,
			   const struct kg_blame *b)
{
	const struct kg_model *m = t->a->m;
	uint32_t api = b->api;
	const struct kg_op *o = b->op != KG_NONE && b->op < m->n_ops ? &m->ops[b->op] : NULL;
	if (api == KG_NONE && o)
		api = o->api;
	uint32_t site = api != KG_NONE && api < m->n_apis ? stack_site(t, &m->apis[api]) : KG_NONE;
	if (site == KG_NONE && o)
		site = sampled_site(t, ls, b->op);
	return site;
}

/* One event's part of one finding's gain, at its site: what site_totals counts once. */
struct event_part {
	uint64_t event; /* the operation (its launch), else the API call */
	uint32_t finding, site;
	double ns;
};

static uint64_t event_key(const struct kg_blame *b)
{
	return b->op != KG_NONE ? (uint64_t)1 << 63 | b->op : b->api;
}

static int by_event_finding(const void *p, const void *q)
{
	const struct event_part *x = p, *y = q;
	if (x->event != y->event)
		return (x->event > y->event) - (x->event < y->event);
	return (x->finding > y->finding) - (x->finding < y->finding);
}

/* Each site's gain over all findings: an event's parts summed within a finding, and of the
 * findings that claim it, the largest. */
static void site_totals(struct kg_analysis *a, struct event_part *v, size_t n)
{
	qsort(v, n, sizeof(*v), by_event_finding);
	for (size_t i = 0; i < n;) {
		double best = 0;
		uint32_t site = v[i].site;
		size_t j = i;
		while (j < n && v[j].event == v[i].event) {
			double in_finding = 0;
			size_t k = j;
			for (; k < n && v[k].event == v[j].event && v[k].finding == v[j].finding; k++)
				in_finding += v[k].ns;
			if (in_finding > best)
				best = in_finding, site = v[j].site;
			j = k;
		}
		a->sites[site].ns += best;
		i = j;
	}
}

/* A finding's sites and shares from its events' sites (where, by blame index); each sited
 * event's part goes to parts (site_totals). */
static void place_finding(struct kg_analysis *a, const uint32_t *where, struct tally *y,
			  uint32_t finding, struct event_part *parts, size_t *n_parts)
{
	struct kg_finding *f = &a->findings.v[finding];
	double unsited = 0, sited = 0;
	y->n_touched = 0;
	for (uint32_t i = f->first_blame; i < f->first_blame + f->n_blame; i++) {
		if (where[i] == KG_NONE)
			unsited += a->blame[i].ns;
		else
			tally_add(y, where[i], a->blame[i].ns);
	}
	for (uint32_t i = 0; i < y->n_touched; i++)
		sited += y->ns[y->touched[i]];
	qsort_r(y->touched, y->n_touched, sizeof(*y->touched), by_share, y->ns);
	/* shares of the finding's own estimate: the events say where, the rule how much */
	double scale = sited + unsited > 0 ? f->gain_ns / (sited + unsited) : 0;
	f->sited_ns = sited * scale;
	f->unsited_ns = unsited * scale;
	for (uint32_t i = 0; i < y->n_touched; i++) {
		uint32_t s = y->touched[i];
		if (f->n_sites < KG_MAX_FINDING_SITES)
			f->sites[f->n_sites++] = (struct kg_site_share){s, y->ns[s] * scale};
		a->sites[s].findings++;
		y->ns[s] = 0;
	}
	for (uint32_t i = f->first_blame; i < f->first_blame + f->n_blame; i++)
		if (where[i] != KG_NONE)
			parts[(*n_parts)++] = (struct event_part){event_key(&a->blame[i]), finding,
								  where[i], a->blame[i].ns * scale};
}

static int by_site_gain(const void *p, const void *q, void *sites)
{
	const struct kg_site *s = sites;
	uint32_t x = *(const uint32_t *)p, y = *(const uint32_t *)q;
	if (s[x].ns != s[y].ns)
		return (s[x].ns < s[y].ns) - (s[x].ns > s[y].ns);
	return (x > y) - (x < y);
}

/* The sites by gain, descending, and every reference to them (the findings', the
 * calls') renumbered. 0 or -ENOMEM. */
static int sort_sites(struct kg_analysis *a)
{
	uint32_t n = a->n_sites;
	uint32_t *by = malloc(n * sizeof(*by)), *rank = malloc(n * sizeof(*rank));
	struct kg_site *sorted = malloc(n * sizeof(*sorted));
	int rc = by && rank && sorted ? 0 : -ENOMEM;
	if (!rc) {
		for (uint32_t i = 0; i < n; i++)
			by[i] = i;
		qsort_r(by, n, sizeof(*by), by_site_gain, a->sites);
		for (uint32_t i = 0; i < n; i++) {
			sorted[i] = a->sites[by[i]];
			rank[by[i]] = i;
		}
		memcpy(a->sites, sorted, n * sizeof(*sorted));
		for (uint32_t i = 0; i < a->findings.n; i++)
			for (int k = 0; k < a->findings.v[i].n_sites; k++)
				a->findings.v[i].sites[k].site = rank[a->findings.v[i].sites[k].site];
		for (size_t i = 0; i < a->call_sites->cap; i++)
			if (a->call_sites->keys[i] && a->call_sites->vals[i] < n)
				a->call_sites->vals[i] = rank[a->call_sites->vals[i]];
	}
	free(by);
	free(rank);
	free(sorted);
	return rc;
}

int sites_run(struct kg_analysis *a)
{
	const struct kg_model *m = a->m;
	for (uint32_t i = 0; i < m->n_apis && !a->has_stacks; i++)
		a->has_stacks = m->apis[i].stack != KG_NONE;
	if (!a->has_stacks)
		return 0;
	struct site_table t = {.a = a};
	struct tally y = {0};
	int rc = 0;
	a->call_sites = calloc(1, sizeof(*a->call_sites));
	if (!a->call_sites)
		return -ENOMEM;
	t.of_call = a->call_sites;
	const struct kg_launch_stacks *ls = a->cfg.launch_stacks_given;
	if (!ls) {
		rc = launch_stacks_build(m, &a->launch_stacks);
		ls = &a->launch_stacks;
	}
	/* the site of every call with a stack, findings or not (the view shows them all):
	 * then the tallies have room for every site */
	for (uint32_t i = 0; !rc && i < m->n_apis; i++)
		if (m->apis[i].stack != KG_NONE)
			stack_site(&t, &m->apis[i]); /* out of memory: that call has no site */
	/* each event's site, before the tallies: a launch may take one made only now, from
	 * the whole run's stacks */
	uint32_t *where = rc ? NULL : malloc(((size_t)a->n_blame + 1) * sizeof(*where));
	if (!rc && !where)
		rc = -ENOMEM;
	for (uint32_t i = 0; !rc && i < a->n_blame; i++)
		where[i] = event_site(&t, ls, &a->blame[i]);
	struct event_part *parts = NULL;
	size_t n_parts = 0;
	if (!rc) {
		y.ns = calloc((size_t)a->n_sites + 1, sizeof(*y.ns));
		y.touched = malloc(((size_t)a->n_sites + 1) * sizeof(*y.touched));
		parts = malloc(((size_t)a->n_blame + 1) * sizeof(*parts));
		if (!y.ns || !y.touched || !parts)
			rc = -ENOMEM;
	}
	for (uint32_t i = 0; !rc && i < a->findings.n; i++)
		place_finding(a, where, &y, i, parts, &n_parts);
	if (!rc)
		site_totals(a, parts, n_parts);
	free(parts);
	free(where);
	if (!rc && a->n_sites)
		rc = sort_sites(a);
	idmap_free(&t.by_key);
	free(y.ns);
	free(y.touched);
	return rc;
}
