/* The idle GPU: host-sync-stall, host-bound, gpu-utilization (docs/rules.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rules.h"
#include "util/format.h"
#include "util/api_names.h"
#include "util/timemath.h"

/* How much earlier than one run's steady work the --delay named starts: on the H200 one
 * GPT program began its steps 11.7, 11.0 and 8.8 s after it started in three runs, and
 * two more had ended by 9.9 s (a quarter less than the slowest). */
#define STARTUP_MARGIN 0.25

/* The call behind gap's part of cause: the synchronising call the host was in, or the
 * launch that came late (a sync gap's api is its sync: the late launch is the next op's). */
static uint32_t gap_call(const struct kg_model *m, const struct kg_gap *gap,
			 enum kg_gap_cause cause)
{
	return cause == KG_GAP_HOST && gap->cause == KG_GAP_SYNC ? m->ops[gap->next_op].api
								  : gap->api;
}

/* The call the longest gap is blamed on, as its evidence says it: "host in
 * cudaStreamSynchronize", "next launch by cudaLaunchKernel"; a launch whose call was not
 * recorded (full mode samples them) by its kernel. */
static void gap_call_text(const struct kg_analysis *a, const struct kg_gap *gap,
			  enum kg_gap_cause cause, char *buf, size_t len)
{
	const struct kg_model *m = a->m;
	uint32_t api = gap_call(m, gap, cause);
	char shown[160]; /* a kernel's name, as the other rules give it */
	const struct kg_op *next = gap->next_op != KG_NONE ? &m->ops[gap->next_op] : NULL;
	if (api != KG_NONE)
		snprintf(buf, len, "%s %s", cause == KG_GAP_SYNC ? "host in" : "next launch by",
			 api_display_name(model_text(m, m->apis[api].name), shown, sizeof(shown)));
	else if (cause != KG_GAP_SYNC && next && *model_text(m, next->name))
		snprintf(buf, len, "next: %s (its launch call not %s)",
			 rule_kernel_name(a, next->name, shown, sizeof(shown)),
			 m->processes[m->streams[next->stream].process].launches_sampled
				 ? "sampled"
				 : "recorded");
	else
		snprintf(buf, len, "%s", cause == KG_GAP_SYNC ? "host in a call not recorded"
							      : "next launch's call not recorded");
}

/* "X ms before the GPU's steady work began (start-up: ...), Y ms while the host captured
 * CUDA graphs (...) and Z ms after it ended (wind-down)", each part left out when it is 0
 * (kg_gap_place): edge[place] ns. */
static const char *edges_text(char *buf, size_t size, const double *edge)
{
	char part[3][200] = {"", "", ""};
	if (edge[KG_GAP_STARTUP] > 0)
		snprintf(part[0], sizeof(part[0]), "%.1f ms before the GPU's steady work began "
			 "(start-up: imports, set-up, loading)", ms(edge[KG_GAP_STARTUP]));
	if (edge[KG_GAP_CAPTURE] > 0)
		snprintf(part[1], sizeof(part[1]), "%.1f ms while the host captured CUDA graphs "
			 "(set-up: what it launches then runs when the graphs are replayed)",
			 ms(edge[KG_GAP_CAPTURE]));
	if (edge[KG_GAP_WINDDOWN] > 0)
		snprintf(part[2], sizeof(part[2]), "%.1f ms after it ended (wind-down)",
			 ms(edge[KG_GAP_WINDDOWN]));
	unsigned n = 0, k = 0;
	size_t at = 0;
	for (int i = 0; i < 3; i++)
		n += *part[i] != 0;
	*buf = 0;
	for (int i = 0; i < 3 && at < size; i++) {
		if (!*part[i])
			continue;
		int w = snprintf(buf + at, size - at, "%s%s", !k ? "" : k + 1 == n ? " and " : ", ",
				 part[i]);
		at += w > 0 ? (size_t)w : 0;
		k++;
	}
	return buf;
}

/* A host gap between tiny kernels that launch-overhead's finding claims (kg_gap.launches)
 * is not host-bound's too: a launch-bound loop on a noisy host has gaps of 10-40 µs where
 * the next launch came late, the tail of its own launch cost. A synchronising call's part
 * of a gap stays host-sync-stall's: removing the wait, not a graph, wins it. */
static int left_to_launches(const struct kg_gap *gap, enum kg_gap_cause cause)
{
	return gap->launches && cause == KG_GAP_HOST;
}

