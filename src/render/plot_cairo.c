/* The Gantt chart drawn with cairo (plot.h). One drawing path for the three formats: only
 * the surface differs (image for PNG, SVG, PDF).
 *
 * This file prepares the chart and draws the page in its order; the parts it draws are
 * in plot_lanes.c, plot_marks.c and plot_frame.c, the manifest in plot_manifest.c, what
 * they share in plot_internal.h and plot_common.c. */
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "render/chart_out.h"
#include "render/host_strip.h"
#include "render/layout.h"
#include "render/plot.h"
#include "render/plot_hw.h"
#include "render/plot_internal.h"
#include "render/plot_sm.h"

/* ---------------------------------------------------------------- the page */

/* The SM panel's bars take the kernel lanes' colours. */
static void sm_colour(void *arg, const struct kg_op *o, double rgb[3])
{
	struct rgb c = op_colour(arg, o);
	rgb[0] = c.r, rgb[1] = c.g, rgb[2] = c.b;
}

/* plot --sm: the SM lanes under the stream lanes (render/plot_sm.c); its height. */
static double sm_panel(struct plot *p, double y)
{
	if (!p->sm_h)
		return 0;
	if (plot_sm_draw(p->cr, p->m, &p->l, p->o, y, MARGIN, sm_colour, p, &p->sm_drawn) < 0)
		p->oom = 1;
	return p->sm_h;
}

static void draw(struct plot *p)
{
	cairo_t *cr = p->cr;
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	page_title(p);
	lane_backgrounds(p);
	plot_hw_backgrounds(cr, p->m, &p->l, MARGIN);
	time_axis(p);
	step_row(p);
	lane_labels(p);
	plot_edges(p);
	cairo_save(cr);
	cairo_rectangle(cr, p->l.x0, p->l.lanes_top, p->l.x1 - p->l.x0,
			p->l.lanes_bottom - p->l.lanes_top);
	cairo_clip(cr);
	if (p->a)
		edge_bands(p);
	for (uint32_t i = 0; i < p->l.n_lanes; i++) {
		enum kg_lane_kind k = p->l.lanes[i].kind;
		if (k == KG_LANE_STREAM) {
			phase_pass(p, &p->l.lanes[i], 0);
			phase_pass(p, &p->l.lanes[i], 1);
			stream_blocks(p, i);
		} else if (k == KG_LANE_API) {
			api_lane(p, i);
			if (p->l.lanes[i].strip_h > 0)
				host_strip(p, i);
		} else {
			nvtx_lane(p, i);
		}
	}
	if (p->a)
		annotations(p);
	step_lines(p);
	cairo_restore(cr);
	if (plot_hw_draw(cr, p->m, &p->l, MARGIN) < 0)
		p->oom = 1;
	double y = p->l.lanes_bottom + (p->l.lanes_bottom - p->l.lanes_top > 500 ? 26 : 10);
	y += sm_panel(p, y);
	y += legend(p, y, 1);
	finding_lines(p, y, 1);
}

/* ---------------------------------------------------------------- writing */

/* The chart's drawing, for chart_write (render/chart_out.h). */
static int draw_chart(cairo_t *cr, void *arg)
{
	struct plot *p = arg;
	p->cr = cr;
	draw(p);
	p->cr = NULL;
	return p->oom ? -ENOMEM : 0;
}

/* ---------------------------------------------------------------- entry points */

static void layout_opts_of(const struct kg_plot_opts *o, struct kg_layout_opts *lo)
{
	double w = o->width > 0 ? o->width : 1600;
	double label = w * 0.17 < 250 ? w * 0.17 : 250;
	*lo = (struct kg_layout_opts){
		.t0 = o->t0, .t1 = o->t1, .width = w, .height = o->height,
		.label_width = label < 120 ? 120 : label, .right_margin = RIGHT_MARGIN,
		.top_space = MARGIN + TITLE_H + AXIS_H, .device = o->device,
		.streams = o->streams, .n_streams = o->n_streams, .host_lanes = o->host_lanes,
		.hw_strip_h = o->no_hw ? 0 : KG_PLOT_HW_STRIP_H,
	};
}

