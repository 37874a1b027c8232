/* "No figure that cannot be true" (issue 22): every JSON document kgantt writes about a
 * trace, a diff or a job (report --json, diff --json, the job report) is parsed and each
 * number is checked by its key; every text report is searched for the marks of an
 * overflow. A figure that fails aborts the target with its path in the document.
 *
 *   durations, *_ns (every key ending in _ns but the times and deltas below):
 *                   0 <= v <= FIG_MAX_NS (1e17 ns, 3.2 years: no recording is longer);
 *   times           begin_ns, end_ns, start_ns, first_ns, last_ns, trace_begin_ns,
 *                   trace_end_ns, clock_shift_ns: any value but +-INT64_MAX (a saturated
 *                   sum, never a time that was recorded);
 *   deltas          span_delta_ns, delta_total_ns (diff): |v| <= FIG_MAX_NS;
 *   shares          busy_pct, kernel_busy_pct, steady_busy_pct, copy_overlap_pct,
 *                   overlap_pct, exposed_pct, time_share_pct (parts of a whole): 0 <= v <= 100; utilization's
 *                   values (fractions): 0 <= v <= 1;
 *   gains           gain_pct: >= 0, and not bounded by 100: a finding's gain adds up the
 *                   work of several streams or GPUs (compact_streams_bad: 172 %); its
 *                   gain_ns is a duration like the others;
 *   changes         span_delta_pct (diff): >= -100 (a span cannot shrink below nothing);
 *   hardware        the hw_samples columns (util/hw_figures.h): 0 <= v <= kg_hw_ceiling,
 *                   100 % for a share (400 % for the tensor pipes' four sub-partitions),
 *                   1e14 B/s, 1e10 Hz;
 *   ratios          speed_ratio, share, occupancy, waves: >= 0;
 *   counts          the keys of FIG_COUNTS: integers >= 0;
 *   percentiles     within one object, for each prefix ("", launch_latency_, queue_wait_,
 *                   collective_end_diff_): min <= p50 <= p99 <= max, where present.
 *
 * Text: no "9223372036" (INT64_MAX ns printed as seconds or a percent: "span
 * 9223372036.85 s", "+92233720368547648 %"); in a report (not a diff, whose deltas may
 * be negative), no '-' before a duration or a percentage. */
#ifndef KGANTT_FUZZ_FIGURES_H
#define KGANTT_FUZZ_FIGURES_H

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "util/hw_figures.h"

#define FIG_MAX_NS 1e17

static const char *const fig_times[] = {"begin_ns",       "end_ns",        "start_ns",
					"first_ns",       "last_ns",       "trace_begin_ns",
					"trace_end_ns",   "clock_shift_ns", "host_start_ns",
					"steady_begin_ns", "steady_end_ns"};
static const char *const fig_deltas[] = {"span_delta_ns", "delta_total_ns", "median_step_delta_ns"};
static const char *const fig_shares[] = {"busy_pct", "kernel_busy_pct", "steady_busy_pct",
					 "copy_overlap_pct", "overlap_pct", "exposed_pct",
					 "time_share_pct"};
static const char *const fig_ratios[] = {"speed_ratio", "share", "occupancy", "waves"};
static const char *const fig_counts[] = {
	"kernels", "copies", "memsets", "api_calls", "dropped_records", "incomplete_records",
	"untraced_gpu_calls", "undated_kernels", "count", "idle_gaps", "samples", "lost_samples", "hw_samples_alone",
	"findings", "kernel_names", "blocks", "threads", "comm_kernels", "collectives", "steps",
	"steady", "median_step_kernels", "late_collectives", "ranks_count", "traces", "mpi_processes", "hosts",
	"collectives_compared", "blocks_per_sm", "best_block", "best_grid", "sm_count",
	"memory_bytes", "registers_per_thread", "shared_memory_bytes"};
static const char *const fig_prefixes[] = {"", "launch_latency_", "queue_wait_",
					   "collective_end_diff_"};
static const char *const fig_orders[] = {"min_ns", "p50_ns", "p99_ns", "max_ns"};

