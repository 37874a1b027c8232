#!/usr/bin/env bash
# What recording holds in memory over a long run, and how the trace grows: the launch
# loop (bench/launch_loop, empty kernels on one stream) for N launches under each
# configuration, sampling every I seconds the program's resident memory, kgantt's own
# (the record process: it waits, then turns the spool into the trace), the spool's size
# and the trace's. Then `kgantt report` of the last kgantt trace, timed, with its peak
# memory.
#
#   bench/recorder_memory.sh [-n LAUNCHES] [-i SECONDS] [-s EVERY] [-c CONFIGS] [-o OUTDIR]
#
#   -n LAUNCHES  default 10000000 (about a minute per configuration on the H200)
#   -i SECONDS   sampling interval (default 2)
#   -s EVERY     the loop synchronises its stream every EVERY launches, as a training
#                step does (default 0: only at the end): whether what CUPTI holds per
#                kernel with latency timestamps on is given back then
#   -c CONFIGS   comma list of: untraced, raw, raw+latency (bench/cupti_raw.c, kernel
#                records only / with queued-submitted timestamps), kg-kernels,
#                kg-kernels+latency, kg-full, kg-full-nolatency
#                (default kg-full-nolatency,kg-full)
#   LAUNCH_LOOP (environment): another launch loop binary (a stub, to test this script)
#   -o OUTDIR    gets CONFIG.csv (t_s, program_rss_kb, kgantt_rss_kb, spool_bytes,
#                trace_bytes), CONFIG.out/.err and summary.md (default /tmp/recorder-memory)
#
# On a GPU machine, after `make tool recorder bench-build`. Results:
# docs/results/recorder-memory-h200.md.
set -u
cd "$(dirname "$0")/.." || exit 1
N=10000000 I=2 SYNC=0 CONFIGS=kg-full-nolatency,kg-full OUT=/tmp/recorder-memory
while getopts "n:i:s:c:o:" opt; do
	case $opt in
	n) N=$OPTARG ;;
	i) I=$OPTARG ;;
	s) SYNC=$OPTARG ;;
	c) CONFIGS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
K=${KGANTT:-build/kgantt}
RAW=$PWD/build/bench/libcupti_raw.so
LOOP=(${LAUNCH_LOOP:-build/bench/launch_loop} -n "$N" -w 1000 -r 1 -s "$SYNC")
TRACE=$OUT/run.kgt
mkdir -p "$OUT"
{
	echo "Launch loop: $N launches, a stream synchronisation every ${SYNC} launches (0: only at the end)."
	echo
	echo "| config | µs/launch | program RSS at 2 s (MB) | at the end (MB) | growth, bytes per kernel | kgantt peak RSS (MB) | spool bytes per kernel | trace bytes per kernel |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} > "$OUT/summary.md"
last_trace=
IFS=, read -r -a ALL <<< "$CONFIGS"
for c in "${ALL[@]}"; do
	cmd=("${LOOP[@]}") env=(env -u CUDA_INJECTION64_PATH)
	case $c in
	untraced) ;;
	raw) env=(env "CUDA_INJECTION64_PATH=$RAW") ;;
	raw+latency) env=(env "CUDA_INJECTION64_PATH=$RAW" CUPTI_RAW_LATENCY=1 CUPTI_RAW_TSCB=1) ;;
	kg-kernels) cmd=("$K" record -q -o "$TRACE" --mode kernels -- "${LOOP[@]}") ;;
	kg-kernels+latency) cmd=("$K" record -q -o "$TRACE" --mode kernels --latency on -- "${LOOP[@]}") ;;
	kg-full) cmd=("$K" record -q -o "$TRACE" -- "${LOOP[@]}") ;;
	kg-full-nolatency) cmd=("$K" record -q -o "$TRACE" --latency off -- "${LOOP[@]}") ;;
	*) echo "recorder_memory.sh: unknown configuration '$c'" >&2; exit 2 ;;
	esac
	rm -rf "$TRACE" "$TRACE.spool"
	"${env[@]}" "${cmd[@]}" > "$OUT/$c.out" 2> "$OUT/$c.err" &
	pid=$!
	start=$(date +%s.%N)
	echo "t_s,program_rss_kb,kgantt_rss_kb,spool_bytes,trace_bytes" > "$OUT/$c.csv"
	while kill -0 "$pid" 2> /dev/null; do
		now=$(date +%s.%N)
		prog=$(ps -o rss= -C launch_loop | head -1)
		own=
		[ "${cmd[0]}" = "$K" ] && own=$(ps -o rss= -p "$pid" | head -1)
		spool=$(du -sb "$TRACE.spool" 2> /dev/null | cut -f1)
		trace=$(stat -c %s "$TRACE" 2> /dev/null)
		echo "$(awk "BEGIN{printf \"%.1f\", $now - $start}"),${prog// /},${own// /},${spool:-0},${trace:-0}" >> "$OUT/$c.csv"
		sleep "$I"
	done
	wait "$pid" || echo "recorder_memory.sh: $c exited with $?" >&2
	[ -f "$TRACE" ] && last_trace=$OUT/last.kgt && mv "$TRACE" "$last_trace"
	python3 - "$OUT/$c.csv" "$OUT/$c.out" "$c" "$N" "${last_trace:-}" >> "$OUT/summary.md" << 'PY'
import csv, os, sys
rows = list(csv.DictReader(open(sys.argv[1])))
us = next((l.split("=", 1)[1].strip() for l in open(sys.argv[2]) if l.startswith("us_per_launch=")), "")
n = int(sys.argv[4])
prog = [(float(r["t_s"]), int(r["program_rss_kb"])) for r in rows if r["program_rss_kb"]]
at2 = next((kb for t, kb in prog if t >= 2), None)
end = prog[-1][1] if prog else None
growth = "—"
if us and len(prog) > 2 and at2:
    t2 = next(t for t, kb in prog if t >= 2)
    rate = 1e6 / float(us)  # launches per second
    secs = prog[-1][0] - t2
    if secs > 0:
        growth = "%.0f" % ((end - at2) * 1024 / (rate * secs))
own = [int(r["kgantt_rss_kb"]) for r in rows if r["kgantt_rss_kb"]]
spool = max((int(r["spool_bytes"]) for r in rows), default=0)
trace = os.path.getsize(sys.argv[5]) if sys.argv[5] and sys.argv[3].startswith("kg") else 0
mb = lambda kb: "%.0f" % (kb / 1024) if kb else "—"
print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
    sys.argv[3], us or "failed", mb(at2), mb(end), growth, mb(max(own) if own else 0),
    "%.0f" % (spool / n) if spool else "—", "%.1f" % (trace / n) if trace else "—"))
PY
done
if [ -n "$last_trace" ]; then
	python3 - "$K" "$last_trace" >> "$OUT/summary.md" << 'PY'
import resource, subprocess, sys, time
t = time.time()
r = subprocess.run([sys.argv[1], "report", sys.argv[2]], stdout=subprocess.DEVNULL)
print("\n`kgantt report` of the last trace: exit %d, %.2f s wall, peak RSS %.0f MB" % (
    r.returncode, time.time() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024))
PY
	rm -f "$last_trace"
fi
cat "$OUT/summary.md"
