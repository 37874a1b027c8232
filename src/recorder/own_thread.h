/* The recorder's own threads (flusher, API-record drainer, host sampler, stack windows,
 * hardware sampler) are started here, named and with every asynchronous signal blocked
 * from their first instruction. The program's signals (its SIGALRM, SIGCHLD, a
 * profiler's) are for its own threads; and the host sampler's CPU-time timers, armed on
 * every thread it finds in /proc/self/task, must never interrupt one of ours: a thread is
 * listed there before it can say it is the recorder's (hostsample_own_thread), and on the
 * H200 a transformers program died in ld.so on one of these threads in 2 of 5 runs while
 * they took the program's signals. The synchronous faults stay unblocked: blocked, a
 * fault kills the process without a word (hostsample.c's on_fault tells whose it was). */
#ifndef KGANTT_OWN_THREAD_H
#define KGANTT_OWN_THREAD_H

#include <pthread.h>
#include <signal.h>

static inline int own_thread_start(pthread_t *thread, void *(*fn)(void *), const char *name)
{
	sigset_t all, old;
	sigfillset(&all);
	sigdelset(&all, SIGSEGV);
	sigdelset(&all, SIGBUS);
	sigdelset(&all, SIGFPE);
	sigdelset(&all, SIGILL);
	sigdelset(&all, SIGTRAP);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(thread, NULL, fn, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		pthread_setname_np(*thread, name); /* at most 15 bytes: seen in top, gdb, faults */
	return rc;
}

#endif
