#!/usr/bin/env bash
# Third-party programs recorded by full mode on the GPU machine, and what tracing costs a
# transformers decode loop (tokens a second, untraced / kernels mode / full mode, paired
# by round, order rotated).
#   tests/gpu/thirdparty_record.sh OUTDIR [ROUNDS]
#   OUTDIR/NAME.kgt, NAME.out (the program's output), NAME.report (kgantt report),
#   NAME.json (report --json); OUTDIR/decode.csv (config,round,tokens_per_s);
#   OUTDIR/summary.txt
set -u
out=${1:?usage: thirdparty_record.sh OUTDIR [ROUNDS]}
rounds=${2:-5}
. tests/gpu/record_programs.sh

record cupy_loop 120 python3 tests/gpu/cupy_loop.py --iters 300
record lightning_train 180 python3 tests/gpu/lightning_train.py --steps 100
record compile_step 240 python3 tests/gpu/compile_step.py --steps 40
record jax_loop 120 python3 tests/gpu/jax_loop.py --steps 200

echo config,round,tokens_per_s > "$out/decode.csv"
configs=(untraced kernels full)
for r in $(seq 1 "$rounds"); do
	for i in 0 1 2; do
		c=${configs[$(((i + r) % 3))]}
		cmd=(python3 tests/gpu/hf_decode.py --tokens 48)
		case $c in
		kernels) cmd=("$K" record --force --mode kernels -o /tmp/decode.kgt -- "${cmd[@]}") ;;
		full) cmd=("$K" record --force -o /tmp/decode.kgt -- "${cmd[@]}") ;;
		esac
		tps=$(timeout 120 "${cmd[@]}" 2>/dev/null | grep -o '"tokens_per_s": [0-9.]*' | cut -d' ' -f2)
		echo "$c,$r,${tps:-NA}" >> "$out/decode.csv"
	done
done
python3 - "$out/decode.csv" <<'PY' | tee -a "$log"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    if r["tokens_per_s"] != "NA":
        by.setdefault(r["round"], {})[r["config"]] = float(r["tokens_per_s"])
for c in ("untraced", "kernels", "full"):
    v = [d[c] for d in by.values() if c in d]
    print("decode %s: median %.2f tokens/s (%.2f-%.2f, %d runs)" % (c, statistics.median(v), min(v), max(v), len(v)))
for a, b in (("full", "untraced"), ("full", "kernels"), ("kernels", "untraced")):
    q = [d[b] / d[a] for d in by.values() if a in d and b in d]  # time ratio = inverse rate
    print("time %s/%s: median %.3fx (%.3f-%.3f, %d rounds)" % (a, b, statistics.median(q), min(q), max(q), len(q)))
PY
