# 'kgantt pack' over every H200 fixture: the packed trace gives the same report (JSON,
# byte for byte but for the path) as its rows; --drop removes the blocks; an edit with
# the sqlite3 shell drops them and the edit shows; the synthetic trace, large enough for
# several blocks and two reading threads, agrees too; bad input fails cleanly.
. tests/e2e/lib.sh
command -v sqlite3 > /dev/null || skip "no sqlite3 shell"

report_json() { # report_json TRACE OUT
	"$K" report --json --no-progress "$1" 2> "$WORK/err" | sed 's|"path": "[^"]*"|"path": ""|' > "$2" ||
		fail "report $1: $(cat "$WORK/err")"
}
blocks() { sqlite3 "$1" "SELECT COUNT(*) FROM packed" 2> /dev/null || echo 0; }

n=0
for x in "$FIXTURES"/*.kgt.xz; do
	name=$(basename "$x" .kgt.xz)
	# CUPTI refused the recorder there: nothing to report, nothing to pack (t016)
	[ "$name" = cupti_first ] && continue
	src=$(fixture "$name")
	t=$WORK/$name.kgt
	cp "$src" "$t"
	report_json "$t" "$WORK/rows.json"
	[ "$(blocks "$t")" = 0 ] || fail "$name: the committed fixture already has blocks"
	"$K" pack "$t" 2> "$WORK/err" || fail "pack $name exited $?: $(cat "$WORK/err")"
	want=$(sqlite3 "$t" "SELECT (SELECT (COUNT(*) + 65535) / 65536 FROM kernels) +
		(SELECT (COUNT(*) + 65535) / 65536 FROM api_calls)")
	[ "$(blocks "$t")" = "$want" ] || fail "$name: pack wrote $(blocks "$t") blocks, expected $want"
	[ "$(sqlite3 "$t" "SELECT value FROM meta WHERE key = 'version'")" -ge 2 ] || fail "$name: version"
	[ "$(sqlite3 "$t" "PRAGMA integrity_check")" = ok ] || fail "$name: integrity"
	report_json "$t" "$WORK/packed.json"
	cmp -s "$WORK/rows.json" "$WORK/packed.json" ||
		fail "$name: packed and rows differ: $(diff "$WORK/rows.json" "$WORK/packed.json" | head -5)"
	n=$((n + 1))
done
echo "ok: $n H200 fixtures packed, reports identical to their rows'"

# --drop, and packing twice
t=$WORK/launches_bad.kgt
"$K" pack "$t" || fail "packing twice"
"$K" pack --drop "$t" || fail "pack --drop"
[ "$(sqlite3 "$t" "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'packed%'")" = 0 ] ||
	fail "--drop left blocks or triggers"
report_json "$t" "$WORK/dropped.json"
report_json "$(fixture launches_bad)" "$WORK/orig.json"
cmp -s "$WORK/dropped.json" "$WORK/orig.json" || fail "report after --drop differs"
echo "ok: pack twice, pack --drop"

# an edit with the sqlite3 shell drops the blocks, and the report shows the edit
"$K" pack "$t" || fail "pack again"
before=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trace"]["kernels"])' "$WORK/orig.json")
sqlite3 "$t" "DELETE FROM kernels WHERE id IN (SELECT id FROM kernels LIMIT 100)" || fail "sqlite3 edit"
[ "$(sqlite3 "$t" "SELECT COUNT(*) FROM packed WHERE tbl = 'kernels'")" = 0 ] || fail "the edit kept the kernel blocks"
report_json "$t" "$WORK/edited.json"
after=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trace"]["kernels"])' "$WORK/edited.json")
[ "$after" = $((before - 100)) ] || fail "after deleting 100 kernels the report says $after, had $before"
echo "ok: an SQL edit drops the blocks; the report reads the edited rows ($before -> $after kernels)"

# several blocks and both threads: a synthetic trace of 150,000 kernels
if command -v python3 > /dev/null; then
	s=$WORK/synthetic.kgt
	python3 bench/gen_trace.py -q -n 150000 --seed 5 -o "$s" || fail "gen_trace"
	report_json "$s" "$WORK/s_rows.json"
	"$K" pack "$s" || fail "pack synthetic"
	[ "$(sqlite3 "$s" "SELECT COUNT(*) FROM packed WHERE tbl = 'kernels'")" = 3 ] || fail "synthetic: expected 3 kernel blocks"
	report_json "$s" "$WORK/s_packed.json"
	cmp -s "$WORK/s_rows.json" "$WORK/s_packed.json" || fail "synthetic: packed and rows differ"
	echo "ok: synthetic 150,000 kernels: 3 blocks, same report"
fi

# bad input
expect_error 2 "no trace given" "$K" pack
expect_error 1 "cannot open" "$K" pack "$WORK/missing.kgt"
echo "not a trace" > "$WORK/text.kgt"
expect_error 1 "$WORK/text.kgt" "$K" pack "$WORK/text.kgt"
expect_error 1 "is a directory" "$K" pack "$WORK"
echo "{}" > "$WORK/k.json"
expect_error 1 "k.json" "$K" pack "$WORK/k.json"
exit 0
