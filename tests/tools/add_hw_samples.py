#!/usr/bin/env python3
"""Adds hardware samples (the tables `kgantt record --hw` writes) to a kgantt trace.

No trace with samples existed when the charts and exporters of samples were written, so
their tests take a real H200 trace and give it samples that follow its kernels: for every
sample interval, the share of it during which some kernel of the device ran (`busy`) sets
SM active (busy x 92 %), achieved occupancy (x 55 %), tensor pipes (x 28 %, on odd
kernels only), DRAM read and write (x 2.6 and 0.9 TB/s) and DRAM % of peak (their sum
against 4.8 TB/s), with a little deterministic jitter; the SM clock is 1.98 GHz. PCIe,
NVLink, graphics engine and context switching are not taken (NULL), as on a GPU that
cannot count them in the same pass.

The samples cover the device's kernels with a margin of 20 intervals on each side (so
some lie outside the kernels' span), back to back, as CUPTI's PM sampling gives them.
With --odd, a few awkward rows are added too: a zero-length sample, a sample whose
occupancy is NULL and one whose DRAM figures are NULL.

    add_hw_samples.py [--interval-us 100] [--refuse DEV[:NOTE]] [--odd] [--device DEV]
                      [--only COLUMN,...] TRACE.kgt[.xz] OUT.kgt

Every device of the trace is sampled unless --device names the only one; --refuse DEV
marks device DEV refused ("refused" state, the note, no samples), as the recorder does
when another profiler holds the counters. The tables are created as src/trace/schema.c
creates them, their figure columns read from src/util/hw_figures.h, when the trace
predates them. --only keeps just these figure columns (the others NULL), as a GPU that
counts fewer would. Prints the number of samples written per device.
"""

import argparse
import lzma
import os
import re
import shutil
import sqlite3
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIGURES_H = os.path.join(HERE, "..", "..", "src", "util", "hw_figures.h")

METRICS = {  # the CUPTI metric src/recorder/hwsample.c takes first for each figure
    "sm_active_pct": "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
    "occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "dram_read_bps": "dram__bytes_read.sum.per_second",
    "dram_write_bps": "dram__bytes_write.sum.per_second",
    "dram_peak_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "tensor_active_pct": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm_clock_hz": "gpc__cycles_elapsed.avg.per_second",
}


def figure_columns():
    """The hw_samples figure columns, in the order of KG_HW_FIGURES."""
    text = open(FIGURES_H, encoding="utf-8").read()
    cols = re.findall(r"X\(\s*\w+\s*,\s*(\w+)\s*,\s*KG_HW_\w+\s*,", text)
    if not cols:
        sys.exit("add_hw_samples.py: no figures found in " + FIGURES_H)
    return cols


def create_tables(db, cols):
    db.execute("CREATE TABLE IF NOT EXISTS hw_devices(process INTEGER, device INTEGER, "
               "interval_ns INTEGER, chip TEXT, state TEXT, note TEXT, "
               "lost_samples INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(process, device))")
    db.execute("CREATE TABLE IF NOT EXISTS hw_metrics(process INTEGER, device INTEGER, "
               "figure TEXT, metric TEXT)")
    db.execute("CREATE TABLE IF NOT EXISTS hw_samples(process INTEGER, device INTEGER, "
               "start INTEGER, end INTEGER" + "".join(", %s REAL" % c for c in cols) + ")")


def busy_in(kernels, i0, s, e):
    """Share of [s, e) covered by the (start-sorted) kernels, and the first kernel that
    runs in it; i0: where to start looking."""
    covered, reach, first = 0, s, None
    while i0 < len(kernels) and kernels[i0][1] <= s:
        i0 += 1
    i = i0
    while i < len(kernels) and kernels[i][0] < e:
        a, b = max(kernels[i][0], reach), min(kernels[i][1], e)
        if b > a:
            covered += b - a
            reach = b
        if first is None and kernels[i][1] > s:
            first = i
        i += 1
    return covered / (e - s), first, i0


def jitter(k):
    """A small deterministic wobble in [-1, 1], so curves are not ruler-straight."""
    return ((k * 2654435761) % 1000) / 500.0 - 1.0


