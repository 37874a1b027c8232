#!/usr/bin/env python3
"""What a trace-event JSON export (kgantt export -f chrome|perfetto) holds, independently
of kgantt: its slices by category, its flow arrows as (launch call, op) pairs, whichever
way they are written (v1: "s"/"f" events bound to the enclosing slice; v2: "bind_id" with
"flow_out" on the call and "flow_in" on each op), and its named tracks.

  trace_events.py counts JSON TRACE.kgt
      the slices and arrows against the trace's own rows, read with sqlite3 (a trace whose
      kernels and api_calls are SQL rows: a fixture, or one `export -f sqlite` wrote):
      one slice per kernel, copy, memset, API call, NVTX range and sync, one arrow per op
      whose launch call is in the trace, one queue slice (perfetto) per kernel with a
      queued time.
  trace_events.py same BEFORE.json AFTER.json [--dropped CAT:KEY,...]
      the same slices (category, name, track, start, duration), the same arrows, the same
      metadata and counter events; each slice's args the same but for the arg KEY of the
      slices of category CAT (kernel:device, queue:submitted_rel_ns) where listed.
"""
import bisect
import collections
import json
import sqlite3
import sys
from decimal import Decimal


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_float=Decimal)["traceEvents"]


def ns(v):
    """µs as a JSON number (Decimal or int) -> integer ns"""
    return int(Decimal(v) * 1000)


def slice_key(e):
    return (e.get("cat"), e["name"], e["pid"], e["tid"], ns(e["ts"]), ns(e["dur"]))


def enclosing(by_track, pid, tid, t):
    """the innermost slice of track (pid, tid) around time t (ns): on a track whose slices
    nest, the last one to start by t that is still open at t"""
    track = by_track.get((pid, tid), ([], []))
    i = bisect.bisect_right(track[0], t)
    while i > 0:
        i -= 1
        k = track[1][i]
        if k[4] + k[5] >= t:
            return k
    return None


def flows(ev):
    """the arrows as a Counter of (from slice, to slice)"""
    xs = [e for e in ev if e["ph"] == "X"]
    out = collections.Counter()
    outs = {e["bind_id"]: slice_key(e) for e in xs if e.get("flow_out")}
    for e in xs:
        if e.get("flow_in"):
            assert e["bind_id"] in outs, "flow_in %s without its flow_out" % e["bind_id"]
            out[(outs[e["bind_id"]], slice_key(e))] += 1
    starts = {e["id"]: e for e in ev if e["ph"] == "s"}
    ends = [e for e in ev if e["ph"] == "f"]
    if starts or ends:
        lists = collections.defaultdict(list)
        for e in xs:
            lists[(e["pid"], e["tid"])].append(slice_key(e))
        by_track = {}
        for k, v in lists.items():
            v.sort(key=lambda x: (x[4], -x[5]))
            by_track[k] = ([x[4] for x in v], v)
        assert len(starts) == len(ends), "v1 flows do not pair up"
        for f in ends:
            s = starts[f["id"]]
            a = enclosing(by_track, s["pid"], s["tid"], ns(s["ts"]))
            b = enclosing(by_track, f["pid"], f["tid"], ns(f["ts"]))
            assert a and b, "flow %s not inside slices" % f["id"]
            out[(a, b)] += 1
    return out


def cats(ev):
    return collections.Counter((e["ph"], e.get("cat")) for e in ev)


def counts(path, trace):
    ev = load(path)
    db = sqlite3.connect(trace)

    def q(sql):
        return db.execute(sql).fetchone()[0]

    timed = "start IS NOT NULL AND end IS NOT NULL"
    want = {
        "kernel": q("SELECT COUNT(*) FROM kernels WHERE " + timed),
        "memcpy": q("SELECT COUNT(*) FROM memcpys WHERE " + timed),
        "memset": q("SELECT COUNT(*) FROM memsets WHERE " + timed),
        "api": q("SELECT COUNT(*) FROM api_calls"),
        "nvtx": q("SELECT COUNT(*) FROM nvtx"),
        "sync": q("SELECT COUNT(*) FROM syncs"),
    }
    launched = " ".join(
        "+ (SELECT COUNT(*) FROM %s o WHERE o.%s AND o.correlation != 0 AND EXISTS "
        "(SELECT 1 FROM api_calls a WHERE a.process = o.process AND "
        "a.correlation = o.correlation))" % (t, timed.replace(" AND ", " AND o."))
        for t in ("kernels", "memcpys", "memsets"))
    want["arrows"] = q("SELECT 0 " + launched)
    c = cats(ev)
    got = {k: c[("X", k)] for k in ("kernel", "memcpy", "memset", "nvtx", "sync")}
    got["api"] = c[("X", "cuda_runtime")] + c[("X", "cuda_driver")]
    got["arrows"] = sum(flows(ev).values())
    if c[("X", "queue")]:
        want["queue"] = q("SELECT COUNT(*) FROM kernels WHERE queued IS NOT NULL AND "
                          "start IS NOT NULL AND end IS NOT NULL AND queued <= start")
        got["queue"] = c[("X", "queue")]
    assert got == want, "export %s, trace %s" % (got, want)
    print(" ".join("%s %d" % kv for kv in sorted(got.items())))


def same(before, after, dropped):
    a, b = load(before), load(after)
    ca, cb = cats(a), cats(b)
    for k in set(ca) | set(cb):
        if k[0] not in ("s", "f"):
            assert ca[k] == cb[k], "%s: %d before, %d after" % (k, ca[k], cb[k])
    fa, fb = flows(a), flows(b)
    assert fa == fb, "arrows differ: %d before, %d after, %d in common" % (
        sum(fa.values()), sum(fb.values()), sum((fa & fb).values()))
    meta = lambda ev: collections.Counter(json.dumps(e, sort_keys=True, default=str)
                                          for e in ev if e["ph"] in ("M", "C"))
    assert meta(a) == meta(b), "metadata or counter events differ"

    def args(ev):
        out = collections.Counter()
        for e in ev:
            if e["ph"] == "X":
                kept = {k: str(v) for k, v in e.get("args", {}).items()
                        if "%s:%s" % (e.get("cat"), k) not in dropped}
                out[(slice_key(e), json.dumps(kept, sort_keys=True))] += 1
        return out
    xa, xb = args(a), args(b)
    assert xa == xb, "%d slices differ (first before: %s; after: %s)" % (
        sum((xa - xb).values()), next(iter(xa - xb), None), next(iter(xb - xa), None))
    print("same events: %s; %d arrows" % (
        ", ".join("%s/%s %d" % (k[0], k[1], v) for k, v in sorted(cb.items(), key=str)),
        sum(fb.values())))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "counts":
        counts(sys.argv[2], sys.argv[3])
    elif len(sys.argv) in (4, 6) and sys.argv[1] == "same":
        drop = set(sys.argv[5].split(",")) if len(sys.argv) == 6 and sys.argv[4] == "--dropped" else set()
        same(sys.argv[2], sys.argv[3], drop)
    else:
        sys.exit(__doc__)
