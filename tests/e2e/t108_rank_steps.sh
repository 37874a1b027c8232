# Steps on every GPU of one trace (issue 24): `kgantt record -- torchrun --nproc-per-node 2
# tests/gpu/torch_ranks.py` on two H200s, one trace of two ranks. Each rank runs
# `a = tanh(a @ a * 1e-3)` 20 times (a GEMM and two element-wise kernels) before NCCL's
# communicator is set up (a copy and memsets per channel, more of them than the loop has
# kernels) and five all-reduces. What the report must find, from the program and the raw
# rows (the GEMMs counted with SQL, not by kgantt):
#   - on each GPU, 20 steps of 3 kernels (not NCCL's set-up, whose rhythm has no kernel,
#     nor 10 steps of 6 because the five all-reduces after the loop repeat at its shift);
#   - the steady window holds each rank's own steady steps, which start 30 ms apart: the
#     second rank is not "unused", its warm-up is not judged, and the loops, 98 % busy,
#     give no finding;
#   - the job report of the one trace aligns both ranks by their steps.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
t=$(fixture torchrun_2ranks)
for dev in 0 1; do
	n=$(sqlite3 "$t" "SELECT COUNT(*) FROM kernels k JOIN strings s ON s.id = k.name
		WHERE k.device = $dev AND s.text LIKE '%sgemm%'") || fail "sqlite3"
	[ "$n" = 20 ] || fail "GPU $dev: $n GEMMs in the trace, the program runs 20"
done
"$K" report --json --whole --no-progress "$t" > "$WORK/whole.json" || fail "report --whole"
"$K" report --json --no-progress "$t" > "$WORK/steady.json" || fail "report"
python3 - "$WORK/whole.json" "$WORK/steady.json" <<'PY' || fail "the ranks' steps"
import json, sys
whole = json.load(open(sys.argv[1], encoding="utf-8"))
steady = json.load(open(sys.argv[2], encoding="utf-8"))
st = whole["steps"]
gpus = [st] + st["other_gpus"]
assert len(gpus) == 2, gpus
for g in gpus:
    assert g["source"] == "rhythm" and g["count"] == 20, g
    assert g["steady"] == 19 and g["first_steady"] == 2, g  # the first: cuBLAS's set-up
assert st["period"] == 3, st["period"]
assert [s["kernels"] for s in st["steps"]] == [3] * 20, [s["kernels"] for s in st["steps"]]
# each rank in its own steady steps: 19 steps of 3 kernels each, neither unused
assert [g["kernels"] for g in steady["gpus"]] == [57, 57], [(g["gpu"], g["kernels"]) for g in steady["gpus"]]
assert steady["steps"]["applied"], steady["steps"]
assert steady["findings"] == [], [(f["rule"], f["title"]) for f in steady["findings"]]
print("ok: 20 steps of 3 kernels on each GPU (19 steady), each rank in its own steady "
      "steps, no finding")
PY
"$K" report --no-progress "$t" > "$WORK/steady.txt" || fail "report (text)"
grep -q "^  steps        the findings are of the 19 steady steps of GPU 0 and those of 1 other GPU;" \
	"$WORK/steady.txt" || fail "the header: $(grep -A2 '^  steps' "$WORK/steady.txt")"
grep -q "^  other GPUs   GPU 1: 20 steps by the rhythm, " "$WORK/steady.txt" ||
	fail "the Steps section: $(sed -n '/^Steps/,/^Streams/p' "$WORK/steady.txt")"
! grep -q "^  unused" "$WORK/steady.txt" || fail "a rank called unused"
echo "ok: the text says so"
"$K" report --job --no-progress "$t" > "$WORK/job.txt" || fail "report --job"
tr -s ' \n' ' ' < "$WORK/job.txt" | grep -q "ranks aligned by steps detected from the rhythm of their launches (no step annotation): 2 of 2 ranks" ||
	fail "job: $(grep -A2 '^   steps' "$WORK/job.txt")"
echo "ok: the job report aligns both ranks by their steps"
