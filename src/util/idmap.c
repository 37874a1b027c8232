#include "util/idmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint64_t idmap_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static int rehash(struct kg_idmap *h, size_t cap)
{
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->cap; i++) {
		if (!h->keys[i])
			continue;
		size_t j = idmap_mix(h->keys[i]) & (cap - 1);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = h->keys[i];
		vals[j] = h->vals[i];
	}
	free(h->keys);
	free(h->vals);
	h->keys = keys;
	h->vals = vals;
	h->cap = cap;
	return 0;
}

int idmap_reserve(struct kg_idmap *h, size_t n)
{
	size_t cap = h->cap ? h->cap : 64;
	while (cap < 2 * n + 2)
		cap *= 2;
	return cap > h->cap ? rehash(h, cap) : 0;
}

uint32_t *idmap_slot(struct kg_idmap *h, uint64_t key)
{
	if ((h->count + 1) * 2 > h->cap && rehash(h, h->cap ? h->cap * 2 : 64) < 0)
		return NULL;
	key++;
	size_t j = idmap_mix(key) & (h->cap - 1);
	while (h->keys[j] && h->keys[j] != key)
		j = (j + 1) & (h->cap - 1);
	if (!h->keys[j]) {
		h->keys[j] = key;
		h->vals[j] = KG_IDMAP_NONE;
		h->count++;
	}
	return &h->vals[j];
}

uint32_t *idmap_find(const struct kg_idmap *h, uint64_t key)
{
	if (!h->cap)
		return NULL;
	key++;
	for (size_t j = idmap_mix(key) & (h->cap - 1); h->keys[j]; j = (j + 1) & (h->cap - 1))
		if (h->keys[j] == key)
			return &h->vals[j];
	return NULL;
}

uint32_t idmap_get(const struct kg_idmap *h, uint64_t key)
{
	const uint32_t *v = idmap_find(h, key);
	return v ? *v : KG_IDMAP_NONE;
}

void idmap_free(struct kg_idmap *h)
{
	free(h->keys);
	free(h->vals);
	memset(h, 0, sizeof(*h));
}
