#!/usr/bin/env bash
# Do CUPTI's latency timestamps cost the GPU itself? The GPT step (which the host leads by
# milliseconds, so the GPU sets its pace) recorded in kernels mode with and without them,
# twice each, and the GPU's own gaps between back-to-back kernels compared
# (bench/gpu_gaps.py; issue 26's 1.03x untraced on the GPT step).
#   tests/gpu/latency_gaps.sh OUTDIR          OUTDIR/gaps.md, OUTDIR/latency_gaps.tar
set -u
out=${1:?usage: latency_gaps.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
work=$(mktemp -d)
mkdir -p "$out"
for i in 1 2; do
	for lat in on off; do
		"$K" record --force --mode kernels --latency $lat -o "$work/gpt_latency_${lat}_$i.kgt" -- \
			python3 bench/torch_step.py --gpt --steps 10 --reps 1 > "$work/gpt_latency_${lat}_$i.log" 2>&1
	done
done
python3 bench/gpu_gaps.py "$work"/gpt_latency_*.kgt > "$out/gaps.md" 2>&1
grep "^ms_per_step=" "$work"/*.log >> "$out/gaps.md"
xz -T0 "$work"/*.kgt
tar -C "$work" -cf "$out/latency_gaps.tar" .
