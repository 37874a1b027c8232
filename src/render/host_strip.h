/* The host strip of the charts (plot and view): under a host thread's CUDA API lane, its
 * host spans (model.host_spans), each coloured by its cause (analysis/host.h,
 * host_span_causes); where several fall in a pixel, the pixel takes the cause with the
 * most time there. One table of colours: plot draws with it, the page gets it in its data. */
#ifndef KGANTT_HOST_STRIP_H
#define KGANTT_HOST_STRIP_H

#include <stdint.h>

#include "analysis/host.h"

#define KG_HOST_STRIP_H 7.0 /* px, in plot and in the page */
/* Time off CPU (blocked, waiting for the GIL, idle) is its cause's colour this much mixed
 * with white: the same cause, visibly not running. */
#define KG_HOST_OFF_CPU_LIGHT 0.55

/* 0xRRGGBB by enum kg_host_cause: the waits warm, the work cool, "other" grey. */
static const uint32_t host_cause_rgb[KG_HOST_CAUSE_COUNT] = {
	[KG_HOST_CAUSE_TRACER] = 0x8d8d8d,   [KG_HOST_CAUSE_LOCK] = 0xd62728,
	[KG_HOST_CAUSE_GC] = 0x8c564b,       [KG_HOST_CAUSE_IMPORT] = 0xe377c2,
	[KG_HOST_CAUSE_COMPILE] = 0x9467bd,
	[KG_HOST_CAUSE_COMPILED] = 0x17becf, [KG_HOST_CAUSE_DATA] = 0xff7f0e,
	[KG_HOST_CAUSE_ALLOC] = 0xbcbd22,    [KG_HOST_CAUSE_READ] = 0x2ca02c,
	[KG_HOST_CAUSE_SYNC] = 0xa05195,
	[KG_HOST_CAUSE_IO] = 0xf1ce63,       [KG_HOST_CAUSE_CPU] = 0x252525,
	[KG_HOST_CAUSE_DISPATCH] = 0x4e79a7,
	[KG_HOST_CAUSE_OTHER] = 0xc2c7cf,
};

#endif
