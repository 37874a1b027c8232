# 'kgantt export' over real traces (H200 kgantt traces, PyTorch profiler JSON): the
# Chrome/Perfetto JSON is valid and complete (one slice per GPU operation, flows that pair
# up, named groups and tracks, no slices that overlap on one track without nesting), the
# CSV parses with every operation and awkward names intact, the SQLite export reads back
# with the same counts, hostile names stay inside their JSON strings, and bad input,
# options and a full disk fail with the right exit code.
. tests/e2e/lib.sh

# check_json FILE NOPS: the trace-event document is what docs/export.md describes
check_json() {
	python3 - "$1" "$2" <<'EOF' || fail "export JSON $1"
import collections, json, sys
from decimal import Decimal
path, nops = sys.argv[1], int(sys.argv[2])
d = json.load(open(path, encoding="utf-8"), parse_float=Decimal)
assert d["displayTimeUnit"] == "ns"
assert int(d["otherData"]["time_origin_ns"]) >= 0
ev = d["traceEvents"]
ops = [e for e in ev if e["ph"] == "X" and e.get("cat") in ("kernel", "memcpy", "memset")]
assert len(ops) == nops, "%d GPU slices, expected %d" % (len(ops), nops)
# times are µs with three decimals at most (perfetto leaves out trailing zeros): ns
# precision, printed from integers
assert all(Decimal(e["ts"]) == Decimal(e["ts"]).quantize(Decimal("0.001")) and e["dur"] >= 0
           for e in ops)
# flows: every start has its end, ids unique, bound to the enclosing slice (chrome: "s"
# and "f" events); perfetto's on the slices themselves: each call's bind_id once, with
# flow_out, each op's flow_in naming one of them
s = collections.Counter(e["id"] for e in ev if e["ph"] == "s")
f = collections.Counter(e["id"] for e in ev if e["ph"] == "f")
assert s == f, "flows do not pair up"
assert all(v == 1 for v in s.values()), "a flow id is used twice"
assert all(e["bp"] == "e" and e["cat"] == "launch" for e in ev if e["ph"] == "f")
out = collections.Counter(e["bind_id"] for e in ev if e.get("flow_out"))
assert all(v == 1 for v in out.values()), "a bind_id is used twice"
fin = [e for e in ev if e.get("flow_in")]
assert all(e["bind_id"] in out and e.get("cat") in ("kernel", "memcpy", "memset") for e in fin)
assert not (s and out), "both kinds of flows"
s = s or collections.Counter(e["bind_id"] for e in fin)
# metadata: every group and track that holds a slice has a name
pnames = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
tnames = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
          if e["ph"] == "M" and e["name"] == "thread_name"}
tracks = collections.defaultdict(list)
for e in ev:
    if e["ph"] == "X":
        tracks[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
for pid, tid in tracks:
    assert pid in pnames and (pid, tid) in tnames, "unnamed track %s/%s" % (pid, tid)
assert any(n.startswith("GPU ") for n in pnames.values()), "no GPU group"
assert any(n.startswith("pid ") for n in pnames.values()), "no host process group"
for e in ops:
    assert tnames[(e["pid"], e["tid"])].startswith("stream "), tnames[(e["pid"], e["tid"])]
# the viewers' importers need the slices of one track to nest
for k, v in tracks.items():
    v.sort(key=lambda x: (x[0], -x[1]))
    stack = []
    for a, b in v:
        while stack and stack[-1] <= a:
            stack.pop()
        assert not stack or b <= stack[-1], "partial overlap on track %s at %s" % (k, a)
        stack.append(b)
queue = [e for e in ev if e["ph"] == "X" and e.get("cat") == "queue"]
print(len(ops), len(s), len(queue))
EOF
}

# check_csv FILE NOPS: one row per operation under the documented header
check_csv() {
	python3 - "$1" "$2" <<'EOF' || fail "export CSV $1"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
assert len(rows) == int(sys.argv[2]), "%d rows, expected %s" % (len(rows), sys.argv[2])
for r in rows:
    assert r["kind"] in ("kernel", "memcpy", "memset") and r["name"]
    assert int(r["end_ns"]) >= int(r["start_ns"])
    assert int(r["duration_ns"]) == int(r["end_ns"]) - int(r["start_ns"])
    if r["queue_wait_ns"]:
        assert int(r["queue_wait_ns"]) == int(r["start_ns"]) - int(r["queued_ns"])
    assert (r["grid_x"] != "") == (r["kind"] == "kernel")
EOF
}

