#!/usr/bin/env bash
# Where full mode's cost beyond its floor goes, between processes, with many rounds (the
# noise on this machine is per process: docs/results/recorder-cost-h200.md): kernels mode,
# kernels mode with latency timestamps (the floor), full mode, full mode without launch
# windows and full mode without host samples, paired by round; the launch loop and tiny ops.
#   tests/gpu/full_parts_many.sh OUTDIR [LOOP_ROUNDS] [LOOP_S] [TINY_ROUNDS] [TINY_S]
#   OUTDIR/loop/, OUTDIR/tiny/ (overhead.csv, overhead.md, paired.md)
set -u
out=${1:?usage: full_parts_many.sh OUTDIR [LOOP_ROUNDS] [LOOP_S] [TINY_ROUNDS] [TINY_S]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
configs=kgantt-kernels,kgantt-kernels-latency,kgantt-full,kgantt-full-nowindows,kgantt-full-nohost
PRIME=0 bench/overhead.sh -n "${2:-30}" -t "${3:-120}" -o "$out/loop" -w launch_loop -c "$configs" \
	> "$out/loop.log" 2>&1
PRIME=0 bench/overhead.sh -n "${4:-10}" -t "${5:-270}" -o "$out/tiny" -w torch_tiny -c "$configs" \
	> "$out/tiny.log" 2>&1
for d in loop tiny; do
	python3 bench/paired.py "$out/$d/overhead.csv" kgantt-full/kgantt-kernels \
		kgantt-full/kgantt-kernels-latency kgantt-full-nowindows/kgantt-kernels-latency \
		kgantt-full/kgantt-full-nowindows kgantt-full/kgantt-full-nohost \
		kgantt-kernels-latency/kgantt-kernels > "$out/$d/paired.md" 2>&1
done
