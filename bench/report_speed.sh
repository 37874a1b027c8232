#!/usr/bin/env bash
# Report-speed benchmark: how long `kgantt info` and `kgantt report` take on synthetic
# LLM-training traces of 100k, 1M and 10M kernels (bench/gen_trace.py), and how much
# memory: peak RSS, and per event (a row of kernels, api_calls, memcpys, memsets, syncs,
# nvtx). Goals: `report` of 1M kernels in 0.5 s, of 10M in 5 s, 100 bytes per event.
#
#   bench/report_speed.sh                                   # table on stdout
#   bench/report_speed.sh -o docs/results/report-speed.md   # and the results file
#   bench/report_speed.sh -n 3 -s 100000                    # 3 runs, the 100k trace only
#   bench/report_speed.sh -b /tmp/kgantt-old                # before/after another kgantt
#
# See bench/README.md ("Report-speed benchmark").
set -u
cd "$(dirname "$0")/.." || exit 1

usage() {
	cat <<EOF
usage: bench/report_speed.sh [-n RUNS] [-s SIZES] [-t TRACE]... [-b KGANTT] [-o RESULTS.md]
  -n RUNS     timed runs per command, after one untimed warm-up run (default 5)
  -s SIZES    comma list of kernel counts (default 100000,1000000,1000000x9,10000000); NxC: N
              kernels with C trivial API calls (cudaGetDevice) before each launch, as
              PyTorch makes
  -b KGANTT   also 'report' with this other kgantt (an older build: before/after), and this
              kgantt on the same file, packed by the other one (a format both read)
  -t TRACE    also a real kgantt trace (e.g. the 1M-launch trace tests/gpu/packed_examples_h200.sh
              records on an H200); measured as recorded and without its packed columns
  -o FILE     also write the results as Markdown to FILE
environment: KGANTT (default build/kgantt), PYTHON (default python3), SEED (default 1),
             CACHE (default build/bench: where the generated traces are kept),
             BASE_NOTE (what the -b kgantt is, e.g. its commit, for the results file)
EOF
	exit 2
}

RUNS=5
SIZES=100000,1000000,1000000x9,10000000
OUTMD=
BASE=
REAL=()
while getopts "n:s:t:b:o:h" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	s) SIZES=$OPTARG ;;
	t) REAL+=("$OPTARG") ;;
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
ARGS_LINE=
[ "$K" != build/kgantt ] && ARGS_LINE+="KGANTT=$K "
[ "$CACHE" != build/bench ] && ARGS_LINE+="CACHE=$CACHE "
[ -n "${BASE_NOTE:-}" ] && ARGS_LINE+="BASE_NOTE='$BASE_NOTE' "
ARGS_LINE+="bench/report_speed.sh -n $RUNS -s $SIZES"
for t in ${REAL[@]+"${REAL[@]}"}; do ARGS_LINE+=" -t $t"; done
ARGS_LINE+="${BASE:+ -b $BASE}${OUTMD:+ -o $OUTMD}"

