/* The overhead records that are the tracer's own work on one of the program's threads, one
 * list from the recorder to the model: CUPTI's (CUpti_ActivityOverheadKind) and kgantt's.
 * Whatever call or span of the program encloses them, that time is the recording's, which
 * the program does not spend untraced (analysis/host.c, report's `recording` line).
 * CUPTI's compiling and module and function loading are left out: the program pays them
 * untraced too, and CUPTI only reports them. */
#ifndef KGANTT_TRACER_WORK_H
#define KGANTT_TRACER_WORK_H

#include <stdint.h>
#include <string.h>

#define KG_OVERHEAD_OBJECT_THREAD 2 /* CUPTI_ACTIVITY_OBJECT_THREAD: object is a thread id */

/* kgantt's own: a call stack the recorder took on the program's thread (recorder/stacks.c),
 * timed there. 'KG' in the high half, outside CUPTI's kinds (a small number shifted by 16). */
#define KG_OVERHEAD_KGANTT_STACK 0x4b470001u

static inline int kg_overhead_is_tracer(int64_t kind)
{
	return kind == (1 << 16)     /* CUPTI_BUFFER_FLUSH */
	       || kind == (2 << 16)  /* CUPTI_INSTRUMENTATION */
	       || kind == (3 << 16)  /* CUPTI_RESOURCE */
	       || kind == (7 << 16)  /* ACTIVITY_BUFFER_REQUEST */
	       || kind == KG_OVERHEAD_KGANTT_STACK;
}

/* A library of a tracer, by its file's base name: CUPTI, kgantt's recorder, Kineto
 * (PyTorch's profiler), Nsight Systems' injection. A host sample in one is the tracer's
 * work (analysis/host.c); the innermost frames of a CUDA API backtrace in one are where
 * the tracer took it, not the program's (model/read_nsys.c). */
static inline int kg_tracer_library(const char *base)
{
	static const char *const libs[] = {"libcupti", "libkgantt-inject", "libkineto",
					   "libToolsInjection"};
	for (size_t i = 0; base && i < sizeof(libs) / sizeof(libs[0]); i++)
		if (!strncmp(base, libs[i], strlen(libs[i])))
			return 1;
	return 0;
}

#endif
