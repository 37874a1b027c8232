/* The calling thread's CPython frames, read from inside a CUDA API callback (pyframes.h).
 *
 * The callback runs on the application thread that made the CUDA call. That thread may
 * hold the GIL or not (PyTorch drops it around .item(), .to(), synchronisations), and
 * may be a C++ thread with no Python at all. So nothing here calls into the interpreter,
 * takes the GIL, allocates or touches a reference count: it reads the interpreter's own
 * structures of *this* thread, which cannot change while the thread is inside a C call
 * (its frames are only pushed and popped by its own eval loop). Another thread holding
 * the GIL may run Python meanwhile, but it never changes the fields of our thread's
 * frames that we read, and every object we read is kept alive by those frames
 * (frame -> code -> names, line table).
 *
 * The layouts are hard-coded per CPython minor version (3.10 to 3.13), because neither
 * CI nor users have Python's internal headers; tests/py/layout_check.c checks the tables
 * against the headers where they exist. On 3.13 the offsets come from the interpreter
 * itself (_PyRuntime.debug_offsets, which CPython exports for exactly this), checked
 * for sense against the sizes it gives. Every object is type-checked as the walk goes,
 * and the walk stops at the first thing that is not what the version says it must be.
 *
 * Code objects are resolved once: the first sighting copies filename, qualname,
 * co_firstlineno and the raw co_linetable into a table made at init; later sightings are
 * a lock-free hash lookup plus a check that the code object at that address is still the
 * same one (a freed code object's address is soon reused, often together with the
 * addresses of its name strings and line table, so the check compares contents too).
 * Only a first sighting takes the lock. The flusher drains new entries concurrently:
 * entries are append-only and published with release stores. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/pyframes.h"
#include "recorder/safe_read.h"

#define KG_PY_CODES    16384u      /* code objects the table holds */
#define KG_PY_SLOTS    32768u      /* hash slots for them: half full at most, short probes */
#define KG_PY_SLOT_BITS 15
#define KG_PY_ISLOTS   65536u      /* hash slots for the distinct strings (2 per code at most) */
#define KG_PY_TEXT     (8u << 20)  /* bytes for filenames, qualnames and line tables */
#define KG_PY_STR_MAX  1024u       /* bytes of UTF-8 kept of one filename or qualname */
#define KG_PY_LT_MAX   65536u      /* bytes kept of one line table: lines past it are unknown */
#define KG_PY_WALK_MAX 4096        /* frames walked at most, so that a cycle cannot hold us */

/* Where the fields we read are, for one CPython minor version (bytes from the start of
 * the object; -1: the version has no such field). */
struct pylayout {
	int16_t version;         /* major << 8 | minor */
	int16_t ob_type, tp_name;
	int16_t ts_frame;        /* PyThreadState: 3.10 frame, 3.11/3.12 cframe, 3.13 current_frame */
	int16_t cframe_current;  /* _PyCFrame.current_frame (3.11, 3.12) */
	int16_t fr_code;         /* 3.10 f_code, 3.11/3.12 f_code, 3.13 f_executable */
	int16_t fr_instr;        /* 3.10 f_lasti (int, code units), 3.11/3.12 prev_instr, 3.13 instr_ptr */
	int16_t fr_previous;     /* 3.10 f_back, 3.11+ previous */
	int16_t fr_owner;        /* char */
	int16_t owner_generator, owner_cstack;
	int16_t co_code_adaptive, co_firsttraceable;
	int16_t co_qualname;     /* co_name on 3.10, which has no co_qualname */
	int16_t co_filename, co_firstlineno, co_linetable;
	int16_t bytes_size, bytes_sval;
	int16_t u_length, u_state, u_ascii_size, u_compact_size;
	int16_t st_kind_shift, st_compact_bit, st_ascii_bit, st_ready_bit;
	/* the GIL (host samples): PyThreadState.interp, where the GIL's state is in
	 * _PyRuntime (3.10/3.11) or which pointer to it the interpreter holds (3.12+), and in
	 * struct _gil_runtime_state its last holder, its lock word and its size */
	int16_t ts_interp, rt_ceval_gil, interp_ceval_gil;
	int16_t gil_last_holder, gil_locked, gil_size;
	/* the interpreters' thread lists (host samples: which threads run Python):
	 * _PyRuntime.interpreters.head, PyInterpreterState.next and its first thread state,
	 * PyThreadState.next, thread_id (pthread_self) and native_thread_id (3.11+, gettid) */
	int16_t rt_interp_head, interp_next, interp_threads_head;
	int16_t ts_next, ts_thread_id, ts_native_tid;
	/* PyInterpreterState.gc.collecting: the interpreter's garbage collector is running
	 * (on the thread that holds the GIL) */
	int16_t interp_gc_collecting;
};

/* Taken from each version's headers by tests/py/layout_check.c, which t090 runs again
 * wherever the headers are (64-bit little-endian Linux, default build: a Py_TRACE_REFS
 * or free-threaded build fails the self-check at init). */
