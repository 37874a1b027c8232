/* The report as a terminal page (report.h): header, GPUs, streams, top kernels, findings.
 * 100 columns at most; UTF-8 (µ, ×, ≥) counted as one column each. Everything that came
 * from the trace (names, command lines, notes) goes through term_safe first: a kernel
 * name holding an escape sequence must not drive the user's terminal. */
#include "report/report.h"
#include "report/finding_out.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/load.h"
#include "util/format.h"
#include "text/names.h"
#include "text/page.h"
#include "util/timemath.h"

#define W KG_PAGE_WIDTH
#define MAX_STREAM_ROWS 32  /* more streams than this: the busiest only, the rest in --json */
#define SPARK_COLS 60       /* columns of the utilisation line */

/* A field of the page's header: label, then the text wrapped under itself. */
#define field(f, label, ...) page_fieldf(f, 2, label, __VA_ARGS__)

/* ---------------------------------------------------------------- 1. header */

static void header_process(FILE *f, const struct kg_model *m, uint32_t i, const char *label)
{
	const struct kg_process *p = &m->processes[i];
	char line[1024], cnt[32];
	snprintf(line, sizeof(line), "pid %" PRIu32, p->pid);
	if (p->rank)
		text_appendf(line, sizeof(line), " (rank %s)", model_text(m, p->rank));
	if (p->host)
		text_appendf(line, sizeof(line), " on %s", model_text(m, p->host));
	text_appendf(line, sizeof(line), ": %s", p->complete ? "complete" : "INCOMPLETE");
	if (p->exit_status)
		text_appendf(line, sizeof(line), ", %s", model_text(m, p->exit_status));
	if (p->dropped)
		text_appendf(line, sizeof(line), ", %s records dropped", fmt_count(p->dropped, cnt));
	field(f, label, "%s", line);
}

/* Identical GPUs are one line: "8 × NVIDIA H200, 132 SMs, cc 9.0, 140 GiB". */
static void header_devices(FILE *f, const struct kg_model *m)
{
	char *shown = calloc(m->n_gpus + 1, 1);
	const char *label = m->n_gpus > 1 ? "gpus" : "gpu";
	for (uint32_t g = 0; g < m->n_gpus; g++) {
		if (shown && shown[g])
			continue;
		const struct kg_device *d = &m->devices[m->gpus[g].device];
		unsigned same = 1;
		for (uint32_t h = g + 1; shown && h < m->n_gpus; h++) {
			const struct kg_device *e = &m->devices[m->gpus[h].device];
			if (e->name == d->name && e->sm_count == d->sm_count &&
			    e->cc_major == d->cc_major && e->cc_minor == d->cc_minor &&
			    e->memory_bytes == d->memory_bytes) {
				shown[h] = 1;
				same++;
			}
		}
		char line[512];
		device_description(m, d, line, sizeof(line));
		char times[16] = "";
		if (same > 1)
			snprintf(times, sizeof(times), "%u × ", same);
		field(f, label, "%s%s", times, line);
		label = "";
	}
	if (!m->n_gpus)
		field(f, "gpu", "none in the trace");
	free(shown);
}

static void header_counts(FILE *f, const struct kg_model *m)
{
	unsigned long long kinds[3] = {0, 0, 0};
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].kind < 3)
			kinds[m->ops[i].kind]++;
	char k[32], c[32], s[32], a[32];
	fmt_count(kinds[KG_OP_KERNEL], k);
	fmt_count(kinds[KG_OP_MEMCPY], c);
	fmt_count(kinds[KG_OP_MEMSET], s);
	int sampled = model_launches_sampled(m);
	const char *kw = plural(kinds[KG_OP_KERNEL], "kernel", "kernels");
	const char *cw = plural(kinds[KG_OP_MEMCPY], "copy", "copies");
	const char *sw = plural(kinds[KG_OP_MEMSET], "memset", "memsets");
	if (!m->has_api) {
		field(f, "recorded", "%s %s, %s %s, %s %s, no API calls (host-side causes of idle "
		      "time are unknown)", k, kw, c, cw, s, sw);
		return;
	}
	field(f, "recorded", "%s %s, %s %s, %s %s, %s %s%s", k, kw, c, cw, s, sw,
	      fmt_count(m->n_apis, a), plural(m->n_apis, "API call", "API calls"),
	      sampled ? " (kernel launches' calls sampled: the others dated by their queued "
			"time)" : "");
	unsigned long long undated = sampled ? model_undated_kernels(m) : 0;
	if (undated)
		field(f, "", "%s of them have neither a sampled call nor a queued time (recorded "
			     "with --latency off): host-bound and launch-overhead see only the others",
		      fmt_count(undated, k));
}

