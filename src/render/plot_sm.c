/* The SM panel of kgantt plot --sm (render/plot_sm.h, docs/plot.md). */
#include "render/draw.h"
#include "render/plot_sm.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/format.h"

#define GAP 12.0            /* above each panel */
#define HEAD_H 22.0         /* the panel's title line */
#define TICKS_H 16.0        /* the time labels under the lanes */
#define KEY_H 20.0          /* the kernels' colour key */
#define NOTE_H 24.0         /* the line said when no block is in the window */
#define MAX_SLOTS 4         /* blocks at once on one SM drawn as rows of its lane */
#define MAX_SMS 1024        /* lanes per device at most: a larger id is a damaged trace */
#define MAX_KEYS 10         /* kernels named in the key */


static const struct rgb c_text = RGB(0x1f2328), c_muted = RGB(0x5f6b7a);
static const struct rgb c_grid = RGB(0xe4e7eb), c_rule = RGB(0xc9ced6);
static const struct rgb c_head_bg = RGB(0xf1f4f8);
static const struct rgb c_band[2] = {RGB(0xffffff), RGB(0xf4f6f9)};

/* One device's panel: its blocks in the sorted array, and its geometry. */
struct panel {
	uint32_t device;         /* index into model.devices */
	uint32_t first, end;     /* its blocks: sm_blocks[first .. end) */
	uint32_t n_sms;          /* lanes */
	uint32_t shown;          /* blocks in the window and filters */
	double lane_h;
};

/* ---------------------------------------------------------------- which blocks */

static uint32_t device_of(const struct kg_model *m, const struct kg_sm_block *b)
{
	return m->streams[m->ops[b->op].stream].device;
}

static int stream_shown(const struct kg_model *m, const struct kg_plot_opts *o, uint32_t s)
{
	struct kg_layout_opts lo = {.device = o->device, .streams = o->streams,
				    .n_streams = o->n_streams};
	return layout_stream_selected(m, &lo, s);
}

static int block_shown(const struct kg_model *m, const struct kg_plot_opts *o,
		       const struct kg_sm_block *b)
{
	return b->start < o->t1 && b->end > o->t0 && b->sm < MAX_SMS &&
	       stream_shown(m, o, m->ops[b->op].stream);
}

/* Lane height for n SMs: the lanes of an H200 (132 SMs) take about 650 px. */
static double lane_height(uint32_t n)
{
	double h = 660.0 / (n ? n : 1);
	return h < 3.5 ? 3.5 : h > 14 ? 14 : h;
}

/* The next device's panel from block `at` on; 0 when no block is left. */
static int next_panel(const struct kg_model *m, const struct kg_plot_opts *o, uint32_t *at,
		      struct panel *p)
{
	while (*at < m->n_sm_blocks) {
		uint32_t d = device_of(m, &m->sm_blocks[*at]), end = *at, max_sm = 0, shown = 0;
		while (end < m->n_sm_blocks && device_of(m, &m->sm_blocks[end]) == d) {
			const struct kg_sm_block *b = &m->sm_blocks[end++];
			if (block_shown(m, o, b)) {
				shown++;
				max_sm = b->sm > max_sm ? b->sm : max_sm;
			}
		}
		*p = (struct panel){.device = d, .first = *at, .end = end, .shown = shown};
		*at = end;
		if (!shown)
			continue;
		int sms = m->devices[d].sm_count;
		p->n_sms = sms > 0 && (uint32_t)sms > max_sm ? (uint32_t)sms : max_sm + 1;
		p->lane_h = lane_height(p->n_sms);
		return 1;
	}
	return 0;
}

static double panel_height(const struct panel *p)
{
	return GAP + HEAD_H + p->n_sms * p->lane_h + TICKS_H + KEY_H;
}

double plot_sm_height(const struct kg_model *m, const struct kg_plot_opts *o)
{
	if (!m->n_sm_blocks)
		return 0;
	double h = 0;
	struct panel p;
	for (uint32_t at = 0; next_panel(m, o, &at, &p);)
		h += panel_height(&p);
	return h > 0 ? h : GAP + NOTE_H;
}

/* ---------------------------------------------------------------- text */

/* ---------------------------------------------------------------- the frame */

static const struct kg_sm_info *info_of(const struct kg_model *m, uint32_t device)
{
	for (uint32_t i = 0; i < m->n_sm_infos; i++)
		if (m->sm_infos[i].device == device)
			return &m->sm_infos[i];
	return NULL;
}

