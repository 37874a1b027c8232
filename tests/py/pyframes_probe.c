/* The test shim of recorder/pyframes.c: a shared library that Python loads with ctypes
 * (tests/py/test_pyframes.py). ctypes.CDLL releases the GIL around the call, as PyTorch
 * does around CUDA calls, so probe() meets the recorder's hard case; ctypes.PyDLL keeps
 * it held. The code records are drained as the recorder's flusher would, and each frame
 * is written as "file:line:qualname" with the line from trace/pyline.h, as import does. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder/pyframes.h"
#include "trace/pyline.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_CODES 65536
#define MAX_FRAMES 256

struct code {
	char *filename, *qualname;
	int firstlineno;
	uint8_t *linetable;
	uint32_t len;
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_rc;
static char init_why[160];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct code codes[MAX_CODES + 1];
static __thread char out[MAX_FRAMES * 300];

static void do_init(void)
{
	init_rc = pyframes_init(init_why, sizeof(init_why));
}

/* "RC why", e.g. "1 CPython 3.12.1" */
EXPORT const char *probe_init(void)
{
	static char buf[200];
	pthread_once(&once, do_init);
	snprintf(buf, sizeof(buf), "%d %s", init_rc, init_why);
	return buf;
}

static void keep(void *arg, const struct kg_pycode_info *c)
{
	(void)arg;
	if (c->id == 0 || c->id > MAX_CODES || codes[c->id].filename)
		return; /* ids are never handed out twice */
	codes[c->id].filename = strdup(c->filename);
	codes[c->id].qualname = strdup(c->qualname);
	codes[c->id].firstlineno = c->firstlineno;
	codes[c->id].linetable = malloc(c->linetable_len ? c->linetable_len : 1);
	memcpy(codes[c->id].linetable, c->linetable, c->linetable_len);
	codes[c->id].len = c->linetable_len;
}

/* The caller's frames as "file:line:qualname;...", innermost first; "|cut" at the end
 * when truncated. A code id 0 prints as "?:0:?". */
EXPORT const char *probe_max(int max)
{
	struct kg_pyframe f[MAX_FRAMES];
	int truncated = 0;
	pthread_once(&once, do_init);
	if (max > MAX_FRAMES)
		max = MAX_FRAMES;
	int n = pyframes_capture(f, max, &truncated);
	size_t o = 0;
	pthread_mutex_lock(&lock);
	pyframes_drain(keep, NULL);
	out[0] = 0;
	for (int i = 0; i < n && o < sizeof(out) - 1; i++) {
		const struct code *c = f[i].code <= MAX_CODES ? &codes[f[i].code] : NULL;
		if (!f[i].code || !c || !c->filename) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s?:0:?", i ? ";" : "");
			continue;
		}
		int line = pyline_line(pyframes_version(), c->linetable, c->len, c->firstlineno,
				       f[i].lasti);
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s:%d:%s", i ? ";" : "",
				      c->filename, line, c->qualname);
	}
	pthread_mutex_unlock(&lock);
	if (truncated && o < sizeof(out))
		snprintf(out + o, sizeof(out) - o, "|cut");
	return out;
}

EXPORT const char *probe(void)
{
	return probe_max(MAX_FRAMES);
}

/* The raw capture of the caller: "code:lasti;..." (for lasti checks against f_lasti). */
EXPORT const char *probe_raw(void)
{
	struct kg_pyframe f[MAX_FRAMES];
	int truncated = 0;
	pthread_once(&once, do_init);
	int n = pyframes_capture(f, MAX_FRAMES, &truncated);
	size_t o = 0;
	out[0] = 0;
	for (int i = 0; i < n && o < sizeof(out); i++)
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%u:%d", i ? ";" : "", f[i].code,
				      f[i].lasti);
	return out;
}

/* How many frames the capture returns (for the unsupported-version check: 0). */
EXPORT int probe_count(void)
{
	struct kg_pyframe f[MAX_FRAMES];
	int truncated = 0;
	pthread_once(&once, do_init);
	return pyframes_capture(f, MAX_FRAMES, &truncated);
}

static void *cthread(void *arg)
{
	struct kg_pyframe f[16];
	int truncated = 0;
	*(int *)arg = pyframes_capture(f, 16, &truncated);
	return NULL;
}

/* Frames seen by a thread that never ran Python: must be 0. */
EXPORT int probe_cthread(void)
{
	pthread_t t;
	int n = -1;
	pthread_once(&once, do_init);
	if (pthread_create(&t, NULL, cthread, &n) != 0)
		return -2;
	pthread_join(t, NULL);
	return n;
}

/* A C++-style thread that has a Python thread state (it once took the GIL, as a
 * pybind11 callback does) but runs no Python code: its state has no frame. */
static void *cthread_tstate(void *arg)
{
	int (*ensure)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "PyGILState_Ensure");
	void (*release)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "PyGILState_Release");
	void *(*save)(void) = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyEval_SaveThread");
	void (*restore)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "PyEval_RestoreThread");
	struct kg_pyframe f[16];
	int truncated = 0;
	if (!ensure || !release || !save || !restore) {
		*(int *)arg = -3;
		return NULL;
	}
	int g = ensure();
	*(int *)arg = pyframes_capture(f, 16, &truncated); /* GIL held */
	void *ts = save();
	*(int *)arg += pyframes_capture(f, 16, &truncated); /* GIL released */
	restore(ts);
	release(g);
	return NULL;
}

EXPORT int probe_cthread_tstate(void)
{
	pthread_t t;
	int n = -1;
	pthread_once(&once, do_init);
	if (pthread_create(&t, NULL, cthread_tstate, &n) != 0)
		return -2;
	pthread_join(t, NULL);
	return n;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Median cost of one capture of the caller's stack, in ns: `rounds` timings of 16
 * captures each (so the clock's own cost is spread), *depth = frames captured. */
EXPORT double probe_bench(int rounds, int *depth)
{
	struct kg_pyframe f[64];
	int truncated = 0;
	pthread_once(&once, do_init);
	if (rounds < 1)
		rounds = 1;
	long long *t = malloc(sizeof(*t) * (size_t)rounds);
	if (!t)
		return -1;
	*depth = pyframes_capture(f, 64, &truncated);
	for (int r = 0; r < rounds; r++) {
		long long t0 = now_ns();
		for (int k = 0; k < 16; k++)
			pyframes_capture(f, 64, &truncated);
		t[r] = now_ns() - t0;
	}
	qsort(t, (size_t)rounds, sizeof(*t), cmp_ll);
	double med = t[rounds / 2] / 16.0;
	free(t);
	return med;
}

/* "dropped unreadable" */
EXPORT const char *probe_counts(void)
{
	static char buf[64];
	uint64_t d, u;
	pyframes_counts(&d, &u, NULL);
	snprintf(buf, sizeof(buf), "%llu %llu", (unsigned long long)d, (unsigned long long)u);
	return buf;
}

/* The hard-coded table for 3.<minor>, as layout_check prints it from the headers. */
EXPORT const char *probe_layout(unsigned version)
{
	static char buf[4096];
	buf[0] = 0;
	pyframes_layout(version, buf, sizeof(buf));
	return buf;
}

/* pyline_line on a table from Python (the decoder checked against co_lines()). */
EXPORT int probe_line(unsigned version, const uint8_t *lt, uint32_t len, int firstlineno, int lasti)
{
	return pyline_line(version, lt, len, firstlineno, lasti);
}
