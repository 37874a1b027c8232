"""Reads the host-sample records of a recorder spool (src/recorder/raw_format.h,
docs/raw-spool.md), for tests/py/test_hostsample.py and tests/gpu/host_samples_h200.sh.

    python3 tests/py/host_spool.py SPOOL.kgspool|DIR [TRACE.kgt]

prints, per thread, its samples by state and its top stacks. With TRACE (the same spool
through `kgantt import`), stacks are named by their symbolised frames from the trace's
stacks and stack_frames tables; without it, by their raw addresses and code ids.

The trace side of host samples (importing them into the trace) is not written yet: this
reader goes to the spool for the samples and to the trace only for the frames.
"""
import collections
import os
import sqlite3
import struct
import sys

MAGIC = b"KGSPOOL\0"
T_PROCESS, T_STRING, T_STATUS, T_STACK, T_END = 1, 2, 3, 19, 16
T_HOST_SETTINGS, T_HOST_THREAD, T_HOST_SAMPLES, T_HOST_COUNTS = 26, 27, 28, 29

STATES = {0: "running", 1: "in_kernel", 2: "blocked", 3: "gil_wait", 4: "idle", 7: "unknown"}
S_PYTHON, S_GIL, S_CPU_TIMER, S_NATIVE_CUT, S_PYTHON_CUT = 0x08, 0x10, 0x20, 0x40, 0x80
COUNT_FIELDS = ("taken", "written", "lost_ring", "lost_pending", "lost_threads", "no_stack",
                "stale", "overruns", "python_cut", "codes_busy", "native_cut", "page_checks",
                "handler_ns", "threads", "timer_errors", "handler_p50_ns", "handler_p90_ns", "faulted")


class Sample(collections.namedtuple("Sample", "ts stack thread state overrun")):
    @property
    def where(self):
        return STATES.get(self.state & 7, "?")

    @property
    def off_cpu(self):
        return self.state & 7 in (2, 3, 4)


class Spool:
    """One process's spool: settings, threads, samples, counts, stacks (raw), statuses."""

    def __init__(self, path):
        self.path = path
        self.strings = {}
        self.settings = None
        self.threads = {}       # number -> dict (tid, pthread, name, flags, events)
        self.samples = []
        self.counts = None
        self.stacks = {}        # id -> (flags, [native], [(code, lasti)])
        self.statuses = []
        self.pid = None
        self.ended = False
        data = open(path, "rb").read()
        if data[:8] != MAGIC:
            raise ValueError("%s: not a spool" % path)
        off = struct.unpack_from("<I", data, 12)[0]
        while off + 8 <= len(data):
            typ, _flags, size = struct.unpack_from("<HHI", data, off)
            if size < 8 or off + size > len(data):
                break
            self._record(typ, data, off, size)
            off += size
        self.samples.sort()

    def _record(self, typ, d, o, size):
        if typ == T_STRING:
            sid, n = struct.unpack_from("<II", d, o + 8)
            self.strings[sid] = d[o + 16:o + 16 + n].decode("utf-8", "replace")
        elif typ == T_PROCESS:
            self.pid = struct.unpack_from("<I", d, o + 8)[0]
        elif typ == T_END:
            self.ended = True
        elif typ == T_STATUS:
            ts, level, s = struct.unpack_from("<QII", d, o + 8)
            self.statuses.append((level, self.strings.get(s, "")))
        elif typ == T_STACK:
            sid, flags, nn, npy = struct.unpack_from("<IIHH", d, o + 8)
            ips = list(struct.unpack_from("<%dQ" % nn, d, o + 24))
            py = [struct.unpack_from("<Ii", d, o + 24 + 8 * nn + 8 * i) for i in range(npy)]
            self.stacks[sid] = (flags, ips, py)
        elif typ == T_HOST_SETTINGS:
            f = struct.unpack_from("<QIiIIIiIII", d, o + 8)
            self.settings = dict(zip(("ts", "hz", "signal", "max_native", "max_python",
                                      "unwind", "python", "python_version", "python_str",
                                      "note_str"), f))
            self.settings["python_why"] = self.strings.get(f[8], "")
            self.settings["note"] = self.strings.get(f[9], "")
        elif typ == T_HOST_THREAD:
            ts, pthread, num, tid, event, flags, name = struct.unpack_from("<QQIIIII", d, o + 8)
            t = self.threads.setdefault(num, {"number": num, "events": []})
            t.update(tid=tid, pthread=pthread or t.get("pthread", 0), flags=flags | t.get("flags", 0))
            if name:
                t["name"] = self.strings.get(name, "")
            t["events"].append((event, ts))
        elif typ == T_HOST_SAMPLES:
            base, count = struct.unpack_from("<QI", d, o + 8)
            if 24 + 12 * count > size:
                raise ValueError("%s: samples record of %d bytes holds %d samples" % (self.path, size, count))
            for i in range(count):
                dt, stack, thread, state, overrun = struct.unpack_from("<IIHBB", d, o + 24 + 12 * i)
                self.samples.append(Sample(base + dt, stack, thread, state, overrun))
        elif typ == T_HOST_COUNTS:
            vals = struct.unpack_from("<Q%dQ" % len(COUNT_FIELDS), d, o + 8)
            self.counts = dict(zip(COUNT_FIELDS, vals[1:]))

    def by_thread(self):
        out = collections.defaultdict(list)
        for s in self.samples:
            out[s.thread].append(s)
        return out

    def thread_named(self, name):
        return [t for t in self.threads.values() if t.get("name") == name]