/* Losses are said plainly: a report over a trace with holes must not look complete. */
static void header_losses(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	const struct kg_model *m = a->m;
	char n[32];
	uint32_t incomplete = 0, refused = 0;
	unsigned long long no_time = 0;
	for (uint32_t p = 0; p < m->n_processes; p++) {
		incomplete += !m->processes[p].complete;
		no_time += m->processes[p].incomplete;
		refused += m->processes[p].refused != 0;
	}
	if (m->gpu_untraced) {
		page_tone_on(f, o->color, PAGE_WARN);
		field(f, "losses", "all of the GPU side: its activity was not traced (the notes "
		      "say what was), so nothing of the GPU can be judged");
		page_tone_off(f, o->color, PAGE_WARN);
		return;
	}
	unsigned long long untrue = 0;
	for (int k = 0; k < KG_UNTRUE_KINDS; k++)
		for (int w = 0; w < KG_UNTRUE_WHYS; w++)
			untrue += m->untrue[k][w];
	if (!m->dropped && !incomplete && !no_time && !refused && !untrue) {
		field(f, "losses", "none: no record dropped, every process finished recording");
		return;
	}
	page_tone_on(f, o->color, PAGE_WARN);
	const char *label = "losses"; /* on the first line only */
	/* first: a process that ran untraced is the largest loss there is */
	if (refused == 1 && m->n_processes == 1)
		field(f, label, "the process was not recorded: CUPTI refused the recorder (the "
		      "notes say why)");
	else if (refused)
		field(f, label, "%" PRIu32 " of %" PRIu32 " processes were not recorded: CUPTI "
		      "refused the recorder (the notes say why)", refused, m->n_processes);
	label = refused ? "" : label;
	if (m->dropped)
		field(f, label, "%s records were dropped: the trace is missing work",
		      fmt_count(m->dropped, n));
	label = m->dropped ? "" : label;
	if (incomplete == 1 && m->n_processes == 1)
		field(f, label, "the process did not finish recording (killed or crashed): its "
		      "last work may be missing");
	else if (incomplete)
		field(f, label,
		      "%" PRIu32 " of %" PRIu32 " processes did not finish recording (killed or "
		      "crashed): their last work may be missing", incomplete, m->n_processes);
	label = incomplete ? "" : label;
	if (no_time)
		field(f, label, "%s records had a missing timestamp and were left out",
		      fmt_count(no_time, n));
	label = no_time ? "" : label;
	if (untrue)
		field(f, label, "%s %s whose times cannot be true %s left out (the notes say which)",
		      fmt_count(untrue, n), plural(untrue, "record", "records"),
		      plural(untrue, "was", "were"));
	page_tone_off(f, o->color, PAGE_WARN);
}

/* The window against the whole trace; the page's times count from the window's start. */
static void header_window(FILE *f, const struct kg_report_opts *o)
{
	int64_t b = o->window_begin > o->trace_begin ? o->window_begin : o->trace_begin;
	int64_t e = o->window_end < o->trace_end ? o->window_end : o->trace_end;
	char range[300] = "", all[32];
	if (o->window_nvtx)
		snprintf(range, sizeof(range), "ranges named '%s': ", o->window_nvtx);
	field(f, "window", "%s%.3f ms to %.3f ms of the trace (%s long in all); only what was "
	      "launched in it is counted, and times below count from its first record",
	      range, (double)kg_time_diff(b, o->trace_begin) / 1e6,
	      (double)kg_time_diff(e, o->trace_begin) / 1e6,
	      fmt_duration(kg_time_diff(o->trace_end, o->trace_begin), all));
}