[ -x "$K" ] || { echo "report_speed: no $K (run 'make tool')" >&2; exit 1; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "report_speed: no $BASE" >&2; exit 1; }
command -v "$PY" > /dev/null || { echo "report_speed: no $PY" >&2; exit 1; }
mkdir -p "$CACHE"
TMP=$(mktemp -d /tmp/kgantt-report-speed-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# How a run is measured: wall time from bash's EPOCHREALTIME (µs) around the command,
# peak RSS (and CPU times) from GNU time when it is there, else from os.wait4 in python.
if [ -z "${NO_GNU_TIME:-}" ] && [ -x /usr/bin/time ] && /usr/bin/time -f '%M' -o /dev/null true 2> /dev/null; then
	MEASURE="GNU time (/usr/bin/time -f '%e %M %U %S') for peak RSS and CPU time, bash \$EPOCHREALTIME for wall time"
	measure() { # measure OUT ERR CMD...: prints "wall_s rss_kib user_s sys_s rc"
		local out=$1 err=$2
		shift 2
		local t0=$EPOCHREALTIME
		/usr/bin/time -f '%e %M %U %S' -o "$TMP/time" "$@" > "$out" 2> "$err"
		local rc=$? t1=$EPOCHREALTIME
		local rss usr sys
		read -r _ rss usr sys < <(tail -1 "$TMP/time")
		awk -v a="$t0" -v b="$t1" -v r="${rss:-0}" -v u="${usr:-0}" -v s="${sys:-0}" -v rc=$rc \
			'BEGIN { printf "%.4f %d %.2f %.2f %d\n", b - a, r, u, s, rc }'
	}
else
	# ru_maxrss includes the python image the child is forked from (about 10 MiB), so small
	# peak RSS figures come out too high
	MEASURE="python os.wait4 (wall time, ru_maxrss, CPU time; GNU time was not found, and peak RSS includes the ~10 MiB python image the command was forked from)"
	measure() {
		local out=$1 err=$2
		shift 2
		"$PY" - "$out" "$err" "$@" <<'EOF'
import os, sys, time
out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
    os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t0
print("%.4f %d %.2f %.2f %d" % (wall, ru.ru_maxrss, ru.ru_utime, ru.ru_stime,
                                 os.waitstatus_to_exitcode(status)))
EOF
	}
fi

# --- the traces ------------------------------------------------------------------------
BENCH=report_speed
. bench/traces.sh
declare -a TRACES PACKED BPACKED PACKTIME LABELS NKERN EVENTS
# The events of a trace without packed columns: its rows of the tables that become the
# model's ops, API calls, syncs and ranges (what the memory per event is divided by).
count_events() {
	local n=0 c tb
	for tb in kernels api_calls memcpys memsets syncs nvtx; do
		c=$(sqlite3 "$1" "SELECT COUNT(*) FROM $tb" 2> /dev/null) || c=0
		n=$((n + ${c:-0}))
	done
	echo "$n"
}
# add_trace ROWS LABEL KERNELS: ROWS is a trace without packed columns; next to it goes
# what 'kgantt record' writes, the same trace with them (trace/packed.h), and how long
# 'kgantt pack' took to make them; with -b, also the copy the other kgantt packed
add_trace() {
	local t=$1 pk bpk=-
	if [ -n "$(sqlite3 "$t" "SELECT name FROM sqlite_master WHERE name = 'packed'" 2> /dev/null)" ]; then
		"$K" pack --drop "$t" || exit 1 # the rows-only side must have no blocks
	fi
	pk=$(packed_copy "$t") || exit 1
	[ -n "$BASE" ] && { bpk=$(packed_copy "$t" "$BASE" -base) || exit 1; }
	TRACES+=("$t")
	PACKED+=("$pk")
	BPACKED+=("$bpk")
	PACKTIME+=("$(cat "$pk.packtime" 2> /dev/null || echo -)")
	LABELS+=("$2")
	NKERN+=("$3")
	EVENTS+=("$(count_events "$t")")
}
IFS=, read -r -a SIZE_LIST <<< "$SIZES"
for spec in "${SIZE_LIST[@]}"; do
	# N, or NxC: N kernels with C extra trivial API calls before each launch (PyTorch)
	n=${spec%x*} hc=0
	[ "$spec" != "$n" ] && hc=${spec#*x}
	case $n in '' | *[!0-9]* | 0) usage ;; esac
	case $hc in '' | *[!0-9]*) usage ;; esac
	lab=$(label "$n")
	[ "$hc" != 0 ] && lab="$lab, $((hc + 1)) calls/kernel"
	t=$(synthetic_trace "$n" "$hc") || exit 1
	add_trace "$t" "$lab" "$n"
done
for t in ${REAL[@]+"${REAL[@]}"}; do
	[ -s "$t" ] || { echo "report_speed: no trace $t" >&2; exit 1; }
	# the rows-only copy, in the cache
	rows=$CACHE/$(basename "${t%.kgt}")-rows.kgt
	if [ ! -s "$rows" ] || [ "$t" -nt "$rows" ]; then
		cp "$t" "$rows.tmp" && "$K" pack --drop "$rows.tmp" && mv "$rows.tmp" "$rows" ||
			{ echo "report_speed: cannot make $rows" >&2; exit 1; }
	fi
	n=$(sqlite3 "$rows" "SELECT COUNT(*) FROM kernels" 2> /dev/null || echo "?")
	add_trace "$rows" "$(basename "${t%.kgt}") (real)" "$n"
done

