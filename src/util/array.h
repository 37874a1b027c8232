/* Growing arrays: one doubling rule for every array the library appends to. */
#ifndef KGANTT_ARRAY_H
#define KGANTT_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* Room for element n of *arr (elements of size bytes, *cap of them allocated): doubles
 * the array when n reaches *cap, starting at first. 0, or -ENOMEM (the array is kept). */
int array_room(void **arr, uint32_t *cap, uint32_t n, size_t size, uint32_t first);

/* Advice that the bytes at p, a large array, be backed by 2 MiB pages where the kernel
 * allows it (transparent huge pages in "madvise" mode, many distributions' default): a
 * 512th of the page faults and TLB misses of 4 KiB pages. Nothing for less than 4 MiB, or
 * where the kernel declines. */
void array_advise_huge(void *p, size_t bytes);

/* The index of percentile p (0..1) among n > 0 sorted values: nearest rank, one rule for
 * every percentile (p50 <= p99 whatever n). */
static inline uint32_t array_pct_rank(uint32_t n, double p)
{
	uint32_t i = (uint32_t)(p * (n - 1) + 0.5);
	return i < n ? i : n - 1;
}

/* The k-th smallest of v[0..n) (0-based, n > 0), reordering v: quickselect, O(n) on
 * average. It leaves v partitioned around k: nothing before k is larger, nothing after it
 * smaller. */
int64_t select_kth(int64_t *v, uint32_t n, uint32_t k);

#endif
