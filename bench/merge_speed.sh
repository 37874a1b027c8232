#!/usr/bin/env bash
# `kgantt merge` of a job's per-rank traces: R synthetic LLM-training traces of N kernels
# each (bench/gen_trace.py, a different seed per rank), compacted as `record` writes them
# (format 5) and, for traces of older kgantt versions, as SQL rows; each kgantt given
# merges them, runs interleaved; wall time (median), CPU time, peak RSS, and whether every
# kgantt wrote the same trace (its packed blocks and every other row, byte for byte).
#
#   bench/merge_speed.sh [-n KERNELS] [-R RANKS] [-r RUNS] [-k "KGANTT..."] [-o RESULTS.md]
#
#   -n KERNELS  per rank (default 1000000)
#   -R RANKS    traces to merge (default 4)
#   -r RUNS     timed runs per kgantt and input kind (default 3)
#   -k KGANTTS  kgantt binaries to compare, space-separated (default build/kgantt)
#   -o FILE     also write the results as Markdown to FILE
# The traces are generated once into build/bench/merge (2 s per 100k kernels and rank).
set -u
cd "$(dirname "$0")/.." || exit 1
N=1000000 RANKS=4 RUNS=3 KS=build/kgantt OUTMD=
while getopts "n:R:r:k:o:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	R) RANKS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	k) KS=$OPTARG ;;
	o) OUTMD=$OPTARG ;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
read -r -a KGANTTS <<< "$KS"
for k in "${KGANTTS[@]}"; do
	[ -x "$k" ] || { echo "merge_speed: no kgantt at '$k' (make tool)" >&2; exit 1; }
done
command -v sqlite3 > /dev/null || { echo "merge_speed: needs the sqlite3 shell" >&2; exit 1; }
D=build/bench/merge
mkdir -p "$D"
rows=() packed=()
for r in $(seq 1 "$RANKS"); do
	base=$D/r$r-$N
	if [ ! -f "$base.rows.kgt" ]; then
		python3 bench/gen_trace.py -n "$N" --seed "$r" -o "$base.rows.kgt" > /dev/null || exit 1
	fi
	if [ ! -f "$base.kgt" ]; then
		cp "$base.rows.kgt" "$base.kgt" && "${KGANTTS[0]}" pack "$base.kgt" > /dev/null || exit 1
	fi
	rows+=("$base.rows.kgt") packed+=("$base.kgt")
done

# the merged trace's content, the same for the same rows: its blocks and every other row
content() {
	{
		sqlite3 "$1" "SELECT tbl, first_id, last_id, rows, hex(sha3(data)) FROM packed ORDER BY 1, 2"
		sqlite3 "$1" .dump | grep -v -e '^INSERT INTO packed' -e "^INSERT INTO meta"
	} | md5sum | cut -c1-12
}

TSV=$D/runs.tsv
: > "$TSV"
for run in $(seq 1 "$RUNS"); do
	for kind in packed rows; do
		for k in "${KGANTTS[@]}"; do
			out=$D/merged.kgt
			rm -f "$out"
			if [ $kind = packed ]; then in=("${packed[@]}"); else in=("${rows[@]}"); fi
			/usr/bin/time -f "%e %U %S %M" -o "$D/time" "$k" merge -q -o "$out" "${in[@]}" ||
				{ echo "merge_speed: $k merge failed" >&2; exit 1; }
			read -r wall user sys rss < "$D/time"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$k" "$wall" "$user" "$sys" "$rss" \
				"$(content "$out")" >> "$TSV"
			echo "merge_speed: run $run, $kind, $k: $wall s" >&2
		done
	done
done

in_bytes() { du -cb "$@" | tail -1 | cut -f1; }
table=$(python3 - "$TSV" "$N" "$RANKS" "$(in_bytes "${packed[@]}")" "$(in_bytes "${rows[@]}")" \
	"$(stat -c %s "$D/merged.kgt")" << 'PY'
import statistics, sys
runs = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
n, ranks, pbytes, rbytes, outbytes = map(int, sys.argv[2:7])
groups = {}
for kind, k, wall, user, sysc, rss, digest in runs:
    groups.setdefault((kind, k), []).append((float(wall), float(user) + float(sysc), int(rss), digest))
print("| inputs | kgantt | wall s, median | min–max | CPU s, median | peak RSS MiB | kernels merged per s | output |")
print("|---|---|---:|---:|---:|---:|---:|---|")
for (kind, k), rs in groups.items():
    walls = [r[0] for r in rs]
    size = pbytes if kind == "packed" else rbytes
    label = "%d compacted traces (%.0f MB)" % (ranks, size / 1e6) if kind == "packed" else \
            "%d traces as SQL rows (%.0f MB)" % (ranks, size / 1e6)
    digests = sorted({r[3] for r in rs})
    print("| %s | `%s` | %.2f | %.2f–%.2f | %.2f | %.0f | %.2fM | %s |" % (
        label, k, statistics.median(walls), min(walls), max(walls),
        statistics.median(r[1] for r in rs), statistics.median(r[2] for r in rs) / 1024,
        n * ranks / statistics.median(walls) / 1e6, ", ".join(digests)))
same = len({r[6] for r in runs}) == 1
print("\nEvery merge wrote the same trace (blocks and rows, byte for byte): %s. Merged trace: %.1f MB, %d kernels."
      % ("yes" if same else "**NO**", outbytes / 1e6, n * ranks))
PY
)
echo "$table"
if [ -n "$OUTMD" ]; then
	{
		echo "# \`kgantt merge\` speed"
		echo
		echo "$RANKS synthetic per-rank traces of $N kernels each (\`bench/gen_trace.py\`, seeds 1..$RANKS: kernels,"
		echo "as many API calls, copies, memsets, syncs, NVTX), merged into one; $RUNS runs per kgantt and input"
		echo "kind, interleaved. Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
		echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d)."
		echo "Command: \`bench/merge_speed.sh -n $N -R $RANKS -r $RUNS -k \"$KS\"\`"
		echo
		echo "$table"
	} > "$OUTMD"
fi
