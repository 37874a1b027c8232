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
 *   host_prog unmap N        (x86-64) a CUDA thread (for the sampler: on wall-clock time)
 *                            spins N times 5 ms with its frame pointer on
 *                            a page above its stack, then 5 ms more with the page unmapped:
 *                            as code built without frame pointers leaves anything there; the
 *                            sampler's reads of it fault (caught, counted), the program lives
 *   host_prog segv 0         installs its own SIGSEGV handler, then faults: the handler runs
 *                            (prints "ok caught", exits 3)
 *   host_prog crash 0        faults without a handler: dies of SIGSEGV, as untraced
 *
 * Prints "ok" and what it counted on stdout. */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>
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

#if defined(__x86_64__)
/* spin_with_frame(fp, n): n turns of a loop with rbp = fp */
__asm__(".text\n.globl spin_with_frame\n.type spin_with_frame,@function\n"
	"spin_with_frame:\n\tpush %rbp\n\tmov %rdi, %rbp\n"
	"1:\tdec %rsi\n\tjnz 1b\n\tpop %rbp\n\tret\n"
	".size spin_with_frame, .-spin_with_frame\n");
void spin_with_frame(uintptr_t fp, long n);

struct unmap_job {
	char *page; /* above the thread's stack, within the sampler's reach of it */
	int rounds;
	long turns; /* about 5 ms of the loop */
};

static void *unmap_thread(void *arg)
{
	struct unmap_job *j = arg;
	void (*cuda)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "host_shim_cuda");
	if (cuda)
		cuda(); /* on wall-clock time, signalled by the sampler: a sample that faulted
			 * must not leave it waiting for that sample for ever */
	for (int i = 0; i < j->rounds; i++) {
		if (mmap(j->page, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			return NULL;
		uintptr_t *frame = (uintptr_t *)j->page; /* the frame: next 0, a return address */
		frame[0] = 0;
		frame[1] = (uintptr_t)hot_compute + 16;
		spin_with_frame((uintptr_t)j->page, j->turns);
		munmap(j->page, 4096);
		spin_with_frame((uintptr_t)j->page, j->turns);
	}
	return j;
}

static int unmap_mode(int rounds)
{
	size_t stack = 1 << 20;
	char *region = mmap(NULL, stack + 2 * 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 1;
	struct unmap_job j = {region + stack + 4096, rounds, 0};
	double t0 = now();
	spin_with_frame(0, 10000000);
	j.turns = (long)(10000000 * 0.005 / (now() - t0 + 1e-9)) + 1;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, region, stack);
	pthread_t t;
	void *r = NULL;
	if (pthread_create(&t, &a, unmap_thread, &j) || pthread_join(t, &r) || !r)
		return 1;
	printf("ok %d\n", rounds);
	return 0;
}
#endif

static void on_segv(int sig)
{
	(void)sig;
	static const char msg[] = "ok caught\n";
	write(1, msg, sizeof(msg) - 1);
	_exit(3);
}

__attribute__((noinline)) static void fault(void)
{
	*(volatile int *)(uintptr_t)8 = 1;
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
	} else if (!strcmp(argv[1], "unmap")) {
#if defined(__x86_64__)
		return unmap_mode((int)secs);
#else
		printf("skip\n");
#endif
	} else if (!strcmp(argv[1], "segv")) {
		signal(SIGSEGV, on_segv);
		outer_compute(0.05); /* sampled first */
		fault();
	} else if (!strcmp(argv[1], "crash")) {
		outer_compute(0.05);
		fault();
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
