#!/usr/bin/env python3
"""Prints the example x rule table of the diagnosis on the committed H200 fixtures:
which rules fire on each example's planted problem and on its fixed twin, with the
estimated gain. Run from the repository root after `make`:
    python3 scripts/diagnosis-table.py > docs/results/diagnosis-examples.md
"""
import json
import lzma
import os
import subprocess
import sys
import tempfile

PAIRS = [
    ("streams", ["bad", "fixed", "busy"], "stream-serialization"),
    ("copies", ["bad", "fixed"], "copy-compute-overlap"),
    ("launches", ["bad", "fixed", "graph"], "launch-overhead"),
    ("occupancy", ["bad", "fixed"], "low-occupancy"),
    ("timeslice", ["bad", "fixed"], "time-slicing"),
    ("multigpu", ["bad", "fixed"], "gpu-imbalance"),
]
TORCH = ["torch_pageable_item", "torch_tiny_ops", "torch_transformer_bf16", "torch_two_streams"]


def report(path, extra=()):
    out = subprocess.run(["build/kgantt", "report", "--json", "--no-progress", *extra, path],
                         capture_output=True, text=True)
    if out.returncode not in (0, 3):
        sys.exit("report failed on %s: %s" % (path, out.stderr))
    return json.loads(out.stdout)


def findings(doc):
    return ", ".join("%s %.0f%%" % (f["rule"], f["gain_pct"]) for f in doc["findings"]
                     if f["severity"] != "info" or f["gain_pct"] > 0) or "none"


def kgt(name, tmp):
    path = os.path.join(tmp, name + ".kgt")
    with lzma.open("tests/fixtures/h200/%s.kgt.xz" % name) as f, open(path, "wb") as o:
        o.write(f.read())
    return path


def main():
    print("# Diagnosis of the examples recorded on an H200\n")
    print("Made by `python3 scripts/diagnosis-table.py` from the traces in `tests/fixtures/`;"
          " `tests/unit/test_rules.c` checks the same outcomes.\n")
    print("| example | mode | planted problem's rule | found | all findings (gain, % of span) |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for ex, modes, rule in PAIRS:
            for mode in modes:
                doc = report(kgt("%s_%s" % (ex, mode), tmp))
                hit = [f for f in doc["findings"] if f["rule"] in (rule, "under-filled-grid")
                       if rule == "low-occupancy" or f["rule"] == rule]
                found = "yes, %.0f%%" % hit[0]["gain_pct"] if hit else "no"
                print("| %s | %s | %s | %s | %s |" % (ex, mode, rule, found, findings(doc)))
        print("\n## PyTorch\n")
        print("| scenario | source | window | findings (gain, % of span) |")
        print("| --- | --- | --- | --- |")
        for sc in TORCH:
            doc = report("tests/fixtures/torch/%s.json.gz" % sc)
            print("| %s | torch.profiler (Kineto JSON) | whole trace | %s |" % (sc, findings(doc)))
            doc = report(kgt(sc, tmp), ["--nvtx", "step"])
            print("| %s | kgantt record | `--nvtx step` | %s |" % (sc, findings(doc)))


if __name__ == "__main__":
    main()
