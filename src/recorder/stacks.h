/* Call stacks of the API calls that make the GPU wait or the host block, taken inside the
 * program from CUPTI's API callbacks (record --stacks).
 *
 * In the callback, on the application's thread: the native return addresses (libgcc's
 * unwinder, the one C++ exceptions use; a wait repeated at one Python place takes the
 * stack unwound there before, recorder/wait_places.h) and the Python frames (recorder/pyframes.c),
 * deduplicated in a table allocated at start, and the pair (correlation id, stack id)
 * appended to a buffer. Nothing is symbolised or written there: the flusher thread moves
 * new stacks, the call sites and the loaded modules to the spool, and the importer turns
 * addresses into functions and lines after the program has ended. */
#ifndef KGANTT_STACKS_H
#define KGANTT_STACKS_H

#include <cupti.h>
#include <stdint.h>

#include "recorder/pyframes.h"
#include "recorder/raw_format.h"
#include "recorder/spool.h"

struct kg_stack_config {
	enum kg_stack_mode mode;
	unsigned launch_first;  /* waits mode: the first launches of each place get a stack */
	unsigned launch_every;  /* ... then one in this many */
	unsigned max_depth;     /* native frames kept */
	/* 1 when a call of this domain and callback id is left out of the trace anyway */
	int (*untraced)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
};

/* Allocates every table; writes the settings record. 0, or -ENOMEM (stacks stay off). */
int stacks_init(const struct kg_stack_config *cfg, struct kg_spool *spool);
/* Enables CUPTI's callbacks for the calls that get stacks. */
void stacks_subscribe(CUpti_SubscriberHandle sub);
/* 1 when launches get stacks in windows (waits mode, some launches sampled): the
 * windows themselves are recorder/launches.h's. */
int stacks_sample_launches(void);
/* From the CUPTI API callback. */
void stacks_on_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
		   const CUpti_CallbackData *cb);
/* A kernel launch the launch hook told (recorder/hooked_launches.h), on the launching
 * thread: a stack when the sampler takes one, under the hook's correlation id. */
void stacks_on_hooked_launch(uint32_t cbid, uintptr_t key, uint32_t correlation);
/* The frames of the module holding addr are not the program's either (the launch hook). */
void stacks_skip_module(const void *addr);
/* Moves new modules, stacks, Python code objects and call sites to the spool (takes the
 * spool lock). From the flusher thread and at exit. */
void stacks_drain(struct kg_spool *spool);
/* A forked child: stop taking stacks (its parent's locks may be held). */
void stacks_disable(void);
/* The tables of distinct stacks without CUPTI's side, for host samples when call stacks
 * are off (and stacks_init uses the same tables when they are on). recycle: empty them
 * when nearly full once their stacks are in the spool, ids going on (host samples meet
 * far more distinct stacks than call sites). 0, or -ENOMEM. */
int stacks_table(int recycle);
/* The id (1, 2, ...) of a stack of native return addresses (innermost first) and Python
 * frames, added when new; 0 when the tables are full. Takes the tables' lock: never from
 * a signal handler. */
uint32_t stacks_intern(const uintptr_t *ips, unsigned nn, const struct kg_pyframe *py,
		       unsigned np, uint32_t flags);
/* pyframes_init's answer (1 frames read, 0 no Python, -1 unreadable) and its reason, and
 * the code of the module that runs the interpreter loop (0, 0 without Python). */
int stacks_python(uintptr_t *interp_lo, uintptr_t *interp_hi, char *why, size_t len);
/* Counts for the status line at exit. */
struct kg_stack_counts {
	uint64_t stacks, calls, lost; /* distinct stacks; calls given one; calls without one */
	uint64_t reused, checked;     /* waits given their place's stack; unwound to check it */
	uint32_t places, varying;     /* waits' Python places; those reaching CUDA several ways */
	int64_t reused_wrong;         /* KGANTT_DEV_WAIT_PLACES=check: reused stacks that were
				       * not the one unwound; -1 not checked */
};
void stacks_counts(struct kg_stack_counts *c);

#endif
