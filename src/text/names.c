/* What kgantt calls the things of a trace (names.h). */
#include "text/names.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/page.h"
#include "util/timemath.h"

/* ------------------------------------------------------------------ kernels */


static int opens(char c) { return c == '<' || c == '(' || c == '[' || c == '{'; }
static int closes(char c) { return c == '>' || c == ')' || c == ']' || c == '}'; }

/* "void ns::k<int>(float*, int)" → "void ns::k<int>": the last balanced (...) at the end,
 * which is the parameter list (a lambda's or operator()'s own parens stay). */
static void strip_params(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		n--;
	if (n == 0 || s[n - 1] != ')')
		return;
	int depth = 0;
	for (size_t i = n; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0) {
			if (i == 0)
				return;
			while (i > 0 && s[i - 1] == ' ')
				i--;
			s[i] = '\0';
			return;
		}
	}
}

/* "void ns::k<unsigned int>" → "ns::k<unsigned int>": drops everything up to the last
 * space outside brackets, which ends the return type. */
static void strip_return_type(char *s)
{
	int depth = 0;
	char *cut = NULL;
	for (char *p = s; *p; p++) {
		if (opens(*p))
			depth++;
		else if (closes(*p) && depth > 0)
			depth--;
		else if (*p == ' ' && depth == 0 && p[1])
			cut = p + 1;
	}
	if (cut)
		memmove(s, cut, strlen(cut) + 1);
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Length of the namespace or class qualifier at p ("at::", "(anonymous namespace)::"),
 * 0 when there is none. */
static size_t qualifier_len(const char *p)
{
	static const char anon[] = "(anonymous namespace)::";
	if (!strncmp(p, anon, sizeof(anon) - 1))
		return sizeof(anon) - 1;
	size_t n = 0;
	while (ident_char(p[n]))
		n++;
	return n > 0 && p[n] == ':' && p[n + 1] == ':' ? n + 2 : 0;
}

/* Drops the qualifiers at template depth >= level: with level 1,
 * "at::k<at::native::Functor<float>, std::array<char*, 2ul> >" becomes
 * "at::k<Functor<float>, array<char*, 2ul> >". The type names tell kernels apart; their
 * namespaces rarely do. */
static void strip_qualifiers(char *s, int level)
{
	char *out = s, prev = ' ';
	int depth = 0;
	for (const char *p = s; *p;) {
		size_t q = depth >= level && !ident_char(prev) ? qualifier_len(p) : 0;
		if (q) {
			p += q;
			prev = ':';
			continue;
		}
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		prev = *p;
		*out++ = *p++;
	}
	*out = '\0';
}

/* Template arguments at bracket depth >= level become "…": "k<A<BC>, D>" with level 2
 * is "k<A<…>, D>". A '<' without its '>' (operator<) is left as it is. Writes to out, which
 * needs strlen(s) * 2 + 1 bytes: "<…>" (5 bytes) replaces at least "<xy>" (4). */
static void collapse_templates(const char *s, int level, char *out)
{
	int depth = 0;
	for (const char *p = s; *p;) {
		if (*p == '<' && depth + 1 >= level) {
			int d = 0;
			const char *q = p;
			for (; *q; q++) {
				if (*q == '<')
					d++;
				else if (*q == '>' && --d == 0)
					break;
			}
			if (*q == '>' && q - p > 2) {
				out += sprintf(out, "<…>");
				p = q + 1;
				continue;
			}
		}
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		*out++ = *p++;
	}
	*out = '\0';
}

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
		strip_params(tmp);
	if (text_columns(tmp) > width)
		strip_return_type(tmp);
	if (text_columns(tmp) > width)
		strip_qualifiers(tmp, 1);
	/* then nested template arguments, then the kernel's own namespace; collapsing the
	 * outer template arguments too would make kernels indistinguishable ("k<…>"): a cut
	 * end keeps more of what tells them apart */
	if (text_columns(tmp) > width) {
		collapse_templates(tmp, 2, tmp2);
		char *t = tmp;
		tmp = tmp2;
		tmp2 = t;
	}
	if (text_columns(tmp) > width)
		strip_qualifiers(tmp, 0);
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
