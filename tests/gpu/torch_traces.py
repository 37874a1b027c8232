#!/usr/bin/env python3
"""Record real PyTorch profiler (Kineto) Chrome traces for kgantt's readers and diagnosis.

    python3 tests/gpu/torch_traces.py OUTDIR [SCENARIO ...]

Writes OUTDIR/<scenario>.json.gz for each scenario (all four when none is named):

  torch_pageable_item     CPU-built pageable batches, .to('cuda'), small MLP train step,
                          loss.item() every step (host sync)                 10 steps
  torch_tiny_ops          thousands of tiny elementwise ops on a 1,000-element tensor
                          (launch-rate bound)                                  2 steps x 1,000 iters
  torch_transformer_bf16  bf16 nn.TransformerEncoderLayer (d_model 2048, 16 heads, batch 16,
                          seq 1024) forward + backward + optimizer step       5 steps
  torch_two_streams       a copy stream does pinned non_blocking H2D copies of the next batch
                          while a compute stream runs matmuls on the current one (events order
                          them)                                               10 steps

Each scenario warms up outside the profiler, then profiles a few steps, each wrapped in
record_function("step"), with activities CPU + CUDA and record_shapes=True; the trace is
written with prof.export_chrome_trace() and gzipped (the plain JSON is removed). When the
compressed file is over 2 MiB the scenario is profiled again with half the steps.

Prints per scenario the number of GPU kernels in the trace ("cat" == "kernel"), memcpy /
memset counts, the GPU busy fraction over the traced GPU span, and the file size. A failing
scenario prints its traceback and the others still run; the exit status is 1 if any failed
(a trace with no kernels counts as a failure: CUPTI did not record the GPU side).
"""

import gc
import gzip
import json
import os
import shutil
import sys
import time
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function

MAX_GZ_BYTES = 2 * 1024 * 1024


# ----------------------------------------------------------------------------- scenarios
# Each scenario function returns (step_fn, default_profiled_steps, warmup_steps, cleanup_fn).
# step_fn(i) runs one step; the caller wraps it in record_function("step").


