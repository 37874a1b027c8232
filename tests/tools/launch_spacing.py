#!/usr/bin/env python3
"""How far apart a launch loop's kernels start, inside the launch windows and outside them.

For each trace (.kgt or .kgt.xz, read with `kgantt dump`: the raw rows, no analysis), the
kernels in order of start and the gap from each one's start to the next one's: their median
over the whole trace, over the kernels whose launch call was sampled (a window was open)
and over the rest, and per slice of SLICE_MS from the first kernel. On a loop that only
launches, the gap is what one launch costs the host, so a recorder's per-launch cost shows
in it; a trace recorded in kernels mode of the same program is the baseline.

    launch_spacing.py [--kgantt K] [--slice-ms 2] [--no-slices] TRACE...
"""
import argparse
import csv
import io
import lzma
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(kgantt, path, table):
    out = subprocess.run([kgantt, "dump", "-t", table, path], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"launch_spacing: {path}: kgantt dump -t {table}: {out.stderr.strip()}")
    return list(csv.DictReader(io.StringIO(out.stdout), delimiter="\t"))


def plain(path, tmp):
    if not path.endswith(".xz"):
        return path
    dest = os.path.join(tmp, os.path.basename(path)[:-3])
    with lzma.open(path) as src, open(dest, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return dest


def median_or_dash(v):
    return f"{statistics.median(v):.0f}" if v else "-"


def mean_or_dash(v, under=50000):
    """The mean of the gaps under 50 µs: what launches cost on average, a stall of the GPU's
    queue or a descheduled thread (milliseconds, a few a run) left out."""
    v = [g for g in v if g < under]
    return f"{statistics.mean(v):.0f}" if v else "-"


def spacing(kgantt, path, slice_ms, shown):
    kernels = sorted(rows(kgantt, path, "kernels"), key=lambda r: int(r["start"]))
    sampled = {r["correlation"] for r in rows(kgantt, path, "api_calls") if r["correlation"]}
    starts = [int(r["start"]) for r in kernels]
    inside, outside, slices = [], [], {}
    for i in range(1, len(kernels)):
        gap, was_sampled = starts[i] - starts[i - 1], kernels[i]["correlation"] in sampled
        (inside if was_sampled else outside).append(gap)
        at = slices.setdefault((starts[i] - starts[0]) // (slice_ms * 1000000) if slice_ms else 0,
                               ([], [0]))
        at[0].append(gap)
        at[1][0] += was_sampled
    print(f"{shown}: {len(kernels)} kernels, gap median {median_or_dash(inside + outside)} ns "
          f"(mean {mean_or_dash(inside + outside)}); "
          f"launch sampled {median_or_dash(inside)} ns (mean {mean_or_dash(inside)}, {len(inside)}), "
          f"not sampled {median_or_dash(outside)} ns (mean {mean_or_dash(outside)}, {len(outside)})")
    if not slice_ms:
        return
    print("  by slice, ms from the first kernel: median gap ns / launches sampled")
    print("  " + " ".join(f"{k * slice_ms}:{median_or_dash(g)}/{n[0]}"
                          for k, (g, n) in sorted(slices.items())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kgantt", default=os.path.join(HERE, "..", "..", "build", "kgantt"))
    ap.add_argument("--slice-ms", type=int, default=2)
    ap.add_argument("--no-slices", dest="slice_ms", action="store_const", const=0)
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for t in a.traces:
            spacing(a.kgantt, plain(t, tmp), a.slice_ms, t)


if __name__ == "__main__":
    main()
