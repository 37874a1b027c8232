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
/* Calls emit for every code object first seen since the last drain (from the flusher thread). */
void pyframes_drain(void (*emit)(void *arg, const struct kg_pycode_info *info), void *arg);
/* Codes that did not fit the table, frames cut short: for the recorder's status line. */
void pyframes_counts(uint64_t *codes_dropped, uint64_t *frames_unreadable);

/* For tests (tests/py/): the hard-coded layout table of CPython 3.<minor> as "name value"
 * lines, in the order tests/py/layout_check.c prints them from that version's headers.
 * Returns the length written, 0 for a version without a table. */
size_t pyframes_layout(unsigned version, char *buf, size_t len);

#endif
