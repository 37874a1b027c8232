/* The report's Steps section and its JSON (analysis/steps.h): how the steps were found,
 * what was left out of the findings and why, the step time's percentiles, the median
 * step's figures, the outlier steps and what differs in them from the median one;
 * `report --list-steps` lists every step. */
#include "report/report.h"

#include <inttypes.h>
#include <string.h>

#include "text/json_writer.h"
#include "util/timemath.h"

/* A steady step this much longer than the median one is an outlier. */
#define OUTLIER_RATIO 1.5
/* Outliers named on the page (JSON marks them all). */
#define OUTLIERS_SHOWN 5
/* A host wait or a GPU busy time this much over the median step's is told. */
#define DIFFERS 1.5

/* A lead step (a prefill before decoded tokens) is judged among the lead steps. */
static int is_outlier(const struct kg_steps *st, uint32_t s)
{
	const struct kg_step *x = &st->v[s];
	return !x->warmup && (double)x->time > OUTLIER_RATIO * (double)(x->lead ? st->lead_p50 : st->p50);
}

static const struct kg_step *median_like(const struct kg_steps *st, const struct kg_step *x)
{
	return &st->v[x->lead ? st->median_lead : st->median_step];
}

/* Groups named on the page (JSON lists them all). */
#define GROUPS_SHOWN 6

/* The first step (index) of group g at or after step s, and its last: 0 when none. */
static int next_group(const struct kg_steps *st, uint32_t *s, uint32_t *last)
{
	while (*s < st->n && st->v[*s].group == KG_NONE)
		(*s)++;
	if (*s >= st->n)
		return 0;
	for (*last = *s; *last + 1 < st->n && st->v[*last + 1].group == st->v[*s].group; (*last)++)
		;
	return 1;
}

/* "2 requests: 4 and 24 tokens (steps 1–4, 5–28)", "2 epochs of 16 steps (steps 1–16,
 * 17–32), the ranges named 'epoch'"; the lead steps after the first group: steady. */
static void groups_line(const struct kg_analysis *a, char *buf, size_t len)
{
	const struct kg_steps *st = &a->steps;
	enum kg_group_kind k = (enum kg_group_kind)st->group_kind;
	char sizes[256] = "", spans[256] = "", firsts[128] = "";
	uint32_t g = 0, size0 = 0, equal = 1, leads = 0, lead_group = 0;
	for (uint32_t s = 0, last; next_group(st, &s, &last); s = last + 1, g++) {
		uint32_t size = last - s + 1;
		size0 = g ? size0 : size;
		equal &= size == size0;
		if (g && st->v[s].lead && !leads)
			lead_group = st->v[s].group + 1;
		if (g && st->v[s].lead && leads++ < GROUPS_SHOWN)
			text_appendf(firsts, sizeof(firsts), "%s%u", leads > 1 ? ", " : "", s + 1);
		if (g < GROUPS_SHOWN) {
			text_appendf(sizes, sizeof(sizes), "%s%u", !g ? "" : g + 1 == st->n_groups ?
				     " and " : ", ", size);
			text_appendf(spans, sizeof(spans), "%s%u–%u", g ? ", " : "", s + 1, last + 1);
		}
	}
	if (g > GROUPS_SHOWN) {
		text_appendf(sizes, sizeof(sizes), ", …");
		text_appendf(spans, sizeof(spans), ", …");
	}
	if (equal)
		snprintf(buf, len, "%u %s of %u %s (steps %s)", g, group_kind_plural(k), size0,
			 group_kind_unit(k), spans);
	else
		snprintf(buf, len, "%u %s: %s %s (steps %s)", g, group_kind_plural(k), sizes,
			 group_kind_unit(k), spans);
	if (st->group_name)
		text_appendf(buf, len, ", the ranges named '%s'", model_text(a->m, st->group_name));
	if (leads == 1)
		text_appendf(buf, len, "; step %s, the first of %s %u (unlike the rest), is steady, "
			     "judged only against such steps", firsts, group_kind_name(k), lead_group);
	else if (leads)
		text_appendf(buf, len, "; steps %s%s, the first of each later %s (unlike the rest), "
			     "are steady, judged only against each other", firsts,
			     leads > GROUPS_SHOWN ? ", …" : "", group_kind_name(k));
}

