#!/usr/bin/env python3
"""Runs a `kgantt view` page in headless chromium and checks what its self-test saw.

The page, opened at PAGE#selftest&hover=NAME&search=TEXT, drives itself (zoom, keys, wheel,
drag, a mousemove over the first kernel named NAME, a click on the first finding, a search)
and writes the results as JSON into <pre id="selftest">; `chromium --dump-dom` prints the
DOM after the page has loaded. Every expectation here comes from the trace itself (SQLite)
or from `kgantt report --json`, never from the page: a page that shows wrong data fails.

    view_test.py --chrome chromium --page x.html --trace x.kgt --report r.json \\
                 [--hover NAME] [--search TEXT] [--evil TEXT]

Prints one 'ok:' line per check; exits 1 with 'FAIL: ...' at the first failure.
"""
import argparse
import html
import json
import os
import re
import sqlite3
import subprocess
import sys
import urllib.parse


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    ok(msg)


def run_page(chrome, page, params, workdir):
    """The dumped DOM and the self-test's JSON."""
    url = "file://" + os.path.abspath(page) + "#selftest&" + urllib.parse.urlencode(params)
    cmd = [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", "--user-data-dir=" + os.path.join(workdir, "chrome-profile"),
           "--dump-dom", url]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=240)
    except subprocess.TimeoutExpired:
        fail("chromium did not finish in 240 s on " + page)
    dom = p.stdout.decode("utf-8", "replace")
    m = re.search(r'<pre id="selftest">(.*?)</pre>', dom, re.S)
    if p.returncode != 0 or not m or not m.group(1).strip():
        tail = p.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        fail("no self-test result from %s (chromium exit %d): %s" % (page, p.returncode, tail))
    return dom, json.loads(html.unescape(m.group(1)))


