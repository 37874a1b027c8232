# A transformers Llama (4 layers, random weights) replayed from a CUDA graph once a step,
# recorded by full mode on an H100 (tests/gpu/graph_steps.sh; tests/fixtures/h100/graph/):
# captured by hand with torch.cuda.graph, and compiled with torch.compile(mode=
# "reduce-overhead"), whose CUDA graph trees capture and replay it. What
# tests/tools/graph_recount.py counts in each trace's rows:
#  - the capture's idle time is graph capture's, to the nanosecond (by hand: 551 ms, which
#    was host-bound's before);
#  - the steps are the replays, not the model's layers: by hand, one step a graph launch
#    (the first two warm-up); compiled, one a replay among its steady steps, whose warm-up
#    is the compilation (Inductor's 12 kernels a layer repeat too, and were taken for the
#    period, which made no steps: none were found before).
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
FIXTURES=tests/fixtures/h100
for n in graph_replays compiled_replays; do
	T=$(fixture graph/$n)
	KGANTT=$K python3 tests/tools/graph_recount.py "$T" > "$WORK/$n.want" || fail "recount $n"
	"$K" report --json --no-progress "$T" > "$WORK/$n.json" || fail "report --json $n"
	"$K" report --json --no-progress --whole "$T" > "$WORK/$n.whole.json" || fail "report --json --whole $n"
	python3 - "$n" "$WORK/$n.want" "$WORK/$n.json" "$WORK/$n.whole.json" <<'PY' || fail "$n: steps or graph capture"
import json, sys
name, want = sys.argv[1], dict(l.split() for l in open(sys.argv[2]))
launches, capture = int(want["graph_launches"]), int(want["capture_idle"])
r, whole = (json.load(open(f, encoding="utf-8")) for f in sys.argv[3:5])
s = r["steps"]
assert whole["gpus"][0]["idle_capture_ns"] == capture and capture > 0, (whole["gpus"][0]["idle_capture_ns"], capture)
assert s["source"] == "rhythm" and s["applied"], s
steady = [x for x in s["steps"] if not x["warmup"]]
if name == "graph_replays":
    assert s["count"] == launches == 20 and len(steady) == 18, (s["count"], launches, len(steady))
else:
    assert 18 <= len(steady) <= launches, (len(steady), launches)
hb = [f for f in whole["findings"] if f["rule"] == "host-bound"]
assert all(f["gain_ns"] <= whole["trace"]["span_ns"] - capture for f in hb), hb
print("ok: %s: %d steps, %d steady, %d graph launches; graph capture %.2f ms, as the rows say"
      % (name, s["count"], len(steady), launches, capture / 1e6))
PY
done
