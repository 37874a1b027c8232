#!/usr/bin/env bash
# Where full mode's cost over kernels mode goes (issue 26), on a GPU machine:
#  1. inside one process: the launch loop and tiny PyTorch ops recorded in full mode (and
#     with --stacks off), and bench/window_cost.py on each trace: what a launch inside a
#     launch window costs against one outside, with no process-to-process noise;
#  2. between processes, paired by round (bench/overhead.sh): kernels mode, kernels mode with
#     latency timestamps, full mode, full mode without host samples and full mode without
#     launch windows (KGANTT_DEV_NO_LAUNCH_WINDOWS=1).
#   tests/gpu/full_cost_parts.sh OUTDIR [LOOP_ROUNDS] [TORCH_ROUNDS] [SECONDS]
#   OUTDIR/summary.txt, OUTDIR/*.kgt.xz, OUTDIR/overhead/
set -u
out=${1:?usage: full_cost_parts.sh OUTDIR [LOOP_ROUNDS] [TORCH_ROUNDS] [SECONDS]}
loop_rounds=${2:-12}
torch_rounds=${3:-4}
seconds=${4:-330}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
mkdir -p "$out"
configs=untraced,kgantt-kernels,kgantt-kernels-latency,kgantt-full,kgantt-full-nohost,kgantt-full-nowindows
rec() { # name record-options... -- command...
	local name=$1; shift
	local opts=()
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	"$K" record --force -o "$out/$name.kgt" "${opts[@]}" -- "$@" > "$out/$name.log" 2>&1 ||
		echo "FAIL: $name: record exit $?" >> "$out/summary.txt"
}
for i in 1 2 3; do
	rec loop_full_$i -- build/bench/launch_loop -n 50000 -r 3
	rec loop_nostacks_$i --stacks off -- build/bench/launch_loop -n 50000 -r 3
done
for i in 1 2; do
	rec tiny_full_$i -- python3 bench/torch_step.py --tiny --reps 3
done
python3 bench/window_cost.py "$out"/*.kgt >> "$out/summary.txt" 2>&1
for f in "$out"/*.kgt; do xz -6 -T0 -f "$f"; done
PRIME=0 bench/overhead.sh -n "$loop_rounds" -o "$out/overhead-loop" -w launch_loop -c "$configs" \
	> "$out/overhead-loop.log" 2>&1
PRIME=0 TORCH_GPT_ARGS="--reps 1 --steps 15" bench/overhead.sh -n "$torch_rounds" -t "$seconds" \
	-o "$out/overhead-torch" -w torch_tiny,torch_gpt -c "$configs" > "$out/overhead-torch.log" 2>&1
for d in overhead-loop overhead-torch; do
	python3 bench/paired.py "$out/$d/overhead.csv" kgantt-full/kgantt-kernels \
		kgantt-kernels-latency/kgantt-kernels kgantt-full/kgantt-kernels-latency \
		kgantt-full-nohost/kgantt-full kgantt-full-nowindows/kgantt-full \
		kgantt-full-nowindows/kgantt-kernels-latency kgantt-full/untraced \
		kgantt-kernels/untraced >> "$out/summary.txt" 2>&1
done