static void head(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		 const struct panel *p, double y, double margin, uint32_t kernels)
{
	const struct kg_device *d = &m->devices[p->device];
	const struct kg_sm_info *x = info_of(m, p->device);
	char line[600], err[96] = "", drop[96] = "", n1[32], n2[32];
	if (x && x->offset_mad != KG_NO_TIME)
		snprintf(err, sizeof(err), " · block times ±%" PRId64 " ns (clock alignment)",
			 x->offset_mad);
	if (x && x->dropped)
		snprintf(drop, sizeof(drop), " · %s blocks dropped (log full)",
			 fmt_count(x->dropped, n1));
	snprintf(line, sizeof(line),
		 "SM placement · device %" PRId32 " · %s · %" PRIu32 " SMs · %s blocks of %" PRIu32
		 " kernel%s in the window%s%s",
		 d->ordinal, *model_text(m, d->name) ? model_text(m, d->name) : "GPU", p->n_sms,
		 fmt_count(p->shown, n2), kernels, kernels == 1 ? "" : "s", err, drop);
	set_rgb(cr, c_head_bg);
	cairo_rectangle(cr, margin, y + 2, l->width - margin - margin / 2, HEAD_H - 3);
	cairo_fill(cr);
	font(cr, 10.5, 1);
	text_fit(cr, margin + 5, y + HEAD_H / 2 + 4, l->width - 3 * margin, line, c_text);
}

/* Alternate bands of 8 SMs, the SM labels, the time grid. */
static void lanes_frame(cairo_t *cr, const struct kg_layout *l, const struct kg_plot_opts *o,
			const struct panel *p, double top, double margin)
{
	double h = p->n_sms * p->lane_h;
	for (uint32_t s = 0; s < p->n_sms; s += 8) {
		uint32_t n = p->n_sms - s < 8 ? p->n_sms - s : 8;
		set_rgb(cr, c_band[(s / 8) & 1]);
		cairo_rectangle(cr, margin + 6, top + s * p->lane_h, l->x1 - margin - 6, n * p->lane_h);
		cairo_fill(cr);
	}
	struct kg_tick ticks[64];
	int target = (int)((l->x1 - l->x0) / 110);
	int nt = layout_ticks(l, o->origin, target < 2 ? 2 : target, ticks, 64);
	set_rgb(cr, c_grid);
	cairo_set_line_width(cr, 1);
	for (int i = 0; i < nt; i++) {
		double x = floor(layout_x(l, ticks[i].t)) + 0.5;
		cairo_move_to(cr, x, top);
		cairo_line_to(cr, x, top + h + 3);
	}
	cairo_stroke(cr);
	set_rgb(cr, c_rule);
	cairo_rectangle(cr, floor(l->x0) - 0.5, top - 0.5, ceil(l->x1) - floor(l->x0) + 1, h + 1);
	cairo_stroke(cr);
	/* labels: every k-th SM, k a power of two that leaves 11 px per label */
	uint32_t k = 1;
	while (k * p->lane_h < 11 && k < 256)
		k *= 2;
	double fs = p->lane_h * k < 14 ? 8.5 : 9.5;
	font(cr, fs, 0);
	char label[32];
	for (uint32_t s = 0; s < p->n_sms; s += k) {
		snprintf(label, sizeof(label), "SM %" PRIu32, s);
		double y = top + (s + 0.5) * p->lane_h + fs * 0.36;
		set_rgb(cr, c_muted);
		cairo_move_to(cr, l->x0 - 8 - text_w(cr, label), y);
		cairo_show_text(cr, label);
	}
	font(cr, 9.5, 1);
	text_fit(cr, margin + 10, top + 12, l->x0 - margin - 70, "SMs", c_text);
	/* the time labels under the lanes */
	font(cr, 9.5, 0);
	double right = -1e9;
	for (int i = 0; i < nt; i++) {
		double w = text_w(cr, ticks[i].label), lx = layout_x(l, ticks[i].t) - w / 2;
		lx = lx < l->x0 - 2 ? l->x0 - 2 : lx + w > l->width - 4 ? l->width - 4 - w : lx;
		if (lx < right + 8)
			continue;
		set_rgb(cr, c_text);
		cairo_move_to(cr, lx, top + h + 13);
		cairo_show_text(cr, ticks[i].label);
		right = lx + w;
	}
}