void report_text_header(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	const struct kg_model *m = a->m;
	char path[1100], d[32];
	page_tone_on(f, o->color, PAGE_BOLD);
	fprintf(f, "kgantt report");
	page_tone_off(f, o->color, PAGE_BOLD);
	fputc('\n', f);
	field(f, "trace", "%s (%s%s%s)", text_safe(m->path, path, sizeof(path)),
	      source_name(m->source),
	      m->compression ? ", " : "", m->compression ? m->compression : "");
	if (m->command)
		field(f, "command", "%s", model_text(m, m->command));
	for (uint32_t p = 0; p < m->n_processes; p++)
		header_process(f, m, p, p ? "" : m->n_processes > 1 ? "processes" : "process");
	header_devices(f, m);
	if (o->windowed)
		header_window(f, o);
	field(f, "span", "%s, from the first to the last %s%s", fmt_duration(a->span, d),
	      m->n_ops ? "GPU operation" : "API call (no GPU operation)",
	      o->windowed ? " in the window" : "");
	if (a->steady_span != a->span) {
		char sd[32], ed[32];
		int captured = 0;
		for (uint32_t g = 0; g < a->n_gpus; g++)
			captured |= a->gpus[g].idle_capture > 0;
		field(f, "steady", "%s without %s of start-up%s idle: the findings' shares are of "
				   "it", fmt_duration(a->steady_span, sd),
		      fmt_duration(a->span - a->steady_span, ed),
		      captured ? ", wind-down and graph-capture" : " and wind-down");
	}
	report_text_steps_header(f, a);
	header_counts(f, m);
	header_losses(f, a, o);
	if (m->stack_note[0])
		field(f, "stacks", "%s", m->stack_note);
	for (int i = 0; i < m->n_notes; i++)
		field(f, i ? "" : "notes", "%s", m->notes[i]);
}

/* ---------------------------------------------------------------- 2. GPUs */

/* Busy fraction over time as block characters: the shape of utilisation in one line.
 * More chunks than fit are averaged into the columns there are. */
static void gpu_sparkline(FILE *f, const struct kg_analysis *a, const struct kg_gpu_metrics *g)
{
	static const char *const bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	int cols = g->n_util < SPARK_COLS ? g->n_util : SPARK_COLS;
	char line[SPARK_COLS * 4 + 8] = "", d[32];
	for (int c = 0; c < cols; c++) {
		int from = (int)((long long)c * g->n_util / cols);
		int to = (int)((long long)(c + 1) * g->n_util / cols);
		double u = 0;
		for (int k = from; k < to; k++)
			u += g->util[k];
		u = to > from ? u / (to - from) : 0;
		u = u < 0 ? 0 : u > 1 ? 1 : u;
		text_appendf(line, sizeof(line), "%s", u <= 0.0 ? " " : bars[(int)(u * 7.999)]);
	}
	fprintf(f, "    ");
	page_cell(f, "over time", KG_PAGE_LABEL, 0);
	fprintf(f, "|%s|  %d × %s\n", line, cols, fmt_duration(a->span / cols, d));
}

static void gpu_idle(FILE *f, const struct kg_analysis *a, const struct kg_gpu_metrics *g)
{
	char line[512], d[32], t[32], gaps[32];
	int64_t total = 0;
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		total = kg_time_add(total, g->idle_by_cause[c]);
	snprintf(line, sizeof(line), "%s in %s %s ≥ %s", fmt_duration(total, t),
		 fmt_count(g->n_gaps, gaps), plural(g->n_gaps, "gap", "gaps"),
		 fmt_duration(a->cfg.sync_gap_ns, d));
	const char *sep = ": ";
	for (int c = 0; c < KG_GAP_CAUSES; c++) {
		if (!g->idle_by_cause[c])
			continue;
		text_appendf(line, sizeof(line), "%s%s %s", sep, gap_cause_name((enum kg_gap_cause)c),
			fmt_duration(g->idle_by_cause[c], d));
		sep = ", ";
	}
	if (g->idle_startup)
		text_appendf(line, sizeof(line), "; start-up %s", fmt_duration(g->idle_startup, d));
	if (g->idle_winddown)
		text_appendf(line, sizeof(line), "; wind-down %s", fmt_duration(g->idle_winddown, d));
	if (g->idle_capture)
		text_appendf(line, sizeof(line), "; %s %s", gap_place_name(KG_GAP_CAPTURE),
			     fmt_duration(g->idle_capture, d));
	if (g->idle_before)
		text_appendf(line, sizeof(line), "; %s before its first operation",
			     fmt_duration(g->idle_before, d));
	if (g->idle_after)
		text_appendf(line, sizeof(line), "; %s after its last", fmt_duration(g->idle_after, d));
	if (g->idle_before || g->idle_after)
		text_appendf(line, sizeof(line), " (the trace went on)");
	page_field(f, 4, "idle", line);
}

/* " SM active 63%" for a percentage figure, " DRAM read 1.2 TB/s" for a throughput. */
static void hw_value(char *line, size_t cap, const char *sep, int fig, double v)
{
	if (isnan(v))
		return;
	const struct kg_hw_figure_info *fi = &kg_hw_figure_info[fig];
	if (fi->unit == KG_HW_PCT)
		text_appendf(line, cap, "%s%s %.0f%%", sep, fi->label, v);
	else if (fi->unit == KG_HW_HZ)
		text_appendf(line, cap, "%s%s %.2f GHz", sep, fi->label, v / 1e9);
	else if (v >= 1e12)
		text_appendf(line, cap, "%s%s %.2f TB/s", sep, fi->label, v / 1e12);
	else
		text_appendf(line, cap, "%s%s %.1f GB/s", sep, fi->label, v / 1e9);
}

