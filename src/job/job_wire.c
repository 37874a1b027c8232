/* A rank summary as bytes, for MPI's gather: a header (magic, version, length), the
 * struct with its pointers cleared, then its arrays, then its top findings (a fixed part
 * and the title's bytes each). The processes of one job run the
 * same kgantt on machines of one architecture, so the struct travels as it is in
 * memory; the version changes whenever struct kg_rank does. Unpacking trusts nothing:
 * every count is checked against the bytes there are. */
#include "job/job.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIRE_MAGIC 0x6b676a72u /* "kgjr" */
#define WIRE_VERSION 8u /* 2: start-up, wind-down and steady idle; 3: findings' titles of any
			 * length; 4: how the steps were found (steps_source); 5: communication
			 * and its overlap with compute (comm_busy, comm_overlapped); 6: what each
			 * collective is (kind, group, size, sequence); 7: a transfer's peer, a
			 * collective's exposed time; 8: where along it (exposed_lead,
			 * exposed_eighths) */

struct wire_header {
	uint32_t magic, version;
	uint64_t length;           /* of the whole record, header included */
	uint32_t struct_size;      /* sizeof(struct kg_rank) of the writer */
	uint32_t pad;
};

/* One of the rank's top findings: its title's bytes follow. */
struct wire_finding {
	uint32_t rule, severity;
	double gain_ns, gain_pct;
	uint32_t title_len, pad;
};

static size_t title_len(const struct kg_finding *f)
{
	return f->title ? strlen(f->title) : 0;
}

static size_t wire_size(const struct kg_rank *r)
{
	size_t n = sizeof(struct wire_header) + sizeof(*r) + r->n_kernel * sizeof(*r->kernel) +
		   r->n_coll * sizeof(*r->coll) + r->n_steps * sizeof(*r->steps) + r->names_len;
	for (uint32_t i = 0; i < r->n_top; i++)
		n += sizeof(struct wire_finding) + title_len(&r->top[i]);
	return n;
}

static uint8_t *put(uint8_t *at, const void *p, size_t n)
{
	if (n)
		memcpy(at, p, n);
	return at + n;
}

int job_wire_pack(const struct kg_rank *r, uint8_t **buf, size_t *len)
{
	size_t n = wire_size(r);
	uint8_t *b = malloc(n), *at = b;
	if (!b)
		return -ENOMEM;
	struct wire_header h = {WIRE_MAGIC, WIRE_VERSION, n, (uint32_t)sizeof(*r), 0};
	struct kg_rank flat = *r;
	flat.kernel = NULL;
	flat.coll = NULL;
	flat.coll_job = NULL;
	flat.joined = 0;
	flat.steps = NULL;
	flat.names = NULL;
	flat.top = NULL;
	at = put(at, &h, sizeof(h));
	at = put(at, &flat, sizeof(flat));
	at = put(at, r->kernel, r->n_kernel * sizeof(*r->kernel));
	at = put(at, r->coll, r->n_coll * sizeof(*r->coll));
	at = put(at, r->steps, r->n_steps * sizeof(*r->steps));
	at = put(at, r->names, r->names_len);
	for (uint32_t i = 0; i < r->n_top; i++) {
		const struct kg_finding *f = &r->top[i];
		struct wire_finding wf = {(uint32_t)f->rule, (uint32_t)f->severity, f->gain_ns,
					  f->gain_pct, (uint32_t)title_len(f), 0};
		at = put(at, &wf, sizeof(wf));
		at = put(at, f->title, wf.title_len);
	}
	*buf = b;
	*len = n;
	return 0;
}

/* A copy of the next n bytes at *at into *out (NULL for 0 bytes), or -EINVAL/-ENOMEM. */
static int take(const uint8_t **at, const uint8_t *end, size_t n, void **out)
{
	*out = NULL;
	if (n > (size_t)(end - *at))
		return -EINVAL;
	if (!n)
		return 0;
	if (!(*out = malloc(n)))
		return -ENOMEM;
	memcpy(*out, *at, n);
	*at += n;
	return 0;
}

/* A figure a finding or a rank can have: 0 to max, not -0.0 (printed "-0.0%"), not a
 * subnormal (no gain is 1e-311: its JSON reads as out of a double's range). */
static int figure_ok(double v, double max)
{
	return (v == 0 || isnormal(v)) && v >= 0 && v <= max && !signbit(v);
}

/* The rank's n top findings, each checked: a trace rule, a severity, figures a finding can
 * have, a title that fits. 0, -EINVAL or -ENOMEM. */
