#!/usr/bin/env bash
# Trace-size benchmark: how many bytes a kgantt trace takes per kernel and per API call as
# SQL rows, as format 4 wrote it (rows + uncompressed blocks) and compacted (format 5:
# kernels and API calls only as zstd blocks); where the bytes of each go (SQLite's dbstat);
# and what compacting costs: `kgantt pack` and `kgantt report` times before and after.
#
#   bench/trace_size.sh                                  # H200 fixtures + synthetic 1M
#   bench/trace_size.sh -t run.kgt -t k.kgt              # and these traces (any format)
#   bench/trace_size.sh -o docs/results/trace-size.md    # and the results file
#
# See bench/README.md ("Trace-size benchmark").
set -u
cd "$(dirname "$0")/.." || exit 1

usage() {
	cat <<EOF
usage: bench/trace_size.sh [-n RUNS] [-s KERNELS] [-i KERNELS] [-f FIXTURES] [-t TRACE]...
                           [-o RESULTS.md]
  -n RUNS      timed runs of each timed command (default 5; the median is reported)
  -s KERNELS   kernels of the synthetic trace (bench/gen_trace.py; default 1000000, 0: none);
               its pack and report times are measured
  -i KERNELS   a launch loop's spool of this many kernels (bench/spool_gen, 'make
               bench-pack'; default 1000000, 0: none) imported as 'record' does after the
               program: the time of 'kgantt import', and what 10,000 and KERNELS take
  -f FIXTURES  comma list of tests/fixtures/h200 traces (default launches_bad,
               launches_bad_kernels,torch_transformer_bf16,hw_torch_gpt,torchrun_2ranks;
               '' for none)
  -t TRACE     also this trace (any format: a fresh recording is compacted already)
  -o FILE      also write the results as Markdown to FILE
environment: KGANTT (default build/kgantt); KGANTT_OLD, a kgantt from before format 5 (e.g.
             built from git 7fffa77): the format 4 sizes and the 'before' times, left out
             without it; SPOOL_GEN (build/bench/spool_gen); PYTHON (python3), SEED (1),
             CACHE (build/bench)
EOF
	exit 2
}

RUNS=5
SYNTH=1000000
IMPORT=1000000
FIXTURES=launches_bad,launches_bad_kernels,torch_transformer_bf16,hw_torch_gpt,torchrun_2ranks
OUTMD=
EXTRA=()
while getopts "n:s:i:f:t:o:h" opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	s) SYNTH=$OPTARG ;;
	i) IMPORT=$OPTARG ;;
	f) FIXTURES=$OPTARG ;;
	t) EXTRA+=("$OPTARG") ;;
	o) OUTMD=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $RUNS in '' | *[!0-9]* | 0) usage ;; esac
case $SYNTH$IMPORT in '' | *[!0-9]*) usage ;; esac
K=${KGANTT:-build/kgantt}
OLD=${KGANTT_OLD:-}
PY=${PYTHON:-python3}
SEED=${SEED:-1}
CACHE=${CACHE:-build/bench}
GEN=${SPOOL_GEN:-build/bench/spool_gen}
ARGS_LINE="bench/trace_size.sh -n $RUNS -s $SYNTH -i $IMPORT -f '$FIXTURES'"
for t in ${EXTRA[@]+"${EXTRA[@]}"}; do ARGS_LINE+=" -t $t"; done
ARGS_LINE+="${OUTMD:+ -o $OUTMD}"