# nops TRACE: GPU operations in a kgantt trace (those with both times, as kgantt reads it)
nops() {
	python3 -c '
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(sum(db.execute("SELECT COUNT(*) FROM %s WHERE start IS NOT NULL AND end IS NOT NULL"
                     % t).fetchone()[0] for t in ("kernels", "memcpys", "memsets")))' "$1"
}

# export_all TRACE NAME NOPS: every format of TRACE, checked
export_all() {
	local t=$1 n=$2 want=$3 fmt got
	for fmt in chrome perfetto; do
		"$K" export -f $fmt -o "$WORK/$n.$fmt.json" "$t" 2> "$WORK/err" ||
			fail "export $fmt $n exited $?: $(cat "$WORK/err")"
		got=$(check_json "$WORK/$n.$fmt.json" "$want") || fail "export $fmt $n: $got"
		echo "ok: $n $fmt: GPU slices, flows, queue slices: $got"
		# every op, call, range, sync, arrow and queue slice, against the trace's rows
		[ "${t%.kgt}" = "$t" ] && continue
		got=$(python3 tests/e2e/trace_events.py counts "$WORK/$n.$fmt.json" "$t") ||
			fail "export $fmt $n lost events: $got"
		echo "ok: $n $fmt: as many as the trace holds: $got"
	done
	# stdout is the same document as -o
	"$K" export -f chrome "$t" > "$WORK/$n.stdout.json" || fail "export chrome to stdout $n"
	cmp -s "$WORK/$n.stdout.json" "$WORK/$n.chrome.json" || fail "$n: stdout and -o differ"
	"$K" export -f csv -o "$WORK/$n.csv" "$t" || fail "export csv $n"
	check_csv "$WORK/$n.csv" "$want"
	for tb in apis ranges syncs; do
		"$K" export -f csv --table $tb "$t" > "$WORK/$n.$tb.csv" || fail "export csv --table $tb $n"
		python3 -c 'import csv, sys; list(csv.reader(open(sys.argv[1])))' "$WORK/$n.$tb.csv" ||
			fail "$n: csv --table $tb does not parse"
	done
	"$K" export -f sqlite -o "$WORK/$n.kgt" "$t" 2> "$WORK/err" ||
		fail "export sqlite $n exited $?: $(cat "$WORK/err")"
	[ "$(nops "$WORK/$n.kgt")" -eq "$want" ] || fail "$n: sqlite export has $(nops "$WORK/$n.kgt") ops, expected $want"
	"$K" info "$WORK/$n.kgt" > "$WORK/info" || fail "info on the sqlite export of $n"
	# a kgantt trace is copied whole, in its own version; any other input is this version
	version=$(sqlite3 "$t" "SELECT value FROM meta WHERE key = 'version'" 2> /dev/null) ||
		version=$(sed -n 's/^#define KG_TRACE_VERSION //p' src/trace/schema.h)
	grep -q "kgantt-trace version $version" "$WORK/info" || fail "info on $n.kgt: $(cat "$WORK/info")"
	[ "$(sqlite3 "$WORK/$n.kgt" "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('packed',
		'kernels', 'api_calls', 'kernel_phases')")" = 3 ] || fail "$n.kgt: not every table as rows"
	echo "ok: $n csv, sqlite: $want ops"
	ls -A "$WORK" | grep -qE '^\.|\.tmp' && fail "$n: a temporary file was left behind"
	return 0
}

# ---------------------------------------------------------------- H200 kgantt traces
for name in streams_fixed copies_bad nvtx_bad timeslice_bad; do
	t=$(fixture $name)
	export_all "$t" "$name" "$(nops "$t")"
	# round trip: the export read back is the same model (same rows in every CSV table)
	for tb in ops apis ranges syncs; do
		"$K" export -f csv --table $tb "$t" > "$WORK/a.csv"
		"$K" export -f csv --table $tb "$WORK/$name.kgt" > "$WORK/b.csv"
		cmp -s "$WORK/a.csv" "$WORK/b.csv" || fail "$name: the sqlite round trip changed the $tb: $(diff "$WORK/a.csv" "$WORK/b.csv" | head -5)"
	done
	echo "ok: $name: sqlite round trip keeps every op, API call, range and sync"
