# Issue 25: communication kernels on real traces (tests/fixtures/public/hta/).
#   - the SM rules (under-filled-grid, low-occupancy, stream-serialization) never name an
#     NCCL kernel nor a stream that runs only communication kernels: an NCCL kernel's grid
#     is its channel count, its time is spent waiting for its peers;
#   - each GPU's communication (union of its communication kernels), the part of it beside
#     compute kernels, the exposed rest, by kind: report --json --whole (and the default
#     report, whose steady window is the whole trace on these one-step cuts) against
#     hta/expect_comm.py, a Python reading of the raw events, to the ns;
#   - exposed-communication fires where the script's exposed time is at least 5 % of the
#     trace (the list below) with gain min(exposed, compute busy - overlapped), on no other.
. tests/e2e/lib.sh
PUB=tests/fixtures/public/hta
for t in "$PUB"/*.json.gz; do
	n=$(basename "$t" .json.gz)
	"$K" report --json --no-progress "$t" > "$WORK/$n.json" || fail "$n: report"
	python3 - "$t" "$WORK/$n.json" <<'PY' || fail "$n: an SM rule judges a communication kernel"
import collections, gzip, json, re, sys
raw = json.load(gzip.open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
comm = re.compile(r"nccl|NCCL|rccl|nvshmem")
kinds = collections.defaultdict(set)  # stream -> {is communication}
for e in raw["traceEvents"]:
    if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"):
        kinds[e.get("args", {}).get("stream")].add(bool(comm.search(e["name"])))
comm_streams = {s for s, k in kinds.items() if k == {True}}
for f in got["findings"]:
    if f["rule"] in ("under-filled-grid", "low-occupancy"):
        assert not comm.search(f["title"]), f["title"]
    if f["rule"] == "stream-serialization":
        s = int(re.search(r"on stream (\d+)", f["title"]).group(1))
        assert s not in comm_streams, f["title"]
print(sys.argv[1], "no SM finding on", len(comm_streams), "communication streams")
PY
	python3 "$PUB/expect_comm.py" "$t" > "$WORK/$n.comm" || fail "$n: expect_comm.py"
	"$K" report --json --whole --no-progress "$t" > "$WORK/$n.whole.json" || fail "$n: report --whole"
	python3 - "$WORK/$n" "$n" <<'PY' || fail "$n: kgantt's communication figures are not expect_comm.py's"
import json, sys
base, name = sys.argv[1], sys.argv[2]
want = json.load(open(base + ".comm"))
# where the script's exposed time is at least 5 % of the span: the rule must fire there
FIRES = {"negq_step551", "diff_control_step1009", "diff_test_step1013", "nccl_negative_tid_20ms"}
for doc in (".whole.json", ".json"):
    d = json.load(open(base + doc))
    got = {str(g["ordinal"]): g["communication"] for g in d["gpus"] if g["used"]}
    for dev, w in want.items():
        g = got.get(dev)
        if w is None:
            assert g is None, (dev, g)
            continue
        for k in ("kernels", "time_ns", "overlapped_ns", "exposed_ns", "compute_busy_ns"):
            assert g[k] == w[k], (doc, dev, k, g[k], w[k])
        assert abs(g["overlap_pct"] - w["overlap_pct"]) < 0.01, (g["overlap_pct"], w["overlap_pct"])
        kinds = {b["kind"]: b for b in g["by_kind"]}
        assert sorted(kinds) == [b["kind"] for b in w["by_kind"]], (sorted(kinds), w["by_kind"])
        for b in w["by_kind"]:
            for k in ("kernels", "time_ns", "overlapped_ns", "exposed_ns"):
                assert kinds[b["kind"]][k] == b[k], (doc, dev, b["kind"], k)
    rule = [f for f in d["findings"] if f["rule"] == "exposed-communication"]
    assert bool(rule) == (name in FIRES), (name, [f["title"] for f in rule])
    for f in rule:
        w = [v for v in want.values() if v][0]
        gain = min(w["exposed_ns"], w["compute_busy_ns"] - w["overlapped_ns"])
        assert abs(f["gain_ns"] - gain) <= 1, (f["gain_ns"], gain)
print(name, "communication as expect_comm.py says:",
      {d: (w and (w["time_ns"], w["overlapped_ns"], w["overlap_pct"])) for d, w in want.items()},
      "exposed-communication" if name in FIRES else "silent")
PY
done
echo "ok: t103_comm_overlap"
