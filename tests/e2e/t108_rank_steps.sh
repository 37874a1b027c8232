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
# Then a synthetic job merged into one trace: each rank's findings name its own steps.
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
for g in gpus:
    assert [s["kernels"] for s in g["steps"]] == [3] * 20, [s["kernels"] for s in g["steps"]]
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
"$K" report --list-steps --no-progress "$t" > "$WORK/list.txt" || fail "report --list-steps"
[ "$(sed -n '/^  GPU 1$/,/^$/p' "$WORK/list.txt" | grep -cE '^ +[0-9]+ +[0-9]+\.[0-9]{3} ')" = 20 ] ||
	fail "--list-steps: GPU 1's steps: $(sed -n '/^Steps/,/^Streams/p' "$WORK/list.txt")"
echo "ok: the text says so"
"$K" report --job --no-progress "$t" > "$WORK/job.txt" || fail "report --job"
tr -s ' \n' ' ' < "$WORK/job.txt" | grep -q "ranks aligned by steps detected from the rhythm of their launches (no step annotation): 2 of 2 ranks" ||
	fail "job: $(grep -A2 '^   steps' "$WORK/job.txt")"
echo "ok: the job report aligns both ranks by their steps"

# A merged job of four ranks (bench/gen_job.py, no step ranges: steps by the rhythm) whose
# rank 2's host is late 20 ms in its steps 5-7 (0-based: the generator's plan): every GPU
# has its 28 steps, and rank 2's own findings name its steps 6-8.
python3 bench/gen_job.py -o "$WORK/job" -n 4 -k 3000 --ranks-per-host 4 --clean --no-step-ranges \
	--startup 800 --straggler 2:5-7:20 > /dev/null || fail "gen_job.py"
"$K" merge -o "$WORK/merged.kgt" "$WORK"/job/rank_*.kgt > /dev/null 2>&1 || fail "merge"
"$K" report --json --no-progress "$WORK/merged.kgt" > "$WORK/merged.json" || fail "report merged"
python3 - "$WORK/merged.json" <<'PY' || fail "the merged job's steps"
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
st = d["steps"]
assert st["applied"] and st["count"] == 28, (st["applied"], st["count"])
assert sorted(g["gpu"] for g in st["other_gpus"]) == [1, 2, 3], st["other_gpus"]
assert all(g["count"] == 28 for g in st["other_gpus"]), st["other_gpus"]
late = [f for f in d["findings"] if f["rule"] == "host-bound" and f["gpu"] == 2]
assert late and late[0]["steps"]["first"] == [6, 7, 8], [(f["rule"], f["gpu"], f.get("steps")) for f in d["findings"]]
print("ok: 4 ranks merged: 28 steps on each GPU; rank 2's host-bound in its steps 6, 7, 8 (planted: 5-7 from 0)")
PY
