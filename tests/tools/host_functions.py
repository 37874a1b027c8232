"""Each function's time in the host tree of kgantt's `report --json --host`: the totals of
its nodes, the outermost on each path (a recursive function counted once), as
tests/tools/expect_nsys_host.py counts a function once per sample or call. For the tests
that compare the two (t106 on exports of kgantt's own traces, t121 on real exports)."""


def functions(report):
    nodes = report["host"]["nodes"]
    out = {}
    for n in nodes:
        f = n["frame"].get("function")
        p, inner = n["parent"], False
        while p is not None and not inner:
            inner = nodes[p]["frame"].get("function") == f
            p = nodes[p]["parent"]
        if f and not inner:
            out[f] = out.get(f, 0) + n["total_ns"]
    return out
