/* One process's SM placement from its spool (recorder/smlog.c) → the trace's tables
 * sm_blocks and sm_settings (docs/trace-format.md), and the recorder's own driver calls
 * left out of api_calls, memcpys and memsets.
 *
 * Blocks are kept as the spool reader meets them; at the end of the process, when every
 * kernel is in the trace, sm_import_write matches each block to its kernel by (context,
 * grid id), puts the blocks' %globaltimer times on the trace's clock and writes the rows.
 *
 * The clock: %globaltimer is the GPU's own nanosecond timer, near CLOCK_REALTIME but not
 * on it. Each kernel gives one estimate of the offset to the trace's clock, its CUPTI start
 * minus its earliest block's start (the first block starts within a microsecond or so of
 * the kernel); the median over a device's kernels is used, and the spread and the median
 * absolute deviation of the estimates are stored as what the alignment is worth. */
#ifndef KGANTT_SM_IMPORT_H
#define KGANTT_SM_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/raw_format.h"
#include "trace/spool_import.h"

struct kg_sm_import;

struct kg_sm_import *sm_import_new(void);
void sm_import_free(struct kg_sm_import *s);

/* A KG_RAW_SM_BLOCKS record of `size` bytes: checked and kept. 0, -EINVAL with why (the
 * record is not what it says), or -ENOMEM. */
int sm_import_blocks(struct kg_sm_import *s, const struct kg_raw_sm_blocks *r, size_t size,
		     char *why, size_t whylen);
/* A KG_RAW_SM_OWN record. 0 or -ENOMEM. */
int sm_import_own(struct kg_sm_import *s, const struct kg_raw_sm_own *r);

/* 1 when an API record (domain enum kg_api_domain, CUPTI cbid, correlation id) or a copy
 * or memset (correlation id) is the recorder's own: left out of the trace, and counted.
 * s may be NULL (a spool without SM records). */
int sm_import_own_api(struct kg_sm_import *s, uint32_t domain, uint32_t cbid,
		      uint32_t correlation);
int sm_import_own_copy(struct kg_sm_import *s, uint32_t correlation);

/* 1 when sm_import_write is to be given the process's kernels (s may be NULL: 0). */
int sm_import_needs_kernels(const struct kg_sm_import *s);
/* A kernel of the process, in the order of the trace's ids: its id, context, grid id and
 * CUPTI start (0 unknown). 0 or -ENOMEM. */
int sm_import_kernel(struct kg_sm_import *s, int64_t id, uint32_t context, uint64_t grid,
		     int64_t start);

/* After the process's last record and its kernels (sm_import_kernel): writes its
 * sm_blocks and sm_settings rows, and a warning in messages when blocks matched no
 * kernel. s may be NULL. 0 or a negative errno (message in im->err). */
int sm_import_write(struct kg_sm_import *s, struct kg_import *im, int64_t process);

#endif
