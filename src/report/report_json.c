/* The report as JSON (docs/report.md), written by the one JSON writer (text/json_writer.h),
 * which escapes what kernel names hold (quotes, '<', control characters) and makes every
 * string valid UTF-8 for strict parsers. Unknown values are null, never 0. */
#include "report/report.h"
#include "report/finding_out.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "text/json_writer.h"
#include "util/timemath.h"
#include "util/utf8.h"


static void kv_opt_num(struct jw *w, const char *k, int known, double v)
{
	j_key(w, k);
	if (known)
		j_num(w, v);
	else
		j_null(w);
}

static void kv_text(struct jw *w, const char *k, const struct kg_model *m, uint32_t id)
{
	j_key(w, k);
	j_text(w, m, id);
}

/* ---------------------------------------------------------------- sections */

/* null, or where the --from/--to/--nvtx window lay in the whole trace */
static void json_window(struct jw *w, const struct kg_report_opts *o)
{
	j_key(w, "window");
	if (!o->windowed) {
		j_null(w);
		return;
	}
	j_open(w);
	kv_str(w, "nvtx", o->window_nvtx);
	kv_int(w, "begin_ns", o->window_begin > o->trace_begin ? o->window_begin : o->trace_begin);
	kv_int(w, "end_ns", o->window_end < o->trace_end ? o->window_end : o->trace_end);
	kv_int(w, "trace_begin_ns", o->trace_begin);
	kv_int(w, "trace_end_ns", o->trace_end);
	j_close(w);
}

static void json_trace(struct jw *w, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	const struct kg_model *m = a->m;
	unsigned long long kinds[3] = {0, 0, 0};
	for (uint32_t i = 0; i < m->n_ops; i++)
		if (m->ops[i].kind < 3)
			kinds[m->ops[i].kind]++;
	j_key(w, "trace");
	j_open(w);
	kv_str(w, "path", m->path);
	kv_str(w, "source", m->source);
	kv_text(w, "command", m, m->command);
	kv_int(w, "span_ns", a->span);
	kv_int(w, "steady_span_ns", a->steady_span);
	kv_time(w, "begin_ns", m->begin);
	kv_time(w, "end_ns", m->end);
	kv_int(w, "kernels", (long long)kinds[KG_OP_KERNEL]);
	kv_int(w, "copies", (long long)kinds[KG_OP_MEMCPY]);
	kv_int(w, "memsets", (long long)kinds[KG_OP_MEMSET]);
	kv_opt_int(w, "api_calls", m->has_api, m->n_apis);
	kv_bool(w, "launch_calls_sampled", model_launches_sampled(m));
	kv_int(w, "undated_kernels", (long long)model_undated_kernels(m));
	kv_int(w, "dropped_records", (long long)m->dropped);
	kv_bool(w, "stacks", a->has_stacks);
	kv_int(w, "untraced_gpu_calls", m->gpu_untraced ? m->gpu_work_calls : 0);
	kv_str(w, "stack_note", m->stack_note);
	json_window(w, o);
	j_key(w, "notes");
	j_aopen(w);
	for (int i = 0; i < m->n_notes; i++)
		j_str(w, m->notes[i]);
	j_aclose(w);
	j_key(w, "overrides");
	j_aopen(w);
	for (int i = 0; i < o->n_overrides; i++)
		j_str(w, o->overrides[i]);
	j_aclose(w);
	j_close(w);
}

static void json_processes(struct jw *w, const struct kg_model *m)
{
	j_key(w, "processes");
	j_aopen(w);
	for (uint32_t i = 0; i < m->n_processes; i++) {
		const struct kg_process *p = &m->processes[i];
		j_open(w);
		kv_int(w, "index", i);
		kv_int(w, "pid", p->pid);
		kv_opt_int(w, "ppid", p->ppid, p->ppid);
		kv_text(w, "host", m, p->host);
		kv_text(w, "rank", m, p->rank);
		kv_text(w, "cmdline", m, p->cmdline);
		kv_bool(w, "complete", p->complete);
		kv_text(w, "refused", m, p->refused);
		kv_text(w, "exit_status", m, p->exit_status);
		kv_int(w, "dropped_records", (long long)p->dropped);
		kv_int(w, "incomplete_records", (long long)p->incomplete);
		kv_time(w, "start_ns", p->start);
		kv_time(w, "end_ns", p->end);
		j_close(w);
	}
	j_aclose(w);
}

