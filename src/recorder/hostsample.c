/* Host samples (hostsample.h; how and why: docs/host-samples.md).
 *
 * Three parties:
 *  - the signal handler, on a sampled thread: reserves a cell of the ring (a bounded
 *    lock-free queue: a compare-and-swap, no lock), fills it with the time, the thread's
 *    state, its native and Python frames, and publishes it. Everything it touches was
 *    allocated at start and is never freed;
 *  - the sampler thread (all signals blocked), HZ times a second: moves the ring's cells
 *    into the stack table and the pending samples; for each thread sampled on wall-clock
 *    time, signals it if it ran since its last sample, else writes a sample for it (its
 *    last stack, off CPU) without waking it; every 10 ms lists /proc/self/task, gives new
 *    threads a timer on their own CPU time, moves threads to wall-clock time, retires the
 *    ones gone;
 *  - the flusher (hostsample_drain): writes the pending samples and threads to the spool.
 */
#include "recorder/hostsample.h"
#include "recorder/maps.h"
#include "recorder/own_thread.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "recorder/pyframes.h"
#include "recorder/raw_format.h"
#include "recorder/safe_read.h"
#include "recorder/say.h"
#include "recorder/stacks.h"
#include "recorder/stop_wait.h"
#include "util/clock.h"
#include "util/stack_flags.h"

#define HS_SLOTS 1024          /* threads sampled at once */
#define HS_RING 2048           /* samples between two passes of the sampler (a power of 2) */
#define HS_NATIVE 64           /* native frames a sample keeps at most */
#define HS_PYTHON 64           /* Python frames a sample keeps at most */
#define HS_PENDING 65536       /* samples waiting for the flusher */
#define HS_THREADS_OUT 4096    /* thread records waiting for the flusher */
#define HS_TICK_NS 2000000ull  /* the sampler empties the ring this often */
#define HS_SCAN_NS 10000000ull /* ... and lists the threads this often */
#define HS_OWN 32              /* the recorder's own threads */
#define HS_CUDA_KEYS 4096      /* thread ids CUPTI recorded calls on */
#define HS_RANGES 8192         /* executable segments of the loaded modules */
#define HS_STACK_SPAN (512ull << 20) /* a frame pointer this far above the stack pointer is not one */
#define HS_IDLE_NS 50000ull    /* CPU time a thread may use between samples (besides the
				* handler) and still be taken for not having run: returning to its
				* wait after the signal (CPython re-takes the GIL on EINTR) */
#define HS_REUSE_SCANS 10      /* every this many scans, look for a tid given to a new thread */
#define HS_HIST 256            /* the handler's durations, by 250 ns, for its median */
#define HS_HIST_NS 250

enum slot_state { SLOT_FREE = 0, SLOT_LIVE = 1, SLOT_DYING = 2 };

/* One thread being sampled. */
struct hs_slot {
	_Atomic uint32_t gen;          /* bumped at each reuse; its low 16 bits ride on the signal */
	_Atomic int state;             /* enum slot_state */
	pid_t tid;
	uint32_t number;               /* the thread's number in the spool: 1, 2, ... */
	/* written by the handler on that thread only, read by the sampler */
	struct kg_pages pages;         /* pages found readable (recorder/safe_read.h) */
	_Atomic int guarded;           /* in take_sample: a fault jumps back to jb (on_fault) */
	sigjmp_buf jb;
	struct hs_cell *volatile cell; /* the ring cell it filled when it faulted */
	_Atomic int python_listed;     /* the interpreter lists it (the sampler's last scan) */
	uint64_t cell_pos;
	_Atomic uint64_t pthread;      /* its pthread_self(), once sampled */
	_Atomic uint32_t flags;        /* KG_HOST_THREAD_PYTHON once seen with a thread state */
	_Atomic uint64_t samples;
	_Atomic uint64_t answered;     /* signals of ours its handler finished, sample or not */
	_Atomic uint64_t handler_ns;   /* the last handler's duration */
	/* the sampler's */
	timer_t timer;                 /* its CPU-time timer, until it is on wall-clock time */
	int has_timer, started;        /* started: its KG_HOST_THREAD_START is queued */
	_Atomic int wall;              /* the sampler signals it HZ times a second */
	uint64_t retire_pos;           /* DYING: reusable once the ring is read past this */
	uint64_t start_time;           /* /proc's starttime: tells a reused tid */
	uint64_t cpu_last;             /* its CPU time at the last tick, 0 none */
	uint64_t awaited;              /* `answered` when signalled; UINT64_MAX none */
	uint64_t ring_samples;         /* its samples read from the ring */
	uint32_t last_stack;           /* its last real sample's stack and state */
	uint8_t last_state;
	int has_last;
	uint32_t scan;
	char name[16];
};

/* One sample on its way from the handler to the sampler thread. */
struct hs_cell {
	_Atomic uint64_t seq;
	uint64_t ts;
	uint32_t slot, gen;
	uint8_t state;
	uint8_t overrun;               /* expirations merged into this one (at most 255) */
	uint8_t cut;                   /* 1 native walk cut at a failed check, 2 at HS_NATIVE */
	uint8_t faulted;               /* a read faulted half-way: no sample (on_fault) */
	uint16_t n_native, n_python;
	uint16_t py_cut;
	uint64_t ips[HS_NATIVE];
	struct kg_pyframe py[HS_PYTHON];
};

struct hs_pending {
	uint64_t ts;
	uint32_t stack;
	uint16_t thread;
	uint8_t state, overrun;
};

static struct {
	_Atomic int active;            /* the handler takes samples */
	_Atomic int inflight;          /* handlers past their first check */
	int started;
	pid_t pid;
	unsigned hz, max_native;
	int sig;
	int python;                    /* stacks_python's answer */
	uintptr_t interp_lo, interp_hi;
	kg_say_fn status;
	struct kg_spool *spool;

	struct hs_slot slots[HS_SLOTS];
	struct hs_cell *ring;
	_Atomic uint64_t head;         /* next cell to reserve */
	uint64_t tail;                 /* next cell to read (the sampler's) */

	/* executable segments, sorted: a return address must lie in one (seqlock) */
	_Atomic uint32_t rseq;
	uint32_t nranges;
	uintptr_t rlo[HS_RANGES], rhi[HS_RANGES];
	uintptr_t rbase[HS_RANGES];    /* ... the module's load address, its path (for a fault) */
	const char *rname[HS_RANGES];  /* into module_names */
	char module_names[64 * 1024];
	uint32_t module_names_used;
	unsigned long long adds, subs;
	int ranges_again;

	_Atomic pid_t own[HS_OWN];
	_Atomic uint32_t cuda[HS_CUDA_KEYS];
	_Atomic uint32_t last_cuda;

	uint64_t python_ids[HS_SLOTS]; /* threads with a Python thread state (tids), last scan */
	int n_python_ids;
	int pthread_tid_at;            /* glibc's struct pthread: where its tid is, -1 unknown */
	struct kg_pages sampler_pages; /* the sampler thread's, for reading those lists */

	pthread_t thread;
	int thread_started;
	struct kg_stop_wait wait; /* the sampler's sleep between ticks, cut short at exit */
	uint32_t scan_no;
	uint32_t next_number;
	uint32_t slots_used;           /* slots below this have been used: the ticks' walk */
	int taken_over;                /* the program installed its own handler on our signal */
	/* faults: the handler's reads that fault are caught (on_fault), the program's own
	 * passed on to the handler it had; until it replaces ours (then no_cache) */
	struct sigaction fault_prev[2]; /* SIGSEGV's, SIGBUS's */
	int fault_installed;
	_Atomic int no_cache;          /* every page checked at every sample: no catching */
	_Atomic int sampler_guarded;   /* the sampler thread reading the interpreter's lists */
	pid_t sampler_tid;
	sigjmp_buf sampler_jb;
	uintptr_t own_base, own_lo, own_hi; /* the recorder's load address, its code */
	/* for finding what breaks a program (KGANTT_DEV_HOST=empty: the handler returns at
	 * once; =wall: no thread is sampled on its CPU time) */
	int dev_empty, dev_wall_only, dev_trace, dev_nopy;
	int python_list_ok;            /* python_threads() gives kernel tids */

	pthread_mutex_t drain_lock;    /* one writer to the spool at a time */
	pthread_mutex_t lock;          /* the queues below and the sampler's counts */
	struct hs_pending *pending, *out;
	uint32_t n_pending;
	struct kg_raw_host_thread *threads, *threads_out;
	uint32_t n_threads;
	char (*names)[16], (*names_out)[16];

