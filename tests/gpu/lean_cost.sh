#!/usr/bin/env bash
# Issue 26's next device call: are CUPTI's overhead (17) and synchronisation (38) kinds what
# full mode's process pays on every launch (docs/results/process-cost-h100.md), and do sync
# records from the callbacks say what CUPTI's say? First tests/gpu/sync_calls.sh (about
# 60 s), then, paired by round on the launch loop and tiny ops: the floor (kernels mode with
# latency timestamps), full mode (its syncs from the callbacks), full mode with CUPTI's sync
# kind as before (-synckind), without overhead records (-nooverhead), and without its other
# extra kinds (copies, memsets, NVTX, peer copies: -skip, measurement only).
#   tests/gpu/lean_cost.sh OUTDIR [LOOP_S] [TINY_S]
set -u
out=${1:?usage: lean_cost.sh OUTDIR [LOOP_S] [TINY_S]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
tests/gpu/sync_calls.sh "$out/sync" > "$out/sync.log" 2>&1
configs=kgantt-kernels-latency,kgantt-full,kgantt-full-synckind,kgantt-full-nooverhead,kgantt-full-skip
PRIME=0 bench/overhead.sh -n 80 -t "${2:-200}" -o "$out/loop" -w launch_loop -c "$configs" > "$out/loop.log" 2>&1
PRIME=0 bench/overhead.sh -n 20 -t "${3:-150}" -o "$out/tiny" -w torch_tiny -c "$configs" > "$out/tiny.log" 2>&1
for d in loop tiny; do
	[ -f "$out/$d/overhead.csv" ] || continue
	python3 bench/paired.py "$out/$d/overhead.csv" kgantt-full/kgantt-kernels-latency \
		kgantt-full-synckind/kgantt-kernels-latency kgantt-full-synckind/kgantt-full \
		kgantt-full-nooverhead/kgantt-kernels-latency kgantt-full/kgantt-full-nooverhead \
		kgantt-full-skip/kgantt-kernels-latency > "$out/$d/paired.md" 2>&1
done
