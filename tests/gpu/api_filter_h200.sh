#!/usr/bin/env bash
# Trivial API queries left out by default (kgantt record --all-api keeps them): every
# example recorded again; a PyTorch training run recorded both ways (how many calls, what
# the report finds); the recording overhead of both ways beside torch.profiler.
#   tests/gpu/api_filter_h200.sh OUTDIR
set -u
out=${1:?usage: api_filter_h200.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
run=/tmp/kgantt-gpu-run7
rm -rf "$run"
mkdir -p "$run"
log=$out/batch7.txt
say() { echo "$*" | tee -a "$log"; }

tests/gpu/record_examples.sh "$run" > "$run/record_examples.txt" 2>&1
say "record_examples exit $?: $(tail -1 "$run/summary.txt")"
grep FAIL "$run/summary.txt" | tee -a "$log"

for how in default all-api; do
	extra=()
	[ $how = all-api ] && extra=(--all-api)
	start=$(date +%s.%N)
	"$K" record --force "${extra[@]}" -o "$run/mlp_$how.kgt" -- python3 bench/torch_step.py --steps 3000 \
		--reps 1 --warmup 10 > "$run/mlp_$how.log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	say "mlp $how: record exit $rc, $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s, $(grep ms_per_step= "$run/mlp_$how.log")"
	"$K" info "$run/mlp_$how.kgt" | grep -E "^(records|packed):|API calls not|cannot leave" | tee -a "$log"
	ls -l "$run/mlp_$how.kgt" | awk '{print "size", $5}' | tee -a "$log"
	"$K" report --no-progress "$run/mlp_$how.kgt" > "$run/mlp_$how.report.txt"
	grep -E "^  (recorded|notes?) |^#[0-9]+ " "$run/mlp_$how.report.txt" | tee -a "$log"
	python3 - "$run/mlp_$how.kgt" <<'PY' | tee -a "$log"
import sys
sys.path.insert(0, "tests/gpu")
import kgt_rows  # a compacted trace as rows
db = kgt_rows.connect(sys.argv[1])
rows = db.execute("select s.text, count(*) from api_calls a join strings s on s.id = a.name "
                  "group by 1 order by 2 desc limit 8").fetchall()
print("  top API calls:", ", ".join("%s %d" % r for r in rows))
PY
done
"$K" report --json --no-progress "$run/mlp_default.kgt" | python3 -c 'import json,sys; print("default findings:", [f["rule"] for f in json.load(sys.stdin)["findings"]])' | tee -a "$log"
"$K" report --json --no-progress "$run/mlp_all-api.kgt" | python3 -c 'import json,sys; print("all-api findings:", [f["rule"] for f in json.load(sys.stdin)["findings"]])' | tee -a "$log"

bench/overhead.sh -n 3 -w torch_step,torch_tiny,launch_loop \
	-c untraced,kgantt-full,kgantt-full-all-api,torch-profiler -t 330 -o "$run/overhead" \
	> "$run/overhead.log" 2>&1
say "overhead exit $?"
cat "$run/overhead/overhead.md" >> "$log" 2> /dev/null
cp "$run/overhead/overhead.md" "$out/overhead.md" 2> /dev/null
cp "$run/overhead/overhead.csv" "$out/overhead.csv" 2> /dev/null
tar -C "$run" -cJf "$out/batch7_logs.tar.xz" summary.txt record_examples.txt mlp_default.report.txt \
	mlp_all-api.report.txt overhead.log
say done
