#!/usr/bin/env bash
# Issue 26's next device call, in one: full mode's parts switched inside one process
# (tests/gpu/ab_parts.sh) and the GPU's own gaps with and without latency timestamps
# (tests/gpu/latency_gaps.sh), then their tables. About 150 s on an H200.
#   tests/gpu/full_cost_inside.sh OUTDIR        OUTDIR/ab/ab.tar, OUTDIR/gaps/, OUTDIR/ab.md
set -u
out=${1:?usage: full_cost_inside.sh OUTDIR}
mkdir -p "$out"
tests/gpu/ab_parts.sh "$out/ab" > "$out/ab.log" 2>&1
tests/gpu/latency_gaps.sh "$out/gaps" > "$out/gaps.log" 2>&1
d=$(mktemp -d)
tar -C "$d" -xf "$out/ab/ab.tar"
args=()
for t in "$d"/*.kgt.xz; do
	xz -dk "$t"
	args+=("${t%.xz}" "${t%.kgt.xz}.ab")
done
python3 bench/ab_cost.py "${args[@]}" > "$out/ab.md" 2>&1
