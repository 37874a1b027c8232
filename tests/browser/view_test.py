#!/usr/bin/env python3
"""Runs a `kgantt view` page in headless chromium and checks what its self-test saw.

The page, opened at PAGE#selftest&hover=NAME&search=TEXT, drives itself (zoom, keys, wheel,
drag, a mousemove over the first kernel named NAME, a click on the first finding, a search,
a mousemove over an API call with a call stack, clicks on a finding's call site) and writes
the results as JSON into <pre id="selftest">; `chromium --dump-dom` prints the DOM after the
page has loaded. Every expectation here comes from the trace itself (SQLite)
or from `kgantt report --json`, never from the page: a page that shows wrong data fails.

    view_test.py --chrome chromium --page x.html --trace x.kgt --report r.json \\
                 [--hover NAME] [--search TEXT] [--evil TEXT]

Prints one 'ok:' line per check; exits 1 with 'FAIL: ...' at the first failure.
"""
import argparse
import base64
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
    # the whole trace in view: the status bar says its span, not the margin drawn around it
    check(st["range_at_load"].startswith("0.000000 ms – ") and "−" not in st["range_at_load"],
          "the status bar on load: '%s'" % st["range_at_load"])


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


def base(path):
    return (path or "").rsplit("/", 1)[-1]


def frame_label(f):
    """A frame as kgantt report names it (analysis/sites.c frame_label)."""
    fn = f["function"] or "?"
    if f["file"] and f["line"]:
        return "%s:%d in %s" % (base(f["file"]), f["line"], fn)
    if f["file"]:
        return "%s in %s" % (base(f["file"]), fn)
    if f["module"]:
        return "%s (%s)" % (fn, base(f["module"]))
    return fn


def api_display(name):
    """cudaStreamSynchronize_v3020 -> cudaStreamSynchronize, as the report writes it."""
    return re.sub(r"_v\d+$", "", name or "")


def call_frames(db, begin, corr, start_ns, name):
    """The stack of the API call with this correlation id and start, from the trace:
    [(function, file, line, module)] innermost first."""
    row = db.execute("SELECT a.id FROM api_calls a JOIN strings s ON s.id = a.name "
                     "WHERE a.correlation = ? AND a.start = ? AND s.text = ?",
                     (corr, begin + int(start_ns), name)).fetchone()
    if not row:
        fail("no API call %s with correlation %d at %d ns in the trace" % (name, corr, start_ns))
    return db.execute("SELECT function, file, line, module FROM call_stacks WHERE api_id = ? "
                      "ORDER BY depth", (row[0],)).fetchall()


