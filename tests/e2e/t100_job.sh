# The job report (kgantt report of many traces, docs/job.md): on a synthetic job of 16
# ranks on 4 hosts (bench/gen_job.py: its own clock per host, NTP-sized realtime errors)
# every planted problem is found and nothing else; a clean job has no finding; a folder
# and its files give the same report; under mpirun -n 2 the same report again; the real
# H200 fixtures give the cross-rank findings the single-trace report gives; bad input is
# refused clearly.
. tests/e2e/lib.sh

J=$WORK/job
python3 bench/gen_job.py -o "$J" -n 16 -k 2000 --ranks-per-host 4 > /dev/null || fail "gen_job"
"$K" report --json "$J" > "$WORK/job.json" || fail "job report exited $?"
python3 - "$WORK/job.json" "$J.truth.json" <<'PY' || fail "job report: planted problems"
import json, sys
d, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["ranks_count"] == 16 and d["traces"] == 16, (d["ranks_count"], d["traces"])
assert d["clocks"]["hosts"] == 4 and d["clocks"]["refined_by_collectives"], d["clocks"]
# NTP errors of up to 300 µs were planted: the collectives bring them under 10 µs
assert d["clocks"]["collective_end_diff_p99_ns"] < 10000, d["clocks"]
by = {}
for f in d["findings"]:
    by.setdefault(f["rule"], []).append(f["job_rank"])
stragglers = sorted("rank %s" % r for r in t["stragglers"])
slow = ["rank %s" % r for r in t["slow"]]
extra = ["rank %d" % e["rank"] for e in t["extra_kernels"]]
# the slow GPU also arrives late: it may be named as a straggler too, nobody else
assert set(stragglers) <= set(by["job-straggler"]) <= set(stragglers + slow), by
assert by["job-slow-rank"] == slow, by
assert by["job-kernel-count"] == extra, by
assert "job-imbalance" not in by, by
r = {x["label"]: x for x in d["ranks"]}
assert 1.25 < r[slow[0]]["speed_ratio"] < 1.35, r[slow[0]]["speed_ratio"]
late = {s["last_rank"] for s in d["steps"] if s["worst_skew_ns"] > 4000000}
assert late == {"rank 11"}, late  # the 6 ms sleeps of steps 6-10
# its NVTX `step` ranges are its steps, as before: none detected
assert all(x["steps"] == t["steps"] and x["step_ranges"] == "step" and
           x["steps_source"] == "annotation" for x in d["ranks"]), \
    {(x["label"], x["steps"], x["step_ranges"], x["steps_source"]) for x in d["ranks"]}
assert d["steps_note"] is None, d["steps_note"]
print("ok: planted stragglers %s, slow %s, extra kernels %s found" % (stragglers, slow, extra))
PY
echo "ok: every planted problem found, nothing else"

# a folder and its files: the same report; the text page too
"$K" report --json "$J"/rank_*.kgt > "$WORK/files.json" || fail "report of the files"
cmp -s "$WORK/job.json" "$WORK/files.json" || fail "folder and files differ: $(diff "$WORK/job.json" "$WORK/files.json" | head -5)"
"$K" report "$J" > "$WORK/job.txt" || fail "text job report"
grep -q "^kgantt job report: 16 ranks from 16 traces, 4 host clocks" "$WORK/job.txt" || fail "text header: $(head -2 "$WORK/job.txt")"
grep -q "job-straggler: rank 3 arrives last" "$WORK/job.txt" || fail "text: straggler"
"$K" report --ranks 0-3 --sort rank --top 0 "$J" > "$WORK/some.txt" || fail "--ranks"
[ "$(grep -c '^  rank [0-9]* *node' "$WORK/some.txt")" = 4 ] || fail "--ranks 0-3 shows $(grep -c '^  rank [0-9]* *node' "$WORK/some.txt") ranks"
echo "ok: folder = files; text page; --ranks"