	/* counts: the handler's are atomics, the others under lock */
	_Atomic uint64_t taken, lost_ring, stale, overruns, native_cut, page_checks, handler_ns,
		lost_threads, faulted;
	_Atomic uint32_t handler_hist[HS_HIST];
	uint64_t written, lost_pending, no_stack, threads_seen, timer_errors;
	uint64_t counts_written;       /* `written` + `taken` when the counts were last written */
} hs = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.drain_lock = PTHREAD_MUTEX_INITIALIZER,
};

#define say(...) say_to(hs.status, __VA_ARGS__)

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ------------------------------------------------------------------ the handler's side */

/* The ring: Vyukov's bounded queue. A cell whose seq equals the position is free to
 * take; the taker publishes it with seq = position + 1; the reader frees it for the next
 * lap with seq = position + HS_RING. */
static struct hs_cell *ring_reserve(uint64_t *pos)
{
	uint64_t p = atomic_load_explicit(&hs.head, memory_order_relaxed);
	for (;;) {
		struct hs_cell *c = &hs.ring[p & (HS_RING - 1)];
		uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
		int64_t d = (int64_t)(seq - p);
		if (d == 0) {
			if (atomic_compare_exchange_weak_explicit(&hs.head, &p, p + 1,
								  memory_order_relaxed,
								  memory_order_relaxed)) {
				*pos = p;
				return c;
			}
		} else if (d < 0) {
			return NULL; /* full: the sampler is behind */
		} else {
			p = atomic_load_explicit(&hs.head, memory_order_relaxed);
		}
	}
}

/* Is a lies in an executable segment of a loaded module? 0 also while the table changes. */
static int code_address(uintptr_t a)
{
	uint32_t s1 = atomic_load_explicit(&hs.rseq, memory_order_acquire);
	if (s1 & 1)
		return 0;
	uint32_t lo = 0, hi = __atomic_load_n(&hs.nranges, __ATOMIC_RELAXED);
	int found = 0;
	if (hi > HS_RANGES)
		return 0;
	while (lo < hi) {
		uint32_t m = (lo + hi) / 2;
		uintptr_t rl = __atomic_load_n(&hs.rlo[m], __ATOMIC_RELAXED);
		uintptr_t rh = __atomic_load_n(&hs.rhi[m], __ATOMIC_RELAXED);
		if (a < rl) {
			hi = m;
		} else if (a >= rh) {
			lo = m + 1;
		} else {
			found = 1;
			break;
		}
	}
	atomic_thread_fence(memory_order_acquire);
	return found && atomic_load_explicit(&hs.rseq, memory_order_relaxed) == s1;
}

static int in_interpreter(uintptr_t a)
{
	return a >= hs.interp_lo && a < hs.interp_hi;
}

/* The interrupted thread's registers. 0 on an architecture the sampler does not know. */
static int registers(const ucontext_t *uc, uintptr_t *pc, uintptr_t *sp, uintptr_t *fp)
{
#if defined(__x86_64__)
	*pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	*sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	*fp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	return 1;
#elif defined(__aarch64__)
	*pc = (uintptr_t)uc->uc_mcontext.pc;
	*sp = (uintptr_t)uc->uc_mcontext.sp;
	*fp = (uintptr_t)uc->uc_mcontext.regs[29];
	return 1;
#else
	(void)uc, (void)pc, (void)sp, (void)fp;
	return 0;
#endif
}

/* Native frames by frame pointers, innermost first. Every address is a return address
 * as the importer reads them (it looks up address - 1), so the interrupted instruction
 * itself is stored as pc + 1. A frame pointer must lie above the last one, within the
 * stack's reach, on a readable page; its return address in a module's code; else the walk
 * stops there and says so (code built without frame pointers ends it: docs/host-samples.md).
 * With Python frames the walk ends at the interpreter's first frame, where the importer
 * puts them; when the thread is inside the interpreter itself, no native frame is kept. */
static unsigned native_walk(uint64_t *ips, unsigned max, uintptr_t pc, uintptr_t sp, uintptr_t fp,
			    struct kg_pages *pg, int python, uint8_t *cut)
{
	unsigned n = 0;
	*cut = 0;
	if (python && in_interpreter(pc))
		return 0;
	ips[n++] = pc + 1;
	uintptr_t low = sp;
	while (fp) { /* a thread's first frame has a zero frame pointer (_start, clone3) */
		if (n >= max) {
			*cut = 2;
			break;
		}
		if (fp < low || (fp & 7) || fp - sp > HS_STACK_SPAN || !kg_readable(pg, fp, 16)) {
			*cut = 1;
			break;
		}
		uintptr_t next = ((const uintptr_t *)fp)[0], ra = ((const uintptr_t *)fp)[1];
		if (!ra)
			break;
		if (!code_address(ra)) {
			*cut = 1;
			break;
		}
		ips[n++] = ra;
		if (python && in_interpreter(ra))
			break;
		low = fp + 16;
		fp = next;
	}
	return n;
}

/* Where the thread was, from the interrupted context: a system call that slept and was
 * cut short by the signal leaves its instruction just behind the program counter and
 * -EINTR in the result register, or, when it will be restarted, the program counter on
 * the instruction itself; a futex wait on the GIL's own memory is a wait for the GIL. */
static uint8_t where(const ucontext_t *uc, uintptr_t pc, struct kg_pages *pg,
		     const struct kg_pythread *th)
{
#if defined(__x86_64__)
	long ax = (long)uc->uc_mcontext.gregs[REG_RAX];
	uintptr_t di = (uintptr_t)uc->uc_mcontext.gregs[REG_RDI];
	uint8_t b[4];
	/* the page the thread was executing is mapped; only a neighbour needs a look */
	if (((pc - 2) & ~(uintptr_t)(KG_PAGE - 1)) != ((pc + 1) & ~(uintptr_t)(KG_PAGE - 1)) &&
	    !kg_readable(pg, pc - 2, 4))
		return KG_HOST_RUNNING;
	memcpy(b, (const void *)(pc - 2), 4);
	if (b[0] == 0x0f && b[1] == 0x05 && ax != -EINTR)
		return KG_HOST_IN_KERNEL;
	if (!(b[2] == 0x0f && b[3] == 0x05) && !(b[0] == 0x0f && b[1] == 0x05))
		return KG_HOST_RUNNING;
	if (th->gil_lo && di >= th->gil_lo && di < th->gil_hi)
		return KG_HOST_GIL_WAIT;
	return KG_HOST_BLOCKED;
#else
	(void)uc, (void)pc, (void)pg, (void)th;
	return KG_HOST_STATE_UNKNOWN;
#endif
}

static void take_sample(struct hs_slot *t, uint32_t k, uint32_t gen, const ucontext_t *uc,
			uint64_t ts, int overrun)
{
	uint64_t pos;
	uintptr_t pc, sp, fp;
	struct hs_cell *c = ring_reserve(&pos);
	if (!c) {
		atomic_fetch_add_explicit(&hs.lost_ring, 1, memory_order_relaxed);
		return;
	}
	struct kg_pythread th = {.holds_gil = -1, .gc_running = -1};
	int np = 0, pcut = 0;
	c->faulted = 0;
	t->cell_pos = pos;
	t->cell = c; /* before the first read that may fault */
	c->ts = ts;
	c->slot = k;
	c->gen = gen;
	c->overrun = (uint8_t)(overrun < 255 ? overrun : 255);
	c->cut = 0;
	c->n_native = 0;
	/* only on the threads the interpreter lists: no call into libpython on the others
	 * (an OpenMP pool's, CUDA's own), which a sample interrupts anywhere */
	if (hs.python > 0 && !hs.dev_nopy &&
	    (atomic_load_explicit(&t->python_listed, memory_order_relaxed) || !hs.python_list_ok))
		np = pyframes_capture_signal(c->py, HS_PYTHON, &pcut, &t->pages, &th);
	c->n_python = (uint16_t)np;
	c->py_cut = (uint16_t)pcut;
	c->state = KG_HOST_STATE_UNKNOWN;
	if (registers(uc, &pc, &sp, &fp)) {
		c->n_native = (uint16_t)native_walk(c->ips, hs.max_native, pc, sp, fp, &t->pages,
						    np > 0, &c->cut);
		c->state = where(uc, pc, &t->pages, &th);
	}
	if (th.gc_running == 1 && th.holds_gil == 1) /* outermost native: where Python's go */
		c->ips[c->n_native < hs.max_native ? c->n_native++ : c->n_native - 1] =
			KG_RAW_IP_PYTHON_GC;
	if (th.has_tstate) {
		c->state |= KG_HOST_S_PYTHON | (th.holds_gil == 1 ? KG_HOST_S_GIL : 0);
		if (!(atomic_load_explicit(&t->flags, memory_order_relaxed) & KG_HOST_THREAD_PYTHON))
			atomic_fetch_or_explicit(&t->flags, KG_HOST_THREAD_PYTHON,
						 memory_order_relaxed);
	}
	if (!atomic_load_explicit(&t->wall, memory_order_relaxed))
		c->state |= KG_HOST_S_CPU_TIMER;
	if (c->cut == 1)
		atomic_fetch_add_explicit(&hs.native_cut, 1, memory_order_relaxed);
	if (!atomic_load_explicit(&t->pthread, memory_order_relaxed))
		atomic_store_explicit(&t->pthread, (uint64_t)pthread_self(), memory_order_relaxed);
	atomic_fetch_add_explicit(&t->samples, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&hs.taken, 1, memory_order_relaxed);
	t->cell = NULL;
	atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
}

