/* The ops into their final order, in place: by stream, then start, end and reading order.
 *
 * The ops are most of a model's memory (80 bytes each), so they are not copied into a
 * second array: a 16-byte key per op is sorted instead, and the ops are then swapped into
 * their places. A reader leaves each stream's ops in a few ascending runs (its kernels,
 * copies, memsets, each in start order), so the keys sort with a counting sort by stream
 * and a natural merge of the few runs of each stream. */
#include "model/op_order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

/* A key while sorting; a place record (same 16 bytes) while the ops are swapped. */
union op_slot {
	struct {
		int64_t start;
		uint32_t op;       /* the op's index in reading order */
		uint32_t unused;
	} key;
	struct {
		uint32_t pos;      /* where the op first read as this index is now */
		uint32_t inv;      /* which op (by reading index) is now at this place */
		uint32_t from;     /* = key.op: the op that belongs at this place */
		uint32_t unused;
	} place;
};

/* ------------------------------------------------------------------ sorting the keys */

/* a before b: start, then end, then reading order. A total order: whatever the sort, the
 * result is the same (and the order model_finish always gave). */
static int before(const struct kg_op *ops, const union op_slot *a, const union op_slot *b)
{
	if (a->key.start != b->key.start)
		return a->key.start < b->key.start;
	int64_t ea = ops[a->key.op].end, eb = ops[b->key.op].end; /* rare: equal starts */
	if (ea != eb)
		return ea < eb;
	return a->key.op < b->key.op;
}

/* The end of the ascending run that begins at i. */
static uint32_t run_end(const struct kg_op *ops, const union op_slot *k, uint32_t i, uint32_t n)
{
	while (++i < n && !before(ops, &k[i], &k[i - 1]))
		;
	return i;
}

/* Scratch for merging: as large as the smaller of two runs, which for a stream is its
 * copies or memsets, not its kernels. */
struct merge_buf {
	union op_slot *v;
	uint32_t cap;
};

