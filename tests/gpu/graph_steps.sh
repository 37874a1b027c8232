#!/usr/bin/env bash
# A transformers Llama replayed from a CUDA graph once a step (tests/gpu/graph_steps.py),
# captured by hand and compiled with mode="reduce-overhead", recorded by full mode: the
# traces behind tests/fixtures/h100/graph/ (t119).
#   tests/gpu/graph_steps.sh OUTDIR
#   OUTDIR/NAME.kgt, NAME.out (the program's output), NAME.report, NAME.json; summary.txt
set -u
out=${1:?usage: graph_steps.sh OUTDIR}
. tests/gpu/record_programs.sh
python3 -c 'import transformers; print("transformers", transformers.__version__)' >> "$log" 2>&1
record graph_replays 150 python3 tests/gpu/graph_steps.py --steps 20
record compiled_replays 240 python3 tests/gpu/graph_steps.py --steps 20 --compile
