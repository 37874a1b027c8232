#!/usr/bin/env python3
"""The recorder's timed stacks (src/recorder/stacks.c, an overheads row of kind 0x4b470001:
src/util/tracer_work.h), checked from a trace's raw rows, never from kgantt's output.

    check_stack_times.py TRACE...
        each trace with call sites: one timed stack per call site, on its call's thread, the
        call named by its correlation id; a hooked launch's stack just before its call (the
        call's time leaves the unwinding out), a callback's inside its call. Exit 1 if not.
    check_stack_times.py --recording TRACE REPORT_JSON
        launch-overhead's recording figure recounted: the tiny kernels' gaps as
        docs/rules.md counts them (tests/tools/launch_gaps.py), the tracer's
        overhead rows of the launching thread inside them, each gap's part scaled to its
        gain (the gap less 150 ns); the report's JSON must say the same (too few samples:
        host.tracer_records_ns within 2 %), or more (samples add to it).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../tools"))
import kgt_rows  # noqa: E402
from launch_gaps import SLOW_NS, judged_gaps  # noqa: E402

STACK = 0x4B470001
TRACER = (1 << 16, 2 << 16, 3 << 16, 7 << 16, STACK)
GRAPH_GAP = 150  # ns: what a graph's launches leave between kernels


def check_trace(path):
    """(stacks timed, of them hooked), or None for a trace without call sites."""
    db = kgt_rows.connect(path)
    name = os.path.basename(path)
    sites = db.execute("SELECT count(*) FROM api_stacks").fetchone()[0]
    rows = db.execute("SELECT process, object, object_kind, start, end, correlation FROM overheads "
                      "WHERE kind = ?", (STACK,)).fetchall()
    if not sites:
        assert not rows, (name, len(rows), "stack times without stacks")
        return None
    assert len(rows) == sites, (name, len(rows), sites, "a stack time for each call site")
    # a runtime call and the driver calls inside it share an id: the outermost is the call
    calls = {}
    for p, t, n, s, e, c in db.execute("SELECT process, thread, name, start, end, correlation "
                                       "FROM api ORDER BY start DESC"):
        calls[(p, c)] = (t, n, s, e)
    hooked = 0
    for p, tid, kind, s, e, c in rows:
        assert kind == 2 and e > s, (name, kind, s, e)
        t, n, cs, ce = calls[(p, c)]
        assert t == tid, (name, c, "another thread's call")
        if n.startswith("cuLaunch"):
            assert e <= cs < e + 50000, (name, n, s, e, cs, "not just before its hooked call")
            hooked += 1
        else:
            assert cs <= s and e <= ce, (name, n, s, e, cs, ce, "not inside its call")
    return len(rows), hooked


def recount(path, report):
    db = kgt_rows.connect(path)
    (thread,) = db.execute("SELECT thread FROM api WHERE name LIKE 'cuLaunch%' GROUP BY thread "
                           "ORDER BY count(*) DESC LIMIT 1").fetchone()
    call_ns = {c: e - s for c, s, e in db.execute("SELECT correlation, start, end FROM api")}
    ops = sorted(db.execute("SELECT start, end, correlation, 1 FROM kernels UNION ALL "
                            "SELECT start, end, 0, 0 FROM memsets UNION ALL "
                            "SELECT start, end, 0, 0 FROM memcpys").fetchall())
    counted = [(a, b) for a, b, _ in judged_gaps(
        [(s, e, is_kernel, call_ns.get(c, 0) >= SLOW_NS) for s, e, c, is_kernel in ops])[0]]
    spans = db.execute("SELECT start, end FROM overheads WHERE object_kind = 2 AND object = ? AND "
                       "kind IN (%s) ORDER BY start" % ",".join(map(str, TRACER)),
                       (thread,)).fetchall()
    stacks = db.execute("SELECT count(*) FROM overheads WHERE object = ? AND kind = ?",
                        (thread, STACK)).fetchone()[0]
    want, k = 0.0, 0
    for a, b in counted:  # both in time order, the gaps apart
        while k < len(spans) and spans[k][1] <= a:
            k += 1
        j = k
        while j < len(spans) and spans[j][0] < b:
            want += (min(b, spans[j][1]) - max(a, spans[j][0])) * (b - a - GRAPH_GAP) / (b - a)
            j += 1
    f = [f for f in json.load(open(report, encoding="utf-8"))["findings"]
         if f["rule"] == "launch-overhead"][0]
    host = f["host"]
    if host.get("too_few_samples"):
        got = host["tracer_records_ns"]
        assert abs(got - want) <= 0.02 * want + 1000, (got, want)
    else:
        got = sum(c["ns"] for c in host["causes"] if c["cause"] == "tracing")
        assert got >= 0.98 * want, (got, want)
    assert stacks > 100 and want > 0, (stacks, want)
    print("ok: %s: %d gaps counted, %d stacks timed on the launching thread; the tracer's part "
          "of launch-overhead's gain %.3f ms, recounted %.3f ms"
          % (os.path.basename(path), len(counted), stacks, got / 1e6, want / 1e6))


def main(argv):
    if argv[:1] == ["--recording"]:
        recount(argv[1], argv[2])
        return 0
    traces = timed = hooked = 0
    for path in argv:
        r = check_trace(path)
        if r:
            traces += 1
            timed += r[0]
            hooked += r[1]
    print("ok: %d traces with call sites: %d stacks timed, each on its call's thread, %d just "
          "before their hooked launch calls, the rest inside their calls" % (traces, timed, hooked))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
