#!/usr/bin/env bash
# Issue 26: the windows by flag (KGANTT_DEV_WINDOW_FLAG=1, the launch callbacks left on and a
# closed window's launches passed over), for cost and for what they keep.
#  - cost: tests/gpu/window_switch.sh OUTDIR LOOP_S TINY_S (the floor, switched, by flag,
#    every launch, each domain alone);
#  - what they keep: a transformers decoder recorded in full mode switched and by flag.
#    cuDNN compiles an attention engine per shape at run time, each a new kernel handle
#    launched after a compilation long enough for a window to close: by flag its first
#    launch is recorded (launches_pass_over). OUTDIR/keep.txt: of the cudnn_generated
#    kernels, how many have their launch call in each trace, and the truth.
#   tests/gpu/window_flag.sh OUTDIR [LOOP_S [TINY_S]]     (LOOP_S 0: the decoder only;
#   HOWS="switched flag": those recordings only)
set -u
out=${1:?usage: window_flag.sh OUTDIR [LOOP_S [TINY_S]]}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
mkdir -p "$out/keep"
for how in ${HOWS:-switched flag all}; do
	env=() opts=()
	[ $how = flag ] && env=(KGANTT_DEV_WINDOW_FLAG=1)
	[ $how = all ] && opts=(--all-launches)
	env "${env[@]}" "$K" record --force "${opts[@]}" -o "$out/keep/hf_$how.kgt" -- \
		python3 tests/gpu/hf_decode.py --tokens 24 > "$out/keep/hf_$how.log" 2>&1 ||
		echo "FAIL: hf_$how: record exit $?" >> "$out/keep.txt"
	"$K" export -q -f sqlite -o "$out/keep/hf_$how.db" "$out/keep/hf_$how.kgt"
	python3 - "$how" "$out/keep/hf_$how.db" >> "$out/keep.txt" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[2])
q = ("SELECT COUNT(*), COUNT(a.id) FROM kernels k JOIN strings s ON s.id = k.name "
     "LEFT JOIN api_calls a ON a.process = k.process AND a.correlation = k.correlation "
     "WHERE s.text LIKE 'cudnn_generated%'")
n, called = db.execute(q).fetchone()
total, calls = db.execute("SELECT (SELECT COUNT(*) FROM kernels), (SELECT COUNT(*) FROM api_calls)").fetchone()
print("%-8s cudnn_generated kernels %d, with their launch call %d; kernels %d, API calls %d"
      % (sys.argv[1], n, called, total, calls))
PY
	"$K" report "$out/keep/hf_$how.kgt" > "$out/keep/hf_$how.txt" 2>&1
	rm -f "$out/keep/hf_$how.db"
	xz -T0 "$out/keep/hf_$how.kgt"
done
[ "${2:-200}" = 0 ] || tests/gpu/window_switch.sh "$out" "${2:-200}" "${3:-100}"