static int take_findings(const uint8_t **at, const uint8_t *end, struct kg_rank *r, uint32_t n)
{
	if (n > KG_JOB_FINDINGS)
		return -EINVAL;
	if (!n)
		return 0;
	if (!(r->top = calloc(n, sizeof(*r->top))))
		return -ENOMEM;
	for (; r->n_top < n; r->n_top++) {
		struct wire_finding wf;
		if (sizeof(wf) > (size_t)(end - *at))
			return -EINVAL;
		memcpy(&wf, *at, sizeof(wf));
		*at += sizeof(wf);
		if (wf.rule >= KG_RULE_COUNT || kg_rules[wf.rule].scope != KG_SCOPE_TRACE ||
		    wf.severity >= KG_SEV_COUNT || !figure_ok(wf.gain_ns, KG_JOB_MAX_NS) ||
		    !figure_ok(wf.gain_pct, 1e9) || wf.pad ||
		    wf.title_len > (size_t)(end - *at) || memchr(*at, 0, wf.title_len))
			return -EINVAL;
		struct kg_finding *f = &r->top[r->n_top];
		*f = (struct kg_finding){.rule = (enum kg_rule_id)wf.rule,
					 .severity = (enum kg_severity)wf.severity,
					 .gain_ns = wf.gain_ns, .gain_pct = wf.gain_pct,
					 .gpu = KG_NONE, .rank = KG_NONE};
		if (!(f->title = strndup((const char *)*at, wf.title_len)))
			return -ENOMEM;
		*at += wf.title_len;
	}
	return 0;
}

static int duration_ok(int64_t d)
{
	return d >= 0 && d <= KG_JOB_MAX_NS;
}

/* A time a rank can hold: any but a saturated sum; KG_NO_TIME where unknown is allowed. */
static int time_ok(int64_t t, int unknown_ok)
{
	return t != INT64_MAX && t != -INT64_MAX && (unknown_ok || t != KG_NO_TIME);
}

static int range_ok(int64_t start, int64_t end, int unknown_ok)
{
	if (!time_ok(start, unknown_ok) || !time_ok(end, unknown_ok))
		return 0;
	if (start == KG_NO_TIME || end == KG_NO_TIME)
		return 1;
	return start <= end && kg_time_diff(end, start) <= KG_JOB_MAX_NS;
}

/* Its idle times fit in its span, its start-up and wind-down too, and its busy time
 * (kernels in it, communication in them, overlapped communication in that) and its steady
 * idle time in what is left (its steady span): else its shares pass 100 % and its steady
 * span is negative. */
static int within_span(const struct kg_rank *r)
{
	int64_t span = r->end - r->begin, steady = rank_steady_span(r), idle = rank_steady_idle(r);
	if (steady < 0 || r->kernel_busy > r->busy || kg_time_add(r->busy, idle) > steady ||
	    r->comm_busy > r->kernel_busy || r->comm_overlapped > r->comm_busy)
		return 0;
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		if (r->idle_by_cause[c] > span)
			return 0;
	return 1;
}

#define TERMINATED(field) (memchr((field), 0, sizeof(field)) != NULL)

/* The rank's values are ones job_rank_summaries can make: its texts end within their
 * fields, its times and durations are ordered and within KG_JOB_MAX_NS (its work's begin
 * and end known: a GPU that ran something; its collectives within them), its timeline's
 * bins are states, its steps' source is one, and what the receiver's job rules set is not
 * set yet. A value past these overflowed the job's sums (the straggler's causes, the
 * chart's bins) or printed figures that cannot be true. */
