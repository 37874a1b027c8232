/* String interning: the same text always gets the same small id (1, 2, 3 ...).
 * Used by the recorder (kernel and API names become ids in the spool) and by the
 * importer (every trace string is stored once in the `strings` table). */
#ifndef KGANTT_STRTAB_H
#define KGANTT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct kg_strtab {
	uint32_t *slots;   /* open addressing: index into entries + 1, 0 = empty */
	size_t nslots;     /* power of two */
	char **entries;    /* entries[id - 1] = text */
	size_t count, cap;
};

void strtab_init(struct kg_strtab *t);
void strtab_free(struct kg_strtab *t);
/* Returns the id of `s` (len bytes), adding it when new; *added says whether it was new.
 * Returns 0 on allocation failure. */
uint32_t strtab_intern(struct kg_strtab *t, const char *s, size_t len, int *added);
const char *strtab_get(const struct kg_strtab *t, uint32_t id);
uint64_t strtab_hash(const char *s, size_t len);

#endif