/* A read of take_sample's faulted (on_fault jumped back): its cell goes out marked, so
 * that the ring moves on; what the page cache kept is forgotten, since a page it kept may
 * be the one that went away; the Python code table's lock, if taken, is let go. */
static void sample_faulted(struct hs_slot *t)
{
	atomic_store_explicit(&t->guarded, 0, memory_order_relaxed);
	pyframes_abandon(&t->pages);
	memset(t->pages.page, 0, sizeof(t->pages.page));
	atomic_fetch_add_explicit(&hs.faulted, 1, memory_order_relaxed);
	struct hs_cell *c = t->cell;
	if (c) {
		t->cell = NULL;
		c->faulted = 1;
		c->n_native = c->n_python = 0;
		atomic_store_explicit(&c->seq, t->cell_pos + 1, memory_order_release);
	}
}

/* The signal handler. It runs with every signal blocked but a fault's (sa_mask), so that
 * no handler of the program runs on top of it (and none can longjmp out of it); a fault in
 * its reads comes back here through on_fault. */
static void on_signal(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno;
	const ucontext_t *uc = ucv;
	(void)sig;
	/* Dekker with hostsample_stop: it clears active, then waits for inflight to be 0 */
	atomic_fetch_add(&hs.inflight, 1);
	/* from a CPU-time timer, or from the sampler thread (rt_tgsigqueueinfo) */
	int ours = si->si_code == SI_TIMER || (si->si_code == SI_QUEUE && si->si_pid == hs.pid);
	if (!atomic_load(&hs.active) || !ours) {
		atomic_fetch_add_explicit(&hs.stale, 1, memory_order_relaxed);
		goto out;
	}
	uint32_t v = (uint32_t)si->si_value.sival_int, k = v & 0xffff, gen = v >> 16;
	struct hs_slot *t = k < HS_SLOTS ? &hs.slots[k] : NULL;
	if (!t || (atomic_load_explicit(&t->gen, memory_order_acquire) & 0xffff) != gen ||
	    atomic_load_explicit(&t->state, memory_order_relaxed) != SLOT_LIVE) {
		atomic_fetch_add_explicit(&hs.stale, 1, memory_order_relaxed);
		goto out;
	}
	int overrun = si->si_overrun > 0 ? si->si_overrun : 0;
	if (overrun)
		atomic_fetch_add_explicit(&hs.overruns, (uint64_t)overrun, memory_order_relaxed);
	/* on a program's alternate signal stack (inside its own handler): that stack may be
	 * too small for this one, and the sample would say little */
	if ((uc->uc_stack.ss_flags & SS_ONSTACK) || hs.dev_empty)
		goto answered;

	uint64_t t0 = now_raw_ns();
	uint32_t checks = t->pages.checks;
	/* without the catch (no_cache) no page is taken on an earlier check's word */
	t->pages.now += atomic_load_explicit(&hs.no_cache, memory_order_relaxed) ? KG_PAGE_TTL : 1;
	t->cell = NULL;
	if (sigsetjmp(t->jb, 1) == 0) {
		atomic_store_explicit(&t->guarded, 1, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
		take_sample(t, k, gen, uc, t0, overrun);
		atomic_signal_fence(memory_order_seq_cst);
		atomic_store_explicit(&t->guarded, 0, memory_order_relaxed);
	} else {
		sample_faulted(t);
	}
	uint64_t spent = now_raw_ns() - t0;
	atomic_store_explicit(&t->handler_ns, spent, memory_order_relaxed);
	atomic_fetch_add_explicit(&hs.handler_hist[spent / HS_HIST_NS < HS_HIST ? spent / HS_HIST_NS
										: HS_HIST - 1],
				  1, memory_order_relaxed);
	atomic_fetch_add_explicit(&hs.page_checks, t->pages.checks - checks, memory_order_relaxed);
	atomic_fetch_add_explicit(&hs.handler_ns, spent, memory_order_relaxed);
answered:
	atomic_fetch_add_explicit(&t->answered, 1, memory_order_release);
out:
	atomic_fetch_sub(&hs.inflight, 1);
	errno = saved;
}

/* "0x" and v in hex into b (19 bytes at most); its length. For a handler: no snprintf. */
static size_t hex(char *b, uintptr_t v)
{
	char d[16];
	size_t n = 0, k = 0;
	do {
		d[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	b[k++] = '0';
	b[k++] = 'x';
	while (n)
		b[k++] = d[--n];
	return k;
}

static size_t dec(char *b, uint64_t v)
{
	char d[20];
	size_t n = 0, k = 0;
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		b[k++] = d[--n];
	return k;
}

static size_t put(char *b, const char *s)
{
	size_t n = strnlen(s, 200); /* a module's name is cut there: the line fits tell_fault's */
	memcpy(b, s, n);
	return n;
}

/* One line on stderr for a fault that is the program's, before it goes on: where it was
 * and whether the recorder's own code was running (its offset, for addr2line), so that a
 * crash under kgantt says whose it is. */
static int is_own(pid_t tid);

/* "module+offset" of a code address, or the recorder's own offset (for addr2line). */
static size_t put_code(char *b, uintptr_t pc)
{
	size_t n = 0;
	if (pc >= hs.own_lo && pc < hs.own_hi) {
		n += put(b + n, "in the kgantt recorder, offset ");
		return n + hex(b + n, pc - hs.own_base);
	}
	for (uint32_t i = 0; i < hs.nranges && i < HS_RANGES; i++) {
		if (pc < hs.rlo[i] || pc >= hs.rhi[i])
			continue;
		const char *name = hs.rname[i] && hs.rname[i][0] ? hs.rname[i] : "the program";
		const char *slash = strrchr(name, '/');
		n += put(b + n, "in ");
		n += put(b + n, slash ? slash + 1 : name);
		n += put(b + n, "+");
		return n + hex(b + n, pc - hs.rbase[i]);
	}
	return n;
}

/* The thread's name from /proc (open and read are async-signal-safe). */
static size_t put_comm(char *b, pid_t tid)
{
	char path[48] = "/proc/self/task/", name[17];
	size_t p = 16;
	p += dec(path + p, (uint64_t)tid);
	memcpy(path + p, "/comm", 6);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t r = read(fd, name, 16);
	close(fd);
	if (r <= 0)
		return 0;
	while (r > 0 && (name[r - 1] == '\n' || name[r - 1] == 0))
		r--;
	name[r] = 0;
	size_t n = put(b, " '");
	n += put(b + n, name);
	return n + put(b + n, "'");
}

/* Code addresses on the stack between sp and the end of its page (a fault handler must
 * not read past what it knows is mapped): the return addresses of the calls that led
 * there, most of the time, for a crash whose frames have no frame pointers. */
static size_t put_callers(char *b, uintptr_t sp)
{
	size_t n = 0;
	int shown = 0;
	uintptr_t end = (sp | 4095) + 1;
	for (uintptr_t a = (sp + 7) & ~(uintptr_t)7; sp && a + 8 <= end && shown < 4; a += 8) {
		uintptr_t w = *(const uintptr_t *)a;
		if (!code_address(w))
			continue;
		n += put(b + n, shown++ ? ", " : "; on its stack: ");
		n += put_code(b + n, w);
	}
	return n;
}

static void tell_fault(int sig, const siginfo_t *si, const ucontext_t *uc)
{
	char b[1024];
	uintptr_t pc = 0, sp = 0, fp = 0;
	registers(uc, &pc, &sp, &fp);
	size_t n = put(b, sig == SIGBUS ? "kgantt: SIGBUS" : "kgantt: SIGSEGV");
	n += put(b + n, " at ");
	n += hex(b + n, (uintptr_t)si->si_addr);
	n += put(b + n, ", pc ");
	n += hex(b + n, pc);
	size_t at = n;
	n += put(b + n, " (");
	size_t m = put_code(b + n, pc);
	n = m ? n + m + put(b + n + m, ")") : at;
	n += put(b + n, ", sp ");
	n += hex(b + n, sp);
	pid_t tid = my_tid();
	n += put(b + n, ", thread ");
	n += dec(b + n, (uint64_t)tid);
	if (is_own(tid)) {
		n += put(b + n, " (the recorder's");
		n += put_comm(b + n, tid);
		n += put(b + n, ")");
	} else {
		for (uint32_t k = 0; k < HS_SLOTS; k++)
			if (hs.slots[k].tid == tid && hs.slots[k].name[0]) {
				n += put(b + n, " '");
				n += put(b + n, hs.slots[k].name);
				n += put(b + n, atomic_load(&hs.slots[k].wall) ? "', sampled on wall-clock time"
									     : "', sampled on its CPU time");
				break;
			}
	}
	/* not when the stack itself faulted (an overflow): its page may be the guard */
	if (((uintptr_t)si->si_addr >> 12) != (sp >> 12))
		n += put_callers(b + n, sp);
	n += put(b + n, "\n");
	ssize_t w = write(2, b, n);
	(void)w;
}

/* A fault that is not ours goes to the handler the program had: called as the kernel
 * would have called it; or, when it had none, the default action is put back and the
 * instruction faults again on return, now with the core dump the program would have. */
static void pass_on(int sig, siginfo_t *si, void *ucv)
{
	const struct sigaction *prev = &hs.fault_prev[sig == SIGBUS];
	if (prev->sa_flags & SA_SIGINFO) {
		prev->sa_sigaction(sig, si, ucv);
	} else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
		prev->sa_handler(sig);
	} else {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
	}
}

/* SIGSEGV and SIGBUS. The handler reads memory it checked (safe_read.h), but a page
 * checked a few samples earlier can be unmapped since, and a frame pointer in code built
 * without them holds any value: a fault there, on a thread in take_sample (or the sampler
 * reading the interpreter's lists), goes back to before the read and loses one sample,
 * counted. Any other fault is the program's. */
static void on_fault(int sig, siginfo_t *si, void *ucv)
{
	if (si->si_code > 0) { /* sent by the kernel for a fault, not by kill() */
		pid_t tid = my_tid();
		for (uint32_t k = 0; k < HS_SLOTS; k++) {
			struct hs_slot *t = &hs.slots[k];
			if (atomic_load_explicit(&t->guarded, memory_order_relaxed) && t->tid == tid)
				siglongjmp(t->jb, 1);
		}
		if (atomic_load(&hs.sampler_guarded) && hs.sampler_tid == tid)
			siglongjmp(hs.sampler_jb, 1);
		tell_fault(sig, si, ucv);
	}
	pass_on(sig, si, ucv);
}

static void dev_handler(const char *what, int sig, const struct sigaction *sa)
{
	Dl_info di;
	void *fn = (sa->sa_flags & SA_SIGINFO) ? (void *)sa->sa_sigaction : (void *)sa->sa_handler;
	const char *mod = fn && fn != (void *)SIG_DFL && fn != (void *)SIG_IGN && dladdr(fn, &di)
				  ? di.dli_fname
				  : "-";
	fprintf(stderr, "kgantt-dev: %s handler of signal %d: %p in %s (flags %#x)\n", what, sig, fn,
		mod, (unsigned)sa->sa_flags);
}

/* The recorder's own code (its executable mapping) and load bias: "in the kgantt recorder,
 * offset X" is for addr2line. */
static int find_own_code(const struct kg_map *m, void *arg)
{
	uintptr_t me = (uintptr_t)arg;
	if (!m->exec || me < m->lo || me >= m->hi)
		return 0;
	hs.own_lo = m->lo;
	hs.own_hi = m->hi;
	hs.own_base = m->lo - (uintptr_t)m->offset;
	return 1;
}

static void own_code(void)
{
	maps_each(find_own_code, (void *)(uintptr_t)on_fault);
	struct kg_module_map mod;
	char path[4096];
	uint64_t bias;
	uint8_t id[32];
	if (maps_module_at((uintptr_t)on_fault, &mod, path, sizeof(path)) == 0 &&
	    maps_elf_info(path, mod.offset0, &bias, id, sizeof(id)) >= 0)
		hs.own_base = (uintptr_t)bias;
}

static int install_fault_handler(void)
{
	own_code();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	/* on the program's alternate stack if it has one: a stack overflow is its fault */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &hs.fault_prev[0]) < 0)
		return -1;
	if (sigaction(SIGBUS, &sa, &hs.fault_prev[1]) < 0) {
		sigaction(SIGSEGV, &hs.fault_prev[0], NULL);
		return -1;
	}
	hs.fault_installed = 1;
	if (hs.dev_trace) {
		dev_handler("the earlier", SIGSEGV, &hs.fault_prev[0]);
		dev_handler("the earlier", SIGBUS, &hs.fault_prev[1]);
	}
	return 0;
}