static void idle_finding(struct kg_analysis *a, uint32_t g, enum kg_gap_cause cause)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu_metrics *gm = &a->gpus[g];
	/* this cause's idle time in the GPU's steady work (its start-up and wind-down part
	 * apart); the steady gaps with some of it (a gap that began in a synchronising call is
	 * the sync's for as long as the host was blocked, the host's after that: gap_part),
	 * and the one with the most */
	double idle = (double)gm->steady_idle_by_cause[cause], edges[KG_GAP_PLACES] = {0};
	uint32_t ngaps = 0, longest = KG_NONE;
	for (uint32_t i = 0; i < gm->n_gaps; i++) {
		const struct kg_gap *gap = &gm->gaps[i];
		int64_t part = gap_part(gap, cause);
		if (gap->place != KG_GAP_STEADY) {
			edges[gap->place] += (double)part;
			continue;
		}
		if (left_to_launches(gap, cause)) {
			idle -= (double)part;
			continue;
		}
		if (part < a->cfg.sync_gap_ns)
			continue;
		ngaps++;
		if (longest == KG_NONE || part > gap_part(&gm->gaps[longest], cause))
			longest = i;
	}
	if (!analysis_worth(a, idle))
		return;
	/* one or two gaps are a program's start or end, not a pattern worth a finding,
	 * unless one of them is long on its own */
	if (ngaps < 3 && (longest == KG_NONE || gap_part(&gm->gaps[longest], cause) <
							     a->cfg.long_gap_ns))
		return;
	struct kg_finding *f =
		analysis_add_finding(a, cause == KG_GAP_SYNC ? KG_RULE_HOST_SYNC_STALL : KG_RULE_HOST_BOUND);
	if (!f)
		return;
	/* each gap's part: the synchronising call the host was in, or the launch that came late */
	uint32_t mark = a->n_blame;
	for (uint32_t i = 0; i < gm->n_gaps; i++) {
		const struct kg_gap *gap = &gm->gaps[i];
		int64_t part = gap_part(gap, cause);
		if (!part || gap->place != KG_GAP_STEADY || left_to_launches(gap, cause))
			continue;
		analysis_blame_idle(a, gap_call(m, gap, cause),
				    cause == KG_GAP_SYNC ? KG_NONE : gap->next_op, (double)part,
				    gap->start, gap->end, gap->next_op,
				    cause == KG_GAP_SYNC ? KG_IDLE_SYNC : KG_IDLE_HOST);
	}
	finding_take_blame(a, f, mark);
	char gl[128];
	rule_gpu_label(a, g, gl, sizeof(gl));
	if (cause == KG_GAP_SYNC) {
		finding_set(&f->title, "%s idles %.1f ms in %u %s while the host is blocked in synchronising "
			 "calls",
			 gl, ms(idle), ngaps, plural(ngaps, "gap", "gaps"));
		finding_set(&f->explanation, "The host waits for the GPU to drain (cudaDeviceSynchronize, "
			 "cudaStreamSynchronize, a synchronous copy, or in PyTorch .item(), .cpu(), "
			 "printing a tensor), then needs time to queue new work: the GPU idles "
			 "from the moment it finishes until the host launches again.");
		finding_set(&f->fix, "Remove per-step synchronisation: keep values on the GPU and read them "
			 "every N steps, use non_blocking copies with events instead of "
			 "synchronous ones, and synchronise on an event of the one stream you need "
			 "rather than the device.");
		finding_set(&f->gain_how, "GPU idle time in gaps of at least %lld µs that began while a "
			 "synchronising call was in progress, each for at most as long as the host "
			 "spent in such calls (what it did after them is its own time)",
			 (long long)(a->cfg.sync_gap_ns / 1000));
	} else {
		finding_set(&f->title, "%s waits for the host: %.1f ms idle in %u %s where the next work was "
			 "launched late",
			 gl, ms(idle), ngaps, plural(ngaps, "gap", "gaps"));
		finding_set(&f->explanation, "The GPU finished its queue and the host issued the next work only later, "
			 "without being blocked in CUDA: the host side (Python, data loading, "
			 "CPU computation, allocation) is the bottleneck.");
		finding_set(&f->fix, "Queue work ahead of the GPU: move CPU work off the critical path "
			 "(DataLoader workers, prefetching), batch more work per launch, capture "
			 "steady-state steps in a CUDA graph (torch.compile(mode='reduce-overhead')), "
			 "and profile the host side of the gaps.");
		finding_set(&f->gain_how, "GPU idle time in gaps of at least %lld µs whose next work was launched "
			 "after the GPU went idle, less the time the host spent blocked in "
			 "synchronising calls: an upper bound",
			 (long long)(a->cfg.sync_gap_ns / 1000));
	}
	if (edges[KG_GAP_STARTUP] > 0 || edges[KG_GAP_WINDDOWN] > 0 || edges[KG_GAP_CAPTURE] > 0) {
		char edge[600];
		finding_append(&f->explanation, " Not counted: %s, which no step pays.",
			 edges_text(edge, sizeof(edge), edges));
	}
	f->gain_ns = idle;
	f->gpu = g;
	f->start = gm->begin;
	f->end = gm->end;
	if (longest != KG_NONE) {
		const struct kg_gap *gap = &gm->gaps[longest];
		char call[240];
		gap_call_text(a, gap, cause, call, sizeof(call));
		finding_evidence(f, gap->start, gap->end, KG_NONE, gap->next_op,
				 "longest gap: %.3f ms at %.3f ms, %s%s", ms(gap_len(gap)),
				 ms((double)kg_time_diff(gap->start, m->begin)), call,
				 gap->cause == KG_GAP_SYNC && gap_part(gap, KG_GAP_HOST)
					 ? (cause == KG_GAP_SYNC ? " (then busy with other things)"
								 : " (after a synchronising call)")
					 : "");
	}
	finding_set(&f->figures, "gaps=%u, idle_ms=%.3f", ngaps, ms(idle));
}

