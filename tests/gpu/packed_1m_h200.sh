#!/usr/bin/env bash
# Packed columns on real traces of a million kernels, recorded on the H200: blocks and
# rows must give the same report; the PyTorch trace is brought back for the benchmark.
#   tests/gpu/packed_1m_h200.sh OUTDIR
set -u
out=${1:?usage: packed_1m_h200.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
run=/tmp/kgantt-gpu-run6
rm -rf "$run"
mkdir -p "$run"
log=$out/batch6.txt
say() { echo "$*" | tee -a "$log"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
json() { "$K" report --json --no-progress "$1" | sed 's|"path": "[^"]*"||'; }

# record NAME CMD...: record, then compare the report from blocks with the report from
# the rows of the same trace (its blocks dropped)
record() {
	local name=$1
	shift
	local t0 t1
	t0=$(now)
	"$K" record --force -o "$run/$name.kgt" -- "$@" > "$run/$name.log" 2>&1
	local rc=$?
	t1=$(now)
	say "$name: record exit $rc in $(secs "$t0" "$t1") s: $*"
	"$K" info "$run/$name.kgt" | grep -E "^(records|packed):" | tee -a "$log"
	cp "$run/$name.kgt" "$run/$name-rows.kgt"
	"$K" pack --drop "$run/$name-rows.kgt"
	json "$run/$name.kgt" > "$run/$name.packed.json"
	json "$run/$name-rows.kgt" > "$run/$name.rows.json"
	if cmp -s "$run/$name.packed.json" "$run/$name.rows.json"; then
		say "$name: same report from blocks and rows"
	else
		say "FAIL $name: reports differ"
		diff "$run/$name.packed.json" "$run/$name.rows.json" | head -20 | tee -a "$log"
	fi
	for f in "$name" "$name-rows"; do
		t0=$(now)
		"$K" report --no-progress "$run/$f.kgt" > "$run/$f.report.txt"
		t1=$(now)
		say "report $f (16-core host): $(secs "$t0" "$t1") s"
	done
}

record launch_1M build/bench/launch_loop -n 1000000 -w 0 -r 1
record torch_mlp python3 bench/torch_step.py --steps 20000 --reps 1 --warmup 10
head -45 "$run/torch_mlp.report.txt" >> "$log"
xz -T0 -6 -c "$run/torch_mlp.kgt" > "$run/torch_mlp.kgt.xz"
ls -l "$run/torch_mlp.kgt" "$run/torch_mlp.kgt.xz" | tee -a "$log"
split -b 15M -d "$run/torch_mlp.kgt.xz" "$out/torch_mlp.kgt.xz.part"
say "done"
