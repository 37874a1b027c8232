#!/usr/bin/env python3
"""The GPU's own time between back-to-back kernels of one stream, per trace: what a
recording adds on the GPU side (CUPTI's latency timestamps are suspected of adding about a
microsecond per kernel there: the GPT step, which the host leads by milliseconds, runs
1.02-1.05x slower with them; docs/results/full-mode-pooled-h200.md).

    bench/gpu_gaps.py TRACE...      (KGANTT: the kgantt binary, for compact traces)

A gap is the next kernel's start less this one's end on the same stream, kept when it is
under MAX_GAP_NS (longer ones wait for the host or a sync, not for the GPU) and, where
the trace has queued times, when the next kernel was queued at least LEAD_NS before this
one ended (the GPU, not the host, set the pace). Prints the gaps' count, p10, p50, p90.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "gpu"))
import kgt_rows  # noqa: E402

MAX_GAP_NS = 20_000
LEAD_NS = 20_000


def gaps(db):
    rows = db.execute("SELECT process, stream, start, end, queued FROM kernels "
                      "WHERE start > 0 AND end >= start ORDER BY process, stream, start").fetchall()
    out = []
    for a, b in zip(rows, rows[1:]):
        if a[:2] != b[:2] or (b[4] and b[4] > a[3] - LEAD_NS):
            continue
        g = b[2] - a[3]
        if 0 <= g < MAX_GAP_NS:
            out.append(g)
    return sorted(out)


def main(paths):
    if not paths:
        sys.exit(__doc__)
    print("| trace | latency timestamps | gaps | p10 ns | p50 ns | p90 ns |")
    print("|---|---|---:|---:|---:|---:|")
    for p in paths:
        db = kgt_rows.connect(p)
        lat = db.execute("SELECT MAX(latency_timestamps) FROM processes").fetchone()[0]
        g = gaps(db)
        if not g:
            print("| %s | %s | 0 | | | |" % (os.path.basename(p), lat))
            continue
        q = lambda f: g[min(len(g) - 1, int(f * len(g)))]
        print("| %s | %s | %d | %d | %d | %d |" % (os.path.basename(p), lat, len(g), q(0.1), q(0.5), q(0.9)))


if __name__ == "__main__":
    main(sys.argv[1:])
