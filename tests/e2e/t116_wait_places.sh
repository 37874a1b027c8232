# Waits' stacks by Python place (src/recorder/wait_places.h), on a CuPy loop recorded on an
# H100 (tests/fixtures/h100/places/): from the raw rows, every wait has a stack, and the
# waits of one place (API function and Python frames) have one native stack in the check
# run, where every wait was unwound: what reusing it assumes. The trace made with reuse
# gives each place that same one stack, and both say so in the recorder's message. The
# report judges the 298 steady steps, not the first step's 316 ms SciPy import
# (left_out_pct); --whole still shows it.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
pl() { FIXTURES=tests/fixtures/h100 fixture "places/$1"; }
new=$(pl cupy_loop) chk=$(pl cupy_loop_check)
python3 - "$new" "$chk" <<'PY' || fail "waits' stacks by place"
import sys
sys.path.insert(0, "tests/gpu")
import kgt_rows

WAITS = ("cudaStreamSynchronize%", "cudaMemcpy%", "cudaMalloc%")


def places(path):
    """{(function, Python frames): set of native stacks} over the trace's waits, and the
    waits without a stack."""
    db = kgt_rows.connect(path)
    where = " OR ".join("s.text LIKE ?" for _ in WAITS)
    waits = db.execute("SELECT s.text, st.stack FROM api_calls a JOIN strings s ON s.id = a.name "
                       "LEFT JOIN api_stacks st ON st.process = a.process AND st.correlation = "
                       "a.correlation WHERE " + where, WAITS).fetchall()
    frames = {}
    for stack, kind, fn, line, addr in db.execute(
            "SELECT stack, kind, function, line, address FROM stack_frames ORDER BY stack, depth"):
        frames.setdefault(stack, ([], []))[1 if kind == 1 else 0].append((fn, line, addr))
    by = {}
    for name, stack in waits:
        if stack is not None:
            native, python = frames[stack]
            by.setdefault((name, tuple(python)), set()).add(tuple(native))
    msgs = [t for (t,) in db.execute("SELECT text FROM messages WHERE text LIKE 'call stacks%'")]
    return len(waits), sum(s is None for _, s in waits), by, msgs


n, lost, by, msgs = places(sys.argv[2])
assert n >= 600 and lost == 0, (n, lost)
assert len(by) >= 3 and all(len(v) == 1 for v in by.values()), {k[0]: len(v) for k, v in by.items()}
assert any("0 of the 574 reused stacks were not the one unwound" in m for m in msgs), msgs
print("ok: check run: %d waits, all with a stack; each of their %d places reached CUDA by one "
      "native path" % (n, len(by)))
n2, lost2, by2, msgs2 = places(sys.argv[1])
assert n2 >= 600 and lost2 == 0, (n2, lost2)
assert all(len(v) == 1 for v in by2.values()), {k[0]: len(v) for k, v in by2.items()}
assert {k[0] for k in by2} == {k[0] for k in by}, (sorted(by2), sorted(by))
assert any("574 waits took the stack unwound before at their Python place" in m for m in msgs2), msgs2
print("ok: reused: %d waits, all with a stack, one per place (%d places); the trace says 574 "
      "were reused" % (n2, len(by2)))
PY
"$K" report --json --no-progress "$new" > "$WORK/new.json" || fail "report cupy_loop"
"$K" report --json --whole --no-progress "$new" > "$WORK/whole.json" || fail "report --whole"
python3 - "$WORK/new.json" "$WORK/whole.json" <<'PY' || fail "steady steps of a short loop"
import json, sys
steady, whole = (json.load(open(p, encoding="utf-8")) for p in sys.argv[1:])


def causes(r):
    f = [x for x in r["findings"] if x["rule"] == "host-bound"][0]
    return f, {c["cause"]: c["share"] for c in (f.get("host") or {}).get("causes", [])}


assert steady["steps"]["applied"] and steady["steps"]["steady"] == 298, steady["steps"]
f, c = causes(steady)
assert c.get("import", 0) < 0.05, c
fw, cw = causes(whole)
assert cw.get("import", 0) >= 0.5 and fw["gain_ns"] > 5 * f["gain_ns"], (cw, fw["gain_ns"], f["gain_ns"])
print("ok: host-bound of the 298 steady steps %.1f ms (imports %.0f %%); of the whole run %.1f ms "
      "(imports %.0f %%)" % (f["gain_ns"] / 1e6, 100 * c.get("import", 0), fw["gain_ns"] / 1e6,
                             100 * cw["import"]))
PY