#define WHERE_SHARE 0.2f

/* Where the host was in that wait (host samples or a profiler's host events): ", 81% of
 * it in gc_collect_main ← … ← train.py:30 in main (garbage collection)". */
static void step_where(const struct kg_analysis *a, const struct kg_step *x, char *buf,
		       size_t len)
{
	if (x->gap_node == KG_NONE || !a->host.on || x->gap_node >= a->host.n_nodes ||
	    x->gap_share < WHERE_SHARE)
		return; /* a small part of the wait says nothing of it */
	char label[1024], p[16];
	text_appendf(buf, len, ", %s of it %s (%s)", fmt_pct(x->gap_share, 1.0, p),
		     host_node_label(a, x->gap_node, label, sizeof(label)),
		     host_cause_what(x->gap_cause));
}

/* " (host 700 µs, sync 100 µs)": a step's idle gaps by cause, the largest first; "" none. */
static void idle_causes(const struct kg_step *x, char *buf, size_t len)
{
	int order[KG_GAP_CAUSES], n = 0;
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		if (x->idle_by_cause[c] > 0)
			order[n++] = c;
	for (int i = 1; i < n; i++) /* a handful: insertion sort, largest first */
		for (int j = i; j > 0 && x->idle_by_cause[order[j]] > x->idle_by_cause[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		char d[32];
		text_appendf(buf, len, "%s%s %s", i ? ", " : " (in gaps: ",
			     gap_cause_name((enum kg_gap_cause)order[i]),
			     fmt_duration(x->idle_by_cause[order[i]], d));
	}
	if (n)
		text_appendf(buf, len, ")");
}

/* What differs in step s from the median step: "the host waited 5.6 ms (median 0.1 ms)
 * before launching X; 2 syncs (median 1); 3 more operations; X ran 2.1 ms longer". */
static void step_why(const struct kg_analysis *a, const struct kg_steps *st, uint32_t s,
		     char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	const struct kg_step *x = &st->v[s], *med = median_like(st, x);
	char d1[32], d2[32], k[96];
	const char *sep = "";
	buf[0] = '\0';
	if (x->host_gap > DIFFERS * (double)med->host_gap && x->host_gap > 0 && x->gap_name) {
		text_appendf(buf, len, "the host waited %s (median step %s) before launching %s",
			     fmt_duration(x->host_gap, d1), fmt_duration(med->host_gap, d2),
			     kernel_short_name(model_text(m, x->gap_name), 60, k, sizeof(k)));
		step_where(a, x, buf, len);
		sep = "; ";
	}
	if (x->syncs > med->syncs) {
		text_appendf(buf, len, "%s%u %s (median step %u)", sep, x->syncs,
			     plural(x->syncs, "host sync", "host syncs"), med->syncs);
		sep = "; ";
	}
	if (x->kernels != med->kernels || x->copies != med->copies || x->memsets != med->memsets) {
		text_appendf(buf, len, "%s%u %s, %u %s, %u %s (median step %u, %u, %u)", sep,
			     x->kernels, plural(x->kernels, "kernel", "kernels"), x->copies,
			     plural(x->copies, "copy", "copies"), x->memsets,
			     plural(x->memsets, "memset", "memsets"), med->kernels, med->copies,
			     med->memsets);
		sep = "; ";
	}
	if (x->slow_name && x->slow_by > 0 &&
	    (double)x->busy > DIFFERS * (double)med->busy) {
		text_appendf(buf, len, "%s%s ran %s longer than in the median step", sep,
			     kernel_short_name(model_text(m, x->slow_name), 60, k, sizeof(k)),
			     fmt_duration(x->slow_by, d1));
		sep = "; ";
	}
	if ((double)x->busy > DIFFERS * (double)med->busy)
		text_appendf(buf, len, "%sGPU busy %s (median step %s)", sep,
			     fmt_duration(x->busy, d1), fmt_duration(med->busy, d2));
	else if (!*buf)
		text_appendf(buf, len, "GPU idle %s (median step %s)",
			     fmt_duration(kg_time_span(x->time, x->busy), d1),
			     fmt_duration(kg_time_span(med->time, med->busy), d2));
}

/* "steps 1–3" or "step 1". */
static const char *step_numbers(uint32_t from, uint32_t to, char buf[48])
{
	if (from == to)
		snprintf(buf, 48, "step %u", from);
	else
		snprintf(buf, 48, "steps %u–%u", from, to);
	return buf;
}

/* A left-out stretch's host side is said when a known cause took at least this share. */
#define LEFT_OUT_CAUSE_SHARE 0.25

/* " (host: 980.2 ms of JIT compilation)": what the launching thread did in a stretch of
 * `len` the steady steps leave out, when a known cause took enough of it. */
static void host_while_text(char *line, size_t size, unsigned cause, int64_t ns, int64_t len)
{
	char d[32];
	if (cause >= KG_HOST_CAUSE_OTHER || len <= 0 || (double)ns < LEFT_OUT_CAUSE_SHARE * (double)len)
		return;
	text_appendf(line, size, " (host: %s of %s)", fmt_duration(ns, d), host_cause_what(cause));
}

void report_text_steps_header(FILE *f, const struct kg_analysis *a)
{
	const struct kg_steps *st = &a->steps;
	if (!st->n)
		return;
	char line[512], d[32], nums[48];
	if (st->whole) {
		page_fieldf(f, 2, "steps", "%u found; --whole: the findings are of the whole run",
			    st->n);
		return;
	}
	if (st->chosen_from) {
		page_fieldf(f, 2, "steps", "the findings are of %s (--steps) of the %u found",
			    step_numbers(st->chosen_from, st->chosen_to, nums), st->n);
		return;
	}
	if (!st->applied)
		return; /* they leave out too little to matter: the whole run, as without them */
	snprintf(line, sizeof(line), "the findings are of the %u steady %s", st->n_steady,
		 plural(st->n_steady, "step", "steps"));
	uint32_t others = 0;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_steps *o = steps_of_gpu(a, g);
		others += o && o != st && o->n_steady;
	}
	if (others) {
		char gl[64];
		text_appendf(line, sizeof(line), " of %s and those of %u other %s",
			     gpu_label(a->m, a->gpus[st->gpu].gpu, gl, sizeof(gl)), others,
			     plural(others, "GPU", "GPUs"));
	}
	const char *sep = "; left out: ";
	/* the window: the steady steps of every GPU (a->m is cut to it) */
	int64_t first = a->m->begin < st->v[0].start ? a->m->begin : st->v[0].start;
	int64_t before = kg_time_span(first, st->trace_begin);
	if (before) {
		text_appendf(line, sizeof(line), "%s%s before step 1", sep, fmt_duration(before, d));
		host_while_text(line, sizeof(line), st->startup_cause, st->startup_cause_ns, before);
		sep = ", ";
	}
	if (st->first_steady) {
		text_appendf(line, sizeof(line), "%s%s: warm-up (other operations than the median "
			     "step, or 1.5 times as long), %s", sep,
			     step_numbers(1, st->first_steady, nums), fmt_duration(st->warmup_time, d));
		host_while_text(line, sizeof(line), st->warmup_cause, st->warmup_cause_ns,
				st->warmup_time);
		sep = ", ";
	}
	int64_t last = a->m->end > st->steady_end ? a->m->end : st->steady_end;
	int64_t after = kg_time_span(st->trace_end, last);
	if (after)
		text_appendf(line, sizeof(line), "%s%s after %s", sep, fmt_duration(after, d),
			     others ? "them" : step_numbers(st->n, st->n, nums));
	page_field(f, 2, "steps", line);
}

