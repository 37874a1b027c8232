/* Private to the model (model.c's model_finish): records whose times cannot be true. */
#ifndef KGANTT_UNTRUE_TIMES_H
#define KGANTT_UNTRUE_TIMES_H

#include "model/model.h"

/* Leaves out the ops, API calls, ranges and waits whose times cannot be true (a sentinel,
 * an end before the start, time 0 or before on a clock far from 0, far outside the other
 * records' span), counts them in m->untrue and says so in a note; the indices that name
 * them (waits' calls, SM blocks' kernels) follow. Before model_finish links anything.
 * 0, or -ENOMEM (the model is then as it was). */
int model_leave_out_untrue(struct kg_model *m);

#endif
