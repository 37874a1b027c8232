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
