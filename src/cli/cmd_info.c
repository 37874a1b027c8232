/* kgantt info: what a trace holds, at a glance: where it came from, its span, its processes
 * and devices, how many records of each kind, and what was lost. Every format is loaded as
 * the other commands load it, for its span and, of a PyTorch profiler or Nsight Systems
 * trace, what the model holds; of a kgantt trace, the file's own facts come from the
 * trace store (trace/store.h). */
#include <getopt.h> /* optind */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/session.h"
#include "model/load.h"
#include "trace/packed.h"
#include "trace/store.h"
#include "text/names.h"
#include "trace/uncompress.h"
#include "util/format.h"
#include "util/hw_figures.h"
#include "util/kinds.h"
#include "util/timemath.h"

static int read_failed;

/* A damaged trace shows up as a failing read: say so once, and fail at the end. */
static void store_failed(struct kg_store *s)
{
	if (!read_failed++)
		kg_err("%s", store_error(s));
}

/* The read's rows, one at a time (*it NULL at first, done after the last): a read that
 * fails is said once and gives no rows. */
static int next_row(struct kg_store *s, enum kg_read what, struct kg_store_rows **it)
{
	int rc = *it ? 0 : store_read(s, what, it), got = rc ? rc : store_next(*it, NULL);
	if (got < 0)
		store_failed(s);
	if (got != 1) {
		store_done(*it);
		*it = NULL;
	}
	return got == 1;
}

static const char *col_text(const struct kg_store_rows *it, int i)
{
	const char *t = store_text(it, i);
	return t ? t : "-";
}

/* The one integer a read gives. */
static long long read_int(struct kg_store *s, enum kg_read what)
{
	struct kg_store_rows *it = NULL;
	long long v = next_row(s, what, &it) ? store_int(it, 0) : 0;
	store_done(it);
	return v;
}

static long long count_of(struct kg_store *s, const char *table)
{
	int64_t n = 0;
	if (store_count(s, table, &n) < 0)
		store_failed(s);
	return n;
}

/* ------------------------------------------------------------------ the kernels */

/* The kernels of each process the model holds, by its index: the reader adds the
 * processes in the order of their numbers, as KG_READ_INFO_PROCESSES lists them, so the
 * i-th row is m->processes[i]. Counted from the model, not from the file again: a second
 * pass over ten million packed rows took half of info's time. NULL when out of memory. */
static uint64_t *kernels_by_process(const struct kg_model *m)
{
	uint64_t *count = calloc((size_t)m->n_processes + 1, sizeof(*count));
	for (uint32_t i = 0; count && i < m->n_ops; i++) {
		const struct kg_op *o = &m->ops[i];
		uint32_t p = o->stream < m->n_streams ? m->streams[o->stream].process : KG_NONE;
		if (o->kind == KG_OP_KERNEL && p < m->n_processes)
			count[p]++;
	}
	return count;
}

static uint64_t untrue_kernels(const struct kg_model *m)
{
	uint64_t n = 0;
	for (int why = 0; why < KG_UNTRUE_WHYS; why++)
		n += m->untrue[KG_UNTRUE_KERNEL][why];
	return n;
}

/* ------------------------------------------------------------------ the rest */

static void print_processes(struct kg_store *s, const struct kg_model *m)
{
	struct kg_store_rows *st = NULL;
	uint64_t *kernels = kernels_by_process(m);
	uint32_t row = 0;
	printf("processes:\n");
	while (next_row(s, KG_READ_INFO_PROCESSES, &st)) {
		unsigned long long n = kernels && row < m->n_processes ? kernels[row] : 0;
		row++;
		printf("  #%lld pid %lld (parent %lld) on %s%s%s: %s mode, %llu kernels, %.1f ms, %s, "
		       "exit: %s\n",
		       (long long)store_int(st, 0), (long long)store_int(st, 1),
		       (long long)store_int(st, 2), col_text(st, 3),
		       store_null(st, 4) ? "" : ", rank ", store_null(st, 4) ? "" : col_text(st, 4),
		       col_text(st, 5), n, store_real(st, 10),
		       store_int(st, 6) ? "complete" : "INCOMPLETE", col_text(st, 7));
		printf("     %s\n", col_text(st, 11));
		if (store_int(st, 8))
			printf("     dropped records: %lld\n", (long long)store_int(st, 8));
		if (store_int(st, 9))
			printf("     records with a missing timestamp: %lld\n",
			       (long long)store_int(st, 9));
		if (!store_null(st, 12))
			printf("     note: %s\n", col_text(st, 12));
	}
	free(kernels);
	if (untrue_kernels(m))
		printf("  kernels left out, their times cannot be true: %llu\n",
		       (unsigned long long)untrue_kernels(m));
	while (next_row(s, KG_READ_INFO_MESSAGES, &st))
		printf("  pid %lld %s: %s\n", (long long)store_int(st, 1), col_text(st, 2),
		       col_text(st, 3));
}

