/* The Gantt chart of a trace as PNG, SVG or PDF: one drawing code path over cairo's image,
 * SVG and PDF surfaces. docs/plot.md shows and explains the picture.
 *
 *   struct kg_plot_opts o = { .format = KG_PLOT_PNG, .t0 = m.begin, .t1 = m.end, ... };
 *   plot_render(&m, &analysis, &o, "out.png", "out.png.json", err, sizeof(err));
 *
 * The output is written through util/outfile.h: a temporary file next to it, renamed
 * into place, so a failed write (a full disk) or Ctrl-C never leaves a truncated picture
 * under the asked-for name; a FIFO, a device or "-" (standard output) is written directly. */
#ifndef KGANTT_PLOT_H
#define KGANTT_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "model/model.h"

enum kg_plot_format { KG_PLOT_PNG = 0, KG_PLOT_SVG, KG_PLOT_PDF };

struct kg_plot_opts {
	enum kg_plot_format format;
	int64_t t0, t1;          /* the window shown, model clock (ns); t1 > t0 */
	int64_t origin;          /* the time the axis calls 0: the trace begin */
	int width;               /* px (CSS pixels: 1/96 inch) */
	int height;              /* px; 0: as tall as the lanes need */
	int dpi;                 /* PNG pixel density: 96 gives width x height pixels */
	int device;              /* only this CUDA device ordinal; -1 all */
	const int64_t *streams;  /* only these stream ids; NULL all */
	int n_streams;
	const char *title;       /* NULL: the recorded command */
	const char *trace_name;  /* for the subtitle */
	int host_lanes;          /* API and NVTX lanes */
	int no_hw;               /* no hardware-sample strips (render/plot_hw.h) */
	int sm;                  /* SM lanes under the stream lanes (render/plot_sm.h) */
};

/* What the annotations are computed from; NULL members (or a NULL pointer to
 * plot_render) draw no annotations. The analysis may come from a second, restricted
 * model of the same trace (kgantt plot --from/--to): stream, GPU and string ids agree
 * between the two, operation indices do not, and are not used. */
struct kg_plot_notes {
	const struct kg_analysis *analysis;
};

/* Number of ops (kernels, copies, memsets) drawn in the window, after the device and
 * stream filters: 0 means an empty picture, which kgantt plot refuses. */
uint32_t plot_count_ops(const struct kg_model *m, const struct kg_plot_opts *o);

/* Draws and writes the chart to path (and, when manifest is not NULL, a JSON account of
 * what was drawn to that path: docs/plot.md). 0, or a negative errno-style code with a
 * message in err naming the file. */
int plot_render(const struct kg_model *m, const struct kg_plot_notes *notes,
		const struct kg_plot_opts *o, const char *path, const char *manifest,
		char *err, size_t errlen);

#endif
