/* The report as a terminal page (report.h): header, GPUs, streams, top kernels, findings.
 * 100 columns at most; UTF-8 (µ, ×, ≥) counted as one column each. Everything that came
 * from the trace (names, command lines, notes) goes through term_safe first: a kernel
 * name holding an escape sequence must not drive the user's terminal. */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/fmt.h"
#include "util/timemath.h"

#define W KG_REPORT_WIDTH
#define MAX_STREAM_ROWS 32  /* more streams than this: the busiest only, the rest in --json */
#define LABEL_COLS 13       /* field labels: "copy overlap", "evidence" */
#define SPARK_COLS 60       /* columns of the utilisation line */

/* ---------------------------------------------------------------- formatting helpers */

const char *fmt_duration(int64_t ns, char buf[32])
{
	if (ns == KG_NO_TIME)
		return strcpy(buf, "-");
	double a = fabs((double)ns);
	if (a < 999.5)
		snprintf(buf, 32, "%" PRId64 " ns", ns);
	else if (a < 999950.0)
		snprintf(buf, 32, "%.1f µs", (double)ns / 1e3);
	else if (a < 999995000.0)
		snprintf(buf, 32, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, 32, "%.2f s", (double)ns / 1e9);
	return buf;
}

const char *fmt_rel_ms(const struct kg_model *m, int64_t t, char buf[32])
{
	if (t == KG_NO_TIME || m->begin == KG_NO_TIME)
		return strcpy(buf, "-");
	snprintf(buf, 32, "%.3f ms", (double)kg_time_diff(t, m->begin) / 1e6);
	return buf;
}

const char *fmt_pct(double part, double whole, char buf[16])
{
	if (whole <= 0)
		return strcpy(buf, "-");
	snprintf(buf, 16, "%.1f%%", 100.0 * part / whole);
	return buf;
}

/* Appends to the string in buf (of cap bytes), cutting what does not fit. */
static void appendf(char *buf, size_t cap, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t cap, const char *fmt, ...) {
	size_t n = strlen(buf);
	if (n + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, cap - n, fmt, ap);
	va_end(ap);
}

size_t text_columns(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Bytes of s that make up its first cols columns (never splitting a UTF-8 sequence). */
static size_t bytes_for_columns(const char *s, size_t cols)
{
	size_t i = 0, c = 0;
	while (s[i]) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && c++ == cols)
			break;
		i++;
	}
	return i;
}

/* Length of the UTF-8 sequence a lead byte starts (1 for anything else). */
static size_t utf8_len(unsigned char c)
{
	return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

/* Copies in to out with control characters replaced by '?': C0, DEL, and C1 (U+0080 to
 * U+009F, which some terminals take as escape sequences). */
static const char *term_safe(const char *in, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i = 0;
	while (*p && i + 1 < len) {
		if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
			out[i++] = '?';
			p += 2;
			continue;
		}
		out[i++] = *p < 0x20 || *p == 0x7f ? '?' : (char)*p;
		p++;
	}
	if (*p) { /* cut short: do not leave half a UTF-8 sequence at the end */
		size_t j = i;
		while (j > 0 && ((unsigned char)out[j - 1] & 0xC0) == 0x80)
			j--;
		if (j > 0 && j - 1 + utf8_len((unsigned char)out[j - 1]) > i)
			i = j - 1;
	}
	out[i] = '\0';
	return out;
}

/* Cuts s in place to width columns, ending it with "…" when something was cut. */
static void cut_to(char *s, size_t len, size_t width)
{
	if (text_columns(s) <= width || width == 0)
		return;
	size_t b = bytes_for_columns(s, width - 1);
	if (b + 4 > len) { /* "…" is 3 bytes: make room, at a character boundary */
		b = len - 4;
		while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80)
			b--;
	}
	strcpy(s + b, "…");
}

/* ---------------------------------------------------------------- kernel names */

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
		term_safe(name, out, outlen);
		cut_to(out, outlen, width);
		return out;
	}
	term_safe(name, tmp, n + 1);
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
	cut_to(out, outlen, width);
	return out;
}

/* ---------------------------------------------------------------- model helpers */

const char *stream_kind_name(enum kg_stream_kind k)
{
	switch (k) {
	case KG_STREAM_LEGACY_DEFAULT: return "legacy default";
	case KG_STREAM_BLOCKING: return "blocking";
	case KG_STREAM_NON_BLOCKING: return "non-blocking";
	default: return NULL;
	}
}

