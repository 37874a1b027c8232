/* kgantt report TRACE TRACE... | FOLDER: the job report (docs/job.md). */
#include "cli/report_job.h"

#include <errno.h>
#include <stdlib.h>

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
int job_view_options(const char *cmd, const char *ranks, const char *sort,
		     struct kg_rank_set *set, enum kg_rank_sort *order)
{
	char err[200];
	*order = KG_SORT_LATE;
	if (ranks && rank_set_parse(set, ranks, err, sizeof(err)) < 0) {
		kg_err("%s: --ranks: %s", cmd, err);
		return KG_EXIT_USAGE;
	}
	if (sort && rank_sort_parse(sort, order) < 0) {
		kg_err("%s: --sort: '%s' is not one of late, idle, busy, slow, rank", cmd, sort);
		rank_set_free(set);
		return KG_EXIT_USAGE;
	}
	return KG_EXIT_OK;
}

static int show(const struct job_session *js, const struct report_job_opts *o)
{
	struct kg_rank_set set = {0};
	struct kg_job_report_opts ro = {.processes = js->procs > 1 ? (uint32_t)js->procs : 0,
					.threads = (uint32_t)js->threads};
	int rc = job_view_options("report", o->args->ranks, o->args->sort, &set, &ro.sort);
	if (rc != KG_EXIT_OK)
		return rc;
	ro.ranks = o->args->ranks ? &set : NULL;
	ro.top = o->top < 0 ? (o->json ? 0 : 16) : (uint32_t)o->top;
	ro.color = o->color;
	const char *msgs[64];
	ro.n_unread = job_session_unread(js, msgs, 64);
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

int report_job(const struct report_job_opts *o)
{
	struct job_session_opts so = {.cmd = "report", .args = o->args, .session = o->session};
	struct job_session js;
	int rc = job_session_open(&js, &so);
	if (rc == KG_EXIT_OK && js.me == 0)
		rc = show(&js, o);
	return job_session_close(&js, rc);
}
