/* One trace's ranks, reduced to what the job's rules compare (job.h): for each GPU that
 * ran something, its times and idle causes, its own top findings, its kernels by name,
 * its collectives in order, its steps and a coarse timeline. Called while the trace's
 * model and analysis are alive; nothing of them is kept. */
#include "job/job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/array.h"
#include "util/pathfmt.h"
#include "util/strtab.h"
#include "util/timemath.h"

#define UNIX_2001_NS 978307200000000000LL

static const char *const step_candidates[] = {"ProfilerStep", "train_step", "step"};

const char *bin_state_name(enum kg_bin_state s)
{
	static const char *const names[KG_BIN_STATES] = {
		"none", "compute", "communication", "copy", "idle: host", "idle: sync",
		"idle: launch", "idle: dependency", "idle: unknown", "idle: start-up or wind-down",
		"idle: short gaps"};
	return (unsigned)s < KG_BIN_STATES ? names[s] : "?";
}

const char *rank_name(const struct kg_rank *r, const struct kg_rank_kernel *k)
{
	return k->name < r->names_len ? r->names + k->name : "";
}

void rank_free(struct kg_rank *r)
{
	free(r->kernel);
	free(r->coll);
	free(r->coll_job);
	free(r->steps);
	free(r->names);
	for (uint32_t i = 0; i < r->n_top; i++)
		finding_free(&r->top[i]);
	free(r->top);
	memset(r, 0, sizeof(*r));
}

static int64_t op_dur(const struct kg_op *o)
{
	return o->start == KG_NO_TIME || o->end == KG_NO_TIME || o->end < o->start
		       ? 0
		       : kg_time_diff(o->end, o->start);
}

static uint64_t name_hash(const char *s)
{
	return strtab_hash(s, strlen(s));
}

/* ------------------------------------------------------------------ who */

/* The process that ran most of a GPU's work: a GPU's first device may be another
 * process's (torchrun's launcher touches every GPU and runs nothing). */
static uint32_t gpu_process(const struct kg_model *m, const struct kg_gpu_metrics *gm)
{
	uint32_t best = m->devices[m->gpus[gm->gpu].device].process, best_n = 0;
	uint32_t *count = calloc((size_t)m->n_processes + 1, sizeof(*count));
	for (uint32_t i = 0; count && i < gm->n_ops; i++) {
		uint32_t p = m->streams[m->ops[gm->ops[i]].stream].process;
		if (p < m->n_processes && ++count[p] > best_n)
			best_n = count[p], best = p;
	}
	free(count);
	return best;
}

/* The device entry of process p for GPU g (its ordinal and name in that process). */
static const struct kg_device *gpu_device(const struct kg_model *m, uint32_t g, uint32_t p)
{
	for (uint32_t d = 0; d < m->n_devices; d++)
		if (m->devices[d].gpu == g && m->devices[d].process == p)
			return &m->devices[d];
	return &m->devices[m->gpus[g].device];
}

static void fill_identity(struct kg_rank *r, const struct kg_model *m, uint32_t g,
			  uint32_t process, const char *file, uint32_t procs_with_gpus)
{
	const struct kg_device *d = gpu_device(m, g, process);
	const struct kg_process *p = process < m->n_processes ? &m->processes[process] : NULL;
	snprintf(r->file, sizeof(r->file), "%s", file);
	snprintf(r->gpu, sizeof(r->gpu), "%s", model_text(m, d->name));
	r->ordinal = d->ordinal;
	r->realtime_offset = KG_NO_TIME;
	for (uint32_t d2 = 0; d2 < m->n_devices; d2++)
		r->gpus_in_process += m->devices[d2].process == process;
	if (p) {
		snprintf(r->host, sizeof(r->host), "%s", model_text(m, p->host));
		snprintf(r->rank, sizeof(r->rank), "%s", model_text(m, p->rank));
		r->pid = p->pid;
		r->realtime_offset = p->realtime_offset;
	}
	char gpu_part[32] = "";
	if (r->gpus_in_process > 1)
		snprintf(gpu_part, sizeof(gpu_part), " GPU %d", r->ordinal);
	if (r->rank[0]) {
		snprintf(r->label, sizeof(r->label), "rank %s%s", r->rank, gpu_part);
	} else {
		char base[48], pid_part[24] = "";
		snprintf(base, sizeof(base), "%s", path_base(file));
		if (procs_with_gpus > 1)
			snprintf(pid_part, sizeof(pid_part), " pid %u", r->pid);
		snprintf(r->label, sizeof(r->label), "%s%s GPU %d", base, pid_part, r->ordinal);
	}
}