const char *stream_label(const struct kg_model *m, uint32_t stream, char *buf, size_t len)
{
	if (stream >= m->n_streams) {
		snprintf(buf, len, "-");
		return buf;
	}
	const struct kg_stream *s = &m->streams[stream];
	const struct kg_device *d = &m->devices[s->device];
	if (m->n_processes > 1 && s->process < m->n_processes)
		snprintf(buf, len, "pid %" PRIu32 " dev %" PRId32 " stream %" PRId64,
			 m->processes[s->process].pid, d->ordinal, s->id);
	else
		snprintf(buf, len, "dev %" PRId32 " stream %" PRId64, d->ordinal, s->id);
	return buf;
}

/* ---------------------------------------------------------------- page helpers */

enum tone { TONE_PLAIN, TONE_BOLD, TONE_WARN, TONE_BAD };

static void tone_on(FILE *f, const struct kg_report_opts *o, enum tone t)
{
	static const char *const codes[] = {"", "\033[1m", "\033[33m", "\033[1;31m"};
	if (o->color && t != TONE_PLAIN)
		fputs(codes[t], f);
}

static void tone_off(FILE *f, const struct kg_report_opts *o, enum tone t)
{
	if (o->color && t != TONE_PLAIN)
		fputs("\033[0m", f);
}

static enum tone severity_tone(enum kg_severity s)
{
	return s == KG_SEV_CRITICAL ? TONE_BAD : s == KG_SEV_WARNING ? TONE_WARN : TONE_BOLD;
}

