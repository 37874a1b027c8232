#!/usr/bin/env python3
"""Writes a pipeline-parallel job as PyTorch's profiler writes it (Kineto JSON, one file
per rank), for the job report's point-to-point pairing (tests/e2e/t100_job.sh):

    gen_pipeline.py DIR [--stages 4] [--micro 8] [--slow STAGE:FACTOR]

Each stage r receives a micro-batch's activations from stage r - 1, computes, and sends
them to stage r + 1, as dist.recv / dist.send do: a record_param_comms cpu_op (args
"Collective name" send/recv, "In msg nelems", "Process Group Name", "Process Group
Ranks", a send's "Dst Rank", a recv's "Src Rank"), the nccl:send / nccl:recv annotation
inside it, the cudaLaunchKernel inside that, and an ncclDevKernel_SendRecv kernel on the
communication stream. The last two stages talk in a group of their own, "[S-2, S-1]", and
their calls name no peer (as PyTorch before 2.5 wrote them): the peer is the group's
other rank. Each rank ends with one SendRecv kernel no call names (unpaired). Timing is
NCCL's: a recv kernel posted early waits for its send, and both end once the data is
through. --slow makes a stage's compute slower: the next stage's recvs wait for it.
"""
import argparse
import json
import os

T0 = 1_790_000_000_000_000  # µs: Unix time, as Kineto writes
ELEMS = 4 * 2048 * 4096
XFER_NS, COMPUTE_NS, POST_NS = 180_000, 900_000, 20_000
KERNEL = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cublas"


def us(ns):
    return round(T0 + ns / 1000.0, 3)


class Rank:
    def __init__(self, r):
        self.r, self.ev, self.corr, self.ext = r, [], 0, 0

    def x(self, cat, name, s, e, tid, **args):
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": 100 + self.r,
                        "tid": tid, "ts": us(s), "dur": round((e - s) / 1000.0, 3),
                        "args": args})

    def kernel(self, name, host, s, e, stream):
        self.corr += 1
        self.x("cuda_runtime", "cudaLaunchKernel", host, host + 4000, 1,
               correlation=self.corr, cbid=211)
        self.x("kernel", name, s, e, stream, device=self.r, context=1, stream=stream,
               correlation=self.corr, grid=[16, 1, 1], block=[640, 1, 1])

    def p2p(self, send, peer, group, ranks, host, s, e, name_peer):
        args = {"Collective name": "send" if send else "recv", "dtype": "BFloat16",
                "In msg nelems": ELEMS, "Out msg nelems": ELEMS, "Group size": len(ranks),
                "Process Group Name": group,
                "Process Group Ranks": "[" + ", ".join(map(str, ranks)) + "]"}
        if name_peer:
            args["Dst Rank" if send else "Src Rank"] = peer
        self.x("cpu_op", "record_param_comms", host, host + 12000, 1, **args)
        self.x("user_annotation", "nccl:send" if send else "nccl:recv", host + 1000,
               host + 11000, 1, **{"Input Dims": [[ELEMS]]})
        self.kernel(KERNEL, host + 2000, s, e, 20)


def link(a, n):
    """The group and its ranks of the transfer from stage a to a + 1 of n stages."""
    if a + 1 == n - 1 and n >= 3:
        return "5", [n - 2, n - 1], False
    return "0", list(range(n)), True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--stages", type=int, default=4)
    ap.add_argument("--micro", type=int, default=8)
    ap.add_argument("--slow", default="", help="STAGE:FACTOR")
    a = ap.parse_args()
    n = a.stages
    slow = {int(a.slow.split(":")[0]): float(a.slow.split(":")[1])} if a.slow else {}
    ranks = [Rank(r) for r in range(n)]
    free = [0] * n  # when each stage's GPU is done with its last micro-batch
    for m in range(a.micro):
        done_prev = None  # when stage r - 1 finished computing micro-batch m
        for r in range(n):
            start = free[r]
            if r > 0:  # stage r - 1 sends, stage r receives: one transfer
                group, members, named = link(r - 1, n)
                post = free[r] + POST_NS           # the recv, posted once the stage is free
                send = done_prev + 5000            # the send, once the data is computed
                end = max(post, send) + XFER_NS    # both end once the data is through
                ranks[r - 1].p2p(True, r, group, members, send - 8000, send, end, named)
                ranks[r].p2p(False, r - 1, group, members, post - 60_000, post, end, named)
                start = end
            c = int(COMPUTE_NS * slow.get(r, 1.0))
            ranks[r].kernel(GEMM, start - 10_000, start + 2000, start + 2000 + c, 7)
            done_prev = start + 2000 + c
            free[r] = done_prev
    os.makedirs(a.dir, exist_ok=True)
    for R in ranks:  # one SendRecv kernel no call names: a peer nobody can tell
        t = max(free) + 1_000_000
        R.kernel(KERNEL, t - 20_000, t, t + 50_000, 21)
        R.ev.sort(key=lambda e: e["ts"])
        doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": R.r,
                                                       "world_size": n},
               "deviceProperties": [{"id": R.r, "name": "NVIDIA H200", "numSms": 132,
                                     "computeMajor": 9, "computeMinor": 0}],
               "traceEvents": R.ev, "traceName": "stage%d.json" % R.r}
        with open(os.path.join(a.dir, "stage%d.json" % R.r), "w") as f:
            json.dump(doc, f)


if __name__ == "__main__":
    main()
