/* A finding as JSON (finding_out.h); docs/report.md lists the fields. */
#include <math.h>

#include "report/finding_out.h"
#include "text/names.h"
#include "util/timemath.h"

static void kv_text(struct jw *w, const char *k, const struct kg_model *m, uint32_t id)
{
	j_key(w, k);
	j_text(w, m, id);
}

/* A time as ns after zero (0: as in the trace); null when unknown. */
static void kv_when(struct jw *w, const char *k, int64_t t, int64_t zero)
{
	kv_time(w, k, t == KG_NO_TIME ? t : kg_time_diff(t, zero));
}

static void kv_gain(struct jw *w, const char *k, double ns)
{
	kv_int(w, k, isfinite(ns) ? kg_i64_round(ns) : 0);
}

static const char *const frame_kinds[] = {"native", "python", "operator", "annotation"};

static void json_frame(struct jw *w, const struct kg_model *m, const struct kg_frame *fr)
{
	j_open(w);
	kv_str(w, "kind", fr->kind < 4 ? frame_kinds[fr->kind] : "native");
	kv_text(w, "function", m, fr->function);
	kv_text(w, "file", m, fr->file);
	/* a profiler's Python function names its def, not the line that ran */
	int def = (fr->flags & KG_FRAME_DEF_LINE) != 0;
	kv_opt_int(w, "line", fr->line > 0 && !def, fr->line);
	if (def)
		kv_opt_int(w, "defined_at_line", fr->line > 0, fr->line);
	kv_text(w, "module", m, fr->module);
	j_close(w);
}

void site_json_body(struct jw *w, const struct kg_analysis *a, const struct kg_site *s)
{
	const struct kg_model *m = a->m;
	kv_str(w, "label", s->label);
	kv_text(w, "api", m, s->api_name);
	j_key(w, "operator");
	if (s->op[0])
		j_str(w, s->op);
	else
		j_null(w);
	j_key(w, "frame");
	if (s->user_frame != KG_NONE)
		json_frame(w, m, &m->frames[s->user_frame]);
	else
		j_null(w);
	const struct kg_stack *st = &m->stacks[s->stack];
	kv_bool(w, "partial", (st->flags & KG_STACK_PARTIAL) != 0);
	kv_bool(w, "truncated", (st->flags & KG_STACK_TRUNCATED) != 0);
	kv_bool(w, "python_unreadable", (st->flags & KG_STACK_NO_PYTHON) != 0);
	j_key(w, "stack");
	j_aopen(w);
	for (uint32_t k = 0; k < st->n_frames; k++)
		json_frame(w, m, &m->frames[st->first_frame + k]);
	j_aclose(w);
}

/* Where a trace finding's gain comes from in the program: its call sites. */
static void json_sites(struct jw *w, const struct kg_finding_place *p, const struct kg_finding *f)
{
	double total = f->sited_ns + f->unsited_ns;
	kv_gain(w, "sited_ns", f->sited_ns);
	kv_gain(w, "unsited_ns", f->unsited_ns);
	j_key(w, "sites");
	j_aopen(w);
	for (int k = 0; k < f->n_sites; k++) {
		j_open(w);
		kv_int(w, "site", f->sites[k].site + 1);
		kv_num(w, "share", total > 0 ? f->sites[k].ns / total : 0);
		kv_gain(w, "gain_ns", f->sites[k].ns);
		if (!p->site_refs)
			site_json_body(w, p->a, &p->a->sites[f->sites[k].site]);
		j_close(w);
	}
	j_aclose(w);
}

void host_node_json(struct jw *w, const struct kg_analysis *a, uint32_t node)
{
	const struct kg_host_node *n = &a->host.nodes[node];
	char name[320];
	if (n->kind == KG_HOST_NODE_FRAME && n->frame != KG_NONE) {
		json_frame(w, a->m, &a->m->frames[n->frame]);
		return;
	}
	static const char *const kinds[] = {"unknown", "cuda_call", "state", "not_seen"};
	j_open(w);
	kv_str(w, "kind", kinds[n->kind]);
	kv_str(w, "function", host_node_name(a, node, name, sizeof(name)));
	j_close(w);
}

void host_causes_json(struct jw *w, const double *cause_ns, double total)
{
	j_key(w, "causes");
	j_aopen(w);
	for (unsigned c = 0; c < KG_HOST_CAUSE_COUNT; c++) {
		if (!(cause_ns[c] > 0))
			continue;
		j_open(w);
		kv_str(w, "cause", host_cause_id(c));
		kv_gain(w, "ns", cause_ns[c]);
		kv_num(w, "share", total > 0 ? cause_ns[c] / total : 0);
		j_close(w);
	}
	j_aclose(w);
}

/* The path of a node from the outermost frame down to it. */
static void json_host_path(struct jw *w, const struct kg_analysis *a, uint32_t node)
{
	uint32_t path[256], n = 0;
	for (uint32_t x = node; x != KG_NONE && n < 256; x = a->host.nodes[x].parent)
		path[n++] = x;
	j_key(w, "path");
	j_aopen(w);
	while (n--)
		host_node_json(w, a, path[n]);
	j_aclose(w);
}

/* The activities a finding's JSON lists, largest first; the rest are counted. Each comes
 * with its whole path: a vLLM step's host-bound finding had 7,494 activities of about 25
 * frames each, 93 MB of JSON for an 816 KB trace, and the page embeds the same. */
#define JSON_ACTIVITIES 100

