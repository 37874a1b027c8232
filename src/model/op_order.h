/* Private to the model (model.c's model_finish): the ops into their final order. */
#ifndef KGANTT_OP_ORDER_H
#define KGANTT_OP_ORDER_H

#include "model/model.h"

/* Puts the ops in order by stream, then start, end and their order before, in place; sets
 * each stream's first_op and nops and moves the SM blocks' op indices with their ops.
 * The ops marked KG_OPF_LEFT_OUT go (n_ops shrinks; their blocks point past the end).
 * 0, or -ENOMEM (the ops are then as they were). */
int model_order_ops(struct kg_model *m);

#endif
