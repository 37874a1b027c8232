# Issue 25: real multi-rank traces from Holistic Trace Analysis's test data
# (tests/fixtures/public/hta/job_*). What the job report must say is computed by
# tests/fixtures/public/hta/expect_job.py from the raw JSON, sharing nothing with kgantt:
#   - trace_filter (2 ranks of a 128-rank pipeline-parallel job, sampled): 5 collectives
#     shared by identity (kind and size from the nccl:* calls, ends within 1 ms), rank 1
#     last at 4 of them by 31.78 ms; before, 10 were matched by position and rank 1 made
#     a critical straggler of 381 ms;
#   - trace_diff (two runs 8.5 days apart): not one job, exit 1; before, one job of
#     735,004 s with a straggler of 735,003 s.
. tests/e2e/lib.sh
PUB=tests/fixtures/public/hta

python3 "$PUB/expect_job.py" "$PUB/job_trace_filter" > "$WORK/filter.expect" || fail "expect_job.py"
"$K" report --json --no-progress "$PUB/job_trace_filter" > "$WORK/filter.json" || fail "report"
"$K" report --no-progress --color=never "$PUB/job_trace_filter" > "$WORK/filter.txt" || fail "report text"
python3 - "$WORK/filter.expect" "$WORK/filter.json" <<'PY' || fail "trace_filter: kgantt does not say what expect_job.py computed"
import json, sys
want = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
assert got["collectives_compared"] == want["collectives"], (got["collectives_compared"], want)
late = {r["rank"] if "rank" in r else r["label"].split()[-1]: r for r in got["ranks"]}
for rank, w in want["late"].items():
    r = next(x for x in got["ranks"] if x["label"] == f"rank {rank}")
    assert r["late_collectives"] == w["count"], (rank, r["late_collectives"], w)
    # the clocks are refined by the collectives' ends (two traces that name no host): a
    # few microseconds per collective
    assert abs(r["late_ns"] / 1e6 - w["ms"]) <= 0.01 * max(1, w["count"]), (rank, r["late_ns"], w)
stragglers = [f for f in got["findings"] if f["rule"] == "job-straggler"]
assert all(f["severity"] != "critical" for f in stragglers), stragglers
# the collectives' ends on the refined clocks: within the 1 ms bound
assert got["clocks"]["collective_end_diff_max_ns"] <= 1000000, got["clocks"]
print("ok: trace_filter:", want["collectives"], "collectives by identity; late", want["late"])
PY
grep -q "matched no other rank's" "$WORK/filter.txt" || fail "trace_filter: the unmatched kernels are not said"
# two ranks whose kernel counts per step differ (launches in each ProfilerStep, counted from
# the raw events): no majority, so neither rank is called the odd one out
python3 - "$PUB/job_trace_filter" "$WORK/filter.json" <<'PY' || fail "trace_filter: kernel counts"
import gzip, json, sys
counts = {}
for r in (0, 1):
    ev = json.load(gzip.open("%s/sampled_rank-%d.json.gz" % (sys.argv[1], r)))["traceEvents"]
    step = min((e for e in ev if e.get("name", "").startswith("ProfilerStep")), key=lambda e: e["ts"])
    counts[r] = sum(1 for e in ev if e.get("cat") == "cuda_runtime" and "Launch" in e["name"]
                    and step["ts"] <= e["ts"] < step["ts"] + step["dur"])
assert counts[0] != counts[1], counts
f = [x for x in json.load(open(sys.argv[2]))["findings"] if x["rule"] == "job-kernel-count"]
assert len(f) == 1, f
t = f[0]["title"]
assert "most ranks" not in t and "rank 0 ran %d kernels in step 1" % counts[0] in t and \
    "rank 1 %d" % counts[1] in t, (t, counts)
print("ok: trace_filter: %s" % t)
PY

python3 "$PUB/expect_job.py" "$PUB/job_trace_diff" > "$WORK/diff.expect" || fail "expect_job.py"
grep -q '"not_one_job": true' "$WORK/diff.expect" || fail "expect_job.py: trace_diff is one job?"
days=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gap_days"])' "$WORK/diff.expect")
expect_error 1 "not one job" "$K" report --no-progress "$PUB/job_trace_diff"
grep -qF "($days days)" "$WORK/err" || fail "trace_diff: the gap of $days days is not said: $(cat "$WORK/err")"
expect_error 1 "not one job" "$K" plot --no-progress "$PUB/job_trace_diff" -o "$WORK/diff.png"
echo "ok: trace_diff: not one job, $days days apart"
