#!/usr/bin/env bash
# The truth for sampled launch calls' call sites (issue 26): programs recorded with every
# launch's API call and a stack for each (record --all-launches --stacks all), so that
# tests/tools/sample_launches.py can make from each the trace the default would have
# recorded of the same run, and t104 can compare their call sites with the truth.
# A GPT training step (three runs: the program is bimodal, some runs host-bound) and a
# transformers decoder at batch 1.
#   tests/gpu/launch_sites_h200.sh OUTDIR      OUTDIR/*.kgt.xz, OUTDIR/summary.txt
set -u
out=${1:?usage: launch_sites_h200.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
mkdir -p "$out"
rec() {
	local name=$1; shift
	local t0=$(date +%s)
	"$K" record --force --all-launches --stacks all -o "$out/$name.kgt" -- "$@" \
		> "$out/$name.log" 2>&1 || echo "FAIL: $name: record exit $?" >> "$out/summary.txt"
	echo "$name ($(($(date +%s) - t0)) s): $("$K" report "$out/$name.kgt" 2>&1 | grep -m3 -E '^#[0-9]' | tr '\n' ' ')" \
		>> "$out/summary.txt"
	"$K" info "$out/$name.kgt" > "$out/$name.info" 2>&1
	xz -9 -T0 "$out/$name.kgt"
}
for i in 1 2 3; do
	rec gpt_all_stacks_$i python3 bench/torch_step.py --gpt --steps 30 --reps 1
done
rec hf_decode_all_stacks python3 tests/gpu/hf_decode.py --tokens 24
ls -l "$out" >> "$out/summary.txt"