/* ------------------------------------------------------------------ kernels by name */

struct name_dur {
	uint32_t name;
	int64_t dur;
};

static int by_total_desc(const void *pa, const void *pb)
{
	const struct kg_rank_kernel *a = pa, *b = pb;
	return (a->total < b->total) - (a->total > b->total);
}

struct name_buf {
	char *text;
	uint32_t len, cap;
};

static int name_add(struct name_buf *nb, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;
	if (n > 4096)
		n = 4096; /* a name longer than this (none seen) is cut */
	if ((size_t)nb->len + n > nb->cap) {
		uint32_t cap = nb->cap ? nb->cap * 2 : 4096;
		while (cap < nb->len + n)
			cap *= 2;
		char *t = realloc(nb->text, cap);
		if (!t)
			return -ENOMEM;
		nb->text = t;
		nb->cap = cap;
	}
	*off = nb->len;
	memcpy(nb->text + nb->len, s, n - 1);
	nb->text[nb->len + n - 1] = 0;
	nb->len += (uint32_t)n;
	return 0;
}

/* The kernels of one kind as rows of their names (count, total, p50), in the order of
 * the names' string ids: each name's durations put side by side by a counting sort on
 * the id (a trace has a few names, over thousands of kernels), its median selected, not
 * sorted. The number of rows, or -ENOMEM. */
static int name_rows(const struct name_dur *nd, size_t n, struct kg_rank_kernel *rows)
{
	uint32_t top = 0;
	for (size_t i = 0; i < n; i++)
		top = nd[i].name > top ? nd[i].name : top;
	uint32_t *end = calloc((size_t)top + 2, sizeof(*end)); /* name x's: end[x - 1]..end[x] */
	int64_t *dur = malloc(n * sizeof(*dur));
	int k = -ENOMEM;
	if (!end || !dur)
		goto out;
	for (size_t i = 0; i < n; i++)
		end[nd[i].name + 1]++;
	for (uint32_t x = 0; x <= top; x++)
		end[x + 1] += end[x];
	for (size_t i = 0; i < n; i++) /* each name's start moves to its end */
		dur[end[nd[i].name]++] = nd[i].dur;
	k = 0;
	for (uint32_t x = 0, from = 0; x <= top; from = end[x++]) {
		uint32_t count = end[x] - from;
		int64_t total = 0;
		if (!count)
			continue;
		for (uint32_t j = from; j < end[x]; j++)
			total = kg_time_add(total, dur[j]); /* saturates: the same in any order */
		rows[k++] = (struct kg_rank_kernel){.name = x, .count = count, .total = total,
						    .p50 = select_kth(dur + from, count, count / 2)};
	}
out:
	free(end);
	free(dur);
	return k;
}

/* The top names of one kind (compute or communication) into r->kernel, names into nb. */
static int keep_names(struct kg_rank *r, const struct kg_model *m, const struct name_dur *nd,
		      size_t n, uint32_t keep, struct name_buf *nb)
{
	if (!n)
		return 0;
	struct kg_rank_kernel *rows = malloc(n * sizeof(*rows));
	int named = rows ? name_rows(nd, n, rows) : -ENOMEM;
	if (named < 0) {
		free(rows);
		return -ENOMEM;
	}
	uint32_t k = (uint32_t)named;
	qsort(rows, k, sizeof(*rows), by_total_desc);
	if (k > keep)
		k = keep;
	struct kg_rank_kernel *grown = realloc(r->kernel, (r->n_kernel + k) * sizeof(*grown));
	if (!grown) {
		free(rows);
		return -ENOMEM;
	}
	r->kernel = grown;
	for (uint32_t i = 0; i < k; i++) {
		const char *text = model_text(m, rows[i].name);
		rows[i].hash = name_hash(text);
		if (name_add(nb, text, &rows[i].name) < 0) {
			free(rows);
			return -ENOMEM;
		}
		r->kernel[r->n_kernel++] = rows[i];
	}
	free(rows);
	return (int)k;
}

