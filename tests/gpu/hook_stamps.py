#!/usr/bin/env python3
"""Can the launch hook date every kernel, where CUPTI's latency timestamps date it now?

    hook_stamps.py TRACE STAMPS...

TRACE was recorded with `--mode kernels --latency on` and the launch hook's stand-in
observer keeping every launch (LD_PRELOAD="libkgantt-launch.so libhookprobe.so"
HOOK_PROBE=stamp HOOK_PROBE_OUT=PREFIX: tests/gpu/launch_hook_probe.c), each STAMPS file
that observer's PREFIX.PID. The design under test needs no correlation id: on one stream the
n-th launch the hook saw is the n-th kernel CUPTI recorded there outside a graph (kernels
sorted by correlation id, which CUPTI hands out in launch order). The streams' handles are
paired with CUPTI's stream ids by that order too: a handle goes to the stream whose
launches it fits. Then each kernel's `queued` (the driver's own host time) must fall in
its hooked launch's call, from entry to exit; this prints how many do, how far queued is
from the entry, and every stream whose counts differ (a launch the hook missed).
Exit 1 when under 99 % of the kernels outside graphs are dated within their call."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kgt_rows  # noqa: E402


def read_stamps(path):
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            if line.startswith("#"):
                print(path, line.strip())
                continue
            e, x, stream, fn, tid, ptsz, res = line.split()
            if int(res) != 0:
                continue  # a failed launch queues nothing
            # the per-thread default stream is its own stream on each thread
            key = (stream, tid) if stream in ("0", "2") and int(ptsz) else (stream, None)
            rows.append((int(e), int(x), key))
    return rows


def percentile(v, q):
    return v[min(len(v) - 1, int(q * len(v)))] if v else 0


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    db = kgt_rows.connect(argv[1])
    pids = dict(db.execute("SELECT pid, process FROM processes"))
    ok = total = missed_streams = 0
    offsets = []
    for path in argv[2:]:
        pid = int(path.rsplit(".", 1)[1])
        if pid not in pids:
            print("%s: pid %d recorded no CUDA" % (path, pid))
            continue
        stamps = collections.defaultdict(list)
        for e, x, key in read_stamps(path):
            stamps[key].append((e, x))
        kernels = collections.defaultdict(list)
        for stream, corr, queued in db.execute(
                "SELECT stream, correlation, queued FROM kernels WHERE process = ? AND graph IS "
                "NULL ORDER BY correlation", (pids[pid],)):
            kernels[stream].append(queued)
        taken = set()
        for key, calls in sorted(stamps.items(), key=lambda kv: -len(kv[1])):
            calls.sort()
            best = None
            for stream, queued in kernels.items():
                if stream in taken or not queued or queued[0] is None:
                    continue
                n = min(len(calls), len(queued))
                fit = sum(1 for i in range(0, n, max(1, n // 50))
                          if queued[i] is not None and calls[i][0] <= queued[i] <= calls[i][1])
                if best is None or fit > best[0]:
                    best = (fit, stream)
            if not best or not best[0]:
                print("pid %d: stream handle %s: %d launches, no stream fits" % (pid, key, len(calls)))
                missed_streams += 1
                continue
            stream = best[1]
            taken.add(stream)
            queued = kernels[stream]
            if len(queued) != len(calls):
                print("pid %d: handle %s -> stream %d: %d launches hooked, %d kernels" %
                      (pid, key, stream, len(calls), len(queued)))
                missed_streams += 1
            for (e, x), q in zip(calls, queued):
                if q is None:
                    continue
                if e <= q <= x:
                    ok += 1
                    offsets.append(q - e)
            print("pid %d: handle %s -> stream %d: %d launches" % (pid, key, stream, len(calls)))
        left = [s for s in kernels if s not in taken]
        for s in left:
            print("pid %d: stream %d: %d kernels no hooked launch was matched to" %
                  (pid, s, len(kernels[s])))
        total += sum(len(q) for q in kernels.values())
    offsets.sort()
    print("kernels outside graphs: %d; queued within their hooked call: %d (%.2f %%)" %
          (total, ok, 100.0 * ok / total if total else 0))
    print("queued - call entry, ns: median %d, p10 %d, p90 %d, p99 %d" %
          (percentile(offsets, .5), percentile(offsets, .1), percentile(offsets, .9),
           percentile(offsets, .99)))
    return 0 if total and ok >= 0.99 * total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
