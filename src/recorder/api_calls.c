/* API calls from CUPTI's callbacks (see api_calls.h).
 *
 * On the calling thread a call costs two clock reads and a store into the thread's buffer:
 * no lock, and no allocation after the thread's first buffer. A full buffer is handed to
 * the drainer thread, which makes its calls spool records (recorder/convert.c) and gives
 * the buffer back for reuse: the conversion (about as long again as the call's own cost,
 * bench/recorder_parts.c) never runs on the program's threads, unless the drainer falls
 * MAX_BUFFERS behind, when a thread drains them itself rather than grow or lose calls.
 * The flusher and the exit also drain what the buffers hold so far (api_calls_drain).
 *
 * Who touches what: a buffer's calls[] and n are written by its thread only (n published
 * with a release store); done, and the calls below n, are read by whoever holds
 * drain_lock; the full and free lists are under pool_lock. A thread's current buffer is
 * never on a list, and a full buffer goes back on the free list only from drain_full,
 * under drain_lock: a drain that read a buffer as some thread's current one is over before
 * that buffer can be reused. */
#include "recorder/api_calls.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder/cbid_table.h"
#include "recorder/hostsample.h"
#include "recorder/launches.h"
#include "recorder/own_thread.h"
#include "recorder/sync_calls.h"
#include "util/clock.h"

#define BUF_CALLS   1024 /* a buffer: 48 KiB */
#define WAKE_AT     8    /* full buffers waiting before the drainer is woken */
#define MAX_BUFFERS 512  /* 24 MiB for all threads: past it a thread drains them itself */

struct calls_buf {
	struct kg_api_call calls[BUF_CALLS];
	_Atomic uint32_t n;       /* calls written */
	uint32_t done;            /* calls made spool records */
	struct calls_buf *next;   /* on the full or the free list */
};

struct thread_calls {
	struct calls_buf *_Atomic cur; /* the buffer the thread fills */
	atomic_int ended;              /* the thread exited: drained, then freed */
	struct thread_calls *next;     /* all threads', for the drain */
};

static struct {
	int enabled;
	int syncs;                      /* KG_RAW_SYNC records from the sync calls */
	pthread_mutex_t list_lock;      /* the threads */
	struct thread_calls *threads;
	pthread_mutex_t pool_lock;      /* the full and free lists, nbufs */
	pthread_cond_t wake;            /* the drainer waits on it */
	struct calls_buf *full, **full_tail, *free_bufs;
	uint32_t nfull, nbufs;
	int stopping;
	pthread_mutex_t drain_lock;     /* one drain at a time */
	pthread_t drainer;
	int drainer_started;
	pthread_key_t key;              /* marks a thread's calls ended at its exit */
	struct kg_convert *conv;        /* names are interned there */
	struct kg_spool *spool;
} ac = {.list_lock = PTHREAD_MUTEX_INITIALIZER,
	.pool_lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.drain_lock = PTHREAD_MUTEX_INITIALIZER,
	.full_tail = &ac.full};

static __thread struct thread_calls *mine;
static __thread uint32_t my_tid;
/* runtime calls the thread is inside: the driver calls they make are the runtime's own
 * work, which CUPTI's activity records leave out too (one launch, one call) */
static __thread uint32_t in_runtime;
/* Kernel launches' callbacks are on only in windows (recorder/launches.h), and a window can
 * close or open while a launch is inside its call: its exit then comes without its entry,
 * or never. So a launch's exit is recorded only when this thread's last launch entry was
 * its own, and a driver call counts as inside a runtime call unless that runtime call is a
 * launch and a window has closed since it entered (its exit may then be lost). */
static __thread uint32_t launch_entered;     /* correlation id of the last launch entry */
static __thread uint32_t runtime_closings;   /* launches_closings() at the runtime entry */
static __thread uint8_t runtime_is_launch;   /* the runtime call entered is a kernel launch */

/* Whether the runtime call this thread entered may have lost its exit: only a launch's
 * callbacks go off with the windows, so a window closing inside any other runtime call (a
 * 0.8 ms cudaStreamSynchronize) loses nothing, and the driver calls inside it stay its own. */
static int runtime_exit_lost(void)
{
	return runtime_is_launch && runtime_closings != launches_closings();
}

/* ------------------------------------------------------------------ draining */

/* The calls of b from done to upto made spool records; drain_lock is held. The spool's
 * lock is taken inside it and never the other way round (the activity buffers' callback
 * holds the spool's lock alone), so the two cannot deadlock. */
static void convert_calls(struct calls_buf *b, uint32_t upto)
{
	if (b->done >= upto)
		return;
	pthread_mutex_lock(&ac.spool->lock);
	for (uint32_t i = b->done; i < upto; i++)
		convert_api_call(ac.conv, ac.spool, &b->calls[i]);
	pthread_mutex_unlock(&ac.spool->lock);
	b->done = upto;
}