[ -x "$K" ] || { echo "trace_size: no $K (run 'make tool')" >&2; exit 1; }
[ -z "$OLD" ] || [ -x "$OLD" ] || { echo "trace_size: KGANTT_OLD=$OLD is not a program" >&2; exit 1; }
[ "$IMPORT" = 0 ] || [ -x "$GEN" ] || { echo "trace_size: no $GEN (run 'make bench-pack'; or -i 0)" >&2; exit 1; }
command -v sqlite3 > /dev/null || { echo "trace_size: the sqlite3 shell is needed (dbstat)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/kgantt-trace-size-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/results.md

say() { printf '%s\n' "$*" | tee -a "$OUT"; }
fail() { echo "trace_size: $*" >&2; exit 1; }
size() { stat -c %s "$1"; }
q() { sqlite3 "$1" "$2"; }

# The traces, as SQL rows (format 1's layout: rows and their indexes, 4 KiB pages): a
# fixture as committed, any other trace made rows by `kgantt pack --drop`.
declare -a NAMES=()
add_trace() { # add_trace NAME SOURCE [xz]
	local rows=$TMP/$1.rows.kgt
	if [ "${3:-}" = xz ]; then xz -dc "$2" > "$rows" || fail "cannot unpack $2"
	else cp "$2" "$rows" || fail "cannot copy $2"; fi
	"$K" pack -q --drop "$rows" || fail "pack --drop $2"
	NAMES+=("$1")
}
IFS=, read -r -a FX <<< "$FIXTURES"
for f in ${FX[@]+"${FX[@]}"}; do
	add_trace "$f" "tests/fixtures/h200/$f.kgt.xz" xz
done
for t in ${EXTRA[@]+"${EXTRA[@]}"}; do
	add_trace "$(basename "$t" .kgt)" "$t"
done
if [ "$SYNTH" -gt 0 ]; then
	mkdir -p "$CACHE"
	syn=$CACHE/synthetic-$SYNTH-seed$SEED.kgt
	if [ ! -f "$syn" ] || [ bench/gen_trace.py -nt "$syn" ] || [ src/trace/schema.c -nt "$syn" ]; then
		echo "trace_size: generating $syn" >&2
		"$PY" bench/gen_trace.py -q -n "$SYNTH" --seed "$SEED" -o "$syn" || fail "gen_trace"
	fi
	add_trace "synthetic_$SYNTH" "$syn"
fi

# Each form of each trace.
for n in ${NAMES[@]+"${NAMES[@]}"}; do
	cp "$TMP/$n.rows.kgt" "$TMP/$n.f5.kgt" && "$K" pack -q "$TMP/$n.f5.kgt" || fail "pack $n"
	if [ -n "$OLD" ]; then
		cp "$TMP/$n.rows.kgt" "$TMP/$n.f4.kgt" && "$OLD" pack -q "$TMP/$n.f4.kgt" || fail "old pack $n"
	fi
done

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# wall seconds and peak RSS (MiB) of one run of a command
timed() {
	/usr/bin/time -f '%e %M' -o "$TMP/time" "$@" > /dev/null 2>&1 || fail "failed: $*"
	awk '{ printf "%s %.0f\n", $1, $2 / 1024 }' "$TMP/time"
}
# median wall seconds and median peak RSS of RUNS runs (after one untimed run)
med_runs() {
	"$@" > /dev/null 2>&1
	for _ in $(seq "$RUNS"); do timed "$@"; done > "$TMP/runs"
	echo "$(cut -d' ' -f1 "$TMP/runs" | median) s, $(cut -d' ' -f2 "$TMP/runs" | median) MiB"
}
# median wall seconds of packing a fresh copy of FROM, RUNS times
med_pack() { # med_pack KGANTT FROM
	for _ in $(seq "$RUNS"); do
		cp "$2" "$TMP/p.kgt"
		timed "$1" pack -q "$TMP/p.kgt"
	done > "$TMP/runs"
	echo "$(cut -d' ' -f1 "$TMP/runs" | median) s, $(cut -d' ' -f2 "$TMP/runs" | median) MiB"
}
per() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }'; }

: > "$OUT"
say "# Trace size: bytes per kernel"
say ""
say "Machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo). Date: $(date -u +%Y-%m-%d)."
say "kgantt $(cat VERSION 2> /dev/null) ($K)${OLD:+, before: $OLD}; SQLite $(sqlite3 --version | cut -d' ' -f1)."
say "Command: \`$ARGS_LINE\`${OLD:+ with KGANTT_OLD=$OLD}"
say ""
say "Sizes in bytes of the whole file (every table); **B/kernel** = file size / kernels."
say "rows: kernels and API calls as SQL rows with their indexes (format 1's layout, what"
say "\`kgantt pack --drop\` and \`export -f sqlite\` write); format 4: the same plus"
say "uncompressed blocks of the reader's columns; format 5: compacted (\`kgantt pack\`, what"
say "\`record\`, \`import\` and \`merge\` write). Kernel blocks / API blocks: the bytes of the"
say "compressed blocks alone per kernel and per API call; packed tables: the pages of"
say "\`kernels\`, \`api_calls\`, \`hw_samples\` and their indexes as rows over the bytes of their blocks."
say ""
say "| trace | kernels | API calls | rows | B/kernel |$([ -n "$OLD" ] && printf ' format 4 | B/kernel |') format 5 | B/kernel | kernel blocks B/kernel | API blocks B/call | packed tables: rows / blocks |"
say "| --- | ---: | ---: | ---: | ---: |$([ -n "$OLD" ] && printf ' ---: | ---: |') ---: | ---: | ---: | ---: | ---: |"
for n in ${NAMES[@]+"${NAMES[@]}"}; do
	r=$TMP/$n.rows.kgt f5=$TMP/$n.f5.kgt
	nk=$(q "$r" "SELECT COUNT(*) FROM kernels")
	na=$(q "$r" "SELECT COUNT(*) FROM api_calls")
	kb=$(q "$f5" "SELECT COALESCE(SUM(length(data)), 0) FROM packed WHERE tbl = 'kernels'")
	ab=$(q "$f5" "SELECT COALESCE(SUM(length(data)), 0) FROM packed WHERE tbl = 'api_calls'")
	old=
	[ -n "$OLD" ] && old=" $(size "$TMP/$n.f4.kgt") | $(per "$(size "$TMP/$n.f4.kgt")" "$nk") |"
	# the packed tables as rows with their indexes, and as blocks: how much smaller
	big=$(q "$r" "SELECT SUM(pgsize) FROM dbstat WHERE name IN ('kernels', 'api_calls', 'hw_samples',
		'kernels_by_time', 'kernels_by_correlation', 'api_by_correlation', 'api_by_thread')")
	blk=$(q "$f5" "SELECT COALESCE(SUM(length(data)), 0) FROM packed")
	say "| $n | $nk | $na | $(size "$r") | $(per "$(size "$r")" "$nk") |$old $(size "$f5") | **$(per "$(size "$f5")" "$nk")** | $(per "$kb" "$nk") | $(per "$ab" "$na") | $(per "$big" "$blk")× |"
