#!/usr/bin/env python3
"""Real launches for the import's pairing by launch order (trace/hooked_import.h), from a
trace and the launch hook probe's kept launches (tests/gpu/hookstamp_h100.sh's v/NAME.kgt
and v/NAME.stamps.PID, recorded in kernels mode with latency timestamps):

    stamps_fixture.py TRACE STAMPS > NAME.launches

writes, times from the trace's first kernel:
    K stream correlation start queued      every kernel outside graphs
    C start end stream tid result          every launch the hook saw
A call's stream is the CUPTI stream id the recorder would ask for its handle
(cuptiGetStreamIdEx): here, the stream whose kernels' queued times fall in the handle's
calls, as tests/gpu/hook_stamps.py finds it. tests/tools/dated_check.py builds a dated
spool from it, without the queued times, and checks the import's pairs against them."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kgt_rows  # noqa: E402
from hook_stamps import read_stamps  # noqa: E402


def main(trace, stamps):
    db = kgt_rows.connect(trace)
    kernels = db.execute("SELECT stream, correlation, start, queued FROM kernels WHERE graph IS "
                         "NULL ORDER BY correlation").fetchall()
    t0 = min(k[2] for k in kernels)
    by_stream = collections.defaultdict(list)
    for s, c, st, q in kernels:
        by_stream[s].append(q)
    calls = []
    with open(stamps) as f:
        next(f)
        for line in f:
            if line.startswith("#"):
                continue
            e, x, stream, fn, tid, ptsz, res = line.split()
            calls.append((int(e), int(x), stream, int(tid), int(ptsz), int(res)))
    handles = collections.defaultdict(list)
    for e, x, stream, tid, ptsz, res in calls:
        if res == 0:
            key = (stream, tid) if stream in ("0", "2") and ptsz else (stream, None)
            handles[key].append((e, x))
    stream_of = {}
    for key, cs in sorted(handles.items(), key=lambda kv: -len(kv[1])):
        cs.sort()
        best = max(((sum(1 for (e, x), q in zip(cs, qs) if q is not None and e <= q <= x), s)
                    for s, qs in by_stream.items() if s not in stream_of.values()),
                   default=(0, None))
        stream_of[key] = best[1]
    out = sys.stdout
    for s, c, st, q in kernels:
        out.write("K %d %d %d %s\n" % (s, c, st - t0, q - t0 if q is not None else "-"))
    for e, x, stream, tid, ptsz, res in sorted(calls):
        key = (stream, tid) if stream in ("0", "2") and ptsz else (stream, None)
        s = stream_of.get(key)
        out.write("C %d %d %s %d %d\n" % (e - t0, x - t0, "-" if s is None else s, tid, res))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
