#!/usr/bin/env bash
# Issue 26: can the launch hook date every kernel on the host instead of CUPTI's latency
# timestamps (full mode's floor: 1.03x untraced on the GPT step), and what would it cost?
# 1. programs recorded in kernels mode with latency timestamps, the hook's stand-in
#    observer keeping every launch (tests/gpu/launch_hook_probe.c HOOK_PROBE=stamp):
#    tests/gpu/hook_stamps.py says whether each kernel's queued time falls in the call the
#    hook matched to it by stream order;
# 2. the three workloads paired by round: kernels mode, with latency timestamps, with the
#    hook dating every launch, full mode, untraced.
#   tests/gpu/hookstamp_h100.sh OUTDIR [SECONDS]      OUTDIR/hookstamp.tgz
set -u
out=${1:?usage: hookstamp_h100.sh OUTDIR [SECONDS]}
budget=${2:-585}
t0=$SECONDS
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
PRE=$PWD/build/libkgantt-launch.so:$PWD/build/tests/gpu/libhookprobe.so
w=$(mktemp -d)
mkdir -p "$w/v"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$w/gpu.txt" 2>&1
stamp() { # NAME SECONDS PROGRAM...
	local n=$1 s=$2
	shift 2
	LD_PRELOAD=$PRE HOOK_PROBE=stamp HOOK_PROBE_OUT=$w/v/$n.stamps timeout "$s" \
		"$K" record --force -q --mode kernels --latency on -o "$w/v/$n.kgt" -- "$@" \
		> "$w/v/$n.log" 2>&1
	echo "== $n: exit $?" >> "$w/v/match.txt"
	python3 tests/gpu/hook_stamps.py "$w/v/$n.kgt" "$w/v/$n".stamps.* >> "$w/v/match.txt" 2>&1
	echo "match exit $?" >> "$w/v/match.txt"
}
stamp loop 40 build/bench/launch_loop -n 20000 -r 3
stamp gpt 60 python3 bench/torch_step.py --gpt --steps 10 --reps 1
stamp tiny 60 python3 bench/torch_step.py --tiny
stamp cupy 60 python3 tests/gpu/cupy_loop.py --iters 100
stamp jax 90 python3 tests/gpu/jax_loop.py --steps 50
stamp multi 60 python3 tests/gpu/py_threads.py
cat "$w/v/match.txt"
echo "validation took $((SECONDS - t0)) s"
left=$((budget - (SECONDS - t0) - 20))
HOOK_PROBE_LIB=$PWD/build/tests/gpu/libhookprobe.so PRIME=0 TORCH_GPT_ARGS="--reps 1 --steps 15" \
	bench/overhead.sh -n 1000 -t "$left" -o "$w/cost" -w launch_loop,torch_tiny,torch_gpt \
	-c untraced,kgantt-kernels,kgantt-kernels-latency,kgantt-kernels-hookstamp,kgantt-full \
	> "$w/cost.log" 2>&1
python3 bench/paired.py "$w/cost/overhead.csv" kgantt-kernels-hookstamp/kgantt-kernels \
	kgantt-kernels-latency/kgantt-kernels kgantt-kernels-hookstamp/kgantt-kernels-latency \
	kgantt-full/kgantt-kernels kgantt-full/kgantt-kernels-latency kgantt-full/untraced \
	kgantt-kernels-latency/untraced kgantt-kernels-hookstamp/untraced kgantt-kernels/untraced \
	> "$w/cost/paired.md" 2>&1
cat "$w/cost/paired.md"
xz -T0 "$w"/v/*.kgt 2> /dev/null
tar -C "$w" -czf "$out/hookstamp.tgz" .
