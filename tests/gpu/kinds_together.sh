#!/usr/bin/env bash
# Issue 26: does enabling any one of full mode's extra activity kinds (copies 1, memsets 2,
# NVTX 12, overhead 17, peer copies 22) cost every launch, so that leaving out one at a time
# (kind_cost.sh) never showed it? Paired by round: the floor (kernels mode with latency
# timestamps), full mode, full mode with none of them, and with each group alone.
#   tests/gpu/kinds_together.sh OUTDIR [LOOP_S [TINY_S]]   OUTDIR/{loop,tiny}/{overhead.csv,paired.md}
set -u
out=${1:?usage: kinds_together.sh OUTDIR [LOOP_S [TINY_S]]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
PRIME=0 bench/overhead.sh -n 400 -t "${2:-250}" -o "$out/loop" -w launch_loop \
	-c kgantt-kernels,kgantt-kernels-latency,kgantt-full,kgantt-full-nokinds,kgantt-full-onlycopies,kgantt-full-onlynvtx,kgantt-full-onlyoverhead \
	> "$out/loop.log" 2>&1
python3 bench/paired.py "$out/loop/overhead.csv" kgantt-full/kgantt-kernels-latency \
	kgantt-full-nokinds/kgantt-kernels-latency kgantt-full/kgantt-full-nokinds \
	kgantt-full-onlycopies/kgantt-full-nokinds kgantt-full-onlynvtx/kgantt-full-nokinds \
	kgantt-full-onlyoverhead/kgantt-full-nokinds kgantt-full/kgantt-kernels \
	kgantt-full-nokinds/kgantt-kernels kgantt-kernels-latency/kgantt-kernels > "$out/loop/paired.md" 2>&1
[ -n "${3:-}" ] || exit 0
PRIME=0 bench/overhead.sh -n 400 -t "$3" -o "$out/tiny" -w torch_tiny \
	-c kgantt-kernels,kgantt-kernels-latency,kgantt-full,kgantt-full-nokinds \
	> "$out/tiny.log" 2>&1
python3 bench/paired.py "$out/tiny/overhead.csv" kgantt-full/kgantt-kernels-latency \
	kgantt-full-nokinds/kgantt-kernels-latency kgantt-full/kgantt-full-nokinds \
	kgantt-full/kgantt-kernels kgantt-full-nokinds/kgantt-kernels > "$out/tiny/paired.md" 2>&1
