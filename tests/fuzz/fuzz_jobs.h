/* What the commands do with the ranks of a job (job/job.h), for fuzz_job and
 * fuzz_job_wire: each rank through the wire as MPI sends it (packed, unpacked, packed
 * again to the same bytes), the job analysed, its report as text and JSON (every figure
 * checked: fuzz_figures.h), its page, and its chart (SVG) for a part of the inputs. */
#ifndef KGANTT_FUZZ_JOBS_H
#define KGANTT_FUZZ_JOBS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_pipeline.h"
#include "job/job.h"
#include "render/plot_job.h"
#include "render/view_job.h"
#include "report/job_report.h"

/* r's bytes on the wire must unpack to a rank that packs to the same bytes. The rank
 * unpacked replaces r (what process 0 of an MPI job works on). 0, or -ENOMEM. */
static inline int fuzz_wire_trip(struct kg_rank *r)
{
	uint8_t *buf, *again;
	size_t len, len2, used;
	if (job_wire_pack(r, &buf, &len) < 0)
		return -ENOMEM;
	struct kg_rank back;
	int rc = job_wire_unpack(buf, len, &back, &used);
	if (rc == -ENOMEM) {
		free(buf);
		return rc;
	}
	if (rc) {
		fprintf(stderr, "%s: the wire refuses a rank the summaries made (%s, %d)\n",
			fuzz_target, r->label, rc);
		abort();
	}
	if (job_wire_pack(&back, &again, &len2) < 0) {
		free(buf);
		rank_free(&back);
		return -ENOMEM;
	}
	if (used != len || len2 != len || memcmp(buf, again, len)) {
		fprintf(stderr, "%s: a rank does not pack to the same bytes after the wire\n",
			fuzz_target);
		abort();
	}
	free(buf);
	free(again);
	rank_free(r);
	*r = back;
	return 0;
}

static inline int write_job_json(FILE *f, const void *j)
{
	struct kg_job_report_opts o = {0};
	return job_report_json(f, j, &o);
}

static inline int write_job_text(FILE *f, const void *j)
{
	struct kg_job_report_opts o = {.top = 16};
	return job_report_text(f, j, &o);
}

/* The job's chart, as kgantt plot DIR draws it. */
static inline void fuzz_job_plot(const struct kg_job *j)
{
	struct kg_job_report_opts ro = {0};
	uint32_t n, *order = job_rank_order(j, &ro, &n);
	if (!order)
		return;
	char svg[PATH_MAX + 64], err[PATH_MAX + 512];
	fuzz_path("job.svg", svg, sizeof(svg));
	struct kg_job_plot_opts po = {.format = KG_PLOT_SVG, .width = 800, .dpi = 96};
	int rc = plot_job_render(j, &po, order, n, svg, err, sizeof(err));
	free(order);
	if (rc && rc != -ENOMEM && rc != -EFBIG) {
		fprintf(stderr, "%s: the job's chart failed: %s\n", fuzz_target, err);
		abort();
	}
}

/* The job of ranks[0..n) (taken: the job frees them) from files traces, analysed and
 * written out; plot: its chart too. */
static inline void fuzz_job_outputs(struct kg_rank *ranks, uint32_t n, uint32_t files, int plot)
{
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	struct kg_job j = {.ranks = ranks, .n_ranks = n, .n_files = files};
	analysis_config_default(&j.cfg);
	if (n && job_analyse(&j) == 0) {
		check_page("the job report", write_job_text, &j, 0);
		check_json("the job report --json", write_job_json, &j, 1);
		struct kg_view_job_opts vo = {0};
		view_job_html(devnull, &j, &vo);
		if (plot)
			fuzz_job_plot(&j);
	}
	job_free(&j);
}

#endif
