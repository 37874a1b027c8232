/* Reader of PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip-compressed.
 *
 * Kineto traces run to gigabytes, so the file is never held whole: it is read in 1 MiB
 * chunks, inflated when it starts with the gzip magic, and fed to yajl's event parser.
 * The callbacks keep only the event being read (a few fixed fields and its name), so
 * memory grows with the events kept in the model, not with the file. Host operators
 * (cpu_op, python_function) and annotations, which outnumber everything else, are kept as
 * 24-byte intervals only, and give each API call the chain of them that enclosed it
 * (kineto_stacks.c).
 *
 * The mapping of Kineto fields onto the model is documented in docs/readers.md, section
 * "PyTorch profiler (Kineto) JSON". */
#include "model/kineto_stacks.h"
#include "model/load.h"
#include "util/idmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>
#include <zlib.h>

#define CHUNK (1u << 20)
#define MAX_DEVICES 1024        /* CUDA ordinals are small; larger ids are junk */
#define MAX_NAME (64u << 10)    /* longer names (none seen in practice) are cut */
#define MAX_META 65536          /* process/thread name records kept */
#define MAX_PROPS 1024          /* deviceProperties entries kept */
#define CTX_DEPTH 8             /* deepest level whose meaning we track */
/* A "queued" timestamp further than this before the kernel started is not believed:
 * Kineto writes 0 when CUPTI did not record it, and its unit changed across releases. */
#define MAX_QUEUE_NS 10000000000ll

/* ------------------------------------------------------------------ parse contexts */

/* What the container being read is. Deeper or uninteresting values are skipped by
 * counting their nesting only (struct kst.skip). */
enum ctx { X_TOP, X_ROOT, X_EVENTS, X_EVENT, X_ARGS, X_DIMS, X_PROPS, X_PROP, X_DIST };

/* The key whose value comes next; one enum for all containers. */
enum key {
	K_NONE,
	R_EVENTS, R_PROPS, R_DIST, R_TRACENAME,              /* top-level object */
	E_PH, E_CAT, E_NAME, E_PID, E_TID, E_TS, E_DUR, E_ARGS, /* one event */
	A_DEVICE, A_STREAM, A_CORRELATION, A_QUEUED, A_REGS, A_SMEM, A_BYTES, A_GRID,
	A_BLOCK, A_NAME, A_SYNC_KIND, A_GRAPH,              /* an event's args */
	P_ID, P_NAME, P_MEM, P_MAJOR, P_MINOR, P_THREADS_BLOCK, P_THREADS_SM, P_REGS_BLOCK,
	P_REGS_SM, P_WARP, P_SMEM_BLOCK, P_SMEM_SM, P_SMEM_OPTIN, P_SMS, /* deviceProperties */
	D_RANK,                                             /* distributedInfo */
};

/* Event categories we tell apart (Kineto's "cat"; older releases capitalised some). */
enum cat {
	C_NONE, C_OTHER, C_KERNEL, C_MEMCPY, C_MEMSET, C_RUNTIME, C_DRIVER, C_CPU_OP,
	C_PYFUNC, C_USER_ANN, C_GPU_ANN, C_SYNC,
};

/* Which optional fields the current event has (struct kev.have). */
enum {
	H_TS = 1 << 0, H_DUR = 1 << 1, H_PID = 1 << 2, H_TID = 1 << 3, H_DEVICE = 1 << 4,
	H_STREAM = 1 << 5, H_CORR = 1 << 6, H_QUEUED = 1 << 7, H_REGS = 1 << 8,
	H_SMEM = 1 << 9, H_BYTES = 1 << 10, H_GRAPH = 1 << 11, H_NAME = 1 << 12,
	H_ANAME = 1 << 13,
};

/* The event being read. */
struct kev {
	unsigned have;
	char ph;
	uint8_t cat;
	uint8_t sync_kind;        /* args.cuda_sync_kind, enum kg_sync_kind */
	int64_t ts, dur, pid, tid;
	int64_t device, stream, correlation, queued, regs, smem, bytes, graph;
	uint32_t grid[3], block[3];
	const char *bad;          /* why the event cannot be used, NULL when fine */
};

/* One deviceProperties entry; applied to the devices once the whole file is read, since
 * the key may come before or after traceEvents. */
struct kprop {
	int64_t id;
	uint32_t name;
	int64_t mem;
	int major, minor, threads_block, threads_sm, regs_block, regs_sm, warp, smem_block,
		smem_sm, smem_optin, sms;
};

/* A process_name / thread_name metadata record, applied at the end for the same reason. */
struct kmeta {
	int64_t pid, tid;
	uint32_t name;
	int thread;               /* 1: thread_name, 0: process_name */
};

/* A cuda_sync event (CUPTI synchronization activity): gives the stream a host wait was
 * on, which the runtime call's record lacks. Matched to that call at the end. */
struct kpsync {
	int64_t start, end;
	uint32_t stream;          /* stream index, KG_NONE */
	uint32_t correlation;
	uint8_t kind;
};


#define VEC(T, name) \
	T *name;     \
	size_t n_##name, cap_##name

struct kst {
	struct kg_model *m;
	const char *path;
	yajl_handle h;
	/* where the parser is, for messages */
	uint64_t chunk_base;            /* JSON offset of the chunk being parsed */
	const unsigned char *chunk;
	uint64_t lines;                 /* newlines before the chunk */
	uint64_t line_start;            /* JSON offset just after the last of them */
	/* structure */
	uint8_t ctx[CTX_DEPTH];
	int depth;                      /* containers open and tracked */
	long skip;                      /* nesting inside a skipped value, 0 = none */
	uint8_t key;                    /* enum key */
	int dim_i;                      /* element index inside args.grid / args.block */
	uint8_t dim_key;                /* A_GRID or A_BLOCK */
	int seen_top, seen_events;
	/* the element being read */
	struct kev ev;
	char *name;
	size_t name_len, name_cap;
	char aname[512];
	size_t aname_len;
	struct kprop prop;
	/* what the model receives */
	uint32_t proc;
	int pid_known;
	int64_t pid;
	uint32_t dev_ix[MAX_DEVICES];
	VEC(struct kprop, props);
	VEC(struct kmeta, metas);
	VEC(struct kpsync, psyncs);
	VEC(uint32_t, copies);          /* op indices of copies and memsets */
	struct kg_idmap async;              /* correlations of ...Async copy/memset calls */
	struct kstacks *stacks;         /* host intervals, for the API calls' stacks */
	int64_t rank;
	int has_rank;
	uint32_t trace_name;
	int64_t t_min, t_max;           /* span of the host events, for the process */
	/* counts for the notes */
	uint64_t n_cpu_op, n_pyfunc, n_user_ann, n_gpu_ann, n_bad, n_other_pid, n_meta_dropped,
		n_cut;
	char first_bad[160];
	/* a fatal error */
	int failed;                     /* 0, or a negative errno code */
	char msg[400];
};

/* ------------------------------------------------------------------ small helpers */

