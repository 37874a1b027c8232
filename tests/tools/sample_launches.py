#!/usr/bin/env python3
"""A trace recorded with every launch call (record --all-launches) made into the trace the
default full mode would have recorded of the same run: kernel launch calls kept only in
the recorder's windows (src/recorder/launches.h, simulated here independently of it), the
process marked `sampled` in launch_settings. Comparing the two traces' reports isolates
what the sampling changes in the analysis, with the run itself held fixed.

A trace recorded with a stack for every call (record --all-launches --stacks all) is also
given the stacks the default (--stacks waits) would have taken (src/recorder/stacks.c,
simulated): of the launches kept, and of the asynchronous memsets, the first 8 of each
place (the kernel or memset function, and the kernel launched before it on its stream in
the same window) and then one in 64; every synchronising call, copy, other memset and
allocation; no other call. Then the original is the truth of where every launch
was made, and the comparison measures all the sampling at once.

    sample_launches.py IN.kgt OUT.kgt [--on-ms 10] [--period-ms 100] [--stack-every 64]
                       [--stack-key place|shape|kernel] [--seed 0] [--new-kernels]

IN may be compacted (it is exported to rows with `kgantt export -f sqlite`, KGANTT or
build/kgantt); OUT is a rows trace that kgantt reads. Prints what was kept."""
import argparse
import bisect
import os
import re
import sqlite3
import subprocess
import sys

LAUNCH = re.compile(r"(LaunchKernel|^cudaLaunch|^cuLaunch)")
NOT_A_KERNEL = re.compile(r"(GraphLaunch|HostFunc)")


def launches_a_kernel(fn):
    """Is the API function one kernel's launch (src/recorder/launches.c's test)?"""
    return bool(LAUNCH.search(fn)) and not NOT_A_KERNEL.search(fn)

# util/api_names.c's categories that --stacks waits takes a stack of at every call
WAIT = re.compile(r"(Synchronize|^cudaStreamWaitEvent|^cuStreamWaitEvent|Memcpy|memcpy|Memset|memset|"
                  r"Malloc|Free|MemAlloc|MemFree|HostAlloc|HostRegister)")
LAUNCH_FIRST, LAUNCH_EVERY = 8, 64


def waits_mode_stacks(db, proc, every, phase, key_by, wins):
    """Drops the stacks --stacks waits would not have taken; returns how many are kept.
    `phase`: the sampler's count at the first launch after a kernel's first 8 (another run's
    luck; the recorder's is 0). `key_by` "place": a launch or asynchronous memset is
    counted by its kernel (its function) and the kernel launched before it on its stream
    in the same window (src/recorder/stacks.c); "shape": the same with the kernels' grids
    and blocks; "kernel": by its kernel alone (the recorder before 2026-12-05)."""
    rows = db.execute(
        "SELECT a.correlation, a.start, s.text, k.name, COALESCE(k.stream, m.stream), k.grid_x, k.grid_y, "
        "k.grid_z, k.block_x, k.block_y, k.block_z FROM api_calls a JOIN strings s ON s.id = a.name "
        "JOIN api_stacks t ON t.process = a.process AND t.correlation = a.correlation "
        "LEFT JOIN kernels k ON k.process = a.process AND k.correlation = a.correlation "
        "LEFT JOIN memsets m ON m.process = a.process AND m.correlation = a.correlation "
        "WHERE a.process = ? ORDER BY a.start", (proc,)).fetchall()
    counts, drop, before = {}, [], {}
    for corr, t, fn, kernel, stream, *dims in rows:
        launch = launches_a_kernel(fn)
        if launch or (("Memset" in fn or "memset" in fn) and "Async" in fn):
            window = window_at(wins, t)
            prev = before.get(stream)
            prev = prev[1] if key_by != "kernel" and prev and window is not None and \
                prev[0] == window else None
            shape = fn
            if launch:
                shape = (kernel, tuple(dims)) if key_by == "shape" else kernel
                before[stream] = (window, shape)
            key = (shape, prev)
            counts[key] = counts.get(key, 0) + 1
            n = counts[key]
            if n <= LAUNCH_FIRST or (n - LAUNCH_FIRST + phase) % every == 0:
                continue
        elif WAIT.search(fn):
            continue
        drop.append(corr)
    db.executemany("DELETE FROM api_stacks WHERE process = ? AND correlation = ?",
                   [(proc, c) for c in drop])
    return len(rows) - len(drop)


