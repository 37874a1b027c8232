/* kgantt diff: two analysed traces compared (diff.h). */
#include "report/diff.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text/json_writer.h"
#include "report/finding_out.h"
#include "report/report.h"
#include "util/format.h"
#include "util/timemath.h"

const char *diff_status_name(enum kg_diff_status s)
{
	static const char *const names[] = {"same", "resolved", "new", "changed"};
	return (unsigned)s < 4 ? names[s] : "?";
}

/* ------------------------------------------------------------------ matching */

static const char *kernel_name(const struct kg_analysis *a, uint32_t k)
{
	return model_text(a->m, a->kernels[k].name);
}

static int by_kernel_name(const void *x, const void *y, void *arg)
{
	const struct kg_analysis *a = arg;
	return strcmp(kernel_name(a, *(const uint32_t *)x), kernel_name(a, *(const uint32_t *)y));
}

static uint32_t *sorted_kernels(const struct kg_analysis *a)
{
	uint32_t *v = malloc(((size_t)a->n_kernels + 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < a->n_kernels; i++)
		v[i] = i;
	qsort_r(v, a->n_kernels, sizeof(*v), by_kernel_name, (void *)a);
	return v;
}

static int64_t kernel_total(const struct kg_analysis *a, uint32_t k)
{
	return k == KG_NONE ? 0 : a->kernels[k].total;
}

static int by_delta(const void *x, const void *y)
{
	const struct kg_diff_kernel *a = x, *b = y;
	int64_t da = a->delta < 0 ? -a->delta : a->delta, db = b->delta < 0 ? -b->delta : b->delta;
	return (da < db) - (da > db);
}

/* Kernel names matched by their text: both lists sorted by name, then merged. */
static int match_kernels(struct kg_diff *d)
{
	const struct kg_analysis *a = d->before, *b = d->after;
	uint32_t *x = sorted_kernels(a), *y = sorted_kernels(b);
	d->kernels = calloc((size_t)a->n_kernels + b->n_kernels + 1, sizeof(*d->kernels));
	if (!x || !y || !d->kernels) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	uint32_t i = 0, j = 0;
	while (i < a->n_kernels || j < b->n_kernels) {
		int c = i == a->n_kernels   ? 1
			: j == b->n_kernels ? -1
					    : strcmp(kernel_name(a, x[i]), kernel_name(b, y[j]));
		struct kg_diff_kernel *k = &d->kernels[d->n_kernels++];
		k->before = c <= 0 ? x[i++] : KG_NONE;
		k->after = c >= 0 ? y[j++] : KG_NONE;
		k->delta = kg_time_diff(kernel_total(b, k->after), kernel_total(a, k->before));
	}
	qsort(d->kernels, d->n_kernels, sizeof(*d->kernels), by_delta);
	free(x);
	free(y);
	return 0;
}

/* A gain that moved by more than 5 % of itself, or than 0.1 % of the span, changed. */
static enum kg_diff_status compare_gains(const struct kg_diff *d, const struct kg_finding *p,
					 const struct kg_finding *q)
{
	double diff = fabs(q->gain_ns - p->gain_ns);
	double floor = 0.001 * (double)(d->before->span > 0 ? d->before->span : 1);
	return diff > 0.05 * fabs(p->gain_ns) && diff > floor ? KG_DIFF_CHANGED : KG_DIFF_SAME;
}

static double finding_gain(const struct kg_diff *d, const struct kg_diff_finding *f)
{
	return f->before != KG_NONE ? d->before->findings.v[f->before].gain_ns
				    : d->after->findings.v[f->after].gain_ns;
}

static int by_status_gain(const void *x, const void *y, void *diff)
{
	const struct kg_diff *d = diff;
	const struct kg_diff_finding *a = x, *b = y;
	static const int order[] = {3, 0, 1, 2}; /* resolved, new, changed, same */
	if (a->status != b->status)
		return order[a->status] - order[b->status];
	double ga = finding_gain(d, a), gb = finding_gain(d, b);
	return (ga < gb) - (ga > gb);
}

/* Findings matched by rule and GPU number: the same problem in both runs. */
static int match_findings(struct kg_diff *d)
{
	const struct kg_analysis *a = d->before, *b = d->after;
	d->findings = calloc((size_t)a->findings.n + b->findings.n + 1, sizeof(*d->findings));
	uint8_t *taken = calloc((size_t)b->findings.n + 1, 1);
	if (!d->findings || !taken) {
		free(taken);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < a->findings.n; i++) {
		const struct kg_finding *p = &a->findings.v[i];
		struct kg_diff_finding *f = &d->findings[d->n_findings++];
		f->before = i;
		f->after = KG_NONE;
		f->status = KG_DIFF_RESOLVED;
		for (uint32_t j = 0; j < b->findings.n; j++)
			if (!taken[j] && b->findings.v[j].rule == p->rule &&
			    b->findings.v[j].gpu == p->gpu) {
				taken[j] = 1;
				f->after = j;
				f->status = compare_gains(d, p, &b->findings.v[j]);
				break;
			}
	}
	for (uint32_t j = 0; j < b->findings.n; j++)
		if (!taken[j])
			d->findings[d->n_findings++] =
				(struct kg_diff_finding){KG_NONE, j, KG_DIFF_NEW};
	free(taken);
	qsort_r(d->findings, d->n_findings, sizeof(*d->findings), by_status_gain, d);
	return 0;
}

/* ------------------------------------------------------------------ call sites */

static int same_site(const struct kg_analysis *a, const struct kg_site *x,
		     const struct kg_analysis *b, const struct kg_site *y)
{
	const struct kg_frame *fx = x->user_frame != KG_NONE ? &a->m->frames[x->user_frame] : NULL;
	const struct kg_frame *fy = y->user_frame != KG_NONE ? &b->m->frames[y->user_frame] : NULL;
	if (!fx != !fy || strcmp(x->op, y->op) ||
	    strcmp(model_text(a->m, x->api_name), model_text(b->m, y->api_name)))
		return 0;
	return !fx || (!strcmp(model_text(a->m, fx->function), model_text(b->m, fy->function)) &&
		       !strcmp(model_text(a->m, fx->file), model_text(b->m, fy->file)));
}

static double site_gain(const struct kg_diff *d, const struct kg_diff_site *s)
{
	return s->after != KG_NONE ? d->after->sites[s->after].ns : d->before->sites[s->before].ns;
}

static int by_site_status(const void *x, const void *y, void *diff)
{
	const struct kg_diff_site *a = x, *b = y;
	static const int order[] = {3, 0, 1, 2};
	if (a->status != b->status)
		return order[a->status] - order[b->status];
	double ga = site_gain(diff, a), gb = site_gain(diff, b);
	return (ga < gb) - (ga > gb);
}

/* Only sites some finding is placed at count (their gain is above 0). */
static uint32_t live_sites(const struct kg_analysis *a)
{
	uint32_t n = 0;
	while (n < a->n_sites && a->sites[n].ns > 0)
		n++;
	return n;
}

static int match_sites(struct kg_diff *d)
{
	const struct kg_analysis *a = d->before, *b = d->after;
	uint32_t na = live_sites(a), nb = live_sites(b);
	d->sites = calloc((size_t)na + nb + 1, sizeof(*d->sites));
	uint8_t *taken = calloc((size_t)nb + 1, 1);
	if (!d->sites || !taken) {
		free(taken);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < na; i++) {
		struct kg_diff_site *s = &d->sites[d->n_sites++];
		*s = (struct kg_diff_site){i, KG_NONE, KG_DIFF_RESOLVED};
		for (uint32_t j = 0; j < nb; j++)
			if (!taken[j] && same_site(a, &a->sites[i], b, &b->sites[j])) {
				taken[j] = 1;
				s->after = j;
				double x = a->sites[i].ns, y = b->sites[j].ns;
				s->status = fabs(y - x) > 0.05 * x && fabs(y - x) > 0.001 * a->span
						    ? KG_DIFF_CHANGED
						    : KG_DIFF_SAME;
				break;
			}
	}
	for (uint32_t j = 0; j < nb; j++)
		if (!taken[j])
			d->sites[d->n_sites++] = (struct kg_diff_site){KG_NONE, j, KG_DIFF_NEW};
	free(taken);
	qsort_r(d->sites, d->n_sites, sizeof(*d->sites), by_site_status, d);
	return 0;
}

/* ------------------------------------------------------------------ host activity */

#define HOST_LABEL 1024 /* an activity's label, as the report prints it */

static double host_ns(const struct kg_analysis *a, uint32_t i)
{
	return i != KG_NONE ? a->host.acts[i].ns : 0;
}

static int by_host_delta(const void *x, const void *y)
{
	double a = fabs(((const struct kg_diff_host *)x)->delta);
	double b = fabs(((const struct kg_diff_host *)y)->delta);
	return (a < b) - (a > b);
}

/* Activities matched by label: a change of the code moves lines, not paths; O(n²) over
 * activities, which are few (each a path the user's code took into a library). */
static int match_host(struct kg_diff *d)
{
	const struct kg_analysis *a = d->before, *b = d->after;
	if (!a->host.on || !b->host.on)
		return 0;
	uint32_t na = a->host.n_acts, nb = b->host.n_acts;
	d->host = calloc((size_t)na + nb + 1, sizeof(*d->host));
	uint8_t *taken = calloc((size_t)nb + 1, 1);
	char *la = malloc(HOST_LABEL), *lb = malloc(HOST_LABEL);
	int rc = d->host && taken && la && lb ? 0 : -ENOMEM;
	for (uint32_t i = 0; !rc && i < na; i++) {
		struct kg_diff_host *h = &d->host[d->n_host++];
		*h = (struct kg_diff_host){i, KG_NONE, KG_DIFF_RESOLVED, 0};
		host_node_label(a, a->host.acts[i].node, la, HOST_LABEL);
		for (uint32_t j = 0; j < nb && h->after == KG_NONE; j++)
			if (!taken[j] && !strcmp(la, host_node_label(b, b->host.acts[j].node, lb, HOST_LABEL))) {
				taken[j] = 1;
				h->after = j;
			}
	}
	for (uint32_t j = 0; !rc && j < nb; j++)
		if (!taken[j])
			d->host[d->n_host++] = (struct kg_diff_host){KG_NONE, j, KG_DIFF_NEW, 0};
	for (uint32_t i = 0; !rc && i < d->n_host; i++) {
		struct kg_diff_host *h = &d->host[i];
		double x = host_ns(a, h->before), y = host_ns(b, h->after);
		h->delta = y - x;
		if (h->before != KG_NONE && h->after != KG_NONE)
			h->status = fabs(y - x) > 0.05 * x && fabs(y - x) > 0.001 * (double)a->span
					    ? KG_DIFF_CHANGED
					    : KG_DIFF_SAME;
	}
	if (!rc)
		qsort(d->host, d->n_host, sizeof(*d->host), by_host_delta);
	free(taken);
	free(la);
	free(lb);
	return rc;
}

int diff_compute(const struct kg_analysis *before, const struct kg_analysis *after,
		 const char *before_path, const char *after_path, struct kg_diff *d)
{
	memset(d, 0, sizeof(*d));
	d->before = before;
	d->after = after;
	d->before_path = before_path;
	d->after_path = after_path;
	if (match_kernels(d) < 0 || match_findings(d) < 0 || match_sites(d) < 0 ||
	    match_host(d) < 0) {
		diff_free(d);
		return -ENOMEM;
	}
	return 0;
}

void diff_free(struct kg_diff *d)
{
	free(d->kernels);
	free(d->findings);
	free(d->sites);
	free(d->host);
	memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------------ sums over a trace */

struct totals {
	uint64_t kernels, copies, memsets;
	int64_t kernel_time, busy, idle[KG_GAP_CAUSES];
	int64_t startup, winddown, capture; /* of that idle, start-up's, wind-down's and graph
					     * capture's (kg_gap_place) */
};

static void totals_of(const struct kg_analysis *a, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_gpu_metrics *gm = &a->gpus[g];
		t->kernels += gm->kernels;
		t->copies += gm->copies;
		t->memsets += gm->memsets;
		t->kernel_time = kg_time_add(t->kernel_time, gm->kernel_time);
		t->busy = kg_time_add(t->busy, gm->busy);
		for (int c = 0; c < KG_GAP_CAUSES; c++)
			t->idle[c] = kg_time_add(t->idle[c], gm->idle_by_cause[c]);
		t->startup = kg_time_add(t->startup, gm->idle_startup);
		t->winddown = kg_time_add(t->winddown, gm->idle_winddown);
		t->capture = kg_time_add(t->capture, gm->idle_capture);
	}
}

/* Its steady span with one GPU (KG_NO_TIME with several, whose start-ups overlap). */
static int64_t steady_span(const struct kg_analysis *a)
{
	return a->n_gpus == 1 ? a->steady_span : KG_NO_TIME;
}

/* ------------------------------------------------------------------ the page */

/* "+1.20 ms", "−3.40 µs", "0 ns" */
static const char *fmt_change(int64_t ns, char buf[40])
{
	char d[32];
	fmt_duration(ns < 0 ? -ns : ns, d);
	snprintf(buf, 40, "%s%s", ns > 0 ? "+" : ns < 0 ? "−" : "", d);
	return buf;
}

/* " (−68.4%)", "" when there is nothing to compare with */
static const char *fmt_change_pct(double before, double after, char buf[24])
{
	if (before <= 0)
		return strcpy(buf, "");
	double p = 100.0 * (after - before) / before;
	snprintf(buf, 24, " (%s%.1f%%)", p > 0 ? "+" : p < 0 ? "−" : "", fabs(p));
	return buf;
}

/* The GPUs that ran something, by model: "2 × NVIDIA H200", "NVIDIA A100-SXM4-40GB"; ""
 * when none did. Two runs on different GPUs compare the hardware as well as the program. */
static const char *used_gpus(const struct kg_analysis *a, char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	buf[0] = '\0';
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		uint32_t name = m->devices[m->gpus[g].device].name, same = 0, seen = 0;
		for (uint32_t h = 0; h < a->n_gpus; h++) {
			if (!a->gpus[h].n_ops || m->devices[m->gpus[h].device].name != name)
				continue;
			seen |= h < g;
			same++;
		}
		if (!a->gpus[g].n_ops || seen)
			continue;
		const char *text = device_name(m, &m->devices[m->gpus[g].device]);
		if (same > 1)
			text_appendf(buf, len, "%s%u × %s", buf[0] ? ", " : "", same, text);
		else
			text_appendf(buf, len, "%s%s", buf[0] ? ", " : "", text);
	}
	return buf;
}

