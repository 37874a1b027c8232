# Host samples downstream of the recorder: tests/fixtures/host/host_train.kgt.xz (made
# without a GPU by tests/fixtures/host/make.sh: a training loop with planted host work and
# four named Python threads, sampled at 1 kHz under tests/py/host_shim.so) read by every
# command. The planted functions' samples are in the model with their stacks, states and
# threads' names (export --table host is the model's spans, row for row); the Perfetto
# export has them as slices, the SQLite export as samples that read back as the same spans;
# a window cuts them; merge keeps them; a trace without host samples says nothing of them.
# tests/py/check_host_trace.py holds the checks of the spans.
. tests/e2e/lib.sh
H=tests/fixtures/host
T=$WORK/host_train.kgt
xz -dc "$H/host_train.kgt.xz" > "$T" || fail "cannot decompress the host fixture"

"$K" info "$T" > "$WORK/info.txt" || fail "info"
grep -q "kgantt-trace version 6" "$WORK/info.txt" || fail "info: not a version 6 trace"
grep -Eq "^host samples: pid [0-9]+: [0-9,]+ samples at 1000 Hz on 5 threads \([0-9,]+ by the signal handler\), 0 lost;" \
	"$WORK/info.txt" || fail "info does not say the host samples: $(grep host "$WORK/info.txt")"
grep -q "host_samples yes" "$WORK/info.txt" || fail "info: host_samples not packed"
echo "ok: info: $(grep '^host samples' "$WORK/info.txt")"

"$K" report --no-progress "$T" > "$WORK/report.txt" || fail "report"
"$K" report --json --no-progress "$T" > "$WORK/report.json" || fail "report --json"
"$K" plot --no-progress "$T" -o "$WORK/plot.png" || fail "plot"
"$K" view -q --no-progress "$T" -o "$WORK/view.html" || fail "view"
"$K" export -f csv --table host "$T" -o "$WORK/host.csv" || fail "export csv --table host"
"$K" export -f perfetto "$T" -o "$WORK/trace.json" || fail "export perfetto"
"$K" export -f sqlite "$T" -o "$WORK/rows.kgt" || fail "export sqlite"
"$K" export -f csv --table host "$WORK/rows.kgt" -o "$WORK/host_rows.csv" ||
	fail "export csv --table host of the SQLite export"
echo "ok: report, plot, view and every export read it"

# pack --drop (rows) and pack again (blocks): the same spans each way
cp "$T" "$WORK/repack.kgt"
for how in "--drop" ""; do
	# shellcheck disable=SC2086
	"$K" pack $how "$WORK/repack.kgt" 2> "$WORK/pack.err" || fail "pack $how: $(cat "$WORK/pack.err")"
	"$K" export -f csv --table host "$WORK/repack.kgt" -o "$WORK/repack.csv" || fail "export after pack $how"
	cmp -s "$WORK/host.csv" "$WORK/repack.csv" || fail "pack $how changed the host spans"
done
echo "ok: pack --drop and pack keep the host samples"

# a window: --from 100ms --to 200ms of the trace's span
"$K" export -f csv --table host --from 100ms --to 200ms "$T" -o "$WORK/host_window.csv" ||
	fail "export csv --table host --from --to"
# merged with a trace without host samples: the spans stay, their stacks with them
"$K" merge -q -o "$WORK/merged.kgt" "$T" "$(fixture copies_bad)" || fail "merge"
"$K" export -f csv --table host "$WORK/merged.kgt" -o "$WORK/host_merged.csv" || fail "export of the merge"
"$K" info "$WORK/merged.kgt" | grep -q "^host samples: pid" || fail "info of the merge says no host samples"

python3 tests/py/check_host_trace.py "$H/host_train.json" "$WORK" || fail "tests/py/check_host_trace.py"

# a trace without host samples: no word of them, no host slice, an empty host table
t=$(fixture copies_bad)
"$K" info "$t" | grep -qi "host samples" && fail "info speaks of host samples in '$t'"
"$K" info "$t" | grep -q "host_samples" && fail "info lists host_samples for '$t'"
"$K" export -f perfetto "$t" -o "$WORK/none.json" || fail "export perfetto of '$t'"
grep -q host_sample "$WORK/none.json" && fail "host slices in the export of '$t'"
"$K" export -f csv --table host "$t" -o "$WORK/none.csv" || fail "export csv --table host of '$t'"
[ "$(wc -l < "$WORK/none.csv")" = 1 ] || fail "host rows in the export of '$t'"
echo "ok: a trace without host samples says nothing of them"

# samples that stand for several periods (overrun), cut where the one before ends: through
# a windowed SQLite export (the model's spans written back as samples) they read back the
# same (checked by check_host_trace.py --overrun)
cp "$WORK/rows.kgt" "$WORK/overrun.kgt"
python3 tests/py/check_host_trace.py --plant-overruns "$WORK/overrun.kgt" || fail "cannot plant overruns"
w="--from 100ms --to 200ms"
# shellcheck disable=SC2086
"$K" export -f sqlite $w "$WORK/overrun.kgt" -o "$WORK/overrun2.kgt" || fail "export sqlite of overruns"
# shellcheck disable=SC2086
"$K" export -f csv --table host $w "$WORK/overrun.kgt" -o "$WORK/overrun.csv" || fail "export csv of overruns"
"$K" export -f csv --table host "$WORK/overrun2.kgt" -o "$WORK/overrun2.csv" || fail "export csv of overruns"
python3 tests/py/check_host_trace.py --overrun "$WORK/overrun.csv" "$WORK/overrun2.csv" ||
	fail "spans of overrun samples change through a windowed SQLite export"

