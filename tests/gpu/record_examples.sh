#!/usr/bin/env bash
# Records every example (and its fixed twin) under `kgantt record` on a GPU machine,
# validates each trace against what the example says it launched, runs the SIGKILL
# test, and packs the traces as fixtures.
#
#   tests/gpu/record_examples.sh OUTDIR
#
# Run from the repository root after `make` (binaries in build/). Writes:
#   OUTDIR/fixtures/<example>_<mode>.kgt   the traces
#   OUTDIR/fixtures/<example>_<mode>.out   the example's stdout (its kgantt-expect lines)
#   OUTDIR/logs/...                         stderr of each run, validation output
#   OUTDIR/summary.txt                      one line per check, and the totals
set -u
out=${1:?usage: record_examples.sh OUTDIR}
K=${KGANTT:-build/kgantt}
X=build/examples
mkdir -p "$out/fixtures" "$out/logs"
summary="$out/summary.txt"
: > "$summary"
passed=0
failed=0

say() { echo "$*" | tee -a "$summary"; }
result() { # result OK|FAIL text
	if [ "$1" = OK ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	say "$1 $2"
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$out/logs/gpu.txt" 2>&1
say "gpu: $(cat "$out/logs/gpu.txt" | head -2 | tr '\n' ';')"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)

# example mode [record options...]
runs=(
	"streams bad" "streams fixed" "streams busy"
	"copies bad" "copies fixed"
	"launches bad" "launches fixed" "launches graph"
	"occupancy bad" "occupancy fixed"
	"timeslice bad" "timeslice fixed"
	"nvtx bad"
)
if [ "$gpus" -ge 2 ]; then runs+=("multigpu bad" "multigpu fixed"); fi

for r in "${runs[@]}"; do
	set -- $r
	ex=$1 mode=$2
	name=${ex}_${mode}
	trace="$out/fixtures/$name.kgt"
	args=("$mode")
	[ "$ex" = nvtx ] && args=()
	t0=$(date +%s.%N)
	"$K" record --force -o "$trace" -- "$X/$ex" "${args[@]}" > "$out/fixtures/$name.out" 2> "$out/logs/$name.err"
	rc=$?
	t1=$(date +%s.%N)
	if [ $rc -ne 0 ]; then
		result FAIL "$name: record exited $rc: $(tail -3 "$out/logs/$name.err" | tr '\n' ' ')"
		continue
	fi
	result OK "$name: recorded in $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s, $(stat -c %s "$trace") bytes"
	if python3 tests/gpu/validate.py "$trace" "$out/fixtures/$name.out" > "$out/logs/$name.validate" 2>&1; then
		result OK "$name: $(tail -1 "$out/logs/$name.validate")"
	else
		result FAIL "$name: validation: $(grep FAIL "$out/logs/$name.validate" | head -5 | tr '\n' ' ')"
	fi
done

# Kernels-only mode: same counts, no API calls, no latency timestamps by default.
name=launches_bad_kernels
"$K" record --force --mode kernels -o "$out/fixtures/$name.kgt" -- "$X/launches" bad > "$out/fixtures/$name.out" 2> "$out/logs/$name.err" &&
	python3 tests/gpu/validate.py "$out/fixtures/$name.kgt" "$out/fixtures/$name.out" > "$out/logs/$name.validate" 2>&1
rc=$?
result "$([ $rc -eq 0 ] && echo OK || echo FAIL)" "$name: $(tail -1 "$out/logs/$name.validate" 2>/dev/null)"

# SIGKILL mid-run: the trace must still be readable, hold what was flushed, and say
# the process was incomplete.
name=longrun_killed
"$K" record --force -o "$out/fixtures/$name.kgt" -- "$X/longrun" 30 > "$out/fixtures/$name.out" 2> "$out/logs/$name.err" &
rec=$!
sleep 5
victim=$(pgrep -P "$rec" | head -1) # the program, not record itself
progress=$(tail -1 "$out/fixtures/$name.out")
kill -9 "$victim" 2>/dev/null
wait $rec
rc=$?
python3 - "$out/fixtures/$name.kgt" "$rc" "$progress" > "$out/logs/$name.validate" 2>&1 <<'EOF'
import sys
sys.path.insert(0, "tests/gpu")
import kgt_rows  # a compacted trace as rows
db = kgt_rows.connect(sys.argv[1])
complete, status, note = db.execute('SELECT complete, exit_status, spool_note FROM processes').fetchone()
kernels = db.execute('SELECT COUNT(*) FROM kernels').fetchone()[0]
launched = int(sys.argv[3].split()[-1]) if sys.argv[3].split() else 0
print('record exit', sys.argv[2], 'complete', complete, 'status', status, 'kernels', kernels,
      'launched before kill >=', launched, 'note', note)
ok = complete == 0 and 'signal 9' in (status or '') and kernels > 0 and sys.argv[2] == '137'
# everything flushed up to ~flush period before the kill: most of what was launched
ok = ok and kernels >= 0.5 * launched
print('OK' if ok else 'FAIL')
sys.exit(0 if ok else 1)
EOF
rc=$?
result "$([ $rc -eq 0 ] && echo OK || echo FAIL)" "$name: $(head -1 "$out/logs/$name.validate")"

# record itself killed: the program runs on and finishes, its spool stays behind, and
# `kgantt import` turns it into the trace.
name=record_killed
"$K" record --force -o "$out/logs/$name.kgt" -- "$X/longrun" 4 > "$out/logs/$name.out" 2> "$out/logs/$name.err" &
rec=$!
sleep 1.5
victim=$(pgrep -P "$rec" | head -1)
kill -9 "$rec"
while kill -0 "$victim" 2>/dev/null; do sleep 0.2; done
"$K" import --force -o "$out/fixtures/longrun_recovered.kgt" "$out/logs/$name.kgt.spool" >> "$out/logs/$name.err" 2>&1 &&
	cp "$out/logs/$name.out" "$out/fixtures/longrun_recovered.out" &&
	python3 tests/gpu/validate.py "$out/fixtures/longrun_recovered.kgt" "$out/fixtures/longrun_recovered.out" > "$out/logs/$name.validate" 2>&1
rc=$?
result "$([ $rc -eq 0 ] && echo OK || echo FAIL)" "$name: spool imported after record was killed: $(tail -1 "$out/logs/$name.validate" 2>/dev/null)"

# A second profiler in the same process: CUPTI allows one subscriber; the program must
# run on and record must say why nothing was traced.
if python3 -c 'import torch' 2>/dev/null; then
	name=torch_profiler_conflict
	"$K" record --force -o "$out/fixtures/$name.kgt" -- python3 -c '
import torch
from torch.profiler import profile, ProfilerActivity
x = torch.ones(1000, device="cuda")
with profile(activities=[ProfilerActivity.CUDA]) as p:
    y = (x * 2).sum().item()
print("result", y)
' > "$out/logs/$name.out" 2> "$out/logs/$name.err"
	rc=$?
	result "$(grep -q 'result 2000' "$out/logs/$name.out" && [ $rc -eq 0 ] && echo OK || echo FAIL)" \
		"$name: program exit $rc, output '$(cat "$out/logs/$name.out")', kgantt said: $(grep -i kgantt "$out/logs/$name.err" | head -3 | tr '\n' ' ')"
fi

say "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
