/* The job: ranks ordered, their collectives matched and clocks put on one (job_match.c),
 * and the cross-rank rules (job.h).
 *
 * A collective cannot end before the last rank has joined it, so the ranks that start it
 * early wait inside it: the last rank to start is the one the others wait for. */
#include "job/job.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/format.h"
#include "util/idmap.h"
#include "util/timemath.h"

#define MAX_RANK_FINDINGS 8   /* findings of one rule naming single ranks */

static double ms(double ns)
{
	return ns / 1e6;
}

/* Shares of the job's steady span: a job that spent seconds importing and loading
 * before its steps does not make its steps' problems small. */
static int worth(const struct kg_job *j, double gain)
{
	return finding_worth(&j->cfg, j->steady_span, gain);
}

/* A new finding of a job rule about rank (KG_NONE: none); NULL when out of memory. */
static struct kg_finding *add_finding(struct kg_job *j, enum kg_rule_id rule, uint32_t rank)
{
	struct kg_finding *f = findings_add(&j->findings, rule);
	if (f)
		f->rank = rank;
	return f;
}

/* An evidence line of a job finding: text only. */
#define evidence(f, ...) finding_evidence(f, KG_NO_TIME, KG_NO_TIME, KG_NONE, KG_NONE, __VA_ARGS__)

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

/* ------------------------------------------------------------------ order */

/* A rank string that is a number, else -1. */
static long long rank_number(const char *s)
{
	char *end;
	if (!*s)
		return -1;
	long long v = strtoll(s, &end, 10);
	return *end || v < 0 ? -1 : v;
}

static int by_rank(const void *pa, const void *pb)
{
	const struct kg_rank *a = pa, *b = pb;
	long long ra = rank_number(a->rank), rb = rank_number(b->rank);
	if ((ra < 0) != (rb < 0))
		return ra < 0 ? 1 : -1;
	if (ra != rb)
		return ra < rb ? -1 : 1;
	int c = strcmp(a->file, b->file);
	if (c)
		return c;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->ordinal > b->ordinal) - (a->ordinal < b->ordinal);
}

uint32_t job_rank_number(const struct kg_job *j, uint32_t i)
{
	long long v = rank_number(j->ranks[i].rank);
	return v >= 0 && v < UINT32_MAX ? (uint32_t)v : i;
}

/* ------------------------------------------------------------------ stragglers */

static int64_t part_start(const struct kg_job *j, const struct kg_job_part *p)
{
	const struct kg_rank *r = &j->ranks[p->rank];
	return kg_time_add(r->coll[p->coll].start, r->shift);
}

static uint32_t max_steps(const struct kg_job *j)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		if (j->ranks[i].n_steps > n)
			n = j->ranks[i].n_steps;
	return n;
}

/* Of a rank's time in collective part p, the exposed part (no compute beside it) spent
 * waiting for the last rank, which started at last: the straggler's cost, not exposed
 * communication's. The wait is the kernel's first stretch. The summary keeps the kernel's
 * exposed lead (its first stretch with nothing beside it: a wait that ends there is all
 * exposed) and each eighth's exposed share: past the lead, the wait's exposed part is
 * exact over whole eighths and spread evenly within the eighth where the wait ends, the
 * eighths' part past the lead scaled to the exposed time past it (their 255ths round).
 * One trace computes it exactly (analysis/comm_wait.c); here that would take the compute
 * intervals inside every collective into the summaries, several times the collectives'
 * own size (docs/rules.md). */
static double eighths_before(const struct kg_rank_collective *c, double at)
{
	double t = 0; /* at: in eighths of the kernel */
	for (int k = 0; k < 8; k++)
		t += c->exposed_eighths[k] / 255.0 * (at >= k + 1 ? 1 : at > k ? at - k : 0);
	return t;
}

static void exposed_wait(struct kg_job *j, const struct kg_job_part *p, int64_t last)
{
	struct kg_rank *r = &j->ranks[p->rank];
	const struct kg_rank_collective *c = &r->coll[p->coll];
	double dur = (double)kg_time_diff(c->end, c->start);
	double w = (double)kg_time_diff(last, kg_time_add(c->start, r->shift));
	double exposed = (double)c->exposed;
	if (dur <= 0 || w <= 0 || exposed <= 0)
		return;
	if (w > dur)
		w = dur;
	double lead = dur * c->exposed_lead / 65535.0;
	if (lead > exposed)
		lead = exposed;
	if (w <= lead) {
		r->comm_wait_exposed += w;
		return;
	}
	double from = eighths_before(c, 8 * lead / dur), rest = eighths_before(c, 8) - from;
	double past = rest > 0 ? (eighths_before(c, 8 * w / dur) - from) / rest /* the 255ths */
			       : (w - lead) / (dur - lead);                   /* rounded away */
	r->comm_wait_exposed += lead + (exposed - lead) * past;
}

/* The job's collective k: the last of its ranks to start, and what the others waited
 * (coll_arrivals, as the straggler rule of one trace counts it); starts: room for its
 * parts. */
