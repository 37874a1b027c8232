# The traces recorded on the H200 by tests/gpu/record_options.sh still pass its checks:
# --delay/--duration window, --capture-range cudaProfilerApi, programs ending in abort,
# _exit and a segfault, a torchrun job of two ranks, a program with its own CUPTI subscriber.
. tests/e2e/lib.sh
for s in window_delay_duration capture_range end_abort end__exit end_segfault torchrun_2ranks cupti_first; do
	python3 tests/gpu/check_trace.py "$s" "$(fixture "$s")" || fail "$s"
done
