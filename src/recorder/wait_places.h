/* Waits' stacks by their Python place (recorder/stacks.c).
 *
 * Unwinding the native stack of a synchronising call, a copy or an allocation costs tens
 * of microseconds in a Python program (libgcc's unwinder through CUPTI, the driver and the
 * extension modules: 35 µs a stack in a CuPy loop on an H100, 8 % of its run). A loop makes
 * the same wait at the same Python line every iteration, through the same native frames.
 * So a wait's place is its API function and its whole Python stack (each frame's code and
 * instruction); once the first WAIT_PLACE_TRUST waits of a place were unwound to the same
 * stack, the next ones take that stack without unwinding, and one in WAIT_PLACE_CHECK is
 * unwound again to check it. A place whose unwound stacks ever differ (one Python line
 * reaching CUDA by several native paths) is unwound every time from then on.
 *
 * The table is the caller's to lock; it never allocates after wait_places_init. */
#ifndef KGANTT_WAIT_PLACES_H
#define KGANTT_WAIT_PLACES_H

#include <stdint.h>

#define WAIT_PLACE_TRUST 4  /* equal stacks unwound at a place before its stack is reused */
#define WAIT_PLACE_CHECK 32 /* a reused place is unwound again once in this many waits */
#define WAIT_PLACE_PROBE 16 /* slots looked at for a key: past them it is not cached */

struct kg_wait_place {
	uint64_t key;         /* 0: empty */
	uint64_t stack_hash;  /* of the stack last unwound here: ids change when tables recycle */
	uint32_t stack;       /* its id */
	uint16_t agreed;      /* unwound stacks equal to it, in a row, up to WAIT_PLACE_TRUST */
	uint8_t varies;       /* two unwound stacks differed: never reused */
	uint32_t since_check; /* reused waits since the last unwound one */
};

struct kg_wait_places {
	struct kg_wait_place *slots;
	uint32_t n_slots; /* a power of two */
	uint64_t reused;  /* waits that took a place's stack */
	uint64_t checked; /* waits of a trusted place unwound again to check it */
	uint32_t places;  /* places in the table */
	uint32_t varying; /* places found to reach CUDA by several native paths */
};

/* n_slots: a power of two. 0, or -1 without memory (then nothing is ever reused). */
int wait_places_init(struct kg_wait_places *w, uint32_t n_slots);
void wait_places_free(struct kg_wait_places *w);
/* The stack id to record for a wait at this place without unwinding it, or 0: unwind it
 * and tell wait_places_learn. key 0 is never cached. */
uint32_t wait_places_reuse(struct kg_wait_places *w, uint64_t key);
/* The stack (its hash and id) unwound for a wait at this place. */
void wait_places_learn(struct kg_wait_places *w, uint64_t key, uint64_t stack_hash, uint32_t stack);

#endif
