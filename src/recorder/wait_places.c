/* Waits' stacks by their Python place (see wait_places.h). */
#include "recorder/wait_places.h"

#include <stdlib.h>

int wait_places_init(struct kg_wait_places *w, uint32_t n_slots)
{
	*w = (struct kg_wait_places){0};
	if (n_slots == 0 || (n_slots & (n_slots - 1)))
		return -1;
	w->slots = calloc(n_slots, sizeof(*w->slots));
	if (!w->slots)
		return -1;
	w->n_slots = n_slots;
	return 0;
}

void wait_places_free(struct kg_wait_places *w)
{
	free(w->slots);
	*w = (struct kg_wait_places){0};
}

/* The slot of key, or the empty one it may take (add: 1), or NULL when the slots probed
 * are all other places'. */
static struct kg_wait_place *slot_of(struct kg_wait_places *w, uint64_t key, int add)
{
	if (!w->slots || key == 0)
		return NULL;
	uint32_t mask = w->n_slots - 1;
	for (uint32_t i = 0; i < WAIT_PLACE_PROBE && i < w->n_slots; i++) {
		struct kg_wait_place *p = &w->slots[((uint32_t)(key >> 32) + i) & mask];
		if (p->key == key)
			return p;
		if (p->key == 0) {
			if (!add)
				return NULL;
			p->key = key;
			w->places++;
			return p;
		}
	}
	return NULL;
}

uint32_t wait_places_reuse(struct kg_wait_places *w, uint64_t key)
{
	struct kg_wait_place *p = slot_of(w, key, 0);
	if (!p || p->varies || p->agreed < WAIT_PLACE_TRUST)
		return 0;
	if (++p->since_check >= WAIT_PLACE_CHECK) {
		p->since_check = 0;
		w->checked++;
		return 0;
	}
	w->reused++;
	return p->stack;
}

void wait_places_learn(struct kg_wait_places *w, uint64_t key, uint64_t stack_hash, uint32_t stack)
{
	struct kg_wait_place *p = slot_of(w, key, 1);
	if (!p || p->varies || stack == 0)
		return;
	if (p->agreed == 0 || p->stack_hash == stack_hash) {
		p->stack_hash = stack_hash;
		p->stack = stack; /* the newest id: the tables may have been emptied since */
		if (p->agreed < WAIT_PLACE_TRUST)
			p->agreed++;
		return;
	}
	p->varies = 1;
	w->varying++;
}
