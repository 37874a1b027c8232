/* kgantt record: run a program with the recorder injected, then gather every process's
 * spool into one trace file.
 *
 * The settings reach the recorder through the environment (as uftrace's record does for
 * libmcount): CUDA_INJECTION64_PATH makes the CUDA driver load libkgantt-inject.so in
 * every process that initialises CUDA, children and grandchildren included, because they
 * inherit the environment; KGANTT_* carry the options. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/clock.h"
#include "util/record_settings.h"
#include "cli/record_summary.h"
#include "cli/shows.h"
#include "cli/window.h"
#include "trace/spool_import.h"
#include "util/outfile.h"
#include "util/pathfmt.h"

struct record_opts {
	const char *output;
	const char *mode;
	const char *latency;
	const char *capture_range;
	const char *rank_env;
	double delay, duration;
	long buffer_mb, buffers, flush_ms;
	const char *stacks;
	long stack_first, stack_every, stack_depth;
	int64_t hw_ns; /* --hw: PM sampling interval, 0 off */
	int force, keep_spool, quiet, all_api;
	int sm; /* --sm: read the SM block logs of include/kgantt/sm.h */
	int report;           /* --report: the text report once the trace exists */
	const char *plot;     /* --plot FILE: the chart, likewise */
	const char *view;     /* --view FILE: the HTML page, likewise */
	/* --summarize-only TRACE (not in --help): run no program, only what record does
	 * after writing a trace, on TRACE; the tests reach that part without a GPU */
	const char *summarize_only;
};

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: kgantt record [options] -- PROGRAM [ARGS...]\n"
		"\n"
		"Runs PROGRAM (any CUDA program: no rebuild, no root) with the kgantt recorder\n"
		"injected into every process that uses CUDA, and writes one trace file.\n"
		"\n"
		"options:\n"
		"  -o, --output FILE        trace file (default kgantt.kgt). %%p = pid of record,\n"
		"                           %%h = host name, %%q{VAR} = value of environment VAR\n"
		"                           (e.g. run_%%h_%%q{RANK}.kgt for one file per rank)\n"
		"      --force              discard a leftover FILE.spool directory (FILE itself\n"
		"                           is always replaced, when the new trace is complete)\n"
		"      --mode MODE          full (default): kernels, copies, memsets, syncs,\n"
		"                           runtime+driver API calls, NVTX, CUPTI overhead;\n"
		"                           kernels: kernels only, lowest overhead\n"
		"      --all-api            full mode: record trivial API queries too\n"
		"                           (cudaGetDevice, cudaGetLastError, cuCtxGetCurrent...,\n"
		"                           which PyTorch makes ~10 times per kernel); left out\n"
		"                           by default, and the trace says which\n"
		"      --stacks MODE        full mode: where the program made its calls (native\n"
		"                           and Python frames): waits (default: synchronising\n"
		"                           calls, copies, memsets, allocations, and launches\n"
		"                           sampled), all (every recorded call), off\n"
		"      --stack-launches F:K waits mode: the first F launches of each kernel get a\n"
		"                           stack, then 1 in K (default 8:64); 0:0 none. Once\n"
		"                           no new kernel appears, launches are looked at 10 ms\n"
		"                           in every 100 ms\n"
		"      --stack-depth N      native frames kept per stack (default 64, at most 128)\n"
		"      --hw[=INTERVAL]      sample the GPU's own counters every INTERVAL (default\n"
		"                           100us; 10us to 1s): SM active, achieved occupancy,\n"
		"                           tensor pipes, DRAM, PCIe and NVLink throughput, SM\n"
		"                           clock. Needs GPU counters to be permitted; if not,\n"
		"                           the trace says why and the rest is recorded\n"
		"      --sm                 full mode: which SM ran each block, and when, for\n"
		"                           kernels built with include/kgantt/sm.h's\n"
		"                           KGANTT_SM_BLOCK_BEGIN()/END() (kgantt plot --sm)\n"
		"      --latency on|off     queued/submitted timestamps of each kernel (default:\n"
		"                           on in full mode, off in kernels mode; CUPTI keeps\n"
		"                           ~80 bytes per kernel in the program while on: off\n"
		"                           for runs of many millions of kernels)\n"
		"      --delay SEC          start recording SEC seconds after the program starts\n"
		"      --duration SEC       stop recording SEC seconds after it started (the\n"
		"                           program runs on untraced)\n"
		"      --capture-range R    cudaProfilerApi: record only between\n"
		"                           cudaProfilerStart() and cudaProfilerStop()\n"
		"      --buffer-size MB     size of each CUPTI activity buffer (default 8)\n"
		"      --buffers N          buffers allocated ahead in each process (default 8)\n"
		"      --flush-ms MS        how often completed records leave the program\n"
		"                           (default 500)\n"
		"      --rank-env VAR       environment variable holding the rank of a process\n"
		"                           (default: RANK, OMPI_COMM_WORLD_RANK, PMI_RANK,\n"
		"                           SLURM_PROCID, first found)\n"
		"      --keep-spool         keep FILE.spool/, the raw per-process records\n"
		"      --report             once the trace is written, print the whole report\n"
		"                           ('kgantt report FILE') on standard output\n"
		"      --plot CHART         once it is written, draw the Gantt chart ('kgantt\n"
		"                           plot'): CHART ends in .png, .svg or .pdf\n"
		"      --view PAGE          once it is written, write the interactive HTML\n"
		"                           timeline ('kgantt view'), e.g. --view run.html\n"
		"  -q, --quiet              print nothing but errors (and, without --report,\n"
		"                           --plot or --view, analyse nothing)\n"
		"  -h, --help               this text\n"
		"\n"
		"When the program ends and the trace is written, record prints the top findings\n"
		"(at most 5, one line each: rank, severity, rule, what is wrong, the time its fix\n"
		"saves) and the commands that show the rest. The trace is analysed once for the\n"
		"summary, --report, --plot and --view.\n"
		"\n"
		"Exit status: PROGRAM's own (128+N if it was killed by signal N); 1 if nothing\n"
		"could be recorded or the trace could not be written, or, when PROGRAM exited 0,\n"
		"if the trace could not be analysed or --report/--plot/--view failed (CUPTI\n"
		"refused the recorder, so there is nothing to show; a failed write); 2 on a bad\n"
		"command line.\n");
}

