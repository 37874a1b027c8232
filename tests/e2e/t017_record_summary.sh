# What `kgantt record` does once the trace is written (issue 12): the top findings, one
# line each, and the commands for the rest; --report, --plot and --view from the same
# analysis, each the same as the command it stands for. Recording needs a GPU, so the
# part after the trace exists is reached through record's hidden --summarize-only TRACE,
# which runs exactly that part (src/cli/record_summary.c) with record's own options.
. tests/e2e/lib.sh
c=$(fixture copies_bad)

# the summary: a count by severity, a line per finding within COLUMNS, the three commands
COLUMNS=72 "$K" record --summarize-only "$c" > "$WORK/out" 2> "$WORK/err" || fail "exit $?"
[ -s "$WORK/out" ] && fail "the summary went to stdout: $(cat "$WORK/out")"
grep -q "^kgantt: 2 findings in '$c' (1 critical, 0 warning, 1 info)" "$WORK/err" ||
	fail "no count line: $(cat "$WORK/err")"
grep -q "^  #1 \[critical\] copy-compute-overlap: copies on GPU 0.*…  48.82 ms (79.3%)$" "$WORK/err" ||
	fail "finding #1 is not 'rank [severity] rule: title…  gain': $(cat "$WORK/err")"
grep -q "^  #2 \[info\] host-sync-stall: .*  1.74 ms (2.8%)$" "$WORK/err" || fail "finding #2: $(cat "$WORK/err")"
python3 - "$WORK/err" <<'EOF' || fail "a finding line is wider than COLUMNS=72"
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("  #"):
        assert len(line.rstrip("\n")) <= 72, line
EOF
grep -q "kgantt report $c$" "$WORK/err" || fail "no report hint: $(cat "$WORK/err")"
grep -q "kgantt view $c -o build/fixtures/copies_bad.html$" "$WORK/err" || fail "no view hint"
grep -q "kgantt plot $c -o build/fixtures/copies_bad.png$" "$WORK/err" || fail "no plot hint"
echo "ok: the summary: $(sed -n 2p "$WORK/err")"

# at most 5 findings, and how many more: three synthetic ranks in one trace (a straggler,
# an imbalance, each GPU waiting for its host, the all-reduces the others wait in: more
# than five findings)
python3 bench/gen_job.py -o "$WORK/job" -n 3 -k 2000 > /dev/null || fail "gen_job"
"$K" merge -q -o "$WORK/job.kgt" "$WORK"/job/*.kgt || fail "merge"
"$K" record --summarize-only "$WORK/job.kgt" 2> "$WORK/err" || fail "job.kgt: exit $?"
[ "$(grep -c '^  #' "$WORK/err")" = 5 ] || fail "not 5 finding lines: $(cat "$WORK/err")"
total=$(sed -n 's/^kgantt: \([0-9]*\) findings in .*/\1/p' "$WORK/err")
[ -n "$total" ] && [ "$total" -gt 5 ] || fail "not more than 5 findings: $(cat "$WORK/err")"
grep -q "^  ... and $((total - 5)) more$" "$WORK/err" || fail "does not say how many more: $(cat "$WORK/err")"

# a name that needs quoting is quoted in the commands, so that they can be pasted
mkdir -p "$WORK/a b" && cp "$c" "$WORK/a b/it's.kgt"
"$K" record --summarize-only "$WORK/a b/it's.kgt" 2> "$WORK/err" || fail "exit $?"
grep -qF "kgantt view '$WORK/a b/it'\''s.kgt' -o '$WORK/a b/it'\''s.html'" "$WORK/err" ||
	fail "names not quoted: $(cat "$WORK/err")"
echo "ok: at most 5 findings; names quoted"