def spools(path):
    if os.path.isdir(path):
        return [Spool(os.path.join(path, f)) for f in sorted(os.listdir(path)) if f.endswith(".kgspool")]
    return [Spool(path)]


class Frames:
    """Symbolised stacks of a trace: stack id -> [(kind, function, file, line, module)],
    innermost first (kind 0 native, 1 Python), and the stack's flags."""

    def __init__(self, trace):
        db = sqlite3.connect(trace)
        self.frames = collections.defaultdict(list)
        self.flags = {}
        for sid, flags in db.execute("SELECT id, flags FROM stacks"):
            self.flags[sid] = flags
        names = dict(db.execute("SELECT id, text FROM strings")) if _has(db, "strings") else {}
        cols = [r[1] for r in db.execute("PRAGMA table_info(stack_frames)")]
        rows = db.execute("SELECT * FROM stack_frames ORDER BY stack, depth")
        for row in rows:
            r = dict(zip(cols, row))
            get = lambda k: names.get(r.get(k), r.get(k)) if isinstance(r.get(k), int) and k != "line" else r.get(k)
            self.frames[r["stack"]].append((r.get("kind"), get("function"), get("file"), r.get("line"), get("module")))

    def names(self, sid):
        return [f[1] or "?" for f in self.frames.get(sid, [])]

    def label(self, sid, depth=6):
        out = []
        for kind, fn, file, line, module in self.frames.get(sid, [])[:depth]:
            where = "%s:%s" % (os.path.basename(file), line) if file else os.path.basename(module or "?")
            out.append("%s (%s)" % (fn or "?", where))
        return " <- ".join(out) or "(no frames)"


def _has(db, table):
    return db.execute("SELECT 1 FROM sqlite_master WHERE name=?", (table,)).fetchone() is not None


def summary(sp, frames=None, top=5):
    lines = []
    s = sp.settings or {}
    lines.append("process %s: %s Hz, signal %s, python %s (%s)%s" % (
        sp.pid, s.get("hz"), s.get("signal"), s.get("python"), s.get("python_why"),
        ", note: " + s["note"] if s.get("note") else ""))
    if sp.counts:
        c = sp.counts
        lines.append("  counts: " + ", ".join("%s %d" % (k, c[k]) for k in COUNT_FIELDS))
        if c["taken"]:
            lines.append("  handler: %.0f ns a sample (median %d, 9 in 10 under %d), %.2f page checks a sample" % (
                c["handler_ns"] / c["taken"], c["handler_p50_ns"], c["handler_p90_ns"], c["page_checks"] / c["taken"]))
    for num, samples in sorted(sp.by_thread().items()):
        t = sp.threads.get(num, {})
        states = collections.Counter(x.where for x in samples)
        lines.append("  thread %d tid %s '%s' flags %s: %d samples %s" % (
            num, t.get("tid"), t.get("name"), t.get("flags"), len(samples), dict(states)))
        for sid, n in collections.Counter(x.stack for x in samples).most_common(top):
            lines.append("    %5d  %s" % (n, frames.label(sid) if frames else sp.stacks.get(sid)))
    return "\n".join(lines)


if __name__ == "__main__":
    fr = Frames(sys.argv[2]) if len(sys.argv) > 2 else None
    for sp in spools(sys.argv[1]):
        print(summary(sp, fr))
