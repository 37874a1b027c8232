/* analysis_run (analysis.h): the steps of the analysis in order (pipeline.h): metrics,
 * hardware samples, the program's steps, the rules, the host side of the idle findings,
 * call sites. Each step only reads what the earlier ones wrote; none calls back here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pipeline.h"
#include "util/timemath.h"

const char *gap_cause_name(enum kg_gap_cause c)
{
	static const char *const names[] = {
#define KG_GAP_CAUSE_NAME_(id, name) name,
		KG_GAP_CAUSE_LIST(KG_GAP_CAUSE_NAME_)
#undef KG_GAP_CAUSE_NAME_
	};
	return (unsigned)c < KG_GAP_CAUSES ? names[c] : names[KG_GAP_UNKNOWN];
}

const char *gap_place_name(enum kg_gap_place p)
{
	static const char *const names[] = {
#define KG_GAP_PLACE_NAME_(id, name) name,
		KG_GAP_PLACE_LIST(KG_GAP_PLACE_NAME_)
#undef KG_GAP_PLACE_NAME_
	};
	return (unsigned)p < KG_GAP_PLACES ? names[p] : names[KG_GAP_STEADY];
}

/* The longest of the GPUs' steady spans (gpu_steady_span): the span less the start-up and
 * wind-down of the GPU that had least of it; the span when no GPU worked. */
static int64_t steady_span(const struct kg_analysis *a)
{
	int64_t best = 0;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		int64_t s = gpu_steady_span(a, &a->gpus[g]);
		if (a->gpus[g].n_ops && s > best)
			best = s;
	}
	return best > 0 ? best : a->span;
}

int analysis_run(const struct kg_model *m, const struct kg_config *cfg, struct kg_analysis *a)
{
	memset(a, 0, sizeof(*a));
	a->m = m;
	if (cfg)
		a->cfg = *cfg;
	else
		analysis_config_default(&a->cfg);
	a->span = kg_time_span(m->end, m->begin); /* 0 when either is unknown */
	int rc = comm_identify(m, &a->comm_ids, &a->n_comm_ids);
	if (!rc)
		rc = metrics_run(a);
	if (!rc)
		rc = comm_waits_run(a);
	if (!rc)
		rc = hw_run(a);
	if (!rc)
		rc = steps_run(a);
	if (!rc) {
		a->steady_span = steady_span(a);
		/* the trace rules, in KG_RULES' order */
#define KG_RULE_RUN_TRACE(runner) runner(a);
#define KG_RULE_RUN_JOB(runner)
#define KG_RULE_RUN_(id, name, scope, runner, what) KG_RULE_RUN_##scope(runner)
		KG_RULES(KG_RULE_RUN_)
#undef KG_RULE_RUN_
#undef KG_RULE_RUN_TRACE
#undef KG_RULE_RUN_JOB
		findings_rank(&a->findings, &a->cfg, a->steady_span);
		rc = steps_of_findings(a);
		if (!rc)
			rc = host_run(a);
		if (!rc)
			rc = sites_run(a);
	}
	if (rc) {
		analysis_free(a);
		return rc < 0 ? rc : -ENOMEM;
	}
	return 0;
}

void analysis_free(struct kg_analysis *a)
{
	for (uint32_t g = 0; a->gpus && g < a->n_gpus; g++) {
		free(a->gpus[g].gaps);
		free(a->gpus[g].util);
		free(a->gpus[g].ops);
		free(a->gpus[g].comm_ops);
		free(a->gpus[g].comm_exposed);
		free(a->gpus[g].comm_exposed_lead);
		free(a->gpus[g].comm_exposed_eighths);
		free(a->gpus[g].compute);
	}
	free(a->gpus);
	free(a->coll_waits);
	free(a->streams);
	free(a->kernels);
	free(a->hw_kernels);
	free(a->hw_gpus);
	steps_free(&a->steps);
	for (uint32_t g = 0; a->gpu_steps && g < a->n_gpus; g++)
		steps_free(&a->gpu_steps[g]);
	free(a->gpu_steps);
	findings_free(&a->findings);
	free(a->solo);
	free(a->blame);
	free(a->comm_ids);
	host_free(a);
	analysis_free_sites(a);
	memset(a, 0, sizeof(*a));
}
