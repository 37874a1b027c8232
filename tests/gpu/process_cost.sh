#!/usr/bin/env bash
# Is full mode's cost beyond its floor in its parts or in its process? Inside one process
# (tests/gpu/ab_parts.sh) everything full mode adds to kernels mode with latency timestamps
# cost the launch loop nothing measurable (H100, 2026-12-05); between processes it cost
# 1.08x. So, between processes and paired by round on the launch loop: the floor
# (kgantt-kernels-latency), the floor with every API callback enabled and disabled again
# at start (kgantt-kernels-latency-hooked: does CUPTI charge calls once callbacks were
# on?), full mode, and full mode with all its parts held off after start-up
# (kgantt-full-alloff), beside kernels mode.
#   tests/gpu/process_cost.sh OUTDIR [ROUNDS] [SECONDS]    OUTDIR/overhead.{csv,md}, OUTDIR/paired.md
set -u
out=${1:?usage: process_cost.sh OUTDIR [ROUNDS] [SECONDS]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
configs=${CONFIGS:-kgantt-kernels,kgantt-kernels-latency,kgantt-kernels-latency-hooked,kgantt-full,kgantt-full-alloff}
PRIME=0 bench/overhead.sh -n "${2:-60}" -t "${3:-220}" -o "$out" -w launch_loop -c "$configs" \
	> "$out/overhead.log" 2>&1
python3 bench/paired.py "$out/overhead.csv" kgantt-full/kgantt-kernels-latency \
	kgantt-full-alloff/kgantt-kernels-latency kgantt-full/kgantt-full-alloff \
	kgantt-kernels-latency-hooked/kgantt-kernels-latency kgantt-full-alloff/kgantt-kernels-latency-hooked \
	kgantt-kernels-latency/kgantt-kernels kgantt-full/kgantt-kernels > "$out/paired.md" 2>&1
