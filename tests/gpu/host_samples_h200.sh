#!/usr/bin/env bash
# Host samples on the H200 (issue 23; src/recorder/hostsample.c, docs/host-samples.md).
# Not run by `make test`: run on the GPU machine from the repository root, with build/
# (kgantt, the recorder, bench/launch_loop, devlib: scripts/device-libs.sh) built here and carried.
#
#   tests/gpu/host_samples_h200.sh [overhead|dataloader|all]     (default all)
#
# overhead: `kgantt record --mode full` with host samples off (--host-samples=off) and on
#   (HZ, default 1000), paired by round in alternating order, beside the program untraced,
#   on the empty-launch loop (bench/launch_loop.cu), tiny PyTorch ops and the GPT step
#   (bench/torch_step.py --tiny, --gpt): each figure, the on/off ratio per round and its
#   median, the samples and threads, the handler's median and 9-in-10 time, bytes a sample
#   in the spool, the trace's size on and off.
# dataloader: tests/gpu/host_dataloader.py (a collate_fn with a planted CPU cost, a logging
#   call that sleeps) recorded with samples on, num_workers 0 and 2: the main thread's
#   samples in the planted functions beside the time measured in them, its states, the
#   top stacks; the workers (forked) must not hang nor write samples.
#
# Everything goes into one file, $OUT/host_samples_h200.tar.xz (OUT: the device tool's
# output folder, else build/host-samples-out): summary.md, runs.csv, the logs, the
# dataloader traces and their spools. Settings: ROUNDS (3), HZ (1000), PYTHON (python3).
set -u -o pipefail
part=${1:-all}
OUT=${OUT:-$PWD/build/host-samples-out}
ROUNDS=${ROUNDS:-3}
HZ=${HZ:-1000}
PYTHON=${PYTHON:-python3}
W=$(mktemp -d /tmp/kgantt-host-h200-XXXXXX)
mkdir -p "$OUT" "$W/logs"
SUM=$W/summary.md
CSV=$W/runs.csv
K=$PWD/build/kgantt
export PYTHONUNBUFFERED=1
say() { echo "$*" | tee -a "$SUM"; }
pack() {
	cp -r tests/py/host_spool.py "$W/" 2> /dev/null
	tar -C "$(dirname "$W")" -cJf "$OUT/host_samples_h200.tar.xz" "$(basename "$W")" &&
		echo "wrote $OUT/host_samples_h200.tar.xz"
}
trap pack EXIT

say "# Host samples on $(hostname) $(date -u +%Y-%m-%dT%H:%MZ)"
say ""
say "- GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
say "- $($PYTHON -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)' 2>&1 | tail -1)"
say "- kernel $(uname -r), $(nproc) CPUs, commit $(git rev-parse --short HEAD 2> /dev/null)"
for f in build/kgantt build/libkgantt-inject.so build/bench/launch_loop; do
	[ -x "$f" ] || [ -f "$f" ] || { say "$f is missing: build it here and carry build/"; exit 1; }