/* What the GPU's counters said over the span (record --hw), or why there are none. */
static void gpu_hardware(FILE *f, const struct kg_analysis *a, uint32_t gi)
{
	if (!a->hw_gpus || a->hw_gpus[gi].hw_device == KG_NONE)
		return;
	const struct kg_model *m = a->m;
	const struct kg_hw_gpu *h = &a->hw_gpus[gi];
	const struct kg_hw_device *hd = &m->hw_devices[h->hw_device];
	char line[768] = "", d[32], n[32];
	if (!h->samples) {
		snprintf(line, sizeof(line), "no samples%s%s", hd->note ? ": " : "",
			 hd->note ? model_text(m, hd->note) : " in the span");
		page_field(f, 4, "hardware", line);
		return;
	}
	static const int shown[] = {KG_HW_SM_ACTIVE, KG_HW_OCCUPANCY, KG_HW_TENSOR,
				    KG_HW_DRAM_PEAK, KG_HW_DRAM_READ, KG_HW_DRAM_WRITE,
				    KG_HW_PCIE_READ, KG_HW_PCIE_WRITE, KG_HW_NVLINK_RX,
				    KG_HW_NVLINK_TX, KG_HW_SM_CLOCK};
	const char *sep = "";
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		size_t before = strlen(line);
		hw_value(line, sizeof(line), sep, shown[i], h->mean[shown[i]]);
		if (strlen(line) != before)
			sep = ", ";
	}
	text_appendf(line, sizeof(line), " (means over the span; while kernels ran: SM active %.0f%%, "
		"achieved occupancy %.0f%%); %s samples of %s", h->busy_mean[KG_HW_SM_ACTIVE],
		h->busy_mean[KG_HW_OCCUPANCY], fmt_count(h->samples, n),
		fmt_duration(hd->interval_ns, d));
	if (hd->lost)
		text_appendf(line, sizeof(line), ", %llu lost", (unsigned long long)hd->lost);
	page_field(f, 4, "hardware", line);
}

/* Its communication kernels' time, the share of it compute ran beside, the rest exposed,
 * and the same by kind of collective; nothing without communication kernels. */
static void gpu_comm(FILE *f, const struct kg_analysis *a, const struct kg_gpu_metrics *g)
{
	if (!g->comm.kernels)
		return;
	char line[512], p1[16], p2[16], d1[32], d2[32];
	int64_t exposed = comm_exposed(&g->comm), steady = gpu_steady_span(a, g);
	snprintf(line, sizeof(line), "%s in %u kernels, %s of it beside compute; %s exposed (%s of "
		 "the %s)", fmt_duration(g->comm.time, d1), g->comm.kernels,
		 fmt_pct((double)g->comm.overlapped, (double)g->comm.time, p1),
		 fmt_duration(exposed, d2), fmt_pct((double)exposed, (double)steady, p2),
		 gpu_setup_idle(g) ? "steady work" : "span");
	const char *sep = ": ";
	for (unsigned k = 0; k < KG_COMM_KIND_COUNT; k++) {
		const struct kg_comm_figures *c = &g->comm_kind[k];
		if (!c->kernels)
			continue;
		text_appendf(line, sizeof(line), "%s%s %s (%s overlapped)", sep, comm_kind_name(k),
			     fmt_duration(c->time, d1),
			     fmt_pct((double)c->overlapped, (double)c->time, p1));
		sep = ", ";
	}
	page_field(f, 4, "comm overlap", line);
}

