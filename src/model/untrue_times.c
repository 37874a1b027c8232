/* Records whose times cannot be true, left out once, for every reader (model_finish).
 *
 * A trace may hold a sentinel where a time belongs (INT64_MAX, a 0 or a -1 written for
 * "not recorded"), an end before its start, or a record on another clock. Kept, one such
 * record stretches the span and the idle time to figures that cannot be true ("idle
 * 9223372036.85 s"). What "cannot be true" means, in the order it is tried:
 *
 *   1. a time at INT64_MAX or -INT64_MAX (INT64_MIN is KG_NO_TIME, "unknown": not tested);
 *   2. an end before the start;
 *   3. a time at 0 or before it, when the trace's clock is far from 0: the body of the
 *      trace (below) starts later than its own length after 0. A clock that starts with
 *      the trace (Nsight's, a test's) keeps its zeros;
 *   4. a time far outside the body of the trace. The body is the middle 98 % of the
 *      records' times, widened again and again to take in every time within REACH times
 *      its own length (at least FLOOR_NS) of it. So a time is left out only when it is
 *      one of the outer 1 % at its end, and lies more than REACH times the trace's length
 *      beyond everything else: no real start-up or wind-down does (a program that idles
 *      1000 times as long as it works is kept); a clock mixed up with another, a garbage
 *      duration, a 0 on a clock of days, are a million times that;
 *   5. a record lasting longer than any recording (KG_LONGEST_NS, 3.2 years): a lone
 *      record is its own body, which rule 4 cannot judge.
 *
 * The body is found from a sample of at most SAMPLE times (every k-th record), of which
 * only the ends are put in order (order_ends). model_finish judges the ops and calls in its own
 * passes over them (untrue_times.h); the waits, ranges, hardware samples, SM blocks, host
 * samples and tracer spans are judged here. */
#include "model/untrue_times.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/format.h"
#include "util/timemath.h"

#define SAMPLE 32768
#define REACH 1000
#define FLOOR_NS 1000000000 /* a body shorter than 1 s reaches 1000 s (17 minutes) */

static const char *const kind_words[KG_UNTRUE_KINDS][2] = {
	[KG_UNTRUE_KERNEL] = {"kernel", "kernels"}, [KG_UNTRUE_COPY] = {"copy", "copies"},
	[KG_UNTRUE_MEMSET] = {"memset", "memsets"}, [KG_UNTRUE_API] = {"API call", "API calls"},
	[KG_UNTRUE_RANGE] = {"range", "ranges"},    [KG_UNTRUE_WAIT] = {"wait", "waits"},
	[KG_UNTRUE_HW_SAMPLE] = {"hardware sample", "hardware samples"},
	[KG_UNTRUE_SM_BLOCK] = {"SM block", "SM blocks"},
	[KG_UNTRUE_HOST_SPAN] = {"host sample", "host samples"},
	[KG_UNTRUE_TRACER_SPAN] = {"tracer span", "tracer spans"},
};

static const char *const why_words[KG_UNTRUE_WHYS] = {
	[KG_UNTRUE_INT64_LIMIT] = "at INT64_MAX or -INT64_MAX",
	[KG_UNTRUE_END_BEFORE_START] = "end before start",
	[KG_UNTRUE_AT_ZERO] = "at time 0",
	[KG_UNTRUE_NEGATIVE] = "before time 0",
	[KG_UNTRUE_FAR] = "far from the other records",
	[KG_UNTRUE_TOO_LONG] = "longer than any recording",
};

/* ------------------------------------------------------------------ the body */

struct sample {
	int64_t *t;
	size_t n, cap;
};

static int is_limit(int64_t t)
{
	return t == INT64_MAX || t == -INT64_MAX;
}

