# 'kgantt diff' on H200 fixture pairs: the fix of each example shows as faster with its
# planted finding resolved (and the reverse as slower, with the finding new); a trace
# against itself changes nothing; the JSON agrees with the traces; --fail-slower gates;
# windows, mixed formats and bad input.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"

# pair BEFORE AFTER RULE: AFTER is faster and RULE's finding is resolved
pair() {
	local b a rule=$3
	b=$(fixture "$1") a=$(fixture "$2")
	"$K" diff "$b" "$a" > "$WORK/page" 2> "$WORK/err" || fail "diff $1 $2 exited $?: $(cat "$WORK/err")"
	grep -q ": faster$" "$WORK/page" || fail "$1 → $2 not faster: $(head -5 "$WORK/page")"
	grep -qE "^  resolved +$rule " "$WORK/page" || fail "$1 → $2: $rule not resolved: $(cat "$WORK/page")"
	awk 'length($0) > 100 { exit 1 }' "$WORK/page" 2> /dev/null ||
		python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' "$WORK/page" ||
		fail "$1 → $2: the page is wider than 100 columns"
	"$K" diff --json "$b" "$a" > "$WORK/d.json" || fail "diff --json $1 $2"
	python3 - "$WORK/d.json" "$b" "$a" "$rule" <<'PY' || fail "$1 → $2: JSON"
import json, sqlite3, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
b, a, rule = sys.argv[2], sys.argv[3], sys.argv[4]
assert d["kgantt_diff_version"] == 1
assert d["span_delta_ns"] == d["after"]["span_ns"] - d["before"]["span_ns"] < 0
for side, path in (("before", b), ("after", a)):
    db = sqlite3.connect(path)
    n = db.execute("SELECT COUNT(*) FROM kernels WHERE start IS NOT NULL AND end IS NOT NULL").fetchone()[0]
    assert d[side]["kernels"] == n, (side, d[side]["kernels"], n)
    names = {r[0] for r in db.execute("SELECT DISTINCT demangled FROM kernels WHERE start IS NOT NULL")}
    got = [k for k in d["kernels"] if k[side]]
    assert len(got) == len(names), (side, len(got), len(names))
    assert sum(k[side]["count"] for k in got) == n
for k in d["kernels"]:
    t = lambda s: k[s]["total_ns"] if k[s] else 0
    assert k["delta_total_ns"] == t("after") - t("before")
f = [x for x in d["findings"] if x["rule"] == rule]
assert f and f[0]["status"] == "resolved" and f[0]["after"] is None and f[0]["before"]["gain_ns"] > 0
PY
	# the other way round: slower, the finding new, and --fail-slower gates on it
	"$K" diff "$a" "$b" > "$WORK/rev" || fail "diff $2 $1"
	grep -q ": slower$" "$WORK/rev" || fail "$2 → $1 not slower"
	grep -qE "^  new +$rule " "$WORK/rev" || fail "$2 → $1: $rule not new"
	"$K" diff --fail-slower 10 "$a" "$b" > /dev/null 2> "$WORK/err"
	[ $? -eq 3 ] || fail "--fail-slower 10 did not exit 3 on $2 → $1"
	grep -q "slower than" "$WORK/err" || fail "--fail-slower did not say why"
	"$K" diff --fail-slower 10 "$b" "$a" > /dev/null || fail "--fail-slower on a faster run"
	echo "ok: $1 → $2: faster, $rule resolved; reversed: slower, $rule new, --fail-slower exits 3"
}
pair copies_bad copies_fixed copy-compute-overlap
pair launches_bad launches_graph launch-overhead
pair streams_bad streams_fixed stream-serialization
pair occupancy_bad occupancy_fixed low-occupancy

# a trace against itself: nothing changes
t=$(fixture timeslice_bad)
"$K" diff --json "$t" "$t" > "$WORK/same.json" || fail "diff with itself"
python3 - "$WORK/same.json" <<'PY' || fail "a trace against itself changed"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["span_delta_ns"] == 0 and d["span_delta_pct"] == 0
assert d["findings"] and all(f["status"] == "same" for f in d["findings"])
assert all(k["delta_total_ns"] == 0 for k in d["kernels"])
PY
echo "ok: a trace against itself: every finding the same, no kernel changed"

