#!/usr/bin/env bash
# Hardware samples on a GPU (issue: hardware truth). Records with `kgantt record --hw`:
#   - examples/bound: memory-bound, tensor-core, FMA and 8-block kernels, each alone;
#     also at --hw=20us;
#   - examples/occupancy bad and fixed: achieved against theoretical occupancy;
#   - examples/timeslice bad: two processes on one GPU (one holds the counters, the other
#     is refused and says so);
#   - examples/torch_cnn.py bad and bench/torch_step.py --gpt (a PyTorch training step);
# then `info` and `report` on each, and packs the traces into OUTDIR/hw_traces.tar.xz.
#   tests/gpu/hw_h200.sh OUTDIR
set -u
out=${1:?usage: hw_h200.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
K=$PWD/build/kgantt
run=/tmp/kgantt-hw-run
rm -rf "$run"
mkdir -p "$run" "$out"
log=$out/hw.txt
say() { echo "$*" | tee -a "$log"; }
q() { # trace, SQL (the GPU machine may lack the sqlite3 shell)
	python3 -c 'import sys
sys.path.insert(0, "tests/gpu")
import kgt_rows  # a compacted trace as rows
c = kgt_rows.connect(sys.argv[1])
for stmt in sys.argv[2].split(";"):
    if stmt.strip():
        for row in c.execute(stmt):
            print("|".join("" if v is None else str(v) for v in row))' "$1" "$2"
}
rec() { # name, record options..., --, program and arguments
	local name=$1
	shift
	local t0 t1
	t0=$(date +%s.%N)
	timeout 60 "$K" record --force -o "$run/$name.kgt" "$@" > "$run/$name.out" 2> "$run/$name.err"
	local rc=$?
	t1=$(date +%s.%N)
	say "== $name: record exit $rc in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	grep -h "kgantt\[" "$run/$name.err" | grep -v "^kgantt\[[0-9]*\]: recording" | head -6 | tee -a "$log"
	timeout 120 "$K" info "$run/$name.kgt" > "$run/$name.info.txt" 2>&1
	grep -i "hardware\|samples" "$run/$name.info.txt" | head -4 | tee -a "$log"
	q "$run/$name.kgt" "SELECT 'hw_devices', process, device, interval_ns, chip, state, note, lost_samples FROM hw_devices; SELECT 'hw_metrics', figure, metric FROM hw_metrics; SELECT 'hw_samples', COUNT(*), MIN(end-start), MAX(end-start) FROM hw_samples;" 2>&1 | head -20 | tee -a "$log"
	timeout 120 "$K" report --no-progress "$run/$name.kgt" > "$run/$name.report.txt" 2>&1
	grep -E "hardware|achieved|^#[0-9]+ " "$run/$name.report.txt" | head -30 | tee -a "$log"
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
rec bound --hw -- build/examples/bound
rec bound_20us --hw=20us -- build/examples/bound
rec occupancy_bad --hw -- build/examples/occupancy bad
rec occupancy_fixed --hw -- build/examples/occupancy fixed
rec timeslice_bad --hw -- build/examples/timeslice bad
rec torch_cnn_bad --hw -- python3 examples/torch_cnn.py bad --steps 30
rec torch_gpt --hw -- python3 bench/torch_step.py --gpt --reps 1 --steps 5
# per-kernel figures straight from SQL, as a cross-check of the report's attribution
q "$run/bound.kgt" "SELECT COALESCE(d.text, n.text), COUNT(*), ROUND(AVG(s.sm_active_pct),1), ROUND(AVG(s.occupancy_pct),1), ROUND(AVG(s.dram_peak_pct),1), ROUND(AVG(s.tensor_active_pct),1), ROUND(AVG(s.dram_read_bps)/1e9,1) FROM hw_samples s JOIN kernels k ON k.start <= s.start AND k.end >= s.end LEFT JOIN strings n ON n.id = k.name LEFT JOIN strings d ON d.id = k.demangled GROUP BY 1" 2>&1 | tee -a "$log"
(cd "$run" && tar cf - ./*.kgt ./*.txt ./*.err | xz -6 > "$out/hw_traces.tar.xz")
ls -la "$out" | tee -a "$log"