static const struct pylayout layouts[] = {
	{ .version = 0x30a, .ob_type = 8, .tp_name = 24, .ts_frame = 24, .cframe_current = -1,
	  .fr_code = 32, .fr_instr = 96, .fr_previous = 24, .fr_owner = -1,
	  .owner_generator = -1, .owner_cstack = -1, .co_code_adaptive = -1, .co_firsttraceable = -1,
	  .co_qualname = 112, .co_filename = 104, .co_firstlineno = 40, .co_linetable = 120,
	  .bytes_size = 16, .bytes_sval = 32, .u_length = 16, .u_state = 32, .u_ascii_size = 48,
	  .u_compact_size = 72, .st_kind_shift = 2, .st_compact_bit = 5, .st_ascii_bit = 6,
	  .st_ready_bit = 7, .ts_interp = 16, .rt_ceval_gil = 352, .interp_ceval_gil = -1,
	  .gil_last_holder = 8, .gil_locked = 16, .gil_size = 208,
	  .rt_interp_head = 32, .interp_next = 0, .interp_threads_head = 8, .ts_next = 8,
	  .ts_thread_id = 176, .ts_native_tid = -1, .interp_gc_collecting = 816 },
	{ .version = 0x30b, .ob_type = 8, .tp_name = 24, .ts_frame = 56, .cframe_current = 8,
	  .fr_code = 32, .fr_instr = 56, .fr_previous = 48, .fr_owner = 69,
	  .owner_generator = 1, .owner_cstack = -1, .co_code_adaptive = 184, .co_firsttraceable = 168,
	  .co_qualname = 128, .co_filename = 112, .co_firstlineno = 72, .co_linetable = 136,
	  .bytes_size = 16, .bytes_sval = 32, .u_length = 16, .u_state = 32, .u_ascii_size = 48,
	  .u_compact_size = 72, .st_kind_shift = 2, .st_compact_bit = 5, .st_ascii_bit = 6,
	  .st_ready_bit = 7, .ts_interp = 16, .rt_ceval_gil = 360, .interp_ceval_gil = -1,
	  .gil_last_holder = 8, .gil_locked = 16, .gil_size = 208,
	  .rt_interp_head = 40, .interp_next = 0, .interp_threads_head = 16, .ts_next = 8,
	  .ts_thread_id = 152, .ts_native_tid = 160, .interp_gc_collecting = 848 },
	{ .version = 0x30c, .ob_type = 8, .tp_name = 24, .ts_frame = 56, .cframe_current = 0,
	  .fr_code = 0, .fr_instr = 56, .fr_previous = 8, .fr_owner = 70,
	  .owner_generator = 1, .owner_cstack = 3, .co_code_adaptive = 192, .co_firsttraceable = 176,
	  .co_qualname = 128, .co_filename = 112, .co_firstlineno = 68, .co_linetable = 136,
	  .bytes_size = 16, .bytes_sval = 32, .u_length = 16, .u_state = 32, .u_ascii_size = 40,
	  .u_compact_size = 56, .st_kind_shift = 2, .st_compact_bit = 5, .st_ascii_bit = 6,
	  .st_ready_bit = -1, .ts_interp = 16, .rt_ceval_gil = -1, .interp_ceval_gil = 384,
	  .gil_last_holder = 8, .gil_locked = 16, .gil_size = 208,
	  .rt_interp_head = 40, .interp_next = 0, .interp_threads_head = 72, .ts_next = 8,
	  .ts_thread_id = 136, .ts_native_tid = 144, .interp_gc_collecting = 312 },
	{ .version = 0x30d, .ob_type = 8, .tp_name = 24, .ts_frame = 72, .cframe_current = -1,
	  .fr_code = 0, .fr_instr = 56, .fr_previous = 8, .fr_owner = 70,
	  .owner_generator = 1, .owner_cstack = 3, .co_code_adaptive = 200, .co_firsttraceable = 184,
	  .co_qualname = 128, .co_filename = 112, .co_firstlineno = 68, .co_linetable = 136,
	  .bytes_size = 16, .bytes_sval = 32, .u_length = 16, .u_state = 32, .u_ascii_size = 40,
	  .u_compact_size = 56, .st_kind_shift = 2, .st_compact_bit = 5, .st_ascii_bit = 6,
	  .st_ready_bit = -1, .ts_interp = 16, .rt_ceval_gil = -1, .interp_ceval_gil = 16,
	  .gil_last_holder = 8, .gil_locked = 16, .gil_size = 208,
	  .rt_interp_head = 632, .interp_next = 7264, .interp_threads_head = 7344, .ts_next = 8,
	  .ts_thread_id = 152, .ts_native_tid = 160, .interp_gc_collecting = 7600 },
};

/* Where, inside 3.13's _Py_DebugOffsets (the first member of _PyRuntime), each offset we
 * take from it is stored. That struct's own layout changes with the minor version (3.14
 * inserts fields), so it is one more per-version table. */
struct pydbgpos {
	int16_t version;
	int16_t dbg_version, dbg_free_threaded;
	int16_t dbg_rt_size, dbg_interp_size, dbg_ts_size, dbg_ts_current_frame;
	int16_t dbg_fr_size, dbg_fr_previous, dbg_fr_executable, dbg_fr_instr_ptr, dbg_fr_owner;
	int16_t dbg_co_size, dbg_co_filename, dbg_co_qualname, dbg_co_linetable;
	int16_t dbg_co_firstlineno, dbg_co_code_adaptive;
	int16_t dbg_ob_type, dbg_bytes_size, dbg_bytes_sval;
	int16_t dbg_u_state, dbg_u_length, dbg_u_ascii_size;
	int16_t dbg_rt_interp_head, dbg_interp_next, dbg_interp_threads_head, dbg_interp_ceval_gil;
	int16_t dbg_ts_next, dbg_ts_interp, dbg_ts_thread_id, dbg_ts_native_tid;
	int16_t dbg_interp_gc, dbg_gc_collecting;
};

static const struct pydbgpos dbgpos_313 = {
	.version = 0x30d, .dbg_version = 8, .dbg_free_threaded = 16,
	.dbg_rt_size = 24, .dbg_interp_size = 48, .dbg_ts_size = 152, .dbg_ts_current_frame = 184,
	.dbg_fr_size = 224, .dbg_fr_previous = 232, .dbg_fr_executable = 240,
	.dbg_fr_instr_ptr = 248, .dbg_fr_owner = 264,
	.dbg_co_size = 272, .dbg_co_filename = 280, .dbg_co_qualname = 296,
	.dbg_co_linetable = 304, .dbg_co_firstlineno = 312, .dbg_co_code_adaptive = 344,
	.dbg_ob_type = 360, .dbg_bytes_size = 520, .dbg_bytes_sval = 528,
	.dbg_u_state = 544, .dbg_u_length = 552, .dbg_u_ascii_size = 560,
	.dbg_rt_interp_head = 40, .dbg_interp_next = 64, .dbg_interp_threads_head = 72,
	.dbg_interp_ceval_gil = 112, .dbg_ts_next = 168, .dbg_ts_interp = 176,
	.dbg_ts_thread_id = 192, .dbg_ts_native_tid = 200,
	.dbg_interp_gc = 80, .dbg_gc_collecting = 576,
};

/* One code object, as first seen. The object addresses are kept to recognise later
 * sightings; the lengths of the live objects to tell a reused address from the same code. */
struct pycode {
	uintptr_t code, filename, qualname, linetable;
	int32_t firstlineno;
	uint32_t file_off, qual_off, lt_off;    /* in the text arena */
	uint32_t file_len, qual_len, lt_len;    /* bytes kept */
	uint32_t file_ulen, qual_ulen, lt_full; /* the live objects' lengths: code points, bytes */
};

/* What a frame's code object points to, read once per frame. */
struct pylive {
	uintptr_t code, filename, qualname, linetable;
	int32_t firstlineno;
};

static struct {
	_Atomic int state;   /* 1: frames can be read; 0: no Python; -1: unsupported */
	unsigned version;
	char why[128];
	struct pylayout L;
	void *(*get_tstate)(void);
	int (*is_initialized)(void);
	int (*is_finalizing)(void);
	uintptr_t type_type, code_type, unicode_type, bytes_type, frame_type;
	uintptr_t runtime;             /* &_PyRuntime: the GIL of 3.10/3.11 */
	size_t frame_span, code_span;  /* bytes of a frame and of a code object that are read */

	atomic_int lock;               /* taken to add a code, and by drain (py_lock) */
	struct kg_pages *_Atomic sig_holder; /* the pages of the signal handler holding it */
	struct pycode *codes;
	uint32_t ncodes, drained;      /* under lock */
	_Atomic uint32_t *slots;       /* code id, 0 = empty; written under lock, read without */
	uint32_t *islots;              /* interned strings: text offset + 1; under lock */
	char *text;
	uint32_t text_used;            /* under lock */
	_Atomic uint64_t codes_dropped, frames_unreadable, codes_busy;
} py;

/* ---------------------------------------------------------------- reading memory */

/* How a capture reads: from a CUPTI callback, plain loads (the thread is inside a C call:
 * its frames are consistent); from a sampling signal, which may land while the thread
 * pushes or pops a frame, each object's bytes are checked readable before the first load
 * (recorder/safe_read.h: `pg`, the thread's page cache) and the code table's lock is only
 * tried, never waited for. The walk's functions are inlined into both entry points, so
 * that with pg a constant NULL the callback's walk has no check left in it. */