static int gpus_differ(const struct kg_diff *d)
{
	char x[512], y[512];
	return strcmp(used_gpus(d->before, x, sizeof(x)), used_gpus(d->after, y, sizeof(y))) != 0;
}

/* The share of a side's kernel time whose kernel name the other side has too: a diff of
 * two different programs (pipit's CloverLeaf against its SAXPY) compared everything
 * without a word. 1 without kernel time. */
static double kernel_time_shared(const struct kg_diff *d, int after)
{
	const struct kg_analysis *a = after ? d->after : d->before;
	double all = 0, shared = 0;
	for (uint32_t i = 0; i < d->n_kernels; i++) {
		const struct kg_diff_kernel *k = &d->kernels[i];
		uint32_t mine = after ? k->after : k->before;
		if (mine == KG_NONE)
			continue;
		double ns = (double)a->kernels[mine].total;
		all += ns;
		if (k->before != KG_NONE && k->after != KG_NONE)
			shared += ns;
	}
	return all > 0 ? shared / all : 1;
}

/* Under this share of kernel time in common, on either side, and run by programs of other
 * names, the two runs are not one program's: said, not refused. Either alone is not
 * enough: the fixed launches example fuses its tiny kernels into one of another name, and
 * a Kineto trace's program is python. */
#define KERNELS_SHARED_LOW 0.1

