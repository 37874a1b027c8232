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
# launch overhead, nor the gaps ten times the median or longer (the host doing something
# else: 49.1 ms of it here): the kernels counted, their idle time and the gain are what
# expect_launch_overhead.py recounts from the raw events, and whether they make a finding
# (100 kernels, more idle than their own time, 1 % of the span: docs/rules.md). Before,
# the rule counted the slow calls' gaps: 1.02 s of gain, "149 tiny kernels with 6878.3 µs
# of idle GPU between them"; then the long ones: 55.1 ms, a warning, of 142 kernels 387 µs
# apart on average. What is left, 129 kernels and 5.96 ms, is under 1 % of the span.
T=tests/fixtures/public/tracelens/normalization_cold_start.json.gz
python3 tests/fixtures/public/tracelens/expect_launch_overhead.py "$T" > "$WORK/want_lo.txt" ||
	fail "recount $T"
"$K" report --json --no-progress "$T" > "$WORK/lo.json" || fail "report --json $T"
python3 - "$WORK/lo.json" "$WORK/want_lo.txt" <<'PY' || fail "launch-overhead against the raw events"
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
f = [x for x in r["findings"] if x["rule"] == "launch-overhead"]
dev, n, idle, gain, slow, long_idle, exec_ns = map(int, open(sys.argv[2]).read().split())
assert slow > 900e6 and long_idle > 40e6, (slow, long_idle)
fires = n >= 100 and idle >= exec_ns and gain >= max(50e3, 0.01 * r["trace"]["steady_span_ns"])
assert len(f) == fires, (len(f), n, idle, exec_ns, gain)
if f:
    fig = dict(kv.split("=") for kv in f[0]["figures"].split(", "))
    assert int(fig["tiny_kernels"]) == n and abs(float(fig["idle_ms"]) * 1e6 - idle) < 1e3, (fig, n, idle)
    assert abs(f[0]["gain_ns"] - gain) < 1e3, (f[0]["gain_ns"], gain)
print("ok: launch-overhead: %d tiny kernels, %.2f ms of gain (%s), without the %.0f ms of the "
      "slow launch calls' gaps and the %.1f ms of the long ones"
      % (n, gain / 1e6, "a finding" if fires else "no finding: under 1 % of the span",
         slow / 1e6, long_idle / 1e6))
PY

# The host's cause on that cold start: the time in those launch calls is their kernels'
# code loading, JIT compilation's (with the loading fix), to the nanosecond of what
# expect_loading.py recounts; before, 1.04 s of "dispatching many small operators".
python3 tests/fixtures/public/tracelens/expect_loading.py "$T" > "$WORK/want_load.txt" || fail "recount $T"
python3 - "$WORK/lo.json" "$WORK/want_load.txt" <<'PY' || fail "host-bound's cause against the raw events"
import json, sys
f = [x for x in json.load(open(sys.argv[1], encoding="utf-8"))["findings"] if x["rule"] == "host-bound"]
calls, loading = map(int, open(sys.argv[2]).read().split())
h = f[0]["host"]
got = {c["cause"]: c["ns"] for c in h["causes"]}
assert h["cause"] == "jit-compile" and abs(got["jit-compile"] - loading) < 10, (h["cause"], got, loading)
assert "CUDA_MODULE_LOADING=EAGER" in f[0]["fix"], f[0]["fix"]
print("ok: host-bound: %.1f ms in %d launch calls that loaded code, named so" % (loading / 1e6, calls))
PY

# Graph capture. vLLM capturing its decode graph on an MI300X (hipStreamBeginCapture …
# EndCapture, 428 launches recorded into the graph and none run), and Flux on an MI300X:
# an eager pass, 225 ms capturing the transformer, one replay. The GPU's idle time while
# the host captured is graph capture's, to the nanosecond of what expect_capture.py
# recounts from the raw events, and out of the steady span and of every finding's gain: no
# gain is more than the steady span. Before, vLLM's capture was a critical host-bound
# finding of 57.7 ms, 99.9 % of the span; Flux's launch-overhead, once its steps were no
# longer its layers, counted the capture: 162 % of the steady span.
for fixture in vllm_decode_capture flux_capture_replay; do
	T=tests/fixtures/public/tracelens/$fixture.json.gz
	python3 tests/fixtures/public/tracelens/expect_capture.py "$T" > "$WORK/want_cap.txt" || fail "recount $T"
	"$K" report --json --no-progress "$T" > "$WORK/cap.json" || fail "report --json $T"
	python3 - "$WORK/cap.json" "$WORK/want_cap.txt" "$fixture" <<'PY' || fail "$fixture: graph capture against the raw events"
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
want = dict(l.split() for l in open(sys.argv[2]))
g = r["gpus"][0]
idle = sum(g["idle_ns_by_cause"].values())
assert g["idle_capture_ns"] == int(want["capture_idle"]), (g["idle_capture_ns"], want)
assert abs(idle - int(want["capture_idle"]) - int(want["other_idle"])) < 10, (idle, want)  # µs to ns
assert all(f["gain_ns"] <= int(want["other_idle"]) and f["gain_pct"] <= 100 for f in r["findings"]), \
    [(f["rule"], f["gain_ns"], f["gain_pct"]) for f in r["findings"]]
