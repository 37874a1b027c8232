#!/usr/bin/env bash
# Issue 26, the next question: full mode with the launch hook costs the launch loop 1.06x
# its floor (115 rounds, 2026-12-07), as CUPTI's launch windows did, where the hook with
# an observer that only reads the clock cost 1.00x (31 rounds). A rung each, paired by
# round: the floor; full mode with the hook telling launches that are not recorded
# (KGANTT_DEV_HOOK_BARE=1); full mode without call stacks; full mode; and with CUPTI's
# windows.
#   tests/gpu/hook_ladder.sh OUTDIR [SECONDS]      OUTDIR/overhead.csv, paired.md, ...
set -u
out=${1:?usage: hook_ladder.sh OUTDIR [SECONDS]}
tests/gpu/rounds.sh "$out" "${2:-400}" launch_loop \
	kgantt-kernels-latency,kgantt-full-hookbare,kgantt-full-nostacks,kgantt-full,kgantt-full-cbwindows \
	kgantt-full-hookbare/kgantt-kernels-latency kgantt-full-nostacks/kgantt-full-hookbare \
	kgantt-full/kgantt-full-nostacks kgantt-full/kgantt-kernels-latency \
	kgantt-full-cbwindows/kgantt-kernels-latency kgantt-full/kgantt-full-cbwindows
