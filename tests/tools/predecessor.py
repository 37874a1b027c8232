#!/usr/bin/env python3
"""Each configuration's runs grouped by the run right before them (bench/overhead.sh's CSV,
whose rows are in the order the runs ran): does a process pay for the one before it?

    tests/tools/predecessor.py OVERHEAD.csv [BASE]

For every run: its figure over the figure of BASE's run of the same round and workload
(default untraced), so that drift between rounds cancels; then, per configuration and
predecessor, the median of those ratios. With the order shuffled (ORDER=shuffle) each
configuration follows each other one in some rounds; with the order rotated it always
follows the same one and this table has one row per configuration."""
import csv
import statistics
import sys


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    base = sys.argv[2] if len(sys.argv) == 3 else "untraced"
    with open(sys.argv[1], newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    ok = lambda r: r["status"] == "OK" and r["run"] != "prime"
    base_fig = {(r["workload"], r["run"]): float(r["figure"])
                for r in rows if ok(r) and r["config"] == base}
    groups = {}
    for prev, r in zip([None] + rows[:-1], rows):
        key = (r["workload"], r["run"])
        if not ok(r) or r["config"] == base or key not in base_fig:
            continue
        after = prev["config"] if prev else "(first)"
        groups.setdefault((r["workload"], r["config"], after), []).append(
            float(r["figure"]) / base_fig[key])
    if not groups:
        sys.exit("predecessor.py: no run with a %s run in its round" % base)
    print("| workload | configuration | right after | runs | median / %s (same round) | range |" % base)
    print("|---|---|---|---:|---:|---|")
    for (w, c, after), q in sorted(groups.items()):
        print("| %s | %s | %s | %d | %.3f× | %.2f–%.2f |" % (
            w, c, after, len(q), statistics.median(q), min(q), max(q)))


if __name__ == "__main__":
    main()
