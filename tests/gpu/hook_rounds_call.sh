#!/usr/bin/env bash
# Issue 26: full mode with the launch hook against its floor and against CUPTI's launch
# windows, paired by round: the launch loop (LOOP_S), then tiny PyTorch ops (TINY_S); first
# the launch loop recorded once in each, for the gap between launches inside and outside
# the windows (tests/tools/launch_spacing.py, read here).
#   tests/gpu/hook_rounds_call.sh OUTDIR [LOOP_S [TINY_S]]
#   OUTDIR/spacing.tar, loop.tar, tiny.tar, times.txt
set -u
out=${1:?usage: hook_rounds_call.sh OUTDIR [LOOP_S [TINY_S]]}
loop_s=${2:-200} tiny_s=${3:-110}
mkdir -p "$out/spacing"
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
start=$(date +%s)
for how in "floor --mode kernels --latency on" "full --mode full" "cbwindows --mode full"; do
	set -- $how
	name=$1
	shift
	env $([ "$name" = cbwindows ] && echo KGANTT_DEV_NO_LAUNCH_HOOK=1) build/kgantt record \
		--force -q -o "$out/spacing/loop_$name.kgt" "$@" -- build/bench/launch_loop -n 20000 -r 3 \
		> "$out/spacing/loop_$name.out" 2>&1
	xz -T0 "$out/spacing/loop_$name.kgt"
done
echo "spacing: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/spacing.tar" spacing && rm -rf "$out/spacing"
tests/gpu/rounds.sh "$out/loop" "$loop_s" launch_loop \
	kgantt-kernels,kgantt-kernels-latency,kgantt-full,kgantt-full-cbwindows \
	kgantt-full/kgantt-kernels-latency kgantt-full-cbwindows/kgantt-kernels-latency \
	kgantt-full/kgantt-full-cbwindows kgantt-full/kgantt-kernels kgantt-full-cbwindows/kgantt-kernels
echo "loop: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/loop.tar" loop && rm -rf "$out/loop"
tests/gpu/rounds.sh "$out/tiny" "$tiny_s" torch_tiny \
	kgantt-kernels,kgantt-full,kgantt-full-cbwindows \
	kgantt-full/kgantt-kernels kgantt-full-cbwindows/kgantt-kernels kgantt-full/kgantt-full-cbwindows
echo "tiny: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/tiny.tar" tiny && rm -rf "$out/tiny"
