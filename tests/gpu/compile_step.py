"""A transformer block compiled with torch.compile (Inductor and Triton): the first step
compiles for seconds on the host, the later ones run Triton's fused kernels. Start-up and
compilation must not count as steady steps; a third-party program to record with kgantt.

    python3 compile_step.py [--steps N] [--dim D] [--mode default|reduce-overhead]

Prints one JSON line: steps, seconds of the steps after the first, compile seconds.
"""
import argparse
import json
import time

import torch


class Block(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(dim)
        self.attn = torch.nn.MultiheadAttention(dim, dim // 64, batch_first=True)
        self.ln2 = torch.nn.LayerNorm(dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(),
                                       torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--dim", type=int, default=512)
    ap.add_argument("--mode", default="default")
    a = ap.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[Block(a.dim) for _ in range(4)]).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    step_fn = torch.compile(model, mode=a.mode)
    x = torch.randn(8, 256, a.dim, device="cuda")
    t0 = time.perf_counter()
    for i in range(a.steps):
        if i == 1:
            torch.cuda.synchronize()
            t1 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        step_fn(x).square().mean().backward()
        opt.step()
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    print(json.dumps({"steps": a.steps, "compile_s": t1 - t0, "seconds": t2 - t1,
                      "steps_per_s": (a.steps - 1) / (t2 - t1)}))


if __name__ == "__main__":
    main()
