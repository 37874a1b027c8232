/* The job's pieces on hand-made ranks (job/job.h): summaries through the wire and back,
 * damaged wire bytes refused (never a crash), rank expressions, and the rules and clock
 * alignment on a few ranks whose truth is known. */
#include "harness.h"

#include <errno.h>

#include "analysis/analysis.h"
#include "job/job.h"
#include "model/model.h"

#define MS 1000000LL

/* A rank with n collectives, the k-th starting at base + k*10 ms + late(k), ending 2 ms
 * after the latest start of all ranks (given), on a clock shifted by clock. */
static void make_rank(struct kg_rank *r, const char *rank, const char *host, int64_t clock,
		      int64_t realtime, uint32_t n, const int64_t *starts, const int64_t *ends)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->rank, sizeof(r->rank), "%s", rank);
	snprintf(r->label, sizeof(r->label), "rank %s", rank);
	snprintf(r->host, sizeof(r->host), "%s", host);
	snprintf(r->file, sizeof(r->file), "rank%s.kgt", rank);
	r->realtime_offset = realtime;
	r->begin = clock;
	r->end = clock + (int64_t)n * 10 * MS + 5 * MS;
	r->busy = r->end - r->begin;
	r->kernels = 3 * n;
	r->coll = calloc(n, sizeof(*r->coll));
	r->n_coll = n;
	for (uint32_t k = 0; k < n; k++)
		r->coll[k] = (struct kg_rank_collective){.start = clock + starts[k],
							 .end = clock + ends[k],
							 .hash = 42, .step = UINT32_MAX};
	const char *names = "gemm\0ncclAllReduce\0";
	r->names = malloc(19);
	memcpy(r->names, names, 19);
	r->names_len = 19;
	r->kernel = calloc(2, sizeof(*r->kernel));
	r->kernel[0] = (struct kg_rank_kernel){.name = 0, .count = 2 * n, .total = 2 * n * MS,
					       .p50 = MS, .hash = 7};
	r->kernel[1] = (struct kg_rank_kernel){.name = 5, .count = n, .total = n * MS, .p50 = MS,
					       .hash = 42};
	r->n_kernel = 2;
	r->n_comm_names = 1;
	r->compute_time = 2 * n * MS;
}

/* Four ranks on two hosts; rank 2 starts every collective 1 ms late; host b's clock is
 * 1000 s ahead and its realtime offset 300 µs off. */
static void make_job(struct kg_job *j)
{
	enum { N = 20 };
	int64_t starts[4][N], ends[N];
	for (int k = 0; k < N; k++) {
		int64_t last = 0;
		for (int r = 0; r < 4; r++) {
			starts[r][k] = (int64_t)k * 10 * MS + r * 1000 + (r == 2 ? MS : 0);
			if (starts[r][k] > last)
				last = starts[r][k];
		}
		ends[k] = last + 2 * MS;
	}
	memset(j, 0, sizeof(*j));
	analysis_config_default(&j->cfg);
	j->ranks = calloc(4, sizeof(*j->ranks));
	j->n_ranks = 4;
	j->n_files = 4;
	const int64_t rt = 1700000000000000000LL, b_clock = 1000000 * MS;
	for (int r = 0; r < 4; r++) {
		char name[8];
		snprintf(name, sizeof(name), "%d", 3 - r); /* given out of order */
		int on_b = (3 - r) >= 2;
		int64_t clock = on_b ? b_clock : 0;
		int64_t e[N];
		for (int k = 0; k < N; k++)
			e[k] = ends[k] + (3 - r) * 500; /* they leave within 2 µs */
		make_rank(&j->ranks[r], name, on_b ? "b" : "a", clock,
			  on_b ? rt - b_clock + 300000 : rt, N, starts[3 - r], e);
	}
}

