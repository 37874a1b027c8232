/* The Gantt chart drawn with cairo (plot.h). One drawing path for the three formats: only
 * the surface differs (image for PNG, SVG, PDF).
 *
 * Scale: a lane never gets one rectangle per operation when operations are narrower than
 * a pixel. Those are summed per pixel column into a density band (opacity = the fraction
 * of the column's time the stream was busy); runs of phases, API calls and marks closer
 * than a pixel are merged into one shape. A lane therefore costs O(operations) time but at
 * most a few shapes per pixel column, whatever the trace size. */
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/draw.h"
#include "render/layout.h"
#include "render/plot.h"
#include "render/plot_hw.h"
#include "render/plot_sm.h"
#include "report/report.h"
#include "util/timemath.h"
#include "util/json_text.h"
#include "util/outfile.h"
#include "util/utf8.h"

/* ---------------------------------------------------------------- colours */



/* Compute kernels take cool colours (blue, green, violet), copies warm ones, so that the
 * kind reads at a glance and the name within a kind by hue. */
static const struct rgb compute_palette[] = {
	RGB(0x4e79a7), RGB(0x59a14f), RGB(0x76b7b2), RGB(0xb07aa1), RGB(0x3b8bc2), RGB(0x7a9e3f),
	RGB(0x8176c4), RGB(0x2e8b7a), RGB(0x5c6fb8), RGB(0x9c8fd6), RGB(0x4a9bb0), RGB(0x6b9e78),
};
#define N_PALETTE (sizeof(compute_palette) / sizeof(compute_palette[0]))

static const struct rgb c_launch = RGB(0xbdbdbd), c_wait = RGB(0xa9d3f5);
static const struct rgb c_htod = RGB(0xf28e2b), c_dtoh = RGB(0xe15759), c_dtod = RGB(0xc9a227);
static const struct rgb c_peer = RGB(0x9c6644), c_copy = RGB(0xa0a0a0), c_memset = RGB(0x7b8794);
static const struct rgb c_comm = RGB(0xc2185b);
static const struct rgb c_sync = RGB(0xd62728), c_apicopy = RGB(0xf5b971);
static const struct rgb c_apilaunch = RGB(0xa8c4e5), c_tick = RGB(0x2f4f7f);
static const struct rgb c_apiother = RGB(0xcfd4da), c_alloc = RGB(0xb5bcc6);
static const struct rgb c_queue = RGB(0xd62728), c_occ = RGB(0xffd21f), c_occ_edge = RGB(0x8a6d00);
static const struct rgb c_overlap = RGB(0x2ca02c);
static const struct rgb c_sev[3] = {RGB(0x1565c0), RGB(0xe65100), RGB(0xb71c1c)};
static const struct rgb c_text = RGB(0x1f2328), c_muted = RGB(0x5f6b7a), c_grid = RGB(0xe4e7eb);
static const struct rgb c_rule = RGB(0xc9ced6), c_proc_bg = RGB(0xe6ecf4), c_dev_bg = RGB(0xf1f4f8);
static const struct rgb c_lane_bg[2] = {RGB(0xffffff), RGB(0xf7f8fa)};
static const struct rgb c_host_bg = RGB(0xfcfaf6);

/* ---------------------------------------------------------------- page geometry, px */

#define MARGIN 16.0
#define TITLE_H 46.0
#define AXIS_H 22.0
#define RIGHT_MARGIN 18.0
#define BLOCK_LABEL_MIN 34.0   /* a block this wide gets its name */
#define BORDER_MIN 5.0         /* ... this wide, a dark border */

/* ---------------------------------------------------------------- what was drawn */

struct lane_count {
	uint32_t kernels, copies, memsets; /* ops of the window on a stream lane */
	uint32_t blocks, merged, columns;  /* drawn as blocks, merged into density columns */
	uint32_t records, syncs, launches; /* API calls or NVTX ranges */
};

struct mark {
	const char *type;        /* "queue-wait", "low-occupancy", "overlap" */
	uint32_t lane, lane2;    /* lane2: the kernel's lane of an overlap link */
	int64_t t0, t1;
	uint32_t count;          /* kernels (or copy/kernel-stream pairs) it stands for */
};

struct finding_mark {
	uint32_t lane;           /* KG_NONE: no shown lane to put it on */
	int64_t t0, t1;
};

struct plot {
	cairo_t *cr;
	const struct kg_model *m;
	const struct kg_analysis *a;   /* NULL: no annotations */
	const struct kg_plot_opts *o;
	struct kg_layout l;
	double legend_h;
	struct lane_count *counts;
	struct mark *marks;
	uint32_t n_marks, cap_marks;
	struct finding_mark *fmarks;
	uint32_t *stats_of_name;       /* name id -> index into a->kernels, KG_NONE */
	uint8_t *colour_of_name;       /* name id -> palette index + 1, 0 = not yet */
	double *col_busy, *col_rgb;    /* density accumulators, one per pixel column */
	int ncols;
	int oom;
	double sm_h;                   /* the SM panel under the lanes (plot --sm), px */
	struct kg_sm_drawn sm_drawn;
};

/* ---------------------------------------------------------------- small drawing helpers */

static struct rgb darker(struct rgb c, double k)
{
	return (struct rgb){c.r * k, c.g * k, c.b * k};
}

static void fill_rect(cairo_t *cr, double x, double y, double w, double h, struct rgb c)
{
	set_rgb(cr, c);
	cairo_rectangle(cr, x, y, w, h);
	cairo_fill(cr);
}

/* A closed circle path: a new sub-path, or cairo would join it to the current point. */
static void circle(cairo_t *cr, double x, double y, double r)
{
	cairo_new_sub_path(cr);
	cairo_arc(cr, x, y, r, 0, 2 * M_PI);
}

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

static void text_at(cairo_t *cr, double x, double y, const char *s, struct rgb c)
{
	set_rgb(cr, c);
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, s);
}

