#!/usr/bin/env python3
"""What the straggler and exposed-communication rules of one trace holding several GPUs
must find, from the raw kgantt traces (SQLite) of a bench/gen_job.py job on one host, with
nothing of kgantt's (tests/e2e/t105_mgpu_wait.sh merges the traces into one and compares):

    expect_mgpu_wait.py DIR [SKEW_NS [SPREAD_NS]]  ->  one JSON object on stdout

The ranks share one host's clock, so the times are the raw ones. A GPU's k-th all-reduce
kernel is its part of collective k when the k-th kernels' ends lie within SPREAD_NS
(1 ms) of each other; a collective whose start skew (last start - first start) is at
least SKEW_NS (500 µs) is waited for: every GPU that started before the last waited from
its own start to the last's start.
  straggler_wait_ns: those waits, summed over the GPUs and collectives;
  straggler_delay_ns: the last start - the next-to-last start, summed over the collectives
      waited for (the wall clock, as the job counts it: the finding's gain);
  collectives: the collectives matched; late_pid: the pid of the GPU last most often;
per GPU (by its process's pid):
  exposed_ns: the union of its all-reduces with no compute kernel (any other) beside it;
  wait_exposed_ns: of each wait [start, min(last start, end)], the time no compute
      kernel ran beside it, summed: exact, from the kernels;
  wait_spread_ns: the same taken as spread evenly over each kernel (the job report's
      estimate), to show that this test tells them apart;
  compute_free_ns: compute busy time (union) not beside communication;
  gain_ns: min(exposed - wait_exposed, compute_free), at least 0.
span_ns: first kernel start to last kernel end of the whole trace.
"""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from expect_job_wait import common, spans_union  # noqa: E402

ALLREDUCE = "AllReduce"


def load(path):
    db = sqlite3.connect(path)
    pid, = db.execute("SELECT pid FROM processes").fetchone()
    rows = db.execute("SELECT k.start, k.end, s.text FROM kernels k JOIN strings s "
                      "ON s.id = k.name ORDER BY k.start").fetchall()
    comm = [(a, b) for a, b, n in rows if ALLREDUCE in n]
    compute = spans_union([(a, b) for a, b, n in rows if "nccl" not in n])
    return {"pid": pid, "comm": comm, "compute": compute,
            "first": rows[0][0], "last": max(b for _, b, _ in rows)}


def uncovered(s, e, spans):
    return max(0, e - s) - common([[s, e]], spans) if e > s else 0


def main():
    folder = sys.argv[1]
    skew_ns = int(sys.argv[2]) if len(sys.argv) > 2 else 500_000
    spread_ns = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
    gpus = [load(os.path.join(folder, f)) for f in sorted(os.listdir(folder))
            if f.endswith(".kgt")]
    for g in gpus:
        g["wait_exposed"] = g["wait_spread"] = 0
    total, delay, matched, late = 0, 0, 0, {}
    for k in range(min(len(g["comm"]) for g in gpus)):
        parts = [g["comm"][k] for g in gpus]
        if max(e for _, e in parts) - min(e for _, e in parts) > spread_ns:
            continue
        matched += 1
        starts = [s for s, _ in parts]
        last = max(starts)
        if last - min(starts) < skew_ns:
            continue
        who = starts.index(last)
        late[who] = late.get(who, 0) + 1
        delay += last - sorted(starts)[-2]
        for i, (g, (s, e)) in enumerate(zip(gpus, parts)):
            if i == who:
                continue
            total += last - s
            until = min(last, e)
            g["wait_exposed"] += uncovered(s, until, g["compute"])
            # the estimate: the kernel's exposed time spread evenly over it
            g["wait_spread"] += uncovered(s, e, g["compute"]) * (until - s) / (e - s)
    out = {"straggler_wait_ns": total, "straggler_delay_ns": delay, "collectives": matched,
           "late_pid": gpus[max(late, key=late.get)]["pid"] if late else None,
           "span_ns": max(g["last"] for g in gpus) - min(g["first"] for g in gpus),
           "gpus": {}}
    for g in gpus:
        cu = spans_union(g["comm"])
        exposed = sum(e - s for s, e in cu) - common(cu, g["compute"])
        free = sum(e - s for s, e in g["compute"]) - common(g["compute"], cu)
        out["gpus"][str(g["pid"])] = {
            "exposed_ns": exposed, "wait_exposed_ns": g["wait_exposed"],
            "wait_spread_ns": round(g["wait_spread"]), "compute_free_ns": free,
            "gain_ns": max(0, min(exposed - g["wait_exposed"], free))}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
