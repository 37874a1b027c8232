#!/bin/sh
# Loading speed and memory of the Kineto reader against Python's json.load, on synthetic
# torch-profiler traces (bench/gen_kineto.py) of N kernels, plain and gzip.
#
#   make kineto-bench-build && bench/kineto_speed.sh
#   bench/kineto_speed.sh -n "200000 1000000" -r 3 -o /tmp/kineto-bench
#
# -n  kernel counts (default "200000 1000000")
# -r  runs of each measurement; the fastest is reported (default 3)
# -o  folder for the traces (default build/bench/kineto; about 1.9 GB for 1M kernels)
# -b  the timing driver (default build/bench/kineto_load)
#
# Prints a markdown table: wall seconds of the fastest run (CPU seconds in brackets) and
# peak RSS of (a) python3 json.load and (b) read_kineto, each on the plain and on the .gz
# file. The files were just written, so both read them from the page cache.
set -eu

SIZES="200000 1000000"
RUNS=3
OUT=build/bench/kineto
LOADER=build/bench/kineto_load
while getopts n:r:o:b: opt; do
	case $opt in
	n) SIZES=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	b) LOADER=$OPTARG ;;
	*) echo "usage: $0 [-n SIZES] [-r RUNS] [-o DIR] [-b LOADER]" >&2; exit 2 ;;
	esac
done
[ -x "$LOADER" ] || { echo "$0: $LOADER missing: run 'make kineto-bench-build'" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (Debian package 'time') is needed" >&2; exit 1; }
mkdir -p "$OUT"
HERE=$(dirname "$0")

# "WALL CPU RSS" of the fastest of RUNS runs of a command: wall seconds, CPU seconds
# (user + system: less sensitive than the wall time to other work on the machine) and
# peak RSS in MiB
measure() {
	best=""
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		/usr/bin/time -f "%e %U %S %M" -o "$OUT/time.txt" "$@" >/dev/null
		read -r secs user sys kib <"$OUT/time.txt"
		if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then
			best=$secs
			cpu=$(awk "BEGIN{printf \"%.2f\", $user + $sys}")
			rss=$((kib / 1024))
		fi
		i=$((i + 1))
	done
	echo "$best $cpu $rss"
}

PY_PLAIN='import json,sys; json.load(open(sys.argv[1]))'
PY_GZ='import json,gzip,sys; json.load(gzip.open(sys.argv[1]))'

echo "| kernels | file | size | python3 json.load, s (CPU s) | read_kineto, s (CPU s) | speed-up (wall) | python peak RSS | read_kineto peak RSS |"
echo "|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
	plain="$OUT/kineto-$n.json"
	gz="$OUT/kineto-$n.json.gz"
	[ -s "$plain" ] || python3 "$HERE/gen_kineto.py" -n "$n" -o "$plain"
	[ -s "$gz" ] || gzip -6 -c "$plain" >"$gz"
	for f in "$plain" "$gz"; do
		case $f in *.gz) prog=$PY_GZ ;; *) prog=$PY_PLAIN ;; esac
		set -- $(measure python3 -c "$prog" "$f")
		py_s=$1 py_cpu=$2 py_rss=$3
		set -- $(measure "$LOADER" "$f")
		c_s=$1 c_cpu=$2 c_rss=$3
		size=$(du -m "$f" | cut -f1)
		ratio=$(awk "BEGIN{printf \"%.1f\", $py_s / ($c_s > 0 ? $c_s : 0.001)}")
		echo "| $n | $(basename "$f") | $size MB | $py_s ($py_cpu) | $c_s ($c_cpu) | ${ratio}x | $py_rss MiB | $c_rss MiB |"
	done
done
rm -f "$OUT/time.txt"