def windows(launches, new_kernels, on, period, shift, opens=()):
    """The recorder's window thread (src/recorder/launches.c), run over the launches' times:
    it looks every `on` ns while the window is open and keeps it open until the first
    launch and while kernels never seen before appear (`new_kernels`: the launches'
    ids that first_launches gives); then closes it for period - on (the first closing
    `shift` ns longer: another run's timing). `opens`: times at which a closed window
    opens at once (--open-on-handle). Returns the windows as (opened, closed, number),
    the last one open to the end."""
    out = []
    look, opened, start, window, new, any_launch = launches[0][1] + on, None, launches[0][1], 0, False, False
    first_close = True
    # a handle's call (None) before a launch at the same time
    events = sorted([(t, 0, i) for i, t, kernel, corr in launches] +
                    [(o, -1, None) for o in opens if o >= launches[0][1]], key=lambda e: e[:2])
    for t, _, launch in events:
        while opened is not None and t >= opened or opened is None and t >= look:
            if opened is not None:  # the window opens again
                look, start, opened, window = opened + on, opened, None, window + 1
                continue
            if new or not any_launch:  # stays open for another look
                new, look = False, look + on
                continue
            closed = period - on
            if first_close:
                closed += shift % period
            first_close = False
            out.append((start, look, window))
            opened = look + closed
        if launch is None:  # a handle handed out: a closed window opens now
            if opened is not None:
                look, start, opened, window, new = t + on, t, None, window + 1, True
            continue
        any_launch = True
        if launch in new_kernels:
            new = opened is None or new
    if opened is None:
        out.append((start, float("inf"), window))
    return out


# the calls that hand out a kernel's handle: the launch after one is of a handle the
# recorder never saw (its key), whatever the kernel's name
GET_KERNEL = re.compile(r"^(cuLibraryGetKernel|cuModuleGetFunction|cudaGetFuncBySymbol)")


def first_launches(calls):
    """The launches the recorder sees as a new kernel's (launches_pass_over): the first of
    each kernel name, and the first launch after a call that handed out a kernel's handle
    (cuDNN's run-time compiled engines: a library loaded, its kernel got and launched, per
    shape; the trace has no handle, so the name alone would call the second engine seen)."""
    seen, out, handed = set(), set(), False
    for i, t, fn, kernel, corr in calls:
        if GET_KERNEL.search(fn):
            handed = True
        elif launches_a_kernel(fn):
            if kernel not in seen or handed:
                out.add(i)
            seen.add(kernel)
            handed = False
    return out


def window_at(wins, t):
    """The number of the window open at t, None when none was."""
    k = bisect.bisect_right(wins, (t, float("inf"), 0)) - 1
    return wins[k][2] if k >= 0 and wins[k][0] <= t < wins[k][1] else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--on-ms", type=float, default=10)
    ap.add_argument("--period-ms", type=float, default=100)
    ap.add_argument("--stack-every", type=int, default=LAUNCH_EVERY,
                    help="with every stack recorded: one launch in N of each kernel after its "
                         "first 8 keeps its stack (the recorder's 64)")
    ap.add_argument("--seed", type=int, default=0,
                    help="another run's luck: the first closing's delay in ms, the stack "
                         "sampler's count")
    ap.add_argument("--stack-key", choices=("place", "shape", "kernel"), default="place",
                    help="what the stack sampler counts launches by (src/recorder/stacks.c)")
    ap.add_argument("--new-kernels", action="store_true",
                    help="keep a kernel's first launch outside the windows too (the windows "
                         "by flag, src/recorder/launches.h: launches_pass_over)")
    ap.add_argument("--open-on-handle", action="store_true",
                    help="a closed window opens at once when a kernel's handle is handed out "
                         "(cuLibraryGetKernel, cuModuleGetFunction: switched windows, simulated "
                         "only)")
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
            "SELECT a.id, a.start, s.text, k.name, a.correlation FROM api_calls a "
            "JOIN strings s ON s.id = a.name "
            "LEFT JOIN kernels k ON k.process = a.process AND k.correlation = a.correlation "
            "WHERE a.process = ? ORDER BY a.start", (proc,)).fetchall()
        launches = [(i, t, kernel, corr) for i, t, fn, kernel, corr in calls
                    if launches_a_kernel(fn)]
        if not launches:
            continue
        first = first_launches(calls)
        opens = [t for i, t, fn, kernel, corr in calls if GET_KERNEL.search(fn)] if a.open_on_handle else ()
        wins = windows(launches, first, on, period, a.seed * 1e6, opens)
        kept_outside = first if a.new_kernels else set()
        drop = [x[0] for x in launches if window_at(wins, x[1]) is None and x[0] not in kept_outside]
        db.executemany("DELETE FROM api_calls WHERE id = ?", [(i,) for i in drop])
        db.execute("DELETE FROM api_stacks WHERE process = ? AND correlation NOT IN "
                   "(SELECT correlation FROM api_calls WHERE process = ?)", (proc, proc))
        db.execute("INSERT OR REPLACE INTO launch_settings VALUES(?, 'sampled', ?, ?, NULL)",
                   (proc, a.on_ms, a.period_ms))
        kept += len(launches) - len(drop)
        dropped += len(drop)
        if all_stacks:
            stacks_kept += waits_mode_stacks(db, proc, a.stack_every, a.seed % a.stack_every,
                                             a.stack_key, wins)
    if all_stacks:
        db.execute("UPDATE stack_settings SET mode = 'waits', launch_first = ?, launch_every = ?",
                   (LAUNCH_FIRST, a.stack_every))
    db.commit()
    db.close()
    print("launch calls kept %d, dropped %d%s" % (
        kept, dropped, "; stacks as --stacks waits would take them: %d" % stacks_kept if all_stacks else ""))


if __name__ == "__main__":
    main()