done

# a compacted trace (format 5) exported whole: every table as rows, every row of every table
# as the fixture it was packed from has it, every column of it
t=$(fixture copies_bad)
cp "$t" "$WORK/c.kgt" && "$K" pack "$WORK/c.kgt" || fail "pack copies_bad"
"$K" export -q -f sqlite -o "$WORK/c.rows" "$WORK/c.kgt" || fail "export of a compacted trace"
n=0
for tb in $(sqlite3 "$t" "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'meta'"); do
	cols=$(sqlite3 "$t" "SELECT group_concat('quote(\"' || name || '\")', '||'',''||') FROM pragma_table_info('$tb')")
	[ "$(sqlite3 "$t" "SELECT $cols FROM \"$tb\" ORDER BY 1" | md5sum)" = \
	  "$(sqlite3 "$WORK/c.rows" "SELECT $cols FROM \"$tb\" ORDER BY 1" | md5sum)" ] ||
		fail "export of the compacted trace changed $tb"
	n=$((n + 1))
done
[ "$(sqlite3 "$WORK/c.rows" "SELECT value FROM meta WHERE key = 'exported_from'")" = "$WORK/c.kgt" ] ||
	fail "the export does not say where it came from"
echo "ok: a compacted trace exported whole: its $n tables as the rows it was packed from"

# ids with gaps are kept: SQLite numbers the rows itself only where the blocks hold ids 1
# to N (export_sqlite.c, numbered_column); here kernels 3 and 50 and API call 7 are gone
gt=$(fixture streams_bad)
cp "$gt" "$WORK/g.kgt" && "$K" pack --drop "$WORK/g.kgt" || fail "unpack streams_bad"
sqlite3 "$WORK/g.kgt" "DELETE FROM kernels WHERE id IN (3, 50); DELETE FROM api_calls WHERE id = 7" &&
	"$K" pack "$WORK/g.kgt" || fail "pack streams_bad with gaps"
