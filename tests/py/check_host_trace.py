"""The checks of tests/e2e/t094_host_trace.sh on the host-sample fixture's outputs.

    python3 tests/py/check_host_trace.py HOST_TRAIN.json WORK

HOST_TRAIN.json: what tests/fixtures/host/host_train.py said of its run (its threads' tids,
each step's times). WORK: the test's directory with host.csv (export --table host: the
model's host spans), host_window.csv (the same with --from 100ms --to 200ms),
host_rows.csv (of the SQLite export read back), host_merged.csv (of a merge),
trace.json (the Perfetto export). Prints "ok ..." per check; exits 1 on a failure.

    python3 tests/py/check_host_trace.py --plant-overruns ROWS.kgt
    python3 tests/py/check_host_trace.py --overrun BEFORE.csv AFTER.csv

--plant-overruns: in a trace of SQL rows (export -f sqlite), samples that stand for 3
periods after a gap of 2, so that their spans are cut by the ones before by uneven
lengths. --overrun: BEFORE's spans (export --table host with a window) are AFTER's (the
same of the windowed SQLite export) but each thread's first, which the window cut.
"""
import collections
import csv
import json
import os
import sys

FAILED = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond or not detail else ": " + detail))
    if not cond:
        FAILED.append(what)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ns(r, col):
    return int(r[col])


def frames(r):
    return r["stack"].split(" ← ") if r["stack"] else []


def has_frame(r, function):
    return any(f.endswith(" in " + function) for f in frames(r))


def time_where(spans, pred):
    return sum(ns(r, "duration_ns") for r in spans if pred(r))


def share(spans, pred):
    total = time_where(spans, lambda r: True)
    return time_where(spans, pred) / total if total else 0.0


def overlap(r, t0, t1):
    return max(0, min(ns(r, "end_ns"), t1) - max(ns(r, "start_ns"), t0))


def check_threads(by_tid, run):
    for name, tid in run["tids"].items():
        spans = by_tid.get(str(tid), [])
        check(len(spans) > 20, "%s (tid %d) has spans" % (name, tid), "%d" % len(spans))
        names = {r["thread_name"] for r in spans}
        check(names == {name}, "%s is named so" % name, repr(names))
    for tid, spans in by_tid.items():
        ok = all(ns(r, "start_ns") < ns(r, "end_ns") and
                 ns(r, "duration_ns") == ns(r, "end_ns") - ns(r, "start_ns") for r in spans)
        ok = ok and all(ns(a, "end_ns") <= ns(b, "start_ns") for a, b in zip(spans, spans[1:]))
        check(ok, "thread %s: spans have time, in order, never overlapping" % tid)


def check_planted(by_tid, run):
    t = {name: by_tid[str(tid)] for name, tid in run["tids"].items()}
    spin = t["spinner"]
    # or, back from it, waiting for the GIL in the ctypes call (four threads on two cores)
    in_spin = share(spin, lambda r: has_frame(r, "host_shim_spin") or
                    (r["state"] == "waiting for the GIL" and has_frame(r, "native_spin")))
    check(in_spin > 0.8, "spinner: its time in host_shim_spin", "%.2f" % in_spin)
    check(any(r["state"] == "on CPU" and r["function"] == "host_shim_spin" for r in spin),
          "spinner: host_shim_spin on CPU, its innermost frame")
    check(all(r["holds_gil"] == "0" for r in spin if r["function"] == "host_shim_spin"),
          "spinner: native code without the GIL")
    check(any(has_frame(r, "native_spin") and has_frame(r, "host_shim_spin") for r in spin),
          "spinner: the Python caller under the native frame")
    py = t["py_spinner"]
    on = [r for r in py if r["state"] == "on CPU" and has_frame(r, "thread_spin")]
    check(len(on) > 0 and any(r["holds_gil"] == "1" for r in on),
          "py_spinner: thread_spin on CPU, holding the GIL")
    check(any(r["file"].endswith("host_train.py") and r["line"] for r in on),
          "py_spinner: Python frames with file and line")
    for name, fn in (("sleeper", "thread_sleep"), ("waiter", "thread_wait")):
        s = t[name]
        off = share(s, lambda r: r["state"] != "on CPU")
        check(off > 0.8, "%s: off CPU" % name, "%.2f" % off)
        inside = share(s, lambda r: has_frame(r, fn))
        check(inside > 0.8, "%s: in %s" % (name, fn), "%.2f" % inside)
    # of the time the samples cover (a loaded machine delays the sampler, not the phases),
    # after each phase's first period (a sample stands for the period before it)
    main = by_tid[str(run["main_tid"])]
    period = 1000000
    phases = [(a + period, b) for a, b, _ in run["steps"]], [(b + period, c) for _, b, c in run["steps"]]
    covered = [sum(overlap(r, a, b) for a, b in p for r in main) for p in phases]
    collate = sum(overlap(r, a, b) for a, b in phases[0] for r in main if has_frame(r, "collate"))
    check(collate > 0.8 * covered[0], "main: in collate in the steps' collate phase",
          "%.2f" % (collate / max(1, covered[0])))
    # idle: the sampler saw no CPU time and repeated the last stack (docs/raw-spool.md), which
    # 40 us of launches in a 1 ms period do not change
    fresh = [r for r in main if r["state"] != "idle"]
    covered = sum(overlap(r, a, b) for a, b in phases[1] for r in fresh)
    later = sum(overlap(r, a, b) for a, b in phases[1] for r in fresh if not has_frame(r, "collate"))
    check(later > 0.8 * covered, "main: out of collate after it", "%.2f" % (later / max(1, covered)))
    check(any(has_frame(r, "log_sleep") and r["state"] != "on CPU" for r in main),
          "main: asleep in log_sleep")
    check(any(r["partial"] == "0" and frames(r) and frames(r)[-1].endswith(" in <module>")
              for r in main), "main: whole stacks down to <module>")