static void gpu_block(FILE *f, const struct kg_analysis *a, const struct kg_gpu_metrics *g)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu *gpu = &m->gpus[g->gpu];
	const struct kg_device *dev = &m->devices[gpu->device];
	char p1[16], p2[16], p3[16], d1[32], d2[32], line[512];
	double busy = (double)g->busy;
	char name[64];
	snprintf(line, sizeof(line), "%s  %s", gpu_label(m, g->gpu, name, sizeof(name)),
		 dev->name ? model_text(m, dev->name) : "unknown");
	if (gpu->host)
		text_appendf(line, sizeof(line), " on %s", model_text(m, gpu->host));
	page_field(f, 2, NULL, line);
	snprintf(line, sizeof(line), "%s of the span (%s); kernels %s, copies %s",
		 fmt_pct(busy, (double)a->span, p1), fmt_duration(g->busy, d1),
		 fmt_pct((double)g->kernel_busy, (double)a->span, p2),
		 fmt_pct((double)g->copy_busy, (double)a->span, p3));
	int64_t steady = gpu_steady_span(a, g);
	if (gpu_setup_idle(g) && steady > 0)
		text_appendf(line, sizeof(line), "; %s of the steady work, without %s",
			     fmt_pct(busy, (double)steady, p1),
			     g->idle_capture ? "start-up, wind-down and graph capture"
					     : "start-up and wind-down");
	page_field(f, 4, "busy", line);
	if (g->copy_total > 0)
		snprintf(line, sizeof(line), "%s of copy time ran while a kernel ran (%s of %s)",
			 fmt_pct((double)g->copy_kernel_overlap, (double)g->copy_total, p1),
			 fmt_duration(g->copy_kernel_overlap, d1), fmt_duration(g->copy_total, d2));
	else
		snprintf(line, sizeof(line), "no copies");
	page_field(f, 4, "copy overlap", line);
	gpu_comm(f, a, g);
	char c[4][16];
	snprintf(line, sizeof(line), "1 kernel %s, 2 kernels %s, 3 kernels %s, 4+ kernels %s "
		 "of busy time", fmt_pct((double)g->concurrent[0], busy, c[0]),
		 fmt_pct((double)g->concurrent[1], busy, c[1]),
		 fmt_pct((double)g->concurrent[2], busy, c[2]),
		 fmt_pct((double)g->concurrent[3], busy, c[3]));
	page_field(f, 4, "concurrency", line);
	gpu_idle(f, a, g);
	if (g->n_util > 0 && a->span > 0)
		gpu_sparkline(f, a, g);
	gpu_hardware(f, a, (uint32_t)(g - a->gpus));
}

void report_text_gpus(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	page_heading(f, o->color, "GPUs");
	char unused[512] = "", l[64];
	uint32_t n_unused = 0;
	for (uint32_t g = 0; g < a->n_gpus; g++) {
		if (a->gpus[g].n_ops) {
			gpu_block(f, a, &a->gpus[g]);
			continue;
		}
		text_appendf(unused, sizeof(unused), "%s%s", n_unused++ ? ", " : "",
			     gpu_label(a->m, g, l, sizeof(l)));
	}
	if (n_unused == a->n_gpus)
		fprintf(f, "  no GPU operation in the trace\n");
	else if (n_unused) {
		text_appendf(unused, sizeof(unused), ": no operation of the trace ran on %s",
			     n_unused == 1 ? "it" : "them");
		page_field(f, 2, "unused", unused);
	}
}

/* ---------------------------------------------------------------- 3. streams */

static int by_busy_desc(const void *x, const void *y, void *analysis)
{
	const struct kg_analysis *an = analysis;
	int64_t a = an->streams[*(const uint32_t *)x].busy;
	int64_t b = an->streams[*(const uint32_t *)y].busy;
	return (a < b) - (a > b);
}

/* pid, dev, stream, kind (left-aligned), prio, channel, kernels, copies, memsets, busy,
 * % span */
static const size_t stream_cols[] = {9, 5, 10, 14, 5, 8, 10, 8, 9, 11, 8};

static void stream_row(FILE *f, const struct kg_analysis *a, uint32_t s)
{
	const struct kg_model *m = a->m;
	const struct kg_stream *st = &m->streams[s];
	const struct kg_stream_metrics *sm = &a->streams[s];
	const char *kind = stream_kind_name(st->kind);
	char pid[16], id[24], prio[16], chan[16], k[32], c[32], ms[32], d[32], p[16];
	snprintf(pid, sizeof(pid), "%" PRIu32,
		 st->process < m->n_processes ? m->processes[st->process].pid : 0);
	snprintf(id, sizeof(id), "%" PRId64, st->id);
	snprintf(prio, sizeof(prio), "%" PRId32, st->priority);
	if (st->channel >= 0)
		snprintf(chan, sizeof(chan), "%" PRId32, st->channel);
	else
		strcpy(chan, "-");
	char dev[16];
	snprintf(dev, sizeof(dev), "%" PRId32, m->devices[st->device].ordinal);
	const char *v[] = {pid, dev, id, kind ? kind : "-", prio, chan,
			   fmt_count(sm->kernels, k), fmt_count(sm->copies, c),
			   fmt_count(sm->memsets, ms), fmt_duration(sm->busy, d),
			   fmt_pct((double)sm->busy, (double)a->span, p)};
	for (size_t col = 0; col < sizeof(v) / sizeof(v[0]); col++) {
		if (col == 3) /* the one left-aligned column needs its own gap */
			fputs("  ", f);
		page_cell(f, v[col], stream_cols[col], col != 3);
	}
	fputc('\n', f);
}

