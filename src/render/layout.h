/* Where things go on a Gantt chart: the lanes (one per stream, one per host thread's CUDA
 * API calls, one per thread's NVTX ranges), grouped process → device → stream under
 * headers, and the mapping from time to x. Independent of the drawing library, so that
 * other views (an HTML timeline, a terminal one) can reuse it.
 *
 *   struct kg_layout_opts lo = { .width = 1600, .t0 = m.begin, .t1 = m.end, ... };
 *   struct kg_layout l;
 *   layout_build(&m, &lo, &l);
 *   double x = layout_x(&l, op->start);      time (model clock, ns) -> x (px)
 *   ...
 *   layout_free(&l);
 *
 * Times stay int64 nanoseconds until the very last step: layout_x subtracts the window
 * start in integers, then scales to double pixels, so a 10-second trace zoomed to 1 µs
 * keeps nanosecond precision. */
#ifndef KGANTT_LAYOUT_H
#define KGANTT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

enum kg_lane_kind {
	KG_LANE_STREAM = 0, /* a stream's kernels, copies and memsets */
	KG_LANE_API,        /* a host thread's CUDA API calls */
	KG_LANE_NVTX,       /* a host thread's NVTX ranges, nested ones stacked */
};

struct kg_lane {
	enum kg_lane_kind kind;
	uint32_t process;   /* index into model.processes */
	uint32_t device;    /* stream lanes: index into model.devices; KG_NONE otherwise */
	uint32_t stream;    /* stream lanes: index into model.streams; KG_NONE otherwise */
	uint32_t thread;    /* API and NVTX lanes: index into model.threads; KG_NONE for NVTX
			     * ranges the source did not attribute to a thread */
	int levels;         /* NVTX lanes: nesting levels drawn (the deepest ranges share the last) */
	double y, h;        /* px from the top of the picture */
	double strip_h;     /* API lanes: px at the bottom of h for the thread's host spans
			     * (model.host_spans), 0: none in the window or no strips */
};

enum kg_header_kind { KG_HEADER_PROCESS = 0, KG_HEADER_DEVICE };

/* A group's title row: a process (pid, host, rank, command) or one of its devices. */
struct kg_header {
	enum kg_header_kind kind;
	uint32_t index;     /* into model.processes or model.devices */
	double y, h;
};

struct kg_layout_opts {
	int64_t t0, t1;          /* the window on the model's clock; t1 > t0 */
	double width;            /* px */
	double height;           /* px; 0: as tall as the lanes need */
	double label_width;      /* the column of lane labels, left of the plot area */
	double right_margin;
	double top_space;        /* title and axis, above the first lane */
	double bottom_space;     /* axis and legend, below the last lane */
	int device;              /* only devices with this CUDA ordinal; -1 all */
	const int64_t *streams;  /* only streams with these ids; NULL all */
	int n_streams;
	int host_lanes;          /* 0: no API and NVTX lanes */
	double hw_strip_h;       /* px of the hardware-sample strip under each device with
				  * samples (record --hw); 0: no strips */
	double host_strip_h;     /* px added under each API lane for its thread's host spans
				  * in the window; 0: no strips */
};

/* A device's hardware samples (record --hw), drawn as a strip under its stream lanes; a
 * device that has none (refused, or nothing recorded) gets a one-line strip for its note. */
struct kg_hw_strip {
	uint32_t device;    /* index into model.devices */
	uint32_t hw;        /* index into model.hw_devices */
	double y, h;
};

