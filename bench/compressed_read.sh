#!/usr/bin/env bash
# What reading a compressed trace costs (src/trace/uncompress.h): `kgantt report` of the
# synthetic LLM-training trace (bench/gen_trace.py), packed as `kgantt record` writes it
# and as SQL rows only (a trace of kgantt before format 5), each plain and compressed by
# the system's xz (one block, and in blocks as xz -T writes them and xz 5.6 does by
# default: decoded on every core), zstd and gzip at their default levels; beside
# it the system tool's own decompression to /dev/null, the floor of any reader. Medians of
# RUNS runs after one warm-up, with their range.
#
#   bench/compressed_read.sh                                  # 1M kernels, 5 runs
#   bench/compressed_read.sh -n 3 -s 100000 -o docs/results/compressed-read.md
set -u
cd "$(dirname "$0")/.." || exit 1
RUNS=5
SIZE=1000000
OUTMD=
while getopts "n:s:o:h" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	s) SIZE=$OPTARG ;;
	o) OUTMD=$OPTARG ;;
	*) echo "usage: bench/compressed_read.sh [-n RUNS] [-s KERNELS] [-o RESULTS.md]" >&2; exit 2 ;;
	esac
done
K=${KGANTT:-build/kgantt}
# shellcheck disable=SC2034 # bench/traces.sh uses it
PY=${PYTHON:-python3}
SEED=${SEED:-1}
CACHE=${CACHE:-build/bench}
BENCH=compressed_read
for tool in xz zstd gzip; do
	command -v $tool > /dev/null || { echo "$BENCH: no $tool" >&2; exit 1; }
done
[ -x "$K" ] || { echo "$BENCH: no $K (run 'make tool')" >&2; exit 1; }
mkdir -p "$CACHE"
. bench/traces.sh
t=$(synthetic_trace "$SIZE") || exit 1
pk=$(packed_copy "$t") || exit 1
for src in "$pk" "$t"; do
	for z in xz xzblocks zstd gzip; do
		f=$src.$z
		if [ ! -s "$f" ] || [ "$src" -nt "$f" ]; then
			echo "compressing $src with $z ..." >&2
			case $z in
			xz) xz -T1 -c "$src" > "$f.tmp" ;;
			xzblocks) xz -T2 -c "$src" > "$f.tmp" ;; # blocks of its own: decoded on every core
			zstd) zstd -q -c "$src" > "$f.tmp" ;;
			gzip) gzip -c "$src" > "$f.tmp" ;;
			esac
			mv "$f.tmp" "$f"
		fi
	done
done

# time CMD...: wall seconds of RUNS runs after a warm-up, "median min max"
time_runs() {
	"$@" > /dev/null 2>&1 || { echo "$BENCH: failed: $*" >&2; exit 1; }
	local i xs=()
	for ((i = 0; i < RUNS; i++)); do
		local t0=$EPOCHREALTIME
		"$@" > /dev/null 2>&1
		local t1=$EPOCHREALTIME
		xs+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
	done
	printf '%s\n' "${xs[@]}" | sort -n | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

size_mib() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }
row() { # LABEL FILE DECODER...
	local label=$1 f=$2
	shift 2
	read -r m lo hi < <(time_runs "$K" report --no-progress "$f")
	local dm=- dr=
	if [ $# -gt 0 ]; then
		read -r dm dlo dhi < <(time_runs "$@" "$f")
		dr=" ($dlo–$dhi)"
	fi
	printf '| %s | %s | %s (%s–%s) | %s%s |\n' "$label" "$(size_mib "$f")" "$m" "$lo" "$hi" "$dm" "$dr"
}

{
	echo "# Reading a compressed trace"
	echo
	echo "\`$K report\` of the synthetic $(label "$SIZE")-kernel trace (bench/gen_trace.py, seed $SEED),"
	echo "packed as \`kgantt record\` writes it and as SQL rows only (kgantt before trace format 5),"
	echo "plain and compressed at each tool's default level;"
	echo "wall seconds, median of $RUNS runs after a warm-up (min–max). The last column is the"
	echo "system tool's own decompression to /dev/null: what any reader pays first."
	echo
	echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')),"
	echo "kgantt $(git rev-parse --short HEAD 2> /dev/null): \`bench/compressed_read.sh -n $RUNS -s $SIZE\`."
	echo
	echo "| trace | file | MiB | report, s | the tool's decompression alone, s |"
	echo "|---|---|---:|---:|---:|"
	for src in "packed:$pk" "rows (format 4, no packed columns):$t"; do
		what=${src%%:*} f=${src#*:}
		row "$what | plain" "$f"
		row "$what | xz" "$f.xz" xz -dc
		row "$what | xz -T2 (blocks)" "$f.xzblocks" xz -T0 -dc
		row "$what | zstd" "$f.zstd" zstd -dcq
		row "$what | gzip" "$f.gzip" gzip -dc
	done
} | tee "${OUTMD:-/dev/null}"