/* How the stacks were taken and what they hold; nothing for a trace without them. */
static void print_stacks(struct kg_store *s)
{
	struct kg_store_rows *st = NULL;
	if (!store_has_table(s, "stack_settings") || !next_row(s, KG_READ_INFO_STACKS, &st))
		return; /* a trace older than format 3 */
	char a[32], b[32], c[32], d[32];
	printf("stacks: --stacks %s (launches: first %lld of each kernel, then 1 in %lld; "
	       "%lld native frames at most); %s calls with a stack, %s distinct stacks, "
	       "%s frames, %s partial\n",
	       col_text(st, 0), (long long)store_int(st, 1), (long long)store_int(st, 2),
	       (long long)store_int(st, 3),
	       fmt_count((unsigned long long)count_of(s, "api_stacks"), a),
	       fmt_count((unsigned long long)count_of(s, "stacks"), b),
	       fmt_count((unsigned long long)count_of(s, "stack_frames"), c),
	       fmt_count((unsigned long long)read_int(s, KG_READ_INFO_PARTIAL), d));
	printf("  python: %s\n", col_text(st, 4));
	store_done(st);
}

/* Full mode's kernel launch calls: sampled in windows, or every one, and why. */
static void print_launches(struct kg_store *s)
{
	struct kg_store_rows *st = NULL;
	if (!store_has_table(s, "launch_settings") || !next_row(s, KG_READ_LAUNCH_SETTINGS, &st))
		return; /* kernels mode, or a trace from before issue 26: every launch */
	const char *how = store_null(st, 4) ? "" : col_text(st, 4); /* older traces: none */
	if (!strcmp(col_text(st, 1), "sampled"))
		printf("launch calls: sampled%s%s, %lld ms in every %lld ms once no new kernel "
		       "appears%s (the other kernels dated by their queued time)\n",
		       *how ? " by " : "", how, (long long)store_int(st, 2),
		       (long long)store_int(st, 3),
		       !strcmp(how, KG_LAUNCHES_BY_HOOK) ? ", and each kernel's first launch" : "");
	else
		printf("launch calls: every one (%s)\n", col_text(st, 4));
	store_done(st);
}

static void print_devices(struct kg_store *s)
{
	struct kg_store_rows *st = NULL;
	printf("devices:\n");
	while (next_row(s, KG_READ_INFO_DEVICES, &st))
		printf("  %lld: %s, %d SMs, cc %d.%d, %.0f GiB, GPU-%s\n", (long long)store_int(st, 0),
		       col_text(st, 1), (int)store_int(st, 4), (int)store_int(st, 2),
		       (int)store_int(st, 3), store_real(st, 5), col_text(st, 6));
}

/* The figures device (process, device) has samples of, by label: ", SM active, ...". */
static void hw_figures_taken(struct kg_store *s, long long process, long long device, char *out,
			     size_t len)
{
	struct kg_store_rows *st = NULL;
	out[0] = '\0';
	if (store_read(s, KG_READ_INFO_HW_FIGURES, &st) < 0) {
		store_failed(s);
		return;
	}
	store_read_bind(st, 1, process);
	store_read_bind(st, 2, device);
	size_t k = 0;
	if (next_row(s, KG_READ_INFO_HW_FIGURES, &st))
		for (int f = 0; f < KG_HW_N; f++)
			if (store_int(st, 1 + f) > 0 && k < len)
				k += (size_t)snprintf(out + k, len - k, ", %s", kg_hw_figure_info[f].label);
	store_done(st);
}

/* "every 100 µs" */
static const char *interval_text(long long ns, char buf[32])
{
	if (ns <= 0)
		snprintf(buf, 32, "interval unknown");
	else if (ns < 1000)
		snprintf(buf, 32, "every %lld ns", ns);
	else if (ns < 1000000)
		snprintf(buf, 32, "every %g µs", ns / 1e3);
	else
		snprintf(buf, 32, "every %g ms", ns / 1e6);
	return buf;
}

