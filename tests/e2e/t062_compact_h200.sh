# Traces `kgantt record` wrote on the H200 in the compact format (version 5: kernels, API
# calls and hardware samples only as zstd column blocks; tests/fixtures/h200/compact_*,
# compact_summary.txt): every command reads them, their sizes meet the goals of
# docs/results/trace-size.md, their rows come back through export --format sqlite, and the
# diagnosis is the one the row traces of the same programs get.
. tests/e2e/lib.sh
command -v sqlite3 > /dev/null || skip "no sqlite3 shell"
for n in launch10k_full launch10k_kernels copies_bad streams_bad bound torch_tiny; do
	every_command "$(fixture compact_$n)" "$n"
done
echo "ok: info, report, plot, view and export of every compact H200 trace"
# bytes per kernel, as recorded (API calls included): goals 64 (full) and 40 (kernels)
size() { stat -c %s "$(fixture compact_$1)"; }
[ $(( $(size launch10k_full) / 10000 )) -le 64 ] || fail "full mode: $(( $(size launch10k_full) / 10000 )) B/kernel"
[ $(( $(size launch10k_kernels) / 10000 )) -le 40 ] || fail "kernels mode: $(( $(size launch10k_kernels) / 10000 )) B/kernel"
[ "$(sqlite3 "$WORK/launch10k_full.sqlite" "SELECT COUNT(*) FROM api_calls")" -ge 10000 ] || fail "API calls lost"
echo "ok: $(( $(size launch10k_full) / 10000 )) B/kernel full mode, $(( $(size launch10k_kernels) / 10000 )) kernels mode"
# the same program's row trace and its compact one: the same findings
rules() { python3 -c 'import json,sys; print(" ".join(sorted(f["rule"] for f in json.load(open(sys.argv[1]))["findings"])))' "$1"; }
"$K" report --json --no-progress "$(fixture copies_bad)" > "$WORK/old.json" || fail "report copies_bad"
[ "$(rules "$WORK/old.json")" = "$(rules "$WORK/copies_bad.json")" ] ||
	fail "copies_bad: $(rules "$WORK/old.json") recorded as rows, $(rules "$WORK/copies_bad.json") compact"
[ "$(sqlite3 "$WORK/bound.sqlite" "SELECT COUNT(*) FROM hw_samples")" -gt 100 ] ||
	fail "bound (record --hw): its hardware samples did not come back"
echo "ok: compact traces diagnose as the row traces did"
