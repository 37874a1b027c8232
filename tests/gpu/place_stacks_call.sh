#!/usr/bin/env bash
# The device call of 2026-12-05 (docs/results/sampled-launches-h200.md, "What the sampler by
# place costs"): run on the GPU machine from the repository root, results in $OUT/res.tgz.
set -u
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > /tmp/gpu.txt 2>&1
mkdir -p /tmp/res; cp /tmp/gpu.txt /tmp/res/
timeout 120 bash tests/gpu/place_stacks_h200.sh /tmp/res/ps 0 > /tmp/res/ps.log 2>&1
PRIME=0 TORCH_GPT_ARGS="--reps 1 --steps 15" timeout 330 bench/overhead.sh -n 5 -t 300 \
  -w launch_loop,torch_tiny,torch_gpt -c untraced,kgantt-kernels,kgantt-full,kgantt-full-stacks-by-kernel \
  -o /tmp/res/ov > /tmp/res/ov.log 2>&1
python3 bench/paired.py /tmp/res/ov/overhead.csv kgantt-full/kgantt-full-stacks-by-kernel kgantt-full/kgantt-kernels kgantt-full-stacks-by-kernel/kgantt-kernels kgantt-full/untraced > /tmp/res/paired.txt 2>&1
rm -rf /tmp/res/ov/logs/*/*.kgt* 2>/dev/null
tar czf $OUT/res.tgz -C /tmp res
cat /tmp/gpu.txt /tmp/res/ps/summary.txt /tmp/res/paired.txt
