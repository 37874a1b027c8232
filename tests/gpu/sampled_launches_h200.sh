#!/usr/bin/env bash
# Issue 26's full mode on the GPU: kernel launches' API calls sampled in windows
# (src/recorder/launches.h). Every example recorded again by default (the new full mode)
# and, for the planted problems, with --all-launches too; a GPT training step both ways.
# Per pair: the same findings (rules and severities), their gains within 15 %, the call
# sites' shares within 5 points; bytes per kernel of the launch loop, sampled against all.
#   tests/gpu/sampled_launches_h200.sh OUTDIR [KEEPDIR]
#      OUTDIR/summary.txt and OUTDIR/compare.txt; KEEPDIR: the default traces, as fixtures.
set -u
out=${1:?usage: sampled_launches_h200.sh OUTDIR [KEEPDIR]}
keep=${2:-}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
X=build/examples
run=$(mktemp -d /tmp/kgantt-sampled.XXXXXX)
mkdir -p "$out" "$run/all"
log=$out/summary.txt
: > "$log"
say() { echo "$*" | tee -a "$log"; }

t0=$(date +%s)
tests/gpu/record_examples.sh "$run/examples" > "$run/record_examples.txt" 2>&1
say "record_examples ($(($(date +%s) - t0)) s): $(tail -1 "$run/examples/summary.txt")"
grep -E "FAIL|INFO" "$run/examples/logs/"*.validate 2>/dev/null | sed 's|.*/||' | tee -a "$log" | head -40 > /dev/null
grep FAIL "$run/examples/summary.txt" | tee -a "$log"

for r in "copies bad" "launches bad" "streams bad" "occupancy bad" "timeslice bad" "nvtx bad"; do
	set -- $r
	name=${1}_$2
	args=("$2")
	[ "$1" = nvtx ] && args=()
	"$K" record --force --all-launches -o "$run/all/$name.kgt" -- "$X/$1" "${args[@]}" \
		> /dev/null 2> "$run/all/$name.err" || say "FAIL: $name --all-launches: record"
done
for how in default all; do
	extra=()
	[ $how = all ] && extra=(--all-launches)
	t1=$(date +%s)
	"$K" record --force "${extra[@]}" -o "$run/gpt_$how.kgt" -- python3 bench/torch_step.py --gpt \
		--steps 10 --reps 1 > "$run/gpt_$how.log" 2>&1 || say "FAIL: gpt $how: record"
	say "gpt $how ($(($(date +%s) - t1)) s): $(grep -o 'wrote.*' "$run/gpt_$how.log" | head -1)"
done
cp "$run/gpt_default.kgt" "$run/examples/fixtures/gpt_default.kgt"
cp "$run/gpt_all.kgt" "$run/all/gpt_default.kgt"

# the same findings either way: rules, severities, gains, call-site shares
python3 - "$K" "$run/examples/fixtures" "$run/all" <<'PY' 2>&1 | tee "$out/compare.txt" | tee -a "$log"
import json, os, subprocess, sys
k, default_dir, all_dir = sys.argv[1:4]
def report(path):
    r = subprocess.run([k, "report", "--json", "--sites", "--no-progress", path],
                       capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else None
def site_shares(rep, f):
    """A finding's call sites by label (the sites' numbers differ from trace to trace),
    their shares in points."""
    labels = {s["site"]: s.get("label") for s in rep.get("sites", [])}
    out = {}
    for s in f.get("sites", []):
        label = s.get("label") or labels.get(s["site"], "#%d" % s["site"])
        out[label] = out.get(label, 0) + 100 * s.get("share", 0)
    return out
bad = 0
for name in sorted(os.listdir(all_dir)):
    if not name.endswith(".kgt"):
        continue
    a, d = report(os.path.join(all_dir, name)), report(os.path.join(default_dir, name))
    if not a or not d:
        print("FAIL", name, "no report"); bad += 1; continue
    fa = {(f["rule"], f.get("gpu")): f for f in a["findings"]}
    fd = {(f["rule"], f.get("gpu")): f for f in d["findings"]}
    print("%s: all-launches %s" % (name, sorted((r, f["severity"], round(f.get("gain_ns", 0) / 1e6, 2)) for (r, _), f in fa.items())))
    print("%s: sampled      %s" % (name, sorted((r, f["severity"], round(f.get("gain_ns", 0) / 1e6, 2)) for (r, _), f in fd.items())))
    sev = lambda fs: {key for key, f in fs.items() if f["severity"] != "info"}
    if sev(fa) != sev(fd):
        print("  DIFFER: rules", sorted(sev(fa) ^ sev(fd))); bad += 1
    for key in sev(fa) & sev(fd):
        ga, gd = fa[key].get("gain_ns", 0), fd[key].get("gain_ns", 0)
        if ga > 0 and abs(gd - ga) / ga > 0.15:
            print("  GAIN %s: %.3f ms all, %.3f ms sampled (%+.0f %%)" % (key[0], ga / 1e6, gd / 1e6, 100 * (gd - ga) / ga))
        sa, sd = site_shares(a, fa[key]), site_shares(d, fd[key])
        worst = max([abs(sa.get(s, 0) - sd.get(s, 0)) for s in set(sa) | set(sd)] or [0])
        print("  %s: sites %d/%d, largest share difference %.1f" % (key[0], len(sa), len(sd), worst))
print("compare:", "ok" if not bad else "%d differ" % bad)
PY

# bytes per kernel of the launch loop, sampled against every launch
L=build/bench/launch_loop
if [ -x "$L" ]; then
	for how in default all; do
		extra=(); [ $how = all ] && extra=(--all-launches)
		"$K" record --force -q "${extra[@]}" -o "$run/loop_$how.kgt" -- "$L" > "$run/loop_$how.out" 2>&1
		n=$(python3 -c "import sys; sys.path.insert(0,'tests/gpu'); import kgt_rows; db=kgt_rows.connect(sys.argv[1]); print(db.execute('select count(*) from kernels').fetchone()[0], db.execute('select count(*) from api_calls').fetchone()[0])" "$run/loop_$how.kgt")
		say "launch loop $how: $(stat -c %s "$run/loop_$how.kgt") bytes, kernels api_calls: $n, $(grep -E '^[a-z_]+=' "$run/loop_$how.out" | tr '\n' ' ')"
	done
fi
tar -C "$run" -cJf "$out/logs.tar.xz" record_examples.txt examples/summary.txt examples/logs gpt_default.log gpt_all.log all 2> /dev/null
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	cp "$run"/examples/fixtures/* "$run/examples/summary.txt" "$keep/"
	mkdir -p "$keep/all_launches" && cp "$run"/all/*.kgt "$keep/all_launches/"
fi
rm -rf "$run"
say "done in $(($(date +%s) - t0)) s"
