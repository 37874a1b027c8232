# Python call sites from a PyTorch 1.8-1.10 profiler trace (issue 23: the host's time named
# from the trace's own events). Those releases write no python_function events; with
# with_stack=True each host operator carries its Python stack in args "Call stack".
# On PyTorch's own ResNet-50 sample traces (pytorch/kineto, tb_plugin/samples; PyTorch
# 1.9, V100: tests/fixtures/public/README.md):
#   - every CUDA call's innermost Python frame in kgantt's stacks (its SQLite export,
#     api_stacks and stack_frames) is the one tests/tools/kineto_call_sites.py finds in the
#     raw events without kgantt, call by call, and most calls have one;
#   - the report says the stacks are the operators' Python call stacks;
#   - num_workers=0: host-bound's first call site is the training script's line 44 (the
#     batch's copy to the GPU, which waits for the DataLoader), with the share of the idle
#     gaps the recount gives to the calls of that line (2 points).
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
P=tests/fixtures/public/kineto
for w in 0 4; do
	t=$P/resnet50_workers$w.json.gz
	python3 tests/tools/kineto_call_sites.py "$t" > "$WORK/want$w.json" || fail "recount $t"
	"$K" export --no-progress -f sqlite -o "$WORK/t$w.kgt" "$t" || fail "export $t"
	"$K" report --json --no-progress "$t" > "$WORK/r$w.json" || fail "report --json $t"
	"$K" report --no-progress "$t" > "$WORK/r$w.txt" || fail "report $t"
	grep -q "stacks .*operators and their Python call stacks" "$WORK/r$w.txt" ||
		fail "workers=$w: the stacks line: $(grep stacks "$WORK/r$w.txt")"
	python3 - "$WORK/t$w.kgt" "$WORK/want$w.json" "$w" "$WORK/r$w.json" "$t" <<'PY' ||
import gzip, json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
want = json.load(open(sys.argv[2]))
workers = int(sys.argv[3])
text = dict(db.execute("SELECT id, text FROM strings"))
got = {str(c): None for (c,) in db.execute("SELECT correlation FROM api_calls")}
seen = set()
for corr, kind, fn, fi, line in db.execute(
        "SELECT a.correlation, f.kind, f.function, f.file, f.line FROM api_stacks a "
        "JOIN stack_frames f ON f.stack = a.stack ORDER BY a.correlation, f.depth"):
    if corr in seen or kind != 1:  # the innermost Python frame (kind 1) of each call
        continue
    seen.add(corr)
    got[str(corr)] = "%s:%d %s" % (text[fi], line, text[fn])
assert set(got) == set(want), (len(got), len(want))
bad = [(c, want[c], got[c]) for c in want if want[c] != got[c]]
assert not bad, "%d of %d calls differ, the first: %s" % (len(bad), len(want), bad[:3])
framed = sum(v is not None for v in want.values())
assert framed > len(want) / 3, (framed, len(want))
print("ok: num_workers=%d: %d calls, %d with a Python line, each as recounted"
      % (workers, len(want), framed))
if workers:
    sys.exit(0)
# host-bound's first site against the recount: the idle gaps (10 µs or more between the
# union of GPU work) given to the line of the call that launched the work after them
j = json.load(open(sys.argv[4], encoding="utf-8"))
f = next(f for f in j["findings"] if f["rule"] == "host-bound")
site = f["sites"][0]
assert site["frame"]["file"].endswith("resnet50_profiler_api.py") and \
    site["frame"]["line"] == 44, site["label"]
gpu = []
for e in json.load(gzip.open(sys.argv[5], "rt"))["traceEvents"]:
    if e.get("ph") == "X" and e.get("cat") in ("Kernel", "Memcpy", "Memset"):
        gpu.append((float(e["ts"]), float(e["ts"]) + float(e["dur"]),
                    e["args"].get("correlation")))
gpu.sort()
end, idle, line44 = None, 0.0, 0.0
for s, e, corr in gpu:
    if end is not None and s - end >= 10:
        idle += s - end
        line44 += (s - end) * ((want.get(str(corr)) or "").endswith(
            "resnet50_profiler_api.py:44 <module>"))
    end = e if end is None else max(end, e)
assert abs(100 * site["share"] - 100 * line44 / idle) <= 2, (site["share"], line44 / idle)
print("ok: host-bound's first site %s: %.1f%% (recounted %.1f%% of the idle gaps)"
      % (site["label"], 100 * site["share"], 100 * line44 / idle))
PY
		fail "workers=$w"
done
