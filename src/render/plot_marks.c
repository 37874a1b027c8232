/* The annotations of the Gantt chart (plot_cairo.c), from kgantt report's analysis: red
 * queue-wait marks, yellow circles on kernels of low occupancy, green links where a copy
 * ran beside kernels, and each finding's numbered badge and bracket. Each mark is
 * recorded for the manifest (plot_manifest.c). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/plot_internal.h"
#include "report/report.h"
#include "util/timemath.h"

/* ---------------------------------------------------------------- the record */

static void add_mark(struct plot *p, const char *type, uint32_t lane, uint32_t lane2,
		     int64_t t0, int64_t t1, uint32_t count)
{
	if (p->n_marks == p->cap_marks) {
		uint32_t cap = p->cap_marks ? 2 * p->cap_marks : 64;
		struct mark *n = realloc(p->marks, cap * sizeof(*n));
		if (!n) {
			p->oom = 1;
			return;
		}
		p->marks = n;
		p->cap_marks = cap;
	}
	p->marks[p->n_marks++] = (struct mark){type, lane, lane2, t0, t1, count};
}

/* ---------------------------------------------------------------- annotations */

/* Marks (circles, links) on one lane at most this many across the plot: at a whole-trace
 * zoom of a big trace they thin out, as blocks merge per pixel, instead of burying the
 * blocks (issue 12, defect 12: a 300k-kernel chart was a wall of circles and links);
 * zoomed in, each kernel keeps its own. Every mark still says how many it stands for
 * (the manifest's counts). */
#define MARKS_PER_LANE 48

static double mark_pitch(const struct plot *p, double min_px)
{
	double pitch = (p->l.x1 - p->l.x0) / MARKS_PER_LANE;
	return pitch > min_px ? pitch : min_px;
}

static const struct kg_kernel_stats *stats_of(const struct plot *p, uint32_t name)
{
	if (!p->stats_of_name || name > p->m->strings.count || p->stats_of_name[name] == KG_NONE)
		return NULL;
	return &p->a->kernels[p->stats_of_name[name]];
}

/* Low theoretical occupancy, on kernels long enough for it to matter (the occupancy
 * rule's long_kernel_ns): a circle on every short elementwise kernel would bury the chart. */
static int low_occupancy(const struct plot *p, const struct kg_op *o)
{
	const struct kg_kernel_stats *ks = stats_of(p, o->name);
	return ks && ks->occupancy_ok && ks->occ.occupancy < p->a->cfg.low_occupancy &&
	       kg_time_span(o->end, o->start) >= p->a->cfg.long_kernel_ns;
}

struct lane_arg {
	uint32_t lane;
};

static void flush_queue_mark(struct plot *p, const struct merger *g, const void *arg)
{
	const struct kg_lane *ln = &p->l.lanes[((const struct lane_arg *)arg)->lane];
	double y = ln->y + 0.09 * ln->h + 0.3;
	double dash[] = {4, 2.5};
	cairo_set_dash(p->cr, dash, 2, 0);
	set_rgb(p->cr, c_queue);
	cairo_set_line_width(p->cr, 1.5);
	cairo_move_to(p->cr, layout_x(&p->l, g->a), y);
	cairo_line_to(p->cr, layout_x(&p->l, g->b), y);
	cairo_stroke(p->cr);
	cairo_set_dash(p->cr, NULL, 0, 0);
	add_mark(p, "queue-wait", ((const struct lane_arg *)arg)->lane, KG_NONE, g->a, g->b,
		 g->count);
}

/* Red dashed line over the time a kernel waited in the queue beyond the threshold, with a
 * tick down to where it finally started. */
