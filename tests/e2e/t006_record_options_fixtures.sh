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
# and counts no kernel as undated. Launch overhead judges every gap but those longer than
# 10 µs and 10 times the median gap (docs/rules.md, launch_gap_spread), counted here from
# the kernels' rows: two, of 58.7 and 108.6 µs where the median is 4.1 µs.
want=$(python3 - "$(fixture latency_off_every_launch)" <<'PY'
import sys
sys.path[:0] = ["tests/gpu", "tests/tools"]
import kgt_rows
from launch_gaps import judged_gaps
k = kgt_rows.connect(sys.argv[1]).execute("SELECT start, end FROM kernels ORDER BY start, end")
print(len(judged_gaps([(s, e, True, False) for s, e in k])[0]))
PY
) || fail "the gaps of latency_off_every_launch"
[ "$want" = 447 ] || fail "latency_off_every_launch: $want gaps to judge, 447 counted when written"
out=$("$K" report "$(fixture latency_off_every_launch)") || fail "report exit $?"
grep -q "launch-overhead: GPU 0 .* starves on launches: $want tiny kernels" <<<"$out" ||
	fail "launch-overhead does not judge the $want gaps: $(grep launch-overhead <<<"$out")"
! grep -q "sampled: the others\|neither a sampled call" <<<"$out" ||
	fail "the report takes the launches for sampled: $(grep -n 'sampled' <<<"$out")"