# a clean job: no finding
python3 bench/gen_job.py -o "$WORK/clean" -n 8 -k 2000 --ranks-per-host 4 --clean > /dev/null || fail "gen clean"
"$K" report --json "$WORK/clean" > "$WORK/clean.json" || fail "clean job report"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["findings"] == [], [f["title"] for f in d["findings"]]' \
	"$WORK/clean.json" || fail "clean job has findings"
"$K" report --fail-on warning "$J" > /dev/null 2>&1
[ $? = 3 ] || fail "--fail-on did not fail on the planted job"
"$K" report --fail-on warning "$WORK/clean" > /dev/null || fail "--fail-on failed on the clean job"
echo "ok: clean job: no finding; --fail-on"

# point-to-point transfers (a pipeline's SendRecv kernels, each rank's 0.2 ms after the
# rank before's, by design) are not collectives: the same findings as without them, and
# the report says they were not compared (issue 25; by position, every SendRecv was a
# collective and rank 7 of each host a straggler)
python3 bench/gen_job.py -o "$WORK/p2p" -n 16 -k 2000 --ranks-per-host 4 --p2p > /dev/null || fail "gen --p2p"
"$K" report --json "$WORK/p2p" > "$WORK/p2p.json" || fail "p2p job report"
python3 - "$WORK/job.json" "$WORK/p2p.json" <<'PY' || fail "point-to-point traffic changed the findings"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda d: sorted((f["rule"], f["job_rank"]) for f in d["findings"])
assert key(a) == key(b), (key(a), key(b))
m = b["collectives_matching"]
assert m["point_to_point"] == 16 * 19 and b["collectives_compared"] == a["collectives_compared"], m
print("ok: --p2p: the same findings", key(b), "and", m["point_to_point"], "point-to-point kernels left out")
PY

# a pipeline-parallel job as PyTorch's profiler writes it (tests/tools/gen_pipeline.py:
# 4 stages, 8 micro-batches, stage 1's compute 1.5x slower): each send is paired with its
# peer's recv (by "Dst Rank"/"Src Rank", or the other rank of a group of two), and the
# report says how long the receives waited for their senders, per rank and in all, as
# tests/tools/expect_p2p.py computes from the raw events; no straggler from a transfer.
# Before, the 52 SendRecv kernels were only counted.
python3 tests/tools/gen_pipeline.py "$WORK/pipe" --slow 1:1.5 || fail "gen_pipeline"
python3 tests/tools/expect_p2p.py "$WORK/pipe" > "$WORK/pipe.expect" || fail "expect_p2p.py"
"$K" report --json --no-progress "$WORK/pipe" > "$WORK/pipe.json" || fail "pipeline job report"
python3 - "$WORK/pipe.json" "$WORK/pipe.expect" <<'PY' || fail "pipeline: transfers not paired as expect_p2p.py pairs them"
import json, sys
d, w = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
m = d["collectives_matching"]
assert (m["transfers"], m["point_to_point_paired"], m["point_to_point"] - m["point_to_point_paired"]) == \
    (w["transfers"], w["paired"], w["unpaired"]), (m, w)
assert m["transfer_wait_ns"] == w["total_wait_ns"], (m, w)
for r in d["ranks"]:
    assert r["p2p_wait_ns"] == w["wait_ns"].get(r["rank"], 0), (r["label"], r["p2p_wait_ns"], w)
    assert r["p2p_caused_ns"] == w["caused_ns"].get(r["rank"], 0), (r["label"], r["p2p_caused_ns"], w)
    assert r["late_collectives"] == 0, r["label"]
assert not [f for f in d["findings"] if f["rule"] == "job-straggler"], d["findings"]
assert "paired by peer as %d transfers" % w["transfers"] in d["collectives_note"], d["collectives_note"]
print("ok: pipeline:", w["transfers"], "transfers paired by peer; the receives waited",
      w["total_wait_ns"] / 1e6, "ms for their senders; no straggler")
PY

