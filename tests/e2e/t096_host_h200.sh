# While the GPU waited, from host samples recorded on an H200 (issue 23) and the steps of
# the same programs (issue 24): tests/fixtures/h200/host, recorded by
# tests/gpu/host_fixtures_h200.sh with record --host-samples=1000. Each report is checked by
# tests/tools/check_host_h200.py against what the program measured of itself or planted:
# the DataLoader's planted collate and logging times, the steps slowed by gc.collect(), the
# C++ program's synchronising function, the JAX loop's 200 steps found without annotations
# and judged without XLA's compiling (which the whole run's report names as the host's).
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
F=tests/fixtures/h200/host
for name in dataloader steps_loop syncs_fp syncs_stripped_host jax_loop; do
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
echo "ok: the host side of the idle findings, as the programs measured it"
