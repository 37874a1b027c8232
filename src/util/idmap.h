/* A hash map from uint64 keys to uint32 values (indices), open addressing: the model's
 * lookups (streams, threads, correlation ids) and the readers' (processes, devices). */
#ifndef KGANTT_IDMAP_H
#define KGANTT_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define KG_IDMAP_NONE UINT32_MAX

struct kg_idmap {
	uint64_t *keys; /* key + 1; 0 marks an empty slot (no key reaches UINT64_MAX) */
	uint32_t *vals;
	size_t cap, count;
};

/* A 64-bit mixer (murmur3's finaliser): good hash keys from ids and tuples of ids. */
uint64_t idmap_mix(uint64_t x);

/* The value slot of key, added holding KG_IDMAP_NONE when new; NULL when out of memory. */
uint32_t *idmap_slot(struct kg_idmap *h, uint64_t key);
/* The value slot of an existing key, NULL when absent. */
uint32_t *idmap_find(const struct kg_idmap *h, uint64_t key);
/* The value of key, KG_IDMAP_NONE when absent. */
uint32_t idmap_get(const struct kg_idmap *h, uint64_t key);
/* Room for n keys without growing: a million-key table grown step by step rehashes many
 * times. 0 or -ENOMEM. */
int idmap_reserve(struct kg_idmap *h, size_t n);
void idmap_free(struct kg_idmap *h);

#endif
