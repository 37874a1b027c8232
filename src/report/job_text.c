/* The job report as a terminal page: the job and its clocks, the ranks' table, the
 * stragglers by step, the cross-rank findings, and the worst ranks' own findings. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/finding_out.h"
#include "report/job_report.h"
#include "report/report.h"
#include "util/timemath.h"

#define STEPS_SHOWN 10
#define WORST_RANKS 3

const char *rank_sort_name(enum kg_rank_sort sort)
{
	static const char *const names[] = {"those the findings name, then the job's delay they cause",
					    "idle time", "GPU busy share (least first)",
					    "kernel speed (slowest first)", "rank"};
	return (unsigned)sort < sizeof(names) / sizeof(*names) ? names[sort] : names[0];
}

int rank_sort_parse(const char *name, enum kg_rank_sort *out)
{
	static const char *const names[] = {"late", "idle", "busy", "slow", "rank"};
	for (int i = 0; i < 5; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum kg_rank_sort)i;
			return 0;
		}
	return -1;
}

static int by_sort(const void *pa, const void *pb, void *arg)
{
	const void **ctx = arg;
	const struct kg_job *j = ctx[0];
	enum kg_rank_sort sort = *(const enum kg_rank_sort *)ctx[1];
	const uint32_t *named = ctx[2];
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct kg_rank *a = &j->ranks[ia], *b = &j->ranks[ib];
	double va = 0, vb = 0;
	if (named && named[ia] != named[ib])
		return named[ia] < named[ib] ? -1 : 1;
	switch (sort) {
	case KG_SORT_LATE:
		va = (double)a->late_ns + a->wait_caused_ns * 1e-9;
		vb = (double)b->late_ns + b->wait_caused_ns * 1e-9;
		break;
	case KG_SORT_IDLE: va = (double)rank_steady_idle(a), vb = (double)rank_steady_idle(b); break;
	case KG_SORT_BUSY: va = -rank_busy_share(a), vb = -rank_busy_share(b); break;
	case KG_SORT_SLOW: va = a->slowdown, vb = b->slowdown; break;
	case KG_SORT_RANK: return (ia > ib) - (ia < ib);
	}
	if (va != vb)
		return (va < vb) - (va > vb);
	return (ia > ib) - (ia < ib);
}

uint32_t *job_rank_order(const struct kg_job *j, const struct kg_job_report_opts *o, uint32_t *n)
{
	uint32_t *v = malloc((j->n_ranks + 1) * sizeof(*v));
	if (!v)
		return NULL;
	*n = 0;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		if (rank_set_has(o->ranks, job_rank_number(j, i)))
			v[(*n)++] = i;
	/* by the job's delay they cause, the ranks the findings name first (a slow rank
	 * delays no collective of a job without any, yet it is the job's problem) */
	uint32_t *named = o->sort == KG_SORT_LATE ? malloc((j->n_ranks + 1) * sizeof(*named)) : NULL;
	for (uint32_t i = 0; named && i < j->n_ranks; i++)
		named[i] = UINT32_MAX;
	for (uint32_t f = j->findings.n; named && f-- > 0;)
		if (j->findings.v[f].rank < j->n_ranks)
			named[j->findings.v[f].rank] = f;
	const void *ctx[3] = {j, &o->sort, named};
	qsort_r(v, *n, sizeof(*v), by_sort, (void *)ctx);
	free(named);
	return v;
}

static void field(FILE *f, const char *label, const char *text)
{
	page_field(f, 3, label, text);
}

static const char *ms_text(double ns, char buf[32])
{
	snprintf(buf, 32, "%.2f", ns / 1e6);
	return buf;
}

/* ------------------------------------------------------------------ sections */