#define WALK static inline __attribute__((always_inline))

/* A pointer we are willing to follow: user space, aligned as every Python object and
 * frame is. It does not make a wild pointer safe; it stops the walk at the obviously
 * wrong ones (NULL, small integers, tagged or misaligned values) before they are used. */
static inline int ptr_ok(uintptr_t p)
{
	return p >= 4096 && p < ((uintptr_t)1 << 56) && !(p & 7);
}

/* May [a, a + len) be read? Always, outside a signal handler. */
WALK int span_ok(struct kg_pages *pg, uintptr_t a, size_t len)
{
	return !pg || kg_readable(pg, a, len);
}

static inline uintptr_t rd_ptr(uintptr_t a)
{
	uintptr_t v;
	memcpy(&v, (const void *)a, sizeof(v));
	return v;
}

static inline int32_t rd_i32(uintptr_t a)
{
	int32_t v;
	memcpy(&v, (const void *)a, sizeof(v));
	return v;
}

static inline int64_t rd_i64(uintptr_t a)
{
	int64_t v;
	memcpy(&v, (const void *)a, sizeof(v));
	return v;
}

WALK int is_type(struct kg_pages *pg, uintptr_t o, uintptr_t type)
{
	return ptr_ok(o) && span_ok(pg, o, (size_t)py.L.ob_type + 8) &&
	       rd_ptr(o + (uintptr_t)py.L.ob_type) == type;
}

/* A str object's characters: only compact strings (all that the compiler and marshal
 * make; legacy ones are str subclasses, never a code object's names). Of the characters,
 * only as many as fit KG_PY_STR_MAX bytes of UTF-8 are ever read, and checked readable. */
WALK int ustr_view(struct kg_pages *pg, uintptr_t o, const uint8_t **data, int *kind,
		   uint32_t *len)
{
	const struct pylayout *L = &py.L;
	if (!is_type(pg, o, py.unicode_type) || !span_ok(pg, o, (size_t)L->u_compact_size))
		return 0;
	uint32_t st = (uint32_t)rd_i32(o + (uintptr_t)L->u_state);
	int64_t n = rd_i64(o + (uintptr_t)L->u_length);
	int k = (st >> L->st_kind_shift) & 7;
	if (n < 0 || n > (1 << 24) || !((st >> L->st_compact_bit) & 1) ||
	    (L->st_ready_bit >= 0 && !((st >> L->st_ready_bit) & 1)) || (k != 1 && k != 2 && k != 4))
		return 0;
	int ascii = (st >> L->st_ascii_bit) & 1;
	*data = (const uint8_t *)(o + (uintptr_t)(ascii ? L->u_ascii_size : L->u_compact_size));
	*kind = ascii ? 0 : k; /* 0: ASCII, already UTF-8 */
	*len = (uint32_t)n;
	uint32_t read = (uint32_t)n < KG_PY_STR_MAX ? (uint32_t)n : KG_PY_STR_MAX;
	return span_ok(pg, (uintptr_t)*data, (size_t)read * (ascii ? 1 : (unsigned)k));
}

/* Up to cap-1 bytes of UTF-8 of n characters of `kind`, cut at a character boundary.
 * Surrogates (surrogateescape'd file names) become U+FFFD so the text stays valid UTF-8. */
static uint32_t utf8_encode(const uint8_t *data, int kind, uint32_t n, char *dst, uint32_t cap)
{
	uint32_t o = 0;
	if (kind == 0) {
		o = n < cap - 1 ? n : cap - 1;
		memcpy(dst, data, o);
		dst[o] = 0;
		return o;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c;
		if (kind == 1) {
			c = data[i];
		} else if (kind == 2) {
			uint16_t u;
			memcpy(&u, data + 2 * (size_t)i, 2);
			c = u;
		} else {
			memcpy(&c, data + 4 * (size_t)i, 4);
		}
		if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
			c = 0xfffd;
		char b[4];
		uint32_t k;
		if (c < 0x80) {
			b[0] = (char)c;
			k = 1;
		} else if (c < 0x800) {
			b[0] = (char)(0xc0 | (c >> 6));
			b[1] = (char)(0x80 | (c & 0x3f));
			k = 2;
		} else if (c < 0x10000) {
			b[0] = (char)(0xe0 | (c >> 12));
			b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			b[2] = (char)(0x80 | (c & 0x3f));
			k = 3;
		} else {
			b[0] = (char)(0xf0 | (c >> 18));
			b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			b[3] = (char)(0x80 | (c & 0x3f));
			k = 4;
		}
		if (o + k > cap - 1)
			break;
		memcpy(dst + o, b, k);
		o += k;
	}
	dst[o] = 0;
	return o;
}

/* Does str object o still say what we copied (len bytes of UTF-8 of ulen characters)? */
WALK int ustr_equal(struct kg_pages *pg, uintptr_t o, const char *kept, uint32_t len,
		    uint32_t ulen)
{
	const uint8_t *data;
	int kind;
	uint32_t n;
	if (!ustr_view(pg, o, &data, &kind, &n) || n != ulen)
		return 0;
	if (kind == 0) /* ASCII: the kept text is a prefix of the characters themselves */
		return memcmp(data, kept, len) == 0;
	char buf[KG_PY_STR_MAX];
	uint32_t m = utf8_encode(data, kind, n, buf, sizeof(buf));
	return m == len && memcmp(buf, kept, len) == 0;
}

/* A bytes object; of its content only the first KG_PY_LT_MAX bytes are ever read, and
 * checked readable. */
WALK int bytes_view(struct kg_pages *pg, uintptr_t o, const uint8_t **data, uint32_t *len)
{
	if (!is_type(pg, o, py.bytes_type) || !span_ok(pg, o, (size_t)py.L.bytes_sval))
		return 0;
	int64_t n = rd_i64(o + (uintptr_t)py.L.bytes_size);
	if (n < 0 || n > (1 << 28))
		return 0;
	*data = (const uint8_t *)(o + (uintptr_t)py.L.bytes_sval);
	*len = (uint32_t)n;
	return span_ok(pg, (uintptr_t)*data, n < KG_PY_LT_MAX ? (size_t)n : KG_PY_LT_MAX);
}

/* ---------------------------------------------------------------- the code table */

/* The table's lock: taken by a thread that meets a new code object, by drain and around
 * fork; only tried from a signal handler, which may have interrupted its holder. A spin
 * lock (it is held for one copy), since no pthread lock may be taken in a handler. */
static void py_lock(void)
{
	while (atomic_exchange_explicit(&py.lock, 1, memory_order_acquire))
		sched_yield();
}

static int py_trylock(void)
{
	return !atomic_exchange_explicit(&py.lock, 1, memory_order_acquire);
}

static void py_unlock(void)
{
	atomic_store_explicit(&py.lock, 0, memory_order_release);
}

static inline uint32_t slot_of(uintptr_t code)
{
	return (uint32_t)(((uint64_t)code >> 4) * 0x9e3779b97f4a7c15ull >> (64 - KG_PY_SLOT_BITS));
}

