#!/bin/sh
# Loading speed and memory of the Kineto reader against Python's json.load, on synthetic
# torch-profiler traces (bench/gen_kineto.py) of N kernels, plain and gzip.
#
#   make kineto-bench-build && bench/kineto_speed.sh
#   bench/kineto_speed.sh -n "200000 1000000" -r 3 -o /tmp/kineto-bench
#
# -n  kernel counts (default "200000 1000000")
# -r  runs of each measurement; medians are reported (default 3)
# -o  folder for the traces (default build/bench/kineto; about 1.9 GB for 1M kernels)
# -b  the timing driver (default build/bench/kineto_load)
# -1  read_kineto on one thread (kg_load_opts.one_thread)
#
# Prints a markdown table: median wall seconds (median CPU seconds in brackets) and peak
# RSS of (a) python3 json.load and (b) read_kineto (on two threads; with -1 on one), each
# on the plain and on the .gz file. The files were just written, so both read them from
# the page cache. bench/kineto_report_speed.sh times `kgantt report` end to end.
set -eu

SIZES="200000 1000000"
RUNS=3
OUT=build/bench/kineto
LOADER=build/bench/kineto_load
ONE=
while getopts n:r:o:b:1 opt; do
	case $opt in
	n) SIZES=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	b) LOADER=$OPTARG ;;
	1) ONE=-1 ;;
	*) echo "usage: $0 [-n SIZES] [-r RUNS] [-o DIR] [-b LOADER] [-1]" >&2; exit 2 ;;
	esac
done
[ -x "$LOADER" ] || { echo "$0: $LOADER missing: run 'make kineto-bench-build'" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (Debian package 'time') is needed" >&2; exit 1; }
mkdir -p "$OUT"
HERE=$(dirname "$0")

# "WALL CPU RSS" of RUNS runs of a command: the median wall seconds, the median CPU
# seconds (user + system: less sensitive than the wall time to other work on the
# machine) and the largest peak RSS in MiB
measure() {
	: >"$OUT/time.txt"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		/usr/bin/time -f "%e %U %S %M" -a -o "$OUT/time.txt" "$@" >/dev/null
		i=$((i + 1))
	done
	awk '
		function median(a, n,    i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{ n++; w[n] = $1; c[n] = $2 + $3; if ($4 > rss) rss = $4 }
		END { printf "%.2f %.2f %d\n", median(w, n), median(c, n), rss / 1024 }' "$OUT/time.txt"
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
		set -- $(measure "$LOADER" $ONE "$f")
		c_s=$1 c_cpu=$2 c_rss=$3
		size=$(du -m "$f" | cut -f1)
		ratio=$(awk "BEGIN{printf \"%.1f\", $py_s / ($c_s > 0 ? $c_s : 0.001)}")
		echo "| $n | $(basename "$f") | $size MB | $py_s ($py_cpu) | $c_s ($c_cpu) | ${ratio}x | $py_rss MiB | $c_rss MiB |"
	done
done
rm -f "$OUT/time.txt"
