#!/usr/bin/env bash
# What each part of recording costs, on the launch loop (bench/launch_loop: empty kernels,
# µs per launch): raw CUPTI with one mechanism added at a time (bench/cupti_raw.c's
# CUPTI_RAW_* settings) beside kgantt with one part left out at a time (KGANTT_DEV_*
# settings of src/recorder/inject.c, for this measurement only). Configurations run
# interleaved, R rounds, order rotated each round; each run prints its own median of 3
# repetitions' fastest; the table gives the median over rounds and the ratio to untraced.
#
#   bench/recorder_cost.sh -r 7 -o OUT        (on a GPU machine; OUT gets runs.csv, table.md)
#   -w WORKLOAD  launch (default: the launch loop, µs per launch), tiny
#             (bench/torch_step.py --tiny: µs per PyTorch op, about 14 API calls each) or
#             gpt (bench/torch_step.py --gpt, 10 steps: ms per GPT training step, where
#             full mode costs 1.24x and raw CUPTI 1.00x: which part is it?). The figure
#             column is named us_per_launch whatever the unit.
#   -p CPUS   run every configuration under `taskset -c CPUS` (the same cores each run:
#             a VM's cores differ, and a run's placement moves its figure by up to 40 %)
#   CONFIG@noaslr  any configuration run under `setarch -R` (no address-space
#             randomisation): is a process's own layout what makes runs differ?
set -u
cd "$(dirname "$0")/.." || exit 1
R=5 OUT=/tmp/recorder-cost N=20000 CONFIGS= PIN= WL=launch
while getopts "r:o:n:c:p:w:" opt; do
	case $opt in
	r) R=$OPTARG ;;
	o) OUT=$OPTARG ;;
	n) N=$OPTARG ;;
	c) CONFIGS=$OPTARG ;;
	p) PIN=$OPTARG ;;
	w) WL=$OPTARG ;;
	*) echo "usage: bench/recorder_cost.sh [-r ROUNDS] [-o OUTDIR] [-n LAUNCHES] [-c CONFIGS] [-p CPUS] [-w launch|tiny|gpt]" >&2; exit 2 ;;
	esac
done
K=${KGANTT:-build/kgantt}
LOOP=${LAUNCH_LOOP:-build/bench/launch_loop}
RAW=$PWD/build/bench/libcupti_raw.so
mkdir -p "$OUT"
ALL=(untraced raw raw+tscb raw+latency raw+runtime raw+runtime+driver raw+runtime+driver:launch raw+cb:runtime
     raw+cb:both raw+all-full-kinds
     kg-kernels kg-kernels-notscb kg-full kg-full-nostacks kg-full-nolatency kg-full-notscb
     kg-full-nodriver kg-full-noruntime kg-full-nosync-nooverhead kg-full-nolatency-nodriver
     kg-full-nocopies kg-full-nomarker kg-full-apicb)
if [ -n "$CONFIGS" ]; then IFS=, read -r -a ALL <<< "$CONFIGS"; fi

