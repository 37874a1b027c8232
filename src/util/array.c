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

/* Percentiles of a million durations need two selections, not a sort. */
int64_t select_kth(int64_t *v, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		/* median of three as the pivot keeps sorted input linear */
		int64_t a = v[lo], b = v[mid], c = v[hi];
		int64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		uint32_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}