static int grow_vec(void **arr, size_t *n, size_t *cap, size_t size)
{
	if (*n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 64;
	void *p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

#define PUSH(v, name) \
	(grow_vec((void **)&(v)->name, &(v)->n_##name, &(v)->cap_##name, sizeof(*(v)->name)) < 0 \
		 ? NULL                                                                          \
		 : &(v)->name[(v)->n_##name++])

/* Correlation id → value. Id 0 means "none" and is never stored. */
static int cmap_put(struct kg_idmap *h, uint32_t key, uint32_t val)
{
	if (!key)
		return 0;
	uint32_t *slot = idmap_slot(h, key);
	if (!slot)
		return -ENOMEM;
	*slot = val;
	return 0;
}

static int cmap_get(const struct kg_idmap *h, uint32_t key, uint32_t *val)
{
	const uint32_t *v = key ? idmap_find(h, key) : NULL;
	if (v)
		*val = *v;
	return v != NULL;
}

static int has_prefix(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);
	return len >= n && memcmp(s, p, n) == 0;
}

/* The value of a JSON number text times 10^scale, as an exact integer rounded half away
 * from zero: timestamps are microseconds with nanosecond digits ("5111704707975.275"),
 * and going through a double would lose the last digits of values near 1.7e15. Returns
 * 0, or -1 when the value does not fit in int64. */
static int parse_scaled(const char *s, size_t n, int scale, int64_t *out)
{
	size_t i = 0;
	int neg = 0, exp10 = scale, digits = 0;
	uint64_t mant = 0;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (int frac = 0; i < n; i++) {
		if (s[i] == '.' && !frac) {
			frac = 1;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			break;
		digits = 1;
		if (mant <= (UINT64_MAX - 9) / 10) {
			mant = mant * 10 + (uint64_t)(s[i] - '0');
			exp10 -= frac;
		} else if (!frac && exp10 < 100000) {
			exp10++; /* beyond 19 digits: keep the magnitude, drop the digit */
		}
	}
	if (!digits)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int eneg = 0, e = 0;
		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (e < 100000)
				e = e * 10 + (s[i] - '0');
		exp10 += eneg ? -e : e;
	}
	if (i != n)
		return -1;
	for (; exp10 > 0 && mant; exp10--) {
		if (mant > UINT64_MAX / 10)
			return -1;
		mant *= 10;
	}
	if (exp10 < 0) {
		if (exp10 < -19) {
			mant = 0; /* mant < 2^64 < 10^20 / 2: rounds to 0 */
		} else {
			uint64_t p = 1;
			for (int k = 0; k < -exp10; k++)
				p *= 10;
			uint64_t q = mant / p, r = mant % p;
			mant = q + (r >= p - r);
		}
	}
	if (mant > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)mant : (int64_t)mant;
	return 0;
}

/* ------------------------------------------------------------------ positions, errors */

/* "byte N (line L, column C)" of the JSON text, off bytes into the chunk being parsed. */
static void place_at(const struct kst *s, size_t off, char *buf, size_t len)
{
	uint64_t lines = s->lines, line_start = s->line_start;
	for (size_t i = 0; s->chunk && i < off; i++) {
		if (s->chunk[i] == '\n') {
			lines++;
			line_start = s->chunk_base + i + 1;
		}
	}
	uint64_t abs = s->chunk_base + off;
	snprintf(buf, len, "byte %llu (line %llu, column %llu)", (unsigned long long)abs,
		 (unsigned long long)lines + 1, (unsigned long long)(abs - line_start) + 1);
}

/* The same for where the parser is: inside a callback, just after the current token. */
static void place(const struct kst *s, char *buf, size_t len)
{
	place_at(s, s->h && s->chunk ? yajl_get_bytes_consumed(s->h) : 0, buf, len);
}

/* Stops the parse with a message naming the file, the place and what was expected. */
__attribute__((format(printf, 2, 3))) static int fail(struct kst *s, const char *fmt, ...)
{
	char where[96], what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	place(s, where, sizeof(where));
	snprintf(s->msg, sizeof(s->msg), "'%s': %s: %s", s->path, where, what);
	s->failed = -EINVAL;
	return 0;
}

static int out_of_memory(struct kst *s)
{
	snprintf(s->msg, sizeof(s->msg), "'%s': out of memory", s->path);
	s->failed = -ENOMEM;
	return 0;
}

/* Marks the current event unusable; the first reason is kept for the note. */
static void bad_event(struct kst *s, const char *why)
{
	if (!s->ev.bad)
		s->ev.bad = why;
}

static const char *json_type(int c)
{
	switch (c) {
	case 'n': return "a number";
	case 's': return "a string";
	case 'b': return "a boolean";
	case 'z': return "null";
	case '{': return "an object";
	default: return "an array";
	}
}

/* ------------------------------------------------------------------ keys */

#define KEQ(lit) (len == sizeof(lit) - 1 && memcmp(k, lit, sizeof(lit) - 1) == 0)

static uint8_t root_key(const char *k, size_t len)
{
	if (KEQ("traceEvents"))
		return R_EVENTS;
	if (KEQ("deviceProperties"))
		return R_PROPS;
	if (KEQ("distributedInfo"))
		return R_DIST;
	if (KEQ("traceName"))
		return R_TRACENAME;
	return K_NONE;
}

static uint8_t event_key(const char *k, size_t len)
{
	switch (len) {
	case 2:
		return KEQ("ph") ? E_PH : KEQ("ts") ? E_TS : K_NONE;
	case 3:
		return KEQ("cat") ? E_CAT : KEQ("pid") ? E_PID : KEQ("tid") ? E_TID
			: KEQ("dur") ? E_DUR : K_NONE;
	case 4:
		return KEQ("name") ? E_NAME : KEQ("args") ? E_ARGS : K_NONE;
	default:
		return K_NONE;
	}
}

static uint8_t args_key(const char *k, size_t len)
{
	if (len < 4 || len > 20)
		return K_NONE; /* no key we use is shorter or longer */
	if (KEQ("correlation"))
		return A_CORRELATION;
	if (KEQ("stream"))
		return A_STREAM;
	if (KEQ("device"))
		return A_DEVICE;
	if (KEQ("queued"))
		return A_QUEUED;
	if (KEQ("grid"))
		return A_GRID;
	if (KEQ("block"))
		return A_BLOCK;
	if (KEQ("registers per thread"))
		return A_REGS;
	if (KEQ("shared memory"))
		return A_SMEM;
	if (KEQ("bytes"))
		return A_BYTES;
	if (KEQ("name"))
		return A_NAME;
	if (KEQ("cuda_sync_kind"))
		return A_SYNC_KIND;
	if (KEQ("graph id"))
		return A_GRAPH;
	return K_NONE;
}

static uint8_t prop_key(const char *k, size_t len)
{
	static const struct { const char *name; uint8_t key; } keys[] = {
		{"id", P_ID}, {"name", P_NAME}, {"totalGlobalMem", P_MEM},
		{"computeMajor", P_MAJOR}, {"computeMinor", P_MINOR},
		{"maxThreadsPerBlock", P_THREADS_BLOCK},
		{"maxThreadsPerMultiprocessor", P_THREADS_SM}, {"regsPerBlock", P_REGS_BLOCK},
		{"regsPerMultiprocessor", P_REGS_SM}, {"warpSize", P_WARP},
		{"sharedMemPerBlock", P_SMEM_BLOCK}, {"sharedMemPerMultiprocessor", P_SMEM_SM},
		{"sharedMemPerBlockOptin", P_SMEM_OPTIN}, {"numSms", P_SMS},
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].name) == len && memcmp(keys[i].name, k, len) == 0)
			return keys[i].key;
	return K_NONE;
}

static int on_key(void *ctx, const unsigned char *key, size_t len)
{
	struct kst *s = ctx;
	const char *k = (const char *)key;
	if (s->skip)
		return 1;
	switch (s->depth ? s->ctx[s->depth - 1] : X_TOP) {
	case X_ROOT: s->key = root_key(k, len); break;
	case X_EVENT: s->key = event_key(k, len); break;
	case X_ARGS: s->key = args_key(k, len); break;
	case X_PROP: s->key = prop_key(k, len); break;
	case X_DIST: s->key = KEQ("rank") ? D_RANK : K_NONE; break;
	default: s->key = K_NONE;
	}
	return 1;
}

/* ------------------------------------------------------------------ containers */

static void begin_event(struct kst *s)
{
	memset(&s->ev, 0, sizeof(s->ev));
	s->name_len = 0;
	s->aname_len = 0;
}

static int end_event(struct kst *s);
static int end_prop(struct kst *s);

/* Categories whose args are not used. */
static int skipped_cat(uint8_t cat)
{
	return cat == C_CPU_OP || cat == C_PYFUNC || cat == C_GPU_ANN || cat == C_OTHER;
}
static void count_bad(struct kst *s, const char *why);

/* The context of a container opening in parent (with the current key), or -1 to skip
 * it; 0 with s->failed set on a fatal type error. */
static int child_ctx(struct kst *s, int parent, int is_map)
{
	switch (parent) {
	case X_TOP:
		s->seen_top = 1;
		s->seen_events |= !is_map; /* a bare array of events is valid Chrome JSON */
		return is_map ? X_ROOT : X_EVENTS;
	case X_ROOT:
		if (s->key == R_EVENTS) {
			if (is_map)
				return fail(s, "\"traceEvents\" is an object, expected an array");
			s->seen_events = 1;
			return X_EVENTS;
		}
		if (s->key == R_PROPS && !is_map)
			return X_PROPS;
		return s->key == R_DIST && is_map ? X_DIST : -1;
	case X_EVENTS:
		if (!is_map)
			count_bad(s, "an event is an array, expected an object");
		return is_map ? X_EVENT : -1;
	case X_EVENT:
		/* the args of host operators (input shapes...) are the bulk of a trace: when
		 * the category is already known to need none, they are only counted through */
		if (s->key == E_ARGS && is_map && !skipped_cat(s->ev.cat))
			return X_ARGS;
		if (s->key == E_TS)
			bad_event(s, is_map ? "\"ts\" is an object" : "\"ts\" is an array");
		return -1;
	case X_ARGS:
		if ((s->key == A_GRID || s->key == A_BLOCK) && !is_map) {
			s->dim_key = s->key;
			s->dim_i = 0;
			return X_DIMS;
		}
		return -1;
	case X_PROPS:
		return is_map ? X_PROP : -1;
	default:
		return -1;
	}
}

static int on_open(struct kst *s, int is_map)
{
	if (s->skip) {
		s->skip++;
		return 1;
	}
	int c = child_ctx(s, s->depth ? s->ctx[s->depth - 1] : X_TOP, is_map);
	if (s->failed)
		return 0;
	if (c < 0 || s->depth == CTX_DEPTH) {
		s->skip = 1;
		return 1;
	}
	s->ctx[s->depth++] = (uint8_t)c;
	s->key = K_NONE;
	if (c == X_EVENT)
		begin_event(s);
	else if (c == X_PROP)
		memset(&s->prop, 0, sizeof(s->prop)), s->prop.id = -1;
	return 1;
}

static int on_close(struct kst *s)
{
	s->key = K_NONE;
	if (s->skip) {
		s->skip--;
		return 1;
	}
	if (!s->depth)
		return 1;
	switch (s->ctx[--s->depth]) {
	case X_EVENT: return end_event(s);
	case X_PROP: return end_prop(s);
	default: return 1;
	}
}

static int on_start_map(void *ctx) { return on_open(ctx, 1); }
static int on_start_array(void *ctx) { return on_open(ctx, 0); }
static int on_end(void *ctx) { return on_close(ctx); }

/* ------------------------------------------------------------------ scalars */

static uint8_t cat_code(const char *k, size_t len)
{
	if (KEQ("kernel") || KEQ("Kernel"))
		return C_KERNEL;
	if (KEQ("cuda_runtime") || KEQ("Runtime"))
		return C_RUNTIME;
	if (KEQ("cpu_op") || KEQ("Operator"))
		return C_CPU_OP;
	if (KEQ("gpu_memcpy") || KEQ("Memcpy"))
		return C_MEMCPY;
	if (KEQ("gpu_memset") || KEQ("Memset"))
		return C_MEMSET;
	if (KEQ("cuda_driver") || KEQ("Driver"))
		return C_DRIVER;
	if (KEQ("python_function"))
		return C_PYFUNC;
	if (KEQ("user_annotation"))
		return C_USER_ANN;
	if (KEQ("gpu_user_annotation"))
		return C_GPU_ANN;
	if (KEQ("cuda_sync"))
		return C_SYNC;
	return C_OTHER;
}

static uint8_t sync_kind_code(const char *k, size_t len)
{
	if (KEQ("Stream Sync"))
		return KG_SYNC_STREAM;
	if (KEQ("Event Sync"))
		return KG_SYNC_EVENT;
	if (KEQ("Stream Wait Event"))
		return KG_SYNC_STREAM_WAIT_EVENT;
	if (KEQ("Context Sync"))
		return KG_SYNC_CONTEXT;
	return KG_SYNC_UNKNOWN;
}

static int keep_name(struct kst *s, const char *k, size_t len)
{
	if (len > MAX_NAME) {
		len = MAX_NAME;
		s->n_cut++;
	}
	if (len + 1 > s->name_cap) {
		size_t cap = s->name_cap ? s->name_cap : 256;
		while (cap < len + 1)
			cap *= 2;
		char *p = realloc(s->name, cap);
		if (!p)
			return out_of_memory(s);
		s->name = p;
		s->name_cap = cap;
	}
	memcpy(s->name, k, len);
	s->name[len] = 0;
	s->name_len = len;
	s->ev.have |= H_NAME;
	return 1;
}

static int event_string(struct kst *s, const char *k, size_t len)
{
	switch (s->key) {
	case E_PH:
		s->ev.ph = len ? k[0] : 0;
		return 1;
	case E_CAT:
		s->ev.cat = cat_code(k, len);
		return 1;
	case E_NAME:
		return keep_name(s, k, len);
	case E_TS:
		bad_event(s, "\"ts\" is a string, expected a number");
		return 1;
	case E_PID: case E_TID: {
		/* Kineto labels its own rows with text pids ("Spans"); digits are accepted */
		int64_t v;
		if (parse_scaled(k, len, 0, &v) == 0) {
			s->ev.have |= s->key == E_PID ? H_PID : H_TID;
			*(s->key == E_PID ? &s->ev.pid : &s->ev.tid) = v;
		}
		return 1;
	}
	default:
		return 1;
	}
}

static int args_string(struct kst *s, const char *k, size_t len)
{
	if (s->key == A_SYNC_KIND) {
		s->ev.sync_kind = sync_kind_code(k, len);
	} else if (s->key == A_NAME) {
		s->aname_len = len < sizeof(s->aname) - 1 ? len : sizeof(s->aname) - 1;
		memcpy(s->aname, k, s->aname_len);
		s->aname[s->aname_len] = 0;
		s->ev.have |= H_ANAME;
	}
	return 1;
}

static int prop_string(struct kst *s, const char *k, size_t len)
{
	if (s->key == P_NAME && !(s->prop.name = model_string_n(s->m, k, len)))
		return out_of_memory(s);
	return 1;
}

static int root_scalar(struct kst *s, int type, const char *k, size_t len)
{
	if (s->key == R_EVENTS)
		return fail(s, "\"traceEvents\" is %s, expected an array", json_type(type));
	if (s->key == R_TRACENAME && type == 's' &&
	    !(s->trace_name = model_string_n(s->m, k, len)))
		return out_of_memory(s);
	return 1;
}

/* Strings, numbers ('n', text as written), booleans and nulls. */
static int on_scalar(struct kst *s, int type, const char *k, size_t len);

static int on_string(void *ctx, const unsigned char *v, size_t len)
{
	return on_scalar(ctx, 's', (const char *)v, len);
}

static int on_number(void *ctx, const char *v, size_t len)
{
	return on_scalar(ctx, 'n', v, len);
}

static int on_bool(void *ctx, int v)
{
	return on_scalar(ctx, 'b', v ? "true" : "false", v ? 4 : 5);
}

static int on_null(void *ctx)
{
	return on_scalar(ctx, 'z', "null", 4);
}

static void event_number(struct kst *s, const char *k, size_t len)
{
	struct kev *e = &s->ev;
	int64_t v;
	int ok = parse_scaled(k, len, s->key == E_TS || s->key == E_DUR ? 3 : 0, &v) == 0;
	switch (s->key) {
	case E_TS:
		if (ok)
			e->ts = v, e->have |= H_TS;
		else
			bad_event(s, "\"ts\" is out of range");
		break;
	case E_DUR:
		if (ok && v >= 0)
			e->dur = v, e->have |= H_DUR;
		break;
	case E_PID:
		if (ok)
			e->pid = v, e->have |= H_PID;
		break;
	case E_TID:
		if (ok)
			e->tid = v, e->have |= H_TID;
		break;
	default:
		break;
	}
}

static void args_number(struct kst *s, const char *k, size_t len)
{
	static const struct { uint8_t key; unsigned have; size_t off; } fields[] = {
		{A_DEVICE, H_DEVICE, offsetof(struct kev, device)},
		{A_STREAM, H_STREAM, offsetof(struct kev, stream)},
		{A_CORRELATION, H_CORR, offsetof(struct kev, correlation)},
		{A_QUEUED, H_QUEUED, offsetof(struct kev, queued)},
		{A_REGS, H_REGS, offsetof(struct kev, regs)},
		{A_SMEM, H_SMEM, offsetof(struct kev, smem)},
		{A_BYTES, H_BYTES, offsetof(struct kev, bytes)},
		{A_GRAPH, H_GRAPH, offsetof(struct kev, graph)},
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		int64_t v;
		if (fields[i].key != s->key)
			continue;
		if (parse_scaled(k, len, 0, &v) == 0) {
			*(int64_t *)((char *)&s->ev + fields[i].off) = v;
			s->ev.have |= fields[i].have;
		}
		return;
	}
}

static void dims_number(struct kst *s, const char *k, size_t len)
{
	int64_t v;
	if (s->dim_i < 3 && parse_scaled(k, len, 0, &v) == 0 && v >= 0 && v <= UINT32_MAX)
		(s->dim_key == A_GRID ? s->ev.grid : s->ev.block)[s->dim_i] = (uint32_t)v;
	s->dim_i++;
}

/* deviceProperties values are ints; out-of-range ones are left at 0 (unknown). */
static void prop_number(struct kst *s, const char *k, size_t len)
{
	struct kprop *p = &s->prop;
	int64_t v;
	if (parse_scaled(k, len, 0, &v) < 0 || v < 0)
		return;
	if (s->key == P_ID)
		p->id = v;
	else if (s->key == P_MEM)
		p->mem = v;
	if (v > INT32_MAX)
		return;
	int *f = NULL;
	switch (s->key) {
	case P_MAJOR: f = &p->major; break;
	case P_MINOR: f = &p->minor; break;
	case P_THREADS_BLOCK: f = &p->threads_block; break;
	case P_THREADS_SM: f = &p->threads_sm; break;
	case P_REGS_BLOCK: f = &p->regs_block; break;
	case P_REGS_SM: f = &p->regs_sm; break;
	case P_WARP: f = &p->warp; break;
	case P_SMEM_BLOCK: f = &p->smem_block; break;
	case P_SMEM_SM: f = &p->smem_sm; break;
	case P_SMEM_OPTIN: f = &p->smem_optin; break;
	case P_SMS: f = &p->sms; break;
	default: break;
	}
	if (f)
		*f = (int)v;
}

static int on_scalar(struct kst *s, int type, const char *k, size_t len)
{
	int ok = 1;
	if (s->skip)
		return 1;
	switch (s->depth ? s->ctx[s->depth - 1] : X_TOP) {
	case X_TOP:
		return fail(s, "the file holds %s, expected an object with \"traceEvents\"",
			    json_type(type));
	case X_ROOT:
		ok = root_scalar(s, type, k, len);
		break;
	case X_EVENTS:
		count_bad(s, "an event is not an object");
		break;
	case X_EVENT:
		if (type == 's')
			ok = event_string(s, k, len);
		else if (type == 'n')
			event_number(s, k, len);
		else if (s->key == E_TS)
			bad_event(s, type == 'b' ? "\"ts\" is a boolean" : "\"ts\" is null");
		break;
	case X_ARGS:
		if (type == 's')
			ok = args_string(s, k, len);
		else if (type == 'n')
			args_number(s, k, len);
		break;
	case X_DIMS:
		if (type == 'n')
			dims_number(s, k, len);
		break;
	case X_PROP:
		if (type == 's')
			ok = prop_string(s, k, len);
		else if (type == 'n')
			prop_number(s, k, len);
		break;
	case X_DIST:
		if (s->key == D_RANK && type == 'n' && parse_scaled(k, len, 0, &s->rank) == 0)
			s->has_rank = 1;
		break;
	default:
		break;
	}
	s->key = K_NONE;
	return ok;
}

/* ------------------------------------------------------------------ events → model */

static int64_t ev_end(const struct kev *e)
{
	if (!(e->have & H_DUR) || e->ts > INT64_MAX - e->dur)
		return KG_NO_TIME;
	return e->ts + e->dur;
}

/* Host events of the one process: the first pid seen is the process; events of other
 * pids (merged traces) are kept in it, and counted. */
static void host_pid(struct kst *s)
{
	if (!(s->ev.have & H_PID))
		return;
	if (!s->pid_known) {
		s->pid_known = 1;
		s->pid = s->ev.pid;
		s->m->processes[s->proc].pid = (uint32_t)s->ev.pid;
	} else if (s->ev.pid != s->pid) {
		s->n_other_pid++;
	}
}

static void host_span(struct kst *s, int64_t start, int64_t end)
{
	if (s->t_min == KG_NO_TIME || start < s->t_min)
		s->t_min = start;
	if (end != KG_NO_TIME && (s->t_max == KG_NO_TIME || end > s->t_max))
		s->t_max = end;
}

static uint32_t ev_thread(struct kst *s)
{
	return model_thread_index(s->m, s->proc, (uint64_t)(s->ev.have & H_TID ? s->ev.tid : 0));
}

/* The kg_device index of CUDA ordinal id, created on first use; KG_NONE for junk. */
static uint32_t device_index(struct kst *s, int64_t id)
{
	if (id < 0 || id >= MAX_DEVICES)
		return KG_NONE;
	if (s->dev_ix[id] != KG_NONE)
		return s->dev_ix[id];
	struct kg_device *d = model_add_device(s->m);
	if (!d)
		return KG_NONE;
	d->process = s->proc;
	d->ordinal = (int32_t)id;
	s->dev_ix[id] = s->m->n_devices - 1;
	return s->dev_ix[id];
}

/* The stream of a GPU event: args.device/args.stream, or as Kineto draws it, pid/tid. */
static uint32_t ev_stream(struct kst *s)
{
	const struct kev *e = &s->ev;
	int64_t dev = e->have & H_DEVICE ? e->device : e->have & H_PID ? e->pid : -1;
	int has_stream = (e->have & (H_STREAM | H_TID)) != 0;
	uint32_t d = device_index(s, dev);
	if (d == KG_NONE || !has_stream)
		return KG_NONE;
	uint32_t ix = model_stream_index(s->m, s->proc, d, 0,
					 e->have & H_STREAM ? e->stream : e->tid);
	if (ix == KG_NONE)
		out_of_memory(s);
	return ix;
}

static uint32_t ev_correlation(const struct kev *e)
{
	return e->have & H_CORR && e->correlation > 0 && e->correlation <= UINT32_MAX
		       ? (uint32_t)e->correlation : 0;
}

/* Fills what kernels, copies and memsets share; NULL when the event has no stream or
 * memory ran out (then s->failed says so). */
static struct kg_op *add_op(struct kst *s, uint8_t kind)
{
	uint32_t stream = ev_stream(s);
	if (stream == KG_NONE) {
		if (!s->failed)
			bad_event(s, "no valid \"device\" and \"stream\"");
		return NULL;
	}
	/* without "dur" the GPU work has no end: left out and counted, as a kgantt trace
	 * leaves out a record without timestamps ("losses" in the report says so), not
	 * listed as a 0 ns kernel */
	int64_t end = ev_end(&s->ev);
	if (end == KG_NO_TIME) {
		s->m->processes[s->proc].incomplete++;
		return NULL;
	}
	struct kg_op *o = model_add_op(s->m);
	uint32_t name = model_string_n(s->m, s->name_len ? s->name : "", s->name_len);
	if (!o || !name) {
		out_of_memory(s);
		return NULL;
	}
	o->kind = kind;
	o->stream = stream;
	o->name = name;
	o->start = s->ev.ts;
	o->end = end;
	o->correlation = ev_correlation(&s->ev);
	if (s->ev.have & H_BYTES && s->ev.bytes > 0)
		o->bytes = (uint64_t)s->ev.bytes;
	return o;
}

/* CUPTI's queued stamp as Kineto wrote it: nanoseconds in recent releases, whole
 * microseconds (us(kernel.queued)) in older ones, 0 when not recorded. Taken only when it
 * falls shortly before the kernel's start in one of these units. */
static int64_t queued_time(int64_t q, int64_t start)
{
	if (q <= 0 || start == KG_NO_TIME)
		return KG_NO_TIME;
	if (q <= start && start - q < MAX_QUEUE_NS)
		return q;
	if (q <= INT64_MAX / 1000 && q * 1000 <= start && start - q * 1000 < MAX_QUEUE_NS)
		return q * 1000;
	return KG_NO_TIME;
}

static void add_kernel(struct kst *s)
{
	const struct kev *e = &s->ev;
	struct kg_op *o = add_op(s, KG_OP_KERNEL);
	if (!o)
		return;
	memcpy(o->grid, e->grid, sizeof(o->grid));
	memcpy(o->block, e->block, sizeof(o->block));
	if (e->have & H_REGS && e->regs > 0)
		o->regs = e->regs > UINT16_MAX ? UINT16_MAX : (uint16_t)e->regs;
	/* Kineto gives one "shared memory" figure, static + dynamic together */
	if (e->have & H_SMEM && e->smem > 0)
		o->smem_dynamic = e->smem > UINT32_MAX ? UINT32_MAX : (uint32_t)e->smem;
	if (e->have & H_QUEUED)
		o->queued = queued_time(e->queued, e->ts);
	if (e->have & H_GRAPH && e->graph > 0 && e->graph <= UINT32_MAX) {
		o->graph = (uint32_t)e->graph;
		o->flags |= KG_OPF_GRAPH;
	}
}

static uint8_t mem_kind(const char *k, size_t len)
{
	static const char *const names[] = {"Unknown", "Pageable", "Pinned", "Device", "Array",
					    "Managed", "Device Static", "Managed Static"};
	for (size_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && memcmp(names[i], k, len) == 0)
			return i == 6 ? KG_MEM_DEVICE : i == 7 ? KG_MEM_MANAGED : (uint8_t)i;
	return KG_MEM_UNKNOWN;
}

/* "Memcpy HtoD (Pageable -> Device)": CUPTI's copy kind and memory kind names, which
 * Kineto writes into the event name. Codes are CUPTI's, as in the model. */
static void parse_copy_name(struct kg_op *o, const char *n)
{
	static const char *const kinds[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					    "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
	const char *sp = strchr(n, ' '), *open = strchr(n, '('), *arrow = strstr(n, " -> ");
	if (sp) {
		size_t len = strcspn(sp + 1, " (");
		for (size_t i = 1; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strlen(kinds[i]) == len && memcmp(kinds[i], sp + 1, len) == 0)
				o->copy_kind = (uint8_t)i;
	}
	if (!open)
		return;
	open++;
	const char *close = strchr(open, ')');
	if (!close)
		return;
	if (o->kind == KG_OP_MEMSET || !arrow || arrow > close) {
		o->dst_kind = mem_kind(open, (size_t)(close - open)); /* "Memset (Device)" */
		return;
	}
	o->src_kind = mem_kind(open, (size_t)(arrow - open));
	o->dst_kind = mem_kind(arrow + 4, (size_t)(close - arrow - 4));
}

static void add_copy(struct kst *s, uint8_t kind)
{
	struct kg_op *o = add_op(s, kind);
	if (!o)
		return;
	parse_copy_name(o, s->name_len ? s->name : "");
	uint32_t *ix = PUSH(s, copies);
	if (!ix) {
		out_of_memory(s);
		return;
	}
	*ix = s->m->n_ops - 1;
}

/* The wait a synchronising runtime/driver call stands for, from its name. */
static uint8_t api_sync_kind(const char *n, size_t len)
{
	if (has_prefix(n, len, "cudaDeviceSynchronize") || has_prefix(n, len, "cuCtxSynchronize"))
		return KG_SYNC_CONTEXT;
	if (has_prefix(n, len, "cudaStreamSynchronize") ||
	    has_prefix(n, len, "cuStreamSynchronize"))
		return KG_SYNC_STREAM;
	if (has_prefix(n, len, "cudaEventSynchronize") || has_prefix(n, len, "cuEventSynchronize"))
		return KG_SYNC_EVENT;
	if (has_prefix(n, len, "cudaStreamWaitEvent") || has_prefix(n, len, "cuStreamWaitEvent"))
		return KG_SYNC_STREAM_WAIT_EVENT;
	return KG_SYNC_UNKNOWN;
}

static void add_sync_for(struct kst *s, const struct kg_api *a, uint8_t kind)
{
	struct kg_sync *y = model_add_sync(s->m);
	if (!y) {
		out_of_memory(s);
		return;
	}
	y->start = a->start;
	y->end = a->end;
	y->process = s->proc;
	y->api = s->m->n_apis - 1;
	y->correlation = a->correlation;
	y->kind = kind;
}

static void add_api(struct kst *s, int driver)
{
	const char *n = s->name_len ? s->name : "";
	struct kg_api *a = model_add_api(s->m);
	uint32_t name = model_string_n(s->m, n, s->name_len);
	uint32_t thread = ev_thread(s);
	if (!a || !name || thread == KG_NONE) {
		out_of_memory(s);
		return;
	}
	host_pid(s);
	a->start = s->ev.ts;
	a->end = ev_end(&s->ev);
	if (a->end == KG_NO_TIME)
		s->m->processes[s->proc].incomplete++;
	a->name = name;
	a->thread = thread;
	a->correlation = ev_correlation(&s->ev);
	a->driver = (uint8_t)driver;
	a->process = s->proc;
	host_span(s, a->start, a->end);
	uint8_t kind = api_sync_kind(n, s->name_len);
	if (kind)
		add_sync_for(s, a, kind);
	/* cudaMemcpyAsync, cuMemsetD32Async...: their copies get KG_OPF_ASYNC at the end */
	if (strstr(n, "Async") && (strstr(n, "Memcpy") || strstr(n, "Memset")) &&
	    cmap_put(&s->async, a->correlation, 1) < 0)
		out_of_memory(s);
}

static void add_range(struct kst *s)
{
	struct kg_range *r = model_add_range(s->m);
	uint32_t name = model_string_n(s->m, s->name_len ? s->name : "", s->name_len);
	uint32_t thread = ev_thread(s);
	if (!r || !name || thread == KG_NONE) {
		out_of_memory(s);
		return;
	}
	host_pid(s);
	r->start = s->ev.ts;
	r->end = ev_end(&s->ev);
	r->name = name;
	r->thread = thread;
	r->process = s->proc;
	host_span(s, r->start, r->end);
}

/* A cuda_sync record waits to be matched to its runtime call (see struct kpsync). */
static void add_psync(struct kst *s)
{
	const struct kev *e = &s->ev;
	struct kpsync *p = PUSH(s, psyncs);
	if (!p) {
		out_of_memory(s);
		return;
	}
	p->start = e->ts;
	p->end = ev_end(e);
	p->correlation = ev_correlation(e);
	p->kind = e->sync_kind;
	/* Kineto writes stream -1 for context and device synchronisations */
	p->stream = e->have & H_STREAM && e->stream >= 0 ? ev_stream(s) : KG_NONE;
}

static void add_meta(struct kst *s)
{
	int thread = s->name_len == 11 && memcmp(s->name, "thread_name", 11) == 0;
	int process = s->name_len == 12 && memcmp(s->name, "process_name", 12) == 0;
	if ((!thread && !process) || !(s->ev.have & H_ANAME) || !(s->ev.have & H_PID))
		return;
	if (s->n_metas >= MAX_META) {
		s->n_meta_dropped++;
		return;
	}
	struct kmeta *k = PUSH(s, metas);
	if (!k || !(k->name = model_string_n(s->m, s->aname, s->aname_len))) {
		out_of_memory(s);
		return;
	}
	k->pid = s->ev.pid;
	k->tid = s->ev.have & H_TID ? s->ev.tid : 0;
	k->thread = thread;
}

static void count_bad(struct kst *s, const char *why)
{
	if (!s->n_bad++) {
		char where[96];
		place(s, where, sizeof(where));
		snprintf(s->first_bad, sizeof(s->first_bad), "first ending at %s: %s", where, why);
	}
}

/* A host operator, Python function or annotation: kept as an interval of its thread
 * (the same tid as the API calls'), for the stacks of the calls it encloses. */
static void add_host(struct kst *s, unsigned kind)
{
	const struct kev *e = &s->ev;
	uint32_t name = 0;
	if (kind == KG_FRAME_PYTHON && e->have & H_NAME)
		s->name_len = kstacks_drop_addresses(s->name, s->name_len);
	if (e->have & H_NAME &&
	    !(name = model_string_n(s->m, s->name_len ? s->name : "", s->name_len))) {
		out_of_memory(s);
		return;
	}
	if (kstacks_add(s->stacks, (uint64_t)(e->have & H_TID ? e->tid : 0), e->ts, ev_end(e),
			name, kind) < 0)
		out_of_memory(s);
}

/* An "X" (complete) event of a category we keep. */
static void complete_event(struct kst *s)
{
	int step = s->ev.have & H_NAME && has_prefix(s->name, s->name_len, "ProfilerStep#");
	switch (s->ev.cat) {
	case C_KERNEL: add_kernel(s); break;
	case C_MEMCPY: add_copy(s, KG_OP_MEMCPY); break;
	case C_MEMSET: add_copy(s, KG_OP_MEMSET); break;
	case C_RUNTIME: add_api(s, 0); break;
	case C_DRIVER: add_api(s, 1); break;
	case C_SYNC: add_psync(s); break;
	case C_USER_ANN:
		s->n_user_ann++;
		add_range(s);
		add_host(s, KG_FRAME_ANNOTATION);
		break;
	case C_CPU_OP: case C_PYFUNC:
		/* the step markers of older releases (cpu_op) are annotations too */
		if (step)
			add_range(s);
		*(s->ev.cat == C_CPU_OP ? &s->n_cpu_op : &s->n_pyfunc) += 1;
		add_host(s, step ? KG_FRAME_ANNOTATION
			    : s->ev.cat == C_CPU_OP ? KG_FRAME_OP : KG_FRAME_PYTHON);
		break;
	default: break;
	}
}

static int end_event(struct kst *s)
{
	struct kev *e = &s->ev;
	if (e->ph == 'M') {
		add_meta(s);
		return !s->failed;
	}
	if (e->ph != 'X')
		return 1; /* flows (ac2g duplicate the correlation ids), instants, counters */
	if (e->cat == C_GPU_ANN)
		s->n_gpu_ann++;
	if (e->cat == C_OTHER || e->cat == C_NONE || e->cat == C_GPU_ANN)
		return 1;
	if (!e->bad && !(e->have & H_TS))
		e->bad = "no \"ts\"";
	if (!e->bad)
		complete_event(s);
	if (e->bad)
		count_bad(s, e->bad);
	return !s->failed;
}

static int end_prop(struct kst *s)
{
	if (s->n_props >= MAX_PROPS)
		return 1;
	struct kprop *p = PUSH(s, props);
	if (!p)
		return out_of_memory(s);
	*p = s->prop;
	if (p->id < 0)
		p->id = (int64_t)s->n_props - 1; /* no "id": the position is the ordinal */
	return 1;
}

/* ------------------------------------------------------------------ after the parse */

/* Resident blocks per SM by compute capability (CUDA programming guide, "Technical
 * Specifications"): Kineto does not record it and the occupancy rules need it. */
static int max_blocks_for(int major, int minor)
{
	if (major == 7)
		return minor == 5 ? 16 : 32;
	if (major == 8)
		return minor == 0 ? 32 : minor == 9 ? 24 : 16;
	if (major == 9 || major == 10)
		return 32;
	return 0;
}

static void apply_props(struct kst *s)
{
	for (size_t i = 0; i < s->n_props; i++) {
		const struct kprop *p = &s->props[i];
		if (p->id < 0 || p->id >= MAX_DEVICES || s->dev_ix[p->id] == KG_NONE)
			continue; /* a GPU without activity in this trace */
		struct kg_device *d = &s->m->devices[s->dev_ix[p->id]];
		d->name = p->name;
		d->memory_bytes = p->mem;
		d->cc_major = p->major;
		d->cc_minor = p->minor;
		d->sm_count = p->sms;
		d->max_threads_per_block = p->threads_block;
		d->max_warps_per_sm = p->warp > 0 ? p->threads_sm / p->warp : 0;
		d->max_blocks_per_sm = max_blocks_for(p->major, p->minor);
		d->regs_per_sm = p->regs_sm;
		d->max_regs_per_block = p->regs_block;
		d->smem_per_sm = p->smem_sm;
		d->smem_per_block = p->smem_block;
		d->smem_per_block_optin = p->smem_optin;
	}
}

/* Process and thread names; the pid of the host events tells which are ours (GPU rows
 * carry process names too). */
static void apply_metas(struct kst *s)
{
	struct kg_model *m = s->m;
	for (size_t i = 0; i < s->n_metas; i++) {
		const struct kmeta *k = &s->metas[i];
		if (!s->pid_known || k->pid != s->pid)
			continue;
		if (!k->thread) {
			m->processes[s->proc].cmdline = k->name;
			continue;
		}
		for (uint32_t t = 0; t < m->n_threads; t++)
			if (m->threads[t].process == s->proc && m->threads[t].tid == (uint64_t)k->tid)
				m->threads[t].name = k->name; /* the last name given wins */
	}
	uint32_t cmd = m->processes[s->proc].cmdline;
	m->command = cmd ? cmd : s->trace_name;
}

/* Gives each host wait the stream its cuda_sync record names; a record without a
 * runtime call (API tracing off) becomes a wait of its own. */
static int apply_psyncs(struct kst *s)
{
	struct kg_idmap byc = {0};
	struct kg_model *m = s->m;
	int rc = 0;
	for (uint32_t i = 0; i < m->n_syncs && rc == 0; i++)
		if (m->syncs[i].process == s->proc)
			rc = cmap_put(&byc, m->syncs[i].correlation, i);
	for (size_t i = 0; i < s->n_psyncs && rc == 0; i++) {
		const struct kpsync *p = &s->psyncs[i];
		uint32_t y;
		struct kg_sync *sy = NULL;
		if (cmap_get(&byc, p->correlation, &y)) {
			sy = &m->syncs[y];
		} else if ((sy = model_add_sync(m)) != NULL) {
			sy->start = p->start, sy->end = p->end, sy->process = s->proc;
			sy->correlation = p->correlation;
			sy->kind = p->kind;
		} else {
			rc = -ENOMEM;
			break;
		}
		if (p->stream != KG_NONE)
			sy->stream = p->stream;
		if (!sy->kind)
			sy->kind = p->kind;
	}
	idmap_free(&byc);
	return rc;
}

static void apply_async(struct kst *s)
{
	for (size_t i = 0; i < s->n_copies; i++) {
		struct kg_op *o = &s->m->ops[s->copies[i]];
		uint32_t v;
		if (cmap_get(&s->async, o->correlation, &v))
			o->flags |= KG_OPF_ASYNC;
	}
}

/* Gives each API call the operators, Python functions and annotations enclosing it. */
static int link_stacks(struct kst *s, struct kstacks_result *r)
{
	struct kg_model *m = s->m;
	int rc = kstacks_link(s->stacks, m, s->proc, r);
	if (rc < 0)
		return rc;
	if (s->n_pyfunc)
		snprintf(m->stack_note, sizeof(m->stack_note), "PyTorch profiler: enclosing "
			 "operators and Python functions (with_stack=True)");
	else if (s->n_cpu_op)
		snprintf(m->stack_note, sizeof(m->stack_note), "PyTorch profiler: enclosing "
			 "operators only (recorded without with_stack)");
	else if (s->n_user_ann)
		snprintf(m->stack_note, sizeof(m->stack_note), "PyTorch profiler: enclosing "
			 "annotations only (recorded without operators or with_stack)");
	return 0;
}

static void add_notes(struct kst *s, const struct kstacks_result *r)
{
	struct kg_model *m = s->m;
	uint64_t unusable = kstacks_unusable(s->stacks);
	if (s->n_cpu_op || s->n_pyfunc || s->n_user_ann)
		model_note(m, "linked %llu of %llu API calls to the operators, Python functions "
			   "and annotations enclosing them (from %llu cpu_op, %llu python_function "
			   "and %llu user_annotation events); %llu calls were outside any",
			   (unsigned long long)r->linked, (unsigned long long)r->calls,
			   (unsigned long long)s->n_cpu_op, (unsigned long long)s->n_pyfunc,
			   (unsigned long long)s->n_user_ann,
			   (unsigned long long)(r->calls - r->linked));
	if (unusable || r->not_nested || r->truncated)
		model_note(m, "call stacks: %llu host events without a usable time span or name "
			   "were not used, %llu overran the event enclosing them and were cut at its end, "
			   "%llu calls' stacks were deeper than %d frames (the outermost were cut)",
			   (unsigned long long)unusable, (unsigned long long)r->not_nested,
			   (unsigned long long)r->truncated, KSTACK_MAX_FRAMES);
	if (s->n_gpu_ann)
		model_note(m, "not loaded: %llu gpu_user_annotation events (Kineto's copies of the "
			   "annotations on the GPU timeline; the host ranges are kept)",
			   (unsigned long long)s->n_gpu_ann);
	if (s->n_bad)
		model_note(m, "skipped %llu malformed events (%s)", (unsigned long long)s->n_bad,
			   s->first_bad[0] ? s->first_bad : "not objects");
	if (s->n_other_pid)
		model_note(m, "%llu host events of pids other than %lld were merged into it",
			   (unsigned long long)s->n_other_pid, (long long)s->pid);
	if (s->n_cut)
		model_note(m, "%llu names longer than %u bytes were cut", (unsigned long long)s->n_cut,
			   MAX_NAME);
	if (s->n_meta_dropped)
		model_note(m, "%llu process/thread name records beyond %d were ignored",
			   (unsigned long long)s->n_meta_dropped, MAX_META);
}

static int finish_read(struct kst *s)
{
	struct kg_process *p = &s->m->processes[s->proc];
	char buf[32];
	struct kstacks_result r;
	apply_props(s);
	apply_metas(s);
	apply_async(s);
	if (apply_psyncs(s) < 0)
		return -ENOMEM;
	if (s->has_rank) {
		snprintf(buf, sizeof(buf), "%lld", (long long)s->rank);
		if (!(p->rank = model_string(s->m, buf)))
			return -ENOMEM;
	}
	p->start = s->t_min;
	p->end = s->t_max;
	if (link_stacks(s, &r) < 0)
		return -ENOMEM;
	add_notes(s, &r);
	return 0;
}

/* ------------------------------------------------------------------ input: file, gzip */

struct src {
	int fd;
	int gz, z_live, z_done;     /* gzip; inflate initialised; a member ended */
	z_stream z;
	unsigned char *in, *out;
	size_t in_len;              /* plain files: bytes in `in` not yet handed out */
	uint64_t file_pos, file_size;
	int eof;
	const struct kg_load_opts *opts;
};

/* Reads the next compressed (or plain) chunk into r->in: bytes read, 0 at the end of
 * the file, or a negative errno code. */
static long src_read(struct src *r, char *msg, size_t msglen, const char *path)
{
	ssize_t n;
	do
		n = read(r->fd, r->in, CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = errno;
		snprintf(msg, msglen, "'%s': read error at byte %llu: %s", path,
			 (unsigned long long)r->file_pos, strerror(e));
		return -e;
	}
	r->file_pos += (uint64_t)n;
	r->eof = n == 0;
	if (r->opts && r->opts->progress && r->file_size)
		r->opts->progress((double)r->file_pos / (double)r->file_size,
				  r->opts->progress_arg);
	return (long)n;
}

/* The next piece of decompressed JSON: its length, 0 at the end, <0 on error. */
static long src_inflate(struct src *r, const unsigned char **data, char *msg, size_t msglen,
			const char *path)
{
	for (;;) {
		if (!r->z.avail_in && !r->eof) {
			long n = src_read(r, msg, msglen, path);
			if (n < 0)
				return n;
			r->z.next_in = r->in;
			r->z.avail_in = (uInt)n;
		}
		if (!r->z.avail_in && r->eof) {
			if (r->z_done)
				return 0;
			snprintf(msg, msglen, "'%s': compressed byte %llu: unexpected end of file "
				 "inside the gzip stream (truncated file?)", path,
				 (unsigned long long)r->file_pos);
			return -EINVAL;
		}
		if (r->z_done) { /* another gzip member follows (concatenated .gz files) */
			inflateReset(&r->z);
			r->z_done = 0;
		}
		r->z.next_out = r->out;
		r->z.avail_out = CHUNK;
		int zr = inflate(&r->z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			r->z_done = 1;
		else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			snprintf(msg, msglen, "'%s': compressed byte %llu: corrupt gzip data (%s)",
				 path, (unsigned long long)(r->file_pos - r->z.avail_in),
				 r->z.msg ? r->z.msg : zr == Z_MEM_ERROR ? "out of memory" : "?");
			return zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
		}
		size_t got = CHUNK - r->z.avail_out;
		if (got) {
			*data = r->out;
			return (long)got;
		}
	}
}

static long src_next(struct src *r, const unsigned char **data, char *msg, size_t msglen,
		     const char *path)
{
	if (r->gz)
		return src_inflate(r, data, msg, msglen, path);
	if (r->in_len) { /* the first chunk, read to look for the gzip magic */
		long n = (long)r->in_len;
		r->in_len = 0;
		*data = r->in;
		return n;
	}
	if (r->eof)
		return 0;
	*data = r->in;
	return src_read(r, msg, msglen, path);
}

static int src_open(struct src *r, const char *path, const struct kg_load_opts *opts,
		    char *msg, size_t msglen)
{
	struct stat st;
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->opts = opts;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		int e = errno;
		snprintf(msg, msglen, "'%s': %s", path, strerror(e));
		return -e;
	}
	if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode))
		r->file_size = (uint64_t)st.st_size;
	r->in = malloc(CHUNK);
	r->out = malloc(CHUNK);
	if (!r->in || !r->out) {
		snprintf(msg, msglen, "'%s': out of memory", path);
		return -ENOMEM;
	}
	long n = src_read(r, msg, msglen, path);
	if (n < 0)
		return (int)n;
	r->in_len = (size_t)n;
	if (r->in_len == 0) {
		snprintf(msg, msglen, "'%s': empty file, expected a PyTorch profiler JSON trace",
			 path);
		return -EINVAL;
	}
	/* gzip by its magic bytes, whatever the file is called */
	r->gz = r->in_len >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
	if (r->gz) {
		if (inflateInit2(&r->z, 16 + MAX_WBITS) != Z_OK) {
			snprintf(msg, msglen, "'%s': out of memory", path);
			return -ENOMEM;
		}
		r->z_live = 1;
		r->z.next_in = r->in;
		r->z.avail_in = (uInt)r->in_len;
		r->in_len = 0;
	}
	return 0;
}

