# 'kgantt report' over every committed trace (kgantt H200 traces, PyTorch profiler JSON):
# the page has its sections and fits 100 columns, the JSON is well-formed and complete,
# --fail-on gates on findings, and bad input or options fail with the right exit code.
# What the rules find in each trace is checked elsewhere (the rules' own test).
. tests/e2e/lib.sh

# check_json FILE [TRACE-NAME]: the document has the top-level keys of docs/report.md, and --fail-on
# agrees with its findings (prints the worst severity: none, info, warning, critical)
check_json() {
	python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["kgantt_report_version"] == 1
for k in ("trace", "processes", "devices", "gpus", "streams", "kernels", "findings"):
    assert k in d, k
for k in ("path", "source", "span_ns", "begin_ns", "end_ns", "dropped_records", "notes"):
    assert k in d["trace"], k
assert isinstance(d["findings"], list)
for g in d["gpus"]:
    assert set(g["idle_ns_by_cause"]) == {"host", "sync", "launch", "dependency", "unknown"}
    assert 0 <= g["idle_startup_ns"] and 0 <= g["idle_winddown_ns"]
    assert g["idle_startup_ns"] + g["idle_winddown_ns"] <= sum(g["idle_ns_by_cause"].values())
    assert g["steady_busy_pct"] >= g["busy_pct"]
    if sys.argv[2:] == ["gpt_full_fast.kgt"]: # its 32 steady steps alone: 6.2 s before them
        s = d["steps"]
        assert s["source"] == "rhythm" and s["count"] == 32 and s["applied"], s
        assert d["trace"]["window"] and 1.0e9 < d["trace"]["span_ns"] < 1.2e9, d["trace"]
        assert g["idle_startup_ns"] == 0 and g["idle_winddown_ns"] == 0, g
        assert 92 < g["busy_pct"] < 93, g
    if sys.argv[2:] == ["gpt_full_fast.kgt --whole"]: # 5.6 s of imports and set-up before the steps
        assert 5.64e9 < g["idle_startup_ns"] < 5.65e9 and g["idle_winddown_ns"] == 0, g
        assert 63 < g["steady_busy_pct"] < 64 and 14 < g["busy_pct"] < 15, g
    assert isinstance(g["utilization"], list)
for k in d["kernels"]:
    assert k["name"] and k["count"] > 0 and k["total_ns"] >= 0
for i, f in enumerate(d["findings"]):
    assert f["rank"] == i + 1 and f["severity"] in ("info", "warning", "critical")
    assert isinstance(f["evidence"], list)
order = ["info", "warning", "critical"]
worst = max((order.index(f["severity"]) for f in d["findings"]), default=-1)
print(order[worst] if worst >= 0 else "none")
EOF
}

# report_ok TRACE: text and JSON reports of TRACE, checked
report_ok() {
	local t=$1 name
	name=$(basename "$t")
	"$K" report "$t" > "$WORK/page" 2> "$WORK/err" || fail "report $name exited $?: $(cat "$WORK/err")"
	for s in "kgantt report" "GPUs" "Streams (" "ernels by total time" "Findings"; do
		grep -qF "$s" "$WORK/page" || fail "report $name: no '$s' section"
	done
	grep -q $'\033' "$WORK/page" && fail "report $name: colour codes when stdout is not a terminal"
	python3 -c '
import sys
for n, l in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    if len(l.rstrip("\n")) > 100:
        sys.exit("line %d is %d columns: %s" % (n, len(l.rstrip("\n")), l))
' "$WORK/page" || fail "report $name: wider than 100 columns"
	"$K" report --json "$t" > "$WORK/r.json" 2> "$WORK/err" || fail "report --json $name exited $?"
	python3 -m json.tool "$WORK/r.json" > /dev/null || fail "report --json $name: not JSON"
	local worst
	worst=$(check_json "$WORK/r.json" "$name") || fail "report --json $name: not the documented document"
	# --fail-on: exit 3 exactly when a finding at or above the severity exists
	local sev want rc
	for sev in info warning critical; do
		want=0
		case "$sev:$worst" in
		info:info | info:warning | info:critical | warning:warning | warning:critical | \
		critical:critical) want=3 ;;
		esac
		"$K" report --fail-on "$sev" "$t" > /dev/null 2> "$WORK/err"; rc=$?
		[ $rc -eq $want ] || fail "report --fail-on $sev $name: exit $rc, expected $want (worst finding: $worst)"
	done
	echo "ok: report $name (worst finding: $worst)"
}