/* A line per device that sampled its hardware counters (record --hw), or why it did not;
 * nothing for a trace without the tables. */
static void print_hw(struct kg_store *s)
{
	if (!store_has_table(s, "hw_devices"))
		return;
	struct kg_store_rows *st = NULL;
	int many = read_int(s, KG_READ_INFO_HW_PROCESSES) > 1;
	while (next_row(s, KG_READ_INFO_HW, &st)) {
		char who[64], chip[96] = "", iv[32], n[32], figs[512];
		long long p = store_int(st, 0), d = store_int(st, 1);
		const char *state = col_text(st, 3);
		if (many) /* devices are numbered per process */
			snprintf(who, sizeof(who), "pid %lld device %lld", (long long)store_int(st, 8), d);
		else
			snprintf(who, sizeof(who), "device %lld", d);
		if (!strcmp(state, "refused")) {
			printf("hardware samples: %s refused: %s\n", who, col_text(st, 4));
			continue;
		}
		if (!store_null(st, 2))
			snprintf(chip, sizeof(chip), " (%s)", col_text(st, 2));
		hw_figures_taken(s, p, d, figs, sizeof(figs));
		long long samples = store_int(st, 7);
		printf("hardware samples: %s%s %s: %s sample%s%s (lost %lld)", who, chip,
		       interval_text(store_int(st, 5), iv), fmt_count((unsigned long long)samples, n),
		       samples == 1 ? "" : "s", figs, (long long)store_int(st, 6));
		if (strcmp(state, "sampled"))
			printf("; %s: %s", state, col_text(st, 4));
		printf("\n");
	}
}

/* SM placement (record --sm): a line per process and device that logged blocks; nothing
 * for a trace without the table. */
static void print_sm(struct kg_store *s)
{
	struct kg_store_rows *st = NULL;
	if (!store_has_rows(s, "sm_settings"))
		return;
	while (next_row(s, KG_READ_INFO_SM, &st)) {
		char b[32], k[32], d[32], u[32], align[96] = "clock not aligned (no kernel start)";
		if (!store_null(st, 6))
			snprintf(align, sizeof(align), "block times ±%lld ns (offsets spread %lld ns)",
				 (long long)store_int(st, 6), (long long)store_int(st, 7));
		printf("SM placement: pid %lld device %lld: %s blocks of %s kernels on %lld SMs, %s "
		       "dropped (log full), %s matching no kernel, %s; %lld recorder records left "
		       "out\n",
		       (long long)store_int(st, 8), (long long)store_int(st, 0),
		       fmt_count((unsigned long long)store_int(st, 1), b),
		       fmt_count((unsigned long long)store_int(st, 2), k), (long long)store_int(st, 9),
		       fmt_count((unsigned long long)store_int(st, 3), d),
		       fmt_count((unsigned long long)store_int(st, 4), u), align,
		       (long long)store_int(st, 5));
	}
}

/* Host samples (record --host-samples): a line per process that sampled its threads, or
 * says why it could not; nothing for a trace without them. */
static void print_host(struct kg_store *s)
{
	struct kg_store_rows *st = NULL;
	if (!store_has_rows(s, "host_settings"))
		return;
	while (next_row(s, KG_READ_INFO_HOST, &st)) {
		char n[32], t[32], lost[200] = "";
		long long hz = store_int(st, 1), samples = store_int(st, 3);
		printf("host samples: pid %lld: ", (long long)store_int(st, 0));
		if (!hz) {
			printf("not taken: %s\n", col_text(st, 2));
			continue;
		}
		long long dropped = store_int(st, 6) + store_int(st, 7);
		if (store_int(st, 8))
			snprintf(lost, sizeof(lost), ", %lld without their stack",
				 (long long)store_int(st, 8));
		if (store_int(st, 9))
			snprintf(lost + strlen(lost), sizeof(lost) - strlen(lost),
				 ", threads unsampled %lld times (no room for them)",
				 (long long)store_int(st, 9));
		printf("%s sample%s at %lld Hz on %lld thread%s (%s by the signal handler), %lld lost%s; "
		       "signal %lld, native frames by %s; %s\n",
		       fmt_count((unsigned long long)samples, n), samples == 1 ? "" : "s", hz,
		       (long long)store_int(st, 4), store_int(st, 4) == 1 ? "" : "s",
		       fmt_count((unsigned long long)store_int(st, 5), t), dropped, lost,
		       (long long)store_int(st, 12), col_text(st, 10),
		       store_null(st, 11) ? "no Python" : col_text(st, 11));
		if (!store_null(st, 2))
			printf("  note: %s\n", col_text(st, 2));
	}
}

