/* A finding on a terminal page (finding_out.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/load.h"
#include "report/finding_out.h"
#include "util/format.h"
#include "text/names.h"
#include "text/page.h"
#include "util/timemath.h"

#define INDENT 3 /* a finding's fields, under its "#1 " */

static enum page_tone severity_tone(enum kg_severity s)
{
	return s == KG_SEV_CRITICAL ? PAGE_BAD : s == KG_SEV_WARNING ? PAGE_WARN : PAGE_BOLD;
}

/* A finding's field: label, then the text wrapped under itself. */
#define field(f, label, ...) page_fieldf(f, INDENT, label, __VA_ARGS__)

/* "#1 [critical] rule: title", the title wrapping under itself. */
static void title_line(FILE *f, int color, const struct kg_finding *fd, uint32_t number)
{
	char head[48];
	snprintf(head, sizeof(head), "#%" PRIu32 " [%s] ", number, severity_name(fd->severity));
	fprintf(f, "#%" PRIu32 " ", number);
	page_tone_on(f, color, severity_tone(fd->severity));
	fprintf(f, "[%s]", severity_name(fd->severity));
	page_tone_off(f, color, severity_tone(fd->severity));
	fputc(' ', f);
	char *line = NULL;
	if (asprintf(&line, "%s: %s", kg_rules[fd->rule].id, finding_str(fd->title)) < 0)
		return;
	page_wrap(f, text_columns(head), line);
	free(line);
}

/* "48.8 ms (79.3% of the steady span); how it was estimated" */
static void gain_line(FILE *f, const struct kg_finding_place *p, const struct kg_finding *fd)
{
	char g[32];
	int steady = p->a ? p->a->steady_span != p->a->span : p->j->steady_span != p->j->span;
	if (fd->gain_ns > 0)
		field(f, "gain", "%s (%.1f%% of the %s%sspan)%s%s",
		      fmt_duration(kg_i64_round(fd->gain_ns), g), fd->gain_pct,
		      p->j ? "job's " : "", steady ? "steady " : "", fd->gain_how ? "; " : "",
		      finding_str(fd->gain_how));
	else
		field(f, "gain", "%s", fd->gain_how ? fd->gain_how : "not estimated");
}

/* When, in the trace, and on which GPU. */
static void when_line(FILE *f, const struct kg_analysis *a, const struct kg_finding *fd)
{
	const struct kg_model *m = a->m;
	char s[32], e[32], g[64] = "";
	if (fd->start == KG_NO_TIME || fd->end == KG_NO_TIME)
		return;
	if (fd->gpu != KG_NONE)
		gpu_label(m, fd->gpu, g, sizeof(g));
	field(f, "when", "%s to %s%s%s", fmt_rel_ms(m, fd->start, s), fmt_rel_ms(m, fd->end, e),
	      *g ? " on " : "", g);
}

/* The steps it lies in, when it is of a few: "in 6 of 58 steady steps: 10, 20, 30, ...". */
static void steps_line(FILE *f, const struct kg_finding *fd)
{
	if (!fd->n_in_steps)
		return;
	char line[256];
	int at = snprintf(line, sizeof(line), "in %u of the %u steady steps: ", fd->n_in_steps,
			  fd->of_steps);
	uint32_t shown = fd->n_in_steps < KG_FINDING_STEPS ? fd->n_in_steps : KG_FINDING_STEPS;
	for (uint32_t k = 0; k < shown && at > 0 && (size_t)at < sizeof(line); k++)
		at += snprintf(line + at, sizeof(line) - (size_t)at, "%s%u", k ? ", " : "",
			       fd->in_steps[k] + 1);
	if (fd->n_in_steps > shown && at > 0 && (size_t)at < sizeof(line))
		snprintf(line + at, sizeof(line) - (size_t)at, ", … (report --list-steps)");
	field(f, "steps", "%s", line);
}