static void src_close(struct src *r)
{
	if (r->z_live)
		inflateEnd(&r->z);
	if (r->fd >= 0)
		close(r->fd);
	free(r->in);
	free(r->out);
}

/* ------------------------------------------------------------------ the parse */

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_number = on_number, /* the text: integers and doubles are parsed exactly here */
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_key,
	.yajl_end_map = on_end,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end,
};

/* Where an unfinished document stopped, for "unexpected end of input inside ...". */
static const char *open_container(const struct kst *s)
{
	for (int i = s->depth - 1; i >= 0; i--) {
		if (s->ctx[i] == X_EVENTS)
			return "\"traceEvents\"";
		if (s->ctx[i] == X_PROPS)
			return "\"deviceProperties\"";
	}
	return s->depth || s->skip ? "the top-level value" : "the document";
}

/* A yajl error: ours when a callback stopped the parse, else yajl's own words. */
static int parse_error(struct kst *s, const unsigned char *data, size_t len, int at_end)
{
	if (s->failed)
		return s->failed;
	char where[96];
	place_at(s, at_end ? 0 : yajl_get_bytes_consumed(s->h), where, sizeof(where));
	if (at_end) {
		snprintf(s->msg, sizeof(s->msg), "'%s': %s: unexpected end of input inside %s "
			 "(truncated file?)", s->path, where, open_container(s));
		return -EINVAL;
	}
	unsigned char *e = yajl_get_error(s->h, 0, data, len);
	char text[160];
	snprintf(text, sizeof(text), "%s", e ? (const char *)e : "parse error");
	text[strcspn(text, "\n")] = 0;
	if (e)
		yajl_free_error(s->h, e);
	snprintf(s->msg, sizeof(s->msg), "'%s': %s: not valid JSON: %s", s->path, where, text);
	return -EINVAL;
}

