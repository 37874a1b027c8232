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

examples_diagnosis tests/fixtures/h100 hook
