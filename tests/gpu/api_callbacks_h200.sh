#!/usr/bin/env bash
# API calls from CUPTI's callbacks (KGANTT_DEV_API_CALLBACKS=1, src/recorder/api_calls.h)
# beside its activity records, the default: the same programs recorded both ways must
# hold the same API calls (per function), every kernel its launching call, the same
# findings; then what each way costs, part by part (bench/recorder_cost.sh) on the launch
# loop and on tiny PyTorch ops, where CUPTI's instrumentation of ~14 API calls per op is
# suspected to be most of full mode's cost. Everything lands in OUTDIR as one tarball and
# a summary (the device tool brings back a handful of files only).
#   tests/gpu/api_callbacks_h200.sh OUTDIR [ROUNDS] [TINY_ROUNDS]
# (defaults 8 and 4: about 7 minutes on the H200, within one device call; COST_CONFIGS
# (environment) narrows recorder_cost.sh's configurations)
set -u
out=${1:?usage: api_callbacks_h200.sh OUTDIR [ROUNDS] [TINY_ROUNDS]}
rounds=${2:-8}
tiny_rounds=${3:-4} # a tiny-ops run takes ~7 s, a launch loop's ~1.3 s
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
run=/tmp/kgantt-gpu-apicb
rm -rf "$run"
mkdir -p "$run" "$out"
log=$out/api_callbacks.txt
say() { echo "$*" | tee -a "$log"; }

progs=("launch:build/bench/launch_loop -n 20000 -r 1"
       "tiny:python3 bench/torch_step.py --tiny --reps 1"
       "mlp:python3 bench/torch_step.py --steps 200 --reps 1"
       "syncs:build/examples/syncs"
       "copies:build/examples/copies"
       "nvtx:build/examples/nvtx")
for p in "${progs[@]}"; do
	name=${p%%:*} cmd=${p#*:}
	for how in activity callbacks; do
		env=()
		[ $how = callbacks ] && env=(KGANTT_DEV_API_CALLBACKS=1)
		env "${env[@]}" "$K" record --force -o "$run/${name}_$how.kgt" -- $cmd \
			> "$run/${name}_$how.log" 2>&1
		say "$name $how: record exit $?"
		"$K" report --json --no-progress "$run/${name}_$how.kgt" > "$run/${name}_$how.json" 2>&1
	done
	python3 - "$run/${name}_activity.kgt" "$run/${name}_callbacks.kgt" \
		"$run/${name}_activity.json" "$run/${name}_callbacks.json" <<'PY' | tee -a "$log"
import json, sys
sys.path.insert(0, "tests/gpu")
import kgt_rows
def facts(path):
    db = kgt_rows.connect(path)
    per = dict(db.execute("select s.text, count(*) from api_calls a join strings s on "
                          "s.id = a.name group by 1").fetchall())
    kernels = db.execute("select count(*) from kernels").fetchone()[0]
    linked = db.execute("select count(*) from kernels k where exists (select 1 from "
                        "api_calls a where a.process = k.process and a.correlation = "
                        "k.correlation)").fetchone()[0]
    bad = db.execute("select count(*) from api_calls where end < start").fetchone()[0]
    threads = db.execute("select count(distinct thread) from api_calls").fetchone()[0]
    return per, kernels, linked, bad, threads
a, c = facts(sys.argv[1]), facts(sys.argv[2])
rules = [[f["rule"] for f in json.load(open(p))["findings"]] for p in sys.argv[3:5]]
names = sorted(set(a[0]) | set(c[0]), key=lambda n: -(a[0].get(n, 0) + c[0].get(n, 0)))
diff = ["%s %d/%d" % (n, a[0].get(n, 0), c[0].get(n, 0)) for n in names
        if a[0].get(n, 0) != c[0].get(n, 0)]
print("  activity: %d API calls, %d kernels, %d linked, %d end<start, %d threads" %
      (sum(a[0].values()), a[1], a[2], a[3], a[4]))
print("  callbacks: %d API calls, %d kernels, %d linked, %d end<start, %d threads" %
      (sum(c[0].values()), c[1], c[2], c[3], c[4]))
print("  calls that differ (activity/callbacks):", ", ".join(diff[:12]) or "none")
print("  findings:", rules[0], "|", rules[1], "same" if rules[0] == rules[1] else "DIFFER")
PY
done

for wl in launch tiny; do
	r=$rounds
	[ $wl = tiny ] && r=$tiny_rounds
	bash bench/recorder_cost.sh -w $wl -r "$r" \
		-c "${COST_CONFIGS:-untraced,raw,kg-kernels,kg-full,kg-full-apicb,kg-full-nostacks}" -o "$run/cost_$wl" \
		> "$run/cost_$wl.log" 2>&1
	say "recorder_cost $wl:"
	cat "$run/cost_$wl/table.md" >> "$log" 2> /dev/null
done
tar -C "$run" -cJf "$out/api_callbacks_logs.tar.xz" --exclude='*.kgt' . 2> /dev/null
say done