def check_window(spans, window):
    check(0 < len(window) < len(spans), "the window holds some spans",
          "%d of %d" % (len(window), len(spans)))
    t0 = min(ns(r, "start_ns") for r in window)
    t1 = max(ns(r, "end_ns") for r in window)
    check(t1 - t0 <= 100000000, "the window's spans within its 100 ms", "%d ns" % (t1 - t0))
    whole = {(r["tid"], r["end_ns"]): r for r in spans}
    cut = [r for r in window if whole.get((r["tid"], r["end_ns"]), r)["start_ns"] != r["start_ns"]]
    check(all(ns(r, "start_ns") == t0 for r in cut), "spans cut at the window's start, only")


def check_perfetto(path, by_tid, run):
    with open(path) as f:
        doc = json.load(f)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
              if e.get("ph") == "M" and e.get("name") == "thread_name"}
    slices = [e for e in ev if e.get("cat") == "host_sample"]
    names = collections.Counter(e["name"] for e in slices)
    check("host_shim_spin" in names and "collate" in names,
          "perfetto: slices named by their innermost frame", repr(names.most_common(5)))
    for name, tid in run["tids"].items():
        mine = [e for e in slices if tracks.get((e["pid"], e["tid"]), "").startswith(
            "thread %d (%s)" % (tid, name))]
        us = sum(e["dur"] for e in mine)
        want = time_where(by_tid[str(tid)], lambda r: True) / 1e3
        check(mine and abs(us - want) < 1 + 0.001 * len(mine),
              "perfetto: %s's track holds its spans' time" % name, "%.3f us vs %.3f" % (us, want))
    check(all(e["ph"] == "X" and e["dur"] > 0 and "state" in e["args"] for e in slices),
          "perfetto: complete slices with their state")
    used = {(e["pid"], e["tid"]) for e in ev if e.get("ph") != "M"}
    empty = [name for key, name in tracks.items() if key not in used]
    check(not empty, "perfetto: no empty thread track (a thread without calls holds its spans)",
          repr(empty))


def plant_overruns(path):
    import sqlite3
    db = sqlite3.connect(path)
    db.execute("CREATE TEMP TABLE n AS SELECT id, ROW_NUMBER() OVER "
               "(PARTITION BY thread ORDER BY ts) % 3 AS k FROM host_samples")
    db.execute("DELETE FROM host_samples WHERE id IN (SELECT id FROM n WHERE k = 1)")
    db.execute("UPDATE host_samples SET overrun = 2 WHERE id IN (SELECT id FROM n WHERE k = 2)")
    db.commit()


def but_first(path):
    seen, out = set(), []
    for r in rows(path):
        if r["tid"] in seen:
            out.append(r)
        seen.add(r["tid"])
    return out


def check_overrun(before, after):
    a, b = but_first(before), but_first(after)
    differ = [(x["tid"], x["start_ns"], y["start_ns"], x["end_ns"]) for x, y in zip(a, b) if x != y]
    check(len(a) > 50 and len(a) == len(b) and not differ,
          "overrun samples' spans read back the same from a windowed SQLite export",
          "%d and %d spans, %d differ: %s" % (len(a), len(b), len(differ), differ[:2]))


def main():
    if sys.argv[1] == "--plant-overruns":
        return plant_overruns(sys.argv[2])
    if sys.argv[1] == "--overrun":
        check_overrun(sys.argv[2], sys.argv[3])
        sys.exit(1 if FAILED else 0)
    with open(sys.argv[1]) as f:
        run = json.load(f)
    work = sys.argv[2]
    spans = rows(os.path.join(work, "host.csv"))
    by_tid = collections.defaultdict(list)
    for r in spans:
        by_tid[r["tid"]].append(r)
    check(set(by_tid) == {str(t) for t in run["tids"].values()} | {str(run["main_tid"])},
          "the five threads, no other", repr(sorted(by_tid)))
    check(all(r["source"] == "samples" for r in spans), "every span from samples")
    check_threads(by_tid, run)
    check_planted(by_tid, run)
    check_window(spans, rows(os.path.join(work, "host_window.csv")))
    back = rows(os.path.join(work, "host_rows.csv"))
    check(back == spans, "the SQLite export reads back as the same spans",
          "%d rows vs %d" % (len(back), len(spans)))
    key = lambda r: {k: v for k, v in r.items() if k != "process"}
    merged = [key(r) for r in rows(os.path.join(work, "host_merged.csv"))]
    check(merged == [key(r) for r in spans], "a merge keeps the spans and their stacks")
    check_perfetto(os.path.join(work, "trace.json"), by_tid, run)
    if FAILED:
        print("%d check(s) failed" % len(FAILED))
        sys.exit(1)


if __name__ == "__main__":
    main()