/* A process's program: its command line's first word, without its folder ("" unknown). */
static void program_of(const struct kg_model *m, uint32_t p, char *buf, size_t len)
{
	const char *cmd = m->processes[p].cmdline ? model_text(m, m->processes[p].cmdline) : "";
	size_t n = strcspn(cmd, " \t");
	const char *b = cmd;
	for (size_t i = 0; i < n; i++)
		if (cmd[i] == '/')
			b = cmd + i + 1;
	snprintf(buf, len, "%.*s", (int)(cmd + n - b), b);
}

/* 1 when both sides name their programs and no name is on both. */
static int programs_differ(const struct kg_diff *d)
{
	const struct kg_model *a = d->before->m, *b = d->after->m;
	char x[256], y[256];
	int known_a = 0, known_b = 0;
	for (uint32_t i = 0; i < a->n_processes; i++) {
		program_of(a, i, x, sizeof(x));
		known_a |= *x != 0;
		for (uint32_t j = 0; *x && j < b->n_processes; j++) {
			program_of(b, j, y, sizeof(y));
			known_b |= *y != 0;
			if (!strcmp(x, y))
				return 0;
		}
	}
	return known_a && known_b;
}

static void side_line(FILE *f, const char *label, const char *path, const struct kg_analysis *a)
{
	char text[2048];
	snprintf(text, sizeof(text), "%s (%s trace)%s%s", path, a->m->source,
		 a->m->command ? ": " : "", a->m->command ? model_text(a->m, a->m->command) : "");
	fprintf(f, "  %-12s ", label);
	page_wrap(f, 15, text);
}