/* Moves the line count past a parsed chunk. */
static void advance(struct kst *s, const unsigned char *data, size_t len)
{
	for (const unsigned char *p = data, *end = data + len;
	     (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) {
		s->lines++;
		s->line_start = s->chunk_base + (uint64_t)(p - data) + 1;
	}
	s->chunk_base += len;
	s->chunk = NULL;
}

static int parse_all(struct kst *s, struct src *r)
{
	for (;;) {
		const unsigned char *data = NULL;
		long n = src_next(r, &data, s->msg, sizeof(s->msg), s->path);
		if (n < 0)
			return (int)n;
		if (n == 0)
			break;
		s->chunk = data;
		if (yajl_parse(s->h, data, (size_t)n) != yajl_status_ok)
			return parse_error(s, data, (size_t)n, 0);
		advance(s, data, (size_t)n);
	}
	s->chunk = NULL;
	if (yajl_complete_parse(s->h) != yajl_status_ok)
		return parse_error(s, NULL, 0, !s->failed);
	if (!s->seen_top) {
		snprintf(s->msg, sizeof(s->msg), "'%s': byte %llu: no JSON value, expected a "
			 "PyTorch profiler trace", s->path, (unsigned long long)s->chunk_base);
		return -EINVAL;
	}
	if (!s->seen_events) {
		snprintf(s->msg, sizeof(s->msg), "'%s': no \"traceEvents\" array in the top-level "
			 "object: not a PyTorch profiler (Chrome trace) JSON", s->path);
		return -EINVAL;
	}
	return 0;
}

static int kst_init(struct kst *s, struct kg_model *m, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->path = path;
	s->t_min = s->t_max = KG_NO_TIME;
	for (int i = 0; i < MAX_DEVICES; i++)
		s->dev_ix[i] = KG_NONE;
	struct kg_process *p = model_add_process(m);
	if (!p)
		return -ENOMEM;
	s->proc = m->n_processes - 1;
	s->stacks = kstacks_new();
	s->h = yajl_alloc(&callbacks, NULL, s);
	if (!s->h || !s->stacks)
		return -ENOMEM;
	return 0;
}

static void kst_free(struct kst *s)
{
	if (s->h)
		yajl_free(s->h);
	free(s->name);
	free(s->props);
	free(s->metas);
	free(s->psyncs);
	free(s->copies);
	idmap_free(&s->async);
	kstacks_free(s->stacks);
}

int read_kineto(struct kg_model *m, const char *path, const struct kg_load_opts *opts,
		char *err, size_t errlen)
{
	char msg[400] = "";
	struct src r;
	struct kst *s = calloc(1, sizeof(*s)); /* ~5 KB of device table: not on the stack */
	int rc = s ? src_open(&r, path, opts, msg, sizeof(msg)) : -ENOMEM;
	snprintf(m->source, sizeof(m->source), "kineto");
	if (rc == 0)
		rc = kst_init(s, m, path);
	if (rc == 0)
		rc = parse_all(s, &r);
	if (rc == 0)
		rc = finish_read(s);
	if (rc < 0 && err && errlen) {
		const char *text = s && s->msg[0] ? s->msg : msg;
		if (text[0])
			snprintf(err, errlen, "%s", text);
		else
			snprintf(err, errlen, "'%s': %s", path, strerror(-rc));
	}
	if (s) {
		src_close(&r);
		kst_free(s);
		free(s);
	}
	return rc;
}
