/* Call stacks of a Kineto trace from its host events (see kineto_stacks.h).
 *
 * While the file streams, each usable cpu_op / python_function / user_annotation event is
 * appended, 24 bytes, to a vector of its thread (the JSON's tid). After the parse, per
 * thread: the events are put in (start, longest first) order and the thread's API calls
 * in start order (both are usually in that order in the file already, so this is one
 * check each), then one sweep keeps the stack of the events open at each call:
 *
 *  - an event is pushed when the sweep reaches its start, after popping the events that
 *    ended before it began; one that overruns the event below it (not nested: malformed,
 *    or clocks that disagree) is cut at that event's end, so the stack's ends never
 *    increase from bottom to top; one that overruns it by more than the tolerance and
 *    began within the tolerance of its end is taken as its next sibling instead;
 *  - at each call, events that ended before it are popped; because the ends are ordered,
 *    the events that enclose the call (end ≥ call end − 1 µs, and overlapping it) are the
 *    bottom part of the stack, found by binary search: O(log depth) per call whatever
 *    the input.
 *
 * The same sweep goes on past the last call and gives the thread's host spans: each time
 * the innermost open event changes (an event begins, or the one on top ends), the
 * stretch since the last change is the old top's.
 *
 * Each stack entry carries a node of a trie of frames (parent node, frame) → node, built
 * as events are pushed, so a call's chain is the node of its innermost enclosing event:
 * equal chains share a node, and the model stack of a node is made once (innermost
 * KSTACK_MAX_FRAMES frames) through model_add_stack. Names become frames once per name
 * (kstacks_frame), and frames that normalise alike (ProfilerStep#1, #2...) are one. */
#include "model/kineto_stacks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/idmap.h"

#define ROOT UINT32_MAX          /* the parent of outermost frames */
#define NAME_LIMIT (1u << 30)    /* name ids are packed with the kind in 32 bits */

/* One host event: 24 bytes. */
struct hev {
	int64_t start, end;
	uint32_t nk;                 /* name << 2 | kind */
};

struct kthr {
	uint64_t tid;
	struct hev *ev;
	size_t n, cap;
};

/* A trie node: the chain of frames from the outermost down to `frame`. */
struct knode {
	uint32_t parent, frame, depth;
	uint32_t stack;              /* model stack of this chain, KG_NONE until asked for */
	uint32_t python;             /* the chain holds a Python frame */
};

/* The kind bits of a Python call stack's event (kstacks_add_call_stack): a chain of
 * frames, not one; free among the kinds kstacks_add takes. */
#define CHAIN KG_FRAME_NATIVE

/* An open event during the sweep. */
struct sent {
	int64_t end;                 /* its end, cut at the end of the event below it */
	uint32_t node;
};

/* The last event pushed at a depth: the same name on the same chain is the same node,
 * without the two hash lookups (loops push the same chains over and over). */
struct pcache {
	uint32_t parent, nk, node;   /* nk 0: empty (names are never 0) */
};

struct kstacks {
	struct kthr *thr;
	size_t n_thr, cap_thr;
	struct kg_idmap tids;        /* hash of tid → thr index (verified, probed) */
	uint32_t last;               /* the thread of the previous event */
	int have_last;
	uint64_t kept, unusable;
	/* linking */
	struct kg_idmap names;       /* name << 2 | kind → frame */
	struct kg_idmap frame_ix;    /* hash of a frame → frame (verified, probed) */
	struct kg_frame *frames;
	size_t n_frames, cap_frames;
	struct kg_idmap chains;      /* a call stack's name << 2 | CHAIN → its frames in cf */
	uint32_t *cf;                /* at each chain: its count, then its frames outermost first */
	size_t n_cf, cap_cf;
	struct kg_idmap children;    /* parent << 32 | frame → node */
	struct knode *nodes;
	size_t n_nodes, cap_nodes;
	struct sent *st;
	struct pcache *pc;
	size_t cap_st;
};

static int grow(void **arr, size_t *cap, size_t need, size_t size, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : first;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	void *p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

struct kstacks *kstacks_new(void)
{
	return calloc(1, sizeof(struct kstacks));
}

void kstacks_free(struct kstacks *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n_thr; i++)
		free(k->thr[i].ev);
	free(k->thr);
	idmap_free(&k->tids);
	idmap_free(&k->names);
	idmap_free(&k->frame_ix);
	free(k->frames);
	idmap_free(&k->chains);
	free(k->cf);
	idmap_free(&k->children);
	free(k->nodes);
	free(k->st);
	free(k->pc);
	free(k);
}