TEST(wire_round_trip)
{
	struct kg_job j;
	make_job(&j);
	struct kg_rank *r = &j.ranks[1];
	r->steps = calloc(2, sizeof(*r->steps));
	r->n_steps = 2;
	r->steps[1].kernels = 77;
	r->steps_source = KG_STEPS_RHYTHM; /* detected: the report says so on process 0 */
	r->kernel_busy = r->busy;
	r->comm_busy = r->busy / 2;
	r->comm_overlapped = r->comm_busy / 3;
	snprintf(r->step_name, sizeof(r->step_name), "(detected by rhythm)");
	r->coll[3].step = 1;
	r->bins[5] = KG_BIN_IDLE_SYNC;
	r->top = calloc(1, sizeof(*r->top));
	r->n_top = 1;
	r->top[0] = (struct kg_finding){.rule = KG_RULE_HOST_BOUND, .severity = KG_SEV_WARNING,
					.gain_ns = 5e6, .gain_pct = 4.5};
	r->top[0].title = strdup("GPU 0 waits for the host: a title longer than the 199 bytes a "
				 "title had before, so that a wire that cut it would be seen: "
				 "0123456789 0123456789 0123456789 0123456789 0123456789 0123456789 "
				 "0123456789 0123456789 (limited by shared memory)");
	uint8_t *buf;
	size_t len, used;
	CHECK_EQ_INT(job_wire_pack(r, &buf, &len), 0);
	struct kg_rank back;
	CHECK_EQ_INT(job_wire_unpack(buf, len, &back, &used), 0);
	CHECK_EQ_INT(used, len);
	CHECK_EQ_STR(back.label, r->label);
	CHECK_EQ_INT(back.n_coll, r->n_coll);
	CHECK_EQ_INT(back.coll[7].start, r->coll[7].start);
	CHECK_EQ_INT(back.coll[3].step, 1);
	CHECK_EQ_INT(back.steps[1].kernels, 77);
	CHECK_EQ_INT(back.steps_source, KG_STEPS_RHYTHM);
	CHECK_EQ_INT(back.comm_busy, r->busy / 2);
	CHECK_EQ_INT(back.comm_overlapped, r->comm_busy / 3);
	CHECK(back.comm_overlapped > 0);
	CHECK_EQ_STR(back.step_name, "(detected by rhythm)");
	CHECK_EQ_INT(back.bins[5], KG_BIN_IDLE_SYNC);
	CHECK_EQ_STR(rank_name(&back, &back.kernel[1]), "ncclAllReduce");
	CHECK_EQ_INT(back.n_top, 1);
	CHECK_EQ_INT(back.top[0].rule, KG_RULE_HOST_BOUND);
	CHECK_EQ_INT(back.top[0].severity, KG_SEV_WARNING);
	CHECK_EQ_STR(back.top[0].title, r->top[0].title);
	rank_free(&back);
	free(buf);
	job_free(&j);
}

TEST(wire_refuses_damaged_bytes)
{
	struct kg_job j;
	make_job(&j);
	uint8_t *buf;
	size_t len, used;
	CHECK_EQ_INT(job_wire_pack(&j.ranks[0], &buf, &len), 0);
	struct kg_rank back;
	CHECK(job_wire_unpack(buf, len - 1, &back, &used) < 0);   /* cut short */
	CHECK(job_wire_unpack(buf, 10, &back, &used) < 0);
	buf[0] ^= 1;                                              /* not a rank */
	CHECK(job_wire_unpack(buf, len, &back, &used) < 0);
	buf[0] ^= 1;
	/* every single byte flipped: refused, or taken whole with its sizes consistent */
	srand(7);
	for (int i = 0; i < 20000; i++) {
		size_t at = (size_t)rand() % len;
		uint8_t old = buf[at];
		buf[at] ^= (uint8_t)(1u << (rand() % 8));
		if (job_wire_unpack(buf, len, &back, &used) == 0) {
			CHECK(used <= len);
			for (uint32_t k = 0; k < back.n_kernel; k++)
				CHECK(rank_name(&back, &back.kernel[k]) != NULL);
			rank_free(&back);
		}
		buf[at] = old;
	}
	free(buf);
	job_free(&j);
}

/* Damaged names (no NUL at their end) refused before the findings were read: the rank was
 * freed with the findings' count from the wire and no findings (UB: fuzz_job_wire). */
TEST(wire_refuses_names_before_findings)
{
	struct kg_job j;
	make_job(&j);
	struct kg_rank *r = &j.ranks[0];
	r->top = calloc(1, sizeof(*r->top));
	r->n_top = 1;
	r->top[0] = (struct kg_finding){.rule = KG_RULE_HOST_BOUND, .title = strdup("t")};
	uint8_t *buf;
	size_t len, used;
	CHECK_EQ_INT(job_wire_pack(r, &buf, &len), 0);
	/* the names' last byte: before the finding (its fixed part and its title "t") */
	size_t names_end = len - 1 - 32 - 1;
	CHECK_EQ_INT(buf[names_end], 0);
	buf[names_end] = 'x';
	struct kg_rank back;
	CHECK(job_wire_unpack(buf, len, &back, &used) < 0);
	free(buf);
	job_free(&j);
}