/* ------------------------------------------------------------------ threads and timers */

static int is_own(pid_t tid)
{
	for (int i = 0; i < HS_OWN; i++)
		if (atomic_load_explicit(&hs.own[i], memory_order_relaxed) == tid)
			return 1;
	return 0;
}

void hostsample_own_thread(void)
{
	pid_t tid = my_tid();
	for (int i = 0; i < HS_OWN; i++) {
		pid_t zero = 0;
		if (atomic_compare_exchange_strong(&hs.own[i], &zero, tid) || zero == tid)
			return;
	}
}

static uint32_t cuda_hash(uint32_t id)
{
	return (uint32_t)(id * 0x9E3779B1u) >> (32 - 12);
}

static void cuda_add(uint32_t id)
{
	if (!id)
		return;
	for (uint32_t i = 0, j = cuda_hash(id); i < 16; i++, j = (j + 1) & (HS_CUDA_KEYS - 1)) {
		uint32_t zero = 0;
		if (atomic_compare_exchange_strong(&hs.cuda[j], &zero, id) || zero == id)
			return;
	}
}

static int cuda_has(uint32_t id)
{
	if (!id)
		return 0;
	for (uint32_t i = 0, j = cuda_hash(id); i < 16; i++, j = (j + 1) & (HS_CUDA_KEYS - 1)) {
		uint32_t v = atomic_load_explicit(&hs.cuda[j], memory_order_relaxed);
		if (v == id)
			return 1;
		if (!v)
			return 0;
	}
	return 0;
}

void hostsample_cuda_thread(uint32_t cupti_tid)
{
	/* calls come in runs from one thread: one look per run */
	if (!hs.started || atomic_exchange_explicit(&hs.last_cuda, cupti_tid,
						    memory_order_relaxed) == cupti_tid)
		return;
	cuda_add(cupti_tid);
}

/* A thread's CPU-time clock (the kernel's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)). */
static clockid_t thread_cpu_clock(pid_t tid)
{
	return (clockid_t)((~(uint32_t)tid << 3) | 6u);
}

static void disarm(struct hs_slot *t)
{
	if (t->has_timer)
		timer_delete(t->timer);
	t->has_timer = 0;
}

/* A timer on the thread's own CPU time: the kernel signals it only while it runs (at most
 * once a kernel tick: a sample then stands for its overruns too). The first expiry is spread
 * over one period so that threads are not interrupted in step. */
static int arm_cpu_timer(struct hs_slot *t, uint32_t k)
{
	struct sigevent sev;
	timer_t id;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = hs.sig;
	sev.sigev_value.sival_int = (int)(k | (atomic_load(&t->gen) & 0xffff) << 16);
	sev._sigev_un._tid = t->tid;
	if (hs.dev_wall_only)
		return -ENOTSUP;
	if (timer_create(thread_cpu_clock(t->tid), &sev, &id) < 0)
		return -errno;
	long period = 1000000000L / (long)hs.hz;
	long first = period / 2 + (long)((t->tid * 2654435761u) % (uint32_t)period) / 2;
	struct itimerspec its = {
		.it_interval = {period / 1000000000L, period % 1000000000L},
		.it_value = {first / 1000000000L, first % 1000000000L},
	};
	if (timer_settime(id, 0, &its, NULL) < 0) {
		int err = -errno;
		timer_delete(id);
		return err;
	}
	t->timer = id;
	t->has_timer = 1;
	return 0;
}

/* From here the sampler thread signals it on wall-clock time; its CPU timer goes. */
static void to_wall(struct hs_slot *t)
{
	disarm(t);
	t->cpu_last = 0;
	t->awaited = UINT64_MAX;
	atomic_store(&t->wall, 1);
}

/* The sampler's signal to one thread, carrying its slot as a CPU timer's does. */
static int signal_thread(struct hs_slot *t, uint32_t k)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = hs.sig;
	si.si_code = SI_QUEUE;
	si.si_pid = hs.pid;
	si.si_uid = getuid();
	si.si_value.sival_int = (int)(k | (atomic_load(&t->gen) & 0xffff) << 16);
	return (int)syscall(SYS_rt_tgsigqueueinfo, hs.pid, t->tid, hs.sig, &si);
}