uint64_t kstacks_kept(const struct kstacks *k)
{
	return k->kept;
}

uint64_t kstacks_unusable(const struct kstacks *k)
{
	return k->unusable;
}

/* ------------------------------------------------------------------ threads, events */

/* The index of thread tid; created when `create`. KG_NONE when absent (or out of
 * memory, with create). */
static uint32_t thread_of(struct kstacks *k, uint64_t tid, int create)
{
	if (k->have_last && k->thr[k->last].tid == tid)
		return k->last;
	/* >> 1: never the one key idmap cannot hold */
	for (uint64_t key = idmap_mix(tid) >> 1;; key = idmap_mix(key) >> 1) {
		uint32_t *slot = create ? idmap_slot(&k->tids, key) : idmap_find(&k->tids, key);
		if (!slot)
			return KG_NONE;
		if (*slot != KG_IDMAP_NONE) {
			if (k->thr[*slot].tid != tid)
				continue; /* another tid with this hash */
			k->last = *slot;
			k->have_last = 1;
			return *slot;
		}
		if (!create)
			return KG_NONE;
		if (k->n_thr >= UINT32_MAX - 1 ||
		    grow((void **)&k->thr, &k->cap_thr, k->n_thr + 1, sizeof(*k->thr), 8) < 0)
			return KG_NONE;
		k->thr[k->n_thr] = (struct kthr){.tid = tid};
		*slot = (uint32_t)k->n_thr++;
		k->last = *slot;
		k->have_last = 1;
		return *slot;
	}
}

/* One event of name/kind nk kept on thread tid, or counted as unusable. */
static int keep(struct kstacks *k, uint64_t tid, int64_t start, int64_t end, uint32_t name,
		unsigned kind)
{
	if (start == KG_NO_TIME || end == KG_NO_TIME || end < start || !name ||
	    name >= NAME_LIMIT) {
		k->unusable++;
		return 0;
	}
	uint32_t t = thread_of(k, tid, 1);
	if (t == KG_NONE)
		return -ENOMEM;
	struct kthr *th = &k->thr[t];
	if (grow((void **)&th->ev, &th->cap, th->n + 1, sizeof(*th->ev), 16) < 0)
		return -ENOMEM;
	th->ev[th->n++] = (struct hev){start, end, name << 2 | kind};
	k->kept++;
	return 0;
}

int kstacks_add(struct kstacks *k, uint64_t tid, int64_t start, int64_t end, uint32_t name,
		unsigned kind)
{
	if (kind < KG_FRAME_PYTHON || kind > KG_FRAME_ANNOTATION) {
		k->unusable++;
		return 0;
	}
	return keep(k, tid, start, end, name, kind);
}

int kstacks_add_call_stack(struct kstacks *k, uint64_t tid, int64_t start, int64_t end,
			   uint32_t stack)
{
	return keep(k, tid, start, end, stack, CHAIN);
}

/* ------------------------------------------------------------------ frames */

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

size_t kstacks_drop_addresses(char *s, size_t len)
{
	char *at = memmem(s, len, " at 0x", 6);
	if (!at)
		return len; /* most names */
	char *w = at, *end = s + len;
	for (const char *r = at; r < end;) {
		if (end - r > 6 && memcmp(r, " at 0x", 6) == 0 && is_hex(r[6])) {
			for (r += 6; r < end && is_hex(*r); r++)
				;
			continue;
		}
		*w++ = *r++;
	}
	*w = 0;
	return (size_t)(w - s);
}

/* "FILE(LINE): FUNCTION": the position of the "(" and the line, or 0. */
static char *file_line(char *s, int32_t *line)
{
	for (char *p = strchr(s, '('); p; p = strchr(p + 1, '(')) {
		if (p == s)
			continue;
		char *q = p + 1;
		int32_t v = 0;
		int digits = 0;
		for (; *q >= '0' && *q <= '9' && digits < 9; q++, digits++)
			v = v * 10 + (*q - '0');
		if (digits && q[0] == ')' && q[1] == ':' && q[2] == ' ') {
			*line = v;
			return p;
		}
	}
	return NULL;
}

static int intern(struct kg_model *m, const char *s, uint32_t *id)
{
	*id = model_string(m, s);
	return *id ? 0 : -ENOMEM;
}

