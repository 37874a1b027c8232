/* The manifest of the Gantt chart (plot --manifest, docs/plot.md): a JSON account of what
 * plot_cairo.c drew, lane by lane, with its marks and findings. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/chart_out.h"
#include "render/plot_hw.h"
#include "render/plot_internal.h"
#include "text/json_writer.h"
#include "report/report.h"
#include "util/outfile.h"
#include "util/timemath.h"

/* ---------------------------------------------------------------- the manifest */

/* A number, or null when there is none. */
static void json_opt(FILE *f, int present, int64_t v)
{
	if (present)
		fprintf(f, "%" PRId64, v);
	else
		fprintf(f, "null");
}

/* A time relative to origin, or null when unknown. */
static void json_time(FILE *f, int64_t t, int64_t origin)
{
	if (t != KG_NO_TIME)
		fprintf(f, "%" PRId64, kg_time_diff(t, origin));
	else
		fprintf(f, "null");
}

static const char *lane_kind_name(enum kg_lane_kind k)
{
	return k == KG_LANE_STREAM ? "stream" : k == KG_LANE_API ? "api" : "nvtx";
}

/* An API lane's host strip (plot_host.c): its spans in the window, the pixel columns and
 * rectangles drawn, their time by cause (clipped to the window) and off CPU. Nothing
 * without a strip. */
static void manifest_strip(FILE *f, const struct plot *p, uint32_t i)
{
	if (!(p->l.lanes[i].strip_h > 0))
		return;
	const struct strip_count *n = &p->hs.counts[i];
	fprintf(f, ", \"host_strip\": {\"spans\": %" PRIu32 ", \"columns\": %" PRIu32
		   ", \"runs\": %" PRIu32 ", \"off_cpu_ns\": %.0f, \"ns\": {",
		n->spans, n->columns, n->runs, n->off_ns);
	int first = 1;
	for (unsigned c = 0; c < KG_HOST_CAUSE_COUNT; c++)
		if (n->ns[c] > 0) {
			fprintf(f, "%s\"%s\": %.0f", first ? "" : ", ", host_cause_id(c), n->ns[c]);
			first = 0;
		}
	fprintf(f, "}}");
}

static void manifest_lane(FILE *f, const struct plot *p, uint32_t i)
{
	const struct kg_model *m = p->m;
	const struct kg_lane *ln = &p->l.lanes[i];
	const struct lane_count *n = &p->counts[i];
	fprintf(f, "    {\"lane\": %" PRIu32 ", \"kind\": \"%s\", \"pid\": %" PRIu32
		   ", \"y\": %.1f, \"height\": %.1f",
		i, lane_kind_name(ln->kind), m->processes[ln->process].pid, ln->y, ln->h);
	if (ln->kind == KG_LANE_STREAM) {
		const struct kg_stream *s = &m->streams[ln->stream];
		fprintf(f, ", \"device\": %" PRId32 ", \"gpu\": %" PRIu32 ", \"stream\": %" PRId64
			   ", \"kernels\": %" PRIu32 ", \"copies\": %" PRIu32 ", \"memsets\": %" PRIu32
			   ", \"blocks\": %" PRIu32 ", \"merged\": %" PRIu32
			   ", \"density_columns\": %" PRIu32 "}",
			m->devices[ln->device].ordinal, m->devices[ln->device].gpu, s->id, n->kernels,
			n->copies, n->memsets, n->blocks, n->merged, n->columns);
		return;
	}
	if (ln->thread != KG_NONE)
		fprintf(f, ", \"tid\": %" PRId64, m->threads[ln->thread].tid);
	if (ln->kind == KG_LANE_API) {
		fprintf(f, ", \"api_calls\": %" PRIu32 ", \"syncs\": %" PRIu32 ", \"launches\": %" PRIu32,
			n->records, n->syncs, n->launches);
		manifest_strip(f, p, i);
		fprintf(f, "}");
	}
	else
		fprintf(f, ", \"ranges\": %" PRIu32 ", \"levels\": %d}", n->records, ln->levels);
}