/* ---------------------------------------------------------------- the bars */

/* A bar being drawn: consecutive blocks of one kernel less than a pixel apart. */
struct bar {
	double x0, x1, y, h;
	uint32_t name;
	const struct kg_op *op;
	int open;
};

static void flush(cairo_t *cr, struct bar *b, kg_sm_colour_fn colour, void *arg,
		  struct kg_sm_drawn *drawn)
{
	if (!b->open)
		return;
	double rgb[3];
	colour(arg, b->op, rgb);
	double w = b->x1 - b->x0;
	/* a block wide enough keeps a hairline gap to the next: waves stay countable */
	if (w > 4)
		w -= 0.8;
	cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
	cairo_rectangle(cr, b->x0, b->y, w < 0.7 ? 0.7 : w, b->h);
	cairo_fill(cr);
	drawn->bars++;
	b->open = 0;
}

/* Rows within an SM's lane: each block takes the first row free at its start; the lane
 * is divided into as many rows as the SM ever needed (at most MAX_SLOTS). */
static int rows_needed(const struct kg_model *m, const struct kg_plot_opts *o, uint32_t from,
		       uint32_t to)
{
	int64_t row_end[MAX_SLOTS];
	int used = 1;
	for (int r = 0; r < MAX_SLOTS; r++)
		row_end[r] = INT64_MIN;
	for (uint32_t i = from; i < to; i++) {
		const struct kg_sm_block *b = &m->sm_blocks[i];
		if (!block_shown(m, o, b))
			continue;
		int r = 0;
		while (r < MAX_SLOTS - 1 && row_end[r] > b->start)
			r++;
		row_end[r] = b->end > row_end[r] ? b->end : row_end[r];
		used = r + 1 > used ? r + 1 : used;
	}
	return used;
}

/* The blocks of one SM: sm_blocks[from .. to), sorted by start. */
static void sm_lane(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		    const struct kg_plot_opts *o, uint32_t from, uint32_t to, double y, double h,
		    kg_sm_colour_fn colour, void *arg, struct kg_sm_drawn *drawn)
{
	int rows = rows_needed(m, o, from, to);
	int64_t row_end[MAX_SLOTS];
	struct bar bars[MAX_SLOTS];
	double row_h = (h - 1.2) / rows;
	for (int r = 0; r < MAX_SLOTS; r++) {
		row_end[r] = INT64_MIN;
		bars[r].open = 0;
	}
	for (uint32_t i = from; i < to; i++) {
		const struct kg_sm_block *b = &m->sm_blocks[i];
		if (!block_shown(m, o, b))
			continue;
		int r = 0;
		while (r < rows - 1 && row_end[r] > b->start)
			r++;
		row_end[r] = b->end > row_end[r] ? b->end : row_end[r];
		const struct kg_op *op = &m->ops[b->op];
		double x0 = layout_x(l, b->start), x1 = layout_x(l, b->end);
		struct bar *bar = &bars[r];
		if (bar->open && bar->name == op->name && x0 - bar->x1 < 1.0) {
			bar->x1 = x1 > bar->x1 ? x1 : bar->x1;
		} else {
			flush(cr, bar, colour, arg, drawn);
			*bar = (struct bar){x0, x1, y + 0.6 + r * row_h, row_h > 1.6 ? row_h - 0.4 : row_h,
					    op->name, op, 1};
		}
		drawn->blocks++;
	}
	for (int r = 0; r < MAX_SLOTS; r++)
		flush(cr, &bars[r], colour, arg, drawn);
}

/* ---------------------------------------------------------------- the key */

struct key {
	uint32_t name, blocks;
	const struct kg_op *op;
};

static int by_blocks(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	return x->blocks != y->blocks ? (x->blocks < y->blocks ? 1 : -1)
				      : (x->name > y->name) - (x->name < y->name);
}

