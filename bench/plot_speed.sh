#!/usr/bin/env bash
# Plot-speed benchmark: how long `kgantt plot` takes to draw synthetic LLM-training traces
# of 100k and 1M kernels (bench/gen_trace.py) as PNG and SVG, whole and zoomed, and how
# much memory and output it takes. `kgantt report` (load + analysis, no drawing) is timed
# alongside as the reference: plot does that work too, for its annotations.
#
#   bench/plot_speed.sh                                  # table on stdout
#   bench/plot_speed.sh -o docs/results/plot-speed.md    # and the results file
#   bench/plot_speed.sh -n 3 -s 100000                   # 3 runs, the 100k trace only
set -u
cd "$(dirname "$0")/.." || exit 1

usage() {
	cat <<EOF
usage: bench/plot_speed.sh [-n RUNS] [-s SIZES] [-o RESULTS.md]
  -n RUNS     timed runs per command, after one untimed warm-up run (default 3)
  -s SIZES    comma list of kernel counts (default 100000,1000000)
  -o FILE     also write the results as Markdown to FILE
environment: KGANTT (default build/kgantt), PYTHON (default python3), SEED (default 1),
             CACHE (default build/bench: the generated traces, shared with report_speed.sh)
EOF
	exit 2
}

RUNS=3
SIZES=100000,1000000
OUTMD=
while getopts "n:s:o:h" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	s) SIZES=$OPTARG ;;
	o) OUTMD=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $RUNS in '' | *[!0-9]* | 0) usage ;; esac
K=${KGANTT:-build/kgantt}
PY=${PYTHON:-python3}
SEED=${SEED:-1}
CACHE=${CACHE:-build/bench}
[ -x "$K" ] || { echo "plot_speed: no $K (run 'make tool')" >&2; exit 1; }
[ -x /usr/bin/time ] && /usr/bin/time -f '%M' -o /dev/null true 2> /dev/null ||
	{ echo "plot_speed: needs GNU time (/usr/bin/time; Debian package 'time')" >&2; exit 1; }
