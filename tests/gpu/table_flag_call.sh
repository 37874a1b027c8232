#!/usr/bin/env bash
# Issue 26 in one device call, for a session that may get only one: the windows by flag
# against switched on the launch loop, as many rounds as fit in LOOP_S, paired (rounds.sh),
# then the overhead table with kgantt-full-winflag beside full mode (overhead_table.sh).
#   tests/gpu/table_flag_call.sh OUTDIR [LOOP_S [TABLE_S]]
#   OUTDIR/loop.tar, OUTDIR/table.tar, OUTDIR/times.txt: each part packed as it ends
set -u
out=${1:?usage: table_flag_call.sh OUTDIR [LOOP_S [TABLE_S]]}
mkdir -p "$out"
start=$(date +%s)
tests/gpu/rounds.sh "$out/loop" "${2:-90}" launch_loop \
	kgantt-kernels-latency,kgantt-full,kgantt-full-winflag \
	kgantt-full/kgantt-kernels-latency kgantt-full-winflag/kgantt-kernels-latency \
	kgantt-full-winflag/kgantt-full
echo "rounds.sh launch_loop: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/loop.tar" loop && rm -rf "$out/loop"
EXTRA=kgantt-full-winflag tests/gpu/overhead_table.sh "$out/table" "${3:-420}"
echo "overhead_table.sh: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/table.tar" table && rm -rf "$out/table"
