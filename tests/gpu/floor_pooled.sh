#!/usr/bin/env bash
# Issue 26's launch loop and tiny ops, many rounds paired: is full mode's cost over kernels
# mode its floor's (CUPTI's latency timestamps, which the design needs) or its own? Raw
# CUPTI with and without the timestamps beside kgantt's kernels mode with and without them,
# and full mode; configurations interleaved, order rotated every round.
#   tests/gpu/floor_pooled.sh OUTDIR [LOOP_S [TINY_S]]   OUTDIR/{loop,tiny}/{overhead.csv,paired.md}
set -u
out=${1:?usage: floor_pooled.sh OUTDIR [LOOP_S [TINY_S]]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
ratios=(kgantt-full/kgantt-kernels kgantt-full/kgantt-kernels-latency
	kgantt-kernels-latency/kgantt-kernels cupti-raw-latency/cupti-raw
	kgantt-kernels/cupti-raw kgantt-kernels-latency/cupti-raw-latency
	kgantt-full/untraced kgantt-kernels/untraced cupti-raw/untraced)
PRIME=0 bench/overhead.sh -n 1000 -t "${2:-300}" -o "$out/loop" -w launch_loop \
	-c untraced,cupti-raw,cupti-raw-latency,kgantt-kernels,kgantt-kernels-latency,kgantt-full \
	> "$out/loop.log" 2>&1
python3 bench/paired.py "$out/loop/overhead.csv" "${ratios[@]}" > "$out/loop/paired.md" 2>&1
[ -n "${3:-}" ] || exit 0
PRIME=0 bench/overhead.sh -n 1000 -t "$3" -o "$out/tiny" -w torch_tiny \
	-c cupti-raw,cupti-raw-latency,kgantt-kernels,kgantt-kernels-latency,kgantt-full \
	> "$out/tiny.log" 2>&1
python3 bench/paired.py "$out/tiny/overhead.csv" "${ratios[@]:0:6}" > "$out/tiny/paired.md" 2>&1