static void text_centered(cairo_t *cr, double cx, double y, const char *s, struct rgb c)
{
	text_at(cr, cx - text_w(cr, s) / 2, y, s, c);
}

/* ---------------------------------------------------------------- colours of things */

static struct rgb name_colour(struct plot *p, uint32_t name)
{
	if (name >= p->m->strings.count + 1 || !p->colour_of_name)
		return compute_palette[0];
	if (!p->colour_of_name[name]) {
		/* by the text, not the id: the same kernel keeps its colour in every trace */
		const char *t = model_text(p->m, name);
		p->colour_of_name[name] = (uint8_t)(1 + strtab_hash(t, strlen(t)) % N_PALETTE);
	}
	return compute_palette[p->colour_of_name[name] - 1];
}

static struct rgb op_colour(struct plot *p, const struct kg_op *o)
{
	if (o->kind == KG_OP_MEMSET)
		return c_memset;
	if (o->kind == KG_OP_MEMCPY)
		switch (o->copy_kind) {
		case KG_COPY_HTOD: return c_htod;
		case KG_COPY_DTOH: return c_dtoh;
		case KG_COPY_DTOD: return c_dtod;
		case KG_COPY_PTOP: return c_peer;
		default: return c_copy;
		}
	if (o->flags & KG_OPF_COMM)
		return c_comm;
	return name_colour(p, o->name);
}

static const char *copy_kind_label(int kind)
{
	switch (kind) {
	case KG_COPY_HTOD: return "HtoD";
	case KG_COPY_DTOH: return "DtoH";
	case KG_COPY_DTOD: return "DtoD";
	case KG_COPY_PTOP: return "peer";
	case KG_COPY_HTOH: return "HtoH";
	default: return "copy";
	}
}

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

/* ---------------------------------------------------------------- merging runs */

/* Consecutive intervals closer than `join` ns become one run, drawn once by flush. Fed in
 * (roughly) start order, as every list here is. */
struct merger {
	int64_t a, b, join;
	uint32_t count;
	int open;
	void (*flush)(struct plot *, const struct merger *, const void *);
	struct plot *p;
	const void *arg;
};

static void merger_flush(struct merger *g)
{
	if (g->open)
		g->flush(g->p, g, g->arg);
	g->open = 0;
}

static void merger_add(struct merger *g, int64_t a, int64_t b)
{
	if (b < a)
		b = a;
	if (g->open && a <= kg_time_add(g->b, g->join)) {
		g->b = b > g->b ? b : g->b;
		g->a = a < g->a ? a : g->a;
		g->count++;
		return;
	}
	merger_flush(g);
	*g = (struct merger){a, b, g->join, 1, 1, g->flush, g->p, g->arg};
}

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

static struct merger merger_new(struct plot *p, double px,
				void (*flush)(struct plot *, const struct merger *, const void *),
				const void *arg)
{
	int64_t join = kg_i64_of(px * layout_ns_per_px(&p->l));
	return (struct merger){0, 0, join, 0, 0, flush, p, arg};
}

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

/* Vertical parts of a stream lane, as fractions of its height. */
static double block_top(const struct kg_lane *ln) { return ln->y + 0.14 * ln->h; }
static double block_h(const struct kg_lane *ln) { return 0.72 * ln->h; }

/* The phases before a kernel runs, as thin bars under the blocks: pass 0 the launch
 * latency (API call -> queued, or -> start when the trace has no queued time, as for
 * copies), pass 1 the wait in the queue (queued -> start), drawn over it. */
static void phase_pass(struct plot *p, const struct kg_lane *ln, int pass)
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

static void blocks(struct plot *p, uint32_t li)
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
	double last = -1e9;
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
		cairo_move_to(p->cr, x, ln->y + 0.3 * ln->h);
		cairo_line_to(p->cr, x, ln->y + 0.9 * ln->h);
	}
	cairo_stroke(p->cr);
}