# exposed communication beside a straggler (issue 25): every all-reduce after the backward
# pass (gen_job.py --exposed), rank 3's host late. A rank's wait for the late rank is
# job-straggler's cost; its own exposed-communication finding keeps the communication
# after the last rank arrived, with no compute beside it: min(that, compute not beside
# communication), as tests/tools/expect_job_wait.py computes from the raw kernels. Before,
# it counted the wait too (rank 0: 61.3 ms of gain, of which 42.6 ms waiting for rank 3).
# With --exposed-tail, compute runs beside each all-reduce's last 150 µs: the wait, at its
# start, is still all exposed, which the summary's exposed lead says (spreading the exposed
# time evenly over the kernel, as before, put 20 % of each wait beside compute).
for tail in 0 150; do
python3 bench/gen_job.py -o "$WORK/exposed" -n 8 -k 2000 --exposed --exposed-tail $tail > /dev/null ||
	fail "gen --exposed --exposed-tail $tail"
python3 tests/tools/expect_job_wait.py "$WORK/exposed" > "$WORK/exposed.expect" || fail "expect_job_wait.py"
"$K" report --json "$WORK/exposed" > "$WORK/exposed.json" || fail "exposed job report"
python3 - "$WORK/exposed.json" "$WORK/exposed.expect" <<'PY' || fail "exposed communication counts the straggler's wait (--exposed-tail $tail)"
import json, sys
d, want = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ms = lambda ns: round(ns / 1e6, 2)
checked = 0
for r in d["ranks"]:
    w = want[r["rank"]]
    assert r["comm_exposed_ns"] == w["exposed_ns"], (r["label"], r["comm_exposed_ns"], w)
    # the wait lies in each all-reduce's exposed lead: its exposed part is exact (1 µs per
    # collective for rounding)
    assert abs(r["comm_exposed_wait_ns"] - w["wait_exposed_ns"]) <= 1000 * r["collectives"], \
        (r["label"], r["comm_exposed_wait_ns"], w)
    gain = min(w["after_ns"], w["compute_free_ns"])
    f = [x for x in r["top_findings"] if x["rule"] == "exposed-communication"]
    assert len(f) == 1 and abs(f[0]["gain_ns"] - gain) <= 1000 * r["collectives"], (r["label"], f, gain)
    # the rank's lost time is its exposed communication: the straggler's part and
    # exposed-communication's do not add up to more
    assert f[0]["gain_ns"] + w["wait_exposed_ns"] <= w["exposed_ns"] + 1000 * r["collectives"], (r["label"], f)
    checked += w["wait_exposed_ns"] > 1e6
assert checked >= 6, checked
print("ok: --exposed: exposed-communication without the wait for the late rank, e.g. rank 0:",
      ms(want["0"]["exposed_ns"]), "ms exposed,", ms(want["0"]["wait_exposed_ns"]), "ms of it waiting")
PY
rm -rf "$WORK/exposed" "$WORK/exposed.truth.json"
done
# all-reduces beside the backward pass (compute beside their start too), rank 1 late at
# every one: the job places rank 0's wait by its summary's exposed eighths. The exact
# figure from the raw kernels (tests/tools/expect_mgpu_wait.py): 12.53 ms; spread evenly
# over each kernel, as the job did before, 15.67 ms.
python3 bench/gen_job.py -o "$WORK/overlap" -n 2 -k 2000 --ranks-per-host 2 --clean \
	--straggler 1:0-1000:3 -j 1 > /dev/null || fail "gen_job overlap"
python3 tests/tools/expect_mgpu_wait.py "$WORK/overlap" > "$WORK/overlap.expect" || fail "expect_mgpu_wait.py"
"$K" report --json "$WORK/overlap" > "$WORK/overlap.json" || fail "overlap job report"
python3 - "$WORK/overlap.json" "$WORK/overlap.expect" <<'PY' || fail "the job's exposed wait beside compute"
import json, sys
d, w = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["gpus"]
checked = 0
for r in d["ranks"]:
    x = w[str(r["pid"])]
    # within 1 % (and 1 µs a collective): the eighths' 255ths
    assert abs(r["comm_exposed_wait_ns"] - x["wait_exposed_ns"]) <= 0.01 * x["wait_exposed_ns"] + 1000 * r["collectives"], \
        (r["label"], r["comm_exposed_wait_ns"], x)
    checked += x["wait_exposed_ns"] > 1e6 and abs(x["wait_spread_ns"] - x["wait_exposed_ns"]) > 1e6
