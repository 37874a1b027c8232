#!/usr/bin/env bash
# What fitting host samples to the threads' calls costs a load (src/model/host_fit.c): the
# 1M-kernel synthetic trace (bench/gen_trace.py, one API call per kernel: a million calls
# to place) with its launching thread sampled at 100 Hz (bench/add_host_samples.py),
# `kgantt report` by this build and by BASE (a build before the fit), runs interleaved.
#   bench/host_fit_speed.sh BASE_KGANTT [RUNS]       a line per build: median wall, CPU s
set -u
cd "$(dirname "$0")/.." || exit 1
base=${1:?usage: bench/host_fit_speed.sh BASE_KGANTT [RUNS]}
runs=${2:-9}
K=${KGANTT:-build/kgantt}
cache=${CACHE:-build/bench}
src=$cache/synthetic-1M-seed1.kgt
trace=$cache/synthetic-1M-seed1-host100.kgt
mkdir -p "$cache"
[ -f "$src" ] || python3 bench/gen_trace.py -q -o "$src" || exit 1
if [ ! -f "$trace" ]; then
	cp "$src" "$trace.tmp" && python3 bench/add_host_samples.py "$trace.tmp" 100 > /dev/null &&
		mv "$trace.tmp" "$trace" || exit 1
fi
"$K" report --no-progress "$trace" > /dev/null # warm the page cache
log=$(mktemp)
for i in $(seq "$runs"); do
	for k in "$K" "$base"; do
		/usr/bin/time -f "$k %e %U %S" -a -o "$log" "$k" report --no-progress "$trace" > /dev/null
	done
done
python3 - "$log" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    k, wall, user, sys_ = line.split()
    runs.setdefault(k, []).append((float(wall), float(user) + float(sys_)))
for k, v in runs.items():
    print("%-40s wall %.3f s (%.3f–%.3f), CPU %.3f s, %d runs" % (
        k, statistics.median(w for w, _ in v), min(w for w, _ in v), max(w for w, _ in v),
        statistics.median(c for _, c in v), len(v)))
PY
rm -f "$log"
