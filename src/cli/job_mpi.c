/* MPI for the job report (job_mpi.h). Only main's thread calls MPI (FUNNELED): the
 * worker threads read traces and never communicate. */
#include "cli/job_mpi.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int job_mpi_launched(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE",
					   "PMI_RANK", "MPI_LOCALNRANKS"};
	for (size_t i = 0; i < sizeof(vars) / sizeof(*vars); i++)
		if (getenv(vars[i]))
			return 1;
	return 0;
}

#ifndef KG_HAVE_MPI

int job_mpi_begin(int *me, int *procs)
{
	*me = 0;
	*procs = 1;
	kg_err("started by an MPI launcher, but this kgantt was built without MPI (install "
	       "libopenmpi-dev and rebuild; or run kgantt %s without mpirun, which uses every "
	       "local core)", cli_command());
	return -1;
}

int job_mpi_gather(struct kg_rank *mine, uint32_t n_mine, const char *unread, size_t unread_len,
		   uint32_t files, struct kg_rank **all, uint32_t *n_all, char **unread_all,
		   size_t *unread_all_len, uint32_t *files_all)
{
	return -1;
}

int job_mpi_end(int code)
{
	return code;
}

#else

#include <limits.h>
#include <mpi.h>

/* What each process sends first: the sizes of what follows. */
struct gather_head {
	uint64_t ranks_bytes, unread_bytes;
	uint32_t files, ranks;
};

int job_mpi_begin(int *me, int *procs)
{
	int provided;
	if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		kg_err("MPI_Init failed");
		return -1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, me);
	MPI_Comm_size(MPI_COMM_WORLD, procs);
	return 0;
}

/* The ranks as one buffer of wire records. */
static int pack_all(struct kg_rank *r, uint32_t n, uint8_t **buf, size_t *len)
{
	size_t cap = 0;
	*buf = NULL;
	*len = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *one;
		size_t l;
		if (job_wire_pack(&r[i], &one, &l) < 0)
			return -1;
		if (*len + l > cap) {
			cap = (*len + l) * 2;
			uint8_t *g = realloc(*buf, cap);
			if (!g) {
				free(one);
				return -1;
			}
			*buf = g;
		}
		memcpy(*buf + *len, one, l);
		*len += l;
		free(one);
	}
	return 0;
}

static int unpack_all(const uint8_t *buf, size_t len, uint32_t count, struct kg_rank **all,
		      uint32_t *n_all)
{
	struct kg_rank *v = realloc(*all, ((size_t)*n_all + count + 1) * sizeof(*v));
	if (!v)
		return -1;
	*all = v;
	for (uint32_t i = 0; i < count; i++) {
		size_t used;
		if (job_wire_unpack(buf, len, &v[*n_all], &used) < 0)
			return -1;
		(*n_all)++;
		buf += used;
		len -= used;
	}
	return 0;
}

/* Displacements of counts, as MPI wants them (int): -1 when the total overflows. */
static int displacements(const int *counts, int *displs, int procs, long long *total)
{
	*total = 0;
	for (int p = 0; p < procs; p++) {
		displs[p] = (int)*total;
		*total += counts[p];
		if (*total > INT_MAX)
			return -1;
	}
	return 0;
}

static int gather_bytes(const void *mine, size_t len, const struct gather_head *heads, int me,
			int procs, int ranks_part, char **out, long long *total)
{
	int *counts = calloc((size_t)procs, sizeof(int)), *displs = calloc((size_t)procs, sizeof(int));
	int rc = counts && displs ? 0 : -1;
	for (int p = 0; !rc && p < procs; p++) {
		uint64_t b = ranks_part ? heads[p].ranks_bytes : heads[p].unread_bytes;
		if (b > INT_MAX)
			rc = -1;
		counts[p] = (int)b;
	}
	if (!rc && me == 0)
		rc = displacements(counts, displs, procs, total);
	/* every process must know whether process 0 can take it all */
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!rc && me == 0 && !(*out = malloc((size_t)*total + 1)))
		rc = -1;
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!rc)
		MPI_Gatherv(mine, (int)len, MPI_BYTE, me == 0 ? *out : NULL, counts, displs, MPI_BYTE,
			    0, MPI_COMM_WORLD);
	free(counts);
	free(displs);
	return rc;
}

int job_mpi_gather(struct kg_rank *mine, uint32_t n_mine, const char *unread, size_t unread_len,
		   uint32_t files, struct kg_rank **all, uint32_t *n_all, char **unread_all,
		   size_t *unread_all_len, uint32_t *files_all)
{
	int me, procs;
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &procs);
	uint8_t *packed = NULL;
	size_t packed_len = 0;
	int ok = pack_all(mine, n_mine, &packed, &packed_len) == 0;
	for (uint32_t i = 0; i < n_mine; i++)
		rank_free(&mine[i]);
	free(mine);
	struct gather_head head = {ok ? packed_len : 0, unread_len, files, ok ? n_mine : 0};
	/* every process needs every size: process 0 to place the bytes, the others to know
	 * the gather's shape */
	struct gather_head *all_heads = malloc((size_t)procs * sizeof(*all_heads));
	int bad = !all_heads, any_bad = 0;
	MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any_bad) {
		free(packed);
		free(all_heads);
		kg_err("out of memory gathering the ranks");
		return -1;
	}
	MPI_Allgather(&head, (int)sizeof(head), MPI_BYTE, all_heads, (int)sizeof(head), MPI_BYTE,
		      MPI_COMM_WORLD);
	char *ranks_buf = NULL, *unread_buf = NULL;
	long long ranks_total = 0, unread_total = 0;
	int rc = gather_bytes(packed, head.ranks_bytes, all_heads, me, procs, 1, &ranks_buf,
			      &ranks_total);
	if (!rc)
		rc = gather_bytes(unread, unread_len, all_heads, me, procs, 0, &unread_buf,
				  &unread_total);
	free(packed);
	if (!rc && me == 0) {
		*n_all = 0;
		*all = NULL;
		*files_all = 0;
		const uint8_t *at = (const uint8_t *)ranks_buf;
		for (int p = 0; p < procs && !rc; p++) {
			if (unpack_all(at, all_heads[p].ranks_bytes, all_heads[p].ranks, all, n_all) < 0)
				rc = -1;
			at += all_heads[p].ranks_bytes;
			*files_all += all_heads[p].files;
		}
		*unread_all = unread_buf;
		*unread_all_len = (size_t)unread_total;
		unread_buf = NULL;
		if (rc)
			kg_err("a process sent a rank summary that does not unpack");
	} else if (rc && me == 0) {
		kg_err("the rank summaries are too large to gather in one process (%lld "
		       "bytes)", ranks_total);
	}
	free(ranks_buf);
	free(unread_buf);
	free(all_heads);
	return rc;
}

int job_mpi_end(int code)
{
	MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return code;
}

#endif
