#!/usr/bin/env bash
# Full mode's parts switched off and on inside one process (KGANTT_DEV_AB, src/recorder/dev_ab.h),
# on tiny PyTorch ops and the launch loop, for bench/ab_cost.py (issue 26). Each recording's
# trace and switch log go into OUTDIR/ab.tar as soon as it ends, so a call cut short keeps
# what finished.
#   tests/gpu/ab_parts.sh OUTDIR [PARTS] [PERIOD_MS]      PARTS default "all callbacks kinds kind:17 kind:38"
# (all: full mode's kinds, callbacks and launch windows together, against kernels mode with
# latency timestamps inside one process)
set -u
out=${1:?usage: ab_parts.sh OUTDIR [PARTS] [PERIOD_MS]}
parts=${2:-all callbacks kinds kind:17 kind:38}
export KGANTT_DEV_AB_MS=${3:-20}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
work=$(mktemp -d)
mkdir -p "$out"
rec() { # name part -- command...
	local name=$1 part=$2
	shift 3
	KGANTT_DEV_AB=$part KGANTT_DEV_AB_LOG="$work/$name.ab" "$K" record --force \
		-o "$work/$name.kgt" -- "$@" > "$work/$name.log" 2>&1
	echo "$name: exit $? $(grep -c . "$work/$name.ab" 2>/dev/null) switches" >> "$work/summary.txt"
	xz -T0 -f "$work/$name.kgt"
	tar -C "$work" -cf "$out/ab.tar.tmp" . && mv "$out/ab.tar.tmp" "$out/ab.tar"
}
for part in $parts; do
	rec "tiny_${part/:/}" "$part" -- python3 bench/torch_step.py --tiny --ops 100000 --reps 3
done
for part in $parts; do
	rec "loop_${part/:/}" "$part" -- build/bench/launch_loop -n 500000 -r 1
done
