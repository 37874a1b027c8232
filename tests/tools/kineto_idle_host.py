#!/usr/bin/env python3
"""kineto_idle_host.py TRACE.json[.gz] — what the launching thread did while the GPU waited,
recounted from a PyTorch profiler trace's raw events, without kgantt (tests/e2e/t093_host_kineto.sh
checks kgantt's report --json against it).

The GPU's idle gaps: the time between the union of its kernels, copies and memsets, gaps
of 10 µs or more. A gap's launching thread: the thread of the runtime or driver call whose
correlation is that of the first GPU operation after the gap. Its data loading: the union
of that thread's user_annotation events named enumerate(DataLoader)#..., python_function
events of torch/utils/data/ and host operators whose "Call stack" (PyTorch 1.8-1.10 with
with_stack=True) has a frame there, clipped to the gap, less the time the thread spent inside
CUDA calls (that time is the call's). Today's categories are read, and those of PyTorch
1.8-1.10 (kernels as "Kernel", calls as "Runtime", the DataLoader's range as an
"Operator"). Prints one JSON object:

  idle_us, gaps          the gaps, in µs
  data_us, data_share    data loading in them, and its share of the idle time
  first_gap_us           the longest gap (the data set made before the first batch)
  data_share_rest        data loading's share of the idle time without that gap
"""
import gzip
import json
import sys

from spans import union

MIN_GAP_US = 10.0
# the categories of today's PyTorch, then those of PyTorch 1.8-1.10 (Kineto's first
# traces: "Kernel", "Runtime", and the DataLoader's range as an "Operator")
GPU = ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset")
CALLS = ("cuda_runtime", "cuda_driver", "Runtime", "Driver")
ANNOTATIONS = ("user_annotation", "Operator")
OPS = ("cpu_op", "Operator")


def overlap(iv, s, e):
    """Length of the union iv (sorted, disjoint) inside [s, e]."""
    return sum(max(0.0, min(b, e) - max(a, s)) for a, b in iv if b > s and a < e)


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        ev = json.load(f)["traceEvents"]
    gpu, calls_by_corr, calls, data = [], {}, {}, {}
    for e in ev:
        if e.get("ph") != "X" or "dur" not in e:
            continue
        cat, s = e.get("cat"), float(e["ts"])
        iv = (s, s + float(e["dur"]))
        key = (e.get("pid"), e.get("tid"))
        if cat in GPU:
            gpu.append((iv[0], iv[1], e.get("args", {}).get("correlation")))
        elif cat in CALLS:
            calls_by_corr[e.get("args", {}).get("correlation")] = key
            calls.setdefault(key, []).append(iv)
        elif (
            (cat in ANNOTATIONS and e["name"].startswith("enumerate(DataLoader)"))
            or (cat == "python_function" and "torch/utils/data/" in e["name"])
            or (cat in OPS and "torch/utils/data/" in e.get("args", {}).get("Call stack", ""))
        ):
            data.setdefault(key, []).append(iv)
    calls = {k: union(v) for k, v in calls.items()}
    data = {k: union(v) for k, v in data.items()}
    gpu.sort()
    busy_end, gaps = None, []
    for s, e, corr in gpu:
        if busy_end is not None and s - busy_end >= MIN_GAP_US:
            gaps.append((busy_end, s, corr))
        busy_end = e if busy_end is None else max(busy_end, e)
    idle = data_us = 0.0
    per_gap = []
    for s, e, corr in gaps:
        key = calls_by_corr.get(corr)
        d = 0.0
        if key in data:
            d = overlap(data[key], s, e)
            # less the CUDA calls inside data loading inside the gap
            for a, b in data[key]:
                lo, hi = max(a, s), min(b, e)
                if hi > lo:
                    d -= overlap(calls.get(key, []), lo, hi)
        idle += e - s
        data_us += d
        per_gap.append((e - s, d))
    first = max(per_gap) if per_gap else (0.0, 0.0)
    rest = idle - first[0]
    print(
        json.dumps(
            {
                "idle_us": round(idle, 3),
                "gaps": len(gaps),
                "data_us": round(data_us, 3),
                "data_share": data_us / idle if idle else 0.0,
                "first_gap_us": round(first[0], 3),
                "data_share_rest": (data_us - first[1]) / rest if rest else 0.0,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
