#!/usr/bin/env python3
"""torch_cnn.py — a small CNN trained from a DataLoader, as many training scripts begin.

    python3 examples/torch_cnn.py [bad|fixed|noitem] [--steps N] [--batch B]
                                  [--profile OUT.json.gz] [--with-stack]

bad    the batches come from pageable memory (DataLoader(pin_memory=False)) and are copied
       with xb.cuda(): a synchronous copy; the loss is read with loss.item() every step.
fixed  pinned batches (pin_memory=True) copied with non_blocking=True, the loss summed on
       the GPU and read once at the end.
noitem as bad, the loss read once at the end: bad against noitem is what loss.item()
       alone costs (tests/gpu/sync_gain_h200.sh).

Each step is an NVTX range and a profiler annotation named "step" (kgantt report --nvtx
step looks at the steps only). The lines kgantt's findings must name carry a
"kgantt-site:" comment (the fixtures' lines: keep them where they are). --profile runs
the same loop under torch.profiler (with_stack=True with --with-stack) and writes its
Chrome trace, gzipped, to OUT. Prints "torch_cnn <mode>: <ms> ms for <N> steps, loss <x>"
on stderr, and a kgantt-expect line for the number of optimizer steps.
"""

import argparse
import gzip
import os
import shutil
import sys
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 64, 3, padding=1)
        self.c2 = nn.Conv2d(64, 128, 3, stride=2, padding=1)
        self.c3 = nn.Conv2d(128, 256, 3, stride=2, padding=1)
        self.fc = nn.Linear(256, 10)

    def forward(self, x):
        x = F.relu(self.c1(x))
        x = F.relu(self.c2(x))
        x = F.relu(self.c3(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def batches(fixed, batch):
    torch.manual_seed(0)
    n = 32 * batch
    data = TensorDataset(torch.randn(n, 3, 32, 32), torch.randint(0, 10, (n,)))
    return DataLoader(data, batch_size=batch, shuffle=True, pin_memory=fixed, drop_last=True)


def train_epoch(model, opt, loader, mode, steps, losses, total):
    for xb, yb in loader:
        # one "step" range per step, for kgantt report --nvtx step and the profiler alike
        with torch.cuda.nvtx.range("step"), torch.profiler.record_function("step"):
            total = train_step(model, opt, xb, yb, mode, losses, total)
        if len(losses) >= steps:
            break
    return total


def train_step(model, opt, xb, yb, mode, losses, total):
    if mode == "fixed":
        xb = xb.to("cuda", non_blocking=True)
        yb = yb.to("cuda", non_blocking=True)
    else:
        xb = xb.cuda()  # kgantt-site: copy
        yb = yb.cuda()
    opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(xb), yb)
    loss.backward()
    opt.step()
    if mode != "bad":
        total += loss.detach()
        losses.append(None)
    else:
        losses.append(loss.item())  # kgantt-site: item
    return total


def train(mode, steps, batch):
    model = Net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = batches(mode == "fixed", batch)
    losses, total = [], torch.zeros((), device="cuda")
    while len(losses) < steps:
        total = train_epoch(model, opt, loader, mode, steps, losses, total)
    last = sum(losses) / steps if mode == "bad" else total.item() / steps
    return last


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", nargs="?", default="bad", choices=["bad", "fixed", "noitem"])
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--profile", metavar="OUT.json.gz")
    p.add_argument("--with-stack", action="store_true")
    a = p.parse_args()
    train(a.mode, a.warmup, a.batch)  # cuDNN autotuning, allocator warm-up
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    if a.profile:
        from torch.profiler import ProfilerActivity, profile

        acts = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
        with profile(activities=acts, with_stack=a.with_stack) as prof:
            loss = train(a.mode, a.steps, a.batch)
            torch.cuda.synchronize()
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, "trace.json")
            prof.export_chrome_trace(raw)
            with open(raw, "rb") as src, gzip.open(a.profile, "wb", compresslevel=9) as dst:
                shutil.copyfileobj(src, dst)
    else:
        loss = train(a.mode, a.steps, a.batch)
        torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1e3
    print(f"torch_cnn {a.mode}: {ms:.1f} ms for {a.steps} steps, loss {loss:.4f}", file=sys.stderr)
    print(f"kgantt-expect steps count={a.steps}")


if __name__ == "__main__":
    main()
