# Issue 26: full mode with its launch windows from the launch hook (src/preload/
# launch_hook.h) instead of CUPTI's launch callbacks, recorded on an H100 on 2026-12-07 at
# 14:37 UTC by tests/gpu/hook_check.sh (tests/fixtures/h100/hook/): every example, a GPT
# step, the launch loop, a CuPy and a JAX loop, each launching thread keeping its streams'
# ids (src/recorder/hooked_launches.c): a stale one would leave its call without a kernel. Checked downstream of the GPU: every trace is read by
# every command and holds what its example launched; the trace says how its launches were
# sampled; each sampled launch call found the kernel the driver queued while it ran (from
# the raw rows: the kernel's queued time inside the call); each kernel's first launch has
# its call; the examples' diagnosis is the one the H200 traces of the recorder before gave,
# and each planted finding's gain is within 15 % of what diff measures on its fixed twin.
. tests/e2e/lib.sh
command -v python3 > /dev/null || skip "no python3"
H=tests/fixtures/h100/hook
hook() { FIXTURES=tests/fixtures/h100 fixture "hook/$1"; }
recorded_examples tests/fixtures/h100 hook "NVIDIA H100"
for x in loop_hooked cupy_hooked jax_hooked; do hook $x > /dev/null; done

"$K" info "$(hook loop_hooked)" > "$WORK/info" || fail "info"
grep -q "launch calls: sampled by the launch hook, 10 ms in every 100 ms once no new kernel appears, and each kernel's first launch" "$WORK/info" ||
	fail "info does not say the launch hook: $(grep 'launch calls' "$WORK/info")"

python3 - "$H" <<'PY' || fail "the hooked launch calls"
import glob, os, sys
sys.path.insert(0, "tests/gpu")
import kgt_rows
OWN = 0xF0000000  # the recorder's own ids (src/recorder/raw_format.h)
traces = calls = firsts = in_captures = 0
for xz in sorted(glob.glob(os.path.join(sys.argv[1], "*.kgt.xz"))):
    name = os.path.basename(xz)[:-7]
    db = kgt_rows.connect("build/fixtures/hook/%s.kgt" % name)
    if db.execute("SELECT mode FROM processes").fetchone()[0] != "full":
        continue
    how = {p: (c, w) for p, c, w in db.execute("SELECT process, calls, why FROM launch_settings")}
    hooked = [p for p, (c, w) in how.items() if c == "sampled" and w == "the launch hook"]
    if not hooked:
        continue
    traces += 1
    # launches inside a stream capture make no kernel: they go into the graph
    captures = {}
    begun = {}
    for p, t, fn, start, end in db.execute(
            "SELECT process, thread, name, start, end FROM api WHERE name LIKE '%StreamBeginCapture%' "
            "OR name LIKE '%StreamEndCapture%' ORDER BY start"):
        if "Begin" in fn:
            begun[(p, t)] = start
        elif (p, t) in begun:
            captures.setdefault((p, t), []).append((begun.pop((p, t)), end))
    def captured(p, t, start):
        return any(b <= start <= e for b, e in captures.get((p, t), ()))
    # a killed process's last launches may have lost their kernels' records
    cut = {p: q for p, q in db.execute("SELECT p.process, max(k.queued) FROM processes p JOIN "
                                       "kernels k ON k.process = p.process WHERE NOT p.complete "
                                       "GROUP BY p.process")}
    rows = db.execute(
        "SELECT a.process, a.name, a.start, a.end, a.correlation, a.return_value, k.queued, a.thread "
        "FROM api a LEFT JOIN kernels k ON k.process = a.process AND k.correlation = a.correlation "
        "WHERE a.name IN ('cuLaunchKernel', 'cuLaunchKernel_ptsz', 'cuLaunchKernelEx', "
        "'cuLaunchKernelEx_ptsz', 'cuLaunchCooperativeKernel', 'cuLaunchCooperativeKernel_ptsz')"
    ).fetchall()
    for p, fn, start, end, corr, ret, queued, t in rows:
        assert p in hooked, (name, "a driver launch call in a process not hooked")
        assert corr < OWN or ret != 0 or captured(p, t, start) or start > cut.get(p, end), \
            (name, fn, start, "a call that found no kernel, not captured", ret)
        if corr >= OWN and ret == 0:
            in_captures += 1
        if corr < OWN:
            assert queued is not None and start <= queued <= end, \
                (name, fn, start, end, queued, "its kernel was not queued inside it")
    calls += len(rows)
    # no runtime launch call: the windows took none from CUPTI's callbacks
    n = db.execute("SELECT count(*) FROM api WHERE name LIKE 'cudaLaunchKernel%'").fetchone()[0]
    assert n == 0, (name, n, "runtime launch calls")
    # each kernel's first launch (by name, outside graphs) has its call
    first = db.execute(
        "SELECT k.name, min(k.queued) FROM kernels k WHERE k.graph IS NULL AND k.queued IS NOT NULL "
        "GROUP BY k.process, k.name").fetchall()
    have = set(q for (q,) in db.execute(
        "SELECT k.queued FROM kernels k JOIN api a ON a.process = k.process AND "
        "a.correlation = k.correlation WHERE a.name LIKE 'cuLaunch%'"))
    missing = [n for n, q in first if q not in have]
    assert not missing, (name, len(missing), "kernels' first launches without their call")
    firsts += len(first)
