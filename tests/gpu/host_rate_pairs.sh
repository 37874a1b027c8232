#!/usr/bin/env bash
# The same programs recorded with host samples at full mode's default rate (100 Hz) and at
# 1 kHz, where a sample stands for 1 ms instead of 10: what the 1 kHz trace says the
# launching thread did while the GPU waited is the yardstick for the 100 Hz one's
# (src/model/host_fit.c, src/model/launch_threads.c).
#   tests/gpu/host_rate_pairs.sh OUTDIR    -> OUTDIR/NAME_100.kgt, NAME_1000.kgt, summary.txt
set -u
out=${1:?usage: host_rate_pairs.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
mkdir -p "$out"
log=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$log"
for p in "timm_train --steps 40" "lightning_train --steps 100" "host_dataloader" "py_threads --iters 200"; do
	name=${p%% *}
	args=${p#"$name"}
	for hz in 100 1000; do
		timeout 240 "$K" record --force --host-samples=$hz -o "$out/${name}_$hz.kgt" -- \
			python3 tests/gpu/$name.py $args > "$out/${name}_$hz.out" 2>&1
		echo "$name $hz Hz: rc=$? $(grep -o 'host samples:.*' "$out/${name}_$hz.out" | head -1)" | tee -a "$log"
	done
done