static void take(struct sample *s, int64_t t)
{
	if (t != KG_NO_TIME && s->n < s->cap)
		s->t[s->n++] = t;
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* A record's start and end, unless rules 1, 2 or 5 leave it out, which need no body: a
 * record left out must not place the body that judges the rest, or what is kept would
 * change once those records are gone (a trace exported and read again). */
static void take_record(struct sample *s, int64_t start, int64_t end)
{
	static const struct untrue_body no_body = {0};
	if (untrue_why(&no_body, start, end) < 0)
		take(s, start), take(s, end);
}

/* Every k-th record's start and end, a third of the sample each for the ops, the calls
 * and the ranges: the few calls of a start-up are all in it. */
static void sample_times(const struct kg_model *m, struct sample *s)
{
	uint64_t k = (uint64_t)m->n_ops * 2 / (SAMPLE / 3) + 1;
	for (uint64_t i = 0; i < m->n_ops; i += k)
		take_record(s, m->ops[i].start, m->ops[i].end);
	k = (uint64_t)m->n_apis * 2 / (SAMPLE / 3) + 1;
	for (uint64_t i = 0; i < m->n_apis; i += k)
		take_record(s, m->apis[i].start, m->apis[i].end);
	k = (uint64_t)m->n_ranges * 2 / (SAMPLE / 3) + 1;
	for (uint64_t i = 0; i < m->n_ranges; i += k)
		take_record(s, m->ranges[i].start, m->ranges[i].end);
}

static int64_t reach_of(int64_t lo, int64_t hi)
{
	int64_t w = kg_time_diff(hi, lo);
	if (w < FLOOR_NS)
		w = FLOOR_NS;
	return w > INT64_MAX / REACH ? INT64_MAX : w * REACH;
}

/* t[0..n) put where body_of reads it: t[outer] and t[n - 1 - outer] the values a sort
 * would put there, and the outer times below and above them sorted. body_of widens from
 * those two outwards only, so it reads what it would read of the sorted sample: two
 * selections and two sorts of a hundredth each, in place of a sort of the whole. */
static void order_ends(int64_t *t, size_t n, size_t outer)
{
	size_t j = n - 1 - outer;
	select_kth(t, (uint32_t)n, (uint32_t)outer);
	if (j > outer)
		select_kth(t + outer + 1, (uint32_t)(n - outer - 1), (uint32_t)(j - outer - 1));
	qsort(t, outer, sizeof(*t), by_value);
	qsort(t + j + 1, outer, sizeof(*t), by_value);
}

/* The body of n times: their middle 98 % (all but the first two and the last two of fewer
 * than 200: a record gives two times, and one record far away with both must not be the
 * body's edge), widened while a time lies within reach. */
static struct untrue_body body_of(int64_t *t, size_t n)
{
	struct untrue_body b = {0};
	if (!n)
		return b;
	size_t outer = n < 6 ? 0 : n < 200 ? 2 : n / 100;
	size_t i = outer, j = n - 1 - outer;
	order_ends(t, n, outer);
	for (int grew = 1; grew;) {
		grew = 0;
		while (i > 0 && kg_time_diff(t[i], t[i - 1]) <= reach_of(t[i], t[j]))
			i--, grew = 1;
		while (j + 1 < n && kg_time_diff(t[j + 1], t[j]) <= reach_of(t[i], t[j]))
			j++, grew = 1;
	}
	int64_t reach = reach_of(t[i], t[j]);
	b.have = 1;
	b.lo = kg_time_add(t[i], -reach);
	b.hi = kg_time_add(t[j], reach);
	b.zero_far = t[i] > 0 && t[i] > kg_time_diff(t[j], t[i]);
	return b;
}

/* The times at or before 0 moved to the front of t; how many there are. */
static size_t nonpositive_first(int64_t *t, size_t n)
{
	size_t p = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i] <= 0) {
			int64_t x = t[p];
			t[p++] = t[i];
			t[i] = x;
		}
	return p;
}

/* The trace's body. When most times are after 0, from those alone: a 0 written for "not
 * recorded" must not widen the body that tells whether it is true. */
static struct untrue_body find_body(int64_t *t, size_t n)
{
	size_t p = nonpositive_first(t, n);
	struct untrue_body b = p < n - p ? body_of(t + p, n - p) : body_of(t, n);
	b.ok_lo = -INT64_MAX + 1, b.ok_hi = INT64_MAX - 1; /* rule 1 */
	if (b.have) {
		b.ok_lo = b.lo > b.ok_lo ? b.lo : b.ok_lo;
		b.ok_hi = b.hi < b.ok_hi ? b.hi : b.ok_hi;
	}
	if (b.zero_far && b.ok_lo < 1)
		b.ok_lo = 1;
	return b;
}

int untrue_find_body(const struct kg_model *m, struct untrue_body *b)
{
	struct sample s = {.cap = SAMPLE + 8};
	if (!(s.t = malloc(s.cap * sizeof(*s.t))))
		return -ENOMEM;
	sample_times(m, &s);
	*b = find_body(s.t, s.n);
	free(s.t);
	return 0;
}

/* ------------------------------------------------------------------ judging records */

static int judge_time(const struct untrue_body *b, int64_t t)
{
	if (t == KG_NO_TIME || !b->have)
		return -1;
	if (b->zero_far && t == 0)
		return KG_UNTRUE_AT_ZERO;
	if (b->zero_far && t < 0)
		return KG_UNTRUE_NEGATIVE;
	return t < b->lo || t > b->hi ? KG_UNTRUE_FAR : -1;
}

