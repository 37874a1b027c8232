/* The recorder's side of SM placement (smlog.h): finding each kernel's block log, reading
 * it when the device is idle, and telling the importer which driver calls were its own. */
#include "recorder/smlog.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "recorder/raw_format.h"
#include "recorder/say.h"

#define KERNEL_SLOTS 16384          /* (context, kernel) pairs remembered; a power of 2 */
#define MAX_LOGS 1024               /* (context, library or module) pairs, log or none */
#define STAGE_BLOCKS 65536u         /* blocks copied off the device in one go: 2 MiB */
#define BLOCKS_PER_RECORD 1024u     /* per spool record: 32 KiB, under the smallest stage */
#define MAX_CAPACITY (1u << 26)     /* a header claiming more is not a log */
#define SM_MAGIC 0x31474f4c4d53474bull /* "KGSMLOG1": KGANTT_SM_MAGIC of include/kgantt/sm.h */

/* The device-side names of `static __device__ struct kgantt_sm_log kgantt_sm_log`: the
 * plain name (what nvcc 13's PTX calls it, `.global` without `.visible`), and the C++
 * internal-linkage mangling, in case another compiler keeps it. */
static const char *const log_names[] = {"kgantt_sm_log", "_ZL13kgantt_sm_log"};

/* The start of struct kgantt_sm_log. */
struct log_header {
	uint64_t magic;
	uint32_t capacity, record_size;
	uint64_t count, reserved;
};
_Static_assert(sizeof(struct log_header) == 32, "header of include/kgantt/sm.h");
_Static_assert(sizeof(struct kg_raw_sm_block) == 32, "struct kgantt_sm_record");

struct kernel_slot {
	CUcontext ctx;
	void *f;                /* CUfunction or CUkernel; NULL: empty slot */
	int32_t log;            /* index into logs, -1 none */
};

struct block_log {
	CUcontext ctx;
	void *owner;            /* the CUlibrary or CUmodule holding it */
	CUdeviceptr dptr;       /* 0: the owner has no log */
	size_t bytes;
	uint32_t context_id, device;
	int dirty;              /* a kernel of its module ran since the last read */
	int dead;               /* its context ended, or its header said it is no log */
};

static struct {
	int enabled;
	struct kg_smlog_driver drv;
	struct kg_spool *spool;
	void (*status)(int level, const char *text);
	pthread_mutex_t lock;   /* kernels and logs */
	struct kernel_slot *kernels;
	uint32_t n_kernels;
	struct block_log logs[MAX_LOGS];
	uint32_t n_logs;
	int said_full;
	pthread_mutex_t read_lock; /* one read at a time: the stage */
	struct kg_raw_sm_block *stage;
	struct kg_smlog_counts counts;
} sl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.read_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Set while this thread is in one of the recorder's own driver calls. */
static __thread int inside;
/* The sync whose exit was read last on this thread: a runtime call's nested driver call
 * shares its correlation id, and the device is read once for both. */
static __thread uint32_t last_read;

#define say(...) say_to(sl.status, __VA_ARGS__)