static void one_collective(struct kg_job *j, uint32_t k, int64_t *starts)
{
	const struct kg_job_coll *c = &j->colls[k];
	const struct kg_job_part *p = &j->parts[c->first];
	if (!c->n)
		return;
	for (uint32_t a = 0; a < c->n; a++)
		starts[a] = part_start(j, &p[a]);
	struct kg_arrivals ar;
	coll_arrivals(starts, c->n, &ar);
	int64_t skew = kg_time_diff(ar.last, ar.first);
	if (ar.second == INT64_MIN || skew < j->cfg.comm_skew_ns)
		return;
	for (uint32_t a = 0; a < c->n; a++)
		exposed_wait(j, &p[a], ar.last);
	uint32_t who = p[ar.last_part].rank;
	struct kg_rank *late = &j->ranks[who];
	int64_t lateness = kg_time_diff(ar.last, ar.second);
	late->late++;
	late->late_ns = kg_time_add(late->late_ns, lateness);
	late->wait_caused_ns += ar.wait;
	j->total_wait_ns += ar.wait;
	if (c->step >= j->n_steps)
		return;
	struct kg_job_step *st = &j->steps[c->step];
	st->late_ns = kg_time_add(st->late_ns, lateness);
	st->wait_ns += ar.wait;
	if (skew > st->worst_skew) {
		st->worst_skew = skew;
		st->last_rank = who;
		st->collective = k;
		st->name_hash = c->name_hash;
	}
}

/* A kernel name short enough for an evidence line: without its parameter list, and its
 * middle cut when still too long (names of one family differ at their ends). */
static const char *short_name(const char *name, char *buf, size_t len)
{
	size_t n = 0; /* up to the parameter list: the first '(' not of "(anonymous namespace)" */
	while (name[n] && (name[n] != '(' || !strncmp(name + n, "(anonymous namespace)", 21)))
		n += name[n] == '(' ? 21 : 1;
	if (n == 0)
		n = strlen(name);
	if (n < len) {
		snprintf(buf, len, "%.*s", (int)n, name);
		return buf;
	}
	size_t keep = (len - 4) / 2;
	snprintf(buf, len, "%.*s…%.*s", (int)keep, name, (int)(len - 4 - keep - 1),
		 name + n - (len - 4 - keep - 1));
	return buf;
}

/* A collective of the job for the report: what it is, and its kernel's name on the first
 * rank of it that kept the name. */
static const char *coll_name(const struct kg_job *j, uint32_t k, char *buf, size_t len)
{
	const struct kg_job_coll *c = &j->colls[k];
	const struct kg_job_part *p = &j->parts[c->first];
	for (uint32_t a = 0; a < c->n; a++) {
		const struct kg_rank *r = &j->ranks[p[a].rank];
		for (uint32_t i = 0; i < r->n_kernel; i++)
			if (r->kernel[i].hash == c->name_hash) {
				char nm[96];
				snprintf(buf, len, "%s: %s", comm_kind_name((enum kg_comm_kind)c->kind),
					 short_name(rank_name(r, &r->kernel[i]), nm, sizeof(nm)));
				return buf;
			}
	}
	return comm_kind_name((enum kg_comm_kind)c->kind);
}

static int by_late_desc(const void *pa, const void *pb, void *arg)
{
	const struct kg_job *j = arg;
	const struct kg_rank *a = &j->ranks[*(const uint32_t *)pa],
			     *b = &j->ranks[*(const uint32_t *)pb];
	return (a->late_ns < b->late_ns) - (a->late_ns > b->late_ns);
}

/* Medians over the ranks of compute time and idle by cause, to say what sets the late
 * rank apart. */
static int64_t median_of(const struct kg_job *j, int64_t (*get)(const struct kg_rank *))
{
	int64_t *v = malloc((j->n_ranks + 1) * sizeof(*v));
	if (!v)
		return 0;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		v[i] = get(&j->ranks[i]);
	qsort(v, j->n_ranks, sizeof(*v), cmp_i64);
	int64_t m = v[(j->n_ranks - 1) / 2];
	free(v);
	return m;
}

static int64_t get_compute(const struct kg_rank *r) { return r->compute_time; }
/* idle in the steady work: a rank's longer start-up is not a host stalling its steps */
static int64_t get_host(const struct kg_rank *r) { return r->steady_idle_by_cause[KG_GAP_HOST]; }
static int64_t get_sync(const struct kg_rank *r) { return r->steady_idle_by_cause[KG_GAP_SYNC]; }

/* The median rank's figures that a late rank is compared with, taken once per job. */
struct medians {
	int64_t compute, host, sync;
};

static void straggler_cause(const struct kg_job *j, const struct kg_rank *r,
			    const struct medians *md, struct kg_finding *f)
{
	int64_t mc = md->compute, mh = md->host, msy = md->sync;
	if (r->slowdown >= j->cfg.slow_rank_ratio)
		evidence(f, "its kernels run %.2fx as long as the same kernels on the median rank "
			 "(job-slow-rank)", r->slowdown);
	if ((double)r->compute_time > 1.02 * (double)mc)
		evidence(f, "its kernel time: %.2f ms, the median rank's %.2f ms (%+.2f ms)",
			 ms((double)r->compute_time), ms((double)mc),
			 ms((double)(r->compute_time - mc)));
	int64_t host = get_host(r), sync = get_sync(r);
	if ((double)host > 1.5 * (double)mh + 100e3)
		evidence(f, "its GPU waits for its host %.2f ms, the median rank's %.2f ms: the host "
			 "launches late (data loading, Python, a stall)",
			 ms((double)host), ms((double)mh));
	if ((double)sync > 1.5 * (double)msy + 100e3)
		evidence(f, "its host is blocked in synchronising calls %.2f ms, the median rank's "
			 "%.2f ms", ms((double)sync), ms((double)msy));
}

