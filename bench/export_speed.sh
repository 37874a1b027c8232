#!/usr/bin/env bash
# Export-speed benchmark: how long `kgantt export` takes to write the synthetic 1M-kernel
# LLM-training trace (bench/gen_trace.py, packed as `kgantt record` writes traces) as
# Perfetto and Chrome JSON, CSV and a kgantt trace of SQL rows, plain and gzip
# (`-o NAME.gz`), with `kgantt report` (load and analysis) as the reference. Goal: the
# Perfetto JSON and the SQLite rows of 1M kernels in at most 1.5 s each.
#
#   bench/export_speed.sh                                    # table on stdout
#   bench/export_speed.sh -o docs/results/export-speed.md    # and the results file
#   bench/export_speed.sh -n 3 -b /tmp/kgantt-old            # before/after another kgantt
#
# The write floor is dd writing as many bytes as the Perfetto JSON, 256 KiB a write (as
# kgantt writes), from /dev/zero: what the kernel's copy of those bytes costs alone.
#
# Outputs go to a temporary folder on the disk the traces are on (not /dev/null: writing
# the file is part of the cost) and are removed after each run.
set -u
cd "$(dirname "$0")/.." || exit 1

usage() {
	cat <<EOF
usage: bench/export_speed.sh [-n RUNS] [-s SIZES] [-b KGANTT] [-o RESULTS.md]
  -n RUNS     timed runs per command, after one untimed warm-up run (default 5)
  -s SIZES    comma list of kernel counts (default 1000000)
  -b KGANTT   also every plain export by this other kgantt (an older build: before/after),
              on the same file, interleaved with this one's runs
  -o FILE     also write the results as Markdown to FILE
environment: KGANTT (default build/kgantt), PYTHON (default python3), SEED (default 1),
             CACHE (default build/bench: the generated traces, shared with report_speed.sh),
             BASE_NOTE (what the -b kgantt is, e.g. its commit, for the results file)
EOF
	exit 2
}

RUNS=5
SIZES=1000000
FLOOR_BLOCKS=0
OUTMD=
BASE=
while getopts "n:s:b:o:h" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	s) SIZES=$OPTARG ;;
	b) BASE=$OPTARG ;;
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
[ -x "$K" ] || { echo "export_speed: no $K (run 'make tool')" >&2; exit 1; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "export_speed: no $BASE" >&2; exit 1; }
[ -x /usr/bin/time ] && /usr/bin/time -f '%M' -o /dev/null true 2> /dev/null ||
	{ echo "export_speed: needs GNU time (/usr/bin/time; Debian package 'time')" >&2; exit 1; }
mkdir -p "$CACHE"
TMP=$(mktemp -d "$CACHE/export-speed-XXXXXX")
trap 'rm -rf "$TMP"' EXIT

BENCH=export_speed
. bench/traces.sh

# name|kgantt (K or BASE)|arguments; TRACE is the packed trace, OUT the output's name
CMDS=("report (reference)|K|report --no-progress TRACE"
	"export -f perfetto|K|export --no-progress -f perfetto -o OUT.json TRACE"
	"export -f chrome|K|export --no-progress -f chrome -o OUT.json TRACE"
	"export -f csv|K|export --no-progress -f csv -o OUT.csv TRACE"
	"export -f sqlite|K|export --no-progress -f sqlite -o OUT.kgt TRACE"
	"export -f perfetto, .json.gz|K|export --no-progress -f perfetto -o OUT.json.gz TRACE"
	"export -f chrome, .json.gz|K|export --no-progress -f chrome -o OUT.json.gz TRACE"
	"export -f csv, .csv.gz|K|export --no-progress -f csv -o OUT.csv.gz TRACE"
	"write floor: dd of -f perfetto's bytes|DD|")
if [ -n "$BASE" ]; then
	for f in perfetto chrome csv sqlite; do
		ext=json
		[ $f = csv ] && ext=csv
		[ $f = sqlite ] && ext=kgt
		CMDS+=("export -f $f, before (-b)|BASE|export --no-progress -f $f -o OUT.$ext TRACE")
	done
fi

