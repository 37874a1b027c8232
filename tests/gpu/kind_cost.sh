#!/usr/bin/env bash
# Issue 26's next question (docs/results/lean-full-h100.md): full mode costs the launch loop
# 1.06x its floor (kernels mode with latency timestamps) with CUPTI's sync kind never on and
# its overhead kind making no difference. Enabling full mode's other activity kinds once
# cost 10 % in an earlier call (docs/results/process-cost-h100.md): which of them? Paired by
# round on the launch loop: the floor, full mode, full mode without copies/memsets/peer
# copies (kinds 1, 2, 22), without NVTX (12), without all four (-skip), without each copy kind.
#   tests/gpu/kind_cost.sh OUTDIR [SECONDS [TINY_S]]   OUTDIR/{loop,tiny}/{overhead.csv,paired.md}
set -u
out=${1:?usage: kind_cost.sh OUTDIR [SECONDS]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
PRIME=0 bench/overhead.sh -n 400 -t "${2:-300}" -o "$out/loop" -w launch_loop \
	-c kgantt-kernels-latency,kgantt-full,kgantt-full-nocopies,kgantt-full-nonvtx,kgantt-full-skip,kgantt-full-nomemcpy,kgantt-full-nomemset,kgantt-full-nopeer \
	> "$out/loop.log" 2>&1
python3 bench/paired.py "$out/loop/overhead.csv" kgantt-full/kgantt-kernels-latency \
	kgantt-full-nocopies/kgantt-kernels-latency kgantt-full-nonvtx/kgantt-kernels-latency \
	kgantt-full-skip/kgantt-kernels-latency kgantt-full/kgantt-full-nocopies \
	kgantt-full/kgantt-full-nonvtx kgantt-full/kgantt-full-nomemcpy \
	kgantt-full/kgantt-full-nomemset kgantt-full/kgantt-full-nopeer > "$out/loop/paired.md" 2>&1
# tiny PyTorch ops (copies at start-up, none in the loop), when TINY_S seconds are given
[ -n "${3:-}" ] || exit 0
PRIME=0 bench/overhead.sh -n 400 -t "$3" -o "$out/tiny" -w torch_tiny \
	-c kgantt-kernels-latency,kgantt-full,kgantt-full-nocopies,kgantt-full-nonvtx \
	> "$out/tiny.log" 2>&1
python3 bench/paired.py "$out/tiny/overhead.csv" kgantt-full/kgantt-kernels-latency \
	kgantt-full/kgantt-full-nocopies kgantt-full/kgantt-full-nonvtx > "$out/tiny/paired.md" 2>&1