done

say ""
say "## Where the bytes go (dbstat, format 5)"
say ""
say "Each trace's largest tables and indexes by the pages they take (\`SELECT name,"
say "SUM(pgsize) FROM dbstat GROUP BY name\`), in bytes and per kernel; \`packed\` holds the"
say "kernel and API blocks; the rest is the tables of one page or a few."
say ""
for n in ${NAMES[@]+"${NAMES[@]}"}; do
	f5=$TMP/$n.f5.kgt
	nk=$(q "$TMP/$n.rows.kgt" "SELECT COUNT(*) FROM kernels")
	total=$(size "$f5")
	line="| $n |"
	while IFS='|' read -r name bytes; do
		line+=" $name $bytes ($(per "$bytes" "$nk")) ·"
	done < <(q "$f5" "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 5")
	rest=$(q "$f5" "SELECT SUM(pgsize) FROM dbstat WHERE name NOT IN (SELECT name FROM dbstat GROUP BY name ORDER BY SUM(pgsize) DESC LIMIT 5)")
	objects=$(q "$f5" "SELECT COUNT(DISTINCT name) FROM dbstat")
	[ "$n" = "${NAMES[0]}" ] && say "| trace | largest five: bytes (per kernel) | the other objects | pages |" && say "| --- | --- | --- | --- |"
	say "${line% ·} | $((objects - 5)): ${rest:-0} ($(per "${rest:-0}" "$nk")) | $(q "$f5" "PRAGMA page_count") × $(q "$f5" "PRAGMA page_size") B |"
done

if [ "$SYNTH" -gt 0 ]; then
	n=synthetic_$SYNTH
	say ""
	say "## What it costs ($n, medians of $RUNS runs, wall time and peak RSS)"
	say ""
	say "| | before | after (format 5) |"
	say "| --- | --- | --- |"
	before="-"
	[ -n "$OLD" ] && before="$(med_pack "$OLD" "$TMP/$n.rows.kgt") (format 4)"
	say "| \`kgantt pack\` of the rows trace | $before | $(med_pack "$K" "$TMP/$n.rows.kgt") |"
	before="-"
	[ -n "$OLD" ] && before="$(med_runs "$OLD" report --no-progress "$TMP/$n.f4.kgt") (format 4)"
	say "| \`kgantt report\` | $before | $(med_runs "$K" report --no-progress "$TMP/$n.f5.kgt") |"
	[ -n "$OLD" ] && say "| \`kgantt report\` of the format 4 trace by this kgantt | | $(med_runs "$K" report --no-progress "$TMP/$n.f4.kgt") |"
	before="-"
	[ -n "$OLD" ] && before="$(med_runs "$OLD" info "$TMP/$n.f4.kgt") (format 4)"
	say "| \`kgantt info\` | $before | $(med_runs "$K" info "$TMP/$n.f5.kgt") |"
	say "| \`kgantt export -f sqlite\` (rows again) | | $(med_runs "$K" export -q -f sqlite -o "$TMP/x.kgt" "$TMP/$n.f5.kgt") |"
fi
if [ "$IMPORT" -gt 0 ]; then
	say ""
	say "## A fresh launch loop: \`kgantt import\` of its spool (medians of $RUNS runs)"
	say ""
	say "What \`record\` does after the program ends, without a GPU: a spool written by the recorder's"
	say "own spool writer (\`bench/spool_gen\`: per kernel the three API calls of"
	say "\`bench/launch_loop\` in full mode, times with the launches_bad fixture's jitter) imported"
	say "into a trace of every table of this version. The H200 recordings above have the real"
	say "timestamps; this measures the import, and a trace with every table of format 5."
	say ""
	say "| kernels | before: trace | B/kernel | import | after: trace | B/kernel | import |"
	say "| ---: | ---: | ---: | --- | ---: | ---: | --- |"
	for n in 10000 "$IMPORT"; do
		rm -f "$TMP/run.kgspool"
		"$GEN" "$n" "$TMP/run.kgspool" || fail "spool_gen $n"
		before="| - | - | -"
		if [ -n "$OLD" ]; then
			t=$(med_runs "$OLD" import -q -f -o "$TMP/old.kgt" "$TMP/run.kgspool")
			before="| $(size "$TMP/old.kgt") | $(per "$(size "$TMP/old.kgt")" "$n") | $t"
		fi
		t=$(med_runs "$K" import -q -f -o "$TMP/new.kgt" "$TMP/run.kgspool")
		say "| $n $before | $(size "$TMP/new.kgt") | **$(per "$(size "$TMP/new.kgt")" "$n")** | $t |"
	done
fi
[ -z "$OUTMD" ] || cp "$OUT" "$OUTMD"
