#!/usr/bin/env python3
"""What one part of full mode costs, measured inside one recording (issue 26).

`KGANTT_DEV_AB=PART` (src/recorder/dev_ab.h) switches a part of full mode off and on in
alternate periods and logs each switch (KGANTT_DEV_AB_LOG). With latency timestamps on,
every kernel says when the host queued it, so on a host-bound program (the launch loop,
tiny PyTorch ops) the time between two kernels' `queued` is the host's time per launch.
Comparing it in the periods with the part on and off, in one process, leaves out the
process-to-process noise that hides a few per cent between runs.

    bench/ab_cost.py TRACE AB_LOG [TRACE AB_LOG ...]   (KGANTT: kgantt binary, for compact traces)

Only intervals between two kernels queued in the same period, neither of them in a launch
window (a sampled launch has its call in the trace; bench/window_cost.py measures those)
unless the part is `all` (the windows are then part of what is switched), none longer than MAX_GAP_US (a sync, the program's own pause), and none in the first
SETTLE_US after a switch (the switch itself) are used. Per trace: the median interval with
the part on and off, their ratio, and the ratio paired by neighbouring periods (each
off period with the on period after it: the median of those ratios and its 95 % interval,
bench/paired.py's): what the part costs a launch while it is on. The ratio of the means
last: a cost paid by few launches (the launch windows' tenth, with `all`) moves the mean,
not the median.
"""
import bisect
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gpu"))
sys.path.insert(0, HERE)
import kgt_rows  # noqa: E402
from paired import median_interval  # noqa: E402
from window_cost import MAX_GAP_US, queued_launches  # noqa: E402

SETTLE_US = 1000.0


def read_log(path):
    """(part, [(time_ns, on)]) from a KGANTT_DEV_AB_LOG file, in time order."""
    part, switches = None, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if len(w) >= 2 and w[0] == "part":
                part = w[1]
            elif len(w) == 2 and w[0] in ("on", "off") and w[1].isdigit():
                switches.append((int(w[1]), w[0] == "on"))
            elif w:
                sys.exit("%s:%d: expected 'part NAME ...', 'on NS' or 'off NS', got %r"
                         % (path, n, line.strip()))
    if part is None or not switches:
        sys.exit("%s: not a KGANTT_DEV_AB_LOG file (no 'part' line or no switch)" % path)
    switches.sort()
    return part, switches


def period_intervals(db, switches, with_windows):
    """{period index: (on, [interval µs])} over the kernels outside launch windows, or over
    every kernel with_windows."""
    sampled, rows = queued_launches(db)
    if with_windows:
        sampled = set()
    times = [t for t, _ in switches]
    periods = {}
    for k, (prev, cur) in enumerate(zip(rows, rows[1:])):
        if prev[0] != cur[0] or k in sampled or k + 1 in sampled:
            continue
        i, j = bisect.bisect_right(times, prev[2]) - 1, bisect.bisect_right(times, cur[2]) - 1
        if i < 0 or i != j or (prev[2] - times[i]) / 1e3 < SETTLE_US:
            continue
        gap = (cur[2] - prev[2]) / 1e3
        if 0 < gap <= MAX_GAP_US:
            periods.setdefault(i, (switches[i][1], []))[1].append(gap)
    return periods


def paired_ratios(periods):
    """on/off for each off period and the on period right after it."""
    ratios = []
    for i in sorted(periods):
        on, xs = periods[i]
        nxt = periods.get(i + 1)
        if not on and nxt and nxt[0] and len(xs) >= 20 and len(nxt[1]) >= 20:
            ratios.append(statistics.median(nxt[1]) / statistics.median(xs))
    return ratios


def main(args):
    if not args or len(args) % 2:
        sys.exit(__doc__)
    print("| trace | part | intervals on / off | median on µs | median off µs | on/off | "
          "paired by period | 95 % interval | periods | mean on/off |")
    print("|---|---|---|---:|---:|---:|---:|---|---:|---:|")
    for trace, log in zip(args[::2], args[1::2]):
        part, switches = read_log(log)
        periods = period_intervals(kgt_rows.connect(trace), switches, part == "all")
        on = [x for o, xs in periods.values() if o for x in xs]
        off = [x for o, xs in periods.values() if not o for x in xs]
        name = os.path.basename(trace)
        if len(on) < 50 or len(off) < 50:
            print("| %s | %s | %d / %d | too few intervals | | | | | | |"
                  % (name, part, len(on), len(off)))
            continue
        mon, moff = statistics.median(on), statistics.median(off)
        ratios = paired_ratios(periods)
        ci = median_interval(ratios) if ratios else None
        print("| %s | %s | %d / %d | %.3f | %.3f | %.3f | %s | %s | %d | %.3f |" % (
            name, part, len(on), len(off), mon, moff, mon / moff,
            "%.3f" % statistics.median(ratios) if ratios else "—",
            "%.3f–%.3f" % ci if ci else "—", len(ratios),
            statistics.mean(on) / statistics.mean(off)))


if __name__ == "__main__":
    main(sys.argv[1:])
