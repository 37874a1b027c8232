/* kgantt record's run (record_session.h): the output and its spool made ready, the program
 * run with the recorder injected (record_env.h), the spools gathered into one trace, and
 * what record says after (record_summary.h). */
#include "cli/record_session.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/record_env.h"
#include "cli/record_summary.h"
#include "trace/spool_import.h"
#include "util/clock.h"
#include "util/outfile.h"
#include "util/pathfmt.h"

const char *const record_modes[] = {"full", "kernels", NULL};
const char *const record_on_off[] = {"on", "off", NULL};
const char *const record_ranges[] = {"cudaProfilerApi", "none", NULL};
const char *const record_stacks[] = {"off", "waits", "all", NULL};

/* CUPTI (CUDA 13.0) keeps about 80 bytes per kernel in the program for as long as it
 * records queued/submitted timestamps, released only at exit: 0.8 GB for 10 M kernels,
 * measured on the H200 (docs/results/recorder-memory-h200.md). Without them the
 * recorder's memory stays flat, so a long run is told how to keep it so. */
#define LATENCY_NOTE_KERNELS 2000000ull
#define CUPTI_LATENCY_BYTES_PER_KERNEL 80ull

/* One run of record, from the output's name to the program's status. */
struct recording {
	const struct record_opts *o;
	char **argv;                 /* the program and its arguments */
	char output[PATH_MAX];       /* the trace, its pattern expanded */
	char spool[PATH_MAX + 16];   /* output.spool/: the processes' records */
	uint64_t started, ended;     /* the program's run, on the raw monotonic clock */
	int status;                  /* its wait status, -1 unknown */
	char status_text[128];       /* "exit 0", "signal 9 (Killed)" */
};

/* ------------------------------------------------------------------ the program */

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
		kg_err("cannot run '%s': %s", program, strerror(errno));
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

