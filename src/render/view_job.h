/* The interactive page of a job (`kgantt view DIR`): one lane per rank on the job's clock
 * (what its GPU did, its waits in collectives, the collectives it joined last), filtered
 * by a rank expression and sorted in the page, zoomable; the job's findings beside it, a
 * rank's details and its own findings on a click, and links to the chosen ranks' full
 * pages (view --full). One self-contained file: src/render/view_job_template.html with
 * the job as JSON put in at its marker (report/json_writer.h's HTML-safe mode).
 * docs/job.md describes it. */
#ifndef KGANTT_VIEW_JOB_H
#define KGANTT_VIEW_JOB_H

#include <stdio.h>

#include "job/job.h"

#define KG_VIEW_JOB_WAITS 4096 /* waits and last-joined marks drawn per rank */

struct kg_view_job_opts {
	const char *title;             /* NULL: "kgantt job" */
	const char *const *full_pages; /* by rank index: its full page, NULL none; may be NULL */
};

/* 0, -ENOMEM, -EINVAL (the compiled-in template lacks its marker) or -EIO. */
int view_job_html(FILE *f, const struct kg_job *j, const struct kg_view_job_opts *o);

extern const unsigned char kg_view_job_template[];
extern const size_t kg_view_job_template_len;

#endif
