# The examples and a GPT training step recorded again on the H200 by the recorder as it
# is now (tests/fixtures/h200/current/, written by `tests/gpu/api_filter_gpt_h200.sh OUT
# KEEP`: the compact format, the trivial API list with cuBLAS's and cuDNN's queries, and
# program_start_ns). Every trace holds what its example launched; none holds a function
# its note says was left out; each knows when `record` started the program; every
# example's planted problem is found where it was planted, not in its fix, and diff sees
# the fix resolve it; the GPT step's start-up is left out of host-bound and its
# gpu-utilization fix names the exact --delay.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
C=$FIXTURES/current
recorded_examples "$FIXTURES" current "NVIDIA H200"

# the trivial API list and the program's start, in every trace
KGANTT=$K python3 - "$C" <<'PY' || fail "API list or program_start_ns"
import glob, os, re, subprocess, sys
sys.path.insert(0, "tests/gpu")
import kgt_rows
checked = 0
for xz in sorted(glob.glob(os.path.join(sys.argv[1], "*.kgt.xz"))):
    name = os.path.basename(xz)[:-7]
    if name.startswith("never_"):
        continue
    db = kgt_rows.connect("build/fixtures/current/%s.kgt" % name)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    # an imported spool (record was killed, `kgantt import` wrote it) has no start time
    if name != "longrun_recovered":
        assert int(meta.get("program_start_ns", 0)) > 0, (name, "no program_start_ns")
    texts = [t for (t,) in db.execute("SELECT text FROM messages")]
    if any(t.startswith("recording (kernels mode") for t in texts):
        assert db.execute("SELECT COUNT(*) FROM api").fetchone()[0] == 0, name
        continue
    notes = [t for t in texts if t.startswith("API calls not recorded")]
    assert notes, (name, "no note of the API calls left out")
    listed = set(notes[0].split(": ", 1)[1].split(", "))
    for must in ("cudaGetDevice", "cuKernelGetAttribute", "cuGetErrorString", "cuKernelGetName"):
        assert must in listed, (name, must, "not on the list")
    names = {re.sub(r"(_v[0-9]+)+(_ptsz)?$", "", n) for (n,) in db.execute("SELECT DISTINCT name FROM api")}
    leaked = names & listed
    assert not leaked, (name, "recorded anyway", leaked)
    checked += 1
print("ok: %d traces: none holds a function of its list (%d functions), every recorded one knows "
      "when the program started" % (checked, len(listed)))
PY

# the planted problems: found in the bad run, not in its fix; diff says the fix resolved it
rules() { "$K" report --json --no-progress "$1" | python3 -c 'import json,sys; print(" ".join(sorted(f["rule"] for f in json.load(sys.stdin)["findings"] if f["severity"] != "info")))'; }
for p in "copies_bad copies_fixed copy-compute-overlap" "launches_bad launches_graph launch-overhead" \
	"launches_bad launches_fixed launch-overhead" "streams_bad streams_fixed stream-serialization" \
	"occupancy_bad occupancy_fixed low-occupancy" "timeslice_bad timeslice_fixed time-slicing"; do
	set -- $p
	b=$(fixture "current/$1") a=$(fixture "current/$2")
	rb=$(rules "$b") ra=$(rules "$a")
	[[ " $rb " == *" $3 "* ]] || fail "$1: $3 not found ($rb)"
	[[ " $ra " != *" $3 "* ]] || fail "$2: $3 found in the fix ($ra)"
	"$K" diff "$b" "$a" > "$WORK/diff" || fail "diff $1 $2"
	grep -qE "^  resolved +$3 " "$WORK/diff" && grep -q ": faster$" "$WORK/diff" ||
		fail "diff $1 → $2: not faster with $3 resolved: $(head -20 "$WORK/diff")"
	echo "ok: $1: $3 (with: ${rb// /, }); $2: none of it; diff: faster, resolved"
done
# functions are named as users write them, without CUPTI's version suffixes (_v3020)
for n in copies_bad launches_bad gpt_default; do
	"$K" report --sites "$(fixture current/$n)" > "$WORK/$n.txt" || fail "report $n"
	! grep -E "(cuda|cu)[A-Za-z]+_v[0-9]{4,5}" "$WORK/$n.txt" || fail "$n: a suffixed name in the report"
done
grep -q "host in cudaMemcpy$" "$WORK/copies_bad.txt" || fail "copies_bad: longest gap's call"
r=$(rules "$(fixture current/streams_busy)")
[ -z "$r" ] || fail "streams_busy: $r"

