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
#include "trace/trace_db.h"
#include "util/idmap.h"

static int has_rows(struct kgt_reader *r, const char *table)
{
	int64_t n = 0;
	char sql[160];
	if (!trace_db_has_table(r->db, table))
		return 0;
	snprintf(sql, sizeof(sql), "SELECT EXISTS(SELECT 1 FROM %s)", table);
	return trace_db_int(r->db, sql, NULL, &n) == SQLITE_OK && n > 0;
}

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
static uint32_t find_kernel(struct kgt_reader *r, const struct kg_idmap *ix, sqlite3_stmt *st)
{
	const struct kg_model *m = r->m;
	uint32_t p = kgt_proc_of(r, sqlite3_column_int64(st, 1));
	uint32_t corr = (uint32_t)sqlite3_column_int64(st, 2);
	int64_t start = sqlite3_column_int64(st, 3);
	uint32_t ctx = (uint32_t)sqlite3_column_int64(st, 4);
	int64_t stream = sqlite3_column_int64(st, 5);
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

/* The blocks are joined to their kernels in SQL: in a compacted trace (format 5) the
 * kernels' rows are made a temp table first (trace/packed.h). */
static int kernel_rows(struct kgt_reader *r)
{
	char why[256];
	int rc = packed_expand(r->db, "main", "temp", "kernels", why, sizeof(why));
	if (rc)
		snprintf(r->err, r->errlen, "cannot read '%s': %s", r->path, why);
	return rc;
}

static int load_blocks(struct kgt_reader *r)
{
	struct kg_idmap ix = {0};
	sqlite3_stmt *st = NULL;
	int rc = kernel_rows(r);
	if (!rc)
		rc = index_kernels(r, &ix);
	if (!rc && sqlite3_prepare_v2(r->db,
				      "SELECT b.kernel, k.process, k.correlation, k.start, k.context, "
				      "k.stream, b.sm, b.block, b.start, b.end FROM sm_blocks b "
				      "JOIN kernels k ON k.id = b.kernel ORDER BY b.kernel",
				      -1, &st, NULL) != SQLITE_OK)
		rc = kgt_read_error(r, "sm_blocks");
	int64_t kernel = 0;
	uint32_t op = KG_NONE;
	uint64_t lost = 0;
	int step = SQLITE_DONE;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 0) != kernel || !kernel) {
			kernel = sqlite3_column_int64(st, 0);
			op = find_kernel(r, &ix, st);
		}
		if (op == KG_NONE || sqlite3_column_type(st, 8) == SQLITE_NULL ||
		    sqlite3_column_type(st, 9) == SQLITE_NULL) {
			lost++; /* a kernel the model skipped (it never ran), or a block without times */
			continue;
		}
		struct kg_sm_block *b = model_add_sm_block(r->m);
		if (!b) {
			rc = kgt_oom(r);
			break;
		}
		b->op = op;
		b->sm = (uint32_t)sqlite3_column_int64(st, 6);
		b->block = (uint32_t)sqlite3_column_int64(st, 7);
		b->start = sqlite3_column_int64(st, 8);
		b->end = sqlite3_column_int64(st, 9);
	}
	if (!rc && step != SQLITE_DONE)
		rc = kgt_read_error(r, "sm_blocks");
	sqlite3_finalize(st);
	idmap_free(&ix);
	if (!rc && lost)
		model_note(r->m, "%llu SM blocks name no kernel the trace holds and were skipped",
			   (unsigned long long)lost);
	return rc;
}

static int on_setting(struct kgt_reader *r, sqlite3_stmt *st, uint32_t device)
{
	struct kg_sm_info *x = model_add_sm_info(r->m);
	if (!x)
		return kgt_oom(r);
	x->device = device;
	x->blocks = (uint64_t)sqlite3_column_int64(st, 2);
	x->kernels = (uint64_t)sqlite3_column_int64(st, 3);
	x->dropped = (uint64_t)sqlite3_column_int64(st, 4);
	x->unmatched = (uint64_t)sqlite3_column_int64(st, 5);
	if (sqlite3_column_type(st, 6) != SQLITE_NULL)
		x->offset_mad = sqlite3_column_int64(st, 6);
	if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		x->offset_spread = sqlite3_column_int64(st, 7);
	return 0;
}

/* A setting of a device the trace does not know is left out, uncounted: it is no
 * operation. */
static int load_settings(struct kgt_reader *r)
{
	return kgt_each_device_row(r,
				   "SELECT process, device, blocks, kernels, dropped, unmatched, "
				   "offset_mad_ns, offset_spread_ns FROM sm_settings ORDER BY process, "
				   "device",
				   "sm_settings", NULL, on_setting);
}

int kgt_read_sm(struct kgt_reader *r)
{
	int rc = 0;
	if (has_rows(r, "sm_settings"))
		rc = load_settings(r);
	if (!rc && has_rows(r, "sm_blocks"))
		rc = load_blocks(r);
	return rc;
}
