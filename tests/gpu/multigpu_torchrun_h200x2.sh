#!/usr/bin/env bash
# Second GPU batch (run on a 2-GPU machine): the examples again (multigpu included), the
# option and bad-ending tests, the torchrun job, PyTorch scenarios under kgantt.
#   tests/gpu/multigpu_torchrun_h200x2.sh OUTDIR
set -u
out=${1:?}
run=/tmp/kgantt-gpu-run2
rm -rf "$run"; mkdir -p "$run/logs"
nvidia-smi -L > "$run/logs/gpus.txt" 2>&1
tests/gpu/record_examples.sh "$run" > "$run/logs/record_examples.txt" 2>&1
echo "examples exit $?"; grep -E "FAIL|multigpu|passed" "$run/logs/record_examples.txt"
tests/gpu/record_options.sh "$run" > "$run/logs/record_options.txt" 2>&1
echo "options exit $?"; cat "$run/logs/record_options.txt"
tar -C "$run" -cJf "$out/fixtures2.tar.xz" fixtures
tar -C "$run" -cJf "$out/logs2.tar.xz" logs summary.txt
ls -la "$out"
