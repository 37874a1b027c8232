# 'kgantt info' and 'kgantt report --json' read a synthetic LLM-training trace from
# bench/gen_trace.py (the shape of the report-speed benchmark's 1M-kernel trace, but small)
# and agree with each other and with SQLite on what it holds.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
N=20000
t=$WORK/synthetic.kgt
python3 bench/gen_trace.py -q -n $N --seed 3 -o "$t" || fail "bench/gen_trace.py failed"
[ -s "$t" ] || fail "generator wrote no trace"

# the generator made what it says, in the schema kgantt itself writes
python3 - "$t" "$N" <<'EOF' || fail "trace content"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
one = lambda q: db.execute(q).fetchone()[0]
assert one("SELECT value FROM meta WHERE key='format'") == "kgantt-trace"
assert one("SELECT COUNT(*) FROM kernels") == n
# one cudaLaunchKernel per kernel, linked by correlation id
assert one("SELECT COUNT(*) FROM kernel_phases WHERE api_start IS NOT NULL") == n
assert one("SELECT COUNT(*) FROM api_calls a JOIN strings s ON s.id = a.name "
           "WHERE s.text = 'cudaLaunchKernel_v7000'") == n
assert one("SELECT COUNT(*) FROM kernels "
           "WHERE NOT (queued <= submitted AND submitted < start AND start < end)") == 0
assert one("SELECT COUNT(*) FROM kernel_phases WHERE launch_latency_ns < 0") == 0
assert one("SELECT COUNT(DISTINCT demangled) FROM kernels") >= 150
assert one("SELECT COUNT(*) FROM streams") >= 4
assert one("SELECT COUNT(*) FROM streams WHERE priority = -5") >= 1
assert one("SELECT COUNT(*) FROM memcpys WHERE src_kind = 1 OR dst_kind = 1") >= 1  # pageable
assert one("SELECT COUNT(*) FROM memcpys WHERE src_kind = 2 OR dst_kind = 2") >= 1  # pinned
for t in ("memsets", "syncs", "nvtx"):
    assert one("SELECT COUNT(*) FROM " + t) > 0, t
assert one("SELECT COUNT(*) FROM sqlite_master WHERE type='index' "
           "AND name='kernels_by_correlation'") == 1
assert one("PRAGMA integrity_check") == "ok"
EOF

"$K" info "$t" > "$WORK/info" 2> "$WORK/info.err" || fail "info: $(cat "$WORK/info.err")"
info_n=$(sed -n 's/^records: kernels \([0-9,]*\),.*/\1/p' "$WORK/info" | tr -d ,)
[ "$info_n" = "$N" ] || fail "info says '$info_n' kernels, expected $N: $(cat "$WORK/info")"
grep -q "complete, exit: exit 0" "$WORK/info" || fail "info: process status"

"$K" report --json --no-progress "$t" > "$WORK/report.json" 2> "$WORK/report.err" ||
	fail "report --json exited $?: $(tail -5 "$WORK/report.err")"
report_n=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["trace"]["kernels"])' \
	"$WORK/report.json") || fail "report --json is not JSON with trace.kernels"
[ "$report_n" = "$info_n" ] || fail "report --json says $report_n kernels, info says $info_n"
echo "ok: info and report --json agree: $N kernels"

# the text report runs too
"$K" report --no-progress "$t" > "$WORK/report.txt" 2> "$WORK/report.err" ||
	fail "report exited $?: $(tail -5 "$WORK/report.err")"
grep -q "20,000 kernels" "$WORK/report.txt" || fail "text report: kernel count"
echo "ok: text report"
