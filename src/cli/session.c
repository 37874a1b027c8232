#include "cli/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/job_session.h"
#include "cli/trace_load.h"

/* "loading TRACE: 42%", rewritten in place on a terminal. */
struct progress {
	const char *path;
	int last; /* last percentage printed, -1 none */
};

static void progress_line(double fraction, void *arg)
{
	struct progress *p = arg;
	int pct = (int)(fraction * 100 + 0.5);
	pct = pct < 0 ? 0 : pct > 100 ? 100 : pct;
	if (pct == p->last)
		return;
	p->last = pct;
	fprintf(stderr, "\rloading %s: %d%%", p->path, pct);
	fflush(stderr);
}

static void progress_clear(struct progress *p)
{
	if (p->last >= 0)
		fputs("\r\033[K", stderr);
	p->last = -1;
}

/* The window cut from s->m, the whole trace kept beside it when the command draws it. */
static int cut_window(struct cli_session *s)
{
	if (s->keep_whole && window_given(&s->window)) {
		if (model_clone(&s->m, &s->whole) < 0) {
			kg_err("out of memory keeping '%s' beside its window", s->path);
			return KG_EXIT_FAILURE;
		}
		s->has_whole = 1;
	}
	return window_apply(&s->window, s->path, &s->m, &s->cut);
}

