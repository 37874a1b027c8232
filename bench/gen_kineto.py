#!/usr/bin/env python3
"""Writes a synthetic PyTorch profiler (Kineto) Chrome-trace JSON for reader benchmarks.

The layout copies what torch 2.11's profiler writes (see tests/fixtures/torch/): the same
keys, key order, number formats and pretty-printing, so the parser sees the same token
mix as on a real trace. Per kernel: an aten cpu_op, its cudaLaunchKernel (cuda_runtime),
the kernel, and the ac2g flow pair that links them. Every COPY_EVERY kernels a pageable
HtoD cudaMemcpyAsync and its copy; every STEP kernels a "ProfilerStep#N" user annotation.

  bench/gen_kineto.py -n 1000000 -o /tmp/k1m.json         # plain JSON
  bench/gen_kineto.py -n 200000 -o /tmp/k200k.json.gz     # gzip (by the .gz ending)

With --epochs E, a training loop instead (issue 24's groups of steps): E epochs of
--steps-per-epoch steps, each step --step-kernels kernels of its own names launched after a
host wait (loading the batch), each epoch followed by --validation batches of evaluation
kernels (other names) after a longer wait; `ProfilerStep#N` ranges around the steps unless
--no-step-ranges, `epoch` ranges around each epoch with --epoch-ranges. --truth FILE writes
the epochs' steps (1-based, as `report --list-steps` numbers them) as JSON:

  bench/gen_kineto.py --epochs 2 --validation 4 --truth /tmp/t.json -o /tmp/epochs.json
"""
import argparse
import gzip
import json
import sys

PID, TID, DEV, STREAM = 4242, 4242, 0, 7
T0_NS = 5111704694164013  # an absolute µs-scale clock with ns digits, as Kineto writes
COPY_EVERY = 1000
STEP = 10000

KERNELS = [
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute"
    "_segment_k_off_kernel__5x_cublas",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >"
    "(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
    "unsigned int, float, 4>)",
]
OPS = ["aten::add", "aten::mm", "aten::mean"]


