#!/usr/bin/env bash
# A transformers Llama replayed from a CUDA graph once a step (tests/gpu/graph_steps.py),
# captured by hand and compiled with mode="reduce-overhead", recorded by full mode: the
# traces behind tests/fixtures/h100/graph/ (t118).
#   tests/gpu/graph_steps.sh OUTDIR
#   OUTDIR/NAME.kgt, NAME.out (the program's output), NAME.report, NAME.json; summary.txt
set -u
out=${1:?usage: graph_steps.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
mkdir -p "$out"
log=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$log"
python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' >> "$log" 2>&1
record() { # NAME SECONDS PROGRAM...
	local name=$1 limit=$2
	shift 2
	timeout "$limit" "$K" record --force -o "$out/$name.kgt" -- "$@" > "$out/$name.out" 2>&1
	local rc=$?
	"$K" report --no-progress "$out/$name.kgt" > "$out/$name.report" 2>&1
	"$K" report --json --no-progress "$out/$name.kgt" > "$out/$name.json" 2>/dev/null
	echo "$name: record rc=$rc; $(grep -o '^{.*}' "$out/$name.out" | tail -1)" | tee -a "$log"
}
record graph_replays 150 python3 tests/gpu/graph_steps.py --steps 20
record compiled_replays 240 python3 tests/gpu/graph_steps.py --steps 20 --compile