/* The panel's kernels by name, most blocks first; how many distinct (-1: no memory). */
static int kernels_of(const struct kg_model *m, const struct kg_plot_opts *o,
		      const struct panel *p, struct key **out)
{
	uint32_t n = 0, cap = 16;
	struct key *k = malloc(cap * sizeof(*k));
	if (!k)
		return -1;
	for (uint32_t i = p->first; i < p->end; i++) {
		const struct kg_sm_block *b = &m->sm_blocks[i];
		if (!block_shown(m, o, b))
			continue;
		const struct kg_op *op = &m->ops[b->op];
		uint32_t j = 0;
		while (j < n && k[j].name != op->name)
			j++;
		if (j == n) {
			if (n == cap) {
				struct key *g = realloc(k, 2 * cap * sizeof(*k));
				if (!g) {
					free(k);
					return -1;
				}
				k = g;
				cap *= 2;
			}
			k[n++] = (struct key){op->name, 0, op};
		}
		k[j].blocks++;
	}
	qsort(k, n, sizeof(*k), by_blocks);
	*out = k;
	return (int)n;
}

static void key_row(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		    const struct key *k, int n, double y, kg_sm_colour_fn colour, void *arg)
{
	double x = l->x0, right = l->width - 8;
	char text[300], num[32];
	font(cr, 9.5, 0);
	for (int i = 0; i < n && i < MAX_KEYS; i++) {
		double rgb[3];
		colour(arg, k[i].op, rgb);
		snprintf(text, sizeof(text), "%s (%s blocks)", model_text(m, k[i].name),
			 fmt_count(k[i].blocks, num));
		double w = text_w(cr, text);
		w = w > 300 ? 300 : w;
		if (x + 16 + w > right && i)
			break;
		cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
		cairo_rectangle(cr, x, y + 3, 11, 9);
		cairo_fill(cr);
		x += 15 + text_fit(cr, x + 15, y + 11, right - x - 15 < 300 ? right - x - 15 : 300,
				   text, c_text) + 14;
	}
}

/* ---------------------------------------------------------------- entry points */

static int draw_panel(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		      const struct kg_plot_opts *o, const struct panel *p, double y,
		      double margin, kg_sm_colour_fn colour, void *arg, struct kg_sm_drawn *drawn)
{
	struct key *keys = NULL;
	int nk = kernels_of(m, o, p, &keys);
	if (nk < 0)
		return -ENOMEM;
	double top = y + GAP + HEAD_H;
	head(cr, m, l, p, y + GAP, margin, (uint32_t)nk);
	lanes_frame(cr, l, o, p, top, margin);
	cairo_save(cr);
	cairo_rectangle(cr, l->x0, top, l->x1 - l->x0, p->n_sms * p->lane_h);
	cairo_clip(cr);
	for (uint32_t i = p->first; i < p->end;) {
		uint32_t sm = m->sm_blocks[i].sm, j = i;
		while (j < p->end && m->sm_blocks[j].sm == sm)
			j++;
		if (sm < p->n_sms)
			sm_lane(cr, m, l, o, i, j, top + sm * p->lane_h, p->lane_h, colour, arg, drawn);
		i = j;
	}
	cairo_restore(cr);
	key_row(cr, m, l, keys, nk, top + p->n_sms * p->lane_h + TICKS_H, colour, arg);
	drawn->panels++;
	drawn->lanes += p->n_sms;
	drawn->kernels += (uint32_t)nk;
	free(keys);
	return 0;
}

int plot_sm_draw(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		 const struct kg_plot_opts *o, double y, double margin, kg_sm_colour_fn colour,
		 void *arg, struct kg_sm_drawn *drawn)
{
	memset(drawn, 0, sizeof(*drawn));
	if (!m->n_sm_blocks)
		return 0;
	struct panel p;
	int rc = 0;
	for (uint32_t at = 0; !rc && next_panel(m, o, &at, &p); y += panel_height(&p))
		rc = draw_panel(cr, m, l, o, &p, y, margin, colour, arg, drawn);
	if (!drawn->panels) {
		font(cr, 10.5, 0);
		text_fit(cr, margin + 5, y + GAP + 15, l->width - 3 * margin,
			 "SM placement: no logged block runs in this window", c_muted);
	}
	return rc;
}

void plot_sm_manifest(FILE *f, const struct kg_sm_drawn *d)
{
	if (!d->panels)
		return;
	fprintf(f,
		"  \"sm\": {\"panels\": %" PRIu32 ", \"sm_lanes\": %" PRIu32 ", \"sm_blocks\": %" PRIu32
		", \"bars\": %" PRIu32 ", \"kernels\": %" PRIu32 "},\n",
		d->panels, d->lanes, d->blocks, d->bars, d->kernels);
}
