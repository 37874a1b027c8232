# Nothing to show is said, never shown as a clean empty result (issue 12):
#   defect 5: a trace where CUPTI refused the recorder: every command says so and why, and
#             those that show work exit 1;
#   defect 6: a --from/--to/--nvtx window that holds nothing is an error in every command
#             that takes a window;
#   defect 7: a truncated trace gets `kgantt info`'s precise message from every command.
. tests/e2e/lib.sh

# ---- defect 5: CUPTI refused (another subscriber held it: tests/gpu/cupti_first.cu)
r=$(fixture cupti_first)
why="recording was refused in pid 859: CUPTI refused to subscribe: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
expect_error 1 "report: nothing to show in '$r': $why" "$K" report "$r"
expect_error 1 "report: nothing to show in '$r': $why" "$K" report --json "$r"
[ -s "$WORK/out" ] && fail "report --json of a refused trace printed a document: $(head -c 200 "$WORK/out")"
expect_error 1 "plot: nothing to show in '$r': $why" "$K" plot "$r" -o "$WORK/r.png"
expect_error 1 "view: nothing to show in '$r': $why" "$K" view "$r" -o "$WORK/r.html"
[ -e "$WORK/r.html" ] && fail "view wrote a page for a refused trace"
expect_error 1 "export: nothing to show in '$r': $why" "$K" export -f csv "$r" -o "$WORK/r.csv"
expect_error 1 "diff: nothing to show in '$r': $why" "$K" diff "$r" "$(fixture copies_bad)"
expect_error 1 "diff: nothing to show in '$r': $why" "$K" diff "$(fixture copies_bad)" "$r"
"$K" info "$r" > "$WORK/info" || fail "info of a refused trace exited $?"
grep -q "error: CUPTI refused to subscribe" "$WORK/info" || fail "info does not say why: $(cat "$WORK/info")"

# only one process of two refused: shown, and said in the page, the JSON and on stderr
p=$WORK/partial.kgt
cp "$(fixture copies_bad)" "$p"
sqlite3 "$p" "INSERT INTO processes(process, pid, ppid, host, cmdline, complete, exit_status)
	VALUES (2, 4242, 564, 'vm', 'child', 1, 'exit 0');
	INSERT INTO messages VALUES (2, 0, 'error', 'CUPTI refused to subscribe: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED (another profiler such as nsys, ncu or torch.profiler is attached to this process); the program runs untraced');"
"$K" report "$p" > "$WORK/page" 2> "$WORK/err" || fail "report of a partly refused trace exited $?"
grep -q "losses       1 of 2 processes were not recorded: CUPTI refused" "$WORK/page" ||
	fail "the losses line does not say a process was refused: $(grep -A2 losses "$WORK/page")"
grep -q "notes        pid 4242 was not recorded: CUPTI refused to subscribe" "$WORK/page" ||
	fail "the notes do not say why: $(cat "$WORK/page")"
grep -q "report: warning: pid 4242 of '$p' was not recorded: CUPTI refused" "$WORK/err" ||
	fail "no warning on stderr: $(cat "$WORK/err")"
"$K" report --json "$p" 2> /dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = [p["refused"] for p in d["processes"]]
assert r[0] is None and "MULTIPLE_SUBSCRIBERS" in r[1], r' || fail "JSON processes[].refused"
"$K" view -q "$p" -o "$WORK/p.html" 2> "$WORK/err" || fail "view of a partly refused trace exited $?"
grep -q "view: warning: pid 4242" "$WORK/err" || fail "view: no warning: $(cat "$WORK/err")"
echo "ok: a refused trace is nothing to show, with the reason; a partly refused one says so"

# ---- defect 6: an empty window
c=$(fixture copies_bad)
# the span every command gives (report, info): the first to the last GPU operation, 61.6 ms
span="('$c' spans 0 – 61.6 ms)"
for cmd in report "plot -o $WORK/w.png" "view -o $WORK/w.html" "export -f csv -o $WORK/w.csv"; do
	set -- $cmd
	expect_error 1 "$1: the window 5000 ms – end holds no GPU operation or API call $span" \
		"$K" "$@" --from 5000 "$c"
done
for f in w.png w.html w.csv; do
	[ -e "$WORK/$f" ] && fail "$f was written for an empty window"
done
expect_error 1 "diff: the window 5000 ms – end holds no GPU operation or API call $span" \
	"$K" diff --from 5000 "$c" "$(fixture copies_fixed)"
expect_error 1 "report: the window 90 ms – 100 ms holds no GPU operation or API call $span" \
	"$K" report --from 90 --to 100ms "$c"
# API calls but no GPU operation: shown, with a warning
"$K" report --from 70 --to 80 "$c" > /dev/null 2> "$WORK/err" || fail "report --from 70 --to 80 exited $?"
grep -q "report: warning: no GPU operation was launched in the window, only API calls" "$WORK/err" ||
	fail "no warning for a window of API calls alone: $(cat "$WORK/err")"
expect_error 1 "plot: the window 1000 ms – 2000 ms holds no" "$K" plot --from 1s --to 2s "$c" -o "$WORK/w.svg"
# a window at the very end still holds what was launched there: not an error
"$K" report --from 61.5 "$c" > /dev/null 2>&1 || fail "report --from 61.5 (the last launches) exited $?"
"$K" plot --from 30 "$c" -o "$WORK/tail.png" || fail "plot --from 30 exited $?"
echo "ok: an empty window is an error in report, plot, view, export and diff"

# ---- defect 7: a truncated trace, said as info says it, by every command
head -c 60000 "$c" > "$WORK/t.kgt"
"$K" info "$WORK/t.kgt" > /dev/null 2> "$WORK/info.err" && fail "info of a truncated trace exited 0"
msg=$(sed 's/^kgantt: info: //' "$WORK/info.err")
case $msg in *"is truncated: 60000 bytes, expected"*) ;; *) fail "info: $msg" ;; esac
for cmd in report "plot -o $WORK/t.png" "view -o $WORK/t.html" "export -f csv -o $WORK/t.csv" \
	"export -f sqlite -o $WORK/t2.kgt" dump; do
	set -- $cmd
	"$K" "$@" "$WORK/t.kgt" > /dev/null 2> "$WORK/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$1 of a truncated trace exited $rc"
	[ "$(cat "$WORK/err")" = "kgantt: $1: $msg" ] || fail "$1 says '$(cat "$WORK/err")', info says '$msg'"
done
"$K" diff "$c" "$WORK/t.kgt" > /dev/null 2> "$WORK/err"
[ $? -eq 1 ] && [ "$(cat "$WORK/err")" = "kgantt: diff: $msg" ] || fail "diff says '$(cat "$WORK/err")'"
echo "ok: a truncated trace: '$msg' from every command"
