/* The frame of the Gantt chart (plot_cairo.c): the title, the time axis and its grid, the
 * lanes' backgrounds, labels and group headers, the legend and, when the trace has call
 * stacks, the findings' call-site lines under it. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/plot_internal.h"
#include "report/report.h"
#include "text/names.h"
#include "util/timemath.h"
#include "util/utf8.h"

/* ---------------------------------------------------------------- frame: title, axis, labels */

void page_title(struct plot *p)
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

void time_axis(struct plot *p)
{
	struct kg_tick ticks[64];
	int target = (int)((p->l.x1 - p->l.x0) / 110);
	int n = layout_ticks(&p->l, p->o->origin, target < 2 ? 2 : target, ticks, 64);
	cairo_t *cr = p->cr;
	/* the time labels above the step row, when there is one (plot_steps.c) */
	double top = p->l.lanes_top - p->step_row_h, bottom = p->l.lanes_bottom;
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
	if (t)
		model_thread_label(p->m, t, who, sizeof(who));
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
	char name[64];
	snprintf(line, sizeof(line), "%s · %s", gpu_label(m, d->gpu, name, sizeof(name)),
		 device_name(m, d));
	if (d->sm_count > 0)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " · %d SMs", d->sm_count);
	font(cr, 10.5, 1);
	text_fit(cr, MARGIN + 11, h->y + h->h / 2 + 4, p->l.width - 3 * MARGIN, line, c_muted);
}

void lane_backgrounds(struct plot *p)
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
void lane_labels(struct plot *p)
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

void plot_edges(struct plot *p)
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
	SW_OVERLAP, SW_EDGE, SW_FINDING, SW_STEP, SW_GROUP,
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
	case SW_EDGE: /* as edge_bands (plot_marks.c) shades them, outlined to be seen */
		cairo_rectangle(cr, x, y, 14, 10);
		cairo_set_source_rgba(cr, 0.45, 0.47, 0.52, 0.18);
		cairo_fill(cr);
		return 14;
	case SW_FINDING: finding_badge(p, x + 7, y + 5, 1, c_sev[KG_SEV_CRITICAL]); return 14;
	case SW_STEP: /* as plot_steps.c draws one: its tick and number */
		fill_rect(cr, x + 1, y - 1, 1, 12, c_step);
		fill_rect(cr, x + 9, y + 7, 1, 4, c_step);
		font(cr, 8, 0);
		text_at(cr, x + 3.5, y + 6, "7", c_text);
		return 14;
	case SW_GROUP: return 0;
	default: swatch_box(cr, x, y, *boxes[sw]); return 14;
	}
}

/* Lays out (and with draw, draws) the legend from y; returns its height. */
/* The host strips' group of the legend, from row y: a box per cause shown, then what a
 * lighter box means; the last row's y. */
static double host_legend(struct plot *p, double y, double line_h, int draw)
{
	cairo_t *cr = p->cr;
	double x = MARGIN, right = p->l.width - MARGIN;
	font(cr, 10, 1);
	if (draw)
		text_at(cr, x, y + 9, "samples", c_text);
	x += 52;
	for (unsigned c = 0; c <= KG_HOST_CAUSE_COUNT; c++) {
		if (c < KG_HOST_CAUSE_COUNT && !(p->hs.present & (1u << c)))
			continue;
		const char *text = c < KG_HOST_CAUSE_COUNT ? host_cause_id(c) : "lighter: off CPU";
		font(cr, 10, 0);
		double need = 14 + 5 + text_w(cr, text) + 16;
		if (x + need > right && x > MARGIN + 52) {
			y += line_h;
			x = MARGIN + 52;
		}
		if (draw) {
			unsigned k = c < KG_HOST_CAUSE_COUNT ? c : KG_HOST_CAUSE_OTHER;
			swatch_box(cr, x, y, host_colour(k, c == KG_HOST_CAUSE_COUNT));
			font(cr, 10, 0);
			text_at(cr, x + 19, y + 9, text, c_text);
		}
		x += need;
	}
	return y;
}

double legend(struct plot *p, double y0, int draw)
{
	char qtext[80], otext[80];
	int notes = p->a != NULL;
	const char *stext = p->steps.warm ? "step boundary, with its number (w3: warm-up)"
					  : "step boundary, with its number";
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
		{SW_EDGE, "GPU idle in start-up, wind-down or graph capture"},
		{SW_FINDING, "finding #1, #2… of kgantt report"},
		{SW_STEP, stext}, /* last: only when plot_steps.c draws them */
	};
	size_t n = sizeof(items) / sizeof(items[0]) - (notes ? !p->steps.ticks : 7);
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
	if (p->hs.present)
		y = host_legend(p, y + line_h, line_h, draw);
	return y + line_h - y0;
}

/* ---------------------------------------------------------------- call sites */

/* "99% at syncs.cu:66 in main → cudaStreamSynchronize": where the finding's gain comes
 * from, as `kgantt report` prints its first "where" line, with the count of its other
 * sites; valid UTF-8 (cairo draws nothing of a string that is not). "" when the finding
 * has no site. */
const char *top_site(const struct kg_analysis *a, const struct kg_finding *f, char *buf,
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

/* Under the legend: every finding by its number, so that each badge on the chart is
 * named: its rule, its title and, when the trace has call stacks, its first call site.
 * Lays out (and with draw, draws) from y0; returns its height (0 without findings). */
double finding_lines(struct plot *p, double y0, int draw)
{
	const struct kg_analysis *a = p->a;
	char line[700], where[600];
	double y = y0 + 4, line_h = 18, x = MARGIN + 60, right = p->l.width - MARGIN;
	int sited = 0;
	if (!a || !a->findings.n)
		return 0;
	cairo_t *cr = p->cr;
	for (uint32_t i = 0; i < a->findings.n; i++) {
		const struct kg_finding *f = &a->findings.v[i];
		int has_site = *top_site(a, f, where, sizeof(where)) != 0;
		sited |= has_site;
		if (draw) {
			if (!i) {
				font(cr, 10, 1);
				text_at(cr, MARGIN, y + 9, "findings", c_text);
			}
			finding_badge(p, x + 7, y + 5, (int)i + 1, c_sev[f->severity <= KG_SEV_CRITICAL
									? f->severity : 0]);
			font(cr, 10, 1);
			snprintf(line, sizeof(line), "%s:", kg_rules[f->rule].id);
			text_at(cr, x + 19, y + 9, line, c_text);
			double w = text_w(cr, line) + 5;
			snprintf(line, sizeof(line), "%s%s%s", finding_str(f->title),
				 has_site ? "  ·  " : "", has_site ? where : "");
			font(cr, 10, 0);
			text_fit(cr, x + 19 + w, y + 9, right - x - 19 - w, line, c_text);
		}
		y += line_h;
	}
	if (draw && sited) {
		font(cr, 9, 0);
		text_fit(cr, x, y + 8, right - x, "where: the share of each finding's estimated gain "
			 "caused by the calls from that place in the program (kgantt report --sites "
			 "lists them all)", c_muted);
	}
	return y + (sited ? line_h : 4) - y0;
}
