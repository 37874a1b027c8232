# The benchmarks that need no GPU still build and run, so that their figures in
# docs/results/ can be measured again: the recorder's parts (bench/recorder_parts.c: every
# part prints a time per event) and the merge benchmark (bench/merge_speed.sh on small
# traces: both kgantts given write the same trace).
. tests/e2e/lib.sh
make -s bench-parts > "$WORK/make" 2>&1 || fail "make bench-parts: $(tail -5 "$WORK/make")"
build/bench/recorder_parts -n 1 -d "$WORK" > "$WORK/parts" 2>&1 || fail "recorder_parts: $(cat "$WORK/parts")"
for part in clock api_callback kernel_record api_record api_callback_written \
	kernel_record_written api_record_written; do
	grep -Eq "^${part}_ns=[0-9]+\.[0-9]$" "$WORK/parts" || fail "no time for $part: $(cat "$WORK/parts")"
done
[ -z "$(ls "$WORK" | grep kgspool)" ] || fail "recorder_parts left its spool"
echo "ok: recorder_parts: $(tr '\n' ' ' < "$WORK/parts")"
command -v sqlite3 > /dev/null || skip "no sqlite3 shell (merge_speed.sh needs it)"
bench/merge_speed.sh -n 20000 -R 2 -r 1 -k "$K $K" -o "$WORK/merge.md" > "$WORK/ms" 2>&1 ||
	fail "merge_speed.sh: $(tail -5 "$WORK/ms")"
grep -q "byte for byte): yes. Merged trace: .* 40000 kernels" "$WORK/merge.md" ||
	fail "merge_speed.sh: $(cat "$WORK/merge.md")"
echo "ok: merge_speed.sh: $(grep -c '^| 2 ' "$WORK/merge.md") rows, the same trace every time"
# the GPU benchmarks' own logic, with a stand-in for the launch loop (untraced only: the
# other configurations need a GPU): a table with the figure the loop printed
printf '#!/bin/sh\necho "reps_us_per_launch=4.2,4.1,4.3"\necho us_per_launch=4.2\n' > "$WORK/loop"
chmod +x "$WORK/loop"
LAUNCH_LOOP=$WORK/loop bash bench/recorder_cost.sh -r 2 -c untraced -o "$WORK/rc" > "$WORK/rc.out" 2>&1 ||
	fail "recorder_cost.sh: $(cat "$WORK/rc.out")"
grep -q "^| untraced | 4.100 | 4.100–4.100 | 1.000 | - | 2 |$" "$WORK/rc/table.md" ||
	fail "recorder_cost.sh table: $(cat "$WORK/rc/table.md")"
LAUNCH_LOOP=$WORK/loop bash bench/recorder_memory.sh -n 1000 -i 1 -s 100 -c untraced -o "$WORK/rm" \
	> "$WORK/rm.out" 2>&1 || fail "recorder_memory.sh: $(cat "$WORK/rm.out")"
grep -q "^| untraced | 4.2 |" "$WORK/rm/summary.md" && grep -q "synchronisation every 100 launches" "$WORK/rm/summary.md" ||
	fail "recorder_memory.sh summary: $(cat "$WORK/rm/summary.md")"
echo "ok: recorder_cost.sh and recorder_memory.sh with a stand-in loop"