struct kg_layout {
	int64_t t0, t1;
	double x0, x1;           /* the plot area: t0 maps to x0, t1 to x1 */
	double px_per_ns;
	double width, height;
	double lanes_top, lanes_bottom;
	struct kg_lane *lanes;
	uint32_t n_lanes;
	struct kg_header *headers;
	uint32_t n_headers;
	uint32_t *lane_of_stream;     /* per model stream: its lane, KG_NONE when not shown */
	uint32_t *api_of_thread;      /* per model thread: its API lane, KG_NONE */
	uint32_t *nvtx_of_thread;     /* per model thread: its NVTX lane, KG_NONE */
	uint32_t *nvtx_of_process;    /* per process: the lane of thread-less ranges, KG_NONE */
	uint8_t *range_level;         /* per model range: its nesting level (0 outermost) */
	/* Host records by lane owner, each list sorted by start: the API calls of thread t are
	 * apis[api_order[api_first[t] .. api_first[t + 1]]], likewise for ranges, with
	 * ranges without a thread last (range_first[n_threads] .. range_first[n_threads+1]). */
	uint32_t *api_order, *api_first;
	uint32_t *range_order, *range_first;
	uint32_t *span_first;         /* per model thread (+ 1): where its host spans begin */
	struct kg_hw_strip *hw_strips;  /* in y order, each right after its device's lanes */
	uint32_t n_hw_strips;
};

/* 1 when an operation runs in [t0, t1) (a zero-length one: starts in it). */
int layout_op_in_window(const struct kg_op *o, int64_t t0, int64_t t1);
/* 1 when stream s passes the device and stream filters of o (whatever the window). */
int layout_stream_selected(const struct kg_model *m, const struct kg_layout_opts *o, uint32_t s);

/* 0, or -ENOMEM. An empty window (no lane) is not an error: n_lanes is 0. */
int layout_build(const struct kg_model *m, const struct kg_layout_opts *o, struct kg_layout *l);
void layout_free(struct kg_layout *l);

/* The first host span of thread t that ends after t0 (its spans do not overlap, so ends
 * rise), or where the thread's spans end. */
uint32_t layout_first_span(const struct kg_model *m, const struct kg_layout *l, uint32_t t,
			   int64_t t0);

/* The plot area's x range, [x0, x1] px, before the layout is built: what layout_build
 * sets l->x0 and l->x1 to (what is drawn above and below the lanes may depend on it). */
void layout_x_span(const struct kg_layout_opts *o, double *x0, double *x1);
/* x of time t (model clock). Times far outside the window are clamped a little beyond
 * the plot area, so that nothing hands a drawing library a coordinate of 1e12. */
double layout_x(const struct kg_layout *l, int64_t t);
/* The window's duration per pixel column, in ns (double: columns are fractions of ns when
 * zoomed to a few ns). */
double layout_ns_per_px(const struct kg_layout *l);

/* Axis ticks: "nice" steps (1, 2 or 5 × 10^k ns) giving about `target` ticks over the
 * window, labelled relative to `origin` (the trace begin) in the unit the window needs. */
struct kg_tick {
	int64_t t;          /* model clock */
	char label[32];     /* "12.5 ms" */
};
/* Fills up to max ticks, returns how many. */
int layout_ticks(const struct kg_layout *l, int64_t origin, int target, struct kg_tick *ticks,
		 int max);
/* The largest distance of the window's ends from origin: the scale its times are told in. */
int64_t layout_time_scale(const struct kg_layout *l, int64_t origin);
/* A time relative to origin, with 3 decimals in the unit that times up to `scale` ns
 * from the origin read best in: "12.500 ms". */
const char *layout_time_label(int64_t t, int64_t origin, int64_t scale, char buf[32]);

/* The program's steps on the time axis (analysis/steps.h), drawn alike by plot and the
 * page: a tick at each step's start when consecutive starts lie KG_STEP_TICK_PX apart or
 * more (their median in the window: a few outlier steps do not decide), and a line over
 * the lanes too from KG_STEP_LINE_PX; closer, nothing, since every other boundary would
 * read as a step twice as long. The numbers are those of every k-th step
 * (layout_step_every), so that labels never overlap. */
#define KG_STEP_TICK_PX 3.0
#define KG_STEP_LINE_PX 10.0
/* k of 1, 2, 5, 10, 20, 50...: the least whose k steps of spacing_px hold a label of
 * label_px. */
uint32_t layout_step_every(double spacing_px, double label_px);

/* Lanes of the streams whose device is on physical GPU g (model.gpus), in lane order;
 * returns the first or KG_NONE. */
uint32_t layout_first_lane_of_gpu(const struct kg_model *m, const struct kg_layout *l,
				  uint32_t g);

#endif
