#include "util/strtab.h"

#include <stdlib.h>
#include <string.h>

void strtab_init(struct kg_strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void strtab_free(struct kg_strtab *t)
{
	for (size_t i = 0; i < t->count; i++)
		free(t->entries[i]);
	free(t->entries);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

/* FNV-1a: short names, no need for anything stronger. */
uint64_t strtab_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static int strtab_grow(struct kg_strtab *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < t->count; i++) {
		const char *e = t->entries[i];
		size_t j = strtab_hash(e, strlen(e)) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

uint32_t strtab_intern(struct kg_strtab *t, const char *s, size_t len, int *added)
{
	if (added)
		*added = 0;
	if ((t->count + 1) * 2 > t->nslots && strtab_grow(t) < 0)
		return 0;
	size_t j = strtab_hash(s, len) & (t->nslots - 1);
	while (t->slots[j]) {
		const char *e = t->entries[t->slots[j] - 1];
		if (strncmp(e, s, len) == 0 && e[len] == '\0')
			return t->slots[j];
		j = (j + 1) & (t->nslots - 1);
	}
	if (t->count == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		char **entries = realloc(t->entries, cap * sizeof(*entries));
		if (!entries)
			return 0;
		t->entries = entries;
		t->cap = cap;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return 0;
	memcpy(copy, s, len);
	copy[len] = '\0';
	t->entries[t->count++] = copy;
	t->slots[j] = (uint32_t)t->count;
	if (added)
		*added = 1;
	return (uint32_t)t->count;
}

const char *strtab_get(const struct kg_strtab *t, uint32_t id)
{
	if (id == 0 || id > t->count)
		return NULL;
	return t->entries[id - 1];
}
