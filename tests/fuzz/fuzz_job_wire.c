/* libFuzzer target: the job wire (job/job_wire.c), the bytes MPI carries from each
 * process to process 0. The input is ranks packed back to back, as process 0 receives
 * them; each that unpacks must pack again to the same bytes, and the job of them goes
 * through job_analyse, its report (text and JSON, every figure checked), its page and,
 * for a quarter of the inputs, its chart (fuzz_jobs.h).
 *
 * Byte mutations of a packed rank mostly break its sizes, so a custom mutator (three
 * mutations in four) unpacks one rank of the input, edits it as a process that sent a
 * damaged or hostile rank would (counts and values: times, durations, gains, shares,
 * bins, kernel totals, collectives, steps, findings, names; to the edges of their types
 * or beyond what a rank can have) and packs it again under a valid header, so that what
 * is checked is the wire's bounds on the values, not only its framing. Seeds: make
 * fuzz-job-seeds (tests/fuzz/job_seeds.c). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_jobs.h"

#define MAX_RANKS 4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_target = "fuzz_job_wire";
	struct kg_rank *ranks = calloc(MAX_RANKS, sizeof(*ranks));
	uint32_t n = 0;
	size_t at = 0;
	while (ranks && n < MAX_RANKS && at < size) {
		size_t used;
		if (job_wire_unpack(data + at, size - at, &ranks[n], &used) != 0)
			break;
		uint8_t *again;
		size_t len;
		if (job_wire_pack(&ranks[n], &again, &len) == 0) {
			if (len != used || memcmp(again, data + at, used)) {
				fprintf(stderr, "fuzz_job_wire: rank %u does not pack to the bytes it "
						"was unpacked from\n", n);
				abort();
			}
			free(again);
		}
		n++;
		at += used;
	}
	fuzz_job_outputs(ranks, n, n, size && data[size / 2] % 4 == 0);
	return 0;
}

/* ------------------------------------------------------------------ the mutator */

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A value at an edge of int64, of what a rank holds, or near what it was. */
static int64_t edge_i64(uint64_t *s, int64_t was)
{
	static const int64_t edges[] = {0, 1, -1, INT64_MAX, INT64_MIN, -INT64_MAX,
					INT64_MAX / 2, INT64_MIN / 2, 100000000000000000LL,
					1000000000000000000LL, 4294967296LL, 1000000000LL};
	switch (next(s) % 5) {
	case 0: return (int64_t)((uint64_t)was + next(s) % 2001 - 1000); /* wraps, no UB */
	case 1: return was / 2;
	case 2: return (int64_t)next(s);
	default: return edges[next(s) % (sizeof(edges) / sizeof(*edges))];
	}
}

static uint32_t edge_u32(uint64_t *s, uint32_t was)
{
	static const uint32_t edges[] = {0, 1, 2, 3, UINT32_MAX, UINT32_MAX - 1, INT32_MAX,
					 0x80000000u, 65536, 1u << 20};
	return next(s) % 3 ? edges[next(s) % (sizeof(edges) / sizeof(*edges))]
			   : was + (uint32_t)(next(s) % 5) - 2;
}

static double edge_double(uint64_t *s, double was)
{
	static const double edges[] = {0, -0.0, 1, -1, 1e17, 1e18, 1e300, -1e300, INFINITY,
				       -INFINITY, NAN, 9.2233720368547758e18, 1e-300, 100, 1e9};
	return next(s) % 4 ? edges[next(s) % (sizeof(edges) / sizeof(*edges))] : was * 1000;
}

#define I64(f) {offsetof(struct kg_rank, f), 'q'}
#define U32(f) {offsetof(struct kg_rank, f), 'u'}
#define DBL(f) {offsetof(struct kg_rank, f), 'd'}
static const struct {
	size_t at;
	char type;
} rank_fields[] = {
	I64(realtime_offset), I64(shift), I64(begin), I64(end), I64(busy), I64(kernel_busy),
	I64(compute_time), I64(comm_time), I64(comm_busy), I64(comm_overlapped),
	I64(idle_by_cause[0]), I64(idle_by_cause[1]),
	I64(idle_by_cause[2]), I64(idle_startup), I64(idle_winddown), I64(steady_begin),
	I64(steady_end), I64(steady_idle_by_cause[0]), I64(steady_idle_by_cause[1]),
	I64(steady_idle_by_cause[KG_GAP_CAUSES - 1]), I64(late_ns), U32(pid), U32(ordinal),
	U32(gpus_in_process), U32(kernels), U32(comm_kernels), U32(n_findings), U32(late),
	U32(coll_cut), DBL(findings_gain), DBL(wait_caused_ns), DBL(slowdown), DBL(work_ns),
};

