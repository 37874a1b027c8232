#!/usr/bin/env bash
# Issue 26, branch lean-full's first GPU call: the sync records from the callbacks against
# CUPTI's (sync_calls.sh), every example and a GPT step recorded again as fixtures
# (api_filter_gpt_h200.sh KEEP), record's options and bad endings (record_options.sh), and
# full mode against its floor, paired by round, on the launch loop and tiny ops
# (tests/gpu/lean_cost.sh, in OUTDIR's cost/). Each part has its own time limit, so that
# the whole fits one device call (600 s).
#   tests/gpu/lean_full_check.sh OUTDIR [LOOP_S TINY_S [CONFIGS]]     OUTDIR/all.tgz
set -u
out=${1:?usage: lean_full_check.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
w=$(mktemp -d)
. tests/gpu/part.sh
loop_s=${2:-88} tiny_s=${3:-63}
configs=${4:-kgantt-kernels-latency,kgantt-full,kgantt-full-synckind,kgantt-full-nooverhead}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$w/gpu.txt" 2>&1
part 60 sync tests/gpu/sync_calls.sh "$w/sync"
part 100 current tests/gpu/api_filter_gpt_h200.sh "$w/apf" "$w/current"
part 100 options tests/gpu/record_options.sh "$w/ro"
part $((loop_s + tiny_s + 30)) cost tests/gpu/lean_cost.sh "$w/cost" "$loop_s" "$tiny_s" "$configs"
xz -T0 "$w"/current/*.kgt "$w"/ro/fixtures/*.kgt 2> /dev/null
tar -C "$w" -czf "$out/all.tgz" .
