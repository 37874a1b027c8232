/* libFuzzer target: the PyTorch profiler (Kineto) reader on two threads against one
 * (read_kineto.c). The input is the file, cut into pieces of 64 to 8192 bytes (chosen by
 * its first byte) that are parsed ahead on their own where the cuts allow; it must load
 * into the same model as read on one thread from start to end, operation for operation
 * and string id for string id, or fail with the same message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "model/kineto_pieces.h"
#include "model/load.h"

struct outcome {
	int rc;
	char err[512];
	struct kg_model m;
};

static void load(const char *path, int one_thread, size_t piece, struct outcome *o)
{
	struct kg_load_opts opts = {.one_thread = one_thread};
	memset(o, 0, sizeof(*o));
	model_init(&o->m, "kineto", path);
	o->rc = read_kineto_pieces(&o->m, path, &opts, piece, o->err, sizeof(o->err));
}

static void differ(const char *what, size_t i)
{
	fprintf(stderr, "fuzz_kineto_pieces: one thread and two differ: %s %zu\n", what, i);
	abort();
}

/* The models as the reader left them (before model_finish), field by field. */
static void compare(const struct kg_model *a, const struct kg_model *b)
{
	if (a->n_ops != b->n_ops || a->n_apis != b->n_apis || a->n_syncs != b->n_syncs ||
	    a->n_ranges != b->n_ranges || a->n_streams != b->n_streams ||
	    a->n_threads != b->n_threads || a->n_devices != b->n_devices ||
	    a->n_notes != b->n_notes || a->strings.count != b->strings.count)
		differ("counts", 0);
	for (size_t i = 0; i < a->strings.count; i++)
		if (strcmp(a->strings.entries[i], b->strings.entries[i]))
			differ("string", i);
	for (uint32_t i = 0; i < a->n_ops; i++) {
		const struct kg_op *x = &a->ops[i], *y = &b->ops[i];
		if (x->start != y->start || x->end != y->end || x->name != y->name ||
		    x->stream != y->stream || x->correlation != y->correlation ||
		    x->kind != y->kind || x->flags != y->flags || x->queued != y->queued)
			differ("op", i);
	}
	for (uint32_t i = 0; i < a->n_apis; i++) {
		const struct kg_api *x = &a->apis[i], *y = &b->apis[i];
		if (x->start != y->start || x->end != y->end || x->name != y->name ||
		    x->thread != y->thread || x->correlation != y->correlation)
			differ("api", i);
	}
	for (uint32_t i = 0; i < a->n_ranges; i++)
		if (a->ranges[i].start != b->ranges[i].start || a->ranges[i].name != b->ranges[i].name)
			differ("range", i);
	for (int i = 0; i < a->n_notes; i++)
		if (strcmp(a->notes[i], b->notes[i]))
			differ("note", (size_t)i);
	if (a->command != b->command || a->processes[0].pid != b->processes[0].pid)
		differ("process", 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[PATH_MAX + 64];
	if (size == 0)
		return 0;
	fuzz_write("in.json", data, size, path, sizeof(path));
	size_t piece = (size_t)64 << (data[0] % 8);
	static struct outcome one, two;
	load(path, 1, piece, &one);
	load(path, 0, piece, &two);
	fuzz_say("fuzz_kineto_pieces", one.rc, one.err);
	if (one.rc != two.rc || (one.rc && strcmp(one.err, two.err)))
		differ(two.err, (size_t)-two.rc);
	if (one.rc == 0)
		compare(&one.m, &two.m);
	model_free(&one.m);
	model_free(&two.m);
	return 0;
}
