#!/usr/bin/env python3
"""A trace recorded with every launch call (record --all-launches) made into the trace the
default full mode would have recorded of the same run: kernel launch calls kept only in
the recorder's windows (src/recorder/launches.h, simulated here independently of it), the
process marked `sampled` in launch_settings. Comparing the two traces' reports isolates
what the sampling changes in the analysis, with the run itself held fixed.

A trace recorded with a stack for every call (record --all-launches --stacks all) is also
given the stacks the default (--stacks waits) would have taken (src/recorder/stacks.c,
simulated): of the launches kept, and of the asynchronous memsets, the first 8 of each
kernel (each memset function) and then one in 64; every synchronising call, copy, other
memset and allocation; no other call. Then the original is the truth of where every launch
was made, and the comparison measures all the sampling at once.

    sample_launches.py IN.kgt OUT.kgt [--on-ms 10] [--period-ms 100]

IN may be compacted (it is exported to rows with `kgantt export -f sqlite`, KGANTT or
build/kgantt); OUT is a rows trace that kgantt reads. Prints what was kept."""
import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

LAUNCH = re.compile(r"(LaunchKernel|^cudaLaunch|^cuLaunch)")
NOT_A_KERNEL = re.compile(r"(GraphLaunch|HostFunc)")
# util/api_names.c's categories that --stacks waits takes a stack of at every call
WAIT = re.compile(r"(Synchronize|^cudaStreamWaitEvent|^cuStreamWaitEvent|Memcpy|memcpy|Memset|memset|"
                  r"Malloc|Free|MemAlloc|MemFree|HostAlloc|HostRegister)")
LAUNCH_FIRST, LAUNCH_EVERY = 8, 64


def waits_mode_stacks(db, proc, every):
    """Drops the stacks --stacks waits would not have taken; returns how many are kept."""
    rows = db.execute(
        "SELECT a.correlation, s.text, k.name FROM api_calls a JOIN strings s ON s.id = a.name "
        "JOIN api_stacks t ON t.process = a.process AND t.correlation = a.correlation "
        "LEFT JOIN kernels k ON k.process = a.process AND k.correlation = a.correlation "
        "WHERE a.process = ? ORDER BY a.start", (proc,)).fetchall()
    counts, drop = {}, []
    for corr, fn, kernel in rows:
        launch = LAUNCH.search(fn) and not NOT_A_KERNEL.search(fn)
        if launch or (("Memset" in fn or "memset" in fn) and "Async" in fn):
            key = kernel if launch else fn
            counts[key] = counts.get(key, 0) + 1
            n = counts[key]
            if n <= LAUNCH_FIRST or (n - LAUNCH_FIRST) % every == 0:
                continue
        elif WAIT.search(fn):
            continue
        drop.append(corr)
    db.executemany("DELETE FROM api_stacks WHERE process = ? AND correlation = ?",
                   [(proc, c) for c in drop])
    return len(rows) - len(drop)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--on-ms", type=float, default=10)
    ap.add_argument("--period-ms", type=float, default=100)
    ap.add_argument("--stack-every", type=int, default=LAUNCH_EVERY,
                    help="with every stack recorded: one launch in N of each kernel after its "
                         "first 8 keeps its stack (the recorder's 64)")
    a = ap.parse_args()
    kgantt = os.environ.get("KGANTT", "build/kgantt")
    subprocess.run([kgantt, "export", "-q", "-f", "sqlite", "-o", a.dst, a.src], check=True)
    db = sqlite3.connect(a.dst)
    if db.execute("SELECT COUNT(*) FROM launch_settings WHERE calls = 'sampled'").fetchone()[0]:
        sys.exit("%s: its launch calls are sampled already" % a.src)
    on, period = a.on_ms * 1e6, a.period_ms * 1e6
    kept = dropped = 0
    all_stacks = db.execute("SELECT COUNT(*) FROM stack_settings WHERE mode = 'all'").fetchone()[0]
    stacks_kept = 0
    for (proc,) in db.execute("SELECT process FROM processes").fetchall():
        calls = db.execute(
            "SELECT a.id, a.start, s.text, k.name FROM api_calls a JOIN strings s ON s.id = a.name "
            "LEFT JOIN kernels k ON k.process = a.process AND k.correlation = a.correlation "
            "WHERE a.process = ? ORDER BY a.start", (proc,)).fetchall()
        launches = [(i, t, kernel) for i, t, fn, kernel in calls
                    if LAUNCH.search(fn) and not NOT_A_KERNEL.search(fn)]
        if not launches:
            continue
        # the recorder's window thread looks every `on` ns: it closes the window at the
        # first look after the first launch that saw no kernel new since the last look,
        # then opens it again `period - on` later, for `on`, and so on
        seen, drop = set(), []
        t0 = launches[0][1]
        closes_at, open_at = None, None
        tick, new_since_tick = t0 + on, False
        for i, t, kernel in launches:
            while closes_at is None and t >= tick:
                if not new_since_tick:
                    closes_at = tick
                new_since_tick = False
                tick += on
            inside = closes_at is None or (t - closes_at) % period >= period - on
            if kernel not in seen:
                seen.add(kernel)
                new_since_tick = True
            if not inside:
                drop.append(i)
        db.executemany("DELETE FROM api_calls WHERE id = ?", [(i,) for i in drop])
        db.execute("DELETE FROM api_stacks WHERE process = ? AND correlation NOT IN "
                   "(SELECT correlation FROM api_calls WHERE process = ?)", (proc, proc))
        db.execute("INSERT OR REPLACE INTO launch_settings VALUES(?, 'sampled', ?, ?, NULL)",
                   (proc, a.on_ms, a.period_ms))
        kept += len(launches) - len(drop)
        dropped += len(drop)
        if all_stacks:
            stacks_kept += waits_mode_stacks(db, proc, a.stack_every)
    if all_stacks:
        db.execute("UPDATE stack_settings SET mode = 'waits', launch_first = ?, launch_every = ?",
                   (LAUNCH_FIRST, a.stack_every))
    db.commit()
    db.close()
    print("launch calls kept %d, dropped %d%s" % (
        kept, dropped, "; stacks as --stacks waits would take them: %d" % stacks_kept if all_stacks else ""))


if __name__ == "__main__":
    main()