static int parse_double(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (errno || *end || d < 0) {
		kg_err("%s: '%s' is not a number of seconds >= 0", opt, s);
		return -1;
	}
	*out = d;
	return 0;
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long n = strtol(s, &end, 10);
	if (errno || *end || n < lo || n > hi) {
		kg_err("%s: '%s' is not a whole number from %ld to %ld", opt, s, lo, hi);
		return -1;
	}
	*out = n;
	return 0;
}

/* An option of util/record_settings.h, checked against the range the recorder uses. */
static int take_setting(enum kg_record_setting id, const char *arg, long *out)
{
	const struct kg_record_setting_info *r = &kg_record_setting[id];
	return parse_long(r->option, arg, r->lo, r->hi, out);
}

enum {
	OPT_MODE = 256, OPT_FORCE, OPT_LATENCY, OPT_DELAY, OPT_DURATION, OPT_RANGE, OPT_BUFSIZE,
	OPT_BUFFERS, OPT_FLUSH, OPT_RANK, OPT_KEEP, OPT_ALL_API, OPT_STACKS, OPT_STACK_LAUNCHES,
	OPT_STACK_DEPTH, OPT_HW, OPT_SM, OPT_REPORT, OPT_PLOT, OPT_VIEW, OPT_SUMMARIZE_ONLY,
};


/* --hw or --hw=INTERVAL (120us, 1ms; a bare number is ms as everywhere else). */
static int parse_hw(const char *arg, int64_t *ns)
{
	if (!arg) {
		*ns = KG_HW_DEFAULT_NS;
		return 0;
	}
	const struct kg_record_setting_info *r = &kg_record_setting[KG_RS_HW_NS];
	if (window_parse_time(arg, ns) < 0 || *ns < r->lo || *ns > r->hi) {
		kg_err("--hw: '%s' is not an interval from 10us to 1s (e.g. --hw=100us)", arg);
		return -1;
	}
	return 0;
}