static void api_lane(struct plot *p, uint32_t li)
{
	const struct rgb colours[API_PASSES] = {c_apiother, c_alloc, c_apicopy, c_apilaunch, c_sync};
	const struct kg_layout *l = &p->l;
	const struct kg_lane *ln = &l->lanes[li];
	struct lane_count *n = &p->counts[li];
	for (int pass = 0; pass < API_PASSES; pass++) {
		struct band b = {ln->y + 0.25 * ln->h, 0.5 * ln->h, 0.8, colours[pass]};
		if (pass == API_PASSES - 1) /* syncs stand out: full height, strong colour */
			b = (struct band){ln->y + 0.08 * ln->h, 0.84 * ln->h, 1.0, c_sync};
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

static struct rgb pastel(struct plot *p, uint32_t name)
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

static void nvtx_lane(struct plot *p, uint32_t li)
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

/* ---------------------------------------------------------------- annotations */

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

static void finding_badge(struct plot *p, double x, double y, int number, struct rgb c)
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
	uint32_t n = p->a->n_findings;
	double *bx = malloc(((size_t)n + 1) * sizeof(double));   /* badge x of each finding */
	double *near = malloc(((size_t)n + 1) * sizeof(double)); /* those on the same lane */
	if (!bx || !near) {
		free(bx);
		free(near);
		p->oom = 1;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_finding *f = &p->a->findings[i];
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

static int annotation_index(struct plot *p)
{
	const struct kg_analysis *a = p->a;
	uint32_t n = (uint32_t)p->m->strings.count + 1;
	p->stats_of_name = malloc((size_t)n * sizeof(uint32_t));
	p->fmarks = calloc((size_t)a->n_findings + 1, sizeof(*p->fmarks));
	if (!p->stats_of_name || !p->fmarks)
		return -ENOMEM;
	memset(p->stats_of_name, 0xff, (size_t)n * sizeof(uint32_t));
	for (uint32_t k = 0; k < a->n_kernels; k++)
		if (a->kernels[k].name < n)
			p->stats_of_name[a->kernels[k].name] = k;
	return 0;
}

static void annotations(struct plot *p)
{
	for (uint32_t i = 0; i < p->l.n_lanes; i++)
		if (p->l.lanes[i].kind == KG_LANE_STREAM) {
			queue_marks(p, i);
			occupancy_marks(p, i);
		}
	all_overlap_links(p);
	finding_marks(p);
}

/* ---------------------------------------------------------------- frame: title, axis, labels */

static void title(struct plot *p)
{
	const struct kg_model *m = p->m;
	cairo_t *cr = p->cr;
	char line[1024], gpus[256] = "", span[32], w0[32], w1[32];
	/* the recorded command; else (Nsight, PyTorch traces) the first process's, the file's */
	const char *cmd = model_text(m, m->command);
	if (!*cmd && m->n_processes)
		cmd = model_text(m, m->processes[0].cmdline);
	if (!*cmd)
		cmd = p->o->trace_name ? p->o->trace_name : "kgantt plot";
	snprintf(line, sizeof(line), "%s", p->o->title ? p->o->title : cmd);
	font(cr, 17, 1);
	text_fit(cr, MARGIN, MARGIN + 16, p->l.width - 2 * MARGIN, line, c_text);
	/* "2 × NVIDIA H200" */
	if (m->n_gpus) {
		const char *name = model_text(m, m->devices[m->gpus[0].device].name);
		if (m->n_gpus > 1)
			snprintf(gpus, sizeof(gpus), "%" PRIu32 " × %s", m->n_gpus, *name ? name : "GPU");
		else
			snprintf(gpus, sizeof(gpus), "%s", *name ? name : "1 GPU");
	}
	int64_t w = kg_time_diff(p->l.t1, p->l.t0);
	int64_t scale = layout_time_scale(&p->l, p->o->origin);
	fmt_duration(w, span);
	snprintf(line, sizeof(line), "%s%s%" PRIu32 " process%s · window %s – %s (%s)%s%s", gpus,
		 *gpus ? " · " : "", m->n_processes, m->n_processes == 1 ? "" : "es",
		 layout_time_label(p->l.t0, p->o->origin, scale, w0),
		 layout_time_label(p->l.t1, p->o->origin, scale, w1), span,
		 p->o->trace_name ? " · " : "", p->o->trace_name ? p->o->trace_name : "");
	font(cr, 11.5, 0);
	text_fit(cr, MARGIN, MARGIN + 35, p->l.width - 2 * MARGIN, line, c_muted);
}

static void axis_labels(struct plot *p, const struct kg_tick *ticks, int n, double y)
{
	double right = -1e9;
	font(p->cr, 10, 0);
	for (int i = 0; i < n; i++) {
		double x = layout_x(&p->l, ticks[i].t), w = text_w(p->cr, ticks[i].label);
		double lx = x - w / 2;
		/* the end ticks' labels stay inside the plot's columns */
		lx = lx < p->l.x0 - 2 ? p->l.x0 - 2 : lx;
		lx = lx + w > p->l.width - 4 ? p->l.width - 4 - w : lx;
		if (lx < right + 8) /* never let two labels touch */
			continue;
		text_at(p->cr, lx, y, ticks[i].label, c_text);
		right = lx + w;
	}
}

static void axis(struct plot *p)
{
	struct kg_tick ticks[64];
	int target = (int)((p->l.x1 - p->l.x0) / 110);
	int n = layout_ticks(&p->l, p->o->origin, target < 2 ? 2 : target, ticks, 64);
	cairo_t *cr = p->cr;
	double top = p->l.lanes_top, bottom = p->l.lanes_bottom;
	set_rgb(cr, c_grid);
	cairo_set_line_width(cr, 1);
	for (int i = 0; i < n; i++) {
		double x = floor(layout_x(&p->l, ticks[i].t)) + 0.5;
		cairo_move_to(cr, x, top - 4);
		cairo_line_to(cr, x, bottom);
	}
	cairo_stroke(cr);
	axis_labels(p, ticks, n, top - 7);
	if (bottom - top > 500)
		axis_labels(p, ticks, n, bottom + 13);
	font(cr, 9.5, 0);
	text_fit(cr, MARGIN, top - 7, p->l.x0 - MARGIN - 8, "time since the trace begin",
		 c_muted);
}

static void stream_lane_label(struct plot *p, const struct kg_lane *ln, double w)
{
	const struct kg_stream *s = &p->m->streams[ln->stream];
	char line[160], ch[32] = "";
	const char *kind = stream_kind_name(s->kind);
	double fs = ln->h < 24 ? ln->h * 0.45 : 11;
	font(p->cr, fs, 1);
	snprintf(line, sizeof(line), "stream %" PRId64, s->id);
	double y1 = ln->h >= 24 ? ln->y + ln->h / 2 - 1.5 : ln->y + ln->h / 2 + fs * 0.36;
	text_fit(p->cr, MARGIN + 10, y1, w, line, c_text);
	if (ln->h < 24)
		return;
	if (s->channel >= 0)
		snprintf(ch, sizeof(ch), " · ch %" PRId32, s->channel);
	snprintf(line, sizeof(line), "%s%sprio %" PRId32 "%s", kind ? kind : "", kind ? " · " : "",
		 s->priority, ch);
	font(p->cr, 9, 0);
	text_fit(p->cr, MARGIN + 10, ln->y + ln->h / 2 + 9.5, w, line, c_muted);
}

static void host_label(struct plot *p, const struct kg_lane *ln, double w)
{
	char line[160], who[96];
	const struct kg_thread *t = ln->thread != KG_NONE ? &p->m->threads[ln->thread] : NULL;
	const char *tname = t ? model_text(p->m, t->name) : "";
	char tid[24];
	snprintf(tid, sizeof(tid), "%" PRIu64, t ? t->tid : 0);
	if (t && strstr(tname, tid)) /* PyTorch names its threads "thread 924 (python3)" */
		snprintf(who, sizeof(who), "%s", tname);
	else if (t)
		snprintf(who, sizeof(who), "thread %s%s%s%s", tid, *tname ? " (" : "", tname,
			 *tname ? ")" : "");
	else
		snprintf(who, sizeof(who), "no thread");
	snprintf(line, sizeof(line), "%s %s", ln->kind == KG_LANE_API ? "CUDA API ·" : "NVTX ·", who);
	double fs = ln->h * 0.55 < 9.5 ? ln->h * 0.55 : 9.5;
	font(p->cr, fs, 0);
	double y = ln->kind == KG_LANE_API ? ln->y + ln->h / 2 + fs * 0.36 : ln->y + 2 + fs;
	text_fit(p->cr, MARGIN + 10, y, w, line, c_muted);
}

static void header_row(struct plot *p, const struct kg_header *h)
{
	const struct kg_model *m = p->m;
	char line[1200], rank[64] = "";
	cairo_t *cr = p->cr;
	if (h->kind == KG_HEADER_PROCESS) {
		const struct kg_process *pr = &m->processes[h->index];
		fill_rect(cr, MARGIN, h->y + 2, p->l.width - MARGIN - RIGHT_MARGIN / 2, h->h - 3,
			  c_proc_bg);
		if (pr->rank)
			snprintf(rank, sizeof(rank), " · rank %s", model_text(m, pr->rank));
		const char *host = model_text(m, pr->host), *cmd = model_text(m, pr->cmdline);
		snprintf(line, sizeof(line), "pid %" PRIu32 "%s%s%s%s%s", pr->pid, *host ? " on " : "",
			 host, rank, *cmd ? "  —  " : "", cmd);
		font(cr, 11.5, 1);
		text_fit(cr, MARGIN + 5, h->y + h->h / 2 + 5, p->l.width - 3 * MARGIN, line, c_text);
		return;
	}
	const struct kg_device *d = &m->devices[h->index];
	fill_rect(cr, MARGIN + 6, h->y + 1, p->l.width - MARGIN - 6 - RIGHT_MARGIN / 2, h->h - 2,
		  c_dev_bg);
	snprintf(line, sizeof(line), "device %" PRId32 " · %s · GPU %" PRIu32, d->ordinal,
		 *model_text(m, d->name) ? model_text(m, d->name) : "unknown GPU", d->gpu);
	if (d->sm_count > 0)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " · %d SMs", d->sm_count);
	font(cr, 10.5, 1);
	text_fit(cr, MARGIN + 11, h->y + h->h / 2 + 4, p->l.width - 3 * MARGIN, line, c_muted);
}

static void lane_backgrounds(struct plot *p)
{
	cairo_t *cr = p->cr;
	for (uint32_t i = 0; i < p->l.n_lanes; i++) {
		const struct kg_lane *ln = &p->l.lanes[i];
		struct rgb bg = ln->kind == KG_LANE_STREAM ? c_lane_bg[i & 1] : c_host_bg;
		fill_rect(cr, MARGIN + 6, ln->y, p->l.x1 - MARGIN - 6, ln->h, bg);
		set_rgb(cr, c_grid);
		cairo_set_line_width(cr, 0.6);
		cairo_move_to(cr, MARGIN + 6, floor(ln->y + ln->h) - 0.3);
		cairo_line_to(cr, p->l.x1, floor(ln->y + ln->h) - 0.3);
		cairo_stroke(cr);
	}
}

/* Lane labels and group headers, over the grid lines. */
static void lane_labels(struct plot *p)
{
	double w = p->l.x0 - MARGIN - 16;
	for (uint32_t i = 0; i < p->l.n_lanes; i++) {
		const struct kg_lane *ln = &p->l.lanes[i];
		if (ln->kind == KG_LANE_STREAM)
			stream_lane_label(p, ln, w);
		else
			host_label(p, ln, w);
	}
	for (uint32_t i = 0; i < p->l.n_headers; i++)
		header_row(p, &p->l.headers[i]);
}

static void plot_edges(struct plot *p)
{
	cairo_t *cr = p->cr;
	set_rgb(cr, c_rule);
	cairo_set_line_width(cr, 1);
	for (uint32_t i = 0; i < p->l.n_lanes; i++) {
		const struct kg_lane *ln = &p->l.lanes[i];
		cairo_move_to(cr, floor(p->l.x0) - 0.5, ln->y);
		cairo_line_to(cr, floor(p->l.x0) - 0.5, ln->y + ln->h);
		cairo_move_to(cr, ceil(p->l.x1) + 0.5, ln->y);
		cairo_line_to(cr, ceil(p->l.x1) + 0.5, ln->y + ln->h);
	}
	cairo_stroke(cr);
}

/* ---------------------------------------------------------------- legend */

enum swatch {
	SW_LAUNCH, SW_WAIT, SW_COMPUTE, SW_COMM, SW_HTOD, SW_DTOH, SW_DTOD, SW_PEER, SW_MEMSET,
	SW_DENSITY, SW_SYNC, SW_TICK, SW_APICOPY, SW_APIOTHER, SW_NVTX, SW_QUEUE, SW_OCC,
	SW_OVERLAP, SW_FINDING, SW_GROUP,
};

struct legend_item {
	enum swatch sw;
	const char *text;
};

static void swatch_box(cairo_t *cr, double x, double y, struct rgb c)
{
	fill_rect(cr, x, y, 14, 10, c);
	set_rgb(cr, darker(c, 0.55));
	cairo_set_line_width(cr, 0.8);
	cairo_rectangle(cr, x + 0.4, y + 0.4, 13.2, 9.2);
	cairo_stroke(cr);
}

/* Draws the symbol of one legend entry in the 14 x 10 box at (x, y); returns its width. */
static double swatch(struct plot *p, enum swatch sw, double x, double y)
{
	cairo_t *cr = p->cr;
	static const struct rgb *const boxes[] = {
		[SW_COMM] = &c_comm, [SW_HTOD] = &c_htod, [SW_DTOH] = &c_dtoh, [SW_DTOD] = &c_dtod,
		[SW_PEER] = &c_peer, [SW_MEMSET] = &c_memset, [SW_SYNC] = &c_sync,
		[SW_APICOPY] = &c_apicopy, [SW_APIOTHER] = &c_apiother,
	};
	switch (sw) {
	case SW_LAUNCH: fill_rect(cr, x, y + 3, 14, 4, c_launch); return 14;
	case SW_WAIT: fill_rect(cr, x, y + 3, 14, 4, c_wait); return 14;
	case SW_COMPUTE:
		for (int i = 0; i < 3; i++)
			swatch_box(cr, x + 8 * i, y, compute_palette[i * 4 % N_PALETTE]);
		return 30;
	case SW_DENSITY:
		for (int i = 0; i < 4; i++) {
			cairo_set_source_rgba(cr, 0.31, 0.47, 0.65, 0.35 + 0.2 * i);
			cairo_rectangle(cr, x + 5 * i, y, 5, 10);
			cairo_fill(cr);
		}
		return 20;
	case SW_TICK:
		fill_rect(cr, x, y + 2, 14, 6, c_apilaunch);
		fill_rect(cr, x + 3, y, 1, 10, c_tick);
		fill_rect(cr, x + 9, y, 1, 10, c_tick);
		return 14;
	case SW_NVTX: swatch_box(cr, x, y, pastel(p, 0)); return 14;
	case SW_QUEUE: {
		double dash[] = {4, 2.5};
		cairo_set_dash(cr, dash, 2, 0);
		set_rgb(cr, c_queue);
		cairo_set_line_width(cr, 1.5);
		cairo_move_to(cr, x, y + 2);
		cairo_line_to(cr, x + 18, y + 2);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		fill_rect(cr, x + 17, y + 2, 1.2, 8, c_queue);
		return 18;
	}
	case SW_OCC:
			circle(cr, x + 5, y + 5, 4.5);
		set_rgb(cr, c_occ);
		cairo_fill_preserve(cr);
		set_rgb(cr, c_occ_edge);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
		return 10;
	case SW_OVERLAP:
		fill_rect(cr, x, y + 8, 14, 2, c_overlap);
		fill_rect(cr, x + 6, y, 1.5, 9, c_overlap);
		return 14;
	case SW_FINDING: finding_badge(p, x + 7, y + 5, 1, c_sev[KG_SEV_CRITICAL]); return 14;
	case SW_GROUP: return 0;
	default: swatch_box(cr, x, y, *boxes[sw]); return 14;
	}
}

/* Lays out (and with draw, draws) the legend from y; returns its height. */
static double legend(struct plot *p, double y0, int draw)
{
	char qtext[80], otext[80];
	int notes = p->a != NULL;
	double q_us = notes ? (double)p->a->cfg.queue_wait_mark_ns / 1e3 : 0;
	snprintf(qtext, sizeof(qtext), "queue wait > %g µs", q_us);
	snprintf(otext, sizeof(otext), "theoretical occupancy < %.0f%%",
		 notes ? 100 * p->a->cfg.low_occupancy : 0);
	const struct legend_item items[] = {
		{SW_GROUP, "GPU"}, {SW_LAUNCH, "launch latency (API call → queued)"},
		{SW_WAIT, "waiting in the queue (queued → start)"}, {SW_COMPUTE, "kernel (colour by name)"},
		{SW_COMM, "communication kernel"}, {SW_HTOD, "copy HtoD"}, {SW_DTOH, "copy DtoH"},
		{SW_DTOD, "copy DtoD"}, {SW_PEER, "copy peer"}, {SW_MEMSET, "memset"},
		{SW_DENSITY, "operations under a pixel: opacity = busy fraction"},
		{SW_GROUP, "host"}, {SW_SYNC, "synchronising call"}, {SW_TICK, "kernel launch"},
		{SW_APICOPY, "copy or memset call"}, {SW_APIOTHER, "other CUDA call"},
		{SW_NVTX, "NVTX range"},
		{SW_GROUP, "marks"}, {SW_QUEUE, qtext}, {SW_OCC, otext},
		{SW_OVERLAP, "copy running beside a kernel"},
		{SW_FINDING, "finding #1, #2… of kgantt report"},
	};
	size_t n = sizeof(items) / sizeof(items[0]) - (notes ? 0 : 5);
	double x = MARGIN, y = y0, right = p->l.width - MARGIN, line_h = 18;
	cairo_t *cr = p->cr;
	for (size_t i = 0; i < n; i++) {
		const struct legend_item *it = &items[i];
		if (it->sw == SW_GROUP) {
			if (i)
				y += line_h;
			x = MARGIN;
			font(cr, 10, 1);
			if (draw)
				text_at(cr, x, y + 9, it->text, c_text);
			x += 52;
			continue;
		}
		font(cr, 10, 0);
		double sw = it->sw == SW_COMPUTE ? 30 : it->sw == SW_DENSITY ? 20 : 18;
		double need = sw + 5 + text_w(cr, it->text) + 16;
		if (x + need > right && x > MARGIN + 52) {
			y += line_h;
			x = MARGIN + 52;
		}
		if (draw) {
			swatch(p, it->sw, x, y);
			font(cr, 10, 0);
			text_at(cr, x + sw + 5, y + 9, it->text, c_text);
		}
		x += need;
	}
	return y + line_h - y0;
}

/* ---------------------------------------------------------------- call sites */

/* "99% at syncs.cu:66 in main → cudaStreamSynchronize": where the finding's gain comes
 * from, as `kgantt report` prints its first "where" line, with the count of its other
 * sites; valid UTF-8 (cairo draws nothing of a string that is not). "" when the finding
 * has no site. */
static const char *top_site(const struct kg_analysis *a, const struct kg_finding *f, char *buf,
			    size_t len)
{
	double total = f->sited_ns + f->unsited_ns;
	buf[0] = '\0';
	if (!a->has_stacks || f->n_sites <= 0 || !(total > 0))
		return buf;
	char *clean = NULL;
	size_t n, cap = 0;
	const char *label = utf8_clean(a->sites[f->sites[0].site].label, &n, &clean, &cap);
	int k = snprintf(buf, len, "%.0f%% at %s", 100.0 * f->sites[0].ns / total,
			 label ? label : "?");
	double rest = 100.0 * (total - f->unsited_ns - f->sites[0].ns) / total;
	double unsited = 100.0 * f->unsited_ns / total;
	if (rest >= 0.5 && k > 0 && (size_t)k < len) {
		if (f->n_sites >= KG_MAX_FINDING_SITES)
			k += snprintf(buf + k, len - (size_t)k, "  · %.0f%% at more sites", rest);
		else
			k += snprintf(buf + k, len - (size_t)k, "  · %.0f%% at %d other site%s", rest,
				      f->n_sites - 1, f->n_sites > 2 ? "s" : "");
	}
	if (unsited >= 0.5 && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "  · %.0f%% from calls without a stack", unsited);
	free(clean);
	return buf;
}

/* Under the legend, when the trace has call stacks: for each numbered finding that has
 * one, its badge, its rule and its first call site. Lays out (and with draw, draws) from
 * y0; returns its height (0 without sites). */
static double site_lines(struct plot *p, double y0, int draw)
{
	const struct kg_analysis *a = p->a;
	char line[700], where[600];
	double y = y0 + 4, line_h = 18, x = MARGIN + 52, right = p->l.width - MARGIN;
	int shown = 0;
	if (!a || !a->has_stacks)
		return 0;
	cairo_t *cr = p->cr;
	for (uint32_t i = 0; i < a->n_findings; i++) {
		const struct kg_finding *f = &a->findings[i];
		if (!*top_site(a, f, where, sizeof(where)))
			continue;
		if (draw) {
			if (!shown) {
				font(cr, 10, 1);
				text_at(cr, MARGIN, y + 9, "where", c_text);
			}
			finding_badge(p, x + 7, y + 5, (int)i + 1, c_sev[f->severity <= KG_SEV_CRITICAL
									? f->severity : 0]);
			font(cr, 10, 1);
			snprintf(line, sizeof(line), "%s:", f->rule);
			text_at(cr, x + 19, y + 9, line, c_text);
			double w = text_w(cr, line) + 5;
			font(cr, 10, 0);
			text_fit(cr, x + 19 + w, y + 9, right - x - 19 - w, where, c_text);
		}
		shown++;
		y += line_h;
	}
	if (!shown)
		return 0;
	if (draw) {
		font(cr, 9, 0);
		text_fit(cr, x, y + 8, right - x, "share of each finding's estimated gain caused by "
			 "the calls from that place in the program (kgantt report --sites lists them all)",
			 c_muted);
	}
	return y + line_h - y0;
}

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
	title(p);
	lane_backgrounds(p);
	plot_hw_backgrounds(cr, p->m, &p->l, MARGIN);
	axis(p);
	lane_labels(p);
	plot_edges(p);
	cairo_save(cr);
	cairo_rectangle(cr, p->l.x0, p->l.lanes_top, p->l.x1 - p->l.x0,
			p->l.lanes_bottom - p->l.lanes_top);
	cairo_clip(cr);
	for (uint32_t i = 0; i < p->l.n_lanes; i++) {
		enum kg_lane_kind k = p->l.lanes[i].kind;
		if (k == KG_LANE_STREAM) {
			phase_pass(p, &p->l.lanes[i], 0);
			phase_pass(p, &p->l.lanes[i], 1);
			blocks(p, i);
		} else if (k == KG_LANE_API) {
			api_lane(p, i);
		} else {
			nvtx_lane(p, i);
		}
	}
	if (p->a)
		annotations(p);
	cairo_restore(cr);
	if (plot_hw_draw(cr, p->m, &p->l, MARGIN) < 0)
		p->oom = 1;
	double y = p->l.lanes_bottom + (p->l.lanes_bottom - p->l.lanes_top > 500 ? 26 : 10);
	y += sm_panel(p, y);
	y += legend(p, y, 1);
	site_lines(p, y, 1);
}

/* ---------------------------------------------------------------- writing */

struct sink {
	FILE *f;
	int error;            /* errno of the first failed write (ENOSPC: a full disk), 0 */
};

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int len)
{
	struct sink *s = closure;
	if (fwrite(data, 1, len, s->f) != len) {
		if (!s->error)
			s->error = errno ? errno : EIO;
		return CAIRO_STATUS_WRITE_ERROR;
	}
	return CAIRO_STATUS_SUCCESS;
}