static void queue_marks(struct plot *p, uint32_t li)
{
	const struct kg_lane *ln = &p->l.lanes[li];
	const struct kg_stream *s = &p->m->streams[ln->stream];
	struct lane_arg arg = {li};
	struct merger g = merger_new(p, 2, flush_queue_mark, &arg);
	double last = -1e9;
	for (uint32_t i = 0; i < s->nops; i++) {
		const struct kg_op *o = &p->m->ops[s->first_op + i];
		if (o->kind != KG_OP_KERNEL || o->queued == KG_NO_TIME ||
		    kg_time_diff(o->start, o->queued) <= p->a->cfg.queue_wait_mark_ns ||
		    !layout_op_in_window(o, p->l.t0, p->l.t1))
			continue;
		merger_add(&g, o->queued, o->start);
		double x = layout_x(&p->l, o->start);
		if (x - last >= 3) {
			set_rgb(p->cr, c_queue);
			cairo_set_line_width(p->cr, 1.2);
			cairo_move_to(p->cr, x, ln->y + 0.09 * ln->h);
			cairo_line_to(p->cr, x, block_top(ln) + 3);
			cairo_stroke(p->cr);
			last = x;
		}
	}
	merger_flush(&g);
}

static void occupancy_circle(struct plot *p, uint32_t li, double x, int64_t t0, int64_t t1,
			     uint32_t count)
{
	const struct kg_lane *ln = &p->l.lanes[li];
	double r = 0.15 * ln->h < 4.5 ? 0.15 * ln->h : 4.5;
	circle(p->cr, x, block_top(ln) + block_h(ln) - 1, r);
	set_rgb(p->cr, c_occ);
	cairo_fill_preserve(p->cr);
	set_rgb(p->cr, c_occ_edge);
	cairo_set_line_width(p->cr, 1);
	cairo_stroke(p->cr);
	add_mark(p, "low-occupancy", li, KG_NONE, t0, t1, count);
}

/* Yellow circles on kernels of low theoretical occupancy; kernels closer than a circle
 * share one. */
static void occupancy_marks(struct plot *p, uint32_t li)
{
	const struct kg_stream *s = &p->m->streams[p->l.lanes[li].stream];
	double cx = 0;
	int64_t a = 0, b = 0;
	uint32_t count = 0;
	for (uint32_t i = 0; i < s->nops; i++) {
		const struct kg_op *o = &p->m->ops[s->first_op + i];
		if (o->kind != KG_OP_KERNEL || !layout_op_in_window(o, p->l.t0, p->l.t1) ||
		    !low_occupancy(p, o))
			continue;
		double xa = layout_x(&p->l, o->start), xb = layout_x(&p->l, o->end);
		xa = xa < p->l.x0 ? p->l.x0 : xa;
		xb = xb > p->l.x1 ? p->l.x1 : xb;
		double x = (xa + xb) / 2;
		if (count && x - cx < mark_pitch(p, 10)) {
			b = o->end;
			count++;
			continue;
		}
		if (count)
			occupancy_circle(p, li, cx, a, b, count);
		cx = x;
		a = o->start;
		b = o->end;
		count = 1;
	}
	if (count)
		occupancy_circle(p, li, cx, a, b, count);
}

/* First op of stream s that may overlap [t, ...): ops of a stream run one after another,
 * so at most the few before the first one starting at t can still be running. */
static uint32_t first_overlapping(const struct kg_model *m, const struct kg_stream *s, int64_t t)
{
	uint32_t lo = 0, hi = s->nops;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->ops[s->first_op + mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int back = 0; back < 64 && lo > 0 && m->ops[s->first_op + lo - 1].end > t; back++)
		lo--;
	return lo;
}

struct link_arg {
	uint32_t copy_lane, kernel_lane;
};

