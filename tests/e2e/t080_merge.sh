# 'kgantt merge' of H200 fixtures: every row of every table arrives, processes renumbered,
# names kept; a trace merged with itself doubles and keeps its times; a process of another
# host (or boot) is moved onto the first host's clock by its realtime offset; the merged
# trace is compacted (format 5) and reports, and merges again; bad input fails cleanly.
# The merged traces are read with SQL as rows: 'export --format sqlite' (rows_of).
. tests/e2e/lib.sh
command -v sqlite3 > /dev/null || skip "no sqlite3 shell"

count() { sqlite3 "$1" "SELECT COUNT(*) FROM $2"; }
rows_of() { "$K" export -q --format sqlite -o "$1.rows" "$1" || fail "export $1"; echo "$1.rows"; }
TABLES="processes messages devices contexts streams kernels memcpys memsets syncs api_calls nvtx overheads dropped captures"

a=$(fixture copies_bad) b=$(fixture launches_bad) c=$(fixture torchrun_2ranks)
"$K" merge -o "$WORK/m.kgt" "$a" "$b" "$c" 2> "$WORK/err" || fail "merge exited $?: $(cat "$WORK/err")"
grep -q "3 traces" "$WORK/err" || fail "merge did not say what it did: $(cat "$WORK/err")"
[ "$(sqlite3 "$WORK/m.kgt" "SELECT value FROM meta WHERE key = 'packed_version'")" = 2 ] ||
	fail "the merged trace is not compacted"
m=$(rows_of "$WORK/m.kgt") || fail "$m"
for t in $TABLES; do
	want=$(($(count "$a" $t) + $(count "$b" $t) + $(count "$c" $t)))
	[ "$(count "$m" $t)" = "$want" ] || fail "$t: $(count "$m" $t) rows, expected $want"
done
[ "$(sqlite3 "$m" "PRAGMA integrity_check")" = ok ] || fail "integrity"
# each process keeps its own kernels, by name, and its identity
for src in "$a" "$b" "$c"; do
	sqlite3 "$src" "SELECT p.pid, s.text, COUNT(*) FROM kernels k JOIN processes p USING(process)
		JOIN strings s ON s.id = k.demangled GROUP BY 1, 2 ORDER BY 1, 2" > "$WORK/one"
	pids=$(sqlite3 "$src" "SELECT group_concat(pid) FROM processes")
	sqlite3 "$m" "SELECT p.pid, s.text, COUNT(*) FROM kernels k JOIN processes p USING(process)
		JOIN strings s ON s.id = k.demangled WHERE p.pid IN ($pids) GROUP BY 1, 2 ORDER BY 1, 2" > "$WORK/merged"
	cmp -s "$WORK/one" "$WORK/merged" || fail "kernels of $src changed: $(diff "$WORK/one" "$WORK/merged" | head -3)"
done
# API calls keep their names, NVTX ranges and the rows stay linked
[ "$(sqlite3 "$m" "SELECT COUNT(*) FROM api_calls WHERE name NOT IN (SELECT id FROM strings)")" = 0 ] ||
	fail "API calls name strings that are not there"
[ "$(sqlite3 "$m" "SELECT COUNT(*) FROM kernel_phases WHERE api_start IS NOT NULL")" = \
  $(($(sqlite3 "$a" "SELECT COUNT(*) FROM kernel_phases WHERE api_start IS NOT NULL") +
     $(sqlite3 "$b" "SELECT COUNT(*) FROM kernel_phases WHERE api_start IS NOT NULL") +
     $(sqlite3 "$c" "SELECT COUNT(*) FROM kernel_phases WHERE api_start IS NOT NULL"))) ] ||
	fail "kernels no longer linked to their launches"
"$K" info "$WORK/m.kgt" | grep -q "packed: kernels yes, api_calls yes" || fail "merged trace not packed"
"$K" report --json --no-progress "$WORK/m.kgt" > "$WORK/r.json" || fail "report of the merged trace"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["processes"]) == int(sys.argv[2]), len(d["processes"])' \
	"$WORK/r.json" "$(count "$m" processes)" || fail "report: processes"
echo "ok: 3 traces merged: every table's rows, kernels by process and name, launch links, packed, reported"

# a compacted trace merges as its rows would
"$K" merge -o "$WORK/mm.kgt" "$WORK/m.kgt" "$a" 2> /dev/null || fail "merge of a compacted trace"
mm=$(rows_of "$WORK/mm.kgt") || fail "$mm"
for t in $TABLES; do
	[ "$(count "$mm" $t)" = $(($(count "$m" $t) + $(count "$a" $t))) ] || fail "merging the merged: $t"
