#!/usr/bin/env bash
# Waits' stacks by Python place (src/recorder/wait_places.h), on the GPU machine:
#  1. right: Python programs recorded with KGANTT_DEV_WAIT_PLACES=check, which unwinds every
#     wait anyway and counts the reused stacks that were not the one unwound (the trace's
#     "call stacks checked" message): OUTDIR/check/NAME.{kgt,out,msg};
#  2. the same programs recorded as users get them, reports with call sites: OUTDIR/new/;
#  3. what it saves: a CuPy loop that reads a value back every iteration (a copy and a sync
#     each), untraced / full --stacks off / full / full unwinding every wait as before
#     (KGANTT_DEV_WAIT_PLACES=0), paired by round, order rotated, its median iteration
#     after 20 untimed ones: OUTDIR/cupy.csv.
#   tests/gpu/wait_places.sh OUTDIR [ROUNDS [cost]]   (cost: part 3 alone)
set -u
out=${1:?usage: wait_places.sh OUTDIR [ROUNDS [cost]]}
rounds=${2:-8}
only=${3:-}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
mkdir -p "$out/check" "$out/new"
log=$out/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$log"

messages() { # TRACE: the recorder's call-stack lines
	python3 - "$1" <<'PY'
import sqlite3, sys
for (t,) in sqlite3.connect(sys.argv[1]).execute("select text from messages where text like 'call stacks%'"):
    print(t)
PY
}

programs=("cupy_loop --iters 300" "timm_train --steps 40" "hf_decode --tokens 48"
	"lightning_train --steps 100" "host_dataloader" "steps_loop")
[ "$only" = cost ] && programs=()
for p in "${programs[@]}"; do
	name=${p%% *}
	args=${p#"$name"}
	for how in check new; do
		env_set=()
		[ "$how" = check ] && env_set=(KGANTT_DEV_WAIT_PLACES=check)
		env "${env_set[@]}" timeout 240 "$K" record --force -o "$out/$how/$name.kgt" -- \
			python3 tests/gpu/$name.py $args > "$out/$how/$name.out" 2>&1
		echo "$how $name: rc=$?" | tee -a "$log"
		messages "$out/$how/$name.kgt" | tee "$out/$how/$name.msg" >> "$log"
	done
	"$K" report --no-progress --sites "$out/new/$name.kgt" > "$out/new/$name.report" 2>&1
	"$K" report --no-progress --sites "$out/check/$name.kgt" > "$out/check/$name.report" 2>&1
done

echo config,round,median_iter_us > "$out/cupy.csv"
# CUPY_CONFIGS: any of these, also kernels (kernels mode) and latency (with latency timestamps)
read -r -a configs <<< "${CUPY_CONFIGS:-untraced nostacks full unwind}"
n=${#configs[@]}
for r in $(seq 1 "$rounds"); do
	for i in $(seq 0 $((n - 1))); do
		c=${configs[$(((i + r) % n))]}
		cmd=(python3 tests/gpu/cupy_loop.py --iters 1000 --warmup 20)
		case $c in
		kernels) cmd=("$K" record --force --mode kernels -o /tmp/cupy.kgt -- "${cmd[@]}") ;;
		latency) cmd=("$K" record --force --mode kernels --latency on -o /tmp/cupy.kgt -- "${cmd[@]}") ;;
		full) cmd=("$K" record --force -o /tmp/cupy.kgt -- "${cmd[@]}") ;;
		unwind) cmd=(env KGANTT_DEV_WAIT_PLACES=0 "$K" record --force -o /tmp/cupy.kgt -- "${cmd[@]}") ;;
		nostacks) cmd=("$K" record --force --stacks off -o /tmp/cupy.kgt -- "${cmd[@]}") ;;
		esac
		v=$(timeout 120 "${cmd[@]}" 2>/dev/null | grep -o '"median_iter_us": [0-9.]*' | cut -d' ' -f2)
		echo "$c,$r,${v:-NA}" >> "$out/cupy.csv"
	done
done
python3 - "$out/cupy.csv" <<'PY' | tee -a "$log"
import csv, statistics, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r["median_iter_us"] != "NA":
        by.setdefault(r["round"], {})[r["config"]] = float(r["median_iter_us"])
for c in ("untraced", "kernels", "latency", "nostacks", "full", "unwind"):
    v = [d[c] for d in by.values() if c in d]
    if v:
        print("cupy %s: median iteration %.1f us (%.1f-%.1f, %d runs)" % (c, statistics.median(v), min(v), max(v), len(v)))
for a, b in (("full", "untraced"), ("unwind", "untraced"), ("nostacks", "untraced"),
             ("full", "nostacks"), ("unwind", "nostacks"), ("unwind", "full"),
             ("kernels", "untraced"), ("latency", "kernels"), ("full", "kernels"), ("full", "latency")):
    q = [d[a] / d[b] for d in by.values() if a in d and b in d]  # time ratio
    if q:
        print("time %s/%s: median %.3fx (%.3f-%.3f, %d rounds)" % (a, b, statistics.median(q), min(q), max(q), len(q)))
PY
