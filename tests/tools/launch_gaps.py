"""The gaps launch-overhead judges (docs/rules.md), from a source's raw events, for the
scripts that recount the rule without kgantt (expect_launch_overhead.py over Kineto's
events, tests/gpu/check_stack_times.py over a kgantt trace's rows).

On one GPU, in order of (start, end): the idle gap before a kernel after everything before
it ended, when it and the op before it are tiny kernels (under tiny_kernel_ns, 20 us). A
gap before a kernel whose launch call took slow_launch_call_ns (1 ms) or more is the
loading of its code, not launch overhead; a gap longer than both sync_gap_ns (10 us) and
launch_gap_spread (10) times the upper median of the others is the host doing something
else (host-bound's)."""

TINY_NS, SYNC_GAP_NS, SPREAD = 20000, 10000, 10  # tiny_kernel_ns, sync_gap_ns, launch_gap_spread
SLOW_NS = 1000000                               # slow_launch_call_ns


def judged_gaps(ops, unit_ns=1):
    """ops: (start, end, is_kernel, slow_call) in order of (start, end), times in units of
    unit_ns nanoseconds. Returns (counted, too_long, slow): lists of (from, to, i), the gap
    before ops[i], those the rule counts, those too long to be launch overhead, and those
    after a slow launch call."""
    tiny, sync_gap = TINY_NS / unit_ns, SYNC_GAP_NS / unit_ns
    busy_end, gaps, slow = None, [], []
    for i, (s, e, is_kernel, slow_call) in enumerate(ops):
        if i and ops[i - 1][2] and is_kernel and ops[i - 1][1] - ops[i - 1][0] < tiny \
                and e - s < tiny and s > busy_end:
            (slow if slow_call else gaps).append((busy_end, s, i))
        busy_end = e if busy_end is None else max(busy_end, e)
    lens = sorted(b - a for a, b, _ in gaps)
    limit = max(sync_gap, SPREAD * lens[len(lens) // 2]) if lens else sync_gap
    return ([g for g in gaps if g[1] - g[0] <= limit], [g for g in gaps if g[1] - g[0] > limit],
            slow)