/* Name and start time from /proc/self/task/TID/stat ("tid (comm) S ... starttime ..."). */
static int thread_stat(pid_t tid, char name[16], uint64_t *start)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	char *open_paren = strchr(buf, '('), *close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return -1;
	size_t len = (size_t)(close_paren - open_paren - 1);
	if (name) {
		snprintf(name, 16, "%.*s", (int)(len < 15 ? len : 15), open_paren + 1);
	}
	/* starttime is field 22; field 3 (the state) follows ") " */
	char *p = close_paren + 2;
	for (int field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	*start = p ? strtoull(p, NULL, 10) : 0;
	return 0;
}

/* Queues a thread record for the flusher. Caller holds hs.lock. */
static void queue_thread(const struct hs_slot *t, uint32_t event, uint64_t ts)
{
	if (hs.n_threads >= HS_THREADS_OUT)
		return;
	struct kg_raw_host_thread *r = &hs.threads[hs.n_threads];
	memset(r, 0, sizeof(*r));
	r->ts = ts;
	r->pthread = atomic_load(&t->pthread);
	r->thread = t->number;
	r->tid = (uint32_t)t->tid;
	r->event = event;
	r->flags = atomic_load(&t->flags) | (cuda_has((uint32_t)t->tid) ? KG_HOST_THREAD_CUDA : 0);
	memcpy(hs.names[hs.n_threads], t->name, 16);
	hs.n_threads++;
}

static struct hs_slot *slot_of_tid(pid_t tid, uint32_t *k)
{
	for (uint32_t i = 0; i < HS_SLOTS; i++)
		if (atomic_load_explicit(&hs.slots[i].state, memory_order_relaxed) == SLOT_LIVE &&
		    hs.slots[i].tid == tid) {
			*k = i;
			return &hs.slots[i];
		}
	return NULL;
}

/* Does the interpreter list the thread? */
static int python_thread(pid_t tid)
{
	for (int i = 0; i < hs.n_python_ids; i++)
		if (hs.python_ids[i] == (uint64_t)tid)
			return 1;
	return 0;
}

/* The threads the interpreters list, as kernel tids. CPython 3.10 keeps only pthread_self()
 * of each: glibc says, for its debuggers (libthread_db), where struct pthread holds the tid. */
static void python_threads(void)
{
	int native = 0, n = 0;
	hs.sampler_pages.now += KG_PAGE_TTL; /* lists that change: check every page again */
	if (sigsetjmp(hs.sampler_jb, 1) == 0) {
		atomic_store(&hs.sampler_guarded, 1);
		n = pyframes_threads(hs.python_ids, HS_SLOTS, &native, &hs.sampler_pages);
		atomic_store(&hs.sampler_guarded, 0);
	} else { /* a list's page went away between its check and its read: next scan */
		atomic_store(&hs.sampler_guarded, 0);
		atomic_fetch_add_explicit(&hs.faulted, 1, memory_order_relaxed);
		return;
	}
	if (!native) {
		int k = 0;
		for (int i = 0; i < n && hs.pthread_tid_at >= 0; i++) {
			uintptr_t at = (uintptr_t)hs.python_ids[i] + (uintptr_t)hs.pthread_tid_at;
			if (kg_readable(&hs.sampler_pages, at, sizeof(pid_t)))
				hs.python_ids[k++] = (uint64_t)*(const pid_t *)at;
		}
		n = k;
	}
	hs.python_list_ok = native || hs.pthread_tid_at >= 0;
	hs.n_python_ids = n;
}

/* Threads that run Python or call CUDA are sampled on wall-clock time. */
static int wants_wall(const struct hs_slot *t, pid_t tid)
{
	return (atomic_load(&t->flags) & KG_HOST_THREAD_PYTHON) || python_thread(tid) ||
	       cuda_has((uint32_t)tid);
}

static void new_thread(pid_t tid)
{
	uint32_t k;
	for (k = 0; k < HS_SLOTS; k++)
		if (atomic_load_explicit(&hs.slots[k].state, memory_order_relaxed) == SLOT_FREE)
			break;
	if (k == HS_SLOTS || hs.next_number >= 65535) {
		/* counted at every listing that finds no room for it */
		atomic_fetch_add_explicit(&hs.lost_threads, 1, memory_order_relaxed);
		return;
	}
	struct hs_slot *t = &hs.slots[k];
	uint64_t start = 0;
	char name[16] = "";
	if (thread_stat(tid, name, &start) < 0)
		return; /* gone already */
	if (k >= hs.slots_used)
		hs.slots_used = k + 1;
	memset(&t->pages, 0, sizeof(t->pages));
	atomic_store(&t->pthread, 0);
	atomic_store(&t->flags, 0);
	atomic_store(&t->samples, 0);
	atomic_store(&t->answered, 0);
	atomic_store(&t->wall, 0);
	t->tid = tid;
	t->started = 0;
	t->start_time = start;
	t->ring_samples = 0;
	t->has_last = 0;
	t->scan = hs.scan_no;
	memcpy(t->name, name, sizeof(name));
	atomic_fetch_add(&t->gen, 1);
	atomic_store_explicit(&t->state, SLOT_LIVE, memory_order_release);
	atomic_store(&t->python_listed, python_thread(tid));
	/* a thread known to run Python or call CUDA goes straight to wall-clock time */
	int err = 0;
	if (wants_wall(t, tid))
		to_wall(t);
	else
		err = arm_cpu_timer(t, k);
	if (err < 0) {
		atomic_store(&t->state, SLOT_FREE);
		pthread_mutex_lock(&hs.lock);
		hs.timer_errors++;
		pthread_mutex_unlock(&hs.lock);
		return;
	}
	t->number = ++hs.next_number;
	if (hs.dev_trace)
		fprintf(stderr, "kgantt-dev: sampling thread %d '%s' on %s\n", (int)tid, name,
			atomic_load(&t->wall) ? "wall-clock time" : "its CPU time");
	pthread_mutex_lock(&hs.lock);
	hs.threads_seen++;
	pthread_mutex_unlock(&hs.lock);
}

/* The thread is gone (or the recorder stops): no timer, and the slot is reused once the
 * ring has been read past every sample the thread could have left in it. */
static void retire(struct hs_slot *t)
{
	disarm(t);
	t->retire_pos = atomic_load(&hs.head);
	atomic_store(&t->state, SLOT_DYING);
}

static void take_ring(void);
static void queue_sample(struct hs_slot *t, uint64_t ts, uint32_t stack, uint8_t state,
			 uint8_t overrun);

static void free_dying(uint64_t now)
{
	for (uint32_t k = 0; k < HS_SLOTS; k++) {
		struct hs_slot *t = &hs.slots[k];
		if (atomic_load(&t->state) != SLOT_DYING || hs.tail < t->retire_pos)
			continue;
		if (t->started) {
			pthread_mutex_lock(&hs.lock);
			queue_thread(t, KG_HOST_THREAD_END, now);
			pthread_mutex_unlock(&hs.lock);
		}
		atomic_fetch_add(&t->gen, 1); /* signals still on their way are not its */
		atomic_store(&t->state, SLOT_FREE);
	}
}

/* A live thread: is it running Python or calling CUDA (then: wall-clock time)? And now
 * and then: is its tid still the thread's, not one the kernel gave to a new thread? */
static void check_thread(struct hs_slot *t, uint64_t now)
{
	int listed = python_thread(t->tid);
	/* listed since its last sample (a thread sampled before the interpreter's list had
	 * it): that sample has no Python frames, and a sleeping thread's would be repeated
	 * for its whole sleep; the next tick takes a new one */
	if (listed && !atomic_load_explicit(&t->python_listed, memory_order_relaxed))
		t->has_last = 0;
	atomic_store_explicit(&t->python_listed, listed, memory_order_relaxed);
	if (!atomic_load(&t->wall) && wants_wall(t, t->tid)) {
		to_wall(t);
		if (t->started) {
			pthread_mutex_lock(&hs.lock);
			queue_thread(t, KG_HOST_THREAD_WALL, now);
			pthread_mutex_unlock(&hs.lock);
		}
	}
	uint64_t start = 0;
	if (hs.scan_no % HS_REUSE_SCANS == 0 && thread_stat(t->tid, NULL, &start) == 0 &&
	    start != t->start_time)
		retire(t); /* another thread now: the next scan gives it a slot of its own */
}

