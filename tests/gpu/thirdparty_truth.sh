#!/usr/bin/env bash
# Two checks on third-party programs, on the GPU machine:
#  1. the training loops recorded with --all-launches, so that every kernel's launching
#     thread is known (the truth for src/model/launch_threads.c, which infers it where
#     full mode samples the launch calls): OUTDIR/NAME_all.kgt;
#  2. what recording costs a CuPy loop that reads a value back every iteration (a stack
#     for each copy and sync), untraced / kernels mode / full mode / full --stacks off,
#     paired by round, order rotated: OUTDIR/cupy/cupy.csv (tests/gpu/wait_places.sh).
#   tests/gpu/thirdparty_truth.sh OUTDIR [ROUNDS]
set -u
out=${1:?usage: thirdparty_truth.sh OUTDIR [ROUNDS]}
rounds=${2:-5}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
mkdir -p "$out"
log=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$log"

for p in "timm_train --steps 40" "lightning_train --steps 100"; do
	name=${p%% *}
	timeout 240 "$K" record --force --all-launches -o "$out/${name}_all.kgt" -- \
		python3 tests/gpu/$name.py ${p#* } > "$out/${name}_all.out" 2>&1
	echo "$name --all-launches: rc=$? $(grep -o '^{.*}' "$out/${name}_all.out" | tail -1)" | tee -a "$log"
done

# the CuPy loop's cost, by its median iteration after 20 untimed ones (its whole run's
# rate counted the first iteration's compile and SciPy import: docs/results/wait-places-h100.md)
CUPY_CONFIGS="untraced kernels full nostacks" tests/gpu/wait_places.sh "$out/cupy" "$rounds" cost
cat "$out/cupy/summary.txt" >> "$log"
