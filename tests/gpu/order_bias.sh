#!/usr/bin/env bash
# Does a run pay for the process that ran right before it? bench/overhead.sh rotated the
# order of its configurations every round until 2026-12-06, so each always ran right after
# the same one (full mode right after its floor). The launch loop with the order shuffled
# every round: full mode against kernels mode and its floor, then each configuration's
# runs by the one before them (tests/tools/predecessor.py).
#   tests/gpu/order_bias.sh OUTDIR [SECONDS]      OUTDIR/overhead.csv, paired.md, predecessor.md
set -u
out=${1:?usage: order_bias.sh OUTDIR [SECONDS]}
tests/gpu/rounds.sh "$out" "${2:-280}" launch_loop \
	untraced,kgantt-kernels,kgantt-kernels-latency,kgantt-full \
	kgantt-full/kgantt-kernels kgantt-full/kgantt-kernels-latency \
	kgantt-kernels-latency/kgantt-kernels kgantt-full/untraced kgantt-kernels/untraced
python3 tests/tools/predecessor.py "$out/overhead.csv" > "$out/predecessor.md" 2>&1
