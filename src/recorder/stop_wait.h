/* A sleep that stopping cuts short. The recorder's own threads (the flusher, the launch
 * windows, the host sampler) wake every few milliseconds to tens of them; at the program's
 * exit the recorder joins them, and a plain sleep would make every exit wait out the rest
 * of a period (up to 90 ms for the windows, 100 ms for the flusher, a host sample's period
 * for the sampler: once a run, on top of the program's own time). Waiting on a condition
 * variable instead, the exit wakes them at once. */
#ifndef KGANTT_STOP_WAIT_H
#define KGANTT_STOP_WAIT_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

struct kg_stop_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* on CLOCK_MONOTONIC: a change of the wall clock moves no wait */
	int stop;
};

/* Before the thread that waits starts; 0, or -1 when the condition cannot be set up. */
int stop_wait_init(struct kg_stop_wait *w);
/* Sleeps ns nanoseconds, or less when stopped. Returns 1 once stopped, else 0 (ns = 0:
 * whether stopped, without sleeping). */
int stop_wait_ns(struct kg_stop_wait *w, uint64_t ns);
/* Sleeps until the CLOCK_MONOTONIC time at (a sampler's next tick), or less when stopped.
 * Returns 1 once stopped, else 0. */
int stop_wait_until(struct kg_stop_wait *w, const struct timespec *at);
/* Wakes every wait at once and makes the later ones return at once. */
void stop_wait_stop(struct kg_stop_wait *w);

#endif