def scen_pageable_item():
    dev = torch.device("cuda")
    torch.manual_seed(0)
    batch, d_in, d_hid, n_cls = 1024, 1024, 4096, 10
    model = nn.Sequential(
        nn.Linear(d_in, d_hid), nn.ReLU(),
        nn.Linear(d_hid, d_hid), nn.ReLU(),
        nn.Linear(d_hid, n_cls),
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    losses = []

    def step(i):
        # Batch built on the CPU in pageable memory, copied synchronously.
        x_cpu = torch.randn(batch, d_in)
        y_cpu = torch.randint(0, n_cls, (batch,))
        x = x_cpu.to("cuda")
        y = y_cpu.to("cuda")
        opt.zero_grad(set_to_none=True)
        out = model(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())  # host sync every step

    def cleanup():
        nonlocal model, opt
        model = opt = None
        losses.clear()

    return step, 10, 3, cleanup


def scen_tiny_ops():
    dev = torch.device("cuda")
    iters = 1000
    state = {"x": torch.ones(1000, device=dev)}

    def step(i):
        x = state["x"]
        for _ in range(iters):
            x = x * 1.0001 + 0.0001
        state["x"] = x

    def cleanup():
        state.clear()

    return step, 2, 1, cleanup


def scen_transformer_bf16():
    dev = torch.device("cuda")
    torch.manual_seed(0)
    d_model, nhead, batch, seq = 2048, 16, 16, 1024
    layer = nn.TransformerEncoderLayer(
        d_model=d_model, nhead=nhead, dim_feedforward=4 * d_model, dropout=0.0,
        batch_first=True, device=dev, dtype=torch.bfloat16,
    )
    layer.train()
    opt = torch.optim.AdamW(layer.parameters(), lr=1e-4)
    x = torch.randn(batch, seq, d_model, device=dev, dtype=torch.bfloat16)

    def step(i):
        opt.zero_grad(set_to_none=True)
        out = layer(x)
        loss = out.float().pow(2).mean()
        loss.backward()
        opt.step()

    def cleanup():
        nonlocal layer, opt, x
        layer = opt = x = None

    return step, 5, 3, cleanup


def scen_two_streams():
    dev = torch.device("cuda")
    torch.manual_seed(0)
    rows, cols, n_mm = 4096, 4096, 4
    nbuf = 2
    # Pinned host batches (64 MiB each) and their device-side double buffers.
    host = [torch.randn(rows, cols).pin_memory() for _ in range(nbuf)]
    gpu = [torch.empty(rows, cols, device=dev) for _ in range(nbuf)]
    w = torch.randn(cols, cols, device=dev) / (cols ** 0.5)
    copy_stream = torch.cuda.Stream()
    compute_stream = torch.cuda.Stream()
    ready = [torch.cuda.Event() for _ in range(nbuf)]  # copy into gpu[b] done
    free = [torch.cuda.Event() for _ in range(nbuf)]   # compute on gpu[b] done
    results = []
    torch.cuda.synchronize()  # w, gpu[] were made on the default stream

    def issue_copy(b):
        with torch.cuda.stream(copy_stream):
            copy_stream.wait_event(free[b])  # no-op until free[b] is first recorded
            gpu[b].copy_(host[b], non_blocking=True)
            ready[b].record(copy_stream)

    issue_copy(0)
    state = {"cur": 0}

    def step(i):
        cur = state["cur"]
        nxt = (cur + 1) % nbuf
        issue_copy(nxt)  # prefetch the next batch while this one is computed on
        with torch.cuda.stream(compute_stream):
            compute_stream.wait_event(ready[cur])
            y = gpu[cur]
            for _ in range(n_mm):
                y = torch.relu(y @ w)
            results.append(y.sum())
            free[cur].record(compute_stream)
        if len(results) > 4:
            results.pop(0)
        state["cur"] = nxt

    def cleanup():
        # Order everything back onto the default stream before memory is released.
        cur = torch.cuda.current_stream()
        cur.wait_stream(copy_stream)
        cur.wait_stream(compute_stream)
        torch.cuda.synchronize()
        results.clear()
        host.clear()
        gpu.clear()

    return step, 10, 3, cleanup


SCENARIOS = [
    ("torch_pageable_item", scen_pageable_item),
    ("torch_tiny_ops", scen_tiny_ops),
    ("torch_transformer_bf16", scen_transformer_bf16),
    ("torch_two_streams", scen_two_streams),
]


# ----------------------------------------------------------------------------- helpers

def profile_steps(step, nsteps, json_path):
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 record_shapes=True) as prof:
        for i in range(nsteps):
            with record_function("step"):
                step(i)
        torch.cuda.synchronize()
    prof.export_chrome_trace(json_path)


def gzip_file(src, dst):
    with open(src, "rb") as fin, gzip.open(dst, "wb", compresslevel=9) as fout:
        shutil.copyfileobj(fin, fout)
    os.remove(src)


