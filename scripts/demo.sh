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
	"$K" record --force -o "$out/copies_bad.kgt" -- build/examples/copies bad
else
	echo "== no GPU here: using the trace of examples/copies.cu that kgantt record wrote on an"
	echo "   NVIDIA H200 (tests/fixtures/h200/current: the recorder as it is now)"
	xz -dc tests/fixtures/h200/current/copies_bad.kgt.xz > "$out/copies_bad.kgt"
fi
echo
"$K" report --no-progress "$out/copies_bad.kgt" || [ $? -eq 3 ]
"$K" plot "$out/copies_bad.kgt" -o "$out/copies_bad.png"
"$K" view "$out/copies_bad.kgt" -o "$out/copies_bad.html"
echo
echo "The chart:         $out/copies_bad.png"
echo "The timeline:      $out/copies_bad.html (open it in a browser; no network needed)"
echo "The trace:         $out/copies_bad.kgt (SQLite; docs/trace-format.md describes it; for"
echo "                   plain SQL rows: $K export --format sqlite $out/copies_bad.kgt -o rows.db)"