# --report: the page of `kgantt report`, on stdout; the findings are not repeated on stderr
"$K" record --summarize-only "$c" --report > "$WORK/rec.txt" 2> "$WORK/err" || fail "--report: exit $?"
"$K" report "$c" > "$WORK/report.txt" || fail "report: exit $?"
cmp -s "$WORK/rec.txt" "$WORK/report.txt" || fail "--report differs from kgantt report: $(diff "$WORK/rec.txt" "$WORK/report.txt" | head)"
grep -q '^  #' "$WORK/err" && fail "--report: findings repeated on stderr"
grep -q "kgantt report" "$WORK/err" && fail "--report: still says to run kgantt report"
echo "ok: --report is kgantt report's page"
# of a run whose steady steps apply too (the GPT step: 5.6 s of start-up left out)
g=$(fixture gpt_full_fast)
"$K" record --summarize-only "$g" --report > "$WORK/rec_g.txt" 2> /dev/null || fail "--report gpt: exit $?"
"$K" report "$g" > "$WORK/report_g.txt" || fail "report gpt: exit $?"
cmp -s "$WORK/rec_g.txt" "$WORK/report_g.txt" ||
	fail "--report of the steady steps differs from kgantt report: $(diff "$WORK/rec_g.txt" "$WORK/report_g.txt" | head)"
grep -q 'the findings are of the' "$WORK/rec_g.txt" || fail "--report gpt: not of the steady steps"
echo "ok: and of the steady steps, as kgantt report"

# --plot and --view: the files `kgantt plot` and `kgantt view` write
"$K" record --summarize-only "$c" --plot "$WORK/rec.svg" --view "$WORK/rec.html" 2> "$WORK/err" ||
	fail "--plot --view: exit $?: $(cat "$WORK/err")"
grep -q "wrote '$WORK/rec.svg'" "$WORK/err" || fail "no word of the chart: $(cat "$WORK/err")"
grep -q "wrote '$WORK/rec.html' (32 GPU operations, 2 findings)" "$WORK/err" || fail "no word of the page"
grep -q "kgantt view\|kgantt plot" "$WORK/err" && fail "hints for files already written: $(cat "$WORK/err")"
"$K" plot "$c" -o "$WORK/plot.svg" || fail "plot: exit $?"
cmp -s "$WORK/rec.svg" "$WORK/plot.svg" || fail "--plot differs from kgantt plot"
"$K" view -q "$c" -o "$WORK/view.html" || fail "view: exit $?"
cmp -s "$WORK/rec.html" "$WORK/view.html" || fail "--view differs from kgantt view"
echo "ok: --plot and --view write what plot and view write"

# -q: nothing said; with an output asked for, it is still written
"$K" record -q --summarize-only "$c" --view "$WORK/q.html" > "$WORK/out" 2> "$WORK/err" || fail "-q: exit $?"
[ -s "$WORK/err" ] || [ -s "$WORK/out" ] && fail "-q printed: $(cat "$WORK/out" "$WORK/err")"
[ -s "$WORK/q.html" ] || fail "-q --view wrote no page"

# failures: nothing to show (CUPTI refused), an output that cannot be written; each
# output is still tried
r=$(fixture cupti_first)
expect_error 1 "record: nothing to show in '$r': recording was refused in pid 859: CUPTI refused to subscribe" \
	"$K" record --summarize-only "$r" --view "$WORK/r.html"
[ -e "$WORK/r.html" ] && fail "a page of a refused trace"
"$K" record --summarize-only "$c" --plot "$WORK/no/dir/x.png" --view "$WORK/v.html" 2> "$WORK/err"
[ $? -eq 1 ] || fail "a failed --plot did not give exit 1"
[ -s "$WORK/v.html" ] || fail "--view not written after --plot failed: $(cat "$WORK/err")"
grep -q "no/dir/x.png" "$WORK/err" || fail "the failed chart is not named: $(cat "$WORK/err")"
echo "ok: failures are said and give exit 1; the other outputs are still written"

# the command line: a chart format is checked before anything runs; an output cannot be
# the trace itself; --summarize-only runs no program
expect_error 2 "--plot: cannot tell the format of 'x.gif' from its name" "$K" record --plot x.gif -o "$WORK/n.kgt" -- true
expect_error 2 "--view '$WORK/n.kgt' is the trace itself" "$K" record --view "$WORK/n.kgt" -o "$WORK/n.kgt" -- true
[ -e "$WORK/n.kgt.spool" ] && fail "record ran after a usage error"
expect_error 2 "--summarize-only TRACE runs no program" "$K" record --summarize-only "$c" -- true
"$K" record --help | grep -q -- "--view PAGE" || fail "--view not in record --help"
"$K" record --help | grep -q -- "summarize-only" && fail "--summarize-only is internal, not for --help"
echo "ok: record's new options on the command line"