int kstacks_frame(struct kg_model *m, const char *name, unsigned kind, struct kg_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->kind = (uint8_t)kind;
	char *s = strdup(name); /* name may be the model's own text: interning must not move it */
	if (!s)
		return -ENOMEM;
	int rc = 0;
	size_t len = strlen(s);
	if (kind == KG_FRAME_ANNOTATION) {
		size_t i = len;
		while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
			i--;
		if (i < len && i > 1 && s[i - 1] == '#')
			s[i - 1] = 0; /* "ProfilerStep#3" → "ProfilerStep" */
		rc = intern(m, s, &f->function);
	} else if (kind == KG_FRAME_PYTHON) {
		kstacks_drop_addresses(s, len);
		int32_t line = 0;
		char *open = file_line(s, &line);
		if (open) {
			*open = 0;
			f->line = line;
			f->flags = KG_FRAME_DEF_LINE;
			rc = intern(m, s, &f->file);
			if (!rc)
				rc = intern(m, strstr(open + 1, "): ") + 3, &f->function);
		} else {
			rc = intern(m, s, &f->function);
		}
	} else {
		rc = intern(m, s, &f->function);
	}
	free(s);
	return rc;
}

/* The index of frame f among the frames kept, added when new (frames that normalise
 * alike are one); KG_NONE when out of memory. */
static uint32_t frame_index(struct kstacks *k, const struct kg_frame *f)
{
	uint64_t key = idmap_mix(idmap_mix(((uint64_t)f->function << 32) ^ f->file) ^
				 ((uint64_t)(uint32_t)f->line << 8) ^ f->kind) >> 1;
	for (;; key = idmap_mix(key) >> 1) {
		uint32_t *fs = idmap_slot(&k->frame_ix, key);
		if (!fs)
			return KG_NONE;
		if (*fs == KG_IDMAP_NONE) {
			if (k->n_frames >= UINT32_MAX - 1 ||
			    grow((void **)&k->frames, &k->cap_frames, k->n_frames + 1,
				 sizeof(*k->frames), 64) < 0)
				return KG_NONE;
			k->frames[k->n_frames] = *f;
			*fs = (uint32_t)k->n_frames++;
			return *fs;
		}
		if (model_same_frame(&k->frames[*fs], f))
			return *fs;
	}
}

/* The frame of name/kind nk, made on first use; KG_NONE when out of memory. */
static uint32_t frame_of(struct kstacks *k, struct kg_model *m, uint32_t nk)
{
	uint32_t *slot = idmap_slot(&k->names, nk);
	if (!slot)
		return KG_NONE;
	if (*slot != KG_IDMAP_NONE)
		return *slot;
	struct kg_frame f;
	if (kstacks_frame(m, model_text(m, nk >> 2), nk & 3, &f) < 0)
		return KG_NONE;
	uint32_t frame = frame_index(k, &f);
	/* the names map may have grown meanwhile: look the slot up again */
	slot = frame == KG_NONE ? NULL : idmap_slot(&k->names, nk);
	if (!slot)
		return KG_NONE;
	*slot = frame;
	return frame;
}

/* A frame of the profiler's own Python code: a record_function's operator is made inside
 * its __enter__, a ProfilerStep's inside profile.step(); the user's code called them. */
static int profiler_frame(const struct kg_model *m, const struct kg_frame *f)
{
	static const char *const files[] = {"torch/autograd/profiler.py", "torch/profiler/",
					    "torch/autograd/profiler_util.py"};
	const char *file = f->file ? model_text(m, f->file) : "";
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (strstr(file, files[i]))
			return 1;
	return 0;
}

/* The frames of a call stack's text ("FILE(LINE): FUNCTION" innermost first, ';'
 * between) appended to k->cf, outermost first, after their count: the line of each is
 * the line that ran (PyTorch 1.8-1.10 write the caller's line), not the def's. 0, or
 * -ENOMEM. The profiler's own frames are left out. */
