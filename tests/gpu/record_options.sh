#!/usr/bin/env bash
# GPU tests of `kgantt record`'s options and of programs that end badly:
# --delay/--duration, --capture-range cudaProfilerApi, tiny buffers, abort/_exit/segfault,
# and a torchrun job of two ranks. Appends to OUTDIR/summary.txt like record_examples.sh.
#   tests/gpu/record_options.sh OUTDIR
set -u
out=${1:?usage: record_options.sh OUTDIR}
K=${KGANTT:-build/kgantt}
X=build/examples
mkdir -p "$out/fixtures" "$out/logs"
summary="$out/summary.txt"
passed=0 failed=0
say() { echo "$*" | tee -a "$summary"; }
result() {
	if [ "$1" = OK ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	say "$1 $2"
}
# check NAME: the scenario's assertions (tests/gpu/check_trace.py) on NAME.kgt
check() {
	local name=$1
	if python3 tests/gpu/check_trace.py "$name" "$out/fixtures/$name.kgt" > "$out/logs/$name.check" 2>&1
	then result OK "$name: $(tail -1 "$out/logs/$name.check")"
	else result FAIL "$name: $(tail -3 "$out/logs/$name.check" | tr '\n' ' ')"; fi
}

# --delay 1 --duration 1 on a program launching ~1 ms kernels for 4 s: about one second
# of kernels, starting about one second in.
name=window_delay_duration
"$K" record --force --delay 1 --duration 1 -o "$out/fixtures/$name.kgt" -- "$X/longrun" 4 > "$out/logs/$name.out" 2> "$out/logs/$name.err"
check $name

# --capture-range cudaProfilerApi: only the 50 kernels inside the range.
name=capture_range
"$K" record --force --capture-range cudaProfilerApi -o "$out/fixtures/$name.kgt" -- "$X/profrange" > "$out/fixtures/$name.out" 2> "$out/logs/$name.err"
check $name
# and without it, all 450
name=capture_range_off
"$K" record --force -o "$out/fixtures/$name.kgt" -- "$X/profrange" > "$out/logs/$name.out" 2> "$out/logs/$name.err"
check $name
# full mode with --latency off records every launch's call: nothing else dates a kernel
name=latency_off_every_launch
"$K" record --force --latency off -o "$out/fixtures/$name.kgt" -- "$X/profrange" > "$out/logs/$name.out" 2> "$out/logs/$name.err"
check $name

# Tiny buffers: 1 MiB x 2 for 10,000 launches: CUPTI asks for more buffers than the pool
# holds; nothing may be lost, and the shortfall must be reported.
name=small_buffers
"$K" record --force --buffer-size 1 --buffers 2 -o "$out/fixtures/$name.kgt" -- "$X/launches" bad > "$out/fixtures/$name.out" 2> "$out/logs/$name.err"
if python3 tests/gpu/validate.py "$out/fixtures/$name.kgt" "$out/fixtures/$name.out" > "$out/logs/$name.validate" 2>&1; then
	result OK "$name: $(tail -1 "$out/logs/$name.validate"); late buffers: $(sqlite3 "$out/fixtures/$name.kgt" 'select late_buffers from processes' 2>/dev/null || python3 -c "import sqlite3,sys;print(sqlite3.connect(sys.argv[1]).execute('select late_buffers from processes').fetchone()[0])" "$out/fixtures/$name.kgt"); stderr: $(grep -c kgantt "$out/logs/$name.err") kgantt lines"
else
	result FAIL "$name: $(grep FAIL "$out/logs/$name.validate" | head -3 | tr '\n' ' ')"
fi

# Programs that end badly, after some work: abort, _exit, segfault. The trace keeps what
# was flushed before the end and says the process was incomplete.
if python3 -c 'import torch' 2>/dev/null; then
	for how in abort _exit segfault; do
		name=end_$how
		"$K" record --force -o "$out/fixtures/$name.kgt" -- python3 -c "
import os, time, ctypes, torch
x = torch.ones(1 << 20, device='cuda')
for i in range(300):
    x = x * 1.0001
torch.cuda.synchronize()
time.sleep(1.2)   # past one flush period
if '$how' == 'abort': os.abort()
if '$how' == '_exit': os._exit(3)
ctypes.string_at(0)
" > "$out/logs/$name.out" 2> "$out/logs/$name.err"
		echo "record exit $?" >> "$out/logs/$name.err"
		check $name
	done

	# torchrun with two ranks: both processes in one trace, each with its rank.
	name=torchrun_2ranks
	"$K" record --force -o "$out/fixtures/$name.kgt" -- torchrun --standalone --nproc-per-node 2 tests/gpu/torch_ranks.py > "$out/logs/$name.out" 2> "$out/logs/$name.err"
	echo "record exit $?" >> "$out/logs/$name.err"
	check $name
fi
# The PyTorch scenarios of torch_traces.py, recorded by kgantt instead of torch.profiler:
# kgantt traces of real PyTorch programs, for the diagnosis.
if python3 -c 'import torch' 2>/dev/null; then
	for sc in torch_pageable_item torch_tiny_ops torch_transformer_bf16 torch_two_streams; do
		"$K" record --force -o "$out/fixtures/$sc.kgt" -- env TORCH_TRACES_NO_PROFILER=1 \
			python3 tests/gpu/torch_traces.py "$out/logs" "$sc" > "$out/logs/$sc.out" 2> "$out/logs/$sc.err"
		rc=$?
		result "$([ $rc -eq 0 ] && echo OK || echo FAIL)" "$sc under kgantt: exit $rc, $(tail -1 "$out/logs/$sc.err")"
	done
fi
say "options: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