/* The rank a job finding is about. */
static void rank_line(FILE *f, const struct kg_job *j, const struct kg_finding *fd)
{
	if (fd->rank == KG_NONE || fd->rank >= j->n_ranks)
		return;
	const struct kg_rank *r = &j->ranks[fd->rank];
	field(f, "rank", "%s: %s, pid %" PRIu32 " on %s, GPU %d (%s)", r->label, r->file, r->pid,
	      r->host[0] ? r->host : "?", r->ordinal, r->gpu);
}

/* "88% (12.3 ms) at train.py:27 in epoch → aten::item → cudaStreamSynchronize" per site. */
static void sites_lines(FILE *f, const struct kg_analysis *a, const struct kg_finding *fd, int max)
{
	char g[32];
	double total = fd->sited_ns + fd->unsited_ns;
	if (!a->has_stacks || total <= 0 || max <= 0)
		return;
	int shown = 0;
	double rest = fd->sited_ns; /* what the sites not shown cause */
	for (int k = 0; k < fd->n_sites && k < max; k++) {
		const struct kg_site *s = &a->sites[fd->sites[k].site];
		rest -= fd->sites[k].ns;
		field(f, shown++ ? "" : "where", "%.0f%% (%s) at %s", 100.0 * fd->sites[k].ns / total,
		      fmt_duration(kg_i64_round(fd->sites[k].ns), g), s->label);
	}
	if (rest > total * 0.005) {
		int others = fd->n_sites - max;
		/* a finding keeps its largest KG_MAX_FINDING_SITES: past them, their count is not
		 * known here */
		if (fd->n_sites < KG_MAX_FINDING_SITES)
			field(f, shown++ ? "" : "where", "%.0f%% (%s) at %d other %s",
			      100.0 * rest / total, fmt_duration(kg_i64_round(rest), g), others,
			      plural((unsigned)others, "site", "sites"));
		else
			field(f, shown++ ? "" : "where",
			      "%.0f%% (%s) at other sites (kgantt report --sites)", 100.0 * rest / total,
			      fmt_duration(kg_i64_round(rest), g));
	}
	if (fd->unsited_ns > total * 0.005)
		field(f, shown++ ? "" : "where", "%.0f%% (%s) from calls recorded without a stack",
		      100.0 * fd->unsited_ns / total, fmt_duration(kg_i64_round(fd->unsited_ns), g));
}

#define HOST_ROWS 3 /* activities under a finding; report --host has them all */

/* "62% (46.1 ms)": a part of the finding's gain. */
static const char *part_text(double ns, double total, char *buf, size_t len)
{
	char g[32];
	double pct = 100.0 * ns / total;
	fmt_duration(kg_i64_round(ns), g);
	if (pct > 0 && pct < 0.5) /* a part that rounds to 0 % is there all the same */
		snprintf(buf, len, "<1%% (%s)", g);
	else
		snprintf(buf, len, "%.0f%% (%s)", pct, g);
	return buf;
}

static int by_part(const void *x, const void *y, void *arg)
{
	const double *ns = arg;
	double a = ns[*(const int *)x], b = ns[*(const int *)y];
	if (a != b)
		return (a < b) - (a > b);
	return *(const int *)x - *(const int *)y;
}

char *host_causes_text(const double *cause_ns, double total)
{
	int order[KG_HOST_CAUSE_COUNT], n = 0;
	for (int c = 0; c < KG_HOST_CAUSE_COUNT; c++)
		if (cause_ns[c] >= 0.01 * total && cause_ns[c] > 0)
			order[n++] = c;
	qsort_r(order, (size_t)n, sizeof(*order), by_part, (void *)cause_ns);
	char *line = NULL, part[64];
	for (int i = 0; i < n; i++) {
		char *next = NULL;
		if (asprintf(&next, "%s%s%s %s", line ? line : "", i ? ", " : "",
			     host_cause_what((unsigned)order[i]),
			     part_text(cause_ns[order[i]], total, part, sizeof(part))) < 0) {
			free(line);
			return NULL;
		}
		free(line);
		line = next;
	}
	return line;
}