static int chain_frames(struct kstacks *k, struct kg_model *m, const char *text)
{
	size_t at = k->n_cf, n = 1;
	for (const char *p = text; (p = strchr(p, ';')); p++)
		n++;
	if (n > KSTACK_MAX_FRAMES * 4)
		n = KSTACK_MAX_FRAMES * 4; /* the outermost of a deeper stack are never shown */
	if (grow((void **)&k->cf, &k->cap_cf, at + 1 + n, sizeof(*k->cf), 256) < 0)
		return -ENOMEM;
	uint32_t count = 0;
	for (const char *p = text; *p && count < n;) {
		size_t len = strcspn(p, ";");
		char *seg = strndup(p, len);
		struct kg_frame f;
		int rc = seg ? kstacks_frame(m, seg, KG_FRAME_PYTHON, &f) : -ENOMEM;
		free(seg);
		if (rc < 0)
			return -ENOMEM;
		f.flags &= (uint8_t)~KG_FRAME_DEF_LINE;
		int wanted = len && !profiler_frame(m, &f);
		uint32_t frame = wanted ? frame_index(k, &f) : 0;
		if (frame == KG_NONE)
			return -ENOMEM;
		if (wanted)
			k->cf[at + 1 + count++] = frame;
		p += len + (p[len] == ';');
	}
	k->cf[at] = count;
	for (uint32_t i = 0; i < count / 2; i++) { /* outermost first */
		uint32_t t = k->cf[at + 1 + i];
		k->cf[at + 1 + i] = k->cf[at + count - i];
		k->cf[at + count - i] = t;
	}
	k->n_cf = at + 1 + count;
	return 0;
}

/* Where the frames of call stack nk lie in k->cf, made on first use; KG_NONE when out of
 * memory. */
static uint32_t chain_of(struct kstacks *k, struct kg_model *m, uint32_t nk)
{
	uint32_t *slot = idmap_slot(&k->chains, nk);
	if (!slot)
		return KG_NONE;
	if (*slot != KG_IDMAP_NONE)
		return *slot;
	size_t at = k->n_cf;
	if (at >= UINT32_MAX - 1 || chain_frames(k, m, model_text(m, nk >> 2)) < 0)
		return KG_NONE;
	slot = idmap_slot(&k->chains, nk);
	if (!slot)
		return KG_NONE;
	*slot = (uint32_t)at;
	return (uint32_t)at;
}

/* The trie node of `frame` called from the chain `parent`; KG_NONE when out of memory. */
static uint32_t child_of(struct kstacks *k, uint32_t parent, uint32_t frame)
{
	uint32_t *slot = idmap_slot(&k->children, (uint64_t)parent << 32 | frame);
	if (!slot)
		return KG_NONE;
	if (*slot != KG_IDMAP_NONE)
		return *slot;
	if (k->n_nodes >= UINT32_MAX - 1 ||
	    grow((void **)&k->nodes, &k->cap_nodes, k->n_nodes + 1, sizeof(*k->nodes), 64) < 0)
		return KG_NONE;
	uint32_t depth = parent == ROOT ? 1 : k->nodes[parent].depth;
	depth += parent != ROOT && depth < UINT32_MAX - 1;
	uint32_t python = (parent != ROOT && k->nodes[parent].python) ||
			  k->frames[frame].kind == KG_FRAME_PYTHON;
	k->nodes[k->n_nodes] = (struct knode){parent, frame, depth, KG_NONE, python};
	*slot = (uint32_t)k->n_nodes++;
	return *slot;
}

/* The model stack of a node: its innermost KSTACK_MAX_FRAMES frames. */
static uint32_t node_stack(struct kstacks *k, struct kg_model *m, uint32_t process,
			   uint32_t node)
{
	struct knode *nd = &k->nodes[node];
	if (nd->stack != KG_NONE)
		return nd->stack;
	struct kg_frame fr[KSTACK_MAX_FRAMES];
	uint32_t n = 0;
	for (uint32_t x = node; x != ROOT && n < KSTACK_MAX_FRAMES; x = k->nodes[x].parent)
		fr[n++] = k->frames[k->nodes[x].frame];
	nd->stack = model_add_stack(m, process, fr, n,
				    nd->depth > KSTACK_MAX_FRAMES ? KG_STACK_TRUNCATED : 0);
	return nd->stack;
}

/* ------------------------------------------------------------------ sorting */

typedef int (*cmp_fn)(const void *a, const void *b, const void *ctx);