static void job_header(FILE *f, const struct kg_job *j, const struct kg_job_report_opts *o)
{
	char d[32], line[1024];
	page_tone_on(f, o->color, PAGE_BOLD);
	char steady[96] = "", sd[32];
	if (j->steady_span != j->span)
		snprintf(steady, sizeof(steady), " (steady work %s: start-up and wind-down left out)",
			 fmt_duration(j->steady_span, sd));
	fprintf(f, "kgantt job report: %" PRIu32 " %s from %" PRIu32 " %s, %" PRIu32 " %s, span %s%s\n",
		j->n_ranks, plural(j->n_ranks, "rank", "ranks"), j->n_files,
		plural(j->n_files, "trace", "traces"), j->n_hosts,
		plural(j->n_hosts, "host clock", "host clocks"), fmt_duration(j->span, d), steady);
	page_tone_off(f, o->color, PAGE_BOLD);
	if (o->processes)
		fprintf(f, "read by %" PRIu32 " MPI processes of %" PRIu32 " threads each\n",
			o->processes, o->threads);
	int n = snprintf(line, sizeof(line), "%s", j->clock_note);
	if (j->align_samples) {
		char a[32], b[32], c[32];
		snprintf(line + n, sizeof(line) - (size_t)n,
			 "; each collective's ends then lie within %s (median), %s (p99), %s (max) "
			 "over %" PRIu32 " collectives",
			 fmt_duration(j->align_p50, a), fmt_duration(j->align_p99, b),
			 fmt_duration(j->align_max, c), j->align_samples);
	}
	field(f, "clocks", line);
	if (j->n_collectives)
		snprintf(line, sizeof(line),
			 "%" PRIu32 " matched across ranks by what they are (%s); the ranks waited %s "
			 "in all for the last one to join (skews above %s)%s%s",
			 j->n_collectives, job_identity_note(j, (char[200]){0}, 200),
			 fmt_duration(kg_i64_round(j->total_wait_ns), d),
			 fmt_duration(j->cfg.comm_skew_ns, (char[32]){0}),
			 j->coll_note[0] ? "; " : "", j->coll_note);
	else
		snprintf(line, sizeof(line), "none matched on two ranks or more%s%s",
			 j->coll_note[0] ? ": " : "", j->coll_note);
	field(f, "collectives", line);
	if (j->steps_note[0])
		field(f, "steps", j->steps_note);
	for (uint32_t i = 0; i < o->n_unread; i++)
		field(f, i ? "" : "not read", o->unread[i]);
}

struct widths {
	size_t label, host;
};

/* Its exposed communication and the share of it compute ran beside ("-" without). */
static void rank_comm_cells(FILE *f, const struct kg_rank *r)
{
	char b[32], pct[16] = "-";
	if (r->comm_busy > 0)
		snprintf(pct, sizeof(pct), "%.0f%%",
			 100.0 * (double)r->comm_overlapped / (double)r->comm_busy);
	page_cell(f, r->comm_busy > 0 ? ms_text((double)rank_comm_exposed(r), b) : "-", 8, 1);
	page_cell(f, pct, 8, 1);
}

static void rank_row(FILE *f, const struct kg_job *j, uint32_t i, const struct widths *w)
{
	const struct kg_rank *r = &j->ranks[i];
	char b[32], pct[16];
	page_cell(f, r->label, w->label + 1, 0);
	page_cell(f, r->host[0] ? r->host : "-", w->host + 1, 0);
	page_cell(f, ms_text((double)kg_time_diff(r->end, r->begin), b), 9, 1);
	snprintf(pct, sizeof(pct), "%.0f%%", 100 * rank_busy_share(r));
	page_cell(f, pct, 6, 1);
	page_cell(f, ms_text((double)r->compute_time, b), 10, 1);
	page_cell(f, ms_text((double)r->comm_time, b), 9, 1);
	rank_comm_cells(f, r);
	page_cell(f, ms_text((double)r->steady_idle_by_cause[KG_GAP_HOST], b), 8, 1);
	page_cell(f, ms_text((double)r->steady_idle_by_cause[KG_GAP_SYNC], b), 8, 1);
	page_cell(f, ms_text((double)r->steady_idle_by_cause[KG_GAP_LAUNCH], b), 8, 1);
	snprintf(b, sizeof(b), "%" PRIu32, r->late);
	page_cell(f, b, 6, 1);
	page_cell(f, ms_text((double)r->late_ns, b), 9, 1);
	if (r->slowdown > 0)
		snprintf(b, sizeof(b), "%.2fx", r->slowdown);
	else
		snprintf(b, sizeof(b), "-");
	page_cell(f, b, 7, 1);
	fputs("  ", f);
	if (r->n_top && r->top[0].gain_ns > 0)
		fprintf(f, "%s %s", kg_rules[r->top[0].rule].id,
			fmt_duration(kg_i64_round(r->top[0].gain_ns), b));
	else if (r->n_top)
		fputs(kg_rules[r->top[0].rule].id, f);
	else
		fputs("-", f);
	fputc('\n', f);
}

