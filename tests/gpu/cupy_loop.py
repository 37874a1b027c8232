"""A CuPy program as its users write one: a custom elementwise kernel (compiled by NVRTC
on first use) and a handful of small array operations per iteration, with the result's
norm brought back to the host each iteration. A third-party loop to record with kgantt.

    python3 cupy_loop.py [--iters N] [--size N] [--warmup N]

Prints one JSON line: iterations, seconds, iterations a second, and the median iteration
(median_iter_us), all of the timed iterations, after --warmup untimed ones (the first
compiles the kernel and imports SciPy for the norm: hundreds of ms, once).
"""
import argparse
import json
import statistics
import time

import cupy as cp

# Compiled at run time on its first call: JIT time before the steady loop.
SOFT_CLIP = cp.ElementwiseKernel("float32 x, float32 c", "float32 y",
                                 "y = c * tanhf(x / c)", "soft_clip")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--size", type=int, default=1 << 16)
    ap.add_argument("--warmup", type=int, default=0)
    a = ap.parse_args()
    rng = cp.random.default_rng(0)
    x = rng.standard_normal(a.size, dtype=cp.float32)
    w = rng.standard_normal(a.size, dtype=cp.float32)
    total = 0.0

    def iteration(x):
        y = SOFT_CLIP(x * w + 1.0, cp.float32(3.0))
        x = y / (cp.abs(y).max() + 1e-6)
        return x, float(cp.linalg.norm(x))  # a copy to the host every iteration

    for _ in range(a.warmup):
        x, _ = iteration(x)
    t0 = time.perf_counter()
    times = []
    for _ in range(a.iters):
        t = time.perf_counter()
        x, norm = iteration(x)
        total += norm
        times.append(time.perf_counter() - t)
    cp.cuda.Device().synchronize()
    dt = time.perf_counter() - t0
    print(json.dumps({"iterations": a.iters, "seconds": dt, "iterations_per_s": a.iters / dt,
                      "median_iter_us": statistics.median(times) * 1e6,
                      "checksum": round(total, 3)}))


if __name__ == "__main__":
    main()