/* Bytes that would pack again to other bytes: a title with a NUL in it (cut there), a
 * pointer the sender clears (cleared). Refused: what the wire takes is what was sent. */
TEST(wire_refuses_what_packs_otherwise)
{
	struct kg_job j;
	make_job(&j);
	struct kg_rank *r = &j.ranks[0];
	r->top = calloc(1, sizeof(*r->top));
	r->n_top = 1;
	r->top[0] = (struct kg_finding){.rule = KG_RULE_HOST_BOUND, .title = strdup("ab")};
	uint8_t *buf;
	size_t len, used;
	CHECK_EQ_INT(job_wire_pack(r, &buf, &len), 0);
	struct kg_rank back;
	buf[len - 2] = 0; /* "\0b" */
	CHECK(job_wire_unpack(buf, len, &back, &used) < 0);
	buf[len - 2] = 'a';
	CHECK_EQ_INT(job_wire_unpack(buf, len, &back, &used), 0);
	rank_free(&back);
	buf[24 + offsetof(struct kg_rank, kernel)] = 1; /* after the 24-byte header */
	CHECK(job_wire_unpack(buf, len, &back, &used) < 0);
	free(buf);
	job_free(&j);
}

/* Values no rank can have, each under a valid frame: refused (issue 22: they overflowed
 * the job's sums and printed figures that cannot be true). */
TEST(wire_refuses_values_a_rank_cannot_have)
{
	enum { EDITS = 27 };
	for (int e = 0; e < EDITS; e++) {
		struct kg_job j;
		make_job(&j);
		struct kg_rank *r = &j.ranks[0];
		r->steps = calloc(1, sizeof(*r->steps));
		r->n_steps = 1;
		r->steps[0] = (struct kg_rank_step){.start = r->begin, .end = r->end};
		switch (e) {
		case 0: r->busy = INT64_MAX; break;
		case 1: r->idle_by_cause[1] = -1; break;
		case 2: r->begin = r->end + 1; break;
		case 3: r->end = INT64_MAX; break;
		case 4: r->kernel[0].total = -5; break;
		case 5: r->kernel[1].p50 = INT64_MAX / 2; break;
		case 6: r->coll[2].end = r->coll[2].start - 1; break;
		case 7: r->bins[3] = 200; break;
		case 8: memset(r->label, 'x', sizeof(r->label)); break;
		case 9: r->late_ns = 5; break;
		case 10: r->steps[0].end = r->steps[0].start - 1; break;
		case 11: r->steps[0].compute = -1; break;
		case 12: r->findings_gain = 1e300; break;
		case 13: r->steady_idle_by_cause[0] = 200000000000000000LL; break;
		case 14: r->slowdown = 1.5; break;
		case 15: r->idle_startup = r->end - r->begin + 1; break; /* a negative steady span */
		case 16: r->busy = r->end - r->begin + 1; break;
		case 17: r->steady_idle_by_cause[2] = r->end - r->begin; break;
		case 18: r->begin = KG_NO_TIME; break; /* printed -9223372036854775807 */
		case 19: r->coll[1].start = KG_NO_TIME; break; /* waits of 9223372036.85 s */
		case 20: r->coll[1].start = r->begin - 1; break;
		case 21: r->findings_gain = -0.0; break;
		case 22: r->findings_gain = 4.3458473798968777e-311; break;
		case 23: r->steps_source = KG_STEPS_SOURCES; break; /* no way steps are found */
		case 24: r->comm_overlapped = r->comm_busy + 1; break; /* an overlap over 100 % */
		case 25: r->comm_busy = r->kernel_busy + 1; break; /* more than its kernels (0) */
		default: r->shift = 1;
		}
		uint8_t *buf;
		size_t len, used;
		CHECK_EQ_INT(job_wire_pack(r, &buf, &len), 0);
		struct kg_rank back;
		int rc = job_wire_unpack(buf, len, &back, &used);
		if (rc == 0) {
			fprintf(stderr, "edit %d taken\n", e);
			rank_free(&back);
		}
		CHECK(rc < 0);
		free(buf);
		job_free(&j);
	}
}

