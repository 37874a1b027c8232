#include "util/array.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

void array_advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t page = 4096, huge = (uintptr_t)2 << 20;
	if (!p || bytes < 2 * huge)
		return;
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t e = ((uintptr_t)p + bytes) & ~(page - 1);
	(void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* advice: a refusal changes nothing */
#else
	(void)p;
	(void)bytes;
#endif
}

int array_room(void **arr, uint32_t *cap, uint32_t n, size_t size, uint32_t first)
{
	if (n < *cap)
		return 0;
	uint64_t want = *cap ? (uint64_t)*cap * 2 : first;
	if (want <= n)
		want = (uint64_t)n + 1;
	if (want > UINT32_MAX || want > SIZE_MAX / size)
		return -ENOMEM;
	void *p = realloc(*arr, (size_t)want * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = (uint32_t)want;
	array_advise_huge(p, (size_t)want * size);
	return 0;
}
