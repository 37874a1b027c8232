#!/usr/bin/env bash
# Does kgantt's timestamp callback (every CUPTI time on CLOCK_MONOTONIC_RAW) cost the launch
# loop part of its floor? With latency timestamps on, CUPTI takes two host times a launch.
# docs/results/floor-pooled-h100.md: raw CUPTI's stamps cost 0.99x, kgantt's floor 1.03x.
# The floor and full mode with and without the callback, raw CUPTI with latency timestamps
# with and without one; the order shuffled every round; the host's clock source beside it.
#   tests/gpu/clock_cost.sh OUTDIR [SECONDS]      OUTDIR/overhead.csv, paired.md, clock.txt
set -u
out=${1:?usage: clock_cost.sh OUTDIR [SECONDS]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
{ cat /sys/devices/system/clocksource/clocksource0/current_clocksource
  build/bench/recorder_parts 2>&1 | grep -i clock; } > "$out/clock.txt" 2>&1
PRIME=0 bench/overhead.sh -n 1000 -t "${2:-300}" -o "$out" -w launch_loop \
	-c kgantt-kernels,kgantt-kernels-latency,kgantt-kernels-latency-notscb,kgantt-full,kgantt-full-notscb,cupti-raw-latency,cupti-raw-latency-tscb \
	> "$out/overhead.log" 2>&1
python3 bench/paired.py "$out/overhead.csv" kgantt-kernels-latency/kgantt-kernels-latency-notscb \
	kgantt-full/kgantt-full-notscb cupti-raw-latency-tscb/cupti-raw-latency \
	kgantt-kernels-latency-notscb/kgantt-kernels kgantt-full-notscb/kgantt-kernels \
	kgantt-full/kgantt-kernels > "$out/paired.md" 2>&1