static double pixel_scale(const struct kg_plot_opts *o)
{
	return o->format == KG_PLOT_PNG ? (o->dpi > 0 ? o->dpi : 96) / 96.0
		: o->format == KG_PLOT_PDF ? 0.75 : 1.0;
}

static cairo_surface_t *make_surface(const struct plot *p, struct sink *s)
{
	double k = pixel_scale(p->o), w = p->l.width, h = p->l.height;
	switch (p->o->format) {
	case KG_PLOT_PNG:
		return cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(w * k),
						  (int)ceil(h * k));
	case KG_PLOT_SVG: {
		cairo_surface_t *sf = cairo_svg_surface_create_for_stream(sink_write, s, w, h);
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 15, 10)
		cairo_svg_surface_set_document_unit(sf, CAIRO_SVG_UNIT_PX);
#endif
		return sf;
	}
	default:
		return cairo_pdf_surface_create_for_stream(sink_write, s, w * k, h * k);
	}
}

/* Draws onto a surface writing into s; 0 or a negative errno. */
static int render_to(struct plot *p, struct sink *s)
{
	cairo_surface_t *sf = make_surface(p, s);
	if (cairo_surface_status(sf) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(sf);
		return -ENOMEM;
	}
	p->cr = cairo_create(sf);
	double k = pixel_scale(p->o);
	cairo_scale(p->cr, k, k);
	draw(p);
	cairo_status_t st = cairo_status(p->cr);
	cairo_destroy(p->cr);
	p->cr = NULL;
	if (st == CAIRO_STATUS_SUCCESS && p->o->format == KG_PLOT_PNG)
		st = cairo_surface_write_to_png_stream(sf, sink_write, s);
	cairo_surface_finish(sf);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(sf);
	cairo_surface_destroy(sf);
	if (s->error || st == CAIRO_STATUS_WRITE_ERROR)
		return s->error ? -s->error : -EIO;
	return st == CAIRO_STATUS_SUCCESS && !p->oom ? 0 : -ENOMEM;
}