/* Stable bottom-up merge sort; runs already in order are copied, not merged. */
static int merge_sort(void *base, size_t n, size_t size, cmp_fn cmp, const void *ctx)
{
	if (n < 2)
		return 0;
	char *tmp = malloc(n * size);
	if (!tmp)
		return -ENOMEM;
	char *src = base, *dst = tmp;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;
			if (mid == hi || cmp(src + (mid - 1) * size, src + mid * size, ctx) <= 0) {
				memcpy(dst + lo * size, src + lo * size, (hi - lo) * size);
				continue;
			}
			while (i < mid && j < hi) {
				if (cmp(src + j * size, src + i * size, ctx) < 0)
					memcpy(dst + o++ * size, src + j++ * size, size);
				else
					memcpy(dst + o++ * size, src + i++ * size, size);
			}
			memcpy(dst + o * size, src + i * size, (mid - i) * size);
			o += mid - i;
			memcpy(dst + o * size, src + j * size, (hi - j) * size);
		}
		char *t = src;
		src = dst;
		dst = t;
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(tmp);
	return 0;
}

/* Of events with equal times, annotations enclose Python functions and call stacks,
 * which enclose operators (an operator's call stack has the operator's times); beyond
 * that, the file's order. */
static int kind_rank(uint32_t nk)
{
	unsigned kind = nk & 3;
	return kind == KG_FRAME_ANNOTATION ? 0 : kind == KG_FRAME_OP ? 2 : 1;
}

static int ev_cmp(const void *pa, const void *pb, const void *ctx)
{
	const struct hev *a = pa, *b = pb;
	(void)ctx;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1; /* the longer first: it encloses */
	return kind_rank(a->nk) - kind_rank(b->nk);
}

static int call_cmp(const void *pa, const void *pb, const void *ctx)
{
	const struct kg_api *apis = ctx;
	int64_t a = apis[*(const uint32_t *)pa].start, b = apis[*(const uint32_t *)pb].start;
	return a < b ? -1 : a > b;
}

static int sort_if_needed(void *base, size_t n, size_t size, cmp_fn cmp, const void *ctx)
{
	const char *p = base;
	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * size, p + i * size, ctx) > 0)
			return merge_sort(base, n, size, cmp, ctx);
	return 0;
}

/* ------------------------------------------------------------------ the sweep */

/* a - b for a > b, without overflow. */
static uint64_t over(int64_t a, int64_t b)
{
	return (uint64_t)a - (uint64_t)b;
}

/* The node of the innermost frame of the call stack at k->cf[at] (chain_of), its frames
 * called from the chain parent; KG_NONE when out of memory. */
static uint32_t chain_node(struct kstacks *k, uint32_t parent, uint32_t at)
{
	uint32_t node = parent;
	for (uint32_t i = 0; i < k->cf[at]; i++)
		if ((node = child_of(k, node, k->cf[at + 1 + i])) == KG_NONE)
			return KG_NONE; /* (ROOT, the first parent, is KG_NONE's value) */
	return node;
}

/* Pushes e on the stack of open events (depth entries). 0, or -ENOMEM. */
static int push(struct kstacks *k, struct kg_model *m, size_t *depth, const struct hev *e,
		struct kstacks_result *r)
{
	int64_t end = e->end;
	size_t d = *depth;
	while (d) {
		int64_t pe = k->st[d - 1].end;
		if (pe < e->start || (pe == e->start && e->end > e->start)) {
			d--; /* ended before e began */
			continue;
		}
		if (end <= pe)
			break; /* nested */
		if (over(end, pe) <= KSTACK_TOLERANCE_NS) {
			end = pe; /* rounding */
			break;
		}
		if (over(pe, e->start) <= KSTACK_TOLERANCE_NS) {
			d--; /* e is the next sibling, begun a little early */
			continue;
		}
		end = pe; /* overlaps without nesting: cut at the enclosing event's end */
		r->not_nested++;
		break;
	}
	if (d == k->cap_st) {
		size_t cap = k->cap_st ? 2 * k->cap_st : 64;
		struct sent *st = realloc(k->st, cap * sizeof(*st));
		if (st)
			k->st = st;
		struct pcache *pc = st ? realloc(k->pc, cap * sizeof(*pc)) : NULL;
		if (!pc)
			return -ENOMEM;
		memset(pc + k->cap_st, 0, (cap - k->cap_st) * sizeof(*pc));
		k->pc = pc;
		k->cap_st = cap;
	}
	uint32_t parent = d ? k->st[d - 1].node : ROOT, node;
	unsigned kind = e->nk & 3;
	/* an operator's call stack gives nothing when an enclosing operator or Python
	 * function gave the Python frames already (an operator called by an operator
	 * carries its caller's stack) */
	if (kind == CHAIN && d && k->nodes[parent].python) {
		*depth = d;
		return 0;
	}
	struct pcache *c = &k->pc[d];
	if (c->nk == e->nk && c->parent == parent) {
		node = c->node;
	} else {
		if (kind == CHAIN) {
			uint32_t at = chain_of(k, m, e->nk);
			if (at != KG_NONE && !k->cf[at]) { /* the profiler's frames alone */
				*depth = d;
				return 0;
			}
			node = at == KG_NONE ? KG_NONE : chain_node(k, parent, at);
		} else {
			uint32_t frame = frame_of(k, m, e->nk);
			node = frame == KG_NONE ? KG_NONE : child_of(k, parent, frame);
		}
		if (node == KG_NONE)
			return -ENOMEM;
		*c = (struct pcache){parent, e->nk, node};
	}
	k->st[d] = (struct sent){end, node};
	*depth = d + 1;
	return 0;
}