/* An empty job of n ranks (to be made with make_rank), with the default thresholds. */
static void empty_job(struct kg_job *j, uint32_t n)
{
	memset(j, 0, sizeof(*j));
	analysis_config_default(&j->cfg);
	j->ranks = calloc(n, sizeof(*j->ranks));
	j->n_ranks = j->n_files = n;
}

/* Two ends compared (three ranks, one collective): the alignment's percentiles are in
 * order (its p99 read 0 below a p50 of 2.46 ms: fuzz_job). */
TEST(alignment_percentiles_ordered)
{
	struct kg_job j;
	empty_job(&j, 3);
	for (int r = 0; r < 3; r++) {
		char name[8];
		snprintf(name, sizeof(name), "%d", r);
		int64_t start = 0, end = 2 * MS + (r == 2 ? 2460000 : 0);
		make_rank(&j.ranks[r], name, "a", 0, 1700000000000000000LL, 1, &start, &end);
	}
	CHECK_EQ_INT(job_analyse(&j), 0);
	/* rank 2's end lies 2.46 ms from the others': not the same collective (ends within
	 * coll_end_spread_ns), so ranks 0 and 1 make the one collective */
	CHECK_EQ_INT(j.align_samples, 1);
	CHECK_EQ_INT(j.n_collectives, 1);
	CHECK_EQ_INT(j.match.alone, 1);
	CHECK(j.align_p50 <= j.align_p99 && j.align_p99 <= j.align_max);
	job_free(&j);
}

/* Realtime offsets far apart (a rank's near INT64_MAX, the other's near INT64_MIN): no
 * clock is so far from another, and no time of the job reads saturated (ranks.begin_ns
 * -9223372036854775807: fuzz_job_wire). */
TEST(absurd_realtime_offsets)
{
	struct kg_job j;
	empty_job(&j, 2);
	int64_t start = 0, end = 2 * MS;
	make_rank(&j.ranks[0], "0", "a", 1000 * MS, INT64_MAX - 5, 1, &start, &end);
	make_rank(&j.ranks[1], "1", "b", -4000000000000000000LL, -INT64_MAX + 5, 1, &start, &end);
	j.ranks[0].n_coll = j.ranks[1].n_coll = 0; /* no collective to align them by */
	CHECK_EQ_INT(job_analyse(&j), 0);
	for (uint32_t i = 0; i < j.n_ranks; i++) {
		int64_t b = kg_time_add(j.ranks[i].begin, j.ranks[i].shift);
		int64_t e = kg_time_add(j.ranks[i].end, j.ranks[i].shift);
		CHECK(b != INT64_MAX && b != -INT64_MAX && e != INT64_MAX && e != -INT64_MAX);
	}
	job_free(&j);
}

/* Two ranks of one clock whose work lies 28 years apart: not one job, refused (its span
 * read 8.98e17 ns: fuzz_job_wire). */
TEST(ranks_years_apart_are_not_one_job)
{
	struct kg_job j;
	empty_job(&j, 2);
	int64_t start = 0, end = 2 * MS;
	make_rank(&j.ranks[0], "0", "a", 1000 * MS, 0, 1, &start, &end);
	make_rank(&j.ranks[1], "1", "a", 898000000000000000LL, 0, 1, &start, &end);
	CHECK_EQ_INT(job_analyse(&j), -ERANGE);
	CHECK(strstr(j.apart_note, "not one job") != NULL);
	job_free(&j);
}

TEST(rank_expressions)
{
	struct kg_rank_set s;
	char err[200];
	CHECK_EQ_INT(rank_set_parse(&s, "0-7,12,100-", err, sizeof(err)), 0);
	CHECK(rank_set_has(&s, 0) && rank_set_has(&s, 7) && !rank_set_has(&s, 8));
	CHECK(rank_set_has(&s, 12) && !rank_set_has(&s, 99) && rank_set_has(&s, 100000));
	rank_set_free(&s);
	const char *bad[] = {"", "a", "3-1", "1,,2", "1,", "-3", "1-2-3", "99999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		CHECK(rank_set_parse(&s, bad[i], err, sizeof(err)) < 0);
		CHECK(strstr(err, "rank expression") != NULL);
	}
	CHECK(rank_set_has(NULL, 5)); /* no set: every rank */
}

