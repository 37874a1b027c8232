"""A PyTorch training loop whose host work is planted and timed, for host samples
(tests/gpu/host_samples_h200.sh): a DataLoader whose collate_fn spends a known CPU time in
planted_collate_cost() (pure Python, holding the GIL) and a logging call, log_metrics(),
that sleeps a known time every step. The GPU waits on both.

    python3 host_dataloader.py [--steps N] [--workers W] [--collate-ms C] [--log-ms L]
                               [--profile OUT.json.gz [--with-stack]] [--seconds S]

--seconds runs epochs of N steps again and again until S seconds have passed (a long run,
for the recorder's memory: tests/gpu/long_run_h200.sh).

--profile runs the loop under torch.profiler (CPU and CUDA activities) and writes its
trace: the same planted host work, as the PyTorch profiler's own events show it.

Prints one JSON line: the loop's start and end on CLOCK_MONOTONIC_RAW (the samples'
clock), the main thread's native id, and the seconds measured inside the planted parts
(collate: 0 on the main thread when W > 0, the workers do it), so that the samples' shares
can be set beside the truth.
"""
import argparse
import json
import threading
import time

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data._utils.collate import default_collate

TIMES = {"collate": 0.0, "log": 0.0}


def now():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC_RAW)


class Images(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 3, 32, 32)
        self.y = torch.randint(0, 10, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def planted_collate_cost(ms):
    t0 = time.perf_counter()
    x = 0
    while time.perf_counter() - t0 < ms / 1000:
        x += 1
    return x


class Collate:
    def __init__(self, ms):
        self.ms = ms

    def __call__(self, batch):
        t0 = time.perf_counter()
        planted_collate_cost(self.ms)
        TIMES["collate"] += time.perf_counter() - t0
        return default_collate(batch)


def log_metrics(step, loss, ms):
    t0 = time.perf_counter()
    time.sleep(ms / 1000)
    TIMES["log"] += time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--collate-ms", type=float, default=4.0)
    ap.add_argument("--log-ms", type=float, default=2.0)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--profile", help="write a torch.profiler trace of the loop here")
    ap.add_argument("--with-stack", action="store_true", help="... with Python stacks")
    ap.add_argument("--seconds", type=float, default=0, help="epochs again until this long")
    a = ap.parse_args()
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 1024), torch.nn.ReLU(),
                                torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = Images(a.batch * a.steps)
    loader = DataLoader(data, batch_size=a.batch, shuffle=False, num_workers=a.workers,
                        collate_fn=Collate(a.collate_ms), pin_memory=False)
    for x, y in loader:  # warm-up: CUDA kernels, allocator
        model(x.to(dev)).sum().backward()
        break
    torch.cuda.synchronize()
    TIMES["collate"] = TIMES["log"] = 0.0
    prof = None
    if a.profile:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        prof = torch.profiler.profile(activities=acts, with_stack=a.with_stack)
        prof.__enter__()
    start = now()
    steps = 0
    while True:
        for x, y in loader:
            x, y = x.to(dev), y.to(dev)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            log_metrics(steps, loss, a.log_ms)
            steps += 1
        if (now() - start) / 1e9 >= a.seconds:
            break
    torch.cuda.synchronize()
    end = now()
    if prof:
        prof.__exit__(None, None, None)
        prof.export_chrome_trace(a.profile)
    print(json.dumps({"start": start, "end": end, "wall_s": (end - start) / 1e9, "steps": steps,
                      "workers": a.workers, "collate_s": TIMES["collate"], "log_s": TIMES["log"],
                      "main_tid": threading.get_native_id()}))


if __name__ == "__main__":
    main()
