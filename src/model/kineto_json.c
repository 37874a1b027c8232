/* The JSON layer of the Kineto reader (kineto_json.h): yajl callbacks, the nesting being
 * read, keys to fields, each traceEvents element decoded into one struct kin_event.
 *
 * The callbacks keep only the element being read (a few fixed fields and its name), so
 * memory grows with the items of one piece of text, not with the file. Values nobody
 * reads (the args of host operators, which are most of a trace) are skipped by counting
 * their nesting. */
#include "model/kineto_json.h"
#include "model/comm.h"
#include "model/kineto_model.h"
#include "model/model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#define CTX_DEPTH 8             /* deepest level whose meaning we track */

/* What the container being read is. Deeper or uninteresting values are skipped by
 * counting their nesting only (struct kin_json.skip). */
enum ctx { X_TOP, X_ROOT, X_EVENTS, X_EVENT, X_ARGS, X_DIMS, X_INDIMS, X_INDIM, X_PROPS, X_PROP,
	   X_DIST };

/* The key whose value comes next; one enum for all containers. */
enum key {
	K_NONE,
	R_EVENTS, R_PROPS, R_DIST, R_TRACENAME,              /* top-level object */
	E_PH, E_CAT, E_NAME, E_PID, E_TID, E_TS, E_DUR, E_ARGS, /* one event */
	A_DEVICE, A_STREAM, A_CORRELATION, A_QUEUED, A_REGS, A_SMEM, A_BYTES, A_GRID,
	A_BLOCK, A_NAME, A_SYNC_KIND, A_GRAPH,              /* an event's args */
	A_COLL, A_IN_ELEMS, A_GROUP_NAME, A_GROUP_RANKS, A_SEQ, A_INPUT_DIMS, A_PEER, /* communication */
	A_CALL_STACK,                                       /* a host operator's Python stack */
	P_ID, P_NAME, P_MEM, P_MAJOR, P_MINOR, P_THREADS_BLOCK, P_THREADS_SM, P_REGS_BLOCK,
	P_REGS_SM, P_WARP, P_SMEM_BLOCK, P_SMEM_SM, P_SMEM_OPTIN, P_SMS, /* deviceProperties */
	D_RANK,                                             /* distributedInfo */
};

struct kin_json {
	const char *path;
	yajl_handle h;
	/* the piece of text being parsed, and where it starts, for offsets and messages */
	const unsigned char *text;
	size_t len;
	struct kin_pos pos;
	struct kin_batch *out;
	/* structure */
	uint8_t ctx[CTX_DEPTH];
	int depth;                      /* containers open and tracked */
	long skip;                      /* nesting inside a skipped value, 0 = none */
	uint8_t key;                    /* enum key */
	int dim_i;                      /* element index inside args.grid / args.block */
	uint8_t dim_key;                /* A_GRID or A_BLOCK */
	int seen_top, seen_events, seen_nodes;
	uint64_t event_end;             /* offset just after the last event object closed */
	/* the element being read */
	struct kin_event ev;
	char *name;
	size_t name_len, name_cap;
	char aname[KIN_MAX_ANAME + 1];
	size_t aname_len;
	char cat[KIN_MAX_CAT + 1];      /* "cat" when the model layer does not read it */
	size_t cat_len;
	char coll[KIN_MAX_COMM + 1];    /* a communication call's "Collective name" */
	size_t coll_len;
	char group_name[KIN_MAX_COMM + 1], group_ranks[KIN_MAX_COMM + 1];
	size_t group_name_len, group_ranks_len;
	int stack_only;                 /* the args of a host operator: only its "Call stack" */
	int dims_done;                  /* the first "Input Dims" entry was read */
	int64_t dims_prod;              /* its elements so far, -1 none */
	struct kin_prop prop;
	/* a fatal error */
	int failed;                     /* 0, or a negative errno code */
	char msg[400];
};

/* ------------------------------------------------------------------ numbers */

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

