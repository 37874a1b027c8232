/* Internal to src/render: what the parts of the Gantt chart of plot.h share, and nothing
 * outside src/render includes. The parts, each drawing one thing on the same struct plot:
 *
 *   plot_cairo.c     preparing, the page's drawing order, the entry points (plot.h)
 *   plot_common.c    small drawing helpers, the colours of things, merging runs
 *   plot_lanes.c     stream lanes (blocks, phases, density) and host lanes (API, NVTX)
 *   plot_marks.c     annotations: queue marks, occupancy circles, overlap links, findings
 *   plot_frame.c     title, axis, lane labels and backgrounds, legend, call-site lines
 *   plot_steps.c     the program's steps on the time axis: boundaries and numbers
 *   plot_host.c      host strips: each thread's host spans by cause, under its API lane
 *   plot_manifest.c  the manifest: the JSON account of what was drawn */
#ifndef KGANTT_PLOT_INTERNAL_H
#define KGANTT_PLOT_INTERNAL_H

#include <cairo.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "model/model.h"
#include "render/draw.h"
#include "render/layout.h"
#include "render/plot.h"
#include "render/plot_sm.h"

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
static const struct rgb c_step = RGB(0x7b8798), c_step_bg = RGB(0xf3f5f8);

/* ---------------------------------------------------------------- page geometry, px */

#define MARGIN 16.0
#define TITLE_H 46.0
#define AXIS_H 22.0
#define RIGHT_MARGIN 18.0
#define STEP_ROW_H 14.0  /* the row of step numbers under the time labels, when steps are
			  * in the window */

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

/* The program's steps whose GPU start lies in the window (plot_steps.c). */
struct step_marks {
	uint32_t first, n;       /* a->steps.v[first .. first + n) */
	double spacing;          /* px between consecutive starts, their median; one step:
				  * the plot's width */
	int ticks, lines;        /* drawn (layout.h, KG_STEP_TICK_PX): a tick on the step
				  * row at each start; a line over the lanes too */
	uint32_t every;          /* the numbers labelled: the multiples of every */
	int warm;                /* a warm-up step among them ("w3") */
	uint8_t *labelled;       /* per step of the window: its number was drawn */
};

/* What a host strip drew (plot_host.c), for the manifest. */
struct strip_count {
	uint32_t spans;                    /* host spans of the window */
	uint32_t columns, runs;            /* pixel columns drawn, rectangles drawn */
	double ns[KG_HOST_CAUSE_COUNT];    /* their time in the window by cause */
	double off_ns;                     /* ... of it off CPU */
};

/* The host strips: only when the chart shows host lanes and the trace has host spans. */
struct host_strips {
	uint8_t *cause;                    /* per model host span (host_span_causes); NULL:
					    * no strips */
	uint32_t present;                  /* 1 << cause of the spans shown: the legend's */
	double *col;                       /* per pixel column, time by cause on and off CPU */
	struct strip_count *counts;        /* per lane */
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
	struct step_marks steps;
	double step_row_h;             /* STEP_ROW_H when steps are in the window, else 0 */
	struct kg_sm_drawn sm_drawn;
	struct host_strips hs;
};

/* ---------------------------------------------------------------- small drawing helpers
 * (plot_common.c) */

struct rgb darker(struct rgb c, double k);
void fill_rect(cairo_t *cr, double x, double y, double w, double h, struct rgb c);
void circle(cairo_t *cr, double x, double y, double r);
void text_at(cairo_t *cr, double x, double y, const char *s, struct rgb c);

/* ---------------------------------------------------------------- colours of things
 * (plot_common.c) */

struct rgb name_colour(struct plot *p, uint32_t name);
struct rgb op_colour(struct plot *p, const struct kg_op *o);

/* ---------------------------------------------------------------- merging runs
 * (plot_common.c) */

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

