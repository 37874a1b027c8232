/* kgantt record: its options; the run itself is record_session.c's. */
#include <errno.h>
#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/record_session.h"
#include "cli/shows.h"
#include "cli/window.h"

static const char *const usage_lines[] = {"record [options] -- PROGRAM [ARGS...]", NULL};

static const struct cli_usage usage = {
	.usage = usage_lines,
	.about = "Runs PROGRAM (any CUDA program: no rebuild, no root) with the kgantt recorder\n"
		 "injected into every process that uses CUDA, and writes one trace file.\n",
	.footer = "When the program ends and the trace is written, record prints the top findings\n"
		  "(at most 5, one line each: rank, severity, rule, what is wrong, the time its fix\n"
		  "saves) and the commands that show the rest. The trace is analysed once for the\n"
		  "summary, --report, --plot and --view.\n"
		  "\n"
		  "Exit status: PROGRAM's own (128+N if it was killed by signal N); 1 if nothing\n"
		  "could be recorded or the trace could not be written, or, when PROGRAM exited 0,\n"
		  "if the trace could not be analysed or --report/--plot/--view failed (CUPTI\n"
		  "refused the recorder, so there is nothing to show; a failed write); 2 on a bad\n"
		  "command line.\n",
	.stop_at_operand = 1, /* PROGRAM's own options are left alone */
};

/* --delay, --duration: seconds >= 0 (opt->value is the double). */
static int take_seconds(const struct cli_option *opt, const char *arg)
{
	char *end, name[64];
	errno = 0;
	double d = strtod(arg, &end);
	if (errno || *end || end == arg || !(d >= 0)) {
		kg_err("%s: '%s' is not a number of seconds >= 0", cli_option_name(opt, name), arg);
		return KG_EXIT_USAGE;
	}
	*(double *)opt->value = d;
	return -1;
}

/* One number of util/record_settings.h, checked against the range the recorder uses. */
static int take_setting(enum kg_record_setting id, const char *arg, int *out)
{
	const struct kg_record_setting_info *r = &kg_record_setting[id];
	char *end;
	errno = 0;
	long n = strtol(arg, &end, 10);
	if (errno || !*arg || *end || n < r->lo || n > r->hi) {
		kg_err("%s: '%s' is not a whole number from %ld to %ld", r->option, arg, r->lo, r->hi);
		return KG_EXIT_USAGE;
	}
	*out = (int)n;
	return -1;
}

/* --stack-launches F:K, the launch sampling of --stacks waits (opt->value: the options). */
static int take_launches(const struct cli_option *opt, const char *s)
{
	struct record_opts *o = opt->value;
	char first[32];
	const char *colon = strchr(s, ':');
	int *f = &o->setting[KG_RS_STACK_FIRST], *k = &o->setting[KG_RS_STACK_EVERY];
	if (!colon || (size_t)(colon - s) >= sizeof(first)) {
		kg_err("--stack-launches: expected FIRST:EVERY (e.g. 8:64), not '%s'", s);
		return KG_EXIT_USAGE;
	}
	memcpy(first, s, (size_t)(colon - s));
	first[colon - s] = '\0';
	if (take_setting(KG_RS_STACK_FIRST, first, f) >= 0 ||
	    take_setting(KG_RS_STACK_EVERY, colon + 1, k) >= 0)
		return KG_EXIT_USAGE;
	if (*k == 0 && *f != 0) {
		kg_err("--stack-launches: EVERY 0 only as 0:0 (no launch stacks), not '%s'", s);
		return KG_EXIT_USAGE;
	}
	return -1;
}

/* --hw or --hw=INTERVAL (120us, 1ms; a bare number is ms as everywhere else). */
static int take_hw(const struct cli_option *opt, const char *arg)
{
	const struct kg_record_setting_info *r = &kg_record_setting[KG_RS_HW_NS];
	int64_t ns = KG_HW_DEFAULT_NS;
	if (arg && (window_parse_time(arg, &ns) < 0 || ns < r->lo || ns > r->hi)) {
		kg_err("--hw: '%s' is not an interval from 10us to 1s (e.g. --hw=100us)", arg);
		return KG_EXIT_USAGE;
	}
	*(int *)opt->value = (int)ns;
	return -1;
}