def fmt_time(t):
    """The page's times after the trace begin: ms with six decimals, exact to the ns."""
    sign = "−" if t < 0 else ""
    t = abs(t)
    return "%s%d.%06d ms" % (sign, t // 1000000, t % 1000000)


def first_kernel(db, needle):
    """The first kernel (by start) whose demangled name contains needle, with its launch."""
    row = db.execute(
        "SELECT k.process, k.correlation, k.start, k.end, k.grid_x, k.grid_y, k.grid_z, "
        "k.block_x, k.block_y, k.block_z, k.registers_per_thread, s.text FROM kernels k "
        "JOIN strings s ON s.id = k.demangled WHERE instr(s.text, ?) > 0 "
        "ORDER BY k.start LIMIT 1", (needle,)).fetchone()
    if not row:
        fail("the trace has no kernel named like '%s'" % needle)
    keys = ["process", "corr", "start", "end", "gx", "gy", "gz", "bx", "by", "bz", "regs", "name"]
    k = dict(zip(keys, row))
    api = db.execute("SELECT s.text FROM api_calls a JOIN strings s ON s.id = a.name "
                     "WHERE a.process = ? AND a.correlation = ? ORDER BY a.start LIMIT 1",
                     (k["process"], k["corr"])).fetchone()
    k["api"] = api[0] if api else None
    return k


def check_basics(st, dom, db, report):
    check(st.get("ok") is True and not st.get("errors"), "no script error (%s)" % st.get("errors"))
    check(not st.get("alerts"), "no alert() was called (%s)" % st.get("alerts"))
    check(st.get("imgs") == 0 and not re.search(r"<img\b", dom, re.I), "no <img> element in the DOM")
    n = sum(db.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
            for t in ("kernels", "memcpys", "memsets"))
    if report["trace"]["window"] is None:
        check(st["counts"]["ops"] == n, "the page holds all %d GPU operations" % n)
    check(st["counts"]["findings"] == len(report["findings"]),
          "the page holds the report's %d findings" % len(report["findings"]))


def check_zoom(st):
    z = st["zoom"]
    span = lambda r: r[1] - r[0]
    check(span(z["after"]) < span(z["before"]) * 0.2 and z["after"][0] > z["before"][0]
          and z["after"][1] < z["before"][1], "zooming narrows the visible range")
    check(abs(span(z["plus"]) - span(z["after"]) / 2) < 1e-6 * span(z["after"]), "'+' zooms in 2x")
    check(z["right"][0] > z["plus"][0], "the right arrow pans later")
    check(z["reset"] == z["before"], "'0' shows the whole trace again")
    check(span(z["wheel"]) < span(z["before"]), "the wheel zooms in")
    m = st["mouse"]
    tol = 1e-6 * span(z["before"])
    check(abs(m["select"]["got"][0] - m["select"]["want"][0]) < tol and
          abs(m["select"]["got"][1] - m["select"]["want"][1]) < tol, "Shift+drag zooms to the range")
    check(abs(m["pan"]["shift"] - m["pan"]["expected_shift"]) < tol, "dragging pans by the distance")
    c = m["collapse"]
    check(c[1] < c[0] and c[2] == c[0], "a click on the process header collapses and expands it")


def check_hover(st, db, begin, needle, evil):
    h = st["hover"]
    k = first_kernel(db, needle)
    check(h.get("found") and h["name"] == k["name"], "hover target is '%s'" % k["name"][:60])
    tip = h.get("tooltip", "")
    check(h["tooltip_visible"] and h["hovered"] == h["op"], "the mousemove hovers it, tooltip shown")
    check(tip.startswith(k["name"]), "the tooltip starts with the full kernel name")
    want = [
        ("start", "start" + fmt_time(k["start"] - begin)),
        ("end", "end" + fmt_time(k["end"] - begin)),
        ("grid", "grid%d × %d × %d" % (k["gx"], k["gy"], k["gz"])),
        ("block", "block%d × %d × %d" % (k["bx"], k["by"], k["bz"])),
        ("registers", "registers%d per thread" % k["regs"]),
        ("correlation", "correlation%d" % k["corr"]),
    ]
    if k["api"]:
        want.append(("launching API call", "launched by" + k["api"]))
    for field, text in want:
        check(text in tip, "tooltip %s: '%s'" % (field, text))
    for label in ("queued", "submitted", "launch latency", "queue wait", "execution",
                  "shared memory", "occupancy", "stream", "device"):
        check(label in tip, "tooltip has '%s'" % label)
    if evil:
        check(evil in tip, "the hostile name is shown as text")


def check_finding(st, report, begin):
    f = st["finding"]
    if not report["findings"]:
        check(not f.get("present"), "no finding, none listed")
        return
    r = report["findings"][0]
    check(f["rule"] == r["rule"] and f["rank"] == 1, "the first finding is '%s'" % r["rule"])
    s, e = r["start_ns"] - begin, r["end_ns"] - begin
    check(f["start"] == s and f["end"] == e, "its range is the report's")
    v = f["view"]
    check(v[0] <= s and v[1] >= e and v != f["before"], "clicking it shows its range")
    check(v[1] - v[0] <= max((e - s) * 1.1, 1000) + 1, "... zoomed to it")
    if any(ev.get("stream") is not None for ev in r["evidence"]):
        check(f["highlighted"] >= 1, "its lanes are highlighted")
    check(f["detail"], "its explanation is shown")


def check_search(st, db, query):
    q = st["search"]
    n = db.execute("SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.demangled "
                   "WHERE instr(lower(s.text), lower(?)) > 0", (query,)).fetchone()[0]
    check(q["count"] == n, "search '%s' counts %d kernels (%s)" % (query, n, q["text"]))
    check(q["text"] == ("1 match" if n == 1 else "{:,} matches".format(n)), "the count is shown")
    if n >= 2:
        check(q["first"] >= 0 and q["second"] >= 0 and q["first"] != q["second"],
              "Enter jumps to a match, and again to the next")
        check(q["view"][0] <= q["second_start"] <= q["view"][1], "the view shows the match")
        check(q["after_jump"].endswith("/ {:,}".format(n)), "the position is shown")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chrome", required=True)
    ap.add_argument("--page", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--report", required=True, help="kgantt report --json of the trace")
    ap.add_argument("--hover", required=True, help="part of a kernel name to hover")
    ap.add_argument("--search", help="search text (default: --hover)")
    ap.add_argument("--evil", help="a hostile name that must show as text")
    ap.add_argument("--workdir", default="/tmp")
    a = ap.parse_args()
    search = a.search or a.hover
    report = json.load(open(a.report))
    begin = report["trace"]["begin_ns"]
    db = sqlite3.connect("file:" + os.path.abspath(a.trace) + "?mode=ro", uri=True)
    dom, st = run_page(a.chrome, a.page, {"hover": a.hover, "search": search}, a.workdir)
    check_basics(st, dom, db, report)
    check_zoom(st)
    check_hover(st, db, begin, a.hover, a.evil)
    check_finding(st, report, begin)
    check_search(st, db, search)
    t = st["timing"]
    print("timing: %s: %d ops, page ready %.0f ms, decode %.0f ms, frame %.1f ms (zoomed %.1f ms)"
          % (os.path.basename(a.page), st["counts"]["ops"], t["page_ms"], t["decode_ms"],
             t["full_frame_ms"], t["zoomed_frame_ms"]))


if __name__ == "__main__":
    main()