# run_cmd TRACE CMD_INDEX: one run; prints "wall_s cpu_s peak_rss_kib output_bytes exit"
# (wall time from bash's EPOCHREALTIME, CPU and memory from GNU time)
run_cmd() {
	local spec=${CMDS[$2]} prog line out=$TMP/out
	prog=${spec#*|}
	line=${prog#*|}
	prog=${prog%%|*}
	case $prog in
	BASE) prog=$BASE ;;
	DD) prog=dd line="if=/dev/zero of=OUT.json bs=256K count=$FLOOR_BLOCKS status=none" ;;
	*) prog=$K ;;
	esac
	line=${line//TRACE/$1}
	line=${line//OUT/$out}
	rm -f "$out".*
	local t0=$EPOCHREALTIME
	# shellcheck disable=SC2086 # the arguments are words
	/usr/bin/time -f '%M %U %S' -o "$TMP/time" "$prog" $line > /dev/null 2> "$TMP/err"
	local rc=$? t1=$EPOCHREALTIME rss usr sys bytes
	read -r rss usr sys < <(tail -1 "$TMP/time")
	bytes=$(stat -c %s "$out".* 2> /dev/null | awk '{ s += $1 } END { print s + 0 }')
	rm -f "$out".*
	awk -v a="$t0" -v b="$t1" -v r="${rss:-0}" -v u="${usr:-0}" -v s="${sys:-0}" \
		-v o="$bytes" -v rc=$rc 'BEGIN { printf "%.3f %.2f %d %d %d\n", b - a, u + s, r, o, rc }'
}

# median_of FILE COLUMN -> "median min max"
median_of() {
	sort -n -k"$2,$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
		if (NR == 0) { print "- - -"; exit }
		print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR] }'
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average before: $LOAD_BEFORE; $RUNS runs per command after a warm-up" >&2
TABLE="| trace | command | wall s, median | min–max | CPU s, median | peak RSS MiB | output |
|---|---|---:|---:|---:|---:|---:|"
GOALS=
declare -A FAILED=()
IFS=, read -r -a SIZE_LIST <<< "$SIZES"
for n in "${SIZE_LIST[@]}"; do
	case $n in '' | *[!0-9]* | 0) usage ;; esac
	rows=$(synthetic_trace "$n") || exit 1
	t=$(packed_copy "$rows") || exit 1
	lab=$(label "$n")
	for ci in "${!CMDS[@]}"; do
		: > "$TMP/r.$ci"
		m=$(run_cmd "$t" "$ci") # warm-up: page cache, and a check that it works at all
		# the kernel's part alone: as many bytes as the Perfetto JSON, written by dd
		[ "${CMDS[$ci]%%|*}" = "export -f perfetto" ] &&
			FLOOR_BLOCKS=$(awk -v b="$(cut -d' ' -f4 <<< "$m")" 'BEGIN { print int((b + 262143) / 262144) }')
		if [ "${m##* }" != 0 ]; then
			FAILED[$lab.$ci]="exit ${m##* }: $(tail -2 "$TMP/err" | tr '\n' ' ')"
			echo "  $lab ${CMDS[$ci]%%|*}: FAILED (${FAILED[$lab.$ci]})" >&2
		fi
	done
	# timed runs round-robin, so that drifting load hits every command alike
	for ((r = 1; r <= RUNS; r++)); do
		for ci in "${!CMDS[@]}"; do
			[ -n "${FAILED[$lab.$ci]:-}" ] && continue
			m=$(run_cmd "$t" "$ci")
			echo "  $lab ${CMDS[$ci]%%|*} run $r: $m" >&2
			[ "${m##* }" = 0 ] && echo "$m" >> "$TMP/r.$ci"
		done
	done
	for ci in "${!CMDS[@]}"; do
		name=${CMDS[$ci]%%|*}
		if [ -n "${FAILED[$lab.$ci]:-}" ]; then
			TABLE+=$'\n'"| $lab | \`$name\` | FAILED | | | | |"
			continue
		fi
		read -r wmed wmin wmax < <(median_of "$TMP/r.$ci" 1)
		read -r cpu _ _ < <(median_of "$TMP/r.$ci" 2)
		read -r rss _ _ < <(median_of "$TMP/r.$ci" 3)
		read -r bytes _ _ < <(median_of "$TMP/r.$ci" 4)
		TABLE+=$'\n'$(awk -v l="$lab" -v c="$name" -v w="$wmed" -v a="$wmin" -v b="$wmax" \
			-v u="$cpu" -v r="$rss" -v o="$bytes" 'BEGIN {
			printf "| %s | `%s` | %.2f | %.2f–%.2f | %.2f | %.0f | %.1f MB |",
				l, c, w, a, b, u, r / 1024, o / 1e6 }')
		case $name in
		"export -f perfetto" | "export -f sqlite")
			GOALS+=$(awk -v l="$lab" -v c="$name" -v w="$wmed" -v u="$cpu" 'BEGIN {
				printf "- `kgantt %s` of the %s trace: %.2f s wall, %.2f s CPU (goal 1.5 s: %s)\n",
					substr(c, 1), l, w, u, w <= 1.5 ? "met" : u <= 1.5 ? \
					"NOT met in wall time, but the CPU time is within it: the machine was busy" : \
					"NOT met" }')$'\n' ;;
		esac
	done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
