# Issue 12, defects 10 and 11: a Kineto kernel without "dur" was listed with 9223372036 s
# of total time; a trace whose every event is malformed reported "no problem found".
. tests/e2e/lib.sh
cat > "$WORK/nodur.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"k_without_dur","pid":0,"tid":7,"ts":100,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":200,"dur":5,"args":{"device":0,"stream":7}}]}
JSON
"$K" report --json "$WORK/nodur.json" > "$WORK/nodur.out" || fail "report of a kernel without dur"
python3 - "$WORK/nodur.out" <<'PY' || fail "a kernel without dur"
import json, sys
d = json.load(open(sys.argv[1]))
names = [k["name"] for k in d["kernels"]]
assert names == ["k2"], names                      # left out, not a 0 ns or 292-year kernel
assert d["processes"][0]["incomplete_records"] == 1, d["processes"][0]
assert all(k["total_ns"] < 10**9 for k in d["kernels"])
print("kernel without dur: left out and counted (incomplete_records = 1)")
PY
"$K" report "$WORK/nodur.json" | grep -q "1 records had a missing timestamp and were left out" ||
	fail "the report's losses line does not say the kernel was left out"

cat > "$WORK/bad.json" <<'JSON'
{"traceEvents":[
{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":"abc","dur":"x","args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":"zz","dur":5}]}
JSON
for cmd in report view plot export diff; do
	case $cmd in
	view) args=("$WORK/bad.json" -o "$WORK/bad.html") ;;
	plot) args=("$WORK/bad.json" -o "$WORK/bad.png") ;;
	export) args=(--format csv "$WORK/bad.json") ;;
	diff) args=("$WORK/bad.json" "$WORK/nodur.json") ;;
	*) args=("$WORK/bad.json") ;;
	esac
	expect_error 1 "nothing to show in '$WORK/bad.json': it holds no GPU operation, API call or range; skipped 2 malformed events" \
		"$K" $cmd "${args[@]}"
done
# fuzz_analysis found it: API calls 24 years apart once the kernels at INT64_MAX are left
# out. Their other ends, near -INT64_MAX, once placed the body that judges the rest and
# every call was kept ("span 776627963.15 s", refused); the body is now of the records that
# can be kept: two calls at 9.2e18 ns, and the one at 8.4e18 ns is far from them. The trace
# exported and read again keeps the same (it was refused then).
years=tests/fuzz/corpus/fuzz_analysis/crash-api-calls-24-years-apart.json
"$K" report "$years" > "$WORK/years.out" || fail "report of the calls 24 years apart"
grep -q "span         0 ns, from the first to the last API call" "$WORK/years.out" &&
	grep -q "1 API call whose times cannot be true" "$WORK/years.out" &&
	grep -q "far from the other records (1)" "$WORK/years.out" ||
	fail "the call far from the other two is not left out: $(cat "$WORK/years.out")"
"$K" export --format sqlite -o "$WORK/years.kgt" "$years" || fail "export of the calls"
"$K" report "$WORK/years.kgt" | grep -q "span         0 ns" ||
	fail "the exported trace of the calls does not read back as its source"
# ...and calls whose ends the source lost, 29 years apart, are refused: without their ends
# the trace once had no span to be refused for (fuzz_analysis: its export did not load)
noend=tests/fuzz/corpus/fuzz_analysis/crash-calls-without-end-far-apart.json
for cmd in report view; do
	args=("$noend")
	[ $cmd = view ] && args+=(-o "$WORK/noend.html")
	expect_error 1 "'$noend': its records span 922337203.85 s, longer than any recording: their times are not on one clock" \
		"$K" $cmd "${args[@]}"
done
echo "ok: t019_malformed_kineto"
