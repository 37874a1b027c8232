/* The job's chart (plot_job.h): one lane per rank on the job's clock, each lane what its
 * GPU was doing (compute, communication, copies, idle by cause) from the rank's
 * timeline, the time it spent waiting inside each collective for the last rank hatched
 * over it, the last rank's start marked, and the ranks the findings name badged. */
#include "render/plot_job.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart_out.h"
#include "render/draw.h"
#include "render/layout.h"
#include "util/format.h"
#include "util/timemath.h"

#define MARGIN 16
#define HEADER 58
#define AXIS 22
#define LEGEND 40
#define STEP_ROW 12 /* the steps' numbers, between the time labels and the lanes */
#define MAX_LANES_PX 1600.0 /* lanes shrink to fit: a thousand ranks get 1.6 px each */

/* The one table of the lane states' colours: this chart's and the page's (view_job.c). */
static const uint32_t state_hex[KG_BIN_STATES] = {
	0xffffff, /* none */
	0x4e79a7, /* compute */
	0xc2185b, /* communication */
	0xa0a0a0, /* copy */
	0xf2b134, /* idle: host */
	0xd62728, /* idle: sync */
	0xbdbdbd, /* idle: launch */
	0x9467bd, /* idle: dependency */
	0xe0e0e0, /* idle: unknown */
	0xcdd6e2, /* idle: start-up or wind-down */
	0xf3f3f3, /* idle: short gaps */
};

uint32_t job_state_color(enum kg_bin_state s)
{
	return (unsigned)s < KG_BIN_STATES ? state_hex[s] : state_hex[KG_BIN_NONE];
}

static struct rgb state_rgb(enum kg_bin_state s)
{
	return (struct rgb)RGB(job_state_color(s));
}

static const struct rgb c_text = RGB(0x1f2328), c_muted = RGB(0x5f6b7a), c_grid = RGB(0xe4e7eb);
static const struct rgb c_wait = RGB(0x3a0d1f), c_last = RGB(0x000000);
static const struct rgb c_sev[3] = {RGB(0x1565c0), RGB(0xe65100), RGB(0xb71c1c)};

struct job_chart {
	const struct kg_job *j;
	const struct kg_job_plot_opts *o;
	uint32_t *order, n;     /* the lanes: indices into j->ranks */
	double label_w, lane_h, x0, x1, y0;
	double width, height;
	int64_t *last_start;    /* per collective, on the job's clock */
	int64_t *step_start;    /* per step, on the job's clock (job_step_starts) */
	uint32_t n_steps;
	double step_row_h;      /* STEP_ROW under the time labels when there are steps */
	int64_t t0, tspan;      /* the time drawn: the job's steady work (job_rules.c) */
};

static double x_of(const struct job_chart *c, int64_t t)
{
	double f = c->tspan > 0 ? (double)kg_time_diff(t, c->t0) / (double)c->tspan : 0;
	return c->x0 + f * (c->x1 - c->x0);
}

static void rect(cairo_t *cr, double x, double y, double w, double h, struct rgb col)
{
	set_rgb(cr, col);
	cairo_rectangle(cr, x, y, w, h);
	cairo_fill(cr);
}

/* ------------------------------------------------------------------ pieces */

static void header(cairo_t *cr, const struct job_chart *c)
{
	char line[400], d[32];
	snprintf(line, sizeof(line), "%s", c->o->title ? c->o->title : "kgantt job");
	font(cr, 15, 1);
	text_fit(cr, MARGIN, 22, c->width - 2 * MARGIN, line, c_text);
	char steady[120];
	snprintf(d, sizeof(d), "%.2f ms", (double)c->j->span / 1e6);
	job_shown_note(c->j, steady, sizeof(steady));
	const struct kg_job *j = c->j;
	snprintf(line, sizeof(line), "%u %s (%u shown) from %u %s, %u %s, span %s%s; %u %s "
		 "compared; lanes by %s",
		 j->n_ranks, plural(j->n_ranks, "rank", "ranks"), c->n, j->n_files,
		 plural(j->n_files, "trace", "traces"), j->n_hosts,
		 plural(j->n_hosts, "host clock", "host clocks"), d, steady, j->n_collectives,
		 plural(j->n_collectives, "collective", "collectives"),
		 c->o->sort_name ? c->o->sort_name : "rank");
	font(cr, 11, 0);
	text_fit(cr, MARGIN, 40, c->width - 2 * MARGIN, line, c_muted);
}

