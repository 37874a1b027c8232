#!/usr/bin/env python3
"""Writes the traces of a synthetic data-parallel training job, one kgantt trace per rank,
with planted problems whose truth goes to DIR.truth.json (beside the folder), for the job report's benchmark and
tests (`kgantt report DIR`, docs/job.md).

Each rank runs the same steps (an NVTX range `step` each): forward kernels, backward
kernels with a gradient all-reduce (an NCCL kernel on its own stream) after every bucket,
optimizer kernels after the last all-reduce, then `loss.item()`. `--no-step-ranges`
writes no range, and names the optimizer's kernels apart (as PyTorch's fused Adam):
then only the rhythm of the launches marks a step, as in a program without annotations. The ranks are coupled as
NCCL couples them: a collective starts on a rank when its bucket is done and the previous
collective has ended, and ends on every rank (within a few µs) once the last rank has
joined it. Ranks sit on hosts of --ranks-per-host GPUs; every host has its own
CLOCK_MONOTONIC_RAW (a different boot time) and a realtime offset off by up to
--ntp-error-us, as NTP leaves them: the report must align them.

`--p2p` adds point-to-point transfers that must not make stragglers; `--no-comm` leaves
the all-reduces out; `--exposed` launches them all after the backward pass, with no
compute beside them (exposed communication on every rank); `--exposed-tail US` runs a
compute kernel beside the last US µs of each (the ranks' wait for the last, at the start,
stays exposed).

Planted (defaults for N ranks): straggler ranks whose host sleeps before the backward pass
(`--straggler RANK:FIRST-LAST:MS`), a slow GPU (`--slow RANK:FACTOR`: every compute
kernel that much longer) and a rank that runs extra kernels in one step
(`--extra RANK:STEP:COUNT`). `--startup MS` gives every rank a start-up: one set-up
kernel, then MS (plus up to 1 ms, by rank) of imports and loading before its first step.

  bench/gen_job.py -o /tmp/job -n 1024 -k 10000 -j 2      # the benchmark's job
  bench/gen_job.py -o /tmp/job8 -n 8 -k 2000               # small: the tests'

The tables are created with the SQL of src/trace/schema.c (as bench/gen_trace.py does);
rows are inserted by column name. Deterministic for given options.
"""
import argparse
import json
import math
import multiprocessing
import os
import random
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_trace  # noqa: E402  (the schema reader)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REALTIME_BASE = 1_796_000_000_000_000_000
COMPUTE, COMM, P2P, SIDE = 7, 13, 17, 19
FWD, BWD, OPT, BUCKETS = 24, 72, 4, 4
COMM_NAME = ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL("
             "ncclDevKernelArgsStorage<4096ul>)")
P2P_NAME = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"
SIDE_NAME = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >"
EXTRA_NAME = "void at::native::index_put_kernel_impl<at::native::OpaqueType<4> >(long)"
OPT_NAME = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
            "(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::"
            "FusedAdamMathFunctor<float, 4>, float>(TensorListMetadata<4>)_%d")


def compute_names(own_optimizer=False):
    """A few dozen kernel names (their duration in ns). own_optimizer: the optimizer's
    kernels named apart (once a step, as PyTorch's fused Adam): by default they have the
    layers' names, and a step then repeats every 12 kernels with nothing of its own."""
    names = []
    for i in range(FWD + BWD + OPT):
        if own_optimizer and i >= FWD + BWD:
            names.append((OPT_NAME % (i - FWD - BWD), 18_000))
            continue
        fam = ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1"
               "_execute_segment_k_off_kernel__5x_cublas" if i % 3 == 0 else
               "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl"
               "(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}, at::detail::"
               "Array<char*, 2> >(int, at::native::GeluType, at::detail::Array<char*, 2>)"
               if i % 3 == 1 else
               "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::"
               "BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, "
               "c10::BFloat16 const*, float*, float*, c10::BFloat16*)")
        names.append(("%s_%d" % (fam, i % 12), 60_000 if i % 3 == 0 else 18_000))
    return names