/* Every full buffer converted and put on the free list; drain_lock is held. */
static void drain_full(void)
{
	pthread_mutex_lock(&ac.pool_lock);
	struct calls_buf *list = ac.full;
	ac.full = NULL;
	ac.full_tail = &ac.full;
	ac.nfull = 0;
	pthread_mutex_unlock(&ac.pool_lock);
	if (!list)
		return;
	struct calls_buf *last = list;
	for (struct calls_buf *b = list; b; b = b->next) {
		convert_calls(b, BUF_CALLS);
		last = b;
	}
	pthread_mutex_lock(&ac.pool_lock);
	last->next = ac.free_bufs;
	ac.free_bufs = list;
	pthread_mutex_unlock(&ac.pool_lock);
}

/* Drains the full buffers when WAKE_AT of them wait, and every second when any does. */
static void *drainer_main(void *arg)
{
	(void)arg;
	if (hostsample_own_thread)
		hostsample_own_thread();
	pthread_mutex_lock(&ac.pool_lock);
	while (!ac.stopping) {
		if (ac.nfull < WAKE_AT) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 1;
			if (pthread_cond_timedwait(&ac.wake, &ac.pool_lock, &until) != ETIMEDOUT ||
			    !ac.nfull)
				continue;
		}
		pthread_mutex_unlock(&ac.pool_lock);
		pthread_mutex_lock(&ac.drain_lock);
		drain_full();
		pthread_mutex_unlock(&ac.drain_lock);
		pthread_mutex_lock(&ac.pool_lock);
	}
	pthread_mutex_unlock(&ac.pool_lock);
	return NULL;
}

void api_calls_drain(void)
{
	if (!ac.spool)
		return;
	pthread_mutex_lock(&ac.drain_lock);
	drain_full();
	pthread_mutex_lock(&ac.list_lock);
	struct thread_calls **link = &ac.threads;
	while (*link) {
		struct thread_calls *t = *link;
		int gone = atomic_load_explicit(&t->ended, memory_order_acquire);
		struct calls_buf *b = atomic_load_explicit(&t->cur, memory_order_acquire);
		convert_calls(b, atomic_load_explicit(&b->n, memory_order_acquire));
		if (gone) { /* its thread will not touch it again */
			*link = t->next;
			pthread_mutex_lock(&ac.pool_lock);
			b->next = ac.free_bufs;
			ac.free_bufs = b;
			pthread_mutex_unlock(&ac.pool_lock);
			free(t);
		} else {
			link = &t->next;
		}
	}
	pthread_mutex_unlock(&ac.list_lock);
	pthread_mutex_unlock(&ac.drain_lock);
}

/* ------------------------------------------------------------------ the calling thread */

/* A buffer from the free list, or a new one while there are fewer than MAX_BUFFERS; NULL
 * when neither. */
static struct calls_buf *take_buffer(void)
{
	pthread_mutex_lock(&ac.pool_lock);
	struct calls_buf *b = ac.free_bufs;
	if (b)
		ac.free_bufs = b->next;
	else if (ac.nbufs < MAX_BUFFERS && (b = malloc(sizeof(*b))) != NULL)
		ac.nbufs++;
	pthread_mutex_unlock(&ac.pool_lock);
	if (b) {
		atomic_store_explicit(&b->n, 0, memory_order_relaxed);
		b->done = 0;
	}
	return b;
}

/* b is full: on the full list it goes, the drainer woken when enough wait, and the thread
 * gets an empty one (draining the full ones itself when none is left). NULL when out of
 * memory: the thread then records nothing more. */
static struct calls_buf *hand_over(struct thread_calls *t, struct calls_buf *b)
{
	pthread_mutex_lock(&ac.pool_lock);
	b->next = NULL;
	*ac.full_tail = b;
	ac.full_tail = &b->next;
	int wake = ++ac.nfull == WAKE_AT;
	pthread_mutex_unlock(&ac.pool_lock);
	if (wake)
		pthread_cond_signal(&ac.wake);
	struct calls_buf *next = take_buffer();
	if (!next) { /* the drainer is behind (or gone): do its work */
		pthread_mutex_lock(&ac.drain_lock);
		drain_full();
		pthread_mutex_unlock(&ac.drain_lock);
		next = take_buffer();
	}
	if (next)
		atomic_store_explicit(&t->cur, next, memory_order_release);
	return next;
}

/* At the thread's exit. A call from a later destructor of the same thread gets a new
 * thread_calls: this one may be freed by the drain as soon as it is drained. */
static void thread_ended(void *p)
{
	struct thread_calls *t = p;
	mine = NULL;
	atomic_store_explicit(&t->ended, 1, memory_order_release);
}

static struct thread_calls *my_calls(void)
{
	if (mine)
		return mine;
	struct thread_calls *t = calloc(1, sizeof(*t));
	struct calls_buf *b = t ? take_buffer() : NULL;
	if (!b) {
		free(t);
		return NULL;
	}
	atomic_init(&t->cur, b);
	/* the system's thread id, as CUPTI's records carry it (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) */
	my_tid = (uint32_t)syscall(SYS_gettid);
	pthread_mutex_lock(&ac.list_lock);
	t->next = ac.threads;
	ac.threads = t;
	pthread_mutex_unlock(&ac.list_lock);
	pthread_setspecific(ac.key, t);
	mine = t;
	return t;
}

