#!/usr/bin/env python3
"""Paired ratios of bench/overhead.sh runs: for each workload and pair of configurations,
the ratio of the two runs of each round (they ran back to back, in an order rotated every
round), then the median and range over the rounds.

    bench/paired.py OVERHEAD.csv A/B [A/B ...]     e.g. kgantt-full/kgantt-kernels
Prints a Markdown table."""
import csv
import statistics
import sys
from collections import defaultdict


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = defaultdict(dict)  # (workload, round) -> config -> figure
    order = []
    for r in csv.DictReader(open(sys.argv[1], encoding="utf-8")):
        if r["status"] != "OK" or not r["figure"] or r["run"] == "prime":
            continue
        runs[(r["workload"], r["run"])][r["config"]] = float(r["figure"])
        if r["workload"] not in order:
            order.append(r["workload"])
    print("| workload | ratio | paired median | range | rounds |")
    print("|---|---|---:|---|---:|")
    for w in order:
        for pair in sys.argv[2:]:
            a, b = pair.split("/")
            ratios = [c[a] / c[b] for (wl, _), c in sorted(runs.items()) if wl == w and a in c and b in c and c[b] > 0]
            if not ratios:
                continue
            print("| %s | %s / %s | %.2f× | %.2f–%.2f | %d |" % (
                w, a, b, statistics.median(ratios), min(ratios), max(ratios), len(ratios)))


if __name__ == "__main__":
    main()
