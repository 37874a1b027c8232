#!/bin/bash
# `kgantt report` end to end on a synthetic PyTorch profiler (Kineto) trace
# (bench/gen_kineto.py), plain JSON and gzip: MB/s of JSON, wall and CPU seconds, peak RSS.
#
#   make tool && bench/kineto_report_speed.sh
#   bench/kineto_report_speed.sh -n 1000000 -r 7 -k "build/kgantt /tmp/kgantt-before"
#
# -n  kernels in the trace (default 1000000: 1.56 GB of JSON, 57 MB gzip'ed)
# -r  runs of each measurement (default 5); medians are reported
# -o  folder for the traces (default build/bench/kineto; they are kept for the next time)
# -k  the kgantt binaries to time (default build/kgantt); with several, one run of each in
#     turn, so that the load of a shared machine falls on all of them alike
#
# The report is written to /dev/null. MB/s is the JSON's size (decompressed for the .gz)
# over the median wall time, 1 MB = 10^6 bytes. CPU is user + system: with two threads it
# may exceed the wall time; on a busy machine it says more than the wall time does. The
# load average before and after is printed: other work on the machine slows the wall time.
set -euo pipefail

KERNELS=1000000
RUNS=5
OUT=build/bench/kineto
BINS=build/kgantt
while getopts n:r:o:k: opt; do
	case $opt in
	n) KERNELS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	k) BINS=$OPTARG ;;
	*) echo "usage: $0 [-n KERNELS] [-r RUNS] [-o DIR] [-k \"KGANTT...\"]" >&2; exit 2 ;;
	esac
done
for b in $BINS; do
	[ -x "$b" ] || { echo "$0: $b missing: run 'make tool'" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (Debian package 'time') is needed" >&2; exit 1; }
mkdir -p "$OUT"
HERE=$(dirname "$0")
plain="$OUT/kineto-$KERNELS.json"
gz="$plain.gz"
[ -s "$plain" ] || python3 "$HERE/gen_kineto.py" -n "$KERNELS" -o "$plain"
[ -s "$gz" ] || gzip -6 -c "$plain" >"$gz"
json_bytes=$(stat -c %s "$plain")
times="$OUT/report-times.txt"
: >"$times"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# one line per run: binary file wall user sys maxrss_kib
for ((i = 0; i < RUNS; i++)); do
	for f in "$plain" "$gz"; do
		for b in $BINS; do
			cat "$f" >/dev/null # in the page cache, whatever ran before
			/usr/bin/time -f "$b $f %e %U %S %M" -a -o "$times" \
				"$b" report --no-progress "$f" >/dev/null
		done
	done
done

echo "$(date -u +%Y-%m-%d), $(nproc) CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $RUNS runs each; load average before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| kgantt | file | size | wall s (median) | MB/s of JSON | CPU s (median) | peak RSS |"
echo "|---|---|---|---|---|---|---|"
for b in $BINS; do
	for f in "$plain" "$gz"; do
		size=$(stat -c %s "$f")
		awk -v b="$b" -v f="$f" -v json="$json_bytes" -v size="$size" '
			$1 == b && $2 == f { n++; w[n] = $3; c[n] = $4 + $5; if ($6 > rss) rss = $6 }
			function median(a, n,    i, j, t) {
				for (i = 2; i <= n; i++)
					for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			END {
				mw = median(w, n); mc = median(c, n)
				printf "| %s | %s | %.0f MB | %.2f | %.0f | %.2f | %.0f MiB |\n", b,
				       f, size / 1e6, mw, json / 1e6 / mw, mc, rss / 1024
			}' "$times"
	done
done
