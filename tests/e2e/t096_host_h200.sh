# While the GPU waited, from host samples recorded on an H200 (issue 23) and the steps of
# the same programs (issue 24): tests/fixtures/h200/host, recorded by
# tests/gpu/host_fixtures_h200.sh with record --host-samples=1000. Each report is checked by
# tests/tools/check_host_h200.py against what the program measured of itself or planted:
# the DataLoader's planted collate and logging times, the steps slowed by gc.collect(), the
# C++ program's synchronising function, the JAX loop's 200 steps found without annotations
# and judged without XLA's compiling (which the whole run's report names as the host's), the
# transformers decoder's tokens found as steps and its host in cuDNN's run-time compiling,
# the garbage collector's share of a host-bound loop (tests/gpu/gc_loop.py, recorded with the
# default full mode by a later call: gc.callbacks timed it) with its fix.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
F=tests/fixtures/h200/host
for name in dataloader steps_loop syncs_fp syncs_stripped_host jax_loop hf_decode gc_loop; do
	xz -dc "$F/$name.kgt.xz" > "$WORK/$name.kgt" || fail "$name: cannot decompress"
	"$K" report --json --host --no-progress "$WORK/$name.kgt" > "$WORK/$name.json" ||
		fail "$name: report --json --host"
	"$K" report --json --host --whole --no-progress "$WORK/$name.kgt" > "$WORK/$name.whole.json" ||
		fail "$name: report --json --whole"
	python3 tests/tools/check_host_h200.py "$name" "$WORK/$name.json" "$F/$name.out" \
		"$WORK/$name.whole.json" ||
		fail "$name: tests/tools/check_host_h200.py"
done
# the text report says the same, and the --host tree names the planted function
"$K" report --host --no-progress "$WORK/dataloader.kgt" > "$WORK/dl.txt" || fail "report --host"
grep -q 'while the GPU waited, the thread that launched the next work was' "$WORK/dl.txt" ||
	fail "dataloader: no 'while the GPU waited' section"
grep -q 'in planted_collate_cost' "$WORK/dl.txt" || fail "dataloader: the tree lacks planted_collate_cost"
# for flame graphs: the folded lines add up to the tree's total, a nanosecond a line at
# most apart; speedscope's JSON holds the same weights; no host activity: an error
"$K" export -f folded --no-progress "$WORK/dataloader.kgt" > "$WORK/dl.folded" || fail "export -f folded"
"$K" export -f speedscope --no-progress -o "$WORK/dl.speedscope.json" "$WORK/dataloader.kgt" ||
	fail "export -f speedscope"
python3 - "$WORK/dl.folded" "$WORK/dl.speedscope.json" "$WORK/dataloader.json" <<'PY' || fail "folded/speedscope: $(head -c 300 "$WORK/dl.folded")"
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
total = sum(int(l.rsplit(" ", 1)[1]) for l in lines)
idle = json.load(open(sys.argv[3], encoding="utf-8"))["host"]["idle_ns"]
assert abs(total - idle) <= len(lines), (total, idle)
assert any(l.split(" ")[-2].endswith("planted_collate_cost") or "in planted_collate_cost " in l for l in lines)
assert all(l.count(" ") >= 1 and "\n" not in l for l in lines)
d = json.load(open(sys.argv[2], encoding="utf-8"))
p = d["profiles"][0]
assert d["$schema"].startswith("https://www.speedscope.app/") and p["unit"] == "nanoseconds"
assert sum(p["weights"]) == total and len(p["samples"]) == len(p["weights"]) == len(lines)
assert all(0 <= i < len(d["shared"]["frames"]) for s in p["samples"] for i in s)
PY
expect_error 1 "has no host activity" "$K" export -f folded "$(fixture streams_bad)"
expect_error 2 "--whole is for --format folded" "$K" export -f csv --whole "$WORK/dataloader.kgt"
echo "ok: the host side of the idle findings, as the programs measured it; as folded stacks and speedscope"

# the decoder and its fixed twin (--attention flash), recorded in one run: JIT
# compilation, the first cause the decoder's report names, is what the fix saved
T=$F/hf_decode_twin
for side in cudnn flash; do
	xz -dc "$T/$side.kgt.xz" > "$WORK/twin_$side.kgt" || fail "twin $side: cannot decompress"
	"$K" report --json --host --no-progress "$WORK/twin_$side.kgt" > "$WORK/twin_$side.json" ||
		fail "twin $side: report"
done
"$K" diff --json --no-progress "$WORK/twin_cudnn.kgt" "$WORK/twin_flash.kgt" > "$WORK/twin.diff.json" ||
	fail "twin: diff"
python3 tests/tools/check_twin_h200.py "$WORK/twin_cudnn.json" "$WORK/twin_flash.json" \
	"$T/cudnn.out" "$T/flash.out" "$WORK/twin.diff.json" || fail "twin: tests/tools/check_twin_h200.py"
