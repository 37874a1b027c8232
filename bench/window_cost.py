#!/usr/bin/env python3
"""What a launch window costs the program, measured inside one full-mode recording.

Full mode turns the kernel launches' callbacks on in windows (src/recorder/launches.h): a
launch inside a window has its API call in the trace, one outside has not. With latency
timestamps on, every kernel says when the host queued it, so on a host-bound program
(the launch loop, tiny PyTorch ops) the time between two kernels' `queued` is what the
host spent per launch. Comparing those intervals inside windows with those outside, in
the same process, leaves out the process-to-process noise that hides a few per cent
between runs (docs/results/recorder-cost-h200.md).

    bench/window_cost.py TRACE...        (KGANTT: the kgantt binary, default build/kgantt)

Per trace: the launches in and out of windows, the median and mean interval of each
(pairs of consecutive kernels both in, or both out; intervals over MAX_GAP_US, a sync or
the program's own pause, left out), and what the windows add to the whole run:
share_in * (median_in / median_out - 1).
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "gpu"))
import kgt_rows  # noqa: E402

MAX_GAP_US = 200.0


# A launch is queued while its call runs; a kernel queued after the call its correlation id
# names had returned was not launched by it (src/model/model.c, FOREIGN_CALL_SLACK_NS).
SLACK_NS = 20000


def queued_launches(db):
    """(the positions in rows of the launches whose call is in the trace, every
    stream-launched kernel's (process, correlation, queued) in queued order)"""
    # (a dict, not an SQL join: an exported trace has no index on the kernels' correlation,
    # and the join took minutes on 200,000 kernels)
    calls = {}
    for p, c, start, end in db.execute("SELECT process, correlation, start, end FROM api_calls "
                                       "WHERE start IS NOT NULL"):
        if (p, c) not in calls or start < calls[p, c][0]:
            calls[p, c] = (start, end)
    rows = db.execute(
        "SELECT process, correlation, queued FROM kernels WHERE queued > 0 "
        "AND (graph IS NULL OR graph = 0) ORDER BY process, queued").fetchall()
    sampled = set()
    for i, (p, c, q) in enumerate(rows):
        call = calls.get((p, c))
        if call and (call[1] is None or q <= call[1] + SLACK_NS):
            sampled.add(i)
    return sampled, rows


def intervals(db):
    sampled, rows = queued_launches(db)
    inside, outside, n_in = [], [], 0
    for i, (prev, cur) in enumerate(zip(rows, rows[1:])):
        if prev[0] != cur[0]:
            continue
        a, b = i in sampled, i + 1 in sampled
        n_in += b
        gap = (cur[2] - prev[2]) / 1e3
        if gap <= 0 or gap > MAX_GAP_US or a != b:
            continue
        (inside if a else outside).append(gap)
    return inside, outside, n_in, len(rows)


def main(paths):
    if not paths:
        sys.exit("usage: bench/window_cost.py TRACE...")
    print("trace | launches | in windows | median in µs | median out µs | in/out | "
          "mean in/out | windows add")
    for p in paths:
        inside, outside, n_in, n = intervals(kgt_rows.connect(p))
        if len(inside) < 10 or len(outside) < 10:
            print("%s | %d | %d | too few intervals in or out of windows"
                  % (os.path.basename(p), n, n_in))
            continue
        mi, mo = statistics.median(inside), statistics.median(outside)
        share = n_in / n if n else 0.0
        print("%s | %d | %.1f %% | %.3f | %.3f | %.3f | %.3f | %.1f %%" % (
            os.path.basename(p), n, 100 * share, mi, mo, mi / mo,
            statistics.mean(inside) / statistics.mean(outside), 100 * share * (mi / mo - 1)))


if __name__ == "__main__":
    main(sys.argv[1:])
