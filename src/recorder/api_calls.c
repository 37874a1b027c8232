/* API calls from CUPTI's callbacks (see api_calls.h). The callback allocates only at a
 * thread's first call and takes its own thread's buffer lock, which the flusher takes
 * every flush_ms; one call in BUF_CALLS, when the buffer is full, writes them to the
 * spool (a memcpy into its staging buffer, a write() when that is full). */
#include "recorder/api_calls.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/clock.h"

#define BUF_CALLS 1024 /* per thread: 40 KiB; full, the thread moves them itself */

struct thread_calls {
	pthread_mutex_t lock;
	uint32_t n;
	int ended;                      /* the thread exited: drained, then freed */
	struct kg_api_call calls[BUF_CALLS];
	struct thread_calls *next;      /* all threads' buffers, for the flusher */
};

static struct {
	int enabled;
	pthread_mutex_t list_lock;      /* the list of buffers */
	struct thread_calls *threads;
	pthread_key_t key;              /* marks a thread's buffer ended at its exit */
	struct kg_convert *conv;        /* names are interned there */
	struct kg_spool *spool;
} ac = {.list_lock = PTHREAD_MUTEX_INITIALIZER};

static __thread struct thread_calls *mine;
static __thread uint32_t my_tid;

/* At the thread's exit. A call from a later destructor of the same thread gets a new
 * buffer: this one may be freed by the flusher as soon as it is drained. */
static void thread_ended(void *p)
{
	struct thread_calls *t = p;
	mine = NULL;
	pthread_mutex_lock(&t->lock);
	t->ended = 1;
	pthread_mutex_unlock(&t->lock);
}

static struct thread_calls *my_buffer(void)
{
	if (mine)
		return mine;
	struct thread_calls *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
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

/* Writes a buffer's calls to the spool; the buffer's lock is held. The spool's lock is
 * taken inside it and never the other way round (the activity buffers' callback holds the
 * spool's lock alone), so the two cannot deadlock. */
static void write_calls(struct thread_calls *t)
{
	if (t->n == 0)
		return;
	pthread_mutex_lock(&ac.spool->lock);
	for (uint32_t i = 0; i < t->n; i++)
		convert_api_call(ac.conv, ac.spool, &t->calls[i]);
	pthread_mutex_unlock(&ac.spool->lock);
	t->n = 0;
}

void api_calls_on_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			   const CUpti_CallbackData *cb, int capturing)
{
	if (!ac.enabled || !cb->correlationData)
		return;
	/* stamped whether capturing or not: a call that spans the start has its own start */
	if (cb->callbackSite == CUPTI_API_ENTER) {
		*cb->correlationData = now_raw_ns();
		return;
	}
	if (!capturing)
		return;
	uint64_t end = now_raw_ns();
	struct thread_calls *t = my_buffer();
	if (!t)
		return;
	struct kg_api_call call = {
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
	pthread_mutex_lock(&t->lock);
	if (t->n == BUF_CALLS)
		write_calls(t); /* full: this thread moves them itself */
	t->calls[t->n++] = call;
	pthread_mutex_unlock(&t->lock);
}

int api_calls_start(CUpti_SubscriberHandle sub,
		    int (*skip)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid),
		    struct kg_convert *conv, struct kg_spool *spool)
{
	if (pthread_key_create(&ac.key, thread_ended) != 0)
		return -1;
	ac.conv = conv;
	ac.spool = spool;
	static const struct {
		CUpti_CallbackDomain domain;
		uint32_t size;
	} domains[] = {
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE},
	};
	for (size_t d = 0; d < sizeof(domains) / sizeof(domains[0]); d++)
		for (uint32_t cbid = 1; cbid < domains[d].size; cbid++) {
			const char *name = NULL;
			if (cuptiGetCallbackName(domains[d].domain, cbid, &name) != CUPTI_SUCCESS ||
			    !name || skip(domains[d].domain, cbid))
				continue;
			cuptiEnableCallback(1, sub, domains[d].domain, cbid);
		}
	ac.enabled = 1;
	return 0;
}

void api_calls_drain(void)
{
	if (!ac.spool)
		return;
	pthread_mutex_lock(&ac.list_lock);
	struct thread_calls **link = &ac.threads;
	while (*link) {
		struct thread_calls *t = *link;
		pthread_mutex_lock(&t->lock);
		write_calls(t);
		int gone = t->ended;
		pthread_mutex_unlock(&t->lock);
		if (gone) {
			*link = t->next;
			pthread_mutex_destroy(&t->lock);
			free(t);
		} else {
			link = &t->next;
		}
	}
	pthread_mutex_unlock(&ac.list_lock);
}

void api_calls_disable(void)
{
	ac.enabled = 0;
}
