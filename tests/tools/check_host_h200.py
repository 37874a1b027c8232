#!/usr/bin/env python3
"""Checks kgantt's reports of the host-sample traces recorded on an H200
(tests/fixtures/h200/host, made by tests/gpu/host_fixtures_h200.sh) against what each
program measured of itself or planted, never against kgantt's own output.

    check_host_h200.py NAME REPORT.json PROGRAM.out [WHOLE.json]

WHOLE.json: the report of the whole run (report --whole), for jax_loop.

NAME: dataloader, steps_loop, syncs_fp, syncs_stripped_host, jax_loop, hf_decode, gc_loop. Prints one line per
check; exits 1 when one fails.
"""
import json
import sys

failed = 0


def check(cond, what, detail=""):
    global failed
    print("%s %s%s" % ("ok  " if cond else "FAIL", what, ("  (%s)" % detail) if detail and not cond else ""))
    failed += not cond
    return cond


def node_total(host, function):
    """Time below the outermost frames of FUNCTION in the --host tree (nested ones not again)."""
    nodes = {n["node"]: n for n in host["nodes"]}

    def inside(n):
        p = n["parent"]
        while p is not None:
            if nodes[p]["frame"].get("function") == function:
                return True
            p = nodes[p]["parent"]
        return False
    return sum(n["total_ns"] for n in host["nodes"]
               if n["frame"].get("function") == function and not inside(n))


def finding(r, rule):
    return next((f for f in r["findings"] if f["rule"] == rule), None)


def dataloader(r, prog):
    steps = r["steps"]
    check(steps["source"] == "rhythm" and 57 <= steps["count"] <= 61,
          "dataloader: its %d batches found as steps by the rhythm of the launches" % prog["steps"],
          "%s %s" % (steps["source"], steps["count"]))
    share = steps["steady"] / prog["steps"]  # the report is of the steady steps alone
    f = finding(r, "host-bound")
    check(f is not None and f["host"]["cause"] == "data-loading",
          "dataloader: host-bound's cause is data loading", f and f["host"]["cause"])
    check(f is not None and "num_workers" in f["fix"], "dataloader: and its fix, DataLoader workers")
    # the program timed planted_collate_cost() (4 ms a batch, on the launching thread while
    # the GPU has nothing queued) and log_metrics()'s sleep (2 ms a step, partly while the
    # step's kernels still run)
    want = prog["collate_s"] * share * 1e9
    got = node_total(r["host"], "planted_collate_cost")
    check(abs(got - want) <= 0.10 * want,
          "dataloader: planted_collate_cost %.1f ms, as the program timed it (%.1f ms)" % (got / 1e6, want / 1e6))
    want = prog["log_s"] * share * 1e9
    got = node_total(r["host"], "log_metrics")
    check(0.6 * want <= got <= 1.05 * want,
          "dataloader: log_metrics %.1f ms, at most the %.1f ms it slept" % (got / 1e6, want / 1e6))
    idle = r["host"]["idle_ns"]
    seen = idle - r["host"]["not_seen_ns"]
    check(seen >= 0.95 * idle, "dataloader: the launching thread was sampled through 95%% of the idle time (%.1f%%)"
          % (100 * seen / idle))


def gc_loop(r, prog):
    """tests/gpu/gc_loop.py: the collector's time measured by gc.callbacks, the planted
    Python work timed; the GPU idles through nearly the whole loop."""
    f = finding(r, "host-bound")
    if not check(f is not None and f.get("host"), "gc_loop: host-bound with what the host did"):
        return
    causes = {c["cause"]: c["ns"] for c in f["host"]["causes"]}
    loop = prog["end"] - prog["start"]
    want, got = prog["gc_ns"] / loop, causes.get("gc", 0) / f["gain_ns"]
    check(abs(got - want) <= 0.10, "gc_loop: garbage collection %.0f%% of the host's time in the gaps, "
          "as gc.callbacks timed it (%.0f%%)" % (100 * got, 100 * want))
    want, got = prog["python_ns"] / loop, node_total(r["host"], "plain_python") / f["gain_ns"]
    check(abs(got - want) <= 0.10, "gc_loop: the planted Python work %.0f%%, as timed (%.0f%%)" % (100 * got, 100 * want))
    gc = [a for a in f["host"]["activities"] if a["cause"] == "gc"]
    check(gc and [p["function"] for p in gc[0]["path"]][-3:] == ["make_cycles", "Node.__init__", "<gc>"],
          "gc_loop: the collector under the Python frames that set it off", gc[:1])
    check("gc.freeze()" in f["fix"], "gc_loop: the fix says gc.freeze()", f["fix"])


