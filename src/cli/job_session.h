/* What every command that shows a job shares (report, plot, view): its options and its
 * traces (files and folders), read by every local core and, under mpirun or srun, by every MPI process
 * (cli/job_mpi.h), each reduced to its ranks' summaries, then the job analysed
 * (job/job.h) on process 0. */
#ifndef KGANTT_CLI_JOB_SESSION_H
#define KGANTT_CLI_JOB_SESSION_H

#include "cli/session.h"
#include "job/job.h"

/* A job's options, as report, plot and view take them (JOB_OPTIONS, and of --ranks, --sort,
 * --full the ones each command shows), and its traces. */
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

#define JOB_OPTIONS(a)                                                                     \
	OPT_BOOL(0, "job", &(a)->job, "the ranks of a single trace, as a job"),            \
	OPT_STRING(0, "steps", &(a)->steps, "NAME|N-M",                                     \
		   "NAME: the NVTX or annotation ranges that are steps (default: "            \
		   "ProfilerStep, train_step or step, the first found); N-M or N: of one "     \
		   "trace, only those steps (counted from 1, as report --list-steps does)"),  \
	{.type = CLI_OPT_INT, .short_name = 'j', .long_name = "jobs", .value = &(a)->threads, \
	 .argh = "N", .lo = 1, .hi = 256, .noun = "a thread count (1 to 256)",              \
	 .help = "threads reading traces (default: every core)"}
#define JOB_RANKS_OPTION(a)                                                                \
	OPT_CALLBACK(0, "ranks", &(a)->ranks, "EXPR", job_opt_ranks,                        \
		     "only these ranks: 3, 0-7,12, 100-")
#define JOB_SORT_OPTION(a)                                                                 \
	OPT_CALLBACK(0, "sort", &(a)->sort, "KEY", job_opt_sort,                            \
		     "the ranks by late (those the findings name, then the job's delay "     \
		     "they cause; the default), idle, busy, slow or rank")
#define JOB_FULL_OPTION(a)                                                                 \
	OPT_CALLBACK(0, "full", &(a)->full, "RANKS", job_opt_ranks,                         \
		     "also each of these ranks' own output beside the job's, OUT.rankN.EXT, " \
		     "e.g. --full 3,17")
/* A rank expression (--ranks, --full) and a rank order (--sort), checked as they are
 * given (options.h callbacks; opt->value is the const char * kept). */
int job_opt_ranks(const struct cli_option *opt, const char *arg);
int job_opt_sort(const struct cli_option *opt, const char *arg);

/* The traces (after the options): whether they make a job (several, or a folder), and
 * --full only with a job. -1 to go on, or KG_EXIT_USAGE after the message. */
int job_args_take_paths(struct job_args *a, int n, char **paths);

struct job_session {
	const struct cli_session *tmpl; /* --from/--to/--nvtx, --set, the job's options */
	struct kg_job job;       /* on process 0: every rank, analysed */
	char *unread;            /* traces not read and why: "PATH\0WHY\0" each */
	size_t unread_len;
	int mpi, me, procs, threads;
};

/* Reads and analyses the job of tmpl's traces (tmpl->job), each as tmpl says (window,
 * settings). KG_EXIT_OK, or the exit code after a message. Under MPI only process 0
 * (js->me == 0) has the job and shows it; every process must call job_session_close. */
int job_session_open(struct job_session *js, const struct cli_session *tmpl);
/* The exit code every process exits with (process 0's under MPI). */
int job_session_close(struct job_session *js, int rc);
/* open, show(js, arg) on process 0, close: cli_session_run's way for a job. */
int job_session_run(const struct cli_session *tmpl,
		    int (*show)(const struct job_session *js, void *arg), void *arg);
/* The unread traces and why, at most max of each. */
uint32_t job_session_unread(const struct job_session *js, const char **paths,
			    const char **whys, uint32_t max);
/* Whether set (parsed from `what`, "--ranks 99") matches a rank of j: KG_EXIT_OK, or
 * KG_EXIT_FAILURE after a message naming the ranks there are. */
int job_set_check(const struct kg_job *j, const struct kg_rank_set *set, const char *what);

/* --full RANKS of plot and view: for each rank the expression names, its trace loaded,
 * windowed and analysed as the command would (tmpl's options), then show(s, rank index,
 * OUT.rankN.ext, arg). KG_EXIT_OK, or the first failure's exit code after its message. */
typedef int (*job_full_fn)(struct cli_session *s, uint32_t rank, const char *out, void *arg);
int job_each_full(const struct cli_session *tmpl, const struct kg_job *j, const char *out,
		  job_full_fn show, void *arg);

/* The traces named by paths (folders expanded to the traces in them, by name), into a
 * NULL-terminated list the caller frees with free_paths. KG_EXIT_OK, or the exit code
 * after a message. */
int job_expand_paths(char *const *paths, int n, char ***out, int *n_out);
void free_paths(char **list);

#endif