/* ---------------------------------------------------------------- the manifest */

/* A number, or null when there is none. */
static void json_opt(FILE *f, int present, int64_t v)
{
	if (present)
		fprintf(f, "%" PRId64, v);
	else
		fprintf(f, "null");
}

/* A time relative to origin, or null when unknown. */
static void json_time(FILE *f, int64_t t, int64_t origin)
{
	if (t != KG_NO_TIME)
		fprintf(f, "%" PRId64, kg_time_diff(t, origin));
	else
		fprintf(f, "null");
}

static const char *lane_kind_name(enum kg_lane_kind k)
{
	return k == KG_LANE_STREAM ? "stream" : k == KG_LANE_API ? "api" : "nvtx";
}

static void manifest_lane(FILE *f, const struct plot *p, uint32_t i)
{
	const struct kg_model *m = p->m;
	const struct kg_lane *ln = &p->l.lanes[i];
	const struct lane_count *n = &p->counts[i];
	fprintf(f, "    {\"lane\": %" PRIu32 ", \"kind\": \"%s\", \"pid\": %" PRIu32
		   ", \"y\": %.1f, \"height\": %.1f",
		i, lane_kind_name(ln->kind), m->processes[ln->process].pid, ln->y, ln->h);
	if (ln->kind == KG_LANE_STREAM) {
		const struct kg_stream *s = &m->streams[ln->stream];
		fprintf(f, ", \"device\": %" PRId32 ", \"gpu\": %" PRIu32 ", \"stream\": %" PRId64
			   ", \"kernels\": %" PRIu32 ", \"copies\": %" PRIu32 ", \"memsets\": %" PRIu32
			   ", \"blocks\": %" PRIu32 ", \"merged\": %" PRIu32
			   ", \"density_columns\": %" PRIu32 "}",
			m->devices[ln->device].ordinal, m->devices[ln->device].gpu, s->id, n->kernels,
			n->copies, n->memsets, n->blocks, n->merged, n->columns);
		return;
	}
	if (ln->thread != KG_NONE)
		fprintf(f, ", \"tid\": %" PRIu64, m->threads[ln->thread].tid);
	if (ln->kind == KG_LANE_API)
		fprintf(f, ", \"api_calls\": %" PRIu32 ", \"syncs\": %" PRIu32 ", \"launches\": %" PRIu32 "}",
			n->records, n->syncs, n->launches);
	else
		fprintf(f, ", \"ranges\": %" PRIu32 ", \"levels\": %d}", n->records, ln->levels);
}

