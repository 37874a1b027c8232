/* Reading memory that may not be mapped, from a signal handler (recorder/hostsample.c,
 * and recorder/pyframes.c when it runs there).
 *
 * A sampling signal can land while the interrupted thread is half-way through pushing a
 * Python frame or tearing down its thread state, so a pointer followed from there may be
 * stale; and a frame-pointer walk through code built without frame pointers follows
 * whatever the register holds. Reading an unmapped page would kill the program. So every
 * page is checked before its first read: rt_sigprocmask() with an invalid `how` copies
 * the new mask from user memory before it looks at `how`, so it fails with EFAULT when
 * the page cannot be read and with EINVAL when it can, and changes nothing (the check
 * abseil's AddressIsReadable and gperftools use; a system call is async-signal-safe).
 *
 * A check costs a system call (0.5 µs on this project's VM), so the pages found readable
 * are kept, per thread, for KG_PAGE_TTL of that thread's samples: a Python program's hot
 * path touches the same few dozen pages sample after sample. A page that is unmapped
 * while it is kept can only be met again through a pointer to freed memory, which a
 * consistent thread never holds (docs/host-samples.md says what remains). */
#ifndef KGANTT_SAFE_READ_H
#define KGANTT_SAFE_READ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KG_PAGE 4096u           /* the smallest page: checking 4 KiB steps is right for larger ones */
#define KG_PAGES_KEPT 256       /* pages kept per thread (direct-mapped) */
#define KG_PAGE_TTL 256         /* ... for this many of its samples */
#define KG_READ_SPAN (1u << 20) /* one check covers at most this much: larger reads are refused */

struct kg_pages {
	uintptr_t page[KG_PAGES_KEPT]; /* page address | 1 when readable; 0 empty */
	uint32_t stamp[KG_PAGES_KEPT]; /* the sample that checked it */
	uint32_t now;                  /* this thread's sample count */
	uint32_t checks;               /* system calls made (for the cost) */
};

/* A value we are willing to treat as a user-space address. */
static inline int kg_user_ptr(uintptr_t p)
{
	return p >= KG_PAGE && p < ((uintptr_t)1 << 56);
}

static inline int kg_page_readable(struct kg_pages *c, uintptr_t page)
{
	unsigned i = (unsigned)(page / KG_PAGE) % KG_PAGES_KEPT;
	if (c->page[i] == (page | 1) && c->now - c->stamp[i] < KG_PAGE_TTL)
		return 1;
	c->checks++;
	long rc = syscall(SYS_rt_sigprocmask, ~0, (void *)page, (void *)0, 8);
	if (rc == -1 && errno == EFAULT)
		return 0;
	c->page[i] = page | 1;
	c->stamp[i] = c->now;
	return 1;
}

/* Can [addr, addr + len) be read? With c NULL (not in a signal handler): yes. */
static inline int kg_readable(struct kg_pages *c, uintptr_t addr, size_t len)
{
	if (!c)
		return 1;
	if (!kg_user_ptr(addr) || len > KG_READ_SPAN || addr + len < addr)
		return 0;
	uintptr_t last = (addr + (len ? len : 1) - 1) & ~(uintptr_t)(KG_PAGE - 1);
	for (uintptr_t p = addr & ~(uintptr_t)(KG_PAGE - 1); p <= last; p += KG_PAGE)
		if (!kg_page_readable(c, p))
			return 0;
	return 1;
}

#endif