/* An int property of a device: 0 or less means the trace did not say. */
static void j_prop(struct jw *w, const char *key, long long v)
{
	kv_opt_int(w, key, v > 0, v);
}

static void json_devices(struct jw *w, const struct kg_model *m)
{
	j_key(w, "devices");
	j_aopen(w);
	for (uint32_t i = 0; i < m->n_devices; i++) {
		const struct kg_device *d = &m->devices[i];
		j_open(w);
		kv_int(w, "index", i);
		kv_int(w, "process", d->process);
		kv_opt_int(w, "pid", d->process < m->n_processes,
			   d->process < m->n_processes ? m->processes[d->process].pid : 0);
		kv_int(w, "ordinal", d->ordinal);
		kv_int(w, "gpu", d->gpu);
		kv_text(w, "name", m, d->name);
		kv_text(w, "uuid", m, d->uuid);
		j_prop(w, "sm_count", d->sm_count);
		static const char *const vendors[] = {NULL, "nvidia", "amd"};
		kv_str(w, "vendor", d->vendor < 3 ? vendors[d->vendor] : NULL);
		j_key(w, "cc"); /* CUDA's compute capability: none for an AMD GPU (a gfx version) */
		if (d->cc_major > 0 && d->vendor != KG_VENDOR_AMD) {
			char cc[16];
			snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
			j_str(w, cc);
		} else {
			j_null(w);
		}
		j_prop(w, "memory_bytes", d->memory_bytes);
		j_prop(w, "max_warps_per_sm", d->max_warps_per_sm);
		j_prop(w, "max_blocks_per_sm", d->max_blocks_per_sm);
		j_prop(w, "max_threads_per_block", d->max_threads_per_block);
		j_prop(w, "regs_per_sm", d->regs_per_sm);
		j_prop(w, "smem_per_sm", d->smem_per_sm);
		j_close(w);
	}
	j_aclose(w);
}

/* {"sm_active_pct": 63.1, ...}: the figures taken, by their trace column names. */
static void json_hw_figures(struct jw *w, const char *key, const float *v)
{
	j_key(w, key);
	j_open(w);
	for (int f = 0; f < KG_HW_N; f++)
		if (!isnan(v[f]))
			kv_num(w, kg_hw_figure_info[f].column, v[f]);
	j_close(w);
}

/* "hardware": the GPU's counters (record --hw); absent when they were not asked for. */
static void json_gpu_hardware(struct jw *w, const struct kg_analysis *a, uint32_t gi)
{
	if (!a->hw_gpus || a->hw_gpus[gi].hw_device == KG_NONE)
		return;
	const struct kg_hw_gpu *h = &a->hw_gpus[gi];
	const struct kg_hw_device *hd = &a->m->hw_devices[h->hw_device];
	j_key(w, "hardware");
	j_open(w);
	kv_text(w, "state", a->m, hd->state);
	kv_text(w, "note", a->m, hd->note);
	kv_text(w, "chip", a->m, hd->chip);
	kv_int(w, "interval_ns", hd->interval_ns);
	kv_int(w, "samples", h->samples);
	kv_int(w, "sampled_ns", h->sampled_ns);
	kv_int(w, "lost_samples", (long long)hd->lost);
	json_hw_figures(w, "mean", h->mean);
	json_hw_figures(w, "mean_while_kernels_ran", h->busy_mean);
	json_hw_figures(w, "max", h->max);
	j_close(w);
}

static void json_comm_figures(struct jw *w, const struct kg_comm_figures *c)
{
	kv_int(w, "kernels", c->kernels);
	kv_int(w, "time_ns", c->time);
	kv_int(w, "overlapped_ns", c->overlapped);
	kv_int(w, "exposed_ns", comm_exposed(c));
	kv_pct(w, "overlap_pct", (double)c->overlapped, (double)c->time);
}

