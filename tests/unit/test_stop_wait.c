/* recorder/stop_wait.h: the recorder's threads sleep on it, and the program's exit, which
 * joins them, must not wait out their sleep (a launch window's 90 ms, the flusher's
 * period; a 60 s window period once made every exit take a minute). */
#include "harness.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "recorder/stop_wait.h"
#include "util/clock.h"

static struct kg_stop_wait wait_10s;
static int woke_stopped;

static void *sleeper(void *arg)
{
	(void)arg;
	woke_stopped = stop_wait_ns(&wait_10s, 10ull * 1000000000ull);
	return NULL;
}

TEST(a_wait_lasts_its_time_when_nothing_stops_it)
{
	struct kg_stop_wait w;
	CHECK_EQ_INT(stop_wait_init(&w), 0);
	uint64_t t0 = now_raw_ns();
	CHECK_EQ_INT(stop_wait_ns(&w, 20000000ull), 0);
	CHECK(now_raw_ns() - t0 >= 20000000ull);
	CHECK_EQ_INT(stop_wait_ns(&w, 0), 0); /* not stopped */
}

TEST(stopping_wakes_a_sleeper_at_once_and_later_waits_return_at_once)
{
	CHECK_EQ_INT(stop_wait_init(&wait_10s), 0);
	pthread_t t;
	CHECK_EQ_INT(pthread_create(&t, NULL, sleeper, NULL), 0);
	sleep_ms(20); /* the sleeper is (most likely) waiting by now; either way it returns */
	uint64_t t0 = now_raw_ns();
	stop_wait_stop(&wait_10s);
	pthread_join(t, NULL);
	uint64_t joined = now_raw_ns() - t0;
	CHECK(joined < 2000000000ull); /* not the 10 s; generous for a loaded machine */
	CHECK_EQ_INT(woke_stopped, 1);
	t0 = now_raw_ns();
	CHECK_EQ_INT(stop_wait_ns(&wait_10s, 10ull * 1000000000ull), 1);
	CHECK(now_raw_ns() - t0 < 1000000000ull);
	CHECK_EQ_INT(stop_wait_ns(&wait_10s, 0), 1);
}

/* A deadline the wait refuses (nanoseconds out of range) returns, rather than spinning. */
TEST(a_refused_deadline_returns)
{
	struct kg_stop_wait w;
	CHECK_EQ_INT(stop_wait_init(&w), 0);
	struct timespec bad = {.tv_sec = 0, .tv_nsec = 2000000000L};
	CHECK_EQ_INT(stop_wait_until(&w, &bad), 0);
}
