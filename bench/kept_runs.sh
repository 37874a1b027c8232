#!/usr/bin/env bash
# Run one command N times and keep everything each run leaves: its stdout, stderr, the
# trace it wrote, and where its threads ran. For a bimodal benchmark (most runs at one
# speed, some much slower), to compare a slow run's trace and threads with a fast one's.
#
#   bench/kept_runs.sh -n N -o OUTDIR [-m PATTERN] -- COMMAND...
#
# Every "{}" in COMMAND becomes OUTDIR/runI (e.g. `kgantt record -o {}.kgt -- ...`).
# While a run lasts, every 0.2 s, the threads of the processes whose command line matches
# PATTERN (pgrep -f; default: the command's last word) are written to OUTDIR/runI.threads:
#   seconds-since-start pid tid comm utime-ticks stime-ticks last-cpu
# (from /proc/PID/task/TID/stat: fields 14, 15 and 39), so that each thread's CPU time and
# the cores it used can be followed through the run.
set -u
N=3 OUT= PAT=
while getopts "n:o:m:" opt; do
	case $opt in
	n) N=$OPTARG ;;
	o) OUT=$OPTARG ;;
	m) PAT=$OPTARG ;;
	*) echo "usage: bench/kept_runs.sh -n N -o OUTDIR [-m PATTERN] -- COMMAND..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
if [ -z "$OUT" ] || [ $# -eq 0 ]; then
	echo "usage: bench/kept_runs.sh -n N -o OUTDIR [-m PATTERN] -- COMMAND..." >&2
	exit 2
fi
[ -n "$PAT" ] || PAT=${!#}
mkdir -p "$OUT"

sample_threads() { # START_NS -> lines for every matching process's threads
	local t pid stat rest
	t=$(($(date +%s%N) - $1))
	for pid in $(pgrep -f -- "$PAT"); do
		[ "$pid" = $$ ] && continue
		for stat in /proc/"$pid"/task/*/stat; do
			read -r rest < "$stat" 2> /dev/null || continue
			# comm may hold spaces: split after its closing parenthesis
			local tid=${rest%% *} comm=${rest#*(}
			comm=${comm%)*}
			local -a f
			read -r -a f <<< "${rest##*) }"
			# f[0] is field 3 (state): field K is f[K-3]
			printf '%d.%03d %s %s %s %s %s %s\n' $((t / 1000000000)) $((t / 1000000 % 1000)) \
				"$pid" "$tid" "${comm// /_}" "${f[11]}" "${f[12]}" "${f[36]}"
		done
	done
}

for ((i = 1; i <= N; i++)); do
	base=$OUT/run$i
	cmd=("${@//\{\}/$base}")
	start=$(date +%s%N)
	"${cmd[@]}" > "$base.out" 2> "$base.err" &
	child=$!
	while kill -0 "$child" 2> /dev/null; do
		sample_threads "$start" >> "$base.threads"
		sleep 0.2
	done
	wait "$child"
	rc=$?
	echo "run$i exit $rc $((($(date +%s%N) - start) / 1000000)) ms" | tee -a "$OUT/runs.txt"
done