/* The slot of this thread's next call, to be filled, then published by call_written; NULL
 * when no memory is left (the call is not recorded). */
static struct kg_api_call *next_call(void)
{
	struct thread_calls *t = my_calls();
	if (!t)
		return NULL;
	struct calls_buf *b = atomic_load_explicit(&t->cur, memory_order_relaxed);
	uint32_t n = atomic_load_explicit(&b->n, memory_order_relaxed);
	if (n == BUF_CALLS) {
		if (!(b = hand_over(t, b)))
			return NULL;
		n = 0;
	}
	return &b->calls[n];
}

static void call_written(void)
{
	struct calls_buf *b = atomic_load_explicit(&mine->cur, memory_order_relaxed);
	uint32_t n = atomic_load_explicit(&b->n, memory_order_relaxed);
	atomic_store_explicit(&b->n, n + 1, memory_order_release);
}

void api_calls_on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			   const CUpti_CallbackData *cb, int capturing)
{
	if (!ac.enabled || !cb->correlationData)
		return;
	int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
	int launch = launches_is_kernel_launch(domain, cbid);
	if (in_runtime && runtime_exit_lost())
		in_runtime = 0; /* that launch's exit was lost to a closing window */
	if (!runtime && in_runtime)
		return; /* a driver call inside a runtime call */
	/* stamped whether capturing or not: a call that spans the start has its own start */
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (runtime && !in_runtime++) {
			runtime_closings = launches_closings();
			runtime_is_launch = (uint8_t)launch;
		}
		if (launch)
			launch_entered = cb->correlationId;
		*cb->correlationData = now_raw_ns();
		return;
	}
	if (runtime && in_runtime)
		in_runtime--;
	/* an exit whose entry this thread never stamped (a driver call that entered inside a
	 * runtime call whose exit was then lost) has no start: not a call */
	if (!capturing || (launch && launch_entered != cb->correlationId) || !*cb->correlationData)
		return;
	uint64_t end = now_raw_ns();
	struct kg_api_call *c = next_call();
	if (!c)
		return;
	*c = (struct kg_api_call){
		.start = *cb->correlationData,
		.end = end,
		.cbid = cbid,
		.driver = domain == CUPTI_CB_DOMAIN_DRIVER_API,
		.tid = my_tid,
		.correlation_id = cb->correlationId,
		/* cudaError_t and CUresult: both an int-sized enum */
		.return_value = cb->functionReturnValue ? *(const uint32_t *)cb->functionReturnValue
							: 0,
	};
	if (ac.syncs && (c->sync_type = sync_call_type(domain, cbid)) != 0)
		sync_call_ids(domain, cbid, cb, c->sync_type, &c->sync_context, &c->sync_stream);
	call_written();
}

void api_calls_on_hooked_launch(const struct kg_api_call *call)
{
	if (!ac.enabled)
		return;
	struct kg_api_call *c = next_call();
	if (!c)
		return;
	*c = *call;
	c->tid = my_tid;
	call_written();
}

/* ------------------------------------------------------------------ start and stop */

struct switch_pick {
	int (*pick)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
};

static uint8_t picked(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name,
		      void *ctx)
{
	(void)name;
	return (uint8_t)(((const struct switch_pick *)ctx)->pick(domain, cbid) != 0);
}

void api_calls_switch(CUpti_SubscriberHandle sub, uint32_t on,
		      int (*pick)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid))
{
	struct kg_cbid_table chosen;
	cbid_table_fill(&chosen, picked, &(struct switch_pick){pick});
	cbid_table_enable(&chosen, CUPTI_CB_DOMAIN_RUNTIME_API, 1, sub, on);
	cbid_table_enable(&chosen, CUPTI_CB_DOMAIN_DRIVER_API, 1, sub, on);
}

static int (*start_skip)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

static int recorded(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	return !start_skip(domain, cbid);
}

int api_calls_start(CUpti_SubscriberHandle sub,
		    int (*skip)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid),
		    struct kg_convert *conv, struct kg_spool *spool)
{
	if (pthread_key_create(&ac.key, thread_ended) != 0)
		return -1;
	ac.conv = conv;
	ac.spool = spool;
	ac.stopping = 0;
	/* without it, buffers are drained by the flusher, or by the threads that fill them */
	ac.drainer_started = own_thread_start(&ac.drainer, drainer_main, "kgantt-drainer") == 0;
	start_skip = skip;
	api_calls_switch(sub, 1, recorded);
	ac.enabled = 1;
	return 0;
}

void api_calls_stop(void)
{
	if (!ac.drainer_started)
		return;
	pthread_mutex_lock(&ac.pool_lock);
	ac.stopping = 1;
	pthread_cond_signal(&ac.wake);
	pthread_mutex_unlock(&ac.pool_lock);
	pthread_join(ac.drainer, NULL);
	ac.drainer_started = 0;
}

void api_calls_record_syncs(int on)
{
	ac.syncs = on;
}

void api_calls_disable(void)
{
	ac.enabled = 0;
	ac.drainer_started = 0; /* a forked child has no drainer to stop */
}
