/* The traces of a job read into one struct kg_job (cli/job_session.h). Worker threads
 * take the traces one at a time (load, window, analysis, summaries, free), so memory
 * holds one model per thread whatever the number of ranks; under MPI each process takes
 * every P-th trace and process 0 gathers the summaries. */
#include "cli/job_session.h"

#include <dirent.h>
#include <errno.h>
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
#include "report/job_report.h"

#define MAX_THREADS 256

/* ------------------------------------------------------------------ the traces */

/* A trace by its name: *.kgt, *.json (the profiler's *.pt.trace.json too), *.sqlite,
 * each plain or compressed (trace/uncompress.h). */
static int trace_name(const char *name)
{
	static const char *const ends[] = {".kgt", ".json", ".sqlite"};
	static const char *const packed[] = {".xz", ".zst", ".gz"};
	size_t n = strlen(name);
	if (name[0] == '.')
		return 0; /* hidden, and outfile's temporary files */
	for (size_t i = 0; i < sizeof(packed) / sizeof(*packed); i++) {
		size_t e = strlen(packed[i]);
		if (n > e && !strcmp(name + n - e, packed[i])) {
			n -= e;
			break;
		}
	}
	for (size_t i = 0; i < sizeof(ends) / sizeof(*ends); i++) {
		size_t e = strlen(ends[i]);
		if (n > e && !strncmp(name + n - e, ends[i], e))
			return 1;
	}
	return 0;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_number(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return (a > b) - (a < b);
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
	/* "mix/" and "mix" give "mix/x.kgt" alike; "/" gives "/x.kgt" */
	size_t d = dir ? strlen(dir) : 0;
	while (d > 1 && dir[d - 1] == '/')
		d--;
	size_t len = d + 1 + strlen(name) + 1;
	char *p = malloc(len);
	if (!p)
		return -1;
	if (dir)
		snprintf(p, len, "%.*s%s%s", (int)d, dir, dir[d - 1] == '/' ? "" : "/", name);
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

static int add_folder(const char *dir, struct path_list *l)
{
	DIR *d = opendir(dir);
	if (!d) {
		kg_err("cannot read the folder '%s': %s", dir, strerror(errno));
		return KG_EXIT_FAILURE;
	}
	int first = l->n, rc = KG_EXIT_OK;
	struct dirent *e;
	while ((e = readdir(d)) && rc == KG_EXIT_OK)
		if (trace_name(e->d_name) && list_add(l, dir, e->d_name) < 0)
			rc = KG_EXIT_FAILURE;
	closedir(d);
	if (rc != KG_EXIT_OK) {
		kg_err("out of memory");
		return rc;
	}
	if (l->n == first) {
		kg_err("the folder '%s' holds no trace (*.kgt, *.json, *.sqlite; plain, .xz, .zst "
		       "or .gz)",
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
static int no_twice(const struct path_list *l)
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
				kg_err("'%s' is given twice (also as '%s'): its ranks would count twice",
				       a, b);
			else
				kg_err("'%s' is given twice: its ranks would count twice", a);
			rc = KG_EXIT_USAGE;
		}
	free(ids);
	return rc;
}

int job_expand_paths(char *const *paths, int n, char ***out, int *n_out)
{
	struct path_list l = {0};
	for (int i = 0; i < n; i++) {
		struct stat st;
		int rc = KG_EXIT_OK;
		if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
			rc = add_folder(paths[i], &l);
		else if (list_add(&l, NULL, paths[i]) < 0)
			rc = KG_EXIT_FAILURE, kg_err("out of memory");
		if (rc != KG_EXIT_OK) {
			free_paths(l.v);
			return rc;
		}
	}
	int rc = no_twice(&l);
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
	char why[512];           /* the first error about it */
};

struct reading {
	char **paths;
	uint32_t *mine;          /* indices into paths this process reads */
	uint32_t n_mine;
	atomic_uint next;
	struct file_result *results; /* by index into mine */
	const struct cli_session *tmpl;
	int one_thread_loads;
};

static void read_one(struct reading *rd, uint32_t k)
{
	const char *path = rd->paths[rd->mine[k]];
	struct cli_session s = *rd->tmpl;
	s.steady_cut = 0; /* a rank's whole run: the job's steps are part 2 of issue 24 */
	struct kg_summary_opts so = {.step_name = rd->tmpl->job->steps};
	struct file_result *res = &rd->results[k];
	s.path = path;
	s.no_progress = 1;
	s.no_analysis = s.keep_whole = 0; /* a rank's summary is of its findings */
	s.load.one_thread = rd->one_thread_loads;
	s.loaded = s.analysed = s.has_whole = 0;
	kg_err_keep(res->why, sizeof(res->why)); /* the report says why a trace is left out */
	if (cli_session_open(&s) != KG_EXIT_OK) {
		res->failed = 1;
	} else if (cli_session_analyse(&s) != KG_EXIT_OK) {
		res->failed = 1;
	} else if (job_rank_summaries(&s.a, path, &so, &res->ranks, &res->n) < 0) {
		kg_err("out of memory summarising '%s'", path);
		res->failed = 1;
	}
	kg_err_keep(NULL, 0);
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

static int thread_count(const struct job_args *a, uint32_t files)
{
	long n = a->threads > 0 ? a->threads : sysconf(_SC_NPROCESSORS_ONLN);
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (a->threads <= 0 && local && atoi(local) > 1)
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
		if (res->n) /* a trace left out has none, and NULL */
			memcpy(*ranks + *n, res->ranks, res->n * sizeof(**ranks));
		*n += res->n;
		free(res->ranks);
		if (res->failed) {
			const char *p = rd->paths[rd->mine[k]];
			size_t lp = strlen(p) + 1, lw = strlen(res->why) + 1;
			char *g = realloc(*unread, ulen + lp + lw);
			if (!g)
				return -1;
			*unread = g;
			memcpy(g + ulen, p, lp);
			memcpy(g + ulen + lp, res->why, lw);
			ulen += lp + lw;
		}
	}
	*unread_len = ulen;
	free(rd->results);
	rd->results = NULL;
	return 0;
}

/* ------------------------------------------------------------------ the options */

int job_opt_ranks(const struct cli_option *opt, const char *arg)
{
	struct kg_rank_set set;
	char err[200], name[64];
	if (rank_set_parse(&set, arg, err, sizeof(err)) < 0) {
		kg_err("%s: %s", cli_option_name(opt, name), err);
		return KG_EXIT_USAGE;
	}
	rank_set_free(&set);
	*(const char **)opt->value = arg;
	return -1;
}

int job_opt_sort(const struct cli_option *opt, const char *arg)
{
	enum kg_rank_sort order;
	if (rank_sort_parse(arg, &order) < 0) {
		kg_err("--sort: '%s' is not one of late, idle, busy, slow, rank", arg);
		return KG_EXIT_USAGE;
	}
	*(const char **)opt->value = arg;
	return -1;
}

int job_args_take_paths(struct job_args *a, int n, char **paths)
{
	struct stat st;
	if (n > 1 || (stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode)))
		a->job = 1;
	if (a->full && !a->job)
		return cli_usage_error("--full is for a job (several traces, a folder, or --job)");
	a->paths = paths;
	a->n_paths = n;
	return -1;
}

/* ------------------------------------------------------------------ the session */

/* --steps NAME that no trace has would leave the steps out without a word: said, with
 * the range names the first rank's trace has. */
static int steps_found(const struct job_session *js)
{
	const struct kg_job *j = &js->job;
	const char *steps = js->tmpl->job->steps;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		if (j->ranks[i].step_name[0])
			return KG_EXIT_OK;
	if (!steps)
		return KG_EXIT_OK;
	struct kg_model m;
	struct kg_load_opts lo = {0};
	char names[600] = "", err[1024];
	const char *file = j->ranks[0].file;
	uint32_t n = 0;
	if (model_load(file, &m, &lo, err, sizeof(err)) == 0) {
		n = window_range_names(&m, names, sizeof(names));
		model_free(&m);
	}
	if (n)
		kg_err("--steps '%s': no trace has two ranges of that name (or starting with it); "
		       "the names in '%s', most frequent first: %s", steps, file, names);
	else
		kg_err("--steps '%s': no trace has two ranges of that name (or starting with it); "
		       "'%s' has no range at all", steps, file);
	return KG_EXIT_FAILURE;
}

static int analyse(struct job_session *js)
{
	cli_config(&js->tmpl->sets, &js->job.cfg);
	if (!js->job.n_ranks) {
		kg_err("none of the %u traces has GPU work to compare", js->job.n_files);
		return KG_EXIT_FAILURE;
	}
	if (steps_found(js) != KG_EXIT_OK)
		return KG_EXIT_FAILURE;
	int rc = job_analyse(&js->job);
	if (rc == -ERANGE && js->job.apart_note[0]) {
		kg_err("not one job: %s", js->job.apart_note);
		return KG_EXIT_FAILURE;
	}
	if (rc == -ERANGE) {
		char d[32];
		kg_err("the ranks' GPU work spans %s on the job's clock: not one job (traces of "
		       "runs years apart?)", fmt_duration(js->job.span, d));
		return KG_EXIT_FAILURE;
	}
	if (rc < 0) {
		kg_err("out of memory analysing the job");
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

int job_session_open(struct job_session *js, const struct cli_session *tmpl)
{
	const struct job_args *args = tmpl->job;
	char **paths;
	int n_paths;
	memset(js, 0, sizeof(*js));
	js->tmpl = tmpl;
	js->procs = 1;
	int rc = job_expand_paths(args->paths, args->n_paths, &paths, &n_paths);
	if (rc != KG_EXIT_OK)
		return rc;
	js->mpi = job_mpi_launched();
	if (js->mpi && job_mpi_begin(&js->me, &js->procs) < 0) {
		free_paths(paths);
		js->mpi = 0;
		return KG_EXIT_FAILURE;
	}
	struct reading rd = {.paths = paths, .tmpl = tmpl};
	rd.mine = malloc(((size_t)n_paths + 1) * sizeof(*rd.mine));
	for (int i = 0; rd.mine && i < n_paths; i++)
		if (i % js->procs == js->me)
			rd.mine[rd.n_mine++] = (uint32_t)i;
	js->threads = thread_count(args, rd.n_mine);
	if (!rd.mine || read_traces(&rd, js->threads, &js->job.ranks, &js->job.n_ranks,
				    &js->unread, &js->unread_len) < 0) {
		kg_err("out of memory reading the traces");
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

int job_session_run(const struct cli_session *tmpl,
		    int (*show)(const struct job_session *js, void *arg), void *arg)
{
	struct job_session js;
	int rc = job_session_open(&js, tmpl);
	if (rc == KG_EXIT_OK && js.me == 0)
		rc = show(&js, arg);
	return job_session_close(&js, rc);
}

uint32_t job_session_unread(const struct job_session *js, const char **paths,
			    const char **whys, uint32_t max)
{
	uint32_t n = 0;
	const char *p = js->unread, *end = js->unread + js->unread_len;
	while (p && p < end && n < max) {
		paths[n] = p;
		p += strlen(p) + 1;
		whys[n++] = p < end ? p : "";
		p += p < end ? strlen(p) + 1 : 0;
	}
	return n;
}

/* "0-7, 12, 100-103": the rank numbers of j, for a message. */
static void rank_numbers(const struct kg_job *j, char *buf, size_t len)
{
	uint32_t *v = malloc(((size_t)j->n_ranks + 1) * sizeof(*v));
	size_t o = 0;
	buf[0] = '\0';
	if (!v)
		return;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		v[i] = job_rank_number(j, i);
	qsort(v, j->n_ranks, sizeof(*v), by_number);
	for (uint32_t i = 0; i < j->n_ranks && o < len;) {
		uint32_t k = i;
		while (k + 1 < j->n_ranks && v[k + 1] <= v[k] + 1)
			k++;
		if (v[k] == v[i])
			o += (size_t)snprintf(buf + o, len - o, "%s%u", i ? ", " : "", v[i]);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%u-%u", i ? ", " : "", v[i], v[k]);
		i = k + 1;
	}
	free(v);
}

int job_set_check(const struct kg_job *j, const struct kg_rank_set *set, const char *what)
{
	char ranks[400];
	for (uint32_t i = 0; i < j->n_ranks; i++)
		if (rank_set_has(set, job_rank_number(j, i)))
			return KG_EXIT_OK;
	rank_numbers(j, ranks, sizeof(ranks));
	kg_err("%s matches none of the job's %u rank%s: %s", what, j->n_ranks,
	       j->n_ranks == 1 ? "" : "s", ranks);
	return KG_EXIT_FAILURE;
}

/* OUT.ext -> OUT.rankN.ext: a chosen rank's own output beside the job's. */
static void full_name(const char *out, uint32_t number, char *buf, size_t len)
{
	const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
	size_t n = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
	snprintf(buf, len, "%.*s.rank%u%s", (int)n, out, number, out + n);
}

int job_each_full(const struct cli_session *tmpl, const struct kg_job *j, const char *out,
		  job_full_fn show, void *arg)
{
	const char *expr = tmpl->job->full;
	struct kg_rank_set set;
	char err[200], what[300];
	if (rank_set_parse(&set, expr, err, sizeof(err)) < 0) {
		kg_err("--full: %s", err);
		return KG_EXIT_USAGE;
	}
	snprintf(what, sizeof(what), "--full %s", expr);
	int rc = job_set_check(j, &set, what);
	for (uint32_t i = 0; i < j->n_ranks && rc == KG_EXIT_OK; i++) {
		uint32_t number = job_rank_number(j, i);
		if (!rank_set_has(&set, number))
			continue;
		char name[4200];
		full_name(out, number, name, sizeof(name));
		struct cli_session s = *tmpl;
		s.steady_cut = 0;
		s.path = j->ranks[i].file;
		s.loaded = s.analysed = s.has_whole = 0;
		if ((rc = cli_session_open(&s)) != KG_EXIT_OK)
			break;
		if (s.no_analysis || (rc = cli_session_analyse(&s)) == KG_EXIT_OK)
			rc = show(&s, i, name, arg);
		cli_session_close(&s);
	}
	rank_set_free(&set);
	return rc;
}