/* Does an open event ending at `end` (≥ the call's start) enclose the call [cs, ce]? */
static int encloses(int64_t end, int64_t cs, int64_t ce)
{
	if (end < ce && over(ce, end) > KSTACK_TOLERANCE_NS)
		return 0;
	return end > cs || ce == cs; /* overlaps it, not only touches its start */
}

/* The host spans of one thread as the sweep goes: the stretches in which the same
 * innermost event ran (model.h, struct kg_host_span). */
struct spans_out {
	uint32_t thread;             /* the model's index; KG_NONE: no spans wanted */
	int64_t at;                  /* the open event on top has been innermost since then */
	uint32_t last;               /* the last span made, KG_NONE */
};

/* The top of the stack, `node`, was innermost from o->at to `to`. 0, or -ENOMEM. */
static int emit(struct kstacks *k, struct kg_model *m, uint32_t process, struct spans_out *o,
		uint32_t node, int64_t to)
{
	int64_t from = o->at;
	if (to <= from)
		return 0;
	o->at = to;
	if (o->thread == KG_NONE)
		return 0;
	uint32_t stack = node_stack(k, m, process, node);
	if (stack == KG_NONE)
		return -ENOMEM;
	struct kg_host_span *prev = o->last != KG_NONE ? &m->host_spans[o->last] : NULL;
	if (prev && prev->stack == stack && prev->end == from) {
		prev->end = to; /* an event split by one that took no time */
		return 0;
	}
	struct kg_host_span *h = model_add_host_span(m);
	if (!h)
		return -ENOMEM;
	h->start = from;
	h->end = to;
	h->thread = o->thread;
	h->stack = stack;
	h->source = KG_HOST_FROM_EVENTS;
	h->state = KG_HOST_STATE_UNKNOWN; /* the trace does not say on or off CPU */
	o->last = m->n_host_spans - 1;
	return 0;
}

/* Pops the open events that ended before t (with at_too, at t too), each innermost until
 * its end. 0, or -ENOMEM. */
static int pop_until(struct kstacks *k, struct kg_model *m, uint32_t process, size_t *depth,
		     struct spans_out *o, int64_t t, int at_too)
{
	while (*depth) {
		const struct sent *top = &k->st[*depth - 1];
		if (top->end > t || (top->end == t && !at_too))
			break;
		if (emit(k, m, process, o, top->node, top->end) < 0)
			return -ENOMEM;
		(*depth)--;
	}
	return 0;
}

/* Pushes event e after popping, as push would, the events that ended before it began,
 * and ends the stretch of the event it interrupts. 0, or -ENOMEM. */
static int enter(struct kstacks *k, struct kg_model *m, uint32_t process, size_t *depth,
		 struct spans_out *o, const struct hev *e, struct kstacks_result *r)
{
	if (pop_until(k, m, process, depth, o, e->start, e->end > e->start) < 0)
		return -ENOMEM;
	if (*depth && emit(k, m, process, o, k->st[*depth - 1].node, e->start) < 0)
		return -ENOMEM;
	if (o->at < e->start)
		o->at = e->start;
	return push(k, m, depth, e, r);
}

/* One pass over a thread's events (in ev_cmp order) and calls (in start order): each
 * call's stack, and the thread's host spans. */