/* F:K, the launch sampling of --stacks waits. */
static int parse_launches(const char *s, struct record_opts *o)
{
	char first[32];
	const char *colon = strchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof(first)) {
		kg_err("--stack-launches: expected FIRST:EVERY (e.g. 8:64), not '%s'", s);
		return -1;
	}
	memcpy(first, s, (size_t)(colon - s));
	first[colon - s] = '\0';
	if (take_setting(KG_RS_STACK_FIRST, first, &o->stack_first) < 0 ||
	    take_setting(KG_RS_STACK_EVERY, colon + 1, &o->stack_every) < 0)
		return -1;
	if (o->stack_every == 0 && o->stack_first != 0) {
		kg_err("--stack-launches: EVERY 0 only as 0:0 (no launch stacks), not '%s'", s);
		return -1;
	}
	return 0;
}

static int parse_options(int argc, char **argv, struct record_opts *o, int *prog_index)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, OPT_FORCE},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{"mode", required_argument, NULL, OPT_MODE},
		{"latency", required_argument, NULL, OPT_LATENCY},
		{"delay", required_argument, NULL, OPT_DELAY},
		{"duration", required_argument, NULL, OPT_DURATION},
		{"capture-range", required_argument, NULL, OPT_RANGE},
		{"buffer-size", required_argument, NULL, OPT_BUFSIZE},
		{"buffers", required_argument, NULL, OPT_BUFFERS},
		{"flush-ms", required_argument, NULL, OPT_FLUSH},
		{"rank-env", required_argument, NULL, OPT_RANK},
		{"keep-spool", no_argument, NULL, OPT_KEEP},
		{"all-api", no_argument, NULL, OPT_ALL_API},
		{"stacks", required_argument, NULL, OPT_STACKS},
		{"stack-launches", required_argument, NULL, OPT_STACK_LAUNCHES},
		{"stack-depth", required_argument, NULL, OPT_STACK_DEPTH},
		{"hw", optional_argument, NULL, OPT_HW},
		{"sm", no_argument, NULL, OPT_SM},
		{"report", no_argument, NULL, OPT_REPORT},
		{"plot", required_argument, NULL, OPT_PLOT},
		{"view", required_argument, NULL, OPT_VIEW},
		{"summarize-only", required_argument, NULL, OPT_SUMMARIZE_ONLY},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	/* '+': stop at the program's name, so its own options are left alone. */
	while ((c = cli_getopt("record", argc, argv, "+o:qh", longopts)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case OPT_FORCE: o->force = 1; break;
		case 'q': o->quiet = 1; break;
		case 'h': record_usage(stdout); return 1;
		case OPT_MODE:
			if (strcmp(optarg, "full") && strcmp(optarg, "kernels")) {
				kg_err("--mode: '%s' is not a mode (expected full or kernels)", optarg);
				return -1;
			}
			o->mode = optarg;
			break;
		case OPT_LATENCY:
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				kg_err("--latency: expected on or off, not '%s'", optarg);
				return -1;
			}
			o->latency = optarg;
			break;
		case OPT_DELAY:
			if (parse_double("--delay", optarg, &o->delay) < 0)
				return -1;
			break;
		case OPT_DURATION:
			if (parse_double("--duration", optarg, &o->duration) < 0)
				return -1;
			break;
		case OPT_RANGE:
			if (strcmp(optarg, "cudaProfilerApi") && strcmp(optarg, "none")) {
				kg_err("--capture-range: expected cudaProfilerApi or none, not '%s'",
				       optarg);
				return -1;
			}
			o->capture_range = optarg;
			break;
		case OPT_BUFSIZE:
			if (take_setting(KG_RS_BUFFER_MB, optarg, &o->buffer_mb) < 0)
				return -1;
			break;
		case OPT_BUFFERS:
			if (take_setting(KG_RS_BUFFERS, optarg, &o->buffers) < 0)
				return -1;
			break;
		case OPT_FLUSH:
			if (take_setting(KG_RS_FLUSH_MS, optarg, &o->flush_ms) < 0)
				return -1;
			break;
		case OPT_RANK: o->rank_env = optarg; break;
		case OPT_KEEP: o->keep_spool = 1; break;
		case OPT_ALL_API: o->all_api = 1; break;
		case OPT_STACKS:
			if (strcmp(optarg, "off") && strcmp(optarg, "waits") && strcmp(optarg, "all")) {
				kg_err("--stacks: expected off, waits or all, not '%s'", optarg);
				return -1;
			}
			o->stacks = optarg;
			break;
		case OPT_STACK_LAUNCHES:
			if (parse_launches(optarg, o) < 0)
				return -1;
			break;
		case OPT_STACK_DEPTH:
			if (take_setting(KG_RS_STACK_DEPTH, optarg, &o->stack_depth) < 0)
				return -1;
			break;
		case OPT_HW:
			if (parse_hw(optarg, &o->hw_ns) < 0)
				return -1;
			break;
		case OPT_SM: o->sm = 1; break;
		case OPT_REPORT: o->report = 1; break;
		case OPT_PLOT:
			/* the chart's format is checked now, not after a long run */
			if (plot_check_output(optarg) < 0)
				return -1;
			o->plot = optarg;
			break;
		case OPT_VIEW: o->view = optarg; break;
		case OPT_SUMMARIZE_ONLY: o->summarize_only = optarg; break;
		default: return -1; /* cli_getopt said why */
		}
	}
	if (o->sm && !strcmp(o->mode, "kernels")) {
		kg_err("--sm needs --mode full (it reads the block logs at synchronising calls)");
		return -1;
	}
	if (o->summarize_only) {
		if (optind < argc) {
			kg_err("record: --summarize-only TRACE runs no program");
			return -1;
		}
		return 0;
	}
	if (optind >= argc) {
		kg_err("record: no program to run");
		record_usage(stderr);
		return -1;
	}
	*prog_index = optind;
	return 0;
}