def us(ns):
    """Kineto's µs with three decimals (nanoseconds)."""
    return "%d.%03d" % (ns // 1000, ns % 1000)


def header(out):
    out.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {\n'
              '      "id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320,\n'
              '      "computeMajor": 9, "computeMinor": 0,\n'
              '      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,\n'
              '      "regsPerBlock": 65536, "warpSize": 32,\n'
              '      "sharedMemPerBlock": 49152, "numSms": 132\n'
              '    , "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448, '
              '"sharedMemPerMultiprocessor": 233472\n    }\n  ],\n'
              '  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 1790857026000000000,\n'
              '  "traceEvents": [\n')


def cpu_op(out, name, ts, dur, ext):
    out.write('  {\n    "ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d,\n'
              '    "ts": %s, "dur": %s,\n    "args": {\n'
              '      "External id": %d,"Record function id": 0, "Sequence number": %d, '
              '"Fwd thread id": 0, "Concrete Inputs": ["", "", ""], '
              '"Input type": ["float", "float", "Scalar"], "Input Strides": [[4096, 1], '
              '[4096, 1], []], "Input Dims": [[4096, 4096], [4096, 4096], []], "Ev Idx": %d\n'
              '    }\n  },\n' % (name, PID, TID, us(ts), us(dur), ext, ext, ext))


def runtime(out, name, ts, dur, ext, corr, cbid):
    out.write('  {\n    "ph": "X", "cat": "cuda_runtime", "name": "%s", "pid": %d, "tid": %d,\n'
              '    "ts": %s, "dur": %s,\n    "args": {\n'
              '      "External id": %d,      "cbid": %d, "correlation": %d\n    }\n  },\n'
              % (name, PID, TID, us(ts), us(dur), ext, cbid, corr))


def flows(out, corr, cpu_ts, gpu_ts):
    out.write('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
              '    "cat": "ac2g", "name": "ac2g"\n  },\n' % (corr, PID, TID, us(cpu_ts)))
    out.write('  {\n    "ph": "f", "id": %d, "pid": %d, "tid": %d, "ts": %s,\n'
              '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  },\n'
              % (corr, DEV, STREAM, us(gpu_ts)))


def kernel(out, name, ts, dur, ext, corr):
    out.write('  {\n    "ph": "X", "cat": "kernel", "name": "%s", "pid": %d, "tid": %d,\n'
              '    "ts": %s, "dur": %s,\n    "args": {\n'
              '      "External id": %d,      "queued": 0, "device": %d, "context": 1,'
              '      "stream": %d, "correlation": %d,      "registers per thread": 32,'
              '      "shared memory": 0,      "blocks per SM": 7.757576,'
              '      "warps per SM": 62.060608,      "grid": [1024, 1, 1],'
              '      "block": [256, 1, 1],      "est. achieved occupancy %%": 97\n'
              '    }\n  },\n' % (name, DEV, STREAM, us(ts), us(dur), ext, DEV, STREAM, corr))


def memcpy(out, ts, dur, ext, corr):
    out.write('  {\n    "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> '
              'Device)", "pid": %d, "tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
              '      "External id": %d,      "device": %d, "context": 1,      "stream": %d, '
              '"correlation": %d,      "bytes": 4194304, "memory bandwidth (GB/s)": '
              '13.356975440741873\n    }\n  },\n'
              % (DEV, STREAM, us(ts), us(dur), ext, DEV, STREAM, corr))


def annotation(out, name, ts, dur, ext):
    out.write('  {\n    "ph": "X", "cat": "user_annotation", "name": "%s", "pid": %d, '
              '"tid": %d,\n    "ts": %s, "dur": %s,\n    "args": {\n'
              '      "External id": %d,"Record function id": 0, "Ev Idx": %d\n    }\n  },\n'
              % (name, PID, TID, us(ts), us(dur), ext, ext))


def trailer(out, end_ts):
    out.write('  {\n    "name": "process_name", "ph": "M", "ts": %s, "pid": %d, "tid": 0,\n'
              '    "args": {\n      "name": "python3"\n    }\n  },\n' % (us(T0_NS), PID))
    out.write('  {\n    "name": "thread_name", "ph": "M", "ts": %s, "pid": %d, "tid": %d,\n'
              '    "args": {\n      "name": "thread %d (python3)"\n    }\n  },\n'
              % (us(T0_NS), PID, TID, TID))
    out.write('  {\n    "name": "Record Window End", "ph": "i", "s": "g",\n'
              '    "pid": "", "tid": "", "ts": %s\n  }\n  ],\n'
              '  "traceName": "synthetic.json"\n}\n' % us(end_ts))


def generate(out, n):
    t, corr, ext = T0_NS + 1000, 1, 1
    gpu_free = t
    for i in range(n):
        if i % STEP == 0:
            annotation(out, "ProfilerStep#%d" % (i // STEP), t, min(n - i, STEP) * 5000, ext)
            ext += 1
        if i % COPY_EVERY == 0:
            runtime(out, "cudaMemcpyAsync", t, 900, ext, corr, 51)
            start = max(gpu_free, t + 800)
            memcpy(out, start, 300000, ext, corr)
            gpu_free = start + 300000
            flows(out, corr, t, start)
            t, corr, ext = t + 1000, corr + 1, ext + 1
        k = i % len(KERNELS)
        cpu_op(out, OPS[k], t, 4000, ext)
        runtime(out, "cudaLaunchKernel", t + 500, 3000, ext, corr, 211)
        start = max(gpu_free, t + 3000)
        kernel(out, KERNELS[k], start, 4200 + 13 * (i % 7), ext, corr)
        gpu_free = start + 4200 + 13 * (i % 7)
        flows(out, corr, t + 500, start)
        t, corr, ext = t + 5000, corr + 1, ext + 1
    trailer(out, max(t, gpu_free))


STEP_WAIT_NS = 200000   # the host loads a batch before each step
VAL_WAIT_NS = 3000000   # ... and waits longer before validating
VAL_KERNELS = 8


def launch(out, name, t, ids, gpu_free):
    """One kernel launched at host time t: its cpu_op, runtime call, kernel and flows. The
    next host time and the GPU's free time."""
    corr, ext = ids
    cpu_op(out, "aten::mm", t, 4000, ext)
    runtime(out, "cudaLaunchKernel", t + 500, 3000, ext, corr, 211)
    start = max(gpu_free, t + 3000)
    kernel(out, name, start, 4200, ext, corr)
    flows(out, corr, t + 500, start)
    ids[0], ids[1] = corr + 1, ext + 1
    return t + 5000, start + 4200


def generate_epochs(out, a):
    """A training loop of a.epochs epochs: the truth, a list of {first, last} per epoch."""
    t, ids = T0_NS + 1000, [1, 1]
    gpu_free, step, truth = t, 0, []
    step_len = a.step_kernels * 5000
    val_len = VAL_WAIT_NS + a.validation * (STEP_WAIT_NS + VAL_KERNELS * 5000)
    for e in range(a.epochs):
        t += STEP_WAIT_NS
        if a.epoch_ranges:
            annotation(out, "epoch", t, a.steps_per_epoch * (step_len + STEP_WAIT_NS) + val_len,
                       ids[1])
            ids[1] += 1
        first = step + 1
        for s in range(a.steps_per_epoch):
            if s:
                t += STEP_WAIT_NS
            if a.step_ranges:
                annotation(out, "ProfilerStep#%d" % step, t, step_len, ids[1])
                ids[1] += 1
            for k in range(a.step_kernels):
                t, gpu_free = launch(out, "void train_op_%d<float>(float*, int)" % k, t, ids,
                                     gpu_free)
            step += 1
        truth.append({"first": first, "last": step})
        t += VAL_WAIT_NS
        for b in range(a.validation):
            t += STEP_WAIT_NS
            for k in range(VAL_KERNELS):
                t, gpu_free = launch(out, "void eval_op_%d<float>(float*, int)" % k, t, ids,
                                     gpu_free)
    trailer(out, max(t, gpu_free))
    return truth


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=200000, help="kernels (default 200000)")
    ap.add_argument("-o", required=True, help="output file; gzip when it ends in .gz")
    ap.add_argument("--epochs", type=int, help="a training loop of this many epochs instead")
    ap.add_argument("--steps-per-epoch", type=int, default=16)
    ap.add_argument("--step-kernels", type=int, default=24)
    ap.add_argument("--validation", type=int, default=0,
                    help="validation batches after each epoch (default none)")
    ap.add_argument("--no-step-ranges", dest="step_ranges", action="store_false",
                    help="no ProfilerStep#N ranges: steps only by the rhythm")
    ap.add_argument("--epoch-ranges", action="store_true", help="an 'epoch' range per epoch")
    ap.add_argument("--truth", help="--epochs: write the epochs' steps here (JSON)")
    args = ap.parse_args()
    if args.o.endswith(".gz"):
        out = gzip.open(args.o, "wt", compresslevel=6)
    else:
        out = open(args.o, "w")
    with out:
        header(out)
        if args.epochs:
            truth = generate_epochs(out, args)
        else:
            generate(out, args.n)
    if args.epochs and args.truth:
        with open(args.truth, "w") as f:
            json.dump({"epochs": truth, "validation": args.validation,
                       "epoch_ranges": args.epoch_ranges, "step_ranges": args.step_ranges}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
