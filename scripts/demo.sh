#!/usr/bin/env bash
# make demo: record the bundled example where a GPU is present, otherwise use the trace
# of the same example recorded on an NVIDIA H200, and show what it holds.
set -eu
cd "$(dirname "$0")/.."
K=build/kgantt
out=build/demo
mkdir -p "$out"
if nvidia-smi -L >/dev/null 2>&1; then
	echo "== a GPU is here: recording examples/copies.cu (pageable copies that block the host)"
	"$K" record -f -o "$out/copies_bad.kgt" -- build/examples/copies bad
else
	echo "== no GPU here: using the trace of examples/copies.cu recorded on an NVIDIA H200"
	xz -dc tests/fixtures/h200/copies_bad.kgt.xz > "$out/copies_bad.kgt"
fi
echo
"$K" info "$out/copies_bad.kgt"
echo
echo "== the copies and the kernels, in their phases (ns):"
sqlite3 -header -column "$out/copies_bad.kgt" \
	"SELECT kind, src, dst, bytes/1048576 AS MiB, duration_ns/1000 AS us, async FROM copies LIMIT 6"
sqlite3 -header -column "$out/copies_bad.kgt" \
	"SELECT name, launch_latency_ns AS launch_ns, queue_wait_ns AS queue_ns,
	        duration_ns/1000 AS exec_us, blocks, threads FROM kernel_phases LIMIT 4"
echo
echo "The trace is $out/copies_bad.kgt (SQLite; docs/trace-format.md describes it)."