/* 0 when the code object cannot be read. */
WALK int read_live(struct kg_pages *pg, uintptr_t code, struct pylive *lv)
{
	const struct pylayout *L = &py.L;
	if (!span_ok(pg, code, py.code_span))
		return 0;
	lv->code = code;
	lv->filename = rd_ptr(code + (uintptr_t)L->co_filename);
	lv->qualname = rd_ptr(code + (uintptr_t)L->co_qualname);
	lv->linetable = rd_ptr(code + (uintptr_t)L->co_linetable);
	lv->firstlineno = rd_i32(code + (uintptr_t)L->co_firstlineno);
	return 1;
}

/* Is entry e the code object lv describes, and not another one that was given the
 * address (and perhaps its strings' addresses) of a freed one? */
WALK int code_same(struct kg_pages *pg, const struct pycode *e, const struct pylive *lv)
{
	if (e->code != lv->code || e->filename != lv->filename || e->qualname != lv->qualname ||
	    e->linetable != lv->linetable || e->firstlineno != lv->firstlineno)
		return 0;
	const uint8_t *lt;
	uint32_t ltn;
	if (!bytes_view(pg, lv->linetable, &lt, &ltn) || ltn != e->lt_full ||
	    memcmp(lt, py.text + e->lt_off, e->lt_len) != 0)
		return 0;
	return ustr_equal(pg, lv->qualname, py.text + e->qual_off, e->qual_len, e->qual_ulen) &&
	       ustr_equal(pg, lv->filename, py.text + e->file_off, e->file_len, e->file_ulen);
}

/* Copies a string into the text arena once: filenames repeat across every code of a
 * module. Returns its offset, or UINT32_MAX when the arena is full. Under lock. */
static uint32_t text_intern(const char *s, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	uint32_t mask = KG_PY_ISLOTS - 1, i = (uint32_t)(h ^ (h >> 32)) & mask;
	for (uint32_t probes = 0; probes < KG_PY_ISLOTS; probes++, i = (i + 1) & mask) {
		uint32_t v = py.islots[i];
		if (v == 0)
			break;
		const char *t = py.text + v - 1;
		if (strncmp(t, s, len) == 0 && t[len] == 0)
			return v - 1;
	}
	if (py.text_used + len + 1 > KG_PY_TEXT)
		return UINT32_MAX;
	uint32_t off = py.text_used;
	memcpy(py.text + off, s, len);
	py.text[off + len] = 0;
	py.text_used += len + 1;
	if (py.islots[i] == 0) /* a full string table only loses the sharing */
		py.islots[i] = off + 1;
	return off;
}

/* First sighting of a code object (or of a new one at a reused address): copy it out. */

/* First sighting of a code object (or of a new one at a reused address): copy it out.
 * From a signal handler the lock is only tried: when another thread (or the interrupted
 * one) holds it, the frame gets id 0 and *busy says why. */
static uint32_t code_add(struct kg_pages *pg, const struct pylive *lv, int *busy)
{
	uint32_t id = 0;
	if (pg) {
		if (!py_trylock()) {
			*busy = 1;
			return 0;
		}
		atomic_store_explicit(&py.sig_holder, pg, memory_order_relaxed);
	} else {
		py_lock();
	}
	/* another thread may have added it since our lock-free look */
	uint32_t mask = KG_PY_SLOTS - 1, i = slot_of(lv->code);
	for (;; i = (i + 1) & mask) {
		uint32_t s = atomic_load_explicit(&py.slots[i], memory_order_relaxed);
		if (s == 0 || py.codes[s - 1].code == lv->code) {
			if (s && code_same(pg, &py.codes[s - 1], lv)) {
				id = s;
				goto out;
			}
			break; /* i: the empty slot, or the stale entry's slot to take over */
		}
	}
	const uint8_t *fd, *qd, *lt;
	int fk, qk;
	uint32_t fn, qn, ltn;
	if (!ustr_view(pg, lv->filename, &fd, &fk, &fn) || !ustr_view(pg, lv->qualname, &qd, &qk, &qn) ||
	    !bytes_view(pg, lv->linetable, &lt, &ltn))
		goto out; /* not the objects a code object holds: id 0 */
	if (py.ncodes >= KG_PY_CODES) {
		atomic_fetch_add_explicit(&py.codes_dropped, 1, memory_order_relaxed);
		goto out;
	}
	char buf[KG_PY_STR_MAX];
	struct pycode *e = &py.codes[py.ncodes];
	e->code = lv->code;
	e->filename = lv->filename;
	e->qualname = lv->qualname;
	e->linetable = lv->linetable;
	e->firstlineno = lv->firstlineno;
	e->file_ulen = fn;
	e->qual_ulen = qn;
	e->lt_full = ltn;
	e->file_len = utf8_encode(fd, fk, fn, buf, sizeof(buf));
	e->file_off = text_intern(buf, e->file_len);
	e->qual_len = utf8_encode(qd, qk, qn, buf, sizeof(buf));
	e->qual_off = text_intern(buf, e->qual_len);
	e->lt_len = ltn < KG_PY_LT_MAX ? ltn : KG_PY_LT_MAX;
	e->lt_off = UINT32_MAX;
	if (py.text_used + e->lt_len <= KG_PY_TEXT) {
		e->lt_off = py.text_used;
		memcpy(py.text + py.text_used, lt, e->lt_len);
		py.text_used += e->lt_len;
	}
	if (e->file_off == UINT32_MAX || e->qual_off == UINT32_MAX || e->lt_off == UINT32_MAX) {
		atomic_fetch_add_explicit(&py.codes_dropped, 1, memory_order_relaxed);
		goto out; /* the arena is full; the half-made entry is never published */
	}
	id = ++py.ncodes;
	/* the entry is complete before readers can find it */
	atomic_store_explicit(&py.slots[i], id, memory_order_release);
out:
	if (pg)
		atomic_store_explicit(&py.sig_holder, NULL, memory_order_relaxed);
	py_unlock();
	return id;
}

WALK uint32_t code_id(struct kg_pages *pg, uintptr_t code, int *busy)
{
	struct pylive lv;
	if (!read_live(pg, code, &lv))
		return 0;
	uint32_t mask = KG_PY_SLOTS - 1, i = slot_of(code);
	for (;; i = (i + 1) & mask) {
		uint32_t s = atomic_load_explicit(&py.slots[i], memory_order_acquire);
		if (s == 0)
			break;
		const struct pycode *e = &py.codes[s - 1];
		if (e->code == code) {
			if (code_same(pg, e, &lv))
				return s;
			break;
		}
	}
	return code_add(pg, &lv, busy);
}

/* ---------------------------------------------------------------- walking frames */

/* One frame: 1 with its code object and lasti; 0 for a frame that is not the user's
 * (3.12+ C-stack entry shim, a frame still setting up); -1 when it is not a frame. */
