#!/usr/bin/env bash
# Packed columns on the H200 (trace/packed.h): every example recorded again, each trace
# packed by 'kgantt record' itself and reported the same from its blocks as from its rows;
# what packing costs at the end of a recording of a million kernels; that recording, a
# real 1M-kernel trace, brought back for the report-speed benchmark.
#   tests/gpu/packed_examples_h200.sh OUTDIR
set -u
out=${1:?usage: packed_examples_h200.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
run=/tmp/kgantt-gpu-run5
rm -rf "$run"
mkdir -p "$run/logs" "$run/rows"
log=$out/batch5.txt
say() { echo "$*" | tee -a "$log"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
same_report() { # same_report A B: report --json of A and B equal but for the path
	"$K" report --json --no-progress "$1" | sed 's|"path": "[^"]*"||' > "$run/a.json" &&
		"$K" report --json --no-progress "$2" | sed 's|"path": "[^"]*"||' > "$run/b.json" &&
		cmp -s "$run/a.json" "$run/b.json"
}

# 1. every example, validated as before
tests/gpu/record_examples.sh "$run" > "$run/logs/record_examples.txt" 2>&1
say "record_examples exit $?: $(tail -1 "$run/summary.txt")"
grep FAIL "$run/summary.txt" | tee -a "$log"

# 2. each trace: packed by record, and its report the same without the blocks
ok=0 bad=0
for t in "$run"/fixtures/*.kgt; do
	n=$(basename "$t" .kgt)
	packed=$("$K" info "$t" | sed -n 's/^packed: //p')
	cp "$t" "$run/rows/$n.kgt"
	"$K" pack --drop "$run/rows/$n.kgt" 2> /dev/null
	case $packed in "kernels yes, api_calls yes"*) blocks=1 ;; *) blocks=0 ;; esac
	if [ $blocks = 1 ] && same_report "$t" "$run/rows/$n.kgt"; then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		say "FAIL $n: packed '$packed', or the reports differ"
	fi
done
say "packed by record and same report from rows: $ok passed, $bad failed"

# 3. a million launches: record, then the end-of-run conversion measured on its own
t0=$(now)
"$K" record --force --keep-spool -o "$run/launch_1M.kgt" -- build/bench/launch_loop -n 1000000 -w 0 -r 1 \
	> "$run/logs/launch_1M.txt" 2>&1
rc=$?
t1=$(now)
say "record of launch_loop -n 1000000: exit $rc, $(secs "$t0" "$t1") s wall in all; program: $(grep us_per_launch= "$run/logs/launch_1M.txt" | head -1)"
"$K" info "$run/launch_1M.kgt" | tee -a "$log"
t0=$(now)
"$K" import --force -o "$run/import_1M.kgt" "$run/launch_1M.kgt.spool" > /dev/null 2>&1
t1=$(now)
say "import of its spool (rows, indexes, packed columns): $(secs "$t0" "$t1") s"
# the recorded trace without its blocks (not the import's: that one says "kgantt import"
# for the command and knows no exit status, so its report differs in its header)
cp "$run/launch_1M.kgt" "$run/rows_1M.kgt"
"$K" pack --drop "$run/rows_1M.kgt"
cp "$run/rows_1M.kgt" "$run/repack_1M.kgt"
t0=$(now)
"$K" pack "$run/repack_1M.kgt"
t1=$(now)
say "of which packing: $(secs "$t0" "$t1") s (kgantt pack on the same trace without blocks)"
ls -l "$run"/launch_1M.kgt "$run"/rows_1M.kgt | tee -a "$log"
for f in launch_1M rows_1M; do
	t0=$(now)
	"$K" report --no-progress "$run/$f.kgt" > "$run/logs/report_$f.txt"
	t1=$(now)
	say "report $f (H200 host, 16 cores): $(secs "$t0" "$t1") s"
done
same_report "$run/launch_1M.kgt" "$run/rows_1M.kgt" && say "1M: same report from blocks and rows" ||
	say "FAIL 1M: reports differ"
head -40 "$run/logs/report_launch_1M.txt" >> "$log"

# 4. bring it back (the 16 MiB limit per file: xz, split if it must)
xz -T0 -6 -c "$run/launch_1M.kgt" > "$run/launch_1M.kgt.xz"
ls -l "$run/launch_1M.kgt.xz" | tee -a "$log"
split -b 15M -d "$run/launch_1M.kgt.xz" "$out/launch_1M.kgt.xz.part"
tar -C "$run" -cJf "$out/batch5_logs.tar.xz" logs summary.txt
say "done"