uint32_t plot_count_ops(const struct kg_model *m, const struct kg_plot_opts *o)
{
	struct kg_layout_opts lo;
	layout_opts_of(o, &lo);
	uint32_t n = 0;
	for (uint32_t s = 0; s < m->n_streams; s++) {
		if (!layout_stream_selected(m, &lo, s))
			continue;
		for (uint32_t i = 0; i < m->streams[s].nops; i++)
			n += (uint32_t)layout_op_in_window(&m->ops[m->streams[s].first_op + i], o->t0,
							   o->t1);
	}
	return n;
}

/* What is drawn above and below the lanes depends on text widths: the step numbers (and
 * with them whether the legend names the step boundary), the legend's height. Measured on
 * a scratch surface; 0 or -ENOMEM. */
static int measure_frame(struct plot *p, const struct kg_layout_opts *lo)
{
	double x0, x1;
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	p->cr = cairo_create(sf);
	p->l.width = lo->width;
	layout_x_span(lo, &x0, &x1);
	int rc = step_marks_plan(p, p->cr, x0, x1);
	p->legend_h = legend(p, 0, 0);
	p->legend_h += finding_lines(p, p->legend_h, 0);
	cairo_destroy(p->cr);
	cairo_surface_destroy(sf);
	p->cr = NULL;
	return rc;
}

static int prepare(struct plot *p)
{
	struct kg_layout_opts lo;
	layout_opts_of(p->o, &lo);
	if (host_strips_plan(p) < 0)
		return -ENOMEM;
	lo.host_strip_h = p->hs.cause ? KG_HOST_STRIP_H : 0;
	if (measure_frame(p, &lo) < 0)
		return -ENOMEM;
	lo.top_space += p->step_row_h;
	p->sm_h = p->o->sm ? plot_sm_height(p->m, p->o) : 0;
	/* room for a bottom axis too: layout does not know yet whether it will be needed */
	lo.bottom_space = p->legend_h + 26 + MARGIN + p->sm_h;
	if (layout_build(p->m, &lo, &p->l) < 0)
		return -ENOMEM;
	if (lo.height <= 0 && p->l.lanes_bottom - p->l.lanes_top <= 500)
		p->l.height -= 16;
	p->ncols = (int)ceil(p->l.x1 - p->l.x0) + 1;
	p->counts = calloc((size_t)p->l.n_lanes + 1, sizeof(*p->counts));
	p->col_busy = calloc((size_t)p->ncols, sizeof(double));
	p->col_rgb = calloc((size_t)p->ncols * 3, sizeof(double));
	p->colour_of_name = calloc((size_t)p->m->strings.count + 2, 1);
	if (!p->counts || !p->col_busy || !p->col_rgb || !p->colour_of_name ||
	    host_strips_alloc(p) < 0)
		return -ENOMEM;
	return p->a ? annotation_index(p) : 0;
}

static void plot_free(struct plot *p)
{
	layout_free(&p->l);
	free(p->counts);
	free(p->col_busy);
	free(p->col_rgb);
	free(p->colour_of_name);
	free(p->stats_of_name);
	free(p->marks);
	free(p->fmarks);
	free(p->steps.labelled);
	host_strips_free(p);
}

int plot_render(const struct kg_model *m, const struct kg_plot_notes *notes,
		const struct kg_plot_opts *o, const char *path, const char *manifest,
		char *err, size_t errlen)
{
	struct plot p = {.m = m, .o = o, .a = notes ? notes->analysis : NULL};
	int rc = prepare(&p);
	if (rc < 0) {
		snprintf(err, errlen, "out of memory drawing '%s'", path);
		plot_free(&p);
		return rc;
	}
	rc = chart_write(o->format, o->dpi, p.l.width, p.l.height, draw_chart, &p, path,
			 "the chart", err, errlen);
	if (!rc && manifest)
		rc = write_manifest(&p, path, manifest, err, errlen);
	plot_free(&p);
	return rc;
}
