#!/usr/bin/env bash
# What a per-step loss.item() really costs, against what host-sync-stall claims for it:
# examples/torch_cnn.py bad (a sync a step) and noitem (the same loop without it), at the
# default batch (a host-bound loop: the sync blocks for µs) and at a large one (GPU-bound:
# it blocks for most of the step). Each mode runs untraced R times, interleaved, for the
# time the sync costs (median ms a step, bad minus noitem); each is recorded once and
# reported over its steps (--nvtx step) for the finding's gain a step. The claim holds
# when the two agree within 15 %, or both are under 2 % of the step.
#   tests/gpu/sync_gain_h200.sh OUTDIR [RUNS]        (default 5; about 4 minutes)
set -u
out=${1:?usage: sync_gain_h200.sh OUTDIR [RUNS]}
runs=${2:-5}
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
	done
	python3 - "$run/times_$batch.txt" "$run/bad_$batch.json" "$batch" "$STEPS" <<'PY' | tee -a "$log"
import json, re, statistics, sys
times = {"bad": [], "noitem": []}
for line in open(sys.argv[1]):
    m = re.match(r"torch_cnn (\w+): ([0-9.]+) ms for (\d+) steps", line)
    if m and m.group(1) in times:
        times[m.group(1)].append(float(m.group(2)) / int(m.group(3)))
steps = int(sys.argv[4])
j = json.load(open(sys.argv[2]))
gain = {f["rule"]: f["gain_ns"] / 1e6 / steps for f in j["findings"]}
bad, noitem = statistics.median(times["bad"]), statistics.median(times["noitem"])
cost = bad - noitem
claim = gain.get("host-sync-stall", 0.0)
ok = abs(claim - cost) <= 0.15 * max(cost, claim) or (cost < 0.02 * bad and claim < 0.02 * bad)
print("batch %s: bad %.3f ms/step, noitem %.3f (runs %d/%d): loss.item() costs %.3f ms/step; "
      "host-sync-stall claims %.3f ms/step, host-bound %.3f: %s" % (
          sys.argv[3], bad, noitem, len(times["bad"]), len(times["noitem"]), cost, claim,
          gain.get("host-bound", 0.0), "AGREE" if ok else "DIFFER"))
PY
done
cp "$run"/*.json "$out/" 2> /dev/null
tar -C "$run" -cJf "$out/sync_gain_traces.tar.xz" . 2> /dev/null
echo done | tee -a "$log"
