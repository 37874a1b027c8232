# 'kgantt pack' over every H200 fixture: the compacted trace (format 5: kernels, API calls
# and hardware samples only as blocks) gives the same report (JSON, byte for byte but for
# the path) as its rows, in a file many times smaller; 'pack --drop' gives back every row
# of every table as it was; packing twice changes nothing; the synthetic trace, large
# enough for several blocks and two reading threads, agrees too; a damaged block is an
# error of every command that names the file, the table and the block; bad input fails
# cleanly.
. tests/e2e/lib.sh
command -v sqlite3 > /dev/null || skip "no sqlite3 shell"

report_json() { # report_json TRACE OUT
	"$K" report --json --no-progress "$1" 2> "$WORK/err" | sed 's|"path": "[^"]*"|"path": ""|' > "$2" ||
		fail "report $1: $(cat "$WORK/err")"
}
blocks() { sqlite3 "$1" "SELECT COUNT(*) FROM packed WHERE tbl = '$2'" 2> /dev/null || echo 0; }
# every row of every table of FROM (but meta and packed) in TRACE, every column quoted
# (types show), sorted (a table FROM lacks may be there, empty: the current schema's)
tables_of() { # tables_of FROM TRACE OUT
	local tb cols
	: > "$3"
	for tb in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('meta', 'packed') ORDER BY 1"); do
		cols=$(sqlite3 "$1" "SELECT group_concat('quote(\"' || name || '\")', '||'',''||') FROM pragma_table_info('$tb')")
		echo "== $tb" >> "$3"
		sqlite3 "$2" "SELECT $cols FROM \"$tb\" ORDER BY 1" >> "$3"
	done
}