static void duration_row(FILE *f, const char *label, int64_t before, int64_t after)
{
	char a[32], b[32], c[40], p[24];
	fprintf(f, "  %-12s %s → %s   %s%s\n", label, fmt_duration(before, a),
		fmt_duration(after, b), fmt_change(kg_time_diff(after, before), c),
		fmt_change_pct((double)before, (double)after, p));
}

static void count_row(FILE *f, const char *label, uint64_t before, uint64_t after)
{
	char a[32], b[32];
	fprintf(f, "  %-12s %s → %s\n", label, fmt_count(before, a), fmt_count(after, b));
}

/* The steps each side had (analysis/steps.h), and its median step: what a change to a
 * loop is judged by when the two runs ran different numbers of steps. */
static int has_steps(const struct kg_analysis *a)
{
	return a->steps.n && a->steps.n_steady;
}

static void steps_side(char *buf, size_t len, const struct kg_analysis *a)
{
	const struct kg_steps *st = &a->steps;
	if (!has_steps(a))
		snprintf(buf, len, "none found");
	else
		snprintf(buf, len, "%u (%u steady, by %s)", st->n, st->n_steady,
			 steps_source_name((enum kg_steps_source)st->source));
}

static void text_steps(FILE *f, const struct kg_analysis *a, const struct kg_analysis *b)
{
	if (!has_steps(a) && !has_steps(b))
		return;
	char x[64], y[64];
	steps_side(x, sizeof(x), a);
	steps_side(y, sizeof(y), b);
	fprintf(f, "  %-12s %s → %s\n", "steps", x, y);
	if (!has_steps(a) || !has_steps(b))
		return;
	duration_row(f, "median step", a->steps.p50, b->steps.p50);
	duration_row(f, "  p90", a->steps.p90, b->steps.p90);
	const struct kg_step *mx = &a->steps.v[a->steps.median_step];
	const struct kg_step *my = &b->steps.v[b->steps.median_step];
	duration_row(f, "  GPU busy", mx->busy, my->busy);
	count_row(f, "  kernels", mx->kernels, my->kernels);
}

