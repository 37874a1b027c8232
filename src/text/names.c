/* What kgantt calls the things of a trace (names.h). */
#include "text/names.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/page.h"
#include "util/cxx_name.h"
#include "util/timemath.h"

/* ------------------------------------------------------------------ kernels */


const char *kernel_short_name(const char *name, size_t width, char *out, size_t outlen)
{
	size_t n = strlen(name);
	char *tmp = malloc(n * 2 + 8), *tmp2 = malloc(n * 2 + 8);
	if (!tmp || !tmp2) {
		free(tmp);
		free(tmp2);
		text_safe(name, out, outlen);
		text_cut(out, outlen, width);
		return out;
	}
	text_safe(name, tmp, n + 1);
	if (text_columns(tmp) > width)
		cxx_strip_params(tmp);
	if (text_columns(tmp) > width)
		cxx_strip_return_type(tmp);
	if (text_columns(tmp) > width)
		cxx_strip_qualifiers(tmp, 1);
	/* then nested template arguments, then the kernel's own namespace; collapsing the
	 * outer template arguments too would make kernels indistinguishable ("k<…>"): a cut
	 * end keeps more of what tells them apart */
	if (text_columns(tmp) > width) {
		cxx_collapse_templates(tmp, 2, tmp2);
		char *t = tmp;
		tmp = tmp2;
		tmp2 = t;
	}
	if (text_columns(tmp) > width)
		cxx_strip_qualifiers(tmp, 0);
	snprintf(out, outlen, "%s", tmp);
	free(tmp);
	free(tmp2);
	text_cut(out, outlen, width);
	return out;
}

/* ------------------------------------------------------------------ streams and GPUs */

const char *fmt_rel_ms(const struct kg_model *m, int64_t t, char buf[32])
{
	if (t == KG_NO_TIME || m->begin == KG_NO_TIME)
		return strcpy(buf, "-");
	snprintf(buf, 32, "%.3f ms", (double)kg_time_diff(t, m->begin) / 1e6);
	return buf;
}


const char *gpu_label(const struct kg_model *m, uint32_t gpu, char *buf, size_t len)
{
	if (gpu >= m->n_gpus) {
		snprintf(buf, len, "GPU ?");
		return buf;
	}
	const struct kg_gpu *g = &m->gpus[gpu];
	int shared = 0;
	for (uint32_t h = 0; h < m->n_gpus && !shared; h++)
		shared = h != gpu && m->gpus[h].ordinal == g->ordinal;
	const struct kg_device *d = g->device < m->n_devices ? &m->devices[g->device] : NULL;
	if (shared && d && d->process < m->n_processes)
		snprintf(buf, len, "GPU %" PRId32 " of pid %" PRIu32, g->ordinal,
			 m->processes[d->process].pid);
	else
		snprintf(buf, len, "GPU %" PRId32, g->ordinal);
	return buf;
}

const char *device_name(const struct kg_model *m, const struct kg_device *d)
{
	const char *name = d->name ? model_text(m, d->name) : "";
	return *name ? name : "unknown GPU";
}

const char *device_description(const struct kg_model *m, const struct kg_device *d, char *buf,
			       size_t len)
{
	snprintf(buf, len, "%s", device_name(m, d));
	if (d->sm_count > 0)
		text_appendf(buf, len, ", %d SMs", d->sm_count);
	if (d->cc_major > 0 && d->vendor != KG_VENDOR_AMD) /* an AMD one's is a gfx version */
		text_appendf(buf, len, ", cc %d.%d", d->cc_major, d->cc_minor);
	if (d->memory_bytes > 0)
		text_appendf(buf, len, ", %.0f GiB", (double)d->memory_bytes / (1 << 30));
	return buf;
}

const char *stream_label(const struct kg_model *m, uint32_t stream, unsigned parts, char *buf,
			 size_t len)
{
	if (stream >= m->n_streams) {
		snprintf(buf, len, "-");
		return buf;
	}
	const struct kg_stream *s = &m->streams[stream];
	char more[160] = "", g[64];
	if ((parts & STREAM_LABEL_WHERE) && m->n_gpus > 1 && s->device < m->n_devices)
		text_appendf(more, sizeof(more), ", %s",
			     gpu_label(m, m->devices[s->device].gpu, g, sizeof(g)));
	if ((parts & STREAM_LABEL_WHERE) && m->n_processes > 1 && s->process < m->n_processes)
		text_appendf(more, sizeof(more), ", pid %" PRIu32, m->processes[s->process].pid);
	const char *kind = stream_kind_name(s->kind);
	if ((parts & STREAM_LABEL_KIND) && kind)
		text_appendf(more, sizeof(more), ", %s", kind);
	if ((parts & STREAM_LABEL_QUEUE) && s->priority)
		text_appendf(more, sizeof(more), ", prio %" PRId32, s->priority);
	if ((parts & STREAM_LABEL_QUEUE) && s->channel >= 0)
		text_appendf(more, sizeof(more), ", channel %" PRId32, s->channel);
	if (more[0])
		snprintf(buf, len, "stream %" PRId64 " (%s)", s->id, more + 2);
	else
		snprintf(buf, len, "stream %" PRId64, s->id);
	return buf;
}
