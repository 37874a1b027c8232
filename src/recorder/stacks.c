/* Call stacks inside the traced program (see stacks.h). Everything the callback touches
 * is allocated by stacks_init; the callback itself never allocates, never writes to a
 * file and holds one short lock to deduplicate. */
#include "recorder/stacks.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

#include "recorder/cbid_table.h"
#include "recorder/maps.h"
#include "recorder/launches.h"
#include "recorder/pyframes.h"
#include "recorder/wait_places.h"
#include "util/api_names.h"
#include "util/clock.h"
#include "util/stack_flags.h"
#include "util/tracer_work.h"

#define MAX_NATIVE 128
#define MAX_PYTHON 64
#define MAX_STACKS 65536            /* distinct stacks kept; more are counted as lost */
#define ARENA_WORDS (1u << 19)      /* 4 MiB of frames: addresses and Python frames */
#define MAX_CALLSITES 65536         /* calls between two drains (every flush_ms) */
#define LAUNCH_KEYS 16384           /* places counted for launch sampling */
#define MAX_MODULES 4096
#define WAIT_PLACES 8192            /* Python places of waits whose stacks are reused */

/* CLASS_LAUNCH and CLASS_MEMSET (an asynchronous memset) are sampled (sample_launch) */
enum call_class { CLASS_NONE = 0, CLASS_WAIT = 1, CLASS_LAUNCH = 2, CLASS_MEMSET = 3 };

struct stack_entry {
	uint64_t hash;
	uint32_t off;                   /* in arena: n_native addresses, then Python frames */
	uint16_t n_native, n_python;
	uint32_t flags;
};

/* How long taking one stack held the program's thread: the recorder's time, not the
 * program's (util/tracer_work.h) */
struct stack_time {
	uint64_t start, end;
	uint32_t tid, correlation;
};

struct launch_count {
	uintptr_t key;
	uint32_t count;
};

static struct {
	int enabled;
	struct kg_stack_config cfg;
	struct kg_cbid_table class_by_fn; /* each function's enum call_class */
	int python;                     /* pyframes_init's answer */
	char python_why[256];           /* ... and its reason */
	/* this library, libcupti and the launch hook's: not the program's frames */
	uintptr_t skip_lo[3], skip_hi[3];
	uintptr_t interp_lo, interp_hi; /* the Python interpreter's code, when frames are read */

	pthread_mutex_t lock;           /* the tables below */
	struct stack_entry *entries;    /* id - id_base - 1 */
	uint32_t n_entries;
	uint32_t id_base;               /* ids handed out by the tables before they were emptied */
	int recycle;                    /* empty the tables when nearly full (host samples) */
	uint32_t *slots;                /* open addressing: entry index + 1 */
	uint64_t *arena;
	uint32_t arena_used;
	uint32_t *fresh;                /* entries not yet in the spool */
	uint32_t n_fresh;
	struct kg_raw_callsite *calls;  /* call sites not yet in the spool */
	uint32_t n_calls;
	uint64_t total_calls, lost;
	struct stack_time *times;       /* stacks taken, not yet in the spool (MAX_CALLSITES) */
	uint32_t n_times;
	uint32_t recycled;              /* times the tables were emptied */

	struct launch_count *launches;  /* sampled launches: counts per place */
	uint32_t overflow;              /* launches of places the count table had no room for */
	int no_launches;                /* --stack-launches 0:0 */
	int by_kernel;                  /* count by kernel alone, as before places (place_of) */
	struct kg_wait_places places;   /* waits' stacks by Python place (wait_places.h) */
	int check_places;               /* KGANTT_DEV_WAIT_PLACES=check: unwind the reused too */
	uint64_t reused_wrong;          /* ... and count those whose stack was another */