/* t in ms from the start of the trace the steps were found in ("-" unknown): the same
 * whether the report is of the whole trace or of its steady steps. */
static void rel_ms(const struct kg_steps *st, int64_t t, char buf[32])
{
	if (t == KG_NO_TIME)
		strcpy(buf, "-");
	else
		snprintf(buf, 32, "%.3f", (double)kg_time_diff(t, st->trace_begin) / 1e6);
}

static void steps_table(FILE *f, const struct kg_steps *st)
{
	static const char *const cols[] = {"step", "host ms", "GPU ms", "time", "busy",
					   "idle", "kernels", "copies", "memsets", "syncs", ""};
	static const size_t w[] = {6, 12, 12, 11, 11, 11, 8, 7, 8, 6, 0};
	fputs("  ", f);
	for (size_t c = 0; c + 1 < sizeof(cols) / sizeof(cols[0]); c++)
		page_cell(f, cols[c], w[c], 1);
	fputc('\n', f);
	for (uint32_t s = 0; s < st->n; s++) {
		const struct kg_step *x = &st->v[s];
		char v[10][32];
		snprintf(v[0], 32, "%u", s + 1);
		rel_ms(st, x->host_start, v[1]);
		rel_ms(st, x->start, v[2]);
		fmt_duration(x->time, v[3]);
		fmt_duration(x->busy, v[4]);
		fmt_duration(kg_time_span(x->time, x->busy), v[5]);
		snprintf(v[6], 32, "%u", x->kernels);
		snprintf(v[7], 32, "%u", x->copies);
		snprintf(v[8], 32, "%u", x->memsets);
		snprintf(v[9], 32, "%u", x->syncs);
		fputs("  ", f);
		for (int c = 0; c < 10; c++)
			page_cell(f, v[c], w[c], 1);
		fputs(x->warmup ? "  warm-up" : is_outlier(st, s) ? "  outlier" : "", f);
		if (x->lead && !x->warmup)
			fprintf(f, "  first of %s %u", group_kind_name((enum kg_group_kind)st->group_kind),
				x->group + 1);
		fputc('\n', f);
	}
}

