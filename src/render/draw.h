/* What every cairo chart of kgantt draws text and colours with (the plot_*.c of the Gantt
 * chart, plot_hw.c, plot_sm.c, plot_job.c): one font, one colour type, one way to fit a
 * label into a width. */
#ifndef KGANTT_DRAW_H
#define KGANTT_DRAW_H

#include <cairo.h>

struct rgb {
	double r, g, b;
};

#define RGB(h) {((h) >> 16 & 255) / 255.0, ((h) >> 8 & 255) / 255.0, ((h) & 255) / 255.0}

#define FONT "DejaVu Sans"

void set_rgb(cairo_t *cr, struct rgb c);
void font(cairo_t *cr, double size, int bold);
/* Width of s in the current font, px. */
double text_w(cairo_t *cr, const char *s);
/* Draws s at (x, y), made valid UTF-8 (cairo draws nothing of a string that is not) and
 * cut to maxw px with "…"; returns the width drawn. */
double text_fit(cairo_t *cr, double x, double y, double maxw, const char *s, struct rgb c);

#endif