static void manifest_marks(FILE *f, const struct plot *p)
{
	static const char *const types[] = {"queue-wait", "low-occupancy", "overlap"};
	fprintf(f, "  \"marks\": [");
	for (uint32_t i = 0; i < p->n_marks; i++) {
		const struct mark *k = &p->marks[i];
		fprintf(f, "%s\n    {\"type\": \"%s\", \"lane\": %" PRIu32, i ? "," : "", k->type,
			k->lane);
		if (k->lane2 != KG_NONE)
			fprintf(f, ", \"lane2\": %" PRIu32, k->lane2);
		fprintf(f, ", \"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64 ", \"count\": %" PRIu32 "}",
			kg_time_diff(k->t0, p->o->origin), kg_time_diff(k->t1, p->o->origin), k->count);
	}
	fprintf(f, "%s],\n  \"mark_counts\": {", p->n_marks ? "\n  " : "");
	for (int t = 0; t < 3; t++) {
		uint64_t marks = 0, count = 0;
		for (uint32_t i = 0; i < p->n_marks; i++)
			if (!strcmp(p->marks[i].type, types[t])) {
				marks++;
				count += p->marks[i].count;
			}
		fprintf(f, "%s\"%s\": {\"marks\": %" PRIu64 ", \"count\": %" PRIu64 "}", t ? ", " : "",
			types[t], marks, count);
	}
	fprintf(f, "},\n");
}

