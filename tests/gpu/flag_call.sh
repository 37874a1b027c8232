#!/usr/bin/env bash
# Issue 26, one device call: the windows by flag against switched (tests/gpu/window_flag.sh:
# cost on the launch loop and tiny ops, paired by round; what the decoder's traces keep),
# then every example and a GPT step recorded by flag (KGANTT_DEV_WINDOW_FLAG=1, what the
# flag as the default records) as fixtures (tests/gpu/api_filter_gpt_h200.sh), compressed.
#   tests/gpu/flag_call.sh OUTDIR [LOOP_S [TINY_S]]
#   OUTDIR/wf.tar (window_flag.sh's folder), OUTDIR/fixtures.tar (the fixtures, *.kgt.xz, and
#   fixtures.txt), OUTDIR/times.txt: each part packed as it ends, so that a call cut short
#   keeps what finished.
set -u
out=${1:?usage: flag_call.sh OUTDIR [LOOP_S [TINY_S]]}
mkdir -p "$out"
start=$(date +%s)
HOWS="switched flag" tests/gpu/window_flag.sh "$out/wf" "${2:-180}" "${3:-90}"
echo "window_flag.sh: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/wf.tar" wf && rm -rf "$out/wf"
KGANTT_DEV_WINDOW_FLAG=1 tests/gpu/api_filter_gpt_h200.sh "$out/check" "$out/fixtures" \
	> "$out/fixtures.txt" 2>&1
echo "api_filter_gpt_h200.sh: exit $?, $(($(date +%s) - start)) s" >> "$out/times.txt"
xz -T0 "$out"/fixtures/*.kgt
mv "$out/fixtures.txt" "$out/fixtures/"; cp "$out/check/summary.txt" "$out/fixtures/check_summary.txt"
tar -C "$out" -cf "$out/fixtures.tar" fixtures && rm -rf "$out/fixtures" "$out/check"