static void straggler_finding(struct kg_job *j, uint32_t i, const struct medians *md)
{
	struct kg_rank *r = &j->ranks[i];
	char d1[32], d2[32];
	struct kg_finding *f = add_finding(j, KG_RULE_JOB_STRAGGLER, i);
	if (!f)
		return;
	uint32_t others = 0;
	for (uint32_t k = 0; k < j->n_ranks; k++)
		others += k != i && j->ranks[k].joined;
	finding_set(&f->title, "%s arrives last at %u of the %u collectives it joined: the job waits %s "
		 "for it, its %u %s %s in all",
		 r->label, r->late, r->joined, fmt_duration(r->late_ns, d1), others,
		 others == 1 ? "peer" : "peers", fmt_duration(kg_i64_round(r->wait_caused_ns), d2));
	finding_set(&f->explanation, "A collective cannot finish before every rank has joined it: the ranks that "
		 "start it early wait inside the communication kernel for %s, and that wait "
		 "looks like communication time on every other rank.",
		 r->label);
	finding_set(&f->fix, "Find what delays %s before its collectives (below: slower kernels, more work, "
		 "host stalls such as data loading or synchronisation, a shared or throttled "
		 "GPU) and remove it; or overlap the work before the collective so its skew "
		 "is hidden.",
		 r->label);
	f->gain_ns = (double)r->late_ns;
	finding_set(&f->gain_how, "sum over the collectives it started last (skew above %.0f µs) of how much later "
		 "it started than the next-to-last rank: the job's wall-clock delay",
		 (double)j->cfg.comm_skew_ns / 1e3);
	straggler_cause(j, r, md, f);
	/* the steps where it was last, the first few */
	uint32_t steps = 0, shown = 0;
	for (uint32_t s = 0; s < j->n_steps; s++) {
		const struct kg_job_step *st = &j->steps[s];
		if (st->last_rank != i)
			continue;
		steps++;
		if (shown < 3 && f->n_evidence < KG_MAX_EVIDENCE - 1) {
			char nm[128];
			evidence(f, "step %u: last at collective #%u (%s) by %.2f ms", s + 1,
				 st->collective + 1, coll_name(j, st->collective, nm, sizeof(nm)),
				 ms((double)st->worst_skew));
			shown++;
		}
	}
	if (steps > shown)
		evidence(f, "... last in %u of %u steps in all (the step table lists them)", steps,
			 j->n_steps);
	finding_set(&f->figures, "late_collectives=%u, collectives=%u, late_ms=%.3f, peer_wait_ms=%.3f", r->late,
		 r->joined, ms((double)r->late_ns), ms(r->wait_caused_ns));
}

/* A rank's own exposed-communication finding counted its wait for late ranks, which
 * job-straggler counts: its gain becomes what overlap could hide of the rest, the
 * communication after the last rank arrived (min(exposed - wait, compute not beside
 * communication), as the rule takes it), and the finding goes when the rest is below the
 * rule's threshold. */
static void exposed_less_wait(const struct kg_job *j, struct kg_rank *r)
{
	double exposed = (double)rank_comm_exposed(r) - r->comm_wait_exposed;
	double gain = comm_hideable((double)rank_comm_exposed(r), r->comm_wait_exposed,
				    (double)kg_time_span(r->compute_busy, r->comm_overlapped));
	for (uint32_t t = 0; t < r->n_top; t++) {
		struct kg_finding *f = &r->top[t];
		if (f->rule != KG_RULE_EXPOSED_COMMUNICATION || f->gain_ns <= 0)
			continue;
		/* the share and threshold are of the rank's trace's steady span, as before */
		double span = f->gain_pct > 0 ? f->gain_ns * 100 / f->gain_pct
					       : (double)rank_steady_span(r);
		rank_add_findings_gain(r, gain - f->gain_ns);
		f->gain_ns = gain;
		f->gain_pct = span > 0 ? 100 * gain / span : 0;
		f->severity = severity_of_share(&j->cfg, f->gain_pct);
		if (exposed < j->cfg.exposed_comm_pct / 100 * span ||
		    !finding_worth(&j->cfg, kg_i64_round(span), gain)) {
			finding_free(f);
			memmove(f, f + 1, (r->n_top - t - 1) * sizeof(*f));
			r->n_top--, r->n_findings--;
			return;
		}
		/* a smaller gain moves down among the others, by gain as before */
		for (uint32_t k = t; k + 1 < r->n_top && r->top[k + 1].gain_ns > r->top[k].gain_ns; k++) {
			struct kg_finding x = r->top[k];
			r->top[k] = r->top[k + 1];
			r->top[k + 1] = x;
		}
		return; /* a trace has one such finding per GPU */
	}
}