# two recordings of one GPT step, fast and slow (H200): the same 5.6 s of start-up, and the
# steps 1.07 s slower; the steady span says it where the whole span mixes in the start-up
"$K" diff --json "$(fixture gpt_full_fast)" "$(fixture gpt_full_slow)" > "$WORK/gpt.json" ||
	fail "diff gpt_full_fast gpt_full_slow"
"$K" diff "$(fixture gpt_full_fast)" "$(fixture gpt_full_slow)" > "$WORK/gpt.txt" || fail "diff (text)"
grep -Eq "^  steady +1\.68 s → 2\.76 s" "$WORK/gpt.txt" && grep -Eq "^    start-up +5\.64 s → 5\.66 s" "$WORK/gpt.txt" ||
	fail "diff gpt: no steady span or start-up line: $(head -20 "$WORK/gpt.txt")"
python3 - "$WORK/gpt.json" <<'PY' || fail "diff gpt: JSON"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
b, a = d["before"], d["after"]
assert 5.64e9 < b["idle_startup_ns"] < 5.65e9 and b["idle_winddown_ns"] == 0, b
assert b["steady_span_ns"] == b["span_ns"] - b["idle_startup_ns"], b
assert a["steady_span_ns"] - b["steady_span_ns"] > 1.0e9, (a, b)
print("ok: diff gpt: steady span %.2f s → %.2f s, start-up %.2f s → %.2f s" % (
    b["steady_span_ns"] / 1e9, a["steady_span_ns"] / 1e9, b["idle_startup_ns"] / 1e9, a["idle_startup_ns"] / 1e9))
PY

# traces with start-up: the findings' shares are of the steady span (as the report says
# them), and a changed finding's row still fits 100 columns (host-bound without the gaps
# launch-overhead claims since 2026-12-07: 2.02 s → 1.40 s before)
"$K" diff "$(fixture torch_cnn_bad)" "$(fixture torch_cnn_fixed)" > "$WORK/cnn.txt" || fail "diff torch_cnn"
grep -Eq "^  changed   host-bound \[critical→critical\] gain 1\.91 s \(86\.8% of its steady span\)$" \
	"$WORK/cnn.txt" && grep -Eq "^ {12}→ 1\.31 s \(84\.0% of its steady span\)$" "$WORK/cnn.txt" ||
	fail "diff torch_cnn: host-bound's row: $(grep -A1 'host-bound' "$WORK/cnn.txt")"
python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' \
	"$WORK/cnn.txt" || fail "diff torch_cnn: a line wider than 100 columns"
echo "ok: diff torch_cnn: shares of the steady span, rows within 100 columns"

# windows on both sides, and two formats (PyTorch profiler JSON against a kgantt trace)
nv=$(fixture torch_tiny_ops)
"$K" diff --nvtx step "$nv" "$nv" > /dev/null || fail "diff --nvtx step"
"$K" diff --from 0ms --to 30ms "$(fixture copies_bad)" "$(fixture copies_fixed)" > /dev/null || fail "diff --from/--to"
"$K" diff tests/fixtures/torch/torch_tiny_ops.json.gz "$nv" > "$WORK/mixed" ||
	fail "diff of a Kineto trace and a kgantt trace"
grep -q "(kineto trace)" "$WORK/mixed" && grep -q "(kgantt trace)" "$WORK/mixed" ||
	fail "mixed formats: sources not named"
echo "ok: --nvtx, --from/--to, Kineto JSON against a kgantt trace"