static int sweep(struct kstacks *k, struct kg_model *m, uint32_t process, struct kthr *th,
		 const uint32_t *calls, size_t nc, struct spans_out *o, struct kstacks_result *r)
{
	size_t depth = 0, ei = 0;
	for (size_t j = 0; j < nc; j++) {
		struct kg_api *a = &m->apis[calls[j]];
		int64_t cs = a->start, ce = a->end == KG_NO_TIME || a->end < cs ? cs : a->end;
		for (; ei < th->n && th->ev[ei].start <= cs; ei++)
			if (enter(k, m, process, &depth, o, &th->ev[ei], r) < 0)
				return -ENOMEM;
		if (pop_until(k, m, process, &depth, o, cs, 0) < 0)
			return -ENOMEM;
		/* the enclosing events are the bottom of the stack (ends decrease upwards) */
		size_t lo = 0, hi = depth;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (encloses(k->st[mid].end, cs, ce))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			continue;
		uint32_t node = k->st[lo - 1].node;
		uint32_t stack = node_stack(k, m, process, node);
		if (stack == KG_NONE)
			return -ENOMEM;
		a->stack = stack;
		r->linked++;
		r->truncated += k->nodes[node].depth > KSTACK_MAX_FRAMES;
	}
	if (o->thread == KG_NONE)
		return 0;
	for (; ei < th->n; ei++)
		if (enter(k, m, process, &depth, o, &th->ev[ei], r) < 0)
			return -ENOMEM;
	return pop_until(k, m, process, &depth, o, INT64_MAX, 1);
}

int kstacks_link(struct kstacks *k, struct kg_model *m, uint32_t process,
		 struct kstacks_result *r)
{
	memset(r, 0, sizeof(*r));
	uint32_t *tmap = malloc(((size_t)m->n_threads + 1) * sizeof(*tmap));
	uint32_t *off = calloc(k->n_thr + 2, sizeof(*off));
	uint32_t *idx = NULL;
	int rc = tmap && off ? 0 : -ENOMEM;
	uint32_t *mthr = rc ? NULL : malloc((k->n_thr + 1) * sizeof(*mthr));
	rc = rc || !mthr ? -ENOMEM : 0;
	for (size_t t = 0; !rc && t < k->n_thr; t++)
		mthr[t] = KG_NONE;
	/* the model's threads (as the reader made them) → ours, by tid, and back */
	for (uint32_t t = 0; !rc && t < m->n_threads; t++) {
		tmap[t] = m->threads[t].process == process ? thread_of(k, m->threads[t].tid, 0)
							   : KG_NONE;
		if (tmap[t] != KG_NONE)
			mthr[tmap[t]] = t;
	}
	/* the calls of each thread, in the model's order: a counting sort */
	for (uint32_t i = 0; !rc && i < m->n_apis; i++) {
		const struct kg_api *a = &m->apis[i];
		if (a->process != process)
			continue;
		r->calls++;
		uint32_t t = a->thread < m->n_threads ? tmap[a->thread] : KG_NONE;
		if (t != KG_NONE)
			off[t + 2]++;
	}
	if (!rc) {
		for (size_t t = 0; t < k->n_thr; t++)
			off[t + 2] += off[t + 1];
		idx = malloc(((size_t)off[k->n_thr + 1] + 1) * sizeof(*idx));
		rc = idx ? 0 : -ENOMEM;
	}
	for (uint32_t i = 0; !rc && i < m->n_apis; i++) {
		const struct kg_api *a = &m->apis[i];
		uint32_t t = a->process == process && a->thread < m->n_threads ? tmap[a->thread]
									   : KG_NONE;
		if (t != KG_NONE)
			idx[off[t + 1]++] = i; /* off[t + 1] ends as the end of thread t */
	}
	for (size_t t = 0; !rc && t < k->n_thr; t++) {
		struct kthr *th = &k->thr[t];
		uint32_t *calls = idx + off[t], nc = off[t + 1] - off[t];
		/* spans for the threads the model has (they made calls or ranges): a thread
		 * that launches nothing never explains a GPU's wait */
		struct spans_out o = {.thread = mthr[t], .at = INT64_MIN, .last = KG_NONE};
		if ((nc || o.thread != KG_NONE) && th->n) {
			rc = sort_if_needed(th->ev, th->n, sizeof(*th->ev), ev_cmp, NULL);
			if (!rc)
				rc = sort_if_needed(calls, nc, sizeof(*calls), call_cmp, m->apis);
			if (!rc)
				rc = sweep(k, m, process, th, calls, nc, &o, r);
		}
		free(th->ev); /* done with this thread */
		th->ev = NULL;
		th->n = th->cap = 0;
	}
	free(tmap);
	free(mthr);
	free(off);
	free(idx);
	return rc;
}
