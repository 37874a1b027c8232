#!/usr/bin/env bash
# What a per-step loss.item() really costs, against what host-sync-stall claims for it:
# examples/torch_cnn.py bad (a sync a step) and noitem (the same loop without it), at the
# default batch (a host-bound loop: the sync blocks for µs) and at a large one (the GPU's
# step is long: it blocks for much of it). Each mode is recorded once: the traced cost is
# the difference of the median step cycles (NVTX "step" starts), the claim the finding's
# gain a step (--nvtx step); the claim holds when the two agree within 15 %, or both are
# under 2 % of the step. Each mode also runs untraced R times, interleaved (the program's
# own timer, which includes making its dataset): what the sync costs a program no tracer
# slows (the host's calls slower under tracing, the GPU waits for them more and the sync
# less). Results of 2026-12-01: docs/results/sync-gain-h200.md.
#   tests/gpu/sync_gain_h200.sh OUTDIR [RUNS]        (default 3; about 8 minutes)
set -u
out=${1:?usage: sync_gain_h200.sh OUTDIR [RUNS]}
runs=${2:-3}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
run=/tmp/kgantt-gpu-syncgain
rm -rf "$run"
mkdir -p "$run" "$out"
log=$out/sync_gain.txt
: > "$log"
STEPS=100
for batch in 256 4096; do
	for r in $(seq 1 "$runs"); do
		for mode in bad noitem; do
			python3 examples/torch_cnn.py $mode --steps $STEPS --batch $batch \
				2>> "$run/times_$batch.txt" > /dev/null
		done
	done
	for mode in bad noitem; do
		"$K" record -q -o "$run/${mode}_$batch.kgt" -- \
			python3 examples/torch_cnn.py $mode --steps $STEPS --batch $batch > /dev/null 2>&1
		"$K" report --json --no-progress --nvtx step "$run/${mode}_$batch.kgt" \
			> "$run/${mode}_$batch.json" 2> /dev/null
		"$K" export -q --format sqlite -o "$run/${mode}_$batch.db" "$run/${mode}_$batch.kgt"
	done
	python3 - "$run" "$batch" <<'PY' | tee -a "$log"
import json, re, sqlite3, statistics, sys
run, batch = sys.argv[1], sys.argv[2]
def cycle(mode):  # median ms from one step's start to the next, traced
    db = sqlite3.connect("%s/%s_%s.db" % (run, mode, batch))
    st = [s for s, in db.execute("SELECT n.start FROM nvtx n JOIN strings s ON s.id = n.name "
                                 "WHERE s.text = 'step' ORDER BY n.start")]
    return statistics.median((b - a) / 1e6 for a, b in zip(st, st[1:])), len(st)
times = {"bad": [], "noitem": []}
for line in open("%s/times_%s.txt" % (run, batch)):
    m = re.match(r"torch_cnn (\w+): ([0-9.]+) ms for (\d+) steps", line)
    if m and m.group(1) in times:
        times[m.group(1)].append(float(m.group(2)) / int(m.group(3)))
(bad, steps), (noitem, _) = cycle("bad"), cycle("noitem")
j = json.load(open("%s/bad_%s.json" % (run, batch)))
gain = {f["rule"]: f["gain_ns"] / 1e6 / steps for f in j["findings"]}
cost, claim = bad - noitem, gain.get("host-sync-stall", 0.0)
ok = abs(claim - cost) <= 0.15 * max(cost, claim) or (cost < 0.02 * bad and claim < 0.02 * bad)
ub, un = statistics.median(times["bad"]), statistics.median(times["noitem"])
print("batch %s, traced: step %.3f ms with loss.item(), %.3f without: it costs %.3f ms a step; "
      "host-sync-stall claims %.3f, host-bound %.3f: %s. Untraced (%d runs): %.3f and %.3f ms "
      "a step, %.3f" % (batch, bad, noitem, cost, claim, gain.get("host-bound", 0.0),
                        "AGREE" if ok else "DIFFER", len(times["bad"]), ub, un, ub - un))
PY
done
rm -f "$run"/*.db
tar -C "$run" -cJf "$out/sync_gain_traces.tar.xz" . 2> /dev/null
echo done | tee -a "$log"
