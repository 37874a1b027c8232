/* The recorder's side of kgantt record: which library is injected, and the environment
 * that carries the options to it. The settings reach the recorder through the
 * environment (as uftrace's record does for libmcount): CUDA_INJECTION64_PATH makes the
 * CUDA driver load libkgantt-inject.so in every process that initialises CUDA, children
 * and grandchildren included, because they inherit the environment; KGANTT_* carry the
 * options. */
#ifndef KGANTT_CLI_RECORD_ENV_H
#define KGANTT_CLI_RECORD_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "cli/record_session.h"

/* The recorder library (its real path into out), loaded here once to fail early with the
 * loader's own words (a missing libcupti is the usual case). 0, or -1 after a message. */
int recorder_find(char *out, size_t outlen);
/* The environment the program and all its children inherit: o's settings, the spool
 * directory, and t0, the origin of --delay/--duration. */
void recorder_environment(const struct record_opts *o, const char *recorder,
			  const char *spool_dir, uint64_t t0);

#endif
