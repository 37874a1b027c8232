#!/usr/bin/env bash
# What the launch stack sampler's places cost and take (issue 26), on the H200: the GPT
# step and the transformers decoder recorded in the default full mode (the sampler counts
# launches by place: src/recorder/stacks.c) and with KGANTT_DEV_STACKS_BY_KERNEL=1 (by
# kernel, as before), their stacks counted; then both beside kernels mode and untraced,
# paired by round (bench/overhead.sh). The call of 2026-12-05 (an H100) was
# `tests/gpu/place_stacks_h200.sh OUTDIR 5 300`: docs/results/sampled-launches-h200.md.
#   tests/gpu/place_stacks_h200.sh OUTDIR [ROUNDS] [SECONDS]      ROUNDS 0: the recordings only
#   OUTDIR/summary.txt, OUTDIR/*.kgt.xz, OUTDIR/overhead/ (overhead.csv, overhead.md)
set -u
out=${1:?usage: place_stacks_h200.sh OUTDIR [ROUNDS] [SECONDS]}
rounds=${2:-6}
seconds=${3:-420}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
mkdir -p "$out"
count() { # trace: its launch calls, stacks of launches, all stacks
	python3 - "$1" <<'PY'
import sys
sys.path.insert(0, "tests/gpu")
import kgt_rows
db = kgt_rows.connect(sys.argv[1])
calls = db.execute("SELECT COUNT(*) FROM api_calls a JOIN kernels k ON k.process = a.process AND k.correlation = a.correlation").fetchone()[0]
launch_stacks = db.execute("SELECT COUNT(*) FROM api_stacks t JOIN kernels k ON k.process = t.process AND k.correlation = t.correlation").fetchone()[0]
stacks = db.execute("SELECT COUNT(*) FROM api_stacks").fetchone()[0]
print("launch calls %d, launch stacks %d, stacks %d" % (calls, launch_stacks, stacks))
PY
}
rec() { # name env... -- command...
	local name=$1; shift
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "$K" record --force -o "$out/$name.kgt" -- "$@" > "$out/$name.log" 2>&1 ||
		echo "FAIL: $name: record exit $?" >> "$out/summary.txt"
	echo "$name: $(count "$out/$name.kgt")" >> "$out/summary.txt"
	"$K" report --sites "$out/$name.kgt" > "$out/$name.report" 2>&1
	xz -9 -T0 -f "$out/$name.kgt"
}
for i in 1 2; do
	rec gpt_place_$i X=1 -- python3 bench/torch_step.py --gpt --steps 30 --reps 1
	rec gpt_kernel_$i KGANTT_DEV_STACKS_BY_KERNEL=1 -- python3 bench/torch_step.py --gpt --steps 30 --reps 1
done
rec hf_place X=1 -- python3 tests/gpu/hf_decode.py --tokens 24
rec hf_kernel KGANTT_DEV_STACKS_BY_KERNEL=1 -- python3 tests/gpu/hf_decode.py --tokens 24
[ "$rounds" -gt 0 ] || exit 0 # the recordings only
PRIME=0 TORCH_GPT_ARGS="--reps 1 --steps 15" bench/overhead.sh -n "$rounds" -t "$seconds" -o "$out/overhead" \
	-w launch_loop,torch_tiny,torch_gpt \
	-c untraced,kgantt-kernels,kgantt-full,kgantt-full-stacks-by-kernel > "$out/overhead.log" 2>&1
python3 bench/paired.py "$out/overhead/overhead.csv" kgantt-full/kgantt-full-stacks-by-kernel \
	kgantt-full/kgantt-kernels kgantt-full-stacks-by-kernel/kgantt-kernels kgantt-full/untraced \
	>> "$out/summary.txt" 2>&1