TEST(straggler_and_clocks)
{
	struct kg_job j;
	make_job(&j);
	CHECK_EQ_INT(job_analyse(&j), 0);
	CHECK_EQ_STR(j.ranks[0].rank, "0"); /* ordered by rank */
	CHECK_EQ_STR(j.ranks[3].rank, "3");
	CHECK_EQ_INT(j.n_hosts, 2);
	CHECK(j.clocks_by_collectives);
	CHECK_EQ_INT(j.n_collectives, 20);
	/* host b put back within the ranks' 2 µs of spread, not NTP's 300 µs */
	CHECK(j.align_max <= 3000);
	CHECK(j.ranks[2].shift < -999 * 1000 * MS);
	CHECK_EQ_INT(j.ranks[2].late, 20);
	CHECK(j.findings.n >= 1);
	CHECK_EQ_STR(kg_rules[j.findings.v[0].rule].id, "job-straggler");
	CHECK_EQ_INT(j.findings.v[0].rank, 2);
	/* late by 1 ms minus the next-to-last's 1 µs lead, 20 times */
	CHECK(j.ranks[2].late_ns > 19 * MS && j.ranks[2].late_ns < 20 * MS);
	job_free(&j);
}

/* The one definition of a collective's waits (straggler in one trace, job-straggler): each
 * part's own wait for the last, not the skew times the parts that waited. */
TEST(arrivals_sum_each_parts_own_wait)
{
	const int64_t starts[] = {10 * MS, 40 * MS, 25 * MS, 40 * MS};
	struct kg_arrivals ar;
	coll_arrivals(starts, 4, &ar);
	CHECK_EQ_INT(ar.first, 10 * MS);
	CHECK_EQ_INT(ar.last, 40 * MS);
	CHECK_EQ_INT(ar.second, 40 * MS);
	CHECK_EQ_INT(ar.last_part, 1); /* the first that started last */
	CHECK(ar.wait == (double)(30 + 0 + 15 + 0) * MS); /* skew x 3 waiting would be 90 ms */
	coll_arrivals(starts, 1, &ar);
	CHECK_EQ_INT(ar.second, INT64_MIN);
	CHECK(ar.wait == 0);
}

TEST(one_rank_and_no_collectives)
{
	struct kg_job j;
	memset(&j, 0, sizeof(j));
	analysis_config_default(&j.cfg);
	j.ranks = calloc(1, sizeof(*j.ranks));
	j.n_ranks = 1;
	make_rank(&j.ranks[0], "0", "a", 0, KG_NO_TIME, 0, NULL, NULL);
	CHECK_EQ_INT(job_analyse(&j), 0);
	CHECK_EQ_INT(j.findings.n, 0);
	CHECK_EQ_INT(j.n_collectives, 0);
	CHECK(job_last_starts(&j) == NULL);
	job_free(&j);
}

/* Sets what the collectives of a rank are: kinds[k], elems[k], all of group g. */
static void name_collectives(struct kg_rank *r, const uint8_t *kinds, const uint64_t *elems,
			     uint64_t group)
{
	for (uint32_t k = 0; k < r->n_coll; k++) {
		r->coll[k].kind = kinds[k];
		r->coll[k].elems = elems ? elems[k] : 0;
		r->coll[k].group = group;
		r->coll[k].from_call = 1;
	}
}

/* A sampled trace (HTA's trace_filter): rank 0 lost its first all-gather, so the k-th
 * collective of one rank is the (k+1)-th of the other. By position, rank 1 looked last
 * everywhere by 10 ms; by identity and ends, rank 1 is last by 1 ms at the two it shares.
 * On main before the matching by identity: rank 1 late at 2 collectives by ~20 ms. */