static void manifest_marks(FILE *f, const struct plot *p)
{
	static const char *const types[] = {"queue-wait", "low-occupancy", "overlap", "start-up",
					    "wind-down"};
	fprintf(f, "  \"marks\": [");
	for (uint32_t i = 0; i < p->n_marks; i++) {
		const struct mark *k = &p->marks[i];
		fprintf(f, "%s\n    {\"type\": \"%s\", \"lane\": %" PRIu32, i ? "," : "", k->type,
			k->lane);
		if (k->lane2 != KG_NONE)
			fprintf(f, ", \"lane2\": %" PRIu32, k->lane2);
		fprintf(f, ", \"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64 ", \"count\": %" PRIu32 "}",
			kg_time_diff(k->t0, p->o->origin), kg_time_diff(k->t1, p->o->origin), k->count);
	}
	fprintf(f, "%s],\n  \"mark_counts\": {", p->n_marks ? "\n  " : "");
	for (int t = 0; t < (int)(sizeof(types) / sizeof(types[0])); t++) {
		uint64_t marks = 0, count = 0;
		for (uint32_t i = 0; i < p->n_marks; i++)
			if (!strcmp(p->marks[i].type, types[t])) {
				marks++;
				count += p->marks[i].count;
			}
		fprintf(f, "%s\"%s\": {\"marks\": %" PRIu64 ", \"count\": %" PRIu64 "}", t ? ", " : "",
			types[t], marks, count);
	}
	fprintf(f, "},\n");
}

/* The steps whose GPU start lies in the window (plot_steps.c): null without steps (or
 * without the analysis); each tick drawn, its number when it was drawn. */
static void manifest_steps(FILE *f, const struct plot *p)
{
	const struct kg_steps *st = p->a ? &p->a->steps : NULL;
	const struct step_marks *sm = &p->steps;
	char buf[16];
	fprintf(f, "  \"steps\": ");
	if (!st || !st->n) {
		fprintf(f, "null,\n");
		return;
	}
	fprintf(f, "{\"found\": %" PRIu32 ", \"in_window\": %" PRIu32 ", \"spacing_px\": ",
		st->n, sm->n);
	if (sm->n)
		fprintf(f, "%.1f", sm->spacing);
	else
		fprintf(f, "null");
	fprintf(f, ", \"ticks\": %s, \"lines\": %s, \"label_every\": %" PRIu32 ", \"marks\": [",
		sm->ticks ? "true" : "false", sm->lines ? "true" : "false", sm->every);
	for (uint32_t k = 0; sm->ticks && k < sm->n; k++) {
		uint32_t i = sm->first + k;
		fprintf(f, "%s\n    {\"step\": %" PRIu32 ", \"start_ns\": %" PRId64
			   ", \"warmup\": %s, \"label\": ", k ? "," : "", i + 1,
			kg_time_diff(st->v[i].start, p->o->origin), st->v[i].warmup ? "true" : "false");
		if (sm->labelled[k])
			jw_put_string(f, step_label(st, i, buf));
		else
			fprintf(f, "null");
		fprintf(f, "}");
	}
	fprintf(f, "%s]},\n", sm->ticks && sm->n ? "\n  " : "");
}

/* A finding's call sites as in kgantt report --json (site: its number there; share of the
 * gain; gain_ns; label), and "where": the line drawn under the chart, null when none. */
static void manifest_sites(FILE *f, const struct kg_analysis *a, const struct kg_finding *fd)
{
	char where[600];
	double total = fd->sited_ns + fd->unsited_ns;
	fprintf(f, ", \"sited_ns\": %.0f, \"unsited_ns\": %.0f, \"sites\": [", fd->sited_ns,
		fd->unsited_ns);
	for (int k = 0; k < fd->n_sites; k++) {
		fprintf(f, "%s{\"site\": %" PRIu32 ", \"share\": %.6g, \"gain_ns\": %.0f, \"label\": ",
			k ? ", " : "", fd->sites[k].site + 1, total > 0 ? fd->sites[k].ns / total : 0,
			fd->sites[k].ns);
		jw_put_string(f, a->sites[fd->sites[k].site].label);
		fprintf(f, "}");
	}
	fprintf(f, "], \"where\": ");
	if (*top_site(a, fd, where, sizeof(where)))
		jw_put_string(f, where);
	else
		fprintf(f, "null");
}