/* A round step of about span/8: 1, 2 or 5 times a power of ten, in ns. */
static int64_t tick_step(int64_t span)
{
	double raw = (double)span / 8, p = pow(10, floor(log10(raw > 1 ? raw : 1)));
	double m = raw / p < 1.5 ? 1 : raw / p < 3.5 ? 2 : raw / p < 7.5 ? 5 : 10;
	return (int64_t)(m * p) > 0 ? (int64_t)(m * p) : 1;
}

static void axis(cairo_t *cr, const struct job_chart *c)
{
	int64_t step = tick_step(c->tspan), from = kg_time_diff(c->t0, c->j->begin);
	double bottom = c->y0 + c->lane_h * c->n;
	font(cr, 9.5, 0);
	/* labelled with the time since the job began, as the page */
	for (int64_t t = (from + step - 1) / step * step; t <= from + c->tspan && step > 0; t += step) {
		double x = floor(x_of(c, kg_time_add(c->j->begin, t))) + 0.5;
		set_rgb(cr, c_grid);
		cairo_move_to(cr, x, c->y0);
		cairo_line_to(cr, x, bottom);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		char lab[32];
		if (step >= 1000000)
			snprintf(lab, sizeof(lab), "%.0f ms", (double)t / 1e6);
		else
			snprintf(lab, sizeof(lab), "%.2f ms", (double)t / 1e6);
		double w = text_w(cr, lab);
		text_fit(cr, x - w / 2 > c->x0 ? x - w / 2 : c->x0, c->y0 - c->step_row_h - 6, 80,
			 lab, c_muted);
	}
}

/* The job's steps under the time labels: a tick at each step's start and the number of
 * every k-th (layout.h: as the single-trace chart and the page), a faint line over the
 * lanes when they lie far enough apart; nothing when they are too close to tell. */
static void step_marks(cairo_t *cr, const struct job_chart *c)
{
	uint32_t first = UINT32_MAX, last = 0;
	for (uint32_t s = 0; s < c->n_steps; s++)
		if (c->step_start[s] >= c->t0 && c->step_start[s] <= kg_time_add(c->t0, c->tspan)) {
			first = first == UINT32_MAX ? s : first;
			last = s;
		}
	if (first == UINT32_MAX || last == first || c->tspan <= 0)
		return;
	double px = (x_of(c, c->step_start[last]) - x_of(c, c->step_start[first])) / (last - first);
	if (px < KG_STEP_TICK_PX)
		return;
	char lab[16];
	font(cr, 8.5, 0);
	snprintf(lab, sizeof(lab), "%u", last + 1);
	uint32_t every = layout_step_every(px, text_w(cr, lab) + 4);
	double y = c->y0 - 3, bottom = c->y0 + c->lane_h * c->n;
	for (uint32_t s = first; s <= last; s++) {
		double x = floor(x_of(c, c->step_start[s])) + 0.5;
		set_rgb(cr, c_muted);
		cairo_set_line_width(cr, 1);
		cairo_move_to(cr, x, y - 4);
		cairo_line_to(cr, x, y);
		cairo_stroke(cr);
		if (px >= KG_STEP_LINE_PX) {
			cairo_set_source_rgba(cr, 0.2, 0.2, 0.2, 0.25);
			cairo_set_dash(cr, (double[]){2, 3}, 2, 0);
			cairo_move_to(cr, x, c->y0);
			cairo_line_to(cr, x, bottom);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
		}
		if ((s + 1) % every == 0 || s == first) {
			snprintf(lab, sizeof(lab), "%u", s + 1);
			text_fit(cr, x + 2, y, 40, lab, c_muted);
		}
	}
}

/* The rank's start-up and wind-down, around its bins: one band each. */
static void lane_edges(cairo_t *cr, const struct job_chart *c, const struct kg_rank *r,
		       int64_t b0, int64_t b1, double y, double h)
{
	int64_t from[2] = {r->begin, b1}, to[2] = {b0, r->end};
	for (int k = 0; k < 2; k++) {
		if (to[k] <= from[k])
			continue;
		double xa = x_of(c, kg_time_add(from[k], r->shift));
		double xb = x_of(c, kg_time_add(to[k], r->shift));
		rect(cr, xa, y, xb - xa < 0.3 ? 0.3 : xb - xa, h, state_rgb(KG_BIN_IDLE_EDGE));
	}
}