def sample_rows(cols, process, device, kernels, interval):
    rows = []
    if not kernels:
        return rows
    t = kernels[0][0] - 20 * interval
    stop = max(b for _, b in kernels) + 20 * interval
    i0, k = 0, 0
    while t < stop:
        busy, first, i0 = busy_in(kernels, i0, t, t + interval)
        j = jitter(k)
        read = busy * 2.6e12 * (1 + 0.04 * j)
        write = busy * 0.9e12 * (1 - 0.04 * j)
        v = {
            "sm_active_pct": min(100.0, busy * 92 + (1.5 + j if busy > 0 else 0)),
            "occupancy_pct": busy * 55 * (1 + 0.05 * j),
            "dram_read_bps": read,
            "dram_write_bps": write,
            "dram_peak_pct": min(100.0, 100 * (read + write) / 4.8e12),
            "tensor_active_pct": busy * 28 if first is not None and first % 2 else 0.0,
            "sm_clock_hz": 1.98e9 if busy > 0 else 1.755e9,
        }
        rows.append([process, device, t, t + interval] + [v.get(c) for c in cols])
        t += interval
        k += 1
    return rows


def odd_rows(rows, cols):
    """A zero-length sample, a NULL occupancy, NULL DRAM figures: what a damaged or
    partly counted interval looks like."""
    if len(rows) < 10:
        return
    mid = len(rows) // 2
    z = list(rows[mid])
    z[3] = z[2]  # zero length, at the same start as a real one
    rows.insert(mid, z)
    rows[mid + 3][4 + cols.index("occupancy_pct")] = None
    for c in ("dram_read_bps", "dram_write_bps", "dram_peak_pct"):
        rows[mid + 5][4 + cols.index(c)] = None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--interval-us", type=float, default=100.0)
    ap.add_argument("--refuse", action="append", default=[],
                    help="DEV[:NOTE]: device DEV refused sampling")
    ap.add_argument("--device", type=int, help="sample only this device")
    ap.add_argument("--odd", action="store_true", help="add awkward rows")
    ap.add_argument("--only", help="COLUMN,...: the only figures taken")
    ap.add_argument("trace")
    ap.add_argument("out")
    a = ap.parse_args()
    if a.trace.endswith(".xz"):
        with lzma.open(a.trace) as src, open(a.out, "wb") as dst:
            shutil.copyfileobj(src, dst)
    else:
        shutil.copyfile(a.trace, a.out)
    refused = {}
    for r in a.refuse:
        dev, _, note = r.partition(":")
        refused[int(dev)] = note or "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: another profiler " \
                                    "holds the GPU's counters"
    interval = int(a.interval_us * 1000)
    cols = figure_columns()
    db = sqlite3.connect(a.out)
    create_tables(db, cols)
    devices = db.execute("SELECT process, device FROM devices ORDER BY 1, 2").fetchall()
    for process, device in devices:
        if a.device is not None and device != a.device:
            continue
        if device in refused:
            db.execute("INSERT INTO hw_devices VALUES(?,?,?,?,?,?,0)",
                       (process, device, interval, "GH100", "refused", refused[device]))
            print("device %d: refused" % device)
            continue
        kernels = db.execute("SELECT start, end FROM kernels WHERE process = ? AND device = ? "
                             "AND start IS NOT NULL AND end > start ORDER BY start",
                             (process, device)).fetchall()
        rows = sample_rows(cols, process, device, kernels, interval)
        if a.only:
            keep = set(a.only.split(","))
            for r in rows:
                for k, c in enumerate(cols):
                    if c not in keep:
                        r[4 + k] = None
        if a.odd:
            odd_rows(rows, cols)
        db.execute("INSERT INTO hw_devices VALUES(?,?,?,?,?,?,0)",
                   (process, device, interval, "GH100", "sampled", None))
        db.executemany("INSERT INTO hw_metrics VALUES(?,?,?,?)",
                       [(process, device, c, METRICS[c]) for c in cols
                        if c in METRICS and (not a.only or c in a.only.split(","))])
        db.executemany("INSERT INTO hw_samples VALUES(%s)" % ",".join("?" * (4 + len(cols))),
                       rows)
        print("device %d: %d samples" % (device, len(rows)))
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