/* The recorder library: next to the kgantt binary (build tree), or in ../lib/kgantt
 * (installed), or wherever KGANTT_INJECT says. */
static int find_recorder(char *out, size_t outlen)
{
	const char *env = getenv("KGANTT_INJECT");
	if (env && *env) {
		if (!realpath(env, out)) {
			kg_err("KGANTT_INJECT: cannot open '%s': %s", env, strerror(errno));
			return -1;
		}
		return 0;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0) {
		kg_err("cannot find the kgantt binary: %s", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	const char *candidates[] = {"%s/libkgantt-inject.so", "%s/../lib/kgantt/libkgantt-inject.so"};
	for (size_t i = 0; i < 2; i++) {
		char path[PATH_MAX + 64];
		snprintf(path, sizeof(path), candidates[i], exe);
		if (access(path, R_OK) == 0 && realpath(path, out))
			return 0;
	}
	kg_err("cannot find libkgantt-inject.so next to '%s' or in ../lib/kgantt "
	       "(set KGANTT_INJECT to its path)", exe);
	return -1;
}

/* Loads the recorder here once, to fail early with the loader's own words (a missing
 * libcupti is the usual case), and to learn which libcupti it binds to: NVTX must be
 * routed to that same library (NVTX_INJECTION64_PATH). */
static int probe_recorder(const char *recorder, char *cupti, size_t cuptilen)
{
	void *h = dlopen(recorder, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		kg_err("cannot load the recorder: %s", dlerror());
		return -1;
	}
	struct link_map *lm = NULL;
	cupti[0] = '\0';
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0) {
		while (lm && lm->l_prev)
			lm = lm->l_prev;
		for (; lm; lm = lm->l_next)
			if (lm->l_name && strstr(lm->l_name, "libcupti.so")) {
				snprintf(cupti, cuptilen, "%s", lm->l_name);
				break;
			}
	}
	/* left loaded: unloading CUPTI in a process that never used it gains nothing */
	if (!cupti[0]) {
		kg_err("the recorder '%s' is not linked to libcupti", recorder);
		return -1;
	}
	return 0;
}

static void set_env_long(const char *name, long v);

static void set_env_setting(enum kg_record_setting id, long v)
{
	set_env_long(kg_record_setting[id].env, v);
}

static void set_env_long(const char *name, long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%ld", v);
	setenv(name, buf, 1);
}

static void set_env_double(const char *name, double v)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.6f", v);
	setenv(name, buf, 1);
}

