/* The model layer of the Kineto reader: decoded items (kineto_event.h) become the
 * model's operations, API calls, waits, ranges, devices and streams; host operators become
 * the API calls' stacks (kineto_stacks.c). It knows nothing of JSON. docs/readers.md,
 * "PyTorch profiler (Kineto) JSON", gives the mapping. */
#ifndef KGANTT_KINETO_MODEL_H
#define KGANTT_KINETO_MODEL_H

#include "model/kineto_event.h"
#include "model/model.h"

/* Whether an event of phase ph and category cat means anything to the model layer: the
 * JSON layer hands on only these. Metadata (process and thread names) and complete
 * events of known categories; flows, instants, counters and unknown categories not. */
static inline int kin_event_wanted(char ph, uint8_t cat)
{
	return ph == 'M' || (ph == 'X' && cat != KC_OTHER && cat != KC_NONE);
}

struct kin_build;

/* Adds the trace's process to m (model_init'ed). NULL when out of memory. */
struct kin_build *kin_build_new(struct kg_model *m, const char *path);
void kin_build_free(struct kin_build *b);

/* Applies the items of batch, in order; text (len bytes at *at) is the JSON they were
 * parsed from, for placing the first unusable event in a note. The batch's strings may
 * be changed. 0, or a negative errno code (kin_build_error says why). */
int kin_build_apply(struct kin_build *b, struct kin_batch *batch, const unsigned char *text,
		    size_t len, const struct kin_pos *at);
/* What can be done only once the whole file is read: device properties, names, waits'
 * streams, copies' async flags, the call stacks, the notes. 0, or a negative errno code. */
int kin_build_finish(struct kin_build *b);
const char *kin_build_error(const struct kin_build *b);

#endif