/* A finding's call sites as in kgantt report --json (site: its number there; share of the
 * gain; gain_ns; label), and "where": the line drawn under the chart, null when none. */
static void manifest_sites(FILE *f, const struct kg_analysis *a, const struct kg_finding *fd)
{
	char where[600], *clean = NULL;
	size_t n, cap = 0;
	double total = fd->sited_ns + fd->unsited_ns;
	fprintf(f, ", \"sited_ns\": %.0f, \"unsited_ns\": %.0f, \"sites\": [", fd->sited_ns,
		fd->unsited_ns);
	for (int k = 0; k < fd->n_sites; k++) {
		const char *label = utf8_clean(a->sites[fd->sites[k].site].label, &n, &clean, &cap);
		fprintf(f, "%s{\"site\": %" PRIu32 ", \"share\": %.6g, \"gain_ns\": %.0f, \"label\": ",
			k ? ", " : "", fd->sites[k].site + 1, total > 0 ? fd->sites[k].ns / total : 0,
			fd->sites[k].ns);
		json_put_string(f, label ? label : "");
		fprintf(f, "}");
	}
	free(clean);
	fprintf(f, "], \"where\": ");
	if (*top_site(a, fd, where, sizeof(where)))
		json_put_string(f, where);
	else
		fprintf(f, "null");
}

