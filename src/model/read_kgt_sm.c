/* SM placement of a kgantt trace (tables sm_blocks and sm_settings, record --sm; traces
 * without them have none) → model sm_blocks and sm_infos.
 *
 * A block names its kernel by kernels.id, which the model does not keep: the kernel is
 * found again by what the model does keep of it, (process, correlation, start, context,
 * stream), once per kernel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kgt_reader.h"
#include "util/idmap.h"

static uint64_t kernel_key(uint32_t process, uint32_t correlation, int64_t start)
{
	return idmap_mix(idmap_mix(((uint64_t)process << 32) | correlation) ^ (uint64_t)start) >> 1;
}

/* The model's kernels by (process, correlation, start). */
static int index_kernels(struct kgt_reader *r, struct kg_idmap *ix)
{
	const struct kg_model *m = r->m;
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		if (o->kind != KG_OP_KERNEL)
			continue;
		uint64_t k = kernel_key(m->streams[o->stream].process, o->correlation, o->start);
		for (int probe = 0; probe < 64; probe++, k = idmap_mix(k + 1) >> 1) {
			uint32_t *slot = idmap_slot(ix, k);
			if (!slot)
				return kgt_oom(r);
			if (*slot == KG_IDMAP_NONE) {
				*slot = i;
				break;
			}
		}
	}
	return 0;
}

/* The op of a kernel row: (process number, correlation, start, context, stream id). */
static uint32_t find_kernel(struct kgt_reader *r, const struct kg_idmap *ix,
			    const struct kg_store_rows *st)
{
	const struct kg_model *m = r->m;
	uint32_t p = kgt_proc_of(r, store_int(st, 1));
	uint32_t corr = (uint32_t)store_int(st, 2);
	int64_t start = store_int(st, 3);
	uint32_t ctx = (uint32_t)store_int(st, 4);
	int64_t stream = store_int(st, 5);
	if (p == KG_NONE)
		return KG_NONE;
	uint64_t k = kernel_key(p, corr, start);
	for (int probe = 0; probe < 64; probe++, k = idmap_mix(k + 1) >> 1) {
		uint32_t i = idmap_get(ix, k);
		if (i == KG_IDMAP_NONE)
			return KG_NONE;
		const struct kg_op *o = &m->ops[i];
		const struct kg_stream *s = &m->streams[o->stream];
		if (s->process == p && o->correlation == corr && o->start == start &&
		    s->context == ctx && s->id == stream)
			return i;
	}
	return KG_NONE;
}

static int load_blocks(struct kgt_reader *r)
{
	struct kg_idmap ix = {0};
	struct kg_store_rows *st = NULL;
	/* the blocks are joined to their kernels by the store (a compacted trace's kernels made
	 * rows for it) */
	int rc = index_kernels(r, &ix);
	if (!rc && (rc = store_read(r->s, KG_READ_SM_BLOCKS, &st)) != 0)
		rc = kgt_store_failed(r, rc);
	int64_t kernel = 0;
	uint32_t op = KG_NONE;
	uint64_t lost = 0;
	int got = 0;
	while (!rc && (got = store_next(st, NULL)) == 1) {
		if (store_int(st, 0) != kernel || !kernel) {
			kernel = store_int(st, 0);
			op = find_kernel(r, &ix, st);
		}
		if (op == KG_NONE || store_null(st, 8) || store_null(st, 9)) {
			lost++; /* a kernel the model skipped (it never ran), or a block without times */
			continue;
		}
		struct kg_sm_block *b = model_add_sm_block(r->m);
		if (!b) {
			rc = kgt_oom(r);
			break;
		}
		b->op = op;
		b->sm = (uint32_t)store_int(st, 6);
		b->block = (uint32_t)store_int(st, 7);
		b->start = store_int(st, 8);
		b->end = store_int(st, 9);
	}
	if (!rc && got < 0)
		rc = kgt_store_failed(r, got);
	store_done(st);
	idmap_free(&ix);
	if (!rc && lost)
		model_note(r->m, "%llu SM blocks name no kernel the trace holds and were skipped",
			   (unsigned long long)lost);
	return rc;
}

static int on_setting(struct kgt_reader *r, const struct kg_store_rows *st, uint32_t device)
{
	struct kg_sm_info *x = model_add_sm_info(r->m);
	if (!x)
		return kgt_oom(r);
	x->device = device;
	x->blocks = (uint64_t)store_int(st, 2);
	x->kernels = (uint64_t)store_int(st, 3);
	x->dropped = (uint64_t)store_int(st, 4);
	x->unmatched = (uint64_t)store_int(st, 5);
	if (!store_null(st, 6))
		x->offset_mad = store_int(st, 6);
	if (!store_null(st, 7))
		x->offset_spread = store_int(st, 7);
	return 0;
}

/* A setting of a device the trace does not know is left out, uncounted: it is no
 * operation. */
static int load_settings(struct kgt_reader *r)
{
	return kgt_each_device_row(r, KG_READ_SM_SETTINGS, NULL, on_setting);
}

int kgt_read_sm(struct kgt_reader *r)
{
	int rc = 0;
	if (store_has_rows(r->s, "sm_settings"))
		rc = load_settings(r);
	if (!rc && store_has_rows(r->s, "sm_blocks"))
		rc = load_blocks(r);
	return rc;
}
