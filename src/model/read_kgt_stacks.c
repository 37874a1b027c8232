/* The call stacks of a kgantt trace (tables stacks, stack_frames, api_stacks and
 * stack_settings; traces before format 3 have none) → model stacks and stack references,
 * which model_finish links to their API calls; the trace's stack ids → the model's, for
 * the host samples' stacks (read_kgt_host.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/kgt_reader.h"
#include "util/idmap.h"

#define MAX_FRAMES 1024 /* more than any recorder writes: the rest of a stack is cut */

struct stack_load {
	struct kgt_reader *r;
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
	uint32_t *slot = idmap_slot(&l->r->stacks, (uint64_t)l->id);
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
	struct kg_store_rows *st;
	int got = 0, err = store_read(r->s, KG_READ_STACK_FRAMES, &st);
	if (err)
		err = kgt_store_failed(r, err);
	while (!err && (got = store_next(st, NULL)) == 1) {
		int64_t id = store_int(st, 0);
		uint32_t process = kgt_proc_of(r, store_int(st, 1));
		if (process == KG_NONE)
			continue;
		if (id != l->id) {
			err = flush_stack(l);
			l->id = id;
			l->process = process;
			l->flags = (uint32_t)store_int(st, 2);
		}
		if (l->n == MAX_FRAMES) {
			l->flags |= KG_STACK_TRUNCATED;
			continue;
		}
		struct kg_frame *f = &l->frames[l->n++];
		memset(f, 0, sizeof(*f));
		int64_t kind = store_int(st, 3);
		f->kind = kind >= KG_FRAME_NATIVE && kind <= KG_FRAME_ANNOTATION ? (uint8_t)kind
										  : KG_FRAME_NATIVE;
		f->function = kgt_str_of(r, store_int(st, 4));
		f->file = kgt_str_of(r, store_int(st, 5));
		int64_t line = store_int(st, 6);
		f->line = line > 0 && line < INT32_MAX ? (int32_t)line : 0;
		f->module = kgt_str_of(r, store_int(st, 7));
		f->address = (uint64_t)store_int(st, 8);
	}
	if (!err && got < 0)
		err = kgt_store_failed(r, got);
	if (!err)
		err = flush_stack(l);
	store_done(st);
	return err;
}

static int load_refs(struct stack_load *l)
{
	struct kgt_reader *r = l->r;
	struct kg_store_rows *st;
	int got = 0, err = store_read(r->s, KG_READ_API_STACKS, &st);
	if (err)
		err = kgt_store_failed(r, err);
	while (!err && (got = store_next(st, NULL)) == 1) {
		uint32_t process = kgt_proc_of(r, store_int(st, 0));
		int64_t corr = store_int(st, 1);
		uint32_t s = idmap_get(&r->stacks, (uint64_t)store_int(st, 2));
		if (process == KG_NONE || s == KG_IDMAP_NONE || corr <= 0 || corr > UINT32_MAX)
			continue; /* a stack the process did not live to write */
		if (model_add_stack_ref(r->m, process, (uint32_t)corr, s) < 0)
			err = kgt_oom(r);
	}
	if (!err && got < 0)
		err = kgt_store_failed(r, got);
	store_done(st);
	return err;
}

/* One line for the report's header: how the stacks were taken. */
static void describe(struct kgt_reader *r)
{
	struct kg_store_rows *st;
	if (store_read(r->s, KG_READ_STACK_SETTING, &st) == 0 && store_next(st, NULL) == 1) {
		const char *mode = store_text(st, 0);
		const char *py = store_text(st, 3);
		char launches[96] = "every launch";
		if (mode && !strcmp(mode, "waits"))
			snprintf(launches, sizeof(launches),
				 "launches sampled: the first %lld of each kernel, then 1 in %lld",
				 (long long)store_int(st, 1), (long long)store_int(st, 2));
		snprintf(r->m->stack_note, sizeof(r->m->stack_note),
			 "recorded (--stacks %s): waits, copies, allocations; %s%s%s", mode ? mode : "?",
			 launches, py && *py ? "; Python: " : "", py ? py : "");
	}
	store_done(st);
}

int kgt_read_stacks(struct kgt_reader *r)
{
	if (!store_has_table(r->s, "stacks") || !store_has_table(r->s, "stack_frames") ||
	    !store_has_table(r->s, "api_stacks"))
		return 0;
	struct stack_load *l = calloc(1, sizeof(*l));
	if (!l)
		return kgt_oom(r);
	l->r = r;
	int rc = load_frames(l);
	if (!rc)
		rc = load_refs(l);
	if (!rc && store_has_table(r->s, "stack_settings"))
		describe(r);
	free(l);
	return rc;
}
