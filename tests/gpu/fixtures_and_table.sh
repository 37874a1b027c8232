#!/usr/bin/env bash
# One device call for a session whose machines are scarce: the launch hook's fixtures
# recorded again (hook_check.sh, its cost rounds cut to 10 s), then issue 26's table
# (the five configurations, FLOOR=0) in the time left of SECONDS (585 unless set).
#   tests/gpu/fixtures_and_table.sh OUTDIR [SECONDS]
#   OUTDIR/hook.tgz (hook_check's all.tgz), OUTDIR/table.tgz, OUTDIR/log.txt
set -u
out=${1:?usage: fixtures_and_table.sh OUTDIR [SECONDS]}
budget=${2:-585}
t0=$SECONDS
w=$(mktemp -d)
mkdir -p "$w/hook" "$w/t"
tests/gpu/hook_check.sh "$w/hook" 10 > "$out/log.txt" 2>&1
echo "hook_check: exit $? after $((SECONDS - t0)) s" | tee -a "$out/log.txt"
mv "$w/hook/all.tgz" "$out/hook.tgz"
left=$((budget - (SECONDS - t0)))
FLOOR=0 ROUNDS=7 tests/gpu/overhead_table.sh "$w/t" "$left" >> "$out/log.txt" 2>&1
echo "table: exit $? after $((SECONDS - t0)) s, $left s given" | tee -a "$out/log.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$out/log.txt"
tar -C "$w" -czf "$out/table.tgz" t
cat "$w/t/paired.md"