/* null without communication kernels */
static void json_gpu_comm(struct jw *w, const struct kg_analysis *a, const struct kg_gpu_metrics *g)
{
	j_key(w, "communication");
	if (!g->comm.kernels) {
		j_null(w);
		return;
	}
	j_open(w);
	json_comm_figures(w, &g->comm);
	int64_t steady = gpu_steady_span(a, g);
	kv_pct(w, "exposed_pct", (double)comm_exposed(&g->comm), (double)(steady > 0 ? steady : 0));
	kv_int(w, "compute_busy_ns", g->compute_busy);
	j_key(w, "by_kind");
	j_aopen(w);
	for (unsigned k = 0; k < KG_COMM_KIND_COUNT; k++) {
		if (!g->comm_kind[k].kernels)
			continue;
		j_open(w);
		kv_str(w, "kind", comm_kind_name(k));
		json_comm_figures(w, &g->comm_kind[k]);
		j_close(w);
	}
	j_aclose(w);
	j_close(w);
}

static void json_gpu(struct jw *w, const struct kg_analysis *a, const struct kg_gpu_metrics *g)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu *gpu = &m->gpus[g->gpu];
	j_open(w);
	kv_int(w, "gpu", g->gpu);
	kv_int(w, "device", gpu->device);
	kv_text(w, "name", m, m->devices[gpu->device].name);
	kv_text(w, "host", m, gpu->host);
	kv_text(w, "uuid", m, gpu->uuid);
	kv_int(w, "ordinal", gpu->ordinal);
	char label[64];
	kv_str(w, "label", gpu_label(m, g->gpu, label, sizeof(label)));
	kv_bool(w, "used", g->n_ops > 0);
	kv_time(w, "begin_ns", g->begin);
	kv_time(w, "end_ns", g->end);
	kv_int(w, "busy_ns", g->busy);
	kv_pct(w, "busy_pct", (double)g->busy, (double)a->span);
	kv_int(w, "kernel_busy_ns", g->kernel_busy);
	kv_pct(w, "kernel_busy_pct", (double)g->kernel_busy, (double)a->span);
	kv_int(w, "copy_busy_ns", g->copy_busy);
	kv_int(w, "copy_total_ns", g->copy_total);
	kv_int(w, "copy_kernel_overlap_ns", g->copy_kernel_overlap);
	kv_pct(w, "copy_overlap_pct", (double)g->copy_kernel_overlap, (double)g->copy_total);
	json_gpu_comm(w, a, g);
	kv_int(w, "kernel_time_ns", g->kernel_time);
	kv_int(w, "kernels", g->kernels);
	kv_int(w, "copies", g->copies);
	kv_int(w, "memsets", g->memsets);
	j_key(w, "concurrency_ns");
	j_aopen(w);
	for (int i = 0; i < 4; i++)
		j_int(w, g->concurrent[i]);
	j_aclose(w);
	kv_int(w, "idle_gaps", g->n_gaps);
	kv_int(w, "idle_gap_min_ns", a->cfg.sync_gap_ns);
	j_key(w, "idle_ns_by_cause");
	j_open(w);
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		kv_int(w, gap_cause_name((enum kg_gap_cause)c), g->idle_by_cause[c]);
	j_close(w);
	kv_int(w, "idle_startup_ns", g->idle_startup);
	kv_int(w, "idle_winddown_ns", g->idle_winddown);
	kv_int(w, "idle_capture_ns", g->idle_capture);
	kv_int(w, "idle_before_ns", g->idle_before);
	kv_int(w, "idle_after_ns", g->idle_after);
	int64_t steady = gpu_steady_span(a, g);
	kv_pct(w, "steady_busy_pct", (double)g->busy, (double)(steady > 0 ? steady : 0));
	j_key(w, "utilization");
	j_aopen(w);
	for (int c = 0; c < g->n_util; c++)
		j_num(w, g->util[c]);
	j_aclose(w);
	json_gpu_hardware(w, a, (uint32_t)(g - a->gpus));
	j_close(w);
}

