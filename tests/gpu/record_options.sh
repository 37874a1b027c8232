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
# check NAME PYTHON-ASSERTIONS: runs the assertions with `db` open on the trace NAME.kgt
check() {
	local name=$1 code=$2
	if python3 - "$out/fixtures/$name.kgt" > "$out/logs/$name.check" 2>&1 <<EOF2
import sqlite3, sys
db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
q = lambda sql, *a: db.execute(sql, a).fetchall()
one = lambda sql, *a: db.execute(sql, a).fetchone()[0]
$code
EOF2
	then result OK "$name: $(tail -1 "$out/logs/$name.check")"
	else result FAIL "$name: $(tail -3 "$out/logs/$name.check" | tr '\n' ' ')"; fi
}

# --delay 1 --duration 1 on a program launching ~1 ms kernels for 4 s: about one second
# of kernels, starting about one second in.
name=window_delay_duration
"$K" record -f --delay 1 --duration 1 -o "$out/fixtures/$name.kgt" -- "$X/longrun" 4 > "$out/logs/$name.out" 2> "$out/logs/$name.err"
check $name '
n = one("select count(*) from kernels")
t0 = one("select start_ns from processes")
first = one("select min(start) from kernels") - t0
last = one("select max(end) from kernels") - t0
caps = q("select active, why from captures order by ts")
print("kernels", n, "first at %.3f s, last at %.3f s after process start" % (first / 1e9, last / 1e9), caps)
assert 300 < n < 1500, n
assert [c[1] for c in caps] == ["delay elapsed", "duration elapsed"], caps
assert last - first < 1.3e9, (first, last)
print("window ok: %d kernels in %.2f s" % (n, (last - first) / 1e9))'

# --capture-range cudaProfilerApi: only the 50 kernels inside the range.
name=capture_range
"$K" record -f --capture-range cudaProfilerApi -o "$out/fixtures/$name.kgt" -- "$X/profrange" > "$out/fixtures/$name.out" 2> "$out/logs/$name.err"
check $name '
rows = q("select s.text, count(*) from kernels k join strings s on s.id = k.demangled group by 1")
print(rows)
assert rows == [("profrange_inside(float*, int)", 50)], rows
print("range ok:", rows)'
# and without it, all 450
name=capture_range_off
"$K" record -f -o "$out/fixtures/$name.kgt" -- "$X/profrange" > "$out/logs/$name.out" 2> "$out/logs/$name.err"
check $name '
n = one("select count(*) from kernels")
assert n == 450, n
print("no range: all", n, "kernels")'

# Tiny buffers: 1 MiB x 2 for 10,000 launches: CUPTI asks for more buffers than the pool
# holds; nothing may be lost, and the shortfall must be reported.
name=small_buffers
"$K" record -f --buffer-size 1 --buffers 2 -o "$out/fixtures/$name.kgt" -- "$X/launches" bad > "$out/fixtures/$name.out" 2> "$out/logs/$name.err"
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
		"$K" record -f -o "$out/fixtures/$name.kgt" -- python3 -c "
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
		check $name '
complete, status, note = q("select complete, exit_status, spool_note from processes")[0]
n = one("select count(*) from kernels")
print("complete", complete, "status", status, "kernels", n, "note", note)
assert complete == 0 and n >= 300, (complete, n)
want = {"abort": "signal 6", "_exit": "exit 3", "segfault": "signal 11"}["'$how'"]
assert status.startswith(want), status
print("'$how': incomplete trace with", n, "kernels, status", status)'
	done

	# torchrun with two ranks: both processes in one trace, each with its rank.
	name=torchrun_2ranks
	"$K" record -f -o "$out/fixtures/$name.kgt" -- torchrun --standalone --nproc-per-node 2 tests/gpu/torch_ranks.py > "$out/logs/$name.out" 2> "$out/logs/$name.err"
	echo "record exit $?" >> "$out/logs/$name.err"
	check $name '
procs = q("select pid, ppid, rank, complete from processes order by rank")
ranks = [p[2] for p in procs]
nccl = one("select count(*) from kernels k join strings s on s.id = k.demangled where s.text like \"%nccl%\"")
print("processes", procs, "nccl kernels", nccl)
assert ranks == ["0", "1"], procs
assert all(p[3] == 1 for p in procs)
print("torchrun: ranks", ranks, "recorded in one trace;", nccl, "NCCL kernels")'
fi
# The PyTorch scenarios of torch_traces.py, recorded by kgantt instead of torch.profiler:
# kgantt traces of real PyTorch programs, for the diagnosis.
if python3 -c 'import torch' 2>/dev/null; then
	for sc in torch_pageable_item torch_tiny_ops torch_transformer_bf16 torch_two_streams; do
		"$K" record -f -o "$out/fixtures/$sc.kgt" -- env TORCH_TRACES_NO_PROFILER=1 \
			python3 tests/gpu/torch_traces.py "$out/logs" "$sc" > "$out/logs/$sc.out" 2> "$out/logs/$sc.err"
		rc=$?
		result "$([ $rc -eq 0 ] && echo OK || echo FAIL)" "$sc under kgantt: exit $rc, $(tail -1 "$out/logs/$sc.err")"
	done
fi
say "options: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