/* Lists /proc/self/task: new threads get a slot and a timer, gone ones are retired. */
static void scan_threads(uint64_t now)
{
	char buf[4096];
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	hs.scan_no++;
	if (hs.python > 0)
		python_threads();
	for (;;) {
		long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			off += d->d_reclen;
			pid_t tid = (pid_t)atoi(d->d_name);
			if (tid <= 0 || is_own(tid))
				continue;
			uint32_t k;
			struct hs_slot *t = slot_of_tid(tid, &k);
			if (t) {
				t->scan = hs.scan_no;
				check_thread(t, now);
			} else {
				new_thread(tid);
			}
		}
	}
	close(fd);
	for (uint32_t k = 0; k < HS_SLOTS; k++) {
		struct hs_slot *t = &hs.slots[k];
		if (atomic_load(&t->state) == SLOT_LIVE && (t->scan != hs.scan_no || is_own(t->tid)))
			retire(t);
	}
	free_dying(now);
}

/* ------------------------------------------------------------------ the sampler thread */

/* A module's path kept for tell_fault: the names only grow (a fault handler may be reading
 * one while the table is rebuilt); "" when they are full. */
static const char *keep_name(const char *path)
{
	for (uint32_t at = 0; at < hs.module_names_used;) {
		const char *have = hs.module_names + at;
		if (!strcmp(have, path))
			return have;
		at += (uint32_t)strlen(have) + 1;
	}
	size_t len = strlen(path);
	if (hs.module_names_used + len + 1 > sizeof(hs.module_names))
		return "";
	char *at = hs.module_names + hs.module_names_used;
	memcpy(at, path, len + 1);
	hs.module_names_used += (uint32_t)len + 1;
	return at;
}

static int add_segment(const struct kg_map *m, void *arg)
{
	uint32_t *n = arg;
	if (!m->exec || *n >= HS_RANGES)
		return *n >= HS_RANGES;
	hs.rlo[*n] = m->lo;
	hs.rhi[*n] = m->hi;
	hs.rbase[*n] = m->lo - (uintptr_t)m->offset; /* "+offset" is the file's, as perf's */
	hs.rname[*n] = keep_name(m->path);
	(*n)++;
	return 0;
}

/* Rebuilt when a library was loaded or unloaded, and once more at the next scan (a module
 * being loaded may not have its code mapped yet); readers see a table that is whole or
 * none (they stop the walk). From /proc/self/maps: recorder/maps.h says why. */
static void refresh_ranges(void)
{
	unsigned long long adds, subs;
	maps_loads(&adds, &subs);
	if (adds == hs.adds && subs == hs.subs && hs.nranges && !hs.ranges_again)
		return;
	hs.ranges_again = adds != hs.adds || subs != hs.subs;
	hs.adds = adds;
	hs.subs = subs;
	atomic_fetch_add_explicit(&hs.rseq, 1, memory_order_acq_rel); /* odd: changing */
	uint32_t n = 0;
	maps_each(add_segment, &n); /* in address order */
	hs.nranges = n;
	atomic_fetch_add_explicit(&hs.rseq, 1, memory_order_release);
}

/* Does the sample hold a Python frame whose code it could not take? */
static int frameless(const struct hs_cell *c)
{
	for (uint32_t j = 0; j < c->n_python; j++)
		if (!c->py[j].code)
			return 1;
	return 0;
}

/* One sample for the flusher; the thread's record first, on its first sample. */
static void queue_sample(struct hs_slot *t, uint64_t ts, uint32_t stack, uint8_t state,
			 uint8_t overrun)
{
	pthread_mutex_lock(&hs.lock);
	if (!t->started) {
		t->started = 1;
		queue_thread(t, KG_HOST_THREAD_START, ts);
		if (atomic_load(&t->wall))
			queue_thread(t, KG_HOST_THREAD_WALL, ts);
	}
	hs.no_stack += !stack;
	if (hs.n_pending < HS_PENDING)
		hs.pending[hs.n_pending++] = (struct hs_pending){
			.ts = ts, .stack = stack, .thread = (uint16_t)t->number, .state = state,
			.overrun = overrun};
	else
		hs.lost_pending++;
	pthread_mutex_unlock(&hs.lock);
}

/* Moves the ring's samples into the stack table and the pending queue. */
static void take_ring(void)
{
	for (;;) {
		struct hs_cell *c = &hs.ring[hs.tail & (HS_RING - 1)];
		if (atomic_load_explicit(&c->seq, memory_order_acquire) != hs.tail + 1)
			return;
		if (c->faulted) { /* counted by the handler */
			atomic_store_explicit(&c->seq, hs.tail + HS_RING, memory_order_release);
			hs.tail++;
			continue;
		}
		struct hs_slot *t = &hs.slots[c->slot];
		/* whether a stack is whole is told at import by its outermost frames, as for
		 * call stacks; the sample's state says where the walk was cut */
		uint32_t flags = (c->cut == 2 || c->py_cut ? KG_STACK_TRUNCATED : 0) |
				 (hs.python < 0 ? KG_STACK_NO_PYTHON : 0);
		uint32_t stack = stacks_intern((const uintptr_t *)c->ips, c->n_native, c->py,
					       c->n_python, flags);
		uint8_t state = c->state | (c->cut == 1 ? KG_HOST_S_NATIVE_CUT : 0) |
				(c->py_cut ? KG_HOST_S_PYTHON_CUT : 0);
		uint64_t ts = c->ts;
		uint8_t overrun = c->overrun;
		int mine = c->gen == (atomic_load(&t->gen) & 0xffff);
		atomic_store_explicit(&c->seq, hs.tail + HS_RING, memory_order_release);
		hs.tail++;
		if (!mine) { /* taken just as the recorder retired its thread: not the new one's */
			atomic_fetch_add_explicit(&hs.stale, 1, memory_order_relaxed);
			continue;
		}
		/* the slot is not reused before the ring is read past its samples (retire) */
		t->ring_samples++;
		t->last_stack = stack;
		t->last_state = state;
		/* a Python frame left without its code (the code table was busy, taken by the
		 * thread the signal interrupted or another): not a stack to repeat for a whole
		 * sleep (t092 under load: 1,196 samples of a sleeping thread, each with its
		 * innermost frame unreadable); the next tick signals the thread again */
		t->has_last = !frameless(c);
		queue_sample(t, ts, stack, state, overrun);
	}
}

/* HZ times a second, for each thread on wall-clock time: signal it when it ran since its
 * last sample (its CPU time grew by more than that sample's handler took, and a little),
 * or when that sample did not find it asleep; else write a sample for it without waking
 * it: off CPU, at its last sample's stack. So a thread asleep in time.sleep(), a lock or a
 * queue is interrupted once, not HZ times a second (each interruption makes CPython
 * re-take the GIL before sleeping again). The slack is only for that return to the same
 * wait: a thread caught on CPU that then fell asleep within it (a fork, a call, then a
 * sleep: 20 us) would otherwise lend the whole sleep the stack it was running. */
static void tick_wall(uint64_t now)
{
	for (uint32_t k = 0; k < hs.slots_used; k++) {
		struct hs_slot *t = &hs.slots[k];
		if (atomic_load_explicit(&t->state, memory_order_relaxed) != SLOT_LIVE ||
		    !atomic_load_explicit(&t->wall, memory_order_relaxed))
			continue;
		uint64_t n = atomic_load(&t->samples), answered = atomic_load(&t->answered);
		/* last tick's signal not handled yet (the thread waits for a CPU, or blocks it); a
		 * handler that took no sample (it faulted, or ran on the program's alternate
		 * stack) answered all the same: else the thread would wait for it for ever */
		if (t->awaited != UINT64_MAX && answered == t->awaited) {
			atomic_fetch_add_explicit(&hs.overruns, 1, memory_order_relaxed);
			continue;
		}
		if (n != t->ring_samples)
			take_ring(); /* its sample is in: its stack must be known before it is repeated */
		struct timespec c;
		if (clock_gettime(thread_cpu_clock(t->tid), &c) < 0)
			continue; /* gone: the next scan retires it */
		uint64_t cpu = (uint64_t)c.tv_sec * 1000000000ull + (uint64_t)c.tv_nsec;
		uint64_t spent = t->awaited != UINT64_MAX ? atomic_load(&t->handler_ns) : 0;
		uint8_t last = t->last_state & KG_HOST_STATE_MASK;
		/* not a GIL wait: it ends within a switch interval, and the thread runs a few
		 * microseconds of Python before its next wait, under the slack below (a fresh
		 * clone's t092: a fork's warning waiting for the GIL, then time.sleep(), drawn as
		 * the warning's GIL wait for 546 samples of the sleep's 600) */
		int was_asleep = last == KG_HOST_BLOCKED ||
				 last == KG_HOST_STATE_UNKNOWN; /* unknown: where() cannot tell */
		int ran = !t->has_last || !t->cpu_last || n != t->ring_samples || !was_asleep ||
			  cpu - t->cpu_last > spent + HS_IDLE_NS;
		t->cpu_last = cpu;
		if (ran) {
			t->awaited = answered;
			if (signal_thread(t, k) < 0)
				t->awaited = UINT64_MAX;
			continue;
		}
		t->awaited = UINT64_MAX;
		uint8_t keep = t->last_state & ~(KG_HOST_STATE_MASK | KG_HOST_S_CPU_TIMER);
		queue_sample(t, now, t->last_stack,
			     (last == KG_HOST_STATE_UNKNOWN ? KG_HOST_IDLE : last) | keep, 0);
	}
}

