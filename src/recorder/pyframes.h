/* The calling thread's CPython frames (file:line:function), read from inside a CUDA API
 * callback without the GIL and without calling the interpreter: the recorder reads the
 * interpreter's own structures of the calling thread, which cannot change while that
 * thread is inside a C call. How and why it is safe: docs/python-frames.md.
 *
 * A frame is kept as (code id, lasti); each code object's filename, qualname,
 * co_firstlineno and raw co_linetable are copied once into a table made at init and
 * handed to the flusher by pyframes_drain(); the line is worked out at import time by
 * trace/pyline.h. */
#ifndef KGANTT_PYFRAMES_H
#define KGANTT_PYFRAMES_H

#include <stddef.h>
#include <stdint.h>

struct kg_pyframe { uint32_t code; int32_t lasti; };  /* code id (1..; 0 = unreadable code object); lasti: byte offset of the instruction being executed (the CALL), -1 unknown */
struct kg_pycode_info { uint32_t id; const char *filename; const char *qualname; int32_t firstlineno; const uint8_t *linetable; uint32_t linetable_len; };

/* Looks for a CPython interpreter in this process. Call once from InitializeInjection.
 * Returns 1 when frames can be read, 0 when the process runs no Python, -1 when it does
 * but its frames cannot be read; `why` says which ("CPython 3.12.3", "CPython 3.9.18 is not supported", ...).
 * Allocates everything it will ever need here. */
int pyframes_init(char *why, size_t whylen);
/* Python version as (major << 8 | minor), 0 when none: stored with the code records. */
unsigned pyframes_version(void);
/* The calling thread's Python frames, innermost first, at most max. Returns how many
 * (0 when the thread runs no Python code or Python is unavailable); *truncated = 1 when
 * the chain was longer than max or was cut at an unreadable frame. Async-signal-unsafe
 * but lock-light; never calls the interpreter. */
int pyframes_capture(struct kg_pyframe *out, int max, int *truncated);

/* What a sample says of the interrupted thread beside its frames. */
struct kg_pythread {
	int has_tstate;         /* it has a Python thread state: an interpreter thread */
	int holds_gil;          /* 1 it holds the GIL, 0 it does not, -1 cannot tell */
	int gc_running;         /* 1 its interpreter is collecting garbage, 0 not, -1 cannot tell */
	uintptr_t gil_lo, gil_hi; /* the GIL's own memory: a futex wait inside is a wait for it */
};

struct kg_pages;
/* The same, from a signal handler on the thread (recorder/hostsample.c): every object is
 * checked readable before it is read (recorder/safe_read.h; `pages` is the thread's page
 * cache), the code table's lock is only tried (a new code object met while it is held
 * gets id 0, counted as codes_busy), and nothing waits. Also fills *th. */
int pyframes_capture_signal(struct kg_pyframe *out, int max, int *truncated,
			    struct kg_pages *pages, struct kg_pythread *th);
/* A read of pyframes_capture_signal on PAGES faulted and the handler jumped out of it
 * (recorder/hostsample.c): releases the code table's lock if that capture held it. */
void pyframes_abandon(struct kg_pages *pages);
/* The threads that have a Python thread state, from the interpreters' own lists, read by
 * another thread (the host sampler's) without the GIL: the lists change under it, so every
 * read is checked (`pages`, that thread's page cache) and the walk is bounded; a wrong
 * answer only puts a thread on the wrong clock. Fills ids with kernel thread ids
 * (*native = 1: 3.11+) or pthread_self() values (3.10); returns how many, at most max. */
int pyframes_threads(uint64_t *ids, int max, int *native, struct kg_pages *pages);
/* Calls emit for every code object first seen since the last drain (from the flusher thread). */
void pyframes_drain(void (*emit)(void *arg, const struct kg_pycode_info *info), void *arg);
/* Codes that did not fit the table, frames cut short, codes met from a signal handler
 * while the table was busy (frame id 0): for the recorder's status lines. Any may be NULL. */
void pyframes_counts(uint64_t *codes_dropped, uint64_t *frames_unreadable, uint64_t *codes_busy);

/* For tests (tests/py/): the hard-coded layout table of CPython 3.<minor> as "name value"
 * lines, in the order tests/py/layout_check.c prints them from that version's headers.
 * Returns the length written, 0 for a version without a table. */
size_t pyframes_layout(unsigned version, char *buf, size_t len);

#endif