# --- the commands ----------------------------------------------------------------------
# name|command line. PACKED is the trace as 'kgantt record' writes it (with packed
# columns), TRACE the same rows without them (a trace from an older kgantt, or one edited
# with SQL), BPACKED the trace packed by the -b kgantt. The sqlite3 row is a reference, not
# kgantt: the time SQLite alone takes to step through every row and decode the columns
# that kgantt's reader (src/model/read_kgt.c) selects, from the same file.
CMDS=("info|$K info PACKED"
	"report|$K report --no-progress PACKED"
	"report --json|$K report --json --no-progress PACKED"
	"report, rows only (no packed columns)|$K report --no-progress TRACE")
if [ -n "$BASE" ]; then
	CMDS+=("report, before (-b kgantt, its packed file)|$BASE report --no-progress BPACKED"
		"report, after (this kgantt, the same file)|$K report --no-progress BPACKED")
fi
SCAN_SQL="SELECT count(*), total(process+device+context+stream+correlation+incomplete+start+\"end\"+channel+demangled+coalesce(queued,0)+coalesce(submitted,0)+grid_x+grid_y+grid_z+block_x+block_y+block_z+registers_per_thread+static_smem+dynamic_smem+shared_mem_executed+coalesce(graph,0)+device_launched) FROM kernels; SELECT count(*), total(process+thread+domain+name+start+\"end\"+correlation) FROM api_calls; SELECT count(*), sum(length(text)) FROM strings;"
if command -v sqlite3 > /dev/null; then
	CMDS+=("sqlite3 scan (reference)|sqlite3 TRACE $SCAN_SQL")
fi

