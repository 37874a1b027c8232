#!/usr/bin/env bash
# golden.sh OUT [KGANTT]: every command's output on every committed fixture, one file each,
# so that a refactoring can be checked byte for byte against the build before it:
#
#   tests/tools/golden.sh /tmp/before build-old/kgantt
#   tests/tools/golden.sh /tmp/after
#   diff -r /tmp/before /tmp/after
#
# Text reports are written without colour (stdout is a file). Charts are compared through
# their manifests (what was drawn where) and the PNG's bytes; pages through their bytes.
# A command that fails leaves its exit code and stderr in NAME.rc / NAME.err.
set -u
OUT=${1:?usage: golden.sh OUT [KGANTT]}
K=$(realpath "${2:-build/kgantt}")
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
FIX=build/golden-fixtures
mkdir -p "$FIX"

run() { # run NAME CMD...: stdout to OUT/NAME, stderr and exit code beside it when not 0
	local name=$1
	shift
	"$@" > "$OUT/$name" 2> "$OUT/$name.err"
	local rc=$?
	[ $rc -eq 0 ] && rm -f "$OUT/$name.err" || echo "$rc" > "$OUT/$name.rc"
}

traces=()
for x in tests/fixtures/h200/*.kgt.xz tests/fixtures/h200/current/*.kgt.xz; do
	n=${x#tests/fixtures/h200/}
	n=${n%.kgt.xz}
	n=${n//\//_}
	[ -f "$FIX/$n.kgt" ] || xz -dc "$x" > "$FIX/$n.kgt"
	traces+=("$FIX/$n.kgt")
done
for x in tests/fixtures/torch/*.json.gz; do
	traces+=("$x")
done

for t in "${traces[@]}"; do
	n=$(basename "$t")
	n=${n%.kgt}
	n=${n%.json.gz}
	run "$n.report.txt" "$K" report --no-progress --sites "$t"
	run "$n.report.json" "$K" report --no-progress --json --sites "$t"
	run "$n.info.txt" "$K" info "$t"
	run "$n.plot.png" "$K" plot --no-progress "$t" -o "$OUT/$n.png" --manifest
	run "$n.view.txt" "$K" view -q --no-progress "$t" -o "$OUT/$n.html"
done

# the fixed twins' diffs
for pair in copies launches occupancy streams timeslice syncs multigpu torch_cnn current_copies \
	current_launches current_occupancy current_streams current_timeslice; do
	b=$FIX/${pair}_bad.kgt f=$FIX/${pair}_fixed.kgt
	[ -f "$b" ] && [ -f "$f" ] || continue
	run "diff_$pair.txt" "$K" diff "$b" "$f"
	run "diff_$pair.json" "$K" diff --json "$b" "$f"
done
run diff_gpt.txt "$K" diff "$FIX/gpt_full_fast.kgt" "$FIX/gpt_full_slow.kgt"

# jobs: synthetic (deterministic: fixed seeds) and the 2-GPU fixtures
J=build/golden-job
if [ ! -d "$J/job" ]; then
	python3 bench/gen_job.py -o "$J/job" -n 16 -k 2000 --ranks-per-host 4 > /dev/null
	python3 bench/gen_job.py -o "$J/startup" -n 16 -k 2000 --ranks-per-host 4 --startup 2000 > /dev/null
fi
for j in job startup; do
	run "job_$j.txt" "$K" report --no-progress "$J/$j"
	run "job_$j.json" "$K" report --no-progress --json "$J/$j"
	run "job_$j.plot.png" "$K" plot --no-progress "$J/$j" -o "$OUT/job_$j.png"
	run "job_$j.view.txt" "$K" view -q --no-progress "$J/$j" -o "$OUT/job_$j.html"
done
run job_multigpu.txt "$K" report --no-progress "$FIX/multigpu_bad.kgt" "$FIX/multigpu_fixed.kgt"
# the manifests name their chart by the path given: the same whatever OUT is
sed -i "s|$OUT/|OUT/|g" "$OUT"/*.png.json
echo "$(ls "$OUT" | wc -l) files in $OUT"
