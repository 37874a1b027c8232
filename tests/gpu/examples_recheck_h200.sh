#!/usr/bin/env bash
# Final check with the committed recorder: every example again, and the program with its
# own CUPTI subscriber (whose refusal now ends the spool cleanly).
#   tests/gpu/examples_recheck_h200.sh OUTDIR
set -u
out=${1:?}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
run=/tmp/kgantt-gpu-run4
rm -rf "$run"; mkdir -p "$run/fixtures" "$run/logs"
tests/gpu/record_examples.sh "$run" > "$run/logs/record_examples.txt" 2>&1
echo "examples exit $?"; grep -E "FAIL|passed" "$run/logs/record_examples.txt"
build/kgantt record --force -o "$run/fixtures/cupti_first.kgt" -- build/tests/gpu/cupti_first > "$run/logs/cupti_first.txt" 2>&1
echo "cupti_first record exit $?"; cat "$run/logs/cupti_first.txt"
python3 tests/gpu/check_trace.py cupti_first "$run/fixtures/cupti_first.kgt"
python3 -c "import sqlite3,sys; print('complete =', sqlite3.connect(sys.argv[1]).execute('select complete from processes').fetchone()[0])" "$run/fixtures/cupti_first.kgt"
tar -C "$run" -cJf "$out/batch4.tar.xz" logs fixtures/cupti_first.kgt summary.txt
