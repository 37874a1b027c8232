/* A C program for tests/py/test_hostsample.py, built -O2 with and without frame pointers and
 * run under tests/py/host_shim.so. Each mode spends its time in a function of known name:
 *
 *   host_prog compute SECS   on CPU in hot_compute() <- outer_compute() <- main
 *   host_prog sleep SECS     off CPU in sleep_known() (a CUDA thread for the sampler: on
 *                            wall-clock time), sleeping in nanosleep, EINTR handled
 *   host_prog alarm SECS     computes while its own setitimer(ITIMER_REAL) fires SIGALRM at
 *                            100 Hz; prints how many arrived and how long a 200 ms sleep took
 *   host_prog sigblock SECS  a second thread with every signal blocked computes; main joins
 *   host_prog bench N        the handler's cost, N samples 4 frames deep (host_shim_bench)
 *   host_prog wake N         N times: computes in spin_until_sampled() until a sample has
 *                            just interrupted it, then at once sleeps 30 ms in nap_after_run()
 *
 * Prints "ok" and what it counted on stdout. */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) double hot_compute(long n)
{
	double x = 0;
	for (long i = 1; i < n; i++)
		x += sqrt((double)i) / (double)(i + 1);
	return x;
}

__attribute__((noinline)) double outer_compute(double secs)
{
	double t0 = now(), x = 0;
	while (now() - t0 < secs)
		x += hot_compute(100000);
	__asm__ volatile("" ::: "memory");
	return x;
}

/* Sleeps secs whatever signals arrive: nanosleep returns EINTR with the time left. */
__attribute__((noinline)) void sleep_known(double secs)
{
	struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	__asm__ volatile("" ::: "memory");
}

/* Computes for 3 ms at least, then until the clock jumps by 3 to 40 us between two reads:
 * a signal's delivery and the sampler's handler (longer is the scheduler's preemption,
 * shorter an interrupt), so the thread's last sample is on CPU in this function. */
__attribute__((noinline)) void spin_until_sampled(void)
{
	double t = now(), t0 = t;
	for (;;) {
		double u = now();
		if ((u - t0 > 3e-3 && u - t > 3e-6 && u - t < 40e-6) || u - t0 > 0.1)
			break;
		t = u;
	}
	__asm__ volatile("" ::: "memory");
}

/* Sleeps within a microsecond of that sample: its samples must say this function. */
__attribute__((noinline)) void nap_after_run(void)
{
	sleep_known(0.03);
	__asm__ volatile("" ::: "memory");
}

typedef int (*bench_fn)(int n, char *out, int len);

__attribute__((noinline)) static int bench3(bench_fn fn, int n, char *out)
{
	int rc = -1;
	for (int i = 0; i < 200 && rc < 0; i++) { /* until the sampler has listed this thread */
		rc = fn(n, out, 64);
		if (rc < 0)
			sleep_known(0.005);
	}
	__asm__ volatile("" ::: "memory");
	return rc;
}

__attribute__((noinline)) static int bench2(bench_fn fn, int n, char *out)
{
	int rc = bench3(fn, n, out);
	__asm__ volatile("" ::: "memory");
	return rc;
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void *blocked_thread(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	return (void *)(long)(outer_compute(*(double *)arg) > 0);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	double secs = atof(argv[2]);
	if (!strcmp(argv[1], "compute")) {
		printf("ok %f\n", outer_compute(secs));
	} else if (!strcmp(argv[1], "sleep")) {
		void (*cuda)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "host_shim_cuda");
		if (cuda)
			cuda(); /* what a CUDA call recorded by CUPTI does for the sampler */
		double t0 = now();
		sleep_known(secs);
		printf("ok slept %.3f\n", now() - t0);
	} else if (!strcmp(argv[1], "wake")) {
		void (*cuda)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "host_shim_cuda");
		if (cuda)
			cuda();
		for (int i = 0; i < (int)secs; i++) {
			spin_until_sampled();
			nap_after_run();
		}
		printf("ok\n");
	} else if (!strcmp(argv[1], "alarm")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
		struct itimerval it = {{0, 10000}, {0, 10000}};
		setitimer(ITIMER_REAL, &it, NULL);
		outer_compute(secs);
		double t0 = now();
		sleep_known(0.2);
		double slept = now() - t0;
		struct itimerval off = {{0, 0}, {0, 0}};
		setitimer(ITIMER_REAL, &off, NULL);
		printf("ok alarms %d slept %.3f\n", (int)alarms, slept);
	} else if (!strcmp(argv[1], "bench")) {
		char out[64] = "";
		bench_fn fn = (bench_fn)dlsym(RTLD_DEFAULT, "host_shim_bench");
		if (!fn || bench2(fn, atoi(argv[2]), out) < 0)
			return 1;
		printf("ok %s\n", out);
	} else if (!strcmp(argv[1], "sigblock")) {
		pthread_t t;
		void *r;
		pthread_create(&t, NULL, blocked_thread, &secs);
		pthread_join(t, &r);
		printf("ok %ld\n", (long)r);
	} else {
		return 2;
	}
	return 0;
}
