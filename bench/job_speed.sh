#!/usr/bin/env bash
# Job-report benchmark: `kgantt report DIR` of a synthetic job (bench/gen_job.py: N ranks
# of K kernels each, planted stragglers, a slow GPU, extra kernels), with one thread, with
# every core, and under `mpirun -n 2` and `-n 4` on this machine; wall time (median),
# peak RSS per process, and whether every planted problem was found. Then peak RSS of one
# process against the number of ranks (subsets of the same job), to show it does not grow
# with them beyond the summaries.
#
#   bench/job_speed.sh -d /work/bench-job/job1024 -o docs/results/job-report.md
#   bench/job_speed.sh -n 64 -k 2000 -r 1          # small, generated into build/bench
set -u
cd "$(dirname "$0")/.." || exit 1

usage() {
	cat <<EOF
usage: bench/job_speed.sh [-d DIR | -n RANKS -k KERNELS] [-r RUNS] [-o RESULTS.md]
  -d DIR      an existing job folder from bench/gen_job.py (DIR.truth.json beside it)
  -n, -k      else generate one: ranks and kernels per rank (default 1024, 10000)
  -r RUNS     timed runs per configuration (default 3)
  -o FILE     also write the results as Markdown to FILE
environment: KGANTT (default build/kgantt)
EOF
	exit 2
}
DIR= RANKS=1024 KERNELS=10000 RUNS=3 OUTMD=
while getopts "d:n:k:r:o:h" opt; do
	case $opt in
	d) DIR=$OPTARG ;;
	n) RANKS=$OPTARG ;;
	k) KERNELS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	o) OUTMD=$OPTARG ;;
	*) usage ;;
	esac
done
K=${KGANTT:-build/kgantt}
[ -x "$K" ] || { echo "job_speed: no $K (make tool)" >&2; exit 1; }
if [ -z "$DIR" ]; then
	DIR=build/bench/job${RANKS}x$KERNELS
	[ -f "$DIR.truth.json" ] || python3 bench/gen_job.py -o "$DIR" -n "$RANKS" -k "$KERNELS" -j 2 || exit 1
