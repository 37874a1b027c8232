# 'kgantt info' and 'kgantt dump' show what the H200 traces hold.
. tests/e2e/lib.sh
t=$(fixture streams_fixed)
"$K" info "$t" > "$WORK/info"
grep -q "160 kernels" "$WORK/info" || fail "info: kernel count"
grep -q "complete, exit: exit 0" "$WORK/info" || fail "info: process status"
"$K" dump --table list "$t" | grep -q "^kernel_phases	view" || fail "dump --table list"
"$K" dump --table kernel_phases --limit 3 "$t" > "$WORK/k"
[ "$(wc -l < "$WORK/k")" -eq 4 ] || fail "dump --limit 3 gave $(wc -l < "$WORK/k") lines"
head -1 "$WORK/k" | grep -q "queue_wait_ns" || fail "dump header"
grep -q "streams_work" "$WORK/k" || fail "dump: demangled kernel name"
expect_error 1 "has no table 'nope'" "$K" dump --table nope "$t"
# the stream priorities come out signed, as the program set them (-5 is the H200's highest)
"$K" dump --table streams "$t" | awk -F'\t' 'NR>1 && $4 < 0 {found=1} END {exit !found}' ||
	echo "(no negative-priority stream in this example)"
# killed program: info says it is incomplete, and why
"$K" info "$(fixture longrun_killed)" > "$WORK/ki"
grep -q "INCOMPLETE, exit: signal 9" "$WORK/ki" || fail "info on killed trace: $(cat "$WORK/ki")"
grep -q "note: no end record" "$WORK/ki" || fail "info: note on killed trace"