done
echo "ok: a compacted trace merges again: every table's rows"

# a trace with itself: two processes with the same times (same host, same boot)
"$K" merge -o "$WORK/twice.kgt" "$a" "$a" 2> /dev/null || fail "merge with itself"
twice=$(rows_of "$WORK/twice.kgt") || fail "$twice"
[ "$(sqlite3 "$twice" "SELECT COUNT(*) FROM (SELECT start FROM kernels WHERE process = 1
	EXCEPT SELECT start FROM kernels WHERE process = 2)")" = 0 ] || fail "times moved"
[ "$(count "$twice" kernels)" = $((2 * $(count "$a" kernels))) ] || fail "twice: count"
echo "ok: a trace merged with itself: twice the rows, the same times"

# another host, whose clock is 5 s behind: moved by its realtime offset, exactly
cp "$a" "$WORK/other.kgt"
sqlite3 "$WORK/other.kgt" "DROP TRIGGER IF EXISTS packed_kernels_update;
	UPDATE processes SET host = 'other-host', realtime_offset_ns = realtime_offset_ns + 5000000000" ||
	fail "cannot make the other host's trace"
"$K" merge -o "$WORK/hosts.kgt" "$a" "$WORK/other.kgt" 2> "$WORK/err" || fail "merge two hosts"
grep -q "1 host(s) moved" "$WORK/err" || fail "merge did not say it moved a host: $(cat "$WORK/err")"
hosts=$(rows_of "$WORK/hosts.kgt") || fail "$hosts"
[ "$(sqlite3 "$hosts" "SELECT COUNT(*) FROM kernels k2 JOIN kernels k1 ON k1.process = 1
	AND k2.process = 2 AND k1.correlation = k2.correlation WHERE k2.start - k1.start = 5000000000
	AND k2.end - k1.end = 5000000000")" = "$(count "$a" kernels)" ] || fail "the other host's kernels not moved by 5 s"
[ "$(sqlite3 "$hosts" "SELECT COUNT(DISTINCT realtime_offset_ns) FROM processes")" = 1 ] ||
	fail "realtime offsets not brought to the first host's"
# no realtime offset: left alone, and said
cp "$a" "$WORK/nooff.kgt"
sqlite3 "$WORK/nooff.kgt" "UPDATE processes SET host = 'x', realtime_offset_ns = NULL"
"$K" merge -o "$WORK/nooff_m.kgt" "$a" "$WORK/nooff.kgt" 2> "$WORK/err" || fail "merge without offset"
grep -q "without a realtime offset" "$WORK/err" || fail "unaligned process not reported"
echo "ok: another host's times moved by its realtime offset (5 s exactly); a process without one left alone, and said"

# bad input
expect_error 2 "no output file" "$K" merge "$a"
expect_error 2 "no trace to merge" "$K" merge -o "$WORK/x.kgt"
# an existing output is replaced, as by every command; an input never
"$K" merge -o "$WORK/m.kgt" "$a" 2> "$WORK/err" || fail "merge over an existing output: $(cat "$WORK/err")"
expect_error 1 "merge: '$a' is an input trace; refusing to write the trace over it" "$K" merge -o "$a" "$b" "$a"
expect_error 1 "missing.kgt" "$K" merge -o "$WORK/y.kgt" "$a" "$WORK/missing.kgt"
expect_error 1 "not a kgantt trace" "$K" merge -o "$WORK/z.kgt" "$a" tests/fixtures/torch/torch_tiny_ops.json.gz
# a compacted input with a damaged block: named, with the table and the block
cp "$(fixture compact_torch_tiny)" "$WORK/damaged.kgt"
sqlite3 "$WORK/damaged.kgt" "UPDATE packed SET data = substr(data, 1, length(data) - 9) WHERE tbl = 'kernels'"
expect_error 1 "cannot merge '$WORK/damaged.kgt' (kernels): the packed kernels block at id 1 is damaged" \
	"$K" merge -o "$WORK/d.kgt" "$a" "$WORK/damaged.kgt"
[ ! -e "$WORK/y.kgt" ] && [ ! -e "$WORK/z.kgt" ] && [ ! -e "$WORK/d.kgt" ] || fail "a failed merge left its output"
ls -A "$WORK" | grep -qE '^\.|\.tmp' && fail "a failed merge left a temporary file"
expect_error 1 "cannot create" "$K" merge -o /nonexistent/dir/m.kgt "$a"
exit 0