static void heading(FILE *f, const struct kg_report_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void heading(FILE *f, const struct kg_report_opts *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputc('\n', f);
	tone_on(f, o, TONE_BOLD);
	vfprintf(f, fmt, ap);
	tone_off(f, o, TONE_BOLD);
	fputc('\n', f);
	va_end(ap);
}

/* s padded with spaces to width columns, on the right (right=1) or the left. */
void report_cell(FILE *f, const char *s, size_t width, int right)
{
	size_t c = text_columns(s);
	size_t pad = c < width ? width - c : (size_t)(right != 0); /* a gap even when too wide */
	if (right)
		fprintf(f, "%*s%s", (int)pad, "", s);
	else
		fprintf(f, "%s%*s", s, (int)pad, "");
}

/* Prints text (already term_safe) from column col to the page width, word-wrapped; the
 * next lines start at column col too. Words longer than a line (kernel names) are broken. */
static void wrap_text(FILE *f, size_t col, const char *p)
{
	size_t room = W > col + 20 ? W - col : 20;
	while (*p == ' ')
		p++;
	if (!*p)
		fputc('\n', f);
	while (*p) {
		size_t b = bytes_for_columns(p, room);
		if (p[b]) { /* break at the last space that fits, if there is one */
			size_t s = b;
			while (s > 0 && p[s] != ' ')
				s--;
			if (s > 0)
				b = s;
		}
		fprintf(f, "%.*s\n", (int)b, p);
		p += b;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(f, "%*s", (int)col, "");
	}
}

void report_wrap(FILE *f, size_t col, const char *text)
{
	char buf[4096];
	wrap_text(f, col, term_safe(text, buf, sizeof(buf)));
}

/* indent, then label padded to LABEL_COLS (none when NULL), then text wrapped under itself. */
static void wrap(FILE *f, int indent, const char *label, const char *text)
{
	char buf[4096];
	fprintf(f, "%*s", indent, "");
	if (label)
		report_cell(f, label, LABEL_COLS, 0);
	wrap_text(f, (size_t)indent + (label ? LABEL_COLS : 0), term_safe(text, buf, sizeof(buf)));
}

static void field(FILE *f, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void field(FILE *f, const char *label, const char *fmt, ...)
{
	char text[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	wrap(f, 2, label, text);
}

/* ---------------------------------------------------------------- 1. header */

static void header_process(FILE *f, const struct kg_model *m, uint32_t i, const char *label)
{
	const struct kg_process *p = &m->processes[i];
	char line[1024], cnt[32];
	snprintf(line, sizeof(line), "pid %" PRIu32, p->pid);
	if (p->rank)
		appendf(line, sizeof(line), " (rank %s)", model_text(m, p->rank));
	if (p->host)
		appendf(line, sizeof(line), " on %s", model_text(m, p->host));
	appendf(line, sizeof(line), ": %s", p->complete ? "complete" : "INCOMPLETE");
	if (p->exit_status)
		appendf(line, sizeof(line), ", %s", model_text(m, p->exit_status));
	if (p->dropped)
		appendf(line, sizeof(line), ", %s records dropped", fmt_count(p->dropped, cnt));
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
		snprintf(line, sizeof(line), "%s",
			 d->name ? model_text(m, d->name) : "unknown GPU");
		if (d->sm_count > 0)
			appendf(line, sizeof(line), ", %d SMs", d->sm_count);
		if (d->cc_major > 0)
			appendf(line, sizeof(line), ", cc %d.%d", d->cc_major, d->cc_minor);
		if (d->memory_bytes > 0)
			appendf(line, sizeof(line), ", %.0f GiB",
				(double)d->memory_bytes / (1 << 30));
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
	if (m->has_api)
		field(f, "recorded", "%s kernels, %s copies, %s memsets, %s API calls", k, c, s,
		      fmt_count(m->n_apis, a));
	else
		field(f, "recorded", "%s kernels, %s copies, %s memsets, no API calls (host-side "
		      "causes of idle time are unknown)", k, c, s);
}

/* Losses are said plainly: a report over a trace with holes must not look complete. */
static void header_losses(FILE *f, const struct kg_model *m, const struct kg_report_opts *o)
{
	char n[32];
	uint32_t incomplete = 0, refused = 0;
	unsigned long long no_time = 0;
	for (uint32_t p = 0; p < m->n_processes; p++) {
		incomplete += !m->processes[p].complete;
		no_time += m->processes[p].incomplete;
		refused += m->processes[p].refused != 0;
	}
	if (!m->dropped && !incomplete && !no_time && !refused) {
		field(f, "losses", "none: no record dropped, every process finished recording");
		return;
	}
	tone_on(f, o, TONE_WARN);
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
	tone_off(f, o, TONE_WARN);
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
	tone_on(f, o, TONE_BOLD);
	fprintf(f, "kgantt report");
	tone_off(f, o, TONE_BOLD);
	fputc('\n', f);
	static const char *const sources[][2] = {{"kgantt", "kgantt trace"},
						 {"kineto", "PyTorch profiler (Kineto) JSON"},
						 {"nsys", "Nsight Systems SQLite export"}};
	const char *src = m->source;
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (!strcmp(m->source, sources[i][0]))
			src = sources[i][1];
	field(f, "trace", "%s (%s)", term_safe(m->path, path, sizeof(path)), src);
	if (m->command)
		field(f, "command", "%s", model_text(m, m->command));
	for (uint32_t p = 0; p < m->n_processes; p++)
		header_process(f, m, p, p ? "" : m->n_processes > 1 ? "processes" : "process");
	header_devices(f, m);
	if (o->windowed)
		header_window(f, o);
	field(f, "span", "%s, from the first to the last GPU operation or API call%s",
	      fmt_duration(a->span, d), o->windowed ? " in the window" : "");
	if (a->steady_span != a->span) {
		char sd[32], ed[32];
		field(f, "steady", "%s without %s of start-up and wind-down idle: the findings' "
				   "shares are of it", fmt_duration(a->steady_span, sd),
		      fmt_duration(a->span - a->steady_span, ed));
	}
	header_counts(f, m);
	header_losses(f, m, o);
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
		appendf(line, sizeof(line), "%s", u <= 0.0 ? " " : bars[(int)(u * 7.999)]);
	}
	fprintf(f, "    ");
	report_cell(f, "over time", LABEL_COLS, 0);
	fprintf(f, "|%s|  %d × %s\n", line, cols, fmt_duration(a->span / cols, d));
}

static void gpu_idle(FILE *f, const struct kg_analysis *a, const struct kg_gpu_metrics *g)
{
	char line[512], d[32], t[32], gaps[32];
	int64_t total = 0;
	for (int c = 0; c < KG_GAP_CAUSES; c++)
		total = kg_time_add(total, g->idle_by_cause[c]);
	snprintf(line, sizeof(line), "%s in %s gap%s ≥ %s", fmt_duration(total, t),
		 fmt_count(g->n_gaps, gaps), g->n_gaps == 1 ? "" : "s",
		 fmt_duration(a->cfg.sync_gap_ns, d));
	const char *sep = ": ";
	for (int c = 0; c < KG_GAP_CAUSES; c++) {
		if (!g->idle_by_cause[c])
			continue;
		appendf(line, sizeof(line), "%s%s %s", sep, gap_cause_name((enum kg_gap_cause)c),
			fmt_duration(g->idle_by_cause[c], d));
		sep = ", ";
	}
	if (g->idle_startup)
		appendf(line, sizeof(line), "; start-up %s", fmt_duration(g->idle_startup, d));
	if (g->idle_winddown)
		appendf(line, sizeof(line), "; wind-down %s", fmt_duration(g->idle_winddown, d));
	wrap(f, 4, "idle", line);
}

/* " SM active 63%" for a percentage figure, " DRAM read 1.2 TB/s" for a throughput. */
static void hw_value(char *line, size_t cap, const char *sep, int fig, double v)
{
	if (isnan(v))
		return;
	const struct kg_hw_figure_info *fi = &kg_hw_figure_info[fig];
	if (fi->unit == KG_HW_PCT)
		appendf(line, cap, "%s%s %.0f%%", sep, fi->label, v);
	else if (fi->unit == KG_HW_HZ)
		appendf(line, cap, "%s%s %.2f GHz", sep, fi->label, v / 1e9);
	else if (v >= 1e12)
		appendf(line, cap, "%s%s %.2f TB/s", sep, fi->label, v / 1e12);
	else
		appendf(line, cap, "%s%s %.1f GB/s", sep, fi->label, v / 1e9);
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
		wrap(f, 4, "hardware", line);
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
	appendf(line, sizeof(line), " (means over the span; while kernels ran: SM active %.0f%%, "
		"achieved occupancy %.0f%%); %s samples of %s", h->busy_mean[KG_HW_SM_ACTIVE],
		h->busy_mean[KG_HW_OCCUPANCY], fmt_count(h->samples, n),
		fmt_duration(hd->interval_ns, d));
	if (hd->lost)
		appendf(line, sizeof(line), ", %llu lost", (unsigned long long)hd->lost);
	wrap(f, 4, "hardware", line);
}

static void gpu_block(FILE *f, const struct kg_analysis *a, const struct kg_gpu_metrics *g)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu *gpu = &m->gpus[g->gpu];
	const struct kg_device *dev = &m->devices[gpu->device];
	char p1[16], p2[16], p3[16], d1[32], d2[32], line[512];
	double busy = (double)g->busy;
	snprintf(line, sizeof(line), "GPU %" PRIu32 "  %s, device %" PRId32, g->gpu,
		 dev->name ? model_text(m, dev->name) : "unknown", gpu->ordinal);
	if (gpu->host)
		appendf(line, sizeof(line), " on %s", model_text(m, gpu->host));
	wrap(f, 2, NULL, line);
	snprintf(line, sizeof(line), "%s of the span (%s); kernels %s, copies %s",
		 fmt_pct(busy, (double)a->span, p1), fmt_duration(g->busy, d1),
		 fmt_pct((double)g->kernel_busy, (double)a->span, p2),
		 fmt_pct((double)g->copy_busy, (double)a->span, p3));
	int64_t steady = gpu_steady_span(a, g);
	if ((g->idle_startup || g->idle_winddown) && steady > 0)
		appendf(line, sizeof(line), "; %s of the steady work, without start-up and wind-down",
			fmt_pct(busy, (double)steady, p1));
	wrap(f, 4, "busy", line);
	if (g->copy_total > 0)
		snprintf(line, sizeof(line), "%s of copy time ran while a kernel ran (%s of %s)",
			 fmt_pct((double)g->copy_kernel_overlap, (double)g->copy_total, p1),
			 fmt_duration(g->copy_kernel_overlap, d1), fmt_duration(g->copy_total, d2));
	else
		snprintf(line, sizeof(line), "no copies");
	wrap(f, 4, "copy overlap", line);
	char c[4][16];
	snprintf(line, sizeof(line), "1 kernel %s, 2 kernels %s, 3 kernels %s, 4+ kernels %s "
		 "of busy time", fmt_pct((double)g->concurrent[0], busy, c[0]),
		 fmt_pct((double)g->concurrent[1], busy, c[1]),
		 fmt_pct((double)g->concurrent[2], busy, c[2]),
		 fmt_pct((double)g->concurrent[3], busy, c[3]));
	wrap(f, 4, "concurrency", line);
	gpu_idle(f, a, g);
	if (g->n_util > 0 && a->span > 0)
		gpu_sparkline(f, a, g);
	gpu_hardware(f, a, (uint32_t)(g - a->gpus));
}

void report_text_gpus(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	heading(f, o, "GPUs");
	if (!a->n_gpus)
		fprintf(f, "  no GPU operation in the trace\n");
	for (uint32_t g = 0; g < a->n_gpus; g++)
		gpu_block(f, a, &a->gpus[g]);
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
		report_cell(f, v[col], stream_cols[col], col != 3);
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
	heading(f, o, "Streams (%" PRIu32 " with work)", n);
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
		report_cell(f, cols[c], stream_cols[c], c != 3);
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
		appendf(line, sizeof(line), " (%u samples alone, %s)", h->samples,
			fmt_duration(h->sampled_ns, d));
	else
		snprintf(line, sizeof(line), "- (ran alone through %u whole sample%s: too few)",
			 h->samples, h->samples == 1 ? "" : "s");
	char labelled[600];
	snprintf(labelled, sizeof(labelled), "achieved: %s", line);
	wrap(f, 6, NULL, labelled);
}

static void kernel_shape(FILE *f, const struct kg_analysis *a, const struct kg_kernel_stats *k)
{
	char line[512], b[32];
	if (k->blocks > 0 && k->threads > 0)
		snprintf(line, sizeof(line), "%s blocks × %d threads",
			 fmt_count((unsigned long long)k->blocks, b), k->threads);
	else
		snprintf(line, sizeof(line), "launch shape unknown");
	if (k->occupancy_ok) {
		appendf(line, sizeof(line), ", theoretical occupancy %.0f%% (limited by %s)",
			100.0 * k->occ.occupancy, occupancy_limit_name(k->occ.limiter));
		if (k->waves > 0)
			appendf(line, sizeof(line), ", %.2f waves", k->waves);
		if (k->best_block > 0 && k->best_block != k->threads && k->occ.occupancy < 1.0)
			appendf(line, sizeof(line), "; best block %d threads", k->best_block);
	} else if (k->blocks > 0) {
		appendf(line, sizeof(line), ", occupancy unknown");
	}
	wrap(f, 6, NULL, line);
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
			   fmt_pct((double)k->total, (double)a->span, p),
			   fmt_count(k->count, c),
			   fmt_duration(kg_i64_round(k->mean), mean),
			   fmt_duration(k->p50, p50),
			   fmt_duration(k->p99, p99),
			   fmt_duration(k->launch_p50, l),
			   fmt_duration(k->queue_p50, q)};
	for (size_t col = 0; col < sizeof(v) / sizeof(v[0]); col++)
		report_cell(f, v[col], kernel_cols[col], 1);
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
		heading(f, o, "Top kernels by total time (%" PRIu32 " of %" PRIu32 " names, %s of "
			"kernel time)", n, a->n_kernels, fmt_pct((double)shown, (double)all, p));
	else
		heading(f, o, "Kernels by total time (%" PRIu32 " name%s)", n, n == 1 ? "" : "s");
	if (!n) {
		fprintf(f, "  no kernel in the trace\n");
		return;
	}
	static const char *const cols[] = {"#", "total", "span", "count", "mean", "p50", "p99",
					   "launch", "queue"};
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		report_cell(f, cols[c], kernel_cols[c], 1);
	fputc('\n', f);
	for (uint32_t i = 0; i < n; i++)
		kernel_rows(f, a, i);
	if (a->m->has_queued)
		fprintf(f, "  launch: queued - API call start (p50); queue: start - queued (p50); "
			   "- = not in the trace\n");
	else
		fprintf(f, "  launch: start - API call start (p50; no queued times in the trace: it "
			   "includes\n  the wait behind earlier work); - = not in the trace\n");
}