/* The rank's timeline: runs of one state as one rectangle each. */
static void lane_bins(cairo_t *cr, const struct job_chart *c, const struct kg_rank *r, double y,
		      double h)
{
	int64_t b0, b1;
	rank_steady_bounds(r, &b0, &b1);
	lane_edges(cr, c, r, b0, b1, y, h);
	double w = (double)kg_time_diff(b1, b0) / KG_JOB_BINS;
	int64_t begin = kg_time_add(b0, r->shift);
	for (int b = 0; b < KG_JOB_BINS;) {
		int e = b;
		while (e < KG_JOB_BINS && r->bins[e] == r->bins[b])
			e++;
		if (r->bins[b] != KG_BIN_NONE) {
			double xa = x_of(c, kg_time_add(begin, (int64_t)(b * w)));
			double xb = x_of(c, kg_time_add(begin, (int64_t)(e * w)));
			rect(cr, xa, y, xb - xa < 0.3 ? 0.3 : xb - xa, h, state_rgb((enum kg_bin_state)r->bins[b]));
		}
		b = e;
	}
}

/* The time the rank waited inside each collective for the last rank, hatched dark; the
 * collectives it joined last, a black tick. */
static void lane_waits(cairo_t *cr, const struct job_chart *c, const struct kg_rank *r, double y,
		       double h)
{
	for (uint32_t k = 0; c->last_start && r->coll_job && k < r->n_coll; k++) {
		if (r->coll_job[k] == UINT32_MAX)
			continue;
		int64_t s = kg_time_add(r->coll[k].start, r->shift), last = c->last_start[r->coll_job[k]];
		double xa = x_of(c, s), xb = x_of(c, last);
		if (kg_time_diff(last, s) < c->j->cfg.comm_skew_ns)
			continue;
		if (xb - xa >= 0.5) {
			set_rgb(cr, c_wait);
			cairo_rectangle(cr, xa, y + h * 0.25, xb - xa, h * 0.5);
			cairo_fill(cr);
		}
	}
	for (uint32_t k = 0; c->last_start && r->coll_job && k < r->n_coll; k++)
		if (r->coll_job[k] != UINT32_MAX &&
		    kg_time_add(r->coll[k].start, r->shift) == c->last_start[r->coll_job[k]] && h >= 3) {
			double x = floor(x_of(c, c->last_start[r->coll_job[k]])) + 0.5;
			set_rgb(cr, c_last);
			cairo_set_line_width(cr, 1);
			cairo_move_to(cr, x, y);
			cairo_line_to(cr, x, y + h);
			cairo_stroke(cr);
		}
}

/* The number of the first finding naming rank i (1-based), 0 none. */
static uint32_t finding_of(const struct kg_job *j, uint32_t i, int *sev)
{
	for (uint32_t f = 0; f < j->findings.n; f++)
		if (j->findings.v[f].rank == i) {
			*sev = (int)j->findings.v[f].severity;
			return f + 1;
		}
	return 0;
}

/* A lane's label, unless it would overlap one already drawn (taken[] marks the rows of
 * 11 px that hold one). */
static void lane_label(cairo_t *cr, const struct job_chart *c, uint32_t k, uint8_t *taken,
		       uint32_t rows, int force)
{
	uint32_t i = c->order[k];
	const struct kg_rank *r = &c->j->ranks[i];
	double y = c->y0 + k * c->lane_h + c->lane_h / 2;
	uint32_t row = (uint32_t)((y - c->y0) / 11);
	if (row >= rows || taken[row] || (row > 0 && taken[row - 1] && !force) ||
	    (row + 1 < rows && taken[row + 1] && !force))
		return;
	int sev = 0;
	uint32_t f = finding_of(c->j, i, &sev);
	char lab[96];
	if (f)
		snprintf(lab, sizeof(lab), "#%u %s", f, r->label);
	else
		snprintf(lab, sizeof(lab), "%s", r->label);
	text_fit(cr, MARGIN, y + 3.5, c->label_w - 6, lab, f ? c_sev[sev] : c_text);
	taken[row] = 1;
}

static void lanes(cairo_t *cr, const struct job_chart *c)
{
	double h = c->lane_h, gap = h >= 6 ? 1 : 0;
	cairo_save(cr); /* what lies before or after the time drawn stays out */
	cairo_rectangle(cr, c->x0, c->y0, c->x1 - c->x0, h * c->n);
	cairo_clip(cr);
	for (uint32_t k = 0; k < c->n; k++) {
		const struct kg_rank *r = &c->j->ranks[c->order[k]];
		double y = c->y0 + k * h;
		lane_bins(cr, c, r, y, h - gap);
		lane_waits(cr, c, r, y, h - gap);
	}
	cairo_restore(cr);
	/* labels: the ranks the findings name first, then the others where there is room */
	uint32_t rows = (uint32_t)(c->n * h / 11) + 2;
	uint8_t *taken = calloc(rows, 1);
	if (!taken)
		return;
	font(cr, h >= 11 ? 10 : 8.5, 0);
	for (uint32_t k = 0; k < c->n; k++) {
		int sev;
		if (finding_of(c->j, c->order[k], &sev))
			lane_label(cr, c, k, taken, rows, 1);
	}
	for (uint32_t k = 0; k < c->n; k++)
		lane_label(cr, c, k, taken, rows, h >= 11);
	free(taken);
}