# the median step (issue 24): examples/syncs runs STEPS = 200 steps of 4 + 1 kernels; the fix
# takes the per-step sync out, so each side's median step is its span over 200 (the host's
# own arithmetic, not kgantt's), and the kernels a step stay 5
bad=$WORK/sfp.kgt fixed=$WORK/sfpx.kgt
xz -dc tests/fixtures/h200/host/syncs_fp.kgt.xz > "$bad"
xz -dc tests/fixtures/h200/host/syncs_fp_fixed.kgt.xz > "$fixed"
"$K" diff --json "$bad" "$fixed" > "$WORK/steps.json" || fail "diff --json of the syncs twins"
"$K" diff "$bad" "$fixed" > "$WORK/steps.txt" || fail "diff of the syncs twins"
python3 - "$WORK/steps.json" "$WORK/steps.txt" <<'PY' || fail "diff: the median step"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2], encoding="utf-8").read()
for side in ("before", "after"):
    st = d[side]["steps"]
    assert st and st["count"] == 200 and st["source"] == "rhythm", (side, st)
    assert st["median_step_kernels"] == 5, st
    per = d[side]["span_ns"] / 200
    assert abs(st["p50_ns"] - per) < 0.03 * per, (side, st["p50_ns"], per)
assert d["median_step_delta_ns"] == d["after"]["steps"]["p50_ns"] - d["before"]["steps"]["p50_ns"]
assert d["median_step_delta_ns"] < -250000, d["median_step_delta_ns"]   # 300 µs of sync a step
assert "  steps        200 (200 steady, by rhythm) → 200 (200 steady, by rhythm)" in text, text
assert "  median step  " in text
print("ok: diff compares the median step, 200 steps each side")
PY
"$K" diff --json "$(fixture copies_bad)" "$(fixture copies_fixed)" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["median_step_delta_ns"] is None or d["before"]["steps"], d["median_step_delta_ns"]' ||
	fail "diff: median_step_delta_ns without steps on both sides"

# two different programs are said to be (pipit's SAXPY and CloverLeaf: other names, no
# kernel name in common); a fix that renamed every kernel is not (the launches example
# fuses its tiny kernels into one of another name), nor a program on another GPU
P=tests/fixtures/public/nsys
"$K" diff --no-progress "$P/saxpy_mpi_a100.sqlite.xz" "$P/cloverleaf_a100.sqlite.xz" \
	> "$WORK/other.txt" || fail "diff of two programs"
grep -q "^  other code   other programs ran, and 0% of the kernel time before and 0% after" \
	"$WORK/other.txt" || fail "diff of two programs does not say so: $(head -30 "$WORK/other.txt")"
"$K" diff --json --no-progress "$P/saxpy_mpi_a100.sqlite.xz" "$P/cloverleaf_a100.sqlite.xz" |
	python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["programs_differ"] and d["kernel_time_shared"] == {"before": 0, "after": 0}, d["kernel_time_shared"]' ||
	fail "diff --json of two programs"
for pair in "launches_bad launches_fixed" "copies_bad copies_fixed"; do
	set -- $pair
	"$K" diff --no-progress "$(fixture $1)" "$(fixture $2)" > "$WORK/same.txt" || fail "diff $pair"
	! grep -q "other code" "$WORK/same.txt" || fail "diff $pair says other code"
done
H=tests/fixtures/public/hta/job_trace_diff
"$K" diff --no-progress "$H/control_20ms.json.gz" "$H/test_20ms.json.gz" > "$WORK/gpus.txt" ||
	fail "diff of the A100 and V100 runs"
grep -q "GPUs differ" "$WORK/gpus.txt" && ! grep -q "other code" "$WORK/gpus.txt" ||
	fail "diff of one program on two GPUs: $(head -30 "$WORK/gpus.txt")"
echo "ok: diff says when two different programs are compared, and only then"

# bad input
expect_error 2 "two traces needed" "$K" diff "$t"
expect_error 2 "only two traces" "$K" diff "$t" "$t" "$t"
expect_error 2 "not a count" "$K" diff --top x "$t" "$t"
expect_error 2 "not a percentage" "$K" diff --fail-slower -5 "$t" "$t"
expect_error 1 "$WORK/missing.kgt" "$K" diff "$t" "$WORK/missing.kgt"
expect_error 1 "no-such-range" "$K" diff --nvtx no-such-range "$t" "$t"
exit 0