TEST(sampled_trace_matched_by_identity)
{
	struct kg_job j;
	empty_job(&j, 2);
	/* rank 1: all_gather at 0, 10, 20 ms; rank 0 lacks the first */
	int64_t s1[] = {0, 10 * MS + MS, 20 * MS + MS}, e1[] = {3 * MS, 14 * MS, 24 * MS};
	int64_t s0[] = {10 * MS, 20 * MS}, e0[] = {14 * MS, 24 * MS};
	make_rank(&j.ranks[0], "0", "a", 0, 0, 2, s0, e0);
	make_rank(&j.ranks[1], "1", "a", 0, 0, 3, s1, e1);
	const uint8_t ag[] = {KG_COMM_ALL_GATHER, KG_COMM_ALL_GATHER, KG_COMM_ALL_GATHER};
	const uint64_t sz[] = {1024, 1024, 1024};
	name_collectives(&j.ranks[0], ag, sz, 5);
	name_collectives(&j.ranks[1], ag, sz, 5);
	CHECK_EQ_INT(job_analyse(&j), 0);
	CHECK_EQ_INT(j.n_collectives, 2);
	CHECK_EQ_INT(j.match.alone, 1);
	CHECK_EQ_INT(j.ranks[1].late, 2);
	CHECK_EQ_INT(j.ranks[1].late_ns, 2 * MS);
	CHECK_EQ_INT(j.ranks[0].late, 0);
	job_free(&j);
}

/* Point-to-point transfers are not collectives: a pipeline's recv waits for its sender by
 * design, and its start skew is no straggler. */
TEST(point_to_point_is_no_straggler)
{
	struct kg_job j;
	empty_job(&j, 2);
	int64_t s0[] = {0, 10 * MS}, s1[] = {5 * MS, 15 * MS}, e[] = {6 * MS, 16 * MS};
	make_rank(&j.ranks[0], "0", "a", 0, 0, 2, s0, e);
	make_rank(&j.ranks[1], "1", "a", 0, 0, 2, s1, e);
	const uint8_t send[] = {KG_COMM_SEND, KG_COMM_SEND}, recv[] = {KG_COMM_RECV, KG_COMM_RECV};
	name_collectives(&j.ranks[0], send, NULL, 0);
	name_collectives(&j.ranks[1], recv, NULL, 0);
	CHECK_EQ_INT(job_analyse(&j), 0);
	CHECK_EQ_INT(j.n_collectives, 0);
	CHECK_EQ_INT(j.match.p2p, 4);
	CHECK_EQ_INT(j.findings.n, 0);
	CHECK(strstr(j.coll_note, "point-to-point") != NULL);
	job_free(&j);
}

/* A pipeline's sends and recvs are paired by their peer and order (job_p2p.c): rank 1's
 * recvs start 5 ms before rank 0's sends (rank 0 is the slow stage) and wait for them, the
 * bubble rank 0 causes; one recv names no peer and stays unpaired; none is a straggler.
 * Before job_p2p.c: counted only (p2p_paired and the waits 0). */
TEST(point_to_point_paired_by_peer)
{
	struct kg_job j;
	empty_job(&j, 2);
	int64_t s0[] = {5 * MS, 15 * MS}, e0[] = {6 * MS, 16 * MS};
	int64_t s1[] = {0, 10 * MS, 30 * MS}, e1[] = {6 * MS, 16 * MS, 31 * MS};
	make_rank(&j.ranks[0], "0", "a", 0, 0, 2, s0, e0);
	make_rank(&j.ranks[1], "1", "a", 0, 0, 3, s1, e1);
	const uint8_t send[] = {KG_COMM_SEND, KG_COMM_SEND};
	const uint8_t recv[] = {KG_COMM_RECV, KG_COMM_RECV, KG_COMM_RECV};
	name_collectives(&j.ranks[0], send, NULL, 0);
	name_collectives(&j.ranks[1], recv, NULL, 0);
	for (int k = 0; k < 2; k++) {
		j.ranks[0].coll[k].peer = 1 + 1; /* rank 1 */
		j.ranks[1].coll[k].peer = 0 + 1; /* rank 0 */
	}
	CHECK_EQ_INT(job_analyse(&j), 0);
	CHECK_EQ_INT(j.match.p2p, 5);
	CHECK_EQ_INT(j.match.p2p_paired, 4);
	CHECK_EQ_INT(j.p2p_transfers, 2);
	CHECK_EQ_INT(j.p2p_wait_ns, 10 * MS);
	CHECK_EQ_INT(j.ranks[1].p2p_wait, 10 * MS);
	CHECK_EQ_INT(j.ranks[0].p2p_caused, 10 * MS);
	CHECK_EQ_INT(j.ranks[0].late + j.ranks[1].late, 0);
	for (uint32_t i = 0; i < j.findings.n; i++)
		CHECK(j.findings.v[i].rule != KG_RULE_JOB_STRAGGLER);
	CHECK(strstr(j.coll_note, "as 2 transfers") != NULL);
	CHECK(strstr(j.coll_note, "1 point-to-point kernel (send, recv) unpaired") != NULL);
	job_free(&j);
}