assert checked == 1, checked
print("ok: overlapped all-reduces: the job's exposed wait", [round(r["comm_exposed_wait_ns"] / 1e6, 2) for r in d["ranks"]],
      "ms, exact", sorted(round(x["wait_exposed_ns"] / 1e6, 2) for x in w.values()))
PY

# a job without collectives and one slow GPU (issue 25): the ranks table leads with the
# rank the findings name, not with ranks 0-15 by a delay nobody causes
python3 bench/gen_job.py -o "$WORK/nocomm" -n 64 -k 1000 --no-comm --clean --slow 41:1.5 > /dev/null || fail "gen --no-comm"
"$K" report --color=never "$WORK/nocomm" > "$WORK/nocomm.txt" || fail "no-comm job report"
grep -q "job-slow-rank: rank 41 " "$WORK/nocomm.txt" || fail "no-comm: rank 41 not named slow: $(grep '^#' "$WORK/nocomm.txt")"
[ "$(grep -A2 '^Ranks (' "$WORK/nocomm.txt" | tail -1 | awk '{print $1, $2}')" = "rank 41" ] ||
	fail "no-comm: the ranks table does not lead with rank 41: $(grep -A3 '^Ranks (' "$WORK/nocomm.txt")"
echo "ok: ranks table leads with the rank the findings name"

# traces that name no step (no NVTX range) but run a clear loop: the ranks are aligned by
# the steps found from the rhythm of their launches, every one from the first, and the
# report says so (issue 24). Planted (gen_job's truth): rank 1's host sleeps 6 ms before
# the backward pass of steps 6-7, rank 2 launches 6 extra kernels in step 5.
R=$WORK/rhythm
python3 bench/gen_job.py -o "$R" -n 3 -k 2000 --ranks-per-host 2 --straggler 1:5-6:6 \
	--extra 2:4:6 --no-step-ranges -j 1 > /dev/null || fail "gen_job --no-step-ranges"
"$K" report --json "$R" > "$WORK/rhythm.json" || fail "job report of detected steps exited $?"
"$K" report "$R" > "$WORK/rhythm.txt" || fail "text job report of detected steps"
python3 - "$WORK/rhythm.json" "$R.truth.json" "$WORK/rhythm.txt" "$R" <<'PY' ||
import json, re, sqlite3, sys
d, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
txt, folder = open(sys.argv[3]).read(), sys.argv[4]
# the truth, from the generator and the traces themselves: no step range anywhere, and
# every step of the loop launches the same kernels (the rank without extras: total / steps)
db = [sqlite3.connect("%s/rank_%05d.kgt" % (folder, r)) for r in range(3)]
assert all(c.execute("SELECT count(*) FROM nvtx").fetchone()[0] == 0 for c in db)
per_step = db[0].execute("SELECT count(*) FROM kernels").fetchone()[0] / t["steps"]
assert per_step == int(per_step), per_step
(srank, sx), = t["stragglers"].items()
extra, = t["extra_kernels"]
assert d["ranks_count"] == 3 and t["steps"] == 19, (d["ranks_count"], t["steps"])
for x in d["ranks"]:  # as many steps as the loop ran, each rank, warm-up included
    assert (x["steps"], x["step_ranges"], x["steps_source"]) == \
        (t["steps"], "(detected by rhythm)", "rhythm"), (x["label"], x["steps"], x["steps_source"])