/* ---------------------------------------------------------------- 5. findings */

static void evidence_line(FILE *f, const struct kg_analysis *a, const struct kg_evidence *e,
			  const char *label)
{
	const struct kg_model *m = a->m;
	char line[1024] = "", s[32], t[32], st[128];
	if (e->start != KG_NO_TIME && e->end != KG_NO_TIME && e->end != e->start)
		snprintf(line, sizeof(line), "%.3f–%s  ", (double)kg_time_diff(e->start, m->begin) / 1e6,
			 fmt_rel_ms(m, e->end, t));
	else if (e->start != KG_NO_TIME)
		snprintf(line, sizeof(line), "at %s  ", fmt_rel_ms(m, e->start, s));
	if (e->stream != KG_NONE)
		appendf(line, sizeof(line), "%s: ", stream_label(m, e->stream, st, sizeof(st)));
	appendf(line, sizeof(line), "%s", e->text);
	wrap(f, 3, label, line);
}

/* "#1 [critical] rule: title", the title wrapping under itself. */
static void finding_title(FILE *f, const struct kg_finding *fd, const struct kg_report_opts *o,
			  uint32_t rank)
{
	char head[48], line[1024], safe[1024];
	snprintf(head, sizeof(head), "#%" PRIu32 " [%s] ", rank, severity_name(fd->severity));
	fprintf(f, "#%" PRIu32 " ", rank);
	tone_on(f, o, severity_tone(fd->severity));
	fprintf(f, "[%s]", severity_name(fd->severity));
	tone_off(f, o, severity_tone(fd->severity));
	fputc(' ', f);
	snprintf(line, sizeof(line), "%s: %s", fd->rule ? fd->rule : "?", fd->title);
	wrap_text(f, text_columns(head), term_safe(line, safe, sizeof(safe)));
}

