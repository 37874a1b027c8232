/* The lanes of the Gantt chart (plot_cairo.c): on a stream lane its kernels, copies and
 * memsets as blocks over their launch and queue phases; on a host lane its CUDA API calls
 * or NVTX ranges.
 *
 * Scale: a lane never gets one rectangle per operation when operations are narrower than
 * a pixel. Those are summed per pixel column into a density band (opacity = the fraction
 * of the column's time the stream was busy); runs of phases, API calls and marks closer
 * than a pixel are merged into one shape. A lane therefore costs O(operations) time but at
 * most a few shapes per pixel column, whatever the trace size. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "render/plot_internal.h"
#include "report/report.h"
#include "util/timemath.h"

/* ---------------------------------------------------------------- small drawing helpers */

/* Cuts s (UTF-8) so that it fits in maxw px, ending it with "…"; "" when not even one
 * character fits. */
static const char *fit(cairo_t *cr, const char *s, double maxw, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	if (text_w(cr, buf) <= maxw)
		return buf;
	size_t n = strlen(buf);
	while (n > 0) {
		do /* back to the start of a UTF-8 character */
			n--;
		while (n > 0 && ((unsigned char)buf[n] & 0xc0) == 0x80);
		if (n + 4 > len)
			continue;
		memcpy(buf + n, "…", 4);
		if (text_w(cr, buf) <= maxw)
			return n ? buf : "";
	}
	buf[0] = 0;
	return buf;
}

/* A copy's direction on its block: a peer copy is "peer", one of no known kind "copy". */
static const char *copy_kind_label(int kind)
{
	return kind == KG_COPY_PTOP ? "peer" : kind == KG_COPY_UNKNOWN ? "copy" : copy_kind_name((unsigned)kind);
}

/* ---------------------------------------------------------------- merging runs */

/* A band of the lane: vertical extent and colour of merged runs. */
struct band {
	double y, h, min_w;
	struct rgb c;
};

static void flush_band(struct plot *p, const struct merger *g, const void *arg)
{
	const struct band *b = arg;
	double xa = layout_x(&p->l, g->a), xb = layout_x(&p->l, g->b);
	double w = xb - xa;
	if (w < b->min_w) {
		xa -= (b->min_w - w) / 2;
		w = b->min_w;
	}
	fill_rect(p->cr, xa, b->y, w, b->h, b->c);
}

/* ---------------------------------------------------------------- stream lanes */

#define BLOCK_LABEL_MIN 34.0   /* a block this wide gets its name */
#define BORDER_MIN 5.0         /* ... this wide, a dark border */

/* Vertical parts of a stream lane, as fractions of its height. */
double block_top(const struct kg_lane *ln) { return ln->y + 0.14 * ln->h; }
double block_h(const struct kg_lane *ln) { return 0.72 * ln->h; }

/* The phases before a kernel runs, as thin bars under the blocks: pass 0 the launch
 * latency (API call -> queued, or -> start when the trace has no queued time, as for
 * copies), pass 1 the wait in the queue (queued -> start), drawn over it. */
void phase_pass(struct plot *p, const struct kg_lane *ln, int pass)
{
	const struct kg_model *m = p->m;
	const struct kg_stream *s = &m->streams[ln->stream];
	struct band b = {ln->y + 0.38 * ln->h, 0.24 * ln->h, 0.6, pass ? c_wait : c_launch};
	struct merger g = merger_new(p, 1, flush_band, &b);
	int64_t t0 = p->l.t0, t1 = p->l.t1;
	for (uint32_t i = 0; i < s->nops; i++) {
		const struct kg_op *o = &m->ops[s->first_op + i];
		if (o->start == KG_NO_TIME || o->start <= t0) /* its phases lie before the window */
			continue;
		int64_t q = o->queued != KG_NO_TIME && o->queued <= o->start ? o->queued : o->start;
		int64_t a = pass ? q : o->api_start, z = pass ? o->start : q;
		if (a != KG_NO_TIME && a < z && a < t1 && z > t0)
			merger_add(&g, a, z);
	}
	merger_flush(&g);
}