WALK int read_frame(struct kg_pages *pg, uintptr_t f, uintptr_t *code, int32_t *lasti)
{
	const struct pylayout *L = &py.L;
	if (!span_ok(pg, f, py.frame_span))
		return -1;
	if (L->version == 0x30a) {
		if (!is_type(pg, f, py.frame_type))
			return -1;
		*code = rd_ptr(f + (uintptr_t)L->fr_code);
		if (!is_type(pg, *code, py.code_type) || !span_ok(pg, *code, py.code_span))
			return -1;
		int32_t li = rd_i32(f + (uintptr_t)L->fr_instr); /* code units; -1: not started */
		*lasti = li >= 0 && li < (1 << 28) ? li * 2 : -1;
		return 1;
	}
	int owner = *(const volatile signed char *)(f + (uintptr_t)L->fr_owner);
	if (owner == L->owner_cstack)
		return 0;
	if (owner < 0 || owner > 3)
		return -1;
	*code = rd_ptr(f + (uintptr_t)L->fr_code);
	if (!is_type(pg, *code, py.code_type) || !span_ok(pg, *code, py.code_span))
		return -1;
	/* 3.11/3.12 prev_instr: the code unit last executed, for a frame inside a call the
	 * CALL or (for a Python callee) its last inline cache entry; 3.13 instr_ptr: the
	 * CALL itself. Either way the byte offset is what CPython's frame.f_lasti says, and
	 * the location table gives a CALL's cache entries the CALL's own location. */
	uintptr_t ip = rd_ptr(f + (uintptr_t)L->fr_instr);
	uintptr_t start = *code + (uintptr_t)L->co_code_adaptive;
	int64_t units = rd_i64(*code + (uintptr_t)L->bytes_size); /* ob_size: code units */
	int64_t off = (int64_t)(ip - start);
	if (L->co_firsttraceable >= 0 && owner != L->owner_generator &&
	    off < 2 * (int64_t)rd_i32(*code + (uintptr_t)L->co_firsttraceable))
		return 0; /* has not reached RESUME: CPython's own walks skip it too */
	*lasti = off >= 0 && off < 2 * units && off < INT32_MAX ? (int32_t)off : -1;
	return 1;
}

/* The GIL's state for thread state ts: the lock and its last holder, which together say
 * whether ts holds it, and where it lies (a thread waiting for it sleeps on its condition
 * variable or mutex, inside it). 3.10/3.11 keep one GIL in _PyRuntime, 3.12+ one per
 * interpreter. */
static void read_gil(struct kg_pages *pg, uintptr_t ts, uintptr_t interp,
		     struct kg_pythread *th)
{
	const struct pylayout *L = &py.L;
	uintptr_t gil = 0;
	th->holds_gil = -1;
	if (L->rt_ceval_gil >= 0 && py.runtime)
		gil = py.runtime + (uintptr_t)L->rt_ceval_gil;
	else if (L->interp_ceval_gil >= 0 && interp &&
		 span_ok(pg, interp + (uintptr_t)L->interp_ceval_gil, 8))
		gil = rd_ptr(interp + (uintptr_t)L->interp_ceval_gil);
	if (!ptr_ok(gil) || !span_ok(pg, gil, (size_t)L->gil_size))
		return;
	th->gil_lo = gil;
	th->gil_hi = gil + (uintptr_t)L->gil_size;
	int locked = *(const volatile int32_t *)(gil + (uintptr_t)L->gil_locked);
	uintptr_t holder = *(const volatile uintptr_t *)(gil + (uintptr_t)L->gil_last_holder);
	th->holds_gil = locked == 1 && holder == ts;
}

/* Thread state ts's interpreter (PyThreadState.interp), 0 when it cannot be read. */
static uintptr_t interp_of(struct kg_pages *pg, uintptr_t ts)
{
	const struct pylayout *L = &py.L;
	if (!span_ok(pg, ts + (uintptr_t)L->ts_interp, 8))
		return 0;
	uintptr_t interp = rd_ptr(ts + (uintptr_t)L->ts_interp);
	return ptr_ok(interp) ? interp : 0;
}

/* Whether interpreter interp is collecting garbage. The collector runs on the thread that
 * holds the GIL, inside the interpreter's own code, where the native walk stops (and a
 * stripped interpreter has no names): this flag is what says it. */
static void read_gc(struct kg_pages *pg, uintptr_t interp, struct kg_pythread *th)
{
	const struct pylayout *L = &py.L;
	th->gc_running = -1;
	if (L->interp_gc_collecting < 0 || !interp ||
	    !span_ok(pg, interp + (uintptr_t)L->interp_gc_collecting, 4))
		return;
	th->gc_running = *(const volatile int32_t *)(interp + (uintptr_t)L->interp_gc_collecting) != 0;
}

WALK int capture(struct kg_pages *pg, struct kg_pyframe *out, int max, int *truncated,
		 struct kg_pythread *th, int *busy)
{
	int n = 0, trunc = 0;
	if (truncated)
		*truncated = 0;
	if (atomic_load_explicit(&py.state, memory_order_acquire) != 1 || !out || max <= 0)
		return 0;
	/* before Py_Initialize the thread-state key is not even created, and during
	 * finalization thread states are being freed */
	if (!py.is_initialized() || (py.is_finalizing && py.is_finalizing()))
		return 0;
	uintptr_t ts = (uintptr_t)py.get_tstate();
	if (!ts)
		return 0; /* a thread that never ran Python: autograd's, CUDA's own */
	const struct pylayout *L = &py.L;
	uintptr_t f;
	if (!ptr_ok(ts) || !span_ok(pg, ts + (uintptr_t)L->ts_frame, 8))
		goto bad;
	if (th) {
		uintptr_t interp = interp_of(pg, ts); /* the GIL's (3.12+) and the collector's */
		th->has_tstate = 1;
		read_gil(pg, ts, interp, th);
		read_gc(pg, interp, th);
	}
	f = rd_ptr(ts + (uintptr_t)L->ts_frame);
	if (f && L->cframe_current >= 0) {
		if (!ptr_ok(f) || !span_ok(pg, f + (uintptr_t)L->cframe_current, 8))
			goto bad;
		f = rd_ptr(f + (uintptr_t)L->cframe_current);
	}
	for (int walked = 0; f; walked++) {
		uintptr_t code;
		int32_t lasti = -1;
		if (walked >= KG_PY_WALK_MAX || !ptr_ok(f))
			goto bad;
		int k = read_frame(pg, f, &code, &lasti);
		if (k < 0)
			goto bad;
		if (k > 0) {
			if (n == max) {
				trunc = 1;
				break;
			}
			out[n].code = code_id(pg, code, busy);
			out[n].lasti = lasti;
			n++;
		}
		f = rd_ptr(f + (uintptr_t)L->fr_previous);
	}
	if (truncated)
		*truncated = trunc;
	return n;
bad:
	atomic_fetch_add_explicit(&py.frames_unreadable, 1, memory_order_relaxed);
	if (truncated)
		*truncated = 1;
	return n;
}

int pyframes_capture(struct kg_pyframe *out, int max, int *truncated)
{
	int busy = 0;
	return capture(NULL, out, max, truncated, NULL, &busy);
}

int pyframes_capture_signal(struct kg_pyframe *out, int max, int *truncated,
			    struct kg_pages *pages, struct kg_pythread *th)
{
	int busy = 0;
	memset(th, 0, sizeof(*th));
	th->holds_gil = th->gc_running = -1;
	int n = capture(pages, out, max, truncated, th, &busy);
	if (busy)
		atomic_fetch_add_explicit(&py.codes_busy, 1, memory_order_relaxed);
	return n;
}