assert traces >= 18 and calls > 10000 and in_captures > 0, (traces, calls, in_captures)
print("ok: %d traces sampled by the launch hook: %d driver launch calls, each with the kernel "
      "queued inside it but %d inside stream captures (no kernel); the first launches of %d "
      "kernels each with its call" % (traces, calls, in_captures, firsts))
PY

# The recorder times each call stack it takes on the program's thread (an overheads row of
# kgantt's kind, src/util/tracer_work.h): one row per call site, on the call's thread, the
# call named by its correlation id; a hooked launch's stack just before its call (the call's
# time leaves the unwinding out), a callback's inside its call.
python3 - "$H" <<'PY' || fail "the recorder's timed stacks"
import glob, os, sys
sys.path.insert(0, "tests/gpu")
import kgt_rows
STACK = 0x4B470001
traces = timed = hooked = 0
for xz in sorted(glob.glob(os.path.join(sys.argv[1], "*.kgt.xz"))):
    name = os.path.basename(xz)[:-7]
    db = kgt_rows.connect("build/fixtures/hook/%s.kgt" % name)
    sites = db.execute("SELECT count(*) FROM api_stacks").fetchone()[0]
    rows = db.execute("SELECT process, object, object_kind, start, end, correlation FROM overheads "
                      "WHERE kind = ?", (STACK,)).fetchall()
    if not sites:
        assert not rows, (name, len(rows), "stack times without stacks")
        continue
    traces += 1
    assert len(rows) == sites, (name, len(rows), sites, "a stack time for each call site")
    # a runtime call and the driver calls inside it share an id: the outermost is the call
    calls = {}
    for p, t, n, s, e, c in db.execute("SELECT process, thread, name, start, end, correlation "
                                       "FROM api ORDER BY start DESC"):
        calls[(p, c)] = (t, n, s, e)
    for p, tid, kind, s, e, c in rows:
        assert kind == 2 and e > s, (name, kind, s, e)
        t, n, cs, ce = calls[(p, c)]
        assert t == tid, (name, c, "another thread's call")
        if n.startswith("cuLaunch"):
            assert e <= cs < e + 50000, (name, n, s, e, cs, "not just before its hooked call")
            hooked += 1
        else:
            assert cs <= s and e <= ce, (name, n, s, e, cs, ce, "not inside its call")
    timed += len(rows)
