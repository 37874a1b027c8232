/* kgantt's one clock: CLOCK_MONOTONIC_RAW in nanoseconds. The recorder stamps every record
 * with it (CUPTI's timestamps too, through inject.c's timestamp callback), `record` hands
 * the program its start (KGANTT_T0) and times its own work on it, so all of them compare. */
#ifndef KGANTT_CLOCK_H
#define KGANTT_CLOCK_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t now_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Sleeps ms milliseconds, a signal notwithstanding (KGANTT_DEV_AB's thread; the threads
 * the recorder joins at exit wait on recorder/stop_wait.h instead). */
static inline void sleep_ms(unsigned ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

#endif