/* A recv that ends before its send began is not its transfer (a cut trace lost a send):
 * the pair is refused, counted unpaired. */
TEST(point_to_point_checked_by_time)
{
	struct kg_job j;
	empty_job(&j, 2);
	int64_t s0[] = {20 * MS}, e0[] = {21 * MS}, s1[] = {0}, e1[] = {MS};
	make_rank(&j.ranks[0], "0", "a", 0, 0, 1, s0, e0);
	make_rank(&j.ranks[1], "1", "a", 0, 0, 1, s1, e1);
	const uint8_t send[] = {KG_COMM_SEND}, recv[] = {KG_COMM_RECV};
	name_collectives(&j.ranks[0], send, NULL, 0);
	name_collectives(&j.ranks[1], recv, NULL, 0);
	j.ranks[0].coll[0].peer = 2;
	j.ranks[1].coll[0].peer = 1;
	CHECK_EQ_INT(job_analyse(&j), 0);
	CHECK_EQ_INT(j.p2p_transfers, 0);
	CHECK_EQ_INT(j.match.p2p_paired, 0);
	job_free(&j);
}

/* Two process groups (data-parallel pairs {0,1} and {2,3}) run their all-reduces at their
 * own pace: rank 3 is 4 ms behind rank 2 only, and ranks 0 and 1 are not compared with
 * them. By position, rank 3 looked last against all three. */
TEST(process_groups_compared_apart)
{
	struct kg_job j;
	empty_job(&j, 4);
	int64_t sa[] = {0, 10 * MS}, ea[] = {2 * MS, 12 * MS};
	int64_t sb2[] = {30 * MS, 40 * MS}, sb3[] = {34 * MS, 44 * MS}, eb[] = {36 * MS, 46 * MS};
	make_rank(&j.ranks[0], "0", "a", 0, 0, 2, sa, ea);
	make_rank(&j.ranks[1], "1", "a", 0, 0, 2, sa, ea);
	make_rank(&j.ranks[2], "2", "a", 0, 0, 2, sb2, eb);
	make_rank(&j.ranks[3], "3", "a", 0, 0, 2, sb3, eb);
	const uint8_t ar[] = {KG_COMM_ALL_REDUCE, KG_COMM_ALL_REDUCE};
	const uint64_t sz[] = {4096, 4096};
	for (int r = 0; r < 4; r++)
		name_collectives(&j.ranks[r], ar, sz, r < 2 ? 11 : 22);
	CHECK_EQ_INT(job_analyse(&j), 0);
	CHECK_EQ_INT(j.match.groups, 2);
	CHECK_EQ_INT(j.n_collectives, 4);
	CHECK_EQ_INT(j.ranks[3].late, 2);
	CHECK_EQ_INT(j.ranks[3].late_ns, 8 * MS);
	CHECK_EQ_INT(j.ranks[0].late + j.ranks[1].late + j.ranks[2].late, 0);
	job_free(&j);
}

/* Paired by kind and order but ending 50 ms apart on one clock: not one collective, and no
 * straggler is ranked from it (HTA's trace_filter: a straggler of 381 ms from pairs that
 * were not one collective). */
TEST(ends_apart_make_no_straggler)
{
	struct kg_job j;
	empty_job(&j, 2);
	int64_t s0[] = {0}, e0[] = {2 * MS}, s1[] = {50 * MS}, e1[] = {52 * MS};
	make_rank(&j.ranks[0], "0", "a", 0, 0, 1, s0, e0);
	make_rank(&j.ranks[1], "1", "a", 0, 0, 1, s1, e1);
	const uint8_t ar[] = {KG_COMM_ALL_REDUCE};
	name_collectives(&j.ranks[0], ar, NULL, 0);
	name_collectives(&j.ranks[1], ar, NULL, 0);
	CHECK_EQ_INT(job_analyse(&j), 0);
	CHECK_EQ_INT(j.n_collectives, 0);
	CHECK_EQ_INT(j.match.alone, 2);
	CHECK_EQ_INT(j.findings.n, 0);
	job_free(&j);
}