echo "$TABLE"
printf '%s' "$GOALS"
for k in "${!FAILED[@]}"; do echo "FAILED: ${CMDS[${k##*.}]%%|*} (${k%%.*}): ${FAILED[$k]}"; done

if [ -n "$OUTMD" ]; then
	commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
	git diff --quiet HEAD -- src 2> /dev/null || commit="$commit + uncommitted changes in src/"
	mkdir -p "$(dirname "$OUTMD")"
	{
		echo "# Export speed"
		echo
		echo "How long \`kgantt export\` takes to write the synthetic LLM-training trace of"
		echo "\`bench/gen_trace.py\` (one process, one H200, 6 streams, 1,000,000 kernels and as"
		echo "many launch calls, copies, memsets, syncs, NVTX ranges), packed as \`kgantt record\`"
		echo "writes traces, in each format; \`kgantt report\` (loading and analysing the same"
		echo "trace) is the reference. Written by \`bench/export_speed.sh\`."
		echo "Goal: the Perfetto JSON and the SQLite rows in at most 1.5 s each on this 2-core machine."
		echo
		[ -n "$GOALS" ] && printf '%s' "$GOALS" | sed 's/^- \(.*\)$/- **\1**/' && echo
		echo "$TABLE"
		echo
		echo "- **wall s**: median of $RUNS runs after one untimed warm-up (the trace in the page"
		echo "  cache), min–max over the runs; runs interleaved round-robin over the commands."
		echo "- **CPU s**: user + system (above the wall time when two cores worked)."
		echo "- **output**: the size of the file written, to a folder on the same disk, removed"
		echo "  after each run."
		echo "- **write floor**: \`dd if=/dev/zero bs=256K\` writing as many bytes as \`-f perfetto\`"
		echo "  into the same folder: the kernel's part of the JSON export, which no user-space"
		echo "  change removes."
		[ -n "$BASE" ] && echo "- **before (-b)**: the same export by $BASE ($("$BASE" --version 2> /dev/null | head -1)${BASE_NOTE:+, $BASE_NOTE}), on the same file."
		echo "- Measured with GNU time (CPU, peak RSS) and bash's \$EPOCHREALTIME (wall)."
		echo
		echo "## Machine"
		echo
		echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "- host: $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(uname -sr), no GPU"
		echo "- load average (1, 5, 15 min): $LOAD_BEFORE before, $LOAD_AFTER after (the machine is shared)"
		echo "- kgantt: $("$K" --version 2> /dev/null | head -1), commit $commit, built with the Makefile's default \`OPT\` (-O2 -g)"
		echo
		echo "## Rerun"
		echo
		echo '```sh'
		echo "make tool"
		echo "${BASE_NOTE:+BASE_NOTE='$BASE_NOTE' }bench/export_speed.sh -n $RUNS -s $SIZES${BASE:+ -b $BASE}${OUTMD:+ -o $OUTMD}"
		echo '```'
	} > "$OUTMD"
	echo "wrote $OUTMD" >&2
fi
[ ${#FAILED[@]} -eq 0 ]