done
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# run NAME HZ CMD...: one record (HZ "untraced": the program alone); appends to runs.csv
echo "name,round,hz,figure,unit,exit,wall_s,trace_bytes,samples,taken,threads,handler_p50_ns,handler_p90_ns,bytes_per_sample,lost,overruns" > "$CSV"
run() {
	local name=$1 round=$2 hz=$3
	shift 3
	local log=$W/logs/$name.$round.$hz
	local t0 t1 rc trace=$W/$name.$round.$hz.kgt
	t0=$(date +%s.%N)
	if [ "$hz" = untraced ]; then
		timeout 300 "$@" > "$log.out" 2> "$log.err"
	else
		timeout 300 "$K" record --mode full --keep-spool --host-samples=$([ "$hz" = 0 ] && echo off || echo "$hz") -o "$trace" -- "$@" \
			> "$log.out" 2> "$log.err"
	fi
	rc=$?
	t1=$(date +%s.%N)
	local fig unit
	fig=$(grep -hoE '^(us_per_launch|us_per_op|ms_per_step)=[0-9.]+' "$log.out" "$log.err" | head -1)
	unit=${fig%%=*}
	fig=${fig#*=}
	local stats=",,,,,,,"
	if [ "$hz" != untraced ] && [ -d "$trace.spool" ]; then
		stats=$($PYTHON - "$trace.spool" <<'PY'
import os, struct, sys
sys.path.insert(0, "tests/py")
import host_spool
n = taken = thr = p50 = p90 = lost = over = 0
sample_bytes = 0
for sp in host_spool.spools(sys.argv[1]):
    n += len(sp.samples)
    c = sp.counts or {}
    taken += c.get("taken", 0); thr += c.get("threads", 0)
    p50 = max(p50, c.get("handler_p50_ns", 0)); p90 = max(p90, c.get("handler_p90_ns", 0))
    lost += c.get("lost_ring", 0) + c.get("lost_pending", 0) + c.get("no_stack", 0)
    over += c.get("overruns", 0)
    data = open(sp.path, "rb").read()
    off = struct.unpack_from("<I", data, 12)[0]
    while off + 8 <= len(data):
        typ, _, size = struct.unpack_from("<HHI", data, off)
        if size < 8: break
        if typ in (27, 28):
            sample_bytes += size
        off += size
print("%d,%d,%d,%d,%d,%s,%d,%d" % (n, taken, thr, p50, p90,
      "%.1f" % (sample_bytes / n) if n else "", lost, over))
PY
)
	fi
	echo "$name,$round,$hz,$fig,$unit,$rc,$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'),$(stat -c %s "$trace" 2> /dev/null),$stats" >> "$CSV"
	grep -h "kgantt\[" "$log.err" | grep -i "host samples" | tail -2 > "$log.host"
	[ "$name" = dataloader0 ] || [ "$name" = dataloader2 ] || rm -rf "$trace" "$trace.spool"
}

overhead() {
	local r w
	local -a LL=(build/bench/launch_loop) TINY=("$PYTHON" bench/torch_step.py --tiny)
	local -a GPT=("$PYTHON" bench/torch_step.py --gpt)
	for r in $(seq 1 "$ROUNDS"); do
		for w in launch_loop torch_tiny torch_gpt; do
			local -a cmd
			case $w in launch_loop) cmd=("${LL[@]}") ;; torch_tiny) cmd=("${TINY[@]}") ;; *) cmd=("${GPT[@]}") ;; esac
			run "$w" "$r" untraced "${cmd[@]}"
			if [ $((r % 2)) -eq 1 ]; then # alternate which goes first
				run "$w" "$r" 0 "${cmd[@]}"
				run "$w" "$r" "$HZ" "${cmd[@]}"
			else
				run "$w" "$r" "$HZ" "${cmd[@]}"
				run "$w" "$r" 0 "${cmd[@]}"
			fi
			echo "round $r $w done" >&2
		done
	done
	$PYTHON - "$CSV" "$HZ" <<'PY' | tee -a "$SUM"
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["name"] in ("launch_loop", "torch_tiny", "torch_gpt")]
hz = sys.argv[2]
print("\n## Overhead of host samples at %s Hz, paired by round (figure: lower is better)\n" % hz)
print("| workload | untraced | full, samples off | full, samples on | on/off by round | median on/off | samples | threads | handler median / 9 in 10 | bytes a sample | trace bytes off → on | lost |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for w in ("launch_loop", "torch_tiny", "torch_gpt"):
    by = {}
    for r in rows:
        if r["name"] == w and r["figure"]:
            by.setdefault(r["round"], {})[r["hz"]] = r
    ratios = [float(v[hz]["figure"]) / float(v["0"]["figure"]) for v in by.values() if hz in v and "0" in v]
    med = lambda k, f="figure": statistics.median([float(v[k][f]) for v in by.values() if k in v and v[k][f]] or [0])
    on = [v[hz] for v in by.values() if hz in v]
    unit = on[0]["unit"] if on else ""
    print("| %s (%s) | %.3f | %.3f | %.3f | %s | **%.3f×** | %d | %s | %s / %s ns | %s | %d → %d | %s |" % (
        w, unit, med("untraced"), med("0"), med(hz), " ".join("%.3f" % x for x in ratios),
        statistics.median(ratios) if ratios else 0, med(hz, "samples"),
        on[0]["threads"] if on else "", on[0]["handler_p50_ns"] if on else "", on[0]["handler_p90_ns"] if on else "",
        on[0]["bytes_per_sample"] if on else "", med("0", "trace_bytes"), med(hz, "trace_bytes"),
        sum(int(r["lost"] or 0) for r in on)))
PY
}