static void density_add(struct plot *p, int64_t s, int64_t e, struct rgb c)
{
	const struct kg_layout *l = &p->l;
	s = s < l->t0 ? l->t0 : s;
	e = e > l->t1 ? l->t1 : e;
	double fa = (double)kg_time_diff(s, l->t0) * l->px_per_ns;
	double fb = (double)kg_time_diff(e, l->t0) * l->px_per_ns;
	if (fb - fa < 0.02) /* a zero-length operation still shows */
		fb = fa + 0.02;
	for (int col = (int)fa; col <= (int)fb && col < p->ncols; col++) {
		if (col < 0)
			continue;
		double lo = fa > col ? fa : col, hi = fb < col + 1 ? fb : col + 1;
		if (hi <= lo)
			continue;
		p->col_busy[col] += hi - lo;
		p->col_rgb[3 * col] += (hi - lo) * c.r;
		p->col_rgb[3 * col + 1] += (hi - lo) * c.g;
		p->col_rgb[3 * col + 2] += (hi - lo) * c.b;
	}
}

/* The colour and opacity of one density column, quantised so that equal neighbours merge
 * into one rectangle. */
static void column_look(const struct plot *p, int col, int q[4])
{
	double busy = p->col_busy[col], f = busy > 1 ? 1 : busy;
	q[0] = (int)lround(20 * (0.35 + 0.65 * f)); /* even one short kernel stays visible */
	for (int k = 0; k < 3; k++)
		q[k + 1] = (int)lround(40 * p->col_rgb[3 * col + k] / busy);
}

static uint32_t density_draw(struct plot *p, const struct kg_lane *ln)
{
	uint32_t used = 0;
	int col = 0;
	while (col < p->ncols) {
		if (p->col_busy[col] <= 0) {
			col++;
			continue;
		}
		int q[4], r[4], end = col + 1;
		column_look(p, col, q);
		while (end < p->ncols && p->col_busy[end] > 0 &&
		       (column_look(p, end, r), !memcmp(q, r, sizeof(q))))
			end++;
		cairo_set_source_rgba(p->cr, q[1] / 40.0, q[2] / 40.0, q[3] / 40.0, q[0] / 20.0);
		cairo_rectangle(p->cr, p->l.x0 + col, block_top(ln), end - col, block_h(ln));
		cairo_fill(p->cr);
		used += (uint32_t)(end - col);
		col = end;
	}
	memset(p->col_busy, 0, (size_t)p->ncols * sizeof(double));
	memset(p->col_rgb, 0, (size_t)p->ncols * 3 * sizeof(double));
	return used;
}

/* The text of a block: the kernel's name shortened to about `cols` characters, or a
 * copy's direction and size ("HtoD 32 MiB"; just "HtoD" in `brief`). */
static void block_text(struct plot *p, const struct kg_op *o, size_t cols, int brief, char *buf,
		       size_t len)
{
	if (o->kind == KG_OP_KERNEL) {
		kernel_short_name(model_text(p->m, o->name), cols, buf, len);
		return;
	}
	const char *what = o->kind == KG_OP_MEMSET ? "memset" : copy_kind_label(o->copy_kind);
	double mib = (double)o->bytes / 1048576.0, kib = (double)o->bytes / 1024.0;
	double v = mib >= 1 ? mib : kib;
	if (brief || !o->bytes)
		snprintf(buf, len, "%s", what);
	else
		snprintf(buf, len, "%s %.*f %s", what, v >= 10 ? 0 : 1, v, mib >= 1 ? "MiB" : "KiB");
}

