/* The call stacks of a kgantt trace (tables stacks, stack_frames, api_stacks and
 * stack_settings; traces before format 3 have none) → model stacks and stack references,
 * which model_finish links to their API calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kgt_reader.h"
#include "trace/trace_db.h"
#include "util/idmap.h"

#define MAX_FRAMES 1024 /* more than any recorder writes: the rest of a stack is cut */

struct stack_load {
	struct kgt_reader *r;
	struct kg_idmap ids;        /* trace stack id → model stack */
	struct kg_frame frames[MAX_FRAMES];
	uint32_t n;
	int64_t id;                 /* the stack being gathered, 0 none */
	uint32_t process, flags;
};

static int flush_stack(struct stack_load *l)
{
	if (!l->id)
		return 0;
	uint32_t s = model_add_stack(l->r->m, l->process, l->frames, l->n, l->flags);
	uint32_t *slot = idmap_slot(&l->ids, (uint64_t)l->id);
	if (s == KG_NONE || !slot)
		return kgt_oom(l->r);
	*slot = s;
	l->id = 0;
	l->n = 0;
	return 0;
}

static int load_frames(struct stack_load *l)
{
	struct kgt_reader *r = l->r;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT f.stack, s.process, s.flags, f.kind, f.function, f.file, "
			       "f.line, f.module, f.address FROM stack_frames f JOIN stacks s "
			       "ON s.id = f.stack ORDER BY f.stack, f.depth",
			       -1, &st, NULL) != SQLITE_OK)
		return kgt_read_error(r, "stack_frames");
	int rc, err = 0;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		uint32_t process = kgt_proc_of(r, sqlite3_column_int64(st, 1));
		if (process == KG_NONE)
			continue;
		if (id != l->id) {
			err = flush_stack(l);
			l->id = id;
			l->process = process;
			l->flags = (uint32_t)sqlite3_column_int64(st, 2);
		}
		if (l->n == MAX_FRAMES) {
			l->flags |= KG_STACK_TRUNCATED;
			continue;
		}
		struct kg_frame *f = &l->frames[l->n++];
		memset(f, 0, sizeof(*f));
		int64_t kind = sqlite3_column_int64(st, 3);
		f->kind = kind >= KG_FRAME_NATIVE && kind <= KG_FRAME_ANNOTATION ? (uint8_t)kind
										  : KG_FRAME_NATIVE;
		f->function = kgt_str_of(r, sqlite3_column_int64(st, 4));
		f->file = kgt_str_of(r, sqlite3_column_int64(st, 5));
		int64_t line = sqlite3_column_int64(st, 6);
		f->line = line > 0 && line < INT32_MAX ? (int32_t)line : 0;
		f->module = kgt_str_of(r, sqlite3_column_int64(st, 7));
		f->address = (uint64_t)sqlite3_column_int64(st, 8);
	}
	if (!err && rc != SQLITE_DONE)
		err = kgt_read_error(r, "stack_frames");
	if (!err)
		err = flush_stack(l);
	sqlite3_finalize(st);
	return err;
}

static int load_refs(struct stack_load *l)
{
	struct kgt_reader *r = l->r;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db, "SELECT process, correlation, stack FROM api_stacks", -1, &st,
			       NULL) != SQLITE_OK)
		return kgt_read_error(r, "api_stacks");
	int rc, err = 0;
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint32_t process = kgt_proc_of(r, sqlite3_column_int64(st, 0));
		int64_t corr = sqlite3_column_int64(st, 1);
		uint32_t s = idmap_get(&l->ids, (uint64_t)sqlite3_column_int64(st, 2));
		if (process == KG_NONE || s == KG_IDMAP_NONE || corr <= 0 || corr > UINT32_MAX)
			continue; /* a stack the process did not live to write */
		if (model_add_stack_ref(r->m, process, (uint32_t)corr, s) < 0)
			err = kgt_oom(r);
	}
	if (!err && rc != SQLITE_DONE)
		err = kgt_read_error(r, "api_stacks");
	sqlite3_finalize(st);
	return err;
}

/* One line for the report's header: how the stacks were taken. */
static void describe(struct kgt_reader *r)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT mode, launch_first, launch_every, python FROM stack_settings "
			       "ORDER BY (python LIKE 'CPython%') DESC, process LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *mode = (const char *)sqlite3_column_text(st, 0);
		const char *py = (const char *)sqlite3_column_text(st, 3);
		char launches[96] = "every launch";
		if (mode && !strcmp(mode, "waits"))
			snprintf(launches, sizeof(launches),
				 "launches sampled: the first %lld of each kernel, then 1 in %lld",
				 sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
		snprintf(r->m->stack_note, sizeof(r->m->stack_note),
			 "recorded (--stacks %s): waits, copies, allocations; %s%s%s", mode ? mode : "?",
			 launches, py && *py ? "; Python: " : "", py ? py : "");
	}
	sqlite3_finalize(st);
}

int kgt_read_stacks(struct kgt_reader *r)
{
	if (!trace_db_has_table(r->db, "stacks") || !trace_db_has_table(r->db, "stack_frames") ||
	    !trace_db_has_table(r->db, "api_stacks"))
		return 0;
	struct stack_load *l = calloc(1, sizeof(*l));
	if (!l)
		return kgt_oom(r);
	l->r = r;
	int rc = load_frames(l);
	if (!rc)
		rc = load_refs(l);
	if (!rc && trace_db_has_table(r->db, "stack_settings"))
		describe(r);
	idmap_free(&l->ids);
	free(l);
	return rc;
}
