/* Writes the seeds of fuzz_job_wire: the ranks of real traces as the job wire carries
 * them (job_rank_summaries, then job_wire_pack, as an MPI process sends them), so that
 * the seeds are what a job's processes send: `make fuzz-job-seeds` (again after a change
 * to struct kg_rank or the wire's version).
 *
 *   job_seeds DIR TRACE...   DIR/NAME.wire for each trace (its ranks back to back)
 *                            and DIR/job.wire (every trace's ranks) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "job/job.h"
#include "model/load.h"

static FILE *open_out(const char *dir, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.wire", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "job_seeds: cannot create '%s': %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}

/* The ranks of one trace, packed, to f and all. */
static void one_trace(const char *path, FILE *f, FILE *all)
{
	struct kg_model m;
	struct kg_analysis a;
	char err[1024];
	struct kg_rank *ranks = NULL;
	uint32_t n = 0;
	if (model_load(path, &m, NULL, err, sizeof(err)) != 0) {
		fprintf(stderr, "job_seeds: %s\n", err);
		exit(1);
	}
	if (analysis_run(&m, NULL, &a) != 0 || job_rank_summaries(&a, path, NULL, &ranks, &n) < 0) {
		fprintf(stderr, "job_seeds: out of memory summarising '%s'\n", path);
		exit(1);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *buf;
		size_t len;
		if (job_wire_pack(&ranks[i], &buf, &len) < 0) {
			fprintf(stderr, "job_seeds: out of memory\n");
			exit(1);
		}
		fwrite(buf, 1, len, f);
		fwrite(buf, 1, len, all);
		free(buf);
		rank_free(&ranks[i]);
	}
	free(ranks);
	analysis_free(&a);
	model_free(&m);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: job_seeds DIR TRACE...\n");
		return 2;
	}
	FILE *all = open_out(argv[1], "job");
	for (int i = 2; i < argc; i++) {
		const char *base = strrchr(argv[i], '/');
		char name[256];
		snprintf(name, sizeof(name), "%s", base ? base + 1 : argv[i]);
		char *dot = strchr(name, '.');
		if (dot)
			*dot = 0;
		FILE *f = open_out(argv[1], name);
		one_trace(argv[i], f, all);
		if (fclose(f) != 0) {
			fprintf(stderr, "job_seeds: cannot write '%s': %s\n", name, strerror(errno));
			return 1;
		}
	}
	return fclose(all) != 0;
}
