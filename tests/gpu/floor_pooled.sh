#!/usr/bin/env bash
# Issue 26's launch loop and tiny ops, many rounds paired: is full mode's cost over kernels
# mode its floor's (CUPTI's latency timestamps, which the design needs) or its own? Raw
# CUPTI with and without the timestamps beside kgantt's kernels mode with and without them,
# and full mode; configurations interleaved, order shuffled every round (rotated in its
# run of 2026-12-06).
#   tests/gpu/floor_pooled.sh OUTDIR [LOOP_S [TINY_S]]   OUTDIR/{loop,tiny}/{overhead.csv,paired.md}
set -u
out=${1:?usage: floor_pooled.sh OUTDIR [LOOP_S [TINY_S]]}
ratios=(kgantt-full/kgantt-kernels kgantt-full/kgantt-kernels-latency
	kgantt-kernels-latency/kgantt-kernels cupti-raw-latency/cupti-raw
	kgantt-kernels/cupti-raw kgantt-kernels-latency/cupti-raw-latency
	kgantt-full/untraced kgantt-kernels/untraced cupti-raw/untraced)
tests/gpu/rounds.sh "$out/loop" "${2:-300}" launch_loop \
	untraced,cupti-raw,cupti-raw-latency,kgantt-kernels,kgantt-kernels-latency,kgantt-full \
	"${ratios[@]}"
[ -n "${3:-}" ] || exit 0
tests/gpu/rounds.sh "$out/tiny" "$3" torch_tiny \
	cupti-raw,cupti-raw-latency,kgantt-kernels,kgantt-kernels-latency,kgantt-full "${ratios[@]:0:6}"