int job_rule_stragglers(struct kg_job *j)
{
	if (!j->n_collectives)
		return 0;
	j->n_steps = max_steps(j);
	j->steps = calloc(j->n_steps ? j->n_steps : 1, sizeof(*j->steps));
	uint32_t *order = malloc(j->n_ranks * sizeof(*order));
	uint32_t most = 1; /* parts of a collective */
	for (uint32_t k = 0; k < j->n_collectives; k++)
		most = j->colls[k].n > most ? j->colls[k].n : most;
	int64_t *starts = malloc(most * sizeof(*starts));
	if (!j->steps || !order || !starts) {
		free(order);
		free(starts);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < j->n_steps; s++)
		j->steps[s] = (struct kg_job_step){.step = s, .last_rank = UINT32_MAX};
	for (uint32_t k = 0; k < j->n_collectives; k++)
		one_collective(j, k, starts);
	free(starts);
	for (uint32_t i = 0; i < j->n_ranks; i++)
		if (j->ranks[i].comm_wait_exposed > 0)
			exposed_less_wait(j, &j->ranks[i]);
	for (uint32_t i = 0; i < j->n_ranks; i++)
		order[i] = i;
	qsort_r(order, j->n_ranks, sizeof(*order), by_late_desc, j);
	const struct medians md = {median_of(j, get_compute), median_of(j, get_host),
				   median_of(j, get_sync)};
	for (uint32_t n = 0, i = 0; i < j->n_ranks && n < MAX_RANK_FINDINGS; i++) {
		const struct kg_rank *r = &j->ranks[order[i]];
		if (!r->late || !worth(j, (double)r->late_ns))
			break;
		straggler_finding(j, order[i], &md);
		n++;
	}
	free(order);
	return 0;
}

/* ------------------------------------------------------------------ speed and work */

struct name_p50 {
	uint32_t name; /* index in the job's name table */
	int64_t p50;
};

static int by_name_p50(const void *pa, const void *pb)
{
	const struct name_p50 *a = pa, *b = pb;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return (a->p50 > b->p50) - (a->p50 < b->p50);
}

/* For each compute kernel name (by hash), the median over the ranks that ran it of their
 * p50, and how many ranks ran it. */
struct name_table {
	struct kg_idmap ids;
	int64_t *median;
	uint32_t *ranks;
	uint32_t n;
};

static int name_table_build(const struct kg_job *j, struct name_table *t)
{
	size_t total = 0, n = 0;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		total += j->ranks[i].n_kernel;
	struct name_p50 *v = malloc((total + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < j->n_ranks; i++) {
		const struct kg_rank *r = &j->ranks[i];
		for (uint32_t k = 0; k + r->n_comm_names < r->n_kernel; k++) {
			uint32_t *slot = idmap_slot(&t->ids, r->kernel[k].hash);
			if (!slot) {
				free(v);
				return -ENOMEM;
			}
			if (*slot == KG_IDMAP_NONE)
				*slot = t->n++;
			v[n++] = (struct name_p50){*slot, r->kernel[k].p50};
		}
	}
	qsort(v, n, sizeof(*v), by_name_p50);
	t->median = calloc(t->n + 1, sizeof(*t->median));
	t->ranks = calloc(t->n + 1, sizeof(*t->ranks));
	if (!t->median || !t->ranks) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && v[e].name == v[i].name)
			e++;
		/* the lower median: of two ranks, the faster one is the reference */
		t->median[v[i].name] = v[i + (e - i - 1) / 2].p50;
		t->ranks[v[i].name] = (uint32_t)(e - i);
		i = e;
	}
	free(v);
	return 0;
}

static void name_table_free(struct name_table *t)
{
	idmap_free(&t->ids);
	free(t->median);
	free(t->ranks);
}

/* A rank's speed against the median rank over the names most ranks ran: the time of its
 * kernels at its own p50 over the same count at the median's p50. Trusted only over
 * three names or more whose median ratio agrees: with one name, longer kernels are as
 * likely more data (imbalance) as a slower GPU. */
static void rank_speed(struct kg_job *j, const struct name_table *t, uint32_t ranks_with)
{
	for (uint32_t i = 0; i < j->n_ranks; i++) {
		struct kg_rank *r = &j->ranks[i];
		double own = 0, med = 0, ratios[KG_JOB_KERNELS];
		int n = 0;
		for (uint32_t k = 0; k + r->n_comm_names < r->n_kernel; k++) {
			const struct kg_rank_kernel *kk = &r->kernel[k];
			uint32_t id = idmap_get(&t->ids, kk->hash);
			if (id == KG_IDMAP_NONE || t->ranks[id] < 2 ||
			    2 * t->ranks[id] < ranks_with || t->median[id] <= 0)
				continue;
			own += (double)kk->count * (double)kk->p50;
			med += (double)kk->count * (double)t->median[id];
			if (n < KG_JOB_KERNELS)
				ratios[n++] = (double)kk->p50 / (double)t->median[id];
		}
		r->slowdown = 0;
		r->work_ns = (double)r->compute_time;
		if (n < 3 || med <= 0)
			continue;
		qsort(ratios, (size_t)n, sizeof(*ratios), cmp_double);
		double s = own / med;
		if (ratios[n / 2] < j->cfg.slow_rank_ratio && s >= j->cfg.slow_rank_ratio)
			s = ratios[n / 2]; /* one name's outlier is not a slow GPU */
		r->slowdown = s;
		if (s >= j->cfg.slow_rank_ratio)
			r->work_ns = (double)r->compute_time / s;
	}
}