void report_text_streams(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	const struct kg_model *m = a->m;
	uint32_t *rows = malloc((m->n_streams + 1) * sizeof(*rows)), n = 0;
	for (uint32_t s = 0; rows && s < m->n_streams; s++)
		if (m->streams[s].nops)
			rows[n++] = s;
	page_heading(f, o->color, "Streams (%" PRIu32 " with work)", n);
	if (!n) {
		fprintf(f, "  none\n");
		free(rows);
		return;
	}
	uint32_t shown = n;
	if (n > MAX_STREAM_ROWS) { /* the busiest ones matter; they go first */
		qsort_r(rows, n, sizeof(*rows), by_busy_desc, (void *)a);
		shown = MAX_STREAM_ROWS;
	}
	static const char *const cols[] = {"pid", "dev", "stream", "kind", "prio", "channel",
					   "kernels", "copies", "memsets", "busy", "% span"};
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
		if (c == 3)
			fputs("  ", f);
		page_cell(f, cols[c], stream_cols[c], c != 3);
	}
	fputc('\n', f);
	for (uint32_t i = 0; i < shown; i++)
		stream_row(f, a, rows[i]);
	if (shown < n)
		fprintf(f, "  ... and %" PRIu32 " less busy streams (all in --json)\n", n - shown);
	free(rows);
}

/* ---------------------------------------------------------------- 4. kernels */

/* Widths of the kernel table's columns: #, total, span, count, mean, p50, p99, launch,
 * queue. The name gets its own line below, the full width. */
static const size_t kernel_cols[] = {4, 11, 8, 11, 11, 11, 11, 11, 11};

/* The counters' figures for a kernel that ran alone through whole samples (record --hw). */
static void kernel_achieved(FILE *f, const struct kg_analysis *a, uint32_t k)
{
	if (!a->hw_kernels)
		return;
	char line[512] = "", d[32];
	static const int shown[] = {KG_HW_OCCUPANCY, KG_HW_SM_ACTIVE, KG_HW_TENSOR,
				    KG_HW_DRAM_PEAK, KG_HW_DRAM_READ, KG_HW_DRAM_WRITE};
	const char *sep = "";
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		size_t before = strlen(line);
		hw_value(line, sizeof(line), sep, shown[i], hw_kernel_figure(a, k, shown[i]));
		if (strlen(line) != before)
			sep = ", ";
	}
	const struct kg_hw_kernel *h = &a->hw_kernels[k];
	if (line[0])
		text_appendf(line, sizeof(line), " (%u samples alone, %s)", h->samples,
			fmt_duration(h->sampled_ns, d));
	else
		snprintf(line, sizeof(line), "- (ran alone through %u whole sample%s: too few)",
			 h->samples, h->samples == 1 ? "" : "s");
	char labelled[600];
	snprintf(labelled, sizeof(labelled), "achieved: %s", line);
	page_field(f, 6, NULL, labelled);
}

static void kernel_shape(FILE *f, const struct kg_analysis *a, const struct kg_kernel_stats *k)
{
	char line[512], b[32];
	if (k->blocks > 0 && k->threads > 0)
		snprintf(line, sizeof(line), "%s %s × %d threads",
			 fmt_count((unsigned long long)k->blocks, b),
			 plural((uint64_t)k->blocks, "block", "blocks"), k->threads);
	else
		snprintf(line, sizeof(line), "launch shape unknown");
	if (k->occupancy_ok) {
		text_appendf(line, sizeof(line), ", theoretical occupancy %.0f%% (limited by %s)",
			100.0 * k->occ.occupancy, occupancy_limit_name(k->occ.limiter));
		if (k->waves > 0)
			text_appendf(line, sizeof(line), ", %.2f waves", k->waves);
		if (k->best_block > 0 && k->best_block != k->threads && k->occ.occupancy < 1.0)
			text_appendf(line, sizeof(line), "; best block %d threads", k->best_block);
	} else if (k->blocks > 0) {
		text_appendf(line, sizeof(line), ", occupancy unknown");
	}
	page_field(f, 6, NULL, line);
	kernel_achieved(f, a, (uint32_t)(k - a->kernels));
}

