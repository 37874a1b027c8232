#!/usr/bin/env python3
"""Which sends and recvs of a job of Kineto traces (one per rank) are one transfer, and
how long each recv waited for its send, from the raw events with nothing of kgantt's
(tests/e2e/t100_job.sh compares):

    expect_p2p.py DIR  ->  one JSON object on stdout

A communication kernel is what the record_param_comms cpu_op around its launch (the
cuda_runtime event of its correlation, on the same thread) says: "Collective name" send
or recv, "In msg nelems", the group ("Process Group Name", "Process Group Ranks"), and
its peer: a send's "Dst Rank", a recv's "Src Rank", else the other rank of a group of
two. The k-th send from rank a to rank b of a group and size is the k-th recv of b from
a of that group and size (NCCL's order). Times are Unix µs (one clock).
  transfers: how many pairs; paired: their kernels; unpaired: the other kernels whose
  name says SendRecv/Send/Recv; wait_ns: per receiving rank, max(0, min(send start,
  recv end) - recv start) summed; caused_ns: the same per sending rank; total_wait_ns.
"""
import collections
import json
import os
import sys


def kernels(path):
    t = json.load(open(path))
    me = t["distributedInfo"]["rank"]
    ev = [e for e in t["traceEvents"] if e.get("ph") == "X"]
    launch = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime"}
    calls = [e for e in ev if e.get("name") == "record_param_comms"]
    out = []
    for k in ev:
        if k.get("cat") != "kernel" or "SendRecv" not in k["name"]:
            continue
        l = launch.get(k["args"]["correlation"])
        around = [c for c in calls if l and c["tid"] == l["tid"]
                  and c["ts"] <= l["ts"] <= c["ts"] + c["dur"]]
        item = {"rank": me, "start": k["ts"], "end": k["ts"] + k["dur"], "xfer": None}
        if around:
            a = around[-1]["args"]
            kind = a.get("Collective name")
            members = json.loads(a.get("Process Group Ranks", "[]"))
            peer = a.get("Dst Rank" if kind == "send" else "Src Rank")
            if peer is None and len(members) == 2 and me in members:
                peer = [x for x in members if x != me][0]
            if kind in ("send", "recv") and peer is not None:
                src, dst = (me, peer) if kind == "send" else (peer, me)
                item["xfer"] = (kind, (a.get("Process Group Name"), tuple(members), src, dst,
                                       a.get("In msg nelems")))
        out.append(item)
    return out


def main():
    folder = sys.argv[1]
    ks = []
    for f in sorted(os.listdir(folder)):
        if f.endswith(".json"):
            ks += kernels(os.path.join(folder, f))
    queues = collections.defaultdict(lambda: {"send": [], "recv": []})
    for k in sorted(ks, key=lambda k: k["start"]):
        if k["xfer"]:
            queues[k["xfer"][1]][k["xfer"][0]].append(k)
    wait, caused = collections.Counter(), collections.Counter()
    transfers = 0
    for q in queues.values():
        for s, r in zip(q["send"], q["recv"]):
            w = max(0.0, min(s["start"], r["end"]) - r["start"])
            wait[str(r["rank"])] += round(w * 1000)
            caused[str(s["rank"])] += round(w * 1000)
            transfers += 1
    print(json.dumps({"transfers": transfers, "paired": 2 * transfers,
                      "unpaired": len(ks) - 2 * transfers, "wait_ns": wait,
                      "caused_ns": caused, "total_wait_ns": sum(wait.values())}))


if __name__ == "__main__":
    main()