# the GPT step: its steps found without annotations, and the report of them alone, the
# 7.75 s of imports, set-up and first iterations before them and the warm-up step left out
g=$(fixture current/gpt_default)
"$K" report "$g" > "$WORK/gpt-steps.txt" || fail "report gpt_default"
# (and what the host did meanwhile, from its samples: the imports, issue 24)
grep -q "^  steps        the findings are of the 11 steady steps; left out: 4.91 s before step 1 (host: 3.27 s" \
	"$WORK/gpt-steps.txt" || fail "gpt: no steps in the header: $(sed -n 5,12p "$WORK/gpt-steps.txt")"
grep -q "^  found        12 steps by the rhythm of the launches (no annotation): 919 operations" \
	"$WORK/gpt-steps.txt" || fail "gpt: steps not found: $(grep -A3 '^Steps' "$WORK/gpt-steps.txt")"
echo "ok: gpt: 12 steps of 919 operations, found without annotations; 4.91 s and a warm-up step left out"
# --whole, as before the steps: 4.0 s of start-up by the one-gap heuristic, left out of
# host-bound, and the --delay that leaves most of it out (a quarter early: start-up varies)
"$K" report --whole "$g" > "$WORK/gpt.txt" || fail "report gpt_default"
grep -q "^  steady       1.42 s without 3.97 s of start-up and wind-down idle: the findings' shares are of it$" \
	"$WORK/gpt.txt" || fail "gpt: no steady span in the header: $(sed -n 5,9p "$WORK/gpt.txt")"
tr -s ' \n' ' ' < "$WORK/gpt.txt" | grep -q "began 7.4 s after the program started.* --delay 5.5 cuts most of it" ||
	fail "gpt: no --delay in gpu-utilization's fix: $(grep -A12 'gpu-utilization:' "$WORK/gpt.txt")"
"$K" report --json --whole --no-progress "$g" > "$WORK/gpt.json" || fail "report --json gpt_default"
python3 - "$WORK/gpt.json" <<'PY' || fail "gpt: start-up"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
g = d["gpus"][0]
assert g["idle_startup_ns"] > 3.5e9, g["idle_startup_ns"]
hb = [f for f in d["findings"] if f["rule"] == "host-bound"][0]
assert hb["gain_ns"] < 2.0e9, hb["gain_ns"]   # the steps' own gaps, not the 4.0 s start-up
print("ok: gpt: %.2f s of start-up left out; host-bound %.0f ms; steady work %.1f%% busy"
      % (g["idle_startup_ns"] / 1e9, hb["gain_ns"] / 1e6, g["steady_busy_pct"]))
PY
echo "ok: gpt: gpu-utilization's fix names --delay 5.5 (steady work 7.4 s after the start)"

# windows that never opened (streams bad, 0.5 s, under --delay 30 and under --capture-range
# cudaProfilerApi without a cudaProfilerStart): the empty trace says why, and so does
# every command that refuses it
for w in "never_delay:ended 0.5 s after the program started, before --delay 30.0 had passed" \
	"never_range:never called cudaProfilerStart (--capture-range cudaProfilerApi)"; do
	n=${w%%:*} why=${w#*:}
	grep -qF "nothing to show" "$C/$n.record.err" && grep -qF "$why" "$C/$n.record.err" ||
		fail "$n: record on the H200 did not say why: $(cat "$C/$n.record.err")"
	expect_error 1 "nothing recorded: the process $why" "$K" report "$(fixture current/$n)"
	expect_error 1 "nothing recorded: the process $why" "$K" view "$(fixture current/$n)" -o "$WORK/$n.html"
done

# The graph example captures its graph on the H200 after a synchronisation: the gap before
# the graph's first kernel (the host in cudaStreamSynchronize, cudaStreamBeginCapture …
# EndCapture, cudaGraphInstantiate) is graph capture's, as tests/tools/graph_recount.py
# counts it in the trace's rows, and out of the steady span.
G=$(fixture current/launches_graph)
KGANTT=$K python3 tests/tools/graph_recount.py "$G" > "$WORK/graph.want" || fail "recount launches_graph"
"$K" report --json --no-progress "$G" > "$WORK/graph.json" || fail "report --json launches_graph"
python3 - "$WORK/graph.want" "$WORK/graph.json" <<'PY' || fail "launches_graph: graph capture"
import json, sys
want = int(dict(l.split() for l in open(sys.argv[1]))["capture_idle"])
g = json.load(open(sys.argv[2], encoding="utf-8"))["gpus"][0]
assert want > 0 and g["idle_capture_ns"] == want, (want, g["idle_capture_ns"])
print("ok: launches_graph (H200): %.2f ms of graph capture, as the rows say" % (want / 1e6))
PY