static void text_summary(FILE *f, const struct kg_diff *d)
{
	const struct kg_analysis *a = d->before, *b = d->after;
	struct totals x, y;
	totals_of(a, &x);
	totals_of(b, &y);
	fprintf(f, "kgantt diff\n");
	side_line(f, "before", d->before_path, a);
	side_line(f, "after", d->after_path, b);
	char c[40], p[24];
	fprintf(f, "  %-12s ", "span");
	char s1[32], s2[32];
	fprintf(f, "%s → %s   %s%s: %s\n", fmt_duration(a->span, s1), fmt_duration(b->span, s2),
		fmt_change(kg_time_diff(b->span, a->span), c), fmt_change_pct((double)a->span, (double)b->span, p),
		b->span < a->span ? "faster" : b->span > a->span ? "slower" : "the same");
	int64_t sx = steady_span(a), sy = steady_span(b);
	if ((x.startup || x.winddown || x.capture || y.startup || y.winddown || y.capture) &&
	    sx != KG_NO_TIME && sy != KG_NO_TIME)
		duration_row(f, "steady", sx, sy); /* the span without start-up, wind-down and
						    * graph capture */
	text_steps(f, a, b);
	duration_row(f, "GPU busy", x.busy, y.busy);
	duration_row(f, "kernels", x.kernel_time, y.kernel_time);
	count_row(f, "  count", x.kernels, y.kernels);
	count_row(f, "copies", x.copies, y.copies);
	count_row(f, "memsets", x.memsets, y.memsets);
	count_row(f, "API calls", a->m->n_apis, b->m->n_apis);
	for (int cause = 0; cause < KG_GAP_CAUSES; cause++) {
		if (!x.idle[cause] && !y.idle[cause])
			continue;
		char label[24];
		snprintf(label, sizeof(label), "idle %s", gap_cause_name((enum kg_gap_cause)cause));
		duration_row(f, label, x.idle[cause], y.idle[cause]);
	}
	if (x.startup || y.startup)
		duration_row(f, "  start-up", x.startup, y.startup);
	if (x.winddown || y.winddown)
		duration_row(f, "  wind-down", x.winddown, y.winddown);
	if (x.capture || y.capture)
		duration_row(f, "  capture", x.capture, y.capture);
	if (gpus_differ(d)) {
		char gx[512], gy[512], line[1200];
		snprintf(line, sizeof(line), "%s before, %s after: the times compare the hardware as "
			 "well as the program", *used_gpus(a, gx, sizeof(gx)) ? gx : "no GPU",
			 *used_gpus(b, gy, sizeof(gy)) ? gy : "no GPU");
		fprintf(f, "  %-12s ", "GPUs differ");
		page_wrap(f, 15, line);
	}
	double kx = kernel_time_shared(d, 0), ky = kernel_time_shared(d, 1);
	if ((kx < KERNELS_SHARED_LOW || ky < KERNELS_SHARED_LOW) && programs_differ(d)) {
		char line[512];
		snprintf(line, sizeof(line), "other programs ran, and %.0f%% of the kernel time before "
			 "and %.0f%% after is of kernel names the other side has: the figures "
			 "compare two different programs as they are", 100 * kx, 100 * ky);
		fprintf(f, "  %-12s ", "other code");
		page_wrap(f, 15, line);
	}
}

/* "12.3 ms (4.5% of its span)": of its steady span when the trace had start-up or
 * wind-down, as the report says it. */
static const char *finding_brief(const struct kg_analysis *a, uint32_t i, char *buf, size_t size)
{
	char g[32];
	const struct kg_finding *k = &a->findings.v[i];
	snprintf(buf, size, "%s (%.1f%% of its %sspan)", fmt_duration(kg_i64_of(k->gain_ns), g),
		 k->gain_pct, a->steady_span != a->span ? "steady " : "");
	return buf;
}

static void text_findings(FILE *f, const struct kg_diff *d)
{
	fprintf(f, "\nFindings (%u before, %u after)\n", d->before->findings.n, d->after->findings.n);
	if (!d->n_findings)
		fprintf(f, "  none in either trace\n");
	for (uint32_t i = 0; i < d->n_findings; i++) {
		const struct kg_diff_finding *x = &d->findings[i];
		const struct kg_finding *p = x->before != KG_NONE ? &d->before->findings.v[x->before] : NULL;
		const struct kg_finding *q = x->after != KG_NONE ? &d->after->findings.v[x->after] : NULL;
		const struct kg_finding *k = q ? q : p;
		char head[160], b0[96], b1[96];
		snprintf(head, sizeof(head), "  %-9s %s [%s%s%s] ", diff_status_name(x->status),
			 kg_rules[k->rule].id, p ? severity_name(p->severity) : "", p && q ? "→" : "",
			 q ? severity_name(q->severity) : "");
		fputs(head, f);
		if (p && q) {
			finding_brief(d->before, x->before, b0, sizeof(b0));
			finding_brief(d->after, x->after, b1, sizeof(b1));
			/* the after side on a line of its own when the row would pass 100 columns */
			size_t cols = text_columns(head) + text_columns(b0) + text_columns(b1) + 8;
			fprintf(f, "gain %s%s→ %s", b0, cols > 100 ? "\n            " : " ", b1);
		} else {
			fprintf(f, "%s %s", p ? "was" : "now",
				finding_brief(p ? d->before : d->after, p ? x->before : x->after, b0,
					      sizeof(b0)));
		}
		fprintf(f, "\n%12s", "");
		page_wrap(f, 12, finding_str(k->title));
	}
}

static void kernel_count(const struct kg_analysis *a, uint32_t k, char buf[32])
{
	if (k == KG_NONE)
		strcpy(buf, "-");
	else
		fmt_count(a->kernels[k].count, buf);
}

