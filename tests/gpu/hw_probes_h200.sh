#!/usr/bin/env bash
# On the H200: what PM sampling and the SM-placement macros offer there (tests/gpu/*_probe.cu),
# before the recorder relies on them. Writes $OUT/probe/. Carry build/probe (the probes and
# the CUPTI/nvperf libraries they were built against).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/probe"
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/build/probe/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/probe/gpu.txt" 2>&1
timeout 200 build/probe/pm_sampling_probe "$OUT/probe" 1000000 100000 20000 10000 > "$OUT/probe/pm.txt" 2>&1
echo "pm probe rc=$?" >> "$OUT/probe/pm.txt"
timeout 120 build/probe/sm_placement_probe > "$OUT/probe/sm.txt" 2>&1
echo "sm probe rc=$?" >> "$OUT/probe/sm.txt"
tail -5 "$OUT/probe/pm.txt" "$OUT/probe/sm.txt"