static void finding_gain(FILE *f, const struct kg_analysis *a, const struct kg_finding *fd)
{
	char line[1024], g[32];
	if (fd->gain_ns > 0)
		snprintf(line, sizeof(line), "%s (%.1f%% of the %sspan)%s%s",
			 fmt_duration(kg_i64_round(fd->gain_ns), g), fd->gain_pct,
			 a->steady_span != a->span ? "steady " : "", fd->gain_how[0] ? "; " : "",
			 fd->gain_how);
	else
		snprintf(line, sizeof(line), "%s",
			 fd->gain_how[0] ? fd->gain_how : "not estimated");
	wrap(f, 3, "gain", line);
}

/* "88% (12.3 ms)  train.py:27 in epoch → aten::item → cudaStreamSynchronize" per site. */
static void finding_sites(FILE *f, const struct kg_analysis *a, const struct kg_finding *fd,
			  int max)
{
	char line[600], g[32];
	double total = fd->sited_ns + fd->unsited_ns;
	if (!a->has_stacks || total <= 0 || max <= 0)
		return;
	int shown = 0;
	double rest = fd->sited_ns; /* what the sites not shown cause */
	for (int k = 0; k < fd->n_sites && k < max; k++) {
		const struct kg_site *s = &a->sites[fd->sites[k].site];
		rest -= fd->sites[k].ns;
		snprintf(line, sizeof(line), "%.0f%% (%s) at %s", 100.0 * fd->sites[k].ns / total,
			 fmt_duration(kg_i64_round(fd->sites[k].ns), g), s->label);
		wrap(f, 3, shown++ ? "" : "where", line);
	}
	if (rest > total * 0.005) {
		/* a finding keeps its largest KG_MAX_FINDING_SITES: past them, their count is not
		 * known here */
		if (fd->n_sites < KG_MAX_FINDING_SITES)
			snprintf(line, sizeof(line), "%.0f%% (%s) at %d other sites",
				 100.0 * rest / total, fmt_duration(kg_i64_round(rest), g),
				 fd->n_sites - max);
		else
			snprintf(line, sizeof(line), "%.0f%% (%s) at other sites (kgantt report --sites)",
				 100.0 * rest / total, fmt_duration(kg_i64_round(rest), g));
		wrap(f, 3, shown++ ? "" : "where", line);
	}
	if (fd->unsited_ns > total * 0.005) {
		snprintf(line, sizeof(line), "%.0f%% (%s) from calls recorded without a stack",
			 100.0 * fd->unsited_ns / total,
			 fmt_duration(kg_i64_round(fd->unsited_ns), g));
		wrap(f, 3, shown++ ? "" : "where", line);
	}
}