static void text_kernels(FILE *f, const struct kg_diff *d, const struct kg_diff_opts *o)
{
	uint32_t shown = o->top > 0 && (uint32_t)o->top < d->n_kernels ? (uint32_t)o->top
								       : d->n_kernels;
	fprintf(f, "\nKernels by change in total time (%u of %u names)\n", shown, d->n_kernels);
	if (!shown) {
		fprintf(f, "  none\n");
		return;
	}
	static const char *const head[] = {"before", "after", "change", "count", "→ count",
					   "mean", "→ mean"};
	static const size_t width[] = {11, 11, 11, 9, 9, 11, 11};
	fputc(' ', f);
	for (int c = 0; c < 7; c++)
		page_cell(f, head[c], width[c] + 1, 1);
	fputc('\n', f);
	for (uint32_t i = 0; i < shown; i++) {
		const struct kg_diff_kernel *k = &d->kernels[i];
		char t1[32], t2[32], c[40], n1[32], n2[32], m1[32], m2[32], name[200];
		kernel_count(d->before, k->before, n1);
		kernel_count(d->after, k->after, n2);
		fmt_duration(k->before != KG_NONE ? d->before->kernels[k->before].total : KG_NO_TIME, t1);
		fmt_duration(k->after != KG_NONE ? d->after->kernels[k->after].total : KG_NO_TIME, t2);
		fmt_duration(k->before != KG_NONE ? kg_i64_of(d->before->kernels[k->before].mean)
						  : KG_NO_TIME, m1);
		fmt_duration(k->after != KG_NONE ? kg_i64_of(d->after->kernels[k->after].mean)
						 : KG_NO_TIME, m2);
		const char *v[] = {t1, t2, fmt_change(k->delta, c), n1, n2, m1, m2};
		fputc(' ', f);
		for (int col = 0; col < 7; col++)
			page_cell(f, v[col], width[col] + 1, 1);
		fputc('\n', f);
		const struct kg_analysis *a = k->after != KG_NONE ? d->after : d->before;
		uint32_t idx = k->after != KG_NONE ? k->after : k->before;
		fprintf(f, "      %s%s\n",
			kernel_short_name(kernel_name(a, idx), KG_PAGE_WIDTH - 20, name, sizeof(name)),
			k->before == KG_NONE ? "  (new)" : k->after == KG_NONE ? "  (gone)" : "");
	}
}

static void text_sites(FILE *f, const struct kg_diff *d)
{
	if (!d->before->has_stacks && !d->after->has_stacks)
		return;
	fprintf(f, "\nCall sites of the findings (%u before, %u after)\n", live_sites(d->before),
		live_sites(d->after));
	if (!d->n_sites)
		fprintf(f, "  none in either trace\n");
	for (uint32_t i = 0; i < d->n_sites; i++) {
		const struct kg_diff_site *x = &d->sites[i];
		const struct kg_site *p = x->before != KG_NONE ? &d->before->sites[x->before] : NULL;
		const struct kg_site *q = x->after != KG_NONE ? &d->after->sites[x->after] : NULL;
		char g1[32], g2[32], line[600];
		if (p && q)
			snprintf(line, sizeof(line), "%s → %s at %s", fmt_duration(kg_i64_of(p->ns), g1),
				 fmt_duration(kg_i64_of(q->ns), g2), q->label);
		else
			snprintf(line, sizeof(line), "%s %s at %s", p ? "was" : "now",
				 fmt_duration(kg_i64_of((p ? p : q)->ns), g1), (p ? p : q)->label);
		fprintf(f, "  %-9s ", x->status == KG_DIFF_RESOLVED ? "gone" : diff_status_name(x->status));
		page_wrap(f, 12, line);
	}
}

#define HOST_ROWS 8 /* activities that changed most */

/* Which host activity shrank or grew while the GPU waited: by cause, then the activities
 * that moved most. */
static void text_host(FILE *f, const struct kg_diff *d)
{
	const struct kg_host_table *p = &d->before->host, *q = &d->after->host;
	if (!p->on || !q->on)
		return;
	char g1[32], g2[32], c[40], pc[24], *label = malloc(HOST_LABEL);
	if (!label)
		return;
	fprintf(f, "\nWhile the GPU waited: the launching thread's activity (report --host)\n");
	fprintf(f, "  %-22s %s → %s   %s%s\n", "idle, host or sync", fmt_duration(kg_i64_round(p->idle_ns), g1),
		fmt_duration(kg_i64_round(q->idle_ns), g2),
		fmt_change(kg_i64_round(q->idle_ns - p->idle_ns), c), fmt_change_pct(p->idle_ns, q->idle_ns, pc));
	for (unsigned k = 0; k < KG_HOST_CAUSE_COUNT; k++) {
		if (!(p->cause_ns[k] > 0) && !(q->cause_ns[k] > 0))
			continue;
		fprintf(f, "  %-22s %s → %s   %s%s\n", host_cause_id(k),
			fmt_duration(kg_i64_round(p->cause_ns[k]), g1),
			fmt_duration(kg_i64_round(q->cause_ns[k]), g2),
			fmt_change(kg_i64_round(q->cause_ns[k] - p->cause_ns[k]), c),
			fmt_change_pct(p->cause_ns[k], q->cause_ns[k], pc));
	}
	uint32_t shown = 0;
	for (uint32_t i = 0; i < d->n_host && shown < HOST_ROWS; i++) {
		const struct kg_diff_host *h = &d->host[i];
		if (h->status == KG_DIFF_SAME)
			continue;
		const struct kg_analysis *a = h->after != KG_NONE ? d->after : d->before;
		uint32_t x = h->after != KG_NONE ? h->after : h->before;
		const char *what = h->status == KG_DIFF_RESOLVED ? "gone"
				   : h->status == KG_DIFF_NEW     ? "new"
				   : h->delta < 0                 ? "shrank"
								  : "grew";
		char line[HOST_LABEL + 96];
		snprintf(line, sizeof(line), "%s → %s in %s",
			 fmt_duration(kg_i64_round(host_ns(d->before, h->before)), g1),
			 fmt_duration(kg_i64_round(host_ns(d->after, h->after)), g2),
			 host_node_label(a, a->host.acts[x].node, label, HOST_LABEL));
		fprintf(f, "  %-9s ", what);
		page_wrap(f, 12, line);
		shown++;
	}
	free(label);
}

