/* KGANTT_DEV_AB: one part of full mode switched off and on in alternate periods
 * (dev_ab.h says why). */
#include "recorder/dev_ab.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/api_calls.h"
#include "recorder/launches.h"
#include "recorder/own_thread.h"
#include "util/clock.h"

#define AB_MAX_KINDS 16

static struct {
	CUpti_SubscriberHandle sub;
	CUpti_ActivityKind kinds[AB_MAX_KINDS];
	size_t n_kinds;
	dev_ab_always_on always_on;
	int kinds_part, callbacks_part, windows_part;
	unsigned period_ms; /* 0: the part held off for the whole run */
	FILE *log;
	pthread_t thread;
	int running;
	int stop;
} ab;

static void set_part(int on)
{
	if (ab.kinds_part)
		for (size_t i = 0; i < ab.n_kinds; i++)
			on ? cuptiActivityEnable(ab.kinds[i]) : cuptiActivityDisable(ab.kinds[i]);
	if (ab.callbacks_part)
		api_calls_switch(ab.sub, (uint32_t)on, ab.always_on);
	if (ab.windows_part)
		launches_hold(!on);
	/* the time after the switch: launches from here on run in the new state */
	fprintf(ab.log, "%s %llu\n", on ? "on" : "off", (unsigned long long)now_raw_ns());
}

static void *ab_main(void *arg)
{
	(void)arg;
	int on = 1;
	while (!__atomic_load_n(&ab.stop, __ATOMIC_RELAXED)) {
		sleep_ms(ab.period_ms);
		on = !on;
		set_part(on);
	}
	if (!on)
		set_part(1);
	return NULL;
}

/* "17,38": those of full mode's extra kinds, by number, into out; their count, 0 when one
 * is not among them. */
static size_t pick_kinds(const char *list, const CUpti_ActivityKind *kinds, size_t n,
			 CUpti_ActivityKind *out)
{
	size_t k = 0;
	for (const char *p = list; *p && k < AB_MAX_KINDS;) {
		char *end;
		long v = strtol(p, &end, 10);
		size_t i = 0;
		while (i < n && (long)kinds[i] != v)
			i++;
		if (end == p || i == n || (*end && *end != ','))
			return 0;
		out[k++] = kinds[i];
		p = *end ? end + 1 : end;
	}
	return k;
}

int dev_ab_start(CUpti_SubscriberHandle sub, const CUpti_ActivityKind *kinds, size_t n,
		 dev_ab_always_on always_on)
{
	const char *part = getenv("KGANTT_DEV_AB");
	if (!part || !*part)
		return 0;
	int all = !strcmp(part, "all");
	ab.kinds_part = all || !strcmp(part, "kinds") || !strcmp(part, "both");
	ab.callbacks_part = all || !strcmp(part, "callbacks") || !strcmp(part, "both");
	ab.windows_part = all;
	if (!strncmp(part, "kind:", 5)) {
		n = pick_kinds(part + 5, kinds, n, ab.kinds);
		kinds = ab.kinds;
		ab.kinds_part = n > 0;
	}
	const char *path = getenv("KGANTT_DEV_AB_LOG");
	const char *ms = getenv("KGANTT_DEV_AB_MS");
	long period = ms ? strtol(ms, NULL, 10) : 50;
	if ((!ab.kinds_part && !ab.callbacks_part) || !path || period < 0 || period > 10000 ||
	    n > AB_MAX_KINDS) {
		fprintf(stderr, "kgantt: KGANTT_DEV_AB=%s ignored: give kinds, kind:N[,N...] (of full "
				"mode's extra kinds), callbacks, both or all, "
				"KGANTT_DEV_AB_LOG=FILE and KGANTT_DEV_AB_MS of 1 to 10000 "
				"(0: off for the whole run)\n", part);
		return -1;
	}
	if (!(ab.log = fopen(path, "w"))) {
		fprintf(stderr, "kgantt: KGANTT_DEV_AB_LOG=%s: %s\n", path, strerror(errno));
		return -1;
	}
	setvbuf(ab.log, NULL, _IOLBF, 0);
	ab.sub = sub;
	memmove(ab.kinds, kinds, n * sizeof(*kinds));
	ab.n_kinds = n;
	ab.always_on = always_on;
	ab.period_ms = (unsigned)period;
	fprintf(ab.log, "part %s period_ms %u\non %llu\n", part, ab.period_ms,
		(unsigned long long)now_raw_ns());
	if (!ab.period_ms) { /* full mode's process with the part never on after start-up */
		set_part(0);
		fclose(ab.log);
		return 1;
	}
	if (own_thread_start(&ab.thread, ab_main, "kgantt-dev-ab") != 0) {
		fprintf(stderr, "kgantt: KGANTT_DEV_AB: cannot start its thread\n");
		fclose(ab.log);
		return -1;
	}
	ab.running = 1;
	return 1;
}

void dev_ab_stop(void)
{
	if (!ab.running)
		return;
	__atomic_store_n(&ab.stop, 1, __ATOMIC_RELAXED);
	pthread_join(ab.thread, NULL);
	ab.running = 0;
	fclose(ab.log);
}

void dev_hook_once(CUpti_SubscriberHandle sub)
{
	const char *v = getenv("KGANTT_DEV_HOOK");
	if (!v || !*v)
		return;
	if (strcmp(v, "runtime") == 0 || strcmp(v, "driver") == 0) {
		/* one callback left on, for a function the launch loop never calls: does CUPTI
		 * charge every call of a domain once any callback of it is on? */
		int rt = *v == 'r';
		cuptiEnableCallback(1, sub, rt ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
				    rt ? CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DArrayToArray_v3020
				       : CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2);
		fprintf(stderr, "kgantt: KGANTT_DEV_HOOK=%s: one %s API callback on for good, for "
				"measurement only\n", v, v);
		return;
	}
	static const CUpti_CallbackDomain domains[] = {CUPTI_CB_DOMAIN_RUNTIME_API,
						       CUPTI_CB_DOMAIN_DRIVER_API};
	for (size_t d = 0; d < sizeof(domains) / sizeof(domains[0]); d++) {
		cuptiEnableDomain(1, sub, domains[d]);
		cuptiEnableDomain(0, sub, domains[d]);
	}
	fprintf(stderr, "kgantt: KGANTT_DEV_HOOK=1: every runtime and driver API callback "
			"enabled and disabled again, for measurement only\n");
}