static void slow_finding(struct kg_job *j, uint32_t i, const struct name_table *t)
{
	struct kg_rank *r = &j->ranks[i];
	struct kg_finding *f = add_finding(j, KG_RULE_JOB_SLOW_RANK, i);
	if (!f)
		return;
	finding_set(&f->title, "%s runs the same kernels %.2fx as long as the median rank (%.2f ms of kernel "
		 "time instead of %.2f ms)",
		 r->label, r->slowdown, ms((double)r->compute_time), ms(r->work_ns));
	finding_set(&f->explanation, "The same kernels, launched the same number of times, take longer on %s's GPU "
		 "than on the others: the GPU itself is slower (lower clocks: power or thermal "
		 "throttling, a degraded or different part, ECC/NVLink errors) or shared with "
		 "another process. Every collective then waits for it.",
		 r->label);
	finding_set(&f->fix, "Check %s's GPU (%s on %s): nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE "
		 "for throttle reasons, other processes on it (nvidia-smi, MPS, MIG), its PCIe/"
		 "NVLink links; record it with --hw to see its SM clock. Drain or replace the "
		 "node if it stays slow.",
		 r->label, r->gpu[0] ? r->gpu : "?", r->host[0] ? r->host : "?");
	f->gain_ns = (double)r->compute_time - r->work_ns;
	finding_set(&f->gain_how, "its kernel time minus the same kernels at the median rank's speed; the others "
		 "wait that long at the collectives");
	uint32_t shown = 0;
	for (uint32_t k = 0; k + r->n_comm_names < r->n_kernel && shown < 5; k++) {
		const struct kg_rank_kernel *kk = &r->kernel[k];
		uint32_t id = idmap_get(&t->ids, kk->hash);
		if (id == KG_IDMAP_NONE || t->median[id] <= 0 || t->ranks[id] < 2)
			continue;
		char nm[64];
		evidence(f, "%s: %u runs, p50 %.1f µs here, %.1f µs on the median rank (%.2fx)",
			 short_name(rank_name(r, kk), nm, sizeof(nm)), kk->count, (double)kk->p50 / 1e3,
			 (double)t->median[id] / 1e3, (double)kk->p50 / (double)t->median[id]);
		shown++;
	}
	finding_set(&f->figures, "slowdown=%.3f, kernel_ms=%.3f, at_median_ms=%.3f",
		 r->slowdown, ms((double)r->compute_time), ms(r->work_ns));
}

static int by_gain_index(const void *pa, const void *pb, void *arg)
{
	const struct kg_job *j = arg;
	const struct kg_rank *a = &j->ranks[*(const uint32_t *)pa],
			     *b = &j->ranks[*(const uint32_t *)pb];
	double ga = (double)a->compute_time - a->work_ns, gb = (double)b->compute_time - b->work_ns;
	return (ga < gb) - (ga > gb);
}

int job_rule_slow_ranks(struct kg_job *j)
{
	struct name_table t = {0};
	uint32_t with = 0;
	for (uint32_t i = 0; i < j->n_ranks; i++)
		with += j->ranks[i].kernels > 0;
	uint32_t *order = malloc((j->n_ranks + 1) * sizeof(*order));
	int rc = order ? name_table_build(j, &t) : -ENOMEM;
	if (rc == 0) {
		rank_speed(j, &t, with);
		for (uint32_t i = 0; i < j->n_ranks; i++)
			order[i] = i;
		qsort_r(order, j->n_ranks, sizeof(*order), by_gain_index, j);
		for (uint32_t n = 0, i = 0; i < j->n_ranks && n < MAX_RANK_FINDINGS; i++) {
			const struct kg_rank *r = &j->ranks[order[i]];
			if (r->slowdown < j->cfg.slow_rank_ratio ||
			    !worth(j, (double)r->compute_time - r->work_ns))
				continue;
			slow_finding(j, order[i], &t);
			n++;
		}
	}
	name_table_free(&t);
	free(order);
	return rc;
}

/* More work than the others: kernel time at the median speed, busiest against the least
 * busy rank (as the single-trace gpu-imbalance rule compares GPUs). */