/* Every other GPU with work: its own steps, a line each (a trace of several ranks). */
static void other_gpus_text(FILE *f, const struct kg_analysis *a)
{
	const char *label = "other GPUs";
	for (uint32_t g = 0; a->gpu_steps && g < a->n_gpus; g++) {
		if (g == a->steps.gpu || !a->gpus[g].n_ops)
			continue;
		const struct kg_steps *st = steps_of_gpu(a, g);
		char line[512], gl[64], d[3][32], p[16];
		gpu_label(a->m, a->gpus[g].gpu, gl, sizeof(gl));
		if (!st) {
			snprintf(line, sizeof(line), "%s: no steps found", gl);
		} else {
			const struct kg_step *med = &st->v[st->median_step];
			snprintf(line, sizeof(line), "%s: %u %s %s, p50 %s, max %s over the %u steady; "
				 "median step GPU busy %s (%s)", gl, st->n, plural(st->n, "step", "steps"),
				 st->source == KG_STEPS_RHYTHM ? "by the rhythm" : "by annotation",
				 fmt_duration(st->p50, d[0]), fmt_duration(st->max, d[1]), st->n_steady,
				 fmt_duration(med->busy, d[2]),
				 fmt_pct((double)med->busy, (double)med->time, p));
		}
		page_field(f, 2, label, line);
		label = "";
	}
}