static void legend(cairo_t *cr, const struct job_chart *c)
{
	static const enum kg_bin_state shown[] = {KG_BIN_COMPUTE, KG_BIN_COMM, KG_BIN_COPY,
						  KG_BIN_IDLE_HOST, KG_BIN_IDLE_SYNC,
						  KG_BIN_IDLE_LAUNCH, KG_BIN_IDLE_DEPENDENCY,
						  KG_BIN_IDLE_EDGE, KG_BIN_IDLE_SHORT};
	double x = MARGIN, y = c->y0 + c->lane_h * c->n + 14;
	font(cr, 9.5, 0);
	for (size_t i = 0; i < sizeof(shown) / sizeof(*shown); i++) {
		const char *name = bin_state_name(shown[i]);
		rect(cr, x, y, 12, 9, state_rgb(shown[i]));
		cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
		cairo_set_line_width(cr, 0.5);
		cairo_rectangle(cr, x, y, 12, 9);
		cairo_stroke(cr);
		x += 16 + text_fit(cr, x + 16, y + 8.5, 200, name, c_text) + 14;
	}
	rect(cr, x, y + 2, 14, 5, c_wait);
	x += 18 + text_fit(cr, x + 18, y + 8.5, 260, "waiting in a collective for the last rank",
			   c_text) + 14;
	rect(cr, x + 6, y, 1, 10, c_last);
	text_fit(cr, x + 12, y + 8.5, 200, "last to join", c_text);
	font(cr, 9.5, 0);
	text_fit(cr, MARGIN, y + 26, c->width - 2 * MARGIN,
		 c->step_row_h ? "#N: the job finding naming the rank (kgantt report DIR); each lane "
				 "from the rank's own timeline, 1,024 bins over its steady work; the "
				 "numbers above the lanes: the steps, where the first rank began each"
			       : "#N: the job finding naming the rank (kgantt report DIR); each lane "
				 "from the rank's own timeline, 1,024 bins over its steady work",
		 c_muted);
}

static int draw_job(cairo_t *cr, void *arg)
{
	const struct job_chart *c = arg;
	rect(cr, 0, 0, c->width, c->height, (struct rgb){1, 1, 1});
	header(cr, c);
	axis(cr, c);
	lanes(cr, c);
	step_marks(cr, c);
	legend(cr, c);
	return 0;
}

/* ------------------------------------------------------------------ layout */

int plot_job_render(const struct kg_job *j, const struct kg_job_plot_opts *o,
		    const uint32_t *order, uint32_t n, const char *path, char *err,
		    size_t errlen)
{
	struct job_chart c = {.j = j, .o = o, .order = (uint32_t *)order, .n = n};
	c.width = o->width > 0 ? o->width : 1400;
	c.lane_h = n ? MAX_LANES_PX / n : 14;
	if (c.lane_h > 14)
		c.lane_h = 14;
	if (c.lane_h < 1)
		c.lane_h = 1;
	c.label_w = 150;
	c.t0 = j->steady_begin; /* within its span, the whole of it without start-ups */
	c.tspan = j->steady_span;
	c.x0 = MARGIN + c.label_w;
	c.x1 = c.width - MARGIN;
	c.last_start = job_last_starts(j);
	c.step_start = job_step_starts(j, &c.n_steps);
	if (!c.step_start)
		c.n_steps = 0;
	c.step_row_h = c.n_steps > 1 ? STEP_ROW : 0;
	c.y0 = HEADER + AXIS + c.step_row_h;
	c.height = c.y0 + c.lane_h * n + LEGEND + 20;
	if (j->n_collectives && !c.last_start) {
		snprintf(err, errlen, "out of memory drawing '%s'", path);
		return -ENOMEM;
	}
	int rc = chart_write(o->format, o->dpi, c.width, c.height, draw_job, &c, path,
			     "the chart", err, errlen);
	free(c.last_start);
	free(c.step_start);
	return rc;
}
