#!/usr/bin/env bash
# Issue 26's table with the launch hook (src/preload/launch_hook.h) as full mode's default,
# CUPTI's launch windows beside it (kgantt-full-cbwindows), after a JAX loop recorded as a
# fixture (XLA's autotuner unloads modules: the hook forgets its kernels then).
#   tests/gpu/hook_table_call.sh OUTDIR [TABLE_S]
#   OUTDIR/jax_hooked.kgt.xz, jax.report, OUTDIR/table.tar, times.txt
set -u
out=${1:?usage: hook_table_call.sh OUTDIR [TABLE_S]}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
start=$(date +%s)
timeout 90 build/kgantt record --force -o "$out/jax_hooked.kgt" -- python3 tests/gpu/jax_loop.py \
	--steps 50 > "$out/jax.out" 2>&1
build/kgantt report --no-progress "$out/jax_hooked.kgt" > "$out/jax.report" 2>&1
xz -T0 "$out/jax_hooked.kgt"
echo "jax: $(($(date +%s) - start)) s" >> "$out/times.txt"
EXTRA=kgantt-full-cbwindows tests/gpu/overhead_table.sh "$out/table" "${2:-480}"
echo "table: $(($(date +%s) - start)) s" >> "$out/times.txt"
tar -C "$out" -cf "$out/table.tar" table && rm -rf "$out/table"
