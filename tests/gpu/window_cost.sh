#!/usr/bin/env bash
# Issue 26: the launch windows cost the launch loop 1.08x between processes
# (callback_ladder.sh, docs/results/floor-parts-h100.md), where inside one process a launch
# in a window cost 2-13 % more than one outside, 1 % of the run (full-cost-parts-h100.md).
# Does their cost follow the time they are open (1 ms in 100, 10 in 1000: a tenth of it),
# or their opening (10 in 1000 opens them a tenth as often as 1 in 100)? (Run on an H100 on
# 2026-12-06: neither.)
#   tests/gpu/window_cost.sh OUTDIR [SECONDS]      OUTDIR/overhead.csv, paired.md
set -u
out=${1:?usage: window_cost.sh OUTDIR [SECONDS]}
floor=kgantt-kernels-latency
tests/gpu/rounds.sh "$out" "${2:-300}" launch_loop \
	$floor,kgantt-full,kgantt-full-win-1-100,kgantt-full-win-10-1000,kgantt-full-nowindows \
	kgantt-full/$floor kgantt-full-win-1-100/$floor \
	kgantt-full-win-10-1000/$floor kgantt-full-nowindows/$floor \
	kgantt-full/kgantt-full-win-1-100 kgantt-full/kgantt-full-win-10-1000 \
	kgantt-full-win-1-100/kgantt-full-win-10-1000