assert any("while the host captured CUDA graphs" in f["explanation"] for f in r["findings"]), \
    "no finding says what it left out"
print("ok: %s: %.2f ms of graph capture, %.2f ms left to judge" % (sys.argv[3],
      int(want["capture_idle"]) / 1e6, int(want["other_idle"]) / 1e6))
PY
done
"$K" report --no-progress tests/fixtures/public/tracelens/vllm_decode_capture.json.gz > "$WORK/cap.txt" ||
	fail "report vllm_decode_capture"
grep -q "graph capture 56.14 ms" "$WORK/cap.txt" || fail "the GPU's idle line names no graph capture"

# Steps are not a model's layers. Each line: the fixture, what expect_forwards.py counts in
# its raw events, and the steps kgantt must find.
#  - SGLang's decode of Qwen3-8B on an MI300X: one hipGraphLaunch ran all 544 kernels, 36
#    layers of 15. Before, they were 36 "steps" and the 463 ms before the graph "start-up".
#  - HuggingFace's ViT on an H100, a profiler's trace of one ProfilerStep: one forward call
#    (nn.Module: ViTModel_0) launched every kernel. Before, 11 "steps" of 12 operations.
#  - Flux's replay of its captured transformer: one hipGraphLaunch of 993 kernels, its 19
#    double-stream blocks. Before, 19 "steps".
#  - Flux with SageAttention on an MI300X: four denoising steps, each a replay of one graph
#    of 1,566 kernels: four steps, each holding its replay. Before, 228 "steps" of its
#    blocks (and, with the graph rule alone, none).
#  - OWLv2 on an H100: one ProfilerStep holding five batches, five forward calls: five steps.
while read -r fixture graph_ops replays forward_calls source count; do
	T=tests/fixtures/public/tracelens/$fixture.json.gz
	python3 tests/fixtures/public/tracelens/expect_forwards.py "$T" > "$WORK/fw.txt" || fail "recount $T"
	got=$(awk '{printf "%s ", $2}' "$WORK/fw.txt")
	[ "$got" = "$graph_ops $replays $forward_calls " ] || fail "$fixture: the raw events say $got"
	"$K" report --json --no-progress "$T" > "$WORK/st.json" || fail "report --json $T"
	python3 - "$WORK/st.json" "$source" "$count" "$graph_ops" <<'PY' || fail "$fixture: steps"
import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8")).get("steps") or {"source": "none"}
assert s["source"] == sys.argv[2] and s.get("count", 0) == int(sys.argv[3]), s
assert all(x["kernels"] >= int(sys.argv[4]) for x in s.get("steps", [])), s["steps"]
PY
	echo "ok: $fixture: $source steps, $count (the most ops of one call $graph_ops, launched $replays times; $forward_calls forward calls)"
done <<'EOF2'
sglang_decode_graph 544 1 1 none 0
vit_one_forward 1 0 1 none 0
flux_capture_replay 993 1 0 none 0
flux_graph_replays 1566 4 0 rhythm 4
owlv2_five_batches 1 0 5 rhythm 5
EOF2

# SGLang's graph-launched kernels have no launch shape in the trace: the Perfetto export
# gives them none, where it wrote "grid":[0,0,0] for 544 of them.
T=tests/fixtures/public/tracelens/sglang_decode_graph.json.gz
"$K" export --format perfetto -o "$WORK/sg.json" "$T" || fail "export $T"
! grep -q '"grid":\[0,0,0\]' "$WORK/sg.json" || fail "the export gives kernels of no known shape a grid of 0"
grep -q '"grid":\[32,1,1\]' "$WORK/sg.json" || fail "the export lost the shapes the trace gives"
echo "ok: no grid of 0 exported for the graph's kernels"

# diff says the graph capture of each side as report does (before: the vLLM capture;
# after: Flux's), and its steady span is without it
A=tests/fixtures/public/tracelens/vllm_decode_capture.json.gz
B=tests/fixtures/public/tracelens/flux_capture_replay.json.gz
"$K" diff --json "$A" "$B" > "$WORK/d.json" || fail "diff --json"
python3 - "$WORK/d.json" "$A" "$B" <<'PY' || fail "diff: graph capture"
import json, subprocess, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
for side, path in (("before", sys.argv[2]), ("after", sys.argv[3])):
    want = subprocess.run(["python3", "tests/fixtures/public/tracelens/expect_capture.py", path],
                          capture_output=True, text=True, check=True).stdout.split()
    got = d[side]
    assert got["idle_capture_ns"] == int(want[1]), (side, got["idle_capture_ns"], want)
    assert got["steady_span_ns"] <= got["span_ns"] - got["idle_capture_ns"], (side, got)
print("ok: diff: graph capture %.2f ms → %.2f ms" % (d["before"]["idle_capture_ns"] / 1e6,
      d["after"]["idle_capture_ns"] / 1e6))
PY