assert d["steps_note"].startswith("ranks aligned by steps detected from the rhythm"), d["steps_note"]
assert re.search(r"^   steps +ranks aligned by steps detected from the rhythm", txt, re.M), txt[:600]
# the straggler in the steps it slept in, and in no other
late = sorted(s["step"] for s in d["steps"] if s["worst_skew_ns"] > sx["ms"] * 0.5e6)
assert late == list(range(sx["steps"][0], sx["steps"][1] + 1)), late
assert {s["last_rank"] for s in d["steps"] if s["step"] in late} == {"rank " + srank}, d["steps"]
by = {f["rule"]: f for f in d["findings"]}
assert by["job-straggler"]["job_rank"] == "rank " + srank, by["job-straggler"]["title"]
# the extra kernels in the step they were launched in, with the command that shows it
kc = by["job-kernel-count"]
want = "rank %d ran %d kernels in step %d where most ranks ran %d" % (
    extra["rank"], per_step + extra["count"], extra["step"], per_step)
assert want in kc["title"], (want, kc["title"])
assert "--rhythm --steps %d" % extra["step"] in kc["fix"], kc["fix"]
print("ok: %d steps on each rank from the rhythm; straggler rank %s in steps %s; %s" %
      (t["steps"], srank, late, want))
PY
	fail "a job without step annotations, aligned by detected steps"
"$K" report --rhythm --steps 5 "$R/rank_00002.kgt" | grep -q "recorded     110 kernels" ||
	fail "the kernel-count finding's command does not show rank 2's step 5 (110 kernels)"
if command -v mpirun > /dev/null && ldd "$K" | grep -q libmpi; then
	mpirun -n 2 --allow-run-as-root --oversubscribe "$K" report --json "$R" > "$WORK/rhythm-mpi.json" \
		2> "$WORK/mpi.err" || fail "mpirun -n 2 kgantt report of detected steps: $(tail -3 "$WORK/mpi.err")"
	python3 - "$WORK/rhythm.json" "$WORK/rhythm-mpi.json" <<'PY' || fail "detected steps: MPI report differs"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a["mpi_processes"] = b["mpi_processes"] = 0
assert a == b, [k for k in a if a[k] != b[k]]
PY
fi
# a job too short for a loop to show (2 iterations; a rhythm takes 3): no step, as before
python3 bench/gen_job.py -o "$WORK/noloop" -n 2 -k 300 --no-step-ranges -j 1 > /dev/null ||
	fail "gen_job of 2 steps"
"$K" report --json "$WORK/noloop" > "$WORK/noloop.json" || fail "job report of no loop"
"$K" report "$WORK/noloop" > "$WORK/noloop.txt" || fail "text job report of no loop"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = [(x["steps"], x["step_ranges"], x["steps_source"]) for x in d["ranks"]]
assert got == [(0, None, None)] * 2 and d["steps"] == [] and d["steps_note"] is None, got' \
	"$WORK/noloop.json" || fail "a job without a loop has steps"
grep -q "^   steps " "$WORK/noloop.txt" && fail "a job without a loop has a steps line"
echo "ok: no step annotation: ranks aligned by detected steps, said; no loop: no steps"

# MPI: the traces shared out over 2 processes, the same report
if command -v mpirun > /dev/null && ldd "$K" | grep -q libmpi; then
	mpirun -n 2 --allow-run-as-root --oversubscribe "$K" report --json "$J" > "$WORK/mpi.json" 2> "$WORK/mpi.err" ||
		fail "mpirun -n 2 kgantt report exited $?: $(tail -3 "$WORK/mpi.err")"
	python3 - "$WORK/job.json" "$WORK/mpi.json" <<'PY' || fail "MPI report differs"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert b["mpi_processes"] == 2, b["mpi_processes"]
a["mpi_processes"] = b["mpi_processes"] = 0
assert a == b, [k for k in a if a[k] != b[k]]
PY
	echo "ok: mpirun -n 2: the same report"
else
	echo "skip: MPI part (no mpirun, or kgantt built without MPI)"
fi