/* An unknown end (KG_NO_TIME: a range never closed, a call the source lost the end of) is
 * no reason. */
int untrue_why(const struct untrue_body *b, int64_t start, int64_t end)
{
	if (is_limit(start) || is_limit(end))
		return KG_UNTRUE_INT64_LIMIT;
	if (start != KG_NO_TIME && end != KG_NO_TIME && end < start)
		return KG_UNTRUE_END_BEFORE_START;
	if (start != KG_NO_TIME && end != KG_NO_TIME && kg_time_diff(end, start) > KG_LONGEST_NS)
		return KG_UNTRUE_TOO_LONG;
	int why = judge_time(b, start);
	return why >= 0 ? why : judge_time(b, end);
}

void untrue_count(struct untrue_tally *t, int kind, int why, uint32_t name)
{
	if (!t->total++) {
		t->first_kind = kind;
		t->first_why = why;
		t->first_name = name;
	}
	t->n[kind][why]++;
}

int untrue_op_kind(const struct kg_op *o)
{
	return o->kind == KG_OP_MEMCPY ? KG_UNTRUE_COPY
	       : o->kind == KG_OP_MEMSET ? KG_UNTRUE_MEMSET : KG_UNTRUE_KERNEL;
}

/* 1 when the record is left out (and counted). */
static int leave_out(const struct untrue_body *b, struct untrue_tally *t, int kind,
		     int64_t start, int64_t end, uint32_t name)
{
	int why = untrue_judge(b, start, end);
	if (why >= 0)
		untrue_count(t, kind, why, name);
	return why >= 0;
}

/* A wait of a call left out goes with it, uncounted: it is the same record. */
static void filter_syncs(struct kg_model *m, const struct untrue_body *b,
			 struct untrue_tally *t, const uint32_t *api_map, uint32_t n_apis_before)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_syncs; i++) {
		struct kg_sync s = m->syncs[i];
		if (api_map && s.api < n_apis_before && (s.api = api_map[s.api]) == KG_NONE)
			continue;
		if (!leave_out(b, t, KG_UNTRUE_WAIT, s.start, s.end, 0))
			m->syncs[n++] = s;
	}
	m->n_syncs = n;
}

static void filter_ranges(struct kg_model *m, const struct untrue_body *b,
			  struct untrue_tally *t)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_ranges; i++) {
		const struct kg_range *r = &m->ranges[i];
		if (!leave_out(b, t, KG_UNTRUE_RANGE, r->start, r->end, r->name))
			m->ranges[n++] = *r;
	}
	m->n_ranges = n;
}

/* The records that are spans and nothing else (start and end their first fields): the
 * hardware samples, SM blocks, host samples and the tracer's own spans. A sample copied
 * from an untrue op, or a garbage row, would otherwise be drawn at its time (a strip
 * reaching INT64_MIN) and widen what the views take for the trace's span. */
#define SPAN_SHAPED(type)                                                                  \
	_Static_assert(offsetof(type, start) == 0 && offsetof(type, end) == sizeof(int64_t), \
		       #type "'s times first")
SPAN_SHAPED(struct kg_hw_sample);
SPAN_SHAPED(struct kg_sm_block);
SPAN_SHAPED(struct kg_host_span);
#define FILTER_SPANS(m, b, t, kind, array) \
	((m)->n_##array = filter_spans((m)->array, (m)->n_##array, sizeof(*(m)->array), b, t, kind))

static uint32_t filter_spans(void *v, uint32_t n, size_t size, const struct untrue_body *b,
			     struct untrue_tally *t, int kind)
{
	char *base = v;
	uint32_t kept = 0;
	for (uint32_t i = 0; i < n; i++) {
		int64_t times[2];
		memcpy(times, base + (size_t)i * size, sizeof(times));
		if (leave_out(b, t, kind, times[0], times[1], 0))
			continue;
		if (kept != i)
			memcpy(base + (size_t)kept * size, base + (size_t)i * size, size);
		kept++;
	}
	return kept;
}

void drop_sm_blocks_of_no_op(struct kg_model *m)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->n_sm_blocks; i++)
		if (m->sm_blocks[i].op < m->n_ops)
			m->sm_blocks[n++] = m->sm_blocks[i];
	m->n_sm_blocks = n;
}

/* A process's start or end that cannot be true (a reader that takes them from the host
 * events it kept took them from the records left out too; a kgantt trace's processes
 * table holds what the file says) becomes unknown; so does a clock offset at a limit of
 * int64 (a saturated sum, never a clock's: the job's matching of ranks by wall-clock
 * would take it). */
