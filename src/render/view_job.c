/* The job's page (view_job.h). */
#include "render/view_job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/layout.h"
#include "render/plot_job.h"
#include "report/job_report.h"
#include "text/json_writer.h"
#include "util/format.h"
#include "util/timemath.h"

#define DATA_MARKER "@@KGANTT_DATA@@"

static int64_t rel(const struct kg_job *j, const struct kg_rank *r, int64_t t)
{
	return kg_time_diff(kg_time_add(t, r->shift), j->begin);
}

static void bins(struct jw *w, const struct kg_rank *r)
{
	char s[KG_JOB_BINS + 1];
	for (int b = 0; b < KG_JOB_BINS; b++)
		s[b] = (char)('a' + (r->bins[b] < KG_BIN_STATES ? r->bins[b] : 0));
	s[KG_JOB_BINS] = 0;
	kv_str(w, "bins", s);
}

/* The time the rank waited inside each collective for the last rank, and the collectives
 * it joined last; the first KG_VIEW_JOB_WAITS of each. */
static void waits(struct jw *w, const struct kg_job *j, const struct kg_rank *r,
		  const int64_t *last)
{
	uint32_t n = 0;
	j_key(w, "waits");
	j_aopen(w);
	for (uint32_t k = 0; last && r->coll_job && k < r->n_coll && n < KG_VIEW_JOB_WAITS; k++) {
		if (r->coll_job[k] == UINT32_MAX)
			continue;
		int64_t s = kg_time_add(r->coll[k].start, r->shift), l = last[r->coll_job[k]];
		if (kg_time_diff(l, s) < j->cfg.comm_skew_ns)
			continue;
		j_aopen(w);
		j_time(w, kg_time_diff(s, j->begin));
		j_time(w, kg_time_diff(l, j->begin));
		j_aclose(w);
		n++;
	}
	j_aclose(w);
	n = 0;
	j_key(w, "lasts");
	j_aopen(w);
	for (uint32_t k = 0; last && r->coll_job && k < r->n_coll && n < KG_VIEW_JOB_WAITS; k++)
		if (r->coll_job[k] != UINT32_MAX &&
		    kg_time_add(r->coll[k].start, r->shift) == last[r->coll_job[k]] && r->late) {
			j_time(w, kg_time_diff(last[r->coll_job[k]], j->begin));
			n++;
		}
	j_aclose(w);
}

/* The first job finding naming rank i, for its lane's badge. */
static void lane_finding(struct jw *w, const struct kg_job *j, uint32_t i)
{
	uint32_t first = 0;
	for (uint32_t f = 0; f < j->findings.n && !first; f++)
		if (j->findings.v[f].rank == i)
			first = f + 1;
	kv_int(w, "finding", first);
	kv_str(w, "finding_severity", first ? severity_name(j->findings.v[first - 1].severity) : NULL);
}

/* The report's fields of the rank (job_json_rank), and what the page draws from. */
static void one_rank(struct jw *w, const struct kg_job *j, uint32_t i, const int64_t *last,
		     const struct kg_view_job_opts *o)
{
	const struct kg_rank *r = &j->ranks[i];
	j_open(w);
	job_json_rank(w, j, i);
	kv_int(w, "number", job_rank_number(j, i));
	int64_t b0, b1;
	rank_steady_bounds(r, &b0, &b1);
	kv_time(w, "b", rel(j, r, r->begin));
	kv_time(w, "e", rel(j, r, r->end));
	kv_time(w, "sb", rel(j, r, b0)); /* what the bins cover: its steady work */
	kv_time(w, "se", rel(j, r, b1));
	bins(w, r);
	waits(w, j, r, last);
	kv_time(w, "idle_ns", rank_steady_idle(r));
	kv_num(w, "busy_share", rank_busy_share(r));
	lane_finding(w, j, i);
	kv_str(w, "full", o->full_pages ? o->full_pages[i] : NULL);
	j_close(w);
}

/* The job's steps for the time axis: when each began (its first rank), since the job
 * began; how close their ticks and lines may lie (layout.h). Nothing without steps. */
