#!/usr/bin/env bash
# The trivial API list with cuBLAS's and cuDNN's queries (src/recorder/api_filter.c), on the
# GPU: every example recorded again; a GPT training step recorded by default and with
# --all-api: no function the trace's note names is in the default trace, the --all-api
# trace has them, and both give the same findings.
#   tests/gpu/api_filter_gpt_h200.sh OUTDIR [KEEPDIR]
#      OUTDIR/summary.txt; exit 1 on a failed check. KEEPDIR: keep the traces (every
#      example's, as record_examples.sh writes them, and gpt_default.kgt) as fixtures.
set -u
out=${1:?usage: api_filter_gpt_h200.sh OUTDIR [KEEPDIR]}
keep=${2:-}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
run=$(mktemp -d /tmp/kgantt-apifilter.XXXXXX)
mkdir -p "$out"
log=$out/summary.txt
: > "$log"
failed=0
say() { echo "$*" | tee -a "$log"; }

tests/gpu/record_examples.sh "$run/examples" > "$run/record_examples.txt" 2>&1 ||
	failed=1
say "record_examples: $(tail -1 "$run/examples/summary.txt")"
grep FAIL "$run/examples/summary.txt" | tee -a "$log"

for how in default all-api; do
	extra=()
	[ $how = all-api ] && extra=(--all-api)
	"$K" record --force "${extra[@]}" -o "$run/gpt_$how.kgt" -- python3 bench/torch_step.py --gpt \
		--steps 10 --reps 1 > "$run/gpt_$how.log" 2>&1 || { say "FAIL: gpt $how: record"; failed=1; }
	say "gpt $how: $(grep -o 'wrote.*' "$run/gpt_$how.log" | head -1)"
	"$K" report --json --no-progress "$run/gpt_$how.kgt" > "$run/gpt_$how.json" ||
		{ say "FAIL: gpt $how: report"; failed=1; }
done

python3 - "$run/gpt_default.kgt" "$run/gpt_all-api.kgt" "$run/gpt_default.json" \
	"$run/gpt_all-api.json" <<'PY' 2>&1 | tee -a "$log"
import json, re, sys
sys.path.insert(0, "tests/gpu")
import kgt_rows
default, all_api, jd, ja = sys.argv[1:5]
def names(trace):
    db = kgt_rows.connect(trace)
    counts = dict(db.execute("select name, count(*) from api group by name").fetchall())
    notes = [t for (t,) in db.execute("select text from messages")]
    return {re.sub(r"(_v[0-9]+)+$", "", n): c for n, c in counts.items()}, notes
d, notes = names(default)
a, _ = names(all_api)
note = [t for t in notes if t.startswith("API calls not recorded")]
assert note, "no note of the functions left out: %s" % notes
listed = note[0].split(": ", 1)[1].split(", ")
leaked = {n: d[n] for n in listed if n in d}
print("left out:", len(listed), "functions; in the default trace anyway:", leaked or "none")
print("calls: default %d, --all-api %d" % (sum(d.values()), sum(a.values())))
only = sorted(((c, n) for n, c in a.items() if n not in d), reverse=True)[:10]
print("  --all-api only:", ", ".join("%s %d" % (n, c) for c, n in only))
rules = lambda j: [(f["rule"], f.get("severity")) for f in json.load(open(j))["findings"]]
rd, ra = rules(jd), rules(ja)
print("findings default:", rd)
print("findings --all-api:", ra)
assert not leaked, "listed functions recorded: %s" % leaked
assert any(n in a for n in ("cuKernelGetAttribute", "cuGetErrorString")), "--all-api lost them"
assert rd == ra, "findings differ"
print("ok")
PY
[ "${PIPESTATUS[0]}" = 0 ] || failed=1
tar -C "$run" -cJf "$out/logs.tar.xz" record_examples.txt gpt_default.log gpt_all-api.log \
	gpt_default.json gpt_all-api.json examples/summary.txt 2> /dev/null
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	cp "$run"/examples/fixtures/* "$run/gpt_default.kgt" "$run/examples/summary.txt" "$keep/"
fi
rm -rf "$run"
say "done: $([ $failed = 0 ] && echo passed || echo FAILED)"
exit $failed