def steps_loop(r, prog):
    steps = r["steps"]
    want = {s + 1 for s in prog["slowed"] if s + 1 < steps["count"]}  # step numbers from 1
    out = {s["step"] for s in steps["steps"] if s["outlier"]}
    check(steps["source"] == "rhythm", "steps_loop: steps by the rhythm of the launches", steps["source"])
    check(out == want, "steps_loop: the outliers are the steps slowed by gc.collect() and a sleep",
          "%s vs %s" % (sorted(out), sorted(want)))
    why = [s["why"] or "" for s in steps["steps"] if s["outlier"]]
    check(all("the host waited" in w for w in why), "steps_loop: each said to be the host's wait", why[:1])
    # where the host was: the program's own slow_down() (gc.collect() and a sleep), from the
    # host samples of that wait
    check(all(" of it steps_loop.py in slow_down" in w for w in why),
          "steps_loop: and where the host was, in slow_down() (host samples)", why[:1])
    check(steps["steps"][0]["warmup"], "steps_loop: the first step is warm-up")
    # the finding says it lies in those steps alone
    f = finding(r, "host-bound")
    fs = f and f.get("steps")
    check(fs is not None and set(fs["first"]) == want and fs["in"] == len(want),
          "steps_loop: host-bound says it lies in the slowed steps alone", fs)


def syncs(r, prog, stripped):
    f = finding(r, "host-sync-stall")
    check(f is not None and f["host"]["activities"], "syncs: host-sync-stall has the host side")
    top = f["host"]["activities"][0] if f else {}
    check(top.get("share", 0) >= 0.9 and top["label"].startswith("cudaStreamSynchronize (CUDA)"),
          "syncs: the wait is the CUDA call, in full", top)
    if stripped:
        check("syncs_stripped+0x" in top.get("label", "") and "(no symbols)" in top.get("label", ""),
              "syncs stripped: its own frames by module and offset, said to be without symbols", top)
    else:
        check("log_progress" in top.get("label", ""),
              "syncs: called from log_progress() (syncs.cu), the program's own function", top)


def jax_loop(r, prog, whole):
    steps = r["steps"]
    check(steps["source"] == "rhythm" and abs(steps["count"] - prog["steps"]) <= 2,
          "jax_loop: its %d jitted steps found by the rhythm of the launches (%s, %d)"
          % (prog["steps"], steps["source"], steps["count"]))
    check(steps["applied"] and steps["steady"] >= 0.95 * prog["steps"],
          "jax_loop: the report is of the steady steps (%d)" % steps["steady"])
    before = steps["steady_begin_ns"] - whole["trace"]["begin_ns"]
    check(before >= 1e9, "jax_loop: XLA's compiling before them left out (%.2f s)" % (before / 1e9))
    # in the steady steps the launching thread is partly in CUPTI's callbacks: the tracer's
    # time, never the program's (a quarter of host-bound's; an activity is named by the
    # frame that holds most of it, XLA's launch, inside which CUPTI's part is)
    acts = [a for f in r["findings"] if f.get("host") for a in f["host"]["activities"]
            if a["label"].startswith("libcupti")]
    hb = [f for f in r["findings"] if f["rule"] == "host-bound"][0]
    tracing = {c["cause"]: c["share"] for c in hb["host"]["causes"]}.get("tracing", 0)
    check(tracing >= 0.15 and all(a["cause"] == "tracing" for a in acts),
          "jax_loop: time inside CUPTI is the tracer's own (%.0f%% of host-bound's)"
          % (100 * tracing), [a["cause"] for a in acts][:3])
    # the whole run (--whole): the host's time is XLA compiling, and the fix says so
    f = finding(whole, "host-bound")
    causes = {c["cause"]: c["share"] for c in f["host"]["causes"]} if f else {}
    check(f is not None and f["host"]["cause"] == "jit-compile" and causes["jit-compile"] >= 0.5,
          "jax_loop: host-bound's cause is XLA compiling (%.0f%%)" % (100 * causes.get("jit-compile", 0)))
    check(f is not None and "jax_compilation_cache_dir" in f["fix"],
          "jax_loop: and its fix is the compilation's")
    # compiling's milliseconds between the tiny kernels of the first steps are no launch
    # overhead (docs/rules.md, launch_gap_spread): launch-overhead took 976 ms of them for
    # 2.7 ms of kernels, 78 % XLA compiling, before the two rules stopped sharing gaps
    f = finding(whole, "launch-overhead")
    causes = {c["cause"]: c["share"] for c in f["host"]["causes"]} if f else {}
    check(causes.get("jit-compile", 0) < 0.5,
          "jax_loop: XLA's compiling is not launch overhead (%.0f%% of it)"
          % (100 * causes.get("jit-compile", 0)))


