#!/usr/bin/env bash
# Issue 26: what full mode costs beyond its floor, paired by round on the launch loop and
# tiny ops: the floor (kernels mode with latency timestamps), full mode (its syncs from the
# callbacks), full mode with CUPTI's sync kind as before (-synckind), without overhead
# records (-nooverhead), and without its other extra kinds (copies, memsets, NVTX, peer
# copies: -skip, measurement only). CONFIGS replaces that list; a pair of paired.md whose
# configurations were not run is left out. The sync records themselves are checked by
# tests/gpu/sync_calls.sh; tests/gpu/lean_full_check.sh runs both in one device call.
#   tests/gpu/lean_cost.sh OUTDIR [LOOP_S [TINY_S [CONFIGS]]]
#      OUTDIR/{loop,tiny}/{overhead.csv,overhead.md,paired.md}, OUTDIR/{loop,tiny}.log
set -u
out=${1:?usage: lean_cost.sh OUTDIR [LOOP_S [TINY_S [CONFIGS]]]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
configs=${4:-kgantt-kernels-latency,kgantt-full,kgantt-full-synckind,kgantt-full-nooverhead,kgantt-full-skip}
# as many rounds as the time allows (-t)
PRIME=0 bench/overhead.sh -n 400 -t "${2:-200}" -o "$out/loop" -w launch_loop -c "$configs" > "$out/loop.log" 2>&1
PRIME=0 bench/overhead.sh -n 100 -t "${3:-150}" -o "$out/tiny" -w torch_tiny -c "$configs" > "$out/tiny.log" 2>&1
for d in loop tiny; do
	[ -f "$out/$d/overhead.csv" ] || continue
	python3 bench/paired.py "$out/$d/overhead.csv" kgantt-full/kgantt-kernels \
		kgantt-kernels-latency/kgantt-kernels kgantt-full/kgantt-kernels-latency \
		kgantt-full-synckind/kgantt-kernels-latency kgantt-full-synckind/kgantt-full \
		kgantt-full-nooverhead/kgantt-kernels-latency kgantt-full/kgantt-full-nooverhead \
		kgantt-full-skip/kgantt-kernels-latency > "$out/$d/paired.md" 2>&1
done
