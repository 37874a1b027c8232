/* The hardware-sample strips of `kgantt plot` (`kgantt record --hw`): under each sampled
 * device's stream lanes, SM active, achieved occupancy, DRAM bandwidth and tensor-pipe
 * activity over time, on the same time axis as the kernels above them. The layout places
 * the strips (render/layout.h: kg_hw_strip, opts.hw_strip_h); plot_cairo.c calls these.
 *
 *   plot_hw_backgrounds(cr, m, &l, MARGIN);    before the time grid
 *   ... lanes ...
 *   plot_hw_draw(cr, m, &l, MARGIN);           labels, legend, scale and curves
 *
 * A zoomed-in window draws each sample as a step; when the window holds more samples
 * than pixel columns, each column is drawn from the samples under it: their
 * mean as the curve and their minimum to maximum as a light band. */
#ifndef KGANTT_PLOT_HW_H
#define KGANTT_PLOT_HW_H

#include <cairo.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "render/layout.h"

/* Height of a strip with samples, px (opts.hw_strip_h). */
#define KG_PLOT_HW_STRIP_H 72.0

/* The strips' backgrounds from x = margin to the plot's right edge: drawn before the time
 * grid, so that its lines cross the strips as they cross the lanes. */
void plot_hw_backgrounds(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
			 double margin);

/* Labels, legend and scale in the label column, the curves clipped to the plot area.
 * 0, or -ENOMEM (the picture then lacks some curves). */
int plot_hw_draw(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		 double margin);

/* `"hw_strips": [...]` of the plot's manifest (docs/plot.md), with a trailing ",\n". */
void plot_hw_manifest(FILE *f, const struct kg_model *m, const struct kg_layout *l);

#endif