int job_rule_imbalance(struct kg_job *j)
{
	double max = -1, min = -1, sum = 0;
	uint32_t imax = 0, imin = 0, used = 0;
	for (uint32_t i = 0; i < j->n_ranks; i++) {
		const struct kg_rank *r = &j->ranks[i];
		if (!r->kernels)
			continue;
		used++;
		sum += r->work_ns;
		if (max < 0 || r->work_ns > max)
			max = r->work_ns, imax = i;
		if (min < 0 || r->work_ns < min)
			min = r->work_ns, imin = i;
	}
	if (used < 2 || min <= 0 || max / min < j->cfg.imbalance_ratio ||
	    !worth(j, max - sum / used))
		return 0;
	const struct kg_rank *rmax = &j->ranks[imax], *rmin = &j->ranks[imin];
	struct kg_finding *f = add_finding(j, KG_RULE_JOB_IMBALANCE, imax);
	if (!f)
		return -ENOMEM;
	finding_set(&f->title, "work is unbalanced across ranks: %s computes %.1f ms, %s only %.1f ms (%.2fx; "
		 "mean %.1f ms)",
		 rmax->label, ms(max), rmin->label, ms(min), max / min, ms(sum / used));
	finding_set(&f->explanation, "The ranks do not get the same amount of work (counted at the same speed, so a "
		 "slower GPU is not mistaken for more work): the busiest decides when each step "
		 "ends and the others wait for it at the next collective.");
	finding_set(&f->fix, "Split the work evenly: the same batch per rank (DistributedSampler, drop_last, "
		 "sequence-length bucketing), each rank on its own device, balanced pipeline "
		 "stages or expert placement.");
	f->gain_ns = max - sum / used;
	finding_set(&f->gain_how, "busiest rank's kernel time minus the mean over %u ranks", used);
	uint32_t shown = 0;
	for (uint32_t i = 0; i < j->n_ranks && shown < KG_MAX_EVIDENCE - 1; i++) {
		const struct kg_rank *r = &j->ranks[i];
		if (r->kernels && r->work_ns >= (sum / used) * j->cfg.imbalance_ratio && i != imax) {
			evidence(f, "%s: %.1f ms (%u kernels)", r->label, ms(r->work_ns), r->kernels);
			shown++;
		}
	}
	evidence(f, "%s: %.1f ms (%u kernels); %s: %.1f ms (%u kernels)", rmax->label, ms(max),
		 rmax->kernels, rmin->label, ms(min), rmin->kernels);
	finding_set(&f->figures, "max_ms=%.3f, min_ms=%.3f, mean_ms=%.3f, ratio=%.2f",
		 ms(max), ms(min), ms(sum / used), max / min);
	return 0;
}

/* ------------------------------------------------------------------ kernel counts */

/* The value most of sorted v's n entries hold (the smallest of those tied), and how many
 * hold it. */
static uint32_t mode_of(const uint32_t *v, uint32_t n, uint32_t *count)
{
	uint32_t best = 0, best_n = 0;
	for (uint32_t i = 0; i < n;) {
		uint32_t e = i;
		while (e < n && v[e] == v[i])
			e++;
		if (e - i > best_n)
			best_n = e - i, best = v[i];
		i = e;
	}
	*count = best_n;
	return best;
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return (a > b) - (a < b);
}

/* The options of kgantt report that show a rank's step s (UINT32_MAX: its steps): its
 * ranges, or, for steps detected by the rhythm of the launches (no range to name), the
 * step by its number, found the same way in the rank's trace alone. */
static void look_at_step(const struct kg_rank *r, uint32_t s, char *buf, size_t len)
{
	if (r->steps_source == KG_STEPS_RHYTHM && s != UINT32_MAX)
		snprintf(buf, len, "--rhythm --steps %u", s + 1);
	else if (r->steps_source == KG_STEPS_RHYTHM)
		snprintf(buf, len, "--rhythm --list-steps");
	else
		snprintf(buf, len, "--nvtx %s", r->step_name[0] ? r->step_name : "step");
}

/* Per common step (or, without steps, the whole trace), the kernel count most ranks
 * have; the ranks that differ. */