int diff_text(FILE *f, const struct kg_diff *d, const struct kg_diff_opts *o)
{
	text_summary(f, d);
	text_findings(f, d);
	text_sites(f, d);
	text_host(f, d);
	text_kernels(f, d, o);
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------------ JSON */

/* "steps": the count, how they were found and the median step's figures; null without. */
static void json_steps(struct jw *w, const struct kg_analysis *a)
{
	j_key(w, "steps");
	if (!has_steps(a)) {
		j_null(w);
		return;
	}
	const struct kg_steps *st = &a->steps;
	const struct kg_step *med = &st->v[st->median_step];
	j_open(w);
	kv_str(w, "source", steps_source_name((enum kg_steps_source)st->source));
	kv_int(w, "count", st->n);
	kv_int(w, "steady", st->n_steady);
	kv_int(w, "p50_ns", st->p50);
	kv_int(w, "p90_ns", st->p90);
	kv_int(w, "median_step_busy_ns", med->busy);
	kv_int(w, "median_step_kernels", med->kernels);
	j_close(w);
}

static void json_side(struct jw *w, const char *key, const char *path, const struct kg_analysis *a)
{
	struct totals t;
	totals_of(a, &t);
	j_key(w, key);
	j_open(w);
	kv_str(w, "path", path);
	kv_str(w, "source", a->m->source);
	j_key(w, "command");
	j_text(w, a->m, a->m->command);
	kv_int(w, "span_ns", a->span);
	kv_int(w, "gpus", a->n_gpus);
	char used[512];
	kv_str(w, "gpus_used", used_gpus(a, used, sizeof(used)));
	kv_int(w, "gpu_busy_ns", t.busy);
	kv_int(w, "kernels", (long long)t.kernels);
	kv_int(w, "kernel_time_ns", t.kernel_time);
	kv_int(w, "copies", (long long)t.copies);
	kv_int(w, "memsets", (long long)t.memsets);
	kv_int(w, "api_calls", a->m->n_apis);
	j_key(w, "idle_ns_by_cause");
	j_open(w);
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		kv_int(w, gap_cause_name((enum kg_gap_cause)c), t.idle[c]);
	j_close(w);
	kv_int(w, "idle_startup_ns", t.startup);
	kv_int(w, "idle_winddown_ns", t.winddown);
	kv_int(w, "idle_capture_ns", t.capture);
	int64_t steady = steady_span(a);
	j_key(w, "steady_span_ns");
	if (steady == KG_NO_TIME)
		j_null(w);
	else
		j_int(w, steady);
	json_steps(w, a);
	kv_int(w, "findings", a->findings.n);
	j_close(w);
}

static void json_finding(struct jw *w, const char *key, const struct kg_analysis *a, uint32_t i)
{
	j_key(w, key);
	if (i == KG_NONE)
		j_null(w);
	else
		finding_json_brief(w, &a->findings.v[i]);
}

static void json_kernel(struct jw *w, const char *key, const struct kg_analysis *a, uint32_t i)
{
	j_key(w, key);
	if (i == KG_NONE) {
		j_null(w);
		return;
	}
	const struct kg_kernel_stats *k = &a->kernels[i];
	j_open(w);
	kv_int(w, "count", k->count);
	kv_int(w, "total_ns", k->total);
	kv_num(w, "mean_ns", k->mean);
	kv_int(w, "p50_ns", k->p50);
	kv_int(w, "p99_ns", k->p99);
	j_close(w);
}

/* "host": only when both traces have host activity. */
static void json_host(struct jw *w, const struct kg_diff *d)
{
	const struct kg_host_table *p = &d->before->host, *q = &d->after->host;
	char label[HOST_LABEL];
	if (!p->on || !q->on)
		return;
	j_key(w, "host");
	j_open(w);
	kv_int(w, "before_idle_ns", kg_i64_round(p->idle_ns));
	kv_int(w, "after_idle_ns", kg_i64_round(q->idle_ns));
	j_key(w, "causes");
	j_aopen(w);
	for (unsigned k = 0; k < KG_HOST_CAUSE_COUNT; k++) {
		if (!(p->cause_ns[k] > 0) && !(q->cause_ns[k] > 0))
			continue;
		j_open(w);
		kv_str(w, "cause", host_cause_id(k));
		kv_int(w, "before_ns", kg_i64_round(p->cause_ns[k]));
		kv_int(w, "after_ns", kg_i64_round(q->cause_ns[k]));
		j_close(w);
	}
	j_aclose(w);
	j_key(w, "activities");
	j_aopen(w);
	for (uint32_t i = 0; i < d->n_host; i++) {
		const struct kg_diff_host *h = &d->host[i];
		const struct kg_analysis *a = h->after != KG_NONE ? d->after : d->before;
		uint32_t x = h->after != KG_NONE ? h->after : h->before;
		j_open(w);
		kv_str(w, "status", h->status == KG_DIFF_RESOLVED ? "gone" : diff_status_name(h->status));
		kv_str(w, "label", host_node_label(a, a->host.acts[x].node, label, sizeof(label)));
		kv_str(w, "cause", host_cause_id(a->host.acts[x].cause));
		j_key(w, "before_ns");
		h->before != KG_NONE ? j_int(w, kg_i64_round(host_ns(d->before, h->before))) : j_null(w);
		j_key(w, "after_ns");
		h->after != KG_NONE ? j_int(w, kg_i64_round(host_ns(d->after, h->after))) : j_null(w);
		j_close(w);
	}
	j_aclose(w);
	j_close(w);
}

int diff_json(FILE *f, const struct kg_diff *d)
{
	struct jw w;
	if (jw_begin(&w, f) < 0)
		return -ENOMEM;
	j_open(&w);
	kv_int(&w, "kgantt_diff_version", KG_DIFF_VERSION);
	json_side(&w, "before", d->before_path, d->before);
	json_side(&w, "after", d->after_path, d->after);
	kv_bool(&w, "gpus_differ", gpus_differ(d));
	kv_bool(&w, "programs_differ", programs_differ(d));
	j_key(&w, "kernel_time_shared");
	j_open(&w);
	kv_num(&w, "before", kernel_time_shared(d, 0));
	kv_num(&w, "after", kernel_time_shared(d, 1));
	j_close(&w);
	kv_int(&w, "span_delta_ns", kg_time_diff(d->after->span, d->before->span));
	kv_pct(&w, "span_delta_pct", (double)kg_time_diff(d->after->span, d->before->span),
	       (double)d->before->span);
	j_key(&w, "median_step_delta_ns");
	if (has_steps(d->before) && has_steps(d->after))
		j_int(&w, kg_time_diff(d->after->steps.p50, d->before->steps.p50));
	else
		j_null(&w);
	j_key(&w, "findings");
	j_aopen(&w);
	for (uint32_t i = 0; i < d->n_findings; i++) {
		const struct kg_diff_finding *x = &d->findings[i];
		const struct kg_finding *k = x->after != KG_NONE ? &d->after->findings.v[x->after]
								  : &d->before->findings.v[x->before];
		j_open(&w);
		kv_str(&w, "rule", kg_rules[k->rule].id);
		kv_opt_int(&w, "gpu", k->gpu != KG_NONE, k->gpu);
		kv_str(&w, "status", diff_status_name(x->status));
		json_finding(&w, "before", d->before, x->before);
		json_finding(&w, "after", d->after, x->after);
		j_close(&w);
	}
	j_aclose(&w);
	j_key(&w, "sites");
	j_aopen(&w);
	for (uint32_t i = 0; i < d->n_sites; i++) {
		const struct kg_diff_site *x = &d->sites[i];
		const struct kg_site *p = x->before != KG_NONE ? &d->before->sites[x->before] : NULL;
		const struct kg_site *q = x->after != KG_NONE ? &d->after->sites[x->after] : NULL;
		j_open(&w);
		kv_str(&w, "status", x->status == KG_DIFF_RESOLVED ? "gone" : diff_status_name(x->status));
		kv_str(&w, "label", (q ? q : p)->label);
		j_key(&w, "before_gain_ns");
		p ? j_num(&w, p->ns) : j_null(&w);
		j_key(&w, "after_gain_ns");
		q ? j_num(&w, q->ns) : j_null(&w);
		j_close(&w);
	}
	j_aclose(&w);
	json_host(&w, d);
	j_key(&w, "kernels");
	j_aopen(&w);
	for (uint32_t i = 0; i < d->n_kernels; i++) {
		const struct kg_diff_kernel *k = &d->kernels[i];
		j_open(&w);
		kv_str(&w, "name", k->after != KG_NONE ? kernel_name(d->after, k->after)
						       : kernel_name(d->before, k->before));
		json_kernel(&w, "before", d->before, k->before);
		json_kernel(&w, "after", d->after, k->after);
		kv_int(&w, "delta_total_ns", k->delta);
		j_close(&w);
	}
	j_aclose(&w);
	j_close(&w);
	return jw_end(&w) < 0 ? -EIO : 0;
}
