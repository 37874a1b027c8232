# 'kgantt info' and 'kgantt dump' show what the H200 traces hold.
. tests/e2e/lib.sh
t=$(fixture streams_fixed)
"$K" info "$t" > "$WORK/info"
grep -q "160 kernels" "$WORK/info" || fail "info: kernel count"
grep -q "complete, exit: exit 0" "$WORK/info" || fail "info: process status"
# each process's kernels (counted in the model info loads), against the trace's own rows
# counted with SQL
ranks=$(fixture torchrun_2ranks)
"$K" info "$ranks" | sed -n 's/^  #\([0-9]*\) pid .* mode, \([0-9]*\) kernels, .*/\1 \2/p' > "$WORK/pk"
PYTHONPATH=tests/gpu KGANTT="$K" python3 - "$ranks" > "$WORK/pk.sql" <<'EOF' || fail "kgt_rows"
import sys, kgt_rows
db = kgt_rows.connect(sys.argv[1])
n = dict(db.execute("SELECT process, COUNT(*) FROM kernels GROUP BY process"))
for (p,) in db.execute("SELECT process FROM processes ORDER BY process"):
    print(p, n.get(p, 0))
EOF
cmp -s "$WORK/pk" "$WORK/pk.sql" && grep -q " [1-9]" "$WORK/pk" ||
	fail "info's kernels by process $(tr '\n' ' ' < "$WORK/pk")are not the rows' $(tr '\n' ' ' < "$WORK/pk.sql")"
"$K" dump --table list "$t" | grep -q "^kernel_phases	view" || fail "dump --table list"
"$K" dump --table kernel_phases --limit 3 "$t" > "$WORK/k"
[ "$(wc -l < "$WORK/k")" -eq 4 ] || fail "dump --limit 3 gave $(wc -l < "$WORK/k") lines"
head -1 "$WORK/k" | grep -q "queue_wait_ns" || fail "dump header"
grep -q "streams_work" "$WORK/k" || fail "dump: demangled kernel name"
expect_error 1 "has no table 'nope'" "$K" dump --table nope "$t"
# the stream priorities come out signed, as the program set them (-5 is the H200's highest)
"$K" dump --table streams "$t" | awk -F'\t' 'NR>1 && $4 < 0 {found=1} END {exit !found}' ||
	echo "(no negative-priority stream in this example)"
# killed program: info says it is incomplete, and why
"$K" info "$(fixture longrun_killed)" > "$WORK/ki"
grep -q "INCOMPLETE, exit: signal 9" "$WORK/ki" || fail "info on killed trace: $(cat "$WORK/ki")"
grep -q "note: no end record" "$WORK/ki" || fail "info: note on killed trace"
# info reads every format the other commands read: what the model holds, and its span,
# the one report gives (model end - begin), for a kgantt trace as for the others
t=$(fixture copies_bad)
"$K" info "$t" | grep -q "^span: " || fail "info: span"
span_info=$("$K" info "$t" | sed -n 's/^span: \([0-9.]*\) ms$/\1/p')
span_report=$("$K" report "$t" | sed -n 's/^  span *\([0-9.]*\) ms,.*/\1/p')
awk -v a="$span_info" -v b="$span_report" 'BEGIN {exit !(a != "" && b != "" && (a - b) ^ 2 < 0.01)}' ||
	fail "info's span $span_info ms is not report's $span_report ms"
"$K" info tests/fixtures/torch/torch_tiny_ops.json.gz > "$WORK/ti" || fail "info of a Kineto trace"
grep -q "^format: PyTorch profiler (Kineto) JSON" "$WORK/ti" || fail "info: Kineto format: $(cat "$WORK/ti")"
grep -q "^records: kernels 4,000, " "$WORK/ti" || fail "info: Kineto counts: $(cat "$WORK/ti")"
grep -q "^note: " "$WORK/ti" || fail "info: the loader's notes"
if command -v python3 > /dev/null; then
	python3 tests/tools/kgt_to_nsys.py "$t" "$WORK/n.sqlite" 2> "$WORK/conv.err" ||
		fail "kgt_to_nsys.py: $(tail -3 "$WORK/conv.err")"
	"$K" info "$WORK/n.sqlite" > "$WORK/ni" || fail "info of an Nsight export"
	grep -q "^format: Nsight Systems SQLite export" "$WORK/ni" || fail "info: nsys: $(cat "$WORK/ni")"
	grep -q "^records: kernels 8, memcpys 16, memsets 8, " "$WORK/ni" || fail "info: nsys counts: $(cat "$WORK/ni")"
fi
