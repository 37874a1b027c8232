/* The kinds a trace's records carry, with the codes the trace stores (CUPTI's where CUPTI
 * has them) and the names every output spells them by: one list each, from which the
 * model's enums (model/model.h), their name functions (model.c) and the trace's enum_*
 * tables (trace/schema.c) come. X(ID, code, "name"). */
#ifndef KGANTT_KINDS_H
#define KGANTT_KINDS_H

/* An operation on the GPU. */
#define KG_OP_KINDS(X) X(KERNEL, 0, "kernel") X(MEMCPY, 1, "memcpy") X(MEMSET, 2, "memset")

/* A copy's direction (CUPTI's codes). */
#define KG_COPY_KINDS(X)                                                                   \
	X(UNKNOWN, 0, "unknown") X(HTOD, 1, "HtoD") X(DTOH, 2, "DtoH") X(HTOA, 3, "HtoA")  \
	X(ATOH, 4, "AtoH") X(ATOA, 5, "AtoA") X(ATOD, 6, "AtoD") X(DTOA, 7, "DtoA")        \
	X(DTOD, 8, "DtoD") X(HTOH, 9, "HtoH") X(PTOP, 10, "PtoP")

/* Where a copy's or memset's memory lives (CUPTI's codes). */
#define KG_MEM_KINDS(X)                                                                    \
	X(UNKNOWN, 0, "unknown") X(PAGEABLE, 1, "pageable") X(PINNED, 2, "pinned")         \
	X(DEVICE, 3, "device") X(ARRAY, 4, "array") X(MANAGED, 5, "managed")               \
	X(DEVICE_STATIC, 6, "device_static") X(MANAGED_STATIC, 7, "managed_static")

/* A stream: BLOCKING was created without cudaStreamNonBlocking; unknown has no name. */
#define KG_STREAM_KINDS(X)                                                        \
	X(UNKNOWN, 0, NULL) X(BLOCKING, 1, "blocking") X(NON_BLOCKING, 2, "non-blocking") \
	X(LEGACY_DEFAULT, 3, "legacy default")

/* What a host wait waited on (CUPTI's synchronization types). */
#define KG_SYNC_KINDS(X)                                                              \
	X(UNKNOWN, 0, "unknown") X(EVENT, 1, "event_synchronize")                     \
	X(STREAM_WAIT_EVENT, 2, "stream_wait_event") X(STREAM, 3, "stream_synchronize") \
	X(CONTEXT, 4, "context_synchronize")

/* Where a host thread was when it was sampled (the spool's codes, recorder/raw_format.h;
 * docs/host-samples.md). RUNNING in user code, on CPU; IN_KERNEL leaving a system call that
 * did not sleep, on CPU; BLOCKED asleep in a system call (sleep, I/O, a lock, a GPU wait);
 * GIL_WAIT asleep waiting for Python's GIL; IDLE off CPU since its last sample, not woken
 * to be sampled; STATE_UNKNOWN the architecture or the source does not tell. */
#define KG_HOST_STATES(X)                                                                  \
	X(RUNNING, 0, "on CPU") X(IN_KERNEL, 1, "in the kernel")                           \
	X(BLOCKED, 2, "blocked in a system call") X(GIL_WAIT, 3, "waiting for the GIL")     \
	X(IDLE, 4, "idle") X(STATE_UNKNOWN, 7, "unknown")
enum kg_host_state {
#define KG_HOST_STATE_ENUM_(id, code, name) KG_HOST_##id = code,
	KG_HOST_STATES(KG_HOST_STATE_ENUM_)
#undef KG_HOST_STATE_ENUM_
};

/* How full mode's sampled launch calls were seen: the trace's launch_settings.why when
 * they are sampled (recorder/launches.c writes it, kgantt info says it). */
#define KG_LAUNCHES_BY_HOOK      "the launch hook"
#define KG_LAUNCHES_BY_CALLBACKS "CUPTI's launch callbacks"
/* ... and its why when every launch has a call: the launch hook's, its stack in windows */
#define KG_LAUNCHES_DATED_BY_HOOK "every launch dated by the launch hook"

#endif