void merger_flush(struct merger *g);
void merger_add(struct merger *g, int64_t a, int64_t b);
/* A merger joining intervals closer than px pixels of the plot. */
struct merger merger_new(struct plot *p, double px,
			 void (*flush)(struct plot *, const struct merger *, const void *),
			 const void *arg);

/* ---------------------------------------------------------------- lanes (plot_lanes.c) */

/* Vertical parts of a stream lane, px: the top and height of its blocks. */
double block_top(const struct kg_lane *ln);
double block_h(const struct kg_lane *ln);
/* The light colour of the NVTX ranges of that name. */
struct rgb pastel(struct plot *p, uint32_t name);
/* A stream lane: its launch-latency (pass 0) or queue-wait (pass 1) bars, its blocks. */
void phase_pass(struct plot *p, const struct kg_lane *ln, int pass);
void stream_blocks(struct plot *p, uint32_t li);
/* A host lane: CUDA API calls, NVTX ranges. */
void api_lane(struct plot *p, uint32_t li);
void nvtx_lane(struct plot *p, uint32_t li);

/* ---------------------------------------------------------------- host strips (plot_host.c) */

/* The spans' causes and those the strips will show (before the layout: the legend needs
 * them); nothing without host lanes or spans. 0 or -ENOMEM. */
int host_strips_plan(struct plot *p);
/* The strips' accumulators, once the layout is built. 0 or -ENOMEM. */
int host_strips_alloc(struct plot *p);
void host_strips_free(struct plot *p);
/* The strip of API lane li (ln->strip_h > 0). */
void host_strip(struct plot *p, uint32_t li);
/* The colour of a cause on the strips, lighter off CPU. */
struct rgb host_colour(unsigned cause, int off);

/* ---------------------------------------------------------------- annotations (plot_marks.c) */

/* The numbered badge of a finding, centred at (x, y). */
void finding_badge(struct plot *p, double x, double y, int number, struct rgb c);
/* Indexes p->a for the annotations: 0 or -ENOMEM. */
int annotation_index(struct plot *p);
/* Draws the marks of p->a over the lanes, each recorded in p->marks or p->fmarks. */
void annotations(struct plot *p);
/* Shades each GPU's start-up and wind-down idle (kg_gap_place) under its lanes' blocks,
 * recorded in p->marks as "start-up" / "wind-down" (lane: the first, lane2: the last). */
void edge_bands(struct plot *p);

/* ---------------------------------------------------------------- frame (plot_frame.c) */

void page_title(struct plot *p);
void time_axis(struct plot *p);
void lane_backgrounds(struct plot *p);
void lane_labels(struct plot *p);
void plot_edges(struct plot *p);
double legend(struct plot *p, double y0, int draw);
/* Every finding named under the legend, with its first call site; their height. */
double finding_lines(struct plot *p, double y0, int draw);
/* The first call site of a finding as finding_lines draws it; "" when it has none. */
const char *top_site(const struct kg_analysis *a, const struct kg_finding *f, char *buf,
		     size_t len);

/* ---------------------------------------------------------------- steps (plot_steps.c) */

/* Which steps start in the window and how they can be drawn, from the plot area's x range
 * (before the layout: the step row and the legend depend on it); cr measures the labels.
 * 0 or -ENOMEM. */
int step_marks_plan(struct plot *p, cairo_t *cr, double x0, double x1);
/* "12", or "w3" for a warm-up step: how step v[i] is labelled. */
const char *step_label(const struct kg_steps *st, uint32_t i, char buf[16]);
/* The step row under the time labels: a tick at each step, the numbers of every k-th, or
 * why none. */
void step_row(struct plot *p);
/* A faint dashed line over the lanes at each step's start, when they are far enough apart. */
void step_lines(struct plot *p);

/* ---------------------------------------------------------------- the manifest (plot_manifest.c) */

/* Writes the manifest of the chart written to path into the file manifest: 0, or a
 * negative errno-style code with a message in err. */
int write_manifest(const struct plot *p, const char *path, const char *manifest,
		   char *err, size_t errlen);

#endif
