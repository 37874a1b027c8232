#!/usr/bin/env bash
# Full mode against its floor, kernels mode with latency timestamps (issue 26), paired by
# round: the GPT step (5 rounds) and the launch loop (15). The call of 2026-12-05 (an H100):
# docs/results/latency-floor-h100.md.
#   tests/gpu/latency_floor.sh OUTDIR      OUTDIR/gpt/, OUTDIR/loop/ (overhead.csv, .md, paired.md)
set -u
out=${1:?usage: latency_floor.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
configs=untraced,kgantt-kernels,kgantt-kernels-latency,kgantt-full
PRIME=0 TORCH_GPT_ARGS="--reps 1 --steps 15" bench/overhead.sh -n 5 -t 230 -o "$out/gpt" \
	-w torch_gpt -c "$configs" > "$out/gpt.log" 2>&1
PRIME=0 bench/overhead.sh -n 15 -t 45 -o "$out/loop" -w launch_loop -c "$configs" > "$out/loop.log" 2>&1
for d in gpt loop; do
	python3 bench/paired.py "$out/$d/overhead.csv" kgantt-full/kgantt-kernels \
		kgantt-full/kgantt-kernels-latency kgantt-kernels-latency/kgantt-kernels \
		kgantt-full/untraced kgantt-kernels-latency/untraced kgantt-kernels/untraced \
		> "$out/$d/paired.md" 2>&1
done