mkdir -p "$CACHE"
TMP=$(mktemp -d /tmp/kgantt-plot-speed-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# measure OUT CMD...: prints "wall_s peak_rss_kib cpu_s exit_code" (wall from bash's
# EPOCHREALTIME, the rest from GNU time)
measure() {
	local out=$1
	shift
	local t0=$EPOCHREALTIME
	/usr/bin/time -f '%M %U %S' -o "$TMP/time" "$@" > "$out" 2> "$TMP/err"
	local rc=$? t1=$EPOCHREALTIME rss usr sys
	read -r rss usr sys < <(tail -1 "$TMP/time")
	awk -v a="$t0" -v b="$t1" -v r="${rss:-0}" -v u="${usr:-0}" -v s="${sys:-0}" -v rc=$rc \
		'BEGIN { printf "%.3f %d %.2f %d\n", b - a, r, u + s, rc }'
}

BENCH=plot_speed
. bench/traces.sh

# name|arguments after the trace; OUT is replaced by the output file
CMDS=("plot PNG|plot TRACE -o OUT.png"
	"plot SVG|plot TRACE -o OUT.svg"
	"plot PNG, 100 ms window|plot TRACE -o OUT.png --from 1000 --to 1100"
	"plot PNG --no-annotations|plot TRACE -o OUT.png --no-annotations"
	"report (reference)|report --no-progress TRACE")

median() { sort -n | awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
	print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
TABLE="| trace | kernels | command | wall s, median | min–max | CPU s, median | peak RSS MiB | output |
|---|---:|---|---:|---:|---:|---:|---:|"
FAILED=0
IFS=, read -r -a SIZE_LIST <<< "$SIZES"
for n in "${SIZE_LIST[@]}"; do
	case $n in '' | *[!0-9]* | 0) usage ;; esac
	# drawn as 'kgantt record' writes a trace: with packed columns (trace/packed.h)
	t=$(synthetic_trace "$n") && t=$(packed_copy "$t") || exit 1
	for spec in "${CMDS[@]}"; do
		name=${spec%%|*} args=${spec#*|}
		args=${args//TRACE/$t}
		args=${args//OUT/$TMP/out}
		: > "$TMP/runs"
		for ((r = 0; r <= RUNS; r++)); do # run 0: warm-up (page cache), not counted
			rm -f "$TMP"/out.*
			# shellcheck disable=SC2086
			m=$(measure "$TMP/stdout" "$K" $args)
			if [ "${m##* }" != 0 ]; then
				echo "  $(label "$n") $name: FAILED: $(tail -2 "$TMP/err" | tr '\n' ' ')" >&2
				FAILED=1
				continue 2
			fi
			[ $r -gt 0 ] && echo "$m" >> "$TMP/runs"
			echo "  $(label "$n") $name run $r: $m" >&2
		done
		out=$(stat -c %s "$TMP"/out.* 2> /dev/null | head -1)
		out=${out:+$(awk -v b="$out" 'BEGIN { printf "%.0f KiB", b / 1024 }')}
		row=$(printf '| %s | %s | `%s` | %.2f | %.2f–%.2f | %.2f | %.0f | %s |' "$(label "$n")" "$n" \
			"$name" "$(cut -d' ' -f1 "$TMP/runs" | median)" \
			"$(cut -d' ' -f1 "$TMP/runs" | sort -n | head -1)" \
			"$(cut -d' ' -f1 "$TMP/runs" | sort -n | tail -1)" \
			"$(cut -d' ' -f3 "$TMP/runs" | median)" \
			"$(cut -d' ' -f2 "$TMP/runs" | median | awk '{ print $1 / 1024 }')" "${out:--}")
		TABLE+=$'\n'"$row"
	done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$TABLE"

if [ -n "$OUTMD" ]; then
	commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
	git diff --quiet HEAD -- src 2> /dev/null || commit="$commit + uncommitted changes in src/"
	mkdir -p "$(dirname "$OUTMD")"
	{
		echo "# Plot speed"
		echo
		echo "How long \`kgantt plot\` takes to draw synthetic LLM-training traces"
		echo "(\`bench/gen_trace.py\`: one process, one H200, 6 streams, 396 kernel names, copies,"
		echo "memsets, syncs, NVTX; with packed columns, as \`kgantt record\` writes traces) as a"
		echo "1600-pixel-wide PNG or SVG. Written by \`bench/plot_speed.sh\`."
		echo
		echo "$TABLE"
		echo
		echo "- **wall s**: median of $RUNS runs after one untimed warm-up run (the trace in the page"
		echo "  cache); min–max over the runs. **CPU s**: user + system, median."
		echo "- Every run loads the trace, analyses it (the annotations are the report's findings and"
		echo "  marks; \`--no-annotations\` skips the analysis) and draws it. \`report (reference)\` is"
		echo "  load + analysis alone: the difference is the drawing."
		echo "- The 100 ms window (\`--from 1000 --to 1100\`) analyses a copy of the trace cut to the"
		echo "  window, as \`kgantt report --from/--to\` does, and draws every operation in it one by one."
		echo "- **output**: size of the picture written."
		echo
		echo "## Machine"
		echo
		echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "- host: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(uname -sr)"
		echo "- load average (1, 5, 15 min): $LOAD_BEFORE before, $LOAD_AFTER after"
		echo "- kgantt: $("$K" --version 2> /dev/null | head -1), commit $commit"
		echo "- traces: \`bench/gen_trace.py -n N --seed $SEED\`, cached in \`$CACHE/\`"
		echo
		echo "## Rerun"
		echo
		echo '```sh'
		echo "make tool"
		echo "bench/plot_speed.sh -n $RUNS -s $SIZES -o $OUTMD"
		echo '```'
	} > "$OUTMD"
	echo "wrote $OUTMD" >&2
fi
exit $FAILED