dataloader() {
	local wk
	for wk in 0 2; do
		run dataloader$wk 1 "$HZ" "$PYTHON" tests/gpu/host_dataloader.py --workers "$wk"
		local t=$W/dataloader$wk.1.$HZ.kgt
		"$K" report --no-progress "$t" > "$W/logs/dataloader$wk.report.txt" 2>&1
		$PYTHON - "$t" "$W/logs/dataloader$wk.1.$HZ.out" "$wk" <<'PY' | tee -a "$SUM"
import collections, json, os, sys
sys.path.insert(0, "tests/py")
import host_spool
trace, out, wk = sys.argv[1], sys.argv[2], sys.argv[3]
j = [json.loads(l) for l in open(out) if l.startswith("{")]
print("\n## DataLoader loop, num_workers=%s\n" % wk)
if not j:
    print("no result: see logs/dataloader%s.*" % wk)
    sys.exit(0)
j = j[0]
fr = host_spool.Frames(trace)
spools = host_spool.spools(trace + ".spool")
main = [sp for sp in spools if any(t.get("tid") == j["main_tid"] for t in sp.threads.values())]
print("- %d steps in %.2f s; measured in the planted parts: collate %.2f s (%.0f %%), logging %.2f s (%.0f %%)" % (
    j["steps"], j["wall_s"], j["collate_s"], 100 * j["collate_s"] / j["wall_s"], j["log_s"], 100 * j["log_s"] / j["wall_s"]))
print("- spools: %d (the forked workers write none: %s)" % (len(spools), "ok" if len(spools) == 1 else "NOT OK"))
if not main:
    print("- the main thread has no samples")
    sys.exit(0)
sp = main[0]
num = [t["number"] for t in sp.threads.values() if t.get("tid") == j["main_tid"]][0]
ss = [s for s in sp.samples if s.thread == num and j["start"] <= s.ts <= j["end"]]
def has(s, fn):
    return any(f[1] == fn for f in fr.frames.get(s.stack, []))
share = lambda fn: 100.0 * sum(1 for s in ss if has(s, fn)) / max(1, len(ss))
print("- main thread: %d samples in the loop (%.0f a second); states %s" % (
    len(ss), len(ss) / j["wall_s"], dict(collections.Counter(s.where for s in ss))))
c, l = share("planted_collate_cost"), share("log_metrics")
print("- samples in planted_collate_cost: %.1f %% (measured %.1f %%); in log_metrics: %.1f %% (measured %.1f %%)" % (
    c, 100 * j["collate_s"] / j["wall_s"], l, 100 * j["log_s"] / j["wall_s"]))
print("- off CPU in log_metrics: %.0f %% of its samples" % (
    100.0 * sum(1 for s in ss if has(s, "log_metrics") and s.off_cpu) / max(1, sum(1 for s in ss if has(s, "log_metrics")))))
c = sp.counts or {}
print("- counts: %s" % ", ".join("%s %s" % (k, c.get(k)) for k in host_spool.COUNT_FIELDS))
print("- top stacks of the main thread:")
for sid, n in collections.Counter(s.stack for s in ss).most_common(8):
    print("  - %4.1f %% %s" % (100.0 * n / len(ss), fr.label(sid, 8)))
PY
	done
}

case $part in
overhead) overhead ;;
dataloader) dataloader ;;
all) overhead; dataloader ;;
*) echo "usage: $0 [overhead|dataloader|all]" >&2; exit 2 ;;
esac
cp "$CSV" "$SUM" "$OUT/" 2> /dev/null
cat "$SUM"
