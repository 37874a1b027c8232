#!/usr/bin/env python3
"""kineto_call_sites.py TRACE.json[.gz] — the Python line behind each CUDA call of a
PyTorch 1.8-1.10 profiler trace recorded with with_stack=True, recounted from the raw
events without kgantt (tests/e2e/t110_call_stacks.sh checks kgantt's stacks against it).

Those releases write no python_function events: each host operator carries its Python
stack in args "Call stack", "FILE(LINE): FUNCTION" frames innermost first, ';' between.
A call's Python line is the innermost frame of the outermost operator enclosing it (same
pid and tid, the call inside the operator's time to 1 µs) whose stack holds a frame
other than the profiler's own (torch/autograd/profiler.py, torch/profiler/...); the
ProfilerStep#N operators are steps, not callers. Prints one JSON object: correlation →
"FILE:LINE FUNCTION", or null for a call no such operator encloses.
"""
import gzip
import json
import re
import sys

CALLS = ("cuda_runtime", "cuda_driver", "Runtime", "Driver")
OPS = ("cpu_op", "Operator")
PROFILER = ("torch/autograd/profiler.py", "torch/profiler/", "torch/autograd/profiler_util.py")
FRAME = re.compile(r"^(.*)\((\d+)\): (.*)$")
TOLERANCE_US = 1.0


def user_frames(stack):
    out = []
    for text in stack.split(";"):
        m = FRAME.match(text)
        if not text or (m and any(p in m.group(1) for p in PROFILER)):
            continue
        out.append(f"{m.group(1)}:{m.group(2)} {m.group(3)}" if m else text)
    return out


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        ev = json.load(f)["traceEvents"]
    ops, calls = {}, {}
    for e in ev:
        if e.get("ph") != "X" or "dur" not in e:
            continue
        cat, s = e.get("cat"), float(e["ts"])
        key = (e.get("pid"), e.get("tid"))
        if cat in CALLS:
            calls.setdefault(key, []).append((s, s + float(e["dur"]), e["args"]["correlation"]))
        elif cat in OPS and not e["name"].startswith("ProfilerStep#"):
            frames = user_frames(e.get("args", {}).get("Call stack", ""))
            ops.setdefault(key, []).append((s, -(s + float(e["dur"])), frames))
    out = {}
    for key, cs in calls.items():
        todo = sorted(ops.get(key, []))  # by start, the longest first
        open_ops, i = [], 0
        for s, e, corr in sorted(cs):
            while i < len(todo) and todo[i][0] <= s:
                open_ops.append(todo[i])
                i += 1
            open_ops = [o for o in open_ops if -o[1] >= s]
            line = None
            for o in open_ops:  # in start order: the outermost first
                if -o[1] >= e - TOLERANCE_US and o[2]:
                    line = o[2][0]
                    break
            out[str(corr)] = line
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
