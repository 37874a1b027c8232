/* What a call stack's flags say, one meaning from the recorder's spool to the trace's
 * stacks.flags column (and its enum_stack_flags table) and the model. */
#ifndef KGANTT_STACK_FLAGS_H
#define KGANTT_STACK_FLAGS_H

enum kg_stack_flags {
	KG_STACK_PARTIAL = 1 << 0,   /* the unwinder stopped before the thread's first frame */
	KG_STACK_TRUNCATED = 1 << 1, /* deeper than the recorder keeps: the outermost are cut */
	KG_STACK_NO_PYTHON = 1 << 2, /* a Python program whose Python frames could not be read */
};

#endif