static void block_label(struct plot *p, const struct kg_op *o, double x, double y, double w,
			double h, struct rgb fill)
{
	char buf[256], text[256];
	double fs = h * 0.5 < 10 ? h * 0.5 : 10;
	if (fs < 6)
		return;
	font(p->cr, fs, 0);
	/* only the part of the block on screen holds text */
	double xa = x < p->l.x0 ? p->l.x0 : x, xb = x + w > p->l.x1 ? p->l.x1 : x + w;
	if (xb - xa < BLOCK_LABEL_MIN)
		return;
	block_text(p, o, (size_t)((xb - xa) / (fs * 0.55)) + 1, 0, buf, sizeof(buf));
	if (o->kind != KG_OP_KERNEL && text_w(p->cr, buf) > xb - xa - 6)
		block_text(p, o, 0, 1, buf, sizeof(buf));
	const char *t = fit(p->cr, buf, xb - xa - 6, text, sizeof(text));
	double lum = 0.299 * fill.r + 0.587 * fill.g + 0.114 * fill.b;
	struct rgb tc = lum < 0.58 ? (struct rgb){1, 1, 1} : c_text;
	text_at(p->cr, xa + 3, y + h / 2 + fs * 0.36, t, tc);
}

static void draw_block(struct plot *p, const struct kg_lane *ln, const struct kg_op *o,
		       double xa, double xb)
{
	cairo_t *cr = p->cr;
	struct rgb c = op_colour(p, o);
	double y = block_top(ln), h = block_h(ln), w = xb - xa < 1 ? 1 : xb - xa;
	fill_rect(cr, xa, y, w, h, c);
	if (w >= BORDER_MIN) {
		set_rgb(cr, darker(c, 0.55));
		cairo_set_line_width(cr, 0.8);
		cairo_rectangle(cr, xa + 0.4, y + 0.4, w - 0.8, h - 0.8);
		cairo_stroke(cr);
	}
	if (w >= BLOCK_LABEL_MIN)
		block_label(p, o, xa, y, w, h, c);
}

void stream_blocks(struct plot *p, uint32_t li)
{
	const struct kg_lane *ln = &p->l.lanes[li];
	const struct kg_stream *s = &p->m->streams[ln->stream];
	struct lane_count *n = &p->counts[li];
	for (uint32_t i = 0; i < s->nops; i++) {
		const struct kg_op *o = &p->m->ops[s->first_op + i];
		if (!layout_op_in_window(o, p->l.t0, p->l.t1))
			continue;
		n->kernels += o->kind == KG_OP_KERNEL;
		n->copies += o->kind == KG_OP_MEMCPY;
		n->memsets += o->kind == KG_OP_MEMSET;
		int64_t end = o->end > o->start ? o->end : o->start;
		double xa = layout_x(&p->l, o->start), xb = layout_x(&p->l, end);
		if (xb - xa >= 1.0) {
			draw_block(p, ln, o, xa, xb);
			n->blocks++;
		} else {
			density_add(p, o->start, end, op_colour(p, o));
			n->merged++;
		}
	}
	n->columns = density_draw(p, ln);
}

/* ---------------------------------------------------------------- host lanes */

/* The API categories in drawing order, the ones that matter last (on top), and their
 * colours: other calls, allocations, copies and memsets, launches, synchronisation. */
enum { API_PASSES = 5 };

static int api_pass(int category)
{
	switch (category) {
	case KG_API_SYNC: return 4;
	case KG_API_LAUNCH: return 3;
	case KG_API_MEMCPY:
	case KG_API_MEMSET: return 2;
	case KG_API_ALLOC: return 1;
	default: return 0;
	}
}

static void launch_ticks(struct plot *p, const struct kg_lane *ln)
{
	const struct kg_layout *l = &p->l;
	double last = -1e9, h = ln->h - ln->strip_h; /* the host strip is below */
	set_rgb(p->cr, c_tick);
	cairo_set_line_width(p->cr, 1);
	for (uint32_t i = l->api_first[ln->thread]; i < l->api_first[ln->thread + 1]; i++) {
		const struct kg_api *a = &p->m->apis[l->api_order[i]];
		if (a->category != KG_API_LAUNCH || a->start < l->t0 || a->start >= l->t1)
			continue;
		double x = floor(layout_x(l, a->start)) + 0.5;
		/* ticks closer than 3 px would merge into a solid bar hiding the calls */
		if (x - last < 3)
			continue;
		last = x;
		cairo_move_to(p->cr, x, ln->y + 0.3 * h);
		cairo_line_to(p->cr, x, ln->y + 0.9 * h);
	}
	cairo_stroke(p->cr);
}

