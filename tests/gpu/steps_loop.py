"""A PyTorch training loop with a planted slow step every N: at each N-th step the host
runs gc.collect() and sleeps SLOW_MS, so that step is an outlier whose cause is on the host
(issue 24: the outlier named with what differs from the median step; issue 23: where the
host was).

    python3 steps_loop.py [--steps S] [--every N] [--slow-ms M]

Prints one JSON line: the steps that were slowed.
"""
import argparse
import gc
import json
import time

import torch


def slow_down(ms):
    gc.collect()
    time.sleep(ms / 1000)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--slow-ms", type=float, default=20.0)
    a = ap.parse_args()
    dev = torch.device("cuda")
    model = torch.nn.Sequential(*[torch.nn.Linear(2048, 2048) for _ in range(6)]).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(512, 2048, device=dev)
    slowed = []
    for step in range(a.steps):
        loss = model(x).square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % a.every == a.every - 1:
            slow_down(a.slow_ms)
            slowed.append(step)
    torch.cuda.synchronize()
    print(json.dumps({"steps": a.steps, "slowed": slowed, "slow_ms": a.slow_ms}))


if __name__ == "__main__":
    main()
