# The traces recorded on the H200 by tests/gpu/record_options.sh still pass its checks:
# --delay/--duration window, --capture-range cudaProfilerApi, full mode with --latency off,
# programs ending in abort, _exit and a segfault, a torchrun job of two ranks, a program
# with its own CUPTI subscriber.
. tests/e2e/lib.sh
for s in window_delay_duration capture_range latency_off_every_launch end_abort end__exit \
	end_segfault torchrun_2ranks cupti_first; do
	python3 tests/gpu/check_trace.py "$s" "$(fixture "$s")" || fail "$s"
done
# With --latency off every launch has its call: the report dates all 450 kernels by it
# (profrange launches 450 tiny kernels back to back: 449 gaps), says nothing is sampled
# and counts no kernel as undated.
out=$("$K" report "$(fixture latency_off_every_launch)") || fail "report exit $?"
grep -q "launch-overhead: GPU 0 .* starves on launches: 449 tiny kernels" <<<"$out" ||
	fail "launch-overhead does not judge all 449 gaps: $(grep launch-overhead <<<"$out")"
! grep -q "sampled: the others\|neither a sampled call" <<<"$out" ||
	fail "the report takes the launches for sampled: $(grep -n 'sampled' <<<"$out")"