# the real H200 traces: the job report finds what the single-trace report finds across GPUs
for name in multigpu_bad multigpu_fixed torchrun_2ranks; do
	t=$(fixture $name)
	"$K" report --json --no-progress "$t" > "$WORK/one.json" || fail "report $name"
	"$K" report --json --job "$t" > "$WORK/jobone.json" || fail "report --job $name"
	python3 - "$WORK/one.json" "$WORK/jobone.json" "$name" <<'PY' || fail "$name: job and trace reports disagree"
import json, sys
one, job, name = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
cross = {"gpu-imbalance": "job-imbalance", "straggler": "job-straggler"}
want = sorted(cross[f["rule"]] for f in one["findings"] if f["rule"] in cross)
got = sorted(f["rule"] for f in job["findings"] if f["rule"] in cross.values())
assert want == got, (want, got)
if name == "multigpu_bad":
    assert job["findings"][0]["job_rank"].endswith("GPU 0"), job["findings"][0]["job_rank"]
if name == "torchrun_2ranks":
    assert [r["label"] for r in job["ranks"]] == ["rank 0 GPU 0", "rank 1 GPU 1"] or \
        sorted(r["label"] for r in job["ranks"]) == ["rank 0", "rank 1"], [r["label"] for r in job["ranks"]]
print("ok: %s: cross-GPU findings %s in both" % (name, want or "none"))
PY
done

# the job's chart and page: one lane per rank, the findings' ranks marked
"$K" plot "$J" -o "$WORK/job.png" --width 900 || fail "plot of the job"
python3 - "$WORK/job.png" <<'PY' || fail "the job's chart is not a PNG of its lanes"
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", b[:8]
w, h = struct.unpack(">II", b[16:24])
assert w == 900 and 16 * 14 < h < 1000, (w, h)   # 16 lanes of 14 px, header, legend
PY
"$K" plot "$J" -o "$WORK/some.png" --ranks 3,8 --width 900 || fail "plot --ranks"
python3 -c 'import struct,sys; b=open(sys.argv[1],"rb").read(); h=struct.unpack(">II",b[16:24])[1]; assert h < 200, h' \
	"$WORK/some.png" || fail "plot --ranks 3,8 draws more than two lanes"
expect_error 1 "matches none" "$K" plot "$J" -o "$WORK/none.png" --ranks 500
"$K" plot "$J" -o "$WORK/full.png" --full 3,11 || fail "plot --full"
[ -s "$WORK/full.rank3.png" ] && [ -s "$WORK/full.rank11.png" ] || fail "plot --full 3,11 drew no chart of rank 3 or 11"
"$K" view "$J" -o "$WORK/job.html" --full 3 -q || fail "view of the job"
[ -f "$WORK/job.rank3.html" ] || fail "view --full 3 wrote no page for rank 3"
python3 - "$WORK/job.html" <<'PY' || fail "the job's page"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script type="application/json" id="kgantt-job">(.*?)</script>', page, re.S)
d = json.loads(m.group(1))
assert len(d["ranks"]) == 16 and d["bins"] == 1024, len(d["ranks"])
r3 = [r for r in d["ranks"] if r["label"] == "rank 3"][0]
assert r3["full"] == "job.rank3.html" and r3["finding"] == 1, (r3["full"], r3["finding"])
assert len(r3["bins"]) == 1024 and r3["lasts"], "no bins or last-joined marks"
others = [r for r in d["ranks"] if r["label"] == "rank 0"][0]
assert others["waits"], "rank 0 never waits for rank 3"
assert d["findings"][0]["rule"] == "job-straggler"
print("ok: page of %d ranks, %d findings" % (len(d["ranks"]), len(d["findings"])))
PY
# the steps on the page's time axis (issue 24): where the first rank began each, as the
# traces' own `step` ranges say (their realtime offsets put them on one clock: NTP-close)
python3 - "$WORK/job.html" "$J" <<'PY' || fail "the job's page: steps"
import glob, json, re, sqlite3, sys
page = open(sys.argv[1], encoding="utf-8").read()
d = json.loads(re.search(r'<script type="application/json" id="kgantt-job">(.*?)</script>', page, re.S).group(1))
firsts = {}
for f in glob.glob(sys.argv[2] + "/rank_*.kgt"):
    db = sqlite3.connect(f)
    off = db.execute("SELECT realtime_offset_ns FROM processes").fetchone()[0]
    rows = db.execute("SELECT n.start FROM nvtx n JOIN strings s ON s.id = n.name "
                      "WHERE s.text = 'step' ORDER BY n.start").fetchall()
    for k, (t,) in enumerate(rows):
        firsts[k] = min(firsts.get(k, t + off), t + off)
