/* What the Kineto JSON layer (kineto_json.c) hands to the model layer (kineto_model.c):
 * the trace as a list of decoded items in file order, collected in a batch per piece of
 * text parsed. The JSON layer knows keys and nesting, the model layer knows what the
 * categories mean; this header is all they share.
 *
 * Items are applied to the model in file order, whether the pieces were parsed one after
 * the other or by two threads (read_kineto.c), so that strings are interned, and
 * operations numbered, in the same order either way. */
#ifndef KGANTT_KINETO_EVENT_H
#define KGANTT_KINETO_EVENT_H

#include <stddef.h>
#include <stdint.h>

#define KIN_MAX_NAME (64u << 10) /* longer names (none seen in practice) are cut */
#define KIN_MAX_ANAME 511u       /* args.name (process/thread names) is cut here */
#define KIN_MAX_CAT 63u          /* and the category of an event not read */

/* Event categories told apart (Kineto's "cat"; older releases capitalised some). */
enum kin_cat {
	KC_NONE, KC_OTHER, KC_KERNEL, KC_MEMCPY, KC_MEMSET, KC_RUNTIME, KC_DRIVER, KC_CPU_OP,
	KC_PYFUNC, KC_USER_ANN, KC_GPU_ANN, KC_SYNC,
};

/* Which optional fields an event has (struct kin_event.have). */
enum {
	KH_TS = 1 << 0, KH_DUR = 1 << 1, KH_PID = 1 << 2, KH_TID = 1 << 3, KH_DEVICE = 1 << 4,
	KH_STREAM = 1 << 5, KH_CORR = 1 << 6, KH_QUEUED = 1 << 7, KH_REGS = 1 << 8,
	KH_SMEM = 1 << 9, KH_BYTES = 1 << 10, KH_GRAPH = 1 << 11, KH_NAME = 1 << 12,
	KH_ANAME = 1 << 13, KH_COLL = 1 << 14, KH_ELEMS = 1 << 15, KH_GROUP = 1 << 16,
	KH_SEQ = 1 << 17, KH_DIMS = 1 << 18, KH_PEER = 1 << 19, KH_CALL_STACK = 1 << 20,
};
#define KH_COMM (KH_COLL | KH_ELEMS | KH_GROUP | KH_SEQ | KH_DIMS | KH_PEER)
#define KIN_MAX_COMM 255u        /* a collective's name, or its process group, is cut here */

/* One element of traceEvents that is an object, its fields decoded. Strings live in the
 * batch's text (offset, length), NUL-terminated. Times are ns. */
struct kin_event {
	unsigned have;
	char ph;
	uint8_t cat;              /* enum kin_cat */
	uint8_t sync_kind;        /* args.cuda_sync_kind, enum kg_sync_kind */
	int64_t ts, dur, pid, tid;
	int64_t device, stream, correlation, queued, regs, smem, bytes, graph;
	uint32_t grid[3], block[3];
	uint32_t name, name_len;  /* "name" */
	uint32_t aname, aname_len; /* args.name */
	/* a communication call's args (kernels, record_param_comms, nccl:* annotations) */
	uint32_t coll, coll_len;  /* "Collective name" */
	uint32_t group, group_len; /* "Process Group Name" and " [ranks]" */
	int64_t elems;            /* "In msg nelems", else the first "Input Dims" entry's */
	int64_t seq;              /* "Seq" */
	int64_t peer;             /* a send's "Dst Rank", a recv's "Src Rank": the peer's global
				   * rank */
	/* a host operator's Python stack (args "Call stack", PyTorch 1.8-1.10): frames
	 * "FILE(LINE): FUNCTION" innermost first, separated by ';' */
	uint32_t call_stack, call_stack_len;
	const char *bad;          /* why the event cannot be used, NULL when fine */
};

/* One deviceProperties entry; its name comes before it as KI_PROP_NAME items. */
struct kin_prop {
	int64_t id;               /* -1: no "id" */
	int64_t mem;
	int major, minor, threads_block, threads_sm, regs_block, regs_sm, warp, smem_block,
		smem_sm, smem_optin, sms;
};

enum kin_item_type {
	KI_EVENT,       /* an event object */
	KI_BAD,         /* an element of traceEvents that is not an object: .why */
	KI_PROP_NAME,   /* the "name" of the deviceProperties entry being read: .str */
	KI_PROP,        /* the end of a deviceProperties entry */
	KI_TRACE_NAME,  /* top-level "traceName": .str */
	KI_RANK,        /* distributedInfo.rank: .rank */
	KI_OTHER_CAT,   /* an "X" event of a category the model layer does not read: its
			 * "cat" (.str, cut at KIN_MAX_CAT bytes; empty when it has none) */
};

struct kin_item {
	uint8_t type;             /* enum kin_item_type */
	uint64_t end;             /* JSON byte offset just after the item, for notes */
	union {
		struct kin_event ev;
		struct kin_prop prop;
		const char *why;
		struct { uint32_t off, len; } str;
		int64_t rank;
	} u;
};

/* The items of one piece of JSON text, with that text for placing them (line, column). */
struct kin_batch {
	struct kin_item *items;
	size_t n_items, cap_items;
	char *text;               /* the items' strings */
	size_t n_text, cap_text;
	uint64_t n_cut;           /* names cut at KIN_MAX_NAME */
};

/* Where a piece of JSON text starts: its byte offset, the newlines before it and the
 * offset just after the last of them. */
struct kin_pos {
	uint64_t base, lines, line_start;
};

static inline const char *kin_str(const struct kin_batch *b, uint32_t off)
{
	return b->text + off;
}

void kin_batch_clear(struct kin_batch *b);
void kin_batch_free(struct kin_batch *b);
/* A new item of the given type at the end of b; NULL when out of memory. */
struct kin_item *kin_batch_push(struct kin_batch *b, uint8_t type, uint64_t end);
/* Copies len bytes plus a NUL into b's text: their offset, or -1 when out of memory. */
int64_t kin_batch_text(struct kin_batch *b, const char *s, size_t len);

/* Writes "byte N (line L, column C)" for the JSON offset off, which lies in the piece of
 * text (len bytes, starting at pos) or just after it. */
void kin_place(const struct kin_pos *pos, const unsigned char *text, size_t len, uint64_t off,
	       char *buf, size_t buflen);
/* The newlines in text and the offset just after the last one: pos moved past text. */
void kin_pos_advance(struct kin_pos *pos, const unsigned char *text, size_t len);

#endif
