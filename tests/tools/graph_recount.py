#!/usr/bin/env python3
"""What a kgantt trace's CUDA graphs must give, from the trace's rows alone (never from
kgantt's analysis; tests/gpu/kgt_rows.py unpacks a compact trace): its graph launches and
the idle time graph capture must be.

    KGANTT=build/kgantt graph_recount.py TRACE

The GPU's busy time is the union of its kernels, copies and memsets; a gap, the time
between two busy stretches, of 10 us or more; the operation that ends it was issued when
its launch call (same process and correlation) started, else when the driver queued it. A
capture runs from a thread's *StreamBeginCapture call's start to its *StreamEndCapture
call's end, and a *GraphInstantiate* or *GraphUpload call sets a graph up too. A gap whose
next operation was issued after the GPU went idle is graph capture's when the captures
cover at least half of the time from the gap's start to that issue. Prints

    graph_launches N   calls named *GraphLaunch*
    capture_idle NS    the gaps of graph capture, summed"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "gpu"))
import kgt_rows  # noqa: E402

db = kgt_rows.connect(sys.argv[1])
name = dict(db.execute("SELECT id, text FROM strings"))
calls = db.execute("SELECT process, thread, name, start, end, correlation FROM api_calls").fetchall()
issued = {(p, c): s for p, t, n, s, e, c in calls}
spans, open_at = [], {}
for p, t, n, s, e, c in sorted(calls, key=lambda r: r[3]):
    text = name[n]
    if "StreamBeginCapture" in text:
        open_at.setdefault((p, t), s)
    elif "StreamEndCapture" in text and (p, t) in open_at:
        spans.append((open_at.pop((p, t)), e))
    elif "GraphInstantiate" in text or "GraphUpload" in text:
        spans.append((s, e))
ops = sorted(db.execute("SELECT start, end, process, correlation, queued FROM kernels "
                        "UNION ALL SELECT start, end, process, correlation, NULL FROM memsets "
                        "UNION ALL SELECT start, end, process, correlation, NULL FROM memcpys"))
idle, busy_end = 0, None
for s, e, p, c, q in ops:
    if busy_end is not None and s - busy_end >= 10000:
        t = issued.get((p, c), q)
        if t is not None and t > busy_end and \
                2 * sum(max(0, min(b, t) - max(a, busy_end)) for a, b in spans) >= t - busy_end:
            idle += s - busy_end
    busy_end = e if busy_end is None else max(busy_end, e)
print("graph_launches", sum(1 for r in calls if "GraphLaunch" in name[r[2]]))
print("capture_idle", idle)