/* While the GPU waited (an idle finding of a trace with host spans): the largest
 * activities, the part no span covers, the causes and the one that gave the fix. */
static void json_host(struct jw *w, const struct kg_analysis *a, const struct kg_finding *f)
{
	char label[4096];
	j_key(w, "host");
	if (!a->host.on || (!f->n_host && !(f->host_unseen_ns > 0))) {
		j_null(w);
		return;
	}
	j_open(w);
	kv_gain(w, "not_seen_ns", f->host_unseen_ns);
	kv_int(w, "samples", f->host_samples);
	kv_bool(w, "too_few_samples", finding_host_few_samples(f));
	kv_gain(w, "tracer_records_ns", f->host_tracer_records_ns);
	kv_str(w, "cause", f->host_cause >= 0 ? host_cause_id((unsigned)f->host_cause) : NULL);
	host_causes_json(w, f->host_cause_ns, f->gain_ns);
	j_key(w, "activities");
	j_aopen(w);
	uint32_t listed = f->n_host < JSON_ACTIVITIES ? f->n_host : JSON_ACTIVITIES;
	double rest_ns = 0;
	for (uint32_t k = listed; k < f->n_host; k++)
		rest_ns += f->host[k].ns;
	for (uint32_t k = 0; k < listed; k++) {
		const struct kg_host_share *h = &f->host[k];
		j_open(w);
		kv_num(w, "share", f->gain_ns > 0 ? h->ns / f->gain_ns : 0);
		kv_gain(w, "gain_ns", h->ns);
		kv_str(w, "cause", host_cause_id(h->cause));
		kv_str(w, "label", host_node_label(a, h->node, label, sizeof(label)));
		json_host_path(w, a, h->node);
		j_close(w);
	}
	j_aclose(w);
	kv_int(w, "activities_left_out", f->n_host - listed);
	kv_gain(w, "activities_left_out_ns", rest_ns);
	j_close(w);
}

static void json_evidence(struct jw *w, const struct kg_finding_place *p,
			  const struct kg_evidence *e)
{
	j_open(w);
	if (p->a) {
		const struct kg_model *m = p->a->m;
		char label[160];
		kv_when(w, "start_ns", e->start, p->zero);
		kv_when(w, "end_ns", e->end, p->zero);
		kv_opt_int(w, "stream", e->stream < m->n_streams, e->stream);
		j_key(w, "stream_label");
		if (e->stream < m->n_streams)
			j_str(w, stream_label(m, e->stream, STREAM_LABEL_WHERE, label, sizeof(label)));
		else
			j_null(w);
		kv_opt_int(w, "op", e->op < m->n_ops, e->op);
	}
	kv_str(w, "text", e->text ? e->text : "");
	j_close(w);
}

/* "steps": {"in", "of", "first": [numbers from 1]} when it lies in a few steady steps,
 * else null. */
static void json_in_steps(struct jw *w, const struct kg_finding *f)
{
	j_key(w, "steps");
	if (!f->n_in_steps) {
		j_null(w);
		return;
	}
	j_open(w);
	kv_int(w, "in", f->n_in_steps);
	kv_int(w, "of", f->of_steps);
	j_key(w, "first");
	j_aopen(w);
	for (uint32_t k = 0; k < f->n_in_steps && k < KG_FINDING_STEPS; k++)
		j_int(w, f->in_steps[k] + 1);
	j_aclose(w);
	j_close(w);
}

void finding_json(struct jw *w, const struct kg_finding_place *p, const struct kg_finding *f,
		  uint32_t number)
{
	j_open(w);
	kv_int(w, "rank", number);
	kv_str(w, "rule", kg_rules[f->rule].id);
	kv_str(w, "severity", severity_name(f->severity));
	kv_str(w, "title", finding_str(f->title));
	kv_str(w, "explanation", finding_str(f->explanation));
	kv_str(w, "fix", finding_str(f->fix));
	kv_gain(w, "gain_ns", f->gain_ns);
	kv_num(w, "gain_pct", f->gain_pct);
	kv_str(w, "gain_estimate", finding_str(f->gain_how));
	if (p->a) {
		kv_when(w, "start_ns", f->start, p->zero);
		kv_when(w, "end_ns", f->end, p->zero);
		kv_opt_int(w, "gpu", f->gpu != KG_NONE, f->gpu);
		json_in_steps(w, f);
	} else {
		int known = f->rank != KG_NONE && f->rank < p->j->n_ranks;
		kv_str(w, "job_rank", known ? p->j->ranks[f->rank].label : NULL);
		kv_opt_int(w, "job_rank_index", known, f->rank);
	}
	kv_str(w, "figures", finding_str(f->figures));
	if (p->a)
		json_sites(w, p, f);
	if (p->a && p->a->host.on && host_idle_rule(f->rule))
		json_host(w, p->a, f);
	j_key(w, "evidence");
	j_aopen(w);
	for (int k = 0; k < f->n_evidence; k++)
		json_evidence(w, p, &f->evidence[k]);
	j_aclose(w);
	j_close(w);
}

void finding_json_brief(struct jw *w, const struct kg_finding *f)
{
	j_open(w);
	kv_str(w, "rule", kg_rules[f->rule].id);
	kv_str(w, "severity", severity_name(f->severity));
	kv_str(w, "title", finding_str(f->title));
	kv_gain(w, "gain_ns", f->gain_ns);
	kv_num(w, "gain_pct", f->gain_pct);
	j_close(w);
}