/* The environment the program and all its children inherit. */
static void prepare_environment(const struct record_opts *o, const char *recorder,
				const char *cupti, const char *spool_dir, uint64_t t0)
{
	const char *prev = getenv("CUDA_INJECTION64_PATH");
	if (prev && *prev && strcmp(prev, recorder) != 0 && !o->quiet)
		kg_warn("CUDA_INJECTION64_PATH was '%s'; replaced by the kgantt recorder", prev);
	setenv("CUDA_INJECTION64_PATH", recorder, 1);
	/* NVTX reaches CUPTI through the recorder, which forwards to the libcupti it is bound
	 * to (inject.c says why); `cupti` is only checked to exist. */
	(void)cupti;
	setenv("NVTX_INJECTION64_PATH", recorder, 1);
	setenv("KGANTT_DIR", spool_dir, 1);
	setenv("KGANTT_MODE", o->mode, 1);
	setenv("KGANTT_ALL_API", o->all_api ? "1" : "0", 1);
	if (o->latency)
		setenv("KGANTT_LATENCY", strcmp(o->latency, "on") == 0 ? "1" : "0", 1);
	else
		unsetenv("KGANTT_LATENCY");
	set_env_double("KGANTT_DELAY", o->delay);
	set_env_double("KGANTT_DURATION", o->duration);
	setenv("KGANTT_CAPTURE_RANGE", o->capture_range ? o->capture_range : "none", 1);
	set_env_setting(KG_RS_BUFFER_MB, o->buffer_mb);
	set_env_setting(KG_RS_BUFFERS, o->buffers);
	set_env_setting(KG_RS_FLUSH_MS, o->flush_ms);
	setenv("KGANTT_STACKS", o->stacks, 1);
	set_env_setting(KG_RS_STACK_FIRST, o->stack_first);
	set_env_setting(KG_RS_STACK_EVERY, o->stack_every);
	set_env_setting(KG_RS_STACK_DEPTH, o->stack_depth);
	set_env_setting(KG_RS_HW_NS, (long)o->hw_ns);
	setenv("KGANTT_SM", o->sm ? "1" : "0", 1);
	if (o->rank_env)
		setenv("KGANTT_RANK_ENV", o->rank_env, 1);
	char t0_text[32];
	snprintf(t0_text, sizeof(t0_text), "%llu", (unsigned long long)t0);
	setenv("KGANTT_T0", t0_text, 1);
}

static pid_t child_pid;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* Runs the program and returns its wait status (or -1). Ctrl-C reaches the program
 * from the terminal; record ignores it so it can still write the trace afterwards. */
static int run_program(char **argv, const char *program)
{
	child_pid = fork();
	if (child_pid < 0) {
		kg_err("cannot start '%s': %s", program, strerror(errno));
		return -1;
	}
	if (child_pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(program, argv);
		fprintf(stderr, "kgantt: cannot run '%s': %s\n", program, strerror(errno));
		_exit(127);
	}
	struct sigaction ignore = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward_signal};
	struct sigaction old_int, old_quit, old_term, old_hup;
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);
	int status = -1;
	while (waitpid(child_pid, &status, 0) < 0) {
		if (errno != EINTR) {
			kg_err("cannot wait for '%s': %s", program, strerror(errno));
			status = -1;
			break;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	return status;
}

static void describe_status(int status, char *buf, size_t len)
{
	if (status == -1)
		snprintf(buf, len, "unknown");
	else if (WIFEXITED(status))
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "status %d", status);
}

static int exit_code_of(int status)
{
	if (status == -1)
		return KG_EXIT_FAILURE;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return KG_EXIT_FAILURE;
}

static int remove_spool_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	struct dirent *e;
	char path[PATH_MAX + 256];
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	return rmdir(dir) < 0 ? -errno : 0;
}

