/* kgantt report TRACE TRACE... | FOLDER: the job report (docs/job.md). */
#include "cli/report_job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/job_session.h"
#include "report/job_report.h"

static int worst(const struct kg_job *j)
{
	int w = -1;
	for (uint32_t i = 0; i < j->findings.n; i++)
		if ((int)j->findings.v[i].severity > w)
			w = (int)j->findings.v[i].severity;
	return w;
}

/* The options that choose and order the ranks shown, shared with plot: KG_EXIT_OK or
 * KG_EXIT_USAGE after the message. */
int job_view_options(const char *ranks, const char *sort, struct kg_rank_set *set,
		     enum kg_rank_sort *order)
{
	char err[200];
	*order = KG_SORT_LATE;
	if (ranks && rank_set_parse(set, ranks, err, sizeof(err)) < 0) {
		kg_err("--ranks: %s", err);
		return KG_EXIT_USAGE;
	}
	if (sort && rank_sort_parse(sort, order) < 0) {
		kg_err("--sort: '%s' is not one of late, idle, busy, slow, rank", sort);
		rank_set_free(set);
		return KG_EXIT_USAGE;
	}
	return KG_EXIT_OK;
}

/* The traces left out and why, one line each: the reason alone when it names the trace
 * (as the load's messages do), else "PATH: WHY". */
#define MAX_UNREAD 64

static uint32_t unread_lines(const struct job_session *js, char lines[][1024])
{
	const char *paths[MAX_UNREAD], *whys[MAX_UNREAD];
	uint32_t n = job_session_unread(js, paths, whys, MAX_UNREAD);
	for (uint32_t i = 0; i < n; i++) {
		char quoted[1024];
		snprintf(quoted, sizeof(quoted), "'%s'", paths[i]);
		if (strstr(whys[i], quoted))
			snprintf(lines[i], 1024, "%s", whys[i]);
		else
			snprintf(lines[i], 1024, "%s: %s", paths[i], *whys[i] ? whys[i] : "not read");
	}
	return n;
}

int report_job(const struct job_session *js, const struct report_job_opts *o)
{
	const struct job_args *args = js->tmpl->job;
	struct kg_rank_set set = {0};
	struct kg_job_report_opts ro = {.processes = js->procs > 1 ? (uint32_t)js->procs : 0,
					.threads = (uint32_t)js->threads};
	int rc = job_view_options(args->ranks, args->sort, &set, &ro.sort);
	if (rc != KG_EXIT_OK)
		return rc;
	char what[300];
	snprintf(what, sizeof(what), "--ranks %s", args->ranks ? args->ranks : "");
	if (args->ranks && (rc = job_set_check(&js->job, &set, what)) != KG_EXIT_OK) {
		rank_set_free(&set);
		return rc;
	}
	ro.ranks = args->ranks ? &set : NULL;
	ro.top = o->top < 0 ? (o->json ? 0 : 16) : (uint32_t)o->top;
	ro.color = o->color;
	static char lines[MAX_UNREAD][1024];
	const char *msgs[MAX_UNREAD];
	ro.n_unread = unread_lines(js, lines);
	for (uint32_t i = 0; i < ro.n_unread; i++)
		msgs[i] = lines[i];
	ro.unread = msgs;
	int wrc = o->json ? job_report_json(stdout, &js->job, &ro)
			  : job_report_text(stdout, &js->job, &ro);
	rank_set_free(&set);
	if (wrc == -ENOMEM) {
		kg_err("out of memory writing the report");
		return KG_EXIT_FAILURE;
	}
	rc = js->unread_len ? KG_EXIT_FAILURE : KG_EXIT_OK;
	if (o->fail_on >= 0 && worst(&js->job) >= o->fail_on) {
		kg_err("the job has findings of severity '%s' or worse (--fail-on)",
		       severity_name((enum kg_severity)o->fail_on));
		rc = KG_EXIT_FINDINGS;
	}
	return finish_stdout(rc);
}
