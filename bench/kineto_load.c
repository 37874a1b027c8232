/* Times read_kineto alone on one file: prints the seconds, the peak RSS and what was
 * loaded. Used by bench/kineto_speed.sh to compare with Python's json.load.
 *
 *   build/bench/kineto_load [-1] TRACE.json[.gz]     (-1: on one thread) */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "model/load.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct kg_load_opts opts = {0};
	if (argc == 3 && strcmp(argv[1], "-1") == 0) {
		opts.one_thread = 1;
		argv++, argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s [-1] TRACE.json[.gz]\n", argv[0]);
		return 2;
	}
	struct kg_model m;
	char err[512];
	model_init(&m, "kineto", argv[1]);
	double t0 = now();
	int rc = read_kineto(&m, argv[1], &opts, err, sizeof(err));
	double t1 = now();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (rc < 0) {
		fprintf(stderr, "%s\n", err);
		model_free(&m);
		return 1;
	}
	printf("read_kineto %.3f s  peak_rss %.1f MiB  ops %u apis %u syncs %u ranges %u "
	       "streams %u devices %u\n",
	       t1 - t0, (double)ru.ru_maxrss / 1024.0, m.n_ops, m.n_apis, m.n_syncs, m.n_ranges,
	       m.n_streams, m.n_devices);
	for (int i = 0; i < m.n_notes; i++)
		printf("note: %s\n", m.notes[i]);
	model_free(&m);
	return 0;
}
