#!/usr/bin/env bash
# Call stacks on a GPU (issue: name the line of code behind every wait). Records, with
# kgantt record's default --stacks waits:
#   - examples/syncs bad and fixed (a cudaStreamSynchronize planted in a helper), the same
#     program stripped of its symbols, and built without unwind tables (partial stacks);
#   - examples/torch_cnn.py bad and fixed (pageable DataLoader batches, loss.item() every
#     step), and the same program under torch.profiler, with and without with_stack;
#   - tests/gpu/py_threads.py: four Python threads calling CUDA at once;
# then reports each with --sites, and packs the traces into OUTDIR/stacks_traces.tar.xz.
#   tests/gpu/stacks_h200.sh OUTDIR [quick]
set -u
out=${1:?usage: stacks_h200.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
K=$PWD/build/kgantt
run=/tmp/kgantt-stacks-run
rm -rf "$run"
mkdir -p "$run"
log=$out/stacks.txt
say() { echo "$*" | tee -a "$log"; }
rec() { # name, then the program and its arguments
	local name=$1
	shift
	local t0 t1
	t0=$(date +%s.%N)
	timeout 300 "$K" record --force -o "$run/$name.kgt" -- "$@" > "$run/$name.out" 2> "$run/$name.err"
	local rc=$?
	t1=$(date +%s.%N)
	say "$name: record exit $rc in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; $(grep -h -E 'ms for|syncs (bad|fixed)|py_threads' "$run/$name.out" "$run/$name.err" | head -2 | tr '\n' ' ')"
	grep -h "kgantt\[" "$run/$name.err" | grep -v recording | head -5 | tee -a "$log"
	timeout 120 "$K" report --no-progress --sites "$run/$name.kgt" > "$run/$name.report.txt" 2>&1
	grep -E "^  stacks|^#[0-9]+ |^   where|^              [0-9]+% " "$run/$name.report.txt" | head -24 | tee -a "$log"
	sed -n '/^Call sites/,$p' "$run/$name.report.txt" | head -12 | tee -a "$log"
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)' | tee -a "$log"

rec syncs_bad build/examples/syncs bad
rec syncs_fixed build/examples/syncs fixed
rec syncs_stripped build/examples/syncs_stripped bad
rec syncs_nounwind build/examples/syncs_nounwind bad
rec torch_cnn_bad python3 examples/torch_cnn.py bad
rec torch_cnn_fixed python3 examples/torch_cnn.py fixed
rec py_threads python3 tests/gpu/py_threads.py

for s in "" --with-stack; do
	name=torch_cnn_bad_profiler${s:+_stack}
	timeout 300 python3 examples/torch_cnn.py bad --steps 20 --profile "$run/$name.json.gz" $s \
		> "$run/$name.out" 2>&1
	say "$name: exit $? $(ls -l "$run/$name.json.gz" 2> /dev/null | awk '{print $5}') bytes"
	timeout 120 "$K" report --no-progress --sites "$run/$name.json.gz" > "$run/$name.report.txt" 2>&1
	grep -E "^  stacks|^#[0-9]+ |^   where|^              [0-9]+% " "$run/$name.report.txt" | head -16 | tee -a "$log"
done

# where each planted sync really is, as the trace stores it
python3 - "$run/syncs_bad.kgt" "$run/torch_cnn_bad.kgt" <<'PY' | tee -a "$log"
import sys
sys.path.insert(0, "tests/gpu")
import kgt_rows  # a compacted trace as rows
for path in sys.argv[1:]:
    db = kgt_rows.connect(path)
    print(path)
    try:
        print("  stacks", db.execute("select count(*) from stacks").fetchone()[0],
              "api_stacks", db.execute("select count(*) from api_stacks").fetchone()[0],
              "frames", db.execute("select count(*) from stack_frames").fetchone()[0])
        row = db.execute("select x.stack from api_calls a join strings n on n.id = a.name "
                         "join api_stacks x on x.process = a.process and x.correlation = a.correlation "
                         "where n.text like 'cudaStreamSynchronize%' limit 1 offset 20").fetchone()
        if row:
            for f in db.execute("select depth, kind, function, file, line, module from call_stacks "
                                "where api_id = (select a.id from api_calls a join api_stacks x on "
                                "x.process = a.process and x.correlation = a.correlation "
                                "where x.stack = ? limit 1) order by depth", row):
                print("   ", f)
        for r in db.execute("select path, symbols from modules where symbols is not null"):
            print("  module", r)
        for r in db.execute("select * from stack_settings"):
            print("  settings", r)
    except Exception as e:
        print("  error", e)
PY

# the cost of stacks, first look: the launch loop and the tiny-op loop, each way
for i in 1 2 3; do
	for how in off waits; do
		t=$( { /usr/bin/time -f %e "$K" record --force -q --stacks $how -o "$run/ll_$how.kgt" -- \
			build/bench/launch_loop > "$run/ll_$how.out"; } 2>&1 | tail -1)
		say "launch_loop stacks=$how run $i: $(grep -h -o 'us_per_launch=[0-9.]*' "$run/ll_$how.out" | head -1) wall ${t}s"
	done
done
build/bench/launch_loop | grep -o 'us_per_launch=[0-9.]*' | sed 's/^/launch_loop untraced: /' | tee -a "$log"

ls -la "$run" > "$out/stacks_files.txt"
tar -C "$run" -cJf "$out/stacks_traces.tar.xz" --exclude='ll_*' --exclude='*.out' . 2> /dev/null
ls -la "$out" | tee -a "$log"
say done