/* What the causes take of the gain, and whether the fix follows one. */
static void cause_line(FILE *f, const struct kg_finding *fd)
{
	char *line = host_causes_text(fd->host_cause_ns, fd->gain_ns);
	if (!line)
		return;
	int only_other = !strchr(line, ',') && fd->host_cause_ns[KG_HOST_CAUSE_OTHER] > 0;
	field(f, "cause", "%s%s", line,
	      fd->host_cause >= 0 ? ": the fix below is for the first"
	      : only_other	  ? ": the frames above are the answer"
				  : "");
	free(line);
}

/* How much of the gain was the recording's own work on the launching thread (CUPTI's
 * buffers and callbacks, the recorder's call stacks, as its samples and the overhead
 * records show): time the program does not spend untraced, so that nobody chases the
 * tracer's shadow. With too few samples to say what the thread did, only what the
 * overhead records measure: 3 samples of 4 in the recorder's clock read once made it
 * "69%". Between tiny kernels, what no record measures is said too: CUPTI's work inside
 * every launch call, a large part of a gap of a few microseconds. */
static void tracer_line(FILE *f, const struct kg_analysis *a, const struct kg_finding *fd)
{
	double ns = finding_host_few_samples(fd) ? fd->host_tracer_records_ns
						 : fd->host_cause_ns[KG_HOST_CAUSE_TRACER];
	/* kgantt's recordings only: another profiler's trace was not made with CUPTI the
	 * way these figures were measured, or not with CUPTI at all (an AMD GPU's) */
	int launches = fd->rule == KG_RULE_LAUNCH_OVERHEAD && !strcmp(a->m->source, "kgantt");
	/* kernels mode against untraced on 20,000 empty launches, the tables of
	 * docs/overhead.md: 0.35 us (H100, 2026-12-06 11:20) to 2.3 us (H100, 2026-12-07
	 * 14:41), 0.54 us on the H200 */
	const char *unmeasured = "CUPTI's work inside each launch call is in these gaps too and "
				 "no record measures it: kernels mode alone added 0.35–2.3 µs to "
				 "an empty launch on the H100s and the H200 measured "
				 "(docs/overhead.md)";
	char part[64];
	if (ns > 0 && fd->gain_ns > 0)
		field(f, "recording", "%s of it was the tracer's own work on that thread (CUPTI, %s), "
				      "which the program does not do untraced%s%s",
		      part_text(ns, fd->gain_ns, part, sizeof(part)), source_recorder(a->m->source),
		      launches ? "; " : "", launches ? unmeasured : "");
	else if (launches)
		field(f, "recording", "%s", unmeasured);
}

/* While the GPU waited: what the thread that launched the next work was doing, its top
 * activities by part of the gain, the rest, what no span covers, and the causes. */
static void host_lines(FILE *f, const struct kg_analysis *a, const struct kg_finding *fd)
{
	double total = fd->gain_ns, rest = total - fd->host_unseen_ns;
	if (!a->host.on || total <= 0 || (!fd->n_host && !(fd->host_unseen_ns > 0)))
		return;
	if (finding_host_few_samples(fd)) {
		field(f, "host", "only %u %s of the thread that launched the next work fell in these "
				 "gaps: too few to say what it did (record a longer run, or sample "
				 "more often: kgantt record --host-samples=1000)",
		      fd->host_samples, plural(fd->host_samples, "sample", "samples"));
		tracer_line(f, a, fd);
		return;
	}
	field(f, "host", "while the GPU waited, the thread that launched the next work was");
	char part[64], *label = malloc(4096);
	if (!label)
		return;
	uint32_t k = 0;
	for (; k < fd->n_host && k < HOST_ROWS; k++) {
		rest -= fd->host[k].ns;
		field(f, "", "%s in %s", part_text(fd->host[k].ns, total, part, sizeof(part)),
		      host_node_label(a, fd->host[k].node, label, 4096));
	}
	free(label);
	if (k < fd->n_host && rest > 0.005 * total)
		field(f, "", "%s in %u other %s (kgantt report --host)",
		      part_text(rest, total, part, sizeof(part)), fd->n_host - k,
		      plural(fd->n_host - k, "activity", "activities"));
	if (fd->host_unseen_ns > 0.005 * total) {
		char what[64];
		field(f, "", "%s %s", part_text(fd->host_unseen_ns, total, part, sizeof(part)),
		      host_node_name(a, 0, what, sizeof(what)));
	}
	cause_line(f, fd);
	tracer_line(f, a, fd);
}