	/* the flusher's side, only touched by stacks_drain (one caller at a time) */
	pthread_mutex_t drain_lock;
	uint32_t *drain_fresh;
	struct kg_raw_callsite *drain_calls;
	struct stack_time *drain_times;
	uint64_t module_seen[MAX_MODULES]; /* base ^ hash of the path of written modules */
	uint32_t n_modules;
	unsigned long long last_adds;
} st = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.drain_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* The last call a stack was taken (or skipped) for, on this thread: a runtime call's
 * driver calls share its correlation id and must not count twice. */
static __thread uint32_t last_correlation;
static __thread uint32_t my_tid; /* this thread's id, once asked */

/* ------------------------------------------------------------------ which calls */

static enum call_class class_of_name(const char *name, enum kg_stack_mode mode)
{
	switch (api_category(name)) {
	case KG_API_LAUNCH:
		return CLASS_LAUNCH;
	case KG_API_MEMSET:
		/* an asynchronous memset never blocks the host: sampled like a launch (PyTorch
		 * issues hundreds per training step) */
		return strstr(name, "Async") ? CLASS_MEMSET : CLASS_WAIT;
	case KG_API_SYNC:
	case KG_API_MEMCPY:
	case KG_API_ALLOC:
		return CLASS_WAIT;
	default:
		return mode == KG_STACKS_ALL ? CLASS_WAIT : CLASS_NONE;
	}
}

/* A call the trace leaves out gets no stack either. */
static uint8_t class_by_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name,
			     void *ctx)
{
	(void)ctx;
	if (st.cfg.untraced && st.cfg.untraced(domain, cbid))
		return CLASS_NONE;
	return (uint8_t)class_of_name(name, st.cfg.mode);
}

static uint8_t class_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return cbid_table_get(&st.class_by_fn, domain, cbid);
}

/* CUPTI's callbacks for every runtime and driver function of one class, on or off. */
static void set_class_callbacks(CUpti_SubscriberHandle sub, uint32_t on, enum call_class cls)
{
	cbid_table_enable(&st.class_by_fn, CUPTI_CB_DOMAIN_RUNTIME_API, (uint8_t)cls, sub, on);
	cbid_table_enable(&st.class_by_fn, CUPTI_CB_DOMAIN_DRIVER_API, (uint8_t)cls, sub, on);
}

/* The kernel this thread launched last, and the launch window it was seen in. */
static __thread struct {
	uint32_t window;
	uintptr_t key;
} last_launch;

/* Where a launch (or asynchronous memset) is, as the sampler counts it: its kernel (its
 * function) and the kernel this thread launched before it in the same window. One GEMM
 * kernel launched from several lines of a transformer block follows a different kernel
 * at each, and every such place gets its own first stacks: sites.c dates an unsampled
 * launch by the stacks of its place, and a kernel's first 8 stacks alone all fell on the
 * line that launches it first (docs/results/sampled-launches-h200.md). The places' first
 * stacks are taken once; past them one launch in launch_every still gets a stack. */