struct fig_doc {
	const char *target, *what;
	const char *path[64]; /* the keys down to the value, for the message */
	int depth;
};

#define FIG_IN(list, key) fig_in(list, sizeof(list) / sizeof(*list), key)

static inline int fig_in(const char *const *list, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], key))
			return 1;
	return 0;
}

static inline int fig_ends(const char *key, const char *end)
{
	size_t k = strlen(key), e = strlen(end);
	return k >= e && !strcmp(key + k - e, end);
}

static inline void fig_fail(const struct fig_doc *d, const char *key, double v, const char *why)
{
	fprintf(stderr, "%s: %s wrote a figure that cannot be true: ", d->target, d->what);
	for (int i = 0; i < d->depth && i < 64; i++)
		if (d->path[i]) /* the document's own is NULL */
			fprintf(stderr, "%s.", d->path[i]);
	fprintf(stderr, "%s = %.17g (%s)\n", key, v, why);
	abort();
}

/* The hardware figure a key names, -1 none. */
static inline int fig_hw(const char *key)
{
	for (int f = 0; f < KG_HW_N; f++)
		if (!strcmp(kg_hw_figure_info[f].column, key))
			return f;
	return -1;
}

static inline void fig_number(const struct fig_doc *d, const char *key, yajl_val v)
{
	double x = YAJL_IS_DOUBLE(v) ? YAJL_GET_DOUBLE(v) : NAN;
	int whole = YAJL_IS_INTEGER(v);
	long long i = whole ? YAJL_GET_INTEGER(v) : 0;
	int hw = fig_hw(key);
	if (!key)
		return;
	if (FIG_IN(fig_times, key)) {
		if (whole && (i == INT64_MAX || i == -INT64_MAX))
			fig_fail(d, key, x, "a saturated time");
	} else if (FIG_IN(fig_deltas, key)) {
		if (!(fabs(x) <= FIG_MAX_NS))
			fig_fail(d, key, x, "a change longer than any recording");
	} else if (fig_ends(key, "_ns")) {
		if (!(x >= 0))
			fig_fail(d, key, x, "a negative duration");
		if (!(x <= FIG_MAX_NS))
			fig_fail(d, key, x, "a duration longer than any recording");
	} else if (FIG_IN(fig_shares, key)) {
		if (!(x >= 0 && x <= 100))
			fig_fail(d, key, x, "a share outside 0-100 %");
	} else if (!strcmp(key, "utilization")) {
		if (!(x >= 0 && x <= 1))
			fig_fail(d, key, x, "a busy fraction outside 0-1");
	} else if (!strcmp(key, "gain_pct") || FIG_IN(fig_ratios, key)) {
		if (!(x >= 0))
			fig_fail(d, key, x, "a negative gain or ratio");
	} else if (!strcmp(key, "span_delta_pct")) {
		if (!(x >= -100))
			fig_fail(d, key, x, "a span that shrank below nothing");
	} else if (hw >= 0) {
		if (!(x >= 0 && x <= kg_hw_ceiling((enum kg_hw_figure)hw)))
			fig_fail(d, key, x, "a hardware figure beyond physics");
	} else if (FIG_IN(fig_counts, key)) {
		if (!whole || i < 0)
			fig_fail(d, key, x, "a count that is not a whole number >= 0");
	}
}

/* min <= p50 <= p99 <= max within one object, for each prefix. */
static inline void fig_order(const struct fig_doc *d, yajl_val o)
{
	for (size_t p = 0; p < sizeof(fig_prefixes) / sizeof(*fig_prefixes); p++) {
		double last = -INFINITY;
		const char *last_key = NULL;
		for (size_t k = 0; k < sizeof(fig_orders) / sizeof(*fig_orders); k++) {
			char key[64];
			snprintf(key, sizeof(key), "%s%s", fig_prefixes[p], fig_orders[k]);
			for (size_t i = 0; i < o->u.object.len; i++) {
				yajl_val v = o->u.object.values[i];
				if (strcmp(o->u.object.keys[i], key) || !YAJL_IS_DOUBLE(v))
					continue;
				if (YAJL_GET_DOUBLE(v) < last) {
					char why[160];
					snprintf(why, sizeof(why), "below %s = %.17g", last_key, last);
					fig_fail(d, key, YAJL_GET_DOUBLE(v), why);
				}
				last = YAJL_GET_DOUBLE(v);
				last_key = o->u.object.keys[i];
			}
		}
	}
}

