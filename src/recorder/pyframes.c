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
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/pyframes.h"

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
	  .st_ready_bit = 7 },
	{ .version = 0x30b, .ob_type = 8, .tp_name = 24, .ts_frame = 56, .cframe_current = 8,
	  .fr_code = 32, .fr_instr = 56, .fr_previous = 48, .fr_owner = 69,
	  .owner_generator = 1, .owner_cstack = -1, .co_code_adaptive = 184, .co_firsttraceable = 168,
	  .co_qualname = 128, .co_filename = 112, .co_firstlineno = 72, .co_linetable = 136,
	  .bytes_size = 16, .bytes_sval = 32, .u_length = 16, .u_state = 32, .u_ascii_size = 48,
	  .u_compact_size = 72, .st_kind_shift = 2, .st_compact_bit = 5, .st_ascii_bit = 6,
	  .st_ready_bit = 7 },
	{ .version = 0x30c, .ob_type = 8, .tp_name = 24, .ts_frame = 56, .cframe_current = 0,
	  .fr_code = 0, .fr_instr = 56, .fr_previous = 8, .fr_owner = 70,
	  .owner_generator = 1, .owner_cstack = 3, .co_code_adaptive = 192, .co_firsttraceable = 176,
	  .co_qualname = 128, .co_filename = 112, .co_firstlineno = 68, .co_linetable = 136,
	  .bytes_size = 16, .bytes_sval = 32, .u_length = 16, .u_state = 32, .u_ascii_size = 40,
	  .u_compact_size = 56, .st_kind_shift = 2, .st_compact_bit = 5, .st_ascii_bit = 6,
	  .st_ready_bit = -1 },
	{ .version = 0x30d, .ob_type = 8, .tp_name = 24, .ts_frame = 72, .cframe_current = -1,
	  .fr_code = 0, .fr_instr = 56, .fr_previous = 8, .fr_owner = 70,
	  .owner_generator = 1, .owner_cstack = 3, .co_code_adaptive = 200, .co_firsttraceable = 184,
	  .co_qualname = 128, .co_filename = 112, .co_firstlineno = 68, .co_linetable = 136,
	  .bytes_size = 16, .bytes_sval = 32, .u_length = 16, .u_state = 32, .u_ascii_size = 40,
	  .u_compact_size = 56, .st_kind_shift = 2, .st_compact_bit = 5, .st_ascii_bit = 6,
	  .st_ready_bit = -1 },
};

/* Where, inside 3.13's _Py_DebugOffsets (the first member of _PyRuntime), each offset we
 * take from it is stored. That struct's own layout changes with the minor version (3.14
 * inserts fields), so it is one more per-version table. */
struct pydbgpos {
	int16_t version;
	int16_t dbg_version, dbg_free_threaded;
	int16_t dbg_ts_size, dbg_ts_current_frame;
	int16_t dbg_fr_size, dbg_fr_previous, dbg_fr_executable, dbg_fr_instr_ptr, dbg_fr_owner;
	int16_t dbg_co_size, dbg_co_filename, dbg_co_qualname, dbg_co_linetable;
	int16_t dbg_co_firstlineno, dbg_co_code_adaptive;
	int16_t dbg_ob_type, dbg_bytes_size, dbg_bytes_sval;
	int16_t dbg_u_state, dbg_u_length, dbg_u_ascii_size;
};

static const struct pydbgpos dbgpos_313 = {
	.version = 0x30d, .dbg_version = 8, .dbg_free_threaded = 16,
	.dbg_ts_size = 152, .dbg_ts_current_frame = 184,
	.dbg_fr_size = 224, .dbg_fr_previous = 232, .dbg_fr_executable = 240,
	.dbg_fr_instr_ptr = 248, .dbg_fr_owner = 264,
	.dbg_co_size = 272, .dbg_co_filename = 280, .dbg_co_qualname = 296,
	.dbg_co_linetable = 304, .dbg_co_firstlineno = 312, .dbg_co_code_adaptive = 344,
	.dbg_ob_type = 360, .dbg_bytes_size = 520, .dbg_bytes_sval = 528,
	.dbg_u_state = 544, .dbg_u_length = 552, .dbg_u_ascii_size = 560,
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

	pthread_mutex_t lock;          /* taken to add a code, and by drain */
	struct pycode *codes;
	uint32_t ncodes, drained;      /* under lock */
	_Atomic uint32_t *slots;       /* code id, 0 = empty; written under lock, read without */
	uint32_t *islots;              /* interned strings: text offset + 1; under lock */
	char *text;
	uint32_t text_used;            /* under lock */
	_Atomic uint64_t codes_dropped, frames_unreadable;
} py = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* ---------------------------------------------------------------- reading memory */