static void mend_processes(struct kg_model *m, const struct untrue_body *b)
{
	for (uint32_t i = 0; i < m->n_processes; i++) {
		struct kg_process *p = &m->processes[i];
		if (is_limit(p->start) || judge_time(b, p->start) >= 0)
			p->start = KG_NO_TIME;
		if (is_limit(p->end) || judge_time(b, p->end) >= 0)
			p->end = KG_NO_TIME;
		if (is_limit(p->realtime_offset))
			p->realtime_offset = KG_NO_TIME;
	}
}

/* ------------------------------------------------------------------ the note */

/* At most max bytes of s, cut at a character boundary. */
static int cut_len(const char *s, int max)
{
	int n = (int)strlen(s);
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

static void add_note(struct kg_model *m, const struct untrue_tally *y)
{
	char text[sizeof(m->notes[0])], cnt[32];
	size_t o = 0;
	int kinds = 0, nkinds = 0;
	uint64_t per_kind[KG_UNTRUE_KINDS] = {0}, per_why[KG_UNTRUE_WHYS] = {0};
	for (int k = 0; k < KG_UNTRUE_KINDS; k++)
		for (int w = 0; w < KG_UNTRUE_WHYS; w++)
			per_kind[k] += y->n[k][w], per_why[w] += y->n[k][w];
	for (int k = 0; k < KG_UNTRUE_KINDS; k++)
		nkinds += per_kind[k] > 0;
#define PUT(...) (o += (size_t)snprintf(text + o, o < sizeof(text) ? sizeof(text) - o : 0, __VA_ARGS__))
	PUT("left out");
	for (int k = 0; k < KG_UNTRUE_KINDS; k++) {
		if (!per_kind[k])
			continue;
		kinds++;
		PUT("%s %s %s", kinds == 1 ? "" : kinds == nkinds ? " and" : ",",
		    fmt_count(per_kind[k], cnt), kind_words[k][per_kind[k] != 1]);
	}
	PUT(" whose times cannot be true:");
	int whys = 0;
	for (int w = 0; w < KG_UNTRUE_WHYS; w++)
		if (per_why[w])
			PUT("%s %s (%s)", whys++ ? "," : "", why_words[w], fmt_count(per_why[w], cnt));
	const char *name = model_text(m, y->first_name);
	int cut = cut_len(name, 48);
	if (*name)
		PUT("; the first: %s '%.*s%s'", kind_words[y->first_kind][0], cut, name,
		    cut < (int)strlen(name) ? "…" : "");
#undef PUT
	model_note(m, "%s", text);
}

/* A model left with nothing says why first: the commands name only the first note. */
static void note_first(struct kg_model *m)
{
	if (m->n_ops || m->n_apis || m->n_ranges || m->n_notes < 2)
		return;
	char last[sizeof(m->notes[0])];
	memcpy(last, m->notes[m->n_notes - 1], sizeof(last));
	memmove(m->notes[1], m->notes[0], (size_t)(m->n_notes - 1) * sizeof(m->notes[0]));
	memcpy(m->notes[0], last, sizeof(last));
}

/* ------------------------------------------------------------------ */

void untrue_finish(struct kg_model *m, const struct untrue_body *b, struct untrue_tally *t,
		   const uint32_t *api_map, uint32_t n_apis_before)
{
	filter_syncs(m, b, t, api_map, n_apis_before);
	filter_ranges(m, b, t);
	FILTER_SPANS(m, b, t, KG_UNTRUE_HW_SAMPLE, hw_samples);
	drop_sm_blocks_of_no_op(m); /* a kernel's left out go with it, uncounted */
	FILTER_SPANS(m, b, t, KG_UNTRUE_SM_BLOCK, sm_blocks);
	FILTER_SPANS(m, b, t, KG_UNTRUE_HOST_SPAN, host_spans);
	FILTER_SPANS(m, b, t, KG_UNTRUE_TRACER_SPAN, tracer_spans);
	mend_processes(m, b); /* also where no record was left out: a kgantt trace's own */
	if (!t->total)
		return;
	for (int k = 0; k < KG_UNTRUE_KINDS; k++)
		for (int w = 0; w < KG_UNTRUE_WHYS; w++)
			m->untrue[k][w] += t->n[k][w];
	add_note(m, t);
	note_first(m);
}

void untrue_merge(struct untrue_tally *into, const struct untrue_tally *from)
{
	if (!into->total && from->total) {
		into->first_kind = from->first_kind;
		into->first_why = from->first_why;
		into->first_name = from->first_name;
	}
	into->total += from->total;
	for (int k = 0; k < KG_UNTRUE_KINDS; k++)
		for (int w = 0; w < KG_UNTRUE_WHYS; w++)
			into->n[k][w] += from->n[k][w];
}