/* The ranks' start-up idle, which the table leaves out: its range and the longest. */
static void startup_line(FILE *f, const struct kg_job *j, const uint32_t *order, uint32_t n)
{
	int64_t lo = INT64_MAX, hi = 0;
	uint32_t longest = KG_NONE;
	for (uint32_t k = 0; k < n; k++) {
		const struct kg_rank *r = &j->ranks[order[k]];
		lo = r->idle_startup < lo ? r->idle_startup : lo;
		if (r->idle_startup > hi)
			hi = r->idle_startup, longest = order[k];
	}
	if (longest == KG_NONE)
		return;
	char a[32], b[32];
	fprintf(f, "  start-up: %s to %s of GPU idle before the steady work began (the longest: "
		   "%s), left out of busy and idle above\n", fmt_duration(lo, a),
		fmt_duration(hi, b), j->ranks[longest].label);
}

static void rank_table(FILE *f, const struct kg_job *j, const struct kg_job_report_opts *o)
{
	uint32_t n, *order = job_rank_order(j, o, &n);
	if (!order)
		return;
	uint32_t shown = o->top && o->top < n ? o->top : n;
	char line[200];
	snprintf(line, sizeof(line), "Ranks (%" PRIu32 " of %" PRIu32 ", by %s%s)", shown,
		 j->n_ranks, rank_sort_name(o->sort),
		 shown < n ? "; --top 0 shows all, --ranks chooses" : "");
	page_heading(f, o->color, "%s", line);
	struct widths w = {4, 4};
	for (uint32_t k = 0; k < shown; k++) {
		const struct kg_rank *r = &j->ranks[order[k]];
		size_t l = text_columns(r->label), h = text_columns(r->host);
		w.label = l > w.label ? (l < 40 ? l : 40) : w.label;
		w.host = h > w.host ? (h < 24 ? h : 24) : w.host;
	}
	fprintf(f, "  %-*s %-*s %9s %6s %10s %9s %8s %8s %8s %8s %8s %6s %9s %7s  %s\n",
		(int)w.label, "rank", (int)w.host, "host", "span ms", "busy", "kernel ms", "comm ms",
		"exp ms", "overlap", "host ms",
		"sync ms", "launch", "last", "late ms", "speed", "top finding");
	for (uint32_t k = 0; k < shown; k++) {
		fputs("  ", f);
		rank_row(f, j, order[k], &w);
	}
	fprintf(f, "  busy: of its steady span (start-up and wind-down left out); idle in its "
		   "steady work: GPU idle waiting for its host (host), in a synchronisation (sync), "
		   "on launch latency (launch); exp: communication with no compute kernel beside it, "
		   "overlap: the share of communication that had; last: collectives it started last; late: how much "
		   "later than the next-to-last rank; speed: its kernels' time over the median "
		   "rank's for the same kernels\n");
	startup_line(f, j, order, shown);
	free(order);
}

static int by_step_delay(const void *pa, const void *pb)
{
	const struct kg_job_step *a = pa, *b = pb;
	return (a->late_ns < b->late_ns) - (a->late_ns > b->late_ns);
}