/* --host-samples, --host-samples=HZ or --host-samples=off. */
static int take_host(const struct cli_option *opt, const char *arg)
{
	const struct kg_record_setting_info *r = &kg_record_setting[KG_RS_HOST_HZ];
	char *end;
	long hz = KG_HOST_DEFAULT_HZ;
	if (arg && !strcmp(arg, "off"))
		hz = 0;
	else if (arg && ((errno = 0), hz = strtol(arg, &end, 10), errno || !*arg || *end ||
			 hz < 1 || hz > r->hi)) {
		kg_err("--host-samples: '%s' is not a rate from 1 to %ld samples a second, or off",
		       arg, r->hi);
		return KG_EXIT_USAGE;
	}
	*(int *)opt->value = (int)hz;
	return -1;
}

/* --plot CHART: its format is checked now, not after a long run. */
static int take_plot(const struct cli_option *opt, const char *arg)
{
	if (plot_check_output(arg) < 0)
		return KG_EXIT_USAGE;
	*(const char **)opt->value = arg;
	return -1;
}

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#define HOST_HELP                                                                          \
	"sample what the program's threads are doing, HZ times a second each (alone: "      \
	STRINGIFY(KG_HOST_DEFAULT_HZ) "; at most 10000): their stacks, native and Python, " \
	"and whether on CPU, asleep or waiting for the GIL; docs/host-samples.md"

