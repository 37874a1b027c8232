"""Checks the recorder's host sampler (src/recorder/hostsample.c) without a GPU: programs run
under tests/py/host_shim.so (the sampler from the recorder's own sources, started as the
injected library starts it), their spools go through `kgantt import` for symbolised
frames, and the samples are read from the spool (tests/py/host_spool.py).

    python3 tests/py/test_hostsample.py --build BUILD --cc CC [--native] [PYTHON...]

--native: the C programs (tests/py/host_prog.c, -O2 with and without frame pointers): the
known function on CPU, a sleep off CPU, the program's own SIGALRM, a thread with every
signal blocked. Each PYTHON: tests/py/host_workload.py's threads, takeover, churn, exit.
Prints "ok ..." per check and, for every run, the handler's cost. After a failure it runs
everything again (a loaded machine can miss a timing once) and exits 1 when the second run
fails too.
"""
import argparse
import collections
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host_spool  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HZ = 1000
FAILED = []


def check(cond, what, detail=""):
    if cond:
        print("ok   " + what)
    else:
        print("FAIL " + what + (": " + detail if detail else ""))
        FAILED.append(what)
    return cond


class Run:
    """One program under the shim: its output, spool, and symbolised frames."""

    def __init__(self, args, work, name, env=None, timeout=120):
        self.dir = os.path.join(work, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        e = dict(os.environ, KGANTT_DIR=self.dir, KGANTT_HOST_HZ=str(HZ),
                 LD_PRELOAD=ARGS.shim, PYTHONDONTWRITEBYTECODE="1")
        e.update(env or {})
        p = subprocess.run(args, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, universal_newlines=True)
        self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr
        self.spools = [s for s in host_spool.spools(self.dir)]
        self.sp = self.spools[0] if self.spools else None
        trace = os.path.join(work, name + ".kgt")
        imp = subprocess.run([ARGS.kgantt, "import", "-q", "-o", trace, self.dir],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        self.frames = host_spool.Frames(trace) if imp.returncode == 0 else None
        self.import_err = imp.stderr
        if self.sp and self.sp.counts:
            c = self.sp.counts
            print("     %s: %d samples (%d taken by the handler) on %d threads; handler median %d ns, "
                  "9 in 10 under %d ns; %.2f page checks a sample" % (
                      name, len(self.sp.samples), c["taken"], c["threads"], c["handler_p50_ns"],
                      c["handler_p90_ns"], c["page_checks"] / max(1, c["taken"])))

    def json(self):
        for line in self.out.splitlines():
            if line.startswith("{"):
                return json.loads(line)
        return {}

    def thread(self, tid):
        for t in self.sp.threads.values():
            if t.get("tid") == tid:
                return t["number"]
        return None

    def samples(self, number, t0=0, t1=1 << 63):
        return [s for s in self.sp.samples if s.thread == number and t0 <= s.ts <= t1]

    def names(self, s):
        return self.frames.names(s.stack) if self.frames else []

    def python_frames(self, s):
        """The stack's Python frames (kind 1), innermost first, as (function, file, line)."""
        if not self.frames:
            return []
        return [(f[1], os.path.basename(f[2] or ""), f[3]) for f in self.frames.frames.get(s.stack, [])
                if f[0] == 1]

    def basic(self, what):
        ok = check(self.rc == 0, what + ": the program ran to its end", "rc %s: %s" % (self.rc, self.err[-2000:]))
        ok &= check(self.sp is not None and self.sp.ended, what + ": its spool is whole (end record)")
        if not ok:
            return False
        c = self.sp.counts or {}
        ok &= check(self.frames is not None, what + ": kgantt import reads the spool", self.import_err)
        ok &= check(c.get("lost_ring", 1) == 0 and c.get("lost_pending", 1) == 0 and c.get("no_stack", 1) == 0,
                    what + ": no sample lost", str(c))
        ok &= check(c.get("written") == len(self.sp.samples),
                    what + ": the counts say every sample written", "%s vs %d" % (c.get("written"), len(self.sp.samples)))
        return ok


def share(samples, pred):
    return sum(1 for s in samples if pred(s)) / max(1, len(samples))


def in_order(names, *want):
    """Are the functions of `want` in the stack, innermost first, in this order?"""
    at = -1
    for w in want:
        hits = [i for i, n in enumerate(names) if n == w and i > at]
        if not hits:
            return False
        at = hits[0]
    return True


# ------------------------------------------------------------------ C programs

def native(work):
    src = os.path.join(HERE, "host_prog.c")
    builds = {}
    for kind, flag in (("fp", "-fno-omit-frame-pointer"), ("nofp", "-fomit-frame-pointer")):
        exe = os.path.join(work, "host_prog_" + kind)
        subprocess.check_call([ARGS.cc, "-O2", "-g", flag, src, "-o", exe, "-lm", "-ldl", "-lpthread"])
        builds[kind] = exe

    # the known function on CPU, with frame pointers: the whole chain to main
    r = Run([builds["fp"], "compute", "1.5"], work, "c_compute_fp")
    if r.basic("C -O2 with frame pointers, computing"):
        ss = r.samples(1)
        check(len(ss) >= 20, "C fp: the main thread is sampled on its CPU time (%d samples)" % len(ss))
        check(share(ss, lambda s: r.names(s)[:1] == ["hot_compute"]) >= 0.8,
              "C fp: the innermost frame is hot_compute() in 8 of 10 samples or more")
        check(share(ss, lambda s: in_order(r.names(s), "hot_compute", "outer_compute", "main")) >= 0.7,
              "C fp: hot_compute <- outer_compute <- main in 7 of 10 samples or more",
              str(collections.Counter(tuple(r.names(s)[:4]) for s in ss).most_common(3)))
        check(share(ss, lambda s: s.state & host_spool.S_CPU_TIMER and s.where in ("running", "in_kernel")) >= 0.95,
              "C fp: a thread that neither runs Python nor calls CUDA is sampled on its CPU time, running")
        check(share(ss, lambda s: not (r.frames.flags.get(s.stack, 1) & 1)) >= 0.7,
              "C fp: its stacks are whole (not partial) to the C library's start")

    # without frame pointers: the innermost frame is right, the rest is cut and marked
    r = Run([builds["nofp"], "compute", "1.5"], work, "c_compute_nofp")
    if r.basic("C -O2 without frame pointers, computing"):
        ss = r.samples(1)
        check(share(ss, lambda s: r.names(s)[:1] == ["hot_compute"]) >= 0.8,
              "C nofp: the innermost frame is still hot_compute()")
        part = share(ss, lambda s: r.frames.flags.get(s.stack, 0) & 1)
        check(part >= 0.8, "C nofp: the stacks that stop short of main are marked partial (%.0f %%)" % (100 * part))
        check(share(ss, lambda s: "main" in r.names(s)) <= 0.2,
              "C nofp: main is not claimed where the walk could not reach it")

    # off CPU on wall-clock time, interrupted at most a few times
    secs = 1.5
    r = Run([builds["fp"], "sleep", str(secs)], work, "c_sleep")
    if r.basic("C sleeping"):
        ss = r.samples(1)
        check(r.out.startswith("ok slept") and float(r.out.split()[2]) >= secs - 0.001,
              "C sleep: the program's nanosleep loop slept its full time", r.out)
        check(len(ss) >= 0.5 * secs * HZ,
              "C sleep: a thread that calls CUDA is sampled on wall-clock time (%d samples in %.1f s)" % (len(ss), secs))
        check(share(ss, lambda s: s.where in ("blocked", "idle")) >= 0.9, "C sleep: off CPU (blocked)",
              str(collections.Counter(s.where for s in ss)))
        check(share(ss, lambda s: any("nanosleep" in n for n in r.names(s)[:2])) >= 0.9,
              "C sleep: the innermost frame is the C library's nanosleep")
        check(r.sp.counts["taken"] <= 10,
              "C sleep: the sleeping thread was woken %d times, not %d" % (r.sp.counts["taken"], len(ss)))

    # a thread caught on CPU that falls asleep a microsecond later: the sleep is sampled
    # where it sleeps, not at the stack it was running
    r = Run([builds["fp"], "wake", "20"], work, "c_wake")
    if r.basic("C sleeping just after a sample on CPU"):
        off = [s for s in r.samples(1) if s.where in ("blocked", "idle")]
        check(len(off) >= 0.5 * 20 * 0.03 * HZ, "C wake: its naps are sampled (%d samples off CPU)" % len(off))
        check(share(off, lambda s: "nap_after_run" in r.names(s)) >= 0.9,
              "C wake: off CPU under nap_after_run(), not the spin it left",
              str(collections.Counter(tuple(r.names(s)[:2]) for s in off).most_common(3)))

    # the program's own SIGALRM from setitimer, 100 Hz: every one arrives
    r = Run([builds["fp"], "alarm", "1.0"], work, "c_alarm")
    if r.basic("C with its own setitimer/SIGALRM"):
        words = r.out.split()
        alarms, slept = int(words[2]), float(words[4])
        # SIGALRM does not queue: on a loaded machine some merge, sampled or not
        check(60 <= alarms <= 125, "C alarm: its SIGALRMs arrived (%d in 1.2 s at 100 Hz)" % alarms)
        check(slept >= 0.2, "C alarm: its 200 ms sleep took %.3f s" % slept)
        check(len(r.samples(1)) >= 20, "C alarm: and it was sampled")

    # the handler's own cost, by samples the thread takes of itself
    r = Run([builds["fp"], "bench", "5000"], work, "c_bench")
    if r.basic("C handler's cost"):
        cost, delivery = (int(x) for x in r.out.split()[1:3])
        print("     cost: %d ns a sample in the handler for a C stack 5 frames deep (a signal's "
              "delivery and return: %d ns more)" % (cost, delivery))

    # a thread with every signal blocked: never sampled, nothing hangs
    r = Run([builds["fp"], "sigblock", "0.5"], work, "c_sigblock")
    if r.basic("C thread with every signal blocked"):
        check(r.out.strip() == "ok 1", "C sigblock: the thread ran to its end", r.out)

    # a frame pointer on a page unmapped after the handler found it readable (code built
    # without frame pointers leaves anything in rbp): the read faults, the handler catches
    # it and drops that sample; the program runs to its end (it died of SIGSEGV before)
    if platform.machine() == "x86_64":
        r = Run([builds["fp"], "unmap", "40"], work, "c_unmap")
        if r.basic("C frame pointer on a page unmapped since its check"):
            faulted = r.sp.counts.get("faulted", 0)
            check(faulted >= 5, "C unmap: the handler's faulting reads were caught (%d of 40 rounds)" % faulted)
            # 40 rounds of 10 ms at 1 kHz on wall-clock time: about 400 samples, 178 on a
            # loaded machine; one a round at least (the thread waited for ever for the
            # sample that faulted before: 2)
            ss = r.samples(2)
            check(len(ss) >= 40, "C unmap: and the thread was sampled all along (%d samples)" % len(ss))

    # the program's own faults stay its own: its handler runs, or it dies as it would untraced
    r = Run([builds["fp"], "segv", "0"], work, "c_segv")
    check(r.rc == 3 and "ok caught" in r.out, "C segv: the program's own SIGSEGV handler runs",
          "rc %s out %r" % (r.rc, r.out))
    r = Run([builds["fp"], "crash", "0"], work, "c_crash")
    check(r.rc == -signal.SIGSEGV, "C crash: a fault of the program's kills it by SIGSEGV, as untraced",
          "rc %s" % r.rc)
    check("kgantt: SIGSEGV at 0x8, pc" in r.err and "(in host_prog_fp+0x" in r.err,
          "C crash: and the recorder says where it was, in the program's code", r.err[-500:])
    check("; on its stack: in " in r.err,
          "C crash: and the code addresses on its stack (the calls that led there)", r.err[-500:])


# ------------------------------------------------------------------ Python

def python(py, work):
    v = subprocess.check_output([py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                universal_newlines=True).strip()
    tag = "py" + v
    prog = os.path.join(HERE, "host_workload.py")

    r = Run([py, prog, "threads", ARGS.shim], work, tag + "_threads")
    if not r.basic("Python %s threads" % v):
        return
    j = r.json()
    s = r.sp.settings
    check(s["python"] == 1 and s["python_version"] == int(v.split(".")[0]) << 8 | int(v.split(".")[1]),
          "%s: the sampler reads this interpreter's frames (%s)" % (v, s["python_why"]))
    main = r.thread(j["main_tid"])
    tid = {k: r.thread(t) for k, t in j["tids"].items()}
    check(main is not None and all(tid.values()), "%s: every Python thread is sampled" % v,
          "%s %s" % (main, tid))
    if main is None or not all(tid.values()):
        return

    def inner(smp):
        fr = r.python_frames(smp)
        return fr[0][0] if fr else None

    spin = r.samples(main, j["spin_start"], j["spin_end"])
    check(share(spin, lambda x: inner(x) in ("main_spin", "threads.<locals>.on_alarm", "on_alarm")) >= 0.8,
          "%s: main thread on CPU: innermost Python frame main_spin() (%d samples)" % (v, len(spin)),
          str(collections.Counter(inner(x) for x in spin).most_common(4)))
    whole = [x for x in spin if inner(x) == "main_spin"]
    check(share(whole, lambda x: [f[0] for f in r.python_frames(x)][1:3] == ["threads", "<module>"]) >= 0.95,
          "%s: ... with the whole Python stack: main_spin <- threads <- <module>" % v)
    running = [x for x in whole if x.where == "running" and not r.frames.frames.get(x.stack, [(0,)])[0][0] == 0]
    check(share(running, lambda x: x.state & host_spool.S_GIL) >= 0.9,
          "%s: running bytecode, it holds the GIL (%d of %d samples)" % (
              v, sum(1 for x in running if x.state & host_spool.S_GIL), len(running)))
    slp = r.samples(main, j["sleep_start"], j["sleep_end"])
    check(share(slp, lambda x: inner(x) == "main_sleep" and x.off_cpu) >= 0.8,
          "%s: main thread in time.sleep(): main_sleep(), off CPU (%d samples)" % (v, len(slp)),
          str(collections.Counter((inner(x), x.where) for x in slp).most_common(4)))
    check(len(slp) >= 0.5 * 0.6 * HZ, "%s: ... on wall-clock time (%d samples in 0.6 s)" % (v, len(slp)))

    sl = r.samples(tid["sleeper"])
    check(share(sl, lambda x: inner(x) == "thread_sleep" and x.off_cpu) >= 0.8,
          "%s: a sleeping Python thread: thread_sleep(), off CPU (%d samples)" % (v, len(sl)),
          str(collections.Counter((inner(x), x.where) for x in sl).most_common(4)))
    lib = [f[0] for f in r.python_frames(sl[len(sl) // 2])] if sl else []
    check(in_order(lib, "thread_sleep", "Thread.run" if v != "3.10" else "run",
                   "Thread._bootstrap_inner" if v != "3.10" else "_bootstrap_inner"),
          "%s: ... library frames included: %s" % (v, " <- ".join(lib)))
    wt = r.samples(tid["waiter"])
    check(share(wt, lambda x: "thread_wait" in [f[0] for f in r.python_frames(x)] and x.off_cpu) >= 0.8,
          "%s: a thread waiting on queue.get(): off CPU under thread_wait() (%d samples)" % (v, len(wt)))
    check(share(wt, lambda x: any(f[1] == "queue.py" for f in r.python_frames(x))) >= 0.8,
          "%s: ... through queue.py" % v)
    for name in ("spin1", "spin2"):
        ts = r.samples(tid[name])
        check(share(ts, lambda x: inner(x) == "thread_spin") >= 0.8,
              "%s: Python thread %s: thread_spin() (%d samples)" % (v, name, len(ts)))
    # on CPU: after the call the thread waits for the GIL again, which on a loaded machine
    # (3.10, make test beside a build: 311 of 1,427 samples in a futex wait) is long
    ng = [x for x in r.samples(tid["nogil"]) if x.where != "idle" and not x.off_cpu]
    check(share(ng, lambda x: r.names(x)[:1] == ["host_shim_spin"]) >= 0.8,
          "%s: native code without the GIL: innermost frame host_shim_spin() (%d samples)" % (v, len(ng)),
          str(collections.Counter(tuple(r.names(x)[:2]) for x in ng).most_common(3)))
    check(share(ng, lambda x: "native_nogil" in [f[0] for f in r.python_frames(x)]) >= 0.8,
          "%s: ... under the Python frame that called it, native_nogil()" % v)
    check(share(ng, lambda x: not x.state & host_spool.S_GIL) >= 0.95, "%s: ... without the GIL" % v)
    allpy = [x for x in r.sp.samples if x.thread in (main, *tid.values())]
    check(share(allpy, lambda x: x.state & host_spool.S_PYTHON) >= 0.99, "%s: Python threads say so" % v)
    gw = sum(1 for x in allpy if x.where == "gil_wait")
    check(gw > 0, "%s: threads waiting for the GIL are told (%d samples)" % (v, gw))
    check(j["child_status"] == 7 and len(r.spools) == 1,
          "%s: fork(): the child ran and exited 7; it wrote no spool and the parent sampled on" % v)
    check(j["alarms"] >= 10 and 0.6 <= j["main_slept"] < 0.8 and j["thread_slept"] >= 1.2,
          "%s: its own SIGALRM at 100 Hz ran its handler %d times; sleeps took their time (%.3f, %.3f s)" % (
              v, j["alarms"], j["main_slept"], j["thread_slept"]))
    ends = sum(1 for t in r.sp.threads.values() for e in t["events"] if e[0] == 3)
    check(ends == len(r.sp.threads), "%s: every thread has its end record" % v)

    r = Run([py, prog, "bench", ARGS.shim], work, tag + "_bench")
    if r.basic("Python %s handler's cost" % v):
        costs = r.json()
        print("     cost: %s ns a sample in the handler for Python stacks of 3, 13, 23, 43 frames "
              "(a signal's delivery and return: %s ns more)" % (
                  ", ".join(str(costs[k][0]) for k in ("3", "13", "23", "43")), costs["23"][1]))

    r = Run([py, prog, "gc"], work, tag + "_gc")
    if r.basic("Python %s garbage collection" % v):
        j = r.json()
        main = r.thread(j["main_tid"])
        in_gc = r.samples(main, j["gc_start"], j["gc_end"])
        spin = r.samples(main, j["spin_start"], j["spin_end"])
        said = lambda x: "<gc>" in r.names(x)
        truth = j["gc_s"] / ((j["gc_end"] - j["gc_start"]) / 1e9)
        check(in_gc and share(in_gc, said) >= truth - 0.15,
              "%s: the collector running is a <gc> frame: %.0f %% of the samples (%d) while it ran "
              "%.0f %% of the time" % (v, 100 * share(in_gc, said) if in_gc else 0, len(in_gc), 100 * truth),
              str(collections.Counter(tuple(r.names(x)[:3]) for x in in_gc).most_common(3)))
        check(spin and share(spin, said) == 0, "%s: ... and no <gc> frame in code that makes no garbage "
              "(%d samples)" % (v, len(spin)))
        gcs = [x for x in in_gc if said(x)]
        # gc.collect() has no frame of its own; the heap's list comprehension (a frame of its
        # own before 3.12) triggers automatic collections as it grows
        check(share(gcs, lambda x: [f[0] for f in r.python_frames(x) if "<listcomp>" not in f[0]][:2]
                    == ["collect_garbage", "garbage"]) >= 0.95,
              "%s: ... under the Python frames that ran it: collect_garbage <- garbage" % v,
              str(collections.Counter(r.frames.label(x.stack) for x in gcs).most_common(3)))

    r = Run([py, prog, "takeover"], work, tag + "_takeover")
    if r.basic("Python %s takes the sampler's signal" % v):
        j = r.json()
        late = [x for x in r.sp.samples if x.ts > j["took"] + 50 * 10 ** 6]
        said = [t for lvl, t in r.sp.statuses if "installed its own handler" in t]
        check(said and not late, "%s: a program that takes the sampler's signal stops the sampling, "
                                 "saying so (%d of our signals reached its handler)" % (v, j["handled"]),
              "%d samples after, status %s" % (len(late), r.sp.statuses))

    r = Run([py, prog, "churn"], work, tag + "_churn")
    if r.basic("Python %s 300 short threads" % v):
        bad = [t for t in r.sp.threads.values()
               if [e for e, _ in t["events"]][:1] != [1] or t["events"][-1][0] != 3]
        check(not bad, "%s: threads that come and go: each starts and ends in the spool (%d threads)" % (
            v, len(r.sp.threads)), str(bad[:3]))

    for i in range(5):
        r = Run([py, prog, "exec"], work, tag + "_exec%d" % i)
        if not check(r.rc == 0 and '"execed": true' in r.out,
                     "%s: execve() while threads are sampled: the new program runs (%d of 5)" % (v, i + 1),
                     "rc %s out %r err %s" % (r.rc, r.out, r.err[-500:])):
            break

    r = Run([py, prog, "exit"], work, tag + "_exit")
    if r.basic("Python %s exits with daemon threads running" % v):
        check(len(r.sp.samples) > 0, "%s: exit with threads still running: no hang, last samples written" % v)


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--native", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("pythons", nargs="*")
    ARGS = ap.parse_args()
    ARGS.shim = os.path.abspath(os.path.join(ARGS.build, "tests/py/host_shim.so"))
    ARGS.kgantt = os.path.abspath(os.path.join(ARGS.build, "kgantt"))
    run_all()
    if FAILED:
        # Many checks hold timings (samples in a sleep, alarms in a second) that a loaded
        # machine can miss once: a failure is a check that fails again in a second run.
        first = list(FAILED)
        print("hostsample: %d failed in the first run:%s\nhostsample: running everything again" % (
            len(first), "".join("\n  FAIL " + w for w in first)))
        FAILED.clear()
        run_all()
        again = [w for w in FAILED if w in first]
        print("hostsample: of the first run's failures, %d failed again" % len(again))
    print("hostsample: %d failed%s" % (len(FAILED), "".join("\n  FAIL " + w for w in FAILED)))
    sys.exit(1 if FAILED else 0)


def run_all():
    work = tempfile.mkdtemp(prefix="kgantt-host-")
    try:
        if ARGS.native:
            native(work)
        for py in ARGS.pythons:
            python(py, work)
    finally:
        if ARGS.keep:
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