/* Which tables load from packed columns (trace/packed.h), and which from their rows. A
 * table newer than most traces is said only of those that hold it. */
static void print_packed(struct kg_store *s)
{
	int all = 1;
	printf("packed:");
	for (const struct kg_packed_table *t = kg_packed_tables; t->name; t++) {
		if (t->only_when_held && !store_has_rows(s, "host_settings"))
			continue;
		int usable = store_packed_usable(s, t->name);
		all &= usable;
		printf("%s %s %s", t == kg_packed_tables ? "" : ",", t->name, usable ? "yes" : "no");
	}
	printf("%s\n", store_packed_only(s) ? " (their only copy: 'kgantt export -f sqlite' writes "
					      "them as rows)"
		       : all ? ""
			     : " (kgantt pack makes them: a smaller file, faster loading)");
}

/* The span every command gives a trace: the model's, from its first to its last GPU
 * operation or API call, as report's header says it. */
static void print_span(const struct kg_model *m)
{
	printf("span: %.3f ms\n", (double)kg_time_span(m->end, m->begin) / 1e6);
}

/* The file, and how it was compressed (read from its decompressed copy). */
static void print_trace_path(const char *path)
{
	uint64_t packed, plain;
	const char *kind = uncompress_kind(path, &packed, &plain);
	char a[32], b[32];
	if (kind && plain)
		printf("trace: %s (%s, %s; %s decompressed)\n", path, kind, fmt_bytes(packed, a),
		       fmt_bytes(plain, b));
	else if (kind) /* streamed */
		printf("trace: %s (%s, %s)\n", path, kind, fmt_bytes(packed, a));
	else
		printf("trace: %s\n", path);
}

/* A kgantt trace: the file's own facts, from the store. */
static void describe_trace(struct kg_store *s, const struct kg_model *m)
{
	char buf[4096];
	print_trace_path(store_path(s));
	store_meta(s, "version", buf, sizeof(buf));
	printf("format: kgantt-trace version %s", buf);
	store_meta(s, "created_by", buf, sizeof(buf));
	printf(", written by %s", buf);
	store_meta(s, "created_at", buf, sizeof(buf));
	printf(" at %s\n", buf);
	store_meta(s, "command", buf, sizeof(buf));
	printf("command: %s\n", buf);
	print_span(m);
	print_processes(s, m);
	print_devices(s);
	print_hw(s);
	print_host(s);
	static const char *const tables[] = {"kernels", "memcpys", "memsets", "syncs", "api_calls",
					     "nvtx", "streams", "overheads"};
	printf("records:");
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		char n[32];
		printf(" %s %s%s", tables[i], fmt_count((unsigned long long)count_of(s, tables[i]), n),
		       i + 1 < sizeof(tables) / sizeof(tables[0]) ? "," : "\n");
	}
	print_packed(s);
	print_launches(s);
	print_stacks(s);
	print_sm(s);
}

/* ------------------------------------------------------------------ other formats */

static const char *text_or(const struct kg_model *m, uint32_t id, const char *none)
{
	return id ? model_text(m, id) : none;
}

/* What a PyTorch profiler trace's host events or an Nsight export's CPU samples give of
 * the host (analysis/host.c): the samples, on how many threads, how many with a stack
 * that stops short; the events' threads (the events are cut into pieces of time, a count
 * of which would say nothing). Nothing without them. */