"$K" export -q -f sqlite -o "$WORK/g.rows" "$WORK/g.kgt" || fail "export of a trace with gaps in its ids"
for gone in "kernels 3, 50" "api_calls 7"; do
	tb=${gone%% *}
	[ "$(sqlite3 "$gt" "SELECT * FROM $tb WHERE id NOT IN (${gone#* }) ORDER BY 1" | md5sum)" = \
	  "$(sqlite3 "$WORK/g.rows" "SELECT * FROM $tb ORDER BY 1" | md5sum)" ] ||
		fail "the export of a trace with gaps in its ids changed $tb"
done
[ "$(sqlite3 "$WORK/g.rows" "SELECT COUNT(*), MAX(id) FROM kernels")" = "158|160" ] ||
	fail "kernels' ids after the gaps: $(sqlite3 "$WORK/g.rows" "SELECT COUNT(*), MAX(id) FROM kernels")"
echo "ok: ids with gaps kept (158 kernels up to id 160)"

# the rows' indexes are those docs/trace-format.md lists ("Indexes"), no kernels by stream
# and time; a small trace keeps 4 KiB pages, one of 100,000 kernels and API calls or more
# gets 64 KiB pages (trace/schema.h: KG_MANY_ROWS)
want="api_by_correlation api_by_thread kernels_by_correlation"
idx=$(sqlite3 "$WORK/c.rows" "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
	WHERE type = 'index' AND tbl_name IN ('kernels', 'api_calls') ORDER BY name)")
[ "$idx" = "$want" ] || fail "the export's indexes of kernels and API calls: '$idx', expected '$want'"
grep -qF '`kernels(process, correlation)`, `api_calls(process, correlation)`, `api_calls(process, thread, start)`' \
	docs/trace-format.md || fail "docs/trace-format.md does not list the rows' indexes as made"
[ "$(sqlite3 "$WORK/c.rows" "PRAGMA page_size")" = 4096 ] || fail "a small export's page size"
if command -v python3 > /dev/null; then
	python3 bench/gen_trace.py -q -n 60000 --seed 3 -o "$WORK/big.kgt" || fail "gen_trace"
	"$K" pack "$WORK/big.kgt" || fail "pack the 60k trace"
	"$K" export -q -f sqlite -o "$WORK/big.rows" "$WORK/big.kgt" || fail "export of the 60k trace"
	[ "$(sqlite3 "$WORK/big.rows" "SELECT (SELECT COUNT(*) FROM kernels) + (SELECT COUNT(*) FROM
		api_calls) >= 100000")" = 1 ] || fail "the 60k trace has fewer than 100,000 rows"
	[ "$(sqlite3 "$WORK/big.rows" "PRAGMA page_size")" = 65536 ] || fail "a large export's page size"
	[ "$(sqlite3 "$WORK/big.rows" "PRAGMA integrity_check")" = ok ] || fail "the large export's integrity"
	rm -f "$WORK/big.kgt" "$WORK/big.rows"
fi
echo "ok: the export's indexes are the documented ones; 4 KiB pages, 64 KiB for many rows"

# a whole kgantt trace is copied from its file, its kernels and API calls counted, not
# loaded (kg_load_opts.copy_only): a trace of kernels alone is no "nothing to show", and
# every kernel is written
cp "$WORK/c.kgt" "$WORK/k.kgt"
sqlite3 "$WORK/k.kgt" "DELETE FROM memcpys; DELETE FROM memsets; DELETE FROM nvtx; DELETE FROM syncs;
	DELETE FROM packed WHERE tbl = 'api_calls'" || fail "cannot make a trace of kernels alone"
"$K" export -q -f sqlite -o "$WORK/k.rows" "$WORK/k.kgt" 2> "$WORK/err" ||
	fail "export of a trace of kernels alone exited $?: $(cat "$WORK/err")"
[ "$(sqlite3 "$WORK/k.rows" "SELECT COUNT(*) FROM kernels")" = "$(sqlite3 "$t" "SELECT COUNT(*) FROM kernels")" ] ||
	fail "the export of a trace of kernels alone lost kernels"
[ "$(sqlite3 "$WORK/k.rows" "SELECT COUNT(*) FROM api_calls")" = 0 ] || fail "API calls from nowhere"
echo "ok: a trace of kernels alone exported whole"

# two processes on one GPU: a host group and a GPU group each
python3 - "$WORK/timeslice_bad.chrome.json" <<'EOF' || fail "timeslice_bad: groups"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"]
assert sum(n.startswith("pid ") for n in names) == 2, names
assert sum(n.startswith("GPU 0 NVIDIA H200 (pid ") for n in names) == 2, names
streams = [e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
assert any("stream 7 (legacy default" in n for n in streams), streams
EOF
echo "ok: timeslice_bad: two host groups, two GPU groups"

# perfetto shows the queue phase of kernels with latency timestamps; chrome does not
grep -q '"stream [0-9]* queue"' "$WORK/streams_fixed.perfetto.json" || fail "perfetto: no queue track"
grep -q '"cat":"queue"' "$WORK/streams_fixed.chrome.json" && fail "chrome: queue slices"
echo "ok: perfetto has queue tracks, chrome has none"

# ---------------------------------------------------------------- PyTorch profiler traces
for t in tests/fixtures/torch/*.json.gz; do
	name=$(basename "$t" .json.gz)
	"$K" export -f csv -o "$WORK/$name.csv" "$t" || fail "export csv $name"
	want=$(($(wc -l < "$WORK/$name.csv") - 1)) # names hold no newline: one line per row
	[ "$want" -gt 0 ] || fail "$name: no GPU operation exported"
	export_all "$t" "$name" "$want"
	# round trip: the same rows, but for what a kgantt trace does not keep (copy and
	# memset labels, which kgantt derives from their kinds; thread names)
	for tb in ops apis ranges syncs; do
		"$K" export -f csv --table $tb "$t" > "$WORK/a.csv"
		"$K" export -f csv --table $tb "$WORK/$name.kgt" > "$WORK/b.csv"
		python3 - "$WORK/a.csv" "$WORK/b.csv" <<'EOF' || fail "$name: the sqlite round trip changed the $tb"
import csv, sys
def rows(path):
    out = []
    for r in csv.DictReader(open(path, newline="", encoding="utf-8")):
        if r.get("kind", "kernel") != "kernel":
            r["name"] = ""
        if r.get("op_kind") not in (None, "", "kernel"):
            r["op_name"] = ""
        r.pop("thread_name", None)
        out.append(r)
    return out
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert len(a) == len(b), (len(a), len(b))
for x, y in zip(a, b):
    assert x == y, (x, y)
EOF
	done
	echo "ok: $name: sqlite round trip keeps every op, API call, range and sync"
done

# ---------------------------------------------------------------- awkward and hostile names
t=$(fixture streams_fixed)
cp "$t" "$WORK/evil.kgt"
python3 - "$WORK/evil.kgt" <<'EOF' || fail "cannot craft evil.kgt"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ids = [r[0] for r in db.execute("SELECT DISTINCT demangled FROM kernels ORDER BY 1 LIMIT 1")]
assert ids
db.execute("UPDATE strings SET text = ? WHERE id = ?", ('<img src=x onerror=alert(1)>","evil', ids[0]))
n = db.execute("SELECT MAX(id) FROM strings").fetchone()[0]
texts = ["void f<int, 2>(float*, int)", "two\nlines\tand \"quotes\\", "bad\xff".encode("latin-1")]
k = [r[0] for r in db.execute("SELECT id FROM kernels ORDER BY id LIMIT 3 OFFSET 40")]
for i, (text, kid) in enumerate(zip(texts, k)):
    db.execute("INSERT INTO strings VALUES(?, CAST(? AS TEXT))", (n + 1 + i, text))
    db.execute("UPDATE kernels SET demangled = ? WHERE id = ?", (n + 1 + i, kid))
db.commit()
EOF
"$K" export -f perfetto -o "$WORK/evil.json" "$WORK/evil.kgt" || fail "export of evil names"
"$K" export -f csv -o "$WORK/evil.csv" "$WORK/evil.kgt" || fail "csv export of evil names"
python3 - "$WORK/evil.json" "$WORK/evil.csv" <<'EOF' || fail "evil names did not round-trip"
import csv, json, sys
want = {'<img src=x onerror=alert(1)>","evil', "void f<int, 2>(float*, int)",
        "two\nlines\tand \"quotes\\", "bad\ufffd"}
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = {e["name"] for e in d["traceEvents"] if e["ph"] == "X"}
assert want <= names, want - names
rows = {r["name"] for r in csv.DictReader(open(sys.argv[2], newline="", encoding="utf-8"))}
assert want <= rows, want - rows
EOF
echo "ok: hostile, comma, newline and invalid UTF-8 names survive JSON and CSV"

# ---------------------------------------------------------------- overlapping ops on one stream
cp "$t" "$WORK/overlap.kgt"
python3 - "$WORK/overlap.kgt" <<'EOF' || fail "cannot craft overlap.kgt"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
a, b = db.execute("SELECT id, start, end, stream FROM kernels WHERE stream = (SELECT stream "
                  "FROM kernels GROUP BY stream ORDER BY COUNT(*) DESC LIMIT 1) ORDER BY start "
                  "LIMIT 2").fetchall()
# the second starts inside the first and ends after it: no nesting possible
db.execute("UPDATE kernels SET start = ?, end = ? WHERE id = ?",
           ((a[1] + a[2]) // 2, a[2] + 5000, b[0]))
db.commit()
EOF
"$K" export -f chrome -o "$WORK/overlap.json" "$WORK/overlap.kgt" || fail "export overlap"
check_json "$WORK/overlap.json" "$(nops "$WORK/overlap.kgt")" > /dev/null
grep -q '"stream [0-9]* (overlap)"' "$WORK/overlap.json" || fail "no overlap track"
grep -q '"overlaps_previous":true' "$WORK/overlap.json" || fail "no overlaps_previous arg"
echo "ok: an op overlapping its predecessor goes on a '(overlap)' track, nothing dropped"

# ---------------------------------------------------------------- windows
t=$(fixture nvtx_bad)
"$K" export -f csv --nvtx step "$t" > "$WORK/w.csv" || fail "export --nvtx"
all=$(nops "$t") in=$(($(wc -l < "$WORK/w.csv") - 1))
[ "$in" -gt 0 ] && [ "$in" -le "$all" ] || fail "--nvtx step kept $in of $all ops"
"$K" export -f chrome --from 0 --to 1ms "$t" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert "window_begin_ns" in d["otherData"]' || fail "--from/--to: no window in otherData"
echo "ok: --nvtx keeps $in of $all ops; --from/--to is recorded"

# ---------------------------------------------------------------- -o NAME.gz
z=$(fixture streams_fixed)
for f in perfetto csv; do
	"$K" export -f $f -o "$WORK/z.$f" "$z" || fail "export $f"
	"$K" export -f $f -o "$WORK/z.$f.gz" "$z" || fail "export $f -o .gz"
	gzip -t "$WORK/z.$f.gz" || fail "export $f -o .gz: not gzip"
	gzip -dc "$WORK/z.$f.gz" | cmp -s - "$WORK/z.$f" || fail "export $f -o .gz: not the plain export"
done
python3 -c 'import gzip, json, sys; json.load(gzip.open(sys.argv[1], "rt"))' "$WORK/z.perfetto.gz" ||
	fail "python cannot read the .json.gz"
echo "ok: -o NAME.gz writes gzip that decompresses to the plain export (perfetto, csv)"

# ---------------------------------------------------------------- every fixture
# every committed trace that 'report' reads exports in every format; one it refuses,
# export refuses too, with the same exit status
n=0
for x in tests/fixtures/h200/*.kgt.xz tests/fixtures/h200/current/*.kgt.xz tests/fixtures/torch/*.json.gz; do
	case $x in
	*.kgt.xz) name=${x#"$FIXTURES/"}; e=$(fixture "${name%.kgt.xz}") ;;
	*) e=$x ;;
	esac
	"$K" report --no-progress "$e" > /dev/null 2> "$WORK/err"
	want=$?
	for f in chrome perfetto csv sqlite; do
		rm -f "$WORK/every.out"
		"$K" export -f $f --no-progress -o "$WORK/every.out" "$e" 2> "$WORK/err2"
		got=$?
		[ "$got" = "$want" ] || fail "$x: export -f $f exited $got, report $want: $(cat "$WORK/err2" "$WORK/err")"
	done
	n=$((n + 1))
done
echo "ok: every committed trace ($n): export in each format exits as report does"

# ---------------------------------------------------------------- bad input, options, disk
expect_error 1 "cannot open '$WORK/nope.kgt'" "$K" export -f chrome "$WORK/nope.kgt"
echo garbage > "$WORK/garbage.txt"
expect_error 1 "$WORK/garbage.txt" "$K" export -f csv "$WORK/garbage.txt"
expect_error 2 "is not a format" "$K" export -f svg "$t"
expect_error 2 "--format is required" "$K" export "$t"
expect_error 2 "give it with -o FILE" "$K" export -f sqlite "$t"
expect_error 2 "--table is for --format csv" "$K" export -f chrome --table apis "$t"
expect_error 2 "is not a table" "$K" export -f csv --table nope "$t"
expect_error 2 "not a time" "$K" export -f csv --from soon "$t"
expect_error 2 "one trace at a time" "$K" export -f csv "$t" "$t"
expect_error 1 "has no NVTX or annotation range named 'nope'" "$K" export -f csv --nvtx nope "$t"
expect_error 1 "cannot write to standard output" sh -c "\"$K\" export -f chrome \"$t\" > /dev/full"
expect_error 1 "cannot write to standard output" sh -c "\"$K\" export -f csv \"$t\" > /dev/full"
expect_error 1 "cannot write '/dev/full'" "$K" export -f perfetto -o /dev/full "$t"
expect_error 1 "cannot create '$WORK/no/such/dir/x.json" "$K" export -f chrome -o "$WORK/no/such/dir/x.json" "$t"
expect_error 1 "cannot create '$WORK/no/such/dir/x.kgt" "$K" export -f sqlite -o "$WORK/no/such/dir/x.kgt" "$t"
expect_error 1 "it is a directory" "$K" export -f csv -o "$WORK" "$t"
"$K" export --help | grep -q "perfetto" || fail "export --help"
echo "ok: export"
