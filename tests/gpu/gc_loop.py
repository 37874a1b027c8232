"""A host-bound PyTorch loop whose host time is partly Python's garbage collector, planted
and measured (issue 23: the collector named as a cause of the GPU's idle time).

Each step launches a few small kernels, then builds cyclic garbage (which sets off the
collector: young collections often, and now and then a full one that walks a large heap
the program keeps) and spends a fixed time in plain Python. The collector's own time is
measured by gc.callbacks, on the samples' clock.

    python3 gc_loop.py [--steps N] [--heap OBJECTS] [--python-ms MS]

Prints one JSON line: the loop's start and end (CLOCK_MONOTONIC_RAW ns), the time inside
the collector (gc_ns) and inside the planted Python work (python_ns), the main thread's id.
"""
import argparse
import gc
import json
import threading
import time

import torch


def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)


class Node:
    def __init__(self):
        self.other = None


def make_cycles(n):
    out = []
    for _ in range(n):
        a, b = Node(), Node()
        a.other, b.other = b, a
        out.append(a)
    return out


def plain_python(ms):
    t0 = time.perf_counter()
    x = 0
    while time.perf_counter() - t0 < ms / 1000:
        x += 1
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--heap", type=int, default=400000)
    ap.add_argument("--python-ms", type=float, default=1.0)
    a = ap.parse_args()
    dev = torch.device("cuda")
    w = torch.randn(256, 256, device=dev)
    x = torch.randn(64, 256, device=dev)
    heap = [[i] for i in range(a.heap)]  # kept: every full collection walks it
    for _ in range(5):
        (x @ w).relu_()
    torch.cuda.synchronize()
    timing = {"gc": 0, "t": 0, "python": 0}

    def on_gc(phase, info):
        if phase == "start":
            timing["t"] = now()
        else:
            timing["gc"] += now() - timing["t"]

    gc.callbacks.append(on_gc)
    start = now()
    for _ in range(a.steps):
        y = (x @ w).relu_()
        y = (y @ w).relu_()
        garbage = make_cycles(3000)
        del garbage
        t = now()
        plain_python(a.python_ms)
        timing["python"] += now() - t
    torch.cuda.synchronize()
    end = now()
    gc.callbacks.remove(on_gc)
    print(json.dumps({"start": start, "end": end, "gc_ns": timing["gc"],
                      "python_ns": timing["python"], "steps": a.steps, "heap": len(heap),
                      "main_tid": threading.get_native_id()}))


if __name__ == "__main__":
    main()