static void stop_all_timers(void)
{
	for (uint32_t k = 0; k < HS_SLOTS; k++)
		if (atomic_load(&hs.slots[k].state) == SLOT_LIVE)
			disarm(&hs.slots[k]);
}

static void on_signal(int sig, siginfo_t *si, void *ucv);
static void on_fault(int sig, siginfo_t *si, void *ucv);

/* A program that replaces our fault handler has its own reasons (a crash reporter, a
 * runtime that maps memory lazily): it keeps it, and the handler stops relying on being
 * caught: every page is checked again at each sample (no_cache), which leaves only a
 * page unmapped between its check and its read, microseconds. */
static void check_fault_handler(void)
{
	static const int sigs[2] = {SIGSEGV, SIGBUS};
	struct sigaction cur;
	for (int i = 0; hs.dev_trace && hs.fault_installed && i < 2; i++)
		if (sigaction(sigs[i], NULL, &cur) == 0 &&
		    !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fault) && !hs.no_cache)
			dev_handler("the program's new", sigs[i], &cur);
	for (int i = 0; hs.fault_installed && i < 2; i++)
		if (sigaction(sigs[i], NULL, &cur) == 0 &&
		    !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fault) &&
		    !atomic_exchange(&hs.no_cache, 1))
			say(KG_STATUS_INFO, "host samples: the program installed its own handler "
					    "for signal %d; the sampler checks every page it reads "
					    "at every sample from now on", sigs[i]);
}

/* A program that installs its own handler on our signal gets it from then on: sampling
 * stops, and says so, rather than hand the program signals it did not ask for. */
static void check_signal(void)
{
	struct sigaction cur;
	if (hs.taken_over || sigaction(hs.sig, NULL, &cur) < 0)
		return;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal)
		return;
	hs.taken_over = 1;
	stop_all_timers();
	say(KG_STATUS_WARNING, "host samples stopped: the program installed its own handler "
			       "for signal %d, which the sampler used", hs.sig);
}

