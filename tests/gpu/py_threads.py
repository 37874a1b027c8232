#!/usr/bin/env python3
"""Four Python threads calling CUDA at once, for kgantt record --stacks: each thread does
its own small matmuls and reads a result with .item() (which releases the GIL while it
waits), so the recorder reads Python frames from threads with and without the GIL, at
the same time. Checks every result against the CPU; prints "py_threads ok <n>" and exits 0
only when all are right.

    python3 tests/gpu/py_threads.py [--iters N]
"""
import argparse
import sys
import threading

import torch


def work(k, iters, out):
    torch.manual_seed(k)
    a = torch.randn(256, 256, dtype=torch.float64)
    b = torch.randn(256, 256, dtype=torch.float64)
    want = (a @ b).sum().item()
    ga, gb = a.cuda(), b.cuda()
    got = []
    for _ in range(iters):
        got.append((ga @ gb).sum().item())  # kgantt-site: thread-item
    out[k] = all(abs(g - want) <= 1e-6 * max(1.0, abs(want)) for g in got)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iters", type=int, default=200)
    a = p.parse_args()
    torch.zeros(1, device="cuda")
    out = {}
    threads = [threading.Thread(target=work, args=(k, a.iters, out), name=f"worker{k}")
               for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    ok = len(out) == 4 and all(out.values())
    print(f"py_threads {'ok' if ok else 'FAILED'} {sum(out.values())}/4")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