void report_text_steps(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	const struct kg_steps *st = &a->steps;
	if (!st->n)
		return;
	const struct kg_model *m = a->m;
	page_heading(f, o->color, "Steps");
	char line[1024], d[4][32], gl[64];
	if (st->source == KG_STEPS_ANNOTATION)
		snprintf(line, sizeof(line), "%u %s, the ranges named '%s'", st->n,
			 plural(st->n, "step", "steps"), model_text(m, st->name));
	else
		snprintf(line, sizeof(line), "%u %s by the rhythm of the launches (no annotation): "
			 "%u operations repeat", st->n, plural(st->n, "step", "steps"), st->period);
	text_appendf(line, sizeof(line), ", on %s", gpu_label(m, a->gpus[st->gpu].gpu, gl, sizeof(gl)));
	page_field(f, 2, "found", line);
	if (st->n_groups) {
		groups_line(a, line, sizeof(line));
		page_field(f, 2, "groups", line);
	}
	char over[64], nums[48];
	if (st->chosen_from)
		snprintf(over, sizeof(over), "%s (--steps)",
			 step_numbers(st->chosen_from, st->chosen_to, nums));
	else
		snprintf(over, sizeof(over), "the %u steady %s", st->n_steady,
			 plural(st->n_steady, "step", "steps"));
	snprintf(line, sizeof(line), "p50 %s, p90 %s, p99 %s, max %s over %s",
		 fmt_duration(st->p50, d[0]), fmt_duration(st->p90, d[1]), fmt_duration(st->p99, d[2]),
		 fmt_duration(st->max, d[3]), over);
	page_field(f, 2, "step time", line);
	const struct kg_step *med = &st->v[st->median_step];
	char p[16], causes[160];
	idle_causes(med, causes, sizeof(causes));
	snprintf(line, sizeof(line), "step %u: GPU busy %s (%s), idle %s%s; %u %s, %u %s, %u %s, "
		 "%u %s", st->median_step + 1, fmt_duration(med->busy, d[0]),
		 fmt_pct((double)med->busy, (double)med->time, p),
		 fmt_duration(kg_time_span(med->time, med->busy), d[1]), causes, med->kernels,
		 plural(med->kernels, "kernel", "kernels"), med->copies,
		 plural(med->copies, "copy", "copies"), med->memsets,
		 plural(med->memsets, "memset", "memsets"), med->syncs,
		 plural(med->syncs, "host sync", "host syncs"));
	page_field(f, 2, "median step", line);
	uint32_t shown = 0, outliers = 0;
	const char *label = "outliers";
	for (uint32_t s = st->first_steady; s < st->n; s++) {
		if (!is_outlier(st, s) || outliers++ >= OUTLIERS_SHOWN)
			continue;
		char why[600];
		step_why(a, st, s, why, sizeof(why));
		snprintf(line, sizeof(line), "step %u: %s (%.1f× the median%s): %s", s + 1,
			 fmt_duration(st->v[s].time, d[0]),
			 (double)st->v[s].time / (double)median_like(st, &st->v[s])->time,
			 st->v[s].lead ? " first step of a group" : "", why);
		page_field(f, 2, label, line);
		label = "";
		shown++;
	}
	if (outliers > shown)
		page_fieldf(f, 2, "", "and %u more (report --list-steps lists every step)", outliers - shown);
	other_gpus_text(f, a);
	if (!o->steps)
		return;
	/* each GPU's own, under its name when there are others */
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		const struct kg_steps *x = steps_of_gpu(a, g);
		if (!x)
			continue;
		if (a->gpu_steps)
			fprintf(f, "  %s\n", gpu_label(m, a->gpus[g].gpu, gl, sizeof(gl)));
		steps_table(f, x);
	}
}

/* ---------------------------------------------------------------- JSON */

static void json_step(struct jw *w, const struct kg_analysis *a, const struct kg_steps *st,
		      uint32_t s)
{
	const struct kg_step *x = &st->v[s];
	j_open(w);
	kv_int(w, "step", s + 1);
	kv_time(w, "host_start_ns", x->host_start);
	kv_time(w, "start_ns", x->start);
	kv_time(w, "end_ns", x->end);
	kv_int(w, "time_ns", x->time);
	kv_int(w, "busy_ns", x->busy);
	kv_int(w, "idle_ns", kg_time_span(x->time, x->busy));
	kv_int(w, "kernels", x->kernels);
	kv_int(w, "copies", x->copies);
	kv_int(w, "memsets", x->memsets);
	kv_int(w, "syncs", x->syncs);
	kv_int(w, "host_gap_ns", x->host_gap);
	j_key(w, "idle_ns_by_cause");
	j_open(w);
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		kv_int(w, gap_cause_name((enum kg_gap_cause)c), x->idle_by_cause[c]);
	j_close(w);
	kv_bool(w, "warmup", x->warmup);
	kv_opt_int(w, "group", x->group != KG_NONE, (long long)x->group + 1);
	kv_bool(w, "lead", x->lead);
	int out = is_outlier(st, s);
	kv_bool(w, "outlier", out);
	char why[600] = "";
	if (out)
		step_why(a, st, s, why, sizeof(why));
	j_key(w, "why");
	if (out)
		j_str(w, why);
	else
		j_null(w);
	j_close(w);
}

/* steps.groups: [] when the steps run evenly from start to end (one group). */
static void json_groups(struct jw *w, const struct kg_analysis *a)
{
	const struct kg_steps *st = &a->steps;
	j_key(w, "groups");
	j_aopen(w);
	for (uint32_t s = 0, last; st->n_groups && next_group(st, &s, &last); s = last + 1) {
		j_open(w);
		kv_int(w, "first", s + 1);
		kv_int(w, "last", last + 1);
		kv_int(w, "steps", last - s + 1);
		kv_time(w, "start_ns", st->v[s].start);
		kv_time(w, "end_ns", st->v[last].end);
		kv_str(w, "kind", group_kind_name((enum kg_group_kind)st->group_kind));
		j_key(w, "name");
		j_text(w, a->m, st->group_name);
		kv_bool(w, "lead", st->v[s].lead);
		j_close(w);
	}
	j_aclose(w);
}