static void json_gpus(struct jw *w, const struct kg_analysis *a)
{
	j_key(w, "gpus");
	j_aopen(w);
	for (uint32_t g = 0; g < a->n_gpus; g++)
		json_gpu(w, a, &a->gpus[g]);
	j_aclose(w);
}

static void json_stream(struct jw *w, const struct kg_analysis *a, uint32_t s)
{
	const struct kg_model *m = a->m;
	const struct kg_stream *st = &m->streams[s];
	const struct kg_stream_metrics *sm = &a->streams[s];
	char label[128];
	j_open(w);
	kv_int(w, "index", s);
	kv_str(w, "label", stream_label(m, s, STREAM_LABEL_WHERE, label, sizeof(label)));
	kv_int(w, "process", st->process);
	kv_opt_int(w, "pid", st->process < m->n_processes,
		   st->process < m->n_processes ? m->processes[st->process].pid : 0);
	kv_int(w, "device", st->device);
	kv_int(w, "ordinal", m->devices[st->device].ordinal);
	kv_int(w, "gpu", m->devices[st->device].gpu);
	kv_int(w, "context", st->context);
	kv_int(w, "id", st->id);
	kv_str(w, "kind", stream_kind_name(st->kind));
	kv_int(w, "priority", st->priority);
	kv_opt_int(w, "channel", st->channel >= 0, st->channel);
	kv_int(w, "kernels", sm->kernels);
	kv_int(w, "copies", sm->copies);
	kv_int(w, "memsets", sm->memsets);
	kv_int(w, "busy_ns", sm->busy);
	kv_pct(w, "busy_pct", (double)sm->busy, (double)a->span);
	kv_int(w, "kernel_time_ns", sm->kernel_time);
	kv_time(w, "first_ns", sm->first);
	kv_time(w, "last_ns", sm->last);
	j_close(w);
}

static void json_streams(struct jw *w, const struct kg_analysis *a)
{
	j_key(w, "streams");
	j_aopen(w);
	for (uint32_t s = 0; s < a->m->n_streams; s++)
		json_stream(w, a, s);
	j_aclose(w);
}

static void json_occupancy(struct jw *w, const struct kg_kernel_stats *k)
{
	kv_opt_num(w, "occupancy", k->occupancy_ok, k->occ.occupancy);
	kv_str(w, "occupancy_limiter",
	       k->occupancy_ok ? occupancy_limit_name(k->occ.limiter) : NULL);
	kv_opt_int(w, "blocks_per_sm", k->occupancy_ok, k->occ.blocks_per_sm);
	kv_opt_num(w, "waves", k->occupancy_ok && k->waves > 0, k->waves);
	j_prop(w, "best_block", k->occupancy_ok ? k->best_block : 0);
	j_prop(w, "best_grid", k->occupancy_ok ? k->best_grid : 0);
}

static void json_kernel(struct jw *w, const struct kg_analysis *a, const struct kg_kernel_stats *k)
{
	const struct kg_launch *ex = op_launch(a->m, &a->m->ops[k->example_op]);
	j_open(w);
	kv_text(w, "name", a->m, k->name);
	kv_int(w, "count", k->count);
	kv_int(w, "total_ns", k->total);
	kv_pct(w, "time_share_pct", (double)k->total, (double)analysis_kernel_time(a));
	kv_int(w, "mean_ns", isfinite(k->mean) ? kg_i64_round(k->mean) : 0);
	kv_time(w, "p50_ns", k->p50);
	kv_time(w, "p99_ns", k->p99);
	kv_time(w, "min_ns", k->min);
	kv_time(w, "max_ns", k->max);
	kv_time(w, "launch_latency_p50_ns", k->launch_p50);
	kv_time(w, "launch_latency_p99_ns", k->launch_p99);
	kv_time(w, "queue_wait_p50_ns", k->queue_p50);
	kv_time(w, "queue_wait_p99_ns", k->queue_p99);
	j_prop(w, "blocks", k->blocks);
	j_prop(w, "threads", k->threads);
	j_key(w, "grid");
	j_aopen(w);
	for (int i = 0; i < 3; i++)
		j_int(w, ex->grid[i]);
	j_aclose(w);
	j_key(w, "block");
	j_aopen(w);
	for (int i = 0; i < 3; i++)
		j_int(w, ex->block[i]);
	j_aclose(w);
	j_prop(w, "registers_per_thread", ex->regs);
	kv_int(w, "shared_memory_bytes", (long long)ex->smem_static + ex->smem_dynamic);
	json_occupancy(w, k);
	uint32_t ki = (uint32_t)(k - a->kernels);
	if (a->hw_kernels) {
		float v[KG_HW_N];
		for (int f = 0; f < KG_HW_N; f++)
			v[f] = (float)hw_kernel_figure(a, ki, f);
		json_hw_figures(w, "achieved", v);
		kv_int(w, "hw_samples_alone", a->hw_kernels[ki].samples);
	}
	j_close(w);
}