static void edit_scalar(struct kg_rank *r, uint64_t *s)
{
	size_t k = next(s) % (sizeof(rank_fields) / sizeof(*rank_fields));
	uint8_t *at = (uint8_t *)r + rank_fields[k].at;
	if (rank_fields[k].type == 'q') {
		int64_t v;
		memcpy(&v, at, sizeof(v));
		v = edge_i64(s, v);
		memcpy(at, &v, sizeof(v));
	} else if (rank_fields[k].type == 'u') {
		uint32_t v;
		memcpy(&v, at, sizeof(v));
		v = edge_u32(s, v);
		memcpy(at, &v, sizeof(v));
	} else {
		double v;
		memcpy(&v, at, sizeof(v));
		v = edge_double(s, v);
		memcpy(at, &v, sizeof(v));
	}
}

/* n elements of size sz at *v, grown or cut to a new count (new elements copy old ones or
 * are zero); the new count, or the old when out of memory. */
static uint32_t resize(void **v, uint32_t n, size_t sz, uint64_t *s, uint32_t max)
{
	uint32_t to = next(s) % 3 == 0 ? (uint32_t)(next(s) % (max + 1))
				       : n + (uint32_t)(next(s) % 9) - 4;
	if (to > max)
		to = n ? n - 1 : 0;
	uint8_t *g = realloc(*v, (size_t)(to ? to : 1) * sz);
	if (!g)
		return n;
	for (uint32_t i = n; i < to; i++) {
		if (n)
			memcpy(g + i * sz, g + (i % n) * sz, sz);
		else
			memset(g + i * sz, 0, sz);
	}
	*v = g;
	return to;
}

static void edit_kernels(struct kg_rank *r, uint64_t *s)
{
	if (next(s) % 4 == 0) {
		void *v = r->kernel;
		r->n_kernel = resize(&v, r->n_kernel, sizeof(*r->kernel), s,
				     KG_JOB_KERNELS + KG_JOB_COMM_NAMES);
		r->kernel = v;
		if (r->n_comm_names > r->n_kernel || next(s) % 4 == 0)
			r->n_comm_names = (uint32_t)(next(s) % (r->n_kernel + 1));
		return;
	}
	if (!r->n_kernel)
		return;
	struct kg_rank_kernel *k = &r->kernel[next(s) % r->n_kernel];
	switch (next(s) % 5) {
	case 0: k->total = edge_i64(s, k->total); break;
	case 1: k->p50 = edge_i64(s, k->p50); break;
	case 2: k->count = edge_u32(s, k->count); break;
	case 3: k->hash = r->kernel[next(s) % r->n_kernel].hash; break;
	default: k->name = r->names_len ? (uint32_t)(next(s) % r->names_len) : 0; break;
	}
}

/* A collective's step among the steps, or none: what the wire checks of the counts. */
static void steps_in_range(struct kg_rank *r)
{
	for (uint32_t i = 0; i < r->n_coll; i++)
		if (r->coll[i].step != UINT32_MAX && r->coll[i].step >= r->n_steps)
			r->coll[i].step = UINT32_MAX;
}

static void edit_collectives(struct kg_rank *r, uint64_t *s)
{
	if (next(s) % 4 == 0) {
		void *v = r->coll;
		r->n_coll = resize(&v, r->n_coll, sizeof(*r->coll), s, 64);
		r->coll = v;
		steps_in_range(r);
		return;
	}
	if (!r->n_coll)
		return;
	struct kg_rank_collective *c = &r->coll[next(s) % r->n_coll];
	switch (next(s) % 8) {
	case 0: c->start = edge_i64(s, c->start); break;
	case 1: c->end = edge_i64(s, c->end); break;
	case 2: c->hash = next(s) % 2 ? r->coll[0].hash : next(s); break;
	/* what it is (job_match.c): one past the kinds, groups and sizes shared or not */
	case 3: c->kind = (uint8_t)(next(s) % (KG_COMM_KIND_COUNT + 1)); break;
	case 4: c->group = next(s) % 2 ? r->coll[0].group : next(s) % 3; break;
	case 5: c->elems = next(s) % 2 ? r->coll[0].elems : (uint64_t)edge_i64(s, (int64_t)c->elems); break;
	case 6: c->seq = next(s) % 2 ? c->seq + 1 : (uint64_t)edge_i64(s, (int64_t)c->seq); break;
	default: c->step = r->n_steps && next(s) % 2 ? (uint32_t)(next(s) % r->n_steps) : UINT32_MAX;
	}
}

static void edit_steps(struct kg_rank *r, uint64_t *s)
{
	if (next(s) % 4 == 0) {
		void *v = r->steps;
		r->n_steps = resize(&v, r->n_steps, sizeof(*r->steps), s, 64);
		r->steps = v;
		steps_in_range(r);
		return;
	}
	if (!r->n_steps)
		return;
	struct kg_rank_step *st = &r->steps[next(s) % r->n_steps];
	switch (next(s) % 5) {
	case 0: st->start = edge_i64(s, st->start); break;
	case 1: st->end = edge_i64(s, st->end); break;
	case 2: st->kernels = edge_u32(s, st->kernels); break;
	case 3: st->compute = edge_i64(s, st->compute); break;
	default: r->steps_source = (uint8_t)(next(s) % (KG_STEPS_SOURCES + 1)); /* one past */
	}
}