void api_lane(struct plot *p, uint32_t li)
{
	const struct rgb colours[API_PASSES] = {c_apiother, c_alloc, c_apicopy, c_apilaunch, c_sync};
	const struct kg_layout *l = &p->l;
	const struct kg_lane *ln = &l->lanes[li];
	struct lane_count *n = &p->counts[li];
	double h = ln->h - ln->strip_h; /* the host strip is below */
	for (int pass = 0; pass < API_PASSES; pass++) {
		struct band b = {ln->y + 0.25 * h, 0.5 * h, 0.8, colours[pass]};
		if (pass == API_PASSES - 1) /* syncs stand out: full height, strong colour */
			b = (struct band){ln->y + 0.08 * h, 0.84 * h, 1.0, c_sync};
		struct merger g = merger_new(p, 1, flush_band, &b);
		for (uint32_t i = l->api_first[ln->thread]; i < l->api_first[ln->thread + 1]; i++) {
			const struct kg_api *a = &p->m->apis[l->api_order[i]];
			if (api_pass(a->category) != pass || a->start >= l->t1 || a->end < l->t0)
				continue;
			merger_add(&g, a->start, a->end);
			n->records++;
			n->syncs += a->category == KG_API_SYNC;
			n->launches += a->category == KG_API_LAUNCH;
		}
		merger_flush(&g);
	}
	launch_ticks(p, ln);
}

struct rgb pastel(struct plot *p, uint32_t name)
{
	struct rgb c = name_colour(p, name);
	return (struct rgb){0.55 + 0.45 * c.r, 0.55 + 0.45 * c.g, 0.55 + 0.45 * c.b};
}

static void range_block(struct plot *p, const struct kg_range *r, double xa, double xb,
			double y, double h)
{
	struct rgb c = pastel(p, r->name);
	fill_rect(p->cr, xa, y, xb - xa, h, c);
	set_rgb(p->cr, darker(c, 0.6));
	cairo_set_line_width(p->cr, 0.7);
	cairo_rectangle(p->cr, xa + 0.35, y + 0.35, xb - xa - 0.7, h - 0.7);
	cairo_stroke(p->cr);
	double vxa = xa < p->l.x0 ? p->l.x0 : xa, vxb = xb > p->l.x1 ? p->l.x1 : xb;
	if (vxb - vxa >= 24 && h >= 9) {
		double fs = h - 3.5 < 9.5 ? h - 3.5 : 9.5;
		font(p->cr, fs, 0);
		text_fit(p->cr, vxa + 3, y + h / 2 + fs * 0.36, vxb - vxa - 5, model_text(p->m, r->name),
			 c_text);
	}
}

void nvtx_lane(struct plot *p, uint32_t li)
{
	const struct kg_layout *l = &p->l;
	const struct kg_lane *ln = &l->lanes[li];
	uint32_t bucket = ln->thread != KG_NONE ? ln->thread : p->m->n_threads + ln->process;
	struct band bands[8];
	struct merger g[8];
	int levels = ln->levels < 8 ? ln->levels : 8;
	double row = (ln->h - 4) / levels;
	for (int k = 0; k < levels; k++) {
		bands[k] = (struct band){ln->y + 2 + k * row, row - 1, 0.8, c_apiother};
		g[k] = merger_new(p, 1, flush_band, &bands[k]);
	}
	for (uint32_t i = l->range_first[bucket]; i < l->range_first[bucket + 1]; i++) {
		const struct kg_range *r = &p->m->ranges[l->range_order[i]];
		int64_t end = r->end == KG_NO_TIME ? l->t1 : r->end;
		if (r->start >= l->t1 || (end <= l->t0 && end != r->start))
			continue;
		int k = l->range_level[l->range_order[i]];
		k = k >= levels ? levels - 1 : k;
		double xa = layout_x(l, r->start), xb = layout_x(l, end);
		p->counts[li].records++;
		if (xb - xa >= 2)
			range_block(p, r, xa, xb, bands[k].y, bands[k].h);
		else
			merger_add(&g[k], r->start, end);
	}
	for (int k = 0; k < levels; k++)
		merger_flush(&g[k]);
}