static void flush_link(struct plot *p, const struct merger *g, const void *arg)
{
	const struct link_arg *la = arg;
	const struct kg_lane *a = &p->l.lanes[la->copy_lane], *b = &p->l.lanes[la->kernel_lane];
	cairo_t *cr = p->cr;
	double xa = layout_x(&p->l, g->a), xb = layout_x(&p->l, g->b);
	/* the connector runs between the facing edges of the two blocks, clear of their names */
	int down = a->y < b->y;
	double ya = down ? block_top(a) + block_h(a) + 1.5 : block_top(a);
	double yb = down ? block_top(b) : block_top(b) + block_h(b) + 1.5;
	double xm = (xa + xb) / 2;
	cairo_set_source_rgba(cr, c_overlap.r, c_overlap.g, c_overlap.b, 0.9);
	cairo_set_line_width(cr, 2.2);
	/* the overlapped stretch, along the bottom of both lanes */
	cairo_move_to(cr, xa, block_top(a) + block_h(a) + 1.5);
	cairo_line_to(cr, xb, block_top(a) + block_h(a) + 1.5);
	cairo_move_to(cr, xa, block_top(b) + block_h(b) + 1.5);
	cairo_line_to(cr, xb, block_top(b) + block_h(b) + 1.5);
	cairo_stroke(cr);
	cairo_set_line_width(cr, 1.5);
	cairo_move_to(cr, xm, ya);
	cairo_line_to(cr, xm, yb);
	cairo_stroke(cr);
	circle(cr, xm, ya, 2.6);
	cairo_fill(cr);
	circle(cr, xm, yb, 2.6);
	cairo_fill(cr);
	add_mark(p, "overlap", la->copy_lane, la->kernel_lane, g->a, g->b, g->count);
}

/* The part of copy c that kernels of stream s ran beside: [*a, *b); 0 when none. */
static int copy_overlap(const struct kg_model *m, const struct kg_op *c, const struct kg_stream *s,
			int64_t *a, int64_t *b)
{
	int found = 0;
	for (uint32_t i = first_overlapping(m, s, c->start); i < s->nops; i++) {
		const struct kg_op *k = &m->ops[s->first_op + i];
		if (k->start >= c->end)
			break;
		if (k->kind != KG_OP_KERNEL || k->end <= c->start)
			continue;
		int64_t lo = k->start > c->start ? k->start : c->start;
		int64_t hi = k->end < c->end ? k->end : c->end;
		*a = found && *a < lo ? *a : lo;
		*b = found && *b > hi ? *b : hi;
		found = 1;
	}
	return found;
}

/* Green links where a copy on one stream ran while kernels of another stream of the same
 * GPU did: the overlap that hides copy time. */
static void overlap_links(struct plot *p, uint32_t ci, uint32_t ki)
{
	const struct kg_model *m = p->m;
	const struct kg_lane *cl = &p->l.lanes[ci], *kl = &p->l.lanes[ki];
	const struct kg_stream *cs = &m->streams[cl->stream], *ks = &m->streams[kl->stream];
	struct link_arg arg = {ci, ki};
	struct merger g = merger_new(p, mark_pitch(p, 4), flush_link, &arg);
	for (uint32_t i = 0; i < cs->nops; i++) {
		const struct kg_op *c = &m->ops[cs->first_op + i];
		int64_t a, b;
		if (c->kind != KG_OP_MEMCPY || !layout_op_in_window(c, p->l.t0, p->l.t1) ||
		    !copy_overlap(m, c, ks, &a, &b))
			continue;
		merger_add(&g, a, b);
	}
	merger_flush(&g);
}

static void all_overlap_links(struct plot *p)
{
	const struct kg_layout *l = &p->l;
	for (uint32_t a = 0; a < l->n_lanes; a++)
		for (uint32_t b = 0; b < l->n_lanes; b++) {
			const struct kg_lane *x = &l->lanes[a], *y = &l->lanes[b];
			if (a == b || x->kind != KG_LANE_STREAM || y->kind != KG_LANE_STREAM ||
			    p->m->devices[x->device].gpu != p->m->devices[y->device].gpu)
				continue;
			overlap_links(p, a, b);
		}
}

/* The lane of a finding: its first evidence's stream, else its GPU's first stream, else
 * (a finding about several GPUs) the first stream shown. KG_NONE when its GPU is not
 * shown (--device): better no badge than one on another GPU. */