assert traces >= 18 and hooked > 100, (traces, hooked)
print("ok: %d traces: %d stacks timed, each on its call's thread, %d just before their hooked "
      "launch calls, the rest inside their calls" % (traces, timed, hooked))
PY

# What the recording line of launch-overhead says the tracer took on the launches' thread,
# recounted from the raw rows: the tiny kernels' gaps as docs/rules.md counts them (both
# under 20 us, none after a launch call of 1 ms or more, none longer than both 10 us and
# 10 times the upper median), the tracer's overhead rows of that thread inside them, each
# gap's part scaled to its gain (the gap less 150 ns).
lb=$(hook launches_bad)
"$K" report --json --no-progress "$lb" > "$WORK/lb.json" || fail "report --json launches_bad"
python3 - "$lb" "$WORK/lb.json" <<'PY' || fail "the recording line of launches_bad"
import json, sys
sys.path.insert(0, "tests/gpu")
import kgt_rows
TRACER = (1 << 16, 2 << 16, 3 << 16, 7 << 16, 0x4B470001)
TINY, SLOW, GRAPH_GAP, SPREAD, SYNC_GAP = 20000, 1000000, 150, 10, 10000
db = kgt_rows.connect(sys.argv[1])
(thread,) = db.execute("SELECT thread FROM api WHERE name LIKE 'cuLaunch%' GROUP BY thread "
                       "ORDER BY count(*) DESC LIMIT 1").fetchone()
call_ns = {c: e - s for c, s, e in db.execute("SELECT correlation, start, end FROM api")}
ops = sorted(db.execute("SELECT start, end, correlation, 1 FROM kernels UNION ALL "
                        "SELECT start, end, 0, 0 FROM memsets UNION ALL "
                        "SELECT start, end, 0, 0 FROM memcpys").fetchall())
busy_end, prev, gaps = None, None, []
for s, e, c, is_kernel in ops:
    if (prev and prev[3] and is_kernel and prev[1] - prev[0] < TINY and e - s < TINY
            and s > busy_end and call_ns.get(c, 0) < SLOW):
        gaps.append((busy_end, s))
    busy_end = e if busy_end is None else max(busy_end, e)
    prev = (s, e, c, is_kernel)
lens = sorted(b - a for a, b in gaps)
limit = max(SYNC_GAP, SPREAD * lens[len(lens) // 2])
counted = [(a, b) for a, b in gaps if b - a <= limit]
spans = db.execute("SELECT start, end FROM overheads WHERE object_kind = 2 AND object = ? AND "
                   "kind IN (%s) ORDER BY start" % ",".join(map(str, TRACER)), (thread,)).fetchall()
stacks = db.execute("SELECT count(*) FROM overheads WHERE object = ? AND kind = ?",
                    (thread, TRACER[-1])).fetchone()[0]
want, k = 0.0, 0
for a, b in counted:  # both in time order, the gaps apart
    while k < len(spans) and spans[k][1] <= a:
        k += 1
    j = k
    while j < len(spans) and spans[j][0] < b:
        want += (min(b, spans[j][1]) - max(a, spans[j][0])) * (b - a - GRAPH_GAP) / (b - a)
        j += 1
f = [f for f in json.load(open(sys.argv[2], encoding="utf-8"))["findings"]
     if f["rule"] == "launch-overhead"][0]
host = f["host"]
if host.get("too_few_samples"):
    got = host["tracer_records_ns"]
    assert abs(got - want) <= 0.02 * want + 1000, (got, want)
else:
    got = sum(c["ns"] for c in host["causes"] if c["cause"] == "tracing")
    assert got >= 0.98 * want, (got, want)
assert stacks > 100 and want > 0, (stacks, want)
print("ok: launches_bad: %d gaps counted, %d stacks timed on the launching thread; the tracer's "
      "part of launch-overhead's gain %.3f ms, recounted %.3f ms" % (len(counted), stacks, got / 1e6,
                                                                    want / 1e6))
PY

examples_diagnosis tests/fixtures/h100 hook