want = [firsts[k] - firsts[0] for k in sorted(firsts)]
got = [t - d["steps"]["start"][0] for t in d["steps"]["start"]]
assert len(got) == len(want), (len(got), len(want))
assert all(abs(a - b) < 400000 for a, b in zip(got, want)), list(zip(got, want))[:5]
print("ok: the page's %d steps where the traces' ranges begin them" % len(got))
PY
expect_error 2 "is for a job" "$K" view --full 3 "$(fixture copies_bad)"
echo "ok: plot and view of the job"

# the same job after 2 s of start-up on every rank (imports, loading: one set-up kernel,
# then idle): the same findings with the same shares (of the steady span), the start-up
# given per rank and left out of busy and idle, drawn as its own state
S=$WORK/startup
python3 bench/gen_job.py -o "$S" -n 16 -k 2000 --ranks-per-host 4 --startup 2000 > /dev/null ||
	fail "gen_job --startup"
"$K" report --json "$S" > "$WORK/startup.json" || fail "job report with start-up"
"$K" report "$S" > "$WORK/startup.txt" || fail "text job report with start-up"
"$K" view "$S" -o "$WORK/startup.html" -q || fail "view of the job with start-up"
"$K" plot "$S" -o "$WORK/startup.png" --width 900 || fail "plot of the job with start-up"
python3 - "$WORK/job.json" "$WORK/startup.json" "$WORK/startup.txt" "$WORK/startup.html" <<'PY' ||
import json, re, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
txt, page = (open(p, encoding="utf-8").read() for p in sys.argv[3:5])
key = lambda d: [(f["rule"], f["job_rank"], f["severity"], round(f["gain_pct"])) for f in d["findings"]]
assert key(a) == key(b), (key(a), key(b))
assert b["span_ns"] > a["span_ns"] + 1.9e9, (a["span_ns"], b["span_ns"])
assert abs(b["steady_span_ns"] - a["steady_span_ns"]) < 0.01 * a["steady_span_ns"], \
    (a["steady_span_ns"], b["steady_span_ns"])
for ra, rb in zip(a["ranks"], b["ranks"]):
    assert 1.99e9 < rb["idle_startup_ns"] < 2.01e9, rb["idle_startup_ns"]
    assert ra["steady_idle_by_cause_ns"] == rb["steady_idle_by_cause_ns"], rb["label"]
assert "steady work" in txt.splitlines()[0], txt.splitlines()[0]
assert re.search(r"^  start-up: 2\.00 s to 2\.00 s of GPU idle", txt, re.M), "no start-up line"
busy = lambda t: sorted(re.findall(r"^  rank \d+ +node\d+ +[0-9.]+ +(\d+%)", t, re.M))
assert busy(txt) == busy(open(sys.argv[3].replace("startup.txt", "job.txt")).read()), busy(txt)
d = json.loads(re.search(r'<script type="application/json" id="kgantt-job">(.*?)</script>',
                         page, re.S).group(1))
edge = d["states"].index("idle: start-up or wind-down")
assert len(d["colors"]) == len(d["states"]) and d["colors"][edge].startswith("#"), d["colors"]
assert 0 < d["steady_b_ns"] < d["steady_e_ns"] <= d["span_ns"] and "steady work" in d["subtitle"], \
    (d["steady_b_ns"], d["steady_e_ns"], d["span_ns"])  # the page opens on the steps
