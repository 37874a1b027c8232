/* The report of a job (job/job.h): a terminal page and a JSON document with the same
 * content, as report.h is for one trace. docs/job.md describes both. */
#ifndef KGANTT_JOB_REPORT_H
#define KGANTT_JOB_REPORT_H

#include <stdio.h>

#include "job/job.h"
#include "text/json_writer.h"

#define KG_JOB_REPORT_VERSION 2 /* "kgantt_job_report_version" of the JSON document */

enum kg_rank_sort { KG_SORT_LATE = 0, KG_SORT_IDLE, KG_SORT_BUSY, KG_SORT_SLOW, KG_SORT_RANK };

struct kg_job_report_opts {
	uint32_t top;                  /* ranks in the table; 0 = all */
	const struct kg_rank_set *ranks; /* which ranks the table shows; NULL all */
	enum kg_rank_sort sort;
	int color;
	const char *const *unread;     /* traces that could not be read, and why */
	uint32_t n_unread;
	uint32_t processes;            /* MPI processes that read the traces, 0: not MPI */
	uint32_t threads;              /* threads per process */
};

/* "late", "idle", ...: 0, or -1 when name is none of them. */
int rank_sort_parse(const char *name, enum kg_rank_sort *out);
/* What orders the ranks, in words: "idle time". */
const char *rank_sort_name(enum kg_rank_sort sort);
/* The ranks the table shows, in its order: indices into j->ranks; *n set. NULL when out
 * of memory. */
uint32_t *job_rank_order(const struct kg_job *j, const struct kg_job_report_opts *o,
			 uint32_t *n);

/* 0, or -EIO / -ENOMEM. */
int job_report_text(FILE *f, const struct kg_job *j, const struct kg_job_report_opts *o);
int job_report_json(FILE *f, const struct kg_job *j, const struct kg_job_report_opts *o);

/* A rank's fields in the report's JSON (docs/job.md), inside an object the caller opened:
 * the report's and the page's. */
void job_json_rank(struct jw *w, const struct kg_job *j, uint32_t i);
/* The job's findings as the JSON array "findings" (the report's and the page's). */
void job_json_findings(struct jw *w, const struct kg_job *j);

#endif
