/* The largest allocation while a hook is installed (ASan's malloc hooks): what a file can
 * make a reader ask for. */
#ifndef KGANTT_TEST_ALLOC_WATCH_H
#define KGANTT_TEST_ALLOC_WATCH_H

#include <stddef.h>

/* The largest single allocation while the hook is installed: what a file can make the
 * reader ask for. Both reader threads allocate, hence the atomics. */
int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
					      void (*f)(const volatile void *));
static size_t largest_alloc;

static void note_alloc(const volatile void *p, size_t size)
{
	(void)p;
	size_t seen = __atomic_load_n(&largest_alloc, __ATOMIC_RELAXED);
	while (size > seen &&
	       !__atomic_compare_exchange_n(&largest_alloc, &seen, size, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

static void note_free(const volatile void *p)
{
	(void)p;
}

#endif