n=0
for x in "$FIXTURES"/*.kgt.xz; do
	# cupti_first: CUPTI refused the recorder, nothing to report (t016 checks that)
	[ "$(basename "$x" .kgt.xz)" = cupti_first ] && continue
	report_ok "$(fixture "$(basename "$x" .kgt.xz)")"
	n=$((n + 1))
done
for j in tests/fixtures/torch/*.json.gz; do
	report_ok "$j"
	n=$((n + 1))
done
# --whole: the whole run, start-up told apart by the one-gap heuristic, as before the steps
"$K" report --json --whole "$(fixture gpt_full_fast)" > "$WORK/w.json" || fail "report --whole"
check_json "$WORK/w.json" "gpt_full_fast.kgt --whole" > /dev/null ||
	fail "report --json --whole gpt_full_fast.kgt: not the whole run's"
echo "ok: report --whole gpt_full_fast.kgt: 5.6 s of start-up by the heuristic"
[ $n -gt 20 ] || fail "only $n fixtures found"

t=$(fixture streams_bad)

# json_check FILE EXPRESSION: a Python expression over the document d must hold
json_check() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not eval(sys.argv[2]))' "$1" "$2"
}

# --top limits the kernels in both outputs; JSON lists all names by default
tb=$(fixture torch_transformer_bf16)
"$K" report --json --top 1 "$tb" > "$WORK/top.json" || fail "--top 1 --json"
json_check "$WORK/top.json" 'len(d["kernels"]) == 1 < d["kernel_names"]' || fail "--json --top 1 did not keep one kernel"
"$K" report --json "$tb" > "$WORK/all.json" || fail "--json"
json_check "$WORK/all.json" 'len(d["kernels"]) == d["kernel_names"] > 10' || fail "--json does not list every kernel name"
"$K" report --top 2 "$tb" | grep -q "Top kernels by total time (2 of" || fail "--top 2 in text"

# a window at the end of int64's time (a trace whose times are the file's, not a clock's):
# "begin + --to" is past INT64_MAX and saturates, where it wrapped to a window of nothing
echo '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,'\
'"ts":9223372036854775.000,"dur":0.5,"args":{"device":0,"stream":7}}]}' > "$WORK/late.json"
"$K" report --json --to 1ms "$WORK/late.json" > "$WORK/late.out" || fail "--to 1ms at INT64_MAX"
json_check "$WORK/late.out" 'd["gpus"][0]["kernels"] == 1' || fail "--to 1ms at INT64_MAX lost the kernel"
echo "ok: report --to 1ms on a trace at INT64_MAX keeps its kernel"
# --set reaches the analysis and is recorded; --list-thresholds lists what --set takes
"$K" report --json --set min_gain_pct=100 --set sync_gap_ns=50us "$t" > "$WORK/set.json" || fail "--set"
json_check "$WORK/set.json" 'd["trace"]["overrides"] == ["min_gain_pct=100", "sync_gap_ns=50us"]' ||
	fail "--set not recorded"
json_check "$WORK/set.json" 'd["gpus"][0]["idle_gap_min_ns"] == 50000' || fail "--set sync_gap_ns not applied"
"$K" report --list-thresholds > "$WORK/thr" || fail "--list-thresholds"
grep -q "min_gain_pct" "$WORK/thr" && grep -q "sync_gap_ns" "$WORK/thr" || fail "--list-thresholds: $(cat "$WORK/thr")"
"$K" report --help | grep -q "usage: kgantt report" || fail "report --help"

# a window: --nvtx picks the ranges' span, --from/--to a time range; the page says so
nv=$(fixture nvtx_bad)
"$K" report --json --nvtx step "$nv" > "$WORK/nvtx.json" || fail "--nvtx step"
json_check "$WORK/nvtx.json" 'd["trace"]["window"]["nvtx"] == "step" and d["trace"]["kernels"] > 0' ||
	fail "--nvtx: no window in the JSON"
"$K" report --nvtx step "$nv" | grep -q "window .*ranges named 'step'" || fail "--nvtx: the page does not say"
"$K" report --json --from 1 --to 30ms "$t" > "$WORK/from.json" 2> /dev/null || fail "--from/--to"
json_check "$WORK/from.json" 'd["trace"]["window"]["begin_ns"] - d["trace"]["window"]["trace_begin_ns"] == 1000000' ||
	fail "--from 1 is not 1 ms after the trace begin"
"$K" report --json "$t" > "$WORK/none.json" || fail "--json $t"
json_check "$WORK/none.json" 'd["trace"]["window"] is None' || fail "a window without --from/--to/--nvtx"
# ... but the steady steps': torch_transformer_bf16's 5 steps after 7.6 s of set-up
json_check "$WORK/all.json" 'd["trace"]["window"]["nvtx"] is None and d["steps"]["applied"] and d["steps"]["steady"] == 5' ||
	fail "no window of the steady steps"
expect_error 1 "has no NVTX or annotation range named 'nope'" "$K" report --nvtx nope "$nv"
expect_error 2 "--from: 'soon' is not a time" "$K" report --from soon "$t"
expect_error 2 "--to must be later than --from" "$K" report --from 2ms --to 1ms "$t"
expect_error 2 "without --from/--to" "$K" report --nvtx step --from 1 "$nv"

# names are escaped in JSON and made harmless on the terminal: a Kineto trace whose
# kernel name holds quotes, brackets, a backslash, control characters and bad UTF-16
python3 - "$WORK/weird.json" <<'EOF'
import json, sys
name = 'void k<"q" & <t>, \\b\x01\x1b[31m>(float*) \u00fc'
ev = [{"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": 1000.0 + 100 * i,
       "dur": 50.0, "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [1, 1, 1],
                             "block": [128, 1, 1], "registers per thread": 32, "shared memory": 0}}
      for i in range(3)]
text = json.dumps({"schemaVersion": 1, "traceEvents": ev})
open(sys.argv[1], "w").write(text.replace("\\u00fc", "\\udcff"))  # a lone surrogate
EOF
"$K" report --json "$WORK/weird.json" > "$WORK/weird.out" || fail "report on the odd-name trace"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
n = d["kernels"][0]["name"]
assert n.startswith("void k<\"q\" & <t>, \\b\x01\x1b[31m>(float*) "), n
' "$WORK/weird.out" || fail "odd kernel name did not survive JSON: $(grep '"name"' "$WORK/weird.out")"
"$K" report "$WORK/weird.json" > "$WORK/weird.txt" || fail "text report on the odd-name trace"
grep -q $'[\001\033]' "$WORK/weird.txt" && fail "control characters from a kernel name reached the terminal"
echo "ok: odd kernel names"

# bad input: exit 1, the file named
expect_error 1 "cannot open '$WORK/none.kgt'" "$K" report "$WORK/none.kgt"
echo "this is text, not a trace, and long enough to be read as a header" > "$WORK/text.kgt"
expect_error 1 "'$WORK/text.kgt'" "$K" report "$WORK/text.kgt"
head -c 20000 "$t" > "$WORK/cut.kgt"
expect_error 1 "$WORK/cut.kgt" "$K" report "$WORK/cut.kgt"
expect_error 1 "$WORK/cut.kgt" "$K" report --json "$WORK/cut.kgt"
# a folder is a job (docs/job.md): its damaged trace is named, exit 1
expect_error 1 "cut.kgt" "$K" report "$WORK"

# bad command lines: exit 2
expect_error 2 "no threshold named 'no_such_threshold'" "$K" report --set no_such_threshold=1 "$t"
expect_error 2 "min_gain_pct" "$K" report --set min_gain_pct=lots "$t"
# durations no int64 holds (converting them was undefined behaviour), and not-a-number
expect_error 2 "sync_gap_ns: '1e300s' is not a duration (e.g. 250us, 2ms) from 0 to 3600s" "$K" report --set sync_gap_ns=1e300s "$t"
expect_error 2 "sync_gap_ns: 'nan' is not a duration" "$K" report --set sync_gap_ns=nan "$t"
# values no threshold can take: a share above 1, a percentage above 100, no chunks, no bandwidth
expect_error 2 "low_occupancy: '2' is not a number from 0 to 1" "$K" report --set low_occupancy=2 "$t"
expect_error 2 "min_gain_pct: '1000' is not a number from 0 to 100" "$K" report --set min_gain_pct=1000 "$t"
expect_error 2 "util_chunks: '2.5' is not a whole number from 1 to 10000" "$K" report --set util_chunks=2.5 "$t"
expect_error 2 "pinned_bandwidth: '0' is not a number from 0.1 to 10000" "$K" report --set pinned_bandwidth=0 "$t"
expect_error 2 "expected NAME=VALUE" "$K" report --set min_gain_pct "$t"
expect_error 2 "'fatal' is not a severity" "$K" report --fail-on fatal "$t"
expect_error 2 "--top: 'many' is not a count" "$K" report --top many "$t"
expect_error 2 "no trace given" "$K" report
expect_error 2 "is given twice" "$K" report "$t" "$t"

# a full stdout is an error, and it wins over --fail-on
if [ -w /dev/full ]; then
	"$K" report --fail-on info "$t" > /dev/full 2> "$WORK/err"; rc=$?
	[ $rc -eq 1 ] && grep -q "cannot write to standard output" "$WORK/err" || fail "report to a full disk: exit $rc"
	"$K" report --json "$t" > /dev/full 2> "$WORK/err"; rc=$?
	[ $rc -eq 1 ] || fail "report --json to a full disk: exit $rc"
fi