/* ------------------------------------------------------------------ places, errors */

/* The JSON offset just after the current token (inside a callback). */
static uint64_t here(const struct kin_json *j)
{
	return j->pos.base + (j->text ? yajl_get_bytes_consumed(j->h) : 0);
}

static void place_at(const struct kin_json *j, uint64_t off, char *buf, size_t len)
{
	kin_place(&j->pos, j->text, j->len, off, buf, len);
}

/* Stops the parse with a message naming the file, the place and what was expected. */
__attribute__((format(printf, 2, 3))) static int fail(struct kin_json *j, const char *fmt, ...)
{
	char where[96], what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	place_at(j, here(j), where, sizeof(where));
	snprintf(j->msg, sizeof(j->msg), "'%s': %s: %s", j->path, where, what);
	j->failed = -EINVAL;
	return 0;
}

static int out_of_memory(struct kin_json *j)
{
	snprintf(j->msg, sizeof(j->msg), "'%s': out of memory", j->path);
	j->failed = -ENOMEM;
	return 0;
}

/* Marks the current event unusable; the first reason is kept for the note. */
static void bad_event(struct kin_json *j, const char *why)
{
	if (!j->ev.bad)
		j->ev.bad = why;
}

/* An element of traceEvents that is not an object: an item, so that the model layer
 * counts it in its place among the events. */