void pyframes_abandon(struct kg_pages *pages)
{
	struct kg_pages *mine = pages;
	/* the entry being added is not published: ncodes did not move */
	if (atomic_compare_exchange_strong(&py.sig_holder, &mine, NULL))
		py_unlock();
}

int pyframes_threads(uint64_t *ids, int max, int *native, struct kg_pages *pg)
{
	const struct pylayout *L = &py.L;
	int n = 0;
	*native = L->ts_native_tid >= 0;
	if (atomic_load_explicit(&py.state, memory_order_acquire) != 1 || L->rt_interp_head < 0 ||
	    !py.runtime || !py.is_initialized() || (py.is_finalizing && py.is_finalizing()))
		return 0;
	int16_t id_at = *native ? L->ts_native_tid : L->ts_thread_id;
	size_t ts_span = (size_t)(id_at > L->ts_next ? id_at : L->ts_next) + 8;
	uintptr_t interp = 0;
	if (span_ok(pg, py.runtime + (uintptr_t)L->rt_interp_head, 8))
		interp = rd_ptr(py.runtime + (uintptr_t)L->rt_interp_head);
	for (int ni = 0; ptr_ok(interp) && ni < 64; ni++) {
		if (!span_ok(pg, interp + (uintptr_t)L->interp_threads_head, 8) ||
		    !span_ok(pg, interp + (uintptr_t)L->interp_next, 8))
			break;
		uintptr_t ts = rd_ptr(interp + (uintptr_t)L->interp_threads_head);
		for (int nt = 0; ptr_ok(ts) && nt < 4096 && n < max; nt++) {
			if (!span_ok(pg, ts, ts_span))
				break;
			ids[n++] = (uint64_t)rd_ptr(ts + (uintptr_t)id_at);
			ts = rd_ptr(ts + (uintptr_t)L->ts_next);
		}
		interp = rd_ptr(interp + (uintptr_t)L->interp_next);
	}
	return n;
}

/* ---------------------------------------------------------------- set-up */

static void *py_handle; /* libpython loaded RTLD_LOCAL, when dlsym(RTLD_DEFAULT) misses it */

static int find_libpython(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	const char *name = info->dlpi_name, *base = name ? strrchr(name, '/') : NULL;
	base = base ? base + 1 : name;
	if (base && strncmp(base, "libpython", 9) == 0) {
		py_handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
		return py_handle != NULL;
	}
	return 0;
}

static void *sym(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);
	if (!p && py_handle)
		p = dlsym(py_handle, name);
	return p;
}

/* A type object as the layout says it is: its own type is `type`, its name `name`.
 * This catches a build whose object header differs (Py_TRACE_REFS, free-threaded). */
static int type_ok(uintptr_t t, const char *name)
{
	if (!ptr_ok(t) || rd_ptr(t + (uintptr_t)py.L.ob_type) != py.type_type)
		return 0;
	const char *tn = (const char *)rd_ptr(t + (uintptr_t)py.L.tp_name);
	return tn && (uintptr_t)tn >= 4096 && strcmp(tn, name) == 0;
}

static uint64_t dbg_u64(uintptr_t rt, int16_t pos)
{
	uint64_t v;
	memcpy(&v, (const void *)(rt + (uintptr_t)pos), sizeof(v));
	return v;
}

/* 3.13: the layout from _PyRuntime.debug_offsets, so a patch release that moves a field
 * is still read right. Each value is checked for sense against the sizes it gives. */
static const char *layout_from_debug_offsets(uintptr_t rt, unsigned long hexversion)
{
	const struct pydbgpos *D = &dbgpos_313;
	struct pylayout *L = &py.L;
	if (!rt || memcmp((const void *)rt, "xdebugpy", 8) != 0)
		return "_PyRuntime has no debug offsets";
	if ((dbg_u64(rt, D->dbg_version) >> 16) != (hexversion >> 16))
		return "_PyRuntime's debug offsets are of another version";
	if (dbg_u64(rt, D->dbg_free_threaded))
		return "a free-threaded build is not supported";
	uint64_t ts_size = dbg_u64(rt, D->dbg_ts_size), fr_size = dbg_u64(rt, D->dbg_fr_size);
	uint64_t co_size = dbg_u64(rt, D->dbg_co_size);
	uint64_t ts_frame = dbg_u64(rt, D->dbg_ts_current_frame);
	uint64_t fr[4] = { dbg_u64(rt, D->dbg_fr_previous), dbg_u64(rt, D->dbg_fr_executable),
			   dbg_u64(rt, D->dbg_fr_instr_ptr), dbg_u64(rt, D->dbg_fr_owner) };
	uint64_t co[5] = { dbg_u64(rt, D->dbg_co_filename), dbg_u64(rt, D->dbg_co_qualname),
			   dbg_u64(rt, D->dbg_co_linetable), dbg_u64(rt, D->dbg_co_firstlineno),
			   dbg_u64(rt, D->dbg_co_code_adaptive) };
	uint64_t ob_type = dbg_u64(rt, D->dbg_ob_type), b_size = dbg_u64(rt, D->dbg_bytes_size);
	uint64_t b_sval = dbg_u64(rt, D->dbg_bytes_sval), u_state = dbg_u64(rt, D->dbg_u_state);
	uint64_t u_length = dbg_u64(rt, D->dbg_u_length), u_ascii = dbg_u64(rt, D->dbg_u_ascii_size);
	if (ts_size > 65536 || fr_size > 4096 || co_size > 4096 || ts_frame + 8 > ts_size)
		return "_PyRuntime's debug offsets make no sense";
	for (int i = 0; i < 4; i++)
		if (fr[i] + (i == 3 ? 1 : 8) > fr_size)
			return "_PyRuntime's debug offsets make no sense";
	for (int i = 0; i < 5; i++)
		if (co[i] + (i == 4 ? 0 : 8) > co_size)
			return "_PyRuntime's debug offsets make no sense";
	if (ob_type != 8 || b_size != 16 || b_sval < 24 || b_sval > 64 || u_state > 64 ||
	    u_length > 64 || u_ascii < 32 || u_ascii > 128)
		return "_PyRuntime's debug offsets make no sense";
	/* the incomplete-frame check needs _co_firsttraceable, which the debug offsets do not
	 * give: keep the table's only while the code object is laid out as the table says */
	if (co[4] != (uint64_t)L->co_code_adaptive)
		L->co_firsttraceable = -1;
	L->ts_frame = (int16_t)ts_frame;
	L->fr_previous = (int16_t)fr[0];
	L->fr_code = (int16_t)fr[1];
	L->fr_instr = (int16_t)fr[2];
	L->fr_owner = (int16_t)fr[3];
	L->co_filename = (int16_t)co[0];
	L->co_qualname = (int16_t)co[1];
	L->co_linetable = (int16_t)co[2];
	L->co_firstlineno = (int16_t)co[3];
	L->co_code_adaptive = (int16_t)co[4];
	L->bytes_size = (int16_t)b_size;
	L->bytes_sval = (int16_t)b_sval;
	L->u_state = (int16_t)u_state;
	L->u_length = (int16_t)u_length;
	/* PyCompactUnicodeObject: PyASCIIObject, then utf8_length and utf8 */
	L->u_ascii_size = (int16_t)u_ascii;
	L->u_compact_size = (int16_t)(u_ascii + 16);
	/* the thread lists and the GIL (host samples), checked against the sizes too */
	uint64_t rt_size = dbg_u64(rt, D->dbg_rt_size), in_size = dbg_u64(rt, D->dbg_interp_size);
	uint64_t th[4] = {dbg_u64(rt, D->dbg_ts_next), dbg_u64(rt, D->dbg_ts_interp),
			  dbg_u64(rt, D->dbg_ts_thread_id), dbg_u64(rt, D->dbg_ts_native_tid)};
	uint64_t in[3] = {dbg_u64(rt, D->dbg_interp_next), dbg_u64(rt, D->dbg_interp_threads_head),
			  dbg_u64(rt, D->dbg_interp_ceval_gil)};
	uint64_t head = dbg_u64(rt, D->dbg_rt_interp_head);
	int sane = head + 8 <= rt_size && head < 32768;
	for (int i = 0; i < 4; i++)
		sane &= th[i] + 8 <= ts_size;
	for (int i = 0; i < 3; i++)
		sane &= in[i] + 8 <= in_size && in[i] < 32768;
	if (!sane) { /* the frames are still read; threads, the GIL and the GC are not told */
		L->rt_interp_head = L->interp_ceval_gil = L->ts_native_tid = -1;
		L->interp_gc_collecting = -1;
		return NULL;
	}
	/* the collector's flag: its state's place in the interpreter, the flag's in it */
	uint64_t gc = dbg_u64(rt, D->dbg_interp_gc) + dbg_u64(rt, D->dbg_gc_collecting);
	L->interp_gc_collecting = gc + 4 <= in_size && gc < 32768 ? (int16_t)gc : -1;
	L->rt_interp_head = (int16_t)head;
	L->interp_next = (int16_t)in[0];
	L->interp_threads_head = (int16_t)in[1];
	L->interp_ceval_gil = (int16_t)in[2];
	L->ts_next = (int16_t)th[0];
	L->ts_interp = (int16_t)th[1];
	L->ts_thread_id = (int16_t)th[2];
	L->ts_native_tid = (int16_t)th[3];
	return NULL;
}