static void command_line(int argc, char **argv, char *out, size_t len)
{
	size_t o = 0;
	out[0] = '\0';
	for (int i = 0; i < argc && o + 2 < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%s%s", i ? " " : "", argv[i]);
}

/* CUPTI (CUDA 13.0) keeps about 80 bytes per kernel in the program for as long as it
 * records queued/submitted timestamps, released only at exit: 0.8 GB for 10 M kernels,
 * measured on the H200 (docs/results/recorder-memory-h200.md). Without them the
 * recorder's memory stays flat, so a long run is told how to keep it so. */
#define LATENCY_NOTE_KERNELS 2000000ull
#define CUPTI_LATENCY_BYTES_PER_KERNEL 80ull

static int latency_on(const struct record_opts *o)
{
	return o->latency ? strcmp(o->latency, "on") == 0 : strcmp(o->mode, "full") == 0;
}

/* What the wait after the program went to, when most of it was the call stacks'
 * symbols (a PyTorch program's libraries are large): "" otherwise. */
static void stacks_part(const struct kg_import *im, double secs, char *buf, size_t len)
{
	double stacks = (double)im->stacks_ns / 1e9;
	buf[0] = '\0';
	if (stacks >= 0.5 && stacks >= secs / 2)
		snprintf(buf, len, ", %.1f s of it symbolising call stacks in %u librar%s", stacks,
			 im->stack_modules, im->stack_modules == 1 ? "y" : "ies");
}

static void report_processes(const struct kg_import *im, const char *trace, int quiet,
			     int latency, double secs)
{
	unsigned long long k = 0, m = 0, s = 0, a = 0;
	char b1[32], b2[32], b3[32], b4[32];
	for (size_t i = 0; i < im->nprocs; i++) {
		const struct kg_import_process *p = &im->procs[i];
		k += p->kernels, m += p->memcpys, s += p->memsets, a += p->api_calls;
		if (p->first_error[0])
			kg_warn("pid %u: %s", p->pid, p->first_error);
		if (!p->complete)
			kg_warn("pid %u: the process ended without the recorder's exit handler "
				"(killed, crashed or _exit): its trace stops at the last flush and "
				"is marked incomplete",
				p->pid);
		if (p->dropped)
			kg_warn("pid %u: CUPTI dropped %llu records (buffers full): raise "
				"--buffer-size or --buffers",
				p->pid, (unsigned long long)p->dropped);
	}
	if (quiet)
		return;
	char part[160];
	stacks_part(im, secs, part, sizeof(part));
	fprintf(stderr, "kgantt: wrote '%s': %zu process%s, %s kernel%s, %s cop%s, %s memset%s, "
			"%s API call%s (%.2f s after the program ended%s)\n",
		trace, im->nprocs, im->nprocs == 1 ? "" : "es", fmt_count(k, b1), k == 1 ? "" : "s",
		fmt_count(m, b2), m == 1 ? "y" : "ies", fmt_count(s, b3), s == 1 ? "" : "s",
		fmt_count(a, b4), a == 1 ? "" : "s", secs, part);
	if (latency && k >= LATENCY_NOTE_KERNELS)
		fprintf(stderr, "kgantt: note: CUPTI held about %llu MB in the program for the "
				"kernels' queued/submitted timestamps (%llu bytes per kernel, freed "
				"at exit); for longer runs, 'record --latency off' keeps the "
				"recorder's memory flat\n",
			k * CUPTI_LATENCY_BYTES_PER_KERNEL / 1000000ull, CUPTI_LATENCY_BYTES_PER_KERNEL);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {
		.output = "kgantt.kgt", .mode = "full",
		.buffer_mb = kg_record_setting[KG_RS_BUFFER_MB].def,
		.buffers = kg_record_setting[KG_RS_BUFFERS].def,
		.flush_ms = kg_record_setting[KG_RS_FLUSH_MS].def,
		.stacks = "waits",
		.stack_first = kg_record_setting[KG_RS_STACK_FIRST].def,
		.stack_every = kg_record_setting[KG_RS_STACK_EVERY].def,
		.stack_depth = kg_record_setting[KG_RS_STACK_DEPTH].def,
	};
	int prog = 0;
	int rc = parse_options(argc, argv, &o, &prog);
	if (rc)
		return rc > 0 ? finish_stdout(KG_EXIT_OK) : KG_EXIT_USAGE;
	if (o.summarize_only)
		return record_after(&(struct record_after){.trace = o.summarize_only,
			.quiet = o.quiet, .report = o.report, .plot = o.plot, .view = o.view});

	char host[256] = "host", output[PATH_MAX], err[512];
	gethostname(host, sizeof(host) - 1);
	if (expand_path_pattern(o.output, (int)getpid(), host, output, sizeof(output), err,
				sizeof(err)) < 0) {
		kg_err("--output: %s", err);
		return KG_EXIT_USAGE;
	}
	if ((o.plot && !strcmp(o.plot, output)) || (o.view && !strcmp(o.view, output))) {
		kg_err("--%s '%s' is the trace itself: name another file", o.plot &&
		       !strcmp(o.plot, output) ? "plot" : "view", output);
		return KG_EXIT_USAGE;
	}
	/* an existing FILE is replaced, as every command's output is (README, "Outputs"):
	 * the trace is built beside it and renamed over it only when complete. A FILE that
	 * cannot be (a directory, a device) is said now, not after the program ran. */
	struct kg_outfile_opts trace_out = {.what = "the trace", .flags = KG_OUT_REGULAR};
	if (outfile_check(output, &trace_out, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	char recorder[PATH_MAX], cupti[PATH_MAX];
	if (find_recorder(recorder, sizeof(recorder)) < 0 ||
	    probe_recorder(recorder, cupti, sizeof(cupti)) < 0)
		return KG_EXIT_FAILURE;

	/* The spool sits beside the output: same file system, and it survives a crash of
	 * record itself ('kgantt import' turns it into a trace). */
	char spool[PATH_MAX + 16];
	snprintf(spool, sizeof(spool), "%s.spool", output);
	if (access(spool, F_OK) == 0) {
		if (!o.force) {
			kg_err("'%s' exists, left by an earlier run (turn it into a trace with "
			       "'kgantt import %s', or use --force to discard it)",
			       spool, spool);
			return KG_EXIT_FAILURE;
		}
		remove_spool_dir(spool);
	}
	if (mkdir(spool, 0755) < 0) {
		kg_err("cannot create '%s': %s", spool, strerror(errno));
		return KG_EXIT_FAILURE;
	}
	char spool_abs[PATH_MAX + 16];
	if (!realpath(spool, spool_abs))
		snprintf(spool_abs, sizeof(spool_abs), "%s", spool);

	char cmd[8192];
	command_line(argc - prog, argv + prog, cmd, sizeof(cmd));
	/* the origin of --delay/--duration, kept in the trace so that the report can say
	 * which --delay leaves a program's start-up out */
	uint64_t started = now_raw_ns();
	prepare_environment(&o, recorder, cupti, spool_abs, started);
	int status = run_program(argv + prog, argv[prog]);
	uint64_t ended = now_raw_ns();
	char status_text[128];
	describe_status(status, status_text, sizeof(status_text));

	struct kg_import im;
	int nfiles = 0;
	rc = import_begin(&im, output, cmd);
	if (!rc)
		rc = import_set_program_start(&im, started);
	if (!rc)
		rc = import_spool_dir(&im, spool, &nfiles);
	if (!rc && nfiles == 0) {
		kg_err("nothing was recorded: no process of '%s' initialised CUDA with the recorder "
		       "loaded (no GPU or driver, a program that never used CUDA, or one that "
		       "failed first: %s)",
		       argv[prog], status_text);
		import_abort(&im);
		remove_spool_dir(spool);
		int code = exit_code_of(status);
		return code ? code : KG_EXIT_FAILURE;
	}
	if (!rc)
		rc = import_set_exit_status(&im, (uint32_t)child_pid, status_text);
	if (rc) {
		kg_err("%s", im.err);
		kg_err("the raw records are kept in '%s'", spool);
		import_abort(&im);
		return KG_EXIT_FAILURE;
	}
	struct kg_import_process *procs = im.procs;
	im.procs = NULL; /* keep the summary past commit */
	size_t nprocs = im.nprocs;
	rc = import_commit(&im);
	if (rc) {
		kg_err("%s", im.err);
		kg_err("the raw records are kept in '%s'", spool);
		free(procs);
		return KG_EXIT_FAILURE;
	}
	struct kg_import summary = {.procs = procs, .nprocs = nprocs, .stacks_ns = im.stacks_ns,
				    .stack_modules = im.stack_modules};
	report_processes(&summary, output, o.quiet, latency_on(&o),
			 (double)(now_raw_ns() - ended) / 1e9);
	free(procs);
	if (!o.keep_spool)
		remove_spool_dir(spool);
	if (!o.quiet && status != -1 && (!WIFEXITED(status) || WEXITSTATUS(status)))
		kg_warn("'%s' ended with %s", argv[prog], status_text);
	int after = record_after(&(struct record_after){
		.trace = output, .quiet = o.quiet, .report = o.report, .plot = o.plot, .view = o.view});
	/* the program's own status wins: a chart that failed must not hide a failed run */
	int code = exit_code_of(status);
	return code ? code : after;
}