static void kernel_rows(FILE *f, const struct kg_analysis *a, uint32_t i)
{
	const struct kg_kernel_stats *k = &a->kernels[i];
	char num[16], t[32], p[16], c[32], mean[32], p50[32], p99[32], l[32], q[32];
	char name[1024];
	snprintf(num, sizeof(num), "%" PRIu32, i + 1);
	const char *v[] = {num,
			   fmt_duration(k->total, t),
			   fmt_pct((double)k->total, (double)analysis_kernel_time(a), p),
			   fmt_count(k->count, c),
			   fmt_duration(kg_i64_round(k->mean), mean),
			   fmt_duration(k->p50, p50),
			   fmt_duration(k->p99, p99),
			   fmt_duration(k->launch_p50, l),
			   fmt_duration(k->queue_p50, q)};
	for (size_t col = 0; col < sizeof(v) / sizeof(v[0]); col++)
		page_cell(f, v[col], kernel_cols[col], 1);
	fputc('\n', f);
	fprintf(f, "      %s\n", kernel_short_name(model_text(a->m, k->name), W - 6, name,
						   sizeof(name)));
	kernel_shape(f, a, k);
}

void report_text_kernels(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	uint32_t n = a->n_kernels;
	if (o->top > 0 && (uint32_t)o->top < n)
		n = (uint32_t)o->top;
	int64_t shown = 0, all = 0;
	for (uint32_t i = 0; i < a->n_kernels; i++) {
		all = kg_time_add(all, a->kernels[i].total);
		if (i < n)
			shown = kg_time_add(shown, a->kernels[i].total);
	}
	char p[16];
	if (n < a->n_kernels)
		page_heading(f, o->color, "Top kernels by total time (%" PRIu32 " of %" PRIu32 " names, %s of "
			"kernel time)", n, a->n_kernels, fmt_pct((double)shown, (double)all, p));
	else
		page_heading(f, o->color, "Kernels by total time (%" PRIu32 " %s)", n,
			     plural(n, "name", "names"));
	if (!n) {
		fprintf(f, "  no kernel in the trace\n");
		return;
	}
	static const char *const cols[] = {"#", "total", "share", "count", "mean", "p50", "p99",
					   "launch", "queue"};
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		page_cell(f, cols[c], kernel_cols[c], 1);
	fputc('\n', f);
	for (uint32_t i = 0; i < n; i++)
		kernel_rows(f, a, i);
	fprintf(f, "  share: of all kernels' time; ");
	if (a->m->has_queued)
		fprintf(f, "launch: queued - API call start (p50); queue: start - queued (p50);\n"
			   "  - = not in the trace\n");
	else
		fprintf(f, "launch: start - API call start (p50; no queued times in the trace:\n"
			   "  it includes the wait behind earlier work); - = not in the trace\n");
}

/* ---------------------------------------------------------------- 5. findings */

void report_text_findings(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	uint32_t by[KG_SEV_COUNT] = {0};
	for (uint32_t i = 0; i < a->findings.n; i++)
		by[a->findings.v[i].severity < KG_SEV_COUNT ? a->findings.v[i].severity : 0]++;
	if (!a->findings.n) {
		page_heading(f, o->color, "Findings");
		if (a->m->gpu_untraced)
			fprintf(f, "  none can be judged: the trace holds no GPU activity (see "
				   "losses above)\n");
		else
			fprintf(f, "  no scheduling problem found above the thresholds (see "
				   "--list-thresholds)\n");
		return;
	}
	page_heading(f, o->color,
		     "Findings, ranked by estimated gain (%" PRIu32 " critical, %" PRIu32
		     " warning, %" PRIu32 " info)",
		     by[KG_SEV_CRITICAL], by[KG_SEV_WARNING], by[KG_SEV_INFO]);
	struct kg_finding_place p = {.a = a, .color = o->color, .sites = o->finding_sites};
	for (uint32_t i = 0; i < a->findings.n; i++)
		finding_text(f, &p, &a->findings.v[i], i + 1);
	fprintf(f, "\n  gains overlap: fixing one problem can shrink another's; they do not add "
		   "up.\n");
}

void report_text_brief(FILE *f, const struct kg_analysis *a, uint32_t max, size_t width)
{
	for (uint32_t i = 0; i < a->findings.n && i < max; i++)
		finding_text_brief(f, &a->findings.v[i], i + 1, 2, width);
}

/* ---------------------------------------------------------------- 6. call sites */