fi
TMP=$(mktemp -d /tmp/kgantt-job-speed-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
HAVE_MPI=0
command -v mpirun > /dev/null && ldd "$K" | grep -q libmpi && HAVE_MPI=1

# one run: wall seconds, then the largest peak RSS (KiB) of its processes
run_once() { # PROCS DIR ARGS...
	local procs=$1 dir=$2
	shift 2
	rm -f "$TMP"/rss.*
	local t0=$EPOCHREALTIME
	if [ "$procs" = 0 ]; then
		/usr/bin/time -f '%M' -o "$TMP/rss.0" "$K" report --json "$@" "$dir" > "$TMP/out.json" 2> "$TMP/err" || return 1
	else
		"${MPIRUN[@]}" -n "$procs" sh -c '/usr/bin/time -f %M -o "$0/rss.$OMPI_COMM_WORLD_RANK" "$@"' \
			"$TMP" "$K" report --json "$@" "$dir" > "$TMP/out.json" 2> "$TMP/err" || return 1
	fi
	local t1=$EPOCHREALTIME
	echo "$(python3 -c "print('%.3f' % ($t1 - $t0))") $(cat "$TMP"/rss.* | sort -n | tail -1)"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# planted problems found? (the slow GPU may also be named a straggler)
check() {
	python3 - "$TMP/out.json" "$1" <<'PY'
import json, sys
d, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
by = {}
for f in d["findings"]:
    by.setdefault(f["rule"], set()).add(f["job_rank"])
s = {"rank %s" % r for r in t["stragglers"]}
slow = {"rank %s" % r for r in t["slow"]}
extra = {"rank %d" % e["rank"] for e in t["extra_kernels"]}
ok = s <= by.get("job-straggler", set()) <= s | slow and by.get("job-slow-rank") == slow \
    and by.get("job-kernel-count", set()) == extra and "job-imbalance" not in by
print("yes" if ok else "NO: %s" % {k: sorted(v) for k, v in by.items()})
PY
}

ROWS=()
measure() { # LABEL PROCS DIR TRUTH ARGS...
	local label=$1 procs=$2 dir=$3 truth=$4
	shift 4
	[ "$procs" != 0 ] && [ $HAVE_MPI = 0 ] && { ROWS+=("| $label | (no MPI) | | | |"); return; }
	local walls=() rsss=() r
	run_once "$procs" "$dir" "$@" > /dev/null || { echo "job_speed: $label failed: $(tail -2 "$TMP/err")" >&2; return; }
	for ((i = 0; i < RUNS; i++)); do
		r=$(run_once "$procs" "$dir" "$@") || { echo "job_speed: $label failed" >&2; return; }
		walls+=("${r% *}")
		rsss+=("${r#* }")
	done
	local w m found
	w=$(printf '%s\n' "${walls[@]}" | median)
	m=$(printf '%s\n' "${rsss[@]}" | median)
	found=$(check "$truth")
	ROWS+=("| $label | $w | $(printf '%s–%s' "$(printf '%s\n' "${walls[@]}" | sort -n | head -1)" "$(printf '%s\n' "${walls[@]}" | sort -n | tail -1)") | $((m / 1024)) | $found |")
	echo "${ROWS[-1]}"
}

N=$(ls "$DIR"/*.kgt | wc -l)
if "$K" info "$(ls "$DIR"/*.kgt | head -1)" | grep -q "kgantt-trace version [5-9]"; then
	FORMAT="compact, as kgantt record writes them: gen_job's rows put through kgantt pack"
else
	FORMAT="SQL rows, as gen_job writes them; kgantt pack makes them compact and faster to read"
fi
SIZE=$(du -sm "$DIR" | cut -f1)
TRUTH="$DIR.truth.json"
KPR=$(python3 -c "import json; print(json.load(open('$TRUTH'))['kernels_per_rank'])")
measure "1 process, 1 thread (-j 1)" 0 "$DIR" "$TRUTH" -j 1
measure "1 process, every core ($(nproc) threads)" 0 "$DIR" "$TRUTH"
measure "mpirun -n 2" 2 "$DIR" "$TRUTH"
measure "mpirun -n 4" 4 "$DIR" "$TRUTH"

# peak RSS against the number of ranks: the first M ranks of the same job (symlinks)
SCALE=()
for m in 64 256 $N; do
	[ "$m" -le "$N" ] || continue
	sub=$TMP/sub$m
	mkdir -p "$sub"
	ls "$DIR"/*.kgt | head -n "$m" | while read -r f; do ln -s "$(realpath "$f")" "$sub/"; done
	r=$(run_once 0 "$sub" -j 1) || continue
	SCALE+=("| $m | ${r% *} | $(( ${r#* } / 1024 )) |")
	echo "${SCALE[-1]}"
done

{
	echo "# Job report speed"
	echo
	echo "\`kgantt report --json DIR\` of a synthetic data-parallel job: $N rank traces of $KPR"
	echo "kernels each (\`bench/gen_job.py\`: planted stragglers, a slow GPU, extra kernels in"
	echo "one step; 8 ranks per host, each host its own clock and an NTP-sized realtime error),"
	echo "$SIZE MB of traces ($FORMAT). Written by"
	echo "\`bench/job_speed.sh\`."
	echo
	echo "| configuration | wall s, median of $RUNS | min–max | peak RSS per process, MiB | planted problems all found |"
	echo "|---|---:|---:|---:|---|"
	printf '%s\n' "${ROWS[@]}"
	echo
	echo "Peak RSS of one process (one thread) against the number of ranks (the first M ranks of"
	echo "the same job): what grows is the ranks' summaries (their collectives, steps, top kernel"
	echo "names, a 1,024-bin timeline: tens of KB a rank), not the traces: each thread holds"
	echo "one trace's model at a time, whatever the number of ranks. Under MPI the other processes"
	echo "hold only their share's summaries; process 0 gathers them all."
	echo
	echo "| ranks | wall s | peak RSS MiB |"
	echo "|---:|---:|---:|"
	printf '%s\n' "${SCALE[@]}"
	echo
	echo "## Machine"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- host: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB, no GPU"
	echo "- load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "- kgantt: $("$K" --version 2>/dev/null | head -1), commit $(git rev-parse --short HEAD 2>/dev/null)"
	echo "- MPI: $(mpirun --version 2>/dev/null | head -1)"
	echo "- traces in the page cache (one untimed run first); \`mpirun --oversubscribe\`: -n 4 runs four"
	echo "  processes on two cores, each with one thread (kgantt divides the cores among the"
	echo "  node's MPI processes)"
} > "$TMP/results.md"
cat "$TMP/results.md"
[ -n "$OUTMD" ] && cp "$TMP/results.md" "$OUTMD"
exit 0