def check_stacks(st, db, report, begin):
    """Call stacks: an API call's tooltip shows its stack with the user's frame first; each
    finding lists the report's call sites; the Call sites table is the report's; a click on
    a site selects the first call from it, a second click the next one. A trace without
    stacks shows none of it."""
    s, sites = st["stack"], st["sites"]
    sited = [f for f in report["findings"] if f.get("sites")]
    if not report.get("sites") and not sited:
        check(not any(sites["finding_lines"]), "no stacks: no call site under the findings")
        check(not s.get("found"), "no stacks: no API call with a stack")
        if not s["has_stacks"]:
            check("no call stacks" in sites["table_note"], "no stacks: the Call sites table says so")
        return
    check(s["has_stacks"] and s["stacks"] > 0 and s["frames"] > 0, "the page holds %d stacks of %d frames"
          % (s["stacks"], s["frames"]))
    # the hovered call: the first from the first finding's first site
    f0 = sited[0]
    site = f0["sites"][0]
    check(s.get("found") and s["tooltip_visible"] and s["hovered"] == s["api"],
          "the mousemove over %s hovers it, tooltip shown" % s.get("name"))
    check(s["site"] + 1 == site["site"], "it is a call from site #%d (%s)" % (site["site"], site["label"]))
    check(s["name"] == site["api"], "it calls %s" % site["api"])
    tip = s["tooltip"]
    check("call site#%d %s" % (site["site"], site["label"]) in tip, "the tooltip names its call site")
    want_user = frame_label(site["frame"])
    check(s["user_line"] and s["user_line"].endswith(want_user), "the user's frame first: '%s'" % want_user)
    frames = call_frames(db, begin, s["corr"], s["start_ns"], s["name"])
    check(s["n_frames"] == len(frames) and s["shown"] + s["more"] == len(frames),
          "the stack has the trace's %d frames (%d shown, %d folded or cut)" % (len(frames), s["shown"], s["more"]))
    check(len(s["stack_lines"]) <= 25, "the tooltip's stack is at most 25 lines (%d)" % len(s["stack_lines"]))
    lines = s["stack_lines"]
    fn, fl, ln, mod = frames[0]
    inner = "%s:%d in " % (base(fl), ln) if fl and ln else base(mod) if mod else fn
    check(len(lines) > 1 and inner in lines[1], "then the innermost frame: '%s'" % inner)
    check(any(l.endswith(want_user) for l in lines[1:]), "... and the user's frame again in its place")
    check(s["tooltip_height"] < 900, "the tooltip fits the window (%d px)" % s["tooltip_height"])
    # the findings' sites, as the report says them
    for f, lines_ in zip(report["findings"], sites["finding_lines"]):
        clickable = [l for l in lines_ if not re.search(r"at \d+ other site|at other sites|without a stack", l)]
        want = f.get("sites", [])[:3]
        check(len(clickable) == len(want), "finding %d lists its %d first sites" % (f["rank"], len(want)))
        for line, w in zip(clickable, want):
            m = re.match(r"(\d+)% at (.*)$", line)
            if not m or m.group(2) != w["label"] or abs(int(m.group(1)) - 100 * w["share"]) > 0.51:
                fail("finding %d: '%s' is not '%.0f%% at %s'" % (f["rank"], line, 100 * w["share"], w["label"]))
    ok("every finding lists the report's call sites with their shares")
    table = sites["table_rows"]
    check(len(table) == len(report["sites"]), "the Call sites table has the report's %d sites" % len(report["sites"]))
    for row, w in zip(table, report["sites"]):
        if row[0] != str(w["site"]) or row[4] != w["label"] or row[3] != str(w["findings"]):
            fail("Call sites row %s is not the report's %s" % (row, w))
    ok("... with the same numbers, labels and finding counts")
    # clicking the first site under the first finding with sites
    c, c2 = sites["click"], sites["click2"]
    check(c["site"] + 1 == site["site"] and c["site_of_api"] == c["site"],
          "a click on '%s' selects a call from it" % site["label"])
    check(c["name"] == site["api"] and c["earliest"] and c["in_view"] and c["lane_highlighted"] == 1,
          "... the first in time, in view, its thread highlighted")
    fr = call_frames(db, begin, c["corr"], c["start_ns"], c["name"])
    sf = site["frame"]
    check(any(x[:3] == (sf["function"], sf["file"], sf["line"]) for x in fr),
          "the selected call's stack in the trace holds %s" % frame_label(sf))
    check("call stack" in c["panel"] and "calls from it1 of %d" % c["calls"] in c["panel"].replace(",", ""),
          "the panel shows its stack and 1 of %d calls" % c["calls"])
    if c["calls"] > 1:
        check(c2["site_of_api"] == c["site"] and c2["start_ns"] >= c["start_ns"] and c2["api"] != c["api"],
              "a second click selects the next call from the site")
    t = sites.get("table_click")
    check(t and t["site_of_api"] == t["site"] == 0, "a click in the Call sites table selects a call from that site")


def page_data(path):
    """The page's embedded JSON document."""
    return json.loads(re.search(r'id="kg-data">(.*?)</script>', open(path, encoding="utf-8").read(),
                                re.S).group(1))


def varints(b, n):
    out, p = [], 0
    for _ in range(n):
        v = sh = 0
        while True:
            x = b[p]
            p += 1
            v |= (x & 127) << sh
            sh += 7
            if x < 128:
                break
        out.append(v)
    return out


def column(spec, n, signed=False):
    """A column of the page (docs/view.md): "", base64url varints, or sparse {n, i, v};
    signed: zigzag-coded."""
    b64 = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    if spec == "":
        raw = [0] * n
    elif isinstance(spec, str):
        raw = varints(b64(spec), n)
    else:
        raw, row = [0] * n, 0
        for d, v in zip(varints(b64(spec["i"]), spec["n"]), varints(b64(spec["v"]), spec["n"])):
            row += d
            raw[row] = v
    return [(v >> 1) ^ -(v & 1) for v in raw] if signed else raw


def page_steps(d):
    """The page's steps: [(number, start, end, warmup)], times in ns as the trace has them."""
    st = d["steps"]
    n, t = st["rows"], int(d["zero"])
    out = []
    for k, (dt, dur, w) in enumerate(zip(column(st["t"], n, True), column(st["d"], n, True),
                                         column(st["w"], n))):
        t += dt
        out.append((st["first"] + k, t, t + dur, bool(w)))
    return out