static int values_ok(const struct kg_rank *r)
{
	if (!TERMINATED(r->file) || !TERMINATED(r->host) || !TERMINATED(r->gpu) ||
	    !TERMINATED(r->rank) || !TERMINATED(r->label) || !TERMINATED(r->step_name))
		return 0;
	if (!range_ok(r->begin, r->end, 0) || !time_ok(r->steady_begin, 1) ||
	    !time_ok(r->steady_end, 1) || !time_ok(r->realtime_offset, 1))
		return 0;
	const int64_t durations[] = {r->busy, r->kernel_busy, r->compute_time, r->comm_time,
				     r->idle_startup, r->idle_winddown, r->comm_busy,
				     r->comm_overlapped};
	for (size_t i = 0; i < sizeof(durations) / sizeof(*durations); i++)
		if (!duration_ok(durations[i]))
			return 0;
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		if (!duration_ok(r->idle_by_cause[c]) || !duration_ok(r->steady_idle_by_cause[c]))
			return 0;
	if (!within_span(r))
		return 0;
	if (!figure_ok(r->findings_gain, KG_JOB_MAX_NS) || (r->coll_cut & ~1) ||
	    r->shift || r->late || r->late_ns || r->wait_caused_ns || r->slowdown || r->work_ns ||
	    r->comm_wait_exposed || r->p2p_wait || r->p2p_caused)
		return 0;
	for (uint32_t i = 0; i < r->n_kernel; i++)
		if (!duration_ok(r->kernel[i].total) || !duration_ok(r->kernel[i].p50))
			return 0;
	for (uint32_t i = 0; i < r->n_coll; i++) { /* the rank's own GPU work */
		const struct kg_rank_collective *c = &r->coll[i];
		static const uint8_t zero[sizeof(c->pad)];
		if (!range_ok(c->start, c->end, 0) || memcmp(c->pad, zero, sizeof(zero)) ||
		    c->exposed < 0 || c->exposed > kg_time_diff(c->end, c->start) || c->start < r->begin ||
		    c->end > r->end || c->kind >= KG_COMM_KIND_COUNT || c->from_call > 1 ||
		    c->seq > (uint64_t)KG_MOST_RECORDS || c->elems > (uint64_t)KG_MOST_RECORDS)
			return 0;
	}
	for (uint32_t i = 0; i < r->n_steps; i++)
		if (!range_ok(r->steps[i].start, r->steps[i].end, 0) ||
		    !duration_ok(r->steps[i].compute) || r->steps[i].pad)
			return 0;
	for (int i = 0; i < KG_JOB_BINS; i++)
		if (r->bins[i] >= KG_BIN_STATES)
			return 0;
	return r->steps_source < KG_STEPS_SOURCES;
}

int job_wire_unpack(const uint8_t *buf, size_t len, struct kg_rank *r, size_t *used)
{
	struct wire_header h;
	memset(r, 0, sizeof(*r));
	if (len < sizeof(h) + sizeof(*r))
		return -EINVAL;
	memcpy(&h, buf, sizeof(h));
	if (h.magic != WIRE_MAGIC || h.version != WIRE_VERSION || h.struct_size != sizeof(*r) ||
	    h.length > len || h.length < sizeof(h) + sizeof(*r) || h.pad)
		return -EINVAL;
	const uint8_t *at = buf + sizeof(h), *end = buf + h.length;
	memcpy(r, at, sizeof(*r));
	at += sizeof(*r);
	/* what packs again to other bytes is refused: pointers the sender cleared, pads, a
	 * title with a NUL in it */
	if (r->kernel || r->coll || r->coll_job || r->joined || r->steps || r->names || r->top) {
		memset(r, 0, sizeof(*r));
		return -EINVAL;
	}
	uint32_t n_top = r->n_top; /* the findings are not there until take_findings took them */
	r->n_top = 0;
	uint64_t need = (uint64_t)r->n_kernel * sizeof(*r->kernel) +
			(uint64_t)r->n_coll * sizeof(*r->coll) +
			(uint64_t)r->n_steps * sizeof(*r->steps) + r->names_len;
	if (r->n_kernel > KG_JOB_KERNELS + KG_JOB_COMM_NAMES || r->n_comm_names > r->n_kernel ||
	    r->n_coll > KG_JOB_MAX_COLLECTIVES || r->n_steps > KG_JOB_MAX_STEPS ||
	    need > (uint64_t)(end - at)) {
		memset(r, 0, sizeof(*r));
		return -EINVAL;
	}
	void *k, *c, *s, *nm;
	int rc = take(&at, end, r->n_kernel * sizeof(*r->kernel), &k);
	r->kernel = k;
	if (!rc)
		rc = take(&at, end, r->n_coll * sizeof(*r->coll), &c), r->coll = c;
	if (!rc)
		rc = take(&at, end, r->n_steps * sizeof(*r->steps), &s), r->steps = s;
	if (!rc)
		rc = take(&at, end, r->names_len, &nm), r->names = nm;
	if (!rc && r->names_len && r->names[r->names_len - 1])
		rc = -EINVAL; /* the names end with their NUL */
	if (!rc)
		rc = take_findings(&at, end, r, n_top);
	if (!rc && at != end)
		rc = -EINVAL; /* bytes that are no part of it */
	for (uint32_t i = 0; !rc && i < r->n_kernel; i++)
		if (r->kernel[i].name >= r->names_len && r->names_len)
			rc = -EINVAL;
	for (uint32_t i = 0; !rc && i < r->n_coll; i++)
		if (r->coll[i].step != UINT32_MAX && r->coll[i].step >= r->n_steps)
			rc = -EINVAL;
	if (!rc && !values_ok(r))
		rc = -EINVAL;
	if (rc) {
		rank_free(r);
		return rc;
	}
	*used = (size_t)h.length;
	return 0;
}