/* v, the value of key (NULL: the document), and what it holds. */
static inline void fig_walk(struct fig_doc *d, const char *key, yajl_val v)
{
	if (YAJL_IS_NUMBER(v)) {
		fig_number(d, key, v);
	} else if (YAJL_IS_ARRAY(v)) {
		for (size_t i = 0; i < v->u.array.len; i++)
			fig_walk(d, key, v->u.array.values[i]); /* an array's values: its key's */
	} else if (YAJL_IS_OBJECT(v)) {
		fig_order(d, v);
		if (d->depth < 64)
			d->path[d->depth] = key;
		d->depth++;
		for (size_t i = 0; i < v->u.object.len; i++)
			fig_walk(d, v->u.object.keys[i], v->u.object.values[i]);
		d->depth--;
	}
}

/* A JSON document (len bytes, not terminated) of a trace, a diff or a job. */
static inline void fig_check_json(const char *target, const char *what, const char *text,
				  size_t len)
{
	char *z = malloc(len + 1), err[256];
	if (!z)
		return;
	memcpy(z, text, len);
	z[len] = 0;
	yajl_val root = yajl_tree_parse(z, err, sizeof(err));
	free(z);
	if (!root) /* invalid JSON is check_text's to report; out of memory is not a finding */
		return;
	struct fig_doc d = {.target = target, .what = what};
	fig_walk(&d, NULL, root);
	yajl_tree_free(root);
}

static inline void fig_text_fail(const char *target, const char *what, const char *text,
				 const char *at, const char *why)
{
	const char *from = at - text > 120 ? at - 120 : text;
	fprintf(stderr, "%s: %s wrote %s: ...%.200s...\n", target, what, why, from);
	abort();
}

/* The unit after a number at text[j] (" ms", "%"...), or NULL. */
static inline const char *fig_unit(const char *text, size_t len, size_t j)
{
	static const char *const units[] = {" ns", " µs", " ms", " s", "%", " %"};
	for (size_t k = 0; k < sizeof(units) / sizeof(*units); k++) {
		size_t ul = strlen(units[k]);
		if (len - j >= ul && !memcmp(text + j, units[k], ul) &&
		    (len - j == ul || !isalnum((unsigned char)text[j + ul])))
			return units[k];
	}
	return NULL;
}

/* A text page (len bytes): no INT64_MAX-sized figure; with signed_ok 0 (a report), no
 * negative duration or percentage. A figure is a number standing alone (not in a name:
 * kernel names hold anything) followed by its unit. */
static inline void fig_check_text(const char *target, const char *what, const char *text,
				  size_t len, int signed_ok)
{
	for (size_t i = 0; i < len; i++) {
		int sign = text[i] == '-' || text[i] == '+';
		if (!isdigit((unsigned char)text[i]) && !sign)
			continue;
		if (i > 0 && (isalnum((unsigned char)text[i - 1]) || strchr("_+.,-/:'", text[i - 1])))
			continue; /* inside a name, a range "0-7", a date */
		size_t j = i + sign;
		if (j >= len || !isdigit((unsigned char)text[j]))
			continue;
		while (j < len && (isdigit((unsigned char)text[j]) || text[j] == '.' || text[j] == ','))
			j++;
		if (!fig_unit(text, len, j)) {
			i = j;
			continue;
		}
		if (memmem(text + i, j - i, "9223372036", 10) ||
		    memmem(text + i, j - i, "9,223,372,036", 13))
			fig_text_fail(target, what, text, text + i, "an INT64_MAX-sized figure");
		if (!signed_ok && text[i] == '-')
			fig_text_fail(target, what, text, text + i, "a negative duration or share");
		i = j;
	}
}

#endif
