#!/usr/bin/env bash
# Two checks on third-party programs, on the GPU machine:
#  1. the training loops recorded with --all-launches, so that every kernel's launching
#     thread is known (the truth for src/model/launch_threads.c, which infers it where
#     full mode samples the launch calls): OUTDIR/NAME_all.kgt;
#  2. what recording costs a CuPy loop that reads a value back every iteration (a stack
#     for each copy and sync), untraced / kernels mode / full mode / full --stacks off,
#     paired by round, order rotated: OUTDIR/cupy.csv (config,round,iterations_per_s).
#   tests/gpu/thirdparty_truth.sh OUTDIR [ROUNDS]
set -u
out=${1:?usage: thirdparty_truth.sh OUTDIR [ROUNDS]}
rounds=${2:-5}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
mkdir -p "$out"
log=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$log"

for p in "timm_train --steps 40" "lightning_train --steps 100"; do
	name=${p%% *}
	timeout 240 "$K" record --force --all-launches -o "$out/${name}_all.kgt" -- \
		python3 tests/gpu/$name.py ${p#* } > "$out/${name}_all.out" 2>&1
	echo "$name --all-launches: rc=$? $(grep -o '^{.*}' "$out/${name}_all.out" | tail -1)" | tee -a "$log"
done

echo config,round,iterations_per_s > "$out/cupy.csv"
configs=(untraced kernels full nostacks)
for r in $(seq 1 "$rounds"); do
	for i in 0 1 2 3; do
		c=${configs[$(((i + r) % 4))]}
		cmd=(python3 tests/gpu/cupy_loop.py --iters 1000)
		case $c in
		kernels) cmd=("$K" record --force --mode kernels -o /tmp/cupy.kgt -- "${cmd[@]}") ;;
		full) cmd=("$K" record --force -o /tmp/cupy.kgt -- "${cmd[@]}") ;;
		nostacks) cmd=("$K" record --force --stacks off -o /tmp/cupy.kgt -- "${cmd[@]}") ;;
		esac
		v=$(timeout 120 "${cmd[@]}" 2>/dev/null | grep -o '"iterations_per_s": [0-9.]*' | cut -d' ' -f2)
		echo "$c,$r,${v:-NA}" >> "$out/cupy.csv"
	done
done
python3 - "$out/cupy.csv" <<'PY' | tee -a "$log"
import csv, statistics, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["iterations_per_s"] != "NA":
        by.setdefault(r["round"], {})[r["config"]] = float(r["iterations_per_s"])
for c in ("untraced", "kernels", "full", "nostacks"):
    v = [d[c] for d in by.values() if c in d]
    if v:
        print("cupy %s: median %.1f it/s (%.1f-%.1f, %d runs)" % (c, statistics.median(v), min(v), max(v), len(v)))
for a, b in (("full", "untraced"), ("nostacks", "untraced"), ("kernels", "untraced"), ("full", "nostacks")):
    q = [d[b] / d[a] for d in by.values() if a in d and b in d]  # time ratio
    if q:
        print("time %s/%s: median %.3fx (%.3f-%.3f, %d rounds)" % (a, b, statistics.median(q), min(q), max(q), len(q)))
PY
