#!/usr/bin/env python3
"""expect_nsys_host.py EXPORT.sqlite — what the launching thread did while the GPU waited,
recounted from an Nsight Systems export's raw rows without kgantt (tests/e2e/t106_nsys_host_samples.sh
checks kgantt's report --json --host of the export against it).

The GPU's idle gaps: the time between the union of one device's kernels, copies and
memsets, gaps of 10 µs or more. A gap's launching thread: the thread of the CUDA call whose
correlation id is that of the first operation after the gap (the earliest call of that id).
In a gap, the thread's time inside its CUDA calls is the outermost call's: the functions of
its backtrace (CUDA_CALLCHAINS through callchainId, kept on the call of its correlation id
that has one). The rest is its CPU samples' (COMPOSITE_EVENTS): a sample stands for the time
before it, at most the sampling period (the median time between a thread's consecutive
samples in the process), from where the thread's previous sample is at the latest; the
functions of its frames (SAMPLING_CALLCHAINS, the sample's id) get that time. Each function
is counted once per sample or call, however often it is on the stack; frames nsys did not
resolve (named by an address, or flagged unresolved) are left out. With --host-or-sync,
only the gaps whose next operation's launch call started after the GPU went idle (kgantt's
causes host and sync; the others are launch latency). Prints one JSON object:

  idle_ns, gaps      the gaps
  sampled_ns         the samples' time in them, outside CUDA calls
  calls_ns           the CUDA calls' time in them
  waiting_calls_ns   of that, in calls that wait for the GPU: a name with "Synchronize",
                     cudaStreamWaitEvent, a copy or memset without "Async"
  sync_frames_ns     the samples' time with such a function on the stack (a static
                     cudart's), none of a tracer's library
  tracer_ns          the samples' time with a frame in a tracer's library (libcupti,
                     Nsight Systems' libToolsInjection, libkineto, kgantt's recorder)
  functions          {function: ns}: the time with that function on the stack
"""
import os
import re
import json
import sqlite3
import sys
from bisect import bisect_left

MIN_GAP_NS = 10000
TID_MASK = 0xFFFFFF


def has_table(db, name):
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()


def gaps_of(db):
    """(start, end, correlation, globalPid) of each idle gap, every device."""
    by_dev = {}
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                  "CUPTI_ACTIVITY_KIND_MEMSET"):
        if has_table(db, table):
            for s, e, dev, corr, pid in db.execute(
                    f'SELECT start, "end", deviceId, correlationId, globalPid FROM {table}'):
                by_dev.setdefault(dev, []).append((s, e, corr, pid))
    gaps = []
    for ops in by_dev.values():
        ops.sort()
        busy_end = None
        for s, e, corr, pid in ops:
            if busy_end is not None and s - busy_end >= MIN_GAP_NS:
                gaps.append((busy_end, s, corr, pid))
            busy_end = e if busy_end is None else max(busy_end, e)
    return gaps


TRACER_LIBS = ("libcupti", "libToolsInjection", "libkineto", "libkgantt-inject")
WAITING = re.compile(r"^(cuda|cu|hip)[A-Z]\w*$")


def waits(name):
    """A CUDA C function that makes the host wait for the GPU, by its name as CUPTI gives
    it (a version suffix, "_v3020", does not matter)."""
    name = re.sub(r"_v\d+$", "", name or "")
    if not name or not WAITING.match(name):
        return False
    if "Synchronize" in name or name.startswith(("cudaStreamWaitEvent", "cuStreamWaitEvent")):
        return True
    lower = name.lower()
    return ("memcpy" in lower or "memset" in lower) and "Async" not in name


class Chain(list):
    """The functions of a stack, innermost first; .tracer: a frame in a tracer's library."""
    tracer = False


def chains(db, table):
    """{id: Chain} innermost first, resolved frames only."""
    text = dict(db.execute("SELECT id, value FROM StringIds"))
    out = {}
    if not has_table(db, table):
        return out
    for cid, sym, module, unresolved in db.execute(
            f"SELECT id, symbol, module, unresolved FROM {table} ORDER BY id, stackDepth"):
        name = text.get(sym, "")
        fr = out.setdefault(cid, Chain())
        if os.path.basename(text.get(module) or "").startswith(TRACER_LIBS):
            fr.tracer = True
        if not unresolved and name and not name.startswith("0x"):
            fr.append(name)
    return out