n=0
for x in "$FIXTURES"/*.kgt.xz; do
	name=$(basename "$x" .kgt.xz)
	# CUPTI refused the recorder there: nothing to report, nothing to pack (t016)
	[ "$name" = cupti_first ] && continue
	# recorded compact already (format 5): tests/e2e/t062_compact_h200.sh reads the
	# compact_* ones, the rules and stacks tests the others
	case $name in compact_*) continue ;; esac
	src=$(fixture "$name")
	[ "$(sqlite3 "$src" "SELECT value FROM meta WHERE key = 'packed_version'")" = 2 ] && continue
	t=$WORK/$name.kgt
	cp "$src" "$t"
	report_json "$t" "$WORK/rows.json"
	want_k=$(sqlite3 "$t" "SELECT (COUNT(*) + 65535) / 65536 FROM kernels")
	want_a=$(sqlite3 "$t" "SELECT (COUNT(*) + 65535) / 65536 FROM api_calls")
	"$K" pack "$t" 2> "$WORK/err" || fail "pack $name exited $?: $(cat "$WORK/err")"
	[ "$(blocks "$t" kernels)" = "$want_k" ] && [ "$(blocks "$t" api_calls)" = "$want_a" ] ||
		fail "$name: pack wrote $(blocks "$t" kernels) + $(blocks "$t" api_calls) blocks, expected $want_k + $want_a"
	[ "$(sqlite3 "$t" "SELECT group_concat(key || '=' || value, ' ') FROM meta WHERE key IN
		('version', 'min_reader_version', 'packed_version') ORDER BY key")" = \
	  "min_reader_version=5 packed_version=2 version=6" ] || fail "$name: meta"
	[ "$(sqlite3 "$t" "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('kernels', 'api_calls',
		'hw_samples', 'host_samples', 'kernel_phases') OR type = 'trigger'")" = 0 ] || fail "$name: rows left"
	[ "$(sqlite3 "$t" "PRAGMA integrity_check")" = ok ] || fail "$name: integrity"
	[ "$(sqlite3 "$t" "PRAGMA page_size")" = 1024 ] || fail "$name: page size"
	[ "$(stat -c %s "$t")" -lt "$(stat -c %s "$src")" ] || fail "$name: not smaller"
	report_json "$t" "$WORK/packed.json"
	cmp -s "$WORK/rows.json" "$WORK/packed.json" ||
		fail "$name: packed and rows differ: $(diff "$WORK/rows.json" "$WORK/packed.json" | head -5)"
	# and back: every row of every table as it was
	"$K" pack --drop "$t" || fail "pack --drop $name"
	tables_of "$src" "$src" "$WORK/want"
	tables_of "$src" "$t" "$WORK/got"
	cmp -s "$WORK/want" "$WORK/got" || fail "$name: pack --drop changed rows: $(diff "$WORK/want" "$WORK/got" | head -5)"
	[ "$(blocks "$t" kernels)" = 0 ] || fail "$name: --drop left blocks"
	n=$((n + 1))
done
echo "ok: $n H200 fixtures compacted: reports identical to their rows', every row back with --drop"

# sizes: a launch loop of 10,000 kernels (full mode: and 30,129 API calls) at most 64 bytes
# a kernel, kernels mode at most 40
for name in launches_bad:64 launches_bad_kernels:40; do
	t=$WORK/${name%:*}.kgt
	cp "$(fixture "${name%:*}")" "$t" && "$K" pack "$t" || fail "pack ${name%:*}"
	bpk=$(($(stat -c %s "$t") / $(sqlite3 "$(fixture "${name%:*}")" "SELECT COUNT(*) FROM kernels")))
	[ "$bpk" -le "${name#*:}" ] || fail "${name%:*}: $bpk bytes a kernel, more than ${name#*:}"
	echo "ok: ${name%:*}: $bpk bytes a kernel (at most ${name#*:})"
done

# packing twice changes nothing
t=$WORK/launches_bad.kgt
sqlite3 "$t" "SELECT tbl, first_id, hex(data) FROM packed ORDER BY 1, 2" > "$WORK/once"
"$K" pack "$t" || fail "packing twice"
sqlite3 "$t" "SELECT tbl, first_id, hex(data) FROM packed ORDER BY 1, 2" > "$WORK/twice"
cmp -s "$WORK/once" "$WORK/twice" || fail "packing twice changed the blocks"
echo "ok: packing twice changes nothing"

# dump lists and prints a compacted trace's tables and views as its rows
"$K" dump --table list "$t" > "$WORK/list" || fail "dump --table list"
grep -q "^kernels	table" "$WORK/list" && grep -q "^kernel_phases	view" "$WORK/list" ||
	fail "dump --table list: $(tr '\n' ' ' < "$WORK/list")"
for tb in kernels api_calls; do
	"$K" dump --table $tb "$t" | tail -n +2 > "$WORK/dumped"
	sqlite3 -separator "$(printf '\t')" "$(fixture launches_bad)" "SELECT * FROM $tb" > "$WORK/rows"
	cmp -s "$WORK/dumped" "$WORK/rows" || fail "dump --table $tb differs from the rows"
done
[ "$("$K" dump --table kernel_phases "$t" | wc -l)" = 10001 ] || fail "dump --table kernel_phases"
echo "ok: dump lists the compacted trace's tables and views and prints their rows"

# a damaged block: every reader says which file, table and block, and fails
cp "$t" "$WORK/bad.kgt"
sqlite3 "$WORK/bad.kgt" "UPDATE packed SET data = zeroblob(length(data)) WHERE tbl = 'kernels'" ||
	fail "cannot damage the block"
for cmd in "report --no-progress" "info" "dump --table kernels" "dump --table kernel_phases" \
	"export -f sqlite -o $WORK/x.kgt" "export -f csv -o $WORK/x.csv"; do
	# shellcheck disable=SC2086
	expect_error 1 "the packed kernels block at id 1 is damaged" "$K" $cmd "$WORK/bad.kgt"
	grep -qF "$WORK/bad.kgt" "$WORK/err" || fail "$cmd: the message does not name the file"
done
expect_error 1 "the packed kernels block at id 1 is damaged" "$K" merge -o "$WORK/m.kgt" "$WORK/bad.kgt"
[ ! -e "$WORK/x.kgt" ] && [ ! -e "$WORK/m.kgt" ] || fail "a damaged trace left an output"
echo "ok: a damaged block is an error naming the file, table and block, in every reader"

# several blocks and both threads: a synthetic trace of 150,000 kernels
if command -v python3 > /dev/null; then
	s=$WORK/synthetic.kgt
	python3 bench/gen_trace.py -q -n 150000 --seed 5 -o "$s" || fail "gen_trace"
	report_json "$s" "$WORK/s_rows.json"
	"$K" pack "$s" || fail "pack synthetic"
	[ "$(blocks "$s" kernels)" = 3 ] || fail "synthetic: expected 3 kernel blocks"
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
# a value pack could not give back as it was: refused, the trace left as it was
cp "$(fixture copies_bad)" "$WORK/real.kgt"
sqlite3 "$WORK/real.kgt" "UPDATE kernels SET start = start + 0.5 WHERE id = 3"
expect_error 1 "kernels row 3: column start holds a real number" "$K" pack "$WORK/real.kgt"
[ "$(sqlite3 "$WORK/real.kgt" "SELECT typeof(start) FROM kernels WHERE id = 3")" = real ] ||
	fail "a refused pack changed the trace"
exit 0
