/* The recorder's side of the raw spool: an append-only file of kg_raw_* records.
 * All calls take the spool lock; records are staged in memory and leave the process
 * with write(2) at every spool_flush(), which the recorder calls after each CUPTI buffer. */
#ifndef KGANTT_SPOOL_H
#define KGANTT_SPOOL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "recorder/raw_format.h"
#include "util/strtab.h"

struct kg_spool {
	int fd;
	pthread_mutex_t lock;
	char *buf;
	size_t len, cap;
	struct kg_strtab strings;
	uint64_t records;
	int failed;          /* a write failed: stop writing, say so once on stderr */
	char path[4096];
};

int spool_open(struct kg_spool *s, const char *path, size_t stage_bytes);
void spool_close(struct kg_spool *s);
/* Reserve `size` bytes (a multiple of 8) for a record of `type`; returns zeroed memory
 * with the header filled in, or NULL when the spool has failed. Caller holds the lock. */
void *spool_reserve(struct kg_spool *s, uint16_t type, uint32_t size);
/* Intern a string, emitting its KG_RAW_STRING record when new. Caller holds the lock. */
uint32_t spool_string(struct kg_spool *s, const char *text);
/* Write staged records to the file. Caller holds the lock. */
void spool_flush(struct kg_spool *s);

#endif