static int steps(struct jw *w, const struct kg_job *j)
{
	uint32_t n;
	int64_t *start = job_step_starts(j, &n);
	if (!start)
		return n ? -ENOMEM : 0;
	j_key(w, "steps");
	j_open(w);
	kv_num(w, "tick_px", KG_STEP_TICK_PX);
	kv_num(w, "line_px", KG_STEP_LINE_PX);
	j_key(w, "start");
	j_aopen(w);
	for (uint32_t s = 0; s < n; s++)
		j_time(w, kg_time_diff(start[s], j->begin));
	j_aclose(w);
	j_close(w);
	free(start);
	return 0;
}

static int document(struct jw *w, const struct kg_job *j, const struct kg_view_job_opts *o)
{
	int64_t *last = job_last_starts(j);
	if (j->n_collectives && !last)
		return -ENOMEM;
	char sub[600];
	char steady[120];
	job_shown_note(j, steady, sizeof(steady));
	snprintf(sub, sizeof(sub), "%u %s from %u %s, %u %s, span %.2f ms%s, %u %s compared; "
		 "clocks: %s", j->n_ranks, plural(j->n_ranks, "rank", "ranks"), j->n_files,
		 plural(j->n_files, "trace", "traces"), j->n_hosts,
		 plural(j->n_hosts, "host clock", "host clocks"), (double)j->span / 1e6, steady,
		 j->n_collectives, plural(j->n_collectives, "collective", "collectives"),
		 j->clock_note);
	j_open(w);
	kv_int(w, "v", 1);
	kv_str(w, "title", o->title ? o->title : "kgantt job");
	kv_str(w, "subtitle", sub);
	kv_time(w, "span_ns", j->span > 0 ? j->span : 1);
	/* the page opens on this (docs/job.md) */
	int64_t sb = kg_time_diff(j->steady_begin, j->begin), se = kg_time_diff(j->steady_end, j->begin);
	kv_time(w, "steady_b_ns", sb >= 0 && se > sb ? sb : 0);
	kv_time(w, "steady_e_ns", sb >= 0 && se > sb ? se : (j->span > 0 ? j->span : 1));
	kv_int(w, "bins", KG_JOB_BINS);
	j_key(w, "states");
	j_aopen(w);
	for (int s = 0; s < KG_BIN_STATES; s++)
		j_str(w, bin_state_name((enum kg_bin_state)s));
	j_aclose(w);
	j_key(w, "colors");
	j_aopen(w);
	for (int s = 0; s < KG_BIN_STATES; s++) {
		char hex[8];
		snprintf(hex, sizeof(hex), "#%06x", job_state_color((enum kg_bin_state)s) & 0xffffffu);
		j_str(w, hex);
	}
	j_aclose(w);
	if (steps(w, j) < 0) {
		free(last);
		return -ENOMEM;
	}
	j_key(w, "ranks");
	j_aopen(w);
	for (uint32_t i = 0; i < j->n_ranks; i++)
		one_rank(w, j, i, last, o);
	j_aclose(w);
	job_json_findings(w, j);
	j_close(w);
	free(last);
	return 0;
}

int view_job_html(FILE *f, const struct kg_job *j, const struct kg_view_job_opts *o)
{
	const char *tpl = (const char *)kg_view_job_template;
	const char *mark = memmem(tpl, kg_view_job_template_len, DATA_MARKER, strlen(DATA_MARKER));
	if (!mark)
		return -EINVAL;
	struct jw w;
	if (fwrite(tpl, 1, (size_t)(mark - tpl), f) != (size_t)(mark - tpl))
		return -EIO;
	if (jw_begin_html(&w, f) < 0)
		return -ENOMEM;
	int rc = document(&w, j, o);
	if (jw_end_html(&w) < 0 && !rc)
		rc = -EIO;
	const char *rest = mark + strlen(DATA_MARKER);
	size_t n = kg_view_job_template_len - (size_t)(rest - tpl);
	if (!rc && fwrite(rest, 1, n, f) != n)
		rc = -EIO;
	return rc;
}
