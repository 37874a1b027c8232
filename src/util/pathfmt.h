#ifndef KGANTT_PATHFMT_H
#define KGANTT_PATHFMT_H

#include <stddef.h>

/* Expands an output name pattern, as multi-process and multi-node jobs need one name
 * per process: %p the pid given, %h the host name, %q{VAR} the value of environment
 * variable VAR (e.g. %q{RANK}), %% a percent sign. Returns 0, or -1 with a message in
 * err (unknown %-sequence, unset variable, result too long). */
int expand_path_pattern(const char *pattern, int pid, const char *host, char *out,
			size_t outlen, char *err, size_t errlen);

/* The file name of a path: what follows its last '/', the whole path without one. */
const char *path_base(const char *path);

#endif