static void bad_element(struct kin_json *j, const char *why)
{
	struct kin_item *it = kin_batch_push(j->out, KI_BAD, here(j));
	if (!it)
		out_of_memory(j);
	else
		it->u.why = why;
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

/* A string of the element being read, copied into the batch: its offset; the item is
 * dropped (out of memory) when it cannot be. */
static int batch_string(struct kin_json *j, const char *s, size_t len, uint32_t *off)
{
	int64_t o = kin_batch_text(j->out, s, len);
	if (o < 0)
		return out_of_memory(j);
	*off = (uint32_t)o;
	return 1;
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

/* The key of an event's args: by length first, as they are tried for every key of every
 * kernel (a dozen each, most of them unused). */
static uint8_t args_key(const char *k, size_t len)
{
	switch (len) {
	case 3: return KEQ("Seq") || KEQ("seq") ? A_SEQ : K_NONE;
	case 4: return KEQ("grid") ? A_GRID : KEQ("name") ? A_NAME : K_NONE;
	case 5: return KEQ("block") ? A_BLOCK : KEQ("bytes") ? A_BYTES : K_NONE;
	case 6:
		return KEQ("stream") ? A_STREAM : KEQ("device") ? A_DEVICE
			: KEQ("queued") ? A_QUEUED : K_NONE;
	case 8:
		return KEQ("graph id") ? A_GRAPH : KEQ("Dst Rank") || KEQ("Src Rank") ? A_PEER
			: K_NONE;
	case 10:
		return KEQ("Input Dims") ? A_INPUT_DIMS : KEQ("Call stack") ? A_CALL_STACK : K_NONE;
	case 11: return KEQ("correlation") ? A_CORRELATION : K_NONE;
	case 13:
		return KEQ("shared memory") ? A_SMEM : KEQ("In msg nelems") ? A_IN_ELEMS : K_NONE;
	case 14: return KEQ("cuda_sync_kind") ? A_SYNC_KIND : K_NONE;
	case 15: return KEQ("Collective name") ? A_COLL : K_NONE;
	case 18: return KEQ("Process Group Name") ? A_GROUP_NAME : K_NONE;
	case 19: return KEQ("Process Group Ranks") ? A_GROUP_RANKS : K_NONE;
	case 20: return KEQ("registers per thread") ? A_REGS : K_NONE;
	default: return K_NONE;
	}
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
	struct kin_json *j = ctx;
	const char *k = (const char *)key;
	if (j->skip)
		return 1;
	switch (j->depth ? j->ctx[j->depth - 1] : X_TOP) {
	case X_ROOT:
		j->key = root_key(k, len);
		j->seen_nodes |= KEQ("nodes"); /* a PyTorch execution trace's graph */
		break;
	case X_EVENT: j->key = event_key(k, len); break;
	case X_ARGS:
		j->key = args_key(k, len);
		if (j->stack_only && j->key != A_CALL_STACK)
			j->key = K_NONE;
		break;
	case X_PROP: j->key = prop_key(k, len); break;
	case X_DIST: j->key = KEQ("rank") ? D_RANK : K_NONE; break;
	default: j->key = K_NONE;
	}
	return 1;
}

/* ------------------------------------------------------------------ containers */

static void begin_event(struct kin_json *j)
{
	memset(&j->ev, 0, sizeof(j->ev));
	j->name_len = 0;
	j->aname_len = 0;
	j->cat_len = 0;
	j->coll_len = j->group_name_len = j->group_ranks_len = 0;
	j->dims_done = 0;
	j->dims_prod = -1;
	j->stack_only = 0;
}

static int string_item(struct kin_json *j, uint8_t type, const char *k, size_t len);

/* A communication call's collective name and process group ("NAME [ranks]") into the
 * batch, when it has them. 0 when out of memory. */
static int comm_strings(struct kin_json *j, struct kin_event *e)
{
	if (j->dims_prod > 0 && !(e->have & KH_ELEMS))
		e->elems = j->dims_prod, e->have |= KH_DIMS;
	if (j->coll_len) {
		if (!batch_string(j, j->coll, j->coll_len, &e->coll))
			return 0;
		e->coll_len = (uint32_t)j->coll_len;
		e->have |= KH_COLL;
	}
	if (j->group_name_len || j->group_ranks_len) {
		char g[2 * KIN_MAX_COMM + 4];
		int n = snprintf(g, sizeof(g), "%.*s%s%.*s", (int)j->group_name_len, j->group_name,
				 j->group_ranks_len ? " " : "", (int)j->group_ranks_len, j->group_ranks);
		if (!batch_string(j, g, (size_t)n, &e->group))
			return 0;
		e->group_len = (uint32_t)n;
		e->have |= KH_GROUP;
	}
	return 1;
}

/* The event is whole: an item, when the model layer has a use for it or should count it. */
static int end_event(struct kin_json *j)
{
	struct kin_event *e = &j->ev;
	j->event_end = here(j);
	if (e->ph == 'X' && (e->cat == KC_OTHER || e->cat == KC_NONE))
		return string_item(j, KI_OTHER_CAT, j->cat, j->cat_len); /* counted, named */
	if (!kin_event_wanted(e->ph, e->cat))
		return 1;
	struct kin_item *it = kin_batch_push(j->out, KI_EVENT, j->event_end);
	if (!it)
		return out_of_memory(j);
	if (!batch_string(j, j->name_len ? j->name : "", j->name_len, &e->name) ||
	    !batch_string(j, j->aname, j->aname_len, &e->aname) || !comm_strings(j, e)) {
		j->out->n_items--;
		return 0;
	}
	e->name_len = (uint32_t)j->name_len;
	e->aname_len = (uint32_t)j->aname_len;
	it->u.ev = *e;
	return 1;
}

static int end_prop(struct kin_json *j)
{
	struct kin_item *it = kin_batch_push(j->out, KI_PROP, here(j));
	if (!it)
		return out_of_memory(j);
	it->u.prop = j->prop;
	return 1;
}

/* Events whose args are not used: Python functions, annotations on the GPU, categories
 * not read. */
static int skipped_args(const struct kin_json *j)
{
	uint8_t cat = j->ev.cat;
	return cat == KC_PYFUNC || cat == KC_GPU_ANN || cat == KC_OTHER;
}

/* Of a host operator's args only its "Call stack" (PyTorch 1.8-1.10 with with_stack=True)
 * is read, but of the communication calls. */
static int stack_only_args(const struct kin_json *j)
{
	return j->ev.cat == KC_CPU_OP &&
	       !(j->ev.have & KH_NAME && comm_call_named(j->name, j->name_len));
}

/* The context of a container opening in parent (with the current key), or -1 to skip
 * it; 0 with j->failed set on a fatal type error. */
static int child_ctx(struct kin_json *j, int parent, int is_map)
{
	switch (parent) {
	case X_TOP:
		j->seen_top = 1;
		j->seen_events |= !is_map; /* a bare array of events is valid Chrome JSON */
		return is_map ? X_ROOT : X_EVENTS;
	case X_ROOT:
		if (j->key == R_EVENTS) {
			if (is_map)
				return fail(j, "\"traceEvents\" is an object, expected an array");
			j->seen_events = 1;
			return X_EVENTS;
		}
		if (j->key == R_PROPS && !is_map)
			return X_PROPS;
		return j->key == R_DIST && is_map ? X_DIST : -1;
	case X_EVENTS:
		if (!is_map)
			bad_element(j, "an event is an array, expected an object");
		return is_map ? X_EVENT : -1;
	case X_EVENT:
		/* the args of host operators (input shapes...) are the bulk of a trace: when
		 * the category is already known to need none, they are only counted through */
		if (j->key == E_ARGS && is_map && !skipped_args(j)) {
			j->stack_only = stack_only_args(j);
			return X_ARGS;
		}
		if (j->key == E_TS)
			bad_event(j, is_map ? "\"ts\" is an object" : "\"ts\" is an array");
		return -1;
	case X_ARGS:
		if ((j->key == A_GRID || j->key == A_BLOCK) && !is_map) {
			j->dim_key = j->key;
			j->dim_i = 0;
			return X_DIMS;
		}
		return j->key == A_INPUT_DIMS && !is_map && !j->dims_done ? X_INDIMS : -1;
	case X_INDIMS:
		/* the first input's shape: a collective's tensor */
		if (is_map || j->dims_done)
			return -1;
		j->dims_done = 1;
		return X_INDIM;
	case X_PROPS:
		return is_map ? X_PROP : -1;
	default:
		return -1;
	}
}

static int on_open(struct kin_json *j, int is_map)
{
	if (j->skip) {
		j->skip++;
		return 1;
	}
	int c = child_ctx(j, j->depth ? j->ctx[j->depth - 1] : X_TOP, is_map);
	if (j->failed)
		return 0;
	if (c < 0 || j->depth == CTX_DEPTH) {
		j->skip = 1;
		return 1;
	}
	j->ctx[j->depth++] = (uint8_t)c;
	j->key = K_NONE;
	if (c == X_EVENT)
		begin_event(j);
	else if (c == X_PROP)
		memset(&j->prop, 0, sizeof(j->prop)), j->prop.id = -1;
	return 1;
}

static int on_close(struct kin_json *j)
{
	j->key = K_NONE;
	if (j->skip) {
		j->skip--;
		return 1;
	}
	if (!j->depth)
		return 1;
	switch (j->ctx[--j->depth]) {
	case X_EVENT: return end_event(j);
	case X_PROP: return end_prop(j);
	default: return 1;
	}
}

static int on_start_map(void *ctx) { return on_open(ctx, 1); }
static int on_start_array(void *ctx) { return on_open(ctx, 0); }
static int on_end(void *ctx) { return on_close(ctx); }

/* ------------------------------------------------------------------ scalars */

/* By length first: every event has one, and the flows' "ac2g" is tried against none. */
static uint8_t cat_code(const char *k, size_t len)
{
	switch (len) {
	case 6:
		return KEQ("kernel") || KEQ("Kernel") ? KC_KERNEL
			: KEQ("cpu_op") ? KC_CPU_OP
			: KEQ("Memcpy") ? KC_MEMCPY
			: KEQ("Memset") ? KC_MEMSET
			: KEQ("Driver") ? KC_DRIVER : KC_OTHER;
	case 7: return KEQ("Runtime") ? KC_RUNTIME : KC_OTHER;
	case 8: return KEQ("Operator") ? KC_CPU_OP : KC_OTHER;
	case 9: return KEQ("cuda_sync") ? KC_SYNC : KC_OTHER;
	case 10:
		return KEQ("gpu_memcpy") ? KC_MEMCPY : KEQ("gpu_memset") ? KC_MEMSET : KC_OTHER;
	case 11: return KEQ("cuda_driver") ? KC_DRIVER : KC_OTHER;
	case 12: return KEQ("cuda_runtime") ? KC_RUNTIME : KC_OTHER;
	case 15:
		return KEQ("python_function") ? KC_PYFUNC
			: KEQ("user_annotation") ? KC_USER_ANN : KC_OTHER;
	case 19: return KEQ("gpu_user_annotation") ? KC_GPU_ANN : KC_OTHER;
	default: return KC_OTHER;
	}
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

/* The event's "name", kept until the event ends (it may span pieces of text). */
static int keep_name(struct kin_json *j, const char *k, size_t len)
{
	if (len > KIN_MAX_NAME) {
		len = KIN_MAX_NAME;
		j->out->n_cut++;
	}
	if (len + 1 > j->name_cap) {
		size_t cap = j->name_cap ? j->name_cap : 256;
		while (cap < len + 1)
			cap *= 2;
		char *p = realloc(j->name, cap);
		if (!p)
			return out_of_memory(j);
		j->name = p;
		j->name_cap = cap;
	}
	memcpy(j->name, k, len);
	j->name[len] = 0;
	j->name_len = len;
	j->ev.have |= KH_NAME;
	return 1;
}

static int event_string(struct kin_json *j, const char *k, size_t len)
{
	switch (j->key) {
	case E_PH:
		j->ev.ph = len ? k[0] : 0;
		return 1;
	case E_CAT:
		j->ev.cat = cat_code(k, len);
		j->cat_len = j->ev.cat != KC_OTHER ? 0 : len < KIN_MAX_CAT ? len : KIN_MAX_CAT;
		memcpy(j->cat, k, j->cat_len);
		return 1;
	case E_NAME:
		return keep_name(j, k, len);
	case E_TS:
		bad_event(j, "\"ts\" is a string, expected a number");
		return 1;
	case E_PID: case E_TID: {
		/* Kineto labels its own rows with text pids ("Spans"); digits are accepted */
		int64_t v;
		if (parse_scaled(k, len, 0, &v) == 0) {
			j->ev.have |= j->key == E_PID ? KH_PID : KH_TID;
			*(j->key == E_PID ? &j->ev.pid : &j->ev.tid) = v;
		}
		return 1;
	}
	default:
		return 1;
	}
}

/* A short string arg kept until the event ends, cut at KIN_MAX_COMM bytes. */
static void keep_short(char *buf, size_t *buf_len, const char *k, size_t len)
{
	*buf_len = len < KIN_MAX_COMM ? len : KIN_MAX_COMM;
	memcpy(buf, k, *buf_len);
}

static int args_string(struct kin_json *j, const char *k, size_t len)
{
	if (j->key == A_COLL) {
		keep_short(j->coll, &j->coll_len, k, len);
	} else if (j->key == A_GROUP_NAME) {
		keep_short(j->group_name, &j->group_name_len, k, len);
	} else if (j->key == A_GROUP_RANKS) {
		keep_short(j->group_ranks, &j->group_ranks_len, k, len);
	} else if (j->key == A_SYNC_KIND) {
		j->ev.sync_kind = sync_kind_code(k, len);
	} else if (j->key == A_CALL_STACK && len) {
		size_t n = len < KIN_MAX_NAME ? len : KIN_MAX_NAME;
		if (!batch_string(j, k, n, &j->ev.call_stack))
			return 0;
		j->ev.call_stack_len = (uint32_t)n;
		j->ev.have |= KH_CALL_STACK;
	} else if (j->key == A_NAME) {
		j->aname_len = len < KIN_MAX_ANAME ? len : KIN_MAX_ANAME;
		memcpy(j->aname, k, j->aname_len);
		j->aname[j->aname_len] = 0;
		j->ev.have |= KH_ANAME;
	}
	return 1;
}

/* A string for the model layer to intern where it stands in the file. */
static int string_item(struct kin_json *j, uint8_t type, const char *k, size_t len)
{
	struct kin_item *it = kin_batch_push(j->out, type, here(j));
	if (!it)
		return out_of_memory(j);
	if (!batch_string(j, k, len, &it->u.str.off)) {
		j->out->n_items--;
		return 0;
	}
	it->u.str.len = (uint32_t)len;
	return 1;
}

static int root_scalar(struct kin_json *j, int type, const char *k, size_t len)
{
	if (j->key == R_EVENTS)
		return fail(j, "\"traceEvents\" is %s, expected an array", json_type(type));
	if (j->key == R_TRACENAME && type == 's')
		return string_item(j, KI_TRACE_NAME, k, len);
	return 1;
}

static void event_number(struct kin_json *j, const char *k, size_t len)
{
	struct kin_event *e = &j->ev;
	int64_t v;
	int ok = parse_scaled(k, len, j->key == E_TS || j->key == E_DUR ? 3 : 0, &v) == 0;
	switch (j->key) {
	case E_TS:
		if (ok)
			e->ts = v, e->have |= KH_TS;
		else
			bad_event(j, "\"ts\" is out of range");
		break;
	case E_DUR:
		if (ok && v >= 0)
			e->dur = v, e->have |= KH_DUR;
		break;
	case E_PID:
		if (ok)
			e->pid = v, e->have |= KH_PID;
		break;
	case E_TID:
		if (ok)
			e->tid = v, e->have |= KH_TID;
		break;
	default:
		break;
	}
}

static void args_number(struct kin_json *j, const char *k, size_t len)
{
	static const struct { uint8_t key; unsigned have; size_t off; } fields[] = {
		{A_DEVICE, KH_DEVICE, offsetof(struct kin_event, device)},
		{A_STREAM, KH_STREAM, offsetof(struct kin_event, stream)},
		{A_CORRELATION, KH_CORR, offsetof(struct kin_event, correlation)},
		{A_QUEUED, KH_QUEUED, offsetof(struct kin_event, queued)},
		{A_REGS, KH_REGS, offsetof(struct kin_event, regs)},
		{A_SMEM, KH_SMEM, offsetof(struct kin_event, smem)},
		{A_BYTES, KH_BYTES, offsetof(struct kin_event, bytes)},
		{A_GRAPH, KH_GRAPH, offsetof(struct kin_event, graph)},
		{A_IN_ELEMS, KH_ELEMS, offsetof(struct kin_event, elems)},
		{A_SEQ, KH_SEQ, offsetof(struct kin_event, seq)},
		{A_PEER, KH_PEER, offsetof(struct kin_event, peer)},
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		int64_t v;
		if (fields[i].key != j->key)
			continue;
		if (parse_scaled(k, len, 0, &v) == 0) {
			*(int64_t *)((char *)&j->ev + fields[i].off) = v;
			j->ev.have |= fields[i].have;
		}
		return;
	}
}

static void dims_number(struct kin_json *j, const char *k, size_t len)
{
	int64_t v;
	if (j->dim_i < 3 && parse_scaled(k, len, 0, &v) == 0 && v >= 0 && v <= UINT32_MAX)
		(j->dim_key == A_GRID ? j->ev.grid : j->ev.block)[j->dim_i] = (uint32_t)v;
	j->dim_i++;
}

/* The first input's shape, multiplied out; a dimension that is not a count leaves it
 * unknown. */
static void input_dim(struct kin_json *j, const char *k, size_t len)
{
	int64_t v;
	if (parse_scaled(k, len, 0, &v) < 0 || v < 0 || j->dims_prod == 0)
		return;
	int64_t p = j->dims_prod < 0 ? 1 : j->dims_prod;
	j->dims_prod = v && p > INT64_MAX / v ? 0 : p * v; /* an overflow is no size */
}

/* deviceProperties values are ints; out-of-range ones are left at 0 (unknown). */
static void prop_number(struct kin_json *j, const char *k, size_t len)
{
	struct kin_prop *p = &j->prop;
	int64_t v;
	if (parse_scaled(k, len, 0, &v) < 0 || v < 0)
		return;
	if (j->key == P_ID)
		p->id = v;
	else if (j->key == P_MEM)
		p->mem = v;
	if (v > INT32_MAX)
		return;
	int *f = NULL;
	switch (j->key) {
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

static int dist_number(struct kin_json *j, const char *k, size_t len)
{
	int64_t rank;
	if (j->key != D_RANK || parse_scaled(k, len, 0, &rank) < 0)
		return 1;
	struct kin_item *it = kin_batch_push(j->out, KI_RANK, here(j));
	if (!it)
		return out_of_memory(j);
	it->u.rank = rank;
	return 1;
}

/* Strings, numbers ('n', text as written), booleans and nulls. */
static int on_scalar(struct kin_json *j, int type, const char *k, size_t len)
{
	int ok = 1;
	if (j->skip)
		return 1;
	switch (j->depth ? j->ctx[j->depth - 1] : X_TOP) {
	case X_TOP:
		return fail(j, "the file holds %s, expected an object with \"traceEvents\"",
			    json_type(type));
	case X_ROOT:
		ok = root_scalar(j, type, k, len);
		break;
	case X_EVENTS:
		bad_element(j, "an event is not an object");
		break;
	case X_EVENT:
		if (type == 's')
			ok = event_string(j, k, len);
		else if (type == 'n')
			event_number(j, k, len);
		else if (j->key == E_TS)
			bad_event(j, type == 'b' ? "\"ts\" is a boolean" : "\"ts\" is null");
		break;
	case X_ARGS:
		if (type == 's')
			ok = args_string(j, k, len);
		else if (type == 'n')
			args_number(j, k, len);
		break;
	case X_DIMS:
		if (type == 'n')
			dims_number(j, k, len);
		break;
	case X_INDIM:
		if (type == 'n')
			input_dim(j, k, len);
		break;
	case X_PROP:
		if (type == 's' && j->key == P_NAME)
			ok = string_item(j, KI_PROP_NAME, k, len);
		else if (type == 'n')
			prop_number(j, k, len);
		break;
	case X_DIST:
		if (type == 'n')
			ok = dist_number(j, k, len);
		break;
	default:
		break;
	}
	j->key = K_NONE;
	return ok && !j->failed;
}

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
static const char *open_container(const struct kin_json *j)
{
	for (int i = j->depth - 1; i >= 0; i--) {
		if (j->ctx[i] == X_EVENTS)
			return "\"traceEvents\"";
		if (j->ctx[i] == X_PROPS)
			return "\"deviceProperties\"";
	}
	return j->depth || j->skip ? "the top-level value" : "the document";
}

/* A yajl error: ours when a callback stopped the parse, else yajl's own words. */
static int parse_error(struct kin_json *j, const unsigned char *data, size_t len, int at_end)
{
	if (j->failed)
		return j->failed;
	char where[96];
	place_at(j, at_end ? j->pos.base : here(j), where, sizeof(where));
	if (at_end) {
		snprintf(j->msg, sizeof(j->msg), "'%s': %s: unexpected end of input inside %s "
			 "(truncated file?)", j->path, where, open_container(j));
		return -EINVAL;
	}
	unsigned char *e = yajl_get_error(j->h, 0, data, len);
	char text[160];
	snprintf(text, sizeof(text), "%s", e ? (const char *)e : "parse error");
	text[strcspn(text, "\n")] = 0;
	if (e)
		yajl_free_error(j->h, e);
	snprintf(j->msg, sizeof(j->msg), "'%s': %s: not valid JSON: %s", j->path, where, text);
	return -EINVAL;
}

/* Back to the start of a document. */
static int restart(struct kin_json *j)
{
	if (j->h)
		yajl_free(j->h);
	j->h = yajl_alloc(&callbacks, NULL, j);
	j->depth = 0;
	j->skip = 0;
	j->key = K_NONE;
	j->seen_top = j->seen_events = 0;
	j->event_end = 0;
	j->failed = 0;
	j->msg[0] = 0;
	return j->h ? 0 : -ENOMEM;
}

struct kin_json *kin_json_new(const char *path)
{
	struct kin_json *j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->path = path;
	if (restart(j) < 0) {
		kin_json_free(j);
		return NULL;
	}
	return j;
}

void kin_json_free(struct kin_json *j)
{
	if (!j)
		return;
	if (j->h)
		yajl_free(j->h);
	free(j->name);
	free(j);
}

const char *kin_json_error(const struct kin_json *j)
{
	return j->msg;
}

int kin_json_feed(struct kin_json *j, const unsigned char *text, size_t len,
		  const struct kin_pos *at, struct kin_batch *out)
{
	j->text = text;
	j->len = len;
	j->pos = *at;
	j->out = out;
	int rc = 0;
	if (yajl_parse(j->h, text, len) != yajl_status_ok)
		rc = parse_error(j, text, len, 0);
	j->text = NULL;
	j->len = 0;
	return rc;
}

int kin_json_finish(struct kin_json *j, const struct kin_pos *at)
{
	j->pos = *at;
	j->text = NULL;
	if (yajl_complete_parse(j->h) != yajl_status_ok)
		return parse_error(j, NULL, 0, !j->failed);
	if (!j->seen_top) {
		snprintf(j->msg, sizeof(j->msg), "'%s': byte %llu: no JSON value, expected a "
			 "PyTorch profiler trace", j->path, (unsigned long long)at->base);
		return -EINVAL;
	}
	if (!j->seen_events && j->seen_nodes) {
		snprintf(j->msg, sizeof(j->msg), "'%s': a PyTorch execution trace (\"nodes\", no "
			 "\"traceEvents\"): it holds the operators' graph, not their times; give "
			 "kgantt the profiler trace recorded beside it (torch.profiler's "
			 "*.pt.trace.json)", j->path);
		return -EINVAL;
	}
	if (!j->seen_events) {
		snprintf(j->msg, sizeof(j->msg), "'%s': no \"traceEvents\" array in the top-level "
			 "object: not a PyTorch profiler (Chrome trace) JSON", j->path);
		return -EINVAL;
	}
	return 0;
}

int kin_json_between_events(const struct kin_json *j, uint64_t brace)
{
	return !j->failed && !j->skip && j->depth && j->ctx[j->depth - 1] == X_EVENTS &&
	       j->event_end == brace + 1;
}

int kin_json_events(struct kin_json *j, const unsigned char *text, size_t len,
		    const struct kin_pos *at, struct kin_batch *out)
{
	/* the ',' that starts the piece stands in for the '[' of an array of its own */
	static const unsigned char open[] = "[", close[] = "]";
	if (!len || text[0] != ',' || restart(j) < 0)
		return -1;
	struct kin_pos p = *at;
	if (kin_json_feed(j, open, 1, &p, out) < 0)
		return -1;
	p.base++;
	if (kin_json_feed(j, text + 1, len - 1, &p, out) < 0)
		return -1;
	p.base += len - 1;
	if (kin_json_feed(j, close, 1, &p, out) < 0 || yajl_complete_parse(j->h) != yajl_status_ok)
		return -1;
	return j->failed || j->depth || j->skip ? -1 : 0;
}