class Plan:
    def __init__(self, a):
        self.a = a
        self.steps = max(1, a.kernels // (FWD + BWD + OPT + BUCKETS))
        self.names = compute_names(a.no_step_ranges)
        self.strag = {}  # rank -> (first step, last step, ns)
        for s in a.straggler:
            r, span, msec = s.split(":")
            lo, hi = (int(x) for x in span.split("-"))
            self.strag[int(r)] = (lo, hi, int(float(msec) * 1e6))
        self.slow = {int(s.split(":")[0]): float(s.split(":")[1]) for s in a.slow}
        self.extra = {}
        for s in a.extra:
            r, st, n = (int(x) for x in s.split(":"))
            self.extra[(r, st)] = n
        rng = random.Random(a.seed)
        hosts = (a.ranks + a.ranks_per_host - 1) // a.ranks_per_host
        self.boot = [rng.randint(100, 900_000) * 1_000_000 for _ in range(hosts)]
        self.ntp = [0] + [rng.randint(-a.ntp_error_us, a.ntp_error_us) * 1000
                          for _ in range(hosts - 1)]

    def host(self, r):
        return r // self.a.ranks_per_host


def step_rng(a, r, s):
    return random.Random((a.seed * 1_000_003 + r) * 1_000_033 + s)


def part1(plan, st, r, s, emit):
    """The step up to the collectives: compute kernels; returns when each collective is
    ready on this rank (bucket done and launched). st: host, ready (compute stream)."""
    a, rng = plan.a, step_rng(plan.a, r, s)
    speed = plan.slow.get(r, 1.0)
    host = st["host"] + int(300_000 * math.exp(rng.gauss(0, 0.2)))  # data loading
    st["step_start"] = host
    ready = st["ready"]
    coll_ready = []
    n_extra = plan.extra.get((r, s), 0)
    order = list(range(FWD)) + [None] * n_extra + list(range(FWD, FWD + BWD))
    done_bwd = 0
    lo_hi_ns = plan.strag.get(r)
    for idx in order:
        if idx == FWD and lo_hi_ns and lo_hi_ns[0] <= s <= lo_hi_ns[1]:
            host += lo_hi_ns[2]  # the planted sleep before backward
        host += 5000 + int(rng.random() * 2000)
        if idx is None:
            name, base = EXTRA_NAME, 9000
        else:
            name, base = plan.names[idx]
        dur = int(base * speed * math.exp(rng.gauss(0, 0.03)))
        start = max(host + 3000, ready + 600)
        ready = start + dur
        if emit:
            emit("k", COMPUTE, name, host, start, ready)
        if idx is not None and idx >= FWD:
            done_bwd += 1
            if done_bwd % (BWD // BUCKETS) == 0:
                host += 6000
                coll_ready.append((host, max(host + 4000, ready + 2000)))
    st["host"], st["ready"] = host, ready
    if a.exposed:  # every bucket's all-reduce after the whole backward: nothing beside them
        coll_ready = [(host, max(host + 4000, ready + 2000))] * len(coll_ready)
    return coll_ready


def part2(plan, st, r, s, coll_ready, ends, emit):
    """The collectives (given when each ends), the optimizer after the last, loss.item()."""
    rng = step_rng(plan.a, r, s + 1_000_000)
    prev_end = st.get("comm_end", 0)
    for (launch, rd), end in zip(coll_ready, ends):
        start = max(rd, prev_end + 1500)
        e = end + int(rng.random() * 3000)  # the ranks leave within a few µs
        if emit and not plan.a.no_comm:
            emit("k", COMM, COMM_NAME, launch, start, e)
            if plan.a.exposed_tail:  # compute beside the collective's last stretch
                emit("k", SIDE, SIDE_NAME, launch, max(start, e - plan.a.exposed_tail * 1000), e)
        prev_end = e
    st["comm_end"] = prev_end
    if emit and plan.a.p2p:
        # a pipeline's activations to the next stage, on a stream of their own: stage
        # r % 8 sends 0.2 ms after the stage before it, by design (no straggler)
        t = st["step_start"] + 400_000 + (r % 8) * 200_000
        emit("k", P2P, P2P_NAME, t - 4000, t, t + 150_000)
    host, ready = st["host"], max(st["ready"], prev_end + 1000)
    for i in range(OPT):
        name, base = plan.names[FWD + BWD + i]
        host += 5000
        dur = int(base * plan.slow.get(r, 1.0) * math.exp(rng.gauss(0, 0.03)))
        start = max(host + 3000, ready + 600)
        ready = start + dur
        if emit:
            emit("k", COMPUTE, name, host, start, ready)
    host = max(host, ready) + 20_000  # loss.item(): the host waits for the GPU
    if emit:
        emit("r", 0, "step", st["step_start"], host, 0)
    st["host"], st["ready"] = host, ready


def collective_ends(plan):
    """Phase A: every rank step by step; the end of each collective on the job's clock."""
    a = plan.a
    states = [{"host": 10_000_000_000, "ready": 0} for _ in range(a.ranks)]
    ends_all = []
    for s in range(plan.steps):
        ready = [part1(plan, states[r], r, s, None) for r in range(a.ranks)]
        ends, prev = [], [st.get("comm_end", 0) for st in states]
        for k in range(BUCKETS):
            start = max(max(ready[r][k][1], prev[r] + 1500) for r in range(a.ranks))
            end = start + 250_000
            ends.append(end)
            prev = [end] * a.ranks
        for r in range(a.ranks):
            part2(plan, states[r], r, s, ready[r], ends, None)
        ends_all.append(ends)
    return ends_all


def write_rank(args):
    plan, ends_all, r = args
    a = plan.a
    h = plan.host(r)
    shift = plan.boot[h]  # this host's clock: the job's + its boot offset
    strings, srows = {}, []

    def sid(t):
        if t not in strings:
            strings[t] = len(srows) + 1
            srows.append((strings[t], t))
        return strings[t]

    kernels, apis, nvtx = [], [], []
    corr = [0]

    def emit(kind, stream, name, host, start, end):
        if kind == "r":
            if a.no_step_ranges:
                return
            nvtx.append((1, 1, 0, sid(name), host + shift, start + shift, 1))
            return
        corr[0] += 1
        c = corr[0]
        apis.append((1, 1, 1, 211, sid("cudaLaunchKernel_v7000"), host + shift - 2500,
                     host + shift, c, 0))
        kernels.append((1, 0, 1, stream, c, sid(name), sid(name), host + shift - 1000,
                        start + shift - 400, start + shift, end + shift, 132, 1, 1, 256, 1,
                        1, 32, 0, 0, 0, 0, 0))

    st = {"host": 10_000_000_000, "ready": 0}
    if a.startup:  # the set-up kernel, then the start-up's idle until the first step
        t = 10_000_000_000 - int(a.startup * 1e6) - r * 1000 % 1_000_000
        emit("k", COMPUTE, "void at::native::fill_kernel_cuda(float)", t, t + 5000, t + 25_000)
    for s in range(plan.steps):
        ready = part1(plan, st, r, s, emit)
        part2(plan, st, r, s, ready, ends_all[s], emit)
    path = os.path.join(a.output, "rank_%05d.kgt" % r)
    tmp = path + ".tmp"
    if os.path.exists(tmp):
        os.unlink(tmp)
    db = sqlite3.connect(tmp, isolation_level=None)
    db.execute("PRAGMA journal_mode=OFF")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("BEGIN")
    schema, index = gen_trace.load_schema(os.path.join(ROOT, "src/trace/schema.c"))
    for stmt in gen_trace.split_sql(schema):
        db.execute(stmt)
    command = "python3 train.py --ddp"
    db.executemany("INSERT OR REPLACE INTO meta VALUES(?,?)", [
        ("format", "kgantt-trace"), ("version", "1"), ("min_reader_version", "1"),
        ("clock", "CLOCK_MONOTONIC_RAW"), ("time_unit", "ns"), ("source", "kgantt-record"),
        ("created_by", "kgantt gen_job"), ("created_at", "2026-12-01T00:00:00Z"),
        ("command", command)])
    first = min(k[9] for k in kernels) - 5_000_000
    last = max(k[10] for k in kernels) + 5_000_000
    db.execute("INSERT INTO processes(process, pid, ppid, host, exe, cmdline, rank, start_ns, "
               "end_ns, realtime_offset_ns, mode, latency_timestamps, cupti_api_version, "
               "complete, exit_status, dropped_records, incomplete_records, late_buffers) "
               "VALUES(1,?,1,?,'/usr/bin/python3',?,?,?,?,?,'full',1,130001,1,NULL,0,0,0)",
               (10_000 + r, "node%03d" % h, command, str(r), first, last,
                REALTIME_BASE - shift + plan.ntp[h]))
    db.execute("INSERT INTO devices(process, device, name, uuid, sm_count, max_warps_per_sm, "
               "max_blocks_per_sm, max_threads_per_block, max_regs_per_sm, max_regs_per_block, "
               "max_smem_per_sm, max_smem_per_block, threads_per_warp, cc_major, cc_minor, "
               "memory_bytes) VALUES(1,?,'NVIDIA H200',?,132,64,32,1024,65536,65536,233472,"
               "49152,32,9,0,150109880320)",
               (r % a.ranks_per_host, "GPU-%08x-job" % (r * 2654435761 % 2**32)))
    db.execute("INSERT INTO contexts(process, context, device, null_stream, green) "
               "VALUES(1,1,?,7,0)", (r % a.ranks_per_host,))
    db.executemany("INSERT INTO streams(process, context, stream, priority, flags, correlation)"
                   " VALUES(1,1,?,?,?,0)", [(COMPUTE, 0, 3), (COMM, -1, 2), (P2P, -1, 2),
                                                  (SIDE, 0, 2)])
    db.executemany("INSERT INTO strings VALUES(?,?)", srows)
    db.executemany(
        "INSERT INTO kernels(process, device, context, stream, correlation, name, demangled, "
        "queued, submitted, start, end, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
        "registers_per_thread, static_smem, dynamic_smem, local_mem_per_thread, "
        "launch_type, incomplete) VALUES(%s)" % ",".join("?" * 23),
        [(k[0], r % a.ranks_per_host) + k[2:] for k in kernels])
    db.executemany("INSERT INTO api_calls(process, thread, domain, cbid, name, start, end, "
                   "correlation, return_value) VALUES(?,?,?,?,?,?,?,?,?)", apis)
    db.executemany("INSERT INTO nvtx(process, thread, domain, name, start, end, end_thread) "
                   "VALUES(?,?,?,?,?,?,?)", nvtx)
    for stmt in gen_trace.split_sql(index):
        db.execute(stmt)
    db.execute("COMMIT")
    db.close()
    os.replace(tmp, path)
    return len(kernels)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", required=True, help="the folder to write (created)")
    ap.add_argument("-n", "--ranks", type=int, default=1024)
    ap.add_argument("-k", "--kernels", type=int, default=10000, help="kernels per rank")
    ap.add_argument("--ranks-per-host", type=int, default=8)
    ap.add_argument("--ntp-error-us", type=int, default=300)
    ap.add_argument("--straggler", action="append", help="RANK:FIRST-LAST:MS (repeatable)")
    ap.add_argument("--slow", action="append", help="RANK:FACTOR (repeatable)")
    ap.add_argument("--extra", action="append", help="RANK:STEP:COUNT (repeatable)")
    ap.add_argument("--clean", action="store_true",
                    help="plant nothing but what --straggler, --slow, --extra ask for")
    ap.add_argument("--startup", type=float, default=0,
                    help="MS of start-up before each rank's first step (one set-up kernel first)")
    ap.add_argument("--no-step-ranges", action="store_true",
                    help="write no NVTX `step` range, and name the optimizer's kernels apart: "
                         "the steps are then only the rhythm of the launches, each marked "
                         "by its optimizer (the job report finds them from it)")
    ap.add_argument("--p2p", action="store_true",
                    help="also point-to-point transfers (a SendRecv kernel a step on a stream "
                         "of its own), each rank's 0.2 ms after the rank before's: not "
                         "collectives, no straggler")
    ap.add_argument("--exposed", action="store_true",
                    help="launch every all-reduce after the whole backward pass (no bucket "
                         "overlaps compute): exposed communication, planted on every rank")
    ap.add_argument("--exposed-tail", type=int, default=0, metavar="US",
                    help="a compute kernel on a stream of its own beside the last US µs of "
                         "every all-reduce: its first stretch exposed, its tail not")
    ap.add_argument("--no-comm", action="store_true",
                    help="write no all-reduce kernel (the ranks still run in step)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    n = a.ranks
    if a.clean:  # nothing but what is asked for
        a.straggler, a.slow, a.extra = a.straggler or [], a.slow or [], a.extra or []
    if a.straggler is None:
        a.straggler = ["%d:2-1000000:3" % min(3, n - 1)] + (["%d:5-9:6" % (n - 5)] if n > 8 else [])
    if a.slow is None:
        a.slow = ["%d:1.3" % (n // 2)] if n >= 4 else []
    if a.extra is None:
        a.extra = ["%d:4:6" % (n - 2)] if n >= 4 else []
    os.makedirs(a.output, exist_ok=True)
    plan = Plan(a)
    ends = collective_ends(plan)
    work = [(plan, ends, r) for r in range(n)]
    if a.jobs > 1:
        with multiprocessing.Pool(a.jobs) as pool:
            counts = pool.map(write_rank, work, chunksize=4)
    else:
        counts = [write_rank(w) for w in work]
    truth = {"ranks": n, "steps": plan.steps, "kernels_per_rank": counts[0],
             "stragglers": {str(r): {"steps": [lo + 1, min(hi, plan.steps - 1) + 1], "ms": ns / 1e6}
                            for r, (lo, hi, ns) in plan.strag.items()},
             "slow": {str(r): f for r, f in plan.slow.items()},
             "extra_kernels": [{"rank": r, "step": st + 1, "count": c}
                               for (r, st), c in plan.extra.items()],
             "hosts": len(plan.boot), "ntp_error_ns": plan.ntp,
             "step_ranges": not a.no_step_ranges, "exposed": a.exposed}
    with open(a.output.rstrip("/") + ".truth.json", "w") as f:
        json.dump(truth, f, indent=1)
    print("wrote %d rank traces (%d steps, %d kernels each) to %s" % (n, plan.steps, counts[0],
                                                                       a.output))


if __name__ == "__main__":
    main()
