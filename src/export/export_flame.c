/* What the host did while the GPU waited (analysis/host.h's tree, the one `report --host`
 * prints) for flame-graph tools: folded stacks, one line a path with its time in ns
 * ("main;epoch;collate 46000000", Brendan Gregg's flamegraph.pl, inferno, speedscope's
 * import), and speedscope's own JSON (a "sampled" profile, weights in ns). A node's own
 * time (self) is its line's; its callees' lines carry theirs, so the widths add up to the
 * tree's totals. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "export/export.h"
#include "text/json_writer.h"

#define NAME_MAX_BYTES 512

/* The path from the root to node, outermost first, into path (at most cap); its length. */
static uint32_t node_path(const struct kg_analysis *a, uint32_t node, uint32_t *path, uint32_t cap)
{
	uint32_t n = 0;
	for (uint32_t x = node; x != KG_NONE && n < cap; x = a->host.nodes[x].parent)
		path[n++] = x;
	for (uint32_t i = 0; i < n / 2; i++) {
		uint32_t t = path[i];
		path[i] = path[n - 1 - i];
		path[n - 1 - i] = t;
	}
	return n;
}

/* A frame's name as one folded field: ';' separates frames and the line ends the stack. */
static void folded_name(const struct kg_analysis *a, uint32_t node, char *buf, size_t len)
{
	host_node_name(a, node, buf, len);
	for (char *p = buf; *p; p++)
		if (*p == ';' || *p == '\n' || *p == '\r')
			*p = *p == ';' ? ':' : ' ';
}

static int nothing_to_export(const struct kg_analysis *a)
{
	return !a->host.on || !a->host.n_nodes ? -ENODATA : 0;
}

int export_folded(FILE *f, const struct kg_analysis *a)
{
	if (nothing_to_export(a))
		return -ENODATA;
	uint32_t path[256];
	char name[NAME_MAX_BYTES];
	for (uint32_t i = 0; i < a->host.n_nodes; i++) {
		const struct kg_host_node *n = &a->host.nodes[i];
		long long self = (long long)(n->self + 0.5);
		if (self <= 0)
			continue;
		uint32_t depth = node_path(a, i, path, 256);
		for (uint32_t d = 0; d < depth; d++) {
			folded_name(a, path[d], name, sizeof(name));
			fprintf(f, "%s%s", d ? ";" : "", name);
		}
		fprintf(f, " %lld\n", self);
	}
	return ferror(f) ? -EIO : 0;
}

/* speedscope's frame of a node: its name, and for a source frame its file and line. */
static void speedscope_frame(struct jw *w, const struct kg_analysis *a, uint32_t node)
{
	const struct kg_host_node *n = &a->host.nodes[node];
	char name[NAME_MAX_BYTES];
	j_open(w);
	kv_str_lit(w, "name", host_node_name(a, node, name, sizeof(name)));
	if (n->kind == KG_HOST_NODE_FRAME && n->frame != KG_NONE) {
		const struct kg_frame *fr = &a->m->frames[n->frame];
		if (fr->file) {
			j_key_lit(w, "file");
			j_text(w, a->m, fr->file);
		} else if (fr->module) {
			j_key_lit(w, "file");
			j_text(w, a->m, fr->module);
		}
		if (fr->line > 0 && !n->lines)
			kv_int_lit(w, "line", fr->line);
	}
	j_close(w);
}

int export_speedscope(FILE *f, const struct kg_analysis *a, const char *title)
{
	if (nothing_to_export(a))
		return -ENODATA;
	struct jw w;
	if (jw_begin_compact(&w, f) < 0)
		return -ENOMEM;
	double total = 0;
	for (uint32_t i = 0; i < a->host.n_nodes; i++)
		total += a->host.nodes[i].self > 0 ? a->host.nodes[i].self : 0;
	j_open(&w);
	kv_str_lit(&w, "$schema", "https://www.speedscope.app/file-format-schema.json");
	kv_str_lit(&w, "exporter", "kgantt " KGANTT_VERSION);
	kv_str_lit(&w, "name", title);
	j_key_lit(&w, "shared");
	j_open(&w);
	j_key_lit(&w, "frames"); /* one a node: frame i is node i */
	j_aopen(&w);
	for (uint32_t i = 0; i < a->host.n_nodes; i++)
		speedscope_frame(&w, a, i);
	j_aclose(&w);
	j_close(&w);
	j_key_lit(&w, "profiles");
	j_aopen(&w);
	j_open(&w);
	kv_str_lit(&w, "type", "sampled");
	kv_str_lit(&w, "name", "host time while the GPU waited (steady idle gaps of cause host "
			       "or sync)");
	kv_str_lit(&w, "unit", "nanoseconds");
	kv_int_lit(&w, "startValue", 0);
	kv_int_lit(&w, "endValue", (long long)(total + 0.5));
	uint32_t path[256];
	j_key_lit(&w, "samples");
	j_aopen(&w);
	for (uint32_t i = 0; i < a->host.n_nodes; i++) {
		if ((long long)(a->host.nodes[i].self + 0.5) <= 0)
			continue;
		uint32_t depth = node_path(a, i, path, 256);
		j_aopen(&w);
		for (uint32_t d = 0; d < depth; d++)
			j_int(&w, path[d]);
		j_aclose(&w);
	}
	j_aclose(&w);
	j_key_lit(&w, "weights");
	j_aopen(&w);
	for (uint32_t i = 0; i < a->host.n_nodes; i++) {
		long long self = (long long)(a->host.nodes[i].self + 0.5);
		if (self > 0)
			j_int(&w, self);
	}
	j_aclose(&w);
	j_close(&w);
	j_aclose(&w);
	j_close(&w);
	return jw_end(&w) < 0 ? (w.nomem ? -ENOMEM : -EIO) : 0;
}