static int kernel_names(struct kg_rank *r, const struct kg_analysis *a,
			const struct kg_gpu_metrics *gm, struct name_buf *nb)
{
	const struct kg_model *m = a->m;
	struct name_dur *compute = malloc(((size_t)gm->n_ops + 1) * sizeof(*compute));
	struct name_dur *comm = malloc(((size_t)gm->n_ops + 1) * sizeof(*comm));
	size_t nc = 0, nm = 0;
	int rc = -ENOMEM;
	if (!compute || !comm)
		goto out;
	for (uint32_t i = 0; i < gm->n_ops; i++) {
		const struct kg_op *o = &m->ops[gm->ops[i]];
		if (o->kind != KG_OP_KERNEL)
			continue;
		int64_t d = op_dur(o);
		r->kernels++;
		if (o->flags & KG_OPF_COMM) {
			r->comm_kernels++;
			r->comm_time = kg_time_add(r->comm_time, d);
			comm[nm++] = (struct name_dur){o->name, d};
		} else {
			r->compute_time = kg_time_add(r->compute_time, d);
			compute[nc++] = (struct name_dur){o->name, d};
		}
	}
	rc = keep_names(r, m, compute, nc, KG_JOB_KERNELS, nb);
	if (rc >= 0) {
		rc = keep_names(r, m, comm, nm, KG_JOB_COMM_NAMES, nb);
		if (rc >= 0)
			r->n_comm_names = (uint32_t)rc;
	}
out:
	free(compute);
	free(comm);
	return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------ steps */

struct range_ref {
	int64_t start, end;
};

static int by_range_start(const void *pa, const void *pb)
{
	const struct range_ref *a = pa, *b = pb;
	return (a->start > b->start) - (a->start < b->start);
}

static int is_step(const struct kg_model *m, const struct kg_range *g, uint32_t process,
		   const char *name)
{
	return g->process == process && g->start != KG_NO_TIME && g->end != KG_NO_TIME &&
	       g->end > g->start && !strncasecmp(model_text(m, g->name), name, strlen(name));
}

/* The name of the step ranges of a process: the one given, else the first candidate
 * with at least two ranges. NULL when none. */
static const char *step_name_of(const struct kg_model *m, uint32_t process, const char *given)
{
	const char *const *cand = given ? &given : step_candidates;
	size_t ncand = given ? 1 : sizeof(step_candidates) / sizeof(*step_candidates);
	for (size_t c = 0; c < ncand; c++) {
		uint32_t n = 0;
		for (uint32_t i = 0; i < m->n_ranges && n < 2; i++)
			n += (uint32_t)is_step(m, &m->ranges[i], process, cand[c]);
		if (n >= 2)
			return cand[c];
	}
	return NULL;
}

/* The step a host time falls in (steps sorted, disjoint), UINT32_MAX none. */
static uint32_t step_at(const struct kg_rank *r, int64_t t)
{
	uint32_t lo = 0, hi = r->n_steps;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (r->steps[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n_steps && r->steps[lo].start <= t ? lo : UINT32_MAX;
}

static int find_steps(struct kg_rank *r, const struct kg_model *m, uint32_t process,
		      const char *given)
{
	const char *name = step_name_of(m, process, given);
	if (!name)
		return 0;
	snprintf(r->step_name, sizeof(r->step_name), "%s", name);
	r->steps_source = KG_STEPS_ANNOTATION;
	struct range_ref *rr = malloc(((size_t)m->n_ranges + 1) * sizeof(*rr));
	if (!rr)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_ranges; i++)
		if (is_step(m, &m->ranges[i], process, name))
			rr[n++] = (struct range_ref){m->ranges[i].start, m->ranges[i].end};
	qsort(rr, n, sizeof(*rr), by_range_start);
	r->steps = calloc(n ? n : 1, sizeof(*r->steps));
	if (!r->steps) {
		free(rr);
		return -ENOMEM;
	}
	int64_t last_end = INT64_MIN;
	for (uint32_t i = 0; i < n && r->n_steps < KG_JOB_MAX_STEPS; i++) {
		if (rr[i].start < last_end)
			continue; /* nested in or overlapping the previous step: not a step */
		r->steps[r->n_steps++] = (struct kg_rank_step){.start = rr[i].start,
							       .end = rr[i].end};
		last_end = rr[i].end;
	}
	free(rr);
	return 0;
}

/* Where a step found by the analysis begins on the host: its first launch (the clock of
 * op_issued_or_start, model.h, which places kernels in steps), else its first operation's
 * start. */
static int64_t found_start(const struct kg_step *st)
{
	return st->host_start != KG_NO_TIME ? st->host_start : st->start;
}

/* Where it ends: a rhythm step at the next one's beginning (the host's wait before the
 * next step's first launch is its step's, as steps.c counts it; the last: after its
 * last launch), an annotated one at its range's end; else its last operation's end. */
static int64_t found_end(const struct kg_steps *st, uint32_t s)
{
	if (st->source == KG_STEPS_RHYTHM && s + 1 < st->n)
		return found_start(&st->v[s + 1]);
	return st->v[s].host_end != KG_NO_TIME ? st->v[s].host_end : st->v[s].end;
}

/* The steps the trace's analysis found on this GPU (analysis/steps.c), for a rank without
 * ranges of the job's step names: an annotation the job does not look for, or the rhythm
 * of its launches. Every one of them, warm-up too: ranks are compared step by step from
 * their first. None when they are not in time order on the host (step_at needs them
 * sorted and disjoint): no step rather than kernels put in the wrong one. */
static int found_steps(struct kg_rank *r, const struct kg_analysis *a, uint32_t g)
{
	const struct kg_steps *st = steps_of_gpu(a, g);
	if (!st || st->n < 2 ||
	    (st->source != KG_STEPS_RHYTHM && st->source != KG_STEPS_ANNOTATION))
		return 0;
	uint32_t n = st->n < KG_JOB_MAX_STEPS ? st->n : KG_JOB_MAX_STEPS;
	struct kg_rank_step *v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++) {
		int64_t b = found_start(&st->v[s]), e = found_end(st, s);
		if (b == KG_NO_TIME || e == KG_NO_TIME || e <= b || (s && b < v[s - 1].end)) {
			free(v);
			return 0;
		}
		v[s] = (struct kg_rank_step){.start = b, .end = e};
	}
	r->steps = v;
	r->n_steps = n;
	r->steps_source = st->source;
	if (st->source == KG_STEPS_RHYTHM)
		snprintf(r->step_name, sizeof(r->step_name), "(detected by rhythm)");
	else
		snprintf(r->step_name, sizeof(r->step_name), "%s", model_text(a->m, st->name));
	return 0;
}

/* The rank's steps: the ranges named so (--steps NAME, else the usual names); without
 * them, and unless NAME was given, what the analysis found; with report --rhythm, the
 * rhythm of the launches alone, as the rank's own analysis took it. */
static int rank_steps(struct kg_rank *r, const struct kg_analysis *a, uint32_t g,
		      uint32_t process, const char *given)
{
	if (a->cfg.steps_rhythm)
		return found_steps(r, a, g);
	int rc = find_steps(r, a->m, process, given);
	if (rc || r->n_steps || given)
		return rc;
	return found_steps(r, a, g);
}


/* The peer of a send or recv whose call names none, in a process group of two ranks
 * ("NAME [3, 4]"): the one that is not this rank. 0 unknown, else the peer's rank + 1. */
static uint32_t other_of_two(const char *group, const char *own)
{
	const char *p = group ? strrchr(group, '[') : NULL;
	char *end;
	long long me = own[0] ? strtoll(own, &end, 10) : -1, v[3];
	if (!p || me < 0 || *end)
		return 0;
	int n = 0;
	for (p++; n < 3; p = end + (*end == ',')) {
		v[n] = strtoll(p, &end, 10);
		if (end == p || v[n] < 0 || v[n] >= UINT32_MAX)
			break;
		n++;
		if (*end != ',')
			break;
	}
	if (n != 2 || *end != ']' || (v[0] != me && v[1] != me) || v[0] == v[1])
		return 0;
	return (uint32_t)(v[0] == me ? v[1] : v[0]) + 1;
}

/* A communication kernel as the job compares it: its times, its time with no compute
 * beside it, and what it is. */
static struct kg_rank_collective identified(const struct kg_rank *r, const struct kg_model *m,
					    const struct kg_op *o, const struct kg_comm_id *id,
					    uint32_t step, int64_t exposed, int64_t lead,
					    const uint8_t *eighths)
{
	struct kg_rank_collective c = {.start = o->start, .end = o->end, .exposed = exposed,
				       .hash = name_hash(model_text(m, o->name)), .step = step};
	int64_t dur = kg_time_diff(o->end, o->start);
	if (eighths)
		memcpy(c.exposed_eighths, eighths, sizeof(c.exposed_eighths));
	if (dur > 0 && lead > 0)
		c.exposed_lead = (uint16_t)(lead >= dur ? 65535
					    : (uint64_t)lead * 65535 / (uint64_t)dur);
	if (!id)
		return c;
	c.kind = id->kind;
	c.from_call = id->from_call;
	c.elems = id->elems;
	c.seq = id->seq >= 0 ? (uint64_t)id->seq + 1 : 0;
	c.group = id->group ? name_hash(model_text(m, id->group)) : 0;
	if (id->kind == KG_COMM_SEND || id->kind == KG_COMM_RECV)
		c.peer = id->peer >= 0 ? (uint32_t)id->peer + 1
		       : id->group     ? other_of_two(model_text(m, id->group), r->rank)
				       : 0;
	return c;
}

static int collectives_and_steps(struct kg_rank *r, const struct kg_analysis *a,
				 const struct kg_gpu_metrics *gm)
{
	const struct kg_model *m = a->m;
	uint32_t n = 0;
	for (uint32_t i = 0; i < gm->n_ops; i++)
		n += (m->ops[gm->ops[i]].flags & KG_OPF_COMM) != 0;
	if (n > KG_JOB_MAX_COLLECTIVES)
		n = KG_JOB_MAX_COLLECTIVES, r->coll_cut = 1;
	r->coll = calloc(n ? n : 1, sizeof(*r->coll));
	if (!r->coll)
		return -ENOMEM;
	for (uint32_t i = 0, c = 0; i < gm->n_ops; i++) {
		/* gm->comm_ops: its timed communication kernels, in the same order */
		int64_t exposed = 0, lead = 0;
		const uint8_t *eighths = NULL;
		if (c < gm->n_comm && gm->comm_ops[c] == gm->ops[i]) {
			exposed = gm->comm_exposed[c];
			lead = gm->comm_exposed_lead[c];
			eighths = &gm->comm_exposed_eighths[8 * (size_t)c++];
		}
		const struct kg_op *o = &m->ops[gm->ops[i]];
		uint32_t s = r->n_steps ? step_at(r, op_issued_or_start(m, o)) : UINT32_MAX;
		if (s != UINT32_MAX && o->kind == KG_OP_KERNEL) {
			r->steps[s].kernels++;
			if (!(o->flags & KG_OPF_COMM))
				r->steps[s].compute = kg_time_add(r->steps[s].compute, op_dur(o));
		}
		/* a collective without its times cannot be compared */
		if (!(o->flags & KG_OPF_COMM) || r->n_coll >= n || o->start == KG_NO_TIME ||
		    o->end == KG_NO_TIME)
			continue;
		const struct kg_comm_id *id = comm_id_of(a->comm_ids, a->n_comm_ids, gm->ops[i]);
		r->coll[r->n_coll++] = identified(r, m, o, id, s, exposed, lead, eighths);
	}
	return 0;
}

/* ------------------------------------------------------------------ timeline */

/* Adds [s, e) to acc[bin] for the bins it covers (bins of width w from begin). */
static void spread(double *acc, int64_t begin, double w, int64_t s, int64_t e)
{
	if (e <= s || w <= 0)
		return;
	double fs = (double)kg_time_diff(s, begin) / w, fe = (double)kg_time_diff(e, begin) / w;
	if (fs < 0)
		fs = 0;
	if (fe > KG_JOB_BINS)
		fe = KG_JOB_BINS;
	for (int b = (int)fs; b < KG_JOB_BINS && b < fe; b++) {
		double lo = b > fs ? b : fs, hi = b + 1 < fe ? b + 1 : fe;
		if (hi > lo)
			acc[b] += hi - lo;
	}
}

static int timeline(struct kg_rank *r, const struct kg_analysis *a,
		    const struct kg_gpu_metrics *gm)
{
	const struct kg_model *m = a->m;
	double *acc = calloc((size_t)KG_BIN_STATES * KG_JOB_BINS, sizeof(*acc));
	if (!acc)
		return -ENOMEM;
	/* over its steady work: the start-up, seconds of it, would leave the steps a few bins */
	int64_t b0, b1;
	rank_steady_bounds(r, &b0, &b1);
	double w = (double)kg_time_diff(b1, b0) / KG_JOB_BINS;
	for (uint32_t i = 0; i < gm->n_ops; i++) {
		const struct kg_op *o = &m->ops[gm->ops[i]];
		enum kg_bin_state st = o->kind != KG_OP_KERNEL ? KG_BIN_COPY
				       : (o->flags & KG_OPF_COMM) ? KG_BIN_COMM
								  : KG_BIN_COMPUTE;
		spread(acc + (size_t)st * KG_JOB_BINS, b0, w, o->start, o->end);
	}
	for (uint32_t i = 0; i < gm->n_gaps; i++) {
		const struct kg_gap *g = &gm->gaps[i];
		if (g->place != KG_GAP_STEADY)
			continue; /* start-up or wind-down: outside the bins */
		/* a gap that began in a synchronising call: the sync's while the host was in it,
		 * the host's after (gap_part) */
		int64_t split = g->cause == KG_GAP_SYNC ? kg_time_add(g->start, g->sync_ns) : g->end;
		spread(acc + (size_t)(KG_BIN_IDLE_HOST + g->cause) * KG_JOB_BINS, b0, w,
		       g->start, split);
		if (split < g->end)
			spread(acc + (size_t)(KG_BIN_IDLE_HOST + KG_GAP_HOST) * KG_JOB_BINS, b0, w,
			       split, g->end);
	}
	for (int b = 0; b < KG_JOB_BINS; b++) {
		double used = 0, best = 0;
		int state = KG_BIN_IDLE_SHORT;
		for (int s = KG_BIN_COMPUTE; s < KG_BIN_IDLE_SHORT; s++) {
			double v = acc[(size_t)s * KG_JOB_BINS + b];
			used += v;
			if (v > best)
				best = v, state = s;
		}
		/* computing while a collective runs beside it is computing: the overlap that
		 * hides communication */
		if (acc[(size_t)KG_BIN_COMPUTE * KG_JOB_BINS + b] >= 0.5)
			state = KG_BIN_COMPUTE, best = 1;
		/* what no op and no examined gap covers is idle in short gaps */
		r->bins[b] = (uint8_t)(best >= 1 - used ? state : KG_BIN_IDLE_SHORT);
		if (w <= 0)
			r->bins[b] = KG_BIN_NONE;
	}
	free(acc);
	return 0;
}

/* ------------------------------------------------------------------ findings */

/* The rank's own findings: how many, their gain, and the largest KG_JOB_FINDINGS in
 * brief (what the job report shows of them). 0 or -ENOMEM. */
static int own_findings(struct kg_rank *r, const struct kg_analysis *a, uint32_t g)
{
	r->top = calloc(KG_JOB_FINDINGS, sizeof(*r->top));
	if (!r->top)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->findings.n; i++) {
		const struct kg_finding *f = &a->findings.v[i];
		if (f->gpu != g && !(f->gpu == KG_NONE && a->n_gpus == 1))
			continue;
		r->n_findings++;
		rank_add_findings_gain(r, f->gain_ns);
		if (r->n_top >= KG_JOB_FINDINGS)
			continue;
		struct kg_finding *t = &r->top[r->n_top];
		*t = (struct kg_finding){.rule = f->rule, .severity = f->severity,
					 .gain_ns = f->gain_ns, .gain_pct = f->gain_pct,
					 .gpu = KG_NONE, .rank = KG_NONE};
		if (f->title && !(t->title = strdup(f->title)))
			return -ENOMEM;
		r->n_top++;
	}
	return 0;
}

