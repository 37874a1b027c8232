#!/usr/bin/env python3
"""Full mode with every launch dated by the launch hook (KGANTT_DEV_DATED=1), checked from
a trace's raw rows, never from kgantt's analysis.

    check_dated.py [--queued] TRACE...

Each trace: how many kernels outside graphs (and not launched from the device) have a
launch call (the import paired them by launch order: src/trace/hooked_import.h), how many
launch calls have no kernel, and the trace's warnings. With --queued the trace was recorded
with latency timestamps too and KGANTT_DEV_MATCH=order: then each paired kernel's queued
time (the driver's own host time) must lie inside its call, which checks the pairing
itself. Exit 1 when under 99 % of a trace's kernels are dated, or (--queued) under 99 % of
the dated ones lie inside their call."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kgt_rows  # noqa: E402


def check(path, queued):
    db = kgt_rows.connect(path)
    name = os.path.basename(path)
    kernels = db.execute("SELECT count(*) FROM kernels WHERE graph IS NULL AND "
                         "NOT device_launched").fetchone()[0]
    rows = db.execute(
        "SELECT k.queued, a.start, a.end FROM kernels k JOIN api_calls a ON "
        "a.correlation = k.correlation AND a.process = k.process "
        "WHERE k.graph IS NULL AND NOT k.device_launched").fetchall()
    unpaired = db.execute(
        "SELECT count(*) FROM api_calls a JOIN strings s ON s.id = a.name WHERE "
        "s.text LIKE 'cuLaunch%' AND a.correlation >= 4026531840").fetchone()[0]
    how = db.execute("SELECT group_concat(DISTINCT why) FROM launch_settings").fetchone()[0]
    warnings = [w for (w,) in db.execute("SELECT text FROM messages WHERE level = 'warning'")]
    dated = len(rows)
    line = "%s: %s; kernels outside graphs %d, dated by a call %d (%.2f %%), launch calls " \
        "without a kernel %d" % (name, how, kernels, dated,
                                 100.0 * dated / kernels if kernels else 100, unpaired)
    ok = not kernels or dated >= 0.99 * kernels
    if queued:
        inside = sum(1 for q, s, e in rows if q is not None and s <= q <= e)
        timed = sum(1 for q, s, e in rows if q is not None)
        line += "; queued inside its call %d of %d (%.2f %%)" % (
            inside, timed, 100.0 * inside / timed if timed else 100)
        ok = ok and (not timed or inside >= 0.99 * timed)
    print(line)
    for w in warnings:
        print("  warning:", w)
    return ok


def main(argv):
    queued = "--queued" in argv
    paths = [a for a in argv[1:] if a != "--queued"]
    if not paths:
        sys.exit(__doc__)
    ok = all([check(p, queued) for p in paths])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
