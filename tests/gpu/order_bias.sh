#!/usr/bin/env bash
# Does a run pay for the process that ran right before it? bench/overhead.sh rotated the
# order of its configurations every round until 2026-12-06, so each always ran right after
# the same one (full mode right after its floor). The launch loop with the order shuffled
# every round: full mode against kernels mode and its floor, then each configuration's
# runs by the one before them (tests/tools/predecessor.py).
#   tests/gpu/order_bias.sh OUTDIR [SECONDS]      OUTDIR/overhead.csv, paired.md, predecessor.md
set -u
out=${1:?usage: order_bias.sh OUTDIR [SECONDS]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
ORDER=shuffle PRIME=0 bench/overhead.sh -n 1000 -t "${2:-280}" -o "$out" -w launch_loop \
	-c untraced,kgantt-kernels,kgantt-kernels-latency,kgantt-full > "$out/overhead.log" 2>&1
python3 bench/paired.py "$out/overhead.csv" kgantt-full/kgantt-kernels \
	kgantt-full/kgantt-kernels-latency kgantt-kernels-latency/kgantt-kernels \
	kgantt-full/untraced kgantt-kernels/untraced > "$out/paired.md" 2>&1
python3 tests/tools/predecessor.py "$out/overhead.csv" > "$out/predecessor.md" 2>&1
