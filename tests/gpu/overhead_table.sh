#!/usr/bin/env bash
# Issue 26's table: the three workloads, 5 rounds paired, beside raw CUPTI, kernels mode,
# kernels mode with latency timestamps (full mode's floor) and torch.profiler, in one call;
# the order of the configurations shuffled every round (bench/overhead.sh's default since
# 2026-12-06 12:00; the tables before rotated it).
#   tests/gpu/overhead_table.sh OUTDIR [SECONDS]
#   OUTDIR/overhead.csv, overhead.md, paired.md, logs/
# EXTRA=CONFIG adds a configuration to the table, paired against kernels mode and full mode.
# FLOOR=0 leaves the floor out (the five configurations: more rounds in one call);
# ROUNDS=N asks for N rounds (5 unless set; the budget may stop it sooner).
set -u
out=${1:?usage: overhead_table.sh OUTDIR [SECONDS]}
seconds=${2:-540}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
floor=kgantt-kernels-latency,
[ "${FLOOR:-1}" = 0 ] && floor=
PRIME=0 TORCH_GPT_ARGS="--reps 1 --steps 15" bench/overhead.sh -n "${ROUNDS:-5}" -t "$seconds" -o "$out" \
	-w launch_loop,torch_tiny,torch_gpt \
	-c untraced,cupti-raw,kgantt-kernels,${floor}kgantt-full,torch-profiler${EXTRA:+,$EXTRA} \
	> "$out/overhead.log" 2>&1
python3 bench/paired.py "$out/overhead.csv" kgantt-full/kgantt-kernels kgantt-full/untraced \
	kgantt-full/kgantt-kernels-latency kgantt-kernels-latency/untraced kgantt-kernels/untraced \
	cupti-raw/untraced torch-profiler/untraced \
	${EXTRA:+$EXTRA/kgantt-kernels $EXTRA/kgantt-full $EXTRA/kgantt-kernels-latency $EXTRA/untraced} \
	> "$out/paired.md" 2>&1
