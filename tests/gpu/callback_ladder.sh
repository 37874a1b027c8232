#!/usr/bin/env bash
# Issue 26: full mode costs the launch loop 1.07-1.08x its floor with or without its extra
# activity kinds and its timestamp callback (floor_parts.sh, docs/results/floor-parts-h100.md).
# A ladder from the floor to full mode, one part more each rung, and the floor with a single
# API callback left on for a function the loop never calls: does CUPTI charge every call of
# a domain while any callback of it is on?
#   tests/gpu/callback_ladder.sh OUTDIR [SECONDS]      OUTDIR/overhead.csv, paired.md
set -u
out=${1:?usage: callback_ladder.sh OUTDIR [SECONDS]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
floor=kgantt-kernels-latency
PRIME=0 bench/overhead.sh -n 1000 -t "${2:-300}" -o "$out" -w launch_loop \
	-c kgantt-kernels,$floor,$floor-cb-runtime,$floor-cb-driver,kgantt-full-nothing,kgantt-full-cbonly,kgantt-full-nohost-nostacks,kgantt-full \
	> "$out/overhead.log" 2>&1
python3 bench/paired.py "$out/overhead.csv" $floor-cb-runtime/$floor $floor-cb-driver/$floor \
	kgantt-full-nothing/$floor kgantt-full-cbonly/$floor kgantt-full-cbonly/kgantt-full-nothing \
	kgantt-full-nohost-nostacks/kgantt-full-cbonly kgantt-full/kgantt-full-nohost-nostacks \
	kgantt-full/$floor kgantt-full/kgantt-kernels $floor/kgantt-kernels > "$out/paired.md" 2>&1
