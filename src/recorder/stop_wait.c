/* A sleep that stopping cuts short (stop_wait.h). */
#include "recorder/stop_wait.h"

#include <time.h>

int stop_wait_init(struct kg_stop_wait *w)
{
	pthread_condattr_t attr;
	w->stop = 0;
	if (pthread_mutex_init(&w->lock, NULL) != 0)
		return -1;
	if (pthread_condattr_init(&attr) != 0)
		return -1;
	int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(&w->cond, &attr);
	pthread_condattr_destroy(&attr);
	return rc == 0 ? 0 : -1;
}

int stop_wait_until(struct kg_stop_wait *w, const struct timespec *at)
{
	pthread_mutex_lock(&w->lock);
	/* a spurious wake-up (0) goes back to sleep until the same moment; the time reached,
	 * or a time the wait refuses (EINVAL), ends it */
	while (!w->stop)
		if (pthread_cond_timedwait(&w->cond, &w->lock, at) != 0)
			break;
	int stopped = w->stop;
	pthread_mutex_unlock(&w->lock);
	return stopped;
}

int stop_wait_ns(struct kg_stop_wait *w, uint64_t ns)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	uint64_t nsec = (uint64_t)until.tv_nsec + ns % 1000000000ull;
	until.tv_sec += (time_t)(ns / 1000000000ull + nsec / 1000000000ull);
	until.tv_nsec = (long)(nsec % 1000000000ull);
	return stop_wait_until(w, &until);
}

void stop_wait_stop(struct kg_stop_wait *w)
{
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}