int job_rule_kernel_count(struct kg_job *j)
{
	uint32_t nsteps = UINT32_MAX, with = 0;
	for (uint32_t i = 0; i < j->n_ranks; i++) {
		const struct kg_rank *r = &j->ranks[i];
		if (!r->kernels)
			continue;
		with++;
		if (r->n_steps < nsteps)
			nsteps = r->n_steps;
	}
	if (with < 2)
		return 0;
	int by_step = nsteps != UINT32_MAX && nsteps > 0;
	uint32_t rounds = by_step ? nsteps : 1;
	uint32_t *v = malloc(with * sizeof(*v)), *sorted = malloc(with * sizeof(*v));
	uint32_t *odd = calloc(j->n_ranks, sizeof(*odd)), *odd_step = calloc(j->n_ranks, sizeof(*odd));
	uint32_t *odd_mode = calloc(j->n_ranks, sizeof(*odd));
	int rc = v && sorted && odd && odd_step && odd_mode ? 0 : -ENOMEM;
	uint32_t n_odd = 0, first_mode_n = 0, first_mode_rank = 0;
	for (uint32_t s = 0; !rc && s < rounds; s++) {
		uint32_t n = 0;
		for (uint32_t i = 0; i < j->n_ranks; i++)
			if (j->ranks[i].kernels)
				v[n++] = by_step ? j->ranks[i].steps[s].kernels : j->ranks[i].kernels;
		memcpy(sorted, v, n * sizeof(*v));
		qsort(sorted, n, sizeof(*sorted), cmp_u32);
		uint32_t mode_n, mode = mode_of(sorted, n, &mode_n), holder = 0;
		for (uint32_t i = 0, x = 0; i < j->n_ranks; i++)
			if (j->ranks[i].kernels && v[x++] == mode) {
				holder = i; /* a rank that ran the usual count: named when no majority */
				break;
			}
		for (uint32_t i = 0, x = 0; i < j->n_ranks; i++) {
			if (!j->ranks[i].kernels || v[x++] == mode)
				continue;
			if (!odd[i]++) {
				if (!n_odd)
					first_mode_n = mode_n, first_mode_rank = holder;
				n_odd++;
				odd_step[i] = s;
				odd_mode[i] = mode;
			}
		}
	}
	if (!rc && n_odd && n_odd * 2 <= with) {
		uint32_t first = 0;
		while (!odd[first])
			first++;
		const struct kg_rank *r = &j->ranks[first];
		uint32_t had = by_step ? r->steps[odd_step[first]].kernels : r->kernels;
		struct kg_finding *f = add_finding(j, KG_RULE_JOB_KERNEL_COUNT, first);
		/* two ranks, or ranks split evenly: no count is the usual one, so none is named
		 * the odd one out */
		int majority = first_mode_n * 2 > with;
		char others[96];
		if (majority)
			snprintf(others, sizeof(others), "most ranks");
		else if (first_mode_n > 1)
			snprintf(others, sizeof(others), "%s and %u more", j->ranks[first_mode_rank].label,
				 first_mode_n - 1);
		else
			snprintf(others, sizeof(others), "%s", j->ranks[first_mode_rank].label);
		if (f) {
			f->severity = KG_SEV_WARNING;
			char in_step[48] = ""; /* by step: " kernels in step 3" */
			const char *per_step = by_step ? " per step" : "";
			if (by_step)
				snprintf(in_step, sizeof(in_step), " kernels in step %u", odd_step[first] + 1);
			if (majority)
				finding_set(&f->title, "%u of %u ranks launch a different number of kernels%s: "
					 "%s ran %u%s where most ranks ran %u",
					 n_odd, with, per_step, r->label, had, in_step, odd_mode[first]);
			else
				finding_set(&f->title, "the ranks launch different numbers of kernels%s: %s ran "
					 "%u%s, %s %u",
					 per_step, r->label, had, in_step, others, odd_mode[first]);
			finding_set(&f->explanation, "Ranks of a data-parallel job run the same program on the same "
				 "shapes: a different kernel count means another code path on "
				 "that rank (data-dependent branches, a different batch shape, "
				 "recompilation, extra logging or checkpointing work), which "
				 "usually makes it late at the next collective.");
			char look[64];
			look_at_step(r, by_step ? odd_step[first] : UINT32_MAX, look, sizeof(look));
			finding_set(&f->fix, "Look at what %s runs in that step that the others do not "
				 "(kgantt report %s %s); make shapes and code paths "
				 "the same on every rank.",
				 r->label, r->file, look);
			finding_set(&f->gain_how, "not estimated");
			for (uint32_t i = 0; i < j->n_ranks; i++)
				if (odd[i]) {
					const struct kg_rank *q = &j->ranks[i];
					if (by_step)
						evidence(f, "%s: %u of %u steps differ; first: step %u, "
							 "%u kernels (%s: %u)",
							 q->label, odd[i], rounds, odd_step[i] + 1,
							 q->steps[odd_step[i]].kernels, others,
							 odd_mode[i]);
					else
						evidence(f, "%s: %u kernels (%s: %u)", q->label, q->kernels,
							 others, odd_mode[i]);
				}
			finding_set(&f->figures, "ranks_differing=%u, ranks=%u, steps=%u",
				 n_odd, with, by_step ? rounds : 0);
		}
	}
	free(v);
	free(sorted);
	free(odd);
	free(odd_step);
	free(odd_mode);
	return rc;
}

/* ------------------------------------------------------------------ the job */

/* The job's span, and its steady part: from the first rank's steady work to the last's. */
static void job_span(struct kg_job *j)
{
	j->begin = j->steady_begin = INT64_MAX;
	j->end = j->steady_end = INT64_MIN;
	for (uint32_t i = 0; i < j->n_ranks; i++) {
		const struct kg_rank *r = &j->ranks[i];
		if (r->begin == KG_NO_TIME || r->end == KG_NO_TIME)
			continue;
		int64_t b = kg_time_add(r->begin, r->shift), e = kg_time_add(r->end, r->shift);
		int64_t sb, se;
		rank_steady_bounds(r, &sb, &se);
		sb = kg_time_add(sb, r->shift);
		se = kg_time_add(se, r->shift);
		j->begin = b < j->begin ? b : j->begin;
		j->end = e > j->end ? e : j->end;
		j->steady_begin = sb < j->steady_begin ? sb : j->steady_begin;
		j->steady_end = se > j->steady_end ? se : j->steady_end;
	}
	if (j->begin > j->end)
		j->begin = j->end = 0;
	if (j->steady_begin > j->steady_end)
		j->steady_begin = j->begin, j->steady_end = j->end;
	j->span = kg_time_diff(j->end, j->begin);
	j->steady_span = kg_time_diff(j->steady_end, j->steady_begin);
}

/* When some ranks' steps were detected from the rhythm of their launches (their traces
 * name no step), the report says so: the per-step findings then rest on a detection that
 * began at each rank's first step, which the reader may want to check (--list-steps). */
