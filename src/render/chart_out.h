/* Writing a cairo chart to a file as PNG, SVG or PDF: the surface for the format, the
 * scale of its pixels, PNG's size limit, and the file itself through util/outfile.h (a
 * temporary file renamed into place; FIFOs, devices and "-" written directly). Every
 * chart kgantt draws (the trace's Gantt chart, the job's lanes) is written by this. */
#ifndef KGANTT_CHART_OUT_H
#define KGANTT_CHART_OUT_H

#include <cairo.h>
#include <stddef.h>

#include "render/plot.h"

/* Draws the chart on cr, in px of the chart's width and height; 0, or -ENOMEM. */
typedef int (*chart_draw_fn)(cairo_t *cr, void *arg);

/* Surface pixels (or points) per chart px: dpi/96 for PNG, 0.75 for PDF, 1 for SVG. */
double chart_pixel_scale(enum kg_plot_format format, int dpi);

/* Draws a width x height chart with draw(cr, arg) and writes it to path. what names the
 * file in messages ("the chart"). 0, or a negative errno-style code with a message in err
 * naming the file (-EFBIG for a PNG larger than 32767 pixels a side). */
int chart_write(enum kg_plot_format format, int dpi, double width, double height,
		chart_draw_fn draw, void *arg, const char *path, const char *what, char *err,
		size_t errlen);

#endif