def hf_decode(r, prog):
    # hf_decode.py generates 4 tokens (its warm-up), then the 24 it times: 28 forwards, a
    # token each; the first (a prefill of 16 positions) is unlike the rest
    steps = r["steps"]
    forwards = 4 + prog["tokens"]
    check(steps["source"] == "rhythm" and forwards - 1 <= steps["count"] <= forwards,
          "hf_decode: its %d decoded tokens found as steps by the rhythm (%s, %d)"
          % (forwards, steps["source"], steps["count"]))
    last = sum(s["time_ns"] for s in steps["steps"][-prog["tokens"]:]) / 1e9
    check(abs(last - prog["seconds"]) <= 0.05 * prog["seconds"],
          "hf_decode: its last %d steps take the %.3f s the program timed (%.3f s)"
          % (prog["tokens"], prog["seconds"], last))
    # where the host was: cuDNN compiling its attention for each new KV length
    f = finding(r, "host-bound")
    causes = {c["cause"]: c["share"] for c in f["host"]["causes"]} if f else {}
    check(f is not None and f["host"]["cause"] == "jit-compile" and causes["jit-compile"] >= 0.5,
          "hf_decode: host-bound's cause is compilation (%.0f%%)" % (100 * causes.get("jit-compile", 0)))
    check(f is not None and "cache_implementation='static'" in f["fix"] and "sdpa_kernel" in f["fix"],
          "hf_decode: and its fix names cuDNN's run-time compiling: a static cache or another kernel")
    why = [s["why"] for s in steps["steps"] if s["outlier"]]
    check(why and all("of it nvrtcCompileProgram" in w and "(JIT compilation)" in w for w in why),
          "hf_decode: its outlier tokens say where the host was: compiling in nvrtc", why[:1])
    # two generate() calls, two requests: hf_decode.py's warm-up of 4 tokens, then the timed
    # --tokens; each begins with its prefill (16 positions), unlike the decoded tokens. The
    # rhythm's steps start at each forward's first attention, so the last forward, cut by the
    # end of the run, is no whole step: the last request may hold one token less
    want = [4, prog["tokens"]]
    groups = steps.get("groups", [])
    sizes = [g["steps"] for g in groups]
    short = steps["count"] == forwards - 1
    check(len(groups) == 2 and all(g["kind"] == "request" and g["name"] is None for g in groups)
          and sizes[0] == want[0] and want[1] - short <= sizes[1] <= want[1]
          and groups[0]["first"] == 1 and groups[1]["first"] == want[0] + 1,
          "hf_decode: 2 requests of %s tokens, as its generate() calls" % want,
          [(g["first"], g["last"], g["kind"]) for g in groups])
    lead = steps["steps"][want[0]]
    check(lead["lead"] and not lead["outlier"] and not lead["warmup"],
          "hf_decode: the second request's prefill (step %d) is steady, judged among prefills" % (want[0] + 1))
    nvrtc = node_total(r["host"], "nvrtcCompileProgram")
    check(nvrtc >= 0.5 * f["gain_ns"] if f else False,
          "hf_decode: nvrtcCompileProgram holds most of it (%.0f ms)" % (nvrtc / 1e6))


def main():
    name, report, out = sys.argv[1:4]
    r = json.load(open(report, encoding="utf-8"))
    whole = json.load(open(sys.argv[4], encoding="utf-8")) if len(sys.argv) > 4 else None
    prog = {}
    for line in open(out):
        if line.startswith("{"):
            prog = json.loads(line)
    if name == "dataloader":
        dataloader(r, prog)
    elif name == "steps_loop":
        steps_loop(r, prog)
    elif name in ("syncs_fp", "syncs_stripped_host"):
        syncs(r, prog, name != "syncs_fp")
    elif name == "jax_loop":
        jax_loop(r, prog, whole)
    elif name == "hf_decode":
        hf_decode(r, prog)
    elif name == "gc_loop":
        gc_loop(r, prog)
    else:
        sys.exit("check_host_h200.py: no checks for '%s'" % name)
    if name != "hf_decode":  # loops that run evenly: no groups of steps
        groups = r["steps"].get("groups", [])
        check(r["steps"]["count"] and groups == [], "%s: no groups of steps" % name, groups)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
