/* The job report across MPI processes: under mpirun (or srun), each process reads its
 * share of the traces and process 0 gathers the rank summaries (job_wire_*) and writes
 * the report. Built when Open MPI's (or any MPI's) development files are there
 * (KG_HAVE_MPI); without them, a command started by mpirun says so and stops. */
#ifndef KGANTT_CLI_JOB_MPI_H
#define KGANTT_CLI_JOB_MPI_H

#include <stdint.h>

#include "job/job.h"

/* Whether this process was started by an MPI launcher (its environment says so). */
int job_mpi_launched(void);
/* MPI_Init; this process's number and the number of processes. 0, or -1 after a
 * message (no MPI in this build, MPI failed). */
int job_mpi_begin(int *me, int *procs);
/* What this process read, to process 0: its ranks (freed here) and its unread traces'
 * messages. On process 0, *all / *n_all receive every process's ranks (in process
 * order), *unread the messages (NUL-separated, *unread_len bytes) and *files the number
 * of traces over all processes. 0, or -1 after a message. */
int job_mpi_gather(struct kg_rank *mine, uint32_t n_mine, const char *unread, size_t unread_len,
		   uint32_t files, struct kg_rank **all, uint32_t *n_all, char **unread_all,
		   size_t *unread_all_len, uint32_t *files_all);
/* Process 0's exit code to every process, then MPI_Finalize: the code to exit with. */
int job_mpi_end(int code);

#endif