static void finding_block(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o,
			  uint32_t i)
{
	const struct kg_model *m = a->m;
	const struct kg_finding *fd = &a->findings[i];
	char line[256], s[32], e[32];
	fputc('\n', f);
	finding_title(f, fd, o, i + 1);
	finding_gain(f, a, fd);
	if (fd->start != KG_NO_TIME && fd->end != KG_NO_TIME) {
		snprintf(line, sizeof(line), "%s to %s", fmt_rel_ms(m, fd->start, s),
			 fmt_rel_ms(m, fd->end, e));
		if (fd->gpu != KG_NONE)
			appendf(line, sizeof(line), " on GPU %" PRIu32, fd->gpu);
		wrap(f, 3, "when", line);
	}
	finding_sites(f, a, fd, o->finding_sites);
	for (int k = 0; k < fd->n_evidence && k < KG_MAX_EVIDENCE; k++)
		evidence_line(f, a, &fd->evidence[k], k ? "" : "evidence");
	if (fd->explanation[0])
		wrap(f, 3, "why", fd->explanation);
	if (fd->fix[0])
		wrap(f, 3, "fix", fd->fix);
	if (fd->figures[0])
		wrap(f, 3, "figures", fd->figures);
}

void report_text_findings(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	uint32_t by[3] = {0, 0, 0};
	for (uint32_t i = 0; i < a->n_findings; i++)
		by[a->findings[i].severity <= KG_SEV_CRITICAL ? a->findings[i].severity : 0]++;
	if (!a->n_findings) {
		heading(f, o, "Findings");
		fprintf(f, "  no scheduling problem found above the thresholds (see "
			   "--list-thresholds)\n");
		return;
	}
	heading(f, o, "Findings, ranked by estimated gain (%" PRIu32 " critical, %" PRIu32
		" warning, %" PRIu32 " info)", by[KG_SEV_CRITICAL], by[KG_SEV_WARNING],
		by[KG_SEV_INFO]);
	for (uint32_t i = 0; i < a->n_findings; i++)
		finding_block(f, a, o, i);
	fprintf(f, "\n  gains overlap: fixing one problem can shrink another's; they do not add "
		   "up.\n");
}