/* "12.300–14.500 ms  stream 7: text"; a job's evidence is its text. */
static void evidence_line(FILE *f, const struct kg_analysis *a, const struct kg_evidence *e,
			  const char *label)
{
	char s[32], t[32], st[160];
	const char *what = e->text ? e->text : "";
	if (!a) {
		field(f, label, "%s", what);
		return;
	}
	const struct kg_model *m = a->m;
	char when[80] = "";
	if (e->start != KG_NO_TIME && e->end != KG_NO_TIME && e->end != e->start)
		snprintf(when, sizeof(when), "%.3f–%s  ",
			 (double)kg_time_diff(e->start, m->begin) / 1e6, fmt_rel_ms(m, e->end, t));
	else if (e->start != KG_NO_TIME)
		snprintf(when, sizeof(when), "at %s  ", fmt_rel_ms(m, e->start, s));
	if (e->stream != KG_NONE)
		field(f, label, "%s%s: %s", when,
		      stream_label(m, e->stream, STREAM_LABEL_WHERE, st, sizeof(st)), what);
	else
		field(f, label, "%s%s", when, what);
}

void finding_text(FILE *f, const struct kg_finding_place *p, const struct kg_finding *fd,
		  uint32_t number)
{
	fputc('\n', f);
	title_line(f, p->color, fd, number);
	gain_line(f, p, fd);
	if (p->a) {
		when_line(f, p->a, fd);
		steps_line(f, fd);
		sites_lines(f, p->a, fd, p->sites);
		host_lines(f, p->a, fd);
	} else {
		rank_line(f, p->j, fd);
	}
	for (int k = 0; k < fd->n_evidence; k++)
		evidence_line(f, p->a, &fd->evidence[k], k ? "" : "evidence");
	if (fd->explanation)
		field(f, "why", "%s", fd->explanation);
	if (fd->fix)
		field(f, "fix", "%s", fd->fix);
	if (fd->figures)
		field(f, "figures", "%s", fd->figures);
}

void finding_text_brief(FILE *f, const struct kg_finding *fd, uint32_t number, size_t indent,
			size_t width)
{
	char head[128], gain[64] = "", g[32];
	snprintf(head, sizeof(head), "%*s#%" PRIu32 " [%s] %s: ", (int)indent, "", number,
		 severity_name(fd->severity), kg_rules[fd->rule].id);
	if (fd->gain_ns > 0)
		snprintf(gain, sizeof(gain), "  %s (%.1f%%)", fmt_duration(kg_i64_round(fd->gain_ns), g),
			 fd->gain_pct);
	const char *title = finding_str(fd->title);
	if (!width) {
		char *line = NULL;
		if (asprintf(&line, "%s%s%s", head + indent, title, gain) < 0)
			return;
		fprintf(f, "%*s", (int)indent, "");
		page_wrap(f, indent, line);
		free(line);
		return;
	}
	size_t used = text_columns(head) + text_columns(gain);
	size_t n = strlen(title) * 2 + 8;
	char *cut = malloc(n);
	if (!cut)
		return;
	text_safe(title, cut, n);
	text_cut(cut, n, width > used + 12 ? width - used : 12);
	fprintf(f, "%s%s%s\n", head, cut, gain);
	free(cut);
}
