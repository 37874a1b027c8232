# One way for options (issue 12, defect 8): a wrong option is one line naming the command
# and where to look, never the whole help; --set works in every command that shows
# findings, and gives the findings `report --set` gives.
. tests/e2e/lib.sh
for cmd in report plot view export diff dump pack record merge import info; do
	"$K" $cmd --jsn x.kgt > "$WORK/out" 2> "$WORK/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$cmd --jsn exited $rc, expected 2"
	[ "$(wc -l < "$WORK/err")" -eq 1 ] || fail "$cmd --jsn printed more than one line: $(cat "$WORK/err")"
	grep -qF "kgantt: $cmd: unknown option '--jsn' (see kgantt $cmd --help)" "$WORK/err" ||
		fail "$cmd --jsn said: $(cat "$WORK/err")"
done
echo "ok: a wrong option is one line in every command"
expect_error 2 "kgantt: report: option '--top' needs a value (see kgantt report --help)" "$K" report --top
expect_error 2 "kgantt: plot: unknown option '-x' (see kgantt plot --help)" "$K" plot -x t.kgt

trace=$(fixture hw_occupancy_bad)
fixed=$(fixture hw_occupancy_fixed)
for set in "" "low_occupancy=0.1" "min_gain_pct=50"; do
	opt=()
	[ -n "$set" ] && opt=(--set "$set")
	"$K" report --json "${opt[@]}" "$trace" > "$WORK/r.json" || fail "report ${opt[*]}"
	"$K" plot --manifest "${opt[@]}" "$trace" -o "$WORK/p.png" || fail "plot ${opt[*]}"
	"$K" view "${opt[@]}" "$trace" -o "$WORK/v.html" -q || fail "view ${opt[*]}"
	"$K" diff --json "${opt[@]}" "$trace" "$fixed" > "$WORK/d.json" || fail "diff ${opt[*]}"
	python3 - "$WORK/r.json" "$WORK/p.png.json" "$WORK/d.json" "$set" <<'PY' || fail "--set $set: commands disagree"
import json, sys
report = [f["rule"] for f in json.load(open(sys.argv[1]))["findings"]]
plot = [f["rule"] for f in json.load(open(sys.argv[2]))["findings"]]
json.load(open(sys.argv[3]))  # diff ran with the same --set: its JSON is whole
assert sorted(report) == sorted(plot), (report, plot)
print("--set %-20s report and plot: %s" % (sys.argv[4] or "(none)", ", ".join(report) or "no finding"))
PY
	grep -q "kgantt_view\|<html" "$WORK/v.html" || fail "view ${opt[*]} wrote no page"
done
expect_error 2 "plot: --set: no threshold named 'nope'" "$K" plot --set nope=1 "$trace" -o "$WORK/x.png"
expect_error 2 "diff: --set: no threshold named 'nope'" "$K" diff --set nope=1 "$trace" "$fixed"
# -q: every command that writes a file takes it; those that talk on success fall silent
f=$(fixture copies_bad)
cp "$f" "$WORK/q.kgt"
for args in "plot -q $f -o $WORK/q.png" "view -q $f -o $WORK/q.html" \
	"export -q --format csv $f -o $WORK/q.csv" "merge -q -o $WORK/qm.kgt $f $f" "pack -q $WORK/q.kgt"; do
	"$K" $args > "$WORK/out" 2> "$WORK/err" || fail "kgantt $args: $(cat "$WORK/err")"
	[ ! -s "$WORK/err" ] && [ ! -s "$WORK/out" ] || fail "kgantt $args was not quiet: $(cat "$WORK/err")"
done
echo "ok: -q in plot, view, export, merge, pack"
echo "ok: t018_options"
# -f means --format, and only that: in plot too; a command without a format says so
"$K" plot -f svg "$(fixture copies_bad)" -o "$WORK/f.svg" || fail "plot -f svg"
head -c 200 "$WORK/f.svg" | grep -q "<svg" || fail "plot -f svg wrote no SVG"
expect_error 2 "-f is --format" "$K" merge -f -o "$WORK/x.kgt" "$(fixture copies_bad)"
expect_error 2 "-f is --format" "$K" record -f -o "$WORK/x.kgt" -- true
"$K" merge --force -q -o "$WORK/forced.kgt" "$(fixture copies_bad)" || fail "merge --force"
echo "ok: -f is --format"

