#!/usr/bin/env python3
"""What each rank of a bench/gen_job.py job loses in its all-reduces, from the raw kgantt
traces (SQLite) with nothing of kgantt's (tests/e2e/t100_job.sh compares):

    expect_job_wait.py DIR [SKEW_NS]  ->  one JSON object on stdout, by rank

The k-th all-reduce kernel of every rank is one collective (gen_job.py issues them in
the same order on every rank). Times are put on one clock by the traces' realtime
offsets (gen_job.py's hosts), which is exact to the planted NTP error; the last rank's
start is the collective's arrival. Per rank:
  exposed_ns: the union of its all-reduce kernels with no compute kernel (any other
      kernel) running beside it;
  wait_exposed_ns: of that, the part before the last rank arrived, in the collectives
      whose start skew is at least SKEW_NS (500 µs: the straggler rule's);
  after_ns: exposed_ns - wait_exposed_ns: communication after the last rank arrived, not
      overlapped (what overlap could hide);
  compute_free_ns: compute busy time (union) not beside communication.
"""
import json
import os
import sqlite3
import sys

from spans import common, union as spans_union

ALLREDUCE = "AllReduce"


def load(path):
    db = sqlite3.connect(path)
    rank, off = db.execute("SELECT rank, realtime_offset_ns FROM processes").fetchone()
    rows = db.execute("SELECT k.start, k.end, s.text FROM kernels k JOIN strings s "
                      "ON s.id = k.name ORDER BY k.start").fetchall()
    comm = [(a + off, b + off) for a, b, n in rows if ALLREDUCE in n]
    compute = spans_union([(a + off, b + off) for a, b, n in rows if "nccl" not in n])
    return int(rank), comm, compute


def main():
    folder = sys.argv[1]
    skew_ns = int(sys.argv[2]) if len(sys.argv) > 2 else 500_000
    ranks = [load(os.path.join(folder, f)) for f in sorted(os.listdir(folder))
             if f.endswith(".kgt")]
    n = min(len(c) for _, c, _ in ranks)
    wait = {r: [] for r, _, _ in ranks}
    for k in range(n):
        starts = [c[k][0] for _, c, _ in ranks]
        last = max(starts)
        if last - min(starts) < skew_ns:
            continue
        for r, c, _ in ranks:
            s, e = c[k]
            if s < last:
                wait[r].append((s, min(last, e)))
    out = {}
    for r, comm, compute in ranks:
        cu = spans_union(comm)
        exposed = sum(e - s for s, e in cu) - common(cu, compute)
        w = spans_union(wait[r])
        wait_exposed = sum(e - s for s, e in w) - common(w, compute)
        out[str(r)] = {"exposed_ns": exposed, "wait_exposed_ns": wait_exposed,
                       "after_ns": exposed - wait_exposed,
                       "compute_free_ns": sum(e - s for s, e in compute) - common(compute, cu)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
