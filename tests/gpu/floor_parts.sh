#!/usr/bin/env bash
# Issue 26: what full mode pays on the launch loop beyond its floor (kernels mode with latency
# timestamps), pooled 1.06x over 217 rounds (docs/results/floor-pooled-h100.md). Two
# questions in one shuffled run:
#  - the timestamp callback (every CUPTI time read from CLOCK_MONOTONIC_RAW): the floor and
#    full mode with and without it, raw CUPTI's latency timestamps with and without one;
#  - full mode's extra activity kinds, enabled at start though the loop never copies, sets
#    or marks: full mode with none of them, without copies/memsets/peer copies, without NVTX,
#    without overhead records (docs/results/process-cost-h100.md: enabling them once cost
#    the process 10 %, and which one is still open).
# Run on an H100 on 2026-12-06: docs/results/floor-parts-h100.md.
#   tests/gpu/floor_parts.sh OUTDIR [SECONDS]      OUTDIR/overhead.csv, paired.md, clock.txt
set -u
out=${1:?usage: floor_parts.sh OUTDIR [SECONDS]}
mkdir -p "$out"
{ cat /sys/devices/system/clocksource/clocksource0/current_clocksource
  LD_LIBRARY_PATH=$PWD/build/devlib build/bench/recorder_parts 2>&1 | grep -i clock; } > "$out/clock.txt" 2>&1
floor=kgantt-kernels-latency
tests/gpu/rounds.sh "$out" "${2:-300}" launch_loop \
	kgantt-kernels,$floor,$floor-notscb,kgantt-full,kgantt-full-notscb,cupti-raw-latency,cupti-raw-latency-tscb,kgantt-full-nokinds,kgantt-full-nocopies,kgantt-full-nonvtx,kgantt-full-nooverhead \
	$floor/$floor-notscb kgantt-full/kgantt-full-notscb cupti-raw-latency-tscb/cupti-raw-latency \
	$floor-notscb/kgantt-kernels kgantt-full-notscb/kgantt-kernels \
	kgantt-full/kgantt-kernels kgantt-full/$floor \
	kgantt-full-nokinds/$floor kgantt-full/kgantt-full-nokinds \
	kgantt-full/kgantt-full-nocopies kgantt-full/kgantt-full-nonvtx \
	kgantt-full/kgantt-full-nooverhead
