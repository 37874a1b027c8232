#!/usr/bin/env python3
"""PyTorch workloads for bench/overhead.sh.

Default: a small training step -- a 4-layer MLP, 1024 wide, batch 64, fp32, SGD, on
cuda:0.  Warm-up WARMUP steps, then STEPS timed steps with torch.cuda.synchronize()
before and after; repeated REPS times, the median is printed:

    ms_per_step=<median ms per training step>

--tiny: a launch-bound loop of OPS tiny in-place elementwise ops (alternating mul_/add_)
on a 1,000-element tensor; prints

    us_per_op=<median µs per op>

--profiler: warm-up and the timed region run inside
torch.profiler.profile(activities=[CPU, CUDA]), as users run it.  Nothing is exported;
the profiler's own start-up and its post-processing at exit lie outside the timed
region (they are in the wall-clock figure overhead.sh reports).

Only the figure lines go to stdout (plus reps_*= and a settings line); diagnostics go to
stderr.  Exit status: 0 ok, 2 torch/CUDA not usable or bad arguments; an exception during the
run ends it with Python's usual traceback and status 1.
"""
import argparse
import contextlib
import statistics
import sys
import time


def now_s():
    try:
        return time.clock_gettime(time.CLOCK_MONOTONIC_RAW)
    except (AttributeError, OSError):
        return time.perf_counter()


def positive(s):
    v = int(s)
    if v < 1:
        raise argparse.ArgumentTypeError("must be >= 1")
    return v


def non_negative(s):
    v = int(s)
    if v < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tiny", action="store_true", help="tiny-op launch loop instead of a training step")
    p.add_argument("--profiler", action="store_true", help="run inside torch.profiler.profile(CPU, CUDA)")
    p.add_argument("--steps", type=positive, default=200, help="timed training steps per rep (default 200)")
    p.add_argument("--warmup", type=non_negative, default=None,
                   help="warm-up steps (default 20) or, with --tiny, ops (default 1000)")
    p.add_argument("--ops", type=positive, default=5000, help="--tiny: timed ops per rep (default 5000)")
    p.add_argument("--reps", type=positive, default=3, help="timed repetitions; the median is printed (default 3)")
    p.add_argument("--width", type=positive, default=1024)
    p.add_argument("--batch", type=positive, default=64)
    p.add_argument("--layers", type=positive, default=4)
    return p.parse_args(argv)


def build_step(torch, dev, args):
    layers = []
    for i in range(args.layers):
        layers.append(torch.nn.Linear(args.width, args.width))
        if i + 1 < args.layers:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.MSELoss()
    x = torch.randn(args.batch, args.width, device=dev)
    y = torch.randn(args.batch, args.width, device=dev)

    def run(n):
        for _ in range(n):
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        return loss

    return run


def build_tiny(torch, dev, args):
    t = torch.ones(1000, device=dev)

    def run(n):
        # n in-place elementwise ops, no allocation, no sync; values stay near 1.
        for i in range(n):
            if i & 1:
                t.add_(0.001)
            else:
                t.mul_(0.999)
        return t

    return run


def main(argv):
    args = parse_args(argv)
    if args.warmup is None:
        args.warmup = 1000 if args.tiny else 20

    try:
        import torch
    except Exception as e:  # noqa: BLE001 - report anything
        print(f"torch_step: cannot import torch: {e!r}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print(f"torch_step: torch {torch.__version__}: CUDA is not available "
              f"(torch.version.cuda={torch.version.cuda})", file=sys.stderr)
        return 2

    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    torch.manual_seed(0)
    print(f"torch_step: torch {torch.__version__} cuda {torch.version.cuda} "
          f"device {torch.cuda.get_device_name(dev)} mode={'tiny' if args.tiny else 'step'} "
          f"profiler={'on' if args.profiler else 'off'}", file=sys.stderr)

    if args.tiny:
        run, n, key, scale = build_tiny(torch, dev, args), args.ops, "us_per_op", 1e6
    else:
        run, n, key, scale = build_step(torch, dev, args), args.steps, "ms_per_step", 1e3
    torch.cuda.synchronize()

    if args.profiler:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    else:
        ctx = contextlib.nullcontext()

    per = []
    with ctx:
        if args.warmup:
            run(args.warmup)
        torch.cuda.synchronize()
        for _ in range(args.reps):
            torch.cuda.synchronize()
            t0 = now_s()
            out = run(n)
            torch.cuda.synchronize()
            t1 = now_s()
            per.append((t1 - t0) * scale / n)
    # Profiler post-processing (at the `with` exit above) is not timed.

    check = float(out.float().abs().sum().item())
    if check != check:  # NaN: the timing still stands, but say so
        print("torch_step: warning: result is NaN", file=sys.stderr)

    print(f"reps_{key}=" + ",".join(f"{v:.4f}" for v in per))
    print(f"mode={'tiny' if args.tiny else 'step'} n={n} reps={args.reps} warmup={args.warmup} "
          f"profiler={int(args.profiler)}")
    print(f"{key}={statistics.median(per):.4f}")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
