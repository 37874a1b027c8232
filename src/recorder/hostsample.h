/* Host samples (KGANTT_HOST_HZ): what the program's threads are doing while the GPU runs
 * or waits, sampled on wall-clock time inside the program (docs/host-samples.md).
 *
 * A sampler thread lists /proc/self/task every 10 ms. Threads that run Python or call
 * CUDA it signals itself HZ times a second on wall-clock time (those that ran since their
 * last sample; the others are sampled without being woken), so that their waits (sleep,
 * I/O, locks, the GIL, GPU syncs) are sampled too; every other thread gets a POSIX timer
 * on its own CPU time that signals it alone (SIGEV_THREAD_ID), so that idle helper threads
 * are never woken. The signal is one the program does not handle (SIGURG first). The
 * handler, on the
 * interrupted thread, takes the time, the thread's state, its native stack (frame pointers,
 * every read checked) and its whole Python stack into a lock-free ring; it never
 * allocates, never waits and takes no lock. The sampler thread moves the ring's samples into
 * the recorder's stack table (recorder/stacks.c); the flusher writes them to the spool as
 * KG_RAW_HOST_* records (recorder/raw_format.h). */
#ifndef KGANTT_HOSTSAMPLE_H
#define KGANTT_HOSTSAMPLE_H

#include <stdint.h>
#include <sys/types.h>

#include "recorder/say.h"
#include "recorder/spool.h"

struct kg_host_config {
	unsigned hz;            /* samples a second per thread; 0: off */
	unsigned max_native;    /* native frames kept (at most 64) */
	pid_t cuda_tid;         /* a thread known to call CUDA (the one in cuInit), 0 none */
};

/* Starts sampling; writes the settings record (also when it cannot start, saying why).
 * 0, or a negative errno (then nothing runs and the program is untouched). */
int hostsample_start(const struct kg_host_config *cfg, struct kg_spool *spool,
		     kg_say_fn status);
/* The calling thread is the recorder's own: never sampled. Weak, so that the recorder's
 * other parts, built into test libraries without the sampler, call it as
 * `if (hostsample_own_thread) hostsample_own_thread();`. */
void hostsample_own_thread(void) __attribute__((weak));
/* CUPTI recorded a CUDA call on this thread (its kernel thread id: with host samples on,
 * the recorder asks CUPTI for those): from then on the thread is sampled on wall-clock
 * time. Lock-free; from the flusher's conversion of API records. */
void hostsample_cuda_thread(uint32_t cupti_tid);
/* Writes the samples, threads and counts gathered since the last call (takes the spool
 * lock; call after stacks_drain, which writes the stacks they name). From the flusher. */
void hostsample_drain(struct kg_spool *spool);
/* At exit: no timer left, no handler running or to come that does anything; the last
 * samples and the final counts written. */
void hostsample_stop(struct kg_spool *spool);
/* For tests and benchmarks: the calling thread takes one sample now, through the signal
 * (which a thread sends itself is handled before the call returns). -1 when the thread has
 * no slot yet (the sampler lists threads every 10 ms) or sampling is off. */
int hostsample_sample_self(void);
/* A forked child: its parent's sampler is not its own (no timer survives a fork). */
void hostsample_disable(void);
/* For the status line at exit and the tests: samples taken, written, lost. */
void hostsample_counts(uint64_t *taken, uint64_t *written, uint64_t *lost);

#endif
