#include "cli/record_env.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* The recorder library: next to the kgantt binary (build tree), or in ../lib/kgantt
 * (installed), or wherever KGANTT_INJECT says. */
static int find_library(char *out, size_t outlen)
{
	const char *env = getenv("KGANTT_INJECT");
	if (env && *env) {
		if (!realpath(env, out)) {
			kg_err("KGANTT_INJECT: cannot open '%s': %s", env, strerror(errno));
			return -1;
		}
		return 0;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0) {
		kg_err("cannot find the kgantt binary: %s", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	const char *candidates[] = {"%s/libkgantt-inject.so", "%s/../lib/kgantt/libkgantt-inject.so"};
	for (size_t i = 0; i < 2; i++) {
		char path[PATH_MAX + 64];
		snprintf(path, sizeof(path), candidates[i], exe);
		if (access(path, R_OK) == 0 && realpath(path, out))
			return 0;
	}
	kg_err("cannot find libkgantt-inject.so next to '%s' or in ../lib/kgantt "
	       "(set KGANTT_INJECT to its path)", exe);
	return -1;
}

/* Loads the recorder here once, to fail early with the loader's own words, and checks
 * that it binds a libcupti: NVTX reaches CUPTI through the recorder, which forwards to
 * the libcupti it is bound to (recorder/inject.c says why). */
static int probe_library(const char *recorder)
{
	void *h = dlopen(recorder, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		kg_err("cannot load the recorder: %s", dlerror());
		return -1;
	}
	struct link_map *lm = NULL;
	int cupti = 0;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0) {
		while (lm && lm->l_prev)
			lm = lm->l_prev;
		for (; lm && !cupti; lm = lm->l_next)
			cupti = lm->l_name && strstr(lm->l_name, "libcupti.so");
	}
	/* left loaded: unloading CUPTI in a process that never used it gains nothing */
	if (!cupti) {
		kg_err("the recorder '%s' is not linked to libcupti", recorder);
		return -1;
	}
	return 0;
}

int recorder_find(char *out, size_t outlen)
{
	return find_library(out, outlen) < 0 || probe_library(out) < 0 ? -1 : 0;
}

static void set_env_long(const char *name, long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%ld", v);
	setenv(name, buf, 1);
}

static void set_env_double(const char *name, double v)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.6f", v);
	setenv(name, buf, 1);
}

/* Full mode samples launch calls through the launch hook (src/preload/launch_hook.h),
 * preloaded ahead of whatever the user preloads: libkgantt-launch.so beside the recorder.
 * Without it the recorder samples through CUPTI's launch callbacks, which see no kernel's
 * first launch outside a window (docs/results/launch-hook-h100.md). */
static void preload_launch_hook(const struct record_opts *o, const char *recorder)
{
	if (o->mode != RECORD_FULL || o->all_launches || o->launch_hook == RECORD_OFF)
		return;
	char hook[PATH_MAX + 32];
	const char *slash = strrchr(recorder, '/');
	int dir = slash ? (int)(slash - recorder) : 0;
	snprintf(hook, sizeof(hook), "%.*s%slibkgantt-launch.so", dir, recorder, slash ? "/" : "");
	if (access(hook, R_OK) != 0) {
		if (!o->quiet)
			kg_warn("no '%s': launch calls sampled through CUPTI's callbacks, "
				"without the first launch of a kernel that appears between windows",
				hook);
		return;
	}
	const char *prev = getenv("LD_PRELOAD");
	if (prev && strstr(prev, hook))
		return;
	size_t len = strlen(hook) + (prev ? strlen(prev) : 0) + 2;
	char *v = malloc(len);
	if (!v)
		return;
	snprintf(v, len, "%s%s%s", hook, prev && *prev ? ":" : "", prev ? prev : "");
	setenv("LD_PRELOAD", v, 1);
	free(v);
}

void recorder_environment(const struct record_opts *o, const char *recorder,
			  const char *spool_dir, uint64_t t0)
{
	preload_launch_hook(o, recorder);
	const char *prev = getenv("CUDA_INJECTION64_PATH");
	if (prev && *prev && strcmp(prev, recorder) != 0 && !o->quiet)
		kg_warn("CUDA_INJECTION64_PATH was '%s'; replaced by the kgantt recorder", prev);
	setenv("CUDA_INJECTION64_PATH", recorder, 1);
	setenv("NVTX_INJECTION64_PATH", recorder, 1);
	setenv("KGANTT_DIR", spool_dir, 1);
	setenv("KGANTT_MODE", record_modes[o->mode], 1);
	setenv("KGANTT_ALL_API", o->all_api ? "1" : "0", 1);
	setenv("KGANTT_ALL_LAUNCHES", o->all_launches ? "1" : "0", 1);
	if (o->latency >= 0)
		setenv("KGANTT_LATENCY", o->latency == RECORD_ON ? "1" : "0", 1);
	else
		unsetenv("KGANTT_LATENCY");
	set_env_double("KGANTT_DELAY", o->delay);
	set_env_double("KGANTT_DURATION", o->duration);
	setenv("KGANTT_CAPTURE_RANGE", record_ranges[o->capture_range], 1);
	setenv("KGANTT_STACKS", record_stacks[o->stacks], 1);
	for (int id = 0; id < KG_RS_COUNT; id++)
		set_env_long(kg_record_setting[id].env, o->setting[id]);
	setenv("KGANTT_SM", o->sm ? "1" : "0", 1);
	if (o->rank_env)
		setenv("KGANTT_RANK_ENV", o->rank_env, 1);
	char t0_text[32];
	snprintf(t0_text, sizeof(t0_text), "%llu", (unsigned long long)t0);
	setenv("KGANTT_T0", t0_text, 1);
}