static uint32_t finding_lane(const struct plot *p, const struct kg_finding *f)
{
	for (int e = 0; e < f->n_evidence; e++) {
		uint32_t s = f->evidence[e].stream;
		if (s < p->m->n_streams && p->l.lane_of_stream[s] != KG_NONE)
			return p->l.lane_of_stream[s];
	}
	if (f->gpu < p->m->n_gpus)
		return layout_first_lane_of_gpu(p->m, &p->l, f->gpu);
	for (uint32_t i = 0; i < p->l.n_lanes; i++)
		if (p->l.lanes[i].kind == KG_LANE_STREAM)
			return i;
	return KG_NONE;
}

static void text_centered(cairo_t *cr, double cx, double y, const char *s, struct rgb c)
{
	text_at(cr, cx - text_w(cr, s) / 2, y, s, c);
}

void finding_badge(struct plot *p, double x, double y, int number, struct rgb c)
{
	char num[16];
	circle(p->cr, x, y, 7);
	set_rgb(p->cr, c);
	cairo_fill_preserve(p->cr);
	cairo_set_source_rgb(p->cr, 1, 1, 1);
	cairo_set_line_width(p->cr, 1.2);
	cairo_stroke(p->cr);
	snprintf(num, sizeof(num), "%d", number);
	font(p->cr, number < 10 ? 9.5 : 7.5, 1);
	text_centered(p->cr, x, y + 3.4, num, (struct rgb){1, 1, 1});
}

/* Where a badge wanted at x goes so that it does not cover the badges already on its lane
 * (placed, n): to the right of them, or left when the right edge is reached. */
static double badge_x(const struct plot *p, double x, const double *placed, int n)
{
	double lo = p->l.x0 + 8, hi = p->l.x1 - 8;
	for (int dir = 1; dir >= -1; dir -= 2) {
		double at = x < lo ? lo : x > hi ? hi : x;
		/* each pass moves past at least one badge: n + 1 passes always suffice */
		for (int moved = 1, pass = 0; moved && pass <= n && at >= lo && at <= hi; pass++) {
			moved = 0;
			for (int i = 0; i < n; i++)
				if (fabs(at - placed[i]) < 16) {
					at = placed[i] + 16 * dir;
					moved = 1;
				}
		}
		if (at >= lo && at <= hi)
			return at;
	}
	return x < lo ? lo : x > hi ? hi : x; /* no room: overlap rather than vanish */
}

static void finding_bracket(struct plot *p, const struct kg_lane *ln, double xa, double xb,
			    struct rgb c)
{
	double y = ln->y + 0.9;
	set_rgb(p->cr, c);
	cairo_set_line_width(p->cr, 1.6);
	cairo_move_to(p->cr, xa, y + 5);
	cairo_line_to(p->cr, xa, y);
	cairo_line_to(p->cr, xb, y);
	cairo_line_to(p->cr, xb, y + 5);
	cairo_stroke(p->cr);
}

/* Numbered markers, in the report's order (#1 first): a bracket over the finding's time
 * range on its lane and a badge at its start, on the lane's top edge, clear of the block
 * names at mid-height. */
static void finding_marks(struct plot *p)
{
	uint32_t n = p->a->findings.n;
	double *bx = malloc(((size_t)n + 1) * sizeof(double));   /* badge x of each finding */
	double *near = malloc(((size_t)n + 1) * sizeof(double)); /* those on the same lane */
	if (!bx || !near) {
		free(bx);
		free(near);
		p->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_finding *f = &p->a->findings.v[i];
		uint32_t li = finding_lane(p, f);
		p->fmarks[i] = (struct finding_mark){li, f->start, f->end};
		bx[i] = NAN; /* no badge unless placed below */
		if (li == KG_NONE || f->start == KG_NO_TIME) /* nothing to point at */
			continue;
		struct rgb c = c_sev[f->severity <= KG_SEV_CRITICAL ? f->severity : 0];
		double xa = layout_x(&p->l, f->start);
		double xb = layout_x(&p->l, f->end != KG_NO_TIME ? f->end : f->start);
		xa = xa < p->l.x0 ? p->l.x0 : xa;
		xb = xb > p->l.x1 ? p->l.x1 : xb < xa ? xa : xb;
		finding_bracket(p, &p->l.lanes[li], xa, xb, c);
		int k = 0;
		for (uint32_t j = 0; j < i; j++)
			if (p->fmarks[j].lane == li && !isnan(bx[j]))
				near[k++] = bx[j];
		bx[i] = badge_x(p, xa + 8, near, k);
		finding_badge(p, bx[i], p->l.lanes[li].y + 4, (int)i + 1, c);
	}
	free(bx);
	free(near);
}

