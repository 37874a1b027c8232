/* The SM panel of `kgantt plot --sm` (`kgantt record --sm`): for each device whose kernels
 * logged their blocks (include/kgantt/sm.h), one lane per SM, by SM id, each block a bar
 * from its start to its end in its kernel's colour, under the stream lanes and on their
 * time axis. Blocks that share an SM at the same time are stacked within its lane (up to
 * four rows); blocks of one kernel closer than a pixel merge into one bar.
 *
 *   h = plot_sm_height(m, &o);                          room below the lanes
 *   plot_sm_draw(cr, m, &l, &o, y, MARGIN, colour, arg, &drawn);
 *   plot_sm_manifest(f, &drawn);                        "sm_lanes", "sm_blocks"
 */
#ifndef KGANTT_PLOT_SM_H
#define KGANTT_PLOT_SM_H

#include <cairo.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "render/layout.h"
#include "render/plot.h"

/* What was drawn, for the manifest (docs/plot.md). */
struct kg_sm_drawn {
	uint32_t panels;        /* devices with an SM panel */
	uint32_t lanes;         /* SM lanes over all panels */
	uint32_t blocks;        /* blocks of the window drawn */
	uint32_t bars;          /* bars they made (blocks closer than a pixel merge) */
	uint32_t kernels;       /* distinct kernels among them */
};

/* The kernel's colour, as the kernel lanes have it. */
typedef void (*kg_sm_colour_fn)(void *arg, const struct kg_op *o, double rgb[3]);

/* Height in px of the SM panels for the window and the device/stream filters of o; a
 * one-line note when the trace has blocks but none in the window; 0 without blocks. */
double plot_sm_height(const struct kg_model *m, const struct kg_plot_opts *o);

/* Draws the panels from y down, the lanes' labels from x = margin, the bars on l's time
 * axis. 0, or -ENOMEM (the picture then lacks some bars). */
int plot_sm_draw(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		 const struct kg_plot_opts *o, double y, double margin, kg_sm_colour_fn colour,
		 void *arg, struct kg_sm_drawn *drawn);

/* `"sm": {...}` of the manifest, with a trailing ",\n" (nothing when no panel). */
void plot_sm_manifest(FILE *f, const struct kg_sm_drawn *d);

#endif
