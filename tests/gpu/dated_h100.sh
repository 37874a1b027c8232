#!/usr/bin/env bash
# Issue 26: full mode with every launch dated by the launch hook (KGANTT_DEV_DATED=1,
# src/trace/hooked_import.h), on the GPU.
# 1. each program recorded three ways: dated with latency timestamps as well and the
#    import pairing by launch order only (KGANTT_DEV_MATCH=order: check_dated.py --queued
#    checks every pair against the driver's queued time); dated without latency
#    timestamps (the design); full mode as it is (sampled launches), with both reports;
# 2. the three workloads paired by round: untraced, kernels mode, full mode, dated.
#   tests/gpu/dated_h100.sh OUTDIR [SECONDS]        OUTDIR/dated_v.tgz, OUTDIR/dated_cost.tgz
set -u
out=${1:?usage: dated_h100.sh OUTDIR [SECONDS]}
budget=${2:-585}
t0=$SECONDS
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
w=$(mktemp -d)
mkdir -p "$w/v"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$w/gpu.txt" 2>&1
three() { # NAME SECONDS PROGRAM...   (ONLY="NAME ...": those programs alone)
	local n=$1 s=$2
	shift 2
	[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $n "* ]] || return 0
	KGANTT_DEV_DATED=1 KGANTT_DEV_MATCH=order timeout "$s" "$K" record --force -q \
		-o "$w/v/${n}_q.kgt" -- "$@" > "$w/v/${n}_q.log" 2>&1
	KGANTT_DEV_DATED=1 timeout "$s" "$K" record --force -q --latency off \
		-o "$w/v/${n}_d.kgt" -- "$@" > "$w/v/${n}_d.log" 2>&1
	timeout "$s" "$K" record --force -q -o "$w/v/${n}_s.kgt" -- "$@" > "$w/v/${n}_s.log" 2>&1
	for m in d s; do
		"$K" report --no-progress "$w/v/${n}_$m.kgt" > "$w/v/${n}_$m.report" 2>&1
		"$K" report --json --no-progress "$w/v/${n}_$m.kgt" > "$w/v/${n}_$m.json" 2>&1
	done
	python3 tests/gpu/check_dated.py --queued "$w/v/${n}_q.kgt" >> "$w/v/check.txt" 2>&1
	echo "  exit $?" >> "$w/v/check.txt"
	python3 tests/gpu/check_dated.py "$w/v/${n}_d.kgt" >> "$w/v/check.txt" 2>&1
	echo "  exit $?" >> "$w/v/check.txt"
}
three loop 40 build/bench/launch_loop -n 20000 -r 3
three launches_bad 40 build/examples/launches bad
three launches_graph 40 build/examples/launches graph
three syncs_bad 40 build/examples/syncs bad
three gpt 60 python3 bench/torch_step.py --gpt --steps 10 --reps 1
three tiny 60 python3 bench/torch_step.py --tiny
three cupy 60 python3 tests/gpu/cupy_loop.py --iters 100
three jax 90 python3 tests/gpu/jax_loop.py --steps 50
three multi 60 python3 tests/gpu/py_threads.py
cat "$w/v/check.txt"
echo "validation took $((SECONDS - t0)) s"
xz -T0 "$w"/v/*.kgt 2> /dev/null
tar -C "$w" -czf "$out/dated_v.tgz" gpu.txt v   # kept if the call is cut short
left=$((budget - (SECONDS - t0) - 20))
[ "$left" -gt 60 ] || { echo "no time left for the cost rounds"; exit 0; }
PRIME=0 TORCH_GPT_ARGS="--reps 1 --steps 15" bench/overhead.sh -n 1000 -t "$left" -o "$w/cost" \
	-w launch_loop,torch_tiny,torch_gpt \
	-c untraced,kgantt-kernels,kgantt-full,kgantt-full-dated > "$w/cost.log" 2>&1
python3 bench/paired.py "$w/cost/overhead.csv" kgantt-full-dated/kgantt-kernels \
	kgantt-full/kgantt-kernels kgantt-full-dated/kgantt-full kgantt-full-dated/untraced \
	kgantt-full/untraced kgantt-kernels/untraced > "$w/cost/paired.md" 2>&1
cat "$w/cost/paired.md"
tar -C "$w" -czf "$out/dated_cost.tgz" cost cost.log