/* One line: the head and the gain are kept whole, the title gets what is left. */
static void brief_line(FILE *f, const struct kg_finding *fd, uint32_t rank, size_t width)
{
	char head[128], gain[64] = "", g[32], title[sizeof(fd->title) * 2];
	snprintf(head, sizeof(head), "  #%" PRIu32 " [%s] %s: ", rank, severity_name(fd->severity),
		 fd->rule ? fd->rule : "?");
	if (fd->gain_ns > 0)
		snprintf(gain, sizeof(gain), "  %s (%.1f%%)", fmt_duration(kg_i64_round(fd->gain_ns), g),
			 fd->gain_pct);
	size_t used = text_columns(head) + text_columns(gain);
	term_safe(fd->title, title, sizeof(title));
	cut_to(title, sizeof(title), width > used + 12 ? width - used : 12);
	fprintf(f, "%s%s%s\n", head, title, gain);
}

void report_text_brief(FILE *f, const struct kg_analysis *a, uint32_t max, size_t width)
{
	for (uint32_t i = 0; i < a->n_findings && i < max; i++)
		brief_line(f, &a->findings[i], i + 1, width);
}

/* ---------------------------------------------------------------- 6. call sites */

void report_text_sites(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	char g[32], p[16], n[16];
	if (o->sites <= 0)
		return;
	heading(f, o, "Call sites, ranked by the gain of the findings they cause");
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
		report_cell(f, n, 4, 0);
		report_cell(f, fmt_duration(kg_i64_round(s->ns), g), 11, 1);
		report_cell(f, fmt_pct(s->ns, (double)a->steady_span, p), 8, 1);
		snprintf(n, sizeof(n), "%" PRIu32, s->findings);
		report_cell(f, n, 9, 1);
		fputs("  ", f);
		report_wrap(f, 38, s->label);
	}
	fprintf(f, "  gain: the part of each finding's estimated gain caused by calls from the "
		   "site, summed;\n  span: its share of the trace's %sspan, as the findings' shares\n",
		a->steady_span != a->span ? "steady " : "");
}

int report_text(FILE *f, const struct kg_analysis *a, const struct kg_report_opts *o)
{
	report_text_header(f, a, o);
	report_text_gpus(f, a, o);
	report_text_streams(f, a, o);
	report_text_kernels(f, a, o);
	report_text_findings(f, a, o);
	report_text_sites(f, a, o);
	return ferror(f) ? -EIO : 0;
}