static uintptr_t place_of(enum call_class cls, uintptr_t key)
{
	if (st.by_kernel)
		return key;
	uint32_t window = launches_window();
	uintptr_t before = window && last_launch.window == window ? last_launch.key : 0;
	if (cls == CLASS_LAUNCH) {
		last_launch.window = window;
		last_launch.key = key;
	}
	uint64_t h = ((uint64_t)key ^ ((uint64_t)before * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull;
	uintptr_t place = (uintptr_t)(h ^ (h >> 29));
	return place ? place : 1; /* 0 is an empty slot of the count table */
}

/* The first launch_first launches of each place, then one in launch_every: every
 * kernel's call sites are seen, and a tight launch loop pays for a stack rarely. */
static int sample_launch(uintptr_t key)
{
	if (st.cfg.mode == KG_STACKS_ALL)
		return 1;
	uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
	uint32_t count = 0;
	for (uint32_t i = 0; i < 8; i++) {
		struct launch_count *c = &st.launches[((h >> 40) + i) & (LAUNCH_KEYS - 1)];
		uintptr_t k = __atomic_load_n(&c->key, __ATOMIC_RELAXED);
		if (k == 0) {
			uintptr_t zero = 0;
			if (!__atomic_compare_exchange_n(&c->key, &zero, key, 0, __ATOMIC_RELAXED,
							 __ATOMIC_RELAXED) &&
			    zero != key)
				continue;
			k = key;
		}
		if (k == key) {
			count = __atomic_add_fetch(&c->count, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	if (!count) /* the table is full around this key: one count for all such kernels */
		count = st.cfg.launch_first + __atomic_add_fetch(&st.overflow, 1, __ATOMIC_RELAXED);
	return count <= st.cfg.launch_first ||
	       (count - st.cfg.launch_first) % st.cfg.launch_every == 0;
}

/* ------------------------------------------------------------------ taking a stack */

struct unwind_state {
	uintptr_t *ips;
	unsigned n, max;
	int full, leading;
	int stop_in_interpreter;        /* Python frames say the rest: stop at its first frame */
	int in_interpreter;
};

static int skipped(uintptr_t ip)
{
	for (int i = 0; i < 3; i++)
		if (ip >= st.skip_lo[i] && ip < st.skip_hi[i])
			return 1;
	return 0;
}

static _Unwind_Reason_Code unwind_one(struct _Unwind_Context *ctx, void *arg)
{
	struct unwind_state *u = arg;
	uintptr_t ip = _Unwind_GetIP(ctx);
	if (!ip)
		return _URC_END_OF_STACK;
	/* the recorder's and CUPTI's own frames at the top are not the program's */
	if (u->leading && skipped(ip))
		return _URC_NO_REASON;
	u->leading = 0;
	if (u->n >= u->max) {
		u->full = 1;
		return _URC_NORMAL_STOP;
	}
	u->ips[u->n++] = ip;
	/* Below the interpreter's first frame lie dozens of eval-loop frames that the Python
	 * frames replace: keep that one frame (the importer puts the Python frames there)
	 * and stop, which halves a PyTorch stack's cost. */
	if (u->stop_in_interpreter && ip >= st.interp_lo && ip < st.interp_hi) {
		u->in_interpreter = 1;
		return _URC_NORMAL_STOP;
	}
	return _URC_NO_REASON;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	return h ^ (h >> 29);
}

/* The id of this stack (1, 2, ...), adding it when new; 0 when the tables are full.
 * Caller holds st.lock. */
static uint64_t stack_hash(const uintptr_t *ips, unsigned nn, const struct kg_pyframe *py,
			   unsigned np, uint32_t flags);

static uint32_t stack_id(uint64_t hash, const uintptr_t *ips, unsigned nn,
			 const struct kg_pyframe *py, unsigned np, uint32_t flags)
{
	uint32_t nslots = 2 * MAX_STACKS;
	for (uint32_t i = 0, j = (uint32_t)(hash >> 32) & (nslots - 1); i < nslots;
	     i++, j = (j + 1) & (nslots - 1)) {
		uint32_t e = st.slots[j];
		if (!e) {
			uint32_t words = nn + np;
			if (st.n_entries >= MAX_STACKS || st.arena_used + words > ARENA_WORDS)
				return 0;
			struct stack_entry *s = &st.entries[st.n_entries];
			s->hash = hash;
			s->off = st.arena_used;
			s->n_native = (uint16_t)nn;
			s->n_python = (uint16_t)np;
			s->flags = flags;
			memcpy(&st.arena[s->off], ips, nn * sizeof(uint64_t));
			memcpy(&st.arena[s->off + nn], py, np * sizeof(uint64_t));
			st.arena_used += words;
			st.slots[j] = ++st.n_entries;
			st.fresh[st.n_fresh++] = st.n_entries - 1;
			return st.id_base + st.n_entries;
		}
		const struct stack_entry *s = &st.entries[e - 1];
		if (s->hash == hash && s->n_native == nn && s->n_python == np && s->flags == flags &&
		    !memcmp(&st.arena[s->off], ips, nn * sizeof(uint64_t)) &&
		    !memcmp(&st.arena[s->off + nn], py, np * sizeof(uint64_t)))
			return st.id_base + e;
	}
	return 0;
}

static uint64_t stack_hash(const uintptr_t *ips, unsigned nn, const struct kg_pyframe *py,
			   unsigned np, uint32_t flags)
{
	uint64_t h = mix(flags, ((uint64_t)nn << 32) | np);
	for (unsigned i = 0; i < nn; i++)
		h = mix(h, ips[i]);
	for (unsigned i = 0; i < np; i++)
		h = mix(h, ((uint64_t)py[i].code << 32) | (uint32_t)py[i].lasti);
	return h;
}

uint32_t stacks_intern(const uintptr_t *ips, unsigned nn, const struct kg_pyframe *py,
		       unsigned np, uint32_t flags)
{
	static const struct kg_pyframe none[1];
	if (!st.entries)
		return 0;
	if (!py) /* a stack without Python frames may say so with NULL */
		py = none;
	uint64_t h = stack_hash(ips, nn, py, np, flags);
	pthread_mutex_lock(&st.lock);
	uint32_t id = stack_id(h, ips, nn, py, np, flags);
	pthread_mutex_unlock(&st.lock);
	return id;
}

/* A wait's place: its function and its whole Python stack; 0 (never reused) when the
 * Python frames are cut or absent. */
static uint64_t wait_place(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			   const struct kg_pyframe *py, int np, int py_cut)
{
	if (np <= 0 || py_cut)
		return 0;
	uint64_t h = mix(((uint64_t)domain << 32) | cbid, (uint64_t)np);
	for (int i = 0; i < np; i++)
		h = mix(h, ((uint64_t)py[i].code << 32) | (uint32_t)py[i].lasti);
	return h ? h : 1;
}

/* The call's stack id, or a call without one when the tables are full. Caller holds
 * st.lock. */
static void record_call(uint32_t correlation, uint32_t id)
{
	st.total_calls++;
	if (id && st.n_calls < MAX_CALLSITES) {
		st.calls[st.n_calls].correlation = correlation;
		st.calls[st.n_calls].stack = id;
		st.n_calls++;
	} else {
		st.lost++;
	}
}

static void capture_stack(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, uint8_t cls,
			  uint32_t correlation)
{
	uintptr_t ips[MAX_NATIVE];
	struct kg_pyframe py[MAX_PYTHON];
	struct unwind_state u = {.ips = ips, .max = st.cfg.max_depth, .leading = 1};
	_Static_assert(sizeof(uintptr_t) == sizeof(uint64_t), "64-bit addresses");
	_Static_assert(sizeof(struct kg_pyframe) == sizeof(uint64_t), "8-byte Python frames");

	int np = 0, py_cut = 0;
	if (st.python > 0)
		np = pyframes_capture(py, MAX_PYTHON, &py_cut);
	uint64_t place = cls == CLASS_WAIT ? wait_place(domain, cbid, py, np, py_cut) : 0;
	uint32_t reused = 0;
	if (place) {
		pthread_mutex_lock(&st.lock);
		reused = wait_places_reuse(&st.places, place);
		if (reused && !st.check_places)
			record_call(correlation, reused);
		pthread_mutex_unlock(&st.lock);
		if (reused && !st.check_places)
			return;
	}
	u.stop_in_interpreter = np > 0 && st.interp_hi > st.interp_lo;
	/* Where the unwinder stopped says little (libgcc's returns the same at a thread's
	 * first frame, at code without unwind tables and after a corrupt frame): whether
	 * the stack is whole is told by its outermost frames, at import. */
	_Unwind_Backtrace(unwind_one, &u);
	uint32_t flags = 0;
	if (u.full)
		flags |= KG_STACK_TRUNCATED;
	if (st.python < 0)
		flags |= KG_STACK_NO_PYTHON;
	if (py_cut)
		flags |= KG_STACK_TRUNCATED;

	uint64_t h = stack_hash(ips, u.n, py, (unsigned)np, flags);
	pthread_mutex_lock(&st.lock);
	uint32_t id = stack_id(h, ips, u.n, py, (unsigned)np, flags);
	record_call(correlation, id);
	if (reused) /* checking: what the reuse would have recorded */
		st.reused_wrong += reused != id;
	else if (place)
		wait_places_learn(&st.places, place, h, id);
	pthread_mutex_unlock(&st.lock);
}

/* A stack, timed: unwinding held the program's thread for microseconds that it does not
 * spend untraced, inside the gap before the next kernel, so the trace says when (an
 * overhead record of kgantt's kind, like CUPTI's of its own work). Past MAX_CALLSITES
 * between two drains (--stacks all at 130,000 calls a second) a stack's time goes
 * unsaid, as its call site does. */
static void take_stack(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, uint8_t cls,
		       uint32_t correlation)
{
	uint64_t start = now_raw_ns();
	capture_stack(domain, cbid, cls, correlation);
	uint64_t end = now_raw_ns();
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	pthread_mutex_lock(&st.lock);
	if (st.n_times < MAX_CALLSITES)
		st.times[st.n_times++] = (struct stack_time){start, end, my_tid, correlation};
	pthread_mutex_unlock(&st.lock);
}

void stacks_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		   const CUpti_CallbackData *cb)
{
	if (!st.enabled || cb->callbackSite != CUPTI_API_ENTER)
		return;
	uint8_t cls = class_of(domain, cbid);
	if (cls == CLASS_NONE || !cb->correlationId)
		return;
	/* a driver call inside a runtime call already seen shares its correlation id */
	if (cb->correlationId == last_correlation)
		return;
	last_correlation = cb->correlationId;
	/* launch callbacks may be on for someone else (record --hw) */
	if ((cls == CLASS_LAUNCH || cls == CLASS_MEMSET) &&
	    (st.no_launches || !sample_launch(place_of(cls, launches_key(domain, cbid, cb)))))
		return;
	take_stack(domain, cbid, cls, cb->correlationId);
}

void stacks_on_hooked_launch(uint32_t cbid, uintptr_t key, uint32_t correlation)
{
	if (!st.enabled || st.no_launches || !sample_launch(place_of(CLASS_LAUNCH, key)))
		return;
	take_stack(CUPTI_CB_DOMAIN_DRIVER_API, cbid, CLASS_LAUNCH, correlation);
}

static void module_range_of(const void *addr, uintptr_t *lo, uintptr_t *hi);

void stacks_skip_module(const void *addr)
{
	module_range_of(addr, &st.skip_lo[2], &st.skip_hi[2]);
}

/* ------------------------------------------------------------------ set-up */

/* The tables of distinct stacks and the Python frame reader: for call stacks and for host
 * samples (recorder/hostsample.c), whichever comes first. */
static int table_init(void)
{
	if (st.entries)
		return 0;
	struct stack_entry *entries = calloc(MAX_STACKS, sizeof(*st.entries));
	st.slots = calloc(2 * MAX_STACKS, sizeof(*st.slots));
	st.arena = malloc(ARENA_WORDS * sizeof(*st.arena));
	st.fresh = malloc(MAX_STACKS * sizeof(*st.fresh));
	st.drain_fresh = malloc(MAX_STACKS * sizeof(*st.drain_fresh));
	if (!entries || !st.slots || !st.arena || !st.fresh || !st.drain_fresh) {
		free(entries);
		return -ENOMEM;
	}
	/* touch the arena now, not on the program's first stacks */
	memset(st.arena, 0, ARENA_WORDS * sizeof(*st.arena));
	module_range_of((const void *)stacks_init, &st.skip_lo[0], &st.skip_hi[0]);
	module_range_of((const void *)cuptiSubscribe, &st.skip_lo[1], &st.skip_hi[1]);
	st.python = pyframes_init(st.python_why, sizeof(st.python_why));
	void *eval = st.python > 0 ? dlsym(RTLD_DEFAULT, "PyEval_EvalCode") : NULL;
	if (eval)
		module_range_of(eval, &st.interp_lo, &st.interp_hi);
	st.entries = entries; /* last: stacks_intern and stacks_drain look at it */
	return 0;
}

int stacks_table(int recycle)
{
	int rc = table_init();
	if (!rc && recycle)
		st.recycle = 1;
	return rc;
}

int stacks_sample_launches(void)
{
	return st.enabled && !st.no_launches && st.cfg.mode == KG_STACKS_WAITS;
}

int stacks_python(uintptr_t *interp_lo, uintptr_t *interp_hi, char *why, size_t len)
{
	*interp_lo = st.interp_lo;
	*interp_hi = st.interp_hi;
	if (why && len)
		snprintf(why, len, "%s", st.python_why);
	return st.python;
}

int stacks_init(const struct kg_stack_config *cfg, struct kg_spool *spool)
{
	st.cfg = *cfg;
	if (st.cfg.mode == KG_STACKS_OFF)
		return 0;
	if (st.cfg.max_depth == 0 || st.cfg.max_depth > MAX_NATIVE)
		st.cfg.max_depth = MAX_NATIVE;
	/* 0:0 takes no launch (nor asynchronous memset) stacks, and CUPTI calls nothing for them */
	st.no_launches = st.cfg.launch_first == 0 && st.cfg.launch_every == 0;
	/* KGANTT_DEV_STACKS_BY_KERNEL=1: for bench/overhead.sh only, what counting by place
	 * costs against counting by kernel (the trace's stacks are then fewer, not other) */
	const char *by_kernel = getenv("KGANTT_DEV_STACKS_BY_KERNEL");
	st.by_kernel = by_kernel && *by_kernel == '1';
	/* --stacks all unwinds every call. KGANTT_DEV_WAIT_PLACES (measurement only): 0 every
	 * wait too, as before places, for what reusing their stacks saves; check: every wait,
	 * counting the reused stacks that were not the one unwound (tests/gpu/wait_places.sh;
	 * by id: a run whose tables were emptied, host_samples' recycling, counts too many).
	 * Without memory for the places every wait is unwound, as with 0. */
	const char *places = getenv("KGANTT_DEV_WAIT_PLACES");
	st.check_places = places && !strcmp(places, "check");
	if (st.cfg.mode == KG_STACKS_WAITS && !(places && *places == '0'))
		wait_places_init(&st.places, WAIT_PLACES);
	if (st.cfg.launch_every == 0)
		st.cfg.launch_every = 1;
	st.calls = malloc(MAX_CALLSITES * sizeof(*st.calls));
	st.drain_calls = malloc(MAX_CALLSITES * sizeof(*st.drain_calls));
	st.times = malloc(MAX_CALLSITES * sizeof(*st.times));
	st.drain_times = malloc(MAX_CALLSITES * sizeof(*st.drain_times));
	st.launches = calloc(LAUNCH_KEYS, sizeof(*st.launches));
	if (!st.calls || !st.drain_calls || !st.times || !st.drain_times || !st.launches ||
	    table_init() < 0)
		return -ENOMEM;
	cbid_table_fill(&st.class_by_fn, class_by_name, NULL);

	pthread_mutex_lock(&spool->lock);
	uint32_t why_s = st.python_why[0] ? spool_string(spool, st.python_why) : 0;
	struct kg_raw_stack_settings *r = spool_reserve(spool, KG_RAW_STACK_SETTINGS, sizeof(*r));
	if (r) {
		r->mode = st.cfg.mode;
		r->launch_first = st.cfg.launch_first;
		r->launch_every = st.cfg.launch_every;
		r->max_depth = st.cfg.max_depth;
		r->python_str = why_s;
		r->python = st.python;
		r->python_version = pyframes_version();
	}
	spool_flush(spool);
	pthread_mutex_unlock(&spool->lock);
	st.enabled = 1;
	return 0;
}

void stacks_subscribe(CUpti_SubscriberHandle sub)
{
	if (!st.enabled)
		return;
	set_class_callbacks(sub, 1, CLASS_WAIT);
	if (!st.no_launches) {
		set_class_callbacks(sub, 1, CLASS_LAUNCH);
		set_class_callbacks(sub, 1, CLASS_MEMSET);
	}
}

void stacks_disable(void)
{
	st.enabled = 0;
}

void stacks_counts(struct kg_stack_counts *c)
{
	pthread_mutex_lock(&st.lock);
	c->stacks = (uint64_t)st.id_base + st.n_entries;
	c->calls = st.total_calls;
	c->lost = st.lost;
	c->reused = st.places.reused;
	c->checked = st.places.checked;
	c->places = st.places.places;
	c->varying = st.places.varying;
	c->reused_wrong = st.check_places ? (int64_t)st.reused_wrong : -1;
	pthread_mutex_unlock(&st.lock);
}

/* ------------------------------------------------------------------ modules */

/* The extent of the module holding addr, 0..0 when none (recorder/maps.h: not
 * dl_iterate_phdr). */
static void module_range_of(const void *addr, uintptr_t *lo, uintptr_t *hi)
{
	struct kg_module_map mod;
	char path[4096];
	*lo = *hi = 0;
	if (maps_module_at((uintptr_t)addr, &mod, path, sizeof(path)) == 0)
		*lo = mod.lo, *hi = mod.hi;
}

/* A module with code not yet written: its record, with its load bias and build id read
 * from its file. */
static int write_module(const struct kg_module_map *mod, void *arg)
{
	struct kg_spool *spool = arg;
	if (!mod->exec || !mod->offset0)
		return 0; /* not all mapped yet: written at a later drain */
	uint64_t key = mod->offset0 ^ strtab_hash(mod->path, strlen(mod->path));
	for (uint32_t i = 0; i < st.n_modules; i++)
		if (st.module_seen[i] == key)
			return 0;
	if (st.n_modules >= MAX_MODULES)
		return 1;
	st.module_seen[st.n_modules++] = key; /* also when unreadable: not opened again */
	uint64_t bias = 0;
	uint8_t id[32];
	int id_len = maps_elf_info(mod->path, mod->offset0, &bias, id, sizeof(id));
	if (id_len < 0)
		return 0; /* not an ELF file we can read: no symbols from it */
	uint32_t path_s = spool_string(spool, mod->path);
	struct kg_raw_module *r = spool_reserve(spool, KG_RAW_MODULE, sizeof(*r));
	if (!r)
		return 0;
	r->base = bias;
	r->low = mod->lo;
	r->high = mod->hi;
	r->path_str = path_s;
	r->build_id_len = (uint32_t)id_len;
	memcpy(r->build_id, id, (size_t)id_len);
	return 0;
}

/* ------------------------------------------------------------------ to the spool */

static void write_stack(struct kg_spool *spool, uint32_t idx)
{
	const struct stack_entry *e = &st.entries[idx];
	uint32_t size = (uint32_t)(sizeof(struct kg_raw_stack) +
				   ((size_t)e->n_native + e->n_python) * sizeof(uint64_t));
	struct kg_raw_stack *r = spool_reserve(spool, KG_RAW_STACK, size);
	if (!r)
		return;
	r->id = st.id_base + idx + 1;
	r->flags = e->flags;
	r->n_native = e->n_native;
	r->n_python = e->n_python;
	/* entries are never changed once made: read without the lock */
	memcpy(r + 1, &st.arena[e->off], ((size_t)e->n_native + e->n_python) * sizeof(uint64_t));
}

static void write_calls(struct kg_spool *spool, const struct kg_raw_callsite *c, uint32_t n)
{
	while (n > 0) {
		uint32_t k = n < 4096 ? n : 4096;
		struct kg_raw_callsites *r = spool_reserve(
			spool, KG_RAW_CALLSITES, (uint32_t)(sizeof(*r) + k * sizeof(*c)));
		if (!r)
			return;
		r->count = k;
		memcpy(r + 1, c, k * sizeof(*c));
		c += k;
		n -= k;
	}
}

static void write_times(struct kg_spool *spool, const struct stack_time *t, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct kg_raw_overhead *r = spool_reserve(spool, KG_RAW_OVERHEAD, sizeof(*r));
		if (!r)
			return;
		r->start = t[i].start;
		r->end = t[i].end;
		r->kind = KG_OVERHEAD_KGANTT_STACK;
		r->object_kind = KG_OVERHEAD_OBJECT_THREAD;
		r->object_id = t[i].tid;
		r->correlation_id = t[i].correlation;
	}
}

static void emit_pycode(void *arg, const struct kg_pycode_info *info)
{
	struct kg_spool *spool = arg;
	uint32_t file_s = spool_string(spool, info->filename ? info->filename : "");
	uint32_t name_s = spool_string(spool, info->qualname ? info->qualname : "");
	uint32_t size = (uint32_t)((sizeof(struct kg_raw_pycode) + info->linetable_len + 7) & ~7u);
	struct kg_raw_pycode *r = spool_reserve(spool, KG_RAW_PYCODE, size);
	if (!r)
		return;
	r->id = info->id;
	r->filename_str = file_s;
	r->qualname_str = name_s;
	r->firstlineno = info->firstlineno;
	r->linetable_len = info->linetable_len;
	if (info->linetable_len)
		memcpy(r + 1, info->linetable, info->linetable_len);
}

/* Host samples meet many more distinct stacks than call sites do: once everything in the
 * tables is in the spool and they are three quarters full, they are emptied and ids go on
 * from where they were (a stack met again is written again), so the memory stays bounded
 * and no sample goes without its stack. Caller holds drain_lock. */
static void recycle_tables(void)
{
	pthread_mutex_lock(&st.lock);
	if (st.n_fresh == 0 && (st.n_entries > MAX_STACKS / 4 * 3 ||
				st.arena_used > ARENA_WORDS / 4 * 3)) {
		st.id_base += st.n_entries;
		st.n_entries = 0;
		st.arena_used = 0;
		memset(st.slots, 0, 2 * MAX_STACKS * sizeof(*st.slots));
		st.recycled++;
	}
	pthread_mutex_unlock(&st.lock);
}

void stacks_drain(struct kg_spool *spool)
{
	if (!st.entries)
		return;
	pthread_mutex_lock(&st.drain_lock);
	pthread_mutex_lock(&st.lock);
	uint32_t nf = st.n_fresh, nc = st.n_calls, nt = st.n_times;
	memcpy(st.drain_fresh, st.fresh, nf * sizeof(*st.fresh));
	if (nc) /* no call sites without --stacks: host samples only */
		memcpy(st.drain_calls, st.calls, nc * sizeof(*st.calls));
	if (nt)
		memcpy(st.drain_times, st.times, nt * sizeof(*st.times));
	st.n_fresh = st.n_calls = st.n_times = 0;
	pthread_mutex_unlock(&st.lock);

	/* new libraries first: dlopen'ed ones (PyTorch's) come long after the start */
	unsigned long long adds, subs;
	maps_loads(&adds, &subs);
	pthread_mutex_lock(&spool->lock);
	if (adds != st.last_adds || nf) {
		maps_modules(write_module, spool);
		st.last_adds = adds;
	}
	if (st.python > 0)
		pyframes_drain(emit_pycode, spool);
	for (uint32_t i = 0; i < nf; i++)
		write_stack(spool, st.drain_fresh[i]);
	write_calls(spool, st.drain_calls, nc);
	write_times(spool, st.drain_times, nt);
	spool_flush(spool);
	pthread_mutex_unlock(&spool->lock);
	if (st.recycle)
		recycle_tables();
	pthread_mutex_unlock(&st.drain_lock);
}