static void print_host_spans(const struct kg_model *m)
{
	for (int src = KG_HOST_FROM_SAMPLES; src <= KG_HOST_FROM_EVENTS; src++) {
		uint64_t n = 0, partial = 0, threads = 0;
		uint32_t last = KG_NONE; /* the spans are in (thread, start) order */
		for (uint32_t i = 0; i < m->n_host_spans; i++) {
			const struct kg_host_span *h = &m->host_spans[i];
			if (h->source != src)
				continue;
			n++;
			partial += (h->flags & KG_HOST_PARTIAL) != 0;
			threads += h->thread != last;
			last = h->thread;
		}
		if (!n)
			continue;
		char a[32], b[32];
		if (src == KG_HOST_FROM_EVENTS) {
			printf("host: the profiler's host events (operators, Python functions) on "
			       "%llu thread%s\n", (unsigned long long)threads, threads == 1 ? "" : "s");
			continue;
		}
		printf("host: %s CPU samples on %llu thread%s", fmt_count(n, a),
		       (unsigned long long)threads, threads == 1 ? "" : "s");
		if (partial)
			printf(", %s with a partial stack", fmt_count(partial, b));
		printf("\n");
	}
}

/* A PyTorch profiler or Nsight Systems trace: what the model holds of it. */
static void describe_model(const struct kg_model *m, const char *path, enum kg_format f)
{
	unsigned long long ops[3] = {0};
	char a[32], b[32], c[32], d[32], e[32];
	print_trace_path(path);
	printf("format: %s\n", format_name(f));
	if (m->command)
		printf("command: %s\n", model_text(m, m->command));
	print_span(m);
	printf("processes:\n");
	for (uint32_t p = 0; p < m->n_processes; p++) {
		const struct kg_process *x = &m->processes[p];
		unsigned long long kernels = 0;
		for (uint32_t i = 0; i < m->n_ops; i++)
			kernels += m->ops[i].kind == KG_OP_KERNEL && m->streams[m->ops[i].stream].process == p;
		printf("  pid %u on %s: %llu kernels\n", x->pid, text_or(m, x->host, "-"), kernels);
		if (x->cmdline)
			printf("     %s\n", model_text(m, x->cmdline));
	}
	printf("devices:\n");
	for (uint32_t i = 0; i < m->n_devices; i++) {
		char what[512];
		printf("  %d: %s\n", m->devices[i].ordinal,
		       device_description(m, &m->devices[i], what, sizeof(what)));
	}
	for (uint32_t i = 0; i < m->n_ops; i++)
		ops[m->ops[i].kind < 3 ? m->ops[i].kind : 0]++;
	printf("records: kernels %s, memcpys %s, memsets %s, api_calls %s, ranges %s\n",
	       fmt_count(ops[KG_OP_KERNEL], a), fmt_count(ops[KG_OP_MEMCPY], b),
	       fmt_count(ops[KG_OP_MEMSET], c), fmt_count(m->n_apis, d), fmt_count(m->n_ranges, e));
	print_host_spans(m);
	for (int i = 0; i < m->n_notes; i++)
		printf("note: %s\n", m->notes[i]);
}

/* The trace the session loaded, as every command loads it (an empty one too): of a
 * PyTorch profiler or Nsight Systems trace what the model holds, of a kgantt trace the
 * file's own facts from the trace store. */
static int describe(struct cli_session *session, void *arg)
{
	const struct kg_model *m = &session->m;
	const char *path = session->path;
	char err[1024];
	struct kg_store *s = NULL;
	if (strcmp(m->source, "kgantt")) {
		describe_model(m, path, !strcmp(m->source, "kineto") ? KG_FORMAT_KINETO : KG_FORMAT_NSYS);
	} else if (store_open(path, &s, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		read_failed = 1;
	} else {
		describe_trace(s, m);
	}
	store_close(s);
	return KG_EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
	static const char *const usage_lines[] = {"info TRACE", NULL};
	static const struct cli_usage usage = {
		.usage = usage_lines,
		.about = "Says what a trace holds: where it came from, its span, its processes and\n"
			 "devices, how many records of each kind, and what was lost. Reads every\n"
			 "format the other commands read.\n",
	};
	const struct cli_option opts[] = {OPT_END()};
	int c = cli_parse(&usage, opts, argc, argv);
	if (c >= 0)
		return c;
	if (optind + 1 != argc)
		return cli_usage_error(optind == argc ? "no trace given" : "one trace at a time");
	struct cli_session session = {.no_analysis = 1, .describe_empty = 1, .no_progress = 1,
				      .load.any_span = 1};
	int rc = cli_session_paths(&session, 1, argv + optind);
	if (rc < 0)
		rc = cli_session_run(&session, &(const struct cli_show){.one = describe}, NULL);
	return rc != KG_EXIT_OK ? rc : finish_stdout(read_failed ? KG_EXIT_FAILURE : KG_EXIT_OK);
}
