#!/usr/bin/env python3
"""Checks of traces made by tests/gpu/record_options.sh, one per scenario; used on the GPU
machine right after recording and in CI on the committed fixtures.

usage: check_trace.py SCENARIO TRACE     (prints one line; exits 1 on failure)
"""
import sys

import kgt_rows


def window_delay_duration(q, one):
    # --delay 1 --duration 1 over ~1 ms kernels for 4 s
    n = one("select count(*) from kernels")
    first = one("select min(start) from kernels")
    last = one("select max(end) from kernels")
    caps = [c[0] for c in q("select why from captures order by ts")]
    assert 300 < n < 1500, n
    assert caps == ["delay elapsed", "duration elapsed"], caps
    assert last - first < 1.3e9, (first, last)
    return "window: %d kernels in %.2f s, captures %s" % (n, (last - first) / 1e9, caps)


def capture_range(q, one):
    rows = q("select s.text, count(*) from kernels k join strings s on s.id = k.demangled group by 1")
    assert rows == [("profrange_inside(float*, int)", 50)], rows
    return "capture range: %s" % rows


def capture_range_off(q, one):
    n = one("select count(*) from kernels")
    assert n == 450, n
    return "no capture range: all %d kernels" % n


def latency_off_every_launch(q, one):
    # full mode with --latency off: no kernel says when it was queued, so every launch's
    # call is recorded (src/recorder/inject.c, setup_launch_windows)
    settings = q("select calls, why from launch_settings")
    assert settings == [("all", "record --latency off")], settings
    n = one("select count(*) from kernels")
    queued = one("select count(*) from kernels where queued > 0")
    called = one("select count(*) from kernels k join api_calls a "
                 "on a.process = k.process and a.correlation = k.correlation")
    assert n == 450 and queued == 0 and called == n, (n, queued, called)
    return "--latency off: all %d launches have their call, none a queued time" % n


def _ended(q, one, want):
    complete, status, note = q("select complete, exit_status, spool_note from processes")[0]
    n = one("select count(*) from kernels")
    assert complete == 0 and n >= 300, (complete, n)
    assert status.startswith(want), status
    assert "no end record" in note, note
    return "incomplete trace with %d kernels, status %s" % (n, status)


def end_abort(q, one):
    return _ended(q, one, "signal 6")


def end__exit(q, one):
    return _ended(q, one, "exit 3")


def end_segfault(q, one):
    return _ended(q, one, "signal 11")


def torchrun_2ranks(q, one):
    # torchrun itself initialises CUDA too: the launcher is recorded as a rank-less process
    procs = q("select pid, ppid, rank, complete from processes where rank is not null order by rank")
    ranks = [p[2] for p in procs]
    launcher = q("select pid from processes where rank is null")
    nccl = one("select count(*) from kernels k join strings s on s.id = k.demangled "
                "where s.text like '%nccl%'")
    assert ranks == ["0", "1"], procs
    assert all(p[3] == 1 for p in procs), procs
    assert launcher and all(p[1] == launcher[0][0] for p in procs), (launcher, procs)
    # torch_ranks.py all-reduces only when each rank has a GPU of its own
    gpus = one("select count(distinct device) from kernels")
    assert nccl >= 2 if gpus >= 2 else nccl == 0, (gpus, nccl)
    return "torchrun: ranks %s under launcher %s on %d GPU(s), %d NCCL kernels" % (
        ranks, launcher[0][0], gpus, nccl)


def cupti_first(q, one):
    # the program subscribed to CUPTI first: kgantt was refused, recorded nothing, said why
    msgs = [m[0] for m in q("select text from messages where level = 'error'")]
    assert any("MULTIPLE_SUBSCRIBERS" in m for m in msgs), msgs
    assert one("select count(*) from kernels") == 0
    # refused, not dead: the recorder ended its spool cleanly
    assert one("select complete from processes") == 1
    return "refused and said so: %s" % msgs[0][:80]


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in globals() or sys.argv[1].startswith("_"):
        print(__doc__, file=sys.stderr)
        return 2
    db = kgt_rows.connect(sys.argv[2])
    q = lambda sql, *a: db.execute(sql, a).fetchall()
    one = lambda sql, *a: db.execute(sql, a).fetchone()[0]
    try:
        print(globals()[sys.argv[1]](q, one))
    except AssertionError as e:
        print("FAIL %s: %s" % (sys.argv[1], e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