static void manifest_findings(FILE *f, const struct plot *p)
{
	uint32_t n = p->a ? p->a->n_findings : 0;
	fprintf(f, "  \"findings\": [");
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_finding *fd = &p->a->findings[i];
		const struct finding_mark *fm = &p->fmarks[i];
		fprintf(f, "%s\n    {\"number\": %" PRIu32 ", \"rule\": ", i ? "," : "", i + 1);
		json_put_string(f, fd->rule);
		fprintf(f, ", \"severity\": \"%s\", \"drawn\": %s, \"lane\": ",
			severity_name(fd->severity),
			fm->lane != KG_NONE && fm->t0 != KG_NO_TIME ? "true" : "false");
		json_opt(f, fm->lane != KG_NONE, fm->lane);
		fprintf(f, ", \"start_ns\": ");
		json_time(f, fm->t0, p->o->origin);
		fprintf(f, ", \"end_ns\": ");
		json_time(f, fm->t1, p->o->origin);
		manifest_sites(f, p->a, fd);
		fprintf(f, "}");
	}
	fprintf(f, "%s]\n", n ? "\n  " : "");
}

static void manifest_write(FILE *f, const struct plot *p, const char *path)
{
	static const char *const formats[] = {"png", "svg", "pdf"};
	double k = pixel_scale(p->o);
	fprintf(f, "{\n  \"kgantt_plot_version\": 1,\n  \"output\": ");
	json_put_string(f, path);
	fprintf(f, ",\n  \"format\": \"%s\",\n  \"width\": %.0f,\n  \"height\": %.0f,\n",
		formats[p->o->format], p->l.width, p->l.height);
	if (p->o->format == KG_PLOT_PNG)
		fprintf(f, "  \"pixels\": [%d, %d],\n", (int)ceil(p->l.width * k),
			(int)ceil(p->l.height * k));
	fprintf(f, "  \"window\": {\"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64
		   ", \"relative_to\": \"trace begin\"},\n  \"annotations\": %s,\n  \"has_stacks\": %s,\n",
		kg_time_diff(p->l.t0, p->o->origin), kg_time_diff(p->l.t1, p->o->origin),
		p->a ? "true" : "false",
		p->a && p->a->has_stacks ? "true" : "false");
	uint64_t tot[6] = {0};
	for (uint32_t i = 0; i < p->l.n_lanes; i++) {
		const struct lane_count *n = &p->counts[i];
		uint64_t v[6] = {n->kernels, n->copies, n->memsets, n->blocks, n->merged, n->columns};
		for (int j = 0; j < 6; j++)
			tot[j] += v[j];
	}
	fprintf(f, "  \"totals\": {\"kernels\": %" PRIu64 ", \"copies\": %" PRIu64
		   ", \"memsets\": %" PRIu64 ", \"blocks\": %" PRIu64 ", \"merged\": %" PRIu64
		   ", \"density_columns\": %" PRIu64 "},\n  \"lanes\": [\n",
		tot[0], tot[1], tot[2], tot[3], tot[4], tot[5]);
	for (uint32_t i = 0; i < p->l.n_lanes; i++) {
		manifest_lane(f, p, i);
		fprintf(f, "%s\n", i + 1 < p->l.n_lanes ? "," : "");
	}
	fprintf(f, "  ],\n");
	plot_hw_manifest(f, p->m, &p->l);
	plot_sm_manifest(f, &p->sm_drawn);
	manifest_marks(f, p);
	manifest_findings(f, p);
	fprintf(f, "}\n");
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

/* The legend's height depends on the text widths: measure it on a scratch surface. */
static double measure_legend(struct plot *p, double width)
{
	cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
	p->cr = cairo_create(sf);
	p->l.width = width;
	double h = legend(p, 0, 0);
	h += site_lines(p, h, 0);
	cairo_destroy(p->cr);
	cairo_surface_destroy(sf);
	p->cr = NULL;
	return h;
}

static int prepare(struct plot *p)
{
	struct kg_layout_opts lo;
	layout_opts_of(p->o, &lo);
	p->legend_h = measure_legend(p, lo.width);
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
	if (!p->counts || !p->col_busy || !p->col_rgb || !p->colour_of_name)
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
}

static int write_manifest(const struct plot *p, const char *path, const char *manifest,
			  char *err, size_t errlen)
{
	struct kg_outfile of;
	struct kg_outfile_opts oo = {.what = "the manifest"};
	FILE *f = outfile_open(&of, manifest, &oo);
	if (!f) {
		snprintf(err, errlen, "%s", of.err);
		return -EIO;
	}
	manifest_write(f, p, path);
	int rc = outfile_commit(&of);
	if (rc < 0)
		snprintf(err, errlen, "%s", of.err);
	return rc;
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
	double k = pixel_scale(o);
	if (o->format == KG_PLOT_PNG && (p.l.width * k > 32767 || p.l.height * k > 32767)) {
		snprintf(err, errlen, "cannot draw '%s': %.0f x %.0f pixels is more than a PNG "
			 "can hold here (32767 a side)", path, p.l.width * k, p.l.height * k);
		plot_free(&p);
		return -EFBIG;
	}
	/* the temporary file, the rename, symlinks, FIFOs, devices, signals: util/outfile.h */
	struct kg_outfile of;
	struct kg_outfile_opts oo = {.what = "the chart"};
	FILE *f = outfile_open(&of, path, &oo);
	if (!f) {
		snprintf(err, errlen, "%s", of.err);
		plot_free(&p);
		return -EIO;
	}
	struct sink s = {f, 0};
	rc = render_to(&p, &s);
	if (rc < 0) {
		outfile_abort(&of);
		snprintf(err, errlen, rc == -ENOMEM ? "out of memory drawing '%s'"
						     : "cannot write '%s': %s",
			 path, strerror(-rc));
	} else if ((rc = outfile_commit(&of)) < 0) {
		snprintf(err, errlen, "%s", of.err);
	}
	if (!rc && manifest)
		rc = write_manifest(&p, path, manifest, err, errlen);
	plot_free(&p);
	return rc;
}
