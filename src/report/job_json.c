/* The job report as JSON: every rank (not only the table's), every step with a skew,
 * every finding. Times in ns on the job's clock (the first rank's). docs/job.md lists
 * the fields. */
#include <errno.h>
#include <stdlib.h>

#include "report/finding_out.h"
#include "report/job_report.h"
#include "text/json_writer.h"
#include "util/timemath.h"

static void rank_findings(struct jw *w, const struct kg_rank *r)
{
	j_key(w, "top_findings");
	j_aopen(w);
	for (uint32_t i = 0; i < r->n_top; i++)
		finding_json_brief(w, &r->top[i]);
	j_aclose(w);
}


/* {cause: ns} of one set of idle times */
static void idle_causes(struct jw *w, const char *key, const int64_t *ns)
{
	j_key(w, key);
	j_open(w);
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		kv_time(w, gap_cause_name((enum kg_gap_cause)c), ns[c]);
	j_close(w);
}

/* Its communication's union, the part compute ran beside, the exposed rest and the
 * overlap share (null without communication), as a trace's gpus[].communication. */
static void rank_comm_json(struct jw *w, const struct kg_rank *r)
{
	kv_time(w, "comm_busy_ns", r->comm_busy);
	kv_time(w, "comm_overlapped_ns", r->comm_overlapped);
	kv_time(w, "comm_exposed_ns", rank_comm_exposed(r));
	kv_pct(w, "comm_overlap_pct", (double)r->comm_overlapped, (double)r->comm_busy);
	kv_num(w, "comm_exposed_wait_ns", r->comm_wait_exposed);
	kv_time(w, "p2p_wait_ns", r->p2p_wait);
	kv_time(w, "p2p_caused_ns", r->p2p_caused);
}

void job_json_rank(struct jw *w, const struct kg_job *j, uint32_t i)
{
	const struct kg_rank *r = &j->ranks[i];
	kv_str(w, "label", r->label);
	if (r->rank[0])
		kv_str(w, "rank", r->rank);
	else
		kv_str(w, "rank", NULL);
	kv_str(w, "file", r->file);
	kv_str(w, "host", r->host);
	kv_int(w, "pid", r->pid);
	kv_int(w, "device", r->ordinal);
	kv_str(w, "gpu", r->gpu);
	kv_time(w, "clock_shift_ns", r->shift);
	kv_time(w, "begin_ns", kg_time_add(r->begin, r->shift));
	kv_time(w, "end_ns", kg_time_add(r->end, r->shift));
	kv_time(w, "busy_ns", r->busy);
	kv_time(w, "kernel_busy_ns", r->kernel_busy);
	kv_time(w, "kernel_ns", r->compute_time);
	kv_time(w, "comm_ns", r->comm_time);
	rank_comm_json(w, r);
	idle_causes(w, "idle_by_cause_ns", r->idle_by_cause);
	kv_time(w, "idle_startup_ns", r->idle_startup);
	kv_time(w, "idle_winddown_ns", r->idle_winddown);
	idle_causes(w, "steady_idle_by_cause_ns", r->steady_idle_by_cause);
	kv_time(w, "steady_span_ns", rank_steady_span(r));
	kv_int(w, "kernels", r->kernels);
	kv_int(w, "comm_kernels", r->comm_kernels);
	kv_int(w, "collectives", r->n_coll);
	kv_int(w, "collectives_joined", r->joined);
	kv_int(w, "steps", r->n_steps);
	kv_str(w, "step_ranges", r->step_name[0] ? r->step_name : NULL);
	kv_str(w, "steps_source", r->n_steps ? steps_source_name(r->steps_source) : NULL);
	kv_int(w, "late_collectives", r->late);
	kv_time(w, "late_ns", r->late_ns);
	kv_num(w, "peer_wait_ns", r->wait_caused_ns);
	if (r->slowdown > 0)
		kv_num(w, "speed_ratio", r->slowdown);
	else
		kv_str(w, "speed_ratio", NULL);
	kv_num(w, "work_at_median_speed_ns", r->work_ns);
	kv_int(w, "findings", r->n_findings);
	kv_num(w, "findings_gain_ns", r->findings_gain);
	rank_findings(w, r);
}