run_cmd() { # run_cmd TRACE_INDEX CMD_INDEX OUT ERR -> measure line
	local t=${TRACES[$1]} pk=${PACKED[$1]} bpk=${BPACKED[$1]} spec=${CMDS[$2]}
	local line=${spec#*|}
	if [[ $spec == sqlite3* ]]; then
		measure "$3" "$4" sqlite3 "$t" "$SCAN_SQL"
	else
		line=${line//BPACKED/$bpk}
		line=${line//PACKED/$pk}
		# shellcheck disable=SC2086
		measure "$3" "$4" ${line//TRACE/$t}
	fi
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg 2> /dev/null; }
LOAD_BEFORE=$(loadavg)
echo "load average before: $LOAD_BEFORE; $RUNS runs per command after a warm-up" >&2

# results in $TMP/r.<trace>.<cmd>: one measure line per run
declare -A FAILED=()
for ti in "${!TRACES[@]}"; do
	for ci in "${!CMDS[@]}"; do
		: > "$TMP/r.$ti.$ci"
		# warm-up: page cache, and a first check that the command works at all
		m=$(run_cmd "$ti" "$ci" "$TMP/out" "$TMP/err")
		rc=${m##* }
		if [ "$rc" != 0 ]; then
			FAILED[$ti.$ci]="exit $rc: $(tail -3 "$TMP/err" | tr '\n' ' ')"
			echo "  ${LABELS[$ti]} ${CMDS[$ci]%%|*}: FAILED (${FAILED[$ti.$ci]})" >&2
		fi
	done
	# timed runs interleaved round-robin, so slow drift (other load) hits every command alike
	for ((r = 1; r <= RUNS; r++)); do
		for ci in "${!CMDS[@]}"; do
			[ -n "${FAILED[$ti.$ci]:-}" ] && continue
			m=$(run_cmd "$ti" "$ci" /dev/null "$TMP/err")
			rc=${m##* }
			if [ "$rc" != 0 ]; then
				FAILED[$ti.$ci]="exit $rc in run $r: $(tail -3 "$TMP/err" | tr '\n' ' ')"
				continue
			fi
			echo "$m" >> "$TMP/r.$ti.$ci"
			echo "  ${LABELS[$ti]} ${CMDS[$ci]%%|*} run $r: $m" >&2
		done
	done
done
LOAD_AFTER=$(loadavg)

# --- the table -------------------------------------------------------------------------
stats() { # stats FILE COLUMN -> "median min max" of that column
	sort -n -k"$2,$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
		if (NR == 0) { print "- - -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], v[NR] }'
}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

TABLE="| trace | kernels | file | command | wall s, median | min–max | CPU s (user+sys), median | peak RSS MiB, median | events | bytes per event |
|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"
# the goals of `report` on the trace as recorded, by trace label: seconds of wall time
declare -A GOAL_S=([1M]=0.5 [10M]=5)
GOAL_BYTES=100
GOAL_LINES=
PACK_LINES=
# goal_line LABEL WALL CPU BYTES_PER_EVENT: is `report` within its goals? (memory per
# event only from a million events on: below, the program's own few MiB weigh in)
goal_line() {
	[ -z "${GOAL_S[$1]:-}" ] && [ "$5" -lt 1000000 ] && return
	awk -v l="$1" -v w="$2" -v c="$3" -v b="$4" -v g="${GOAL_S[$1]:-0}" -v gb="$GOAL_BYTES" 'BEGIN {
		t = g == 0 ? "" : w <= g ? sprintf("%.2f s wall (goal %g s: met)", w, g) : \
			c <= g ? sprintf("%.2f s wall (goal %g s: NOT met in wall time, but the CPU time, %.2f s, is within it: the machine was busy, see the load average)", w, g, c) : \
			sprintf("%.2f s wall (goal %g s: NOT met)", w, g)
		m = sprintf("%.0f bytes per event (goal %d: %s)", b, gb, b <= gb ? "met" : "NOT met")
		printf "- `kgantt report` on the %s trace: %s%s%.2f s CPU, %s\n", l, t, t == "" ? "" : ", ", c, m }'
}
for ti in "${!TRACES[@]}"; do
	PACK_LINES+="- ${LABELS[$ti]}: "'`kgantt pack`'" took ${PACKTIME[$ti]} s (one run); the file went from $(mib "$(stat -c %s "${TRACES[$ti]}")") to $(mib "$(stat -c %s "${PACKED[$ti]}")") MiB"$'\n'
	for ci in "${!CMDS[@]}"; do
		name=${CMDS[$ci]%%|*}
		file=${TRACES[$ti]}
		case ${CMDS[$ci]} in
		*BPACKED*) file=${BPACKED[$ti]} ;;
		*PACKED*) file=${PACKED[$ti]} ;;
		esac
		size=$(stat -c %s "$file")
		f=$TMP/r.$ti.$ci
		if [ -n "${FAILED[$ti.$ci]:-}" ] && [ ! -s "$f" ]; then
			row="| ${LABELS[$ti]} | ${NKERN[$ti]} | $(mib "$size") MiB | \`$name\` | FAILED | | | | ${EVENTS[$ti]} | |"
		else
			read -r wmed wmin wmax < <(stats "$f" 1)
			read -r rmed _ _ < <(stats "$f" 2)
			cpu=$(awk '{ print $3 + $4 }' "$f" | sort -n | awk '{ v[NR] = $1 } END {
				printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
			per_event=$(awk -v k="$rmed" -v e="${EVENTS[$ti]}" 'BEGIN { printf("%.0f", (e > 0 ? k * 1024 / e : 0)) }')
			# shellcheck disable=SC2016 # the backquotes are Markdown
			row=$(printf '| %s | %s | %s MiB | `%s` | %.3f | %.3f–%.3f | %s | %s | %s | %s |' \
				"${LABELS[$ti]}" "${NKERN[$ti]}" "$(mib "$size")" "$name" \
				"$wmed" "$wmin" "$wmax" "$cpu" \
				"$(awk -v k="$rmed" 'BEGIN { printf "%.1f", k / 1024 }')" "${EVENTS[$ti]}" "$per_event")
			[ -n "${FAILED[$ti.$ci]:-}" ] && row="$row ⚠ ${FAILED[$ti.$ci]}"
			gl=
			[ "$name" = report ] &&
				gl=$(goal_line "${LABELS[$ti]}" "$wmed" "$cpu" "$per_event" "${EVENTS[$ti]}")
			[ -n "$gl" ] && GOAL_LINES+="$gl"$'\n'
		fi
		TABLE+=$'\n'"$row"
	done
done
echo "$TABLE"
printf '%s' "$PACK_LINES"
[ -n "$GOAL_LINES" ] && echo && printf '%s' "$GOAL_LINES"
for k in "${!FAILED[@]}"; do
	echo "FAILED: ${LABELS[${k%%.*}]} ${CMDS[${k##*.}]%%|*}: ${FAILED[$k]}"
done

# --- the results file ------------------------------------------------------------------
if [ -n "$OUTMD" ]; then
	cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
	mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
	git diff --quiet HEAD -- src 2> /dev/null || commit="$commit + uncommitted changes in src/"
	sqlite_ver=$("$PY" -c 'import sqlite3; print(sqlite3.sqlite_version)' 2> /dev/null)
	lib=$(ldd "$K" 2> /dev/null | awk '/libsqlite3/ { print $3 }')
	mkdir -p "$(dirname "$OUTMD")"
	{
		echo "# Report speed"
		echo
		echo "How long \`kgantt info\` and \`kgantt report\` take on synthetic LLM-training traces"
		echo "(\`bench/gen_trace.py\`: one process, one H200, 6 streams, 396 kernel names, one"
		echo "cudaLaunchKernel API row per kernel, copies, memsets, syncs, NVTX), and their peak memory;"
		echo "*(real)* rows are traces recorded by \`kgantt record\` on an H200 (\`-t\`)."
		echo "Written by \`bench/report_speed.sh\`; \`bench/README.md\` says how it measures."
		echo "Goals: \`kgantt report\` of 1M kernels in 0.5 s and of 10M in 5 s on this 2-core"
		echo "machine, and at most $GOAL_BYTES bytes of memory per event."
		echo
		[ -n "$GOAL_LINES" ] && printf '%s' "$GOAL_LINES" | sed 's/^- \(.*\)$/- **\1**/' && echo
		echo "$TABLE"
		echo
		echo "- **wall s**: median of $RUNS runs (after one untimed warm-up run, so the trace is in"
		echo "  the page cache), stdout to /dev/null; min–max over the runs. Runs were interleaved"
		echo "  round-robin over the commands of one trace."
		echo "- **peak RSS**: maximum resident set size of the process (median over the runs)."
		echo "- **events**: rows of \`kernels\`, \`api_calls\`, \`memcpys\`, \`memsets\`, \`syncs\` and"
		echo "  \`nvtx\` in the trace; **bytes per event** = peak RSS / events (the process's own"
		echo "  few MiB of code and libraries included)."
		echo "- **CPU s**: user + system time; above the wall time only if the command used more than one core."
		echo "- **PACKED vs rows only**: \`report\`, \`report --json\` and \`info\` read the trace as"
		echo "  \`kgantt record\` writes it, with packed columns (\`docs/trace-format.md\`, \"packed\");"
		echo "  *rows only* reads the same file without them (a trace from an older kgantt, or edited"
		echo "  with SQL), through SQLite's rows."
		if [ -n "$BASE" ]; then
			echo "- **before / after**: \`report\` by the \`-b\` kgantt ($BASE: $("$BASE" --version 2> /dev/null | head -1)${BASE_NOTE:+, $BASE_NOTE})"
			echo "  and by this one, on the same file: the trace packed by the \`-b\` kgantt, a format"
			echo "  both read. Interleaved with the other commands, so both saw the same load."
		fi
		printf '%s' "$PACK_LINES"
		echo "- **sqlite3 scan (reference)**: not kgantt. The sqlite3 shell stepping through every row"
		echo "  of \`kernels\`, \`api_calls\` and \`strings\` and summing the columns kgantt's reader"
		echo "  selects: roughly the floor that reading the trace through SQLite sets."
		echo "- Measured with $MEASURE."
		echo
		echo "## Machine"
		echo
		echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "- host: $(nproc) cores ($cpu_model), $mem, $(uname -sr), no GPU"
		echo "- load average (1, 5, 15 min): $LOAD_BEFORE before, $LOAD_AFTER after"
		echo "- kgantt: $("$K" --version 2> /dev/null | head -1), commit $commit, built with the Makefile's default \`OPT\` (-O2 -g)"
		echo "- SQLite: ${lib:-?} (python's sqlite3 module: $sqlite_ver)"
		echo "- traces: \`bench/gen_trace.py -n N --seed $SEED\`, cached in \`$CACHE/\`"
		echo
		echo "## Rerun"
		echo
		echo '```sh'
		if [ "$K" = build/kgantt ]; then echo "make tool"; else echo "make BUILD=$(dirname "$K") tool"; fi
		echo "$ARGS_LINE"
		echo '```'
		if [ ${#FAILED[@]} -gt 0 ]; then
			echo
			echo "## Failures"
			echo
			for k in "${!FAILED[@]}"; do
				echo "- ${LABELS[${k%%.*}]} \`${CMDS[${k##*.}]%%|*}\`: ${FAILED[$k]}"
			done
		fi
	} > "$OUTMD"
	echo "wrote $OUTMD" >&2
fi
[ ${#FAILED[@]} -eq 0 ]