/* A pointer we are willing to follow: user space, aligned as every Python object and
 * frame is. It does not make a wild pointer safe; it stops the walk at the obviously
 * wrong ones (NULL, small integers, tagged or misaligned values) before they are used. */
static inline int ptr_ok(uintptr_t p)
{
	return p >= 4096 && p < ((uintptr_t)1 << 56) && !(p & 7);
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

static inline int is_type(uintptr_t o, uintptr_t type)
{
	return ptr_ok(o) && rd_ptr(o + (uintptr_t)py.L.ob_type) == type;
}

/* A str object's characters: only compact strings (all that the compiler and marshal
 * make; legacy ones are str subclasses, never a code object's names). */
static int ustr_view(uintptr_t o, const uint8_t **data, int *kind, uint32_t *len)
{
	const struct pylayout *L = &py.L;
	if (!is_type(o, py.unicode_type))
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
	return 1;
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
static int ustr_equal(uintptr_t o, const char *kept, uint32_t len, uint32_t ulen)
{
	const uint8_t *data;
	int kind;
	uint32_t n;
	if (!ustr_view(o, &data, &kind, &n) || n != ulen)
		return 0;
	if (kind == 0) /* ASCII: the kept text is a prefix of the characters themselves */
		return memcmp(data, kept, len) == 0;
	char buf[KG_PY_STR_MAX];
	uint32_t m = utf8_encode(data, kind, n, buf, sizeof(buf));
	return m == len && memcmp(buf, kept, len) == 0;
}

static int bytes_view(uintptr_t o, const uint8_t **data, uint32_t *len)
{
	if (!is_type(o, py.bytes_type))
		return 0;
	int64_t n = rd_i64(o + (uintptr_t)py.L.bytes_size);
	if (n < 0 || n > (1 << 28))
		return 0;
	*data = (const uint8_t *)(o + (uintptr_t)py.L.bytes_sval);
	*len = (uint32_t)n;
	return 1;
}

/* ---------------------------------------------------------------- the code table */

static inline uint32_t slot_of(uintptr_t code)
{
	return (uint32_t)(((uint64_t)code >> 4) * 0x9e3779b97f4a7c15ull >> (64 - KG_PY_SLOT_BITS));
}

static void read_live(uintptr_t code, struct pylive *lv)
{
	const struct pylayout *L = &py.L;
	lv->code = code;
	lv->filename = rd_ptr(code + (uintptr_t)L->co_filename);
	lv->qualname = rd_ptr(code + (uintptr_t)L->co_qualname);
	lv->linetable = rd_ptr(code + (uintptr_t)L->co_linetable);
	lv->firstlineno = rd_i32(code + (uintptr_t)L->co_firstlineno);
}

/* Is entry e the code object lv describes, and not another one that was given the
 * address (and perhaps its strings' addresses) of a freed one? */
static int code_same(const struct pycode *e, const struct pylive *lv)
{
	if (e->code != lv->code || e->filename != lv->filename || e->qualname != lv->qualname ||
	    e->linetable != lv->linetable || e->firstlineno != lv->firstlineno)
		return 0;
	const uint8_t *lt;
	uint32_t ltn;
	if (!bytes_view(lv->linetable, &lt, &ltn) || ltn != e->lt_full ||
	    memcmp(lt, py.text + e->lt_off, e->lt_len) != 0)
		return 0;
	return ustr_equal(lv->qualname, py.text + e->qual_off, e->qual_len, e->qual_ulen) &&
	       ustr_equal(lv->filename, py.text + e->file_off, e->file_len, e->file_ulen);
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
static uint32_t code_add(const struct pylive *lv)
{
	uint32_t id = 0;
	pthread_mutex_lock(&py.lock);
	/* another thread may have added it since our lock-free look */
	uint32_t mask = KG_PY_SLOTS - 1, i = slot_of(lv->code);
	for (;; i = (i + 1) & mask) {
		uint32_t s = atomic_load_explicit(&py.slots[i], memory_order_relaxed);
		if (s == 0 || py.codes[s - 1].code == lv->code) {
			if (s && code_same(&py.codes[s - 1], lv)) {
				id = s;
				goto out;
			}
			break; /* i: the empty slot, or the stale entry's slot to take over */
		}
	}
	const uint8_t *fd, *qd, *lt;
	int fk, qk;
	uint32_t fn, qn, ltn;
	if (!ustr_view(lv->filename, &fd, &fk, &fn) || !ustr_view(lv->qualname, &qd, &qk, &qn) ||
	    !bytes_view(lv->linetable, &lt, &ltn))
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
	pthread_mutex_unlock(&py.lock);
	return id;
}

static uint32_t code_id(uintptr_t code)
{
	struct pylive lv;
	read_live(code, &lv);
	uint32_t mask = KG_PY_SLOTS - 1, i = slot_of(code);
	for (;; i = (i + 1) & mask) {
		uint32_t s = atomic_load_explicit(&py.slots[i], memory_order_acquire);
		if (s == 0)
			break;
		const struct pycode *e = &py.codes[s - 1];
		if (e->code == code) {
			if (code_same(e, &lv))
				return s;
			break;
		}
	}
	return code_add(&lv);
}

/* ---------------------------------------------------------------- walking frames */

/* One frame: 1 with its code object and lasti; 0 for a frame that is not the user's
 * (3.12+ C-stack entry shim, a frame still setting up); -1 when it is not a frame. */
static int read_frame(uintptr_t f, uintptr_t *code, int32_t *lasti)
{
	const struct pylayout *L = &py.L;
	if (L->version == 0x30a) {
		if (!is_type(f, py.frame_type))
			return -1;
		*code = rd_ptr(f + (uintptr_t)L->fr_code);
		if (!is_type(*code, py.code_type))
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
	if (!is_type(*code, py.code_type))
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

int pyframes_capture(struct kg_pyframe *out, int max, int *truncated)
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
	if (!ptr_ok(ts))
		goto bad;
	f = rd_ptr(ts + (uintptr_t)L->ts_frame);
	if (f && L->cframe_current >= 0) {
		if (!ptr_ok(f))
			goto bad;
		f = rd_ptr(f + (uintptr_t)L->cframe_current);
	}
	for (int walked = 0; f; walked++) {
		uintptr_t code;
		int32_t lasti = -1;
		if (walked >= KG_PY_WALK_MAX || !ptr_ok(f))
			goto bad;
		int r = read_frame(f, &code, &lasti);
		if (r < 0)
			goto bad;
		if (r > 0) {
			if (n == max) {
				trunc = 1;
				break;
			}
			out[n].code = code_id(code);
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
	return NULL;
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
	pthread_mutex_lock(&py.lock);
}

static void fork_done(void)
{
	pthread_mutex_unlock(&py.lock);
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
	pthread_mutex_lock(&py.lock);
	uint32_t from = py.drained, to = py.ncodes;
	py.drained = to;
	pthread_mutex_unlock(&py.lock);
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

void pyframes_counts(uint64_t *codes_dropped, uint64_t *frames_unreadable)
{
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
	F(pylayout, st_ascii_bit), F(pylayout, st_ready_bit),
}, dbg_fields[] = {
	F(pydbgpos, dbg_version), F(pydbgpos, dbg_free_threaded), F(pydbgpos, dbg_ts_size),
	F(pydbgpos, dbg_ts_current_frame), F(pydbgpos, dbg_fr_size), F(pydbgpos, dbg_fr_previous),
	F(pydbgpos, dbg_fr_executable), F(pydbgpos, dbg_fr_instr_ptr), F(pydbgpos, dbg_fr_owner),
	F(pydbgpos, dbg_co_size), F(pydbgpos, dbg_co_filename), F(pydbgpos, dbg_co_qualname),
	F(pydbgpos, dbg_co_linetable), F(pydbgpos, dbg_co_firstlineno),
	F(pydbgpos, dbg_co_code_adaptive), F(pydbgpos, dbg_ob_type), F(pydbgpos, dbg_bytes_size),
	F(pydbgpos, dbg_bytes_sval), F(pydbgpos, dbg_u_state), F(pydbgpos, dbg_u_length),
	F(pydbgpos, dbg_u_ascii_size),
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
