#!/usr/bin/env python3
"""Paired ratios of bench/overhead.sh runs: for each workload and pair of configurations,
the ratio of the two runs of each round (they ran back to back, in an order rotated every
round), then the median, the range and a 95 % interval for the median over the rounds.

    bench/paired.py [--field=wall_s] OVERHEAD.csv [OVERHEAD.csv ...] A/B [A/B ...]
        e.g. kgantt-full/kgantt-kernels; --field: the CSV's column to compare (default
        figure, the workload's own timing; wall_s: the whole command, exit included)

Several CSVs (calls on different machines or days) pool their rounds: a round pairs only
runs of its own call, so each call's machine cancels out of its ratios. The interval is
distribution-free (order statistics of the binomial: the noise here is per process, skewed
and bimodal, so no normal model); with fewer than 6 rounds none exists at 95 % and "—" is
printed. Prints a Markdown table."""
import csv
import math
import os
import statistics
import sys
from collections import defaultdict


def median_interval(xs, level=0.95):
    """(low, high): the order statistics x(k), x(n-k+1) that bracket the median with at
    least `level` confidence, for the largest such k; None when n is too small."""
    xs = sorted(xs)
    n = len(xs)
    best = None
    for k in range(1, n // 2 + 1):
        # P(fewer than k of n fall below the median) = P(Binom(n, 1/2) <= k - 1)
        tail = sum(math.comb(n, i) for i in range(k)) / 2 ** n
        if 1 - 2 * tail >= level:
            best = (xs[k - 1], xs[n - k])
        else:
            break
    return best


def read_rounds(paths, field):
    runs = defaultdict(dict)  # (call, workload, round) -> config -> figure
    order = []
    for call, path in enumerate(paths):
        reader = csv.DictReader(open(path, encoding="utf-8"))
        if field not in (reader.fieldnames or []):
            sys.exit("paired.py: %s has no column '%s' (its columns: %s)" % (
                path, field, ", ".join(reader.fieldnames or [])))
        for r in reader:
            if r["status"] != "OK" or not r[field] or r["run"] == "prime":
                continue
            runs[(call, r["workload"], r["run"])][r["config"]] = float(r[field])
            if r["workload"] not in order:
                order.append(r["workload"])
    return runs, order


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--field=")]
    field = ([a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--field=")] or
             ["figure"])[-1]
    paths = [a for a in args if os.path.isfile(a)]
    pairs = [a for a in args if a not in paths]
    if not paths or not pairs or any(p.count("/") != 1 for p in pairs):
        sys.exit(__doc__)
    runs, order = read_rounds(paths, field)
    print("| workload | ratio | paired median | range | 95 % interval | rounds |")
    print("|---|---|---:|---|---|---:|")
    for w in order:
        for pair in pairs:
            a, b = pair.split("/")
            ratios = [c[a] / c[b] for (_, wl, _), c in sorted(runs.items())
                      if wl == w and a in c and b in c and c[b] > 0]
            if not ratios:
                continue
            ci = median_interval(ratios)
            print("| %s | %s / %s | %.2f× | %.2f–%.2f | %s | %d |" % (
                w, a, b, statistics.median(ratios), min(ratios), max(ratios),
                "%.2f–%.2f" % ci if ci else "—", len(ratios)))


if __name__ == "__main__":
    main()
