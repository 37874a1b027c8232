/* The traces of a job read into one struct kg_job (cli/job_session.h). Worker threads
 * take the traces one at a time (load, window, analysis, summaries, free), so memory
 * holds one model per thread whatever the number of ranks; under MPI each process takes
 * every P-th trace and process 0 gathers the summaries. */
#include "cli/job_session.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/job_mpi.h"
#include "cli/settings.h"

#define MAX_THREADS 256

/* ------------------------------------------------------------------ the traces */

static int trace_name(const char *name)
{
	static const char *const ends[] = {".kgt", ".json", ".json.gz", ".pt.trace.json",
					   ".pt.trace.json.gz", ".sqlite"};
	size_t n = strlen(name);
	if (name[0] == '.')
		return 0; /* hidden, and outfile's temporary files */
	for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++) {
		size_t e = strlen(ends[i]);
		if (n > e && !strcmp(name + n - e, ends[i]))
			return 1;
	}
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct path_list {
	char **v;
	int n, cap;
};

static int list_add(struct path_list *l, const char *dir, const char *name)
{
	if (l->n + 2 > l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		char **v = realloc(l->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	size_t len = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
	char *p = malloc(len);
	if (!p)
		return -1;
	if (dir)
		snprintf(p, len, "%s/%s", dir, name);
	else
		snprintf(p, len, "%s", name);
	l->v[l->n++] = p;
	l->v[l->n] = NULL;
	return 0;
}

void free_paths(char **list)
{
	for (char **p = list; p && *p; p++)
		free(*p);
	free(list);
}

static int add_folder(const char *cmd, const char *dir, struct path_list *l)
{
	DIR *d = opendir(dir);
	if (!d) {
		kg_err("%s: cannot read the folder '%s': %s", cmd, dir, strerror(errno));
		return KG_EXIT_FAILURE;
	}
	int first = l->n, rc = KG_EXIT_OK;
	struct dirent *e;
	while ((e = readdir(d)) && rc == KG_EXIT_OK)
		if (trace_name(e->d_name) && list_add(l, dir, e->d_name) < 0)
			rc = KG_EXIT_FAILURE;
	closedir(d);
	if (rc != KG_EXIT_OK) {
		kg_err("%s: out of memory", cmd);
		return rc;
	}
	if (l->n == first) {
		kg_err("%s: the folder '%s' holds no trace (*.kgt, *.json, *.json.gz, *.sqlite)", cmd,
		       dir);
		return KG_EXIT_FAILURE;
	}
	qsort(l->v + first, (size_t)(l->n - first), sizeof(*l->v), by_string);
	return KG_EXIT_OK;
}

struct file_id {
	dev_t dev;
	ino_t ino;
	int at;
};

static int by_file_id(const void *pa, const void *pb)
{
	const struct file_id *a = pa, *b = pb;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return (a->ino > b->ino) - (a->ino < b->ino);
}

/* A trace named twice (or through a link) would count its ranks twice: a usage error. */
static int no_twice(const char *cmd, const struct path_list *l)
{
	struct file_id *ids = malloc(((size_t)l->n + 1) * sizeof(*ids));
	int n = 0, rc = KG_EXIT_OK;
	if (!ids)
		return KG_EXIT_OK; /* the check is a courtesy; reading will say what is wrong */
	for (int i = 0; i < l->n; i++) {
		struct stat st;
		if (stat(l->v[i], &st) == 0)
			ids[n++] = (struct file_id){st.st_dev, st.st_ino, i};
	}
	qsort(ids, (size_t)n, sizeof(*ids), by_file_id);
	for (int i = 1; i < n && rc == KG_EXIT_OK; i++)
		if (!by_file_id(&ids[i - 1], &ids[i])) {
			const char *a = l->v[ids[i - 1].at], *b = l->v[ids[i].at];
			if (strcmp(a, b))
				kg_err("%s: '%s' is given twice (also as '%s'): its ranks would count "
				       "twice", cmd, a, b);
			else
				kg_err("%s: '%s' is given twice: its ranks would count twice", cmd, a);
			rc = KG_EXIT_USAGE;
		}
	free(ids);
	return rc;
}

int job_expand_paths(const char *cmd, char *const *paths, int n, char ***out, int *n_out)
{
	struct path_list l = {0};
	for (int i = 0; i < n; i++) {
		struct stat st;
		int rc = KG_EXIT_OK;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc = add_folder(cmd, paths[i], &l);
		else if (list_add(&l, NULL, paths[i]) < 0)
			rc = KG_EXIT_FAILURE, kg_err("%s: out of memory", cmd);
		if (rc != KG_EXIT_OK) {
			free_paths(l.v);
			return rc;
		}
	}
	int rc = no_twice(cmd, &l);
	if (rc != KG_EXIT_OK) {
		free_paths(l.v);
		return rc;
	}
	*out = l.v;
	*n_out = l.n;
	return KG_EXIT_OK;
}

/* ------------------------------------------------------------------ reading them */

struct file_result {
	struct kg_rank *ranks;
	uint32_t n;
	int failed;
};

struct reading {
	char **paths;
	uint32_t *mine;          /* indices into paths this process reads */
	uint32_t n_mine;
	atomic_uint next;
	struct file_result *results; /* by index into mine */
	const struct job_session_opts *o;
	int one_thread_loads;
};

static void read_one(struct reading *rd, uint32_t k)
{
	const char *path = rd->paths[rd->mine[k]];
	struct cli_session s = *rd->o->session;
	struct kg_summary_opts so = {.step_name = rd->o->args->steps};
	struct file_result *res = &rd->results[k];
	s.path = path;
	s.cmd = "report";
	s.no_progress = 1;
	s.load.one_thread = rd->one_thread_loads;
	s.loaded = s.analysed = 0;
	if (cli_session_open(&s) != KG_EXIT_OK) {
		res->failed = 1;
		return;
	}
	if (cli_session_analyse(&s) == KG_EXIT_OK) {
		if (job_rank_summaries(&s.a, path, &so, &res->ranks, &res->n) < 0) {
			kg_err("report: out of memory summarising '%s'", path);
			res->failed = 1;
		}
	} else {
		res->failed = 1;
	}
	cli_session_close(&s);
}

static void *reader(void *arg)
{
	struct reading *rd = arg;
	for (;;) {
		uint32_t k = atomic_fetch_add(&rd->next, 1);
		if (k >= rd->n_mine)
			return NULL;
		read_one(rd, k);
	}
}

static int thread_count(const struct job_session_opts *o, uint32_t files)
{
	long n = o->args->threads > 0 ? o->args->threads : sysconf(_SC_NPROCESSORS_ONLN);
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (o->args->threads <= 0 && local && atoi(local) > 1)
		n /= atoi(local); /* the node's cores are shared by its MPI processes */
	if (n < 1)
		n = 1;
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	if ((uint32_t)n > files)
		n = files ? (long)files : 1;
	return (int)n;
}

/* Reads this process's traces with threads; the ranks into *ranks (in trace order) and
 * the failures' messages into *unread. */
static int read_traces(struct reading *rd, int threads, struct kg_rank **ranks, uint32_t *n,
		       char **unread, size_t *unread_len)
{
	pthread_t tid[MAX_THREADS];
	int started = 0;
	rd->results = calloc(rd->n_mine + 1, sizeof(*rd->results));
	if (!rd->results)
		return -1;
	atomic_init(&rd->next, 0);
	rd->one_thread_loads = threads > 1;
	for (int t = 1; t < threads; t++)
		if (pthread_create(&tid[t], NULL, reader, rd) == 0)
			started = t;
		else
			break;
	reader(rd);
	for (int t = 1; t <= started; t++)
		pthread_join(tid[t], NULL);
	size_t total = 0, ulen = 0;
	for (uint32_t k = 0; k < rd->n_mine; k++)
		total += rd->results[k].n;
	*ranks = calloc(total + 1, sizeof(**ranks));
	*unread = malloc(1);
	if (!*ranks || !*unread)
		return -1;
	*n = 0;
	for (uint32_t k = 0; k < rd->n_mine; k++) {
		struct file_result *res = &rd->results[k];
		memcpy(*ranks + *n, res->ranks, res->n * sizeof(**ranks));
		*n += res->n;
		free(res->ranks);
		if (res->failed) {
			const char *p = rd->paths[rd->mine[k]];
			size_t l = strlen(p) + 40;
			char *g = realloc(*unread, ulen + l);
			if (!g)
				return -1;
			*unread = g;
			ulen += (size_t)snprintf(g + ulen, l, "%s (the message above says why)", p) + 1;
		}
	}
	*unread_len = ulen;
	free(rd->results);
	rd->results = NULL;
	return 0;
}

/* ------------------------------------------------------------------ the options */

int job_option(struct job_args *a, int c, const char *arg)
{
	char *end;
	long n;
	switch (c) {
	case JOB_OPT_JOB: a->job = 1; return -1;
	case JOB_OPT_STEPS: a->steps = arg; return -1;
	case JOB_OPT_RANKS: a->ranks = arg; return -1;
	case JOB_OPT_SORT: a->sort = arg; return -1;
	case JOB_OPT_FULL: a->full = arg; return -1;
	case 'j':
		n = strtol(arg, &end, 10);
		if (!*arg || *end || n < 1 || n > 256) {
			kg_err("--jobs: '%s' is not a thread count (1 to 256)", arg);
			return KG_EXIT_USAGE;
		}
		a->threads = (int)n;
		return -1;
	default: return CLI_NOT_MINE;
	}
}

int job_args_take_paths(const char *cmd, struct job_args *a, int argc, char **argv)
{
	struct stat st;
	if (optind + 1 < argc || (stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode)))
		a->job = 1;
	if (a->full && !a->job) {
		kg_err("%s: --full is for a job (several traces, a folder, or --job)", cmd);
		return KG_EXIT_USAGE;
	}
	a->paths = argv + optind;
	a->n_paths = argc - optind;
	return -1;
}

/* ------------------------------------------------------------------ the session */

static int analyse(struct job_session *js)
{
	cli_config(&js->o->session->sets, &js->job.cfg);
	if (!js->job.n_ranks) {
		kg_err("%s: none of the %u traces has GPU work to compare", js->o->cmd,
		       js->job.n_files);
		return KG_EXIT_FAILURE;
	}
	if (job_analyse(&js->job) < 0) {
		kg_err("%s: out of memory analysing the job", js->o->cmd);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

/* Under MPI: this process's ranks to process 0, which keeps everyone's. */
static int gather(struct job_session *js, uint32_t files)
{
	struct kg_rank *all = NULL;
	uint32_t n_all = 0, files_all = 0;
	char *unread_all = NULL;
	size_t unread_all_len = 0;
	int g = job_mpi_gather(js->job.ranks, js->job.n_ranks, js->unread ? js->unread : "",
			       js->unread_len, files, &all, &n_all, &unread_all, &unread_all_len,
			       &files_all);
	js->job.ranks = NULL;
	js->job.n_ranks = 0;
	free(js->unread);
	js->unread = NULL;
	js->unread_len = 0;
	if (g < 0)
		return KG_EXIT_FAILURE;
	if (js->me == 0) {
		js->job.ranks = all;
		js->job.n_ranks = n_all;
		js->job.n_files = files_all;
		js->unread = unread_all;
		js->unread_len = unread_all_len;
	}
	return KG_EXIT_OK;
}

int job_session_open(struct job_session *js, const struct job_session_opts *o)
{
	char **paths;
	int n_paths;
	memset(js, 0, sizeof(*js));
	js->o = o;
	js->procs = 1;
	int rc = job_expand_paths(o->cmd, o->args->paths, o->args->n_paths, &paths, &n_paths);
	if (rc != KG_EXIT_OK)
		return rc;
	js->mpi = job_mpi_launched();
	if (js->mpi && job_mpi_begin(&js->me, &js->procs) < 0) {
		free_paths(paths);
		js->mpi = 0;
		return KG_EXIT_FAILURE;
	}
	struct reading rd = {.paths = paths, .o = o};
	rd.mine = malloc(((size_t)n_paths + 1) * sizeof(*rd.mine));
	for (int i = 0; rd.mine && i < n_paths; i++)
		if (i % js->procs == js->me)
			rd.mine[rd.n_mine++] = (uint32_t)i;
	js->threads = thread_count(o, rd.n_mine);
	if (!rd.mine || read_traces(&rd, js->threads, &js->job.ranks, &js->job.n_ranks,
				    &js->unread, &js->unread_len) < 0) {
		kg_err("%s: out of memory reading the traces", o->cmd);
		rc = KG_EXIT_FAILURE;
		js->job.n_ranks = 0; /* under MPI it still takes part, empty-handed */
	}
	js->job.n_files = rd.n_mine;
	free(rd.mine);
	free_paths(paths);
	if (js->mpi) {
		int g = gather(js, rd.n_mine);
		if (rc == KG_EXIT_OK)
			rc = g;
	}
	if (rc == KG_EXIT_OK && js->me == 0)
		rc = analyse(js);
	return rc;
}

int job_session_close(struct job_session *js, int rc)
{
	if (js->mpi)
		rc = job_mpi_end(rc);
	job_free(&js->job);
	free(js->unread);
	js->unread = NULL;
	return rc;
}

uint32_t job_session_unread(const struct job_session *js, const char **msgs, uint32_t max)
{
	uint32_t n = 0;
	for (const char *p = js->unread; p && p < js->unread + js->unread_len && n < max;
	     p += strlen(p) + 1)
		msgs[n++] = p;
	return n;
}

/* OUT.ext -> OUT.rankN.ext: a chosen rank's own output beside the job's. */
static void full_name(const char *out, uint32_t number, char *buf, size_t len)
{
	const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
	snprintf(buf, len, "%.*s.rank%u%s", (int)n, out, number, out + n);
}

int job_each_full(const char *cmd, const struct cli_session *tmpl, const struct kg_job *j,
		  const char *expr, const char *out, job_full_fn show, void *arg)
{
	struct kg_rank_set set;
	char err[200];
	if (rank_set_parse(&set, expr, err, sizeof(err)) < 0) {
		kg_err("%s: --full: %s", cmd, err);
		return KG_EXIT_USAGE;
	}
	int rc = KG_EXIT_OK;
	for (uint32_t i = 0; i < j->n_ranks && rc == KG_EXIT_OK; i++) {
		uint32_t number = job_rank_number(j, i);
		if (!rank_set_has(&set, number))
			continue;
		char name[4200];
		full_name(out, number, name, sizeof(name));
		struct cli_session s = *tmpl;
		s.path = j->ranks[i].file;
		s.loaded = s.analysed = 0;
		if ((rc = cli_session_open(&s)) != KG_EXIT_OK)
			break;
		if ((rc = cli_session_analyse(&s)) == KG_EXIT_OK)
			rc = show(&s, i, name, arg);
		cli_session_close(&s);
	}
	rank_set_free(&set);
	return rc;
}