static int buf_room(struct merge_buf *b, uint32_t n)
{
	if (n <= b->cap)
		return 0;
	union op_slot *v = realloc(b->v, (size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->v = v;
	b->cap = n;
	array_advise_huge(v, (size_t)n * sizeof(*v));
	return 0;
}

/* Merges the adjacent runs k[0, na) and k[na, na + nb) in place, the smaller one copied
 * out. */
static int merge_runs(const struct kg_op *ops, union op_slot *k, uint32_t na, uint32_t nb,
		      struct merge_buf *buf)
{
	if (buf_room(buf, na < nb ? na : nb) < 0)
		return -ENOMEM;
	union op_slot *t = buf->v;
	if (na <= nb) { /* from the front: the left run in t */
		memcpy(t, k, (size_t)na * sizeof(*k));
		uint32_t l = 0, r = na, o = 0;
		while (l < na && r < na + nb)
			k[o++] = before(ops, &k[r], &t[l]) ? k[r++] : t[l++];
		memcpy(k + o, t + l, (size_t)(na - l) * sizeof(*k));
		return 0;
	}
	/* from the back: the right run in t */
	memcpy(t, k + na, (size_t)nb * sizeof(*k));
	uint32_t l = na, r = nb, o = na + nb;
	while (l > 0 && r > 0)
		k[--o] = before(ops, &t[r - 1], &k[l - 1]) ? k[--l] : t[--r];
	memcpy(k, t, (size_t)r * sizeof(*k));
	return 0;
}

/* A natural merge sort: adjacent runs merged pairwise, pass after pass. */
static int sort_keys(const struct kg_op *ops, union op_slot *k, uint32_t n, struct merge_buf *buf)
{
	for (;;) {
		uint32_t runs = 0;
		for (uint32_t i = 0; i < n; runs++) {
			uint32_t mid = run_end(ops, k, i, n);
			uint32_t end = mid < n ? run_end(ops, k, mid, n) : n;
			if (mid < end && merge_runs(ops, k + i, mid - i, end - mid, buf) < 0)
				return -ENOMEM;
			i = end;
		}
		if (runs <= 1)
			return 0;
	}
}

/* The bucket of op o: its stream, or after every stream when it is left out. */
static uint32_t bucket(const struct kg_model *m, const struct kg_op *o)
{
	return o->flags & KG_OPF_LEFT_OUT ? m->n_streams : o->stream;
}

/* The keys in final order: a counting sort by stream, then each stream's keys merged
 * when they are not in order already; the ops left out last. *stream_ends[s] is where
 * stream s's ops end ([n_streams]: the ops left out). NULL on ENOMEM. */
static union op_slot *sorted_keys(const struct kg_model *m, uint32_t **stream_ends)
{
	uint32_t ns = m->n_streams, n = m->n_ops;
	uint32_t *at = calloc((size_t)ns + 2, sizeof(*at));
	union op_slot *keys = malloc(((size_t)n + 1) * sizeof(*keys));
	array_advise_huge(keys, ((size_t)n + 1) * sizeof(*keys));
	struct merge_buf buf = {0};
	int rc = at && keys ? 0 : -ENOMEM;
	for (uint32_t i = 0; !rc && i < n; i++)
		at[bucket(m, &m->ops[i]) + 1]++;
	for (uint32_t s = 0; !rc && s <= ns; s++)
		at[s + 1] += at[s];
	for (uint32_t i = 0; !rc && i < n; i++) {
		union op_slot *k = &keys[at[bucket(m, &m->ops[i])]++];
		k->key.start = m->ops[i].start;
		k->key.op = i;
		k->key.unused = 0;
	}
	/* at[s] is now the end of stream s's keys */
	for (uint32_t s = 0, begin = 0; !rc && s < ns; begin = at[s], s++)
		rc = sort_keys(m->ops, keys + begin, at[s] - begin, &buf);
	free(buf.v);
	if (rc) {
		free(at);
		free(keys);
		return NULL;
	}
	*stream_ends = at;
	return keys;
}

/* ------------------------------------------------------------------ moving the ops */

/* The SM blocks follow their kernels (slot[new].key.op = old index). */
static int remap_sm_blocks(struct kg_model *m, const union op_slot *slot)
{
	if (!m->n_sm_blocks)
		return 0;
	uint32_t *new_of = malloc(((size_t)m->n_ops + 1) * sizeof(*new_of));
	if (!new_of)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->n_ops; i++)
		new_of[slot[i].key.op] = i;
	for (uint32_t i = 0; i < m->n_sm_blocks; i++)
		if (m->sm_blocks[i].op < m->n_ops)
			m->sm_blocks[i].op = new_of[m->sm_blocks[i].op];
	free(new_of);
	return 0;
}

#define AHEAD 16 /* places prefetched ahead: the swaps' reads are far apart */

/* Fills place 0, 1, 2... in turn, each with one swap: the op that belongs there is
 * found through `pos`, and the one it displaces is noted where it went. Each place is
 * visited in order, so what it will need next is known and fetched ahead of time,
 * unlike following the permutation's cycles, whose every step waits for the last. */
static void swap_into_place(struct kg_op *ops, union op_slot *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		s[i].place.pos = i;
		s[i].place.inv = i;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (i + 2 * AHEAD < n)
			__builtin_prefetch(&s[s[i + 2 * AHEAD].place.from]);
		if (i + AHEAD < n) {
			uint32_t p = s[s[i + AHEAD].place.from].place.pos;
			__builtin_prefetch(&ops[p]);
			__builtin_prefetch((const char *)&ops[p] + sizeof(*ops) - 1);
			__builtin_prefetch(&s[p]);
			__builtin_prefetch(&s[s[i + AHEAD].place.inv]);
		}
		uint32_t p = s[s[i].place.from].place.pos;
		if (p == i)
			continue;
		struct kg_op displaced = ops[i];
		ops[i] = ops[p];
		ops[p] = displaced;
		uint32_t d = s[i].place.inv; /* the displaced op's reading index */
		s[d].place.pos = p;
		s[p].place.inv = d;
	}
}

int model_order_ops(struct kg_model *m)
{
	uint32_t *ends = NULL;
	union op_slot *slot = sorted_keys(m, &ends);
	if (!slot)
		return -ENOMEM;
	for (uint32_t s = 0, begin = 0; s < m->n_streams; begin = ends[s], s++) {
		m->streams[s].first_op = begin;
		m->streams[s].nops = ends[s] - begin;
	}
	int rc = remap_sm_blocks(m, slot);
	if (!rc)
		swap_into_place(m->ops, slot, m->n_ops);
	if (!rc) /* the ops left out are last: gone (their SM blocks point past the end) */
		m->n_ops = m->n_streams ? ends[m->n_streams - 1] : 0;
	free(slot);
	free(ends);
	return rc;
}
