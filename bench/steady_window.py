#!/usr/bin/env python3
"""GPU busy time, idle gaps and queue wait in the last SECONDS of kgantt traces.

For a benchmark's timed region (the end of the run): was the GPU kept fed, and how far
ahead of it did the host run?  Used to compare a slow run of a benchmark with a fast one
(docs/results/recorder-cost-h200.md, "the GPT step's two speeds").

    bench/steady_window.py [-s SECONDS] [-k KGANTT] TRACE.kgt...

For each trace, over the kernels that start in its last SECONDS (default 1.3):
  span, busy    first start to last end; the union of the kernels' intervals
  gaps          idle gaps of 20 µs or more between them: count and total
  queue wait    median of submitted - queued: how long a kernel sat in the stream's
                software queue, i.e. how far ahead of the GPU the host had launched it
  launches      median duration of the three most frequent API functions in the window
The trace is read through `kgantt export --format sqlite` (a temporary file).
"""
import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile


def window_figures(db, seconds):
    c = sqlite3.connect(db)
    ks = c.execute("select start, end, queued, submitted from kernels order by start").fetchall()
    if not ks:
        return None
    t0 = max(e for _, e, _, _ in ks) - int(seconds * 1e9)
    w = [k for k in ks if k[0] >= t0]
    busy, gaps, cur_s, cur_e = 0, [], None, None
    for s, e, _, _ in w:
        if cur_e is not None and s <= cur_e:
            cur_e = max(cur_e, e)
            continue
        if cur_e is not None:
            busy += cur_e - cur_s
            gaps.append(s - cur_e)
        cur_s, cur_e = s, e
    busy += cur_e - cur_s
    big = [g for g in gaps if g >= 20000]
    waits = [sub - q for _, _, q, sub in w if q and sub]
    # the api view names each call (domain and function)
    launches = []
    for name, n in c.execute("select name, count(*) from api where start >= ? "
                             "group by name order by 2 desc limit 3", (t0,)).fetchall():
        d = [e - s for s, e in c.execute(
            "select start, end from api where start >= ? and name = ?", (t0, name))]
        launches.append((name, n, statistics.median(d)))
    return {
        "kernels": len(w), "span_ms": (w[-1][1] - w[0][0]) / 1e6, "busy_ms": busy / 1e6,
        "gaps": len(big), "gap_ms": sum(big) / 1e6,
        "queue_wait_ms": statistics.median(waits) / 1e6 if waits else None,
        "launches": launches,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-s", "--seconds", type=float, default=1.3)
    p.add_argument("-k", "--kgantt", default=os.environ.get("KGANTT", "build/kgantt"))
    p.add_argument("traces", nargs="+")
    a = p.parse_args()
    status = 0
    for t in a.traces:
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "t.db")
            r = subprocess.run([a.kgantt, "export", "--format", "sqlite", "-o", db, t],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{t}: kgantt export failed: {r.stderr.strip()}", file=sys.stderr)
                status = 1
                continue
            f = window_figures(db, a.seconds)
        if f is None:
            print(f"{t}: no kernels")
            continue
        qw = "-" if f["queue_wait_ms"] is None else "%.2f ms" % f["queue_wait_ms"]
        print("%s: %d kernels, span %.1f ms, busy %.1f ms, %d gaps >= 20 us (%.1f ms), "
              "queue wait p50 %s" % (t, f["kernels"], f["span_ms"], f["busy_ms"], f["gaps"],
                                     f["gap_ms"], qw))
        for name, n, med in f["launches"]:
            print("    %s: %d calls, p50 %.2f us" % (name, n, med / 1e3))
    return status


if __name__ == "__main__":
    sys.exit(main())