int cli_session_open(struct cli_session *s)
{
	struct progress p = {s->path, -1};
	struct kg_load_opts lo = s->load;
	if (!s->no_progress && isatty(STDERR_FILENO)) {
		lo.progress = progress_line;
		lo.progress_arg = &p;
	}
	char err[1024];
	int rc = model_load(s->path, &s->m, &lo, err, sizeof(err));
	progress_clear(&p); /* before any message: the progress line is rewritten in place */
	if (rc < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	s->loaded = 1;
	rc = s->describe_empty ? KG_EXIT_OK : cli_check_recorded(s->path, &s->m);
	if (rc == KG_EXIT_OK)
		rc = cut_window(s);
	if (rc != KG_EXIT_OK)
		cli_session_close(s);
	return rc;
}

/* Each GPU's steady window (win[2g], win[2g + 1], by model.gpus index; KG_NO_TIME: the
 * whole window's) and the whole window [*t0, *t1) widened to hold them all: ranks of one
 * trace start their loops at different times, and the busiest GPU's steady steps alone
 * would leave another rank's out, while one window for all would take in its warm-up.
 * NULL on ENOMEM, else an array of 2 × n_gpus to free. */
static int64_t *gpu_windows(const struct kg_analysis *a, uint32_t n_gpus, int64_t *t0,
			    int64_t *t1)
{
	int64_t *win = malloc(2 * ((size_t)n_gpus + 1) * sizeof(*win));
	for (uint32_t g = 0; win && g < 2 * n_gpus; g++)
		win[g] = KG_NO_TIME;
	for (uint32_t g = 0; win && g < a->n_gpus; g++) {
		const struct kg_steps *st = steps_of_gpu(a, g);
		uint32_t mg = a->gpus[g].gpu;
		if (!st || !st->n_steady || mg >= n_gpus)
			continue;
		int64_t b = st->v[st->first_steady].host_start, e = st->v[st->n - 1].host_end;
		if (st == &a->steps)
			b = *t0, e = *t1;
		if (b == KG_NO_TIME || e == KG_NO_TIME)
			continue;
		win[2 * mg] = b, win[2 * mg + 1] = e;
		*t0 = b < *t0 ? b : *t0;
		*t1 = e > *t1 ? e : *t1;
	}
	return win;
}

/* report and plot: the steady steps (analysis/steps.h) cut out of the trace as --from/--to
 * cut it (plot keeps the whole beside it, as for a window), and analysed again with the steps of the whole run, so that the findings, the GPU
 * summary and the idle causes are theirs. Nothing to do unless the steps apply
 * (kg_steps.applied: not --whole, and they leave out at least long_gap_ns or
 * left_out_pct of their time), in a window
 * the user chose, or when they leave no operation out. */
static int analyse_steady(struct cli_session *s, struct kg_config *cfg)
{
	struct kg_steps *st = &s->a.steps;
	int chosen = s->step_from != 0;
	if (chosen && (!st->n || s->step_to > st->n)) {
		char asked[32];
		snprintf(asked, sizeof(asked), s->step_from == s->step_to ? "%u" : "%u-%u",
			 s->step_from, s->step_to);
		if (st->n)
			kg_err("--steps %s: '%s' has %u steps (report --list-steps lists them)",
			       asked, s->path, st->n);
		else
			kg_err("--steps %s: no steps found in '%s': no annotation repeats and its "
			       "launches have no rhythm", asked, s->path);
		return -ERANGE;
	}
	if (!chosen && (!s->steady_cut || !st->applied || s->cut.windowed))
		return 0;
	uint32_t first = chosen ? s->step_from - 1 : st->first_steady;
	uint32_t last = chosen ? s->step_to - 1 : st->n - 1;
	int64_t t0 = st->v[first].host_start, t1 = st->v[last].host_end;
	if (chosen && (t0 == KG_NO_TIME || t1 == KG_NO_TIME)) /* no launch times: the GPU's */
		t0 = st->v[first].start, t1 = st->v[last].end;
	int64_t *win = NULL; /* each GPU in its own steady steps */
	if (!chosen && t0 != KG_NO_TIME && t1 != KG_NO_TIME &&
	    !(win = gpu_windows(&s->a, s->m.n_gpus, &t0, &t1)))
		return -ENOMEM;
	uint32_t out = 0;
	for (uint32_t i = 0; t0 != KG_NO_TIME && t1 != KG_NO_TIME && i < s->m.n_ops; i++)
		out += !model_op_in_gpu_window(&s->m, &s->m.ops[i], t0, t1, win);
	if (!out && !chosen) {
		free(win);
		return 0;
	}
	if (s->keep_whole && !s->has_whole) { /* plot draws the wind-down too */
		if (model_clone(&s->m, &s->whole) < 0) {
			free(win);
			return -ENOMEM;
		}
		s->has_whole = 1;
	}
	struct kg_steps whole = *st, *others = s->a.gpu_steps;
	uint32_t n_others = others ? s->a.n_gpus : 0;
	whole.chosen_from = s->step_from;
	whole.chosen_to = s->step_to;
	st->v = NULL; /* kept for the second analysis, with the other GPUs' */
	s->a.gpu_steps = NULL;
	/* and the whole run's launch stacks: those of each place's first launches are the
	 * warm-up's, which the steady steps leave out (sites.c) */
	struct kg_launch_stacks whole_stacks = s->a.launch_stacks;
	s->a.launch_stacks = (struct kg_launch_stacks){0};
	analysis_free(&s->a);
	s->analysed = 0;
	s->cut = (struct kg_window_cut){1, NULL, t0, t1, s->m.begin, s->m.end};
	s->steady_applied = 1;
	int rc = model_restrict_gpus(&s->m, t0, t1, win);
	free(win);
	cfg->steps_given = &whole;
	cfg->gpu_steps_given = others;
	cfg->n_gpu_steps_given = n_others;
	cfg->launch_stacks_given = &whole_stacks;
	if (!rc)
		rc = analysis_run(&s->m, cfg, &s->a);
	cfg->launch_stacks_given = s->a.cfg.launch_stacks_given = NULL;
	launch_stacks_free(&whole_stacks);
	free(whole.v);
	for (uint32_t g = 0; g < n_others; g++)
		free(others[g].v);
	free(others);
	return rc;
}

int cli_session_analyse(struct cli_session *s)
{
	struct kg_config cfg;
	cli_config(&s->sets, &cfg);
	cfg.steps_name = s->steps_name;
	cfg.whole = s->whole_run;
	cfg.steps_rhythm = s->steps_rhythm;
	int show = !s->no_progress && isatty(STDERR_FILENO);
	if (show)
		fprintf(stderr, "analysing %s ...", s->path);
	int rc = analysis_run(&s->m, &cfg, &s->a);
	if (!rc)
		rc = analyse_steady(s, &cfg);
	if (show)
		fputs("\r\033[K", stderr);
	if (rc < 0) {
		if (rc != -ERANGE) /* --steps beyond the run's: said already */
			kg_err("cannot analyse '%s': %s", s->path,
			       rc == -ENOMEM ? "out of memory" : strerror(-rc));
		return KG_EXIT_FAILURE;
	}
	s->analysed = 1;
	return KG_EXIT_OK;
}

void cli_session_close(struct cli_session *s)
{
	if (s->analysed)
		analysis_free(&s->a);
	if (s->has_whole)
		model_free(&s->whole);
	if (s->loaded)
		model_free(&s->m);
	s->analysed = s->loaded = s->has_whole = 0;
}

/* "12" or "10-20": 1 with the range set, 0 when it is a name (of the step ranges). */
static int step_numbers(const char *arg, uint32_t *from, uint32_t *to)
{
	char *end;
	if (!arg || *arg < '0' || *arg > '9')
		return 0;
	unsigned long a = strtoul(arg, &end, 10), b = a;
	if (*end == '-' && end[1] >= '0' && end[1] <= '9')
		b = strtoul(end + 1, &end, 10);
	if (*end || a > UINT32_MAX || b > UINT32_MAX)
		return 0;
	*from = (uint32_t)a;
	*to = (uint32_t)b;
	return 1;
}

/* --steps: a name of the ranges that are steps, or the numbers of the steps to look at
 * (report, plot, view; a job's are named only). -1, or KG_EXIT_USAGE after the message. */
static int take_steps(struct cli_session *s)
{
	const char *arg = s->job ? s->job->steps : NULL;
	if (!step_numbers(arg, &s->step_from, &s->step_to)) {
		s->steps_name = arg;
		return -1;
	}
	s->job->steps = NULL;
	if (!s->step_from || s->step_from > s->step_to)
		return cli_usage_error("--steps '%s': steps count from 1, the first no later "
				       "than the last (--steps 10-20)", arg);
	if (s->job->job)
		return cli_usage_error("--steps '%s': a job's steps are chosen by name only "
				       "(--steps NAME); numbers are for one trace", arg);
	if (window_given(&s->window))
		return cli_usage_error("--steps '%s' and --from, --to or --nvtx: one window "
				       "at a time", arg);
	return -1;
}

int cli_session_paths(struct cli_session *s, int n, char **paths)
{
	int rc;
	s->path = paths[0];
	if (s->job && (rc = job_args_take_paths(s->job, n, paths)) >= 0)
		return rc;
	if ((rc = take_steps(s)) >= 0)
		return rc;
	return window_check(&s->window);
}

int cli_session_run(struct cli_session *s, const struct cli_show *show, void *arg)
{
	if (s->job && s->job->job)
		return job_session_run(s, show->job, arg);
	int rc = cli_session_open(s);
	if (rc != KG_EXIT_OK)
		return rc;
	if (show->check)
		rc = show->check(s, arg);
	if (rc == KG_EXIT_OK && !s->no_analysis)
		rc = cli_session_analyse(s);
	if (rc == KG_EXIT_OK)
		rc = show->one(s, arg);
	cli_session_close(s);
	return rc;
}

int cli_session_pair(struct cli_session s[2], int (*show)(struct cli_session s[2], void *arg),
		     void *arg)
{
	int rc = KG_EXIT_OK;
	for (int i = 0; rc == KG_EXIT_OK && i < 2; i++) {
		rc = cli_session_open(&s[i]);
		if (rc == KG_EXIT_OK)
			rc = cli_session_analyse(&s[i]);
	}
	if (rc == KG_EXIT_OK)
		rc = show(s, arg);
	cli_session_close(&s[0]);
	cli_session_close(&s[1]);
	return rc;
}
