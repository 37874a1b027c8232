# A trace whose kernel launches were sampled but whose kernels carry no queued time (full
# mode with --latency off, before the recorder took every launch's call then): the report
# says how many kernels nothing dates, counted here independently with SQL, in text and
# in --json. The H200 GPT
# step of tests/fixtures/h200/current/, its queued and submitted times removed.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
t=$WORK/undated.kgt
"$K" export -q -f sqlite -o "$t" "$(fixture current/gpt_default)" || fail "export"
want=$(python3 - "$t" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE kernels SET queued = NULL, submitted = NULL")
db.commit()
n = db.execute("SELECT COUNT(*) FROM kernels k WHERE NOT EXISTS (SELECT 1 FROM api_calls a "
               "WHERE a.process = k.process AND a.correlation = k.correlation)").fetchone()[0]
print("{:,}".format(n))
PY
) || fail "sql"
[ "$want" != 0 ] || fail "the fixture has every launch's call"
"$K" report --whole --no-progress "$t" > "$WORK/report" 2>&1 || fail "report: $(tail -2 "$WORK/report")"
grep -q "$want of them have neither a sampled call nor a queued time" "$WORK/report" ||
	fail "report does not count the $want undated kernels: $(grep -A1 '^  recorded' "$WORK/report")"
"$K" report --whole --no-progress "$(fixture current/gpt_default)" > "$WORK/report0" 2>&1 || fail "report"
! grep -q "neither a sampled call" "$WORK/report0" || fail "the recorded trace has undated kernels"
# the header says once what was recorded: with API calls, or (kernels mode) without
"$K" report --whole --no-progress "$(fixture current/launches_bad_kernels)" > "$WORK/report1" 2>&1 ||
	fail "report kernels mode"
for r in report report0 report1; do
	[ "$(grep -c '^  recorded ' "$WORK/$r")" = 1 ] || fail "$r: not one 'recorded' line: $(grep -A1 '^  recorded' "$WORK/$r")"
done
grep -q "^  recorded .*API calls (kernel launches' calls" "$WORK/report0" || fail "report0: its API calls not said"
tr -s ' \n' ' ' < "$WORK/report1" | grep -q "no API calls (host-side causes of idle time are unknown)" ||
	fail "kernels mode: 'no API calls' not said"
# and --json says the same: the count, and that launch calls were sampled
python3 - "$t" "$(fixture current/gpt_default)" "$(fixture current/launches_bad_kernels)" "$want" "$K" <<'PY' ||
import json, subprocess, sys
undated, recorded, kernels_mode, want, k = sys.argv[1:]
def header(path):
    out = subprocess.run([k, "report", "--json", "--whole", "--no-progress", path],
                         capture_output=True, text=True, check=True).stdout
    t = json.loads(out)["trace"]
    return t["launch_calls_sampled"], t["undated_kernels"]
got = header(undated), header(recorded), header(kernels_mode)
assert got == ((True, int(want.replace(",", ""))), (True, 0), (False, 0)), got
print("ok: --json: launch_calls_sampled and undated_kernels", got)
PY
	fail "--json does not count the undated kernels"
echo "ok: the report counts the $want kernels nothing dates"
