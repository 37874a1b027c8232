#!/usr/bin/env bash
# Issue 26: full mode with its launch windows from the launch hook (src/preload/
# launch_hook.h), on the GPU: every example and a GPT step recorded as fixtures
# (api_filter_gpt_h200.sh KEEP), the launch loop and a GPT step beside --all-launches
# (every launch's call: the call sites' truth), a CuPy and a JAX loop, then the launch loop
# paired by round: its floor, full mode, and full mode with CUPTI's launch windows.
#   tests/gpu/hook_check.sh OUTDIR [LOOP_S]        OUTDIR/all.tgz
# LEAN=1: the fixtures only (no --all-launches runs, no cost rounds), for a short call.
set -u
out=${1:?usage: hook_check.sh OUTDIR [LOOP_S]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
w=$(mktemp -d)
. tests/gpu/part.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$w/gpu.txt" 2>&1
part 120 current tests/gpu/api_filter_gpt_h200.sh "$w/apf" "$w/current"
mkdir -p "$w/more"
part 40 loop "$K" record --force -o "$w/more/loop.kgt" -- build/bench/launch_loop -n 20000 -r 3
[ "${LEAN:-0}" = 1 ] || part 40 loop_all "$K" record --force --all-launches -o "$w/more/loop_all.kgt" -- \
	build/bench/launch_loop -n 20000 -r 3
[ "${LEAN:-0}" = 1 ] || part 60 gpt_all "$K" record --force --all-launches -o "$w/more/gpt_all.kgt" -- \
	python3 bench/torch_step.py --gpt --steps 10 --reps 1
part 60 cupy "$K" record --force -o "$w/more/cupy.kgt" -- python3 tests/gpu/cupy_loop.py --iters 100
part 90 jax "$K" record --force -o "$w/more/jax.kgt" -- python3 tests/gpu/jax_loop.py --steps 50
for t in "$w"/more/*.kgt; do
	"$K" info "$t" > "${t%.kgt}.info" 2>&1
	"$K" report --no-progress "$t" > "${t%.kgt}.report" 2>&1
	"$K" report --json --no-progress "$t" > "${t%.kgt}.json" 2>&1
done
[ "${LEAN:-0}" = 1 ] || part $((${2:-120} + 30)) cost tests/gpu/rounds.sh "$w/cost" "${2:-120}" launch_loop \
	kgantt-kernels-latency,kgantt-full,kgantt-full-cbwindows \
	kgantt-full/kgantt-kernels-latency kgantt-full-cbwindows/kgantt-kernels-latency \
	kgantt-full/kgantt-full-cbwindows
# the recorder's timed stacks, from the raw rows of every trace just recorded
python3 tests/gpu/check_stack_times.py "$w"/current/*.kgt "$w"/more/*.kgt > "$w/stack_times.txt" 2>&1
"$K" report --json --no-progress "$w/current/launches_bad.kgt" > "$w/launches_bad.json" 2>&1
python3 tests/gpu/check_stack_times.py --recording "$w/current/launches_bad.kgt" \
	"$w/launches_bad.json" >> "$w/stack_times.txt" 2>&1
cat "$w/stack_times.txt"
xz -T0 "$w"/current/*.kgt "$w"/more/*.kgt 2> /dev/null
tar -C "$w" -czf "$out/all.tgz" .