static void edit_findings(struct kg_rank *r, uint64_t *s)
{
	if (!r->n_top || next(s) % 5 == 0) { /* one more or one fewer */
		if (r->n_top && next(s) % 2) {
			finding_free(&r->top[--r->n_top]);
			return;
		}
		struct kg_finding *g = realloc(r->top, (r->n_top + 1) * sizeof(*g));
		if (!g)
			return;
		r->top = g;
		g[r->n_top] = (struct kg_finding){.rule = KG_RULE_HOST_BOUND, .gpu = KG_NONE,
						   .rank = KG_NONE, .title = strdup("t")};
		r->n_top++;
		return;
	}
	struct kg_finding *f = &r->top[next(s) % r->n_top];
	switch (next(s) % 5) {
	case 0: f->rule = (enum kg_rule_id)(next(s) % (KG_RULE_COUNT + 1)); break;
	case 1: f->severity = (enum kg_severity)(next(s) % (KG_SEV_COUNT + 1)); break;
	case 2: f->gain_ns = edge_double(s, f->gain_ns); break;
	case 3: f->gain_pct = edge_double(s, f->gain_pct); break;
	default: {
		size_t len = next(s) % 3 ? next(s) % 300 : 0;
		char *t = malloc(len + 1);
		if (!t)
			return;
		for (size_t i = 0; i < len; i++)
			t[i] = (char)(next(s) % 4 ? 'a' + next(s) % 26 : next(s) % 256);
		t[len] = 0;
		free(f->title);
		f->title = t;
	}
	}
}

static void edit_text(struct kg_rank *r, uint64_t *s)
{
	static const char *const ranks[] = {"0", "1", "-1", "4294967295", "4294967294",
					    "99999999999999999999", "", "03", "2"};
	char *fields[] = {r->rank, r->label, r->host, r->file};
	size_t lens[] = {sizeof(r->rank), sizeof(r->label), sizeof(r->host), sizeof(r->file)};
	size_t k = next(s) % 4;
	if (k == 0 || next(s) % 2)
		snprintf(r->rank, sizeof(r->rank), "%s", ranks[next(s) % 9]);
	else if (next(s) % 2)
		snprintf(fields[k], lens[k], "%s", r->rank);
	else
		memset(fields[k], 'x', lens[k] - 1);
}

static void edit_bins(struct kg_rank *r, uint64_t *s)
{
	uint32_t from = (uint32_t)(next(s) % KG_JOB_BINS), n = (uint32_t)(next(s) % 64 + 1);
	uint8_t v = (uint8_t)(next(s) % 8 ? next(s) % KG_BIN_STATES : next(s) % 256);
	for (uint32_t i = from; i < from + n && i < KG_JOB_BINS; i++)
		r->bins[i] = v;
}

static void edit(struct kg_rank *r, uint64_t *s)
{
	switch (next(s) % 8) {
	case 0:
	case 1: edit_scalar(r, s); break;
	case 2: edit_kernels(r, s); break;
	case 3: edit_collectives(r, s); break;
	case 4: edit_steps(r, s); break;
	case 5: edit_findings(r, s); break;
	case 6: edit_text(r, s); break;
	default: edit_bins(r, s);
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint64_t s = (uint64_t)seed * 0x9e3779b97f4a7c15ULL + 1;
	if (next(&s) % 4 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	/* the ranks of the input; one of them edited */
	size_t starts[MAX_RANKS + 1], at = 0;
	uint32_t n = 0;
	struct kg_rank r;
	while (n < MAX_RANKS && at < size) {
		size_t used;
		if (job_wire_unpack(data + at, size - at, &r, &used) != 0)
			break;
		rank_free(&r);
		starts[n++] = at;
		at += used;
	}
	starts[n] = at;
	if (!n)
		return LLVMFuzzerMutate(data, size, max_size);
	uint32_t k = (uint32_t)(next(&s) % n);
	size_t used, len;
	if (job_wire_unpack(data + starts[k], size - starts[k], &r, &used) != 0)
		return LLVMFuzzerMutate(data, size, max_size);
	for (uint64_t edits = next(&s) % 3 + 1; edits--;)
		edit(&r, &s);
	if (next(&s) % 8 == 0 && n < MAX_RANKS)
		used = 0; /* a rank more: the edited one inserted before the k-th */
	uint8_t *b;
	int rc = job_wire_pack(&r, &b, &len);
	rank_free(&r);
	if (rc)
		return LLVMFuzzerMutate(data, size, max_size);
	size_t out = size - used + len;
	if (out > max_size) {
		free(b);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	memmove(data + starts[k] + len, data + starts[k] + used, size - starts[k] - used);
	memcpy(data + starts[k], b, len);
	free(b);
	return out;
}
