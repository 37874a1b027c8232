/* What every command that shows a job shares (report, plot, view): its options and its
 * traces (files and folders), read by every local core and, under mpirun or srun, by every MPI process
 * (cli/job_mpi.h), each reduced to its ranks' summaries, then the job analysed
 * (job/job.h) on process 0. */
#ifndef KGANTT_CLI_JOB_SESSION_H
#define KGANTT_CLI_JOB_SESSION_H

#include "cli/session.h"
#include "job/job.h"

/* A job's options, as report, plot and view take them (each command lists those it has:
 * JOB_SESSION_OPTIONS, and of --ranks, --sort, --full the ones it shows), and its traces. */
struct job_args {
	int job;                 /* several traces, a folder, or --job: a job */
	int threads;             /* -j, --jobs; 0: every core */
	const char *steps;       /* the step ranges' name, NULL auto */
	const char *ranks;       /* --ranks, a rank expression; NULL all */
	const char *sort;        /* --sort; NULL the default */
	const char *full;        /* --full RANKS: their own outputs beside the job's */
	char **paths;            /* traces and folders of traces */
	int n_paths;
};

enum { JOB_OPT_JOB = 960, JOB_OPT_STEPS, JOB_OPT_RANKS, JOB_OPT_SORT, JOB_OPT_FULL };

#define JOB_SESSION_OPTIONS                                     \
	{"job", no_argument, NULL, JOB_OPT_JOB},                 \
	{"steps", required_argument, NULL, JOB_OPT_STEPS},       \
	{"jobs", required_argument, NULL, 'j'}
#define JOB_RANKS_OPTION {"ranks", required_argument, NULL, JOB_OPT_RANKS}
#define JOB_SORT_OPTION {"sort", required_argument, NULL, JOB_OPT_SORT}
#define JOB_FULL_OPTION {"full", required_argument, NULL, JOB_OPT_FULL}

/* One option of those: -1 taken, KG_EXIT_USAGE after saying why, or CLI_NOT_MINE. */
int job_option(struct job_args *a, int c, const char *arg);
/* After the options, argv[optind..] are the traces: whether they make a job (several, or a
 * folder), and --full only with a job. -1 to go on, or KG_EXIT_USAGE after the message. */
int job_args_take_paths(const char *cmd, struct job_args *a, int argc, char **argv);

struct job_session_opts {
	const char *cmd;         /* "report": names the command in messages */
	const struct job_args *args;
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
