#!/usr/bin/env python3
"""How far the call-site shares of sampled traces are from the truth.

Each TRUTH trace was recorded with every launch's call and stack (record --all-launches
--stacks all: tests/gpu/launch_sites_h200.sh). sample_launches.py makes from it the trace
the default full mode would have recorded of the same run, once per seed (another run's
window timing and stack sampler count), and kgantt reports both. For every finding that
is not info, the largest difference in one site's share (points; "(unsited)" counts as a
site), and half the summed differences (the share of the gain placed on a wrong site);
and the stacks the sampled traces kept.

    site_shares.py [--kgantt K] [--seeds 0,37,...] [--stack-key place] [--stack-every 64]
                   [--on-ms 10 --period-ms 100] [--new-kernels] [--open-on-handle] [-v]
                   TRUTH.kgt[.xz]...

K compares the five sites a report lists; built with every site in its findings it
compares them all: make BUILD=build-sites OPT="-O2 -DKG_MAX_FINDING_SITES=200" all,
then --kgantt build-sites/kgantt. Prints one line per trace and finding, and a summary."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def report(kgantt, path):
    r = subprocess.run([kgantt, "report", "--json", "--sites", "--no-progress", path],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit("%s: %s" % (path, r.stderr.strip()))
    return json.loads(r.stdout)


def shares(rep, f):
    labels = {s["site"]: s.get("label") for s in rep.get("sites", [])}
    out = {}
    for s in f.get("sites", []):
        label = s.get("label") or labels.get(s["site"])
        out[label] = out.get(label, 0) + 100 * s["share"]
    out["(unsited)"] = 100 * f.get("unsited_ns", 0) / max(1, f["gain_ns"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("truths", nargs="+")
    ap.add_argument("--kgantt", default=os.environ.get("KGANTT", "build/kgantt"))
    ap.add_argument("--seeds", default="0,37,61,83,5,13,29,47")
    ap.add_argument("--stack-key", default="place")
    ap.add_argument("--stack-every", default="64")
    ap.add_argument("--on-ms", default="10", help="the windows simulated (sample_launches.py)")
    ap.add_argument("--period-ms", default="100")
    ap.add_argument("--new-kernels", action="store_true",
                    help="a kernel's first launch kept outside the windows too (sample_launches.py)")
    ap.add_argument("--open-on-handle", action="store_true",
                    help="a closed window opens when a kernel's handle is handed out (sample_launches.py)")
    ap.add_argument("-v", action="store_true", help="name each finding's worst site")
    a = ap.parse_args()
    worst, misplaced = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for truth in a.truths:
            name = os.path.basename(truth).split(".")[0]
            if truth.endswith(".xz"):
                plain = os.path.join(tmp, name + ".kgt")
                subprocess.run("xz -dc '%s' > '%s'" % (truth, plain), shell=True, check=True)
                truth = plain
            rt = report(a.kgantt, truth)
            rows, stacks = {}, []
            for seed in a.seeds.split(","):
                sampled = os.path.join(tmp, "%s.%s.kgt" % (name, seed))
                kept = subprocess.run([sys.executable, os.path.join(HERE, "sample_launches.py"), truth, sampled,
                                       "--seed", seed, "--stack-key", a.stack_key, "--stack-every", a.stack_every,
                                       "--on-ms", a.on_ms, "--period-ms", a.period_ms] +
                                      (["--new-kernels"] if a.new_kernels else []) +
                                      (["--open-on-handle"] if a.open_on_handle else []),
                                      check=True, capture_output=True, text=True,
                                      env=dict(os.environ, KGANTT=a.kgantt)).stdout
                stacks.append(int(kept.rsplit(" ", 1)[-1]) if "take them" in kept else 0)
                rs = report(a.kgantt, sampled)
                os.unlink(sampled)
                for f in rt["findings"]:
                    if f["severity"] == "info":
                        continue
                    g = [x for x in rs["findings"] if x["rule"] == f["rule"]]
                    if not g:
                        sys.exit("%s seed %s: no %s finding" % (name, seed, f["rule"]))
                    st, ss = shares(rt, f), shares(rs, g[0])
                    diff = {k: abs(st.get(k, 0) - ss.get(k, 0)) for k in set(st) | set(ss)}
                    top = max(diff, key=diff.get)
                    rows.setdefault(f["rule"], []).append(diff[top])
                    worst.append(diff[top])
                    misplaced.append(sum(diff.values()) / 2)
                    if a.v:
                        print("  %s seed %s %s: %.1f points at %s (truth %.1f, sampled %.1f)"
                              % (name, seed, f["rule"], diff[top], top, st.get(top, 0), ss.get(top, 0)))
            for rule, v in rows.items():
                print("%-24s %-22s largest error by seed: %s" % (name, rule, " ".join("%.1f" % x for x in v)))
            print("%-24s stacks kept: %d-%d" % (name, min(stacks), max(stacks)))
    print("findings x seeds: %d; largest error: mean %.2f, max %.1f, over 5 points: %d; misplaced share: mean %.1f %%"
          % (len(worst), statistics.mean(worst), max(worst), sum(x > 5 for x in worst), statistics.mean(misplaced)))


if __name__ == "__main__":
    main()
