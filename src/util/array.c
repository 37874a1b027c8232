#include "util/array.h"

#include <errno.h>
#include <stdlib.h>

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
	return 0;
}
