/* The recorder's one clock: CLOCK_MONOTONIC_RAW in nanoseconds. CUPTI's timestamps come
 * from it too (inject.c's timestamp callback), so every record of a spool shares it. */
#ifndef KGANTT_RECORDER_CLOCK_H
#define KGANTT_RECORDER_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t now_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