static void manifest_findings(FILE *f, const struct plot *p)
{
	uint32_t n = p->a ? p->a->findings.n : 0;
	fprintf(f, "  \"findings\": [");
	for (uint32_t i = 0; i < n; i++) {
		const struct kg_finding *fd = &p->a->findings.v[i];
		const struct finding_mark *fm = &p->fmarks[i];
		fprintf(f, "%s\n    {\"number\": %" PRIu32 ", \"rule\": ", i ? "," : "", i + 1);
		jw_put_string(f, kg_rules[fd->rule].id);
		fprintf(f, ", \"severity\": \"%s\", \"drawn\": %s, \"lane\": ",
			severity_name(fd->severity),
			fm->lane != KG_NONE && fm->t0 != KG_NO_TIME ? "true" : "false");
		json_opt(f, fm->lane != KG_NONE, fm->lane);
		fprintf(f, ", \"start_ns\": ");
		json_time(f, fm->t0, p->o->origin);
		fprintf(f, ", \"end_ns\": ");
		json_time(f, fm->t1, p->o->origin);
		manifest_sites(f, p->a, fd);
		fprintf(f, "}");
	}
	fprintf(f, "%s]\n", n ? "\n  " : "");
}

static void manifest_write(FILE *f, const struct plot *p, const char *path)
{
	static const char *const formats[] = {"png", "svg", "pdf"};
	double k = chart_pixel_scale(p->o->format, p->o->dpi);
	fprintf(f, "{\n  \"kgantt_plot_version\": 1,\n  \"output\": ");
	jw_put_string(f, path);
	fprintf(f, ",\n  \"format\": \"%s\",\n  \"width\": %.0f,\n  \"height\": %.0f,\n",
		formats[p->o->format], p->l.width, p->l.height);
	if (p->o->format == KG_PLOT_PNG)
		fprintf(f, "  \"pixels\": [%d, %d],\n", (int)ceil(p->l.width * k),
			(int)ceil(p->l.height * k));
	fprintf(f, "  \"window\": {\"start_ns\": %" PRId64 ", \"end_ns\": %" PRId64
		   ", \"relative_to\": \"trace begin\"},\n  \"annotations\": %s,\n  \"has_stacks\": %s,\n",
		kg_time_diff(p->l.t0, p->o->origin), kg_time_diff(p->l.t1, p->o->origin),
		p->a ? "true" : "false",
		p->a && p->a->has_stacks ? "true" : "false");
	uint64_t tot[6] = {0};
	for (uint32_t i = 0; i < p->l.n_lanes; i++) {
		const struct lane_count *n = &p->counts[i];
		uint64_t v[6] = {n->kernels, n->copies, n->memsets, n->blocks, n->merged, n->columns};
		for (int j = 0; j < 6; j++)
			tot[j] += v[j];
	}
	fprintf(f, "  \"totals\": {\"kernels\": %" PRIu64 ", \"copies\": %" PRIu64
		   ", \"memsets\": %" PRIu64 ", \"blocks\": %" PRIu64 ", \"merged\": %" PRIu64
		   ", \"density_columns\": %" PRIu64 "},\n  \"lanes\": [\n",
		tot[0], tot[1], tot[2], tot[3], tot[4], tot[5]);
	for (uint32_t i = 0; i < p->l.n_lanes; i++) {
		manifest_lane(f, p, i);
		fprintf(f, "%s\n", i + 1 < p->l.n_lanes ? "," : "");
	}
	fprintf(f, "  ],\n");
	plot_hw_manifest(f, p->m, &p->l);
	plot_sm_manifest(f, &p->sm_drawn);
	manifest_steps(f, p);
	manifest_marks(f, p);
	manifest_findings(f, p);
	fprintf(f, "}\n");
}

int write_manifest(const struct plot *p, const char *path, const char *manifest,
		   char *err, size_t errlen)
{
	struct kg_outfile of;
	struct kg_outfile_opts oo = {.what = "the manifest"};
	FILE *f = outfile_open(&of, manifest, &oo);
	if (!f) {
		snprintf(err, errlen, "%s", of.err);
		return -EIO;
	}
	manifest_write(f, p, path);
	int rc = outfile_commit(&of);
	if (rc < 0)
		snprintf(err, errlen, "%s", of.err);
	return rc;
}
