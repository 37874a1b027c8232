/* Why the GPU was idle: the causes of its gaps, for the analysis (analysis.h) and the
 * steps (steps.h), which count each step's idle time by them. */
#ifndef KGANTT_ANALYSIS_GAP_CAUSE_H
#define KGANTT_ANALYSIS_GAP_CAUSE_H

/* Why the GPU was idle in a gap: X(ID, "name"), the names the report and its JSON use.
 *   HOST        the host issued the next work late: busy with other things
 *   SYNC        the host was blocked in a synchronisation (for part of it: kg_gap.sync_ns)
 *   LAUNCH      launched in time, started late: launch latency
 *   DEPENDENCY  waiting for another stream (event wait)
 *   UNKNOWN     no API calls in the trace to tell */
#define KG_GAP_CAUSE_LIST(X)                                                       \
	X(HOST, "host") X(SYNC, "sync") X(LAUNCH, "launch") X(DEPENDENCY, "dependency") \
	X(UNKNOWN, "unknown")
enum kg_gap_cause {
#define KG_GAP_CAUSE_ENUM_(id, name) KG_GAP_##id,
	KG_GAP_CAUSE_LIST(KG_GAP_CAUSE_ENUM_)
#undef KG_GAP_CAUSE_ENUM_
	KG_GAP_CAUSES
};
const char *gap_cause_name(enum kg_gap_cause c);

#endif
