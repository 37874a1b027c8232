/* The hardware-sample strips of kgantt plot (render/plot_hw.h, docs/plot.md). */
#include "render/draw.h"
#include "render/plot_hw.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text/json_writer.h"
#include "util/timemath.h"
#include "util/utf8.h"

#define PAD 5.0           /* px between the strip's edges and its 0 % and 100 % lines */
#define SCALE_W 28.0      /* right part of the label column: the "100%" and "0" labels */


static const struct rgb c_text = RGB(0x1f2328), c_muted = RGB(0x5f6b7a);
static const struct rgb c_rule = RGB(0xc9ced6), c_guide = RGB(0xdfe3e8);
static const struct rgb c_label_bg = RGB(0xeef2f7), c_plot_bg = RGB(0xfbfcfe);
static const struct rgb c_ctxsw = RGB(0xd62728);

/* The curves, in drawing order: the last is on top. */
enum curve { C_TENSOR, C_DRAM, C_OCC, C_SM, N_CURVES };

static const struct rgb c_curve[N_CURVES] = {
	[C_TENSOR] = RGB(0x9c36b5), [C_DRAM] = RGB(0xe8590c), [C_OCC] = RGB(0x2b8a3e),
	[C_SM] = RGB(0x1c5fb8),
};

/* What one strip shows, computed once for drawing and for the manifest. */
struct plan {
	const struct kg_hw_device *hw;
	uint32_t first, end;     /* the device's samples: hw_samples[first .. end) */
	uint32_t in_window;      /* of them, those overlapping the window */
	int has[N_CURVES];       /* the curve has a value in the window */
	int dram_pct;            /* DRAM as % of its peak (dram_peak_pct), else read + write */
	double dram_top;         /* B/s at the strip's top when !dram_pct: a round number */
	int columns;             /* reduced per pixel column rather than drawn as steps */
	int64_t join;            /* samples closer than this are one unbroken curve */
};

/* ---------------------------------------------------------------- values */

static int in_window(const struct kg_hw_sample *x, int64_t t0, int64_t t1)
{
	return x->start < t1 && (x->end > t0 || (x->end == x->start && x->start >= t0));
}

/* DRAM read + write in B/s; NaN when the GPU counted neither. */
static double dram_bps(const struct kg_hw_sample *x)
{
	double r = x->v[KG_HW_DRAM_READ], w = x->v[KG_HW_DRAM_WRITE];
	if (!isfinite(r) && !isfinite(w))
		return NAN;
	return (isfinite(r) && r > 0 ? r : 0) + (isfinite(w) && w > 0 ? w : 0);
}

/* A curve's value for a sample, in % of the strip's height; NaN when not counted. */
static double curve_value(const struct plan *p, const struct kg_hw_sample *x, int c)
{
	switch (c) {
	case C_SM: return x->v[KG_HW_SM_ACTIVE];
	case C_OCC: return x->v[KG_HW_OCCUPANCY];
	case C_TENSOR: return x->v[KG_HW_TENSOR];
	default:
		return p->dram_pct ? x->v[KG_HW_DRAM_PEAK] : 100.0 * dram_bps(x) / p->dram_top;
	}
}

