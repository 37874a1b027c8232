/* The program's steps (analysis/steps.h) on the Gantt chart (plot_cairo.c): under the
 * time labels, a row with a tick at each step's GPU start and its number just right of
 * it (1-based, as kgantt report numbers them; "w3" a warm-up step), and a faint dashed
 * line over the lanes at the same place, so that a stall reads as "in step 12". How close
 * they may lie is layout.h's (KG_STEP_TICK_PX, layout_step_every), as in the page. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "render/plot_internal.h"
#include "util/format.h"
#include "util/timemath.h"

#define LABEL_GAP 5.0 /* px at least between one step number and the next */

const char *step_label(const struct kg_steps *st, uint32_t i, char buf[16])
{
	snprintf(buf, 16, "%s%" PRIu32, st->v[i].warmup ? "w" : "", i + 1);
	return buf;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* The median distance between consecutive starts of the window's steps, px (the plot's
 * width for one step): the median, so that a few outlier steps do not decide for all. */
static int median_spacing(const struct kg_steps *st, struct step_marks *sm, double px_per_ns,
			  double width)
{
	uint32_t gaps = sm->n - 1;
	if (!gaps) {
		sm->spacing = width;
		return 0;
	}
	double *d = malloc(gaps * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (uint32_t i = 0; i < gaps; i++) {
		const struct kg_step *s = &st->v[sm->first + i];
		d[i] = (double)kg_time_diff(s[1].start, s[0].start) * px_per_ns;
	}
	qsort(d, gaps, sizeof(*d), by_value);
	sm->spacing = d[gaps / 2];
	free(d);
	return 0;
}

/* The widest number the window's steps are labelled with, px, with the gap after it. */
static double widest_label(const struct kg_steps *st, const struct step_marks *sm, cairo_t *cr)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%s%" PRIu32, sm->warm ? "w" : "", sm->first + sm->n);
	font(cr, 9, 0);
	return text_w(cr, buf) + LABEL_GAP;
}

int step_marks_plan(struct plot *p, cairo_t *cr, double x0, double x1)
{
	struct step_marks *sm = &p->steps;
	const struct kg_steps *st = p->a ? &p->a->steps : NULL;
	free(sm->labelled);
	*sm = (struct step_marks){0};
	p->step_row_h = 0;
	if (!st || !st->n)
		return 0;
	uint32_t lo = 0, hi = st->n; /* the first step starting at t0 or later */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (st->v[mid].start < p->o->t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	sm->first = lo;
	while (lo < st->n && st->v[lo].start < p->o->t1)
		lo++;
	sm->n = lo - sm->first;
	if (!sm->n)
		return 0;
	for (uint32_t i = 0; i < sm->n && !sm->warm; i++)
		sm->warm = st->v[sm->first + i].warmup;
	p->step_row_h = STEP_ROW_H;
	double px_per_ns = (x1 - x0) / (double)kg_time_diff(p->o->t1, p->o->t0);
	if (median_spacing(st, sm, px_per_ns, x1 - x0) < 0)
		return -ENOMEM;
	sm->ticks = sm->spacing >= KG_STEP_TICK_PX;
	sm->lines = sm->spacing >= KG_STEP_LINE_PX;
	if (!sm->ticks)
		return 0;
	sm->every = layout_step_every(sm->spacing, widest_label(st, sm, cr));
	sm->labelled = calloc(sm->n, 1);
	return sm->labelled ? 0 : -ENOMEM;
}

/* Steps too close to tell apart: what the row holds instead of a wall of ticks. */
static void too_close(struct plot *p, double y)
{
	const struct step_marks *sm = &p->steps;
	char line[200], gap[32];
	fmt_duration((int64_t)(sm->spacing / p->l.px_per_ns), gap);
	snprintf(line, sizeof(line),
		 "steps %" PRIu32 "–%" PRIu32 " start %s apart (median): too close to mark at "
		 "this width (--steps N-M or --from/--to draws fewer)",
		 sm->first + 1, sm->first + sm->n, gap);
	font(p->cr, 9, 0);
	text_fit(p->cr, p->l.x0 + 4, y, p->l.x1 - p->l.x0 - 8, line, c_muted);
}

/* The numbers of every k-th step, each just right of its tick, never two overlapping. */
static void step_numbers(struct plot *p, double y)
{
	const struct kg_steps *st = &p->a->steps;
	struct step_marks *sm = &p->steps;
	double right = -HUGE_VAL;
	char buf[16];
	font(p->cr, 9, 0);
	for (uint32_t k = 0; k < sm->n; k++) {
		uint32_t i = sm->first + k;
		if ((i + 1) % sm->every)
			continue;
		double x = floor(layout_x(&p->l, st->v[i].start)) + 2.5;
		double w = text_w(p->cr, step_label(st, i, buf));
		if (x < right + LABEL_GAP || x + w > p->l.width - 4)
			continue;
		text_at(p->cr, x, y, buf, st->v[i].warmup ? c_muted : c_text);
		sm->labelled[k] = 1;
		right = x + w;
	}
}

void step_row(struct plot *p)
{
	const struct step_marks *sm = &p->steps;
	if (!p->step_row_h)
		return;
	cairo_t *cr = p->cr;
	double bottom = p->l.lanes_top, top = bottom - p->step_row_h;
	fill_rect(cr, p->l.x0, top, p->l.x1 - p->l.x0, p->step_row_h, c_step_bg);
	font(cr, 9.5, 0);
	text_fit(cr, MARGIN, bottom - 4, p->l.x0 - MARGIN - 8, "step", c_muted);
	if (!sm->ticks) {
		too_close(p, bottom - 4);
		return;
	}
	step_numbers(p, bottom - 5);
	/* as on a ruler: a numbered step's tick the row's height, the others' short, under
	 * the numbers, which they would cross */
	set_rgb(cr, c_step);
	cairo_set_line_width(cr, 1);
	for (uint32_t k = 0; k < sm->n; k++) {
		double x = floor(layout_x(&p->l, p->a->steps.v[sm->first + k].start)) + 0.5;
		cairo_move_to(cr, x, sm->labelled[k] ? top : bottom - 4);
		cairo_line_to(cr, x, bottom);
	}
	cairo_stroke(cr);
}

void step_lines(struct plot *p)
{
	const struct step_marks *sm = &p->steps;
	if (!sm->lines)
		return;
	static const double dash[] = {3, 3};
	cairo_t *cr = p->cr;
	cairo_save(cr);
	cairo_set_source_rgba(cr, c_step.r, c_step.g, c_step.b, 0.6);
	cairo_set_line_width(cr, 1);
	cairo_set_dash(cr, dash, 2, 0);
	for (uint32_t k = 0; k < sm->n; k++) {
		double x = floor(layout_x(&p->l, p->a->steps.v[sm->first + k].start)) + 0.5;
		for (uint32_t i = 0; i < p->l.n_lanes; i++) { /* not over the group headers */
			cairo_move_to(cr, x, p->l.lanes[i].y);
			cairo_line_to(cr, x, p->l.lanes[i].y + p->l.lanes[i].h);
		}
	}
	cairo_stroke(cr);
	cairo_restore(cr);
}
