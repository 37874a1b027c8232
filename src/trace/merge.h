/* Several kgantt traces into one (`kgantt merge`): one file per rank or per host
 * (`record -o run_%h_%q{RANK}.kgt`) becomes one trace, so that the report sees every
 * process and GPU of the job at once (imbalance, stragglers, time-slicing). */
#ifndef KGANTT_MERGE_H
#define KGANTT_MERGE_H

#include <stddef.h>

struct kg_merge_stats {
	int processes, hosts;
	int shifted_hosts;     /* hosts whose times were moved onto the first host's clock */
	int unaligned;         /* processes with no realtime offset: left on their own clock */
};

/* Writes out (through a temporary file, renamed at the end) with every row of every input:
 * process numbers renumbered, strings re-interned, and the times of processes on other
 * hosts moved onto the first host's CLOCK_MONOTONIC_RAW through each process's
 * realtime_offset_ns (to NTP's accuracy). 0, or a negative errno code with a message in
 * err naming the file. */
int trace_merge(const char *out, const char *const *inputs, int n, struct kg_merge_stats *st,
		char *err, size_t errlen);

#endif