static void json_kernels(struct jw *w, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	uint32_t n = a->n_kernels;
	if (o->top > 0 && (uint32_t)o->top < n)
		n = (uint32_t)o->top;
	kv_int(w, "kernel_names", a->n_kernels);
	j_key(w, "kernels");
	j_aopen(w);
	for (uint32_t i = 0; i < n; i++)
		json_kernel(w, a, &a->kernels[i]);
	j_aclose(w);
}

static void json_sites(struct jw *w, const struct kg_analysis *a)
{
	j_key(w, "sites");
	j_aopen(w);
	for (uint32_t i = 0; i < a->n_sites; i++) {
		const struct kg_site *s = &a->sites[i];
		if (s->ns <= 0)
			break; /* sorted: the rest are sites of no finding */
		j_open(w);
		kv_int(w, "site", i + 1);
		kv_int(w, "gain_ns", kg_i64_round(s->ns));
		kv_pct(w, "gain_pct", s->ns, (double)a->steady_span);
		kv_int(w, "findings", s->findings);
		site_json_body(w, a, s);
		j_close(w);
	}
	j_aclose(w);
}

static void json_findings(struct jw *w, const struct kg_analysis *a)
{
	struct kg_finding_place p = {.a = a};
	j_key(w, "findings");
	j_aopen(w);
	for (uint32_t i = 0; i < a->findings.n; i++)
		finding_json(w, &p, &a->findings.v[i], i + 1);
	j_aclose(w);
}

/* While the GPU waited, over the whole trace (report --host's tree): every node with its
 * parent's number, only when the trace has host spans. */
static void json_host(struct jw *w, const struct kg_analysis *a)
{
	const struct kg_host_table *t = &a->host;
	if (!t->on)
		return;
	j_key(w, "host");
	j_open(w);
	kv_int(w, "idle_ns", kg_i64_round(t->idle_ns));
	kv_int(w, "gaps", t->gaps);
	kv_int(w, "not_seen_ns", kg_i64_round(t->unseen_ns));
	host_causes_json(w, t->cause_ns, t->idle_ns);
	j_key(w, "nodes");
	j_aopen(w);
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		const struct kg_host_node *n = &t->nodes[i];
		if (!(n->total > 0))
			continue; /* met only in a finding's part of a gap (launch-overhead's) */
		j_open(w);
		kv_int(w, "node", i);
		kv_opt_int(w, "parent", n->parent != KG_NONE, n->parent);
		kv_int(w, "total_ns", kg_i64_round(n->total));
		kv_int(w, "self_ns", kg_i64_round(n->self));
		kv_str(w, "cause", host_cause_id(n->cause));
		j_key(w, "frame");
		host_node_json(w, a, i);
		j_close(w);
	}
	j_aclose(w);
	j_close(w);
}

int report_json(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	struct jw w;
	if (jw_begin(&w, f) < 0)
		return -ENOMEM;
	j_open(&w);
	kv_int(&w, "kgantt_report_version", KG_REPORT_VERSION);
	json_trace(&w, a, o);
	json_processes(&w, a->m);
	json_devices(&w, a->m);
	json_gpus(&w, a);
	report_json_steps(&w, a);
	json_streams(&w, a);
	json_kernels(&w, a, o);
	json_findings(&w, a);
	json_sites(&w, a);
	json_host(&w, a);
	j_close(&w);
	return jw_end(&w) < 0 ? -EIO : 0;
}
