#!/usr/bin/env bash
# Issue 26: can full mode take its launch windows from the launch hook (src/preload/
# launch_hook.h) instead of CUPTI's launch callbacks? First whether programs' launches go
# through the hook at all (every launch told to a counting observer, against what each
# program launches), then what it costs the launch loop, paired by round (rounds.sh).
#   tests/gpu/launch_hook_probe.sh OUTDIR [LOOP_S [TINY_S]]
#   OUTDIR/coverage.tar, loop.tar, tiny.tar, times.txt: each part packed as it ends
set -u
out=${1:?usage: launch_hook_probe.sh OUTDIR [LOOP_S [TINY_S]]}
mkdir -p "$out/coverage"
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
start=$(date +%s)
probe="$PWD/build/libkgantt-launch.so:$PWD/build/tests/gpu/libhookprobe.so"
cov=$out/coverage
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$cov/summary.txt"
python3 -c 'import torch; print("torch", torch.__version__)' >> "$cov/summary.txt" 2>&1

counted() { # NAME SECONDS PROGRAM...: every launch told; the program's output and the count
	local name=$1 limit=$2
	shift 2
	LD_PRELOAD=$probe HOOK_PROBE=count timeout "$limit" "$@" > "$cov/$name.out" 2>&1
	echo "$name: rc=$? $(grep '^hook-probe' "$cov/$name.out" | tr '\n' ' ')" >> "$cov/summary.txt"
}
counted launch_loop 60 build/bench/launch_loop -n 20000 -w 1000 -r 3
counted torch_tiny 120 python3 bench/torch_step.py --tiny --ops 2000 --reps 2
counted torch_gpt 180 python3 bench/torch_step.py --gpt --steps 3 --warmup 1
counted torch_compile 300 python3 tests/gpu/compile_step.py --steps 5
counted cupy 120 python3 tests/gpu/cupy_loop.py --iters 50
counted jax 200 python3 tests/gpu/jax_loop.py --steps 20
# beside CUPTI: the kernels the trace holds against the launches the hook told
LD_PRELOAD=$probe HOOK_PROBE=count timeout 60 build/kgantt record --force -o "$cov/loop_full.kgt" \
	--mode full -- build/bench/launch_loop -n 5000 -w 100 -r 1 > "$cov/loop_full.out" 2>&1
echo "loop_full: rc=$? kernels in trace: $(build/kgantt dump "$cov/loop_full.kgt" | tail -n +2 | wc -l) $(grep '^hook-probe' "$cov/loop_full.out" | tr '\n' ' ')" >> "$cov/summary.txt"
rm -f "$cov"/*.kgt
echo "coverage: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/coverage.tar" coverage && rm -rf "$out/coverage"

tests/gpu/rounds.sh "$out/loop" "${2:-150}" launch_loop \
	untraced,untraced-hook,untraced-hookprobe,kgantt-kernels-latency,kgantt-kernels-latency-hookprobe,kgantt-full \
	untraced-hook/untraced untraced-hookprobe/untraced \
	kgantt-kernels-latency-hookprobe/kgantt-kernels-latency kgantt-full/kgantt-kernels-latency \
	kgantt-full/kgantt-kernels-latency-hookprobe
echo "loop: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/loop.tar" loop && rm -rf "$out/loop"

tests/gpu/rounds.sh "$out/tiny" "${3:-90}" torch_tiny \
	untraced,kgantt-kernels-latency,kgantt-kernels-latency-hookprobe,kgantt-full \
	kgantt-kernels-latency-hookprobe/kgantt-kernels-latency kgantt-full/kgantt-kernels-latency
echo "tiny: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/tiny.tar" tiny && rm -rf "$out/tiny"
