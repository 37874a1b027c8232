#!/usr/bin/env python3
"""PyTorch workloads for bench/overhead.sh.

Default: a small training step -- a 4-layer MLP, 1024 wide, batch 64, fp32, SGD, on
cuda:0.  Warm-up WARMUP steps, then STEPS timed steps with torch.cuda.synchronize()
before and after; repeated REPS times, the median is printed:

    ms_per_step=<median ms per training step>

--tiny: a launch-bound loop of OPS tiny in-place elementwise ops (alternating mul_/add_)
on a 1,000-element tensor; prints

    us_per_op=<median µs per op>

--gpt: a GPT-style training step, GPU-bound: a decoder-only transformer of LAYERS
pre-LayerNorm blocks (default 12; d_model WIDTH 1024, HEADS 16, causal self-attention
through torch.nn.functional.scaled_dot_product_attention, GELU MLP 4x wide), learned
positions, tied embedding and output head (VOCAB 32768), sequence SEQ 1024, batch 8,
forward and loss under torch.autocast(bfloat16), cross-entropy, AdamW.  Defaults
--steps 20 --warmup 3 --reps 3 (about 38 ms a step on an H200); prints ms_per_step=
like the default mode.

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


# Per-mode defaults of the options left as None by the parser.
DEFAULTS = {
    "step": {"steps": 200, "warmup": 20, "batch": 64, "layers": 4},
    "tiny": {"steps": 200, "warmup": 1000, "batch": 64, "layers": 4},
    "gpt": {"steps": 20, "warmup": 3, "batch": 8, "layers": 12},
}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--tiny", action="store_true", help="tiny-op launch loop instead of a training step")
    mode.add_argument("--gpt", action="store_true",
                      help="GPT-style transformer training step (bf16 autocast, AdamW) instead of the MLP")
    p.add_argument("--profiler", action="store_true", help="run inside torch.profiler.profile(CPU, CUDA)")
    p.add_argument("--steps", type=positive, default=None,
                   help="timed training steps per rep (default 200; --gpt: 20)")
    p.add_argument("--warmup", type=non_negative, default=None,
                   help="warm-up steps (default 20; --gpt: 3) or, with --tiny, ops (default 1000)")
    p.add_argument("--ops", type=positive, default=5000, help="--tiny: timed ops per rep (default 5000)")
    p.add_argument("--reps", type=positive, default=3, help="timed repetitions; the median is printed (default 3)")
    p.add_argument("--width", type=positive, default=1024, help="MLP width; --gpt: d_model (default 1024)")
    p.add_argument("--batch", type=positive, default=None, help="batch size (default 64; --gpt: 8 sequences)")
    p.add_argument("--layers", type=positive, default=None, help="layers (default 4; --gpt: 12 blocks)")
    p.add_argument("--heads", type=positive, default=16, help="--gpt: attention heads (default 16)")
    p.add_argument("--seq", type=positive, default=1024, help="--gpt: sequence length (default 1024)")
    p.add_argument("--vocab", type=positive, default=32768, help="--gpt: vocabulary size (default 32768)")
    args = p.parse_args(argv)
    args.mode = "tiny" if args.tiny else "gpt" if args.gpt else "step"
    for k, v in DEFAULTS[args.mode].items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    if args.gpt and args.width % args.heads:
        p.error(f"--width {args.width} is not a multiple of --heads {args.heads}")
    return args


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


def build_gpt(torch, dev, args):
    """A GPT-2-style decoder: pre-LN blocks, causal SDPA, GELU MLP, tied head."""
    nn, F = torch.nn, torch.nn.functional
    d, h, seq, vocab = args.width, args.heads, args.seq, args.vocab

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(d, device=dev)
            self.qkv = nn.Linear(d, 3 * d, device=dev)
            self.proj = nn.Linear(d, d, device=dev)
            self.ln2 = nn.LayerNorm(d, device=dev)
            self.fc = nn.Linear(d, 4 * d, device=dev)
            self.fc_out = nn.Linear(4 * d, d, device=dev)

        def forward(self, x):
            b, t, c = x.shape
            # (b, t, 3, h, c/h) -> three (b, h, t, c/h)
            q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, h, c // h).permute(2, 0, 3, 1, 4).unbind(0)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
            return x + self.fc_out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, d, device=dev)
            self.pos = nn.Embedding(seq, d, device=dev)
            self.blocks = nn.ModuleList(Block() for _ in range(args.layers))
            self.ln_f = nn.LayerNorm(d, device=dev)
            self.head = nn.Linear(d, vocab, bias=False, device=dev)
            self.head.weight = self.tok.weight  # tied, as in GPT-2
            for m in self.modules():  # GPT-2's initialisation, on the GPU
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(m.weight, mean=0.0, std=0.02)
                if isinstance(m, nn.Linear) and m.bias is not None:
                    nn.init.zeros_(m.bias)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
            for blk in self.blocks:
                x = blk(x)
            return self.head(self.ln_f(x))

    model = GPT()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    tokens = torch.randint(0, vocab, (args.batch, seq + 1), device=dev)
    x, y = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()
    nparams = sum(p.numel() for p in model.parameters())
    print(f"torch_step: gpt layers={args.layers} d_model={d} heads={h} seq={seq} batch={args.batch} "
          f"vocab={vocab} params={nparams / 1e6:.1f}M bf16-autocast AdamW", file=sys.stderr)

    def run(n):
        for _ in range(n):
            opt.zero_grad(set_to_none=True)
            with torch.autocast(device_type=dev.type, dtype=torch.bfloat16):
                logits = model(x)
                loss = F.cross_entropy(logits.view(-1, vocab), y.view(-1))
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
          f"device {torch.cuda.get_device_name(dev)} mode={args.mode} "
          f"profiler={'on' if args.profiler else 'off'}", file=sys.stderr)

    if args.tiny:
        run, n, key, scale = build_tiny(torch, dev, args), args.ops, "us_per_op", 1e6
    elif args.gpt:
        run, n, key, scale = build_gpt(torch, dev, args), args.steps, "ms_per_step", 1e3
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
    print(f"mode={args.mode} n={n} reps={args.reps} warmup={args.warmup} "
          f"profiler={int(args.profiler)}")
    print(f"{key}={statistics.median(per):.4f}")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