/* How many bytes of a frame and of a code object the walk reads: from a signal handler
 * they are checked readable in one go. */
static void set_spans(void)
{
	const struct pylayout *L = &py.L;
	const int16_t fr[] = {L->ob_type, L->fr_code, L->fr_instr, L->fr_previous, L->fr_owner};
	const int16_t co[] = {L->ob_type, L->bytes_size, L->co_firsttraceable, L->co_qualname,
			      L->co_filename, L->co_firstlineno, L->co_linetable};
	py.frame_span = py.code_span = 0;
	for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++)
		if (fr[i] >= 0 && (size_t)fr[i] + 8 > py.frame_span)
			py.frame_span = (size_t)fr[i] + 8;
	for (size_t i = 0; i < sizeof(co) / sizeof(co[0]); i++)
		if (co[i] >= 0 && (size_t)co[i] + 8 > py.code_span)
			py.code_span = (size_t)co[i] + 8;
}

static int finish(int state, char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int finish(int state, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(py.why, sizeof(py.why), fmt, ap);
	va_end(ap);
	if (why && whylen)
		snprintf(why, whylen, "%s", py.why);
	atomic_store_explicit(&py.state, state, memory_order_release);
	return state;
}

/* A fork while another thread adds a code would leave the child's lock held forever:
 * fork waits for the add to finish instead (it never waits on anything itself). */
static void fork_prepare(void)
{
	py_lock();
}

static void fork_done(void)
{
	py_unlock();
}

int pyframes_init(char *why, size_t whylen)
{
	static int done;
	if (done) { /* once: the tables stay where the first call put them */
		if (why && whylen)
			snprintf(why, whylen, "%s", py.why);
		return atomic_load(&py.state);
	}
	done = 1;
	py.is_initialized = (int (*)(void))sym("Py_IsInitialized");
	if (!py.is_initialized) {
		dl_iterate_phdr(find_libpython, NULL);
		py.is_initialized = (int (*)(void))sym("Py_IsInitialized");
	}
	py.get_tstate = (void *(*)(void))sym("PyGILState_GetThisThreadState");
	if (!py.is_initialized || !py.get_tstate) {
		if (strncmp(program_invocation_short_name, "python", 6) == 0)
			return finish(-1, why, whylen,
				      "%s exports no CPython symbols: frames cannot be found",
				      program_invocation_short_name);
		return finish(0, why, whylen, "no Python in this process");
	}

	/* the version: Py_Version (3.11+) is data; before it, Py_GetVersion() formats a
	 * static string, harmless once at init */
	char ver[32] = "?";
	unsigned major = 0, minor = 0;
	unsigned long hex = 0;
	const unsigned long *pv = sym("Py_Version");
	if (pv) {
		static const char *const level[16] = { [0xa] = "a", [0xb] = "b", [0xc] = "rc" };
		const char *lvl;
		hex = *pv;
		major = (hex >> 24) & 0xff;
		minor = (hex >> 16) & 0xff;
		lvl = level[(hex >> 4) & 0xf];
		snprintf(ver, sizeof(ver), "%u.%u.%lu", major, minor, (hex >> 8) & 0xff);
		if (lvl) /* a pre-release: 3.13.0rc2 */
			snprintf(ver + strlen(ver), sizeof(ver) - strlen(ver), "%s%lu", lvl, hex & 0xf);
	} else {
		const char *(*getver)(void) = (const char *(*)(void))sym("Py_GetVersion");
		const char *s = getver ? getver() : NULL;
		if (s && sscanf(s, "%u.%u", &major, &minor) == 2) {
			size_t k = strcspn(s, " ");
			snprintf(ver, sizeof(ver), "%.*s", (int)(k < 24 ? k : 24), s);
		}
	}
	const struct pylayout *table = NULL;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (major == 3 && layouts[i].version == (int16_t)(major << 8 | minor))
			table = &layouts[i];
	if (!table)
		return finish(-1, why, whylen, "CPython %s is not supported (3.10 to 3.13 are)", ver);
	py.version = major << 8 | minor;
	py.L = *table;

	if (minor >= 13) {
		const char *bad = layout_from_debug_offsets((uintptr_t)sym("_PyRuntime"), hex);
		if (bad)
			return finish(-1, why, whylen, "CPython %s: %s", ver, bad);
	}
	py.is_finalizing = (int (*)(void))sym(minor >= 13 ? "Py_IsFinalizing" : "_Py_IsFinalizing");
	py.type_type = (uintptr_t)sym("PyType_Type");
	py.code_type = (uintptr_t)sym("PyCode_Type");
	py.unicode_type = (uintptr_t)sym("PyUnicode_Type");
	py.bytes_type = (uintptr_t)sym("PyBytes_Type");
	py.frame_type = (uintptr_t)sym("PyFrame_Type");
	py.runtime = (uintptr_t)sym("_PyRuntime");
	set_spans();
	if (!type_ok(py.type_type, "type") || !type_ok(py.code_type, "code") ||
	    !type_ok(py.unicode_type, "str") || !type_ok(py.bytes_type, "bytes") ||
	    (minor == 10 && !type_ok(py.frame_type, "frame")))
		return finish(-1, why, whylen,
			      "CPython %s: its objects are not laid out as expected (a debug or "
			      "free-threaded build?)", ver);

	py.codes = calloc(KG_PY_CODES, sizeof(*py.codes));
	py.slots = calloc(KG_PY_SLOTS, sizeof(*py.slots));
	py.islots = calloc(KG_PY_ISLOTS, sizeof(*py.islots));
	py.text = malloc(KG_PY_TEXT);
	if (!py.codes || !py.slots || !py.islots || !py.text) {
		free(py.codes);
		free((void *)py.slots);
		free(py.islots);
		free(py.text);
		py.codes = NULL;
		return finish(-1, why, whylen, "CPython %s: out of memory for the code table", ver);
	}
	pthread_atfork(fork_prepare, fork_done, fork_done);
	return finish(1, why, whylen, "CPython %s", ver);
}

unsigned pyframes_version(void)
{
	return atomic_load(&py.state) != 0 ? py.version : 0;
}

void pyframes_drain(void (*emit)(void *arg, const struct kg_pycode_info *info), void *arg)
{
	if (atomic_load_explicit(&py.state, memory_order_acquire) != 1 || !emit)
		return;
	py_lock();
	uint32_t from = py.drained, to = py.ncodes;
	py.drained = to;
	py_unlock();
	/* entries below ncodes are never written again: emit without the lock, so that a
	 * slow spool write never holds up a thread that meets a new code object */
	for (uint32_t i = from; i < to; i++) {
		const struct pycode *e = &py.codes[i];
		struct kg_pycode_info info = {
			.id = i + 1,
			.filename = py.text + e->file_off,
			.qualname = py.text + e->qual_off,
			.firstlineno = e->firstlineno,
			.linetable = (const uint8_t *)py.text + e->lt_off,
			.linetable_len = e->lt_len,
		};
		emit(arg, &info);
	}
}

void pyframes_counts(uint64_t *codes_dropped, uint64_t *frames_unreadable, uint64_t *codes_busy)
{
	if (codes_busy)
		*codes_busy = atomic_load_explicit(&py.codes_busy, memory_order_relaxed);
	if (codes_dropped)
		*codes_dropped = atomic_load_explicit(&py.codes_dropped, memory_order_relaxed);
	if (frames_unreadable)
		*frames_unreadable = atomic_load_explicit(&py.frames_unreadable, memory_order_relaxed);
}

/* ---------------------------------------------------------------- for the tests */

#define F(s, f) { #f, offsetof(struct s, f) }
static const struct { const char *name; size_t off; } layout_fields[] = {
	F(pylayout, version), F(pylayout, ob_type), F(pylayout, tp_name), F(pylayout, ts_frame),
	F(pylayout, cframe_current), F(pylayout, fr_code), F(pylayout, fr_instr),
	F(pylayout, fr_previous), F(pylayout, fr_owner), F(pylayout, owner_generator),
	F(pylayout, owner_cstack), F(pylayout, co_code_adaptive), F(pylayout, co_firsttraceable),
	F(pylayout, co_qualname), F(pylayout, co_filename), F(pylayout, co_firstlineno),
	F(pylayout, co_linetable), F(pylayout, bytes_size), F(pylayout, bytes_sval),
	F(pylayout, u_length), F(pylayout, u_state), F(pylayout, u_ascii_size),
	F(pylayout, u_compact_size), F(pylayout, st_kind_shift), F(pylayout, st_compact_bit),
	F(pylayout, st_ascii_bit), F(pylayout, st_ready_bit), F(pylayout, ts_interp),
	F(pylayout, rt_ceval_gil), F(pylayout, interp_ceval_gil), F(pylayout, gil_last_holder),
	F(pylayout, gil_locked), F(pylayout, gil_size), F(pylayout, rt_interp_head),
	F(pylayout, interp_next), F(pylayout, interp_threads_head), F(pylayout, ts_next),
	F(pylayout, ts_thread_id), F(pylayout, ts_native_tid), F(pylayout, interp_gc_collecting),
}, dbg_fields[] = {
	F(pydbgpos, dbg_version), F(pydbgpos, dbg_free_threaded), F(pydbgpos, dbg_rt_size),
	F(pydbgpos, dbg_interp_size), F(pydbgpos, dbg_ts_size),
	F(pydbgpos, dbg_ts_current_frame), F(pydbgpos, dbg_fr_size), F(pydbgpos, dbg_fr_previous),
	F(pydbgpos, dbg_fr_executable), F(pydbgpos, dbg_fr_instr_ptr), F(pydbgpos, dbg_fr_owner),
	F(pydbgpos, dbg_co_size), F(pydbgpos, dbg_co_filename), F(pydbgpos, dbg_co_qualname),
	F(pydbgpos, dbg_co_linetable), F(pydbgpos, dbg_co_firstlineno),
	F(pydbgpos, dbg_co_code_adaptive), F(pydbgpos, dbg_ob_type), F(pydbgpos, dbg_bytes_size),
	F(pydbgpos, dbg_bytes_sval), F(pydbgpos, dbg_u_state), F(pydbgpos, dbg_u_length),
	F(pydbgpos, dbg_u_ascii_size), F(pydbgpos, dbg_rt_interp_head), F(pydbgpos, dbg_interp_next),
	F(pydbgpos, dbg_interp_threads_head), F(pydbgpos, dbg_interp_ceval_gil),
	F(pydbgpos, dbg_ts_next), F(pydbgpos, dbg_ts_interp), F(pydbgpos, dbg_ts_thread_id),
	F(pydbgpos, dbg_ts_native_tid), F(pydbgpos, dbg_interp_gc), F(pydbgpos, dbg_gc_collecting),
};
#undef F

size_t pyframes_layout(unsigned version, char *buf, size_t len)
{
	const struct pylayout *t = NULL;
	size_t o = 0;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if ((unsigned)layouts[i].version == version)
			t = &layouts[i];
	if (!t || !buf || !len)
		return 0;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(layout_fields) / sizeof(layout_fields[0]) && o < len; i++) {
		int16_t v;
		memcpy(&v, (const char *)t + layout_fields[i].off, sizeof(v));
		o += (size_t)snprintf(buf + o, len - o, "%s %d\n", layout_fields[i].name, v);
	}
	if (version == (unsigned)dbgpos_313.version)
		for (size_t i = 0; i < sizeof(dbg_fields) / sizeof(dbg_fields[0]) && o < len; i++) {
			int16_t v;
			memcpy(&v, (const char *)&dbgpos_313 + dbg_fields[i].off, sizeof(v));
			o += (size_t)snprintf(buf + o, len - o, "%s %d\n", dbg_fields[i].name, v);
		}
	return o < len ? o : len - 1;
}