run() { # CONFIG -> prints µs per launch
	local c=$1 t=$OUT/t.kgt pre=()
	case $c in *@noaslr) c=${c%@noaslr} pre=(setarch "$(uname -m)" -R) ;; esac
	local -a cmd=("$LOOP" -n "$N" -w 1000 -r 5) env=(env -u CUDA_INJECTION64_PATH)
	[ "$WL" = tiny ] && cmd=(python3 bench/torch_step.py --tiny --reps 5)
	[ "$WL" = gpt ] && cmd=(python3 bench/torch_step.py --gpt --steps 10 --reps 3)
	case $c in
	untraced) ;;
	raw) env=(env "CUDA_INJECTION64_PATH=$RAW") ;;
	raw+tscb) env=(env "CUDA_INJECTION64_PATH=$RAW" CUPTI_RAW_TSCB=1) ;;
	raw+latency) env=(env "CUDA_INJECTION64_PATH=$RAW" CUPTI_RAW_LATENCY=1) ;;
	raw+runtime) env=(env "CUDA_INJECTION64_PATH=$RAW" CUPTI_RAW_KINDS=runtime) ;;
	raw+runtime+driver) env=(env "CUDA_INJECTION64_PATH=$RAW" CUPTI_RAW_KINDS=runtime,driver) ;;
	# the same with every API record off but the launches': what wrapping the rest costs
	raw+runtime+driver:launch) env=(env "CUDA_INJECTION64_PATH=$RAW" CUPTI_RAW_KINDS=runtime,driver CUPTI_RAW_API=launch) ;;
	raw+cb:both) env=(env "CUDA_INJECTION64_PATH=$RAW" CUPTI_RAW_CB=runtime,driver) ;;
	raw+cb:*) env=(env "CUDA_INJECTION64_PATH=$RAW" "CUPTI_RAW_CB=${c#raw+cb:}") ;;
	raw+all-full-kinds) env=(env "CUDA_INJECTION64_PATH=$RAW" CUPTI_RAW_KINDS=runtime,driver,memcpy,memset,sync CUPTI_RAW_LATENCY=1 CUPTI_RAW_TSCB=1) ;;
	kg-kernels) cmd=("$K" record -q -o "$t" --mode kernels -- "${cmd[@]}") ;;
	kg-kernels-notscb) env+=(KGANTT_DEV_NO_TSCB=1); cmd=("$K" record -q -o "$t" --mode kernels -- "${cmd[@]}") ;;
	kg-full) cmd=("$K" record -q -o "$t" -- "${cmd[@]}") ;;
	kg-full-nostacks) cmd=("$K" record -q -o "$t" --stacks off -- "${cmd[@]}") ;;
	kg-full-nolatency) cmd=("$K" record -q -o "$t" --latency off -- "${cmd[@]}") ;;
	kg-full-notscb) env+=(KGANTT_DEV_NO_TSCB=1); cmd=("$K" record -q -o "$t" -- "${cmd[@]}") ;;
	kg-full-nodriver) env+=(KGANTT_DEV_SKIP_KINDS=4); cmd=("$K" record -q -o "$t" -- "${cmd[@]}") ;;
	kg-full-noruntime) env+=(KGANTT_DEV_SKIP_KINDS=5); cmd=("$K" record -q -o "$t" -- "${cmd[@]}") ;;
	kg-full-nosync-nooverhead) env+=(KGANTT_DEV_SKIP_KINDS=38,17); cmd=("$K" record -q -o "$t" -- "${cmd[@]}") ;;
	kg-full-apicb) env+=(KGANTT_DEV_API_CALLBACKS=1); cmd=("$K" record -q -o "$t" -- "${cmd[@]}") ;;
	# copies and memsets (MEMCPY, MEMSET, MEMCPY2), NVTX (MARKER): a GPT step's 7,564 memsets
	kg-full-nocopies) env+=(KGANTT_DEV_SKIP_KINDS=1,2,22); cmd=("$K" record -q -o "$t" -- "${cmd[@]}") ;;
	kg-full-nomarker) env+=(KGANTT_DEV_SKIP_KINDS=12); cmd=("$K" record -q -o "$t" -- "${cmd[@]}") ;;
	kg-full-nolatency-nodriver) env+=(KGANTT_DEV_SKIP_KINDS=4); cmd=("$K" record -q -o "$t" --latency off -- "${cmd[@]}") ;;
	*) echo "unknown config $c" >&2; return 1 ;;
	esac
	rm -rf "$t" "$t.spool"
	[ -z "$PIN" ] || env=(taskset -c "$PIN" "${env[@]}")
	env=("${pre[@]}" "${env[@]}")
	"${env[@]}" "${cmd[@]}" > "$OUT/last.out" 2> "$OUT/last.err" || { echo "FAIL"; return 0; }
	# the fastest of the run's repetitions: the least disturbed by the machine's other work
	sed -n 's/^reps_\(us_per_launch\|us_per_op\|ms_per_step\)=//p' "$OUT/last.out" | tr , '\n' |
		sort -g | head -1
}

case $WL in launch|tiny|gpt) ;; *) echo "unknown workload '$WL' (launch, tiny or gpt)" >&2; exit 2 ;; esac
echo "round,config,us_per_launch" > "$OUT/runs.csv"
for c in "${ALL[@]}"; do run "$c" > /dev/null; done # warm-up, not kept
for ((r = 0; r < R; r++)); do
	n=${#ALL[@]}
	for ((i = 0; i < n; i++)); do
		c=${ALL[$(((i + r) % n))]}
		echo "$r,$c,$(run "$c")" >> "$OUT/runs.csv"
	done
done
case $WL in launch) UNIT="µs/launch" ;; tiny) UNIT="µs/op" ;; gpt) UNIT="ms/step" ;; esac
UNIT=$UNIT python3 - "$OUT/runs.csv" "${ALL[@]}" > "$OUT/table.md" <<'PY'
# Medians over rounds, and ratios paired by round (each round's figure over the same
# round's reference, then the median): the machine's slow spells last longer than a run,
# so a pair from one round is disturbed alike.
import csv, os, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
order = sys.argv[2:]
by, rounds = {}, {}
for r in rows:
    try:
        v = float(r["us_per_launch"])
    except ValueError:
        continue
    by.setdefault(r["config"], []).append(v)
    rounds.setdefault(r["round"], {})[r["config"]] = v
def median(c):
    return statistics.median(by[c]) if c in by else None
def paired(c, ref):
    q = [x[c] / x[ref] for x in rounds.values() if c in x and ref in x]
    return "%.3f" % statistics.median(q) if q else "-"
base, raw = median("untraced"), median("raw")
floor = "raw+all-full-kinds"
print("| config | %s, median | min–max | × untraced | × raw CUPTI | × raw, paired | × %s, paired | runs |"
      % (os.environ["UNIT"], floor))
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for c in order:
    v = by.get(c, [])
    if not v:
        print("| %s | failed | | | | | | 0 |" % c)
        continue
    m = statistics.median(v)
    print("| %s | %.3f | %.3f–%.3f | %s | %s | %s | %s | %d |" % (
        c, m, min(v), max(v), "%.3f" % (m / base) if base else "-",
        "%.3f" % (m / raw) if raw else "-", paired(c, "raw"), paired(c, floor), len(v)))
PY
cat "$OUT/table.md"