static uint64_t count(uint64_t *c, uint64_t n)
{
	return __atomic_add_fetch(c, n, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ the driver */

static int cupti_context_ids(CUcontext ctx, uint32_t *context_id, uint32_t *device)
{
	return cuptiGetContextId(ctx, context_id) == CUPTI_SUCCESS &&
		       cuptiGetDeviceId(ctx, device) == CUPTI_SUCCESS
		       ? 0
		       : -1;
}

int smlog_load_driver(struct kg_smlog_driver *d, char *why, size_t whylen)
{
	memset(d, 0, sizeof(*d));
	/* the program's own libcuda, which called us from cuInit: never a second copy */
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!cuda) {
		snprintf(why, whylen, "libcuda.so.1 is not loaded");
		return -1;
	}
#define SYM(field, name) *(void **)&d->field = dlsym(cuda, name)
	SYM(kernel_get_library, "cuKernelGetLibrary");
	SYM(library_get_global, "cuLibraryGetGlobal");
	SYM(func_get_module, "cuFuncGetModule");
	SYM(module_get_global, "cuModuleGetGlobal_v2");
	SYM(memcpy_dtoh, "cuMemcpyDtoH_v2");
	SYM(memcpy_htod, "cuMemcpyHtoD_v2");
	SYM(ctx_get_current, "cuCtxGetCurrent");
	SYM(ctx_push, "cuCtxPushCurrent_v2");
	SYM(ctx_pop, "cuCtxPopCurrent_v2");
	SYM(ctx_synchronize, "cuCtxSynchronize");
#undef SYM
	d->context_ids = cupti_context_ids;
	/* libcuda stays loaded for the life of the program: no dlclose */
	if (!d->func_get_module || !d->module_get_global || !d->memcpy_dtoh || !d->memcpy_htod ||
	    !d->ctx_get_current || !d->ctx_push || !d->ctx_pop || !d->ctx_synchronize) {
		snprintf(why, whylen, "this libcuda lacks a function the block log needs");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ set-up */

int smlog_init(const struct kg_smlog_driver *drv, struct kg_spool *spool,
	       void (*status)(int level, const char *text))
{
	sl.drv = *drv;
	sl.spool = spool;
	sl.status = status;
	sl.kernels = calloc(KERNEL_SLOTS, sizeof(*sl.kernels));
	sl.stage = malloc(STAGE_BLOCKS * sizeof(*sl.stage));
	if (!sl.kernels || !sl.stage) {
		free(sl.kernels);
		free(sl.stage);
		sl.kernels = NULL;
		sl.stage = NULL;
		return -ENOMEM;
	}
	sl.enabled = 1;
	return 0;
}

/* The launches (to find logs), the syncs (to read them), and every call the recorder
 * makes itself (to announce it). */
static const CUpti_CallbackId driver_cbids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
	CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2,
	CUPTI_DRIVER_TRACE_CBID_cuKernelGetLibrary,
	CUPTI_DRIVER_TRACE_CBID_cuLibraryGetGlobal,
	CUPTI_DRIVER_TRACE_CBID_cuFuncGetModule,
	CUPTI_DRIVER_TRACE_CBID_cuModuleGetGlobal_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
	CUPTI_DRIVER_TRACE_CBID_cuCtxPushCurrent_v2,
	CUPTI_DRIVER_TRACE_CBID_cuCtxPopCurrent_v2,
};

void smlog_subscribe(CUpti_SubscriberHandle sub)
{
	if (!sl.enabled)
		return;
	for (size_t i = 0; i < sizeof(driver_cbids) / sizeof(driver_cbids[0]); i++)
		cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, driver_cbids[i]);
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
			    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE,
			    CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
}

void smlog_disable(void)
{
	sl.enabled = 0;
}

void smlog_counts(struct kg_smlog_counts *c)
{
	pthread_mutex_lock(&sl.lock);
	*c = sl.counts;
	pthread_mutex_unlock(&sl.lock);
}

/* ------------------------------------------------------------------ the recorder's calls */

/* Announced before the call is made: its activity records can only come later. */
static void own_call(CUpti_CallbackId cbid, uint32_t correlation)
{
	count(&sl.counts.own_calls, 1);
	pthread_mutex_lock(&sl.spool->lock);
	struct kg_raw_sm_own *r = spool_reserve(sl.spool, KG_RAW_SM_OWN, sizeof(*r));
	if (r) {
		r->correlation_id = correlation;
		r->cbid = cbid;
		r->flags = cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2 ||
					   cbid == CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2
				   ? KG_SM_OWN_COPY
				   : 0;
	}
	pthread_mutex_unlock(&sl.spool->lock);
}

/* ------------------------------------------------------------------ finding the logs */

static uint32_t kernel_hash(CUcontext ctx, void *f)
{
	uint64_t h = ((uint64_t)(uintptr_t)ctx * 0x9E3779B97F4A7C15ull) ^ (uint64_t)(uintptr_t)f;
	h *= 0xBF58476D1CE4E5B9ull;
	return (uint32_t)(h >> 40);
}

/* The slot of (ctx, f), or the empty one where it goes; NULL when the table is full
 * around it. Caller holds sl.lock. */
static struct kernel_slot *kernel_slot(CUcontext ctx, void *f)
{
	uint32_t j = kernel_hash(ctx, f);
	for (uint32_t i = 0; i < 64; i++) {
		struct kernel_slot *s = &sl.kernels[(j + i) & (KERNEL_SLOTS - 1)];
		if (!s->f || (s->f == f && s->ctx == ctx))
			return s;
	}
	return NULL;
}

/* The log of (ctx, owner) known already: its index, or -2 when not seen. Caller holds
 * sl.lock. */
static int32_t known_log(CUcontext ctx, void *owner)
{
	for (uint32_t i = 0; i < sl.n_logs; i++)
		if (sl.logs[i].ctx == ctx && sl.logs[i].owner == owner && !sl.logs[i].dead)
			return sl.logs[i].dptr ? (int32_t)i : -1;
	return -2;
}

/* Where the kernel's module keeps its log, by the two ways a kernel can be loaded: a
 * CUkernel of a library (what the CUDA 12+ runtime launches) or a CUfunction of a module
 * (a driver-API program's own cuModuleLoad). 0 = found or known absent; -1 = neither way
 * names the kernel's owner. */
static int find_log(CUcontext ctx, void *f, void **owner, CUdeviceptr *dptr, size_t *bytes)
{
	CUlibrary lib = NULL;
	CUmodule mod = NULL;
	int is_lib = sl.drv.kernel_get_library &&
		     sl.drv.kernel_get_library(&lib, (CUkernel)f) == CUDA_SUCCESS && lib;
	if (!is_lib && (sl.drv.func_get_module(&mod, (CUfunction)f) != CUDA_SUCCESS || !mod))
		return -1;
	*owner = is_lib ? (void *)lib : (void *)mod;
	pthread_mutex_lock(&sl.lock);
	int32_t k = known_log(ctx, *owner);
	*dptr = k >= 0 ? sl.logs[k].dptr : 0;
	*bytes = k >= 0 ? sl.logs[k].bytes : 0;
	pthread_mutex_unlock(&sl.lock);
	if (k != -2)
		return 0;
	for (size_t i = 0; i < sizeof(log_names) / sizeof(log_names[0]); i++) {
		CUresult rc = is_lib ? sl.drv.library_get_global(dptr, bytes, lib, log_names[i])
				     : sl.drv.module_get_global(dptr, bytes, mod, log_names[i]);
		if (rc == CUDA_SUCCESS && *dptr)
			return 0;
		*dptr = 0;
	}
	return 0;
}

/* Adds (ctx, owner) to the logs, or finds it there (another thread was first). Caller
 * holds sl.lock. Returns its index, -1 when it has no log, -2 when the table is full. */
static int32_t add_log(CUcontext ctx, void *owner, CUdeviceptr dptr, size_t bytes)
{
	int32_t k = known_log(ctx, owner);
	if (k != -2)
		return k;
	if (sl.n_logs == MAX_LOGS)
		return -2;
	struct block_log *b = &sl.logs[sl.n_logs];
	memset(b, 0, sizeof(*b));
	b->ctx = ctx;
	b->owner = owner;
	/* a buffer too small for its header is not struct kgantt_sm_log */
	b->dptr = bytes >= sizeof(struct log_header) ? dptr : 0;
	b->bytes = bytes;
	if (b->dptr) {
		if (sl.drv.context_ids(ctx, &b->context_id, &b->device) < 0)
			b->context_id = b->device = 0;
		sl.counts.buffers++;
	}
	sl.n_logs++;
	return b->dptr ? (int32_t)(sl.n_logs - 1) : -1;
}

/* A kernel is about to be launched: mark its log dirty; find the log the first time. The
 * driver calls are made without the lock, so other launching threads never wait on them. */
static void on_launch(CUcontext ctx, void *f)
{
	pthread_mutex_lock(&sl.lock);
	struct kernel_slot *s = kernel_slot(ctx, f);
	if (s && s->f && (s->log < 0 || !sl.logs[s->log].dead)) {
		if (s->log >= 0)
			sl.logs[s->log].dirty = 1;
		pthread_mutex_unlock(&sl.lock);
		return;
	}
	pthread_mutex_unlock(&sl.lock);

	void *owner = NULL;
	CUdeviceptr dptr = 0;
	size_t bytes = 0;
	inside = 1;
	int rc = find_log(ctx, f, &owner, &dptr, &bytes);
	inside = 0;

	pthread_mutex_lock(&sl.lock);
	int32_t log = rc < 0 ? -1 : add_log(ctx, owner, dptr, bytes);
	int full = log == -2 || !(s = kernel_slot(ctx, f));
	if (!full) {
		if (!s->f)
			sl.counts.kernels++;
		*s = (struct kernel_slot){ctx, f, log < 0 ? -1 : log};
		if (log >= 0)
			sl.logs[log].dirty = 1;
	}
	int say_full = full && !sl.said_full++;
	pthread_mutex_unlock(&sl.lock);
	static int said_owner;
	if (rc < 0)
		count(&sl.counts.failures, 1);
	if (rc < 0 && !__atomic_exchange_n(&said_owner, 1, __ATOMIC_RELAXED))
		say(0, "SM placement: cannot tell the module of a launched kernel (both "
		       "cuKernelGetLibrary and cuFuncGetModule refused its handle): its blocks, "
		       "if it logs any, are not read");
	if (say_full)
		say(1 /* warning */, "SM placement: more kernels or modules than the recorder's "
				     "tables hold (%d kernels, %d modules); blocks of the others are "
				     "not read", KERNEL_SLOTS, MAX_LOGS);
}

/* A graph runs kernels the recorder never saw launched: every log of the context may
 * have been written. */
static void mark_context_dirty(CUcontext ctx)
{
	pthread_mutex_lock(&sl.lock);
	for (uint32_t i = 0; i < sl.n_logs; i++)
		if (sl.logs[i].ctx == ctx && sl.logs[i].dptr)
			sl.logs[i].dirty = 1;
	pthread_mutex_unlock(&sl.lock);
}

/* ------------------------------------------------------------------ reading the logs */

/* count blocks from the stage into spool records; dropped goes on the first. */
static void write_blocks(const struct block_log *b, const struct kg_raw_sm_block *blocks,
			 uint32_t n, uint64_t dropped, uint64_t ts, int why)
{
	pthread_mutex_lock(&sl.spool->lock);
	do {
		uint32_t k = n < BLOCKS_PER_RECORD ? n : BLOCKS_PER_RECORD;
		struct kg_raw_sm_blocks *r = spool_reserve(
			sl.spool, KG_RAW_SM_BLOCKS,
			(uint32_t)(sizeof(*r) + k * sizeof(struct kg_raw_sm_block)));
		if (!r)
			break;
		r->ts = ts;
		r->dropped = dropped;
		r->context_id = b->context_id;
		r->device_id = b->device;
		r->count = k;
		r->record_size = sizeof(struct kg_raw_sm_block);
		r->why = (uint32_t)why;
		memcpy(r + 1, blocks, (size_t)k * sizeof(*blocks));
		blocks += k;
		n -= k;
		dropped = 0;
	} while (n > 0);
	pthread_mutex_unlock(&sl.spool->lock);
}

/* The header, checked: 0, or -1 with the log marked dead and the reason said. */
static int read_header(struct block_log *b, struct log_header *h)
{
	CUresult rc = sl.drv.memcpy_dtoh(h, b->dptr, sizeof(*h));
	if (rc != CUDA_SUCCESS) {
		count(&sl.counts.failures, 1);
		say(1, "SM placement: cannot read a block log (CUDA error %d); its blocks are lost",
		    (int)rc);
		return -1;
	}
	uint64_t need = sizeof(*h) + (uint64_t)h->capacity * sizeof(struct kg_raw_sm_block);
	if (h->magic != SM_MAGIC || h->record_size != sizeof(struct kg_raw_sm_block) ||
	    h->capacity == 0 || h->capacity > MAX_CAPACITY || need > b->bytes) {
		b->dead = 1;
		say(1, "SM placement: a device variable named kgantt_sm_log is not "
		       "include/kgantt/sm.h's log (magic %#llx, record size %u, capacity %u, %zu "
		       "bytes); it is left alone",
		    (unsigned long long)h->magic, h->record_size, h->capacity, b->bytes);
		return -1;
	}
	return 0;
}

/* Copies the log's blocks out and empties it. The device must be idle and the log's
 * context current. Caller holds sl.read_lock and sets `inside`. */
static void read_log(struct block_log *b, int why)
{
	struct log_header h;
	if (read_header(b, &h) < 0 || h.count == 0)
		return;
	uint64_t ts = now_raw_ns();
	uint64_t n = h.count < h.capacity ? h.count : h.capacity, dropped = h.count - n;
	for (uint64_t at = 0; at < n || (at == 0 && dropped);) {
		uint32_t k = (uint32_t)(n - at < STAGE_BLOCKS ? n - at : STAGE_BLOCKS);
		CUdeviceptr src = b->dptr + sizeof(h) + at * sizeof(struct kg_raw_sm_block);
		if (k && sl.drv.memcpy_dtoh(sl.stage, src, k * sizeof(*sl.stage)) != CUDA_SUCCESS) {
			count(&sl.counts.failures, 1);
			say(1, "SM placement: cannot copy %llu blocks off the device; they are lost",
			    (unsigned long long)(n - at));
			break;
		}
		write_blocks(b, sl.stage, k, at == 0 ? dropped : 0, ts, why);
		at += k;
		if (!k)
			break;
	}
	sl.counts.reads++;
	sl.counts.blocks += n;
	sl.counts.dropped += dropped;
	uint64_t zero = 0;
	if (sl.drv.memcpy_htod(b->dptr + offsetof(struct log_header, count), &zero,
			       sizeof(zero)) != CUDA_SUCCESS) {
		/* the next read would copy these blocks again */
		b->dead = 1;
		count(&sl.counts.failures, 1);
		say(1, "SM placement: cannot empty a block log; it is not read again");
	}
}

/* Reads the dirty logs of ctx (all of them with `all`), which must be current and idle. */
static void read_context(CUcontext ctx, int why, int all)
{
	pthread_mutex_lock(&sl.read_lock);
	inside = 1;
	for (uint32_t i = 0;; i++) {
		pthread_mutex_lock(&sl.lock);
		int more = i < sl.n_logs;
		struct block_log *b = more ? &sl.logs[i] : NULL;
		int take = more && b->ctx == ctx && b->dptr && !b->dead && (all || b->dirty);
		if (take)
			b->dirty = 0;
		pthread_mutex_unlock(&sl.lock);
		if (!more)
			break;
		/* entries never move and their dptr never changes: read without sl.lock */
		if (take)
			read_log(b, why);
	}
	inside = 0;
	pthread_mutex_unlock(&sl.read_lock);
	pthread_mutex_lock(&sl.spool->lock);
	spool_flush(sl.spool);
	pthread_mutex_unlock(&sl.spool->lock);
}

/* Waits for ctx to be idle and reads all its logs, with ctx current (pushed when another
 * context, or none, is). CUDA_SUCCESS, or the error that kept it from reading. */
static CUresult with_context(CUcontext ctx, int why)
{
	CUcontext cur = NULL;
	inside = 1;
	CUresult rc = sl.drv.ctx_get_current(&cur);
	int push = rc == CUDA_SUCCESS && cur != ctx;
	if (push && (rc = sl.drv.ctx_push(ctx)) != CUDA_SUCCESS)
		push = 0; /* nothing to pop */
	/* a context being destroyed or left at exit may still run work: wait for it */
	if (rc == CUDA_SUCCESS)
		rc = sl.drv.ctx_synchronize();
	inside = 0;
	if (rc == CUDA_SUCCESS)
		read_context(ctx, why, 1);
	if (push) {
		CUcontext popped;
		inside = 1;
		sl.drv.ctx_pop(&popped);
		inside = 0;
	}
	return rc;
}

static void forget_context(CUcontext ctx)
{
	pthread_mutex_lock(&sl.lock);
	for (uint32_t i = 0; i < sl.n_logs; i++)
		if (sl.logs[i].ctx == ctx)
			sl.logs[i].dead = 1;
	pthread_mutex_unlock(&sl.lock);
}

static int has_logs(CUcontext ctx)
{
	int found = 0;
	pthread_mutex_lock(&sl.lock);
	for (uint32_t i = 0; i < sl.n_logs && !found; i++)
		found = sl.logs[i].ctx == ctx && sl.logs[i].dptr && !sl.logs[i].dead;
	pthread_mutex_unlock(&sl.lock);
	return found;
}

void smlog_on_context_destroy(CUcontext ctx)
{
	if (!sl.enabled || inside || !has_logs(ctx))
		return;
	CUresult rc = with_context(ctx, KG_SM_AT_CONTEXT_END);
	if (rc != CUDA_SUCCESS) {
		count(&sl.counts.failures, 1);
		say(1, "SM placement: cannot read the block logs of a context being destroyed "
		       "(CUDA error %d); their last blocks are lost", (int)rc);
	}
	forget_context(ctx);
}

void smlog_at_exit(void)
{
	if (!sl.enabled)
		return;
	for (;;) {
		CUcontext ctx = NULL;
		pthread_mutex_lock(&sl.lock);
		for (uint32_t i = 0; i < sl.n_logs && !ctx; i++)
			if (sl.logs[i].dptr && !sl.logs[i].dead)
				ctx = sl.logs[i].ctx;
		pthread_mutex_unlock(&sl.lock);
		if (!ctx)
			break;
		CUresult rc = with_context(ctx, KG_SM_AT_EXIT);
		if (rc != CUDA_SUCCESS)
			say(0, "SM placement: a context was gone at exit (CUDA error %d): its "
			       "blocks since the last synchronisation are not in the trace", (int)rc);
		forget_context(ctx);
	}
	struct kg_smlog_counts c;
	smlog_counts(&c);
	sl.enabled = 0; /* nothing after the spool's end record */
	if (c.buffers == 0)
		say(1, "SM placement (--sm): no launched kernel has a block log; put "
		       "KGANTT_SM_BLOCK_BEGIN()/END() of include/kgantt/sm.h in the kernels");
	else
		say(c.dropped ? 1 : 0,
		    "SM placement: %llu kernels looked up, %llu block logs, %llu blocks read in "
		    "%llu reads, %llu dropped (log full: raise KGANTT_SM_CAPACITY or synchronise "
		    "more often), %llu recorder calls left out of the trace",
		    (unsigned long long)c.kernels, (unsigned long long)c.buffers,
		    (unsigned long long)c.blocks, (unsigned long long)c.reads,
		    (unsigned long long)c.dropped, (unsigned long long)c.own_calls);
}

/* ------------------------------------------------------------------ the callback */

static void *launched_function(CUpti_CallbackId cbid, const void *params)
{
	if (!params)
		return NULL;
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		return ((const cuLaunchKernel_params *)params)->f;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
		return ((const cuLaunchKernelEx_params *)params)->f;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
		return ((const cuLaunchCooperativeKernel_params *)params)->f;
	}
	return NULL;
}

static int is_sync(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020;
	return cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2;
}

int smlog_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		 const CUpti_CallbackData *cb)
{
	if (!sl.enabled)
		return 0;
	if (inside) {
		if (cb->callbackSite == CUPTI_API_ENTER && domain == CUPTI_CB_DOMAIN_DRIVER_API)
			own_call(cbid, cb->correlationId);
		return 1;
	}
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cb->callbackSite == CUPTI_API_ENTER) {
		void *f = launched_function(cbid, cb->functionParams);
		if (f && cb->context)
			on_launch(cb->context, f);
		else if ((cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
			  cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) && cb->context)
			mark_context_dirty(cb->context);
		return 0;
	}
	/* A sync that failed leaves the device in an unknown state: not read then. */
	if (cb->callbackSite == CUPTI_API_EXIT && is_sync(domain, cbid) && cb->context &&
	    cb->functionReturnValue && *(const int *)cb->functionReturnValue == 0 &&
	    (cb->correlationId != last_read || !cb->correlationId)) {
		last_read = cb->correlationId;
		read_context(cb->context, KG_SM_AT_SYNC, 0);
	}
	return 0;
}