static void command_line(char **argv, char *out, size_t len)
{
	size_t o = 0;
	out[0] = '\0';
	for (int i = 0; argv[i] && o + 2 < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%s%s", i ? " " : "", argv[i]);
}

/* ------------------------------------------------------------------ before the run */

/* The trace's name, and whether it can be written: said now, not after the program ran. */
static int prepare_output(struct recording *r)
{
	const struct record_opts *o = r->o;
	char host[256] = "host", err[PATH_MAX + 512];
	gethostname(host, sizeof(host) - 1);
	if (expand_path_pattern(o->output, (int)getpid(), host, r->output, sizeof(r->output),
				err, sizeof(err)) < 0) {
		kg_err("--output: %s", err);
		return KG_EXIT_USAGE;
	}
	const char *same = o->plot && !strcmp(o->plot, r->output) ? "plot"
			   : o->view && !strcmp(o->view, r->output) ? "view" : NULL;
	if (same) {
		kg_err("--%s '%s' is the trace itself: name another file", same, r->output);
		return KG_EXIT_USAGE;
	}
	/* an existing FILE is replaced, as every command's output is (README, "Outputs"):
	 * the trace is built beside it and renamed over it only when complete. A FILE that
	 * cannot be (a directory, a device) is said now. */
	struct kg_outfile_opts trace_out = {.what = "the trace", .flags = KG_OUT_REGULAR};
	if (outfile_check(r->output, &trace_out, err, sizeof(err)) < 0) {
		kg_err("%s", err);
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
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

/* The spool sits beside the output: same file system, and it survives a crash of
 * record itself ('kgantt import' turns it into a trace). */
static int prepare_spool(struct recording *r)
{
	snprintf(r->spool, sizeof(r->spool), "%s.spool", r->output);
	if (access(r->spool, F_OK) == 0) {
		if (!r->o->force) {
			kg_err("'%s' exists, left by an earlier run (turn it into a trace with "
			       "'kgantt import %s', or use --force to discard it)",
			       r->spool, r->spool);
			return KG_EXIT_FAILURE;
		}
		remove_spool_dir(r->spool);
	}
	if (mkdir(r->spool, 0755) < 0) {
		kg_err("cannot create '%s': %s", r->spool, strerror(errno));
		return KG_EXIT_FAILURE;
	}
	return KG_EXIT_OK;
}

/* The program, with the recorder in every process of it. */
static void run_recorded(struct recording *r, const char *recorder)
{
	char spool_abs[PATH_MAX + 16];
	if (!realpath(r->spool, spool_abs))
		snprintf(spool_abs, sizeof(spool_abs), "%s", r->spool);
	/* the origin of --delay/--duration, kept in the trace so that the report can say
	 * which --delay leaves a program's start-up out */
	r->started = now_raw_ns();
	recorder_environment(r->o, recorder, spool_abs, r->started);
	r->status = run_program(r->argv, r->argv[0]);
	r->ended = now_raw_ns();
	describe_status(r->status, r->status_text, sizeof(r->status_text));
}

/* ------------------------------------------------------------------ after the run */

static int latency_on(const struct record_opts *o)
{
	return o->latency >= 0 ? o->latency == RECORD_ON : o->mode == RECORD_FULL;
}

/* What each process's recorder said went wrong. */
static void warn_processes(const struct kg_import_process *procs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct kg_import_process *p = &procs[i];
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

/* With --host-samples: how many the processes' threads gave, and how many the recorder
 * lost (its buffers full); a process that could not sample says why in the trace (info,
 * report's notes). */
static void say_host_samples(const struct kg_import *im)
{
	unsigned long long samples = 0, taken = 0, lost = 0;
	unsigned sampled = 0, hz = 0;
	char b1[32], b2[32], b3[32];
	for (size_t i = 0; i < im->nprocs; i++) {
		const struct kg_import_process *p = &im->procs[i];
		sampled += p->host_sampled && p->host_hz;
		hz = p->host_hz ? p->host_hz : hz;
		samples += p->host_samples, taken += p->host_taken, lost += p->host_lost;
	}
	if (!sampled)
		return;
	fprintf(stderr, "kgantt: host samples: %s at %u Hz from %u process%s (%s taken by the "
			"signal handler), %s lost\n",
		fmt_count(samples, b1), hz, sampled, plural(sampled, "", "es"), fmt_count(taken, b2),
		fmt_count(lost, b3));
}

/* "wrote 'run.kgt': 1 process, 8 kernels, ..." */
static void say_written(const struct recording *r, const struct kg_import *im, double secs)
{
	unsigned long long k = 0, m = 0, s = 0, a = 0;
	char b1[32], b2[32], b3[32], b4[32], part[160];
	for (size_t i = 0; i < im->nprocs; i++) {
		const struct kg_import_process *p = &im->procs[i];
		k += p->kernels, m += p->memcpys, s += p->memsets, a += p->api_calls;
	}
	stacks_part(im, secs, part, sizeof(part));
	fprintf(stderr, "kgantt: wrote '%s': %zu process%s, %s kernel%s, %s cop%s, %s memset%s, "
			"%s API call%s (%.2f s after the program ended%s)\n",
		r->output, im->nprocs, im->nprocs == 1 ? "" : "es", fmt_count(k, b1),
		k == 1 ? "" : "s", fmt_count(m, b2), m == 1 ? "y" : "ies", fmt_count(s, b3),
		s == 1 ? "" : "s", fmt_count(a, b4), a == 1 ? "" : "s", secs, part);
	say_host_samples(im);
	if (latency_on(r->o) && k >= LATENCY_NOTE_KERNELS)
		fprintf(stderr, "kgantt: note: CUPTI held about %llu MB in the program for the "
				"kernels' queued/submitted timestamps (%llu bytes per kernel, freed "
				"at exit); for longer runs, 'record --latency off' keeps the "
				"recorder's memory flat\n",
			k * CUPTI_LATENCY_BYTES_PER_KERNEL / 1000000ull, CUPTI_LATENCY_BYTES_PER_KERNEL);
}

/* A failed import: said, and the spool kept for 'kgantt import'. */
static int import_failed(const struct recording *r, const struct kg_import *im)
{
	kg_err("%s", im->err);
	kg_err("the raw records are kept in '%s'", r->spool);
	return KG_EXIT_FAILURE;
}

/* The spools into the trace, committed; its processes' summary into *procs, *n of them
 * (the caller frees it). KG_EXIT_OK, or the exit code after the message: the program's own when no
 * process of it recorded anything. */
static int import_trace(struct recording *r, struct kg_import *im,
			struct kg_import_process **procs, size_t *n)
{
	char cmd[8192];
	int nfiles = 0;
	command_line(r->argv, cmd, sizeof(cmd));
	int rc = import_begin(im, r->output, cmd);
	if (!rc)
		rc = import_set_program_start(im, r->started);
	if (!rc)
		rc = import_spool_dir(im, r->spool, &nfiles);
	if (!rc && nfiles == 0) {
		kg_err("nothing was recorded: no process of '%s' initialised CUDA with the recorder "
		       "loaded (no GPU or driver, a program that never used CUDA, or one that "
		       "failed first: %s)",
		       r->argv[0], r->status_text);
		import_abort(im);
		remove_spool_dir(r->spool);
		int code = exit_code_of(r->status);
		return code ? code : KG_EXIT_FAILURE;
	}
	if (!rc)
		rc = import_set_exit_status(im, (uint32_t)child_pid, r->status_text);
	if (rc) {
		rc = import_failed(r, im);
		import_abort(im);
		return rc;
	}
	*procs = im->procs;
	*n = im->nprocs;
	im->procs = NULL; /* keep the summary past commit */
	if (import_commit(im)) {
		free(*procs);
		return import_failed(r, im);
	}
	return KG_EXIT_OK;
}

/* The trace from the spools, and what its processes said. */
static int gather_trace(struct recording *r)
{
	struct kg_import im;
	struct kg_import_process *procs = NULL;
	size_t n = 0;
	int rc = import_trace(r, &im, &procs, &n);
	if (rc != KG_EXIT_OK)
		return rc;
	struct kg_import summary = {.procs = procs, .nprocs = n, .stacks_ns = im.stacks_ns,
				    .stack_modules = im.stack_modules};
	warn_processes(procs, n);
	if (!r->o->quiet)
		say_written(r, &summary, (double)(now_raw_ns() - r->ended) / 1e9);
	free(procs);
	if (!r->o->keep_spool)
		remove_spool_dir(r->spool);
	return KG_EXIT_OK;
}

static int after(const struct record_opts *o, const char *trace)
{
	struct record_after ra = {.trace = trace, .quiet = o->quiet, .report = o->report,
				  .color = o->color, .plot = o->plot, .view = o->view};
	return record_after(&ra);
}

int record_run(const struct record_opts *o, char **argv)
{
	if (o->summarize_only)
		return after(o, o->summarize_only);
	struct recording r = {.o = o, .argv = argv};
	char recorder[PATH_MAX];
	int rc = prepare_output(&r);
	if (rc != KG_EXIT_OK)
		return rc;
	if (recorder_find(recorder, sizeof(recorder)) < 0)
		return KG_EXIT_FAILURE;
	if ((rc = prepare_spool(&r)) != KG_EXIT_OK)
		return rc;
	run_recorded(&r, recorder);
	if ((rc = gather_trace(&r)) != KG_EXIT_OK)
		return rc;
	if (!o->quiet && r.status != -1 && (!WIFEXITED(r.status) || WEXITSTATUS(r.status)))
		kg_warn("'%s' ended with %s", argv[0], r.status_text);
	int shown = after(o, r.output);
	/* the program's own status wins: a chart that failed must not hide a failed run */
	int code = exit_code_of(r.status);
	return code ? code : shown;
}