void report_text_sites(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	char g[32], p[16], n[16];
	if (o->sites <= 0)
		return;
	page_heading(f, o->color, "Call sites, ranked by the gain of the findings they cause");
	if (!a->has_stacks) {
		fprintf(f, "  the trace has no call stacks (kgantt record takes them in full mode; "
			   "torch.profiler with_stack=True)\n");
		return;
	}
	if (!a->n_sites || a->sites[0].ns <= 0) {
		fprintf(f, "  no finding is placed at a call site\n");
		return;
	}
	fprintf(f, "  %-4s %10s %7s %8s  %s\n", "#", "gain", "span", "findings", "site");
	for (uint32_t i = 0; i < a->n_sites && i < (uint32_t)o->sites && a->sites[i].ns > 0; i++) {
		const struct kg_site *s = &a->sites[i];
		snprintf(n, sizeof(n), "%" PRIu32, i + 1);
		fprintf(f, "  ");
		page_cell(f, n, 4, 0);
		page_cell(f, fmt_duration(kg_i64_round(s->ns), g), 11, 1);
		page_cell(f, fmt_pct(s->ns, (double)a->steady_span, p), 8, 1);
		snprintf(n, sizeof(n), "%" PRIu32, s->findings);
		page_cell(f, n, 9, 1);
		fputs("  ", f);
		page_wrap(f, 38, s->label);
	}
	fprintf(f, "  gain: the part of the findings' estimated gain caused by calls from the "
		   "site, each call\n  counted once (findings overlap: the largest part);\n  span: "
		   "its share of the trace's %sspan, as the findings' shares\n",
		a->steady_span != a->span ? "steady " : "");
}

/* ---------------------------------------------------------------- 7. the host */

#define HOST_TREE_SHARE 0.005 /* report --host leaves out what took less of the idle time */
#define HOST_TREE_INDENT 24   /* deeper nodes are indented no further (their depth is said) */

void report_text_host(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	const struct kg_host_table *t = &a->host;
	char g[32], p[16], s[16];
	if (!o->host)
		return;
	page_heading(f, o->color, "While the GPU waited: what the launching thread did");
	if (!t->on) {
		fprintf(f, "  the trace has no host activity (kgantt record --host-samples; a PyTorch "
			   "profiler trace\n  with CPU activity)\n");
		return;
	}
	if (!(t->idle_ns > 0)) {
		fprintf(f, "  no steady idle gap of cause host or sync\n");
		return;
	}
	fprintf(f, "  %s in %" PRIu32 " steady idle %s of cause host or sync, by what the thread "
		   "that launched the\n  next work was doing; total: with what it called, self: "
		   "in it alone; below %.1f%% left out\n",
		fmt_duration(kg_i64_round(t->idle_ns), g), t->gaps, plural(t->gaps, "gap", "gaps"),
		100 * HOST_TREE_SHARE);
	uint32_t n = 0, *order = host_tree(a, HOST_TREE_SHARE, &n);
	if (!order) {
		fprintf(f, "  (out of memory)\n");
		return;
	}
	fprintf(f, "  %7s %7s  %s\n", "total", "self", "activity");
	char *name = malloc(1024), depth[24];
	for (uint32_t i = 0; name && i < n; i++) {
		const struct kg_host_node *x = &t->nodes[order[i]];
		uint32_t indent = x->depth - 1 < HOST_TREE_INDENT / 2 ? x->depth - 1 : HOST_TREE_INDENT / 2;
		depth[0] = '\0'; /* the depth is said only where the indent stops growing */
		if (x->depth - 1 > indent)
			snprintf(depth, sizeof(depth), "[%" PRIu32 "] ", x->depth);
		fprintf(f, "  %7s %7s  %*s%s", fmt_pct(x->total, t->idle_ns, p),
			fmt_pct(x->self, t->idle_ns, s), (int)(2 * indent), "", depth);
		page_wrap(f, 20 + 2 * indent, host_node_name(a, order[i], name, 1024));
	}
	free(order);
	char *causes = host_causes_text(t->cause_ns, t->idle_ns);
	if (causes) {
		fprintf(f, "  by cause: ");
		page_wrap(f, 12, causes);
	}
	free(causes);
	if (name && t->unseen_ns > 0) {
		fprintf(f, "  %s: %s\n", host_node_name(a, 0, name, 1024), fmt_pct(t->unseen_ns, t->idle_ns, p));
	}
	free(name);
}

int report_text(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	report_text_header(f, a, o);
	report_text_gpus(f, a, o);
	report_text_steps(f, a, o);
	report_text_streams(f, a, o);
	report_text_kernels(f, a, o);
	report_text_findings(f, a, o);
	report_text_sites(f, a, o);
	report_text_host(f, a, o);
	return ferror(f) ? -EIO : 0;
}
