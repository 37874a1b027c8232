/* kgantt report of many traces: the job report (job/job.h), read by every local core
 * and, under mpirun or srun, by every MPI process (cli/job_mpi.h). */
#ifndef KGANTT_CLI_REPORT_JOB_H
#define KGANTT_CLI_REPORT_JOB_H

#include "cli/job_session.h"
#include "report/job_report.h"

struct report_job_opts {
	int json;
	int top;                 /* ranks in the table, -1 default, 0 all */
	int fail_on;             /* a severity, -1 never */
	int color;               /* ANSI tones on the text page */
};

/* The job's report on stdout, then --fail-on: an exit code after any message. */
int report_job(const struct job_session *js, const struct report_job_opts *o);

/* --ranks and --sort, for report and plot: KG_EXIT_OK, or KG_EXIT_USAGE after the
 * message. */
int job_view_options(const char *ranks, const char *sort, struct kg_rank_set *set,
		     enum kg_rank_sort *order);

#endif