#define SETTING(l, id, a, h)                                                               \
	{.type = CLI_OPT_INT, .long_name = (l), .value = &o.setting[id], .argh = (a),       \
	 .lo = kg_record_setting[id].lo, .hi = kg_record_setting[id].hi, .help = (h)}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {.output = "kgantt.kgt", .mode = RECORD_FULL, .latency = -1,
				.capture_range = 1, .stacks = 1};
	for (int id = 0; id < KG_RS_COUNT; id++)
		o.setting[id] = (int)kg_record_setting[id].def;
	o.setting[KG_RS_HOST_HZ] = -1; /* unasked: as the mode says, below */
	const struct cli_option opts[] = {
		OPT_STRING('o', "output", &o.output, "FILE",
			   "trace file (default kgantt.kgt). %p = pid of record, %h = host name, "
			   "%q{VAR} = value of environment VAR (e.g. run_%h_%q{RANK}.kgt for one "
			   "file per rank)"),
		OPT_BOOL(0, "force", &o.force,
			 "discard a leftover FILE.spool directory (FILE itself is always replaced, "
			 "when the new trace is complete)"),
		OPT_CHOICE(0, "mode", &o.mode, "MODE", record_modes, "a mode",
			   "full (default): kernels with the host's queue times, copies, memsets, "
			   "syncs, runtime+driver API calls (kernel launches' sampled), NVTX, "
			   "CUPTI overhead; kernels: kernels only, lowest overhead"),
		OPT_BOOL(0, "all-launches", &o.all_launches,
			 "full mode: an API call record (and stack) for every kernel launch; by "
			 "default launches are recorded while new kernels appear, then 10 ms in "
			 "every 100 ms, and each kernel's queued time says when the host issued it"),
		OPT_CHOICE(0, "launch-hook", &o.launch_hook, "on|off", record_on_off, "on or off",
			   "full mode: take the sampled launch calls from kgantt's launch hook, "
			   "preloaded into the program (LD_PRELOAD), instead of CUPTI's launch "
			   "callbacks (default on; off if the program does not bear a preloaded "
			   "dlsym, or for a setuid program)"),
		OPT_BOOL(0, "all-api", &o.all_api,
			 "full mode: record trivial API queries too (cudaGetDevice, "
			 "cudaGetLastError, cuCtxGetCurrent..., which PyTorch makes ~10 times per "
			 "kernel); left out by default, and the trace says which"),
		OPT_CHOICE(0, "stacks", &o.stacks, "MODE", record_stacks, "a stacks mode",
			   "full mode: where the program made its calls (native and Python "
			   "frames): waits (default: synchronising calls, copies, memsets, "
			   "allocations, and launches sampled), all (every recorded call), off"),
		OPT_CALLBACK(0, "stack-launches", &o, "F:K", take_launches,
			     "waits mode: the first F launches of each place (a kernel and the one "
			     "launched before it) get a stack, then 1 in K (default 8:64); 0:0 none. "
			     "Once no new kernel appears, launches are looked at 10 ms in every 100 ms"),
		SETTING("stack-depth", KG_RS_STACK_DEPTH, "N",
			"native frames kept per stack (default 64, at most 128)"),
		{.type = CLI_OPT_CALLBACK, .long_name = "hw", .value = &o.setting[KG_RS_HW_NS],
		 .argh = "INTERVAL", .flags = CLI_OPT_OPTARG, .fn = take_hw,
		 .help = "sample the GPU's own counters every INTERVAL (default 100us; 10us to "
			 "1s): SM active, achieved occupancy, tensor pipes, DRAM, PCIe and NVLink "
			 "throughput, SM clock. Needs GPU counters to be permitted; if not, the "
			 "trace says why and the rest is recorded"},
		{.type = CLI_OPT_CALLBACK, .long_name = "host-samples",
		 .value = &o.setting[KG_RS_HOST_HZ], .argh = "HZ|off", .flags = CLI_OPT_OPTARG,
		 .fn = take_host,
		 .help = KG_HOST_HZ_UNASKED ? HOST_HELP " (default: " STRINGIFY(KG_HOST_HZ_UNASKED)
					      " Hz in full mode, off in kernels mode; off: none)"
					    : HOST_HELP " (default: off)"},
		OPT_BOOL(0, "sm", &o.sm,
			 "full mode: which SM ran each block, and when, for kernels built with "
			 "include/kgantt/sm.h's KGANTT_SM_BLOCK_BEGIN()/END() (kgantt plot --sm)"),
		OPT_CHOICE(0, "latency", &o.latency, "on|off", record_on_off, "on or off",
			   "queued/submitted timestamps of each kernel (default: on in full mode, "
			   "off in kernels mode; CUPTI keeps ~80 bytes per kernel in the program "
			   "while on: off for runs of many millions of kernels; full mode then "
			   "records every launch's call, as with --all-launches)"),
		OPT_CALLBACK(0, "delay", &o.delay, "SEC", take_seconds,
			     "start recording SEC seconds after the program starts"),
		OPT_CALLBACK(0, "duration", &o.duration, "SEC", take_seconds,
			     "stop recording SEC seconds after it started (the program runs on "
			     "untraced)"),
		OPT_CHOICE(0, "capture-range", &o.capture_range, "R", record_ranges,
			   "a capture range",
			   "cudaProfilerApi: record only between cudaProfilerStart() and "
			   "cudaProfilerStop()"),
		SETTING("buffer-size", KG_RS_BUFFER_MB, "MB",
			"size of each CUPTI activity buffer (default 8)"),
		SETTING("buffers", KG_RS_BUFFERS, "N",
			"buffers allocated ahead in each process (default 8)"),
		SETTING("flush-ms", KG_RS_FLUSH_MS, "MS",
			"how often completed records leave the program (default 500)"),
		OPT_STRING(0, "rank-env", &o.rank_env, "VAR",
			   "environment variable holding the rank of a process (default: RANK, "
			   "OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, first found)"),
		OPT_BOOL(0, "keep-spool", &o.keep_spool,
			 "keep FILE.spool/, the raw per-process records"),
		OPT_BOOL(0, "report", &o.report,
			 "once the trace is written, print the whole report ('kgantt report FILE') "
			 "on standard output"),
		OPT_COLOR(&o.color),
		OPT_CALLBACK(0, "plot", &o.plot, "CHART", take_plot,
			     "once it is written, draw the Gantt chart ('kgantt plot'): CHART ends "
			     "in .png, .svg or .pdf"),
		OPT_STRING(0, "view", &o.view, "PAGE",
			   "once it is written, write the interactive HTML timeline ('kgantt "
			   "view'), e.g. --view run.html"),
		OPT_BOOL('q', "quiet", &o.quiet,
			 "print nothing but errors (and, without --report, --plot or --view, "
			 "analyse nothing)"),
		{.type = CLI_OPT_STRING, .long_name = "summarize-only", .value = &o.summarize_only,
		 .argh = "TRACE", .flags = CLI_OPT_HIDDEN},
		OPT_END(),
	};
	int rc = cli_parse(&usage, opts, argc, argv);
	if (rc >= 0)
		return rc;
	if (o.sm && o.mode == RECORD_KERNELS) {
		kg_err("--sm needs --mode full (it reads the block logs at synchronising calls)");
		return KG_EXIT_USAGE;
	}
	if (o.setting[KG_RS_HOST_HZ] < 0)
		o.setting[KG_RS_HOST_HZ] = o.mode == RECORD_FULL ? KG_HOST_HZ_UNASKED : 0;
	if (o.summarize_only && optind < argc) {
		kg_err("--summarize-only TRACE runs no program");
		return KG_EXIT_USAGE;
	}
	if (!o.summarize_only && optind >= argc)
		return cli_usage_error("no program to run");
	return record_run(&o, argv + optind);
}