def calls_of(db):
    """Per thread: the outermost calls, by start, each with the functions of its backtrace;
    and the thread of each (process, correlation), its earliest call's."""
    cc = chains(db, "CUDA_CALLCHAINS")
    text = dict(db.execute("SELECT id, value FROM StringIds"))
    rows = db.execute("SELECT start, \"end\", globalTid, correlationId, callchainId, nameId, "
                      "eventClass FROM CUPTI_ACTIVITY_KIND_RUNTIME ORDER BY start").fetchall()
    # a CUDA backtrace record (event class 67 where the export has no ENUM table) gives its
    # callchain to the call of its correlation id, and is no call of its own
    backtrace = {67}
    if has_table(db, "ENUM_NSYS_EVENT_CLASS"):
        backtrace = {i for i, n in db.execute("SELECT id, name FROM ENUM_NSYS_EVENT_CLASS")
                     if n.endswith("CUDABACKTRACE")}
    chain_of, thread_of, issued_of = {}, {}, {}
    for s, e, gtid, corr, chain, name, cls in rows:
        key = (gtid & ~TID_MASK, corr)
        if chain is not None and chain in cc:
            chain_of.setdefault(key, cc[chain])
        if cls in backtrace:
            continue
        thread_of.setdefault(key, gtid)
        issued_of.setdefault(key, s)
    calls = {}
    for s, e, gtid, corr, chain, name, cls in rows:
        if cls in backtrace:
            continue
        own = calls.setdefault(gtid, [])
        if own and e <= own[-1][1]:
            continue  # inside the call before it
        start = max(s, own[-1][1]) if own else s
        if e > start:
            own.append([start, e, chain_of.get((gtid & ~TID_MASK, corr), []),
                        waits(text.get(name, ""))])
    return calls, thread_of, issued_of


def samples_of(db):
    """Per thread: its samples' spans (start, end, functions), by end."""
    sc = chains(db, "SAMPLING_CALLCHAINS")
    by_thread = {}
    for sid, ts, gtid in db.execute("SELECT id, start, globalTid FROM COMPOSITE_EVENTS"):
        by_thread.setdefault(gtid, []).append((ts, sid))
    period = {}
    steps = {}
    for gtid, v in by_thread.items():
        v.sort()
        steps.setdefault(gtid & ~TID_MASK, []).extend(
            b[0] - a[0] for a, b in zip(v, v[1:]) if b[0] > a[0])
    for pkey, d in steps.items():
        d.sort()
        period[pkey] = d[len(d) // 2] if d else 1000000
    spans = {}
    for gtid, v in by_thread.items():
        p, prev, out = period[gtid & ~TID_MASK], None, []
        for ts, sid in v:
            start = ts - p if prev is None else max(ts - p, prev)
            if ts > start:
                out.append((start, ts, sc.get(sid, Chain())))
            prev = ts
        spans[gtid] = out
    return spans


def count(functions, names, ns):
    for f in set(names):
        functions[f] = functions.get(f, 0) + ns


def main(path, host_or_sync):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    calls, thread_of, issued_of = calls_of(db)
    gaps = [g for g in gaps_of(db) if not host_or_sync or
            issued_of.get((g[3] & ~TID_MASK, g[2]), g[0]) > g[0]]
    spans = samples_of(db)
    ends = {t: [x[1] for x in v] for t, v in spans.items()}
    call_ends = {t: [x[1] for x in v] for t, v in calls.items()}
    functions, idle, sampled, in_calls = {}, 0, 0, 0
    waiting, sync_frames, tracer = 0, 0, 0
    for s, e, corr, pid in gaps:
        idle += e - s
        t = thread_of.get((pid & ~TID_MASK, corr))
        if t is None:
            continue
        inside = []
        own = calls.get(t, [])
        for a, b, names, waiting_call in own[bisect_left(call_ends.get(t, []), s + 1):]:
            if a >= e:
                break
            lo, hi = max(a, s), min(b, e)
            if hi > lo:
                inside.append((lo, hi))
                in_calls += hi - lo
                waiting += (hi - lo) if waiting_call else 0
                count(functions, names, hi - lo)
        v = spans.get(t, [])
        for a, b, names in v[bisect_left(ends.get(t, []), s + 1):]:
            if a >= e:
                break
            lo, hi = max(a, s), min(b, e)
            ns = (hi - lo) - sum(max(0, min(hi, y) - max(lo, x)) for x, y in inside)
            if ns > 0:
                sampled += ns
                count(functions, names, ns)
                if names.tracer:
                    tracer += ns
                elif any(waits(n) for n in names):
                    sync_frames += ns
    print(json.dumps({"idle_ns": idle, "gaps": len(gaps), "sampled_ns": sampled,
                      "calls_ns": in_calls, "waiting_calls_ns": waiting,
                      "sync_frames_ns": sync_frames, "tracer_ns": tracer,
                      "functions": functions}, sort_keys=True))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--host-or-sync"]
    if len(args) != 1:
        sys.exit("usage: expect_nsys_host.py [--host-or-sync] EXPORT.sqlite")
    main(args[0], "--host-or-sync" in sys.argv[1:])