def page_host(d):
    """The page's host spans by thread tid: [(start, end, cause id, off CPU, stack row)], times
    in ns as the trace has them; {} without spans."""
    h = d.get("host")
    if not h:
        return {}
    n, t = h["rows"], int(d["zero"])
    spans = []
    for dt, dur, c, st in zip(column(h["t"], n, True), column(h["d"], n, True), column(h["c"], n),
                              column(h["S"], n)):
        t += dt
        spans.append((t, t + dur, h["causes"][c & 15]["id"], bool(c & 16), st - 1))
    return {th["tid"]: spans[th["h0"]:th["h0"] + th["hn"]] for th in d["threads"] if th.get("hn")}


def check_host(st, d):
    """The host strips (issue 23): a strip per thread with spans, of as many spans as the page
    carries; a real mousemove over the longest span of the first shows its cause and, when the
    page carries its stack, its frames."""
    h, spans = st.get("host") or {}, page_host(d)
    check({l["tid"]: l["n"] for l in h.get("lanes", [])} == {t: len(v) for t, v in spans.items()},
          "a host strip under each thread with host spans, with its spans (%s)" % h.get("lanes"))
    if not spans:
        return
    span = spans[h["tid"]][h["span"]]
    what = [c["what"] for c in d["host"]["causes"] if c["id"] == span[2]][0]
    check(h["tooltip_visible"] and what in h["tooltip"] and h["cause"] == span[2],
          "hovering a host span shows its cause (%s: %s)" % (span[2], h["tooltip"][:80]))
    check((span[4] >= 0) == bool(h["stack_lines"]),
          "... and its stack's frames (%d lines)" % len(h["stack_lines"]))
    check(h["drawn"]["spans"] >= 1 and h["drawn"]["columns"] >= 1, "the strip drew it (%s)" % h["drawn"])
    f = [f for f in d["findings"] if (f.get("host") or {}).get("cause")]
    if f:
        check(h.get("section") and h["section"]["cause"] == f[0]["host"]["cause"] and h["section"]["marked"] >= 1,
              "selecting finding #%d outlines its host section (%s)" % (f[0]["rank"], h.get("section")))


def check_steps(st, report):
    """The step row under the time axis: over the whole trace and zoomed to a step, every
    step of the report that starts in view and overlaps the page is ticked, the numbers
    drawn are at their steps' GPU starts in the report, every k-th, never two overlapping;
    zoomed to a step, its number is drawn. A trace without steps has no step row."""
    s = st["steps"]
    steps = report["steps"].get("steps") or []
    if not s["rows"]:
        check(not steps, "no steps, no step row")
        return
    zero = int(s["zero"])
    start = {x["step"]: x["start_ns"] - zero for x in steps}
    end = {x["step"]: x["end_ns"] - zero for x in steps}
    for name in ("full", "zoomed"):
        v = s[name]
        t0, t1 = v["view"]
        want = [k for k in start if t0 <= start[k] < t1 and end[k] > v["begin"] and start[k] < v["end"]]
        check(v["in_view"] == len(want), "%s: the %d steps of the report starting in view" % (name, len(want)))
        labels = v["labels"]
        check(all(start[k] == t for k, t, x, w in labels),
              "%s: the step numbers drawn %s are at their starts in the report" % (name, [l[0] for l in labels][:12]))
        check(not labels or (v["ticks"] and all(l[0] % v["every"] == 0 for l in labels) and
                             all(b[2] >= a[2] + a[3] for a, b in zip(labels, labels[1:]))),
              "%s: %s" % (name, "every %s-th step numbered, no two overlapping" % v["every"]
                          if labels else "no step numbered (%.1f px apart)" % v["spacing"]))
    z = s["zoomed"]
    check(z["ticks"] and s["zoomed_step"] in [l[0] for l in z["labels"]],
          "zoomed to step %d: its boundary and number drawn" % s["zoomed_step"])


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
    check_stacks(st, db, report, begin)
    check_steps(st, report)
    t = st["timing"]
    print("timing: %s: %d ops, page ready %.0f ms, decode %.0f ms, frame %.1f ms (zoomed %.1f ms)"
          % (os.path.basename(a.page), st["counts"]["ops"], t["page_ms"], t["decode_ms"],
             t["full_frame_ms"], t["zoomed_frame_ms"]))


if __name__ == "__main__":
    main()
