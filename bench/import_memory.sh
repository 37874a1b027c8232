#!/usr/bin/env bash
# Import-memory benchmark: the peak resident memory and the time of `kgantt import` (what
# `record` does after the program ends) for launch-loop spools of growing size, to show
# that the memory does not grow with the events. Each spool is written by bench/spool_gen
# (one process; per kernel its three API calls: 4 events a kernel), imported once under
# /usr/bin/time -v, and removed before the next is written.
#
#   bench/import_memory.sh                                  # 1M, 2M and 6M kernels
#   bench/import_memory.sh -n 200000,2000000 -o out.md      # and the table into out.md
#   KGANTT=/tmp/old/kgantt bench/import_memory.sh           # another kgantt's import
#
# See docs/results/import-memory.md.
set -u
cd "$(dirname "$0")/.." || exit 1

usage() {
	cat <<EOF
usage: bench/import_memory.sh [-n KERNELS,KERNELS...] [-d DIR] [-o RESULTS.md]
  -n LIST   comma list of spool sizes in kernels (default 1000000,2000000,6000000); a
            spool takes 312 bytes a kernel (1.9 GB for 6M)
  -d DIR    where the spools and traces go (default a new folder in \${TMPDIR:-/tmp},
            removed at the end)
  -o FILE   also write the table as Markdown to FILE
environment: KGANTT (default build/kgantt), SPOOL_GEN (default build/bench/spool_gen,
             'make bench-pack')
EOF
	exit 2
}

SIZES=1000000,2000000,6000000
DIR=
OUTMD=
while getopts "n:d:o:h" opt; do
	case $opt in
	n) SIZES=$OPTARG ;;
	d) DIR=$OPTARG ;;
	o) OUTMD=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || usage
case $SIZES in '' | *[!0-9,]* | ,* | *, | *,,*) usage ;; esac
K=${KGANTT:-build/kgantt}
GEN=${SPOOL_GEN:-build/bench/spool_gen}

fail() { echo "import_memory: $*" >&2; exit 1; }
[ -x "$K" ] || fail "no $K (run 'make tool')"
[ -x "$GEN" ] || fail "no $GEN (run 'make bench-pack')"
[ -x /usr/bin/time ] || fail "/usr/bin/time is needed (Debian: apt-get install time)"
if [ -z "$DIR" ]; then
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/kgantt-import-memory-XXXXXX") || fail "no temporary folder"
	trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR/spool" || fail "cannot make $DIR/spool"

# field NAME FILE: the value of /usr/bin/time -v's line "NAME: value"
field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }
# seconds of "h:mm:ss" or "m:ss.ss"
seconds() { awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1e6 }'; }

OUT=$DIR/results.md
{
	echo "| kernels | events | spool MB | wall s | peak RSS MB | bytes per event | trace MB |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$OUT"
cat "$OUT"
IFS=, read -r -a LIST <<< "$SIZES"
for n in "${LIST[@]}"; do
	spool=$DIR/spool/run.kgspool trace=$DIR/run.kgt log=$DIR/time.log
	rm -f "$spool" "$trace"
	"$GEN" "$n" "$spool" || fail "spool_gen $n failed"
	spool_bytes=$(stat -c %s "$spool")
	# the spool was just written: its pages are in the page cache, as after a recording
	/usr/bin/time -v "$K" import -o "$trace" "$DIR/spool" 2> "$log" > /dev/null ||
		fail "import of $n kernels failed: $(tail -3 "$log")"
	wall=$(field "Elapsed (wall clock) time (h:mm:ss or m:ss)" "$log" | seconds)
	rss_kb=$(field "Maximum resident set size (kbytes)" "$log")
	# events: the trace's own counts (info's "records:" line), kernels plus API calls
	events=$("$K" info "$trace" | awk '/^records:/ { gsub(",", ""); for (i = 1; i <= NF; i++) {
		if ($i == "kernels" || $i == "api_calls") e += $(i + 1) } print e }')
	[ "${events:-0}" -gt 0 ] || fail "no events in the trace of $n kernels"
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$events" "$(mb "$spool_bytes")" \
		"$wall" "$(mb $((rss_kb * 1024)))" \
		"$(awk -v r="$rss_kb" -v e="$events" 'BEGIN { printf "%.1f", r * 1024 / e }')" \
		"$(mb "$(stat -c %s "$trace")")" | tee -a "$OUT"
	rm -f "$spool" "$trace"
done
if [ -n "$OUTMD" ]; then
	{
		echo "Measured with \`bench/import_memory.sh -n $SIZES\` (KGANTT=$K) on $(nproc) cores,"
		echo "$(date -u +%Y-%m-%d)."
		echo
		cat "$OUT"
	} > "$OUTMD" || fail "cannot write $OUTMD"
fi