/* steps.startup_host / warmup_host: {"cause", "ns"}, the host cause that took most of
 * the start-up or the warm-up, or null when nothing is known. */
static void json_left_out_host(struct jw *w, const char *key, unsigned cause, int64_t ns)
{
	j_key(w, key);
	if (cause >= KG_HOST_CAUSE_COUNT) {
		j_null(w);
		return;
	}
	j_open(w);
	kv_str(w, "cause", host_cause_id(cause));
	kv_int(w, "ns", ns);
	j_close(w);
}

/* "steps": every step of st. */
static void json_step_list(struct jw *w, const struct kg_analysis *a, const struct kg_steps *st)
{
	j_key(w, "steps");
	j_aopen(w);
	for (uint32_t s = 0; s < st->n; s++)
		json_step(w, a, st, s);
	j_aclose(w);
}

/* The steady steps' times and the median step. */
static void json_step_times(struct jw *w, const struct kg_steps *st)
{
	kv_int(w, "time_p50_ns", st->p50);
	kv_int(w, "time_p90_ns", st->p90);
	kv_int(w, "time_p99_ns", st->p99);
	kv_int(w, "time_max_ns", st->max);
	kv_int(w, "median_step", st->median_step + 1);
}

/* steps.other_gpus: every other GPU with work, its own steps' figures (count 0: none). */
static void json_other_gpus(struct jw *w, const struct kg_analysis *a)
{
	j_key(w, "other_gpus");
	j_aopen(w);
	for (uint32_t g = 0; a->gpu_steps && g < a->n_gpus; g++) {
		if (g == a->steps.gpu || !a->gpus[g].n_ops)
			continue;
		const struct kg_steps *st = steps_of_gpu(a, g);
		j_open(w);
		kv_int(w, "gpu", g);
		kv_str(w, "source", steps_source_name(st ? (enum kg_steps_source)st->source : KG_STEPS_NONE));
		kv_int(w, "count", st ? st->n : 0);
		if (st) {
			const struct kg_step *med = &st->v[st->median_step];
			kv_int(w, "first_steady", st->first_steady + 1);
			kv_int(w, "steady", st->n_steady);
			json_step_times(w, st);
			kv_int(w, "median_busy_ns", med->busy);
			kv_int(w, "median_kernels", med->kernels);
			json_step_list(w, a, st);
		}
		j_close(w);
	}
	j_aclose(w);
}

void report_json_steps(struct jw *w, const struct kg_analysis *a)
{
	const struct kg_steps *st = &a->steps;
	j_key(w, "steps");
	j_open(w);
	kv_str(w, "source", steps_source_name((enum kg_steps_source)st->source));
	kv_int(w, "count", st->n);
	if (st->n) {
		j_key(w, "name");
		j_text(w, a->m, st->name);
		kv_opt_int(w, "period", st->source == KG_STEPS_RHYTHM, st->period);
		kv_int(w, "gpu", st->gpu);
		kv_bool(w, "whole", st->whole);
		kv_bool(w, "applied", st->applied);
		kv_bool(w, "chosen", st->chosen_from != 0); /* --steps N-M: steady = those */
		kv_int(w, "first_steady", st->first_steady + 1);
		kv_int(w, "steady", st->n_steady);
		kv_time(w, "steady_begin_ns", st->steady_begin);
		kv_time(w, "steady_end_ns", st->steady_end);
		kv_int(w, "warmup_ns", st->warmup_time);
		json_left_out_host(w, "startup_host", st->startup_cause, st->startup_cause_ns);
		json_left_out_host(w, "warmup_host", st->warmup_cause, st->warmup_cause_ns);
		json_step_times(w, st);
		json_groups(w, a);
		json_step_list(w, a, st);
		json_other_gpus(w, a);
	}
	j_close(w);
}