static void steps_note(struct kg_job *j)
{
	uint32_t detected = 0, ranges = 0;
	const char *name = "";
	for (uint32_t i = 0; i < j->n_ranks; i++) {
		const struct kg_rank *r = &j->ranks[i];
		if (r->n_steps && r->steps_source == KG_STEPS_RHYTHM)
			detected++;
		else if (r->n_steps && !ranges++)
			name = r->step_name;
	}
	j->steps_note[0] = 0;
	if (!detected)
		return;
	size_t len = sizeof(j->steps_note);
	int n = snprintf(j->steps_note, len, "ranks aligned by steps detected from the rhythm of "
			 "their launches (no step annotation): %u of %u %s, every step from the "
			 "first, warm-up included", detected, j->n_ranks,
			 j->n_ranks == 1 ? "rank" : "ranks");
	if (ranges && n > 0 && (size_t)n < len)
		n += snprintf(j->steps_note + n, len - (size_t)n, "; %u by their '%s' ranges",
			      ranges, name);
	if (detected + ranges < j->n_ranks && n > 0 && (size_t)n < len)
		snprintf(j->steps_note + n, len - (size_t)n, "; %u without steps",
			 j->n_ranks - detected - ranges);
}

int job_analyse(struct kg_job *j)
{
	if (!j->n_ranks)
		return 0;
	qsort(j->ranks, j->n_ranks, sizeof(*j->ranks), by_rank);
	int rc = job_match(j);
	if (rc)
		return rc;
	job_span(j);
	steps_note(j);
	if (j->span > KG_JOB_MAX_NS)
		return -ERANGE;
	/* the job rules, in KG_RULES' order */
#define KG_RULE_RUN_JOB(runner) if (!rc) rc = runner(j);
#define KG_RULE_RUN_TRACE(runner)
#define KG_RULE_RUN_(id, name, scope, runner, what) KG_RULE_RUN_##scope(runner)
	KG_RULES(KG_RULE_RUN_)
#undef KG_RULE_RUN_
#undef KG_RULE_RUN_TRACE
#undef KG_RULE_RUN_JOB
	if (!rc)
		findings_rank(&j->findings, &j->cfg, j->steady_span);
	return rc;
}

const char *job_shown_note(const struct kg_job *j, char *buf, size_t len)
{
	buf[0] = 0;
	if (j->steady_span != j->span)
		snprintf(buf, len, " (shown: its steady work, %.2f ms, without the ranks' start-up "
			 "and wind-down)", (double)j->steady_span / 1e6);
	return buf;
}

void job_free(struct kg_job *j)
{
	for (uint32_t i = 0; i < j->n_ranks; i++)
		rank_free(&j->ranks[i]);
	free(j->ranks);
	free(j->colls);
	free(j->parts);
	free(j->steps);
	findings_free(&j->findings);
	memset(j, 0, sizeof(*j));
}

/* ------------------------------------------------------------------ for the charts */

int64_t *job_last_starts(const struct kg_job *j)
{
	if (!j->n_collectives)
		return NULL;
	int64_t *v = malloc(j->n_collectives * sizeof(*v));
	for (uint32_t k = 0; v && k < j->n_collectives; k++) {
		const struct kg_job_coll *c = &j->colls[k];
		v[k] = INT64_MIN;
		for (uint32_t a = 0; a < c->n; a++) {
			int64_t s = part_start(j, &j->parts[c->first + a]);
			if (s > v[k])
				v[k] = s;
		}
	}
	return v;
}

int64_t *job_step_starts(const struct kg_job *j, uint32_t *n)
{
	*n = max_steps(j);
	int64_t *v = *n ? malloc(*n * sizeof(*v)) : NULL;
	for (uint32_t s = 0; v && s < *n; s++) {
		v[s] = INT64_MAX;
		for (uint32_t i = 0; i < j->n_ranks; i++) {
			const struct kg_rank *r = &j->ranks[i];
			int64_t t = s < r->n_steps ? kg_time_add(r->steps[s].start, r->shift) : INT64_MAX;
			v[s] = t < v[s] ? t : v[s];
		}
	}
	return v;
}

/* ------------------------------------------------------------------ rank sets */

int rank_set_parse(struct kg_rank_set *s, const char *expr, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	const char *p = expr;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi;
		if (end == p || *p == '-' || lo >= UINT32_MAX)
			goto bad;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!*p || *p == ',') {
				hi = UINT32_MAX - 1;
			} else {
				hi = strtoul(p, &end, 10);
				if (end == p || hi >= UINT32_MAX || hi < lo)
					goto bad;
				p = end;
			}
		}
		if (*p && *p != ',')
			goto bad;
		if (*p == ',' && !*++p)
			goto bad;
		uint32_t(*r)[2] = realloc(s->ranges, (s->n + 1) * sizeof(*r));
		if (!r) {
			snprintf(err, errlen, "out of memory");
			rank_set_free(s);
			return -1;
		}
		s->ranges = r;
		s->ranges[s->n][0] = (uint32_t)lo;
		s->ranges[s->n++][1] = (uint32_t)hi;
	}
	if (!s->n)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "'%s' is not a rank expression (e.g. 3, 0-7,12, 100-)", expr);
	rank_set_free(s);
	return -1;
}

int rank_set_has(const struct kg_rank_set *s, uint32_t rank)
{
	if (!s || !s->n)
		return 1;
	for (uint32_t i = 0; i < s->n; i++)
		if (rank >= s->ranges[i][0] && rank <= s->ranges[i][1])
			return 1;
	return 0;
}

void rank_set_free(struct kg_rank_set *s)
{
	free(s->ranges);
	s->ranges = NULL;
	s->n = 0;
}