# the bins cover the steady work: the same as the job without the start-up, bin for bin
plain = json.loads(re.search(r'<script type="application/json" id="kgantt-job">(.*?)</script>',
                             open(sys.argv[4].replace("startup.html", "job.html"),
                                  encoding="utf-8").read(), re.S).group(1))
for rb, ra in zip(d["ranks"], plain["ranks"]):
    assert rb["b"] < rb["sb"] - 1.9e9 and rb["se"] == rb["e"], (rb["b"], rb["sb"], rb["se"], rb["e"])
    # the page orders "idle" as the report's --sort idle: the steady work's idle
    assert rb["idle_ns"] == sum(rb["steady_idle_by_cause_ns"].values()), rb["label"]
    same = sum(x == y for x, y in zip(rb["bins"], ra["bins"]))
    assert same > 0.95 * len(ra["bins"]), (rb["label"], same)
print("ok: 2 s of start-up: the same %d findings and shares, busy and idle of the steady span"
      % len(key(b)))
PY
	fail "a job with start-up"

# traces with hardware samples read on two threads at once, again and again: every rank
# arrives (a shared buffer in the samples' reader once garbled one thread's SQL)
mkdir -p "$WORK/hw"
for i in 1 2 3 4 5 6 7 8; do cp "$(fixture compact_bound)" "$WORK/hw/r$i.kgt"; done
for round in 1 2 3 4 5; do
	"$K" report -j 2 "$WORK/hw" > "$WORK/hw.txt" 2> "$WORK/hw.err" || fail "hw job, round $round: $(cat "$WORK/hw.err")"
	grep -q "^kgantt job report: 8 ranks from 8 traces" "$WORK/hw.txt" || fail "hw job, round $round: $(head -1 "$WORK/hw.txt")"
done
echo "ok: traces with hardware samples read on two threads, 5 rounds"

# bad input
mkdir -p "$WORK/empty"
expect_error 1 "holds no trace" "$K" report "$WORK/empty"
expect_error 2 "not a rank expression" "$K" report --ranks 3-1 "$J"
expect_error 2 "is not one of" "$K" report --sort fastest "$J"
for cmd in report plot view; do
	expect_error 2 "is not a thread count" "$K" $cmd -j 0 "$J" -o "$WORK/j0.out"
done
cp -r "$J" "$WORK/broken"
head -c 3000 "$J/rank_00005.kgt" > "$WORK/broken/rank_00005.kgt"
"$K" report "$WORK/broken" > "$WORK/broken.txt" 2> "$WORK/broken.err"
[ $? = 1 ] || fail "a job with a damaged trace did not exit 1"
grep -q "rank_00005.kgt" "$WORK/broken.err" || fail "the damaged trace is not named: $(cat "$WORK/broken.err")"
grep -q "not read.*rank_00005.kgt" "$WORK/broken.txt" || fail "the report does not say what it could not read"
grep -q "15 ranks from 16 traces" "$WORK/broken.txt" || fail "the other ranks: $(head -1 "$WORK/broken.txt")"
echo "ok: a damaged trace is named, the others reported, exit 1"

# two traces whose realtime offsets put them 28 years apart are not one job (issue 22: the
# job's span read 8.98e17 ns)
Y=$WORK/years
mkdir -p "$Y"
xz -dc tests/fixtures/h200/copies_bad.kgt.xz > "$Y/a.kgt" || fail "fixture"
cp "$Y/a.kgt" "$Y/b.kgt"
python3 - "$Y/b.kgt" <<'PY' || fail "editing the copy"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE processes SET host = 'elsewhere', "
           "realtime_offset_ns = realtime_offset_ns - 900000000000000000")
db.commit()
PY
"$K" report "$Y" > "$WORK/years.txt" 2> "$WORK/years.err"
[ $? = 1 ] || fail "ranks 28 years apart did not exit 1"
grep -q "not one job: .* begins 899999999.94 s (10416.7 days) after every rank" "$WORK/years.err" ||
	fail "ranks years apart: $(cat "$WORK/years.err")"
echo "ok: ranks 28 years apart are not one job, exit 1"
