/* The chart of a job (job/job.h): one lane per rank on the job's clock, what its GPU did
 * over time (compute, communication, copies, idle by cause), the waits inside
 * collectives for the last rank, the last rank marked, the ranks the findings name.
 * docs/job.md shows it. */
#ifndef KGANTT_PLOT_JOB_H
#define KGANTT_PLOT_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "job/job.h"
#include "render/plot.h"

struct kg_job_plot_opts {
	enum kg_plot_format format;
	int width;              /* px; 0: 1400 */
	int dpi;                /* PNG pixel density */
	const char *title;      /* NULL: "kgantt job" */
	const char *sort_name;  /* what orders the lanes, for the subtitle */
};

/* A lane state's colour, 0xRRGGBB: the chart's and the job page's. */
uint32_t job_state_color(enum kg_bin_state s);

/* Draws the lanes of the ranks order[0..n) (indices into j->ranks, top to bottom) and
 * writes the chart to path. 0, or a negative errno-style code with a message in err. */
int plot_job_render(const struct kg_job *j, const struct kg_job_plot_opts *o,
		    const uint32_t *order, uint32_t n, const char *path, char *err,
		    size_t errlen);

#endif