/* Ranks of one clock whose work does not overlap: two runs, not one job (HTA's trace_diff:
 * two runs 8.5 days apart made a 735,004 s job with a 735,003 s straggler). */
TEST(runs_apart_are_not_one_job)
{
	struct kg_job j;
	empty_job(&j, 2);
	int64_t s[] = {0}, e[] = {2 * MS};
	make_rank(&j.ranks[0], "0", "", 0, 0, 1, s, e);
	make_rank(&j.ranks[1], "1", "", 9LL * 24 * 3600 * 1000 * MS, 0, 1, s, e);
	CHECK_EQ_INT(job_analyse(&j), -ERANGE);
	CHECK(strstr(j.apart_note, "days") != NULL);
	job_free(&j);
}

/* A collective's kind out of range is damage, refused on the wire. */
TEST(wire_refuses_unknown_comm_kind)
{
	struct kg_rank r, back;
	int64_t s[] = {0}, e[] = {2 * MS};
	make_rank(&r, "0", "a", 0, 0, 1, s, e);
	r.coll[0].kind = KG_COMM_KIND_COUNT;
	uint8_t *buf;
	size_t len, used;
	CHECK_EQ_INT(job_wire_pack(&r, &buf, &len), 0);
	CHECK(job_wire_unpack(buf, len, &back, &used) < 0);
	free(buf);
	rank_free(&r);
}

/* ------------------------------------------------------------------ a trace's summary */

static int by_dur(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* A GPU's kernels by name, as its summary keeps them: each name's count, total and median
 * (the middle duration, the upper one of an even count), the largest totals first. The
 * kernels come interleaved, their durations in a random order; the expected figures are
 * taken from each name's durations sorted here. */
TEST(summary_kernels_by_name)
{
	enum { NAMES = 7 };
	struct kg_model m;
	model_init(&m, "test", "");
	model_add_process(&m);
	model_add_device(&m)->process = 0;
	uint32_t s = model_stream_index(&m, 0, 0, 1, 7);
	int64_t durs[NAMES][64];
	uint32_t count[NAMES] = {0};
	int64_t at = 1000 * MS;
	for (int i = 0; i < 300; i++) {
		uint32_t k = (uint32_t)(test_random() % NAMES);
		if (count[k] == 64)
			continue;
		int64_t d = 1000 + (int64_t)(test_random() % 50) * 1000; /* repeats: ties */
		char name[16];
		snprintf(name, sizeof(name), "kernel_%u", k);
		struct kg_op *o = model_add_op(&m);
		o->stream = s, o->kind = KG_OP_KERNEL, o->start = at, o->end = at + d;
		o->name = model_string(&m, name);
		durs[k][count[k]++] = d;
		at += d + 2000;
	}
	CHECK_EQ_INT(model_finish(&m), 0);
	struct kg_analysis a;
	CHECK_EQ_INT(analysis_run(&m, NULL, &a), 0);
	struct kg_rank *ranks = NULL;
	uint32_t n = 0, names = 0;
	CHECK_EQ_INT(job_rank_summaries(&a, "t.kgt", NULL, &ranks, &n), 0);
	CHECK_EQ_INT(n, 1);
	for (int k = 0; k < NAMES; k++)
		names += count[k] > 0;
	CHECK_EQ_INT(ranks[0].n_kernel, names);
	for (uint32_t i = 0; i < ranks[0].n_kernel; i++) {
		const struct kg_rank_kernel *row = &ranks[0].kernel[i];
		uint32_t k = (uint32_t)atoi(rank_name(&ranks[0], row) + strlen("kernel_"));
		int64_t total = 0;
		qsort(durs[k], count[k], sizeof(int64_t), by_dur);
		for (uint32_t c = 0; c < count[k]; c++)
			total += durs[k][c];
		CHECK_EQ_INT(row->count, count[k]);
		CHECK_EQ_INT(row->total, total);
		CHECK_EQ_INT(row->p50, durs[k][count[k] / 2]);
		CHECK(i == 0 || row->total <= ranks[0].kernel[i - 1].total);
	}
	for (uint32_t i = 0; i < n; i++)
		rank_free(&ranks[i]);
	free(ranks);
	analysis_free(&a);
	model_free(&m);
}