static void *sampler_main(void *arg)
{
	(void)arg;
	hostsample_own_thread();
	hs.sampler_tid = my_tid();
	uint64_t period = 1000000000ull / hs.hz, next_scan = 0;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		next.tv_nsec += (long)period;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		struct timespec now_mono;
		clock_gettime(CLOCK_MONOTONIC, &now_mono);
		if (now_mono.tv_sec > next.tv_sec + 1) /* far behind (a stopped process): catch up */
			next = now_mono;
		if (stop_wait_until(&hs.wait, &next))
			break;
		uint64_t now = now_raw_ns();
		take_ring();
		if (now >= next_scan && !hs.taken_over) {
			refresh_ranges();
			check_signal();
			check_fault_handler();
			if (!hs.taken_over)
				scan_threads(now);
			next_scan = now + HS_SCAN_NS;
		}
		if (!hs.taken_over)
			tick_wall(now);
		/* the flusher may be slow (--flush-ms): write before the queue overflows */
		pthread_mutex_lock(&hs.lock);
		int full = hs.n_pending > HS_PENDING / 4 * 3;
		pthread_mutex_unlock(&hs.lock);
		if (full) {
			stacks_drain(hs.spool); /* the stacks the samples name come first */
			hostsample_drain(hs.spool);
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ the spool */

/* The handler's duration under which a share of its samples fell (at 250 ns steps). */
static uint64_t handler_quantile(double q)
{
	uint64_t n = 0, seen = 0;
	for (int i = 0; i < HS_HIST; i++)
		n += atomic_load_explicit(&hs.handler_hist[i], memory_order_relaxed);
	for (int i = 0; i < HS_HIST && n; i++) {
		seen += atomic_load_explicit(&hs.handler_hist[i], memory_order_relaxed);
		if ((double)seen >= q * (double)n)
			return (uint64_t)(i + 1) * HS_HIST_NS;
	}
	return 0;
}

static void write_counts(struct kg_spool *spool, uint64_t ts)
{
	struct kg_raw_host_counts *r = spool_reserve(spool, KG_RAW_HOST_COUNTS, sizeof(*r));
	if (!r)
		return;
	uint64_t busy = 0, unreadable = 0;
	pyframes_counts(NULL, &unreadable, &busy);
	r->ts = ts;
	r->taken = atomic_load(&hs.taken);
	r->written = hs.written;
	r->lost_ring = atomic_load(&hs.lost_ring);
	r->lost_pending = hs.lost_pending;
	r->lost_threads = atomic_load(&hs.lost_threads);
	r->no_stack = hs.no_stack;
	r->stale = atomic_load(&hs.stale);
	r->overruns = atomic_load(&hs.overruns);
	r->python_cut = unreadable;
	r->codes_busy = busy;
	r->native_cut = atomic_load(&hs.native_cut);
	r->page_checks = atomic_load(&hs.page_checks);
	r->handler_ns = atomic_load(&hs.handler_ns);
	r->threads = hs.threads_seen;
	r->timer_errors = hs.timer_errors;
	r->handler_p50_ns = handler_quantile(0.5);
	r->handler_p90_ns = handler_quantile(0.9);
	r->faulted = atomic_load(&hs.faulted);
}

/* Samples in records of at most 4096, each record's times after its base by < 2^32 ns. */
static void write_samples(struct kg_spool *spool, const struct hs_pending *p, uint32_t n)
{
	for (uint32_t i = 0; i < n;) {
		uint64_t lo = p[i].ts, hi = p[i].ts;
		uint32_t j = i + 1;
		for (; j < n && j - i < 4096; j++) {
			uint64_t l = p[j].ts < lo ? p[j].ts : lo, h = p[j].ts > hi ? p[j].ts : hi;
			if (h - l >= (1ull << 32))
				break;
			lo = l, hi = h;
		}
		struct kg_raw_host_samples *r = spool_reserve(
			spool, KG_RAW_HOST_SAMPLES,
			(uint32_t)(sizeof(*r) + (j - i) * sizeof(struct kg_raw_host_sample)));
		if (!r)
			return;
		r->base_ts = lo;
		r->count = j - i;
		struct kg_raw_host_sample *out = (struct kg_raw_host_sample *)(r + 1);
		for (uint32_t k = i; k < j; k++, out++) {
			out->dt = (uint32_t)(p[k].ts - lo);
			out->stack = p[k].stack;
			out->thread = p[k].thread;
			out->state = p[k].state;
			out->overrun = p[k].overrun;
		}
		i = j;
	}
}

static void drain(struct kg_spool *spool, int final)
{
	pthread_mutex_lock(&hs.drain_lock);
	pthread_mutex_lock(&hs.lock);
	struct hs_pending *p = hs.pending;
	uint32_t np = hs.n_pending, nt = hs.n_threads;
	struct kg_raw_host_thread *th = hs.threads;
	char(*names)[16] = hs.names;
	hs.pending = hs.out, hs.out = p, hs.n_pending = 0;
	hs.threads = hs.threads_out, hs.threads_out = th, hs.n_threads = 0;
	hs.names = hs.names_out, hs.names_out = names;
	hs.written += np;
	uint64_t mark = hs.written + atomic_load(&hs.taken) + atomic_load(&hs.stale);
	int counts = final || mark != hs.counts_written;
	hs.counts_written = mark;
	pthread_mutex_unlock(&hs.lock);

	pthread_mutex_lock(&spool->lock);
	for (uint32_t i = 0; i < nt; i++) {
		uint32_t name = names[i][0] ? spool_string(spool, names[i]) : 0;
		struct kg_raw_host_thread *r = spool_reserve(spool, KG_RAW_HOST_THREAD, sizeof(*r));
		if (!r)
			break;
		*r = th[i];
		r->h.type = KG_RAW_HOST_THREAD;
		r->h.size = sizeof(*r);
		r->name_str = name;
	}
	write_samples(spool, p, np);
	if (counts) {
		pthread_mutex_lock(&hs.lock);
		write_counts(spool, now_raw_ns());
		pthread_mutex_unlock(&hs.lock);
	}
	spool_flush(spool);
	pthread_mutex_unlock(&spool->lock);
	pthread_mutex_unlock(&hs.drain_lock);
}

void hostsample_drain(struct kg_spool *spool)
{
	if (hs.started && spool)
		drain(spool, 0);
}

/* ------------------------------------------------------------------ start and stop */

/* A signal nobody handles: SIGURG, SIGWINCH, then a real-time one from SIGRTMAX - 3 down
 * (glibc keeps the first real-time signals for itself; libraries that take one tend to
 * take SIGRTMIN or SIGRTMAX). */
static int unhandled(int sig)
{
	struct sigaction cur;
	return sigaction(sig, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
	       cur.sa_handler == SIG_DFL;
}

static int free_signal(void)
{
	/* Whose default is to be ignored first: a signal still pending when a thread calls
	 * execve() meets the new program's default action, and a real-time signal's kills it */
	if (unhandled(SIGURG))
		return SIGURG;
	if (unhandled(SIGWINCH))
		return SIGWINCH;
	for (int sig = SIGRTMAX - 3; sig >= SIGRTMIN + 4; sig--)
		if (unhandled(sig))
			return sig;
	return -1;
}

static void write_settings(struct kg_spool *spool, const char *python_why, const char *note)
{
	pthread_mutex_lock(&spool->lock);
	uint32_t py_s = python_why && python_why[0] ? spool_string(spool, python_why) : 0;
	uint32_t note_s = note ? spool_string(spool, note) : 0;
	struct kg_raw_host_settings *r = spool_reserve(spool, KG_RAW_HOST_SETTINGS, sizeof(*r));
	if (r) {
		r->ts = now_raw_ns();
		r->hz = note ? 0 : hs.hz;
		r->signal = note ? 0 : hs.sig;
		r->max_native = hs.max_native;
		r->max_python = HS_PYTHON;
		r->unwind = KG_HOST_UNWIND_FP;
		r->python = hs.python;
		r->python_version = pyframes_version();
		r->python_str = py_s;
		r->note_str = note_s;
	}
	spool_flush(spool);
	pthread_mutex_unlock(&spool->lock);
}

static const char *allocate(void)
{
	hs.ring = aligned_alloc(64, HS_RING * sizeof(*hs.ring));
	hs.pending = malloc(HS_PENDING * sizeof(*hs.pending));
	hs.out = malloc(HS_PENDING * sizeof(*hs.out));
	hs.threads = calloc(HS_THREADS_OUT, sizeof(*hs.threads));
	hs.threads_out = calloc(HS_THREADS_OUT, sizeof(*hs.threads_out));
	hs.names = calloc(HS_THREADS_OUT, sizeof(*hs.names));
	hs.names_out = calloc(HS_THREADS_OUT, sizeof(*hs.names_out));
	if (!hs.ring || !hs.pending || !hs.out || !hs.threads || !hs.threads_out || !hs.names ||
	    !hs.names_out || stacks_table(1) < 0)
		return "cannot allocate its buffers";
	/* touched now, not in the handler's first samples */
	memset(hs.ring, 0, HS_RING * sizeof(*hs.ring));
	for (uint64_t i = 0; i < HS_RING; i++)
		atomic_store_explicit(&hs.ring[i].seq, i, memory_order_relaxed);
	return NULL;
}

int hostsample_start(const struct kg_host_config *cfg, struct kg_spool *spool,
		     kg_say_fn status)
{
	char python_why[256] = "";
	const char *why = NULL;
	if (!cfg->hz || hs.started)
		return 0;
	hs.status = status;
	hs.spool = spool;
	const char *dev = getenv("KGANTT_DEV_HOST");
	hs.dev_empty = dev && !strcmp(dev, "empty");
	hs.dev_wall_only = dev && !strcmp(dev, "wall");
	hs.dev_trace = dev && strstr(dev, "trace");
	hs.dev_nopy = dev && strstr(dev, "nopy");
	hs.hz = cfg->hz;
	hs.max_native = cfg->max_native && cfg->max_native < HS_NATIVE ? cfg->max_native : HS_NATIVE;
#if !defined(__x86_64__) && !defined(__aarch64__)
	why = "this architecture's registers are not known to the sampler";
#endif
	if (!why)
		why = allocate();
	if (!why) {
		hs.python = stacks_python(&hs.interp_lo, &hs.interp_hi, python_why,
					  sizeof(python_why));
		hs.sig = free_signal();
		if (hs.sig < 0)
			why = "the program handles SIGURG, SIGWINCH and every real-time signal";
	}
	if (!why) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		/* every signal but a fault's: a fault while it is blocked kills the process */
		sigfillset(&sa.sa_mask);
		sigdelset(&sa.sa_mask, SIGSEGV);
		sigdelset(&sa.sa_mask, SIGBUS);
		if (install_fault_handler() < 0)
			atomic_store(&hs.no_cache, 1);
		if (sigaction(hs.sig, &sa, NULL) < 0)
			why = "cannot install its signal handler";
	}
	if (!why) {
		/* {bits, count, offset} of struct pthread's tid field (glibc, for libthread_db) */
		const uint32_t *tid_field = dlsym(RTLD_DEFAULT, "_thread_db_pthread_tid");
		hs.pthread_tid_at = tid_field && tid_field[0] == 32 && tid_field[1] == 1 &&
						    tid_field[2] < 65536
					    ? (int)tid_field[2]
					    : -1;
		refresh_ranges();
		cuda_add((uint32_t)cfg->cuda_tid);
		hs.pid = getpid();
		hs.started = 1;
		atomic_store(&hs.active, 1);
		/* a fault on it goes to on_fault (caught in pyframes_threads) */
		int rc = stop_wait_init(&hs.wait) != 0
				 ? -1
				 : own_thread_start(&hs.thread, sampler_main, "kgantt-sampler");
		if (rc == 0) {
			hs.thread_started = 1;
		} else {
			atomic_store(&hs.active, 0);
			hs.started = 0;
			why = "cannot start its thread";
		}
	}
	write_settings(spool, python_why, why);
	if (why) {
		say(KG_STATUS_WARNING, "no host samples: the sampler %s", why);
		return -1;
	}
	say(KG_STATUS_INFO, "host samples: %u a second per thread (signal %d): on wall-clock time "
			    "for threads that run Python or call CUDA, on CPU time for the others",
	    hs.hz, hs.sig);
	return 0;
}

void hostsample_stop(struct kg_spool *spool)
{
	if (!hs.started || hs.pid != getpid())
		return;
	if (hs.thread_started) {
		stop_wait_stop(&hs.wait);
		pthread_join(hs.thread, NULL);
	}
	hs.thread_started = 0;
	stop_all_timers();
	atomic_store(&hs.active, 0);
	/* a handler that passed its first check finishes: microseconds */
	for (int i = 0; i < 100000 && atomic_load(&hs.inflight); i++)
		sched_yield();
	take_ring();
	uint64_t now = now_raw_ns();
	for (uint32_t k = 0; k < HS_SLOTS; k++)
		if (atomic_load(&hs.slots[k].state) == SLOT_LIVE)
			retire(&hs.slots[k]);
	free_dying(now);
	stacks_drain(spool);
	drain(spool, 1); /* the final counts, whatever they are */
	uint64_t taken = atomic_load(&hs.taken);
	uint64_t lost = atomic_load(&hs.lost_ring) + hs.lost_pending;
	if (hs.dev_trace)
		fprintf(stderr, "kgantt-dev: %llu samples faulted\n",
			(unsigned long long)atomic_load(&hs.faulted));
	say(lost ? KG_STATUS_WARNING : KG_STATUS_INFO,
	    "host samples: %llu taken on %llu threads, %llu written, %llu lost (buffers full), "
	    "%llu without a stack (tables full); the handler took %llu ns (median, %llu ns 9 in 10)",
	    (unsigned long long)taken, (unsigned long long)hs.threads_seen,
	    (unsigned long long)hs.written, (unsigned long long)lost,
	    (unsigned long long)hs.no_stack, (unsigned long long)handler_quantile(0.5),
	    (unsigned long long)handler_quantile(0.9));
	hs.started = 0;
}

int hostsample_sample_self(void)
{
	uint32_t k;
	if (!atomic_load(&hs.active))
		return -1;
	struct hs_slot *t = slot_of_tid(my_tid(), &k);
	return t ? signal_thread(t, k) : -1;
}

void hostsample_disable(void)
{
	/* the child has no timer and no sampler thread; its copies of the locks may be held */
	atomic_store(&hs.active, 0);
	hs.started = 0;
	hs.thread_started = 0;
}

void hostsample_counts(uint64_t *taken, uint64_t *written, uint64_t *lost)
{
	*taken = atomic_load(&hs.taken);
	pthread_mutex_lock(&hs.lock);
	*written = hs.written;
	*lost = atomic_load(&hs.lost_ring) + hs.lost_pending;
	pthread_mutex_unlock(&hs.lock);
}
