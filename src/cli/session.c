#include "cli/session.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/trace_load.h"

int cli_session_option(struct cli_session *s, int c, const char *arg)
{
	switch (c) {
	case CLI_OPT_FROM:
		return window_take_time("from", arg, &s->window.from, &s->window.has_from);
	case CLI_OPT_TO: return window_take_time("to", arg, &s->window.to, &s->window.has_to);
	case CLI_OPT_NVTX: s->window.nvtx = arg; return -1;
	case CLI_OPT_SET: return cli_take_set(s->cmd, &s->sets, arg);
	case CLI_OPT_NO_PROGRESS: s->no_progress = 1; return -1;
	default: return CLI_NOT_MINE;
	}
}

int cli_session_check(const struct cli_session *s)
{
	return window_check(&s->window);
}

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
	if (cli_check_recorded(s->cmd, s->path, &s->m) != KG_EXIT_OK) {
		cli_session_close(s);
		return KG_EXIT_FAILURE;
	}
	rc = window_apply(s->cmd, &s->window, s->path, &s->m, &s->cut);
	if (rc != KG_EXIT_OK)
		cli_session_close(s);
	return rc;
}

int cli_session_analyse(struct cli_session *s)
{
	struct kg_config cfg;
	cli_config(&s->sets, &cfg);
	int show = !s->no_progress && isatty(STDERR_FILENO);
	if (show)
		fprintf(stderr, "analysing %s ...", s->path);
	int rc = analysis_run(&s->m, &cfg, &s->a);
	if (show)
		fputs("\r\033[K", stderr);
	if (rc < 0) {
		kg_err("%s: cannot analyse '%s': %s", s->cmd, s->path,
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
	if (s->loaded)
		model_free(&s->m);
	s->analysed = s->loaded = 0;
}