/* The chunks of the trace (kg_gpu_metrics.util) that are GPU g's time: all of them, but
 * in a report cut to each rank's own steady steps (several GPUs, each with steps: cli/
 * session.c), those from its first operation to its last, the rest being other ranks'
 * steps. */
static void own_chunks(const struct kg_analysis *a, uint32_t g, int *c0, int *c1)
{
	const struct kg_gpu_metrics *gm = &a->gpus[g];
	if (!a->cfg.gpu_steps_given || !steps_of_gpu(a, g) || a->span <= 0 || gm->n_util < 1 ||
	    gm->begin == KG_NO_TIME || gm->end == KG_NO_TIME)
		return;
	double chunk = (double)a->span / gm->n_util;
	int b = (int)((double)kg_time_diff(gm->begin, a->m->begin) / chunk);
	int e = (int)((double)kg_time_diff(gm->end, a->m->begin) / chunk);
	*c0 = b < 0 ? 0 : b >= gm->n_util ? gm->n_util - 1 : b;
	*c1 = e < *c0 ? *c0 : e >= gm->n_util ? gm->n_util - 1 : e;
}

/* Nsight's gpu_gaps and gpu_time_util, as one informational finding about GPU g, with
 * its start-up and wind-down apart (kg_gap_place). */
static void utilization_finding(struct kg_analysis *a, uint32_t g)
{
	const struct kg_model *m = a->m;
	const struct kg_gpu_metrics *gm = &a->gpus[g];
	uint32_t long_gaps = 0, low = 0;
	if (!gm->n_ops)
		return; /* unused: the report lists it once as such */
	for (uint32_t i = 0; i < gm->n_gaps; i++)
		long_gaps += gap_len(&gm->gaps[i]) >= a->cfg.long_gap_ns;
	int c0 = 0, c1 = gm->n_util - 1;
	own_chunks(a, g, &c0, &c1);
	for (int c = c0; c <= c1; c++)
		low += gm->util[c] < a->cfg.low_util;
	if (!long_gaps && low * 3 < (uint32_t)(c1 - c0 + 1))
		return;
	struct kg_finding *f = analysis_add_finding(a, KG_RULE_GPU_UTILIZATION);
	if (!f)
		return;
	char gl[128];
	rule_gpu_label(a, g, gl, sizeof(gl));
	char steady_pct[64] = "";
	int64_t steady = gpu_steady_span(a, gm);
	if (gpu_setup_idle(gm) && steady > 0)
		snprintf(steady_pct, sizeof(steady_pct), " (%.0f%% of its steady work)",
			 100.0 * (double)gm->busy / (double)steady);
	finding_set(&f->title, "%s is busy %.0f%% of the span%s: %u of %d time chunks below %.0f%% busy, "
		 "%u idle %s of %.0f ms or more",
		 gl, a->span ? 100.0 * gm->busy / a->span : 0, steady_pct, low, gm->n_util,
		 100 * a->cfg.low_util, long_gaps, plural(long_gaps, "gap", "gaps"),
		 ms((double)a->cfg.long_gap_ns));
	char edge[620] = "", outside[200] = "";
	if (gpu_setup_idle(gm) > 0) {
		char e[600];
		double setup[KG_GAP_PLACES] = {0};
		setup[KG_GAP_STARTUP] = (double)gm->idle_startup;
		setup[KG_GAP_WINDDOWN] = (double)gm->idle_winddown;
		setup[KG_GAP_CAPTURE] = (double)gm->idle_capture;
		snprintf(edge, sizeof(edge), " Of it, %s.", edges_text(e, sizeof(e), setup));
	}
	if (gm->idle_before >= a->cfg.sync_gap_ns || gm->idle_after >= a->cfg.sync_gap_ns) {
		char before[64] = "", after[64] = "";
		if (gm->idle_before >= a->cfg.sync_gap_ns)
			snprintf(before, sizeof(before), "%.1f ms before its first operation",
				 ms((double)gm->idle_before));
		if (gm->idle_after >= a->cfg.sync_gap_ns)
			snprintf(after, sizeof(after), "%.1f ms after its last", ms((double)gm->idle_after));
		snprintf(outside, sizeof(outside),
			 " Outside its own work, while the trace went on (the host or other GPUs "
			 "busy): %s%s%s.", before, *before && *after ? ", " : "", after);
	}
	finding_set(&f->explanation, "Idle time by cause (gaps of %lld µs or more): host %.1f ms, sync %.1f ms, "
		 "launch %.1f ms, dependency %.1f ms, unknown %.1f ms.%s%s The other findings "
		 "size what can be won back.",
		 (long long)(a->cfg.sync_gap_ns / 1000), ms(gm->idle_by_cause[KG_GAP_HOST]),
		 ms(gm->idle_by_cause[KG_GAP_SYNC]), ms(gm->idle_by_cause[KG_GAP_LAUNCH]),
		 ms(gm->idle_by_cause[KG_GAP_DEPENDENCY]), ms(gm->idle_by_cause[KG_GAP_UNKNOWN]),
		 edge, outside);
	int64_t steady_begin, steady_end;
	gpu_steady_bounds(gm, &steady_begin, &steady_end);
	if (gm->idle_startup == 0)
		steady_begin = KG_NO_TIME; /* no start-up: nothing to leave out */
	if (steady_begin != KG_NO_TIME && m->program_start != KG_NO_TIME &&
	    steady_begin > m->program_start)
		/* record's --delay counts from the program's start, which the trace keeps.
		 * Start-up varies from run to run, so the delay named keeps a margin
		 * (STARTUP_MARGIN, rounded down): a delay past a run's steps records none. */
		finding_set(&f->fix, "Start with the findings above. The GPU's steady work began %.1f s "
			 "after the program started. To leave the start-up out of the recording: "
			 "--capture-range cudaProfilerApi with cudaProfilerStart/Stop (in PyTorch "
			 "torch.cuda.profiler.start/stop) around the steps cuts it exactly; "
			 "--delay %.1f cuts most of it without a change to the code, %.0f%% early "
			 "because start-up times vary from run to run.",
			 (double)kg_time_diff(steady_begin, m->program_start) / 1e9,
			 floor((double)kg_time_diff(steady_begin, m->program_start) *
			       (1 - STARTUP_MARGIN) / 1e8) / 10,
			 STARTUP_MARGIN * 100);
	else if (steady_begin != KG_NO_TIME)
		finding_set(&f->fix, "Start with the findings above. The GPU's steady work began %.1f ms "
			 "into the trace: to leave the start-up out, record with --delay (it "
			 "counts from the program's start, so at least that long) or "
			 "--capture-range cudaProfilerApi around the steps.",
			 ms((double)kg_time_diff(steady_begin, m->begin)));
	else
		finding_set(&f->fix, "Start with the findings above; if the idle time is outside the "
			 "recorded work (start-up, data loading), record a narrower window "
			 "(--delay, --duration, --capture-range cudaProfilerApi).");
	f->severity = KG_SEV_INFO;
	finding_set(&f->gain_how, "not estimated: the idle time is sized by "
						   "the cause-specific findings");
	f->gpu = g;
	f->start = gm->begin;
	f->end = gm->end;
	for (uint32_t i = 0; i < gm->n_gaps && f->n_evidence < KG_MAX_EVIDENCE; i++)
		if (gap_len(&gm->gaps[i]) >= a->cfg.long_gap_ns)
			finding_evidence(f, gm->gaps[i].start, gm->gaps[i].end, KG_NONE, KG_NONE,
					 "idle %.1f ms from %.1f ms (%s%s)",
					 ms(gap_len(&gm->gaps[i])),
					 ms((double)kg_time_diff(gm->gaps[i].start, m->begin)),
					 gap_cause_name(gm->gaps[i].cause),
					 gm->gaps[i].place == KG_GAP_STARTUP    ? ", start-up"
					 : gm->gaps[i].place == KG_GAP_WINDDOWN ? ", wind-down"
										: "");
	finding_set(&f->figures, "busy_ms=%.3f, low_chunks=%u, long_gaps=%u",
		 ms(gm->busy), low, long_gaps);
}

void rule_host_sync_stall(struct kg_analysis *a)
{
	for (uint32_t g = 0; g < a->n_gpus; g++)
		idle_finding(a, g, KG_GAP_SYNC);
}

void rule_host_bound(struct kg_analysis *a)
{
	for (uint32_t g = 0; g < a->n_gpus; g++)
		idle_finding(a, g, KG_GAP_HOST);
}

void rule_gpu_utilization(struct kg_analysis *a)
{
	for (uint32_t g = 0; g < a->n_gpus; g++)
		utilization_finding(a, g);
}