# what the recorder lost, and a process that could not sample: info and the report's notes
cp "$WORK/rows.kgt" "$WORK/lost.kgt"
sqlite3 "$WORK/lost.kgt" "UPDATE host_settings SET lost_ring = 7, lost_pending = 2, no_stack = 3"
"$K" info "$WORK/lost.kgt" | grep -q "^host samples: pid [0-9]*: [0-9,]* samples at 1000 Hz on 5 threads ([0-9,]* by the signal handler), 9 lost, 3 without their stack;" ||
	fail "info does not say the samples lost: $("$K" info "$WORK/lost.kgt" | grep host)"
"$K" report --json --no-progress "$WORK/lost.kgt" | grep -q "pid [0-9]*: 9 of [0-9]* host samples lost (the recorder's buffers were full); 3 without their stack" ||
	fail "the report's notes do not say the samples lost"
sqlite3 "$WORK/lost.kgt" "UPDATE host_settings SET hz = 0, note = 'no free signal'"
"$K" info "$WORK/lost.kgt" | grep -q "^host samples: pid [0-9]*: not taken: no free signal" || fail "info: not taken"
"$K" report --no-progress "$WORK/lost.kgt" | grep -q "host samples were not taken: no free signal" ||
	fail "the report's notes do not say why no host samples were taken"
echo "ok: samples lost, and not taken, in info and the report's notes"

# record --host-samples: the rate in the program's environment, off without the option;
# through the shim (the recorder's sampler, no CUDA) its summary says the samples
B=${BUILD:-build}
make -s --no-print-directory BUILD="$B" "$B/libkgantt-inject.so" "$B/tests/py/host_shim.so" > "$WORK/make.log" 2>&1 ||
	fail "cannot build the recorder and the shim: $(tail -3 "$WORK/make.log")"
for opt in "" "--mode kernels" "--mode kernels --host-samples" --host-samples --host-samples=250 \
	--host-samples=off; do
	# shellcheck disable=SC2086,SC2016
	"$K" record -q -o "$WORK/env.kgt" $opt -- sh -c 'echo "$KGANTT_HOST_HZ" > "$0"' "$WORK/hz" 2> /dev/null
	case "$opt" in "") want=100 ;; "--mode kernels" | *off) want=0 ;; *=250) want=250 ;; *) want=1000 ;; esac
	[ "$(cat "$WORK/hz")" = "$want" ] || fail "record $opt: KGANTT_HOST_HZ=$(cat "$WORK/hz"), expected $want"
done
echo "ok: record --host-samples sets KGANTT_HOST_HZ (1000 alone; by default 100 in full mode, off in kernels mode)"
py=$(python3 -c 'import sys; print(sys.executable)')
shim=$PWD/$B/tests/py/host_shim.so
"$K" record -o "$WORK/rec.kgt" --host-samples=500 -- env LD_PRELOAD="$shim" "$py" "$H/host_train.py" "$shim" 3 \
	> /dev/null 2> "$WORK/rec.err" || fail "record through the shim: $(cat "$WORK/rec.err")"
grep -Eq "^kgantt: host samples: [0-9,]+ at 500 Hz from 1 process \([0-9,]+ taken by the signal handler\), 0 lost$" "$WORK/rec.err" ||
	fail "record's summary does not say the host samples: $(cat "$WORK/rec.err")"
"$K" info "$WORK/rec.kgt" | grep -q "^host samples: pid [0-9]*: [0-9,]* samples at 500 Hz on 5 threads" ||
	fail "info of the recording: $("$K" info "$WORK/rec.kgt" | grep host)"
echo "ok: $(grep 'host samples' "$WORK/rec.err")"

# a sampled frame no file maps (the vDSO under clock_gettime, whose address the rows keep
# with no module) is told as such, not as "?"
python3 - "$WORK/rows.kgt" "$WORK/report.txt" <<'PY' || fail "the frame outside any file"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
bare = db.execute("SELECT count(*) FROM stack_frames WHERE kind = 0 AND function IS NULL "
                  "AND module IS NULL AND address IS NOT NULL").fetchone()[0]
text = open(sys.argv[2], encoding="utf-8").read()
assert bare > 0, "the fixture has no such frame: the test shows nothing"
assert " in ? " not in text and "← ? ←" not in text, [l for l in text.splitlines() if "?" in l]
assert "(no file: the vDSO or generated code)" in text
print("ok: %d sampled frames outside any file, told as the vDSO or generated code" % bare)
PY

# bad input: a host_samples table that is not one is an error naming the trace, not a crash
cp "$WORK/rows.kgt" "$WORK/bad.kgt"
python3 -c 'import sqlite3,sys; db=sqlite3.connect(sys.argv[1]); db.execute("DROP TABLE host_samples"); db.execute("CREATE TABLE host_samples(id INTEGER PRIMARY KEY, process TEXT)"); db.execute("INSERT INTO host_samples VALUES(1, 1)"); db.commit()' "$WORK/bad.kgt"
expect_error 1 "cannot read '$WORK/bad.kgt': host_samples row 1" "$K" report --no-progress "$WORK/bad.kgt"
expect_error 1 "cannot read '$WORK/bad.kgt': host_samples row 1" "$K" info "$WORK/bad.kgt"