/* Start-up and wind-down (kg_gap_place): a light band over a GPU's stream lanes where it
 * idled before its steady work began or after it ended, named when it is wide enough. A
 * whole-run chart of a PyTorch program is mostly its start-up; the band says that this
 * empty stretch is the imports and set-up, not a stall of the steps. */
void edge_bands(struct plot *p)
{
	const struct kg_analysis *a = p->a;
	for (uint32_t gi = 0; gi < a->n_gpus; gi++) {
		const struct kg_gpu_metrics *gm = &a->gpus[gi];
		uint32_t first = KG_NONE, last = KG_NONE;
		for (uint32_t i = 0; i < p->l.n_lanes; i++) {
			const struct kg_lane *ln = &p->l.lanes[i];
			if (ln->kind != KG_LANE_STREAM || p->m->devices[ln->device].gpu != gm->gpu)
				continue;
			first = first == KG_NONE ? i : first;
			last = i;
		}
		if (first == KG_NONE)
			continue;
		double y0 = p->l.lanes[first].y, y1 = p->l.lanes[last].y + p->l.lanes[last].h;
		for (uint32_t i = 0; i < gm->n_gaps; i++) {
			const struct kg_gap *gap = &gm->gaps[i];
			if (gap->place == KG_GAP_STEADY)
				continue;
			double xa = layout_x(&p->l, gap->start), xb = layout_x(&p->l, gap->end);
			xa = xa < p->l.x0 ? p->l.x0 : xa;
			xb = xb > p->l.x1 ? p->l.x1 : xb;
			if (xb - xa < 1)
				continue;
			cairo_rectangle(p->cr, xa, y0, xb - xa, y1 - y0);
			cairo_set_source_rgba(p->cr, 0.45, 0.47, 0.52, 0.10);
			cairo_fill(p->cr);
			char label[64], d[32];
			snprintf(label, sizeof(label), "%s: %s idle",
				 gap_place_name(gap->place),
				 fmt_duration(kg_time_span(gap->end, gap->start), d));
			font(p->cr, 10, 0);
			if (text_w(p->cr, label) + 16 < xb - xa)
				text_centered(p->cr, (xa + xb) / 2, p->l.lanes[first].y +
					      p->l.lanes[first].h / 2 + 3.5, label,
					      (struct rgb)RGB(0x5f6470));
			add_mark(p, gap_place_name(gap->place), first,
				 last, gap->start, gap->end, 1);
		}
	}
}

int annotation_index(struct plot *p)
{
	const struct kg_analysis *a = p->a;
	uint32_t n = (uint32_t)p->m->strings.count + 1;
	p->stats_of_name = malloc((size_t)n * sizeof(uint32_t));
	p->fmarks = calloc((size_t)a->findings.n + 1, sizeof(*p->fmarks));
	if (!p->stats_of_name || !p->fmarks)
		return -ENOMEM;
	memset(p->stats_of_name, 0xff, (size_t)n * sizeof(uint32_t));
	for (uint32_t k = 0; k < a->n_kernels; k++)
		if (a->kernels[k].name < n)
			p->stats_of_name[a->kernels[k].name] = k;
	return 0;
}

void annotations(struct plot *p)
{
	for (uint32_t i = 0; i < p->l.n_lanes; i++)
		if (p->l.lanes[i].kind == KG_LANE_STREAM) {
			queue_marks(p, i);
			occupancy_marks(p, i);
		}
	all_overlap_links(p);
	finding_marks(p);
}
