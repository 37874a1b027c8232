/* Arithmetic on times (int64 nanoseconds) read from files.
 *
 * A trace's timestamps are whatever the file says: INT64_MIN and INT64_MAX, or a start of
 * -9e18 and an end of 9e18, are all readable. The difference of two such times, or a time
 * plus a duration, does not fit in int64, and a signed overflow is undefined behaviour
 * (found by tests/fuzz/fuzz_analysis). Everything that subtracts or adds times from a
 * model goes through these: the result saturates to ±INT64_MAX instead — never to
 * INT64_MIN, which is KG_NO_TIME ("unknown") in the model. A saturated value is wrong,
 * but only for a trace whose times are already absurd, and it stays ordered.
 *
 * Doubles computed from times (rates, scaled durations, pixels) go back to integers
 * through kg_i64_of() / kg_i32_of(): a cast of a double out of the target's range (1e300,
 * NaN) is undefined behaviour too. */
#ifndef KGANTT_TIMEMATH_H
#define KGANTT_TIMEMATH_H

#include <stdint.h>

/* The longest any recording is: 1e17 ns, 3.2 years. A record, a rank's work or a job
 * longer than this cannot be true (untrue_times.c, job/). */
#define KG_LONGEST_NS 100000000000000000LL
/* More records than any trace holds or any recorder drops: a count beyond is damage. */
#define KG_MOST_RECORDS (1LL << 48)

/* later - earlier, saturated to [-INT64_MAX, INT64_MAX]. */
static inline int64_t kg_time_diff(int64_t later, int64_t earlier)
{
	int64_t d;
	if (__builtin_sub_overflow(later, earlier, &d))
		return later > earlier ? INT64_MAX : -INT64_MAX;
	return d == INT64_MIN ? -INT64_MAX : d;
}

/* t + d, saturated the same way. */
static inline int64_t kg_time_add(int64_t t, int64_t d)
{
	int64_t s;
	if (__builtin_add_overflow(t, d, &s))
		return d > 0 ? INT64_MAX : -INT64_MAX;
	return s == INT64_MIN ? -INT64_MAX : s;
}

/* The length of [earlier, later], saturated: 0 when later is not after earlier, or when
 * either is INT64_MIN (KG_NO_TIME: an op whose end the source lost has no length). */
static inline int64_t kg_time_span(int64_t later, int64_t earlier)
{
	if (later == INT64_MIN || earlier == INT64_MIN || later <= earlier)
		return 0;
	return kg_time_diff(later, earlier);
}

/* v rounded toward zero into int64, saturated; NaN is 0. */
static inline int64_t kg_i64_of(double v)
{
	if (!(v == v))
		return 0;
	if (v >= 9223372036854775807.0) /* 2^63: the first double past INT64_MAX */
		return INT64_MAX;
	if (v <= -9223372036854775807.0)
		return -INT64_MAX;
	return (int64_t)v;
}

/* v rounded to the nearest integer (halves away from zero, as llround), saturated; NaN
 * is 0. llround itself leaves the result unspecified out of range. */
static inline int64_t kg_i64_round(double v)
{
	return kg_i64_of(v < 0 ? v - 0.5 : v + 0.5);
}

/* v rounded toward zero into int (32 bits), saturated; NaN is 0. */
static inline int kg_i32_of(double v)
{
	if (!(v == v))
		return 0;
	if (v >= 2147483647.0)
		return INT32_MAX;
	if (v <= -2147483647.0)
		return -INT32_MAX;
	return (int)v;
}

#endif
