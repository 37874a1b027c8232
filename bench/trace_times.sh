#!/usr/bin/env bash
# What compacted traces (format 5) cost in time, before against after, interleaved run by
# run so that drift hits both alike: `kgantt report` and `kgantt info` of a synthetic
# trace of a million kernels, `kgantt pack` of it, `kgantt import` of a launch loop's
# spool of a million kernels; on every core and on two (taskset -c 0,1). Needs no GPU and
# no sqlite3 shell (it ran on the H200 host, whose cores were idle; docs/results/trace-size.md).
#
#   KGANTT_OLD=/path/old/kgantt bench/trace_times.sh [-n RUNS] [-o RESULTS.md]
#
# KGANTT (build/kgantt) is the kgantt after, KGANTT_OLD the one before (e.g. built from git
# 7fffa77); SPOOL_GEN (build/bench/spool_gen, 'make bench-pack'); PYTHON (python3).
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=11
OUTMD=
while getopts "n:o:h" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	o) OUTMD=$OPTARG ;;
	*) sed -n '2,12p' "$0" >&2; exit 2 ;;
	esac
done
K=${KGANTT:-build/kgantt}
OLD=${KGANTT_OLD:?set KGANTT_OLD to a kgantt from before format 5}
GEN=${SPOOL_GEN:-build/bench/spool_gen}
PY=${PYTHON:-python3}
for x in "$K" "$OLD" "$GEN"; do [ -x "$x" ] || { echo "trace_times: no $x" >&2; exit 1; }; done
TMP=$(mktemp -d /tmp/kgantt-trace-times-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

"$PY" bench/gen_trace.py -q -n 1000000 --seed 1 -o "$TMP/rows.kgt" || exit 1
cp "$TMP/rows.kgt" "$TMP/f4.kgt" && "$OLD" pack -q "$TMP/f4.kgt" || exit 1
cp "$TMP/rows.kgt" "$TMP/f5.kgt" && "$K" pack -q "$TMP/f5.kgt" || exit 1
"$GEN" 1000000 "$TMP/run.kgspool" || exit 1

t() { # LABEL CMD...: one run's wall seconds
	local l=$1 a
	shift
	a=$EPOCHREALTIME
	"$@" > /dev/null 2>&1 || { echo "trace_times: failed: $*" >&2; exit 1; }
	awk -v l="$l" -v a="$a" -v b="$EPOCHREALTIME" 'BEGIN { printf "%s %.3f\n", l, b - a }'
}
for cpus in all 0,1; do
	run=()
	[ "$cpus" = all ] || run=(taskset -c "$cpus")
	for _ in $(seq "$RUNS"); do
		t "$cpus report-before" "${run[@]}" "$OLD" report --no-progress "$TMP/f4.kgt"
		t "$cpus report-after" "${run[@]}" "$K" report --no-progress "$TMP/f5.kgt"
		t "$cpus report-after-of-format-4" "${run[@]}" "$K" report --no-progress "$TMP/f4.kgt"
		t "$cpus info-before" "${run[@]}" "$OLD" info "$TMP/f4.kgt"
		t "$cpus info-after" "${run[@]}" "$K" info "$TMP/f5.kgt"
	done
	for _ in $(seq $(((RUNS + 3) / 4))); do
		cp "$TMP/rows.kgt" "$TMP/p.kgt" && t "$cpus pack-before" "${run[@]}" "$OLD" pack -q "$TMP/p.kgt"
		cp "$TMP/rows.kgt" "$TMP/p.kgt" && t "$cpus pack-after" "${run[@]}" "$K" pack -q "$TMP/p.kgt"
		t "$cpus import-before" "${run[@]}" "$OLD" import -q -f -o "$TMP/i.kgt" "$TMP/run.kgspool"
		t "$cpus import-after" "${run[@]}" "$K" import -q -f -o "$TMP/i.kgt" "$TMP/run.kgspool"
	done
done > "$TMP/times"

# medians: "CPUS WHAT-before|after" lines into a table
"$PY" - "$TMP/times" "$(nproc)" "$RUNS" > "$TMP/results.md" <<'EOF'
import statistics, sys, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    cpus, what, secs = line.split()
    d[(cpus, what)].append(float(secs))
print("Medians in seconds of interleaved runs (min–max; runs), %s cores; every core / two:\n" % sys.argv[2])
print("| command | cores | before (format 4) | after (format 5) |")
print("| --- | --- | --- | --- |")
def cell(v):
    return "%.3f (%.3f–%.3f; %d)" % (statistics.median(v), min(v), max(v), len(v)) if v else "-"
for what in ("report", "report-after-of-format-4", "info", "pack", "import"):
    for cpus in ("all", "0,1"):
        if what.endswith("format-4"):
            print("| report of the format 4 trace by this kgantt | %s | | %s |" % (cpus, cell(d[(cpus, what)])))
        else:
            print("| %s | %s | %s | %s |" % (what, cpus, cell(d[(cpus, what + "-before")]), cell(d[(cpus, what + "-after")])))
EOF
cat "$TMP/results.md"
[ -z "$OUTMD" ] || cp "$TMP/results.md" "$OUTMD"
