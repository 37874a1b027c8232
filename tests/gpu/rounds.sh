#!/usr/bin/env bash
# Paired rounds of one workload for issue 26's questions (floor_parts.sh, callback_ladder.sh,
# window_cost.sh, window_switch.sh, order_bias.sh, floor_pooled.sh): as many rounds of the
# configurations as fit in SECONDS, the order shuffled every round (bench/overhead.sh), then
# the ratios paired by round (bench/paired.py) on the workload's own timing (paired.md) and
# on the whole command's wall-clock, exit included (wall.md).
#   tests/gpu/rounds.sh OUTDIR SECONDS WORKLOAD CONFIGS A/B [A/B ...]
#   OUTDIR/overhead.csv, overhead.md, overhead.log, paired.md, wall.md
set -u
[ $# -ge 5 ] || { echo "usage: rounds.sh OUTDIR SECONDS WORKLOAD CONFIGS A/B [A/B ...]" >&2; exit 2; }
out=$1 seconds=$2 workload=$3 configs=$4
shift 4
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out"
PRIME=0 bench/overhead.sh -n 1000 -t "$seconds" -o "$out" -w "$workload" -c "$configs" \
	> "$out/overhead.log" 2>&1
python3 bench/paired.py "$out/overhead.csv" "$@" > "$out/paired.md" 2>&1
python3 bench/paired.py --field=wall_s "$out/overhead.csv" "$@" > "$out/wall.md" 2>&1
