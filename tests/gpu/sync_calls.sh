#!/usr/bin/env bash
# Sync records from the API callbacks (full mode's default, src/recorder/sync_calls.h)
# against CUPTI's SYNCHRONIZATION records, on programs that synchronise every way
# (tests/gpu/sync_programs.py: PyTorch's runtime calls, the driver API through ctypes) and
# the syncs example: each recorded three times (both sources; CUPTI's only; the calls'
# only), compared by tests/gpu/sync_calls.py; and the report of CUPTI's and the calls'
# traces side by side (their findings must be the same).
#   tests/gpu/sync_calls.sh OUTDIR            OUTDIR/summary.txt, OUTDIR/sync_calls.tar
set -u
out=${1:?usage: sync_calls.sh OUTDIR}
export LD_LIBRARY_PATH=$PWD/build/devlib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
K=build/kgantt
work=$(mktemp -d)
mkdir -p "$out"
run() { # name -- command...
	local name=$1
	shift 2
	KGANTT_DEV_SYNC_KIND=2 "$K" record --force -o "$work/${name}_both.kgt" -- "$@" > "$work/${name}_both.log" 2>&1
	KGANTT_DEV_SYNC_KIND=1 "$K" record --force -o "$work/${name}_cupti.kgt" -- "$@" > "$work/${name}_cupti.log" 2>&1
	"$K" record --force -o "$work/${name}_calls.kgt" -- "$@" > "$work/${name}_calls.log" 2>&1
	{ echo "== $name"
	  python3 tests/gpu/sync_calls.py "$work/${name}_both.kgt" "$work/${name}_cupti.kgt" "$work/${name}_calls.kgt" 2>&1
	  for s in cupti calls; do
		"$K" report --no-progress "$work/${name}_$s.kgt" 2>&1 | grep -E '^#[0-9]+ \[' | sed "s/^/  $s: /"
	  done; } >> "$out/summary.txt"
}
run syncs_bad -- build/examples/syncs bad
run torch -- python3 tests/gpu/sync_programs.py torch
run driver -- python3 tests/gpu/sync_programs.py driver
cat "$out/summary.txt"
xz -T0 "$work"/*.kgt
tar -C "$work" -cf "$out/sync_calls.tar" .