static void step_table(FILE *f, const struct kg_job *j, const struct kg_job_report_opts *o)
{
	uint32_t with = 0;
	for (uint32_t s = 0; s < j->n_steps; s++)
		with += j->steps[s].last_rank != UINT32_MAX;
	if (!with)
		return;
	struct kg_job_step *v = malloc(j->n_steps * sizeof(*v));
	if (!v)
		return;
	memcpy(v, j->steps, j->n_steps * sizeof(*v));
	qsort(v, j->n_steps, sizeof(*v), by_step_delay);
	char line[160], b[32];
	snprintf(line, sizeof(line), "Stragglers by step (the %u worst of %" PRIu32 " steps with a "
		 "skew)", with < STEPS_SHOWN ? with : STEPS_SHOWN, with);
	page_heading(f, o->color, "%s", line);
	fprintf(f, "  %6s  %-18s %10s %12s %14s  %s\n", "step", "last rank", "skew ms",
		"job delay ms", "peers wait ms", "at collective");
	for (uint32_t k = 0; k < with && k < STEPS_SHOWN; k++) {
		const struct kg_job_step *s = &v[k];
		if (s->last_rank == UINT32_MAX)
			continue;
		fprintf(f, "  %6" PRIu32 "  ", s->step + 1);
		page_cell(f, j->ranks[s->last_rank].label, 18, 0);
		page_cell(f, ms_text((double)s->worst_skew, b), 10, 1);
		page_cell(f, ms_text((double)s->late_ns, b), 13, 1);
		page_cell(f, ms_text(s->wait_ns, b), 15, 1);
		fprintf(f, "  #%" PRIu32 "\n", s->collective + 1);
	}
	free(v);
}

static void findings(FILE *f, const struct kg_job *j, const struct kg_job_report_opts *o)
{
	if (!j->findings.n) {
		page_heading(f, o->color, "Job findings");
		fprintf(f, "  no cross-rank problem found above the thresholds (see kgantt report "
			   "--list-thresholds)\n");
		return;
	}
	char line[120];
	snprintf(line, sizeof(line), "Job findings, ranked by estimated gain (%" PRIu32 ")",
		 j->findings.n);
	page_heading(f, o->color, "%s", line);
	struct kg_finding_place p = {.j = j, .color = o->color};
	for (uint32_t i = 0; i < j->findings.n; i++)
		finding_text(f, &p, &j->findings.v[i], i + 1);
}

/* The ranks the findings name first, then the ranks whose own findings weigh most. */
static uint32_t worst_ranks(const struct kg_job *j, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < j->findings.n && n < max; i++) {
		uint32_t r = j->findings.v[i].rank, seen = 0;
		for (uint32_t k = 0; k < n; k++)
			seen |= out[k] == r;
		if (r != UINT32_MAX && !seen && j->ranks[r].n_top)
			out[n++] = r;
	}
	while (n < max) {
		uint32_t best = UINT32_MAX;
		for (uint32_t i = 0; i < j->n_ranks; i++) {
			uint32_t seen = 0;
			for (uint32_t k = 0; k < n; k++)
				seen |= out[k] == i;
			if (!seen && j->ranks[i].n_top &&
			    (best == UINT32_MAX || j->ranks[i].findings_gain > j->ranks[best].findings_gain))
				best = i;
		}
		if (best == UINT32_MAX)
			break;
		out[n++] = best;
	}
	return n;
}

static void own_findings(FILE *f, const struct kg_job *j, const struct kg_job_report_opts *o)
{
	uint32_t which[WORST_RANKS], n = worst_ranks(j, which, WORST_RANKS);
	if (!n)
		return;
	page_heading(f, o->color, "The worst ranks' own findings (kgantt report TRACE for all of them)");
	for (uint32_t k = 0; k < n; k++) {
		const struct kg_rank *r = &j->ranks[which[k]];
		fprintf(f, "  %s (%s): %" PRIu32 " %s\n", r->label, r->file, r->n_findings,
			plural(r->n_findings, "finding", "findings"));
		for (uint32_t i = 0; i < r->n_top; i++)
			finding_text_brief(f, &r->top[i], i + 1, 4, 0);
	}
}

int job_report_text(FILE *f, const struct kg_job *j, const struct kg_job_report_opts *o)
{
	job_header(f, j, o);
	rank_table(f, j, o);
	step_table(f, j, o);
	findings(f, j, o);
	own_findings(f, j, o);
	return ferror(f) ? -EIO : 0;
}
