# Steps on a trace someone else recorded whose GPU was still running work queued before
# the profiler started: TraceLens's MI300X ResNet trace (tests/fixtures/public/README.md,
# tracelens/), 30 ms of GPU work with no runtime call in the trace, then three
# ProfilerSteps of 746 kernels each. That work is in no step: each step's kernels, copies,
# memsets, first start and time are what tests/fixtures/public/tracelens/expect_steps.py
# recounts from the raw events (a step's operations are those its range launched), and
# all three are steady. Before, the first step took the 968 earlier operations by their
# GPU time: 1,383 kernels, and a second step of 51.2 ms.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
T=tests/fixtures/public/tracelens/mi300_resnet_steps.json.gz
python3 tests/fixtures/public/tracelens/expect_steps.py "$T" > "$WORK/want.txt" || fail "recount $T"
"$K" report --json --no-progress "$T" > "$WORK/r.json" || fail "report --json $T"
python3 - "$WORK/r.json" > "$WORK/got.txt" <<'PY' || fail "steps: $(cat "$WORK/got.txt")"
import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))["steps"]
assert s["source"] == "annotation" and s["steady"] == s["count"] == 3, s
for x in s["steps"]:
    print(x["step"], x["kernels"], x["copies"], x["memsets"], x["start_ns"], x["time_ns"])
PY
diff "$WORK/want.txt" "$WORK/got.txt" > "$WORK/diff.txt" || fail "steps against the raw events: $(cat "$WORK/diff.txt")"
echo "ok: 3 steady steps of $(awk 'NR == 1 {print $2}' "$WORK/want.txt") kernels, as the raw events say"