/* How the ranks' communication kernels were matched (job_match.c). */
static void match_figures(struct jw *w, const struct kg_job *j)
{
	const struct kg_job_match *m = &j->match;
	char how[200];
	j_key(w, "collectives_matching");
	j_open(w);
	kv_str(w, "identity", job_identity_note(j, how, sizeof(how)));
	kv_int(w, "comm_kernels", m->kernels);
	kv_int(w, "kind_from_call", m->by_call);
	kv_int(w, "point_to_point", m->p2p);
	kv_int(w, "point_to_point_paired", m->p2p_paired);
	kv_int(w, "transfers", j->p2p_transfers);
	kv_time(w, "transfer_wait_ns", j->p2p_wait_ns);
	kv_int(w, "unmatched", m->alone);
	kv_int(w, "paired_by_ends", m->parted);
	kv_int(w, "process_groups", m->groups);
	kv_time(w, "end_spread_bound_ns", j->cfg.coll_end_spread_ns);
	j_close(w);
}

static void one_rank(struct jw *w, const struct kg_job *j, uint32_t i)
{
	j_open(w);
	job_json_rank(w, j, i);
	j_close(w);
}

static void steps(struct jw *w, const struct kg_job *j)
{
	j_key(w, "steps");
	j_aopen(w);
	for (uint32_t s = 0; s < j->n_steps; s++) {
		const struct kg_job_step *st = &j->steps[s];
		if (st->last_rank == UINT32_MAX)
			continue;
		j_open(w);
		kv_int(w, "step", st->step + 1);
		kv_str(w, "last_rank", j->ranks[st->last_rank].label);
		kv_int(w, "collective", st->collective + 1);
		kv_time(w, "worst_skew_ns", st->worst_skew);
		kv_time(w, "job_delay_ns", st->late_ns);
		kv_num(w, "peer_wait_ns", st->wait_ns);
		j_close(w);
	}
	j_aclose(w);
}

void job_json_findings(struct jw *w, const struct kg_job *j)
{
	j_key(w, "findings");
	j_aopen(w);
	struct kg_finding_place p = {.j = j};
	for (uint32_t i = 0; i < j->findings.n; i++)
		finding_json(w, &p, &j->findings.v[i], i + 1);
	j_aclose(w);
}

int job_report_json(FILE *f, const struct kg_job *j, const struct kg_job_report_opts *o)
{
	struct jw w;
	if (jw_begin(&w, f) < 0)
		return -ENOMEM;
	j_open(&w);
	kv_int(&w, "kgantt_job_report_version", KG_JOB_REPORT_VERSION);
	kv_int(&w, "ranks_count", j->n_ranks);
	kv_int(&w, "traces", j->n_files);
	kv_int(&w, "mpi_processes", o->processes);
	j_key(&w, "not_read");
	j_aopen(&w);
	for (uint32_t i = 0; i < o->n_unread; i++)
		j_str(&w, o->unread[i]);
	j_aclose(&w);
	kv_time(&w, "span_ns", j->span);
	kv_time(&w, "steady_span_ns", j->steady_span);
	j_key(&w, "clocks");
	j_open(&w);
	kv_int(&w, "hosts", j->n_hosts);
	kv_str(&w, "how", j->clock_note);
	kv_bool(&w, "refined_by_collectives", j->clocks_by_collectives);
	kv_int(&w, "samples", j->align_samples);
	kv_time(&w, "collective_end_diff_p50_ns", j->align_samples ? j->align_p50 : KG_NO_TIME);
	kv_time(&w, "collective_end_diff_p99_ns", j->align_samples ? j->align_p99 : KG_NO_TIME);
	kv_time(&w, "collective_end_diff_max_ns", j->align_samples ? j->align_max : KG_NO_TIME);
	j_close(&w);
	kv_int(&w, "collectives_compared", j->n_collectives);
	kv_str(&w, "collectives_note", j->coll_note[0] ? j->coll_note : NULL);
	match_figures(&w, j);
	kv_num(&w, "collective_wait_ns", j->total_wait_ns);
	kv_str(&w, "steps_note", j->steps_note[0] ? j->steps_note : NULL);
	j_key(&w, "ranks");
	j_aopen(&w);
	uint32_t n, *order = job_rank_order(j, o, &n);
	for (uint32_t k = 0; order && k < n; k++)
		one_rank(&w, j, order[k]);
	j_aclose(&w);
	free(order);
	steps(&w, j);
	job_json_findings(&w, j);
	j_close(&w);
	return jw_end(&w) < 0 ? -EIO : 0;
}
