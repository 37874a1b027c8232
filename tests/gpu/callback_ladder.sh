#!/usr/bin/env bash
# Issue 26: full mode costs the launch loop 1.07-1.08x its floor with or without its extra
# activity kinds and its timestamp callback (floor_parts.sh, docs/results/floor-parts-h100.md).
# A ladder from the floor to full mode, one part more each rung, and the floor with a single
# API callback left on for a function the loop never calls: does CUPTI charge every call of
# a domain while any callback of it is on? (Run on an H100 on 2026-12-06: the launch windows.)
#   tests/gpu/callback_ladder.sh OUTDIR [SECONDS]      OUTDIR/overhead.csv, paired.md
set -u
out=${1:?usage: callback_ladder.sh OUTDIR [SECONDS]}
floor=kgantt-kernels-latency
tests/gpu/rounds.sh "$out" "${2:-300}" launch_loop \
	kgantt-kernels,$floor,$floor-cb-runtime,$floor-cb-driver,kgantt-full-nothing,kgantt-full-cbonly,kgantt-full-nohost-nostacks,kgantt-full \
	$floor-cb-runtime/$floor $floor-cb-driver/$floor \
	kgantt-full-nothing/$floor kgantt-full-cbonly/$floor kgantt-full-cbonly/kgantt-full-nothing \
	kgantt-full-nohost-nostacks/kgantt-full-cbonly kgantt-full/kgantt-full-nohost-nostacks \
	kgantt-full/$floor kgantt-full/kgantt-kernels $floor/kgantt-kernels
