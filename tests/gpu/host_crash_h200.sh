#!/usr/bin/env bash
# The crash still open under host samples (docs/host-samples.md, "A known crash"): runs
# tests/gpu/hf_decode.py under `record --host-samples` N times (default 6), and the same
# with KGANTT_DEV_HOST=wall (no thread sampled on its CPU time) for comparison; prints
# each run's exit and the recorder's line about the fault (module+offset, thread), if any.
#
#   tests/gpu/host_crash_h200.sh [N] [HOW...]   on the GPU machine, from the carried build;
#                                               HOW: all, wall (default both)
set -u
N=${1:-6}
shift
HOWS=${*:-all wall}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=$PWD/build/kgantt
W=$(mktemp -d /tmp/kgantt-host-crash-XXXXXX)
for how in $HOWS; do
	crashed=0
	for i in $(seq 1 "$N"); do
		dev=""
		[ "$how" = wall ] && dev=wall
		env KGANTT_DEV_HOST="$dev" timeout 120 "$K" record --force \
			-o "$W/$how$i.kgt" --host-samples=1000 -- python3 tests/gpu/hf_decode.py --tokens 4 \
			> "$W/$how$i.out" 2> "$W/$how$i.err"
		rc=$?
		grep -q 'signal 11' "$W/$how$i.err" && crashed=$((crashed + 1))
		echo "$how run $i: exit $rc $(grep -h 'kgantt: SIG' "$W/$how$i.err" | head -1)"
	done
	echo "$how: $crashed of $N runs died of SIGSEGV"
done