/* ------------------------------------------------------------------ one GPU */

/* Its communication and the part of it compute ran beside (analysis/comm_overlap.c). */
static void rank_comm_overlap(struct kg_rank *r, const struct kg_gpu_metrics *gm)
{
	r->compute_busy = gm->compute_busy;
	r->comm_busy = gm->comm.time;
	r->comm_overlapped = gm->comm.overlapped;
}

static int summarise_gpu(struct kg_rank *r, const struct kg_analysis *a, uint32_t g,
			 const char *file, const struct kg_summary_opts *o, uint32_t procs)
{
	const struct kg_gpu_metrics *gm = &a->gpus[g];
	const struct kg_model *m = a->m;
	uint32_t process = gpu_process(m, gm);
	struct name_buf nb = {0};
	fill_identity(r, m, gm->gpu, process, file, procs);
	r->begin = gm->begin;
	r->end = gm->end;
	/* a trace that gives no offset but whose times are Unix time (Kineto's are since
	 * 2001 and later) is on CLOCK_REALTIME already */
	if (r->realtime_offset == KG_NO_TIME && r->begin != KG_NO_TIME && r->begin > UNIX_2001_NS)
		r->realtime_offset = 0;
	r->busy = gm->busy;
	r->kernel_busy = gm->kernel_busy;
	memcpy(r->idle_by_cause, gm->idle_by_cause, sizeof(r->idle_by_cause));
	r->idle_startup = gm->idle_startup;
	r->idle_winddown = gm->idle_winddown;
	gpu_steady_bounds(gm, &r->steady_begin, &r->steady_end);
	rank_comm_overlap(r, gm);
	memcpy(r->steady_idle_by_cause, gm->steady_idle_by_cause, sizeof(r->steady_idle_by_cause));
	int rc = own_findings(r, a, g);
	if (!rc)
		rc = kernel_names(r, a, gm, &nb);
	if (!rc)
		rc = rank_steps(r, a, g, process, o ? o->step_name : NULL);
	if (!rc)
		rc = collectives_and_steps(r, a, gm);
	if (!rc)
		rc = timeline(r, a, gm);
	r->names = nb.text;
	r->names_len = nb.len;
	return rc;
}

int job_rank_summaries(const struct kg_analysis *a, const char *file,
		       const struct kg_summary_opts *o, struct kg_rank **ranks, uint32_t *n)
{
	const struct kg_model *m = a->m;
	uint32_t procs = 0;
	for (uint32_t p = 0; p < m->n_processes; p++)
		for (uint32_t g = 0; g < a->n_gpus; g++)
			if (a->gpus[g].n_ops && gpu_process(m, &a->gpus[g]) == p) {
				procs++;
				break;
			}
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		if (!a->gpus[g].n_ops)
			continue;
		struct kg_rank *grown = realloc(*ranks, (*n + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		*ranks = grown;
		struct kg_rank *r = &grown[*n];
		memset(r, 0, sizeof(*r));
		int rc = summarise_gpu(r, a, g, file, o, procs);
		if (rc < 0) {
			rank_free(r);
			return rc;
		}
		(*n)++;
	}
	return 0;
}
