# Traces AMD's TraceLens keeps as test data (tests/fixtures/public/README.md, tracelens/).
#
# Steps on a trace whose GPU was still running work queued before the profiler started:
# TraceLens's MI300X ResNet trace, 30 ms of GPU work with no runtime call in the trace, then three
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

# launch-overhead on a cold start: a normalization layer's first launches, ten of whose
# launch calls took 1 ms or more (111–332 ms: the kernels' code loaded). Their gaps are not
# launch overhead: the kernels counted, their idle time and the gain are what
# expect_launch_overhead.py recounts from the raw events. Before, the rule counted them:
# 1.02 s of gain, "149 tiny kernels with 6878.3 µs of idle GPU between them".
T=tests/fixtures/public/tracelens/normalization_cold_start.json.gz
python3 tests/fixtures/public/tracelens/expect_launch_overhead.py "$T" > "$WORK/want_lo.txt" ||
	fail "recount $T"
"$K" report --json --no-progress "$T" > "$WORK/lo.json" || fail "report --json $T"
python3 - "$WORK/lo.json" "$WORK/want_lo.txt" <<'PY' || fail "launch-overhead against the raw events"
import json, sys
f = [x for x in json.load(open(sys.argv[1], encoding="utf-8"))["findings"] if x["rule"] == "launch-overhead"]
dev, n, idle, gain, slow = map(int, open(sys.argv[2]).read().split())
assert len(f) == 1 and slow > 900e6, (len(f), slow)
fig = dict(kv.split("=") for kv in f[0]["figures"].split(", "))
assert int(fig["tiny_kernels"]) == n and abs(float(fig["idle_ms"]) * 1e6 - idle) < 1e3, (fig, n, idle)
assert abs(f[0]["gain_ns"] - gain) < 1e3, (f[0]["gain_ns"], gain)
print("ok: launch-overhead: %d tiny kernels, %.1f ms of gain, without the %.0f ms of the slow launch calls' gaps"
      % (n, gain / 1e6, slow / 1e6))
PY