def trace_stats(gz_path):
    with gzip.open(gz_path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    counts = {"kernel": 0, "gpu_memcpy": 0, "gpu_memset": 0, "cuda_runtime": 0}
    spans = []
    for ev in events:
        if not isinstance(ev, dict):
            continue
        cat = ev.get("cat")
        if cat in counts:
            counts[cat] += 1
        if cat in ("kernel", "gpu_memcpy", "gpu_memset") and ev.get("ph") == "X":
            try:
                ts = float(ev["ts"])
                dur = float(ev.get("dur", 0))
            except (KeyError, TypeError, ValueError):
                continue
            spans.append((ts, ts + dur))
    busy = 0.0
    span = 0.0
    if spans:
        spans.sort()
        start, end = spans[0]
        lo, hi = spans[0][0], max(e for _, e in spans)
        for s, e in spans[1:]:
            if s > end:
                busy += end - start
                start, end = s, e
            elif e > end:
                end = e
        busy += end - start
        span = hi - lo
    return len(events), counts, busy, span


def run_plain(name, step, nsteps):
    """Same steps without torch.profiler, each in an NVTX range `step`: for recording the
    scenario with `kgantt record` (two CUPTI users cannot share a process)."""
    t1 = time.time()
    for i in range(nsteps):
        torch.cuda.nvtx.range_push("step")
        step(i)
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(f"[{name}] ran {nsteps} steps without the profiler in {time.time() - t1:.2f}s",
          flush=True)


def run_scenario(name, fn, outdir):
    step, nsteps, warmup, cleanup = fn()
    if os.environ.get("TORCH_TRACES_NO_PROFILER") == "1":
        try:
            for i in range(warmup):
                step(i)
            torch.cuda.synchronize()
            run_plain(name, step, nsteps)
        finally:
            cleanup()
        return
    try:
        t0 = time.time()
        for i in range(warmup):
            step(i)
        torch.cuda.synchronize()
        gz_path = os.path.join(outdir, name + ".json.gz")
        json_path = os.path.join(outdir, name + ".json")
        while True:
            t1 = time.time()
            profile_steps(step, nsteps, json_path)
            raw = os.path.getsize(json_path)
            gzip_file(json_path, gz_path)
            size = os.path.getsize(gz_path)
            print(f"[{name}] profiled {nsteps} steps in {time.time() - t1:.1f}s: "
                  f"json {raw} bytes, gz {size} bytes", flush=True)
            if size <= MAX_GZ_BYTES or nsteps <= 1:
                break
            nsteps = max(1, nsteps // 2)
            print(f"[{name}] over {MAX_GZ_BYTES} bytes, profiling again with {nsteps} steps",
                  flush=True)
        nev, counts, busy, span = trace_stats(gz_path)
        frac = (busy / span) if span > 0 else 0.0
        print(f"[{name}] {gz_path}: {size} bytes gz, {nsteps} steps, {nev} events, "
              f"kernels={counts['kernel']} memcpy={counts['gpu_memcpy']} "
              f"memset={counts['gpu_memset']} cuda_runtime={counts['cuda_runtime']} "
              f"gpu_busy={busy / 1000:.2f}ms/{span / 1000:.2f}ms ({100 * frac:.1f}%) "
              f"total {time.time() - t0:.1f}s", flush=True)
        if size > MAX_GZ_BYTES:
            print(f"[{name}] WARNING: still over {MAX_GZ_BYTES} bytes", flush=True)
        if counts["kernel"] == 0:
            raise RuntimeError("trace has no kernel events (CUPTI recorded no GPU activity)")
    finally:
        try:
            cleanup()
        finally:
            del step
            gc.collect()
            torch.cuda.synchronize()
            torch.cuda.empty_cache()


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    outdir = argv[1]
    wanted = argv[2:]
    known = dict(SCENARIOS)
    for w in wanted:
        if w not in known:
            print(f"unknown scenario {w!r}; known: {', '.join(known)}", file=sys.stderr)
            return 2
    if not torch.cuda.is_available():
        print("torch_traces: CUDA is not available", file=sys.stderr)
        return 1
    os.makedirs(outdir, exist_ok=True)
    print(f"torch {torch.__version__} cuda {torch.version.cuda} "
          f"device {torch.cuda.get_device_name(0)}", flush=True)
    failed = []
    for name, fn in SCENARIOS:
        if wanted and name not in wanted:
            continue
        try:
            run_scenario(name, fn, outdir)
        except Exception:
            print(f"[{name}] FAILED", flush=True)
            traceback.print_exc()
            sys.stderr.flush()
            failed.append(name)
            try:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
            except Exception:
                traceback.print_exc()
    if failed:
        print(f"failed: {', '.join(failed)}", flush=True)
        return 1
    print("all scenarios ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
