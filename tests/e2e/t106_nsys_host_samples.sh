# While the GPU waited, from Nsight Systems' CPU samples (issue 23): H200 traces recorded
# with host samples (tests/fixtures/h200/host: a C++ program synchronising in
# log_progress(), built with frame pointers and stripped; a transformers decoder whose host
# compiles cuDNN's attention with NVRTC) laid out as nsys exports by
# tests/tools/kgt_to_nsys.py (COMPOSITE_EVENTS + SAMPLING_CALLCHAINS: native frames only).
# kgantt's report of each export must give
#   - the host tree as tests/tools/expect_nsys_host.py recounts it from the export's rows
#     without kgantt: the idle time within 0.1%, each function's share within 1 point;
#   - the idle findings of the kgantt trace's own report, with the same host causes within
#     4 points (nsys has no Python frames: the decoder's dispatch through transformers'
#     and torch's Python files reads as its native frames, and part of it as no known
#     cause: launch-overhead's 77.3 % op dispatch is 64.2 % and 13.4 % "other" there, so
#     the two are compared as one) and the same first activity's named functions.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
F=tests/fixtures/h200/host
for name in syncs_fp syncs_stripped_host hf_decode; do
	xz -dc "$F/$name.kgt.xz" > "$WORK/$name.kgt" || fail "$name: cannot decompress"
	KGANTT=$K python3 tests/tools/kgt_to_nsys.py "$WORK/$name.kgt" "$WORK/$name.sqlite" \
		2> "$WORK/conv.err" || fail "$name: kgt_to_nsys.py: $(tail -3 "$WORK/conv.err")"
	python3 tests/tools/expect_nsys_host.py "$WORK/$name.sqlite" > "$WORK/$name.want.json" ||
		fail "$name: expect_nsys_host.py"
	for side in kgt sqlite; do
		"$K" report --json --host --whole --no-progress "$WORK/$name.$side" \
			> "$WORK/$name.$side.json" || fail "$name: report --json --host of the $side"
	done
	python3 - "$WORK/$name.want.json" "$WORK/$name.sqlite.json" "$WORK/$name.kgt.json" "$name" <<'PY' || fail "$name: the export's host side"
import json, sys
sys.path.insert(0, "tests/tools")
from host_functions import functions
want = json.load(open(sys.argv[1]))
nsys = json.load(open(sys.argv[2], encoding="utf-8"))
kgt = json.load(open(sys.argv[3], encoding="utf-8"))
name = sys.argv[4]

h = nsys.get("host")
assert h, "%s: no host side in the export's report: its CPU samples were not read" % name
assert abs(h["idle_ns"] - want["idle_ns"]) <= 0.001 * want["idle_ns"], (h["idle_ns"], want["idle_ns"])
assert h["idle_ns"] == kgt["host"]["idle_ns"], (h["idle_ns"], kgt["host"]["idle_ns"])
got = functions(nsys)
checked = 0
for f, ns in want["functions"].items():
    share = 100 * ns / want["idle_ns"]
    if share < 2:
        continue
    g = 100 * got.get(f, 0) / h["idle_ns"]
    assert abs(g - share) <= 1.0, "%s: %s %.2f%% of the idle time, recounted %.2f%%" % (name, f, g, share)
    checked += 1
assert checked >= 5, (name, checked)
assert want["sampled_ns"] > 0.5 * want["idle_ns"], want  # the samples carry most of it

def causes(f):
    return {c["cause"]: 100 * c["share"] for c in f["host"]["causes"]}

def named(a):
    return [fr["function"] for fr in a["path"] if fr.get("kind") == "native" and
            fr.get("function") and not fr["function"].startswith("0x")]

idle = {f["rule"]: f for f in nsys["findings"] if f.get("host")}
own = {f["rule"]: f for f in kgt["findings"] if f.get("host")}
assert set(idle) == set(own) and own, (sorted(idle), sorted(own))
firsts = 0
for rule, f in own.items():
    g = idle[rule]
    assert g["gain_ns"] == f["gain_ns"], (rule, g["gain_ns"], f["gain_ns"])
    a, b = causes(g), causes(f)
    for x in (a, b):  # without Python frames part of the dispatch reads as no known cause
        x["op-dispatch or other"] = x.pop("op-dispatch", 0) + x.pop("other", 0)
    for c in set(a) | set(b):
        assert abs(a.get(c, 0) - b.get(c, 0)) <= 4.0, (name, rule, c, a.get(c), b.get(c))
    assert max(a, key=a.get) == max(b, key=b.get), (name, rule, a, b)
    x, y = named(g["host"]["activities"][0]), named(f["host"]["activities"][0])
    if not y:  # Python frames alone (the decoder's dispatch): nsys cannot name them
        print("ok: %s %s: %s %.1f%% (the trace's own samples: %.1f%%); first activity Python's"
              % (name, rule, max(a, key=a.get), max(a.values()), max(b.values())))
        continue
    firsts += 1
    assert x == [n for n in y if n in x] and x, (name, rule, x, y)
    print("ok: %s %s: %s %.1f%% (the trace's own samples: %.1f%%); first activity %s" % (
        name, rule, max(a, key=a.get), max(a.values()), max(b.values()), " <- ".join(x[::-1][:4])))
assert firsts, (name, "no finding's first activity named by native frames")
print("ok: %s: %d functions as recounted from the export's rows" % (name, checked))
PY
done
# the CPU samples' rows as the reader counts them; none without the tables
"$K" info "$WORK/syncs_fp.sqlite" > "$WORK/info" || fail "info of an export with CPU samples"
want=$(python3 -c 'import sqlite3, sys; print("host: %d CPU samples on %d threads" % sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*), COUNT(DISTINCT globalTid) FROM COMPOSITE_EVENTS").fetchone())' "$WORK/syncs_fp.sqlite")
grep -q "^$want" "$WORK/info" || fail "info does not say '$want': $(grep '^host' "$WORK/info")"
python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute("DROP TABLE COMPOSITE_EVENTS"); d.commit()' "$WORK/syncs_fp.sqlite"
"$K" report --json --host --whole --no-progress "$WORK/syncs_fp.sqlite" > "$WORK/none.json" ||
	fail "report of an export without COMPOSITE_EVENTS"
python3 - "$WORK/none.json" <<'PY' || fail "without COMPOSITE_EVENTS: samples read"
import json, sys
h = json.load(open(sys.argv[1], encoding="utf-8")).get("host") or {"nodes": []}
# a call's frames lead to the call itself: only samples give a frame time of its own
assert not [n for n in h["nodes"] if n["frame"]["kind"] == "native" and n["self_ns"]], h
PY
echo "ok: an export without CPU samples reads as before"