/* The smallest 1, 2 or 5 × 10^k not below v (v > 0). */
static double nice_ceil(double v)
{
	double p = pow(10, floor(log10(v)));
	return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

static void plan_strip(const struct kg_model *m, const struct kg_layout *l,
		       const struct kg_hw_strip *s, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->hw = &m->hw_devices[s->hw];
	model_hw_sample_range(m, s->device, &p->first, &p->end);
	double top_bps = 0;
	int has_bps = 0;
	for (uint32_t i = p->first; i < p->end; i++) {
		const struct kg_hw_sample *x = &m->hw_samples[i];
		if (x->start >= l->t1)
			break;
		if (!in_window(x, l->t0, l->t1))
			continue;
		p->in_window++;
		p->has[C_SM] |= isfinite(x->v[KG_HW_SM_ACTIVE]);
		p->has[C_OCC] |= isfinite(x->v[KG_HW_OCCUPANCY]);
		p->has[C_TENSOR] |= isfinite(x->v[KG_HW_TENSOR]);
		p->dram_pct |= isfinite(x->v[KG_HW_DRAM_PEAK]);
		double b = dram_bps(x);
		if (isfinite(b)) {
			has_bps = 1;
			top_bps = b > top_bps ? b : top_bps;
		}
	}
	p->has[C_DRAM] = p->dram_pct || has_bps;
	/* GB/s at the top, a round number: 0 B/s all along still needs a scale */
	p->dram_top = nice_ceil((top_bps > 1e9 ? top_bps : 1e9) / 1e9) * 1e9;
	p->columns = p->in_window > l->x1 - l->x0;
	/* a gap of less than half an interval is jitter in the sample times, not a pause */
	p->join = p->hw->interval_ns > 0 ? p->hw->interval_ns / 2 : 0;
}

/* ---------------------------------------------------------------- drawing helpers */

/* The y of a value in % of the strip: 0 at the bottom line, 100 at the top one. */
static double y_of(const struct kg_hw_strip *s, double pct)
{
	pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
	return s->y + s->h - PAD - (s->h - 2 * PAD) * pct / 100.0;
}

/* "100 µs", "1.5 ms" */
static const char *interval_text(int64_t ns, char buf[32])
{
	if (ns <= 0)
		snprintf(buf, 32, "?");
	else if (ns < 1000)
		snprintf(buf, 32, "%" PRId64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, 32, "%g µs", (double)ns / 1e3);
	else
		snprintf(buf, 32, "%g ms", (double)ns / 1e6);
	return buf;
}

static const char *curve_label(const struct plan *p, int c, char buf[96])
{
	switch (c) {
	case C_SM: return kg_hw_figure_info[KG_HW_SM_ACTIVE].label;
	case C_OCC: return kg_hw_figure_info[KG_HW_OCCUPANCY].label;
	case C_TENSOR: return kg_hw_figure_info[KG_HW_TENSOR].label;
	default:
		if (p->dram_pct)
			return "DRAM bandwidth, % of peak";
		snprintf(buf, 96, "DRAM read+write, 0–%g GB/s", p->dram_top / 1e9);
		return buf;
	}
}

/* ---------------------------------------------------------------- the label column */

/* Title, interval and a legend of the curves, flowing over as many lines as the column
 * needs; the scale at the column's right edge. */
/* Some sample of the device saw the GPU switching contexts. */
/* A context switch worth a mark: one within the GPU work's span (the program's own
 * context is switched in once, before its first kernel). */
static int ctxsw_mark(const struct kg_model *m, const struct kg_hw_sample *x)
{
	return x->v[KG_HW_CTXSW] >= KG_HW_CTXSW_MARK_PCT && x->start >= m->begin && x->end <= m->end;
}

static int has_ctxsw(const struct kg_model *m, const struct plan *p)
{
	for (uint32_t i = p->first; i < p->end; i++)
		if (ctxsw_mark(m, &m->hw_samples[i]))
			return 1;
	return 0;
}

static void label_column(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
			 const struct kg_hw_strip *s, const struct plan *p, double margin)
{
	double x = margin + 10, w = l->x0 - margin - 16, right = x + w - SCALE_W;
	char line[160], iv[32], lost[48] = "", buf[96];
	const char *chip = model_text(m, p->hw->chip);
	if (p->hw->lost)
		snprintf(lost, sizeof(lost), " · %" PRIu64 " lost", p->hw->lost);
	int64_t interval = p->hw->interval_ns;
	for (uint32_t i = p->first; interval <= 0 && i < p->end; i++) /* not said: as sampled */
		interval = kg_time_span(m->hw_samples[i].end, m->hw_samples[i].start);
	font(cr, 9.5, 1);
	text_fit(cr, x, s->y + 12, right - x, "hardware samples", c_text);
	snprintf(line, sizeof(line), "every %s%s%s%s", interval_text(interval, iv),
		 *chip ? " · " : "", chip, lost);
	font(cr, 8.5, 0);
	text_fit(cr, x, s->y + 23, right - x, line, c_muted);
	double lx = x, ly = s->y + 34;
	for (int c = N_CURVES - 1; c >= 0; c--) { /* the top curve first */
		if (!p->has[c])
			continue;
		const char *label = curve_label(p, c, buf);
		double need = 16 + text_w(cr, label) + 8;
		if (lx > x && lx + need > right) {
			lx = x;
			ly += 10.5;
		}
		set_rgb(cr, c_curve[c]);
		cairo_set_line_width(cr, 2);
		cairo_move_to(cr, lx, ly - 3);
		cairo_line_to(cr, lx + 12, ly - 3);
		cairo_stroke(cr);
		lx += 16 + text_fit(cr, lx + 16, ly, right - lx - 16, label, c_text) + 8;
	}
	if (has_ctxsw(m, p)) {
		const char *label = "context switch (time-slicing)";
		if (lx > x && lx + 16 + text_w(cr, label) + 8 > right) {
			lx = x;
			ly += 10.5;
		}
		set_rgb(cr, c_ctxsw);
		cairo_set_line_width(cr, 1.5);
		cairo_move_to(cr, lx + 6, ly - 7);
		cairo_line_to(cr, lx + 6, ly - 1);
		cairo_stroke(cr);
		text_fit(cr, lx + 16, ly, right - lx - 16, label, c_text);
	}
	font(cr, 7.5, 0);
	const char *top = "100%";
	text_fit(cr, l->x0 - 4 - text_w(cr, top), y_of(s, 100) + 6, SCALE_W, top, c_muted);
	text_fit(cr, l->x0 - 4 - text_w(cr, "0"), y_of(s, 0), SCALE_W, "0", c_muted);
}

/* ---------------------------------------------------------------- curves */

/* The path of one curve as steps: each sample flat over [start, end), joined to the next
 * by a riser unless they are apart (a pause) or a value is missing. */
static int step_path(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		     const struct kg_hw_strip *s, const struct plan *p, int c)
{
	int open = 0, any = 0;
	int64_t prev_end = 0;
	for (uint32_t i = p->first; i < p->end; i++) {
		const struct kg_hw_sample *x = &m->hw_samples[i];
		if (x->start >= l->t1)
			break;
		if (!in_window(x, l->t0, l->t1) || x->end <= x->start)
			continue; /* a zero-length sample has no width to show */
		double v = curve_value(p, x, c);
		if (!isfinite(v)) {
			open = 0;
			continue;
		}
		double xa = layout_x(l, x->start), xb = layout_x(l, x->end), y = y_of(s, v);
		if (open && x->start <= kg_time_add(prev_end, p->join))
			cairo_line_to(cr, xa, y);
		else
			cairo_move_to(cr, xa, y);
		cairo_line_to(cr, xb, y);
		open = any = 1;
		prev_end = x->end;
	}
	return any;
}

/* Per pixel column and curve: the time-weighted mean, minimum and maximum of the samples
 * under it. */
struct cols {
	int n;
	double *sum, *w, *lo, *hi; /* [curve * n + column] */
};

static void cols_add(struct cols *k, const struct plan *p, const struct kg_hw_sample *x,
		     double xa, double xb)
{
	double v[N_CURVES];
	for (int c = 0; c < N_CURVES; c++)
		v[c] = p->has[c] ? curve_value(p, x, c) : NAN;
	int c0 = (int)floor(xa), c1 = (int)ceil(xb);
	c0 = c0 < 0 ? 0 : c0;
	c1 = c1 > k->n ? k->n : c1;
	for (int col = c0; col < c1; col++) {
		double ov = (xb < col + 1 ? xb : col + 1) - (xa > col ? xa : col);
		if (ov <= 0)
			continue;
		for (int c = 0; c < N_CURVES; c++) {
			if (!isfinite(v[c]))
				continue;
			size_t j = (size_t)c * (size_t)k->n + (size_t)col;
			if (k->w[j] == 0 || v[c] < k->lo[j])
				k->lo[j] = v[c];
			if (k->w[j] == 0 || v[c] > k->hi[j])
				k->hi[j] = v[c];
			k->sum[j] += v[c] * ov;
			k->w[j] += ov;
		}
	}
}

static int cols_fill(struct cols *k, const struct kg_model *m, const struct kg_layout *l,
		     const struct plan *p)
{
	k->n = (int)ceil(l->x1 - l->x0);
	k->n = k->n < 1 ? 1 : k->n;
	size_t n = (size_t)N_CURVES * (size_t)k->n;
	k->sum = calloc(n, sizeof(double));
	k->w = calloc(n, sizeof(double));
	k->lo = calloc(n, sizeof(double));
	k->hi = calloc(n, sizeof(double));
	if (!k->sum || !k->w || !k->lo || !k->hi)
		return -ENOMEM;
	for (uint32_t i = p->first; i < p->end; i++) {
		const struct kg_hw_sample *x = &m->hw_samples[i];
		if (x->start >= l->t1)
			break;
		if (in_window(x, l->t0, l->t1) && x->end > x->start)
			cols_add(k, p, x, layout_x(l, x->start) - l->x0, layout_x(l, x->end) - l->x0);
	}
	return 0;
}

static void cols_free(struct cols *k)
{
	free(k->sum);
	free(k->w);
	free(k->lo);
	free(k->hi);
}

/* The band from minimum to maximum of curve c, one polygon per run of columns. */
static void band_path(cairo_t *cr, const struct cols *k, const struct kg_layout *l,
		      const struct kg_hw_strip *s, int c)
{
	const double *w = k->w + (size_t)c * k->n, *lo = k->lo + (size_t)c * k->n,
		     *hi = k->hi + (size_t)c * k->n;
	for (int a = 0; a < k->n;) {
		if (w[a] <= 0) {
			a++;
			continue;
		}
		int b = a;
		while (b < k->n && w[b] > 0)
			b++;
		cairo_move_to(cr, l->x0 + a, y_of(s, hi[a]));
		for (int j = a; j < b; j++) {
			cairo_line_to(cr, l->x0 + j, y_of(s, hi[j]));
			cairo_line_to(cr, l->x0 + j + 1, y_of(s, hi[j]));
		}
		for (int j = b - 1; j >= a; j--) {
			cairo_line_to(cr, l->x0 + j + 1, y_of(s, lo[j]));
			cairo_line_to(cr, l->x0 + j, y_of(s, lo[j]));
		}
		cairo_close_path(cr);
		a = b;
	}
}

/* The mean of curve c through the columns' centres, broken where no sample lies. */
static int mean_path(cairo_t *cr, const struct cols *k, const struct kg_layout *l,
		     const struct kg_hw_strip *s, int c)
{
	const double *w = k->w + (size_t)c * k->n, *sum = k->sum + (size_t)c * k->n;
	int open = 0, any = 0;
	for (int j = 0; j < k->n; j++) {
		if (w[j] <= 0) {
			open = 0;
			continue;
		}
		double x = l->x0 + j + 0.5, y = y_of(s, sum[j] / w[j]);
		if (open)
			cairo_line_to(cr, x, y);
		else
			cairo_move_to(cr, x, y);
		open = any = 1;
	}
	return any;
}

/* The path of curve c as the mode wants it; 1 when it holds anything. */
static int curve_path(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		      const struct kg_hw_strip *s, const struct plan *p, const struct cols *k,
		      int c)
{
	cairo_new_path(cr);
	return p->columns ? mean_path(cr, k, l, s, c) : step_path(cr, m, l, s, p, c);
}

/* Closes each sub-path of the current path down to the 0 % line, for a fill under it. */
static void close_to_floor(cairo_t *cr, const struct kg_hw_strip *s)
{
	cairo_path_t *path = cairo_copy_path_flat(cr);
	if (!path || path->status != CAIRO_STATUS_SUCCESS) {
		cairo_path_destroy(path);
		return;
	}
	double floor_y = y_of(s, 0), x0 = 0, xl = 0;
	int open = 0;
	cairo_new_path(cr);
	for (int i = 0; i < path->num_data; i += path->data[i].header.length) {
		cairo_path_data_t *d = &path->data[i];
		if (d->header.type != CAIRO_PATH_MOVE_TO && d->header.type != CAIRO_PATH_LINE_TO)
			continue;
		double x = d[1].point.x, y = d[1].point.y;
		if (d->header.type == CAIRO_PATH_MOVE_TO) {
			if (open) {
				cairo_line_to(cr, xl, floor_y);
				cairo_line_to(cr, x0, floor_y);
				cairo_close_path(cr);
			}
			cairo_move_to(cr, x, y);
			x0 = x;
			open = 1;
		} else {
			cairo_line_to(cr, x, y);
		}
		xl = x;
	}
	if (open) {
		cairo_line_to(cr, xl, floor_y);
		cairo_line_to(cr, x0, floor_y);
		cairo_close_path(cr);
	}
	cairo_path_destroy(path);
}

static void guides(cairo_t *cr, const struct kg_layout *l, const struct kg_hw_strip *s)
{
	set_rgb(cr, c_guide);
	cairo_set_line_width(cr, 0.7);
	for (int pct = 0; pct <= 100; pct += 100) {
		cairo_move_to(cr, l->x0, floor(y_of(s, pct)) + 0.5);
		cairo_line_to(cr, l->x1, floor(y_of(s, pct)) + 0.5);
	}
	cairo_stroke(cr);
	double dash[] = {3, 3};
	cairo_set_dash(cr, dash, 2, 0);
	cairo_move_to(cr, l->x0, floor(y_of(s, 50)) + 0.5);
	cairo_line_to(cr, l->x1, floor(y_of(s, 50)) + 0.5);
	cairo_stroke(cr);
	cairo_set_dash(cr, NULL, 0, 0);
}

static int curves(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		  const struct kg_hw_strip *s, const struct plan *p)
{
	struct cols k = {0};
	if (p->columns && cols_fill(&k, m, l, p) < 0) {
		cols_free(&k);
		return -ENOMEM;
	}
	cairo_save(cr);
	cairo_rectangle(cr, l->x0, s->y + 1, l->x1 - l->x0, s->h - 2);
	cairo_clip(cr);
	guides(cr, l, s);
	for (int c = 0; p->columns && c < N_CURVES; c++) {
		if (!p->has[c])
			continue;
		cairo_new_path(cr);
		band_path(cr, &k, l, s, c);
		cairo_set_source_rgba(cr, c_curve[c].r, c_curve[c].g, c_curve[c].b, 0.16);
		cairo_fill(cr);
	}
	/* SM active as an area too: how busy the GPU was reads at a glance */
	if (p->has[C_SM] && curve_path(cr, m, l, s, p, &k, C_SM)) {
		close_to_floor(cr, s);
		cairo_set_source_rgba(cr, c_curve[C_SM].r, c_curve[C_SM].g, c_curve[C_SM].b, 0.10);
		cairo_fill(cr);
	}
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_width(cr, 1.3);
	for (int c = 0; c < N_CURVES; c++) {
		if (p->has[c] && curve_path(cr, m, l, s, p, &k, c)) {
			set_rgb(cr, c_curve[c]);
			cairo_stroke(cr);
		}
	}
	cairo_restore(cr);
	cols_free(&k);
	return 0;
}

/* A red tick along the strip's top wherever the counters saw the GPU switch contexts
 * (time-slicing between processes); one per pixel column at most. */
static void ctxsw_marks(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
			const struct kg_hw_strip *s, const struct plan *p)
{
	double last = -1e9;
	int any = 0;
	set_rgb(cr, c_ctxsw);
	cairo_set_line_width(cr, 1.5);
	for (uint32_t i = p->first; i < p->end; i++) {
		const struct kg_hw_sample *x = &m->hw_samples[i];
		if (!ctxsw_mark(m, x) || !in_window(x, l->t0, l->t1))
			continue;
		double px = floor(layout_x(l, x->start)) + 0.5;
		if (px < l->x0 || px > l->x1 || px - last < 1)
			continue;
		cairo_move_to(cr, px, s->y + 1);
		cairo_line_to(cr, px, s->y + 7);
		last = px;
		any = 1;
	}
	if (any)
		cairo_stroke(cr);
	cairo_new_path(cr);
}

/* ---------------------------------------------------------------- strips */

/* One line in the plot area: why there is nothing to draw, or that sampling stopped. */
static void plot_note(cairo_t *cr, const struct kg_layout *l, double y, const char *what,
		      const char *note)
{
	char raw[700], *clean = NULL;
	size_t n, cap = 0;
	snprintf(raw, sizeof(raw), "%s%s%s", what, *note ? ": " : "", note);
	for (char *c = raw; *c; c++) /* a multi-line note on one line */
		if ((unsigned char)*c < 0x20)
			*c = ' ';
	/* valid UTF-8: a cairo given anything else stops drawing */
	const char *line = utf8_clean(raw, &n, &clean, &cap);
	if (line) {
		font(cr, 9, 0);
		/* on a backdrop: the note may lie over the curves */
		double w = text_w(cr, line), room = l->x1 - l->x0 - 12;
		cairo_set_source_rgba(cr, c_plot_bg.r, c_plot_bg.g, c_plot_bg.b, 0.85);
		cairo_rectangle(cr, l->x0 + 3, y - 9, (w < room ? w : room) + 6, 12);
		cairo_fill(cr);
		text_fit(cr, l->x0 + 6, y, room, line, c_muted);
	}
	free(clean);
}

/* A device without samples: its name in the label column, the note beside it. */
static void note_strip(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		       const struct kg_hw_strip *s, const struct plan *p, double margin)
{
	const char *state = model_text(m, p->hw->state), *note = model_text(m, p->hw->note);
	font(cr, 9, 1);
	text_fit(cr, margin + 10, s->y + s->h / 2 + 3.5, l->x0 - margin - 16, "hardware samples",
		 c_text);
	if (!*note)
		note = strcmp(state, "refused") ? "none recorded" : "sampling refused";
	plot_note(cr, l, s->y + s->h / 2 + 3.5, "no hardware samples", note);
}

void plot_hw_backgrounds(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
			 double margin)
{
	for (uint32_t i = 0; i < l->n_hw_strips; i++) {
		const struct kg_hw_strip *s = &l->hw_strips[i];
		set_rgb(cr, c_label_bg);
		cairo_rectangle(cr, margin + 6, s->y, l->x0 - margin - 6, s->h);
		cairo_fill(cr);
		set_rgb(cr, c_plot_bg);
		cairo_rectangle(cr, l->x0, s->y, l->x1 - l->x0, s->h);
		cairo_fill(cr);
		set_rgb(cr, c_rule);
		cairo_set_line_width(cr, 0.8);
		cairo_move_to(cr, margin + 6, floor(s->y) + 0.4);
		cairo_line_to(cr, l->x1, floor(s->y) + 0.4);
		cairo_move_to(cr, margin + 6, floor(s->y + s->h) - 0.4);
		cairo_line_to(cr, l->x1, floor(s->y + s->h) - 0.4);
		cairo_stroke(cr);
	}
}

int plot_hw_draw(cairo_t *cr, const struct kg_model *m, const struct kg_layout *l,
		 double margin)
{
	int rc = 0;
	for (uint32_t i = 0; i < l->n_hw_strips; i++) {
		const struct kg_hw_strip *s = &l->hw_strips[i];
		struct plan p;
		plan_strip(m, l, s, &p);
		if (p.first == p.end) {
			note_strip(cr, m, l, s, &p, margin);
			continue;
		}
		label_column(cr, m, l, s, &p, margin);
		if (curves(cr, m, l, s, &p) < 0)
			rc = -ENOMEM;
		ctxsw_marks(cr, m, l, s, &p);
		if (!p.in_window)
			plot_note(cr, l, s->y + s->h / 2 + 3, "no hardware sample in this window", "");
		else if (!strcmp(model_text(m, p.hw->state), "stopped"))
			plot_note(cr, l, s->y + 13, "sampling stopped",
				  model_text(m, p.hw->note));
	}
	return rc;
}

/* ---------------------------------------------------------------- manifest */

void plot_hw_manifest(FILE *f, const struct kg_model *m, const struct kg_layout *l)
{
	fprintf(f, "  \"hw_strips\": [");
	for (uint32_t i = 0; i < l->n_hw_strips; i++) {
		const struct kg_hw_strip *s = &l->hw_strips[i];
		const struct kg_device *d = &m->devices[s->device];
		struct plan p;
		char buf[96];
		plan_strip(m, l, s, &p);
		fprintf(f, "%s\n    {\"device\": %" PRId32 ", \"gpu\": %" PRId64 ", \"pid\": %" PRIu32
			   ", \"y\": %.1f, \"height\": %.1f, \"x0\": %.1f, \"x1\": %.1f, \"state\": ",
			i ? "," : "", d->ordinal, d->gpu == KG_NONE ? -1 : (int64_t)d->gpu,
			d->process < m->n_processes ? m->processes[d->process].pid : 0, s->y, s->h,
			l->x0, l->x1);
		jw_put_string(f, model_text(m, p.hw->state));
		fprintf(f, ", \"note\": ");
		jw_put_string(f, model_text(m, p.hw->note));
		fprintf(f, ", \"interval_ns\": %" PRId64 ", \"samples\": %" PRIu32
			   ", \"drawn_as\": \"%s\", \"curves\": [",
			p.hw->interval_ns, p.in_window,
			p.first == p.end ? "note" : p.columns ? "columns" : "steps");
		int k = 0;
		for (int c = N_CURVES - 1; c >= 0 && p.first < p.end; c--)
			if (p.has[c]) {
				fprintf(f, "%s", k++ ? ", " : "");
				jw_put_string(f, curve_label(&p, c, buf));
			}
		fprintf(f, "], \"dram\": \"%s\"", !p.has[C_DRAM] ? "none" : p.dram_pct ? "pct" : "bps");
		if (p.has[C_DRAM] && !p.dram_pct)
			fprintf(f, ", \"dram_top_bps\": %.0f", p.dram_top);
		fprintf(f, "}");
	}
	fprintf(f, "%s],\n", l->n_hw_strips ? "\n  " : "");
}
