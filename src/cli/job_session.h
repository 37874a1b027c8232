/* What every command that shows a job shares (report, plot): the traces named (files and
 * folders), read by every local core and, under mpirun or srun, by every MPI process
 * (cli/job_mpi.h), each reduced to its ranks' summaries, then the job analysed
 * (job/job.h) on process 0. */
#ifndef KGANTT_CLI_JOB_SESSION_H
#define KGANTT_CLI_JOB_SESSION_H

#include "cli/session.h"
#include "job/job.h"

struct job_session_opts {
	const char *cmd;         /* "report": names the command in messages */
	char **paths;            /* traces and folders of traces */
	int n_paths;
	int threads;             /* 0: every core */
	const char *steps;       /* the step ranges' name, NULL auto */
	const struct cli_session *session; /* --from/--to/--nvtx, --set for every trace */
};

struct job_session {
	const struct job_session_opts *o;
	struct kg_job job;       /* on process 0: every rank, analysed */
	char *unread;            /* messages of traces not read, NUL-separated */
	size_t unread_len;
	int mpi, me, procs, threads;
};

/* Reads and analyses the job. KG_EXIT_OK, or the exit code after a message. Under MPI
 * only process 0 (js->me == 0) has the job and shows it; every process must call
 * job_session_close. */
int job_session_open(struct job_session *js, const struct job_session_opts *o);
/* The exit code every process exits with (process 0's under MPI). */
int job_session_close(struct job_session *js, int rc);
/* The unread traces' messages, at most max. */
uint32_t job_session_unread(const struct job_session *js, const char **msgs, uint32_t max);

/* --full RANKS of plot and view: for each rank the expression names, its trace loaded,
 * windowed and analysed as the command would (tmpl's options), then show(s, rank index,
 * OUT.rankN.ext, arg). KG_EXIT_OK, or the first failure's exit code after its message. */
typedef int (*job_full_fn)(struct cli_session *s, uint32_t rank, const char *out, void *arg);
int job_each_full(const char *cmd, const struct cli_session *tmpl, const struct kg_job *j,
		  const char *expr, const char *out, job_full_fn show, void *arg);

/* The traces named by paths (folders expanded to the traces in them, by name), into a
 * NULL-terminated list the caller frees with free_paths. KG_EXIT_OK, or the exit code
 * after a message. */
int job_expand_paths(const char *cmd, char *const *paths, int n, char ***out, int *n_out);
void free_paths(char **list);

#endif
