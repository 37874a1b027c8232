# A real trace whose correlation ids stuck: recorded on an H100 (2026-12-05, full mode, tiny
# PyTorch ops, KGANTT_DEV_AB=kinds), CUPTI gave every call and kernel from the 89th call on
# correlation id 89. Joined by it, 150,000 kernels "launched" from an early cuDeviceGetUuid:
# launch latency 1.6 s and a launch-latency gain of 245,815 s (7,026,860 %) in a 3.5 s trace.
# The fixture is its first 80 ms (kgantt export --to 80ms, packed). Checked here against the
# raw rows: the kernels queued after the call their id names had returned are counted in the
# report's note and keep no call; no finding claims more than the span; no launch-latency.
# And the quiet case: no such note on a recorded trace whose ids are sound.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
t=$WORK/stuck.kgt
xz -dc tests/fixtures/h100/stuck_correlation.kgt.xz > "$t" || fail "decompress"
"$K" export -q -f sqlite -o "$WORK/rows.kgt" "$t" || fail "export"
want=$(python3 - "$WORK/rows.kgt" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
# the call an id names: the earliest with it in its process (a runtime call and the driver
# call inside it share one); a launch is queued before its call returns
calls = {}
for p, c, start, end in db.execute("SELECT process, correlation, start, end FROM api_calls"):
    if (p, c) not in calls or start < calls[p, c][0]:
        calls[p, c] = (start, end)
n = 0
for p, c, q in db.execute("SELECT process, correlation, queued FROM kernels WHERE queued > 0"):
    if (p, c) in calls and q > calls[p, c][1] + 20000:
        n += 1
print("{:,}".format(n))
PY
) || fail "sql"
[ "$want" = "7,196" ] || fail "the fixture changed: $want kernels queued after their id's call"
"$K" report --no-progress "$t" > "$WORK/report" 2>&1 || fail "report: $(tail -2 "$WORK/report")"
tr -s ' \n' ' ' < "$WORK/report" | grep -q "$want kernels were queued after the call their correlation id names had returned" ||
	fail "the report does not count the $want kernels: $(grep -A3 '^  notes' "$WORK/report")"
! grep -q "launch-latency" "$WORK/report" || fail "launch-latency from the false links: $(grep -A2 launch-latency "$WORK/report")"
"$K" report --json --no-progress "$t" > "$WORK/report.json" || fail "report --json"
python3 - "$WORK/report.json" <<'PY' || fail "figures"
import json, sys
d = json.load(open(sys.argv[1]))
span = d["trace"]["span_ns"]
for f in d["findings"]:
    assert 0 <= f["gain_ns"] <= span, (f["rule"], f["gain_ns"], span)
for k in d["kernels"]:
    p50 = k.get("launch_latency_p50_ns")
    assert p50 is None or p50 <= span, (k["name"], p50)
print("ok: every gain and launch latency within the %.1f ms span" % (span / 1e6))
PY
"$K" report --no-progress "$(fixture current/launches_bad)" > "$WORK/quiet" 2>&1 || fail "report launches_bad"
! grep -q "correlation id names" "$WORK/quiet" || fail "a sound trace is said to have false links"
echo "ok: $want kernels with a stuck correlation id keep no call; no impossible gain"
